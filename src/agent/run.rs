//! The loop of one job: ask the model, check what it asked for, run it, feed
//! the results back, until it proposes edits, answers in prose, is cancelled,
//! or a budget or the schema-retry limit ends it.
//!
//! The loop's whole state is a serialisable [`LoopState`], saved while the job
//! waits for the user, so a question survives a restart and the job resumes
//! from its answer.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::AgentDefinition;
use super::toolset::{self, CLARIFY_USER, ClarifyArgs, PROPOSE_EDITS, ProposeEditsArgs};
use crate::checkpoints::Checkpoint;
use crate::config::Config;
use crate::edits::{self, ProposedEdit};
use crate::hunks::DiffBundle;
use crate::jobs::{JobStatus, JobUsage, Question};
use crate::project::Project;
use crate::providers::conversation::{Message, StepRequest, ToolChoice, ToolResult};
use crate::providers::{Notice, Provider, ProviderErrorKind, Step, StopReason, ToolCall};
use crate::tools;
use crate::workspace::WorkspaceError;

/// The answer the model gets when the user skips a question (seed §21).
pub const NO_USER_ANSWER: &str = "no_user_answer";

/// Share of a budget at which the model is told to wrap up.
const WARN_AT: f64 = 0.8;

/// What the loop needs from the job runtime around it.
pub trait Host: Send + Sync {
    /// The project the tools run on.
    fn project(&self) -> &Project;
    /// Appends an event to the job's log.
    fn emit(&self, kind: &str, data: Value);
    /// Records a status change (and the question waited on, if any).
    fn set_status(&self, status: JobStatus, question: Option<&Question>);
    /// Saves the loop's state, to resume from after a restart.
    fn save(&self, state: &LoopState);
    /// Checks and stages edits for review: checkpoint, hunks.
    fn propose(&self, edits: &[ProposedEdit]) -> Result<(Checkpoint, DiffBundle), WorkspaceError>;
}

/// The user's reply to a question.
#[derive(Clone, Debug)]
pub struct Answer {
    /// The question answered.
    pub question_id: String,
    /// The answer; `None` skips the question.
    pub answer: Option<String>,
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
    /// The question waited on.
    pub pending: Option<PendingQuestion>,
    /// Questions asked so far (for ids).
    pub questions: u32,
    /// How many times each identical call was made.
    pub repeats: BTreeMap<String, u32>,
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
    pub checkpoint: Checkpoint,
    /// Their hunks.
    pub bundle: DiffBundle,
    /// The model's summary.
    pub summary: Option<String>,
}

/// Why the local provider gave way to the remote one (seed §12).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

