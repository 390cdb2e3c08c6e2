//! What the loop needs from whatever runs it (the job runtime, a test): the
//! project its tools read, a place for its events and its saved state, and
//! the staging of its proposal. Every type the host speaks is the agent's own.

use std::collections::BTreeSet;

use super::events::AgentEvent;
use super::state::{JobUsage, LoopState, Question};
use crate::edits::{EditError, ProposedEdit};
use crate::expand::Protection;
use crate::hunks::DiffBundle;
use crate::project::{Overlay, Project, Reads};

/// What a run's proposal stands on, for the risk rules: a change to a file
/// the model never saw, or a deletion nobody asked for, deserves a look.
#[derive(Clone, Copy, Debug)]
pub struct Asked<'a> {
    /// The files the model read or found by searching.
    pub seen: &'a BTreeSet<String>,
    /// The user's answers to the job's questions, part of the request.
    pub answers: &'a [String],
}

/// The loop's view of its job.
pub trait Host: Send + Sync {
    /// The project the tools run on.
    fn project(&self) -> &Project;
    /// The working state the tools read, laid over the disk: what the user
    /// sees (pending hunks of earlier jobs, unsaved edits).
    fn working_state(&self) -> Overlay;
    /// Appends an event to the job's log.
    fn emit(&self, event: AgentEvent);
    /// The job now waits for the user's answer to `question`.
    fn waiting(&self, question: &Question);
    /// The job runs again after an answer.
    fn resumed(&self);
    /// Saves the loop's state, to resume from after a restart.
    fn save(&self, state: &LoopState);
    /// Checks and stages edits for review: a checkpoint, then the hunks.
    /// `asked` is what the run stands on, for the risk rules; `reads` the
    /// notes an operation's expansion read moments ago (staged from, not
    /// read again).
    fn propose(
        &self,
        edits: &[ProposedEdit],
        asked: Asked<'_>,
        reads: Reads,
    ) -> Result<Staged, Refusal>;
    /// Stages more edits of the same job, their files recorded in the
    /// checkpoint `into` (the job's first staging's) when given: a run over
    /// many notes stages as its notes come back. Default: [`Host::propose`].
    fn propose_into(
        &self,
        edits: &[ProposedEdit],
        asked: Asked<'_>,
        into: Option<&str>,
    ) -> Result<Staged, Refusal> {
        let _ = into;
        self.propose(edits, asked, Reads::new())
    }
    /// What the job has staged so far, all its stagings together (after a
    /// restart, a run over many notes goes on from it). Default: none.
    fn staged(&self) -> Option<Staged> {
        None
    }
    /// The notes no proposal may change: an operation leaves them out.
    /// Default: none (staging refuses them all the same).
    fn protection(&self) -> Protection {
        Protection::default()
    }
    /// The job's usage so far on this provider, after every step and tool
    /// call and before waiting for an answer (a live meter). Default: nothing.
    fn usage(&self, _usage: &JobUsage) {}
}

/// A staged proposal.
#[derive(Clone, Debug)]
pub struct Staged {
    /// The checkpoint taken before staging.
    pub checkpoint_id: String,
    /// The hunks, with their ids.
    pub bundle: DiffBundle,
    /// The edits staged, as the engine took them.
    pub edits: Vec<ProposedEdit>,
}

/// Why a proposal was not staged.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// Some edits were refused; none was staged.
    #[error("{} edits were refused", .0.len())]
    Edits(Vec<EditError>),
    /// The proposal could not be staged at all.
    #[error("{0}")]
    Other(String),
}

/// The user's reply to a question.
#[derive(Clone, Debug)]
pub struct Answer {
    /// The question answered.
    pub question_id: String,
    /// The answer; `None` skips the question.
    pub answer: Option<String>,
}
