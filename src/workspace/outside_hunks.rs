//! Other programs' changes as hunks: what an agent in a terminal or a
//! script wrote to a file Redline knew the text of becomes a group of hunks
//! like a proposal's, diffed against that text, triaged and checkpointed
//! (the text before goes into the content store at once). The disk holds
//! these changes already, so a pending one stays there; rejecting one is
//! what writes (its text put back by the next save, hash-checked), and a
//! deleted file is a deletion already carried out, which rejecting brings
//! back whole.

use serde::{Deserialize, Serialize};

use super::propose::{numbered_bundle, proposal_checkpoint};
use super::{RunInfo, Workspace, WorkspaceError};
use crate::checkpoints::{Checkpoint, CheckpointKind};
use crate::config::OutsideMode;
use crate::edits::{FileOp, FileOpProposal, FileProposal};
use crate::hunks::triage::{JobContext, assess};
use crate::hunks::{DiffBundle, HunkLimits};
use crate::project::text;
use crate::review::{Origin, Status};
use crate::store::Header;

/// What another program did to a file whose text Redline knew.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutsideChange {
    /// The file, relative to the root.
    pub path: String,
    /// Its text before, as Redline knew it (empty for a created file).
    pub before: String,
    /// Whether another program created it: Redline knew it was not there.
    /// Rejecting its hunks removes it.
    pub created: bool,
    /// Its text now; `None` when the file was deleted.
    pub after: Option<String>,
    /// Where it went, when another program moved it (whole: its text there
    /// is `before`).
    pub moved_to: Option<String>,
}

impl OutsideChange {
    /// Whether it destroys much at once: the file deleted or emptied, or
    /// cut by more than half. Such a change is held for review whatever
    /// the mode, with a notice.
    pub fn destructive(&self) -> bool {
        if self.moved_to.is_some() || self.created {
            return false;
        }
        match &self.after {
            None => true,
            Some(after) => {
                !self.before.trim().is_empty()
                    && (after.trim().is_empty() || after.len() * 2 < self.before.len())
            }
        }
    }
}

/// Why another program's change to a file is listed, not reviewed: Redline
/// held no text of the file before it to diff against, or holds none now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum NotReviewableReason {
    /// The file is not text (binary, or not UTF-8).
    NotText,
    /// The file is over the size limit for text files.
    TooLarge,
    /// Redline held no copy of it to compare with: a file that is not
    /// text, or text beyond the index's memory budget.
    NotHeld,
    /// The index was still being filled when it changed.
    NotIndexedYet,
}

impl NotReviewableReason {
    /// The reason in words, for a listing.
    pub fn describe(self) -> &'static str {
        match self {
            NotReviewableReason::NotText => "not text",
            NotReviewableReason::TooLarge => "over the size limit for text files",
            NotReviewableReason::NotHeld => "Redline held no copy of it to compare with",
            NotReviewableReason::NotIndexedYet => {
                "changed while Redline was still reading the folder"
            }
        }
    }
}

/// A file another program changed that could not be reviewed, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct NotReviewable {
    /// The file, relative to the root.
    pub path: String,
    /// Why.
    pub reason: NotReviewableReason,
}

/// How many files one burst changes (not counting those it creates) for
/// it to be held for review whole, whatever each change is.
pub const MANY_AT_ONCE: usize = 50;

/// A group of outside changes as staged: its checkpoint and hunks, and
/// whether it holds a destructive change (one to tell the user of at once).
#[derive(Debug)]
pub struct OutsideGroup {
    /// The files staged, in the order of the changes.
    pub paths: Vec<String>,
    /// The checkpoint of the texts before.
    pub checkpoint: Checkpoint,
    /// Its hunks, a whole-file hunk for each deleted file.
    pub bundle: DiffBundle,
    /// The files whose change is destructive (all of them when the group
    /// changes [`MANY_AT_ONCE`] files or more): held for review, to be
    /// told of at once.
    pub destructive: Vec<String>,
}

impl Workspace {
    /// Whether another program's change to `path` can be staged as an
    /// outside change: the file is not under review, or nothing of it is
    /// unsaved and nothing pending but other programs' changes (its review
    /// then stacks the change on what it has, so a later change never
    /// loses the earlier base). Otherwise the conflict rules hold.
    pub fn takes_outside(&self, path: &str) -> bool {
        match self.review.file_of(path) {
            None => true,
            Some(file) => {
                file.path == path
                    && file.op().is_none()
                    && file
                        .entries()
                        .iter()
                        .all(|e| e.status != Status::Pending || e.origin == Origin::Outside)
                    // Nothing unsaved (with only outside changes pending,
                    // the buffer is what a save writes).
                    && Some(text::content_hash(self.review.disk_view(file).as_bytes())) == file.disk_hash
            }
        }
    }

