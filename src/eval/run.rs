//! Running one task through the real runtime — the same code the app runs:
//! tools, loop, staging — with scripted answers to questions, another
//! program's changes at their moment, the oracle's review and apply, then
//! the checks on disk.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;

use super::EvalError;
use super::checks::{self, Snapshot};
use super::oracle::{self, Proposed};
use super::results::TaskResult;
use super::task::{During, Task};
use crate::agent::AgentEvent;
use crate::config::{AgentMode, Config, ProviderKind, ProviderSettings};
use crate::hunks::Hunk;
use crate::jobs::{Job, JobEvent, JobStatus, ProviderChain, RunRequest, Runtime, RuntimeEvent};
use crate::providers::conversation::{Message, StepRequest};
use crate::providers::{Notice, Protocol, Provider, ProviderError, Step};
use crate::testkit::scripted::{ScriptedCall, ScriptedModel, Turn};
use crate::workspace::Keep;

/// Longest a job may run before the harness cancels it.
const JOB_TIMEOUT: Duration = Duration::from_secs(20 * 60);

/// How to run tasks.
#[derive(Clone, Debug)]
pub struct Runner {
    /// The configuration: `agent_mode`, providers, limits. Each task gets a
    /// data folder of its own.
    pub config: Config,
    /// Serve each task's golden trace as the model: the remote one in
    /// `remote` and `hybrid_auto`, the local one in `local`.
    pub golden: bool,
    /// Keep each task's model turns as a golden trace, in
    /// `<record>/<task id>/golden.json`.
    pub record: Option<PathBuf>,
}

impl Runner {
    /// Runs `task` once. A run that breaks off is a failed task whose
    /// `failures` say why, never an error of the whole suite.
    pub async fn run(&self, task: &Task) -> TaskResult {
        let mut result = TaskResult {
            id: task.id.clone(),
            tags: task.spec.tags.clone(),
            ..TaskResult::default()
        };
        if let Err(e) = self.attempt(task, &mut result).await {
            result.success = false;
            result.failures.push(e.to_string());
        }
        result
    }

    async fn attempt(&self, task: &Task, result: &mut TaskResult) -> Result<(), EvalError> {
        let vault = tempfile::tempdir()?;
        task.lay_out(vault.path())?;
        let data = tempfile::tempdir()?;
        let start = checks::snapshot(vault.path());
        let mut config = self.config.clone();
        config.data_dir = Some(data.path().to_path_buf());
        if let Some(protected) = &task.spec.protected {
            config.protected = protected.clone();
        }
        let golden = match self.golden {
            true => Some(ScriptedModel::start(task.golden()?).await?),
            false => None,
        };
        if let Some(model) = &golden {
            let settings = ProviderSettings {
                provider: ProviderKind::Openai,
                model: "golden".into(),
                base_url: Some(model.base_url(Protocol::OpenAiChat)),
                temperature: None,
                require_tools: false,
                max_output_tokens: None,
            };
            match config.agent_mode {
                AgentMode::Local => config.local = settings,
                AgentMode::Remote | AgentMode::HybridAuto => config.remote = settings,
            }
        }
        let recorded = Arc::new(Mutex::new(Vec::new()));
        let other = Arc::new(OtherProgram {
            root: vault.path().to_path_buf(),
            due: Mutex::new(task.spec.during.clone()),
            changed: Mutex::new(Vec::new()),
        });
        let record = self.record.is_some();
        let providers = ProviderChain::from_config(&config)?.wrap(|inner| {
            let inner: Arc<dyn Provider> = match record {
                true => Arc::new(Recorder {
                    inner,
                    turns: recorded.clone(),
                }),
                false => inner,
            };
            Arc::new(ChangesBeforeSteps {
                inner,
                other: other.clone(),
            })
        });
        let runtime = Runtime::open_with(vault.path(), config, providers)?;
        let outcome = self.session(task, &runtime, &other, &start, result).await;
        runtime.shutdown();
        outcome?;
        let now = checks::snapshot(vault.path());
        result.failures.extend(checks::failures(task, &start, &now));
        result.success = result.failures.is_empty();
        result.unintended_bytes_written = checks::unintended_bytes(task, &start, &now);
        if let Some(dir) = &self.record {
            let dir = dir.join(&task.id);
            std::fs::create_dir_all(&dir)?;
            let turns = recorded.lock().unwrap_or_else(|e| e.into_inner()).clone();
            std::fs::write(
                dir.join("golden.json"),
                serde_json::to_string_pretty(&turns)?,
            )?;
        }
        Ok(())
    }

