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
    routing::{any, get, post, put},
};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use tower_http::set_header::SetResponseHeaderLayer;

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

/// What the guard admits: the token and the addresses that are this server.
#[derive(Clone)]
struct Door {
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

async fn guard(State(state): State<Door>, request: Request, next: Next) -> Response {
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

/// Every API route over `api`, unguarded: the HTTP server puts its guard in
/// front ([`router`]); the desktop shell calls it in-process ([`super::local`]).
/// Unknown paths answer `not_found`.
pub fn routes(api: Api) -> Router {
    api_routes(api).fallback(not_found)
}

async fn not_found() -> ApiError {
    ApiError::new("not_found", "no such endpoint")
}

fn api_routes(api: Api) -> Router {
    Router::new()
        .route("/api/project", get(project))
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
        .route("/api/settings/local_models", get(local_models))
        .layer(axum::extract::DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(api)
}

/// The policy the UI's pages are served with: scripts, styles and requests
/// from this server only (CodeMirror sets inline styles, hence the one
/// exception); no frames, no plugins, no other site.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
     object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/// The HTTP server's router: [`routes`] and, when `ui` is a built UI folder
/// (`ui/dist`), its files at every other path, all behind the guard —
/// answering only at `addr`, `/api` only to `token`.
pub fn router(api: Api, token: String, addr: SocketAddr, ui: Option<&std::path::Path>) -> Router {
    let port = addr.port();
    let door = Door {
        token,
        hosts: vec![format!("127.0.0.1:{port}"), format!("localhost:{port}")],
    };
    let app = match ui {
        None => routes(api),
        Some(ui) => {
            let pages = tower_http::services::ServeDir::new(ui)
                .fallback(tower_http::services::ServeFile::new(ui.join("index.html")));
            api_routes(api)
                .route("/api/{*rest}", any(not_found))
                .fallback_service(pages)
                .layer(SetResponseHeaderLayer::if_not_present(
                    header::CONTENT_SECURITY_POLICY,
                    header::HeaderValue::from_static(CONTENT_SECURITY_POLICY),
                ))
        }
    };
    app.layer(middleware::from_fn_with_state(door, guard))
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
/// token, and the built UI in `ui` if given. Needs a tokio runtime.
pub async fn serve(api: Api, port: u16, ui: Option<std::path::PathBuf>) -> std::io::Result<Served> {
    let token: String = (0..32)
        .map(|_| format!("{:02x}", rand::random::<u8>()))
        .collect();
    let server =
        crate::loopback::spawn(port, |addr| router(api, token.clone(), addr, ui.as_deref()))
            .await?;
    Ok(Served {
        addr: server.addr,
        token,
        _server: server,
    })
}

type Reply<T> = Result<Json<T>, ApiError>;

async fn create_session(
    State(api): State<Api>,
    Body(req): Body<CreateSession>,
) -> Reply<super::SessionCreated> {
    api.create_session(req).map(Json)
}

async fn sessions(State(api): State<Api>) -> Reply<Vec<crate::jobs::Session>> {
    api.sessions().map(Json)
}

async fn session(State(api): State<Api>, Path(id): Path<String>) -> Reply<crate::jobs::Session> {
    api.session(&id).map(Json)
}

async fn rename_session(
    State(api): State<Api>,
    Path(id): Path<String>,
    Body(req): Body<RenameSession>,
) -> Reply<crate::jobs::Session> {
    api.rename_session(&id, req).map(Json)
}

async fn clear_session(
    State(api): State<Api>,
    Path(id): Path<String>,
) -> Reply<crate::jobs::Session> {
    api.clear_session(&id).map(Json)
}

async fn delete_session(
    State(api): State<Api>,
    Path(id): Path<String>,
) -> Reply<super::SessionDeleted> {
    api.delete_session(&id).map(Json)
}

async fn run(State(api): State<Api>, Body(req): Body<RunRequest>) -> Reply<super::JobStarted> {
    api.run(req).map(Json)
}

async fn job(State(api): State<Api>, Path(id): Path<String>) -> Reply<crate::jobs::Job> {
    api.job(&id).map(Json)
}

#[derive(Deserialize)]
struct EventsQuery {
    #[serde(default)]
    cursor: u64,
    #[serde(default)]
    wait_ms: u64,
}

async fn events(
    State(api): State<Api>,
    Path(id): Path<String>,
    Params(q): Params<EventsQuery>,
) -> Reply<crate::jobs::EventPage> {
    api.events(&id, q.cursor, q.wait_ms).await.map(Json)
}

async fn clarify(
    State(api): State<Api>,
    Path(id): Path<String>,
    Body(req): Body<Clarify>,
) -> Reply<crate::jobs::Job> {
    api.clarify(&id, req).map(Json)
}

async fn cancel(State(api): State<Api>, Path(id): Path<String>) -> Reply<crate::jobs::Job> {
    api.cancel(&id).map(Json)
}

async fn rerun(State(api): State<Api>, Path(id): Path<String>) -> Reply<super::JobStarted> {
    api.rerun(&id).map(Json)
}

async fn decide(
    State(api): State<Api>,
    Path(id): Path<String>,
    Body(req): Body<Decide>,
) -> Reply<super::Decided> {
    api.decide(&id, req).map(Json)
}

#[derive(Deserialize)]
struct TreeQuery {
    #[serde(default)]
    prefix: String,
}

async fn tree(
    State(api): State<Api>,
    Params(q): Params<TreeQuery>,
) -> Reply<Vec<crate::workspace::TreeEntry>> {
    api.tree(&q.prefix).map(Json)
}

#[derive(Deserialize)]
struct PathQuery {
    path: String,
}

async fn file(
    State(api): State<Api>,
    Params(q): Params<PathQuery>,
) -> Reply<crate::workspace::FileContent> {
    api.file(&q.path).map(Json)
}

async fn edit(
    State(api): State<Api>,
    Body(req): Body<EditBuffer>,
) -> Reply<crate::workspace::FileContent> {
    api.edit(req).map(Json)
}

async fn save(
    State(api): State<Api>,
    Body(req): Body<FileRequest>,
) -> Reply<crate::workspace::FileContent> {
    api.save(req).map(Json)
}

async fn accept_all(
    State(api): State<Api>,
    Body(req): Body<FileRequest>,
) -> Reply<crate::workspace::FileContent> {
    api.accept_all(req).map(Json)
}

async fn resolve(
    State(api): State<Api>,
    Body(req): Body<Resolve>,
) -> Reply<crate::workspace::Resolved> {
    api.resolve(req).map(Json)
}

async fn project_events(
    State(api): State<Api>,
    Params(q): Params<EventsQuery>,
) -> Json<crate::jobs::FeedPage> {
    Json(api.project_events(q.cursor, q.wait_ms).await)
}

async fn settings(State(api): State<Api>) -> Json<crate::settings::Settings> {
    Json(api.settings())
}

async fn project(State(api): State<Api>) -> Json<super::ProjectInfo> {
    Json(api.project())
}

async fn local_models(State(api): State<Api>) -> Json<crate::settings::LocalModels> {
    Json(api.local_models().await)
}

async fn update_settings(
    State(api): State<Api>,
    Body(req): Body<crate::settings::SettingsUpdate>,
) -> Reply<crate::settings::SettingsSaved> {
    api.update_settings(req).map(Json)
}

async fn apply(State(api): State<Api>, Body(req): Body<Apply>) -> Reply<super::Applied> {
    api.apply(req).map(Json)
}

async fn checkpoints(State(api): State<Api>) -> Reply<Vec<crate::checkpoints::Checkpoint>> {
    api.checkpoints().map(Json)
}

async fn checkpoint(
    State(api): State<Api>,
    Path(id): Path<String>,
) -> Reply<crate::checkpoints::Checkpoint> {
    api.checkpoint(&id).map(Json)
}

#[derive(Deserialize)]
struct Diff3Query {
    file_path: String,
}

async fn diff3(
    State(api): State<Api>,
    Path(id): Path<String>,
    Params(q): Params<Diff3Query>,
) -> Reply<crate::workspace::ThreeWay> {
    api.diff3(&id, &q.file_path).map(Json)
}

async fn rollback(
    State(api): State<Api>,
    Path(id): Path<String>,
    Body(req): Body<Rollback>,
) -> Reply<crate::checkpoints::RollbackReport> {
    api.rollback(&id, req).map(Json)
}
