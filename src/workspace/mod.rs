//! The workspace: one project, its review, and its store, kept in step.
//!
//! Every operation that changes review state goes through here, so what is
//! in memory is also in the store: a staged proposal (with the checkpoint
//! taken before it), decisions, the user's edits, saves, apply, and
//! rollbacks. Opening a workspace loads the review back, so after a restart
//! every pending hunk is still pending and every checkpoint can be rolled back.

mod disk;
mod files;
mod relink;
mod rollback;

pub use disk::{AppliedFile, ReviewProgress};
pub use files::{
    FileChange, FileContent, FileState, FolderEntry, HunkSpan, Keep, Listing, PendingHunk,
    Resolved, TreeEntry,
};

use std::collections::BTreeSet;
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::checkpoints::{Checkpoint, CheckpointKind, CheckpointPage, FileSnapshot};
use crate::edits::{
    EditError, EditErrorKind, FileOp, FileOpProposal, FileProposal, ProposedEdit, prepare,
    prepare_file_ops,
};
use crate::hunks::triage::{JobContext, RiskFlag, Rule, assess};
use crate::hunks::{DiffBundle, HunkLimits, bundle_from, file_op_hunks};
use crate::project::{Overlay, PathError, Project, View, WriteError, text};
use crate::review::{Decision, Review, ReviewError, Status};
use crate::store::{Header, NewCheckpointFile, Store, StoreError};

/// Why a workspace operation failed; the state is as it was before it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorkspaceError {
    /// The proposal's edits were refused.
    #[error("{} edits were refused: {}", .0.len(), .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Edits(Vec<EditError>),
    /// A review operation was refused.
    #[error(transparent)]
    Review(#[from] ReviewError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A path was refused.
    #[error(transparent)]
    Path(#[from] PathError),
    /// A write or delete on disk was refused (another program's change) or failed.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// No checkpoint has this id.
    #[error("there is no checkpoint `{0}`")]
    UnknownCheckpoint(String),
    /// A scoped rollback named a hunk of another run.
    #[error("hunk `{hunk_id}` is not part of checkpoint `{checkpoint_id}`")]
    NotInCheckpoint {
        /// The hunk.
        hunk_id: String,
        /// The checkpoint.
        checkpoint_id: String,
    },
}

/// Who asked for a run, for its checkpoint.
#[derive(Clone, Debug, Default)]
pub struct RunInfo {
    /// The session.
    pub session_id: Option<String>,
    /// The job.
    pub job_id: String,
    /// The instruction.
    pub instruction: String,
    /// The files the run read or found by searching, for the risk rules;
    /// `None` when unknown.
    pub seen: Option<BTreeSet<String>>,
}

/// The three texts of a file at a checkpoint (seed §27).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ThreeWay {
    /// The file.
    pub file_path: String,
    /// What the editor shows now (the working buffer, or the disk).
    pub current_file: Option<String>,
    /// The file before the run.
    pub checkpoint_base: Option<String>,
    /// The file as the run proposed it.
    pub agent_proposed: Option<String>,
}

/// A project with its review and store.
#[derive(Debug)]
pub struct Workspace {
    project: Project,
    review: Review,
    store: Store,
}

