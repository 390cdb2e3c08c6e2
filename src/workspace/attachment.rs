//! Attachments under review: a file that is not text (an image, a PDF)
//! moved or deleted as a whole. It has no text to review or to write: the
//! working state shows its bytes where the move puts it, a save renames or
//! removes it (or brings it back whole from the content store, where its
//! bytes went when the proposal was staged), and a rollback puts those
//! bytes back where they were at the next save.

use super::{Workspace, WorkspaceError};
use crate::project::Overlay;
use crate::review::FileReview;

/// Lays the attachment `file` over `overlay`: absent from the paths the
/// working state does not show it at, and at the one it does, the bytes
/// the disk has wherever they are now.
pub(super) fn lay_over(overlay: &mut Overlay, file: &FileReview) {
    let shown = file.view_path();
    let on_disk = file.disk_hash.as_ref().and(file.disk_path());
    for path in file.paths() {
        if Some(path) != shown && (path == file.path || Some(path) == on_disk) {
            overlay.insert(path, None);
        }
    }
    if let (Some(at), Some(from)) = (shown, on_disk)
        && at != from
    {
        overlay.insert_moved(at, from);
    }
}

impl Workspace {
    /// Saves the attachment `path`: puts it where its decisions leave it
    /// (the move's target, its own path, or nowhere), each step checked
    /// against the bytes Redline knows and recorded before the next. A file
    /// whose deletion was saved and then undone comes back from the
    /// content store.
    pub(super) fn save_attachment(&mut self, path: &str) -> Result<(), WorkspaceError> {
        let file = self.review.file(path).expect("under review");
        let hash = file.binary().expect("an attachment").to_owned();
        let now = file
            .disk_hash
            .as_ref()
            .and(file.disk_path())
            .map(str::to_owned);
        let want = file.saved_path().map(str::to_owned);
        match (now, want) {
            (Some(at), None) => {
                let known = file.disk_hash.clone().expect("on disk");
                self.project.remove_checked(&at, &known)?;
                let file = self.review.file_mut(path).expect("under review");
                file.disk_hash = None;
                file.set_op_done(true);
            }
            (Some(at), Some(want)) if at != want => {
                let known = file.disk_hash.clone().expect("on disk");
                self.project.rename_checked(&at, &want, &known)?;
                let file = self.review.file_mut(path).expect("under review");
                file.set_op_done(want != path);
            }
            (None, Some(want)) => {
                let bytes = self.store.bytes(&hash)?;
                self.store
                    .intend_writes(&[(path.to_owned(), hash.clone())])?;
                let written = self.project.write_checked(&want, &bytes, None);
                if let Err(e) = written {
                    self.store.settle_writes(&[(path.to_owned(), None)])?;
                    return Err(e.into());
                }
                let file = self.review.file_mut(path).expect("under review");
                file.disk_hash = Some(hash);
                file.set_op_done(want != path);
            }
            _ => return Ok(()),
        }
        self.store
            .save_file(self.review.file(path).expect("under review"))?;
        Ok(())
    }
}
