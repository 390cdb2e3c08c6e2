//! The command router: every user-facing operation once, as a typed request
//! and response (docs/http-api.md#routes). The HTTP server ([`http`]) and the
//! desktop shell ([`local`], the same routes in-process) are thin doors onto it.

pub mod http;
pub mod local;
pub mod operations;
mod shapes;
mod snapshots;

pub use shapes::*;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use snapshots::Snapshots;

use crate::checkpoints::{Checkpoint, CheckpointPage, RollbackPlan, RollbackReport};
use crate::jobs::{EventPage, FeedPage, Job, RunRequest, Runtime, RuntimeError, Session};
use crate::providers::detect;
use crate::settings::{self, Settings, SettingsError, SettingsSaved, SettingsUpdate};
use crate::setup::{self, Setup, SetupChoice};
use crate::workspace::{FileContent, Resolved, ThreeWay, TreeEntry, WorkspaceError};

/// Longest note a decision may carry, in characters.
const MAX_REASON: usize = 500;

/// The most files one batched read takes (`POST /api/files/contents`).
pub const MAX_FILES_READ: usize = 200;

/// An API error: `{"error": {"code", "message"}}` with a matching HTTP status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error, ts_rs::TS)]
#[error("{code}: {message}")]
pub struct ApiError {
    /// `not_found`, `conflict`, `invalid_request`, `unauthorized`,
    /// `forbidden`, `payload_too_large` or `internal`.
    pub code: String,
    /// What went wrong, for a person.
    pub message: String,
}

impl ApiError {
    /// An error with `code`.
    pub fn new(code: &str, message: impl Into<String>) -> ApiError {
        ApiError {
            code: code.into(),
            message: message.into(),
        }
    }

    /// The HTTP status of its code.
    pub fn status(&self) -> u16 {
        match self.code.as_str() {
            "not_found" => 404,
            "conflict" => 409,
            "invalid_request" => 400,
            "unauthorized" => 401,
            "forbidden" => 403,
            "payload_too_large" => 413,
            _ => 500,
        }
    }
}

/// The body of every error response.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct ErrorResponse {
    /// What went wrong.
    pub error: ApiError,
}

/// The answer to `DELETE /api/agent/sessions/<id>`.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct SessionDeleted {
    /// The deleted session's id.
    pub deleted: String,
}

impl From<RuntimeError> for ApiError {
    fn from(e: RuntimeError) -> ApiError {
        ApiError::new(e.code(), e.to_string())
    }
}

impl From<WorkspaceError> for ApiError {
    fn from(e: WorkspaceError) -> ApiError {
        ApiError::from(RuntimeError::from(e))
    }
}

impl From<SettingsError> for ApiError {
    fn from(e: SettingsError) -> ApiError {
        let code = match e {
            SettingsError::Invalid(_) => "invalid_request",
            _ => "internal",
        };
        ApiError::new(code, e.to_string())
    }
}

/// The operations, over one project's runtime.
#[derive(Clone)]
pub struct Api {
    runtime: Runtime,
    config_file: Option<PathBuf>,
    /// The review and the changed files, listed together (one moment serves
    /// the pages of both).
    listings: std::sync::Arc<Snapshots<crate::jobs::ProjectListing>>,
}

impl Api {
    /// The API of `runtime`; settings changes last until it stops.
    pub fn new(runtime: Runtime) -> Api {
        Api {
            runtime,
            config_file: None,
            listings: Default::default(),
        }
    }

    /// Saves settings changes to `file` too (TOML, comments kept).
    pub fn with_config_file(mut self, file: Option<PathBuf>) -> Api {
        self.config_file = file;
        self
    }

    /// The settings, keys shown as hints.
    pub fn settings(&self) -> Settings {
        settings::view(
            &self.runtime.config(),
            self.config_file.as_deref(),
            Some(self.runtime.project().root()),
        )
    }

    /// Changes settings: checked, saved to the configuration file, and in
    /// force for the jobs that start from now on. A key goes to the keychain.
    pub fn update_settings(&self, update: SettingsUpdate) -> Result<SettingsSaved, ApiError> {
        let root = self.runtime.project().root();
        let next = settings::updated(&self.runtime.config(), &update, Some(root))?;
        if let Some(file) = &self.config_file {
            settings::save(file, &next, &update, Some(root))?;
        }
        let key_storage = update
            .api_key
            .as_ref()
            .map(settings::store_key)
            .transpose()?;
        self.runtime.reconfigure(next)?;
        Ok(SettingsSaved {
            settings: self.settings(),
            key_storage,
        })
    }