    /// The instruction and its follow-ups in one session, each reviewed by
    /// the oracle and applied before the next; a job whose apply conflicts
    /// with another program's change is re-run once on the current content.
    async fn session(
        &self,
        task: &Task,
        runtime: &Runtime,
        other: &OtherProgram,
        start: &Snapshot,
        result: &mut TaskResult,
    ) -> Result<(), EvalError> {
        let session = runtime.create_session(None)?;
        let started = Instant::now();
        let mut answers = task.spec.clarify.answers.iter();
        let requests = std::iter::once(&task.spec.instruction).chain(&task.spec.followups);
        for instruction in requests {
            let mut job = runtime.run(RunRequest {
                session_id: session.session_id.clone(),
                instruction: instruction.clone(),
                ..RunRequest::default()
            })?;
            loop {
                let mut follow = Follow {
                    runtime,
                    task,
                    answers: &mut answers,
                    result,
                };
                let done = follow.until_done(&job.job_id).await?;
                // Changes due after more calls than the job made land now,
                // before the review; the watcher would then report them all.
                other.change_all()?;
                for path in other.take_changed() {
                    runtime.external_change(&path)?;
                }
                record_job(&done, result);
                result.latency_ms = started.elapsed().as_millis() as u64;
                let open = matches!(
                    done.status,
                    JobStatus::AwaitingReview | JobStatus::BudgetExceeded
                );
                if !open || done.diff_bundle.is_none() {
                    result.statuses.push(done.status.as_str().to_owned());
                    break;
                }
                let accepted = review(task, runtime, &done, start, result)?;
                let report = runtime.apply(&done, &accepted)?;
                let after = runtime.job(&done.job_id)?.status;
                result.statuses.push(after.as_str().to_owned());
                result.latency_ms = started.elapsed().as_millis() as u64;
                let conflicts: Vec<&str> = report
                    .iter()
                    .filter(|f| f.status == "conflict")
                    .map(|f| f.file_path.as_str())
                    .collect();
                if !conflicts.is_empty() {
                    result.conflicts += 1;
                    if result.reruns == 0 {
                        // As a user would: take the disk's version (nothing of
                        // the job was written to it), then run the job again.
                        for path in conflicts {
                            runtime.resolve(path, Keep::Theirs)?;
                        }
                        result.reruns += 1;
                        job = runtime.rerun(&done.job_id)?;
                        continue;
                    }
                }
                break;
            }
        }
        Ok(())
    }
}

/// Adds a finished job's figures to the task's.
fn record_job(job: &Job, result: &mut TaskResult) {
    result.jobs += 1;
    if let Some(error) = &job.error {
        result.failures.push(format!(
            "{}: {} ({})",
            job.job_id, error.message, error.code
        ));
    }
    result.steps += job.usage.steps;
    result.tool_calls += job.usage.tool_calls;
    result.input_tokens += job.usage.input_tokens;
    result.output_tokens += job.usage.output_tokens;
    result.cost_usd += job.usage.cost_usd;
    if let Some(p) = &job.provider
        && !result.providers.contains(p)
    {
        result.providers.push(p.clone());
    }
    if let Some(bundle) = &job.diff_bundle {
        result.hunks += bundle.hunk_ids().count();
        result.relocations += bundle
            .files
            .iter()
            .map(|f| f.relocations.len())
            .sum::<usize>();
    }
}

