//! A job from start to end: it is recorded `queued`, spawned as a task,
//! runs the agent loop on each provider of the chain until one ends it
//! without a hybrid trigger, and finishes with its outcome recorded.

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};

use futures_util::FutureExt;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::host::JobHost;
use super::log::record_status;
use super::{Live, Runtime};
use crate::agent::{
    self, AgentDefinition, Answer, FallbackReason, JobParams, JobUsage, LoopState, Outcome,
    Proposal,
};
use crate::config::Config;
use crate::jobs::chain::{Checked, Link, ProviderChain, no_provider_message};
use crate::jobs::error::RuntimeError;
use crate::jobs::events::{
    CheckpointCreated, DiffGenerated, JobAnswered, JobBegan, JobCancelled, JobFailed,
    JobOverBudget, JobQueued, JobStaged, ProviderFallback, ProviderSelected, RuntimeEvent,
};
use crate::jobs::records::Records;
use crate::jobs::shapes::{ChatMessage, Job, JobError, JobStatus, RunRequest, ToolConfig, now};
use crate::providers::Provider;
use crate::workspace::RunInfo;

impl Runtime {
    /// Starts a job in the background; returns it `queued`.
    pub fn run(&self, request: RunRequest) -> Result<Job, RuntimeError> {
        self.start(request, None, None)
    }

    /// Starts a job whose steps come from `provider` instead of the
    /// configured chain: an external agent's calls
    /// ([`driven`](crate::providers::driven)). Its session's agent is the
    /// external one (`mcp:<client>`).
    pub fn run_driven(
        &self,
        request: RunRequest,
        provider: Arc<dyn Provider>,
    ) -> Result<Job, RuntimeError> {
        self.start(
            request,
            None,
            Some(Arc::new(ProviderChain::single(provider))),
        )
    }

    /// Re-runs a job's instruction on the current content, as a new job
    /// linked to the old one (after a conflict).
    pub fn rerun(&self, job_id: &str) -> Result<Job, RuntimeError> {
        let old = self.job(job_id)?;
        if !old.status.is_terminal() {
            return Err(RuntimeError::Conflict(format!(
                "job `{job_id}` is still {}",
                old.status.as_str()
            )));
        }
        let request = RunRequest {
            session_id: old.session_id.clone(),
            instruction: old.instruction.clone(),
            context_rows: Vec::new(),
            tool_config: ToolConfig {
                max_tool_calls: Some(old.max_tool_calls),
            },
        };
        self.start(request, Some(old.job_id), None)
    }

    fn start(
        &self,
        request: RunRequest,
        rerun_of: Option<String>,
        chain: Option<Arc<ProviderChain>>,
    ) -> Result<Job, RuntimeError> {
        if request.instruction.trim().is_empty() {
            return Err(RuntimeError::Invalid("the instruction is empty".into()));
        }
        let session = self.session(&request.session_id)?;
        let agent = self.agent(&session.agent_id)?;
        let n = self.db().reserve("job", 1)?;
        let job_id = format!("job_{n}");
        let max_tool_calls = request
            .tool_config
            .max_tool_calls
            .unwrap_or(self.config().limits.max_tool_calls_per_job)
            .clamp(1, 1000);
        let job = Job {
            rerun_of: rerun_of.clone(),
            ..Job::new(
                job_id.clone(),
                session.session_id.clone(),
                request.instruction.clone(),
                max_tool_calls,
            )
        };
        // The model sees the session's pinned rows and this run's rows, and
        // what the user did with the session's earlier proposals.
        let mut rows = session.context_rows.clone();
        rows.extend(request.context_rows.iter().cloned());
        let (notes, reported) = self.review_notes(&session)?;
        let state = LoopState {
            messages: agent::opening_messages(
                &agent,
                &rows,
                &session.chat,
                &notes,
                &request.instruction,
            ),
            ..LoopState::default()
        };
        self.db().put_job(&job)?;
        self.update_session(&session.session_id, |s| {
            s.last_job_id = Some(job_id.clone());
            s.reported_hunks = reported;
            if s.name.is_none() {
                s.name = Some(super::sessions::title(&request.instruction));
            }
            s.context_rows
                .extend(request.context_rows.iter().filter(|r| r.pinned).cloned());
            s.chat.push(ChatMessage {
                role: "user".into(),
                content: request.instruction.clone(),
                job_id: Some(job_id.clone()),
                ts: now(),
            });
        })?;
        self.emit(
            &job_id,
            RuntimeEvent::Queued(JobQueued {
                status: JobStatus::Queued,
                rerun_of,
            }),
        );
        self.spawn(job.clone(), state, 0, chain);
        self.gc()?;
        Ok(job)
    }