    /// Whether a job can run now, and the ways this machine offers to
    /// make one run (local servers, keys in the environment, the bundled
    /// model). Probes take at most [`detect::PROBE_TIMEOUT`].
    pub async fn setup(&self) -> Setup {
        let candidates = detect::candidates();
        let (readiness, servers, bundled) = tokio::join!(
            self.runtime.provider_readiness(),
            detect::local_servers(&candidates),
            setup::bundled()
        );
        Setup {
            ready: readiness.ready,
            problems: readiness.problems,
            agent_mode: self.runtime.config().agent_mode,
            local_servers: servers
                .into_iter()
                .filter(|s| bundled.as_ref().is_none_or(|b| b.base_url != s.base_url))
                .collect(),
            env_keys: setup::env_keys(&self.runtime.config()),
            bundled,
        }
    }

    /// Uses one of the setup card's offers: saved as a settings change.
    /// The bundled model is started first when it is not running.
    pub async fn choose_setup(&self, choice: SetupChoice) -> Result<SettingsSaved, ApiError> {
        let bundled = match choice {
            SetupChoice::Bundled => Some(setup::start_bundled().await.map_err(|e| {
                let code = match e {
                    setup::SetupError::Start(_) => "internal",
                    _ => "invalid_request",
                };
                ApiError::new(code, e.to_string())
            })?),
            _ => None,
        };
        let update = setup::update_for(&choice, &self.runtime.config(), bundled.as_ref())
            .map_err(|e| ApiError::new("invalid_request", e.to_string()))?;
        self.update_settings(update)
    }

    /// The models an OpenAI-compatible server lists; an error says why
    /// none could be listed.
    pub async fn models(&self, query: ModelsQuery) -> ModelList {
        match detect::models(&query.base_url).await {
            Ok(models) => ModelList {
                models,
                error: None,
            },
            Err(e) => ModelList {
                models: Vec::new(),
                error: Some(e.to_string()),
            },
        }
    }