/// The oracle's review of `job`'s hunks; returns the accepted ones.
fn review(
    task: &Task,
    runtime: &Runtime,
    job: &Job,
    start: &Snapshot,
    result: &mut TaskResult,
) -> Result<Vec<String>, EvalError> {
    let (Some(bundle), Some(checkpoint)) = (&job.diff_bundle, &job.checkpoint_id) else {
        return Ok(Vec::new());
    };
    let paths: Vec<&str> = bundle.files.iter().map(|f| f.file_path.as_str()).collect();
    let texts = runtime.read_workspace(|ws| ws.diff3_many(checkpoint, &paths))?;
    let files: Vec<Proposed<'_>> = bundle
        .files
        .iter()
        .zip(&texts)
        .map(|(diff, three)| Proposed {
            diff,
            base: three.checkpoint_base.as_deref(),
            proposed: three.agent_proposed.as_deref(),
        })
        .collect();
    for file in &files {
        if !checks::may_change(task, &file.diff.file_path) {
            result.unintended_bytes_proposed += checks::changed_bytes(
                file.base.unwrap_or_default().as_bytes(),
                file.proposed.unwrap_or_default().as_bytes(),
            );
        }
    }
    triage(task, &files, result);
    let accepted: Vec<String> = oracle::review_ops(task, &bundle.file_ops)
        .into_iter()
        .chain(oracle::review(task, start, &files))
        .filter(|d| d.accept)
        .map(|d| d.hunk_id)
        .collect();
    result.accepted += accepted.len();
    Ok(accepted)
}