/// Runs the loop until it ends. `answers` brings the user's replies to
/// questions; `cancel` stops the job at any point, mid-step included.
pub async fn drive(
    provider: &dyn Provider,
    params: &JobParams,
    state: &mut LoopState,
    host: &dyn Host,
    answers: &mut mpsc::UnboundedReceiver<Answer>,
    cancel: &CancellationToken,
) -> Outcome {
    let limits = &params.config.limits;
    let budget_tools = params.max_tool_calls.max(1);
    let budget_tokens = limits.max_token_budget.max(1);
    let can_propose = params.agent.allows(PROPOSE_EDITS);
    loop {
        if cancel.is_cancelled() {
            return Outcome::Cancelled;
        }
        if let Some(pending) = state.pending.clone() {
            let Some(answer) = wait_for_answer(&pending, state, host, answers, cancel).await else {
                return Outcome::Cancelled;
            };
            state.pending = None;
            state.messages.push(Message::Tool(ToolResult {
                tool_call_id: pending.tool_call_id,
                name: CLARIFY_USER.into(),
                content: answer,
                is_error: false,
            }));
            host.set_status(JobStatus::Running, None);
        }

        let used_tools = state.usage.tool_calls as f64 / budget_tools as f64;
        let used_tokens =
            (state.usage.input_tokens + state.usage.output_tokens) as f64 / budget_tokens as f64;
        let exhausted = used_tools >= 1.0 || used_tokens >= 1.0;
        if exhausted {
            if state.forced || !can_propose {
                return Outcome::BudgetExceeded(None);
            }
            state.forced = true;
            host.emit(
                "budget.exhausted",
                budget_json(state, budget_tools, budget_tokens),
            );
            state.messages.push(Message::User {
                content:
                    "The budget for this job is used up. Call propose_edits now with the edits \
                          you are sure of (an empty list if none)."
                        .into(),
            });
        } else if !state.warned && (used_tools >= WARN_AT || used_tokens >= WARN_AT) {
            state.warned = true;
            host.emit(
                "budget.warning",
                budget_json(state, budget_tools, budget_tokens),
            );
            state.messages.push(Message::User {
                content: "You are approaching this job's resource limit. Begin wrapping up: \
                          propose your edits with propose_edits soon."
                    .into(),
            });
        }

        let tools = if state.forced {
            toolset::spec(&params.agent, PROPOSE_EDITS)
                .into_iter()
                .collect()
        } else {
            toolset::specs(&params.agent)
        };
        // An agent definition may name its own model of the provider in force.
        let model = params
            .agent
            .model
            .clone()
            .unwrap_or_else(|| provider.model().to_owned());
        let request = StepRequest {
            model: model.clone(),
            messages: state.messages.clone(),
            tools,
            tool_choice: if state.forced {
                ToolChoice::Required
            } else {
                ToolChoice::Auto
            },
            parallel_tool_calls: !state.forced,
            max_tokens: limits.max_output_tokens,
            temperature: None,
        };
        let step = match take_step(provider, &request, params, host, cancel).await {
            Ok(step) => step,
            Err(outcome) => return outcome,
        };
        state.usage.steps += 1;
        let input = step
            .usage
            .input_tokens
            .unwrap_or_else(|| estimate(&request));
        let output = step.usage.output_tokens.unwrap_or_else(|| {
            ((step.text.len()
                + step
                    .tool_calls
                    .iter()
                    .map(|c| c.arguments.len())
                    .sum::<usize>())
                / 4) as u64
        });
        state.usage.input_tokens += input;
        state.usage.output_tokens += output;
        state.usage.cost_usd += params.config.cost_usd(&model, input, output);
        host.emit(
            "model.step",
            json!({
                "provider": provider.name(), "model": step.model, "latency_ms": step.latency_ms,
                "stop_reason": stop_reason(&step), "input_tokens": input, "output_tokens": output,
                "tool_calls": step.tool_calls.len(),
                "budget": budget_json(state, budget_tools, budget_tokens),
            }),
        );
        state.messages.push(Message::Assistant {
            content: step.text.clone(),
            tool_calls: step.tool_calls.clone(),
        });

        if step.tool_calls.is_empty() {
            if state.forced {
                return Outcome::BudgetExceeded(None);
            }
            if step.stop == Some(StopReason::MaxTokens) {
                state.schema_failures += 1;
                if state.schema_failures > limits.max_schema_retries {
                    return schema_failure("the model kept running out of output tokens");
                }
                state.messages.push(Message::User {
                    content: "Your reply was cut off by the output limit. Be shorter.".into(),
                });
                continue;
            }
            return Outcome::Answered(step.text);
        }

        let mut proposed = None;
        let mut nothing = None;
        for call in &step.tool_calls {
            if proposed.is_some() || nothing.is_some() {
                // The job ends with the proposal; later calls are answered so
                // the conversation stays well formed if it is ever resumed.
                answer(
                    state,
                    call,
                    Err("not run: edits were already proposed in this step".into()),
                );
                continue;
            }
            let truncated = step.stop == Some(StopReason::MaxTokens);
            match handle_call(call, truncated, params, state, host).await {
                CallResult::Done(result) => answer(state, call, result),
                CallResult::Question(question) => {
                    state.pending = Some(PendingQuestion {
                        question,
                        tool_call_id: call.tool_call_id.clone(),
                    });
                }
                CallResult::Proposed(proposal) => {
                    answer(state, call, Ok(json!({ "status": "staged for review" })));
                    proposed = Some(proposal);
                }
                CallResult::NothingToChange(summary) => {
                    answer(state, call, Ok(json!({ "status": "nothing to change" })));
                    nothing = Some(summary.unwrap_or_else(|| "Nothing needs to change.".into()));
                }
            }
        }
        if let Some(summary) = nothing.filter(|_| proposed.is_none()) {
            return if state.forced {
                Outcome::BudgetExceeded(None)
            } else {
                Outcome::Answered(summary)
            };
        }
        if let Some(proposal) = proposed {
            if state.forced {
                return Outcome::BudgetExceeded(Some(proposal));
            }
            return Outcome::Proposed(proposal);
        }
        if state.schema_failures > limits.max_schema_retries {
            return schema_failure(&format!(
                "the model made {} invalid calls or refused proposals (limit {})",
                state.schema_failures, limits.max_schema_retries
            ));
        }
    }
}

