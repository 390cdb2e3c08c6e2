//! The HTTP door (axum), on loopback only, closed to everyone but Redline's
//! own clients: every `/api` request carries the per-launch token (401
//! without it), and a request whose `Host` or `Origin` is not Redline's own
//! address is refused (403) — no DNS rebinding, no web page driving edits.
//! Bodies are size-limited; every error is `{"error": {"code", "message"}}`.

use std::net::SocketAddr;

use axum::{
    Json, Router,
    extract::{
        FromRequest, FromRequestParts, Path, Query, Request, State, rejection::JsonRejection,
    },
    http::{HeaderMap, StatusCode, header, request::Parts},
    middleware::{self, Next},
    response::{IntoResponse, Response},
    routing::{get, post, put},
};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::{
    Api, ApiError, Apply, Clarify, CreateSession, Decide, EditBuffer, FileRequest, RenameSession,
    Resolve, Rollback,
};
use crate::jobs::RunRequest;

/// Largest request body: a whole text file (the text-file limit) and room.
const BODY_LIMIT: usize = 17 << 20;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status =
            StatusCode::from_u16(self.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, Json(super::ErrorResponse { error: self })).into_response()
    }
}

/// A JSON body whose rejections are API errors.
struct Body<T>(T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match Json::<T>::from_request(req, state).await {
            Ok(Json(v)) => Ok(Body(v)),
            Err(e) => Err(match &e {
                JsonRejection::BytesRejection(_) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                    ApiError::new(
                        "payload_too_large",
                        format!("the body is over {BODY_LIMIT} bytes"),
                    )
                }
                _ => ApiError::new("invalid_request", e.body_text()),
            }),
        }
    }
}

/// Query parameters whose rejections are API errors.
struct Params<T>(T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for Params<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|Query(v)| Params(v))
            .map_err(|e| ApiError::new("invalid_request", e.body_text()))
    }
}

#[derive(Clone)]
struct AppState {
    api: Api,
    token: String,
    hosts: Vec<String>,
}

/// Equal contents, in time independent of where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !state.hosts.iter().any(|h| h == host) {
        return ApiError::new(
            "forbidden",
            format!("host `{host}` is not this Redline server"),
        )
        .into_response();
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        if !state.hosts.iter().any(|h| origin == format!("http://{h}")) {
            return ApiError::new(
                "forbidden",
                format!("origin `{origin}` may not use this server"),
            )
            .into_response();
        }
    }
    if request.uri().path().starts_with("/api/") && !authorized(headers, &state.token) {
        return ApiError::new(
            "unauthorized",
            "a valid token is required (Authorization: Bearer <token>)",
        )
        .into_response();
    }
    // An announced body over the limit is refused before a byte of it is read.
    let announced = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > BODY_LIMIT as u64) {
        return ApiError::new(
            "payload_too_large",
            format!("the body is over {BODY_LIMIT} bytes"),
        )
        .into_response();
    }
    next.run(request).await
}

fn authorized(headers: &HeaderMap, token: &str) -> bool {
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .or_else(|| headers.get("x-redline-token").and_then(|v| v.to_str().ok()));
    given.is_some_and(|g| same(g.trim(), token))
}

