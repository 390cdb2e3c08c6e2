//! The job runtime: one open project's sessions and background jobs.
//!
//! Every event is written to SQLite before anyone can read it, and wakes the
//! long-polling readers at once. A job's agent runs as a tokio task; the
//! runtime keeps for each running job a cancellation token and the channel its
//! clarification answers arrive on. A job that waits for the user when
//! Redline stops is picked up again on the next start, from its saved loop
//! state; one that was running is marked failed (`interrupted`), but for a run
//! over many notes, which goes on with the notes it had not done.
//!
//! Its parts: the lifecycle here (open, recover, GC, configuration);
//! [`sessions`]; [`execute`] (start, spawn, run the loop through the provider
//! chain, finish); [`log`] (the event log and its long poll, job records);
//! [`control`] (answers and cancel); [`review`] (decisions and apply);
//! [`editing`] (the editor's operations, announced in the feed); [`host`]
//! (the loop's view of its job).

mod agent_writes;
mod connections;
mod control;
mod editing;
mod execute;
mod external;
pub use agent_writes::{AgentWrite, OutcomeRequest, WriteOutcome};
pub use connections::McpConnection;
pub use external::HunkState;
pub use outside::OUTSIDE;
mod file_ops;
mod find;
mod history;
mod host;
mod log;
mod operations;
mod outside;
mod review;
mod sessions;

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::Feed;
use super::chain::{ProviderChain, Readiness};
use super::error::{RuntimeError, not_found};
use super::records::Records;
use super::shapes::{JobError, JobStatus, now};
use crate::agent::{self, AgentDefinition, Answer, LoopState};
use crate::config::Config;
use crate::expand::Protection;
use crate::project::Project;
use crate::store::Store;
use crate::workspace::Workspace;

/// One open project's sessions and jobs.
#[derive(Clone)]
pub struct Runtime {
    inner: Arc<Inner>,
}

/// What the runtime holds for a job whose task is alive.
struct Live {
    cancel: CancellationToken,
    answers: mpsc::UnboundedSender<Answer>,
    task: Option<tokio::task::AbortHandle>,
}

struct Inner {
    config: RwLock<Arc<Config>>,
    project: Project,
    workspace: Arc<Mutex<Workspace>>,
    /// How many times the workspace was borrowed to change (or the job
    /// store changed what a listing shows): a listing made at one revision
    /// is still true at it.
    revision: std::sync::atomic::AtomicU64,
    feed: Feed,
    db: Mutex<Store>,
    live: Mutex<HashMap<String, Live>>,
    changed: watch::Sender<u64>,
    providers: RwLock<Arc<ProviderChain>>,
    connections: connections::Connections,
    /// Terminal agents' staged writes, by job: see [`agent_writes`].
    agent_writes: Mutex<HashMap<String, agent_writes::Waiting>>,
}

