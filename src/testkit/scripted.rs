//! A scripted model served over real HTTP, for deterministic tests, the
//! benchmarks and the UI's end-to-end runs.
//!
//! It is the only stand-in for a model Redline allows: the model's choices are
//! a script, but everything around them is real — an HTTP server on loopback
//! answering `POST /v1/chat/completions`, `POST /v1/messages`,
//! `POST /v1/responses` and `POST /v1beta/models/{model}:streamGenerateContent`
//! in the OpenAI Chat, Anthropic, OpenAI Responses and Gemini streaming wire
//! formats (the last two for the Codex and Gemini CLIs), fragmenting tool
//! arguments as the real services do. It checks each request the way the
//! real services do (every tool call answered, roles in order) and refuses a
//! bad one with a 400, so a conversation the real APIs would reject fails
//! here too. Every request is recorded for tests to inspect.

mod frames;
mod gemini;
mod responses;

use std::sync::{Arc, Mutex};

use axum::{
    Json, Router,
    body::{Body, Bytes},
    extract::State,
    http::{HeaderMap, StatusCode, header},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::providers::Protocol;
use frames::{anthropic_frames, openai_frames, sse, stream_response};
use gemini::{check_gemini, gemini_error, serve_gemini};
use responses::{check_responses, serve_responses};

/// One answer of the script, in the order requests arrive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Turn {
    /// A streamed reply.
    Reply {
        /// Text, streamed piece by piece.
        #[serde(default)]
        text: Vec<String>,
        /// Tool calls, their arguments sent in small fragments.
        #[serde(default)]
        calls: Vec<ScriptedCall>,
        /// Why it stops. Default: `tool_use` with calls, else `end_turn`.
        #[serde(default)]
        stop: Option<ScriptedStop>,
        /// Input and output tokens to report. Default: a quarter of the
        /// request's and the reply's bytes.
        #[serde(default)]
        usage: Option<(u64, u64)>,
        /// Pause before each streamed chunk, in milliseconds. Default 0.
        #[serde(default)]
        chunk_delay_ms: u64,
    },
    /// An HTTP error response.
    Error {
        /// Its status.
        status: u16,
        /// Extra headers (`retry-after`, `x-should-retry`, …).
        #[serde(default)]
        headers: Vec<(String, String)>,
        /// Its body.
        body: String,
    },
    /// A 200 stream that breaks off with an error event.
    StreamError {
        /// The error's message.
        message: String,
    },
    /// A 200 response with exactly these bytes (a recorded stream, say).
    Raw {
        /// Its content type.
        content_type: String,
        /// Its body.
        body: String,
    },
    /// `turn`, for the first request whose body contains `contains`,
    /// whenever it comes (see [`ScriptedModel::push_when`]): the answer for
    /// one note of a run over many, whose calls come in any order.
    When {
        /// What the request must contain.
        contains: String,
        /// The answer.
        turn: Box<Turn>,
    },
}

/// A tool call in a scripted reply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScriptedCall {
    /// The call's id. Default `call_<turn>_<n>`.
    #[serde(default)]
    pub id: Option<String>,
    /// The tool's name (any name: scripts test wrong ones too).
    pub name: String,
    /// The argument text, sent verbatim (scripts test malformed JSON too).
    pub arguments: String,
}

/// A scripted stop reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScriptedStop {
    /// The turn is over.
    EndTurn,
    /// Tools are wanted.
    ToolUse,
    /// The length limit cut it: the last call is left unfinished.
    MaxTokens,
}

impl Turn {
    /// A reply that makes one tool call.
    pub fn call(name: &str, arguments: Value) -> Turn {
        Turn::calls(&[(name, arguments)])
    }

    /// A reply that makes several tool calls in one step.
    pub fn calls(calls: &[(&str, Value)]) -> Turn {
        Turn::Reply {
            text: Vec::new(),
            calls: calls
                .iter()
                .map(|(name, args)| ScriptedCall {
                    id: None,
                    name: (*name).to_owned(),
                    arguments: args.to_string(),
                })
                .collect(),
            stop: None,
            usage: None,
            chunk_delay_ms: 0,
        }
    }

    /// A reply of plain text, streamed in `pieces`.
    pub fn text(pieces: &[&str]) -> Turn {
        Turn::Reply {
            text: pieces.iter().map(|p| (*p).to_owned()).collect(),
            calls: Vec::new(),
            stop: None,
            usage: None,
            chunk_delay_ms: 0,
        }
    }
}

