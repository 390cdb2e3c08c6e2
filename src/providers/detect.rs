//! Finding model servers: whether an endpoint answers at all, which models
//! an OpenAI-compatible server lists (`GET {base}/models`), and the local
//! servers running on this machine's usual ports (Ollama, LM Studio,
//! llama.cpp's server, vLLM).

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// How long a probe waits for an answer. Loopback servers answer in
/// milliseconds; a closed port is refused at once.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// A kind of local model server, told apart by the port it listens on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ServerKind {
    /// Ollama (port 11434).
    Ollama,
    /// LM Studio's server (port 1234).
    LmStudio,
    /// llama.cpp's `llama-server` (port 8080).
    LlamaCpp,
    /// vLLM (port 8000).
    Vllm,
    /// Anything else answering `GET /v1/models` where it was asked to look.
    Other,
}

impl ServerKind {
    /// The kinds with a default port, in the order they are shown.
    pub const KNOWN: [ServerKind; 4] = [
        ServerKind::Ollama,
        ServerKind::LmStudio,
        ServerKind::LlamaCpp,
        ServerKind::Vllm,
    ];

    /// Its name as people know it.
    pub fn label(self) -> &'static str {
        match self {
            ServerKind::Ollama => "Ollama",
            ServerKind::LmStudio => "LM Studio",
            ServerKind::LlamaCpp => "llama.cpp",
            ServerKind::Vllm => "vLLM",
            ServerKind::Other => "OpenAI-compatible server",
        }
    }

    /// The port it listens on unless told otherwise.
    pub fn default_port(self) -> Option<u16> {
        match self {
            ServerKind::Ollama => Some(11434),
            ServerKind::LmStudio => Some(1234),
            ServerKind::LlamaCpp => Some(8080),
            ServerKind::Vllm => Some(8000),
            ServerKind::Other => None,
        }
    }

    /// The kind whose name (`ollama`, `lm_studio`, …) is `name`.
    fn named(name: &str) -> ServerKind {
        serde_json::from_value(serde_json::Value::String(name.trim().into()))
            .unwrap_or(ServerKind::Other)
    }
}

/// A local server that answered, with the models it offers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct LocalServer {
    /// What it is.
    pub kind: ServerKind,
    /// Its name as people know it.
    pub label: String,
    /// Its OpenAI-compatible base URL (`…/v1`), for the local provider.
    pub base_url: String,
    /// The models it lists, by id (may be empty: an Ollama with none pulled).
    pub models: Vec<String>,
}

/// Where to look for local servers: each known kind on its default port
/// on 127.0.0.1, or, when `REDLINE_LOCAL_SERVERS` is set, the comma-separated
/// `kind=base_url` (or bare `base_url`) entries it lists instead (empty: look
/// nowhere).
pub fn candidates() -> Vec<(ServerKind, String)> {
    candidates_from(std::env::var("REDLINE_LOCAL_SERVERS").ok().as_deref())
}

fn candidates_from(list: Option<&str>) -> Vec<(ServerKind, String)> {
    match list {
        Some(list) => list
            .split(',')
            .filter(|e| !e.trim().is_empty())
            .map(|entry| match entry.split_once('=') {
                Some((kind, url)) => (ServerKind::named(kind), url.trim().to_owned()),
                None => (ServerKind::Other, entry.trim().to_owned()),
            })
            .collect(),
        None => ServerKind::KNOWN
            .iter()
            .map(|&kind| {
                let port = kind.default_port().expect("known kinds have a port");
                (kind, format!("http://127.0.0.1:{port}/v1"))
            })
            .collect(),
    }
}

/// Probes every candidate at once; the ones that answered, in order.
pub async fn local_servers(candidates: &[(ServerKind, String)]) -> Vec<LocalServer> {
    let probes = candidates.iter().map(|(kind, url)| async move {
        let models = models(url).await.ok()?;
        Some(LocalServer {
            kind: *kind,
            label: kind.label().to_owned(),
            base_url: url.trim_end_matches('/').to_owned(),
            models,
        })
    });
    futures_util::future::join_all(probes)
        .await
        .into_iter()
        .flatten()
        .collect()
}

