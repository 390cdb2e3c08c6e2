//! Anthropic Messages stream decoding.

use serde_json::{Value, json};

use super::conversation::{Message, StepRequest, ToolChoice};
use super::{StopReason, StreamEvent, Usage, clip};

/// Decodes one SSE event of a Messages stream (`event` is its name; the
/// payload's own `type` wins when both are present). `ping` and unknown
/// events yield nothing.
pub fn decode(event: &str, data: &str) -> Vec<StreamEvent> {
    let Ok(payload) = serde_json::from_str::<Value>(data.trim()) else {
        if data.trim().is_empty() {
            return Vec::new();
        }
        return vec![StreamEvent::Error(format!(
            "the server sent a payload that is not JSON: {}",
            clip(data)
        ))];
    };
    let kind = payload.get("type").and_then(Value::as_str).unwrap_or(event);
    let index = || payload.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
    let mut out = Vec::new();
    match kind {
        "message_start" => {
            if let Some(usage) = payload.pointer("/message/usage") {
                out.push(StreamEvent::Usage(usage_of(usage)));
            }
        }
        "content_block_start" => {
            let block = payload.get("content_block").unwrap_or(&Value::Null);
            match block.get("type").and_then(Value::as_str) {
                Some("tool_use") => {
                    out.push(StreamEvent::ToolCallStart {
                        index: index(),
                        id: block.get("id").and_then(Value::as_str).map(str::to_owned),
                        name: block.get("name").and_then(Value::as_str).map(str::to_owned),
                    });
                    // Input given whole at the start (rare) rather than as deltas.
                    if let Some(input) = block
                        .get("input")
                        .filter(|i| i.as_object().is_some_and(|o| !o.is_empty()))
                    {
                        out.push(StreamEvent::ToolArgs {
                            index: index(),
                            fragment: input.to_string(),
                        });
                    }
                }
                Some("text") => {
                    if let Some(text) = block
                        .get("text")
                        .and_then(Value::as_str)
                        .filter(|t| !t.is_empty())
                    {
                        out.push(StreamEvent::Text(text.to_owned()));
                    }
                }
                _ => {}
            }
        }
        "content_block_delta" => {
            let delta = payload.get("delta").unwrap_or(&Value::Null);
            match delta.get("type").and_then(Value::as_str) {
                Some("text_delta") => {
                    if let Some(text) = delta.get("text").and_then(Value::as_str) {
                        out.push(StreamEvent::Text(text.to_owned()));
                    }
                }
                Some("input_json_delta") => {
                    if let Some(part) = delta
                        .get("partial_json")
                        .and_then(Value::as_str)
                        .filter(|p| !p.is_empty())
                    {
                        out.push(StreamEvent::ToolArgs {
                            index: index(),
                            fragment: part.to_owned(),
                        });
                    }
                }
                _ => {}
            }
        }
        "message_delta" => {
            if let Some(reason) = payload
                .pointer("/delta/stop_reason")
                .and_then(Value::as_str)
            {
                out.push(StreamEvent::Stop(match reason {
                    "end_turn" | "stop_sequence" | "pause_turn" => StopReason::EndTurn,
                    "tool_use" => StopReason::ToolUse,
                    "max_tokens" | "model_context_window_exceeded" => StopReason::MaxTokens,
                    "refusal" => StopReason::Refusal,
                    other => StopReason::Other(other.to_owned()),
                }));
            }
            if let Some(usage) = payload.get("usage") {
                out.push(StreamEvent::Usage(usage_of(usage)));
            }
        }
        "error" => {
            let message = payload
                .pointer("/error/message")
                .and_then(Value::as_str)
                .unwrap_or("unknown error");
            out.push(StreamEvent::Error(message.to_owned()));
        }
        _ => {}
    }
    out
}

fn usage_of(usage: &Value) -> Usage {
    let tokens = |k: &str| usage.get(k).and_then(Value::as_u64);
    Usage {
        input_tokens: tokens("input_tokens"),
        output_tokens: tokens("output_tokens"),
    }
}

/// The Messages request body for `request`, streaming. System messages become
/// the `system` field; consecutive user-side blocks (tool results, then any
/// note from the loop) are merged into one user turn, as the API wants. A
/// required choice is `{"type": "any"}`; parallel use is disabled with it.
pub fn request_body(request: &StepRequest) -> Value {
    let mut system = Vec::new();
    let mut messages: Vec<Value> = Vec::new();
    let mut push = |role: &str, block: Value| match messages.last_mut() {
        Some(last) if last["role"] == role => {
            last["content"].as_array_mut().expect("blocks").push(block)
        }
        _ => messages.push(json!({ "role": role, "content": [block] })),
    };
    for message in &request.messages {
        match message {
            Message::System { content } => system.push(content.as_str()),
            Message::User { content } => push("user", json!({ "type": "text", "text": content })),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                if !content.is_empty() {
                    push("assistant", json!({ "type": "text", "text": content }));
                }
                for call in tool_calls {
                    push(
                        "assistant",
                        json!({
                            "type": "tool_use",
                            "id": call.tool_call_id,
                            "name": call.name,
                            "input": call.arguments_object(),
                        }),
                    );
                }
            }
            Message::Tool(result) => {
                let mut block = json!({
                    "type": "tool_result",
                    "tool_use_id": result.tool_call_id,
                    "content": result.content,
                });
                if result.is_error {
                    block["is_error"] = json!(true);
                }
                push("user", block);
            }
        }
    }
    let mut body = json!({
        "model": request.model,
        "max_tokens": request.max_tokens,
        "messages": messages,
        "stream": true,
    });
    if !system.is_empty() {
        body["system"] = json!(system.join("\n\n"));
    }
    if let Some(t) = request.temperature {
        body["temperature"] = json!(t);
    }
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| {
                json!({
                    "name": t.name,
                    "description": t.description,
                    "input_schema": t.parameters,
                    "strict": true,
                })
            })
            .collect();
        let mut choice = match request.tool_choice {
            ToolChoice::Auto => json!({ "type": "auto" }),
            ToolChoice::Required => json!({ "type": "any" }),
        };
        if !request.parallel_tool_calls {
            choice["disable_parallel_tool_use"] = json!(true);
        }
        body["tool_choice"] = choice;
    }
    body
}

/// Decodes a whole (non-streamed) Messages response, for servers that answer
/// a streaming request with one JSON body.
pub fn decode_message(message: &Value) -> Vec<StreamEvent> {
    let mut out = decode(
        "message_start",
        &json!({ "type": "message_start", "message": message }).to_string(),
    );
    let blocks = message.get("content").and_then(Value::as_array);
    for (index, block) in blocks.into_iter().flatten().enumerate() {
        let start =
            json!({ "type": "content_block_start", "index": index, "content_block": block });
        out.extend(decode("content_block_start", &start.to_string()));
    }
    let delta = json!({
        "type": "message_delta",
        "delta": { "stop_reason": message.get("stop_reason") },
        "usage": message.get("usage"),
    });
    out.extend(decode("message_delta", &delta.to_string()));
    out
}
