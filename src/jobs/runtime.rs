//! The job runtime: sessions, background jobs on tokio, their event logs, and
//! the provider choice of `agent_mode`.
//!
//! Every event is written to SQLite before anyone can read it, and wakes the
//! long-polling readers at once. A job's agent runs as a tokio task; the
//! runtime keeps for each running job a cancellation token and the channel its
//! clarification answers arrive on. A job that waits for the user when
//! Redline stops is picked up again on the next start, from its saved loop
//! state; one that was running is marked failed (`interrupted`).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::Feed;
use super::model::*;
use crate::agent::{
    self, AgentDefinition, Answer, FallbackReason, Host, JobParams, LoopState, Outcome, Proposal,
};
use crate::checkpoints::Checkpoint;
use crate::config::{AgentMode, Config, ProviderSettings};
use crate::edits::ProposedEdit;
use crate::hunks::{DiffBundle, HunkLimits};
use crate::project::{OpenError, PathError, Project};
use crate::providers::http::HttpProvider;
use crate::providers::{Provider, ProviderError, keys};
use crate::review::{AppliedFile, ReviewError, Status};
use crate::store::{Store, StoreError};
use crate::workspace::{RunInfo, Workspace, WorkspaceError};

/// Why a runtime operation was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RuntimeError {
    /// The folder could not be opened.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A review or apply operation was refused.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// A provider could not be set up.
    #[error(transparent)]
    Provider(#[from] ProviderError),
    /// No session, job or agent has this id.
    #[error("there is no {kind} `{id}`")]
    NotFound {
        /// `session`, `job` or `agent`.
        kind: &'static str,
        /// The id asked for.
        id: String,
    },
    /// The request does not fit the job's state (answering a job that asks
    /// nothing, cancelling a finished one).
    #[error("{0}")]
    Conflict(String),
    /// The request itself is wrong.
    #[error("{0}")]
    Invalid(String),
}

impl RuntimeError {
    /// The API's error code: `not_found`, `conflict`, `invalid_request`, or
    /// `internal`.
    pub fn code(&self) -> &'static str {
        match self {
            RuntimeError::NotFound { .. } => "not_found",
            RuntimeError::Conflict(_) => "conflict",
            RuntimeError::Invalid(_) | RuntimeError::Open(_) => "invalid_request",
            RuntimeError::Workspace(e) => match e {
                WorkspaceError::UnknownCheckpoint(_)
                | WorkspaceError::Path(PathError::NotFound(_))
                | WorkspaceError::Review(
                    ReviewError::UnknownFile(_) | ReviewError::UnknownHunk(_),
                ) => "not_found",
                WorkspaceError::Review(_) => "conflict",
                WorkspaceError::Edits(_)
                | WorkspaceError::Path(_)
                | WorkspaceError::NotInCheckpoint { .. } => "invalid_request",
                WorkspaceError::Store(_) => "internal",
            },
            RuntimeError::Store(_) | RuntimeError::Provider(_) => "internal",
        }
    }
}

fn not_found(kind: &'static str, id: &str) -> RuntimeError {
    RuntimeError::NotFound {
        kind,
        id: id.to_owned(),
    }
}

/// A request to run an agent (seed §4 `POST /api/agent/run`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, ts_rs::TS)]
pub struct RunRequest {
    /// The session.
    pub session_id: String,
    /// What to do.
    pub instruction: String,
    /// Context for this run; pinned rows also stay in the session.
    #[serde(default)]
    #[ts(as = "Option<_>", optional)]
    pub context_rows: Vec<ContextRow>,
    /// Overrides of the job's limits.
    #[serde(default)]
    #[ts(as = "Option<_>", optional)]
    pub tool_config: ToolConfig,
}

/// Per-run limits (seed §4 `tool_config`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, ts_rs::TS)]
pub struct ToolConfig {
    /// Tool calls allowed; default `limits.max_tool_calls_per_job`.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub max_tool_calls: Option<usize>,
}

/// The models a job may use, in the order `agent_mode` tries them.
#[derive(Clone, Default)]
pub struct Providers {
    /// Tried in order; each with the hybrid step timeout it runs under.
    chain: Vec<(Arc<dyn Provider>, Option<Duration>)>,
}

impl std::fmt::Debug for Providers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.chain.iter().map(|(p, _)| (p.name(), p.model())))
            .finish()
    }
}