impl Workspace {
    /// Opens the workspace, loading the review state from `store`. A save
    /// (or a batch of them) that a crash cut off is settled by what the disk
    /// holds: a file that has the bytes about to be written is recorded as
    /// written; one that still has the bytes from before is written now, so
    /// an apply cut off midway completes; one another program changed
    /// meanwhile is left for the user (a conflict, as for any such change).
    pub fn open(project: Project, mut store: Store) -> Result<Workspace, StoreError> {
        let mut review = store.load_review()?;
        let mut unfinished = Vec::new();
        let mut settled = Vec::new();
        let mut moved = Vec::new();
        for file in review.files() {
            if file.op().is_some() {
                moved.push(file.path.clone());
            }
        }
        for path in &moved {
            let file = review.file_mut(path).expect("listed above");
            if disk::settle_op(&project, file) {
                store.save_file(file)?;
            }
        }
        for (path, intended) in store.intended_writes()? {
            let mut written = None;
            if let Some(file) = review.file_mut(&path) {
                let at = file.disk_path().unwrap_or(&path).to_owned();
                let on_disk = project.disk_hash(&at).ok().flatten();
                if on_disk.as_deref() == Some(intended.as_str()) {
                    file.disk_hash = Some(intended.clone());
                    written = Some(intended);
                } else if on_disk == file.disk_hash
                    && text::content_hash(file.disk_view().as_bytes()) == intended
                {
                    unfinished.push(path.clone());
                }
            }
            settled.push((path, written));
        }
        store.settle_writes(&settled)?;
        for file in review.files() {
            // Best effort: a folder that cannot be listed has nothing to clear.
            for path in file.paths() {
                let _ = project.remove_stale_writes(path);
            }
        }
        let mut workspace = Workspace {
            project,
            review,
            store,
        };
        if !unfinished.is_empty() {
            let saved = workspace.save_many(&unfinished, &mut |_| {})?;
            for (path, outcome) in unfinished.iter().zip(saved) {
                if let Err(e) = outcome {
                    tracing::warn!(path, "a save cut off by a crash was not finished: {e}");
                }
            }
        }
        Ok(workspace)
    }

    /// The project.
    pub fn project(&self) -> &Project {
        &self.project
    }

