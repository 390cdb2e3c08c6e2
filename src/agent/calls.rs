//! The tool calls of one model step: each is checked ([`check`]), then runs
//! as what it is — a project tool ([`run_tool`]), a question ([`ask`]), or the
//! final proposal ([`propose`]) — and its result goes back to the model.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::events::{
    AgentEvent, ClarificationRequested, EditProblem, EditsProposed, EditsRefused,
    ToolCallCompleted, ToolCallFailed, ToolCallRequested, ToolFailure,
};
use super::host::{Asked, Host, Refusal};
use super::state::{JobParams, LoopState, Outcome, PendingQuestion, Proposal, Question};
use super::fan_out::{self, EDIT_EACH_NOTE};
use super::toolset::{self, CLARIFY_USER, ClarifyArgs, PROPOSE_EDITS, ProposeEditsArgs};
use crate::edits::{self, ProposedEdit};
use crate::expand::{self, Expansion};
use crate::project::View;
use crate::providers::conversation::{Message, ToolResult};
use crate::providers::{Step, StopReason, ToolCall};
use crate::tools;

/// What one call came to.
enum CallResult {
    /// A result (or an error) for the model.
    Done(Result<Value, String>),
    /// A question for the user; the job waits for the answer.
    Question(Question),
    /// The proposal is staged: the job ends with it.
    Proposed(Proposal),
    /// The model proposed nothing, with this summary.
    NothingToChange(Option<String>),
    /// A run over many notes may start: it answers the call when it ends.
    FanOut,
    /// Redline hit a bug running the call (a panic, contained): the job
    /// fails with this message, as no retry by the model can help.
    Bug(String),
}

/// Runs every call of `step` in order. Returns how the job ends, if one of
/// them ended it (a proposal, or an explicit "nothing to change").
pub(super) async fn run_calls(
    step: &Step,
    model: &str,
    params: &JobParams,
    state: &mut LoopState,
    host: &dyn Host,
) -> Option<Outcome> {
    let truncated = step.stop == Some(StopReason::MaxTokens);
    let mut proposed = None;
    let mut nothing = None;
    for call in &step.tool_calls {
        if proposed.is_some() || nothing.is_some() || state.fan_out.is_some() {
            // The job ends with the proposal (or the run over many notes);
            // later calls are answered so the conversation stays well
            // formed if it is ever resumed.
            answer(
                state,
                call,
                Err("not run: edits were already proposed in this step".into()),
            );
            continue;
        }
        match handle(call, truncated, model, params, state, host).await {
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
            CallResult::FanOut => {}
            CallResult::Bug(message) => {
                answer(state, call, Err(message.clone()));
                return Some(Outcome::Failed {
                    code: "internal".into(),
                    message,
                    fallback: None,
                });
            }
        }
    }
    match (proposed, nothing) {
        (Some(proposal), _) if state.forced => Some(Outcome::BudgetExceeded(Some(proposal))),
        (Some(proposal), _) => Some(Outcome::Proposed(proposal)),
        (None, Some(_)) if state.forced => Some(Outcome::BudgetExceeded(None)),
        (None, Some(summary)) => Some(Outcome::Answered(summary)),
        (None, None) => None,
    }
}

/// Adds a call's result to the conversation.
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

/// A malformed call: counted as a schema failure and reported.
fn malformed(
    call: &ToolCall,
    state: &mut LoopState,
    host: &dyn Host,
    code: &str,
    message: String,
) -> CallResult {
    state.schema_failures += 1;
    host.emit(AgentEvent::ToolCallFailed(ToolCallFailed {
        tool_call_id: call.tool_call_id.clone(),
        tool: call.name.clone(),
        code: code.into(),
        message: message.clone(),
    }));
    CallResult::Done(Err(message))
}

async fn handle(
    call: &ToolCall,
    truncated: bool,
    model: &str,
    params: &JobParams,
    state: &mut LoopState,
    host: &dyn Host,
) -> CallResult {
    let (name, args) = match check(call, truncated, params, state) {
        Ok(checked) => checked,
        Err((code, message)) => return malformed(call, state, host, code, message),
    };
    host.emit(AgentEvent::ToolCallRequested(ToolCallRequested {
        tool_call_id: call.tool_call_id.clone(),
        tool: name.clone(),
        arguments: logged(&name, &args),
    }));
    match name.as_str() {
        PROPOSE_EDITS => propose(call, args, state, host),
        CLARIFY_USER => ask(call, args, state, host),
        EDIT_EACH_NOTE => each_note(call, args, model, params, state, host),
        _ => run_tool(call, &name, args, params, state, host).await,
    }
}

