//! What happens when another program changes a file: a
//! clean buffer follows the disk; a buffer with unsaved edits or pending
//! hunks keeps both versions as a conflict, which the user resolves by
//! choosing one — the other goes into a checkpoint, so nothing is lost
//! either way. A file another program moves keeps its review at its new
//! path.

use super::files::state_of;
use super::{FileChange, Keep, Resolved, Workspace, WorkspaceError};
use crate::checkpoints::{CheckpointKind, FileSnapshot};
use crate::project::{PathError, text};
use crate::review::ReviewError;
use crate::store::NewCheckpointFile;

impl Workspace {
    /// Takes in a change another program made to `path` on disk: see the
    /// module docs. `None` when the disk holds what Redline last read or
    /// wrote (Redline's own write, or nothing changed).
    pub fn external_change(&mut self, path: &str) -> Result<Option<FileChange>, WorkspaceError> {
        let seen = self.project.resolve(path)?.rel().to_owned();
        let on_disk = self.project.disk_hash(&seen)?;
        let Some(file) = self.review.file_of(&seen) else {
            return Ok(Some(FileChange::Changed {
                path: seen,
                disk_hash: on_disk,
            }));
        };
        if file.disk_path() != Some(seen.as_str()) {
            // A path Redline moved this file from or to, not where it keeps
            // it now: empty is its own doing; anything else is another file.
            return Ok(on_disk.map(|hash| FileChange::Changed {
                path: seen,
                disk_hash: Some(hash),
            }));
        }
        let rel = file.path.clone();
        if on_disk == file.disk_hash {
            return Ok(None);
        }
        // The disk caught up with what a save would write (a terminal agent
        // wrote the text its hook's review decided, another editor saved the
        // same): that is a save, not a conflict. Pending hunks stay pending.
        if on_disk.is_some()
            && file.op().is_none()
            && file.binary().is_none()
            && on_disk.as_deref()
                == Some(text::content_hash(self.review.disk_view(file).as_bytes()).as_str())
        {
            self.review.file_mut(&rel).expect("under review").disk_hash = on_disk.clone();
            self.persist(&rel)?;
            return Ok(Some(FileChange::Reloaded {
                path: rel,
                disk_hash: on_disk,
            }));
        }
        let state = state_of(&self.review, file, &on_disk);
        if state.dirty || !state.pending_hunks.is_empty() {
            return Ok(Some(FileChange::Conflict {
                path: rel,
                disk_hash: on_disk,
                known_hash: file.disk_hash.clone(),
                state,
            }));
        }
        let new_text = match self.project.read_text(&seen) {
            Ok(f) if Some(&f.hash) == on_disk.as_ref() => Some(f.text),
            // Changed again while we read: the next event brings it.
            Ok(_) => return Ok(None),
            Err(PathError::NotFound(_)) => None,
            // Binary or too large now: Redline can hold no buffer of it.
            Err(_) => None,
        };
        match new_text {
            Some(new_text) => {
                self.review.user_edit(&rel, &new_text)?;
                self.review.file_mut(&rel).expect("under review").disk_hash = on_disk.clone();
            }
            None => {
                self.review.remove_file(&rel);
            }
        }
        self.persist(&rel)?;
        Ok(Some(FileChange::Reloaded {
            path: rel,
            disk_hash: on_disk,
        }))
    }

    /// Takes in another program's move of `from` to `to` (a rename the
    /// watcher saw): when the bytes at `to` are those Redline knew at
    /// `from`, it is a move, not a deletion and a new file, and a file under
    /// review keeps its review (pending hunks, unsaved edits, decisions) at
    /// its new path. Returns whether the file was under review; `None` when
    /// it is not a move Redline can follow (other bytes, a folder, a file
    /// with a move or deletion of its own under review, or its target
    /// under review): the two paths are then changes like any other.
    pub fn external_move(&mut self, from: &str, to: &str) -> Result<Option<bool>, WorkspaceError> {
        let from = self.project.resolve(from)?.rel().to_owned();
        let to = self.project.resolve(to)?.rel().to_owned();
        if self.review.file_of(&to).is_some() {
            return Ok(None);
        }
        let Some(file) = self.review.file_of(&from) else {
            return Ok(Some(false));
        };
        if file.op().is_some() || file.path != from {
            return Ok(None);
        }
        let landed = self.project.disk_hash(&to)?;
        if landed.is_none() || landed != file.disk_hash || self.project.disk_hash(&from)?.is_some()
        {
            return Ok(None);
        }
        let mut file = self.review.remove_file(&from).expect("under review");
        file.path = to.clone();
        self.review.insert_file(file);
        self.store.remove_file(&from)?;
        self.persist(&to)?;
        Ok(Some(true))
    }

    /// Resolves a conflict over `path` by keeping one version; the other is
    /// saved in a new checkpoint first.
    pub fn resolve(&mut self, path: &str, keep: Keep) -> Result<Resolved, WorkspaceError> {
        let rel = self.project.resolve(path)?.rel().to_owned();
        let Some(file) = self.review.file(&rel) else {
            return Err(ReviewError::UnknownFile(rel).into());
        };
        if !state_of(&self.review, file, &self.project.disk_hash(&rel)?).conflict {
            return Err(ReviewError::NoConflict(rel).into());
        }
        let known = file.disk_hash.clone();
        let (snapshot, what) = match keep {
            Keep::Mine => (
                FileSnapshot::of_disk(&self.project, &rel)?,
                format!("{rel} as another program wrote it, before Redline's version was kept"),
            ),
            Keep::Theirs => (
                FileSnapshot::take(&self.project, &self.review, &rel)?,
                format!("Redline's buffer of {rel}, before the disk's version was kept"),
            ),
        };
        // For `Mine`, the disk version just saved is the one the next save may replace.
        let theirs = snapshot.disk_hash.clone();
        let checkpoint = self.store.add_checkpoint(
            CheckpointKind::Resolve,
            None,
            None,
            &what,
            vec![NewCheckpointFile {
                path: rel.clone(),
                snapshot,
                proposed: None,
                hunk_ids: Vec::new(),
                reverse_patches: Vec::new(),
            }],
        )?;
        match keep {
            Keep::Mine => {
                self.review.file_mut(&rel).expect("under review").disk_hash = theirs;
            }
            Keep::Theirs => {
                self.review.remove_file(&rel);
            }
        }
        self.persist(&rel)?;
        tracing::info!(path = %rel, ?keep, known = ?known, "conflict resolved");
        Ok(Resolved {
            path: rel.clone(),
            kept: keep,
            checkpoint_id: checkpoint.checkpoint_id,
            file: self.file_content(&rel)?,
        })
    }
}
