//! Checkpoints: the state of every file a run touches, as it was
//! before the run, so the run can be rolled back.
//!
//! A checkpoint holds, per file, a snapshot of its review state: the buffer
//! text (in the content store), its change log and regions. A hard rollback
//! puts those snapshots back, which drops every later entry of those files; a
//! scoped rollback rejects the listed hunks where they are now and keeps newer
//! edits that do not overlap them. Every rollback first takes a checkpoint of
//! its own, so it can be undone by rolling back to that one.

use serde::{Deserialize, Serialize};

use crate::project::{PathError, Project};
use crate::review::legacy::{LegacyEntry, LegacyFile};
use crate::review::{FileReview, Origin, PastPath, Review, StagedOp, StoredLog};

/// Why a checkpoint was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum CheckpointKind {
    /// Before an agent run's proposal was staged.
    Run,
    /// Before a rollback; rolling back to it undoes the rollback.
    Rollback,
    /// Before a conflict with another program was resolved: it holds the
    /// version that was not kept.
    Resolve,
    /// Before a decision that took text the user typed out of the buffer
    /// (inside a rejected hunk): it holds the file with that text.
    Decision,
}

/// A page of checkpoints, newest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct CheckpointPage {
    /// The checkpoints of this page.
    pub checkpoints: Vec<Checkpoint>,
    /// Where the next (older) page starts: pass it as `before`; absent on
    /// the last page.
    pub next_before: Option<String>,
}

/// A checkpoint as the API shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Checkpoint {
    /// Its id, `cp_1`, `cp_2`, ...
    pub checkpoint_id: String,
    /// The session of the run.
    pub session_id: Option<String>,
    /// The job of the run.
    pub job_id: Option<String>,
    /// Why it was taken.
    pub kind: CheckpointKind,
    /// When, in RFC 3339.
    pub created_at: String,
    /// The instruction of the run (or what the rollback was).
    pub instruction: String,
    /// The files it covers.
    pub affected_files: Vec<CheckpointFile>,
}

/// One file of a checkpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct CheckpointFile {
    /// The file.
    pub file_path: String,
    /// `sha256:` of its text before the run; `null` when it did not exist.
    pub base_snapshot_hash: Option<String>,
    /// The run's hunks in this file.
    pub hunk_ids: Vec<String>,
    /// Each hunk's reverse patch, as recorded.
    pub reverse_patches: Vec<String>,
    /// Where each hunk stands now, in the order of `hunk_ids` (`None`: no
    /// longer under review, final or a final move's link update, or rolled
    /// back): filled in
    /// when checkpoints are listed, so that a scoped rollback is offered
    /// only what it can revert, at the line it is on now.
    #[serde(default)]
    pub hunks_now: Vec<Option<HunkNow>>,
}

/// Where a hunk of a checkpoint stands now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct HunkNow {
    /// Its status.
    pub status: crate::review::Status,
    /// Its first line in its file's buffer (1-based).
    pub line: usize,
}

