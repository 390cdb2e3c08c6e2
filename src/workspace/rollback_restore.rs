//! A rollback putting one file back as a checkpoint's snapshot has it, in
//! the working state: found where it is under review now, restored, or
//! removed when the run created it.

use std::collections::BTreeSet;

use super::{Workspace, WorkspaceError};
use crate::checkpoints::{
    Checkpoint, CheckpointKind, FileSnapshot, RolledBackFile, edited_since_created,
};
use crate::review::{FileReview, Status};

/// Where a file of a checkpoint is under review now.
pub(super) struct Holder {
    /// Its path in review: the checkpoint's, or the one a settled move of
    /// it took it to.
    pub(super) key: String,
    /// `sha256:` of what Redline last read or wrote on disk.
    disk_hash: Option<String>,
    /// Where the disk has it now; `None` when nowhere.
    at: Option<String>,
    /// Whether the user typed in it.
    edited: bool,
    /// Whether a run created it (rather than a move brought it there).
    created: bool,
}

impl Workspace {
    /// The file under review that holds `path` of a checkpoint now: the one
    /// that holds the checkpoint's hunks of it (`hunk_ids`), where a settled
    /// move took it to another path, else the one holding an entry of the
    /// snapshot's log (the user's typing: a note with no hunk then), else
    /// the file of that path or the one a move takes there, else the one a
    /// saved move took from that path (moved again since, it is keyed
    /// where that move took it). What the note had comes first: the file
    /// put back holds it, and a note an earlier rollback restored at its old
    /// path (while it stayed with the moved file) is the same note twice.
    pub(super) fn holder(
        &self,
        path: &str,
        hunk_ids: &[String],
        snapshot: &FileSnapshot,
    ) -> Option<Holder> {
        let logged: BTreeSet<&str> = snapshot
            .log
            .iter()
            .flat_map(|log| &log.entries)
            .map(|e| e.id.as_str())
            .collect();
        let file = hunk_ids
            .iter()
            .find_map(|h| self.review.find_hunk(h).ok())
            .and_then(|(key, _)| self.review.file(&key))
            .or_else(|| {
                self.review
                    .files()
                    .find(|f| f.entries().iter().any(|e| logged.contains(e.id.as_str())))
            })
            .or_else(|| self.review.file_of(path))
            .or_else(|| {
                self.review
                    .files()
                    .find(|f| f.moved_from().any(|past| past.path == path))
            })?;
        Some(Holder {
            key: file.path.clone(),
            disk_hash: file.disk_hash.clone(),
            at: file
                .disk_hash
                .as_ref()
                .and(file.disk_path())
                .map(str::to_owned),
            edited: edited_since_created(file),
            created: file.created,
        })
    }

