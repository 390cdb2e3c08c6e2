//! The loop of one job: ask the model, check what it asked for, run it, feed
//! the results back, until it proposes edits, answers in prose, is cancelled,
//! or a budget or the schema-retry limit ends it.
//!
//! Each turn is a sequence of named steps: take in an answer the job waited
//! for ([`resume`]), check the budgets ([`check_budget`]), build the request
//! ([`next_request`]), take the model's step ([`take_step`]), count what it
//! used ([`record_step`]), then act on its reply: prose ([`prose_reply`]) or
//! tool calls ([`super::calls::run_calls`]).

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::calls::run_calls;
use super::fan_out::{self, EDIT_EACH_NOTE};
use super::events::{
    AgentEvent, AssistantDelta, Budget, ClarificationReceived, ModelStep, Reminded, Unreadable,
};
use super::events::{ProviderFault, ProviderRetry};
use super::host::{Answer, Host};
use super::state::{FallbackReason, JobParams, LoopState, Outcome, PendingQuestion};
use super::toolset::{self, CLARIFY_USER, PROPOSE_EDITS};
use crate::providers::conversation::{Message, StepRequest, ToolChoice, ToolResult};
use crate::providers::{Notice, Provider, ProviderErrorKind, Step, StopReason};

/// The answer the model gets when the user skips a question.
pub const NO_USER_ANSWER: &str = "no_user_answer";

/// Share of a budget at which the model is told to wrap up.
const WARN_AT: f64 = 0.8;

/// Repeats of a failing call, not run, after which the job ends: the model
/// is going round in circles.
const MAX_BLOCKED_REPEATS: usize = 3;

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
    let budgets = Budgets::of(params);
    loop {
        host.usage(&state.usage);
        if cancel.is_cancelled() {
            return Outcome::Cancelled;
        }
        if let Some(pending) = state.pending.take()
            && !resume(pending, state, host, answers, cancel).await
        {
            return Outcome::Cancelled;
        }
        if state.fan_out.as_ref().is_some_and(|f| f.confirmed) {
            return fan_out::run(provider, params, state, host, cancel).await;
        }
        if let Some(end) = check_budget(&budgets, params, state, host) {
            return end;
        }
        let request = next_request(provider, params, state);
        let step = match take_step(provider, &request, params, host, cancel).await {
            Ok(Reply::Step(step)) => step,
            Ok(Reply::Unreadable(message)) => match unreadable(message, params, state, host) {
                Some(end) => return end,
                None => continue,
            },
            Err(end) => return end,
        };
        record_step(provider, &request, &step, params, &budgets, state, host);
        if step.tool_calls.is_empty() {
            match prose_reply(step, params, state, host) {
                Some(end) => return end,
                None => continue,
            }
        }
        if let Some(end) = run_calls(&step, &request.model, params, state, host).await {
            return end;
        }
        if state.blocked_repeats >= MAX_BLOCKED_REPEATS {
            return Outcome::Failed {
                code: "repeated_calls".into(),
                message: format!(
                    "the model kept repeating calls that had failed ({} repeats not run)",
                    state.blocked_repeats
                ),
                fallback: Some(FallbackReason::SchemaFailures),
            };
        }
        let limit = params.config.limits.max_schema_retries;
        if state.schema_failures > limit {
            return schema_failure(&format!(
                "the model made {} invalid calls or refused proposals (limit {limit})",
                state.schema_failures
            ));
        }
    }
}

/// The tool-call and token budgets of a job.
struct Budgets {
    tools: usize,
    tokens: u64,
}

impl Budgets {
    fn of(params: &JobParams) -> Budgets {
        Budgets {
            tools: params.max_tool_calls.max(1),
            tokens: params.config.limits.max_token_budget.max(1),
        }
    }

    /// The larger share of a budget `state` has used (1.0 is all of it).
    fn used(&self, state: &LoopState) -> f64 {
        let tools = state.usage.tool_calls as f64 / self.tools as f64;
        let tokens =
            (state.usage.input_tokens + state.usage.output_tokens) as f64 / self.tokens as f64;
        tools.max(tokens)
    }