/// Why a probe found no usable server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProbeError {
    /// Nothing answered (refused, unreachable, timed out).
    #[error("nothing answers at {url}: {message}")]
    Unreachable {
        /// Where it looked.
        url: String,
        /// What the connection said.
        message: String,
    },
    /// Something answered, but not with a model list.
    #[error("{url} answered, but not with a model list ({message})")]
    NotAModelList {
        /// Where it looked.
        url: String,
        /// Status or parse error.
        message: String,
    },
}

/// Whether anything answers HTTP at `base_url` (any status counts: a
/// server that answers 404 to `/models` still serves chat), within
/// [`PROBE_TIMEOUT`].
pub async fn answers(base_url: &str) -> Result<(), ProbeError> {
    get_models(base_url).await.map(drop)
}

/// The model ids an OpenAI-compatible server at `base_url` lists
/// (`GET {base_url}/models`, `{"data": [{"id": …}, …]}`: the shape Ollama,
/// LM Studio, llama.cpp's server and vLLM all answer with).
pub async fn models(base_url: &str) -> Result<Vec<String>, ProbeError> {
    #[derive(Deserialize)]
    struct List {
        data: Vec<Entry>,
    }
    #[derive(Deserialize)]
    struct Entry {
        id: String,
    }
    let url = format!("{}/models", base_url.trim_end_matches('/'));
    let response = get_models(base_url).await?;
    let not_a_list = |message: String| ProbeError::NotAModelList {
        url: url.clone(),
        message,
    };
    if !response.status().is_success() {
        return Err(not_a_list(format!("HTTP {}", response.status())));
    }
    let body = response
        .bytes()
        .await
        .map_err(|e| not_a_list(e.to_string()))?;
    let list: List = serde_json::from_slice(&body).map_err(|e| not_a_list(e.to_string()))?;
    Ok(list.data.into_iter().map(|m| m.id).collect())
}