impl Providers {
    /// The chain `config.agent_mode` calls for: remote; local; or local
    /// (`hybrid.max_local_attempts` times, each step under the hybrid
    /// timeout) then remote. Keys come from the environment or keychain.
    pub fn from_config(config: &Config) -> Result<Providers, ProviderError> {
        let build = |name: &str, settings: &ProviderSettings, key: bool| {
            let key = key
                .then(|| keys::lookup(settings.provider.name()))
                .flatten();
            HttpProvider::new(
                name,
                settings.provider.protocol(),
                settings.base_url(),
                &settings.model,
                key,
                config.http.clone(),
            )
            .map(|p| {
                Arc::new(
                    p.with_temperature(settings.temperature)
                        .with_required_tools(settings.require_tools),
                ) as Arc<dyn Provider>
            })
        };
        let remote = || build(config.remote.provider.name(), &config.remote, true);
        let local = || build("local", &config.local, false);
        let chain = match config.agent_mode {
            AgentMode::Remote => vec![(remote()?, None)],
            AgentMode::Local => vec![(local()?, None)],
            AgentMode::HybridAuto => {
                let timeout = Some(Duration::from_millis(config.hybrid.remote_on_timeout_ms));
                let mut chain: Vec<_> = (0..config.hybrid.max_local_attempts.max(1))
                    .map(|_| local().map(|p| (p, timeout)))
                    .collect::<Result<_, _>>()?;
                chain.push((remote()?, None));
                chain
            }
        };
        Ok(Providers { chain })
    }

    /// A chain of exactly these providers (tests, embedding).
    pub fn new(chain: Vec<(Arc<dyn Provider>, Option<Duration>)>) -> Providers {
        Providers { chain }
    }
}

/// One open project's sessions and jobs.
#[derive(Clone)]
pub struct Runtime {
    pub(super) inner: Arc<Inner>,
}

struct Live {
    cancel: CancellationToken,
    answers: mpsc::UnboundedSender<Answer>,
    task: Option<tokio::task::AbortHandle>,
}

pub(super) struct Inner {
    config: RwLock<Arc<Config>>,
    pub(super) project: Project,
    pub(super) workspace: Arc<Mutex<Workspace>>,
    pub(super) feed: Feed,
    db: Mutex<Store>,
    live: Mutex<HashMap<String, Live>>,
    changed: watch::Sender<u64>,
    providers: RwLock<Arc<Providers>>,
}

/// What the loop saves while waiting, besides its state: which provider of
/// the chain it was on.
#[derive(Serialize, Deserialize)]
struct Saved {
    attempt: usize,
    state: LoopState,
}

impl Runtime {
    /// Opens the project at `root` with the providers of `config`. Must be
    /// called inside a tokio runtime (jobs waiting for the user resume).
    pub fn open(root: &Path, config: Config) -> Result<Runtime, RuntimeError> {
        let providers = Providers::from_config(&config)?;
        Runtime::open_with(root, config, providers)
    }

    /// Opens the project at `root` with the given providers.
    pub fn open_with(
        root: &Path,
        config: Config,
        providers: Providers,
    ) -> Result<Runtime, RuntimeError> {
        let project = Project::open(root, config.limits.clone())?;
        let data_dir = config.data_dir();
        let root = project.root().to_path_buf();
        let workspace = Workspace::open(project.clone(), Store::open(&data_dir, &root)?)?;
        let db = Store::open(&data_dir, &root)?;
        let runtime = Runtime {
            inner: Arc::new(Inner {
                config: RwLock::new(Arc::new(config)),
                project,
                workspace: Arc::new(Mutex::new(workspace)),
                feed: Feed::default(),
                db: Mutex::new(db),
                live: Mutex::new(HashMap::new()),
                changed: watch::channel(0).0,
                providers: RwLock::new(Arc::new(providers)),
            }),
        };
        runtime.recover()?;
        runtime.gc()?;
        Ok(runtime)
    }

    fn db(&self) -> MutexGuard<'_, Store> {
        self.inner.db.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stops every job's task where it stands, recording nothing, as a crash
    /// or a quit would: on the next open, jobs waiting for the user resume and
    /// running ones are marked `interrupted`.
    pub fn shutdown(&self) {
        for (_, live) in self.inner.live.lock().unwrap().drain() {
            if let Some(task) = live.task {
                task.abort();
            }
        }
    }

    /// The review workspace (for decisions, saves, apply and checkpoints).
    pub fn workspace(&self) -> Arc<Mutex<Workspace>> {
        self.inner.workspace.clone()
    }

