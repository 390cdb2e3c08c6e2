//! The editor's operations on the working buffers, through the runtime so
//! that each is announced in the project feed ([`crate::jobs::Feed`]): open a file,
//! edit its buffer, save it, decide hunks, take in another program's change,
//! resolve a conflict, roll back.

use super::Runtime;
use super::review::{PROGRESS_FROM, jobs_moved};
use crate::checkpoints::{RollbackMode, RollbackPlan, RollbackReport};
use crate::jobs::error::RuntimeError;
use crate::jobs::events::{
    ApplyProgress, FeedEvent, FileEdited, FileMoved, FileResolved, FileSaved, NotSaved,
    ReviewUpdated, RollbackCompleted, SavedAll,
};
use crate::workspace::{
    FileChange, FileContent, Keep, Listing, Resolved, TreeEntry, Workspace, WorkspaceError,
};

impl Runtime {
    /// The paths of the files under review.
    pub fn files_under_review(&self) -> Vec<String> {
        self.ws().review().files().map(|f| f.path.clone()).collect()
    }

    /// `path` as the editor shows it (its working buffer, or the disk).
    pub fn file_content(&self, path: &str) -> Result<FileContent, RuntimeError> {
        Ok(self.ws().file_content(path)?)
    }

    /// The files of `paths` as the editor shows them, each read (or not)
    /// under one hold of the workspace.
    pub fn file_contents(&self, paths: &[String]) -> Vec<Result<FileContent, RuntimeError>> {
        let ws = self.ws();
        paths.iter().map(|p| Ok(ws.file_content(p)?)).collect()
    }

    /// The image at `path` as the working view holds it, with its media
    /// type (see [`Workspace::image`]).
    pub fn image(&self, path: &str) -> Result<(&'static str, Vec<u8>), RuntimeError> {
        Ok(self.ws().image(path)?)
    }

    /// The project's files under `prefix`, with their review state (only
    /// those with a working buffer when `changed`).
    pub fn tree(&self, prefix: &str, changed: bool) -> Result<Vec<TreeEntry>, RuntimeError> {
        Ok(self.ws().tree(prefix, changed)?)
    }

    /// The direct children of the folder `prefix`.
    pub fn children(&self, prefix: &str) -> Result<Listing, RuntimeError> {
        Ok(self.ws().children(prefix)?)
    }

    /// Replaces the buffer of `path` with `text` (the user's edit), if it
    /// still hashes to `base_hash` when one is given. Announces `file.edited`.
    pub fn edit(
        &self,
        path: &str,
        text: &str,
        base_hash: Option<&str>,
    ) -> Result<FileContent, RuntimeError> {
        let (ids, file) = {
            let mut ws = self.ws();
            let ids = ws.edit(path, text, base_hash)?;
            (ids, ws.file_content(path)?)
        };
        self.inner.feed.push(FeedEvent::Edited(FileEdited {
            path: file.path.clone(),
            entry_ids: ids,
            hash: file.hash.clone(),
            state: file.state.clone(),
        }));
        Ok(file)
    }

    /// Saves `path`: its buffer without pending hunks, over the bytes Redline
    /// last read or wrote there (a `conflict` otherwise), with the notes a
    /// move ties to it (see [`Workspace::save`]). Announces `file.saved` for
    /// each.
    pub fn save(&self, path: &str) -> Result<FileContent, RuntimeError> {
        let (file, tied, jobs) = {
            let mut ws = self.ws();
            let rel = relative(&ws, path)?;
            let key = ws.key_of(&rel);
            let tied = ws.save(&key)?;
            let mut jobs = ws.jobs_in(&key);
            let mut files = Vec::with_capacity(tied.len());
            for other in &tied {
                jobs.extend(ws.jobs_in(other));
                // Named where the window shows it (a moved file at its target).
                let at = ws
                    .review()
                    .file(other)
                    .and_then(|f| f.view_path())
                    .unwrap_or(other);
                files.push(ws.file_content(at)?);
            }
            (ws.file_content(&rel)?, files, jobs)
        };
        for saved in std::iter::once(&file).chain(&tied) {
            self.inner.feed.push(FeedEvent::Saved(FileSaved {
                path: saved.path.clone(),
                disk_hash: saved.disk_hash.clone(),
                state: saved.state.clone(),
            }));
        }
        self.settle(jobs);
        Ok(file)
    }

    /// Saves every file with unsaved work as one batch, as apply writes:
    /// each over the bytes Redline last read or wrote there (a file another
    /// program changed is left unwritten and listed), the hashes recorded
    /// first so that a crash in the middle is finished on the next open,
    /// the folders flushed once. Announces `save.progress` for a long one
    /// and `files.saved`.
    pub fn save_all(&self) -> Result<SavedAll, RuntimeError> {
        let (done, jobs) = {
            let mut ws = self.ws();
            let paths = ws.unsaved();
            let total = paths.len();
            let feed = &self.inner.feed;
            let mut progress = |done: usize| {
                if total >= PROGRESS_FROM {
                    feed.push(FeedEvent::SaveProgress(ApplyProgress { done, total }));
                }
            };
            let outcomes = ws.save_many(&paths, &mut progress)?;
            let mut done = SavedAll::default();
            let mut jobs: Vec<String> = Vec::new();
            for (key, outcome) in paths.into_iter().zip(outcomes) {
                jobs.extend(ws.jobs_in(&key));
                // Named where the window shows it (a moved file at its target).
                let file = ws.review().file(&key);
                let path = file.and_then(|f| f.view_path()).unwrap_or(&key).to_owned();
                match outcome {
                    Ok(()) => done.saved.push(path),
                    Err(e) => done.not_saved.push(NotSaved {
                        path,
                        message: e.to_string(),
                    }),
                }
            }
            jobs.sort_unstable();
            jobs.dedup();
            (done, jobs)
        };
        self.inner.feed.push(FeedEvent::SavedAll(done.clone()));
        self.settle(jobs);
        Ok(done)
    }

