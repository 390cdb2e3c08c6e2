//! The loop's view of its job ([`agent::Host`](crate::agent::Host)): events
//! go to the job's log, status changes to its record, proposals to the
//! workspace as this job's.

use std::sync::Mutex;

use super::{Runtime, Saved};
use crate::agent::{AgentEvent, Asked, Host, JobUsage, LoopState, Question, Refusal, Staged};
use crate::edits::ProposedEdit;
use crate::expand::Protection;
use crate::hunks::HunkLimits;
use crate::jobs::shapes::JobStatus;
use crate::project::{Overlay, Project, Reads};
use crate::workspace::{RunInfo, WorkspaceError};

/// One job, as its loop sees it.
pub(super) struct JobHost {
    pub(super) runtime: Runtime,
    pub(super) run: RunInfo,
    /// Which provider of the chain the loop is on (saved with its state).
    pub(super) attempt: Mutex<usize>,
    /// What the job's earlier providers used (a hybrid fallback).
    pub(super) earlier: Mutex<JobUsage>,
}

impl JobHost {
    /// Stages `edits` as this job's, into the checkpoint `into` if given,
    /// from `reads` where they hold a note.
    fn stage(
        &self,
        edits: &[ProposedEdit],
        asked: Asked<'_>,
        into: Option<&str>,
        reads: Reads,
    ) -> Result<Staged, Refusal> {
        let run = RunInfo {
            seen: Some(asked.seen.clone()),
            answers: asked.answers.to_vec(),
            reads,
            ..self.run.clone()
        };
        match self
            .runtime
            .ws()
            .propose_into(&run, edits, &HunkLimits::default(), into)
        {
            Ok((checkpoint, bundle)) => Ok(Staged {
                checkpoint_id: checkpoint.checkpoint_id,
                bundle,
                edits: edits.to_vec(),
            }),
            Err(WorkspaceError::Edits(errors)) => Err(Refusal::Edits(errors)),
            Err(other) => Err(Refusal::Other(other.to_string())),
        }
    }
}

impl Host for JobHost {
    fn project(&self) -> &Project {
        self.runtime.project()
    }

    fn working_state(&self) -> Overlay {
        self.runtime.ws().overlay()
    }

    fn emit(&self, event: AgentEvent) {
        self.runtime.emit(&self.run.job_id, event);
    }

    fn waiting(&self, question: &Question) {
        self.runtime
            .set_status(&self.run.job_id, JobStatus::WaitingForUser, Some(question));
    }

    fn resumed(&self) {
        self.runtime
            .set_status(&self.run.job_id, JobStatus::Running, None);
    }

    fn save(&self, state: &LoopState) {
        let saved = Saved {
            attempt: *self.attempt.lock().unwrap(),
            state: state.clone(),
        };
        let text = serde_json::to_string(&saved).expect("loop state serializes");
        if let Err(e) = self
            .runtime
            .db()
            .put_loop_state(&self.run.job_id, Some(&text))
        {
            tracing::error!(job = %self.run.job_id, error = %e, "could not save the loop state");
        }
    }

    fn propose(
        &self,
        edits: &[ProposedEdit],
        asked: Asked<'_>,
        reads: Reads,
    ) -> Result<Staged, Refusal> {
        self.stage(edits, asked, None, reads)
    }

    /// Stages into the job's checkpoint, and keeps what the job staged so
    /// far on its record: its hunks are reviewed (patterns, flags, Apply)
    /// before the run ends, and a restart knows what it staged.
    fn propose_into(
        &self,
        edits: &[ProposedEdit],
        asked: Asked<'_>,
        into: Option<&str>,
    ) -> Result<Staged, Refusal> {
        let staged = self.stage(edits, asked, into, Reads::new())?;
        crate::faults::crash(crate::faults::Site::Staged);
        self.runtime.set_job(&self.run.job_id, |j| {
            j.checkpoint_id
                .get_or_insert_with(|| staged.checkpoint_id.clone());
            match &mut j.diff_bundle {
                Some(so_far) => so_far.absorb(staged.bundle.clone()),
                None => j.diff_bundle = Some(staged.bundle.clone()),
            }
            j.proposed_edits.extend(staged.edits.iter().cloned());
        });
        Ok(staged)
    }

    /// The parts journaled with the hunks they staged: the job's record,
    /// written after each part, may be one part behind after a crash.
    fn staged(&self) -> Option<Staged> {
        let parts = match self.runtime.ws().stagings(&self.run.job_id) {
            Ok(parts) => parts,
            Err(e) => {
                tracing::error!(job = %self.run.job_id, error = %e, "could not read the run's stagings");
                Vec::new()
            }
        };
        let mut parts = parts.into_iter();
        let Some(first) = parts.next() else {
            // A run staged before parts were journaled.
            let job = self.runtime.job(&self.run.job_id).ok()?;
            return Some(Staged {
                checkpoint_id: job.checkpoint_id?,
                bundle: job.diff_bundle?,
                edits: job.proposed_edits,
            });
        };
        let mut staged = Staged {
            checkpoint_id: first.checkpoint_id,
            bundle: first.bundle,
            edits: first.edits,
        };
        for part in parts {
            staged.bundle.absorb(part.bundle);
            staged.edits.extend(part.edits);
        }
        Some(staged)
    }

    fn protection(&self) -> Protection {
        self.runtime.read_workspace(|ws| ws.protection().clone())
    }

    fn usage(&self, usage: &JobUsage) {
        let mut total = self.earlier.lock().unwrap().clone();
        total.add(usage);
        self.runtime.set_job(&self.run.job_id, |j| j.usage = total);
    }
}