/// A call's arguments as its event records them: a proposal's edits as
/// their number.
fn logged(name: &str, args: &Value) -> Value {
    match args {
        // Not cloned first: a vault-wide proposal's edits are megabytes.
        Value::Object(fields) if name == PROPOSE_EDITS => fields
            .iter()
            .map(|(key, value)| match (key.as_str(), value) {
                ("edits", Value::Array(edits)) => (key.clone(), edits.len().into()),
                _ => (key.clone(), value.clone()),
            })
            .collect::<serde_json::Map<_, _>>()
            .into(),
        _ => args.clone(),
    }
}

/// Whether a call may run: complete, naming a tool this agent has (only
/// `propose_edits` once the budget forced the end: any other is refused
/// for the budget, not as unknown), with a JSON object of arguments.
/// Returns its normalised name and arguments, or the failure.
fn check(
    call: &ToolCall,
    truncated: bool,
    params: &JobParams,
    state: &LoopState,
) -> Result<(String, Value), (&'static str, String)> {
    if !call.complete && (truncated || call.name.is_empty()) {
        return Err((
            "truncated_call",
            "this call was cut off by the output limit and was not run; make it again, shorter"
                .into(),
        ));
    }
    let name = normalise_name(&call.name);
    let offered = toolset::specs(&params.agent);
    let known_tool = offered.iter().any(|t| t.name == name);
    if known_tool && state.forced && name != PROPOSE_EDITS {
        // The last step offers only propose_edits: the tool exists, the
        // budget is what refuses it, and the model is told so.
        return Err((
            "budget_exhausted",
            format!(
                "`{name}` was not run: this job's budget is spent. End now with propose_edits: \
                 the edits you are sure of, or none and a summary of what you found"
            ),
        ));
    }
    if !known_tool {
        let known: Vec<&str> = offered.iter().map(|t| t.name.as_str()).collect();
        return Err((
            "unknown_tool",
            format!(
                "there is no tool named `{}` here; the tools are: {}",
                call.name,
                known.join(", ")
            ),
        ));
    }
    match serde_json::from_str(&call.arguments) {
        Ok(v @ Value::Object(_)) => Ok((name, v)),
        Ok(_) => Err((
            "invalid_arguments",
            "the arguments must be a JSON object".into(),
        )),
        Err(e) => Err((
            "invalid_json",
            format!("the arguments are not valid JSON: {e}"),
        )),
    }
}

/// `clarify_user`: one question at a time.
fn ask(call: &ToolCall, args: Value, state: &mut LoopState, host: &dyn Host) -> CallResult {
    state.usage.tool_calls += 1;
    let args = match toolset::decode::<ClarifyArgs>(CLARIFY_USER, args) {
        Ok(args) => args,
        Err(problems) => {
            return malformed(
                call,
                state,
                host,
                "invalid_arguments",
                format!("invalid arguments for clarify_user: {problems}"),
            );
        }
    };
    if let Some(refused) = one_question_at_a_time(call, state, host) {
        return refused;
    }
    state.questions += 1;
    asking(
        call,
        Question {
            question_id: format!("q_{}", state.questions),
            question: args.question,
            suggested_answers: args.suggested_answers.unwrap_or_default(),
        },
        host,
    )
}

/// The refusal of a call that would ask the user while a question of this
/// step already waits (`clarify_user`, or a run's go-ahead), if it would.
fn one_question_at_a_time(
    call: &ToolCall,
    state: &mut LoopState,
    host: &dyn Host,
) -> Option<CallResult> {
    state.pending.is_some().then(|| {
        malformed(
            call,
            state,
            host,
            "one_question",
            "ask one question at a time".into(),
        )
    })
}

/// `question` put to the user for `call`: the event, then the wait.
fn asking(call: &ToolCall, question: Question, host: &dyn Host) -> CallResult {
    host.emit(AgentEvent::ClarificationRequested(ClarificationRequested {
        tool_call_id: call.tool_call_id.clone(),
        question_id: question.question_id.clone(),
        question: question.question.clone(),
        suggested_answers: question.suggested_answers.clone(),
    }));
    CallResult::Question(question)
}

