//! One model call per note: an instruction that needs judgement in each note
//! ("add a one-line summary under the title") runs over a set of notes as one
//! job. Each note gets a small call of its own (that note and the instruction,
//! allowed to edit only that note) with bounded concurrency (one at a time on a
//! local server); its hunks are staged into the job as they arrive, so review
//! starts before the run ends (docs/operations.md#one-model-call-per-note).
//!
//! The run is planned first ([`plan`]): its notes, and the tokens and cost
//! it is projected to take, confirmed by the user past the configured
//! thresholds. Its progress is part of the loop's saved state: a restart
//! resumes with the notes not yet done, and a note whose hunks are already
//! under review is never asked again, so no hunk is staged twice.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::events::{AgentEvent, FanOutPlanned, FanOutProgress};
use super::host::{Asked, Host, Refusal};
use super::state::{JobParams, JobUsage, LoopState, Outcome, Proposal, Question};
use super::toolset::{self, PROPOSE_EDITS};
use crate::edits::{self, Operation, ProposedEdit};
use crate::expand::Scope;
use crate::project::View;
use crate::providers::conversation::{Message, StepRequest, ToolChoice, ToolResult};
use crate::providers::{Provider, ProviderErrorKind};
use crate::tools;

/// The name of the tool that starts a run over many notes.
pub const EDIT_EACH_NOTE: &str = "edit_each_note";

/// The suggested answer that starts a run the user is asked to confirm.
pub const RUN: &str = "Run";

/// What the model sends to run an instruction over many notes.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditEachNoteArgs {
    /// What to do to each note, as you would tell someone who sees only that
    /// note ("add a one-line summary under the title").
    pub instruction: String,
    /// The notes: folders, a glob, a search, a property, or a list.
    pub scope: Scope,
    /// One or two sentences for the user: what the run is for.
    #[serde(default)]
    pub summary: Option<String>,
}

/// A run over many notes, as far as it got: saved with the loop's state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FanOut {
    /// The call that started it (its result goes back to it).
    pub tool_call_id: String,
    /// The instruction each note gets.
    pub instruction: String,
    /// The model's summary of the run, if it gave one.
    pub summary: Option<String>,
    /// Every note of the run, in order.
    pub notes: Vec<String>,
    /// The notes answered (changed, unchanged or failed).
    pub done: BTreeSet<String>,
    /// The notes whose edits are staged.
    pub changed: BTreeSet<String>,
    /// The notes that failed, with why.
    pub failed: BTreeMap<String, String>,
    /// Whether the user confirmed it (or it needed no confirmation).
    pub confirmed: bool,
    /// What its calls used so far.
    pub usage: JobUsage,
}

/// Tokens one note's request is projected to take beyond the note itself:
/// the prompt, the instruction's framing and the tool's schema (under
/// 6,000 bytes in all; the whole `propose_edits`, operations and all, is
/// several times that, which is why a note's call offers only its edits).
const OVERHEAD_TOKENS: u64 = 1500;

/// Staged at least this often while notes come back, so the first hunks are
/// in review at once and a thousand notes are not a thousand checkpoints.
const STAGE_EVERY: Duration = Duration::from_millis(250);

/// Attempts at one note that the provider refused for its rate (each after
/// the provider's own retries), the wait doubling from [`RATE_PAUSE`].
const RATE_ATTEMPTS: u32 = 4;
const RATE_PAUSE: Duration = Duration::from_secs(2);

/// What one note's call is told.
const NOTE_PROMPT: &str = "\
You edit one note of a Markdown vault, following an instruction. You see only this note; \
its lines are numbered `<n>\\t<text>`. Call propose_edits once with the edits this note \
needs, every file_path being this note's path, and an empty list if it needs none. Change \
only what the instruction asks and keep every other line as it is. For replace and delete, \
set old_text to the exact current text of the target lines (without the numbers).";

