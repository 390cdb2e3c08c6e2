//! Server-sent event frames as the real services stream them, and the
//! response that sends them.

use std::convert::Infallible;
use std::time::Duration;

use axum::{
    body::{Body, Bytes},
    http::{StatusCode, header},
    response::Response,
};
use futures_util::StreamExt;
use serde_json::{Value, json};

use super::{ScriptedCall, ScriptedStop};

/// One server-sent event: `data` as JSON, under `event` when the wire
/// names its events.
pub(super) fn sse(event: Option<&str>, data: &Value) -> String {
    match event {
        Some(e) => format!("event: {e}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

/// Argument text in the small pieces real services stream it in.
pub(super) fn fragments(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(7).map(|c| c.iter().collect()).collect()
}

/// A reply as the OpenAI Chat wire streams it: text, then each call
/// with its arguments in pieces, then the finish and the usage.
pub(super) fn openai_frames(
    n: usize,
    model: &str,
    text: &[String],
    calls: &[ScriptedCall],
    stop: ScriptedStop,
    (input, output): (u64, u64),
) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        sse(
            None,
            &json!({
                "id": format!("chatcmpl-scripted-{n}"), "object": "chat.completion.chunk",
                "created": 0, "model": model,
                "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }],
            }),
        )
    };
    let mut frames = vec![chunk(
        json!({ "role": "assistant", "content": "" }),
        Value::Null,
    )];
    for piece in text {
        frames.push(chunk(json!({ "content": piece }), Value::Null));
    }
    for (i, call) in calls.iter().enumerate() {
        frames.push(chunk(
            json!({ "tool_calls": [{ "index": i, "id": call.id, "type": "function",
                     "function": { "name": call.name, "arguments": "" } }] }),
            Value::Null,
        ));
        for piece in fragments(&call.arguments) {
            frames.push(chunk(
                json!({ "tool_calls": [{ "index": i, "function": { "arguments": piece } }] }),
                Value::Null,
            ));
        }
    }
    let finish = match stop {
        ScriptedStop::EndTurn => "stop",
        ScriptedStop::ToolUse => "tool_calls",
        ScriptedStop::MaxTokens => "length",
    };
    frames.push(chunk(json!({}), json!(finish)));
    frames.push(sse(
        None,
        &json!({
            "id": format!("chatcmpl-scripted-{n}"), "object": "chat.completion.chunk",
            "created": 0, "model": model, "choices": [],
            "usage": { "prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output },
        }),
    ));
    frames.push("data: [DONE]\n\n".to_owned());
    frames
}

/// A reply as the Anthropic Messages wire streams it: a content block for
/// the text and one per call, then the stop reason and the usage.
pub(super) fn anthropic_frames(
    n: usize,
    model: &str,
    text: &[String],
    calls: &[ScriptedCall],
    stop: ScriptedStop,
    (input, output): (u64, u64),
) -> Vec<String> {
    let mut frames = vec![sse(
        Some("message_start"),
        &json!({ "type": "message_start", "message": {
            "id": format!("msg_scripted_{n}"), "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": { "input_tokens": input, "output_tokens": 1 } } }),
    )];
    let mut index = 0;
    if !text.is_empty() {
        frames.push(sse(
            Some("content_block_start"),
            &json!({ "type": "content_block_start", "index": index, "content_block": { "type": "text", "text": "" } }),
        ));
        for piece in text {
            frames.push(sse(
                Some("content_block_delta"),
                &json!({ "type": "content_block_delta", "index": index, "delta": { "type": "text_delta", "text": piece } }),
            ));
        }
        frames.push(sse(
            Some("content_block_stop"),
            &json!({ "type": "content_block_stop", "index": index }),
        ));
        index += 1;
    }
    for (i, call) in calls.iter().enumerate() {
        frames.push(sse(
            Some("content_block_start"),
            &json!({ "type": "content_block_start", "index": index,
                     "content_block": { "type": "tool_use", "id": call.id, "name": call.name, "input": {} } }),
        ));
        for piece in fragments(&call.arguments) {
            frames.push(sse(
                Some("content_block_delta"),
                &json!({ "type": "content_block_delta", "index": index,
                         "delta": { "type": "input_json_delta", "partial_json": piece } }),
            ));
        }
        // A call cut off by the length limit gets no block stop.
        if !(stop == ScriptedStop::MaxTokens && i + 1 == calls.len()) {
            frames.push(sse(
                Some("content_block_stop"),
                &json!({ "type": "content_block_stop", "index": index }),
            ));
        }
        index += 1;
    }
    let reason = match stop {
        ScriptedStop::EndTurn => "end_turn",
        ScriptedStop::ToolUse => "tool_use",
        ScriptedStop::MaxTokens => "max_tokens",
    };
    frames.push(sse(
        Some("message_delta"),
        &json!({ "type": "message_delta", "delta": { "stop_reason": reason, "stop_sequence": null },
                 "usage": { "output_tokens": output } }),
    ));
    frames.push(sse(
        Some("message_stop"),
        &json!({ "type": "message_stop" }),
    ));
    frames
}

/// `frames` as an event stream, `delay_ms` apart, as a slow model sends them.
pub(super) fn stream_response(frames: Vec<String>, delay_ms: u64) -> Response {
    let stream = futures_util::stream::iter(frames).then(move |frame| async move {
        if delay_ms > 0 {
            tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        }
        Ok::<_, Infallible>(Bytes::from(frame))
    });
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(stream))
        .expect("valid response")
}