async fn get_models(base_url: &str) -> Result<reqwest::Response, ProbeError> {
    let url = format!("{}/models", base_url.trim_end_matches('/'));
    let unreachable = |message: String| ProbeError::Unreachable {
        url: url.clone(),
        message,
    };
    let client = super::http::client_builder()
        .timeout(PROBE_TIMEOUT)
        .build()
        .map_err(|e| unreachable(e.to_string()))?;
    client.get(&url).send().await.map_err(|e| {
        let cause = std::error::Error::source(&e)
            .and_then(std::error::Error::source)
            .map(|s| s.to_string())
            .unwrap_or_else(|| e.to_string());
        unreachable(cause)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::{Json, Router, routing::get};
    use serde_json::{Value, json};

    /// What each server's `GET /v1/models` answers, as recorded from it.
    fn shapes() -> Vec<(ServerKind, Value, Vec<&'static str>)> {
        vec![
            (
                ServerKind::Ollama,
                json!({ "object": "list", "data": [
                    { "id": "llama3.2:latest", "object": "model", "created": 1731000000, "owned_by": "library" },
                    { "id": "qwen2.5-coder:7b", "object": "model", "created": 1731000001, "owned_by": "library" }
                ] }),
                vec!["llama3.2:latest", "qwen2.5-coder:7b"],
            ),
            (
                ServerKind::LmStudio,
                json!({ "data": [
                    { "id": "qwen2.5-7b-instruct", "object": "model", "owned_by": "organization_owner" },
                    { "id": "text-embedding-nomic-embed-text-v1.5", "object": "model", "owned_by": "organization_owner" }
                ], "object": "list" }),
                vec![
                    "qwen2.5-7b-instruct",
                    "text-embedding-nomic-embed-text-v1.5",
                ],
            ),
            (
                ServerKind::LlamaCpp,
                json!({
                    "models": [{ "name": "SmolLM2-135M-Instruct-Q8_0.gguf", "model": "SmolLM2-135M-Instruct-Q8_0.gguf", "type": "model", "capabilities": ["completion"] }],
                    "object": "list",
                    "data": [{ "id": "SmolLM2-135M-Instruct-Q8_0.gguf", "object": "model", "created": 1763900000, "owned_by": "llamacpp",
                               "meta": { "vocab_type": 2, "n_vocab": 49152, "n_ctx_train": 8192, "n_embd": 576, "n_params": 134515008, "size": 144806400 } }]
                }),
                vec!["SmolLM2-135M-Instruct-Q8_0.gguf"],
            ),
            (
                ServerKind::Vllm,
                json!({ "object": "list", "data": [
                    { "id": "Qwen/Qwen2.5-7B-Instruct", "object": "model", "created": 1763900000, "owned_by": "vllm",
                      "root": "Qwen/Qwen2.5-7B-Instruct", "parent": null, "max_model_len": 32768,
                      "permission": [{ "id": "modelperm-1", "object": "model_permission", "allow_sampling": true }] }
                ] }),
                vec!["Qwen/Qwen2.5-7B-Instruct"],
            ),
        ]
    }

    #[tokio::test]
    async fn each_server_kind_is_found_with_its_models() {
        let mut servers = Vec::new();
        let mut candidates = Vec::new();
        for (kind, body, _) in shapes() {
            let server = crate::loopback::spawn(0, move |_| {
                Router::new().route("/v1/models", get(move || async move { Json(body) }))
            })
            .await
            .unwrap();
            candidates.push((kind, format!("http://{}/v1", server.addr)));
            servers.push(server);
        }
        // A server that is not a model server, and a port with nobody on it.
        let web = crate::loopback::spawn(0, |_| Router::new().route("/", get(|| async { "hi" })))
            .await
            .unwrap();
        candidates.push((ServerKind::Other, format!("http://{}/v1", web.addr)));
        let gone = crate::loopback::spawn(0, |_| Router::new()).await.unwrap();
        let gone_url = format!("http://{}/v1", gone.addr);
        drop(gone);
        tokio::time::sleep(Duration::from_millis(50)).await;
        candidates.push((ServerKind::Vllm, gone_url.clone()));

        let found = local_servers(&candidates).await;
        let expected: Vec<_> = shapes().into_iter().map(|(k, _, m)| (k, m)).collect();
        assert_eq!(found.len(), expected.len(), "{found:?}");
        for (server, (kind, models)) in found.iter().zip(expected) {
            assert_eq!(server.kind, kind);
            assert_eq!(server.models, models);
            assert_eq!(server.label, kind.label());
        }
        // The web server answers (a chat endpoint may live there), the closed port does not.
        assert!(answers(&format!("http://{}/v1", web.addr)).await.is_ok());
        let err = answers(&gone_url).await.unwrap_err();
        assert!(matches!(err, ProbeError::Unreachable { .. }), "{err}");
        assert!(err.to_string().contains(&gone_url), "{err}");
    }

    #[test]
    fn the_environment_replaces_the_default_ports() {
        let defaults = candidates_from(None);
        let urls: Vec<_> = defaults.iter().map(|(_, u)| u.as_str()).collect();
        assert_eq!(
            urls,
            [
                "http://127.0.0.1:11434/v1",
                "http://127.0.0.1:1234/v1",
                "http://127.0.0.1:8080/v1",
                "http://127.0.0.1:8000/v1"
            ]
        );
        assert_eq!(
            candidates_from(Some(
                "lm_studio=http://h:1/v1, http://h:2/v1,mystery=http://h:3/v1"
            )),
            [
                (ServerKind::LmStudio, "http://h:1/v1".to_owned()),
                (ServerKind::Other, "http://h:2/v1".to_owned()),
                (ServerKind::Other, "http://h:3/v1".to_owned()),
            ]
        );
        assert!(candidates_from(Some("")).is_empty());
    }
}
