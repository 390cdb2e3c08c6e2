//! The Gemini wire (the Gemini CLI's): a turn served streamed or whole,
//! the checks the real API makes on a request, and its error shape.

use axum::{
    Json,
    body::Body,
    http::header,
    response::{IntoResponse, Response},
};
use serde_json::{Value, json};

use super::frames::{sse, stream_response};
use super::{ScriptedStop, Turn, serve_turn};
use crate::providers::Protocol;

/// Answers a Gemini request with `turn`, the `n`th served: streamed as
/// server-sent events, or as one JSON response.
pub(super) fn serve_gemini(
    turn: Turn,
    n: usize,
    body_len: usize,
    model: &str,
    stream: bool,
) -> Response {
    let (text, calls, stop, usage, chunk_delay_ms) = match turn {
        Turn::When { turn, .. } => return serve_gemini(*turn, n, body_len, model, stream),
        Turn::Reply {
            text,
            calls,
            stop,
            usage,
            chunk_delay_ms,
        } => (text, calls, stop, usage, chunk_delay_ms),
        Turn::StreamError { message } => {
            let error =
                json!({ "error": { "code": 503, "message": message, "status": "UNAVAILABLE" } });
            return stream_response(vec![sse(None, &error)], 0);
        }
        other => return serve_turn(Protocol::OpenAiChat, other, n, body_len, model.to_owned()),
    };
    let reply_bytes: usize = text.iter().map(String::len).sum::<usize>()
        + calls.iter().map(|c| c.arguments.len()).sum::<usize>();
    let (input, output) = usage.unwrap_or(((body_len / 4) as u64, (reply_bytes / 4 + 1) as u64));
    let mut parts: Vec<Value> = text.iter().map(|t| json!({ "text": t })).collect();
    for call in &calls {
        let args: Value =
            serde_json::from_str(&call.arguments).unwrap_or_else(|_| json!(call.arguments));
        parts.push(json!({ "functionCall": { "name": call.name, "args": args } }));
    }
    let finish = match stop {
        Some(ScriptedStop::MaxTokens) => "MAX_TOKENS",
        _ => "STOP",
    };
    let chunk = |parts: &[Value], last: bool| {
        let mut candidate = json!({ "content": { "role": "model", "parts": parts }, "index": 0 });
        let mut chunk = json!({ "candidates": [], "modelVersion": model,
                                "responseId": format!("scripted-{n}") });
        if last {
            candidate["finishReason"] = json!(finish);
            chunk["usageMetadata"] = json!({ "promptTokenCount": input,
                "candidatesTokenCount": output, "totalTokenCount": input + output });
        }
        chunk["candidates"] = json!([candidate]);
        chunk
    };
    if !stream {
        return Json(chunk(&parts, true)).into_response();
    }
    let last = parts.len().saturating_sub(1);
    let frames = if parts.is_empty() {
        vec![sse(None, &chunk(&[], true))]
    } else {
        parts
            .iter()
            .enumerate()
            .map(|(i, p)| sse(None, &chunk(std::slice::from_ref(p), i == last)))
            .collect()
    };
    stream_response(frames, chunk_delay_ms)
}

/// The checks the Gemini API makes that a client can get wrong: contents
/// of known roles, and every function call answered, by name, in the
/// content after it.
pub(super) fn check_gemini(request: &Value) -> Result<(), String> {
    let contents = request["contents"]
        .as_array()
        .ok_or("`contents` must be an array")?;
    let names = |content: &Value, kind: &str| -> Vec<String> {
        content["parts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p[kind]["name"].as_str().map(str::to_owned))
            .collect()
    };
    for (i, content) in contents.iter().enumerate() {
        let role = content["role"].as_str().unwrap_or("user");
        if !matches!(role, "user" | "model") {
            return Err(format!(
                "Please use a valid role: user, model. Got {role:?}."
            ));
        }
        let called = names(content, "functionCall");
        if called.is_empty() {
            continue;
        }
        let answered = contents.get(i + 1).map(|c| names(c, "functionResponse"));
        if answered.as_ref().is_some_and(|a| a.len() != called.len()) {
            return Err(
                "Please ensure that the number of function response parts is equal \
                        to the number of function call parts of the function call turn."
                    .into(),
            );
        }
    }
    Ok(())
}

/// An error in the Gemini API's shape.
pub(super) fn gemini_error(code: u16, message: &str) -> Response {
    let status = match code {
        400 => "INVALID_ARGUMENT",
        404 => "NOT_FOUND",
        _ => "INTERNAL",
    };
    let body = json!({ "error": { "code": code, "message": message, "status": status } });
    Response::builder()
        .status(code)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .expect("valid response")
}
