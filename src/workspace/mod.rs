//! The workspace: one project, its review, and its store, kept in step.
//!
//! Every operation that changes review state goes through here, so what is
//! in memory is also in the store: a staged proposal (with the checkpoint
//! taken before it), decisions, the user's edits, saves, apply, and
//! rollbacks. Opening a workspace loads the review back, so after a restart
//! every pending hunk is still pending and every checkpoint can be rolled back.

mod attachment;
mod disk;
mod error;
mod files;
mod follow;
mod headings;
mod history;
mod link_rule;
mod outside;
mod outside_hunks;
mod propose;
mod relink;
mod rollback;
mod rollback_links;
mod rollback_restore;
mod ties;
mod undo;

pub use disk::{AppliedFile, ReviewProgress};
pub use error::WorkspaceError;
pub use files::{
    FileChange, FileContent, FileState, FolderEntry, HunkSpan, Keep, Listing, PendingHunk,
    Resolved, TreeEntry,
};
pub use history::{History, Step, StepKind};
pub use outside_hunks::{NotReviewable, NotReviewableReason, OutsideChange, OutsideGroup};
pub use propose::Staging;
pub use undo::{HistoryHeads, StepHead, Stepped, step_label};

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::checkpoints::{Checkpoint, CheckpointKind, CheckpointPage, FileSnapshot};
use crate::expand::Protection;
use crate::project::{Overlay, PathError, Project, text};
use crate::review::{Decision, FileReview, Review, ReviewError, Settle, Status};
use crate::store::{NewCheckpointFile, Store, StoreError};
use link_rule::Cause;

