//! What the loop reports while it runs: each event a variant with
//! named fields, serialised as `{"type": "<name>", "data": {...}}`. The job
//! runtime adds its own events around these (`jobs::JobEvent`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::named_events::named_events;

use crate::providers::ProviderErrorKind;

named_events! {
/// An event of the agent loop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub enum AgentEvent {
    /// One model step ended.
    ModelStep(ModelStep) = "model.step",
    /// A piece of the assistant's text, as it streams.
    AssistantDelta(AssistantDelta) = "assistant.delta",
    /// The provider's request failed and is retried.
    ProviderRetry(ProviderRetry) = "provider.retry",
    /// A well-formed call is about to run.
    ToolCallRequested(ToolCallRequested) = "tool.call.requested",
    /// A tool ran (`ok: false` when it refused).
    ToolCallCompleted(ToolCallCompleted) = "tool.call.completed",
    /// A call was malformed and not run.
    ToolCallFailed(ToolCallFailed) = "tool.call.failed",
    /// The agent asks the user a question; the job waits for the answer.
    ClarificationRequested(ClarificationRequested) = "clarification.requested",
    /// The user answered or skipped the question.
    ClarificationReceived(ClarificationReceived) = "clarification.received",
    /// The agent proposed edits; staging them comes next.
    EditsProposed(EditsProposed) = "edits.proposed",
    /// The proposal could not be staged; the model is told why.
    EditsRefused(EditsRefused) = "edits.refused",
    /// 80% of a budget is used: the model was told to wrap up.
    BudgetWarning(Budget) = "budget.warning",
    /// A budget is used up: the model must propose now.
    BudgetExhausted(Budget) = "budget.exhausted",
    /// The server could not parse what the model generated; it counts as
    /// an invalid call, and the model is asked again.
    Unreadable(Unreadable) = "model.unreadable",
    /// The model stopped without proposing: it was told to end with
    /// `propose_edits` (an empty list if nothing needs to change).
    Reminded(Reminded) = "agent.reminded",
    /// A run over many notes (one model call each) was planned: its notes
    /// and projected cost, and whether it waits for the user's go-ahead.
    FanOutPlanned(FanOutPlanned) = "fan_out.planned",
    /// A run over many notes staged more of them (after each batch).
    FanOutProgress(FanOutProgress) = "fan_out.progress",
}
}

/// How much of a job's budget is used.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Budget {
    /// Tool calls made.
    pub tool_calls: usize,
    /// Tool calls allowed.
    pub max_tool_calls: usize,
    /// Tokens used, input and output.
    pub tokens: u64,
    /// Tokens allowed.
    pub max_tokens: u64,
    /// Estimated cost so far, in US dollars.
    pub cost_usd: f64,
}

/// `model.step`: one request to the model and its answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelStep {
    /// The provider (`openai`, `anthropic`, `local`, …).
    pub provider: String,
    /// The model that answered.
    pub model: String,
    /// From sending the request to the end of the stream.
    pub latency_ms: u64,
    /// Why the step stopped: `proposed_edits`, `needs_clarification`,
    /// `needs_tools`, `done` or `error`.
    pub stop_reason: String,
    /// Prompt tokens (estimated when the server reports none).
    pub input_tokens: u64,
    /// Generated tokens (likewise).
    pub output_tokens: u64,
    /// Tool calls in the answer.
    pub tool_calls: usize,
    /// The budget after this step.
    pub budget: Budget,
}

/// `assistant.delta`: streamed text, coalesced to lines or short runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AssistantDelta {
    /// The text to append.
    pub text: String,
}

/// What went wrong with a provider request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ProviderFault {
    /// The error class.
    pub code: ProviderErrorKind,
    /// The HTTP status, if there was one.
    pub status: Option<u16>,
    /// What the server or the transport said.
    pub message: String,
}

/// `provider.retry`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ProviderRetry {
    /// The provider.
    pub provider: String,
    /// The attempt about to be made (2 for the first retry).
    pub attempt: u32,
    /// The wait before it.
    pub delay_ms: u64,
    /// Why.
    pub error: ProviderFault,
}

/// `tool.call.requested`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ToolCallRequested {
    /// The call's id.
    pub tool_call_id: String,
    /// The tool, its name normalised.
    pub tool: String,
    /// The arguments, as validated JSON; a `propose_edits` call's `edits`
    /// are given as their number (the job's `proposed_edits` has them, and
    /// a vault-wide proposal is megabytes that every reader of the log
    /// would fetch).
    pub arguments: Value,
}