/// Counts the hunks of `files` the review flagged, and the damaging ones
/// the task names (`[[damage]]`) that were proposed and flagged.
fn triage(task: &Task, files: &[Proposed<'_>], result: &mut TaskResult) {
    for file in files {
        result.flagged += file
            .diff
            .hunks
            .iter()
            .filter(|h| !h.flags.is_empty())
            .count();
    }
    for damage in &task.spec.damage {
        let hits: Vec<&Hunk> = files
            .iter()
            .filter(|f| f.diff.file_path == damage.file)
            .flat_map(|f| f.diff.hunks.iter().filter(|h| touches(f, h, &damage.text)))
            .collect();
        if !hits.is_empty() {
            result.damaging += 1;
            if hits.iter().any(|h| !h.flags.is_empty()) {
                result.damaging_flagged += 1;
            } else {
                result.failures.push(format!(
                    "the damage in {} ({}) was not flagged",
                    damage.file, damage.kind
                ));
            }
        }
    }
}

/// Whether `hunk` of `file` takes out or puts in `text`.
fn touches(file: &Proposed<'_>, hunk: &Hunk, text: &str) -> bool {
    let lines = |t: Option<&str>, start: usize, len: usize| {
        t.unwrap_or_default()
            .split_inclusive('\n')
            .skip(start)
            .take(len)
            .collect::<String>()
    };
    lines(file.base, hunk.old_start, hunk.old_lines).contains(text)
        || lines(file.proposed, hunk.new_start, hunk.new_lines).contains(text)
}

/// Following one job's events to its end, playing the user.
struct Follow<'a, 'r> {
    runtime: &'a Runtime,
    task: &'a Task,
    answers: &'a mut std::slice::Iter<'r, String>,
    result: &'a mut TaskResult,
}

impl Follow<'_, '_> {
    async fn until_done(&mut self, job_id: &str) -> Result<Job, EvalError> {
        let deadline = Instant::now() + JOB_TIMEOUT;
        let mut cursor = 0;
        loop {
            let page = self.runtime.events(job_id, cursor, 5_000).await?;
            cursor = page.next_cursor;
            for event in &page.events {
                match &event.event {
                    JobEvent::Agent(AgentEvent::ToolCallFailed(_)) => {
                        self.result.schema_failures += 1;
                    }
                    JobEvent::Agent(AgentEvent::EditsRefused(_)) => {
                        self.result.refused_proposals += 1
                    }
                    JobEvent::Agent(AgentEvent::ClarificationRequested(_)) => {
                        self.result.questions += 1;
                        if !self.task.spec.clarify.expect {
                            self.result.unnecessary_questions += 1;
                        }
                    }
                    // Answered once the job waits for it.
                    JobEvent::Runtime(RuntimeEvent::Status(s))
                        if s.status == JobStatus::WaitingForUser =>
                    {
                        if let Some(question) = &s.question_id {
                            let answer = self.answers.next().cloned();
                            self.runtime.clarify(job_id, question, answer)?;
                        }
                    }
                    JobEvent::Runtime(RuntimeEvent::Status(s)) if s.status.is_terminal() => {
                        return Ok(self.runtime.job(job_id)?);
                    }
                    _ => {}
                }
            }
            if Instant::now() > deadline {
                self.runtime.cancel(job_id)?;
                return Err(EvalError::Timeout(job_id.to_owned(), JOB_TIMEOUT));
            }
        }
    }
}

/// Another program that changes files while a job runs (`[[during]]`).
struct OtherProgram {
    root: PathBuf,
    /// Changes not made yet.
    due: Mutex<Vec<During>>,
    /// Files changed, not yet reported to the runtime.
    changed: Mutex<Vec<String>>,
}

impl OtherProgram {
    /// Makes the changes due once `calls` tool calls have been answered.
    fn change_after(&self, calls: usize) -> std::io::Result<()> {
        let due: Vec<During> = {
            let mut pending = self.due.lock().unwrap_or_else(|e| e.into_inner());
            let (due, later) = pending.drain(..).partition(|d| d.after_tool_calls <= calls);
            *pending = later;
            due
        };
        for change in due {
            let path = self.root.join(&change.file);
            let mut text = std::fs::read_to_string(&path)?;
            if let Some((old, new)) = &change.replace {
                text = text.replacen(old.as_str(), new, 1);
            }
            if let Some(tail) = &change.append {
                text.push_str(tail);
            }
            std::fs::write(&path, text)?;
            self.changed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(change.file);
        }
        Ok(())
    }

    /// Makes every change still due.
    fn change_all(&self) -> std::io::Result<()> {
        self.change_after(usize::MAX)
    }

    /// The files changed since last asked.
    fn take_changed(&self) -> Vec<String> {
        std::mem::take(&mut *self.changed.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// The provider as the harness runs it: before each step, the other
/// program makes the changes due after the tool calls answered so far — so
/// a change lands between a tool's result and the model's next step, the
/// same moment on every run.
struct ChangesBeforeSteps {
    inner: Arc<dyn Provider>,
    other: Arc<OtherProgram>,
}

impl Provider for ChangesBeforeSteps {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn model(&self) -> &str {
        self.inner.model()
    }

    fn step<'a>(
        &'a self,
        request: &'a StepRequest,
        notices: &'a mut (dyn FnMut(Notice) + Send),
    ) -> BoxFuture<'a, Result<Step, ProviderError>> {
        let answered = request
            .messages
            .iter()
            .filter(|m| matches!(m, Message::Tool(_)))
            .count();
        if let Err(e) = self.other.change_after(answered) {
            tracing::warn!(error = %e, "the other program's change failed");
        }
        self.inner.step(request, notices)
    }
}

/// A provider that keeps every step it takes as a scripted turn.
struct Recorder {
    inner: Arc<dyn Provider>,
    turns: Arc<Mutex<Vec<Turn>>>,
}

impl Provider for Recorder {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn model(&self) -> &str {
        self.inner.model()
    }

    fn step<'a>(
        &'a self,
        request: &'a StepRequest,
        notices: &'a mut (dyn FnMut(Notice) + Send),
    ) -> BoxFuture<'a, Result<Step, ProviderError>> {
        Box::pin(async move {
            let step = self.inner.step(request, notices).await?;
            let turn = Turn::Reply {
                text: if step.text.is_empty() {
                    Vec::new()
                } else {
                    vec![step.text.clone()]
                },
                calls: step
                    .tool_calls
                    .iter()
                    .map(|c| ScriptedCall {
                        id: None,
                        name: c.name.clone(),
                        arguments: c.arguments.clone(),
                    })
                    .collect(),
                stop: None,
                usage: match (step.usage.input_tokens, step.usage.output_tokens) {
                    (Some(i), Some(o)) => Some((i, o)),
                    _ => None,
                },
                chunk_delay_ms: 0,
            };
            self.turns
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(turn);
            Ok(step)
        })
    }
}
