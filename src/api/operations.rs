//! Every operation of the API, defined once: its name, HTTP method and path,
//! the types of its path id, query, body and response, and what it calls on
//! the [`Api`]. The HTTP routes are built from this list ([`router`]), and so
//! is the UI's client, `ui/src/api/client.ts` ([`table`], rendered by
//! `tests/ts_types.rs`), so the two cannot disagree on a route, its method or
//! its types.

use std::future::Future;

use axum::Router;
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request, State};
use axum::http::request::Parts;
use axum::routing::{MethodFilter, on};
use axum::{Json, http::StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use ts_rs::TS;

use super::{
    Api, ApiError, Apply, CheckpointsQuery, Clarify, CreateSession, Decide, DecideMany, Diff3Query,
    EditBuffer, EventsQuery, FileOpRequest, FileQuery, FileRequest, FilesRequest, JobQuery,
    ModelsQuery, OperationsPreview, OperationsRequest, PageQuery, QuickOpenQuery, RenameSession,
    Resolve, Rollback, TakeStep, TreeQuery,
};
use crate::jobs::RunRequest;
use crate::settings::SettingsUpdate;
use crate::setup::SetupChoice;

/// Largest request body: a whole text file (the text-file limit) and room.
pub const BODY_LIMIT: usize = 17 << 20;

/// One operation as the client sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation {
    /// Its name, snake_case (the client's is camelCase).
    pub name: &'static str,
    /// `GET`, `POST`, `PUT`, `PATCH` or `DELETE`.
    pub method: &'static str,
    /// Its path; `{id}` is the path id.
    pub path: &'static str,
    /// The TypeScript type of its query, if it takes one.
    pub query: Option<String>,
    /// The TypeScript type of its body, if it takes one.
    pub body: Option<String>,
    /// The TypeScript type of its response.
    pub response: String,
    /// What it does.
    pub doc: &'static str,
}

/// What an operation takes from the request's path: nothing (`()`) or the
/// `{id}` in it ([`PathId`]).
pub trait PathArg: Sized + Send + 'static {
    /// Reads it.
    fn extract(parts: &mut Parts) -> impl Future<Output = Result<Self, ApiError>> + Send;
}

/// The `{id}` of a path.
pub struct PathId(pub String);

impl PathArg for () {
    async fn extract(_: &mut Parts) -> Result<(), ApiError> {
        Ok(())
    }
}

impl PathArg for PathId {
    async fn extract(parts: &mut Parts) -> Result<PathId, ApiError> {
        Path::<String>::from_request_parts(parts, &())
            .await
            .map(|Path(id)| PathId(id))
            .map_err(|e| ApiError::new("invalid_request", e.body_text()))
    }
}

/// What an operation takes from the query string: nothing (`()`) or a
/// typed query ([`QueryOf`]).
pub trait QueryArg: Sized + Send + 'static {
    /// Its TypeScript type, if it takes one.
    fn ts() -> Option<String>;
    /// Reads it; a malformed query is an `invalid_request`.
    fn extract(parts: &mut Parts) -> impl Future<Output = Result<Self, ApiError>> + Send;
}

/// A typed query string.
pub struct QueryOf<T>(pub T);

impl QueryArg for () {
    fn ts() -> Option<String> {
        None
    }

    async fn extract(_: &mut Parts) -> Result<(), ApiError> {
        Ok(())
    }
}

impl<T: DeserializeOwned + TS + Send + 'static> QueryArg for QueryOf<T> {
    fn ts() -> Option<String> {
        Some(T::name(&ts_rs::Config::default()))
    }

    async fn extract(parts: &mut Parts) -> Result<QueryOf<T>, ApiError> {
        Query::<T>::from_request_parts(parts, &())
            .await
            .map(|Query(v)| QueryOf(v))
            .map_err(|e| ApiError::new("invalid_request", e.body_text()))
    }
}

/// What an operation takes from the body: nothing (`()`, the body is not
/// read) or JSON ([`BodyOf`]).
pub trait BodyArg: Sized + Send + 'static {
    /// Its TypeScript type, if it takes one.
    fn ts() -> Option<String>;
    /// Reads it; malformed JSON is an `invalid_request`, one over
    /// [`BODY_LIMIT`] a `payload_too_large`.
    fn extract(request: Request) -> impl Future<Output = Result<Self, ApiError>> + Send;
}