    /// The project feed: what happened to the files and their review.
    pub fn feed(&self) -> &Feed {
        &self.inner.feed
    }

    /// The configuration in force (jobs keep the one they started with).
    pub fn config(&self) -> Arc<Config> {
        self.inner
            .config
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn providers(&self) -> Arc<Providers> {
        self.inner
            .providers
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Puts `config` in force for the jobs that start from now on, with the
    /// providers it calls for (keys looked up again). The project's own
    /// limits (file sizes, search and read caps) take effect on the next open.
    pub fn reconfigure(&self, config: Config) -> Result<(), RuntimeError> {
        let providers = Providers::from_config(&config)?;
        *self
            .inner
            .providers
            .write()
            .unwrap_or_else(|e| e.into_inner()) = Arc::new(providers);
        *self.inner.config.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(config);
        Ok(())
    }

    /// Every agent definition.
    pub fn agents(&self) -> Vec<AgentDefinition> {
        agent::definition::all(&self.config().agents)
    }

    fn agent(&self, id: &str) -> Result<AgentDefinition, RuntimeError> {
        self.agents()
            .into_iter()
            .find(|a| a.agent_id == id)
            .ok_or_else(|| not_found("agent", id))
    }

    fn recover(&self) -> Result<(), RuntimeError> {
        let db = self.db();
        for mut job in db.jobs_with_status(&["queued", "running"])? {
            job.status = JobStatus::Failed;
            job.finished_at = Some(now());
            job.error = Some(JobError {
                code: "interrupted".into(),
                message: "Redline stopped while this job ran; run it again".into(),
            });
            db.put_job(&job)?;
        }
        let waiting = db.jobs_with_status(&["waiting_for_user"])?;
        let mut resumable = Vec::new();
        for job in waiting {
            let saved = db
                .loop_state(&job.job_id)?
                .and_then(|s| serde_json::from_str::<Saved>(&s).ok());
            resumable.push((job, saved));
        }
        drop(db);
        for (job, saved) in resumable {
            match saved {
                Some(saved) => self.spawn(job, saved.state, saved.attempt),
                None => {
                    let mut job = job;
                    job.status = JobStatus::Failed;
                    job.error = Some(JobError {
                        code: "interrupted".into(),
                        message: "the job's saved state could not be read".into(),
                    });
                    self.db().put_job(&job)?;
                }
            }
        }
        Ok(())
    }

    /// Runs lifecycle GC (seed §25). Runs on open and after each new job.
    pub fn gc(&self) -> Result<(usize, usize), RuntimeError> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let removed = self.db().gc(&self.config().limits, now)?;
        if removed != (0, 0) {
            tracing::info!(jobs = removed.0, sessions = removed.1, "lifecycle gc");
        }
        Ok(removed)
    }

    // ----- sessions -----

    /// Creates a session with `agent_id` (default `default`).
    pub fn create_session(&self, agent_id: Option<&str>) -> Result<Session, RuntimeError> {
        let agent = self.agent(agent_id.unwrap_or("default"))?;
        let n = self.db().reserve("session", 1)?;
        let at = now();
        let session = Session {
            session_id: format!("sess_{n}"),
            agent_id: agent.agent_id,
            name: None,
            status: "active".into(),
            created_at: at.clone(),
            updated_at: at,
            chat: Vec::new(),
            context_rows: Vec::new(),
            last_job_id: None,
            pending_review: None,
        };
        self.db().put_session(&session)?;
        self.gc()?;
        Ok(session)
    }

    /// The session `id`.
    pub fn session(&self, id: &str) -> Result<Session, RuntimeError> {
        self.db()
            .session(id)?
            .ok_or_else(|| not_found("session", id))
    }

    /// Every session, most recently updated first.
    pub fn sessions(&self) -> Result<Vec<Session>, RuntimeError> {
        Ok(self.db().sessions()?)
    }

    fn update_session(
        &self,
        id: &str,
        change: impl FnOnce(&mut Session),
    ) -> Result<Session, RuntimeError> {
        let db = self.db();
        let mut session = db.session(id)?.ok_or_else(|| not_found("session", id))?;
        change(&mut session);
        session.updated_at = now();
        db.put_session(&session)?;
        Ok(session)
    }

    /// Renames a session.
    pub fn rename_session(&self, id: &str, name: &str) -> Result<Session, RuntimeError> {
        let name = name.trim().to_owned();
        self.update_session(id, |s| s.name = (!name.is_empty()).then_some(name))
    }

    /// Clears a session's chat and context, keeping its identity (seed 004).
    pub fn clear_session(&self, id: &str) -> Result<Session, RuntimeError> {
        self.update_session(id, |s| {
            s.chat.clear();
            s.context_rows.clear();
        })
    }

    /// Deletes a session and its jobs; running jobs are cancelled first.
    pub fn delete_session(&self, id: &str) -> Result<(), RuntimeError> {
        let jobs: Vec<String> = self
            .db()
            .jobs_with_status(&["queued", "running", "waiting_for_user"])?
            .into_iter()
            .filter(|j| j.session_id == id)
            .map(|j| j.job_id)
            .collect();
        for job in jobs {
            if let Some(live) = self.inner.live.lock().unwrap().remove(&job) {
                live.cancel.cancel();
            }
        }
        if !self.db().delete_session(id)? {
            return Err(not_found("session", id));
        }
        Ok(())
    }

    // ----- jobs -----

    /// Starts a job in the background; returns it `queued`.
    pub fn run(&self, request: RunRequest) -> Result<Job, RuntimeError> {
        self.start(request, None)
    }

    /// Re-runs a job's instruction on the current content, as a new job
    /// linked to the old one (seed §22: after a conflict).
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
        self.start(request, Some(old.job_id))
    }

