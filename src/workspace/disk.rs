//! Where the review meets the disk: saving a working buffer and applying a
//! job's review. Every write goes through the project's checked write path,
//! over the bytes Redline last read or wrote there, and is recorded in the
//! store first so that a crash in the middle is settled on the next open.

use serde::{Deserialize, Serialize};

use super::{Workspace, WorkspaceError};
use crate::hunks::{DiffBundle, FileDiff};
use crate::project::text;
use crate::review::{ReviewError, Status};

/// Where one job's review stands; see [`Workspace::review_progress`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReviewProgress {
    /// Hunks not decided.
    pub pending: usize,
    /// Hunks accepted.
    pub accepted: usize,
    /// Hunks rejected.
    pub rejected: usize,
    /// Whether every file is saved (looked at only when none is pending).
    pub saved: bool,
}

impl ReviewProgress {
    /// Every hunk decided and every file saved.
    pub fn finished(&self) -> bool {
        self.pending == 0 && self.saved
    }
}

/// What apply did to one file (seed §4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct AppliedFile {
    /// The file.
    pub file_path: String,
    /// Hunks accepted.
    pub applied_hunks: usize,
    /// Hunks rejected.
    pub rejected_hunks: usize,
    /// `applied`, or `conflict` when nothing was written for the file.
    pub status: String,
    /// Why, for a conflict.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub message: Option<String>,
}

impl Workspace {
    /// Saves `path`: its buffer without pending hunks, over the bytes Redline
    /// last read or wrote there; refused (`conflict`) if another program
    /// changed them. A file whose text is already on disk is not touched (it
    /// keeps its mtime); a file a run created whose every hunk was rejected
    /// stays uncreated.
    pub fn save(&mut self, path: &str) -> Result<(), WorkspaceError> {
        let file = self
            .review
            .file(path)
            .ok_or_else(|| ReviewError::UnknownFile(path.to_owned()))?;
        let text = file.disk_view();
        if file.disk_hash.is_none()
            && text.is_empty()
            && !file.entries().iter().any(|e| e.status == Status::Accepted)
        {
            return Ok(());
        }
        let hash = text::content_hash(text.as_bytes());
        if file.disk_hash.as_deref() == Some(hash.as_str()) {
            return Ok(());
        }
        let expected = file.disk_hash.clone();
        // The hash about to be written is recorded first: a crash between the
        // write and the store's update is then recovered on open instead of
        // looking like another program's change.
        self.store.intend_write(path, Some(&hash))?;
        let written = self
            .project
            .write_checked(path, text.as_bytes(), expected.as_deref());
        if let Ok(hash) = &written {
            self.review.file_mut(path).expect("found above").disk_hash = Some(hash.clone());
            self.persist(path)?;
        }
        self.store.intend_write(path, None)?;
        written.map(drop).map_err(WorkspaceError::from)
    }

    /// Ends the review of one job's hunks (`bundle`, its diff bundle): each
    /// is accepted if `accepted` lists it and rejected otherwise,
    /// whatever was decided before; then each file is saved. Other jobs'
    /// pending hunks in the same files stay staged (a save leaves them out).
    /// A file whose decisions or write conflict is reported and left
    /// unwritten.
    pub fn apply(&mut self, bundle: &DiffBundle, accepted: &[String]) -> Vec<AppliedFile> {
        bundle
            .files
            .iter()
            .map(|diff| {
                let path = &diff.file_path;
                let (mut applied, mut rejected) = (0, 0);
                let decided = self.decide_all(diff, accepted, &mut applied, &mut rejected);
                let outcome = decided.and_then(|()| self.save(path));
                AppliedFile {
                    file_path: path.clone(),
                    applied_hunks: applied,
                    rejected_hunks: rejected,
                    status: if outcome.is_ok() {
                        "applied"
                    } else {
                        "conflict"
                    }
                    .to_owned(),
                    message: outcome.err().map(|e| e.to_string()),
                }
            })
            .collect()
    }

    /// Where the review of `bundle` (one job's hunks) stands: its hunks
    /// pending, accepted and rejected (a hunk no longer under review —
    /// rolled back, resolved away — counts as none), and whether every file
    /// of it is saved: the disk holds what its buffer should write, so its
    /// accepted hunks are on disk. Whether the files are saved is only
    /// looked at (it reads them) once no hunk is pending.
    pub fn review_progress(&self, bundle: &DiffBundle) -> ReviewProgress {
        let mut progress = ReviewProgress::default();
        for diff in &bundle.files {
            let Some(file) = self.review.file(&diff.file_path) else {
                continue;
            };
            for hunk in &diff.hunks {
                let entry = file
                    .entries()
                    .iter()
                    .find(|e| e.hunk_id.as_deref() == Some(hunk.hunk_id.as_str()));
                match entry.map(|e| e.status) {
                    Some(Status::Pending) => progress.pending += 1,
                    Some(Status::Accepted) => progress.accepted += 1,
                    Some(Status::Rejected) => progress.rejected += 1,
                    None => {}
                }
            }
        }
        progress.saved = progress.pending == 0 && self.saved(bundle);
        progress
    }

    /// Whether every file of `bundle` holds on disk what its buffer should write.
    fn saved(&self, bundle: &DiffBundle) -> bool {
        bundle.files.iter().all(|diff| {
            let Some(file) = self.review.file(&diff.file_path) else {
                return true;
            };
            let wanted = text::content_hash(file.disk_view().as_bytes());
            let written = match &file.disk_hash {
                Some(known) => *known == wanted,
                // A file the run would create and that stays uncreated.
                None => wanted == text::content_hash(b""),
            };
            written && self.project.disk_hash(&file.path).ok().flatten() == file.disk_hash
        })
    }

    /// Sets each hunk of `diff` still under review to accepted (when
    /// `accepted` lists it) or rejected, counting both. A hunk accepted here
    /// accepts what it stands on, even another job's; one rejected here
    /// rejects what builds on it.
    fn decide_all(
        &mut self,
        diff: &FileDiff,
        accepted: &[String],
        applied: &mut usize,
        rejected: &mut usize,
    ) -> Result<(), WorkspaceError> {
        let current: Vec<(String, Status)> = self
            .review
            .file(&diff.file_path)
            .map(|f| {
                f.entries()
                    .iter()
                    .filter_map(|e| Some((e.hunk_id.clone()?, e.status)))
                    .filter(|(h, _)| diff.hunks.iter().any(|x| x.hunk_id == *h))
                    .collect()
            })
            .unwrap_or_default();
        for (hunk, status) in current {
            let accept = accepted.contains(&hunk);
            let wanted = if accept {
                Status::Accepted
            } else {
                Status::Rejected
            };
            if status != wanted {
                self.decide(&hunk, wanted, None)?;
            }
            if accept {
                *applied += 1;
            } else {
                *rejected += 1;
            }
        }
        Ok(())
    }
}