/// The prefix of an external agent's id: `mcp:<client name>`.
pub const EXTERNAL_AGENT: &str = "mcp:";

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
        let providers = ProviderChain::from_config(&config)?;
        Runtime::open_with(root, config, providers)
    }

    /// Opens the project at `root` with the given providers.
    pub fn open_with(
        root: &Path,
        config: Config,
        providers: ProviderChain,
    ) -> Result<Runtime, RuntimeError> {
        // The watcher fills the index (`watch::start`); until then, and in
        // a one-shot run that never watches, searches walk the folder.
        let project = Project::open(root, config.limits.clone())?.with_index();
        let data_dir = config.data_dir();
        let root = project.root().to_path_buf();
        let mut workspace = Workspace::open(project.clone(), Store::open(&data_dir, &root)?)?;
        workspace.protect(protection(&config, &root)?);
        let db = Store::open(&data_dir, &root)?;
        let runtime = Runtime {
            inner: Arc::new(Inner {
                config: RwLock::new(Arc::new(config)),
                project,
                workspace: Arc::new(Mutex::new(workspace)),
                revision: Default::default(),
                feed: Feed::default(),
                db: Mutex::new(db),
                live: Mutex::new(HashMap::new()),
                changed: watch::channel(0).0,
                providers: RwLock::new(Arc::new(providers)),
                connections: Default::default(),
                agent_writes: Default::default(),
            }),
        };
        runtime.recover()?;
        runtime.gc()?;
        Ok(runtime)
    }

    fn db(&self) -> Counted<'_, Store> {
        Counted {
            guard: self.inner.db.lock().unwrap_or_else(|e| e.into_inner()),
            revision: &self.inner.revision,
        }
    }

    fn ws(&self) -> Counted<'_, Workspace> {
        Counted {
            guard: self
                .inner
                .workspace
                .lock()
                .unwrap_or_else(|e| e.into_inner()),
            revision: &self.inner.revision,
        }
    }

    /// Moves the revision on (see [`Runtime::revision`]) for a change made
    /// through a shared borrow (the job store's are).
    fn touch(&self) {
        self.inner
            .revision
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    /// The revision of what the runtime holds: it moves whenever the
    /// workspace is borrowed to change, or a session is written or deleted
    /// (a listing made at one revision is still true while it stays).
    pub fn revision(&self) -> u64 {
        self.inner
            .revision
            .load(std::sync::atomic::Ordering::SeqCst)
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

    /// The project.
    pub fn project(&self) -> &Project {
        &self.inner.project
    }

    /// Reads the review workspace (its checkpoints, say) with `f`. Changes
    /// go through the runtime's own methods, which keep its revision.
    pub fn read_workspace<T>(&self, f: impl FnOnce(&Workspace) -> T) -> T {
        f(&self.ws())
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

    fn providers(&self) -> Arc<ProviderChain> {
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
        let providers = ProviderChain::from_config(&config)?;
        let protection = protection(&config, self.inner.project.root())?;
        self.inner
            .workspace
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .protect(protection);
        *self
            .inner
            .providers
            .write()
            .unwrap_or_else(|e| e.into_inner()) = Arc::new(providers);
        *self.inner.config.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(config);
        Ok(())
    }

    /// Whether the configured providers can run a job now, and why not for
    /// each that cannot be used (see [`ProviderChain::check`]).
    pub async fn provider_readiness(&self) -> Readiness {
        self.providers().check().await
    }

    /// Every agent definition.
    pub fn agents(&self) -> Vec<AgentDefinition> {
        agent::definitions(&self.config().agents)
    }

    /// The agent `id`: a configured one, or an external agent
    /// (`mcp:<client>`), which brings its own instructions.
    fn agent(&self, id: &str) -> Result<AgentDefinition, RuntimeError> {
        if let Some(client) = id.strip_prefix(EXTERNAL_AGENT) {
            return Ok(AgentDefinition {
                agent_id: id.to_owned(),
                display_name: client.to_owned(),
                description: format!("{client}, an external agent over MCP"),
                system_prompt: String::new(),
                tool_allowlist: None,
                tool_denylist: None,
                model: None,
            });
        }
        self.agents()
            .into_iter()
            .find(|a| a.agent_id == id)
            .ok_or_else(|| not_found("agent", id))
    }

    /// After a stop: running jobs are marked `interrupted`, but for a run
    /// over many notes, which goes on with the notes not yet done; jobs
    /// waiting for the user resume from their saved state.
    fn recover(&self) -> Result<(), RuntimeError> {
        let interrupted = |message: &str| JobError {
            code: "interrupted".into(),
            message: message.into(),
        };
        let db = self.db();
        let mut resumable = Vec::new();
        for mut job in db.jobs_with_status(&[JobStatus::Queued, JobStatus::Running])? {
            // A run over many notes goes on with the notes it had not done.
            let saved = db
                .loop_state(&job.job_id)?
                .and_then(|s| serde_json::from_str::<Saved>(&s).ok())
                .filter(|s| s.state.fan_out.as_ref().is_some_and(|f| f.confirmed));
            if let Some(saved) = saved {
                resumable.push((job, Some(saved)));
                continue;
            }
            job.status = JobStatus::Failed;
            job.finished_at = Some(now());
            job.error = Some(interrupted(
                "Redline stopped while this job ran; run it again",
            ));
            db.put_job(&job)?;
        }
        for job in db.jobs_with_status(&[JobStatus::WaitingForUser])? {
            let saved = db
                .loop_state(&job.job_id)?
                .and_then(|s| serde_json::from_str::<Saved>(&s).ok());
            resumable.push((job, saved));
        }
        drop(db);
        for (mut job, saved) in resumable {
            // An external agent's job cannot resume: its agent's call ended
            // with the process that served it.
            let external = self
                .session(&job.session_id)
                .is_ok_and(|s| s.agent_id.starts_with(EXTERNAL_AGENT));
            match saved.filter(|_| !external) {
                Some(saved) => self.spawn(job, saved.state, saved.attempt, None),
                None => {
                    job.status = JobStatus::Failed;
                    job.error = Some(interrupted(if external {
                        "Redline stopped while an external agent's job waited; its call ended with it"
                    } else {
                        "the job's saved state could not be read"
                    }));
                    self.db().put_job(&job)?;
                }
            }
        }
        Ok(())
    }

    /// Runs lifecycle GC (the store's `gc`). Runs on open and after each new job.
    pub fn gc(&self) -> Result<(usize, usize), RuntimeError> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let removed = self.db().gc(&self.config().limits, now)?;
        if removed != (0, 0) {
            tracing::info!(jobs = removed.0, sessions = removed.1, "lifecycle gc");
            self.touch();
        }
        Ok(removed)
    }
}

/// The protected notes `config` sets for the folder at `root`, compiled.
fn protection(config: &Config, root: &Path) -> Result<Protection, RuntimeError> {
    Protection::new(config.protected_in(root))
        .map_err(|e| RuntimeError::Invalid(format!("protected: {e}")))
}

/// A locked part of the runtime that counts a revision each time it is
/// borrowed to change (see [`Runtime::revision`]).
struct Counted<'a, T> {
    guard: MutexGuard<'a, T>,
    revision: &'a std::sync::atomic::AtomicU64,
}

impl<T> std::ops::Deref for Counted<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> std::ops::DerefMut for Counted<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.revision
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        &mut self.guard
    }
}