    /// Runs `job` as a task from `state`, on provider `attempt` of `chain`
    /// (the configured one when `None`).
    pub(super) fn spawn(
        &self,
        job: Job,
        state: LoopState,
        attempt: usize,
        chain: Option<Arc<ProviderChain>>,
    ) {
        let (tx, rx) = mpsc::unbounded_channel();
        let cancel = CancellationToken::new();
        self.inner.live.lock().unwrap().insert(
            job.job_id.clone(),
            Live {
                cancel: cancel.clone(),
                answers: tx,
                task: None,
            },
        );
        let runtime = self.clone();
        let job_id = job.job_id.clone();
        let task = tokio::spawn(async move {
            let (job_id, instruction) = (job.job_id.clone(), job.instruction.clone());
            let run = runtime.execute(job, state, attempt, rx, cancel, chain);
            // A bug anywhere in the job (a tool, the staging of its
            // proposal) fails it, saying so, rather than leaving it
            // `running` with no task behind it. Staging writes no note.
            if AssertUnwindSafe(run).catch_unwind().await.is_err() {
                let message = format!(
                    "Redline hit a bug while running “{instruction}”; no note was changed. \
                     The log has the details."
                );
                runtime.finish(
                    &job_id,
                    JobUsage::default(),
                    Outcome::Failed {
                        code: "internal".into(),
                        message,
                        fallback: None,
                    },
                );
            }
            runtime.inner.live.lock().unwrap().remove(&job_id);
        });
        if let Some(live) = self.inner.live.lock().unwrap().get_mut(&job_id) {
            live.task = Some(task.abort_handle());
        }
    }

    /// Runs the loop on each provider of the chain in turn, from `attempt`,
    /// while a hybrid trigger allows falling back, then finishes the job.
    async fn execute(
        &self,
        job: Job,
        mut state: LoopState,
        mut attempt: usize,
        mut answers: mpsc::UnboundedReceiver<Answer>,
        cancel: CancellationToken,
        chain: Option<Arc<ProviderChain>>,
    ) {
        let host = JobHost {
            runtime: self.clone(),
            run: RunInfo {
                session_id: Some(job.session_id.clone()),
                job_id: job.job_id.clone(),
                instruction: job.instruction.clone(),
                seen: None,
                answers: Vec::new(),
                reads: Default::default(),
            },
            attempt: Mutex::new(attempt),
            earlier: Mutex::default(),
        };
        let failed = |code: &str, message: String| Outcome::Failed {
            code: code.into(),
            message,
            fallback: None,
        };
        let agent = match self
            .session(&job.session_id)
            .and_then(|s| self.agent(&s.agent_id))
        {
            Ok(a) => a,
            Err(e) => {
                let outcome = failed("not_found", e.to_string());
                return self.finish(&job.job_id, JobUsage::default(), outcome);
            }
        };
        let (config, providers) = (self.config(), chain.unwrap_or_else(|| self.providers()));
        let chain = &providers.chain;
        let mut checked = Checked::default();
        attempt = match self
            .first_usable(&job.job_id, chain, attempt, &mut checked)
            .await
        {
            Ok(usable) => usable,
            Err(problems) => {
                let outcome = failed("no_provider", no_provider_message(&problems));
                return self.finish(&job.job_id, JobUsage::default(), outcome);
            }
        };
        if job.status == JobStatus::Queued {
            self.set_status(&job.job_id, JobStatus::Running, None);
            self.emit(
                &job.job_id,
                RuntimeEvent::Started(JobBegan {
                    instruction: job.instruction.clone(),
                }),
            );
        }
        let initial = state.messages.clone();
        let mut usage = JobUsage::default();
        loop {
            let link = &chain[attempt];
            let provider = link.provider.as_ref();
            *host.attempt.lock().unwrap() = attempt;
            *host.earlier.lock().unwrap() = usage.clone();
            self.select_provider(&job.job_id, provider, &agent, &config, attempt);
            let params = JobParams {
                agent: agent.clone(),
                max_tool_calls: job.max_tool_calls,
                config: (*config).clone(),
                step_timeout: link.step_timeout,
            };
            let outcome =
                agent::drive(provider, &params, &mut state, &host, &mut answers, &cancel).await;
            usage.add(&state.usage);
            let Some(reason) = falls_back(&outcome, &config).filter(|_| attempt + 1 < chain.len())
            else {
                return self.finish(&job.job_id, usage, outcome);
            };
            let next = match self
                .first_usable(&job.job_id, chain, attempt + 1, &mut checked)
                .await
            {
                Ok(next) => next,
                Err(problems) => {
                    tracing::warn!(job = %job.job_id, ?problems, "no provider to fall back to");
                    return self.finish(&job.job_id, usage, outcome);
                }
            };
            self.fall_back(
                &job.job_id,
                provider,
                chain[next].provider.as_ref(),
                reason,
                &outcome,
            );
            state = LoopState {
                messages: initial.clone(),
                ..LoopState::default()
            };
            attempt = next;
        }
    }