fn schema_failure(message: &str) -> Outcome {
    Outcome::Failed {
        code: "schema_retries_exhausted".into(),
        message: message.into(),
        fallback: Some(FallbackReason::SchemaFailures),
    }
}

fn budget_json(state: &LoopState, tools: usize, tokens: u64) -> Value {
    json!({
        "tool_calls": state.usage.tool_calls, "max_tool_calls": tools,
        "tokens": state.usage.input_tokens + state.usage.output_tokens, "max_tokens": tokens,
        "cost_usd": state.usage.cost_usd,
    })
}

/// A rough token count of a request, for servers that report no usage.
fn estimate(request: &StepRequest) -> u64 {
    (serde_json::to_string(&request.messages).map_or(0, |s| s.len()) / 4) as u64
}

/// The seed's §11 stop reason of a step.
fn stop_reason(step: &Step) -> &'static str {
    if step.error.is_some() {
        "error"
    } else if step.tool_calls.iter().any(|c| c.name == PROPOSE_EDITS) {
        "proposed_edits"
    } else if step.tool_calls.iter().any(|c| c.name == CLARIFY_USER) {
        "needs_clarification"
    } else if !step.tool_calls.is_empty() {
        "needs_tools"
    } else {
        "done"
    }
}

async fn wait_for_answer(
    pending: &PendingQuestion,
    state: &LoopState,
    host: &dyn Host,
    answers: &mut mpsc::UnboundedReceiver<Answer>,
    cancel: &CancellationToken,
) -> Option<String> {
    host.set_status(JobStatus::WaitingForUser, Some(&pending.question));
    host.save(state);
    loop {
        let answer = tokio::select! {
            _ = cancel.cancelled() => return None,
            a = answers.recv() => a?,
        };
        // A reply to an older question (a double click) is ignored.
        if answer.question_id != pending.question.question_id {
            continue;
        }
        let skipped = answer.answer.as_deref().is_none_or(|a| a.trim().is_empty());
        host.emit(
            "clarification.received",
            json!({ "question_id": answer.question_id, "skipped": skipped, "answer": answer.answer }),
        );
        return Some(if skipped {
            NO_USER_ANSWER.to_owned()
        } else {
            answer.answer.unwrap_or_default()
        });
    }
}