    fn report(&self, state: &LoopState) -> Budget {
        Budget {
            tool_calls: state.usage.tool_calls,
            max_tool_calls: self.tools,
            tokens: state.usage.input_tokens + state.usage.output_tokens,
            max_tokens: self.tokens,
            cost_usd: state.usage.cost_usd,
        }
    }
}

/// Waits for the answer to the question `pending` and gives it to the model.
/// Returns false when the job was cancelled meanwhile.
async fn resume(
    pending: PendingQuestion,
    state: &mut LoopState,
    host: &dyn Host,
    answers: &mut mpsc::UnboundedReceiver<Answer>,
    cancel: &CancellationToken,
) -> bool {
    host.waiting(&pending.question);
    // Saved with the question still pending, so a restart asks it again.
    state.pending = Some(pending.clone());
    host.save(state);
    state.pending = None;
    let answer = loop {
        let answer = tokio::select! {
            _ = cancel.cancelled() => return false,
            a = answers.recv() => match a {
                Some(a) => a,
                None => return false,
            },
        };
        // A reply to an older question (a double click) is ignored.
        if answer.question_id == pending.question.question_id {
            break answer;
        }
    };
    let skipped = answer.answer.as_deref().is_none_or(|a| a.trim().is_empty());
    if !skipped && let Some(given) = &answer.answer {
        state.answers.push(given.clone());
    }
    host.emit(AgentEvent::ClarificationReceived(ClarificationReceived {
        question_id: answer.question_id,
        skipped,
        answer: answer.answer.clone(),
    }));
    // The go-ahead for a run over many notes: it answers its call itself.
    if let Some(fan) = state
        .fan_out
        .as_mut()
        .filter(|f| f.tool_call_id == pending.tool_call_id)
    {
        if fan_out::confirms(answer.answer.as_deref()) {
            fan.confirmed = true;
        } else {
            state.fan_out = None;
            state.messages.push(Message::Tool(ToolResult {
                tool_call_id: pending.tool_call_id,
                name: EDIT_EACH_NOTE.into(),
                content: format!(
                    "not run: the user did not confirm the run ({}). Ask what they want, or \
                     propose a smaller change.",
                    answer.answer.as_deref().unwrap_or(NO_USER_ANSWER)
                ),
                is_error: true,
            }));
        }
        host.resumed();
        return true;
    }
    state.messages.push(Message::Tool(ToolResult {
        tool_call_id: pending.tool_call_id,
        name: CLARIFY_USER.into(),
        content: match answer.answer {
            Some(text) if !skipped => text,
            _ => NO_USER_ANSWER.to_owned(),
        },
        is_error: false,
    }));
    host.resumed();
    true
}

/// Warns the model at 80% of a budget and forces the final call at 100%;
/// ends the job when a forced step has already been taken.
fn check_budget(
    budgets: &Budgets,
    params: &JobParams,
    state: &mut LoopState,
    host: &dyn Host,
) -> Option<Outcome> {
    let used = budgets.used(state);
    if used >= 1.0 {
        if state.forced || !params.agent.allows(PROPOSE_EDITS) {
            return Some(Outcome::BudgetExceeded(None));
        }
        state.forced = true;
        host.emit(AgentEvent::BudgetExhausted(budgets.report(state)));
        state.messages.push(Message::User {
            content: "The budget for this job is used up. Call propose_edits now with the edits \
                      you are sure of (an empty list if none)."
                .into(),
        });
    } else if !state.warned && used >= WARN_AT {
        state.warned = true;
        host.emit(AgentEvent::BudgetWarning(budgets.report(state)));
        state.messages.push(Message::User {
            content: "You are approaching this job's resource limit. Begin wrapping up: \
                      propose your edits with propose_edits soon."
                .into(),
        });
    }
    None
}

/// The model an agent asks: its own, or the provider's.
fn model_of(provider: &dyn Provider, params: &JobParams) -> String {
    params
        .agent
        .model
        .clone()
        .unwrap_or_else(|| provider.model().to_owned())
}