/// `edit_each_note`: resolves the scope and projects the cost. Returns the
/// question to ask when the run needs the user's confirmation; `Ok(None)`
/// when it may start at once (it is in `state.fan_out`, confirmed); the
/// error for the model when it cannot run.
pub(super) fn plan(
    call_id: &str,
    args: Value,
    model: &str,
    params: &JobParams,
    state: &mut LoopState,
    host: &dyn Host,
) -> Result<Option<Question>, String> {
    let args: EditEachNoteArgs = toolset::decode(EDIT_EACH_NOTE, args)
        .map_err(|p| format!("invalid arguments for {EDIT_EACH_NOTE}: {p}"))?;
    if args.instruction.trim().is_empty() {
        return Err("the instruction is empty".into());
    }
    let overlay = host.working_state();
    let view = View::with(host.project(), &overlay);
    let protection = host.protection();
    let mut notes = args.scope.notes(&view).map_err(|e| e.to_string())?;
    let mut protected = Vec::new();
    let mut note_bytes = 0u64;
    notes.retain(|note| {
        let text = view.read_text(note).ok().map(|f| f.text);
        if protection.why(note, text.as_deref()).is_some() {
            protected.push(note.clone());
            return false;
        }
        note_bytes += text.map_or(0, |t| t.len() as u64);
        true
    });
    let limits = &params.config.limits;
    if notes.is_empty() {
        return Err(format!(
            "the scope reaches no note{}; nothing was run",
            if protected.is_empty() {
                String::new()
            } else {
                format!(" that is not protected ({} protected)", protected.len())
            }
        ));
    }
    if notes.len() > limits.fan_out_max_notes {
        return Err(format!(
            "the scope reaches {} notes, more than the {} one run may take; narrow it",
            notes.len(),
            limits.fan_out_max_notes
        ));
    }
    // A note's tokens in and, for the edits, about a third of them out.
    let count = notes.len() as u64;
    let input = count * OVERHEAD_TOKENS
        + (args.instruction.len() as u64 / 4) * count
        + note_bytes / 4;
    let output = (count * 60 + note_bytes / 12)
        .min(count * u64::from(limits.fan_out_output_tokens));
    let cost_usd = params.config.cost_usd(model, input, output);
    let confirm = notes.len() > limits.fan_out_confirm_notes
        || cost_usd * 100.0 > limits.fan_out_confirm_cents as f64;
    host.emit(AgentEvent::FanOutPlanned(FanOutPlanned {
        tool_call_id: call_id.to_owned(),
        instruction: args.instruction.clone(),
        notes: notes.len(),
        protected: protected.len(),
        projected_input_tokens: input,
        projected_output_tokens: output,
        projected_cost_usd: cost_usd,
        needs_confirmation: confirm,
    }));
    let question = confirm.then(|| {
        state.questions += 1;
        Question {
            question_id: format!("q_{}", state.questions),
            question: format!(
                "Run “{}” over {} notes, one model call each? About {} tokens in and {} out{}.",
                args.instruction.trim(),
                notes.len(),
                input,
                output,
                if cost_usd > 0.0 {
                    format!(" (about ${cost_usd:.2})")
                } else {
                    String::new()
                }
            ),
            suggested_answers: vec![RUN.into(), "Cancel".into()],
        }
    });
    state.fan_out = Some(FanOut {
        tool_call_id: call_id.to_owned(),
        instruction: args.instruction,
        summary: args.summary,
        notes,
        confirmed: question.is_none(),
        ..FanOut::default()
    });
    Ok(question)
}

/// Whether `answer` confirms a run: "Run", "yes", "ok", "go"…
pub(super) fn confirms(answer: Option<&str>) -> bool {
    let Some(first) = answer
        .and_then(|a| a.split_whitespace().next())
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase())
    else {
        return false;
    };
    matches!(
        first.as_str(),
        "run" | "yes" | "y" | "ok" | "okay" | "go" | "proceed" | "sure" | "confirm"
    )
}

/// One note's answer.
struct NoteDone {
    note: String,
    edits: Result<Vec<ProposedEdit>, String>,
    usage: JobUsage,
}