/// The wire format of a route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI Chat Completions (`/v1/chat/completions`).
    Chat,
    /// Anthropic Messages (`/v1/messages`).
    Messages,
    /// OpenAI Responses (`/v1/responses`), as the Codex CLI speaks it. A
    /// call to a tool the request declares `custom` (Codex's
    /// `apply_patch`) is sent as a `custom_tool_call` whose input is the
    /// scripted arguments (a JSON string's value, or the text as it is).
    Responses,
    /// The Gemini API (`/v1beta/models/{model}:streamGenerateContent`,
    /// `:generateContent` and `:countTokens`), as the Gemini CLI speaks it.
    /// A call's arguments go whole, as Gemini sends them.
    Gemini,
}

/// A request the server received.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// Which route it came to.
    pub wire: Wire,
    /// Its headers, lower-cased names.
    pub headers: Vec<(String, String)>,
    /// Its JSON body.
    pub body: Value,
}

#[derive(Default)]
struct Script {
    turns: std::collections::VecDeque<Turn>,
    /// Turns for the first request whose body contains the key, before
    /// the queue: requests made at once (a run over many notes) arrive in
    /// any order, each answered for what it asks about.
    keyed: Vec<(String, Turn)>,
    served: usize,
    requests: Vec<Recorded>,
}

impl Script {
    /// Queues `turns`, each [`Turn::When`] by its key.
    fn take(&mut self, turns: impl IntoIterator<Item = Turn>) {
        for turn in turns {
            match turn {
                Turn::When { contains, turn } => self.keyed.push((contains, *turn)),
                turn => self.turns.push_back(turn),
            }
        }
    }
}

/// A running scripted model. Dropping it stops the server.
pub struct ScriptedModel {
    server: crate::loopback::Loopback,
    script: Arc<Mutex<Script>>,
}

impl ScriptedModel {
    /// Serves `turns` on a free loopback port. Needs a tokio runtime.
    pub async fn start(turns: Vec<Turn>) -> std::io::Result<ScriptedModel> {
        ScriptedModel::bind(turns, 0).await
    }

    /// Serves `turns` on loopback `port` (0 picks a free one).
    pub async fn bind(turns: Vec<Turn>, port: u16) -> std::io::Result<ScriptedModel> {
        let script = Arc::new(Mutex::new(Script::default()));
        script.lock().unwrap().take(turns);
        let state = script.clone();
        let server = crate::loopback::spawn(port, |_| {
            Router::new()
                .route("/v1/chat/completions", post(openai))
                .route("/v1/messages", post(anthropic))
                .route("/v1/responses", post(responses))
                .route("/v1beta/models/{action}", post(gemini))
                // As llama.cpp's server answers: found by the setup's probe.
                .route(
                    "/v1/models",
                    get(|| async {
                        Json(json!({ "object": "list", "data": [
                            { "id": "scripted-model", "object": "model", "owned_by": "redline" }
                        ] }))
                    }),
                )
                .with_state(state)
        })
        .await?;
        Ok(ScriptedModel { server, script })
    }

    /// The base URL an adapter of `protocol` is given.
    pub fn base_url(&self, protocol: Protocol) -> String {
        match protocol {
            Protocol::OpenAiChat => format!("http://{}/v1", self.server.addr),
            Protocol::AnthropicMessages => format!("http://{}", self.server.addr),
        }
    }

    /// Queues `turns` after those not served yet: a test that decides what
    /// the model says as it goes.
    pub fn push(&self, turns: impl IntoIterator<Item = Turn>) {
        self.script.lock().unwrap().take(turns);
    }

    /// Answers the first request whose body contains `key` with `turn`,
    /// whatever the queue holds (each note of a run over many notes is
    /// answered for that note, in whatever order the calls come).
    pub fn push_when(&self, key: &str, turn: Turn) {
        self.push([Turn::When {
            contains: key.to_owned(),
            turn: Box::new(turn),
        }]);
    }

    /// Drops the turns not served yet, keyed ones too.
    pub fn clear(&self) {
        let mut script = self.script.lock().unwrap();
        script.turns.clear();
        script.keyed.clear();
    }

    /// Every request received since the last take, in order; forgotten
    /// here (a long benchmark keeps only what it needs of them).
    pub fn take_requests(&self) -> Vec<Recorded> {
        std::mem::take(&mut self.script.lock().unwrap().requests)
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.script.lock().unwrap().requests.clone()
    }
}

async fn openai(
    State(script): State<Arc<Mutex<Script>>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    serve(Wire::Chat, &script, &headers, &body)
}

async fn anthropic(
    State(script): State<Arc<Mutex<Script>>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    serve(Wire::Messages, &script, &headers, &body)
}