    /// The open folder.
    pub fn project(&self) -> ProjectInfo {
        let root = self.runtime.project().root();
        ProjectInfo {
            root: root.display().to_string(),
            name: root.file_name().map_or_else(
                || root.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            index: self.runtime.project().index().map(|i| i.stats()),
            outside_changes: self.runtime.outside_mode(),
            mcp_clients: self.runtime.mcp_clients(),
        }
    }

    /// The runtime behind it.
    pub fn runtime(&self) -> &Runtime {
        &self.runtime
    }

    /// Creates a session.
    pub fn create_session(&self, req: CreateSession) -> Result<SessionCreated, ApiError> {
        let s = self.runtime.create_session(req.agent_id.as_deref())?;
        Ok(SessionCreated {
            session_id: s.session_id,
            status: s.status,
            created_at: s.created_at,
        })
    }

    /// Every session.
    pub fn sessions(&self) -> Result<Vec<Session>, ApiError> {
        Ok(self.runtime.sessions()?)
    }

    /// One session.
    pub fn session(&self, id: &str) -> Result<Session, ApiError> {
        Ok(self.runtime.session(id)?)
    }

    /// Renames a session.
    pub fn rename_session(&self, id: &str, req: RenameSession) -> Result<Session, ApiError> {
        Ok(self.runtime.rename_session(id, &req.name)?)
    }

    /// Clears a session's chat and context, keeping its identity.
    pub fn clear_session(&self, id: &str) -> Result<Session, ApiError> {
        Ok(self.runtime.clear_session(id)?)
    }

    /// Deletes a session and its jobs (running ones are cancelled).
    pub fn delete_session(&self, id: &str) -> Result<SessionDeleted, ApiError> {
        self.runtime.delete_session(id)?;
        Ok(SessionDeleted {
            deleted: id.to_owned(),
        })
    }

    /// Starts a job.
    pub fn run(&self, req: RunRequest) -> Result<JobStarted, ApiError> {
        let job = self.runtime.run(req)?;
        Ok(JobStarted {
            job_id: job.job_id,
            status: job.status,
        })
    }

    /// One job, with its diff bundle once it awaits review; `brief`,
    /// without its edits and hunks.
    pub fn job(&self, id: &str, q: &JobQuery) -> Result<Job, ApiError> {
        Ok(if q.brief {
            self.runtime.job_brief(id)?
        } else {
            self.runtime.job(id)?
        })
    }

    /// A job's events from `cursor`, waiting up to `wait_ms` for one.
    pub async fn events(&self, id: &str, cursor: u64, wait_ms: u64) -> Result<EventPage, ApiError> {
        Ok(self.runtime.events(id, cursor, wait_ms).await?)
    }

    /// Answers or skips a question.
    pub fn clarify(&self, id: &str, req: Clarify) -> Result<Job, ApiError> {
        let answer = req.answer.filter(|a| !req.skip && !a.trim().is_empty());
        self.runtime.clarify(id, &req.question_id, answer)?;
        self.job(id, &JobQuery::default())
    }

    /// Cancels a job.
    pub fn cancel(&self, id: &str) -> Result<Job, ApiError> {
        self.runtime.cancel(id)?;
        self.job(id, &JobQuery::default())
    }

    /// Runs a finished job's instruction again on the current content.
    pub fn rerun(&self, id: &str) -> Result<JobStarted, ApiError> {
        let job = self.runtime.rerun(id)?;
        Ok(JobStarted {
            job_id: job.job_id,
            status: job.status,
        })
    }

    /// Accepts, rejects or undoes the decision on one hunk.
    pub fn decide(&self, hunk_id: &str, req: Decide) -> Result<Decided, ApiError> {
        let reason = req
            .reason
            .as_deref()
            .map(str::trim)
            .filter(|r| !r.is_empty());
        if reason.is_some_and(|r| r.chars().count() > MAX_REASON) {
            return Err(ApiError::new(
                "invalid_request",
                format!("a decision's reason is at most {MAX_REASON} characters"),
            ));
        }
        let dry_run = req.dry_run.unwrap_or(false);
        let (decision, file) = self.runtime.decide(hunk_id, req.status, reason, dry_run)?;
        let status = decision
            .moves
            .iter()
            .find(|m| m.hunk_id == hunk_id)
            .map_or(req.status, |m| m.to);
        Ok(Decided {
            hunk_id: hunk_id.to_owned(),
            status,
            moved: decision.moves,
            hidden_user_text: decision.hidden_user_text,
            links_left: decision.links_left,
            dry_run,
            file,
        })
    }

    /// Accepts, rejects or undoes many hunks at once.
    pub fn decide_many(&self, req: DecideMany) -> Result<crate::jobs::DecidedMany, ApiError> {
        let label = req
            .label
            .as_deref()
            .map(str::trim)
            .filter(|l| !l.is_empty());
        if label.is_some_and(|l| l.chars().count() > MAX_REASON) {
            return Err(ApiError::new(
                "invalid_request",
                format!("a decision's label is at most {MAX_REASON} characters"),
            ));
        }
        Ok(self
            .runtime
            .decide_many(&req.selection, req.status, label)?)
    }

    /// Undoes the newest step of the decision history.
    pub fn undo(&self, req: TakeStep) -> Result<crate::workspace::Stepped, ApiError> {
        Ok(self.runtime.undo_step(req.step_id.as_deref())?)
    }

    /// Does again the step of the decision history undone last.
    pub fn redo(&self, req: TakeStep) -> Result<crate::workspace::Stepped, ApiError> {
        Ok(self.runtime.redo_step(req.step_id.as_deref())?)
    }

    /// What undo and redo would take next.
    pub fn history(&self) -> crate::workspace::HistoryHeads {
        self.runtime.history_heads()
    }

    /// The listing numbered `snapshot` while it is kept, else the newest
    /// one if nothing changed since, else a new one: the review and the
    /// changed files share it, so that pages of the two named by one number
    /// show one moment.
    fn listing(
        &self,
        snapshot: Option<u64>,
    ) -> Result<(u64, std::sync::Arc<crate::jobs::ProjectListing>), ApiError> {
        Ok(self
            .listings
            .get_or_make(snapshot, self.runtime.revision(), || self.runtime.listing())?)
    }

    /// Every pending hunk, grouped by the job that proposed it.
    pub fn review(&self, q: &PageQuery) -> Result<crate::jobs::ReviewQueue, ApiError> {
        let (snapshot, listing) = self.listing(q.snapshot)?;
        let rows = snapshots::window(listing.review.total, q.offset.unwrap_or(0), q.limit);
        Ok(listing.review.page(rows, snapshot))
    }

    /// The project's files under `prefix`, with their review state.
    pub fn tree(&self, q: &TreeQuery) -> Result<Vec<TreeEntry>, ApiError> {
        crate::faults::check(crate::faults::Site::Request);
        Ok(self.runtime.tree(&q.prefix, false)?)
    }

    /// A page of the files with a working buffer, with their review state.
    pub fn changed_files(&self, q: &PageQuery) -> Result<ChangedFiles, ApiError> {
        let (snapshot, listing) = self.listing(q.snapshot)?;
        let rows = snapshots::window(listing.files.len(), q.offset.unwrap_or(0), q.limit);
        Ok(ChangedFiles {
            files: listing.files[rows].to_vec(),
            total: listing.files.len(),
            snapshot,
            feed_cursor: listing.feed_cursor,
        })
    }

    /// The direct children of a folder.
    pub fn children(&self, prefix: &str) -> Result<crate::workspace::Listing, ApiError> {
        Ok(self.runtime.children(prefix)?)
    }

    /// One file as the editor shows it.
    pub fn file(&self, path: &str) -> Result<FileContent, ApiError> {
        Ok(self.runtime.file_content(path)?)
    }

    /// Several files as the editor shows them, read under one lock: each
    /// its content or why it could not be read. More than
    /// [`MAX_FILES_READ`] paths is an `invalid_request`.
    pub fn files(&self, paths: &[String]) -> Result<Vec<FileRead>, ApiError> {
        if paths.len() > MAX_FILES_READ {
            return Err(ApiError::new(
                "invalid_request",
                format!(
                    "at most {MAX_FILES_READ} files are read at once, not {}",
                    paths.len()
                ),
            ));
        }
        Ok(self
            .runtime
            .file_contents(paths)
            .into_iter()
            .zip(paths)
            .map(|(read, path)| match read {
                Ok(file) => FileRead {
                    path: path.clone(),
                    file: Some(file),
                    error: None,
                },
                Err(e) => FileRead {
                    path: path.clone(),
                    file: None,
                    error: Some(e.to_string()),
                },
            })
            .collect())
    }

    /// An image of the vault, its bytes in base64.
    pub fn image(&self, path: &str) -> Result<Image, ApiError> {
        use base64::Engine as _;
        let (mime, bytes) = self.runtime.image(path)?;
        Ok(Image {
            path: path.to_owned(),
            mime: mime.to_owned(),
            base64: base64::engine::general_purpose::STANDARD.encode(bytes),
        })
    }

    /// The user's edit of a working buffer.
    pub fn edit(&self, req: EditBuffer) -> Result<FileContent, ApiError> {
        Ok(self
            .runtime
            .edit(&req.path, &req.text, req.base_hash.as_deref())?)
    }

    /// Saves a file (its buffer without pending hunks), hash-checked.
    pub fn save(&self, req: FileRequest) -> Result<FileContent, ApiError> {
        Ok(self.runtime.save(&req.path)?)
    }

    /// Saves every file with unsaved work as one batch. It runs as a task
    /// of its own: a caller that leaves (a window closed right after Save
    /// all) does not cut it off.
    pub async fn save_all(&self) -> Result<crate::jobs::SavedAll, ApiError> {
        let runtime = self.runtime.clone();
        match tokio::task::spawn_blocking(move || runtime.save_all()).await {
            Ok(saved) => Ok(saved?),
            // A panic goes on to the door's handler (a 500, logged once).
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(e) => Err(ApiError::new("internal", format!("Save all stopped: {e}"))),
        }
    }

    /// Accepts every pending hunk of a file.
    pub fn accept_all(&self, req: FileRequest) -> Result<FileContent, ApiError> {
        Ok(self.runtime.accept_all_in_file(&req.path)?)
    }

    /// Proposes moving (renaming) or deleting a file, with the link
    /// rewrites a move brings; returns the job awaiting review.
    pub async fn file_op(&self, req: FileOpRequest) -> Result<Job, ApiError> {
        Ok(self.runtime.propose_file_op(&req.path, req.op).await?)
    }

    /// What operations would change, staging nothing.
    pub fn preview_operations(
        &self,
        req: OperationsRequest,
    ) -> Result<OperationsPreview, ApiError> {
        let (edits, reports, follow) = self.runtime.preview_operations(&req.operations)?;
        let links_follow = follow
            .into_iter()
            .map(|(file_path, links)| LinksFollow { file_path, links })
            .collect();
        Ok(OperationsPreview {
            edits,
            reports,
            links_follow,
        })
    }

    /// Stages operations as the user's job.
    pub async fn operations(&self, req: OperationsRequest) -> Result<Job, ApiError> {
        let instruction = req
            .instruction
            .unwrap_or_else(|| crate::expand::describe(&req.operations));
        Ok(self
            .runtime
            .propose_operations(&instruction, &req.operations)
            .await?)
    }

    /// Resolves a conflict with another program's change.
    pub fn resolve(&self, req: Resolve) -> Result<Resolved, ApiError> {
        Ok(self.runtime.resolve(&req.path, req.keep)?)
    }

    /// The project feed from `cursor`, waiting up to `wait_ms` for an event.
    pub async fn project_events(&self, cursor: u64, wait_ms: u64) -> FeedPage {
        self.runtime.feed().page(cursor, wait_ms).await
    }

    /// Applies a job's review.
    pub fn apply(&self, req: Apply) -> Result<Applied, ApiError> {
        let job = self.runtime.job(&req.job_id)?;
        if job.session_id != req.session_id {
            return Err(ApiError::new(
                "invalid_request",
                format!(
                    "job `{}` is not in session `{}`",
                    req.job_id, req.session_id
                ),
            ));
        }
        let listed: std::collections::HashSet<&str> =
            req.accepted_hunk_ids.iter().map(String::as_str).collect();
        let also = |h: &crate::hunks::Hunk| match req.also_accept {
            AlsoAccept::None => false,
            AlsoAccept::Accepted => h.accepted == Some(true),
            AlsoAccept::NotRejected => h.accepted != Some(false),
        };
        let mut accepted = req.accepted_hunk_ids.clone();
        accepted.extend(
            job.diff_bundle
                .iter()
                .flat_map(|b| &b.files)
                .flat_map(|f| &f.hunks)
                .filter(|h| also(h) && !listed.contains(h.hunk_id.as_str()))
                .map(|h| h.hunk_id.clone()),
        );
        let applied_files = self.runtime.apply(&job, &accepted)?;
        let conflicts = applied_files
            .iter()
            .filter(|f| f.status == "conflict")
            .count();
        Ok(Applied {
            status: if conflicts > 0 {
                "conflict"
            } else {
                "completed"
            }
            .into(),
            written: applied_files.len() - conflicts,
            applied_files: if req.brief {
                applied_files
                    .into_iter()
                    .filter(|f| f.status == "conflict")
                    .collect()
            } else {
                applied_files
            },
        })
    }

    fn workspace<T>(
        &self,
        f: impl FnOnce(&crate::workspace::Workspace) -> Result<T, WorkspaceError>,
    ) -> Result<T, ApiError> {
        Ok(self.runtime.read_workspace(f)?)
    }

    /// Every checkpoint, newest first.
    pub fn checkpoints(&self, query: CheckpointsQuery) -> Result<CheckpointPage, ApiError> {
        let limit = query.limit.unwrap_or(50).clamp(1, 500);
        self.workspace(|ws| ws.checkpoints(query.before.as_deref(), limit))
    }

    /// One checkpoint.
    pub fn checkpoint(&self, id: &str) -> Result<Checkpoint, ApiError> {
        self.workspace(|ws| ws.checkpoint(id))
    }

    /// The three-way view of one file of a checkpoint.
    pub fn diff3(&self, id: &str, file_path: &str) -> Result<ThreeWay, ApiError> {
        self.workspace(|ws| ws.diff3(id, file_path))
    }

    /// Rolls back to a checkpoint.
    pub fn rollback(&self, id: &str, req: Rollback) -> Result<RollbackReport, ApiError> {
        Ok(self.runtime.rollback(id, req.mode, &req.hunk_ids)?)
    }

    /// What a rollback to a checkpoint would do, changing nothing.
    pub fn rollback_plan(&self, id: &str, req: Rollback) -> Result<RollbackPlan, ApiError> {
        Ok(self.runtime.plan_rollback(id, req.mode, &req.hunk_ids)?)
    }
}