/// Runs the confirmed run in `state.fan_out` to its end (or the user's
/// cancel): every note not yet done gets its call, `concurrency` at a time
/// (one on a local server), and what comes back is staged into the job
/// every [`STAGE_EVERY`]. Ends the job: proposed (what was staged),
/// answered (no note needed a change), failed (every note failed), or
/// cancelled (what was staged stays in review).
pub(super) async fn run(
    provider: &dyn Provider,
    params: &JobParams,
    state: &mut LoopState,
    host: &dyn Host,
    cancel: &CancellationToken,
) -> Outcome {
    let mut fan = state.fan_out.take().expect("a confirmed run");
    // After a restart: what the job staged before it stopped is its own,
    // and a note with hunks under review is done, whatever the saved state
    // missed.
    let mut staged = host.staged();
    if let Some(so_far) = &staged {
        for file in &so_far.bundle.files {
            fan.done.insert(file.file_path.clone());
            fan.changed.insert(file.file_path.clone());
        }
    }
    let todo: Vec<String> = fan
        .notes
        .iter()
        .filter(|n| !fan.done.contains(*n))
        .cloned()
        .collect();
    let concurrency = if provider.name() == "local" {
        1
    } else {
        params.config.limits.fan_out_concurrency.max(1)
    };
    let model = params
        .agent
        .model
        .clone()
        .unwrap_or_else(|| provider.model().to_owned());
    let mut edits_staged = 0;
    let instruction = fan.instruction.clone();
    let mut calls = futures_util::stream::iter(todo)
        .map(|note| one_note(provider, params, &model, &instruction, note, host))
        .buffer_unordered(concurrency);
    let mut batch: Vec<NoteDone> = Vec::new();
    let mut last_staged: Option<Instant> = None;
    let mut cancelled = false;
    loop {
        let next = tokio::select! {
            _ = cancel.cancelled() => { cancelled = true; None }
            next = calls.next() => next,
        };
        let ended = next.is_none();
        if let Some(done) = next {
            fan.usage.add(&done.usage);
            state.usage.add(&done.usage);
            host.usage(&state.usage);
            batch.push(done);
        }
        let due = last_staged.is_none_or(|at| at.elapsed() >= STAGE_EVERY);
        if !batch.is_empty() && (ended || due) {
            let batch = std::mem::take(&mut batch);
            edits_staged += stage(&mut fan, batch, &mut staged, &state.answers, host);
            last_staged = Some(Instant::now());
            // Saved after each stage: a restart resumes from here.
            state.fan_out = Some(fan.clone());
            host.save(state);
            state.fan_out = None;
            host.emit(progress(&fan));
        }
        if ended {
            break;
        }
    }
    drop(calls);
    let report = report(&fan, edits_staged, cancelled);
    state.messages.push(Message::Tool(ToolResult {
        tool_call_id: fan.tool_call_id.clone(),
        name: EDIT_EACH_NOTE.into(),
        content: report.to_string(),
        is_error: false,
    }));
    let summary = summary(&fan, cancelled);
    if cancelled {
        return Outcome::Cancelled;
    }
    match staged {
        Some(staged) if !fan.changed.is_empty() => Outcome::Proposed(Proposal {
            edits: staged.edits,
            checkpoint_id: staged.checkpoint_id,
            bundle: staged.bundle,
            summary: Some(summary),
        }),
        _ if fan.failed.len() == fan.notes.len() => Outcome::Failed {
            code: "fan_out_failed".into(),
            message: summary,
            fallback: None,
        },
        _ => Outcome::Answered(summary),
    }
}