    /// Puts one file back as `snapshot` has it, in the working state only.
    pub(super) fn restore(
        &mut self,
        path: &str,
        snapshot: &FileSnapshot,
        hunk_ids: &[String],
        checkpoint: &Checkpoint,
    ) -> Result<RolledBackFile, WorkspaceError> {
        let done = |status: &str, message| RolledBackFile::new(path, status, message);
        let holder = self.holder(path, hunk_ids, snapshot);
        let job = checkpoint.job_id.as_deref();
        if let Some(holder) = &holder
            && snapshot.text.is_none()
            && !snapshot.binary
            && holder.key != path
        {
            // Where a move took a file: the file goes back with its own
            // path's snapshot.
            return Ok(done("removed", None));
        }
        if snapshot.binary {
            return self.restore_attachment(path, snapshot, holder, job);
        }
        let (disk_hash, at) = match &holder {
            Some(holder) => (holder.disk_hash.clone(), holder.at.clone()),
            None => {
                // Not under review now: on disk at its path, or where the
                // move it had then took it (a save carried it out).
                let target = snapshot.op.as_ref().and_then(|op| op.op.target());
                let mut found = (self.project.disk_hash(path)?, Some(path));
                if let (None, Some(to)) = (&found.0, target) {
                    found = (self.project.disk_hash(to)?, Some(to));
                }
                let at = found.0.as_ref().and(found.1).map(str::to_owned);
                (found.0, at)
            }
        };
        if let Some(mut restored) = snapshot.restore(path, disk_hash.clone()) {
            restored.disk_hash = disk_hash;
            let restored = with_op(restored, snapshot);
            if let (Some(op), Some(at)) = (restored.op(), at.as_deref())
                && at != path
                && op.op.target() != Some(at)
                && restored.entries()[op.entry].status != Status::Rejected
            {
                return Err(WorkspaceError::MovedSince {
                    path: path.to_owned(),
                    at: at.to_owned(),
                });
            }
            let key = holder.as_ref().map(|h| h.key.as_str());
            self.review
                .put_back(restored, key, at.as_deref(), None, job);
            return Ok(done("restored", None));
        }
        // The run created the file: it goes, unless someone wrote to it since.
        let Some(holder) = holder else {
            return Ok(match disk_hash {
                None => done("removed", None),
                Some(_) => done(
                    "kept",
                    Some("created by the run and no longer under review; it is kept".into()),
                ),
            });
        };
        if checkpoint.kind == CheckpointKind::Rollback && !holder.created {
            // Undoing a rollback: nothing was at this path before it, and the
            // note a move keyed here is put back under the path it had. Where
            // a save since wrote it here and no note put back takes it from
            // here, it is emptied, so that the next save takes it off this
            // path again.
            self.review.remove_file(&holder.key);
            let claimed = self
                .review
                .files()
                .any(|f| f.disk_hash.is_some() && f.disk_path() == Some(path));
            if !claimed
                && holder.at.as_deref() == Some(path)
                && let Some(hash) = holder.disk_hash
            {
                self.review.insert_file(FileReview::new(
                    path.to_owned(),
                    String::new(),
                    Some(hash),
                    true,
                ));
            }
            return Ok(done("removed", None));
        }
        if holder.edited {
            return Ok(done(
                "kept",
                Some("created by the run and edited since; both versions are kept".into()),
            ));
        }
        if holder.at.is_some() && self.project.disk_hash(path)? != holder.disk_hash {
            return Ok(done(
                "kept",
                Some(
                    "created by the run and changed on disk by another program; it is kept".into(),
                ),
            ));
        }
        match holder.disk_hash {
            // On disk: emptied, so that the next save removes it.
            Some(hash) => self.review.insert_file(FileReview::new(
                path.to_owned(),
                String::new(),
                Some(hash),
                true,
            )),
            None => {
                self.review.remove_file(path);
            }
        }
        Ok(done("removed", None))
    }

    /// Puts the attachment `snapshot` keeps back at `path`, in the working
    /// state: under review with its move or deletion as it was then, or with
    /// the one since rejected, so that the next save brings its bytes back
    /// where they were. Bytes another program put there are kept.
    fn restore_attachment(
        &mut self,
        path: &str,
        snapshot: &FileSnapshot,
        holder: Option<Holder>,
        job: Option<&str>,
    ) -> Result<RolledBackFile, WorkspaceError> {
        let done = |status: &str, message| RolledBackFile::new(path, status, message);
        let hash = snapshot.disk_hash.clone().expect("an attachment's hash");
        if let Some(bytes) = &snapshot.bytes {
            // Where a save that brings it back takes its bytes from.
            self.store.put_blob(bytes)?;
        }
        let key = holder.as_ref().map(|h| h.key.clone());
        let (disk_hash, at) = match holder {
            Some(h) => (h.disk_hash, h.at),
            None => {
                let on_disk = self.project.disk_hash(path)?;
                let at = on_disk.as_ref().map(|_| path.to_owned());
                (on_disk, at)
            }
        };
        if let Some(log) = &snapshot.log
            && let Some(file) = FileReview::from_stored(
                path.to_owned(),
                String::new(),
                disk_hash.clone(),
                false,
                log.clone(),
            )
        {
            let file = with_op(file, snapshot);
            self.review
                .put_back(file, key.as_deref(), at.as_deref(), Some(&hash), job);
            return Ok(done("restored", None));
        }
        if at.as_deref() == Some(path) {
            if key.is_none() && disk_hash.as_deref() != Some(hash.as_str()) {
                return Ok(done(
                    "kept",
                    Some("changed on disk by another program since; it is kept".into()),
                ));
            }
            if let Some(key) = &key {
                self.review.remove_file(key);
            }
            return Ok(done("restored", None));
        }
        let file = FileReview::new(path.to_owned(), String::new(), disk_hash, false);
        self.review
            .put_back(file, key.as_deref(), at.as_deref(), Some(&hash), job);
        Ok(done("restored", None))
    }
}

/// `file` with the move or deletion `snapshot` had, if any, and the paths
/// its retired moves took it from.
fn with_op(mut file: FileReview, snapshot: &FileSnapshot) -> FileReview {
    if snapshot.log.is_none() {
        return file;
    }
    if let Some(op) = &snapshot.op
        && op.entry < file.entries().len()
    {
        file.set_op(Some(op.clone()));
    }
    file.set_moved_from(snapshot.moved_from.clone());
    file
}