async fn responses(
    State(script): State<Arc<Mutex<Script>>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    serve(Wire::Responses, &script, &headers, &body)
}

async fn gemini(
    State(script): State<Arc<Mutex<Script>>>,
    axum::extract::Path(action): axum::extract::Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some((model, method)) = action.split_once(':') else {
        return gemini_error(404, &format!("no method in {action}"));
    };
    match method {
        // Counted as the usage figures are: a quarter of the bytes.
        "countTokens" => Json(json!({ "totalTokens": body.len() / 4 })).into_response(),
        "streamGenerateContent" | "generateContent" => {
            let Ok(request) = serde_json::from_slice::<Value>(&body) else {
                return gemini_error(400, "the body is not JSON");
            };
            let Some((turn, n)) = next_turn(Wire::Gemini, &script, &headers, &body, &request)
            else {
                return gemini_error(500, "the script has no more turns");
            };
            if let Err(problem) = check_gemini(&request) {
                return gemini_error(400, &problem);
            }
            serve_gemini(
                turn,
                n,
                body.len(),
                model,
                method == "streamGenerateContent",
            )
        }
        _ => gemini_error(404, &format!("unknown method {method}")),
    }
}

/// Records `request` and takes the turn that answers it, with its number.
fn next_turn(
    wire: Wire,
    script: &Mutex<Script>,
    headers: &HeaderMap,
    body: &[u8],
    request: &Value,
) -> Option<(Turn, usize)> {
    let mut script = script.lock().unwrap();
    script.requests.push(Recorded {
        wire,
        headers: headers
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
            .collect(),
        body: request.clone(),
    });
    script.served += 1;
    let text = std::str::from_utf8(body).unwrap_or_default();
    let keyed = script
        .keyed
        .iter()
        .position(|(key, _)| text.contains(key.as_str()));
    let turn = match keyed {
        Some(i) => Some(script.keyed.swap_remove(i).1),
        None => script.turns.pop_front(),
    };
    Some((turn?, script.served))
}

fn serve(wire: Wire, script: &Mutex<Script>, headers: &HeaderMap, body: &[u8]) -> Response {
    let protocol = match wire {
        Wire::Messages => Protocol::AnthropicMessages,
        Wire::Chat | Wire::Responses | Wire::Gemini => Protocol::OpenAiChat,
    };
    let Ok(request) = serde_json::from_slice::<Value>(body) else {
        return error_response(protocol, 400, "the body is not JSON");
    };
    let turn = next_turn(wire, script, headers, body, &request);
    let checked = match wire {
        Wire::Responses => check_responses(&request),
        _ => check_request(protocol, &request),
    };
    if let Err(problem) = checked {
        return error_response(protocol, 400, &problem);
    }
    let Some((turn, n)) = turn else {
        return error_response(protocol, 500, "the script has no more turns");
    };
    let model = request["model"].as_str().unwrap_or("scripted").to_owned();
    if wire == Wire::Responses {
        let custom: Vec<String> = request["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["type"] == "custom")
            .filter_map(|t| t["name"].as_str().map(str::to_owned))
            .collect();
        return serve_responses(turn, n, body.len(), &model, &custom);
    }
    serve_turn(protocol, turn, n, body.len(), model)
}

/// Answers with `turn`, the `n`th served.
fn serve_turn(
    protocol: Protocol,
    turn: Turn,
    n: usize,
    body_len: usize,
    model: String,
) -> Response {
    match turn {
        Turn::When { turn, .. } => serve_turn(protocol, *turn, n, body_len, model),
        Turn::Error {
            status,
            headers,
            body,
        } => {
            let mut response = Response::builder()
                .status(status)
                .header(header::CONTENT_TYPE, "application/json");
            for (k, v) in headers {
                response = response.header(k, v);
            }
            response.body(Body::from(body)).expect("valid response")
        }
        Turn::Raw { content_type, body } => Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, content_type)
            .body(Body::from(body))
            .expect("valid response"),
        Turn::StreamError { message } => {
            let frame = match protocol {
                Protocol::OpenAiChat => sse(
                    None,
                    &json!({ "error": { "message": message, "type": "server_error" } }),
                ),
                Protocol::AnthropicMessages => sse(
                    Some("error"),
                    &json!({ "type": "error", "error": { "type": "overloaded_error", "message": message } }),
                ),
            };
            stream_response(vec![frame], 0)
        }
        Turn::Reply {
            text,
            calls,
            stop,
            usage,
            chunk_delay_ms,
        } => {
            let stop = stop.unwrap_or(if calls.is_empty() {
                ScriptedStop::EndTurn
            } else {
                ScriptedStop::ToolUse
            });
            let reply_bytes: usize = text.iter().map(String::len).sum::<usize>()
                + calls
                    .iter()
                    .map(|c| c.arguments.len() + c.name.len())
                    .sum::<usize>();
            let usage = usage.unwrap_or(((body_len / 4) as u64, (reply_bytes / 4 + 1) as u64));
            let calls: Vec<ScriptedCall> = calls
                .into_iter()
                .enumerate()
                .map(|(i, mut c)| {
                    c.id.get_or_insert_with(|| format!("call_{n}_{}", i + 1));
                    c
                })
                .collect();
            let frames = match protocol {
                Protocol::OpenAiChat => openai_frames(n, &model, &text, &calls, stop, usage),
                Protocol::AnthropicMessages => {
                    anthropic_frames(n, &model, &text, &calls, stop, usage)
                }
            };
            stream_response(frames, chunk_delay_ms)
        }
    }
}