    /// Accepts every pending hunk of `path`, with what each carries into
    /// other notes. Announces `review.updated` with how many hunks it
    /// accepted in all.
    pub fn accept_all_in_file(&self, path: &str) -> Result<FileContent, RuntimeError> {
        let (count, file, jobs) = {
            let mut ws = self.ws();
            let rel = relative(&ws, path)?;
            let key = ws.key_of(&rel);
            let decisions = ws.accept_all_in_file(&key)?;
            let moves = decisions.iter().flat_map(|d| &d.moves);
            let count = moves.clone().filter(|m| m.from != m.to).count();
            let jobs = jobs_moved(ws.review(), moves);
            (count, ws.file_content(&rel)?, jobs)
        };
        self.inner
            .feed
            .push(FeedEvent::ReviewUpdated(ReviewUpdated {
                path: file.path.clone(),
                state: file.state.clone(),
                hunk_id: None,
                status: None,
                job_id: None,
                accepted: Some(count),
            }));
        self.settle(jobs);
        Ok(file)
    }

    /// Takes in another program's move of `from` to `to` (the watcher calls
    /// this for a rename it saw; `replaced` when a file was at `to` before,
    /// an editor's save through a temporary file). A file under review
    /// moves with its review (see
    /// [`Workspace::external_move`](crate::workspace::Workspace::external_move)):
    /// returns `true`, and both paths are taken care of. Any other rename is
    /// announced (unless `replaced`), and both paths are then to be taken in
    /// as changes. Announces `file.moved`.
    pub fn external_move(
        &self,
        from: &str,
        to: &str,
        replaced: bool,
    ) -> Result<bool, RuntimeError> {
        let moved = self.ws().external_move(from, to)?;
        let under_review = match moved {
            Some(true) => true,
            Some(false) if !replaced => false,
            _ => return Ok(false),
        };
        self.inner.feed.push(FeedEvent::Moved(FileMoved {
            from: from.to_owned(),
            to: to.to_owned(),
            under_review,
        }));
        Ok(under_review)
    }

    /// Whether the file at `path` (or a move of it) is under review.
    pub fn under_review(&self, path: &str) -> bool {
        self.ws().review().file_of(path).is_some()
    }

    /// Takes in a change another program made to `path` (the watcher calls
    /// this; so may anyone who knows of one). Announces `file.changed`,
    /// `file.reloaded` or `file.conflict`.
    pub fn external_change(&self, path: &str) -> Result<Option<FileChange>, RuntimeError> {
        let (change, jobs) = {
            let mut ws = self.ws();
            let change = ws.external_change(path)?;
            let jobs = ws.jobs_in(&ws.key_of(path));
            (change, jobs)
        };
        if let Some(change) = &change {
            self.inner.feed.push(FeedEvent::of_change(change.clone()));
        }
        // A terminal agent that wrote the text its hunks were decided to:
        // the disk holds what a save would have written, and the job ends.
        self.settle(jobs);
        Ok(change)
    }

    /// Resolves a conflict over `path`. Announces `file.resolved`.
    pub fn resolve(&self, path: &str, keep: Keep) -> Result<Resolved, RuntimeError> {
        let resolved = self.ws().resolve(path, keep)?;
        self.inner.feed.push(FeedEvent::Resolved(FileResolved {
            path: resolved.path.clone(),
            kept: keep,
            checkpoint_id: resolved.checkpoint_id.clone(),
        }));
        Ok(resolved)
    }

    /// What rolling back to checkpoint `id` would do, changing nothing
    /// (see [`Workspace::plan_rollback`]); the revision stays as it is.
    pub fn plan_rollback(
        &self,
        id: &str,
        mode: RollbackMode,
        hunk_ids: &[String],
    ) -> Result<RollbackPlan, RuntimeError> {
        Ok(self.ws().guard.plan_rollback(id, mode, hunk_ids)?)
    }

    /// Rolls back to checkpoint `id`, hard or scoped. Announces `rollback.completed`.
    pub fn rollback(
        &self,
        id: &str,
        mode: RollbackMode,
        hunk_ids: &[String],
    ) -> Result<RollbackReport, RuntimeError> {
        let report = self.ws().rollback(id, mode, hunk_ids)?;
        self.inner
            .feed
            .push(FeedEvent::RollbackCompleted(RollbackCompleted {
                checkpoint_id: id.to_owned(),
                mode,
                report: report.clone(),
            }));
        Ok(report)
    }
}

/// `path` as the project names it (relative, `/`-separated), if the guard accepts it.
fn relative(ws: &Workspace, path: &str) -> Result<String, RuntimeError> {
    let resolved = ws.project().resolve(path).map_err(WorkspaceError::from)?;
    Ok(resolved.rel().to_owned())
}