/// The router for `api`, answering only at `addr` and to `token`.
pub fn router(api: Api, token: String, addr: SocketAddr) -> Router {
    let port = addr.port();
    let state = AppState {
        api,
        token,
        hosts: vec![format!("127.0.0.1:{port}"), format!("localhost:{port}")],
    };
    Router::new()
        .route("/api/agent/sessions", post(create_session).get(sessions))
        .route(
            "/api/agent/sessions/{id}",
            get(session).patch(rename_session).delete(delete_session),
        )
        .route("/api/agent/sessions/{id}/clear", post(clear_session))
        .route("/api/agent/run", post(run))
        .route("/api/agent/jobs/{id}", get(job))
        .route("/api/agent/jobs/{id}/events", get(events))
        .route("/api/agent/jobs/{id}/clarify", post(clarify))
        .route("/api/agent/jobs/{id}/cancel", post(cancel))
        .route("/api/agent/jobs/{id}/rerun", post(rerun))
        .route("/api/agent/hunks/{id}/decide", post(decide))
        .route("/api/agent/apply", post(apply))
        .route("/api/agent/checkpoints", get(checkpoints))
        .route("/api/agent/checkpoints/{id}", get(checkpoint))
        .route("/api/agent/checkpoints/{id}/diff3", get(diff3))
        .route("/api/agent/checkpoints/{id}/rollback", post(rollback))
        .route("/api/files", get(tree))
        .route("/api/files/content", get(file))
        .route("/api/files/buffer", put(edit))
        .route("/api/files/save", post(save))
        .route("/api/files/accept_all", post(accept_all))
        .route("/api/files/resolve", post(resolve))
        .route("/api/events", get(project_events))
        .route("/api/settings", get(settings).put(update_settings))
        .fallback(|| async { ApiError::new("not_found", "no such endpoint") })
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .layer(axum::extract::DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(state)
}

/// A running server. Dropping it stops the server.
pub struct Served {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The token every request must carry.
    pub token: String,
    _server: crate::loopback::Loopback,
}

impl Served {
    /// The URL to open, token included.
    pub fn url(&self) -> String {
        format!("http://{}/?token={}", self.addr, self.token)
    }
}

/// Serves `api` on loopback `port` (0 picks a free one) with a fresh random
/// token. Needs a tokio runtime.
pub async fn serve(api: Api, port: u16) -> std::io::Result<Served> {
    let token: String = (0..32)
        .map(|_| format!("{:02x}", rand::random::<u8>()))
        .collect();
    let server = crate::loopback::spawn(port, |addr| router(api, token.clone(), addr)).await?;
    Ok(Served {
        addr: server.addr,
        token,
        _server: server,
    })
}

type Reply<T> = Result<Json<T>, ApiError>;

async fn create_session(
    State(s): State<AppState>,
    Body(req): Body<CreateSession>,
) -> Reply<super::SessionCreated> {
    s.api.create_session(req).map(Json)
}

async fn sessions(State(s): State<AppState>) -> Reply<Vec<crate::jobs::Session>> {
    s.api.sessions().map(Json)
}

async fn session(State(s): State<AppState>, Path(id): Path<String>) -> Reply<crate::jobs::Session> {
    s.api.session(&id).map(Json)
}

async fn rename_session(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Body(req): Body<RenameSession>,
) -> Reply<crate::jobs::Session> {
    s.api.rename_session(&id, req).map(Json)
}

async fn clear_session(
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> Reply<crate::jobs::Session> {
    s.api.clear_session(&id).map(Json)
}

async fn delete_session(
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> Reply<super::SessionDeleted> {
    s.api.delete_session(&id).map(Json)
}

async fn run(State(s): State<AppState>, Body(req): Body<RunRequest>) -> Reply<super::JobStarted> {
    s.api.run(req).map(Json)
}

async fn job(State(s): State<AppState>, Path(id): Path<String>) -> Reply<crate::jobs::Job> {
    s.api.job(&id).map(Json)
}

#[derive(Deserialize)]
struct EventsQuery {
    #[serde(default)]
    cursor: u64,
    #[serde(default)]
    wait_ms: u64,
}

async fn events(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Params(q): Params<EventsQuery>,
) -> Reply<crate::jobs::EventPage> {
    s.api.events(&id, q.cursor, q.wait_ms).await.map(Json)
}

async fn clarify(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Body(req): Body<Clarify>,
) -> Reply<crate::jobs::Job> {
    s.api.clarify(&id, req).map(Json)
}

async fn cancel(State(s): State<AppState>, Path(id): Path<String>) -> Reply<crate::jobs::Job> {
    s.api.cancel(&id).map(Json)
}

async fn rerun(State(s): State<AppState>, Path(id): Path<String>) -> Reply<super::JobStarted> {
    s.api.rerun(&id).map(Json)
}

async fn decide(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Body(req): Body<Decide>,
) -> Reply<super::Decided> {
    s.api.decide(&id, req).map(Json)
}

#[derive(Deserialize)]
struct TreeQuery {
    #[serde(default)]
    prefix: String,
}

async fn tree(
    State(s): State<AppState>,
    Params(q): Params<TreeQuery>,
) -> Reply<Vec<crate::workspace::TreeEntry>> {
    s.api.tree(&q.prefix).map(Json)
}

#[derive(Deserialize)]
struct PathQuery {
    path: String,
}

async fn file(
    State(s): State<AppState>,
    Params(q): Params<PathQuery>,
) -> Reply<crate::workspace::FileContent> {
    s.api.file(&q.path).map(Json)
}

async fn edit(
    State(s): State<AppState>,
    Body(req): Body<EditBuffer>,
) -> Reply<crate::workspace::FileContent> {
    s.api.edit(req).map(Json)
}

async fn save(
    State(s): State<AppState>,
    Body(req): Body<FileRequest>,
) -> Reply<crate::workspace::FileContent> {
    s.api.save(req).map(Json)
}

async fn accept_all(
    State(s): State<AppState>,
    Body(req): Body<FileRequest>,
) -> Reply<crate::workspace::FileContent> {
    s.api.accept_all(req).map(Json)
}

async fn resolve(
    State(s): State<AppState>,
    Body(req): Body<Resolve>,
) -> Reply<crate::workspace::Resolved> {
    s.api.resolve(req).map(Json)
}

async fn project_events(
    State(s): State<AppState>,
    Params(q): Params<EventsQuery>,
) -> Json<crate::jobs::FeedPage> {
    Json(s.api.project_events(q.cursor, q.wait_ms).await)
}

async fn settings(State(s): State<AppState>) -> Json<crate::settings::Settings> {
    Json(s.api.settings())
}

async fn update_settings(
    State(s): State<AppState>,
    Body(req): Body<crate::settings::SettingsUpdate>,
) -> Reply<crate::settings::SettingsSaved> {
    s.api.update_settings(req).map(Json)
}

async fn apply(State(s): State<AppState>, Body(req): Body<Apply>) -> Reply<super::Applied> {
    s.api.apply(req).map(Json)
}

async fn checkpoints(State(s): State<AppState>) -> Reply<Vec<crate::checkpoints::Checkpoint>> {
    s.api.checkpoints().map(Json)
}

async fn checkpoint(
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> Reply<crate::checkpoints::Checkpoint> {
    s.api.checkpoint(&id).map(Json)
}

#[derive(Deserialize)]
struct Diff3Query {
    file_path: String,
}

async fn diff3(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Params(q): Params<Diff3Query>,
) -> Reply<crate::workspace::ThreeWay> {
    s.api.diff3(&id, &q.file_path).map(Json)
}

async fn rollback(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Body(req): Body<Rollback>,
) -> Reply<crate::checkpoints::RollbackReport> {
    s.api.rollback(&id, req).map(Json)
}