/// A file's whole review state at a checkpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileSnapshot {
    /// Its text then (the buffer, or the disk when not under review); `None`
    /// when there was no file.
    pub text: Option<String>,
    /// Whether it was under review.
    pub under_review: bool,
    /// Its review base.
    pub base: Option<String>,
    /// What Redline had last read or written on disk.
    pub disk_hash: Option<String>,
    /// Whether a run had created it.
    pub created: bool,
    /// Its change log and pieces, when it was under review.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<StoredLog>,
    /// The line-region log of a checkpoint written by schema version 3:
    /// its entries, and their indexes in document order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entries: Vec<LegacyEntry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub order: Vec<usize>,
    /// Whether the file was not text (an attachment moved or deleted
    /// whole): the checkpoint keeps its bytes, and `text` is `None`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub binary: bool,
    /// An attachment's bytes, stored as the checkpoint's blob as a text is.
    #[serde(skip)]
    pub bytes: Option<Vec<u8>>,
    /// The move or deletion under review then, if any (its entry is in
    /// `log`); whether it was carried out is settled against the disk when
    /// it is restored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<StagedOp>,
    /// In a rollback's undo checkpoint, the review's entry ids issued once
    /// the rollback was made (`c_1` to `c_{issued}`): an entry issued after
    /// is new since, and one the rollback itself put back is not. 0 in any
    /// other checkpoint, and in one stored before undo checkpoints kept it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub issued: u64,
    /// The paths its retired moves took it from, when it was under review
    /// (see `FileReview::moved_from`): links to them follow it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moved_from: Vec<PastPath>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl FileSnapshot {
    /// The state of `path` now (nothing at a move's target: the moved
    /// file's own path has it).
    pub(crate) fn take(
        project: &Project,
        review: &Review,
        path: &str,
    ) -> Result<FileSnapshot, PathError> {
        if let Some(file) = review.file(path) {
            if let Some(hash) = file.binary() {
                // Its bytes are in the content store already.
                return Ok(FileSnapshot {
                    binary: true,
                    under_review: true,
                    log: Some(file.to_stored()),
                    op: file.op().cloned(),
                    moved_from: file.stored_moved_from().to_vec(),
                    ..FileSnapshot::of_text(None, Some(hash.to_owned()))
                });
            }
            return Ok(FileSnapshot {
                text: Some(file.buffer()),
                under_review: true,
                base: Some(file.base.clone()),
                disk_hash: file.disk_hash.clone(),
                created: file.created,
                log: Some(file.to_stored()),
                entries: Vec::new(),
                order: Vec::new(),
                binary: false,
                bytes: None,
                op: file.op().cloned(),
                issued: 0,
                moved_from: file.stored_moved_from().to_vec(),
            });
        }
        if review.file_of(path).is_some() {
            // A move's target: the file there is the one under review by
            // the path it had, and that path's snapshot holds it.
            return Ok(FileSnapshot::of_text(None, None));
        }
        FileSnapshot::of_disk(project, path)
    }

    /// The state of `path` on disk now, whatever Redline holds for it: its
    /// text, or the bytes of a file that is not text.
    pub(crate) fn of_disk(project: &Project, path: &str) -> Result<FileSnapshot, PathError> {
        match project.read_text(path) {
            Ok(file) => Ok(FileSnapshot::of_text(Some(file.text), Some(file.hash))),
            Err(PathError::NotFound(_)) => Ok(FileSnapshot::of_text(None, None)),
            // An attachment (one the run moved here, say): kept as bytes.
            Err(e) if e.is_not_text() => {
                let (bytes, hash) = project.read_bytes(&project.resolve(path)?)?;
                Ok(FileSnapshot::of_bytes(bytes, hash))
            }
            Err(e) => Err(e),
        }
    }

    /// The state of a file not under review that was just read: `text`
    /// hashing to `disk_hash` (`None` for both: no file).
    pub(crate) fn of_text(text: Option<String>, disk_hash: Option<String>) -> FileSnapshot {
        FileSnapshot {
            text,
            under_review: false,
            base: None,
            disk_hash,
            created: false,
            log: None,
            entries: Vec::new(),
            order: Vec::new(),
            binary: false,
            bytes: None,
            op: None,
            issued: 0,
            moved_from: Vec::new(),
        }
    }

    /// The state of an attachment not under review that was just read:
    /// `bytes`, hashing to `disk_hash`.
    pub(crate) fn of_bytes(bytes: Vec<u8>, disk_hash: String) -> FileSnapshot {
        FileSnapshot {
            binary: true,
            bytes: Some(bytes),
            ..FileSnapshot::of_text(None, Some(disk_hash))
        }
    }

    /// The review state this snapshot restores, keeping what Redline knows of
    /// the disk now (`disk_hash`), so a save after the rollback is checked
    /// against the file as it is. A log that does not hold together (or a
    /// version 3 log that cannot be moved to pieces) restores the text alone.
    pub(crate) fn restore(&self, path: &str, disk_hash: Option<String>) -> Option<FileReview> {
        let text = self.text.as_deref()?;
        let base = self.base.clone().unwrap_or_else(|| text.to_owned());
        let disk_hash = disk_hash.or_else(|| self.disk_hash.clone());
        let restored = match &self.log {
            Some(log) => FileReview::from_stored(
                path.to_owned(),
                base.clone(),
                disk_hash.clone(),
                self.created,
                log.clone(),
            )
            .ok_or_else(|| "its pieces do not fit together".to_owned()),
            None if !self.entries.is_empty() => LegacyFile {
                buffer: ropey::Rope::from_str(text),
                entries: self.entries.clone(),
                order: self.order.clone(),
            }
            .migrate(
                path.to_owned(),
                base.clone(),
                disk_hash.clone(),
                self.created,
            ),
            None => Ok(FileReview::new(
                path.to_owned(),
                base.clone(),
                disk_hash.clone(),
                self.created,
            )),
        };
        let mut file = restored
            .inspect_err(|e| tracing::warn!(path, "checkpoint log not restored: {e}"))
            .unwrap_or_else(|_| {
                FileReview::new(path.to_owned(), text.to_owned(), disk_hash, self.created)
            });
        if !file.buffer_is(text) {
            // The text is what the checkpoint promises; never anything else.
            file = FileReview::new(
                path.to_owned(),
                text.to_owned(),
                file.disk_hash,
                self.created,
            );
        }
        file.base = base;
        Some(file)
    }
}