/// A tool's refusal, as the model is told it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ToolFailure {
    /// A stable code (`escapes_root`, `not_found`, `invalid_pattern`, …).
    pub code: String,
    /// What happened and what to do instead.
    pub message: String,
}

/// `tool.call.completed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ToolCallCompleted {
    /// The call's id.
    pub tool_call_id: String,
    /// The tool.
    pub tool: String,
    /// Whether it ran; `false` when it refused (see `error`).
    pub ok: bool,
    /// How many things the result holds (results, files, lines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub result_count: Option<u64>,
    /// Why it refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error: Option<ToolFailure>,
}

/// `tool.call.failed`: a call that was not run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ToolCallFailed {
    /// The call's id.
    pub tool_call_id: String,
    /// The tool as the model named it.
    pub tool: String,
    /// `truncated_call`, `unknown_tool`, `invalid_json`, `invalid_arguments`,
    /// `one_question`, `budget_exhausted`, `repeated_call`, …
    pub code: String,
    /// What the model is told.
    pub message: String,
}

/// `clarification.requested`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ClarificationRequested {
    /// The call that asked.
    pub tool_call_id: String,
    /// The question's id.
    pub question_id: String,
    /// The question.
    pub question: String,
    /// Answers offered; free text is always allowed.
    pub suggested_answers: Vec<String>,
}

/// `clarification.received`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ClarificationReceived {
    /// The question answered.
    pub question_id: String,
    /// Whether the user skipped it (the model is told `no_user_answer`).
    pub skipped: bool,
    /// The answer, as given.
    pub answer: Option<String>,
}

/// `edits.proposed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EditsProposed {
    /// The `propose_edits` call.
    pub tool_call_id: String,
    /// How many edits.
    pub edits: usize,
    /// How many files they name (the job's `proposed_edits` has them; an
    /// earlier version's list of them reads as its length).
    #[serde(deserialize_with = "crate::named_events::count_or_list")]
    pub files: usize,
    /// What each of its vault-wide operations did, in order (none when it
    /// named only edits).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<_>", optional)]
    pub operations: Vec<crate::expand::Tally>,
}

/// One refused edit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EditProblem {
    /// The edit's id.
    pub edit: String,
    /// Its file.
    pub file_path: String,
    /// A stable code (`stale_target`, `overlap`, `anchor_not_found`, …).
    pub code: String,
    /// What is wrong and what to do instead.
    pub message: String,
}

/// `edits.refused`: either per-edit problems or one message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EditsRefused {
    /// The `propose_edits` call.
    pub tool_call_id: String,
    /// Each refused edit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<_>", optional)]
    pub errors: Vec<EditProblem>,
    /// Why, when the refusal is not about single edits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub message: Option<String>,
}

/// `agent.reminded`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Reminded {
    /// Why its last proposal was refused, if one was.
    pub refusal: Option<String>,
}

/// `fan_out.planned`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct FanOutPlanned {
    /// The `edit_each_note` call.
    pub tool_call_id: String,
    /// What each note is asked.
    pub instruction: String,
    /// The notes it will run over.
    pub notes: usize,
    /// Notes of its scope left out because they are protected.
    pub protected: usize,
    /// Prompt tokens it is projected to take, all notes.
    pub projected_input_tokens: u64,
    /// Generated tokens it is projected to take, all notes.
    pub projected_output_tokens: u64,
    /// Its projected cost in US dollars (0 with no price configured).
    pub projected_cost_usd: f64,
    /// Whether it waits for the user to confirm (past the thresholds).
    pub needs_confirmation: bool,
}

/// `fan_out.progress`: a run over many notes as it stands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct FanOutProgress {
    /// Notes answered (changed, unchanged or failed).
    pub done: usize,
    /// Notes in the run.
    pub total: usize,
    /// Notes whose edits are staged for review.
    pub changed: usize,
    /// Notes that failed (the model's answer unusable, or refused).
    pub failed: usize,
    /// Prompt tokens so far.
    pub input_tokens: u64,
    /// Generated tokens so far.
    pub output_tokens: u64,
    /// Cost so far in US dollars.
    pub cost_usd: f64,
}

/// `model.unreadable`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Unreadable {
    /// What the server said.
    pub message: String,
    /// Invalid calls and unreadable steps so far in the job.
    pub failures: usize,
}