/// Asks the model about one note: its text (numbered as `read_file` shows
/// it) and the instruction; its edits pinned to that text. A malformed
/// answer is asked again once, with what was wrong; a rate limit waits and
/// tries again.
async fn one_note(
    provider: &dyn Provider,
    params: &JobParams,
    model: &str,
    instruction: &str,
    note: String,
    host: &dyn Host,
) -> NoteDone {
    let mut usage = JobUsage::default();
    let read = {
        let overlay = host.working_state();
        let view = View::with(host.project(), &overlay);
        let text = view.read_text(&note).map(|f| f.text);
        let shown = tools::run(view, "read_file", json!({ "file_path": note }));
        text.map_err(|e| e.to_string()).and_then(|text| {
            let shown = shown.map_err(|e| e.to_string())?;
            let numbered = shown["content"].as_str().unwrap_or_default().to_owned();
            Ok((text, numbered))
        })
    };
    let (text, numbered) = match read {
        Ok(read) => read,
        Err(why) => {
            return NoteDone {
                note,
                edits: Err(format!("could not be read: {why}")),
                usage,
            };
        }
    };
    let mut messages = vec![
        Message::System {
            content: NOTE_PROMPT.into(),
        },
        Message::User {
            content: format!("Instruction: {instruction}\n\nThe note `{note}`:\n{numbered}"),
        },
    ];
    let tools = vec![toolset::note_spec()];
    let mut asked_again = false;
    let mut rate_pause = RATE_PAUSE;
    let mut rate_attempts = 0;
    loop {
        let request = StepRequest {
            model: model.to_owned(),
            messages: messages.clone(),
            tools: tools.clone(),
            tool_choice: ToolChoice::Required,
            parallel_tool_calls: false,
            max_tokens: params.config.limits.fan_out_output_tokens,
            temperature: None,
        };
        let step = match provider.step(&request, &mut |_| {}).await {
            Ok(step) => step,
            Err(e)
                if matches!(
                    e.kind,
                    ProviderErrorKind::RateLimited | ProviderErrorKind::Overloaded
                ) && rate_attempts + 1 < RATE_ATTEMPTS =>
            {
                rate_attempts += 1;
                tokio::time::sleep(rate_pause).await;
                rate_pause *= 2;
                continue;
            }
            Err(e) => {
                return NoteDone {
                    note,
                    edits: Err(format!("the model failed: {e}")),
                    usage,
                };
            }
        };
        let input = step
            .usage
            .input_tokens
            .unwrap_or_else(|| (serde_json::to_string(&messages).map_or(0, |s| s.len()) / 4) as u64);
        let output = step.usage.output_tokens.unwrap_or_else(|| {
            (step.tool_calls.iter().map(|c| c.arguments.len()).sum::<usize>() / 4) as u64
        });
        usage.steps += 1;
        usage.input_tokens += input;
        usage.output_tokens += output;
        usage.cost_usd += params.config.cost_usd(model, input, output);
        let answer = read_answer(&step.tool_calls, &note, &text);
        match answer {
            Ok(edits) => {
                return NoteDone {
                    note,
                    edits: Ok(edits),
                    usage,
                };
            }
            Err(why) if !asked_again => {
                asked_again = true;
                if let Some(call) = step.tool_calls.first() {
                    messages.push(Message::Assistant {
                        content: step.text.clone(),
                        tool_calls: vec![call.clone()],
                    });
                    messages.push(Message::Tool(ToolResult {
                        tool_call_id: call.tool_call_id.clone(),
                        name: call.name.clone(),
                        content: json!({ "error": why }).to_string(),
                        is_error: true,
                    }));
                } else {
                    messages.push(Message::User {
                        content: format!("{why}. Call propose_edits now."),
                    });
                }
            }
            Err(why) => {
                return NoteDone {
                    note,
                    edits: Err(why),
                    usage,
                };
            }
        }
    }
}