async fn take_step(
    provider: &dyn Provider,
    request: &StepRequest,
    params: &JobParams,
    host: &dyn Host,
    cancel: &CancellationToken,
) -> Result<Step, Outcome> {
    let mut text = String::new();
    let mut notices = |notice: Notice| {
        match notice {
        Notice::Text(t) => {
            text.push_str(&t);
            // Coalesced to lines or short runs, so a long answer stays within
            // the event cap while still streaming.
            if text.len() >= 64 || text.contains('\n') {
                host.emit("assistant.delta", json!({ "text": std::mem::take(&mut text) }));
            }
        }
        Notice::Retry {
            attempt,
            delay_ms,
            error,
        } => host.emit(
            "provider.retry",
            json!({ "provider": provider.name(), "attempt": attempt, "delay_ms": delay_ms,
                    "error": { "code": error.kind, "status": error.status, "message": error.message } }),
        ),
    }
    };
    let step = provider.step(request, &mut notices);
    let timed = async {
        match params.step_timeout {
            Some(limit) => tokio::time::timeout(limit, step).await.ok(),
            None => Some(step.await),
        }
    };
    let result = tokio::select! {
        _ = cancel.cancelled() => return Err(Outcome::Cancelled),
        r = timed => r,
    };
    if !text.is_empty() {
        host.emit("assistant.delta", json!({ "text": text }));
    }
    match result {
        None => Err(Outcome::Failed {
            code: "timeout".into(),
            message: format!(
                "the model took longer than {:?} for one step",
                params.step_timeout.unwrap_or_default()
            ),
            fallback: Some(FallbackReason::Timeout),
        }),
        Some(Err(e)) => Err(Outcome::Failed {
            code: serde_json::to_value(e.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            message: e.to_string(),
            fallback: Some(if e.kind == ProviderErrorKind::ContextOverflow {
                FallbackReason::ContextOverflow
            } else {
                FallbackReason::ProviderError
            }),
        }),
        Some(Ok(step)) => Ok(step),
    }
}

enum CallResult {
    Done(Result<Value, String>),
    Question(Question),
    Proposed(Proposal),
    NothingToChange(Option<String>),
}

fn answer(state: &mut LoopState, call: &ToolCall, result: Result<Value, String>) {
    let (content, is_error) = match result {
        Ok(v) => (v.to_string(), false),
        Err(message) => (json!({ "error": message }).to_string(), true),
    };
    state.messages.push(Message::Tool(ToolResult {
        tool_call_id: call.tool_call_id.clone(),
        name: call.name.clone(),
        content,
        is_error,
    }));
}

/// Names models commonly garble: `functions.read_file`, `Read-File`.
fn normalise_name(name: &str) -> String {
    let name = name.trim();
    let name = name.strip_prefix("functions.").unwrap_or(name);
    name.to_ascii_lowercase().replace('-', "_")
}

async fn handle_call(
    call: &ToolCall,
    truncated: bool,
    params: &JobParams,
    state: &mut LoopState,
    host: &dyn Host,
) -> CallResult {
    let name = normalise_name(&call.name);
    let failed = |state: &mut LoopState, code: &str, message: String| {
        state.schema_failures += 1;
        host.emit(
            "tool.call.failed",
            json!({ "tool_call_id": call.tool_call_id, "tool": call.name, "code": code, "message": message }),
        );
        CallResult::Done(Err(message))
    };
    if !call.complete && (truncated || call.name.is_empty()) {
        return failed(
            state,
            "truncated_call",
            "this call was cut off by the output limit and was not run; make it again, shorter"
                .into(),
        );
    }
    let offered = toolset::specs(&params.agent);
    if !offered.iter().any(|t| t.name == name) || (state.forced && name != PROPOSE_EDITS) {
        let known: Vec<&str> = offered.iter().map(|t| t.name.as_str()).collect();
        return failed(
            state,
            "unknown_tool",
            format!(
                "there is no tool named `{}` here; the tools are: {}",
                call.name,
                known.join(", ")
            ),
        );
    }
    let args: Value = match serde_json::from_str(&call.arguments) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => {
            return failed(
                state,
                "invalid_arguments",
                "the arguments must be a JSON object".into(),
            );
        }
        Err(e) => {
            return failed(
                state,
                "invalid_json",
                format!("the arguments are not valid JSON: {e}"),
            );
        }
    };
    host.emit(
        "tool.call.requested",
        json!({ "tool_call_id": call.tool_call_id, "tool": name, "arguments": args }),
    );
    match name.as_str() {
        PROPOSE_EDITS => propose(call, args, state, host),
        CLARIFY_USER => {
            state.usage.tool_calls += 1;
            match toolset::decode::<ClarifyArgs>(CLARIFY_USER, args) {
                Err(problems) => failed(
                    state,
                    "invalid_arguments",
                    format!("invalid arguments for clarify_user: {problems}"),
                ),
                Ok(_) if state.pending.is_some() => {
                    failed(state, "one_question", "ask one question at a time".into())
                }
                Ok(args) => {
                    state.questions += 1;
                    let question = Question {
                        question_id: format!("q_{}", state.questions),
                        question: args.question,
                        suggested_answers: args.suggested_answers.unwrap_or_default(),
                    };
                    host.emit(
                        "clarification.requested",
                        json!({ "tool_call_id": call.tool_call_id, "question_id": question.question_id,
                                "question": question.question, "suggested_answers": question.suggested_answers }),
                    );
                    CallResult::Question(question)
                }
            }
        }
        _ => {
            if state.usage.tool_calls >= params.max_tool_calls {
                return failed(
                    state,
                    "budget_exhausted",
                    "the tool-call budget is used up; call propose_edits now".into(),
                );
            }
            state.usage.tool_calls += 1;
            let key = format!("{name}{args}");
            let repeats = state.repeats.entry(key).or_default();
            *repeats += 1;
            let repeated = *repeats;
            let project = host.project().clone();
            let tool = name.clone();
            let run_args = args.clone();
            let result = tokio::task::spawn_blocking(move || {
                let result = tools::run(&project, &tool, run_args.clone());
                // The text the model saw is what its edits are pinned to.
                let version = match (&result, run_args.get("file_path").and_then(Value::as_str)) {
                    (Ok(_), Some(path)) if tool == "read_file" => project
                        .read_text(path)
                        .ok()
                        .map(|f| (path.to_owned(), f.text)),
                    _ => None,
                };
                (result, version)
            })
            .await;
            let (result, version) = match result {
                Ok(r) => r,
                Err(e) => return failed(state, "tool_panicked", format!("the tool failed: {e}")),
            };
            if let Some((path, text)) = version {
                state.read_versions.insert(path, text);
            }
            match result {
                Ok(mut value) => {
                    let count = result_count(&value);
                    host.emit(
                        "tool.call.completed",
                        json!({ "tool_call_id": call.tool_call_id, "tool": name, "ok": true, "result_count": count }),
                    );
                    if repeated >= 3 {
                        value["note"] = json!(format!(
                            "you have made this exact call {repeated} times; the result will not change"
                        ));
                    }
                    CallResult::Done(Ok(value))
                }
                Err(e) => {
                    // A refused path or a bad pattern is the model's to fix,
                    // but not a malformed call: it does not count as a retry.
                    host.emit(
                        "tool.call.completed",
                        json!({ "tool_call_id": call.tool_call_id, "tool": name, "ok": false,
                                "error": { "code": e.code(), "message": e.to_string() } }),
                    );
                    if e.code() == "invalid_arguments" {
                        state.schema_failures += 1;
                    }
                    CallResult::Done(Err(format!("{}: {e}", e.code())))
                }
            }
        }
    }
}