/// A JSON body.
pub struct BodyOf<T>(pub T);

impl BodyArg for () {
    fn ts() -> Option<String> {
        None
    }

    async fn extract(_: Request) -> Result<(), ApiError> {
        Ok(())
    }
}

impl<T: DeserializeOwned + TS + Send + 'static> BodyArg for BodyOf<T> {
    fn ts() -> Option<String> {
        Some(T::name(&ts_rs::Config::default()))
    }

    async fn extract(request: Request) -> Result<BodyOf<T>, ApiError> {
        match Json::<T>::from_request(request, &()).await {
            Ok(Json(v)) => Ok(BodyOf(v)),
            Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => Err(ApiError::new(
                "payload_too_large",
                format!("the body is over {BODY_LIMIT} bytes"),
            )),
            Err(e) => Err(ApiError::new("invalid_request", e.body_text())),
        }
    }
}

/// Adds one operation's route: its arguments are read in order (path, query,
/// body), `call` runs on them, and its answer is sent as JSON.
fn route<P, QA, BA, R, F, Fut>(
    router: Router<Api>,
    path: &str,
    method: MethodFilter,
    call: F,
) -> Router<Api>
where
    P: PathArg,
    QA: QueryArg,
    BA: BodyArg,
    R: Serialize + TS + Send + 'static,
    F: Fn(Api, P, QA, BA) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<R, ApiError>> + Send + 'static,
{
    let handler = move |State(api): State<Api>, request: Request| {
        let call = call.clone();
        async move {
            let (mut parts, body) = request.into_parts();
            let p = P::extract(&mut parts).await?;
            let q = QA::extract(&mut parts).await?;
            let b = BA::extract(Request::from_parts(parts, body)).await?;
            call(api, p, q, b).await.map(Json)
        }
    };
    router.route(path, on(method, handler))
}

