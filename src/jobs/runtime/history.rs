//! Undo and redo of the engine's decision history, announced like the
//! decisions they take back (see [`crate::workspace::History`]).

use super::Runtime;
use super::review::jobs_moved;
use crate::checkpoints::RollbackMode;
use crate::jobs::error::RuntimeError;
use crate::jobs::events::{FeedEvent, ReviewBatch, RollbackCompleted, RuntimeEvent};
use crate::review::Status;
use crate::workspace::{HistoryHeads, Stepped};

impl Runtime {
    /// What undo and redo would take next.
    pub fn history_heads(&self) -> HistoryHeads {
        self.ws().history_heads()
    }

    /// Undoes the newest step of the history (`step_id`, when given, must
    /// be it) and announces it: a `review.batch` (status `pending`) in the
    /// project feed and in the log of each job whose hunks moved, or a
    /// rollback's `rollback.completed`.
    pub fn undo_step(&self, step_id: Option<&str>) -> Result<Stepped, RuntimeError> {
        let stepped = self.ws().undo_step(step_id)?;
        self.announce(&stepped);
        Ok(stepped)
    }

    /// Does again the step undone last (`step_id`, when given, must be it),
    /// announced as [`Runtime::undo_step`] announces an undo.
    pub fn redo_step(&self, step_id: Option<&str>) -> Result<Stepped, RuntimeError> {
        let stepped = self.ws().redo_step(step_id)?;
        self.announce(&stepped);
        Ok(stepped)
    }

    fn announce(&self, stepped: &Stepped) {
        if let Some(report) = &stepped.rollback {
            self.inner
                .feed
                .push(FeedEvent::RollbackCompleted(RollbackCompleted {
                    checkpoint_id: report.undo_checkpoint_id.clone(),
                    mode: RollbackMode::HardAll,
                    report: report.clone(),
                }));
            return;
        }
        let jobs = jobs_moved(self.ws().review(), &stepped.moved);
        let batch = ReviewBatch {
            job_ids: jobs.clone(),
            status: if stepped.undone {
                Status::Pending
            } else {
                stepped.moved.first().map_or(Status::Pending, |m| m.to)
            },
            hunks: stepped.moved.len(),
            files: stepped.files.len(),
        };
        for job in &jobs {
            self.emit(job, RuntimeEvent::ReviewBatch(batch.clone()));
        }
        self.inner.feed.push(FeedEvent::ReviewBatch(batch));
        self.settle(jobs);
    }
}
