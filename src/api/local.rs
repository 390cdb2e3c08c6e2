//! The desktop shell's door: a request through the very routes the HTTP
//! server serves ([`super::http::routes`]), in-process, with no socket and
//! no token — the shell is the only caller. The UI speaks one protocol
//! (method, path, JSON body → status, JSON body) over either door.

use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, header};
use serde::{Deserialize, Serialize};
use tower::ServiceExt;

use super::{Api, ApiError};

/// One call, as the UI makes it.
#[derive(Clone, Debug, Deserialize, Serialize, ts_rs::TS)]
pub struct LocalRequest {
    /// `GET`, `POST`, `PUT`, `PATCH` or `DELETE`.
    pub method: String,
    /// The route's path with its query string, e.g. `/api/files?prefix=`.
    pub path: String,
    /// The JSON body, if any.
    #[serde(default)]
    #[ts(optional)]
    pub body: Option<serde_json::Value>,
}

/// Its answer: the HTTP status and JSON body the HTTP door would have sent.
#[derive(Clone, Debug, Deserialize, Serialize, ts_rs::TS)]
pub struct LocalReply {
    /// The status code.
    pub status: u16,
    /// The JSON body (`{"error": …}` for errors).
    pub body: serde_json::Value,
}

/// The routes over one project's [`Api`], callable in-process.
#[derive(Clone)]
pub struct Local {
    routes: Router,
}

impl Local {
    /// A door onto `api`.
    pub fn new(api: Api) -> Local {
        Local {
            routes: super::http::routes(api),
        }
    }

    /// Answers `request` as the HTTP server would (without its guard).
    /// Only `/api/` paths are routed.
    pub async fn call(&self, request: LocalRequest) -> LocalReply {
        match self.answer(request).await {
            Ok(reply) => reply,
            Err(error) => LocalReply {
                status: error.status(),
                body: serde_json::json!({ "error": error }),
            },
        }
    }

    async fn answer(&self, request: LocalRequest) -> Result<LocalReply, ApiError> {
        if !request.path.starts_with("/api/") {
            return Err(ApiError::new("not_found", "only /api/ paths are routed"));
        }
        let method = Method::from_bytes(request.method.as_bytes())
            .map_err(|_| ApiError::new("invalid_request", "not an HTTP method"))?;
        let body = match &request.body {
            Some(value) => Body::from(serde_json::to_vec(value).expect("a JSON value serializes")),
            None => Body::empty(),
        };
        let http = Request::builder()
            .method(method)
            .uri(&request.path)
            .header(header::CONTENT_TYPE, "application/json")
            .body(body)
            .map_err(|e| ApiError::new("invalid_request", e.to_string()))?;
        let response = self
            .routes
            .clone()
            .oneshot(http)
            .await
            .unwrap_or_else(|never| match never {});
        let status = response.status().as_u16();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .map_err(|e| ApiError::new("internal", e.to_string()))?;
        let body = if bytes.is_empty() {
            serde_json::Value::Null
        } else {
            serde_json::from_slice(&bytes).map_err(|e| ApiError::new("internal", e.to_string()))?
        };
        Ok(LocalReply { status, body })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::Runtime;

    fn door() -> (tempfile::TempDir, Local) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "alpha\n").unwrap();
        let config = crate::config::Config {
            data_dir: Some(dir.path().join(".data")),
            ..Default::default()
        };
        let runtime = Runtime::open(dir.path(), config).unwrap();
        (dir, Local::new(Api::new(runtime)))
    }

    fn call(method: &str, path: &str, body: Option<serde_json::Value>) -> LocalRequest {
        LocalRequest {
            method: method.into(),
            path: path.into(),
            body,
        }
    }

    #[tokio::test]
    async fn answers_as_the_http_routes_do() {
        let (dir, door) = door();
        let file = door
            .call(call("GET", "/api/files/content?path=a.md", None))
            .await;
        assert_eq!(file.status, 200);
        assert_eq!(file.body["text"], "alpha\n");
        let project = door.call(call("GET", "/api/project", None)).await;
        assert_eq!(
            project.body["name"],
            dir.path().file_name().unwrap().to_str().unwrap()
        );

        let created = door
            .call(call(
                "POST",
                "/api/agent/sessions",
                Some(serde_json::json!({})),
            ))
            .await;
        assert_eq!(created.status, 200, "{:?}", created.body);
        let id = created.body["session_id"].as_str().unwrap().to_owned();
        let renamed = door
            .call(call(
                "PATCH",
                &format!("/api/agent/sessions/{id}"),
                Some(serde_json::json!({ "name": "renamed" })),
            ))
            .await;
        assert_eq!(renamed.body["name"], "renamed", "{:?}", renamed.body);
    }

    #[tokio::test]
    async fn a_batched_read_answers_each_file_and_fails_none_for_another() {
        let (dir, door) = door();
        std::fs::write(dir.path().join("é ü.md"), "zwölf\n").unwrap();
        let paths = serde_json::json!({ "paths": ["a.md", "gone.md", "../x", "é ü.md"] });
        let read = door
            .call(call("POST", "/api/files/contents", Some(paths)))
            .await;
        assert_eq!(read.status, 200, "{:?}", read.body);
        let files = read.body.as_array().unwrap();
        assert_eq!(files.len(), 4);
        assert_eq!(files[0]["file"]["text"], "alpha\n");
        assert!(files[0]["error"].is_null());
        for bad in &files[1..3] {
            assert!(bad["file"].is_null(), "{bad:?}");
            assert!(bad["error"].as_str().is_some_and(|e| !e.is_empty()));
        }
        assert_eq!(files[3]["path"], "é ü.md");
        assert_eq!(files[3]["file"]["text"], "zwölf\n");

        let many = vec!["a.md"; crate::api::MAX_FILES_READ + 1];
        let refused = door
            .call(call(
                "POST",
                "/api/files/contents",
                Some(serde_json::json!({ "paths": many })),
            ))
            .await;
        assert_eq!(refused.status, 400);
        assert_eq!(refused.body["error"]["code"], "invalid_request");
    }

    #[tokio::test]
    async fn errors_keep_their_status_and_shape() {
        let (_dir, door) = door();
        let escaped = door
            .call(call("GET", "/api/files/content?path=../x", None))
            .await;
        assert_eq!(escaped.status, 400);
        assert!(escaped.body["error"]["code"].is_string());
        let missing = door.call(call("GET", "/api/nothing", None)).await;
        assert_eq!(missing.status, 404);
        let outside = door.call(call("GET", "/etc/passwd", None)).await;
        assert_eq!(outside.status, 404);
        let bad = door.call(call("NOT A METHOD", "/api/files", None)).await;
        assert_eq!(bad.status, 400);
        let invalid = door
            .call(call(
                "POST",
                "/api/agent/run",
                Some(serde_json::json!({ "nonsense": 1 })),
            ))
            .await;
        assert_eq!(invalid.status, 400);
    }
}