/// How to roll back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum RollbackMode {
    /// Every affected file back to the checkpoint; later entries dropped.
    HardAll,
    /// Only the listed hunks, kept apart from newer edits.
    ScopedSelected,
}

/// What a rollback did to one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct RolledBackFile {
    /// The file.
    pub file_path: String,
    /// `restored`, `removed` (a created file nobody edited), `kept` (a
    /// created file edited since: both versions stay), or `reverted`
    /// (scoped; the message names later hunks that built on it and went
    /// with it).
    pub status: String,
    /// Details for `kept` and `reverted`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub message: Option<String>,
}

impl RolledBackFile {
    /// What became of `path`: `status`, and why.
    pub(crate) fn new(path: &str, status: &str, message: Option<String>) -> RolledBackFile {
        RolledBackFile {
            file_path: path.to_owned(),
            status: status.to_owned(),
            message,
        }
    }
}

/// The outcome of a rollback.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct RollbackReport {
    /// The checkpoint taken before the rollback; roll back to it to undo.
    pub undo_checkpoint_id: String,
    /// Per file.
    pub files: Vec<RolledBackFile>,
}

/// What a rollback would do, worked out before anything changes: what its
/// confirmation lists.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct RollbackPlan {
    /// The files it puts back as they were before the run (hard), or whose
    /// chosen hunks it reverts (scoped), by their paths at the checkpoint.
    pub files: Vec<String>,
    /// The hunks of those files that still count and would go: the run's
    /// own and, for a hard rollback, every later one to the same files.
    pub dropped: Vec<PlannedHunk>,
    /// The hunks in other files rejected with them: a dropped move's link
    /// updates, and the move of a dropped link update.
    pub carried: Vec<PlannedHunk>,
    /// The files whose typing since the run a hard rollback drops.
    pub typed: Vec<String>,
    /// The hunks that would count again: those a rollback of a rollback
    /// (its undo checkpoint) brings back, and link updates that come back
    /// with their move.
    pub restored: Vec<PlannedHunk>,
    /// Why the rollback would be refused, with nothing changed; when set,
    /// nothing else but `files` is listed.
    pub refused: Option<String>,
}

/// A hunk a rollback would take out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct PlannedHunk {
    /// The hunk.
    pub hunk_id: String,
    /// Where the working state shows its file now.
    pub file_path: String,
    /// Its job (`None`: another program's change).
    pub job_id: Option<String>,
    /// Its first line in the buffer (1-based), when it has one.
    pub line: Option<usize>,
}

/// Whether anyone but the run touched a file the run created.
pub(crate) fn edited_since_created(file: &FileReview) -> bool {
    file.entries().iter().any(|e| e.origin == Origin::User)
}