fn propose(call: &ToolCall, args: Value, state: &mut LoopState, host: &dyn Host) -> CallResult {
    let args: ProposeEditsArgs = match toolset::decode(PROPOSE_EDITS, args) {
        Ok(a) => a,
        Err(problems) => {
            state.schema_failures += 1;
            host.emit(
                "tool.call.failed",
                json!({ "tool_call_id": call.tool_call_id, "tool": PROPOSE_EDITS, "code": "invalid_arguments", "message": problems }),
            );
            return CallResult::Done(Err(format!(
                "invalid arguments for propose_edits: {problems}"
            )));
        }
    };
    if args.edits.is_empty() {
        return CallResult::NothingToChange(args.summary);
    }
    let mut edits: Vec<ProposedEdit> = args
        .edits
        .into_iter()
        .enumerate()
        .map(|(i, e)| e.into_edit(i + 1))
        .collect();
    for edit in &mut edits {
        if let Some(read) = state.read_versions.get(&edit.file_path) {
            edits::pin(edit, read);
        }
    }
    host.emit(
        "edits.proposed",
        json!({ "tool_call_id": call.tool_call_id, "edits": edits.len(),
                "files": edits.iter().map(|e| e.file_path.as_str()).collect::<std::collections::BTreeSet<_>>() }),
    );
    match host.propose(&edits) {
        Ok((checkpoint, bundle)) => CallResult::Proposed(Proposal {
            edits,
            checkpoint,
            bundle,
            summary: args.summary,
        }),
        Err(WorkspaceError::Edits(errors)) => {
            state.schema_failures += 1;
            let problems: Vec<Value> = errors
                .iter()
                .map(|e| json!({ "edit": e.edit_id, "file_path": e.file_path, "code": e.kind.code(), "message": e.to_string() }))
                .collect();
            host.emit(
                "edits.refused",
                json!({ "tool_call_id": call.tool_call_id, "errors": problems }),
            );
            CallResult::Done(Err(format!(
                "no edit was staged; fix these and call propose_edits again with all edits: {}",
                Value::Array(problems)
            )))
        }
        Err(other) => {
            state.schema_failures += 1;
            host.emit(
                "edits.refused",
                json!({ "tool_call_id": call.tool_call_id, "message": other.to_string() }),
            );
            CallResult::Done(Err(format!("the edits could not be staged: {other}")))
        }
    }
}

/// How many things a tool result holds, for the timeline.
fn result_count(value: &Value) -> Option<u64> {
    if let Some(total) = value.get("total").and_then(Value::as_u64) {
        return Some(total);
    }
    for key in ["results", "files", "lines"] {
        if let Some(list) = value.get(key).and_then(Value::as_array) {
            return Some(list.len() as u64);
        }
    }
    value
        .get("content")
        .and_then(Value::as_str)
        .map(|c| c.lines().count() as u64)
}