    fn start(&self, request: RunRequest, rerun_of: Option<String>) -> Result<Job, RuntimeError> {
        if request.instruction.trim().is_empty() {
            return Err(RuntimeError::Invalid("the instruction is empty".into()));
        }
        let session = self.session(&request.session_id)?;
        let agent = self.agent(&session.agent_id)?;
        let n = self.db().reserve("job", 1)?;
        let job_id = format!("job_{n}");
        let config = self.config();
        let limits = &config.limits;
        let max_tool_calls = request
            .tool_config
            .max_tool_calls
            .unwrap_or(limits.max_tool_calls_per_job)
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
        // The model sees the session's pinned rows and this run's rows.
        let mut rows = session.context_rows.clone();
        rows.extend(request.context_rows.iter().cloned());
        let state = LoopState {
            messages: agent::prompt::messages(&agent, &rows, &session.chat, &request.instruction),
            ..LoopState::default()
        };
        self.db().put_job(&job)?;
        self.update_session(&session.session_id, |s| {
            s.last_job_id = Some(job_id.clone());
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
            "job.queued",
            json!({ "status": "queued", "rerun_of": rerun_of }),
        );
        self.spawn(job.clone(), state, 0);
        self.gc()?;
        Ok(job)
    }

    fn spawn(&self, job: Job, state: LoopState, attempt: usize) {
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
            let job_id = job.job_id.clone();
            runtime.execute(job, state, attempt, rx, cancel).await;
            runtime.inner.live.lock().unwrap().remove(&job_id);
        });
        if let Some(live) = self.inner.live.lock().unwrap().get_mut(&job_id) {
            live.task = Some(task.abort_handle());
        }
    }

    async fn execute(
        &self,
        job: Job,
        mut state: LoopState,
        mut attempt: usize,
        mut answers: mpsc::UnboundedReceiver<Answer>,
        cancel: CancellationToken,
    ) {
        let host = JobHost {
            runtime: self.clone(),
            job_id: job.job_id.clone(),
            session_id: job.session_id.clone(),
            instruction: job.instruction.clone(),
            attempt: Mutex::new(attempt),
        };
        let agent = match self
            .session(&job.session_id)
            .and_then(|s| self.agent(&s.agent_id))
        {
            Ok(a) => a,
            Err(e) => {
                return self.finish(
                    &job.job_id,
                    JobUsage::default(),
                    Outcome::Failed {
                        code: "not_found".into(),
                        message: e.to_string(),
                        fallback: None,
                    },
                );
            }
        };
        let initial = state.messages.clone();
        let (config, providers) = (self.config(), self.providers());
        let chain = &providers.chain;
        if chain.is_empty() {
            return self.finish(
                &job.job_id,
                JobUsage::default(),
                Outcome::Failed {
                    code: "no_provider".into(),
                    message: "no model provider is configured".into(),
                    fallback: None,
                },
            );
        }
        if job.status == JobStatus::Queued {
            host.set_status(JobStatus::Running, None);
            self.emit(
                &job.job_id,
                "job.started",
                json!({ "instruction": job.instruction }),
            );
        }
        let mut earlier = JobUsage::default();
        loop {
            let (provider, step_timeout) = &chain[attempt.min(chain.len() - 1)];
            *host.attempt.lock().unwrap() = attempt;
            self.set_job(&job.job_id, |j| {
                j.provider = Some(provider.name().to_owned());
                j.model = Some(
                    agent
                        .model
                        .clone()
                        .unwrap_or_else(|| provider.model().to_owned()),
                );
            });
            self.emit(
                &job.job_id,
                "provider.selected",
                json!({ "provider": provider.name(), "model": provider.model(),
                        "mode": config.agent_mode, "attempt": attempt }),
            );
            let params = JobParams {
                agent: agent.clone(),
                max_tool_calls: job.max_tool_calls,
                config: (*config).clone(),
                step_timeout: *step_timeout,
            };
            let outcome = agent::drive(
                provider.as_ref(),
                &params,
                &mut state,
                &host,
                &mut answers,
                &cancel,
            )
            .await;
            let trigger = match &outcome {
                Outcome::Failed {
                    fallback: Some(reason),
                    ..
                } => Some(*reason),
                Outcome::BudgetExceeded(None) => Some(FallbackReason::BudgetExhausted),
                _ => None,
            };
            let hybrid = &config.hybrid;
            let allowed = match trigger {
                Some(FallbackReason::SchemaFailures) => hybrid.remote_on_schema_fail,
                Some(FallbackReason::ContextOverflow) => hybrid.remote_on_context_overflow,
                Some(_) => true,
                None => false,
            };
            if allowed && attempt + 1 < chain.len() {
                let next = &chain[attempt + 1].0;
                self.emit(
                    &job.job_id,
                    "provider.fallback",
                    json!({ "from": provider.name(), "to": next.name(), "reason": trigger,
                            "detail": match &outcome { Outcome::Failed { message, .. } => json!(message), _ => Value::Null } }),
                );
                tracing::warn!(job = %job.job_id, from = provider.name(), to = next.name(), reason = ?trigger, "provider fallback");
                add_usage(&mut earlier, &state.usage);
                state = LoopState {
                    messages: initial.clone(),
                    ..LoopState::default()
                };
                attempt += 1;
                continue;
            }
            add_usage(&mut earlier, &state.usage);
            return self.finish(&job.job_id, earlier, outcome);
        }
    }

    fn finish(&self, job_id: &str, usage: JobUsage, outcome: Outcome) {
        let mut review = None;
        let (status, kind, data) = match outcome {
            Outcome::Proposed(p) => {
                review = Some(p.clone());
                (
                    JobStatus::AwaitingReview,
                    "job.awaiting_review",
                    proposal_json(&p),
                )
            }
            Outcome::BudgetExceeded(p) => {
                let data = p.as_ref().map_or(json!({}), proposal_json);
                review = p;
                (JobStatus::BudgetExceeded, "job.budget_exceeded", data)
            }
            Outcome::Answered(text) => {
                self.set_job(job_id, |j| j.summary = Some(text.clone()));
                (
                    JobStatus::Completed,
                    "job.completed",
                    json!({ "summary": text }),
                )
            }
            Outcome::Failed { code, message, .. } => {
                self.set_job(job_id, |j| {
                    j.error = Some(JobError {
                        code: code.clone(),
                        message: message.clone(),
                    })
                });
                (
                    JobStatus::Failed,
                    "job.failed",
                    json!({ "code": code, "message": message }),
                )
            }
            Outcome::Cancelled => (JobStatus::Cancelled, "job.cancelled", json!({})),
        };
        let mut summary = None;
        if let Some(p) = &review {
            let hunks: usize = p.bundle.files.iter().map(|f| f.hunks.len()).sum();
            self.emit(
                job_id,
                "checkpoint.created",
                json!({ "checkpoint_id": p.checkpoint.checkpoint_id,
                        "files": p.checkpoint.affected_files.iter().map(|f| &f.file_path).collect::<Vec<_>>() }),
            );
            self.emit(
                job_id,
                "diff.generated",
                json!({ "files": p.bundle.files.len(), "hunks": hunks,
                        "hunk_ids": p.bundle.files.iter().flat_map(|f| f.hunks.iter().map(|h| &h.hunk_id)).collect::<Vec<_>>() }),
            );
            summary = p.summary.clone();
        }
        let job = self.set_job(job_id, |j| {
            j.usage = usage.clone();
            if let Some(p) = &review {
                j.proposed_edits = p.edits.clone();
                j.diff_bundle = Some(p.bundle.clone());
                j.checkpoint_id = Some(p.checkpoint.checkpoint_id.clone());
                j.summary = p.summary.clone();
            }
        });
        let _ = self.db().put_loop_state(job_id, None);
        let mut data = data;
        data["usage"] = json!(usage);
        self.emit(job_id, kind, data);
        // Last: a reader that sees the terminal `job.status` has seen all.
        self.set_status(job_id, status, None);
        if let Some(job) = job {
            let said = summary
                .or(job.summary.clone())
                .or(job.error.as_ref().map(|e| e.message.clone()));
            let _ = self.update_session(&job.session_id, |s| {
                if review.is_some() {
                    s.pending_review = Some(job_id.to_owned());
                }
                if let Some(said) = said {
                    s.chat.push(ChatMessage {
                        role: "assistant".into(),
                        content: said,
                        job_id: Some(job_id.to_owned()),
                        ts: now(),
                    });
                }
            });
        }
        tracing::info!(job = job_id, status = status.as_str(), "job ended");
    }

    fn set_job(&self, job_id: &str, change: impl FnOnce(&mut Job)) -> Option<Job> {
        let db = self.db();
        let mut job = db.job(job_id).ok().flatten()?;
        change(&mut job);
        if let Err(e) = db.put_job(&job) {
            tracing::error!(job = job_id, error = %e, "could not save the job");
        }
        Some(job)
    }

    fn set_status(&self, job_id: &str, status: JobStatus, question: Option<&Question>) {
        self.set_job(job_id, |j| {
            j.status = status;
            j.pending_question = question.cloned();
            if status == JobStatus::Running && j.started_at.is_none() {
                j.started_at = Some(now());
            }
            if status.is_terminal() && j.finished_at.is_none() {
                j.finished_at = Some(now());
            }
        });
        let mut data = json!({ "status": status.as_str() });
        if let Some(q) = question {
            data["question_id"] = json!(q.question_id);
        }
        self.emit(job_id, "job.status", data);
    }

    /// Appends an event to a job's log and wakes every waiting reader. Past
    /// `max_events_per_job`, only `job.*` events are kept, so a job's end is
    /// always recorded.
    fn emit(&self, job_id: &str, kind: &str, data: Value) {
        let db = self.db();
        let cursor = match db.next_event_cursor(job_id) {
            Ok(c) => c,
            Err(e) => {
                tracing::error!(job = job_id, error = %e, "could not read the event log");
                return;
            }
        };
        if cursor >= self.config().limits.max_events_per_job as u64 && !kind.starts_with("job.") {
            tracing::debug!(
                job = job_id,
                kind,
                "event dropped: the job's event log is full"
            );
            return;
        }
        let event = Event {
            cursor,
            kind: kind.to_owned(),
            ts: now(),
            data,
        };
        if let Err(e) = db.put_event(job_id, &event) {
            tracing::error!(job = job_id, error = %e, "could not append an event");
            return;
        }
        drop(db);
        tracing::info!(job = job_id, cursor, kind, data = %clip(&event.data), "event");
        self.inner.changed.send_modify(|n| *n += 1);
    }

    /// The job `id`, with its cursor.
    pub fn job(&self, id: &str) -> Result<Job, RuntimeError> {
        let db = self.db();
        let mut job = db.job(id)?.ok_or_else(|| not_found("job", id))?;
        job.cursor = db.next_event_cursor(id)?;
        Ok(job)
    }

    /// The events of a job from `cursor` on. With `wait_ms`, waits up to that
    /// long for one to exist, answering the moment it does (long poll).
    pub async fn events(
        &self,
        job_id: &str,
        cursor: u64,
        wait_ms: u64,
    ) -> Result<EventPage, RuntimeError> {
        let deadline = tokio::time::Instant::now() + Duration::from_millis(wait_ms.min(60_000));
        let mut changed = self.inner.changed.subscribe();
        loop {
            // Subscribed before reading: an event appended after the read
            // still wakes us.
            changed.borrow_and_update();
            let (job, events) = {
                let db = self.db();
                let job = db.job(job_id)?.ok_or_else(|| not_found("job", job_id))?;
                (job, db.events(job_id, cursor, 500)?)
            };
            if !events.is_empty() || tokio::time::Instant::now() >= deadline {
                let next_cursor = events.last().map_or(cursor, |e| e.cursor + 1);
                return Ok(EventPage {
                    job_id: job_id.to_owned(),
                    status: job.status,
                    next_cursor,
                    events,
                });
            }
            if tokio::time::timeout_at(deadline, changed.changed())
                .await
                .is_err()
            {
                continue;
            }
        }
    }

    /// Answers (or, with `None`, skips) the question a job waits on.
    pub fn clarify(
        &self,
        job_id: &str,
        question_id: &str,
        answer: Option<String>,
    ) -> Result<(), RuntimeError> {
        let job = self.job(job_id)?;
        let pending = job
            .pending_question
            .filter(|_| job.status == JobStatus::WaitingForUser)
            .ok_or_else(|| {
                RuntimeError::Conflict(format!("job `{job_id}` is not waiting for an answer"))
            })?;
        if pending.question_id != question_id {
            return Err(RuntimeError::Conflict(format!(
                "job `{job_id}` waits on question `{}`, not `{question_id}`",
                pending.question_id
            )));
        }
        let live = self.inner.live.lock().unwrap();
        let sender = live
            .get(job_id)
            .ok_or_else(|| RuntimeError::Conflict(format!("job `{job_id}` is not running")))?;
        sender
            .answers
            .send(Answer {
                question_id: question_id.to_owned(),
                answer,
            })
            .map_err(|_| RuntimeError::Conflict(format!("job `{job_id}` has stopped")))
    }

    /// Cancels a job that has not finished.
    pub fn cancel(&self, job_id: &str) -> Result<(), RuntimeError> {
        let job = self.job(job_id)?;
        if job.status.is_terminal() {
            return Err(RuntimeError::Conflict(format!(
                "job `{job_id}` has already ended ({})",
                job.status.as_str()
            )));
        }
        match self.inner.live.lock().unwrap().get(job_id) {
            Some(live) => {
                live.cancel.cancel();
                Ok(())
            }
            None => Err(RuntimeError::Conflict(format!(
                "job `{job_id}` is not running"
            ))),
        }
    }

    /// Accepts, rejects or sets back to pending one hunk of a job's review,
    /// and records `review.updated` in the log of the job it belongs to and
    /// in the project feed. Returns its file as it is now.
    pub fn decide(
        &self,
        hunk_id: &str,
        status: Status,
    ) -> Result<crate::workspace::FileContent, RuntimeError> {
        let (job_id, file) = {
            let mut ws = self
                .inner
                .workspace
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            ws.decide(hunk_id, status)?;
            let (path, i) = ws
                .review()
                .find_hunk(hunk_id)
                .map_err(WorkspaceError::from)?;
            let job_id = ws
                .review()
                .file(&path)
                .and_then(|f| f.entries()[i].job_id.clone());
            (job_id, ws.file_content(&path)?)
        };
        let data = json!({ "hunk_id": hunk_id, "status": status, "job_id": job_id, "path": file.path, "state": file.state });
        if let Some(job_id) = &job_id {
            self.emit(job_id, "review.updated", data.clone());
        }
        self.inner.feed.push("review.updated", data);
        Ok(file)
    }

    /// Applies a job's review: the listed hunks are accepted, the job's
    /// others rejected, and the files written after their hash check. A file
    /// that changed on disk is a `conflict`: nothing is written for it, and
    /// the job can be re-run on the current content ([`Runtime::rerun`]).
    pub fn apply(
        &self,
        job_id: &str,
        accepted_hunk_ids: &[String],
    ) -> Result<Vec<AppliedFile>, RuntimeError> {
        let job = self.job(job_id)?;
        let bundle = job
            .diff_bundle
            .filter(|_| {
                matches!(
                    job.status,
                    JobStatus::AwaitingReview | JobStatus::BudgetExceeded
                )
            })
            .ok_or_else(|| RuntimeError::Conflict(format!("job `{job_id}` has no review open")))?;
        let mine: Vec<&String> = bundle
            .files
            .iter()
            .flat_map(|f| f.hunks.iter().map(|h| &h.hunk_id))
            .collect();
        if let Some(stray) = accepted_hunk_ids.iter().find(|h| !mine.contains(h)) {
            return Err(RuntimeError::Invalid(format!(
                "hunk `{stray}` is not part of job `{job_id}`"
            )));
        }
        self.emit(
            job_id,
            "apply.started",
            json!({ "accepted_hunk_ids": accepted_hunk_ids }),
        );
        // Only this job's hunks are decided: another job's pending hunks in
        // the same files stay staged, and saving writes the buffer without them.
        let report = {
            let mut ws = self
                .inner
                .workspace
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let mut report = Vec::new();
            for file in &bundle.files {
                // Every hunk of the job ends as the list says, whatever was
                // decided before.
                let decided: Vec<(String, Status)> = ws
                    .review()
                    .file(&file.file_path)
                    .map(|f| {
                        f.entries()
                            .iter()
                            .filter_map(|e| Some((e.hunk_id.clone()?, e.status)))
                            .filter(|(h, _)| file.hunks.iter().any(|x| &x.hunk_id == h))
                            .collect()
                    })
                    .unwrap_or_default();
                let (mut applied, mut rejected) = (0, 0);
                let mut outcome = Ok(());
                for (hunk, status) in &decided {
                    let accept = accepted_hunk_ids.contains(hunk);
                    let wanted = if accept {
                        Status::Accepted
                    } else {
                        Status::Rejected
                    };
                    if *status != wanted
                        && let Err(e) = ws.decide(hunk, wanted)
                    {
                        outcome = Err(e);
                        break;
                    }
                    if accept { applied += 1 } else { rejected += 1 }
                }
                let saved = outcome.and_then(|()| ws.save(&file.file_path));
                report.push(AppliedFile {
                    file_path: file.file_path.clone(),
                    applied_hunks: applied,
                    rejected_hunks: rejected,
                    status: if saved.is_ok() { "applied" } else { "conflict" }.into(),
                    message: saved.err().map(|e| e.to_string()),
                });
            }
            report
        };
        let conflicts: Vec<&AppliedFile> =
            report.iter().filter(|f| f.status == "conflict").collect();
        self.emit(
            job_id,
            "apply.completed",
            json!({ "applied_files": report, "conflicts": conflicts.len(), "rerun_available": !conflicts.is_empty() }),
        );
        if conflicts.is_empty() {
            self.set_status(job_id, JobStatus::Completed, None);
        } else {
            self.set_job(job_id, |j| {
                j.error = Some(JobError {
                    code: "conflict".into(),
                    message: format!(
                        "{} files changed on disk since the agent read them; nothing was written to them. Re-run the job on the current content.",
                        conflicts.len()
                    ),
                })
            });
            self.set_status(job_id, JobStatus::Failed, None);
        }
        let _ = self.update_session(&job.session_id, |s| {
            if s.pending_review.as_deref() == Some(job_id) {
                s.pending_review = None;
            }
        });
        Ok(report)
    }
}

