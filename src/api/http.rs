//! The HTTP door (axum), on loopback only, closed to everyone but Redline's
//! own clients: every `/api` request carries the per-launch token (401
//! without it), and a request whose `Host` or `Origin` is not Redline's own
//! address is refused (403) — no DNS rebinding, no web page driving edits.
//! Bodies are size-limited; every error is `{"error": {"code", "message"}}`.

use std::net::SocketAddr;

use axum::{
    Json, Router,
    extract::{Request, State},
    http::{HeaderMap, StatusCode, header},
    middleware::{self, Next},
    response::{IntoResponse, Response},
    routing::any,
};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::set_header::SetResponseHeaderLayer;

use super::operations::BODY_LIMIT;
use super::{Api, ApiError};

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status =
            StatusCode::from_u16(self.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, Json(super::ErrorResponse { error: self })).into_response()
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
    let path = request.uri().path();
    let guarded = path.starts_with("/api/") || path == "/mcp" || path.starts_with("/mcp/");
    if guarded && !authorized(headers, &state.token) {
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

/// The API's routes, a panic in any of them answering 500 with the JSON
/// error every other failure has (the default drops the connection, which
/// the window can only report as "failed to fetch").
fn api_routes(api: Api) -> Router {
    super::operations::router(api).layer(CatchPanicLayer::custom(panicked))
}

fn panicked(_payload: Box<dyn std::any::Any + Send>) -> Response {
    // The panic hook has logged it, once a place.
    ApiError::new(
        "internal",
        "Redline hit a bug while answering this request. The log has the details.",
    )
    .into_response()
}

/// The policy the UI's pages are served with: scripts, styles and requests
/// from this server only (CodeMirror sets inline styles, hence the one
/// exception); no frames, no plugins, no other site.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
     object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/// The HTTP server's router: [`routes`], the MCP server at `/mcp`
/// (streamable HTTP, [`crate::mcp::http_service`]) and, when `ui` is a built
/// UI folder (`ui/dist`), its files at every other path, all behind the
/// guard — answering only at `addr`, `/api` and `/mcp` only to `token`.
pub fn router(api: Api, token: String, addr: SocketAddr, ui: Option<&std::path::Path>) -> Router {
    let port = addr.port();
    let door = Door {
        token,
        hosts: vec![format!("127.0.0.1:{port}"), format!("localhost:{port}")],
    };
    let mcp = crate::mcp::http_service(api.runtime.clone());
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
    app.nest_service("/mcp", mcp)
        .layer(middleware::from_fn_with_state(door, guard))
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