    /// The first provider of `chain` from `from` that can be used now.
    /// Passing over any is one `provider.fallback` (reason `provider_error`,
    /// saying why); when none can be used, every problem found.
    async fn first_usable(
        &self,
        job_id: &str,
        chain: &[Link],
        from: usize,
        checked: &mut Checked,
    ) -> Result<usize, Vec<String>> {
        let mut problems = Vec::new();
        for (i, link) in chain.iter().enumerate().skip(from) {
            match checked.usable(link).await {
                Ok(()) if i == from => return Ok(i),
                Ok(()) => {
                    self.emit(
                        job_id,
                        RuntimeEvent::ProviderFallback(ProviderFallback {
                            from: chain[from].provider.name().to_owned(),
                            to: link.provider.name().to_owned(),
                            reason: Some(FallbackReason::ProviderError),
                            detail: Some(problems.join("; ")),
                        }),
                    );
                    return Ok(i);
                }
                Err(why) => {
                    let problem = format!("{}: {why}", link.provider.name());
                    if !problems.contains(&problem) {
                        problems.push(problem);
                    }
                }
            }
        }
        Err(problems)
    }

    fn select_provider(
        &self,
        job_id: &str,
        provider: &dyn Provider,
        agent: &AgentDefinition,
        config: &Config,
        attempt: usize,
    ) {
        self.set_job(job_id, |j| {
            j.provider = Some(provider.name().to_owned());
            j.model = Some(
                agent
                    .model
                    .clone()
                    .unwrap_or_else(|| provider.model().to_owned()),
            );
        });
        self.emit(
            job_id,
            RuntimeEvent::ProviderSelected(ProviderSelected {
                provider: provider.name().to_owned(),
                model: provider.model().to_owned(),
                mode: config.agent_mode,
                attempt,
            }),
        );
    }

    fn fall_back(
        &self,
        job_id: &str,
        from: &dyn Provider,
        to: &dyn Provider,
        reason: FallbackReason,
        outcome: &Outcome,
    ) {
        let detail = match outcome {
            Outcome::Failed { message, .. } => Some(message.clone()),
            _ => None,
        };
        self.emit(
            job_id,
            RuntimeEvent::ProviderFallback(ProviderFallback {
                from: from.name().to_owned(),
                to: to.name().to_owned(),
                reason: Some(reason),
                detail,
            }),
        );
        tracing::warn!(
            job = job_id,
            from = from.name(),
            to = to.name(),
            ?reason,
            "provider fallback"
        );
    }