/// The next request: the conversation, and the tools the agent may use (only
/// `propose_edits`, required, once the budget forced the end).
fn next_request(provider: &dyn Provider, params: &JobParams, state: &LoopState) -> StepRequest {
    let tools = if state.forced {
        toolset::spec(&params.agent, PROPOSE_EDITS)
            .into_iter()
            .collect()
    } else {
        toolset::specs(&params.agent)
    };
    StepRequest {
        model: model_of(provider, params),
        messages: state.messages.clone(),
        tools,
        tool_choice: if state.forced {
            ToolChoice::Required
        } else {
            ToolChoice::Auto
        },
        parallel_tool_calls: !state.forced,
        max_tokens: params.config.limits.max_output_tokens,
        temperature: None,
    }
}

/// Counts the step's tokens and cost (estimated when the server reports no
/// usage), reports it, and adds the assistant's turn to the conversation.
fn record_step(
    provider: &dyn Provider,
    request: &StepRequest,
    step: &Step,
    params: &JobParams,
    budgets: &Budgets,
    state: &mut LoopState,
    host: &dyn Host,
) {
    state.usage.steps += 1;
    let input = step.usage.input_tokens.unwrap_or_else(|| estimate(request));
    let output = step.usage.output_tokens.unwrap_or_else(|| {
        let written = step.text.len()
            + step
                .tool_calls
                .iter()
                .map(|c| c.arguments.len())
                .sum::<usize>();
        (written / 4) as u64
    });
    state.usage.input_tokens += input;
    state.usage.output_tokens += output;
    state.usage.cost_usd += params.config.cost_usd(&request.model, input, output);
    host.usage(&state.usage);
    host.emit(AgentEvent::ModelStep(ModelStep {
        provider: provider.name().to_owned(),
        model: step.model.clone(),
        latency_ms: step.latency_ms,
        stop_reason: stop_reason(step).into(),
        input_tokens: input,
        output_tokens: output,
        tool_calls: step.tool_calls.len(),
        budget: budgets.report(state),
    }));
    state.messages.push(Message::Assistant {
        content: step.text.clone(),
        tool_calls: step.tool_calls.clone(),
    });
}

/// What the model is told when it stops without proposing.
const REMINDER: &str = "You have not proposed any edit. Call propose_edits now: with the edits \
    the instruction needs, or with an empty list and your answer as the summary if nothing \
    needs to change.";

/// A reply with no tool call. Cut off by the output limit: the model is asked
/// to be shorter (a malformed step). From an agent that cannot propose: its
/// answer. Otherwise the job has staged nothing, so the model is reminded
/// once to end with `propose_edits`; if it still does not, the job fails —
/// `proposal_refused` (with the refusal's reasons) when a proposal of its
/// was refused, `no_proposal` when it made none. A job never ends
/// `completed` without a staged proposal or an explicit "nothing to change".
fn prose_reply(
    step: Step,
    params: &JobParams,
    state: &mut LoopState,
    host: &dyn Host,
) -> Option<Outcome> {
    if state.forced {
        return Some(Outcome::BudgetExceeded(None));
    }
    if step.stop == Some(StopReason::MaxTokens) {
        state.schema_failures += 1;
        if state.schema_failures > params.config.limits.max_schema_retries {
            return Some(schema_failure(
                "the model kept running out of output tokens",
            ));
        }
        state.messages.push(Message::User {
            content: "Your reply was cut off by the output limit. Be shorter.".into(),
        });
        return None;
    }
    if !params.agent.allows(PROPOSE_EDITS) {
        return Some(Outcome::Answered(step.text));
    }
    if !state.reminded {
        state.reminded = true;
        host.emit(AgentEvent::Reminded(Reminded {
            refusal: state.refusal.clone(),
        }));
        state.messages.push(Message::User {
            content: REMINDER.into(),
        });
        return None;
    }
    let (code, message) = match &state.refusal {
        Some(reasons) => (
            "proposal_refused",
            format!(
                "the agent's proposal could not be staged, and it proposed nothing else: {reasons}"
            ),
        ),
        None => (
            "no_proposal",
            "the agent stopped without proposing edits or saying that nothing needs to change"
                .to_owned(),
        ),
    };
    Some(Outcome::Failed {
        code: code.into(),
        message,
        fallback: Some(FallbackReason::SchemaFailures),
    })
}