/// The edits one note's answer proposes, pinned to `text`; or why they
/// cannot be taken: no `propose_edits` call, invalid arguments, or an edit
/// of another file or of the file itself (a move, a deletion).
fn read_answer(
    calls: &[crate::providers::ToolCall],
    note: &str,
    text: &str,
) -> Result<Vec<ProposedEdit>, String> {
    let call = calls
        .iter()
        .find(|c| c.name.trim().trim_start_matches("functions.") == PROPOSE_EDITS)
        .ok_or("the answer made no propose_edits call")?;
    let args: Value = serde_json::from_str(&call.arguments)
        .map_err(|e| format!("the arguments are not valid JSON: {e}"))?;
    let args = toolset::decode_note(args)
        .map_err(|p| format!("invalid arguments for propose_edits: {p}"))?;
    let mut edits = Vec::with_capacity(args.edits.len());
    for (i, edit) in args.edits.into_iter().enumerate() {
        if edit.file_path != note {
            return Err(format!(
                "edit {} names `{}`; only `{note}` may be edited here",
                i + 1,
                edit.file_path
            ));
        }
        if !matches!(
            edit.operation,
            Operation::Replace | Operation::Insert | Operation::Delete
        ) {
            return Err(format!(
                "edit {} is a {:?}; only replace, insert and delete are allowed here",
                i + 1,
                edit.operation
            ));
        }
        let mut edit = edit.into_edit(i + 1);
        edits::pin(&mut edit, text);
        edits.push(edit);
    }
    Ok(edits)
}

/// Stages what `batch` proposes into the job (one checkpoint for the whole
/// run): at once when the engine takes it all, else note by note, so one
/// note's refused edit does not hold back the others. Returns how many
/// edits were staged.
fn stage(
    fan: &mut FanOut,
    batch: Vec<NoteDone>,
    staged: &mut Option<super::host::Staged>,
    answers: &[String],
    host: &dyn Host,
) -> usize {
    let mut proposed: Vec<(String, Vec<ProposedEdit>)> = Vec::new();
    for done in batch {
        fan.done.insert(done.note.clone());
        match done.edits {
            Ok(edits) if edits.is_empty() => {}
            Ok(edits) => proposed.push((done.note, edits)),
            Err(why) => {
                fan.failed.insert(done.note, why);
            }
        }
    }
    let mut count = 0;
    let mut put = |notes: &[(String, Vec<ProposedEdit>)], fan: &mut FanOut| {
        let mut edits: Vec<ProposedEdit> = Vec::new();
        for (_, list) in notes {
            edits.extend(list.iter().cloned());
        }
        // Numbered on from the run's earlier stagings: ids stay unique in the job.
        let before = staged.as_ref().map_or(0, |s| s.edits.len());
        for (i, edit) in edits.iter_mut().enumerate() {
            edit.edit_id = format!("e_{}", before + i + 1);
        }
        let seen: BTreeSet<String> = notes.iter().map(|(n, _)| n.clone()).collect();
        let into = staged.as_ref().map(|s| s.checkpoint_id.clone());
        let asked = Asked {
            seen: &seen,
            answers,
        };
        let result = host.propose_into(&edits, asked, into.as_deref());
        if let Ok(more) = &result {
            count += edits.len();
            fan.changed.extend(seen);
            match staged {
                Some(so_far) => {
                    so_far.bundle.absorb(more.bundle.clone());
                    so_far.edits.extend(more.edits.iter().cloned());
                }
                None => *staged = Some(more.clone()),
            }
        }
        result
    };
    if proposed.is_empty() {
        return 0;
    }
    if put(&proposed, fan).is_err() {
        for one in proposed.chunks(1) {
            if let Err(refusal) = put(one, fan) {
                let why = match refusal {
                    Refusal::Edits(errors) => errors
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join("; "),
                    Refusal::Other(message) => message,
                };
                fan.failed.insert(one[0].0.clone(), format!("not staged: {why}"));
            }
        }
    }
    count
}

/// The `fan_out.progress` event of `fan` as it stands.
fn progress(fan: &FanOut) -> AgentEvent {
    AgentEvent::FanOutProgress(FanOutProgress {
        done: fan.done.len(),
        total: fan.notes.len(),
        changed: fan.changed.len(),
        failed: fan.failed.len(),
        input_tokens: fan.usage.input_tokens,
        output_tokens: fan.usage.output_tokens,
        cost_usd: fan.usage.cost_usd,
    })
}