/// `edit_each_note`: planned now; it starts once the loop sees it confirmed
/// (at once, or after the user's go-ahead to the question asked here).
fn each_note(
    call: &ToolCall,
    args: Value,
    model: &str,
    params: &JobParams,
    state: &mut LoopState,
    host: &dyn Host,
) -> CallResult {
    if let Some(refused) = one_question_at_a_time(call, state, host) {
        return refused;
    }
    match fan_out::plan(&call.tool_call_id, args, model, params, state, host) {
        Ok(None) => CallResult::FanOut,
        Ok(Some(question)) => asking(call, question, host),
        Err(why) => {
            state.schema_failures += 1;
            host.emit(AgentEvent::ToolCallFailed(ToolCallFailed {
                tool_call_id: call.tool_call_id.clone(),
                tool: EDIT_EACH_NOTE.into(),
                code: "refused".into(),
                message: why.clone(),
            }));
            CallResult::Done(Err(why))
        }
    }
}

/// A project tool (search, read, list), run off the async threads. The text
/// `read_file` returned is kept: the model's edits of that file are pinned to it.
async fn run_tool(
    call: &ToolCall,
    name: &str,
    args: Value,
    params: &JobParams,
    state: &mut LoopState,
    host: &dyn Host,
) -> CallResult {
    if state.usage.tool_calls >= params.max_tool_calls {
        return malformed(
            call,
            state,
            host,
            "budget_exhausted",
            "the tool-call budget is used up; call propose_edits now".into(),
        );
    }
    let key = format!("{name}{args}");
    let repeated = {
        let repeats = state.repeats.entry(key.clone()).or_default();
        *repeats += 1;
        *repeats
    };
    // The same call failed twice the same way: a third run would too.
    if let Some(error) = state.failed_calls.get(&key).filter(|_| repeated > 2) {
        let message = format!(
            "not run: you made this exact call {repeated} times and it failed each time ({error}); \
             change the arguments, use another tool, or call propose_edits"
        );
        state.blocked_repeats += 1;
        host.emit(AgentEvent::ToolCallFailed(ToolCallFailed {
            tool_call_id: call.tool_call_id.clone(),
            tool: name.to_owned(),
            code: "repeated_call".into(),
            message: message.clone(),
        }));
        return CallResult::Done(Err(message));
    }
    state.usage.tool_calls += 1;
    let project = host.project().clone();
    let overlay = host.working_state();
    let tool = name.to_owned();
    let on = args
        .get("file_path")
        .and_then(Value::as_str)
        .map(|path| format!(" on `{path}`"))
        .unwrap_or_default();
    let ran = tokio::task::spawn_blocking(move || {
        let view = View::with(&project, &overlay);
        let result = tools::run(view, &tool, args.clone());
        // The text the model saw is what its edits are pinned to.
        let version = match (&result, args.get("file_path").and_then(Value::as_str)) {
            (Ok(_), Some(path)) if tool == "read_file" => view
                .read_text(path)
                .ok()
                .map(|f| (f.path.rel().to_owned(), f.text)),
            _ => None,
        };
        // Every file the search matched counts as seen, on any page.
        let found = match &result {
            Ok(_) if tool == "search_project" => tools::search::files_matching(view, &args),
            _ => Vec::new(),
        };
        (result, version, found)
    })
    .await;
    let (result, version, found) = match ran {
        Ok(ran) => ran,
        Err(e) => {
            // The panic hook has logged it; the user reads what it hit.
            let message = format!(
                "Redline hit a bug while running `{name}`{on} ({}); no note was changed. \
                 The log has the details.",
                if e.is_panic() { "a panic" } else { "the tool was stopped" }
            );
            host.emit(AgentEvent::ToolCallFailed(ToolCallFailed {
                tool_call_id: call.tool_call_id.clone(),
                tool: name.to_owned(),
                code: "internal".into(),
                message: message.clone(),
            }));
            return CallResult::Bug(message);
        }
    };
    if let Some((path, text)) = version {
        state.seen.insert(path.clone());
        state.read_versions.insert(path, text);
    }
    state.seen.extend(found);
    let completed = |ok, result_count, error| {
        AgentEvent::ToolCallCompleted(ToolCallCompleted {
            tool_call_id: call.tool_call_id.clone(),
            tool: name.to_owned(),
            ok,
            result_count,
            error,
        })
    };
    match result {
        Ok(mut value) => {
            state.failed_calls.remove(&key);
            host.emit(completed(true, result_count(&value), None));
            if repeated >= 3 {
                value["note"] = json!(format!(
                    "you have made this exact call {repeated} times; the result will not change"
                ));
            }
            CallResult::Done(Ok(value))
        }
        Err(e) => {
            // A refused path or a bad pattern is the model's to fix, but not
            // a malformed call: it does not count as a retry.
            host.emit(completed(
                false,
                None,
                Some(ToolFailure {
                    code: e.code().into(),
                    message: e.to_string(),
                }),
            ));
            if e.code() == "invalid_arguments" {
                state.schema_failures += 1;
            }
            let error = format!("{}: {e}", e.code());
            state.failed_calls.insert(key, error.clone());
            CallResult::Done(Err(error))
        }
    }
}

