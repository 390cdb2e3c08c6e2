//! The loop's state and what it ends with: a serialisable [`LoopState`] (saved
//! while the job waits for the user, so a question survives a restart), the
//! question asked, the usage counted, and the [`Outcome`].

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::AgentDefinition;
use super::fan_out::FanOut;
use crate::config::Config;
use crate::edits::ProposedEdit;
use crate::hunks::DiffBundle;
use crate::providers::conversation::Message;

/// A question the agent asked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Question {
    /// Its id, `q_<n>`.
    pub question_id: String,
    /// The question.
    pub question: String,
    /// Answers offered; free text is always allowed.
    #[serde(default)]
    pub suggested_answers: Vec<String>,
}

/// What a job used.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct JobUsage {
    /// Model steps taken.
    pub steps: u32,
    /// Tool calls made (the final `propose_edits` excluded).
    pub tool_calls: usize,
    /// Prompt tokens, all steps.
    pub input_tokens: u64,
    /// Generated tokens, all steps.
    pub output_tokens: u64,
    /// Estimated cost in US dollars (from the configured price table).
    pub cost_usd: f64,
}

impl JobUsage {
    /// Adds `more` to this usage (a job's attempts on several providers).
    pub fn add(&mut self, more: &JobUsage) {
        self.steps += more.steps;
        self.tool_calls += more.tool_calls;
        self.input_tokens += more.input_tokens;
        self.output_tokens += more.output_tokens;
        self.cost_usd += more.cost_usd;
    }
}

/// A question the model asked and the call it came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingQuestion {
    /// The question as the user sees it.
    pub question: Question,
    /// The call its answer goes back to.
    pub tool_call_id: String,
}

/// Everything the loop knows; serialisable so a waiting job survives a restart.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct LoopState {
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// What the job used.
    pub usage: JobUsage,
    /// Invalid calls and refused proposals so far.
    pub schema_failures: usize,
    /// Whether the wrap-up note was sent.
    pub warned: bool,
    /// Whether the final step was forced.
    pub forced: bool,
    /// Each file's content as the model last read it, to pin its edits to.
    pub read_versions: BTreeMap<String, String>,
    /// The files the model read or found by searching (review flags a
    /// change to any other).
    #[serde(default)]
    pub seen: BTreeSet<String>,
    /// The question waited on.
    pub pending: Option<PendingQuestion>,
    /// The user's answers to the job's questions: part of the request (a
    /// deletion asked for in an answer is no unasked deletion).
    #[serde(default)]
    pub answers: Vec<String>,
    /// Questions asked so far (for ids).
    pub questions: u32,
    /// How many times each identical call was made.
    pub repeats: BTreeMap<String, u32>,
    /// The last error of each identical call that failed, by call.
    #[serde(default)]
    pub failed_calls: BTreeMap<String, String>,
    /// Repeats of a failing call that were not run.
    #[serde(default)]
    pub blocked_repeats: usize,
    /// Whether the model was reminded to end with `propose_edits`.
    #[serde(default)]
    pub reminded: bool,
    /// Why its last proposal was not staged, while it has staged none.
    #[serde(default)]
    pub refusal: Option<String>,
    /// A run over many notes, planned or under way.
    #[serde(default)]
    pub fan_out: Option<FanOut>,
}

/// The settings of one job's loop.
#[derive(Clone, Debug)]
pub struct JobParams {
    /// The agent.
    pub agent: AgentDefinition,
    /// Tool calls allowed.
    pub max_tool_calls: usize,
    /// The configuration (limits, prices).
    pub config: Config,
    /// Longest one step may take before the loop gives up on it (hybrid
    /// fallback); `None` leaves it to the transport's timeouts.
    pub step_timeout: Option<Duration>,
}

/// Staged edits.
#[derive(Clone, Debug)]
pub struct Proposal {
    /// The edits the engine accepted.
    pub edits: Vec<ProposedEdit>,
    /// The checkpoint taken before staging.
    pub checkpoint_id: String,
    /// Their hunks.
    pub bundle: DiffBundle,
    /// The model's summary.
    pub summary: Option<String>,
}

/// Why the local provider gave way to the remote one (`hybrid_auto`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum FallbackReason {
    /// The tool budget ran out without usable edits.
    BudgetExhausted,
    /// Invalid calls or edits, repeatedly.
    SchemaFailures,
    /// The conversation outgrew the context window.
    ContextOverflow,
    /// A step took too long.
    Timeout,
    /// The local server could not be reached or failed.
    ProviderError,
}

/// How a loop ended.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Edits are staged for review.
    Proposed(Proposal),
    /// The model answered without proposing edits (or proposed none).
    Answered(String),
    /// A budget ended it; what it proposed in the forced step, if anything.
    BudgetExceeded(Option<Proposal>),
    /// It failed; `fallback` says whether hybrid mode may retry remotely.
    Failed {
        /// A stable code.
        code: String,
        /// What happened.
        message: String,
        /// The hybrid trigger this failure is, if any.
        fallback: Option<FallbackReason>,
    },
    /// The user cancelled it.
    Cancelled,
}

impl Outcome {
    /// The hybrid fallback this outcome calls for, if any.
    pub fn trigger(&self) -> Option<FallbackReason> {
        match self {
            Outcome::Failed { fallback, .. } => *fallback,
            Outcome::BudgetExceeded(None) => Some(FallbackReason::BudgetExhausted),
            _ => None,
        }
    }
}