/// What the model is told the run came to.
fn report(fan: &FanOut, edits: usize, cancelled: bool) -> Value {
    let failed: Vec<Value> = fan
        .failed
        .iter()
        .take(20)
        .map(|(note, why)| json!({ "note": note, "why": why }))
        .collect();
    json!({
        "status": if cancelled { "cancelled" } else { "done" },
        "notes": fan.notes.len(),
        "done": fan.done.len(),
        "changed": fan.changed.len(),
        "unchanged": fan.done.len() - fan.changed.len() - fan.failed.len(),
        "failed": fan.failed.len(),
        "failures": failed,
        "edits_staged": edits,
    })
}

/// The job's summary: what the run did, and what it could not.
fn summary(fan: &FanOut, cancelled: bool) -> String {
    let mut out = match &fan.summary {
        Some(s) if !s.trim().is_empty() => format!("{} ", s.trim()),
        _ => String::new(),
    };
    let unchanged = fan.done.len() - fan.changed.len() - fan.failed.len();
    out.push_str(&format!(
        "Ran “{}” over {} of {} notes: {} changed, {unchanged} unchanged",
        fan.instruction.trim(),
        fan.done.len(),
        fan.notes.len(),
        fan.changed.len(),
    ));
    if !fan.failed.is_empty() {
        let named: Vec<String> = fan
            .failed
            .iter()
            .take(3)
            .map(|(note, why)| format!("{note} ({why})"))
            .collect();
        out.push_str(&format!(", {} failed: {}", fan.failed.len(), named.join("; ")));
        if fan.failed.len() > 3 {
            out.push_str(&format!(" and {} more", fan.failed.len() - 3));
        }
    }
    if cancelled {
        out.push_str("; cancelled, what was staged is kept");
    }
    out.push('.');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::ToolCall;

    fn call(arguments: &str) -> ToolCall {
        ToolCall {
            tool_call_id: "c1".into(),
            name: PROPOSE_EDITS.into(),
            arguments: arguments.into(),
            complete: true,
        }
    }

    #[test]
    fn an_answer_may_edit_its_note_only() {
        let text = "# Title\nbody\n";
        let ok = read_answer(
            &[call(
                r#"{"edits":[{"file_path":"a.md","operation":"insert","start_line":2,"new_text":"Summary.\n"}]}"#,
            )],
            "a.md",
            text,
        )
        .unwrap();
        assert_eq!(ok.len(), 1);
        assert!(ok[0].expected_hash.is_some(), "pinned to the text it saw");
        let other = read_answer(
            &[call(
                r#"{"edits":[{"file_path":"b.md","operation":"replace","start_line":1,"new_text":"x"}]}"#,
            )],
            "a.md",
            text,
        )
        .unwrap_err();
        assert!(other.contains("only `a.md`"), "{other}");
        let moved = read_answer(
            &[call(
                r#"{"edits":[{"file_path":"a.md","operation":"move","new_path":"c.md"}]}"#,
            )],
            "a.md",
            text,
        )
        .unwrap_err();
        assert!(moved.contains("only replace, insert and delete"), "{moved}");
        assert!(read_answer(&[], "a.md", text).is_err());
        assert_eq!(read_answer(&[call(r#"{"edits":[]}"#)], "a.md", text).unwrap(), []);
    }

    #[test]
    fn one_notes_request_carries_a_small_schema() {
        // Sent with every note: the projection counts on it staying small.
        let spec = serde_json::to_string(&toolset::note_spec()).unwrap();
        let framing = NOTE_PROMPT.len() + spec.len();
        assert!(framing < 4 * OVERHEAD_TOKENS as usize, "{framing} bytes");
    }

    #[test]
    fn a_run_is_confirmed_in_words_people_use() {
        for yes in ["Run", "yes", "OK, go ahead", "y", "Go!"] {
            assert!(confirms(Some(yes)), "{yes}");
        }
        for no in ["Cancel", "no", "", "not now"] {
            assert!(!confirms(Some(no)), "{no}");
        }
        assert!(!confirms(None));
    }
}