    /// The review state.
    pub fn review(&self) -> &Review {
        &self.review
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The project's working state over the disk: every file's working
    /// buffer (pending hunks of every job and the user's unsaved edits
    /// included), at the path its move (pending or accepted) takes it to. A
    /// created file whose buffer is empty and that is not on disk (its
    /// creation rejected) is absent, and so is a file whose deletion is
    /// pending or accepted, and the old path of a moved one.
    pub fn overlay(&self) -> Overlay {
        let mut overlay = Overlay::new();
        for file in self.review.files() {
            let text = file.buffer();
            let absent = file.created && file.disk_hash.is_none() && text.is_empty();
            let shown = file.view_path().filter(|_| !absent);
            for path in file.paths() {
                if Some(path) != shown && (path == file.path || Some(path) == file.disk_path()) {
                    overlay.insert(path, None);
                }
            }
            if let Some(at) = shown {
                overlay.insert(at, Some(Arc::from(text)));
            }
        }
        overlay
    }

    /// Checks `edits` against the working state (so a proposal may stack on
    /// pending hunks and unsaved edits), takes a checkpoint of every file
    /// they touch, and stages the hunks for review, on top of whatever is
    /// pending. Moves and deletions of whole files are hunks of their own;
    /// the links a move would break are rewritten by the link engine as
    /// hunks that follow it. Returns the checkpoint and the diff bundle.
    pub fn propose(
        &mut self,
        run: &RunInfo,
        edits: &[ProposedEdit],
        limits: &HunkLimits,
    ) -> Result<(Checkpoint, DiffBundle), WorkspaceError> {
        // A file moved (or kept) by a settled operation of an earlier job
        // can be moved or deleted again.
        for edit in edits.iter().filter(|e| e.operation.is_file_op()) {
            let Ok(path) = self.project.resolve(&edit.file_path) else {
                continue;
            };
            if let Some((was, now)) = self.review.retire_op(path.rel()) {
                self.store.remove_file(&was)?;
                if let Some(file) = self.review.file(&now) {
                    self.store.save_file(file)?;
                }
            }
        }
        let overlay = self.overlay();
        let view = View::with(&self.project, &overlay);
        let (mut proposals, mut ops) = match (prepare(view, edits), prepare_file_ops(view, edits)) {
            (Ok(proposals), Ok(ops)) => (proposals, ops),
            (proposals, ops) => {
                let mut errors = proposals.err().unwrap_or_default();
                errors.extend(ops.err().unwrap_or_default());
                errors.sort_by_key(|e| edits.iter().position(|x| x.edit_id == e.edit_id));
                return Err(WorkspaceError::Edits(errors));
            }
        };
        let mut relinked = relink::relink(&view, &ops, &mut proposals)?;
        // A file the working state shows at a pending move's target is under
        // review by the path it had.
        let key = |path: &mut String| {
            if self.review.file(path).is_none()
                && let Some(file) = self.review.file_at(path)
            {
                *path = file.path.clone();
            }
        };
        proposals.iter_mut().for_each(|p| key(&mut p.file_path));
        ops.iter_mut().for_each(|op| key(&mut op.file_path));
        for (path, _, leader) in &mut relinked.links {
            key(path);
            if let relink::Leader::Heading(note, _) = leader {
                key(note);
            }
        }
        proposals.sort_by(|a, b| a.file_path.cmp(&b.file_path));
        self.check_ops(&proposals, &ops, edits)?;
        let mut bundle = bundle_from(&proposals, limits, 1);
        let count = (ops.len() + bundle.hunk_count()) as u64;
        let first = self.store.reserve("hunk", count)?;
        bundle.file_ops = file_op_hunks(&ops, first);
        for (i, hunk) in bundle
            .files
            .iter_mut()
            .flat_map(|f| &mut f.hunks)
            .enumerate()
        {
            hunk.hunk_id = format!("h_{}", first + (ops.len() + i) as u64);
        }
        follow_moves(&mut bundle, &relinked);
        bundle.job_id = Some(run.job_id.clone());
        // The texts of files not under review are known now: the store
        // takes them in while the hunks are triaged and staged.
        let texts: Vec<&str> = proposals
            .iter()
            .filter(|p| self.review.file(&p.file_path).is_none())
            .flat_map(|p| [(!p.created).then_some(p.base.as_str()), Some(&p.proposed)])
            .chain(
                ops.iter()
                    .filter(|op| self.review.file(&op.file_path).is_none())
                    .map(|op| Some(op.base.as_str())),
            )
            .flatten()
            .collect();
        let what = Header::new(
            CheckpointKind::Run,
            run.session_id.as_deref(),
            Some(&run.job_id),
            &run.instruction,
        );
        // The engine read the notes whose links it rewrote: the job did not
        // need to.
        let seen = run.seen.clone().map(|mut seen| {
            seen.extend(relinked.links.iter().map(|(path, _, _)| path.clone()));
            seen
        });
        let compute = || {
            let job = JobContext {
                instruction: &run.instruction,
                seen: seen.as_ref(),
            };
            // Triage reads what staging reads: both at once, on two cores.
            let (assessment, staged) = rayon::join(
                || {
                    assess(&proposals, &bundle, &job, || {
                        let mut notes: Vec<String> = view
                            .with_paths(|paths| paths.iter().map(|p| (*p).to_owned()).collect());
                        // The project as it will be: moved notes at their
                        // new paths, deleted ones gone, created ones there.
                        notes.retain(|n| !ops.iter().any(|op| op.file_path == *n));
                        notes.extend(
                            ops.iter()
                                .filter_map(|op| op.op.target().map(str::to_owned)),
                        );
                        notes.extend(
                            proposals
                                .iter()
                                .filter(|p| p.created)
                                .map(|p| p.file_path.clone()),
                        );
                        notes
                    })
                },
                || {
                    let mut staged = self.review.clone();
                    let ids: Vec<String> =
                        bundle.file_ops.iter().map(|h| h.hunk_id.clone()).collect();
                    staged.stage_ops(&run.job_id, &ops, &ids)?;
                    staged.stage(&run.job_id, &proposals, &bundle)?;
                    for op in &bundle.file_ops {
                        staged.follow(&op.hunk_id, &op.followers);
                    }
                    for hunk in bundle.files.iter().flat_map(|f| &f.hunks) {
                        staged.follow(&hunk.hunk_id, &hunk.followers);
                    }
                    Ok::<_, ReviewError>(staged)
                },
            );
            assessment.mark(&mut bundle);
            let staged = staged?;
            let mut files =
                checkpoint_files(&self.project, &self.review, &proposals, &bundle, &staged)?;
            files.extend(op_checkpoint_files(
                &self.project,
                &self.review,
                &ops,
                &proposals,
            )?);
            // A move or deletion is rolled back by the checkpoint of its file.
            for op in &bundle.file_ops {
                if let Some(file) = files.iter_mut().find(|f| f.path == op.file_path) {
                    file.hunk_ids.insert(0, op.hunk_id.clone());
                }
            }
            Ok::<_, WorkspaceError>(((staged, bundle), files))
        };
        let (checkpoint, (staged, bundle)) =
            self.store
                .add_proposal(&what, &texts, compute, |(staged, _)| {
                    let mut paths: Vec<&str> =
                        proposals.iter().map(|p| p.file_path.as_str()).collect();
                    paths.extend(
                        ops.iter()
                            .map(|op| op.file_path.as_str())
                            .filter(|p| !proposals.iter().any(|x| x.file_path == *p)),
                    );
                    paths
                        .into_iter()
                        .map(|p| staged.file(p).expect("staged"))
                        .collect()
                })?;
        self.review = staged;
        Ok((checkpoint, bundle))
    }

    /// Refuses what a proposal's moves and deletions cannot go with: line
    /// edits of a file it deletes, a file created where one moves to, and a
    /// second operation on a file that has one under review.
    fn check_ops(
        &self,
        proposals: &[FileProposal],
        ops: &[FileOpProposal],
        edits: &[ProposedEdit],
    ) -> Result<(), WorkspaceError> {
        let mut errors = Vec::new();
        let fail = |op: &FileOpProposal, why: String| EditError {
            edit_id: op.edit_id.clone(),
            file_path: op.file_path.clone(),
            kind: EditErrorKind::Invalid(why),
        };
        for op in ops {
            if self
                .review
                .file(&op.file_path)
                .is_some_and(|f| f.op().is_some())
            {
                errors.push(fail(
                    op,
                    ReviewError::OpStaged(op.file_path.clone()).to_string(),
                ));
            }
            for p in proposals {
                if op.op == FileOp::Delete && p.file_path == op.file_path {
                    errors.push(fail(
                        op,
                        "the same proposal edits the lines of the file it deletes; drop one or the other".into(),
                    ));
                } else if p.created && op.op.target() == Some(p.file_path.as_str()) {
                    errors.push(fail(
                        op,
                        format!(
                            "the same proposal creates a file at `{}`, where this moves the file",
                            p.file_path
                        ),
                    ));
                }
            }
        }
        if errors.is_empty() {
            return Ok(());
        }
        errors.sort_by_key(|e| edits.iter().position(|x| x.edit_id == e.edit_id));
        Err(WorkspaceError::Edits(errors))
    }

    /// Accepts or rejects one hunk, with the hunks that depend on it or that
    /// it stands on; `pending` undoes the hunk's latest decision (see
    /// [`Review::undo`]). `reason` is kept with the hunk for the next job. A
    /// decision that takes text the user typed out of the buffer checkpoints
    /// the file first, so that text is never only in the log.
    pub fn decide(
        &mut self,
        hunk_id: &str,
        status: Status,
        reason: Option<&str>,
    ) -> Result<Decision, WorkspaceError> {
        let (path, _) = self.review.find_hunk(hunk_id)?;
        if self.review.crosses_files(hunk_id, status) {
            // A move with the links that follow it: one step over many files.
            let decisions = self.decide_many(&[hunk_id.to_owned()], status)?;
            return Ok(Decision::merged(path, decisions));
        }
        // Only a file with typing inside a hunk can lose any: plan first there.
        let typed = self
            .review
            .file(&path)
            .is_some_and(|f| !f.typed_inside().is_empty());
        let planned = if typed {
            Some(self.plan_decision(hunk_id, status)?)
        } else {
            None
        };
        if let Some(planned) = planned.filter(|p| !p.hidden_user_text.is_empty()) {
            let what = format!(
                "{} before {} {hunk_id} took out text typed inside it",
                planned.path,
                if status == Status::Rejected {
                    "rejecting"
                } else {
                    "deciding"
                },
            );
            self.checkpoint_files(&what, [planned.path])?;
        }
        let decision = match status {
            Status::Pending => self.review.undo(hunk_id)?,
            _ => self.review.decide(hunk_id, status, reason)?,
        };
        let rows: Vec<(String, Status)> = decision
            .entry_ids
            .iter()
            .cloned()
            .zip(decision.moves.iter().map(|m| m.to))
            .collect();
        self.store
            .save_statuses(&rows, reason.filter(|_| status != Status::Pending))?;
        Ok(decision)
    }

    /// Sets each of `hunk_ids` to `status` (with what each carries) as one
    /// step, stored in one transaction; `pending` undoes their latest
    /// decisions (a step over many hunks comes back whole). Files with text
    /// the user typed inside a hunk are checkpointed first, as for one
    /// decision. Returns one decision per file.
    pub fn decide_many(
        &mut self,
        hunk_ids: &[String],
        status: Status,
    ) -> Result<Vec<Decision>, WorkspaceError> {
        let mut typed = BTreeSet::new();
        for hunk in hunk_ids {
            let (path, _) = self.review.find_hunk(hunk)?;
            if self
                .review
                .file(&path)
                .is_some_and(|f| !f.typed_inside().is_empty())
            {
                typed.insert(path);
            }
        }
        if !typed.is_empty() {
            let what = format!(
                "{} files before deciding {} hunks at once, with text typed inside them",
                typed.len(),
                hunk_ids.len()
            );
            self.checkpoint_files(&what, typed)?;
        }
        let decisions = match status {
            Status::Pending => self.review.undo_many(hunk_ids)?,
            _ => self.review.decide_many(hunk_ids, status)?,
        };
        let rows: Vec<(String, Status)> = decisions
            .iter()
            .flat_map(|d| {
                d.entry_ids
                    .iter()
                    .cloned()
                    .zip(d.moves.iter().map(|m| m.to))
            })
            .collect();
        self.store.save_statuses(&rows, None)?;
        Ok(decisions)
    }

    /// Takes a checkpoint of `paths` as they are now, saying `what` it holds.
    fn checkpoint_files(
        &mut self,
        what: &str,
        paths: impl IntoIterator<Item = String>,
    ) -> Result<(), WorkspaceError> {
        let files = paths
            .into_iter()
            .map(|path| {
                Ok(NewCheckpointFile {
                    snapshot: FileSnapshot::take(&self.project, &self.review, &path)?,
                    path,
                    proposed: None,
                    hunk_ids: Vec::new(),
                    reverse_patches: Vec::new(),
                })
            })
            .collect::<Result<Vec<_>, PathError>>()?;
        self.store
            .add_checkpoint(CheckpointKind::Decision, None, None, what, files)?;
        Ok(())
    }

    /// What [`Workspace::decide`] would move, changing nothing.
    pub fn plan_decision(&self, hunk_id: &str, status: Status) -> Result<Decision, WorkspaceError> {
        Ok(match status {
            Status::Pending => self.review.plan_undo(hunk_id)?,
            _ => self.review.plan(hunk_id, status)?,
        })
    }

    /// The path `path` is under review by: its own, or, for a file the
    /// working state shows there because of a pending move, the path it had.
    pub fn key_of(&self, path: &str) -> String {
        self.review
            .file_at(path)
            .map_or_else(|| path.to_owned(), |f| f.path.clone())
    }

    /// The jobs with hunks in `path`, in the order they were staged.
    pub fn jobs_in(&self, path: &str) -> Vec<String> {
        let mut jobs: Vec<String> = Vec::new();
        let entries = self.review.file(path).map(|f| f.entries()).unwrap_or(&[]);
        for job in entries.iter().filter_map(|e| e.job_id.as_ref()) {
            if !jobs.contains(job) {
                jobs.push(job.clone());
            }
        }
        jobs
    }

    /// Accepts every pending hunk of a file; returns how many.
    pub fn accept_all_in_file(&mut self, path: &str) -> Result<usize, WorkspaceError> {
        let decision = self.review.accept_all_in_file(path)?;
        self.persist(path)?;
        Ok(decision.moves.len())
    }

    /// Records the user's edit of a file under review.
    pub fn user_edit(&mut self, path: &str, new_text: &str) -> Result<Vec<String>, WorkspaceError> {
        let ids = self.review.user_edit(path, new_text)?;
        self.persist(path)?;
        Ok(ids)
    }

    fn persist(&mut self, path: &str) -> Result<(), StoreError> {
        match self.review.file(path) {
            Some(file) => self.store.save_file(file),
            None => self.store.remove_file(path),
        }
    }

    /// Up to `limit` checkpoints, newest first, older than the checkpoint
    /// `before` (`None`: from the newest).
    pub fn checkpoints(
        &self,
        before: Option<&str>,
        limit: usize,
    ) -> Result<CheckpointPage, WorkspaceError> {
        let (checkpoints, more) = self.store.checkpoints_page(before, limit.max(1))?;
        let next_before = more
            .then(|| checkpoints.last().map(|c| c.checkpoint_id.clone()))
            .flatten();
        Ok(CheckpointPage {
            checkpoints,
            next_before,
        })
    }

    /// The checkpoint `id`.
    pub fn checkpoint(&self, id: &str) -> Result<Checkpoint, WorkspaceError> {
        self.store
            .checkpoint(id)?
            .ok_or_else(|| WorkspaceError::UnknownCheckpoint(id.to_owned()))
    }

    /// The current, checkpoint and proposed texts of `path` at checkpoint `id`.
    pub fn diff3(&self, id: &str, path: &str) -> Result<ThreeWay, WorkspaceError> {
        let snapshots = self.store.checkpoint_snapshots(id)?;
        if snapshots.is_empty() {
            self.checkpoint(id)?;
        }
        let rel = self.project.resolve(path)?.rel().to_owned();
        let (_, snapshot, proposed) = snapshots
            .into_iter()
            .find(|(p, _, _)| *p == rel)
            .ok_or_else(|| ReviewError::UnknownFile(rel.clone()))?;
        let current = match self.review.file(&rel) {
            Some(file) => Some(file.buffer()),
            None => match self.project.read_text(&rel) {
                Ok(file) => Some(file.text),
                Err(PathError::NotFound(_)) => None,
                Err(e) => return Err(e.into()),
            },
        };
        Ok(ThreeWay {
            file_path: rel,
            current_file: current,
            checkpoint_base: snapshot.text,
            agent_proposed: proposed,
        })
    }

    /// The `sha256:` of the working buffer of `path`, or of the disk when it
    /// is not under review; `None` when there is no file.
    pub fn current_hash(&self, path: &str) -> Result<Option<String>, WorkspaceError> {
        match self.review.file(path) {
            Some(file) => Ok(Some(file.buffer_hash())),
            None => Ok(self.project.disk_hash(path)?),
        }
    }
}

/// What a run's checkpoint records of each file of `proposals`: its text
/// before, what was proposed, and how to take each hunk of `bundle` back
/// out of `staged` (`review` is the review before).
fn checkpoint_files(
    project: &Project,
    review: &Review,
    proposals: &[FileProposal],
    bundle: &DiffBundle,
    staged: &Review,
) -> Result<Vec<NewCheckpointFile>, WorkspaceError> {
    // A file not under review was just read to make its proposal: its
    // snapshot is that text, not a second read of the disk.
    let snapshots = proposals
        .iter()
        .map(|p| match review.file(&p.file_path) {
            Some(_) => FileSnapshot::take(project, review, &p.file_path),
            None if p.created => Ok(FileSnapshot::of_text(None, None)),
            None => Ok(FileSnapshot::of_text(
                Some(p.base.clone()),
                p.base_file_hash.clone(),
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(proposals
        .par_iter()
        .zip(snapshots)
        .zip(&bundle.files)
        .map(|((proposal, snapshot), diff)| {
            let file = staged.file(&proposal.file_path).expect("staged");
            let reverse_patches = diff
                .hunks
                .iter()
                .filter_map(|h| {
                    let i = file
                        .entries()
                        .iter()
                        .position(|e| e.hunk_id.as_deref() == Some(&h.hunk_id))?;
                    file.patch(i, true)
                })
                .collect();
            NewCheckpointFile {
                path: proposal.file_path.clone(),
                snapshot,
                proposed: Some(proposal.proposed.clone()),
                hunk_ids: diff.hunks.iter().map(|h| h.hunk_id.clone()).collect(),
                reverse_patches,
            }
        })
        .collect())
}

/// Puts on each move of `bundle` the hunks of the links it rewrote (and on
/// each deletion its note's backlinks, as a flag), from `relinked`.
fn follow_moves(bundle: &mut DiffBundle, relinked: &relink::Relinked) {
    /// The hunk of `bundle` whose new lines hold line `line` of `path`.
    fn hunk_at(bundle: &DiffBundle, path: &str, line: usize) -> Option<(usize, usize)> {
        let f = bundle.files.iter().position(|d| d.file_path == path)?;
        let h = bundle.files[f]
            .hunks
            .iter()
            .position(|h| h.new_start <= line && line < h.new_start + h.new_lines.max(1))?;
        Some((f, h))
    }
    for (path, line, leader) in &relinked.links {
        let Some((f, h)) = hunk_at(bundle, path, *line) else {
            continue;
        };
        let follower = bundle.files[f].hunks[h].hunk_id.clone();
        let followers = match leader {
            relink::Leader::Op(k) => &mut bundle.file_ops[*k].followers,
            relink::Leader::Heading(note, at) => {
                let Some((lf, lh)) = hunk_at(bundle, note, *at) else {
                    continue;
                };
                if (lf, lh) == (f, h) {
                    // A link in the same lines as the heading it follows.
                    continue;
                }
                &mut bundle.files[lf].hunks[lh].followers
            }
        };
        if !followers.contains(&follower) {
            followers.push(follower);
        }
    }
    for (k, op) in bundle.file_ops.iter_mut().enumerate() {
        op.ambiguous_links = relinked.ambiguous[k].clone();
        let links = relinked.backlinks[k];
        if op.op == FileOp::Delete && links > 0 {
            op.flags.push(RiskFlag {
                rule: Rule::DeletesLinkedNote,
                reason: format!(
                    "deletes a note that {links} link{} elsewhere point{} to; they will be broken",
                    if links == 1 { "" } else { "s" },
                    if links == 1 { "s" } else { "" },
                ),
            });
        }
        if !op.ambiguous_links.is_empty() {
            op.flags.push(RiskFlag {
                rule: Rule::DeadLink,
                reason: format!(
                    "{} link{} that several notes answer to {} left as written: check {}",
                    op.ambiguous_links.len(),
                    if op.ambiguous_links.len() == 1 {
                        ""
                    } else {
                        "s"
                    },
                    if op.ambiguous_links.len() == 1 {
                        "is"
                    } else {
                        "are"
                    },
                    op.ambiguous_links.join(", "),
                ),
            });
        }
    }
}

/// What a run's checkpoint records of each file of `ops` that no line
/// change of the proposal already records: its text before, where it was;
/// and, for a move, that nothing was at its target.
fn op_checkpoint_files(
    project: &Project,
    review: &Review,
    ops: &[FileOpProposal],
    proposals: &[FileProposal],
) -> Result<Vec<NewCheckpointFile>, WorkspaceError> {
    let mut files = Vec::new();
    for op in ops {
        if !proposals.iter().any(|p| p.file_path == op.file_path) {
            let snapshot = match review.file(&op.file_path) {
                Some(_) => FileSnapshot::take(project, review, &op.file_path)?,
                None => {
                    FileSnapshot::of_text(Some(op.base.clone()), Some(op.base_file_hash.clone()))
                }
            };
            files.push(NewCheckpointFile {
                path: op.file_path.clone(),
                snapshot,
                proposed: None,
                hunk_ids: Vec::new(),
                reverse_patches: Vec::new(),
            });
        }
        if let Some(to) = op.op.target() {
            files.push(NewCheckpointFile {
                path: to.to_owned(),
                snapshot: FileSnapshot::of_text(None, None),
                proposed: None,
                hunk_ids: Vec::new(),
                reverse_patches: Vec::new(),
            });
        }
    }
    Ok(files)
}