/// What a model step came back as.
enum Reply {
    /// A step to act on.
    Step(Step),
    /// Output the server could not parse (a weak model's broken tool call).
    Unreadable(String),
}

/// A step the server could not read: a malformed step like an invalid
/// call — counted toward the schema-retry limit (and `hybrid_auto`'s
/// `remote_on_schema_fail`), and the model told to try again.
fn unreadable(
    message: String,
    params: &JobParams,
    state: &mut LoopState,
    host: &dyn Host,
) -> Option<Outcome> {
    state.usage.steps += 1;
    state.schema_failures += 1;
    host.emit(AgentEvent::Unreadable(Unreadable {
        message: message.clone(),
        failures: state.schema_failures,
    }));
    let limit = params.config.limits.max_schema_retries;
    if state.schema_failures > limit {
        return Some(schema_failure(&format!(
            "the model's output could not be read {} times (limit {limit}); last: {message}",
            state.schema_failures
        )));
    }
    state.messages.push(Message::User {
        content: format!(
            "Your last reply could not be read as a tool call (the server said: {message}). \
             Reply with one tool call whose arguments are valid JSON."
        ),
    });
    None
}

/// The outcome of too many invalid calls or refused proposals.
pub(super) fn schema_failure(message: &str) -> Outcome {
    Outcome::Failed {
        code: "schema_retries_exhausted".into(),
        message: message.into(),
        fallback: Some(FallbackReason::SchemaFailures),
    }
}

/// A rough token count of a request, for servers that report no usage.
fn estimate(request: &StepRequest) -> u64 {
    (serde_json::to_string(&request.messages).map_or(0, |s| s.len()) / 4) as u64
}

/// Why a step stopped, as `model.step` events name it.
fn stop_reason(step: &Step) -> &'static str {
    if step.error.is_some() {
        "error"
    } else if step.tool_calls.iter().any(|c| c.name == PROPOSE_EDITS) {
        "proposed_edits"
    } else if step.tool_calls.iter().any(|c| c.name == EDIT_EACH_NOTE) {
        "fan_out"
    } else if step.tool_calls.iter().any(|c| c.name == CLARIFY_USER) {
        "needs_clarification"
    } else if !step.tool_calls.is_empty() {
        "needs_tools"
    } else {
        "done"
    }
}

/// Sends one request, streaming its text and retries into the job's log,
/// under the step timeout of a hybrid job. A failure ends the loop with the
/// fallback it calls for.
async fn take_step(
    provider: &dyn Provider,
    request: &StepRequest,
    params: &JobParams,
    host: &dyn Host,
    cancel: &CancellationToken,
) -> Result<Reply, Outcome> {
    let mut text = String::new();
    let mut notices = |notice: Notice| match notice {
        Notice::Text(t) => {
            text.push_str(&t);
            // Coalesced to lines or short runs, so a long answer stays within
            // the event cap while still streaming.
            if text.len() >= 64 || text.contains('\n') {
                host.emit(AgentEvent::AssistantDelta(AssistantDelta {
                    text: std::mem::take(&mut text),
                }));
            }
        }
        Notice::Retry {
            attempt,
            delay_ms,
            error,
        } => host.emit(AgentEvent::ProviderRetry(ProviderRetry {
            provider: provider.name().to_owned(),
            attempt,
            delay_ms,
            error: ProviderFault {
                code: error.kind,
                status: error.status,
                message: error.message,
            },
        })),
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
        host.emit(AgentEvent::AssistantDelta(AssistantDelta { text }));
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
        Some(Err(e)) if e.kind == ProviderErrorKind::MalformedOutput => {
            Ok(Reply::Unreadable(e.message))
        }
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
        Some(Ok(step)) => Ok(Reply::Step(step)),
    }
}