/// `propose_edits`: the edits are pinned to the text the model read, then
/// staged by the host; a refusal goes back to the model to fix.
fn propose(call: &ToolCall, args: Value, state: &mut LoopState, host: &dyn Host) -> CallResult {
    let args: ProposeEditsArgs = match toolset::decode(PROPOSE_EDITS, args) {
        Ok(args) => args,
        Err(problems) => {
            state.schema_failures += 1;
            host.emit(AgentEvent::ToolCallFailed(ToolCallFailed {
                tool_call_id: call.tool_call_id.clone(),
                tool: PROPOSE_EDITS.into(),
                code: "invalid_arguments".into(),
                message: problems.clone(),
            }));
            return CallResult::Done(Err(format!(
                "invalid arguments for propose_edits: {problems}"
            )));
        }
    };
    let operations = args.operations.unwrap_or_default();
    if args.edits.is_empty() && operations.is_empty() {
        return CallResult::NothingToChange(args.summary);
    }
    let expansion = if operations.is_empty() {
        Expansion::default()
    } else {
        let overlay = host.working_state();
        let view = View::with(host.project(), &overlay);
        match expand::expand(&view, &operations, &host.protection()) {
            Ok(expansion) => expansion,
            Err(e) => {
                state.schema_failures += 1;
                return CallResult::Done(Err(format!("the operations were refused: {e}")));
            }
        }
    };
    if args.dry_run == Some(true) {
        return CallResult::Done(Ok(json!({
            "dry_run": true,
            "edits": expansion.edits.len(),
            "reports": expansion.reports,
        })));
    }
    if args.edits.is_empty() && expansion.edits.is_empty() {
        return CallResult::Done(Err(format!(
            "the operations change nothing; nothing was staged: {}",
            json!(expansion.reports)
        )));
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
    // What the engine changed it read: no rule flags a note for being
    // changed unread by the model.
    state
        .seen
        .extend(expansion.edits.iter().map(|e| e.file_path.clone()));
    edits.extend(expansion.edits);
    let files: BTreeSet<&str> = edits.iter().map(|e| e.file_path.as_str()).collect();
    host.emit(AgentEvent::EditsProposed(EditsProposed {
        tool_call_id: call.tool_call_id.clone(),
        edits: edits.len(),
        files: files.len(),
        operations: expansion.reports.iter().map(expand::Report::tally).collect(),
    }));
    let asked = Asked {
        seen: &state.seen,
        answers: &state.answers,
    };
    match host.propose(&edits, asked, expansion.reads) {
        Ok(staged) => {
            state.refusal = None;
            CallResult::Proposed(Proposal {
                edits,
                checkpoint_id: staged.checkpoint_id,
                bundle: staged.bundle,
                summary: args.summary,
            })
        }
        Err(refusal) => {
            state.schema_failures += 1;
            let (errors, message, told) = match refusal {
                Refusal::Edits(errors) => {
                    let problems: Vec<EditProblem> = errors
                        .iter()
                        .map(|e| EditProblem {
                            edit: e.edit_id.clone(),
                            file_path: e.file_path.clone(),
                            code: e.kind.code().into(),
                            message: e.to_string(),
                        })
                        .collect();
                    let told = format!(
                        "no edit was staged; fix these and call propose_edits again with all edits: {}",
                        serde_json::to_value(&problems).unwrap_or_default()
                    );
                    (problems, None, told)
                }
                Refusal::Other(message) => {
                    let told = format!("the edits could not be staged: {message}");
                    (Vec::new(), Some(message), told)
                }
            };
            state.refusal = Some(match &message {
                Some(message) => message.clone(),
                None => errors
                    .iter()
                    .map(|e| e.message.clone())
                    .collect::<Vec<_>>()
                    .join("; "),
            });
            host.emit(AgentEvent::EditsRefused(EditsRefused {
                tool_call_id: call.tool_call_id.clone(),
                errors,
                message,
            }));
            CallResult::Done(Err(told))
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
