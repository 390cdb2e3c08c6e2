//! The OpenAI Responses wire (the Codex CLI's): a turn served as its
//! event stream, and the checks the real API makes on a request.

use axum::response::Response;
use serde_json::{Value, json};

use super::frames::{fragments, sse, stream_response};
use super::{Turn, serve_turn};
use crate::providers::Protocol;

/// Answers a Responses request with `turn`, the `n`th served; calls to the
/// tools named in `custom` as custom tool calls.
pub(super) fn serve_responses(
    turn: Turn,
    n: usize,
    body_len: usize,
    model: &str,
    custom: &[String],
) -> Response {
    let (text, calls, usage, chunk_delay_ms) = match turn {
        Turn::When { turn, .. } => return serve_responses(*turn, n, body_len, model, custom),
        Turn::Reply {
            text,
            calls,
            usage,
            chunk_delay_ms,
            ..
        } => (text, calls, usage, chunk_delay_ms),
        Turn::StreamError { message } => {
            let failed = json!({ "type": "response.failed", "response": {
                "id": format!("resp_{n}"), "object": "response", "status": "failed",
                "error": { "code": "server_error", "message": message } } });
            return stream_response(vec![sse(Some("response.failed"), &failed)], 0);
        }
        other => return serve_turn(Protocol::OpenAiChat, other, n, body_len, model.to_owned()),
    };
    let reply_bytes: usize = text.iter().map(String::len).sum::<usize>()
        + calls.iter().map(|c| c.arguments.len()).sum::<usize>();
    let (input, output) = usage.unwrap_or(((body_len / 4) as u64, (reply_bytes / 4 + 1) as u64));
    let id = format!("resp_{n}");
    let mut seq = 0;
    let mut frames = Vec::new();
    let mut push = |kind: &str, mut data: Value| {
        data["type"] = json!(kind);
        data["sequence_number"] = json!(seq);
        seq += 1;
        frames.push(sse(Some(kind), &data));
    };
    let response = |status: &str, output: &[Value]| {
        json!({ "id": id, "object": "response", "created_at": 0, "model": model,
                "status": status, "output": output })
    };
    push(
        "response.created",
        json!({ "response": response("in_progress", &[]) }),
    );
    let mut output_items = Vec::new();
    if !text.is_empty() {
        let index = output_items.len();
        let item_id = format!("msg_{n}");
        let empty = json!({ "type": "message", "id": item_id, "role": "assistant",
                            "status": "in_progress", "content": [] });
        push(
            "response.output_item.added",
            json!({ "output_index": index, "item": empty }),
        );
        for piece in &text {
            push(
                "response.output_text.delta",
                json!({ "item_id": item_id, "output_index": index, "content_index": 0, "delta": piece }),
            );
        }
        let item = json!({ "type": "message", "id": item_id, "role": "assistant",
            "status": "completed",
            "content": [{ "type": "output_text", "text": text.concat(), "annotations": [] }] });
        push(
            "response.output_item.done",
            json!({ "output_index": index, "item": item }),
        );
        output_items.push(item);
    }
    for (i, call) in calls.iter().enumerate() {
        let index = output_items.len();
        let call_id = call
            .id
            .clone()
            .unwrap_or_else(|| format!("call_{n}_{}", i + 1));
        let item = if custom.contains(&call.name) {
            let input = serde_json::from_str::<String>(&call.arguments)
                .unwrap_or_else(|_| call.arguments.clone());
            let item_id = format!("ctc_{n}_{}", i + 1);
            let started = json!({ "type": "custom_tool_call", "id": item_id, "call_id": call_id,
                                  "name": call.name, "input": "", "status": "in_progress" });
            push(
                "response.output_item.added",
                json!({ "output_index": index, "item": started }),
            );
            for piece in fragments(&input) {
                push(
                    "response.custom_tool_call_input.delta",
                    json!({ "item_id": item_id, "output_index": index, "delta": piece }),
                );
            }
            json!({ "type": "custom_tool_call", "id": item_id, "call_id": call_id,
                    "name": call.name, "input": input, "status": "completed" })
        } else {
            let item_id = format!("fc_{n}_{}", i + 1);
            let started = json!({ "type": "function_call", "id": item_id, "call_id": call_id,
                                  "name": call.name, "arguments": "", "status": "in_progress" });
            push(
                "response.output_item.added",
                json!({ "output_index": index, "item": started }),
            );
            for piece in fragments(&call.arguments) {
                push(
                    "response.function_call_arguments.delta",
                    json!({ "item_id": item_id, "output_index": index, "delta": piece }),
                );
            }
            push(
                "response.function_call_arguments.done",
                json!({ "item_id": item_id, "output_index": index, "arguments": call.arguments }),
            );
            json!({ "type": "function_call", "id": item_id, "call_id": call_id,
                    "name": call.name, "arguments": call.arguments, "status": "completed" })
        };
        push(
            "response.output_item.done",
            json!({ "output_index": index, "item": item }),
        );
        output_items.push(item);
    }
    let mut done = response("completed", &output_items);
    done["usage"] = json!({
        "input_tokens": input, "input_tokens_details": { "cached_tokens": 0 },
        "output_tokens": output, "output_tokens_details": { "reasoning_tokens": 0 },
        "total_tokens": input + output,
    });
    push("response.completed", json!({ "response": done }));
    stream_response(frames, chunk_delay_ms)
}

/// The checks the Responses API makes that a client can get wrong: a model,
/// input items, and every call answered by an output of its `call_id`.
pub(super) fn check_responses(request: &Value) -> Result<(), String> {
    if request["model"].as_str().is_none_or(str::is_empty) {
        return Err("`model` is required".into());
    }
    let items = request["input"]
        .as_array()
        .ok_or("`input` must be an array")?;
    let ids = |kinds: &[&str]| -> Vec<&str> {
        items
            .iter()
            .filter(|i| kinds.contains(&i["type"].as_str().unwrap_or_default()))
            .filter_map(|i| i["call_id"].as_str())
            .collect()
    };
    let answered = ids(&["function_call_output", "custom_tool_call_output"]);
    if let Some(open) = ids(&["function_call", "custom_tool_call"])
        .into_iter()
        .find(|id| !answered.contains(id))
    {
        return Err(format!("No tool output found for function call {open}."));
    }
    Ok(())
}