fn error_response(protocol: Protocol, status: u16, message: &str) -> Response {
    let body = match protocol {
        Protocol::OpenAiChat => {
            json!({ "error": { "message": message, "type": "invalid_request_error" } })
        }
        Protocol::AnthropicMessages => {
            json!({ "type": "error", "error": { "type": "invalid_request_error", "message": message } })
        }
    };
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .expect("valid response")
}

/// The checks the real services make that a client can get wrong.
fn check_request(protocol: Protocol, request: &Value) -> Result<(), String> {
    let messages = request["messages"]
        .as_array()
        .ok_or("`messages` must be an array")?;
    if request["model"].as_str().is_none_or(str::is_empty) {
        return Err("`model` is required".into());
    }
    match protocol {
        Protocol::OpenAiChat => {
            let mut open: Vec<String> = Vec::new();
            for m in messages {
                match m["role"].as_str() {
                    Some("tool") => {
                        let id = m["tool_call_id"]
                            .as_str()
                            .ok_or("a tool message needs `tool_call_id`")?;
                        let at = open.iter().position(|o| o == id).ok_or_else(|| {
                            format!("tool message `{id}` answers no pending tool call")
                        })?;
                        open.remove(at);
                    }
                    Some(role @ ("system" | "user" | "assistant")) => {
                        if !open.is_empty() {
                            return Err(format!(
                                "tool calls {open:?} were not answered before a {role} message"
                            ));
                        }
                        if let Some(calls) = m["tool_calls"].as_array() {
                            for c in calls {
                                c["function"]["arguments"]
                                    .as_str()
                                    .ok_or("tool call arguments must be a string")?;
                                open.push(
                                    c["id"]
                                        .as_str()
                                        .ok_or("a tool call needs an id")?
                                        .to_owned(),
                                );
                            }
                        }
                    }
                    other => return Err(format!("unknown role {other:?}")),
                }
            }
            if !open.is_empty() {
                return Err(format!("tool calls {open:?} were not answered"));
            }
        }
        Protocol::AnthropicMessages => {
            if request["max_tokens"].as_u64().is_none() {
                return Err("`max_tokens` is required".into());
            }
            let mut expected_role = "user";
            let mut open: Vec<String> = Vec::new();
            for m in messages {
                let role = m["role"].as_str().unwrap_or_default();
                // Claude Code puts its reminders among the turns as system
                // messages, which the Messages API takes anywhere.
                if role == "system" {
                    continue;
                }
                if role != expected_role {
                    return Err(format!("expected a {expected_role} message, got {role:?}"));
                }
                let blocks = m["content"].as_array().cloned().unwrap_or_default();
                if role == "user" {
                    let answered: Vec<&str> = blocks
                        .iter()
                        .filter(|b| b["type"] == "tool_result")
                        .filter_map(|b| b["tool_use_id"].as_str())
                        .collect();
                    if let Some(missing) = open.iter().find(|id| !answered.contains(&id.as_str())) {
                        return Err(format!(
                            "tool_use `{missing}` has no tool_result in the next message"
                        ));
                    }
                    open.clear();
                    expected_role = "assistant";
                } else {
                    for b in blocks.iter().filter(|b| b["type"] == "tool_use") {
                        if !b["input"].is_object() {
                            return Err("tool_use input must be an object".into());
                        }
                        open.push(b["id"].as_str().unwrap_or_default().to_owned());
                    }
                    expected_role = "user";
                }
            }
            if !open.is_empty() {
                return Err(format!("tool_use blocks {open:?} were not answered"));
            }
        }
    }
    Ok(())
}