/// The working state `files` show over the disk (see [`Workspace::overlay`]).
fn overlay_of<'a>(files: impl Iterator<Item = &'a FileReview>) -> Overlay {
    let mut overlay = Overlay::new();
    for file in files {
        if file.binary().is_some() {
            attachment::lay_over(&mut overlay, file);
            continue;
        }
        let text = file.buffer();
        let absent = file.unmade(&text);
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
    /// The user's answers to the run's questions: part of the request, for
    /// the risk rules.
    pub answers: Vec<String>,
    /// Notes read from the disk moments ago by what made the edits (an
    /// operation's expansion), staged from instead of read again.
    pub reads: crate::project::Reads,
}

/// The three texts of a file at a checkpoint.
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
    /// The notes no proposal may change; default none.
    protection: Protection,
    /// Every decision, batch, apply and rollback, for undo and redo.
    history: History,
    /// The step decisions are recorded into, while one is open.
    /// The files whose logs the open transaction gave hunks (a link that
    /// follows a move, see `link_rule`): stored when it is kept.
    relinked: BTreeSet<String>,
    /// While a plan runs: the hunk numbers it has taken, which the store
    /// keeps for the act (a plan names what the act will).
    planned_hunks: Option<u64>,
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
        let history = store.load_history()?;
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
            let view = review.file(&path).map(|f| review.disk_view(f));
            if let Some(file) = review.file_mut(&path) {
                let at = file.disk_path().unwrap_or(&path).to_owned();
                // A move or deletion of a batch cut off before it was
                // carried out, its note untouched since: carried out now,
                // with the rest of the batch.
                if file.op().is_some()
                    && file.disk_path() != file.saved_path()
                    && project.disk_hash(&at).ok().flatten() == file.disk_hash
                {
                    unfinished.push(path.clone());
                    settled.push((path, None));
                    continue;
                }
                let on_disk = project.disk_hash(&at).ok().flatten();
                if on_disk.as_deref() == Some(intended.as_str()) {
                    file.disk_hash = Some(intended.clone());
                    written = Some(intended);
                } else if on_disk == file.disk_hash
                    && view.is_some_and(|v| text::content_hash(v.as_bytes()) == intended)
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
            protection: Protection::default(),
            history,
            relinked: BTreeSet::new(),
            planned_hunks: None,
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

    /// Puts `protection` in force for the proposals staged from now on.
    pub fn protect(&mut self, protection: Protection) {
        self.protection = protection;
    }

    /// The notes no proposal may change.
    pub fn protection(&self) -> &Protection {
        &self.protection
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
        overlay_of(self.review.files())
    }

    /// Accepts or rejects one hunk, with what it carries in its note and
    /// across notes (see [`Review::decide`]); `pending` undoes the hunk's
    /// latest decision (see [`Review::undo`]). `reason` is kept with the
    /// hunk for the next job. A decision that takes text the user typed out
    /// of the buffer checkpoints the file first, so that text is never only
    /// in the log.
    pub fn decide(
        &mut self,
        hunk_id: &str,
        status: Status,
        reason: Option<&str>,
    ) -> Result<Decision, WorkspaceError> {
        let (path, _) = self.review.find_hunk(hunk_id)?;
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
            // Named in the user's words: their typing, the change it was in.
            let line = self
                .review
                .find_hunk(hunk_id)
                .ok()
                .and_then(|(path, i)| self.review.file(&path)?.span_of(i))
                .map_or(String::new(), |span| format!(" at line {}", span.line + 1));
            let what = format!(
                "Your typing in {}{line}, kept before {} the change it was in",
                planned.path,
                if status == Status::Rejected {
                    "rejecting"
                } else {
                    "deciding"
                },
            );
            self.checkpoint_files(&what, [planned.path])?;
        }
        let reason = reason.filter(|_| status != Status::Pending);
        let label = || undo::step_label(status, &format!("{hunk_id} in {path}"));
        let hunks = [hunk_id.to_owned()];
        let decisions = self.decide_and_store(&[(&hunks, status)], reason, label)?;
        let mut decided = Decision::merged(path.clone(), hunk_id, decisions);
        decided.links_left = self.review.links_left(&decided.moves);
        Ok(decided)
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
        let what = match hunk_ids {
            [one] => one.clone(),
            many => format!("{} hunks", many.len()),
        };
        self.decide_many_as(hunk_ids, status, undo::step_label(status, &what))
    }

    /// [`Workspace::decide_many`], its step in the history called `label`.
    pub fn decide_many_as(
        &mut self,
        hunk_ids: &[String],
        status: Status,
        label: String,
    ) -> Result<Vec<Decision>, WorkspaceError> {
        self.keep_typing(hunk_ids)?;
        self.decide_and_store(&[(hunk_ids, status)], None, || label)
    }

    /// Accepts every pending hunk of `path` as one step, with what each
    /// carries into other notes (a move's link updates, the move of a link
    /// update), as [`Workspace::decide_many`] does. Returns one decision per
    /// file.
    pub fn accept_all_in_file(&mut self, path: &str) -> Result<Vec<Decision>, WorkspaceError> {
        let file = self
            .review
            .file(path)
            .ok_or_else(|| ReviewError::UnknownFile(path.to_owned()))?;
        let pending: Vec<String> = file
            .entries()
            .iter()
            .filter(|e| e.origin.is_reviewed() && e.status == Status::Pending)
            .filter_map(|e| e.hunk_id.clone())
            .collect();
        let label = undo::step_label(Status::Accepted, &format!("every pending hunk of {path}"));
        self.decide_many_as(&pending, Status::Accepted, label)
    }

    /// Checkpoints the files where the user typed inside one of `hunk_ids`,
    /// before a decision on many hunks at once hides or keeps that typing.
    pub(super) fn keep_typing(&mut self, hunk_ids: &[String]) -> Result<(), WorkspaceError> {
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
        if typed.is_empty() {
            return Ok(());
        }
        let what = format!(
            "Your typing in {} files, kept before deciding {} changes at once that it was in",
            typed.len(),
            hunk_ids.len()
        );
        self.checkpoint_files(&what, typed)
    }

    /// Makes [`Workspace::decide_on_draft`]'s decision for each of `passes`
    /// (hunks and the status they are set to), in turn, in one
    /// transaction, stores the statuses (with `reason`) and records them as
    /// one step of the history, called `label`: a refusal in any pass drops
    /// them all. Returns the decisions, one per file a pass.
    pub(super) fn decide_and_store(
        &mut self,
        passes: &[(&[String], Status)],
        reason: Option<&str>,
        label: impl FnOnce() -> String,
    ) -> Result<Vec<Decision>, WorkspaceError> {
        self.transaction(|ws| {
            let mut decisions = Vec::new();
            for &(hunk_ids, status) in passes.iter().filter(|(h, _)| !h.is_empty()) {
                decisions.extend(ws.decide_on_draft(hunk_ids, status, reason)?);
            }
            ws.store_statuses(&decisions, reason)?;
            ws.record_decisions(label, &decisions)?;
            Ok(decisions)
        })
    }

    /// Sets each of `hunk_ids` to `status` (`pending`: undoes their latest
    /// decisions) on the review in the open transaction, with what the
    /// ties and the rule across notes carry (see `link_rule`), keeping
    /// `reason` with them and storing nothing. Returns one decision per
    /// file.
    fn decide_on_draft(
        &mut self,
        hunk_ids: &[String],
        status: Status,
        reason: Option<&str>,
    ) -> Result<Vec<Decision>, WorkspaceError> {
        let mut decisions = match status {
            Status::Pending => self.review.undo_many(hunk_ids)?,
            _ => self.review.decide_many(hunk_ids, status)?,
        };
        for hunk in hunk_ids {
            self.review.keep_reason(hunk, reason);
        }
        self.review
            .settle(Settle::Decision { named: hunk_ids }, &mut decisions)?;
        self.keep_links(Cause::Decision(status, hunk_ids), &mut decisions)?;
        Ok(decisions)
    }

    /// Runs `change` on the review as a draft: what it did to the review is
    /// kept when it returns `Ok` and dropped whole when it returns `Err`
    /// (see `Review::transaction`). Its writes to the store come last, so
    /// a refusal has written nothing.
    pub(super) fn transaction<T>(
        &mut self,
        change: impl FnOnce(&mut Workspace) -> Result<T, WorkspaceError>,
    ) -> Result<T, WorkspaceError> {
        self.review.begin();
        let mut done = change(self);
        if self.review.depth() == 1 {
            match &done {
                Ok(_) => {
                    if let Err(e) = self.store_relinked() {
                        done = Err(e.into());
                    }
                }
                Err(_) => self.relinked.clear(),
            }
        }
        self.review.end(done.is_ok());
        done
    }

    /// Stores the files the open transaction gave hunks (see `relinked`).
    fn store_relinked(&mut self) -> Result<(), StoreError> {
        let relinked: Vec<String> = std::mem::take(&mut self.relinked).into_iter().collect();
        self.persist_all(&relinked)
    }

    /// Stores the statuses `decisions` set, with `reason`, in one
    /// transaction, with the files whose hunks they staged.
    fn store_statuses(
        &mut self,
        decisions: &[Decision],
        reason: Option<&str>,
    ) -> Result<(), StoreError> {
        self.store_relinked()?;
        let rows: Vec<(String, Status, bool)> = decisions
            .iter()
            .flat_map(|d| {
                d.entry_ids.iter().zip(&d.moves).map(|(entry, m)| {
                    let leaves = self.review.leaves_link(&m.hunk_id);
                    (entry.clone(), m.to, leaves)
                })
            })
            .collect();
        self.store.save_statuses(&rows, reason)
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

    /// What [`Workspace::decide`] would move, changing nothing: the same
    /// decision made on a draft of the review, then dropped.
    pub fn plan_decision(
        &mut self,
        hunk_id: &str,
        status: Status,
    ) -> Result<Decision, WorkspaceError> {
        let (path, _) = self.review.find_hunk(hunk_id)?;
        self.planning(|ws| {
            ws.review.begin();
            let planned = ws.decide_on_draft(&[hunk_id.to_owned()], status, None);
            let planned = planned.map(|decisions| {
                let mut planned = Decision::merged(path, hunk_id, decisions);
                planned.links_left = ws.review.links_left(&planned.moves);
                planned
            });
            ws.review.end(false);
            planned
        })
    }

    /// Runs `plan`, which makes a decision on a draft and drops it: the hunks
    /// it stages take numbers the store keeps for the act.
    fn planning<T>(&mut self, plan: impl FnOnce(&mut Workspace) -> T) -> T {
        self.planned_hunks = Some(0);
        let planned = plan(self);
        self.planned_hunks = None;
        self.relinked.clear();
        planned
    }

    /// The first of `count` new hunk numbers.
    fn reserve_hunks(&mut self, count: u64) -> Result<u64, StoreError> {
        match &mut self.planned_hunks {
            Some(taken) => {
                let first = self.store.peek("hunk")? + *taken;
                *taken += count;
                Ok(first)
            }
            None => self.store.reserve("hunk", count),
        }
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

    /// Stores the state of each of `paths`, the files no longer under
    /// review first: a file put back under another path takes its hunks
    /// from there, and a hunk is stored once.
    fn persist_all(&mut self, paths: &[String]) -> Result<(), StoreError> {
        let (kept, gone): (Vec<&String>, Vec<&String>) =
            paths.iter().partition(|p| self.review.file(p).is_some());
        for path in gone {
            self.store.remove_file(path)?;
        }
        let files = kept.into_iter().filter_map(|p| self.review.file(p));
        self.store.save_files(files)
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
            checkpoints: checkpoints
                .into_iter()
                .map(|c| self.with_hunks_now(c))
                .collect(),
            next_before,
        })
    }

    /// The checkpoint `id`, with where its hunks stand now.
    pub fn checkpoint(&self, id: &str) -> Result<Checkpoint, WorkspaceError> {
        let checkpoint = self
            .store
            .checkpoint(id)?
            .ok_or_else(|| WorkspaceError::UnknownCheckpoint(id.to_owned()))?;
        Ok(self.with_hunks_now(checkpoint))
    }

    /// `checkpoint` with [`CheckpointFile::hunks_now`] filled in.
    ///
    /// [`CheckpointFile::hunks_now`]: crate::checkpoints::CheckpointFile::hunks_now
    fn with_hunks_now(&self, mut checkpoint: Checkpoint) -> Checkpoint {
        for file in &mut checkpoint.affected_files {
            file.hunks_now = file
                .hunk_ids
                .iter()
                .map(|h| {
                    // A final decision is history, and so is the link
                    // update of a final move: nothing to revert.
                    let history = self.review.is_final(h) || self.review.updates_a_settled_move(h);
                    let fate = self.review.hunk_fate(h).filter(|_| !history)?;
                    Some(crate::checkpoints::HunkNow {
                        status: fate.status,
                        line: fate.line,
                    })
                })
                .collect();
        }
        checkpoint
    }

    /// The current, checkpoint and proposed texts of `path` at checkpoint `id`.
    pub fn diff3(&self, id: &str, path: &str) -> Result<ThreeWay, WorkspaceError> {
        let mut all = self.diff3_many(id, &[path])?;
        Ok(all.remove(0))
    }

    /// [`Workspace::diff3`] of each of `paths`, in order, reading the
    /// checkpoint once: a 5,000-file job's review reads it once, not 5,000
    /// times.
    pub fn diff3_many(&self, id: &str, paths: &[&str]) -> Result<Vec<ThreeWay>, WorkspaceError> {
        let snapshots = self.store.checkpoint_snapshots(id)?;
        if snapshots.is_empty() {
            self.checkpoint(id)?;
        }
        let mut snapshots: std::collections::HashMap<String, _> = snapshots
            .into_iter()
            .map(|(path, snapshot, proposed)| (path, (snapshot, proposed)))
            .collect();
        paths
            .iter()
            .map(|path| {
                let rel = self.project.resolve(path)?.rel().to_owned();
                let (snapshot, proposed) = snapshots
                    .remove(&rel)
                    .ok_or_else(|| ReviewError::UnknownFile(rel.clone()))?;
                self.three_way(rel, snapshot.text, proposed)
            })
            .collect()
    }

    /// The three texts of `rel`: as the working state has it now, and as
    /// given.
    fn three_way(
        &self,
        rel: String,
        checkpoint_base: Option<String>,
        agent_proposed: Option<String>,
    ) -> Result<ThreeWay, WorkspaceError> {
        let current = match self.review.file(&rel) {
            Some(file) => Some(file.buffer()).filter(|text| !file.unmade(text)),
            None => match self.project.read_text(&rel) {
                Ok(file) => Some(file.text),
                Err(PathError::NotFound(_)) => None,
                Err(e) => return Err(e.into()),
            },
        };
        Ok(ThreeWay {
            file_path: rel,
            current_file: current,
            checkpoint_base,
            agent_proposed,
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