macro_rules! operations {
    ($(
        $(#[doc = $doc:literal])+
        $name:ident: $method:ident $path:literal ($p:ty, $q:ty, $b:ty) -> $r:ty = $call:expr;
    )*) => {
        /// Every operation, in the order the client lists them.
        pub fn table() -> Vec<Operation> {
            vec![$(Operation {
                name: stringify!($name),
                method: stringify!($method),
                path: $path,
                query: <$q as QueryArg>::ts(),
                body: <$b as BodyArg>::ts(),
                response: <$r as TS>::name(&ts_rs::Config::default()),
                doc: concat!($($doc, "\n"),+),
            }),*]
        }

        /// The routes of every operation over `api`, unguarded.
        pub(super) fn router(api: Api) -> Router {
            let router = Router::new();
            $(let router = route::<$p, $q, $b, $r, _, _>(router, $path, MethodFilter::$method, $call);)*
            router
                .layer(axum::extract::DefaultBodyLimit::max(BODY_LIMIT))
                .with_state(api)
        }
    };
}

operations! {
    /// This build of Redline: its version, commit and build date.
    about: GET "/api/about" ((), (), ()) -> crate::about::About =
        |_api: Api, (), (), ()| async move { Ok(crate::about::about()) };

    /// The open folder.
    project: GET "/api/project" ((), (), ()) -> super::ProjectInfo =
        |api: Api, (), (), ()| async move { Ok(api.project()) };

    /// The project's files under a prefix, with their review state.
    tree: GET "/api/files" ((), QueryOf<TreeQuery>, ()) -> Vec<crate::workspace::TreeEntry> =
        |api: Api, (), QueryOf(q): QueryOf<TreeQuery>, ()| async move { api.tree(&q) };
    /// A folder's direct children: its folders with their file counts, its files with their state.
    children: GET "/api/files/children" ((), QueryOf<TreeQuery>, ()) -> crate::workspace::Listing =
        |api: Api, (), QueryOf(q): QueryOf<TreeQuery>, ()| async move { api.children(&q.prefix) };
    /// A page of the files with a working buffer, with their review state.
    changed_files: GET "/api/files/changed" ((), QueryOf<PageQuery>, ()) -> super::ChangedFiles =
        |api: Api, (), QueryOf(q): QueryOf<PageQuery>, ()| async move { api.changed_files(&q) };
    /// Every pending hunk, grouped by the job that proposed it, with a preview of each; a page of them on request.
    review: GET "/api/review" ((), QueryOf<PageQuery>, ()) -> crate::jobs::ReviewQueue =
        |api: Api, (), QueryOf(q): QueryOf<PageQuery>, ()| async move { api.review(&q) };
    /// One file as the editor shows it (its working buffer, or the disk).
    file: GET "/api/files/content" ((), QueryOf<FileQuery>, ()) -> crate::workspace::FileContent =
        |api: Api, (), QueryOf(q): QueryOf<FileQuery>, ()| async move { api.file(&q.path) };
    /// Several files as the editor shows them, in one call (the run document reads the notes ahead of the screen together).
    files: POST "/api/files/contents" ((), (), BodyOf<FilesRequest>) -> Vec<super::FileRead> =
        |api: Api, (), (), BodyOf(b)| async move { api.files(&b.paths) };
    /// An image of the vault, its bytes in base64, for the redline view.
    image: GET "/api/files/image" ((), QueryOf<FileQuery>, ()) -> super::Image =
        |api: Api, (), QueryOf(q): QueryOf<FileQuery>, ()| async move { api.image(&q.path) };
    /// The user's edit of a working buffer.
    edit: PUT "/api/files/buffer" ((), (), BodyOf<EditBuffer>) -> crate::workspace::FileContent =
        |api: Api, (), (), BodyOf(b)| async move { api.edit(b) };
    /// Saves a file (its buffer without pending hunks), hash-checked.
    save: POST "/api/files/save" ((), (), BodyOf<FileRequest>) -> crate::workspace::FileContent =
        |api: Api, (), (), BodyOf(b)| async move { api.save(b) };
    /// Saves every file with unsaved work as one batch, hash-checked; finished even if the caller leaves.
    save_all: POST "/api/files/save_all" ((), (), ()) -> crate::jobs::SavedAll =
        |api: Api, (), (), ()| async move { api.save_all().await };
    /// Accepts every pending hunk of a file.
    accept_all: POST "/api/files/accept_all" ((), (), BodyOf<FileRequest>) -> crate::workspace::FileContent =
        |api: Api, (), (), BodyOf(b)| async move { api.accept_all(b) };
    /// Proposes moving (renaming) or deleting a file, reviewed like any proposal (links follow a move).
    file_op: POST "/api/files/op" ((), (), BodyOf<FileOpRequest>) -> crate::jobs::Job =
        |api: Api, (), (), BodyOf(b)| async move { api.file_op(b).await };
    /// What changes across the vault, stated once, would do: staging nothing.
    preview_operations: POST "/api/operations/preview" ((), (), BodyOf<OperationsRequest>) -> OperationsPreview =
        |api: Api, (), (), BodyOf(b)| async move { api.preview_operations(b) };
    /// Changes across the vault, stated once, staged as the user's job to review.
    operations: POST "/api/operations" ((), (), BodyOf<OperationsRequest>) -> crate::jobs::Job =
        |api: Api, (), (), BodyOf(b)| async move { api.operations(b).await };
    /// Stages a terminal agent's write (from its hook) as a job of the agent's session, reviewed like any proposal.
    agent_write: POST "/api/agent-writes" ((), (), BodyOf<crate::jobs::AgentWrite>) -> crate::jobs::Job =
        |api: Api, (), (), BodyOf(b)| async move { Ok(api.runtime().stage_agent_write(&b).await?) };
    /// What became of a staged write, waiting up to `wait_ms` for every hunk to be decided.
    agent_write_outcome: POST "/api/agent-writes/{id}/outcome" (PathId, (), BodyOf<crate::jobs::OutcomeRequest>) -> crate::jobs::WriteOutcome =
        |api: Api, PathId(id), (), BodyOf(b)| async move { Ok(api.runtime().agent_write_outcome(&id, &b).await?) };
    /// Resolves a conflict with another program's change.
    resolve: POST "/api/files/resolve" ((), (), BodyOf<Resolve>) -> crate::workspace::Resolved =
        |api: Api, (), (), BodyOf(b)| async move { api.resolve(b) };
    /// The paths that best match a query (quick open).
    quick_open: GET "/api/files/find" ((), QueryOf<QuickOpenQuery>, ()) -> crate::find::paths::FoundPaths =
        |api: Api, (), QueryOf(q): QueryOf<QuickOpenQuery>, ()| async move {
            Ok(api.runtime().quick_open(&q.query, q.limit.unwrap_or(50).clamp(1, 500)))
        };
    /// A page of the lines matching a search, grouped by file.
    search: GET "/api/search" ((), QueryOf<crate::find::lines::SearchRequest>, ()) -> crate::find::lines::SearchResults =
        |api: Api, (), QueryOf(q): QueryOf<crate::find::lines::SearchRequest>, ()| async move {
            Ok(api.runtime().search(&q)?)
        };
    /// The project feed from a cursor, waiting up to `wait_ms` for an event.
    feed: GET "/api/events" ((), QueryOf<EventsQuery>, ()) -> crate::jobs::FeedPage =
        |api: Api, (), QueryOf(q): QueryOf<EventsQuery>, ()| async move {
            Ok(api.project_events(q.cursor, q.wait_ms).await)
        };

    /// Every session, most recently updated first.
    sessions: GET "/api/agent/sessions" ((), (), ()) -> Vec<crate::jobs::Session> =
        |api: Api, (), (), ()| async move { api.sessions() };
    /// Creates a session.
    create_session: POST "/api/agent/sessions" ((), (), BodyOf<CreateSession>) -> super::SessionCreated =
        |api: Api, (), (), BodyOf(b)| async move { api.create_session(b) };
    /// One session.
    session: GET "/api/agent/sessions/{id}" (PathId, (), ()) -> crate::jobs::Session =
        |api: Api, PathId(id), (), ()| async move { api.session(&id) };
    /// Renames a session.
    rename_session: PATCH "/api/agent/sessions/{id}" (PathId, (), BodyOf<RenameSession>) -> crate::jobs::Session =
        |api: Api, PathId(id), (), BodyOf(b)| async move { api.rename_session(&id, b) };
    /// Deletes a session and its jobs (running ones are cancelled).
    delete_session: DELETE "/api/agent/sessions/{id}" (PathId, (), ()) -> super::SessionDeleted =
        |api: Api, PathId(id), (), ()| async move { api.delete_session(&id) };
    /// Clears a session's chat and context, keeping its identity.
    clear_session: POST "/api/agent/sessions/{id}/clear" (PathId, (), ()) -> crate::jobs::Session =
        |api: Api, PathId(id), (), ()| async move { api.clear_session(&id) };

    /// Starts a job.
    run: POST "/api/agent/run" ((), (), BodyOf<RunRequest>) -> super::JobStarted =
        |api: Api, (), (), BodyOf(b)| async move { api.run(b) };
    /// One job, with its diff bundle once it awaits review (`brief`: without its edits and hunks).
    job: GET "/api/agent/jobs/{id}" (PathId, QueryOf<JobQuery>, ()) -> crate::jobs::Job =
        |api: Api, PathId(id), QueryOf(q): QueryOf<JobQuery>, ()| async move { api.job(&id, &q) };
    /// A job's events from a cursor, waiting up to `wait_ms` for one.
    events: GET "/api/agent/jobs/{id}/events" (PathId, QueryOf<EventsQuery>, ()) -> crate::jobs::EventPage =
        |api: Api, PathId(id), QueryOf(q): QueryOf<EventsQuery>, ()| async move {
            api.events(&id, q.cursor, q.wait_ms).await
        };
    /// Answers or skips the question a job waits on.
    clarify: POST "/api/agent/jobs/{id}/clarify" (PathId, (), BodyOf<Clarify>) -> crate::jobs::Job =
        |api: Api, PathId(id), (), BodyOf(b)| async move { api.clarify(&id, b) };
    /// Cancels a job.
    cancel: POST "/api/agent/jobs/{id}/cancel" (PathId, (), ()) -> crate::jobs::Job =
        |api: Api, PathId(id), (), ()| async move { api.cancel(&id) };
    /// Runs a finished job's instruction again on the current content.
    rerun: POST "/api/agent/jobs/{id}/rerun" (PathId, (), ()) -> super::JobStarted =
        |api: Api, PathId(id), (), ()| async move { api.rerun(&id) };
    /// Accepts, rejects or undoes the decision on one hunk.
    decide: POST "/api/agent/hunks/{id}/decide" (PathId, (), BodyOf<Decide>) -> super::Decided =
        |api: Api, PathId(id), (), BodyOf(b)| async move { api.decide(&id, b) };
    /// Accepts, rejects or undoes many hunks at once (a pattern, every unflagged hunk of a job, a list), as one step.
    decide_many: POST "/api/review/decide" ((), (), BodyOf<DecideMany>) -> crate::jobs::DecidedMany =
        |api: Api, (), (), BodyOf(b)| async move { api.decide_many(b) };
    /// Undoes the newest step of the decision history: exactly the hunks it moved, back where they were.
    undo: POST "/api/review/undo" ((), (), BodyOf<TakeStep>) -> crate::workspace::Stepped =
        |api: Api, (), (), BodyOf(b)| async move { api.undo(b) };
    /// Does again the step of the decision history undone last.
    redo: POST "/api/review/redo" ((), (), BodyOf<TakeStep>) -> crate::workspace::Stepped =
        |api: Api, (), (), BodyOf(b)| async move { api.redo(b) };
    /// What undo and redo would take next (after a reload too).
    history: GET "/api/review/history" ((), (), ()) -> crate::workspace::HistoryHeads =
        |api: Api, (), (), ()| async move { Ok(api.history()) };
    /// Applies a job's review: the listed hunks accepted, the job's others rejected.
    apply: POST "/api/agent/apply" ((), (), BodyOf<Apply>) -> super::Applied =
        |api: Api, (), (), BodyOf(b)| async move { api.apply(b) };

    /// A page of checkpoints, newest first.
    checkpoints: GET "/api/agent/checkpoints" ((), QueryOf<CheckpointsQuery>, ()) -> crate::checkpoints::CheckpointPage =
        |api: Api, (), QueryOf(q): QueryOf<CheckpointsQuery>, ()| async move { api.checkpoints(q) };
    /// One checkpoint.
    checkpoint: GET "/api/agent/checkpoints/{id}" (PathId, (), ()) -> crate::checkpoints::Checkpoint =
        |api: Api, PathId(id), (), ()| async move { api.checkpoint(&id) };
    /// The three-way view of one file of a checkpoint.
    diff3: GET "/api/agent/checkpoints/{id}/diff3" (PathId, QueryOf<Diff3Query>, ()) -> crate::workspace::ThreeWay =
        |api: Api, PathId(id), QueryOf(q): QueryOf<Diff3Query>, ()| async move { api.diff3(&id, &q.file_path) };
    /// Rolls back to a checkpoint.
    rollback: POST "/api/agent/checkpoints/{id}/rollback" (PathId, (), BodyOf<Rollback>) -> crate::checkpoints::RollbackReport =
        |api: Api, PathId(id), (), BodyOf(b)| async move { api.rollback(&id, b) };
    /// What a rollback would do, changing nothing: for its confirmation.
    rollbackPlan: POST "/api/agent/checkpoints/{id}/rollback/plan" (PathId, (), BodyOf<Rollback>) -> crate::checkpoints::RollbackPlan =
        |api: Api, PathId(id), (), BodyOf(b)| async move { api.rollback_plan(&id, b) };

    /// The settings, keys shown as hints.
    settings: GET "/api/settings" ((), (), ()) -> crate::settings::Settings =
        |api: Api, (), (), ()| async move { Ok(api.settings()) };
    /// Changes settings; a key goes to the keychain.
    update_settings: PUT "/api/settings" ((), (), BodyOf<SettingsUpdate>) -> crate::settings::SettingsSaved =
        |api: Api, (), (), BodyOf(b)| async move { api.update_settings(b) };
    /// The models an OpenAI-compatible server lists.
    models: GET "/api/settings/models" ((), QueryOf<ModelsQuery>, ()) -> super::ModelList =
        |api: Api, (), QueryOf(q): QueryOf<ModelsQuery>, ()| async move { Ok(api.models(q).await) };
    /// Whether a job can run now, and the ways to make one run.
    setup: GET "/api/setup" ((), (), ()) -> crate::setup::Setup =
        |api: Api, (), (), ()| async move { Ok(api.setup().await) };
    /// Uses one of the setup's offers (saved as settings).
    choose_setup: POST "/api/setup" ((), (), BodyOf<SetupChoice>) -> crate::settings::SettingsSaved =
        |api: Api, (), (), BodyOf(b)| async move { api.choose_setup(b).await };
    /// The agent definitions a session can start with.
    agents: GET "/api/agents" ((), (), ()) -> Vec<crate::config::AgentDefinition> =
        |api: Api, (), (), ()| async move { Ok(api.runtime().agents()) };
}
