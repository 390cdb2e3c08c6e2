//! Anthropic Messages stream decoding.

use serde_json::Value;

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