    /// Those of `changes` that [`Workspace::stage_outside`] would stage:
    /// a change at all, to a file it [`takes_outside`] whose review (if
    /// any) holds the text before, moved (if so) to a path nothing under
    /// review holds; a created file only where nothing is under review.
    ///
    /// [`takes_outside`]: Workspace::takes_outside
    pub fn stageable<'c>(&self, changes: &'c [OutsideChange]) -> Vec<&'c OutsideChange> {
        changes
            .iter()
            .filter(|c| c.moved_to.is_some() || c.after.as_deref() != Some(c.before.as_str()))
            .filter(|c| {
                let to_free = c
                    .moved_to
                    .as_deref()
                    .is_none_or(|to| self.review.file_of(to).is_none());
                let known = match self.review.file_of(&c.path) {
                    None => true,
                    Some(_) if c.created => false,
                    Some(f) => f.path == c.path && f.buffer_is(&c.before),
                };
                to_free && known && self.takes_outside(&c.path)
            })
            .collect()
    }

    /// Stages `changes` (one burst of another program's writes) as the
    /// group `run`: their hunks, pending in [`OutsideMode::Review`]; in
    /// [`OutsideMode::Record`] accepted (kept) but for the destructive
    /// ones. Only the [`Workspace::stageable`] changes are staged (see
    /// [`OutsideGroup::paths`]); `None` when there are none.
    pub fn stage_outside(
        &mut self,
        run: &RunInfo,
        changes: &[OutsideChange],
        mode: OutsideMode,
    ) -> Result<Option<OutsideGroup>, WorkspaceError> {
        if mode == OutsideMode::Off {
            return Ok(None);
        }
        let changes = self.stageable(changes);
        if changes.is_empty() {
            return Ok(None);
        }
        let mut proposals: Vec<FileProposal> = changes
            .iter()
            .filter(|c| c.moved_to.is_none())
            .filter_map(|c| {
                Some(FileProposal {
                    file_path: c.path.clone(),
                    created: c.created,
                    base: c.before.clone(),
                    base_file_hash: (!c.created).then(|| text::content_hash(c.before.as_bytes())),
                    proposed: c.after.clone()?,
                    edits: Vec::new(),
                })
            })
            .collect();
        proposals.sort_by(|a, b| a.file_path.cmp(&b.file_path));
        let ops: Vec<FileOpProposal> = changes
            .iter()
            .filter(|c| c.after.is_none() || c.moved_to.is_some())
            .map(|c| FileOpProposal {
                edit_id: String::new(),
                file_path: c.path.clone(),
                op: match &c.moved_to {
                    Some(to) => FileOp::Move { to: to.clone() },
                    None => FileOp::Delete,
                },
                base: c.before.clone(),
                base_file_hash: text::content_hash(c.before.as_bytes()),
                bytes: None,
            })
            .collect();
        let mut bundle =
            numbered_bundle(&mut self.store, &proposals, &ops, &HunkLimits::default())?;
        bundle.job_id = Some(run.job_id.clone());
        // Many files changed at once is destructive as a whole: all are
        // held. Files made are not (a folder of notes copied in).
        let many = changes.iter().filter(|c| !c.created).count() >= MANY_AT_ONCE;
        let destructive: Vec<String> = changes
            .iter()
            .filter(|c| !c.created && (many || c.destructive()))
            .map(|c| c.path.clone())
            .collect();
        let texts: Vec<&[u8]> = proposals
            .iter()
            .flat_map(|p| [p.base.as_bytes(), p.proposed.as_bytes()])
            .chain(ops.iter().map(|op| op.base.as_bytes()))
            .collect();
        let what = Header::new(
            CheckpointKind::Run,
            run.session_id.as_deref(),
            Some(&run.job_id),
            &run.instruction,
        );
        let compute = || {
            let job = JobContext {
                instruction: &run.instruction,
                answers: &[],
                seen: None,
            };
            let assessment = assess(&proposals, &bundle, &job, || {
                self.project
                    .index()
                    .and_then(|i| i.paths())
                    .map(|p| p.iter().map(str::to_owned).collect())
                    .unwrap_or_default()
            });
            assessment.mark(&mut bundle);
            let mut staged = self.review.clone();
            let op_ids: Vec<String> = bundle.file_ops.iter().map(|h| h.hunk_id.clone()).collect();
            staged.stage_ops(&run.job_id, &ops, &op_ids)?;
            staged.stage(&run.job_id, &proposals, &bundle)?;
            let ids: Vec<String> = bundle.hunk_ids().map(str::to_owned).collect();
            staged.mark_outside(&ids);
            // The disk holds the changes: deleted files are gone, moved ones
            // are at their new paths, the others hold what was written.
            for op in &ops {
                let file = staged.file_mut(&op.file_path).expect("staged");
                if op.op == FileOp::Delete {
                    file.disk_hash = None;
                }
                file.set_op_done(true);
            }
            for p in &proposals {
                let file = staged.file_mut(&p.file_path).expect("staged");
                file.disk_hash = Some(text::content_hash(p.proposed.as_bytes()));
            }
            if mode == OutsideMode::Record {
                let kept: Vec<String> = bundle
                    .file_ops
                    .iter()
                    .map(|op| (op.hunk_id.clone(), op.file_path.as_str()))
                    .chain(bundle.files.iter().flat_map(|f| {
                        f.hunks
                            .iter()
                            .map(|h| (h.hunk_id.clone(), f.file_path.as_str()))
                    }))
                    .filter(|(_, path)| !destructive.iter().any(|d| d == path))
                    .map(|(hunk, _)| hunk)
                    .collect();
                if !kept.is_empty() {
                    staged.decide_many(&kept, Status::Accepted)?;
                }
            }
            let files = proposal_checkpoint(
                &self.project,
                &self.review,
                &proposals,
                &ops,
                &bundle,
                &staged,
            )?;
            Ok::<_, WorkspaceError>(((staged, bundle), files))
        };
        let (checkpoint, (staged, bundle)) = self.store.add_proposal(
            &what,
            &texts,
            compute,
            |(staged, _)| {
                changes
                    .iter()
                    .map(|c| staged.file(&c.path).expect("staged"))
                    .collect()
            },
            |_| None,
        )?;
        self.review = staged;
        Ok(Some(OutsideGroup {
            paths: changes.iter().map(|c| c.path.clone()).collect(),
            checkpoint,
            bundle,
            destructive,
        }))
    }
}