fn add_usage(total: &mut JobUsage, more: &JobUsage) {
    total.steps += more.steps;
    total.tool_calls += more.tool_calls;
    total.input_tokens += more.input_tokens;
    total.output_tokens += more.output_tokens;
    total.cost_usd += more.cost_usd;
}

fn proposal_json(p: &Proposal) -> Value {
    json!({
        "checkpoint_id": p.checkpoint.checkpoint_id,
        "edits": p.edits.len(),
        "files": p.bundle.files.len(),
        "hunks": p.bundle.files.iter().map(|f| f.hunks.len()).sum::<usize>(),
        "summary": p.summary,
    })
}

/// An event's payload, cut for a log line.
fn clip(data: &Value) -> String {
    let text = data.to_string();
    match text.char_indices().nth(300) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// The loop's view of its job.
struct JobHost {
    runtime: Runtime,
    job_id: String,
    session_id: String,
    instruction: String,
    attempt: Mutex<usize>,
}

impl Host for JobHost {
    fn project(&self) -> &Project {
        &self.runtime.inner.project
    }

    fn emit(&self, kind: &str, data: Value) {
        self.runtime.emit(&self.job_id, kind, data);
    }

    fn set_status(&self, status: JobStatus, question: Option<&Question>) {
        self.runtime.set_status(&self.job_id, status, question);
    }

    fn save(&self, state: &LoopState) {
        let saved = Saved {
            attempt: *self.attempt.lock().unwrap(),
            state: state.clone(),
        };
        let text = serde_json::to_string(&saved).expect("loop state serializes");
        if let Err(e) = self.runtime.db().put_loop_state(&self.job_id, Some(&text)) {
            tracing::error!(job = %self.job_id, error = %e, "could not save the loop state");
        }
    }

    fn propose(&self, edits: &[ProposedEdit]) -> Result<(Checkpoint, DiffBundle), WorkspaceError> {
        let run = RunInfo {
            session_id: Some(self.session_id.clone()),
            job_id: self.job_id.clone(),
            instruction: self.instruction.clone(),
        };
        self.runtime
            .inner
            .workspace
            .lock()
            .unwrap()
            .propose(&run, edits, &HunkLimits::default())
    }
}