    /// Records how the job ended: its proposal (checkpoint and hunks), its
    /// answer or its error, its usage; the session's chat and pending review;
    /// and, last, the terminal status.
    fn finish(&self, job_id: &str, usage: JobUsage, outcome: Outcome) {
        let (status, event, review, reply) = match outcome {
            Outcome::Proposed(p) => {
                let event = RuntimeEvent::AwaitingReview(JobStaged {
                    checkpoint_id: p.checkpoint_id.clone(),
                    edits: p.edits.len(),
                    files: p.bundle.files.len(),
                    hunks: hunk_count(&p),
                    summary: p.summary.clone(),
                    usage: usage.clone(),
                });
                (JobStatus::AwaitingReview, event, Some(p), None)
            }
            Outcome::BudgetExceeded(p) => {
                let event = RuntimeEvent::BudgetExceeded(JobOverBudget {
                    checkpoint_id: p.as_ref().map(|p| p.checkpoint_id.clone()),
                    edits: p.as_ref().map(|p| p.edits.len()),
                    files: p.as_ref().map(|p| p.bundle.files.len()),
                    hunks: p.as_ref().map(hunk_count),
                    summary: p.as_ref().and_then(|p| p.summary.clone()),
                    usage: usage.clone(),
                });
                (JobStatus::BudgetExceeded, event, p, None)
            }
            Outcome::Answered(text) => {
                self.set_job(job_id, |j| j.summary = Some(text.clone()));
                let event = RuntimeEvent::Completed(JobAnswered {
                    summary: text.clone(),
                    usage: usage.clone(),
                });
                (JobStatus::Completed, event, None, Some(text))
            }
            Outcome::Failed { code, message, .. } => {
                self.set_job(job_id, |j| {
                    j.error = Some(JobError {
                        code: code.clone(),
                        message: message.clone(),
                    })
                });
                let event = RuntimeEvent::Failed(JobFailed {
                    code,
                    message: message.clone(),
                    usage: usage.clone(),
                });
                (JobStatus::Failed, event, None, Some(message))
            }
            Outcome::Cancelled => {
                let event = RuntimeEvent::Cancelled(JobCancelled {
                    usage: usage.clone(),
                });
                (JobStatus::Cancelled, event, None, None)
            }
        };
        if let Some(p) = &review {
            self.emit(
                job_id,
                RuntimeEvent::CheckpointCreated(CheckpointCreated {
                    checkpoint_id: p.checkpoint_id.clone(),
                    files: p.bundle.files.len(),
                }),
            );
            self.emit(
                job_id,
                RuntimeEvent::DiffGenerated(DiffGenerated {
                    files: p.bundle.files.len(),
                    hunks: hunk_count(p),
                }),
            );
        }
        // One write of the job (with a vault-wide proposal, megabytes).
        let job = self.set_job(job_id, |j| {
            j.usage = usage.clone();
            if let Some(p) = &review {
                j.proposed_edits = p.edits.clone();
                j.diff_bundle = Some(p.bundle.clone());
                j.checkpoint_id = Some(p.checkpoint_id.clone());
                j.summary = p.summary.clone();
            }
            record_status(j, status, None);
        });
        let _ = self.db().put_loop_state(job_id, None);
        // The job's record holds what its parts staged now.
        if let Err(e) = self.ws().forget_stagings(job_id) {
            tracing::error!(job = job_id, error = %e, "could not drop the run's stagings");
        }
        self.emit(job_id, event);
        // Last: a reader that sees the terminal `job.status` has seen all.
        self.announce_status(job_id, status, None, job.as_ref());
        if let Some(job) = job {
            let reply = review.as_ref().and_then(|p| p.summary.clone()).or(reply);
            let _ = self.update_session(&job.session_id, |s| {
                if review.is_some() {
                    s.pending_review = Some(job_id.to_owned());
                }
                if let Some(reply) = reply {
                    s.chat.push(ChatMessage {
                        role: "assistant".into(),
                        content: reply,
                        job_id: Some(job_id.to_owned()),
                        ts: now(),
                    });
                }
            });
        }
        tracing::info!(job = job_id, status = status.as_str(), "job ended");
    }
}

fn hunk_count(p: &Proposal) -> usize {
    p.bundle.hunk_count()
}

/// The hybrid fallback `outcome` calls for, if `config` allows it.
fn falls_back(outcome: &Outcome, config: &Config) -> Option<FallbackReason> {
    let trigger = outcome.trigger()?;
    let allowed = match trigger {
        FallbackReason::SchemaFailures => config.hybrid.remote_on_schema_fail,
        FallbackReason::ContextOverflow => config.hybrid.remote_on_context_overflow,
        _ => true,
    };
    allowed.then_some(trigger)
}
