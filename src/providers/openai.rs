//! OpenAI Chat Completions stream decoding (also Ollama, LM Studio,
//! llama.cpp and vLLM through their OpenAI-compatible endpoints).

use std::collections::HashMap;

use serde_json::{Value, json};

use super::conversation::{Message, StepRequest, ToolChoice};
use super::{StopReason, StreamEvent, Usage, clip};

/// Decodes the `data` payloads of one Chat Completions stream. It keeps a
/// little state to number tool calls when a server omits or reuses `index`.
#[derive(Debug, Default)]
pub struct Decoder {
    /// Server index -> our index, and the id each of our calls was given.
    remap: HashMap<u64, usize>,
    ids: Vec<Option<String>>,
    last: Option<usize>,
}

impl Decoder {
    /// Decodes one SSE `data` payload. `[DONE]`, blank and non-JSON keep-alive
    /// payloads yield nothing.
    pub fn decode(&mut self, data: &str) -> Vec<StreamEvent> {
        let data = data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Vec::new();
        }
        let Ok(chunk) = serde_json::from_str::<Value>(data) else {
            return vec![StreamEvent::Error(format!(
                "the server sent a payload that is not JSON: {}",
                clip(data)
            ))];
        };
        let mut out = Vec::new();
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_owned);
            out.push(StreamEvent::Error(message));
        }
        // Only the first choice is ours (n = 1; extra choices are ignored).
        let choice = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| {
                c.iter()
                    .find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
            });
        if let Some(choice) = choice {
            let delta = choice
                .get("delta")
                .or_else(|| choice.get("message"))
                .unwrap_or(&Value::Null);
            for key in ["content", "refusal"] {
                if let Some(text) = delta
                    .get(key)
                    .and_then(Value::as_str)
                    .filter(|t| !t.is_empty())
                {
                    out.push(StreamEvent::Text(text.to_owned()));
                }
            }
            for call in delta
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                self.tool_call(call, &mut out);
            }
            match choice.get("finish_reason").and_then(Value::as_str) {
                None | Some("") => {}
                Some(reason) => out.push(StreamEvent::Stop(stop_reason(reason))),
            }
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            let tokens = |k: &str| usage.get(k).and_then(Value::as_u64);
            let usage = Usage {
                input_tokens: tokens("prompt_tokens"),
                output_tokens: tokens("completion_tokens"),
            };
            if usage != Usage::default() {
                out.push(StreamEvent::Usage(usage));
            }
        }
        out
    }

    fn tool_call(&mut self, call: &Value, out: &mut Vec<StreamEvent>) {
        let id = call
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned);
        let function = call.get("function").unwrap_or(&Value::Null);
        let name = function
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let index = match call.get("index").and_then(Value::as_u64) {
            Some(server) => match self.remap.get(&server).copied() {
                // A known index with a new id: a server that reuses index 0
                // for parallel calls (Ollama). It is a new call.
                Some(ours) if id.is_some() && self.ids[ours].is_some() && self.ids[ours] != id => {
                    self.new_call(Some(server))
                }
                Some(ours) => ours,
                None => self.new_call(Some(server)),
            },
            // No index: an id (or a name) starts a call, anything else continues the last.
            None if id.is_some() || name.is_some() || self.last.is_none() => self.new_call(None),
            None => self.last.expect("checked"),
        };
        if id.is_some() {
            self.ids[index] = id.clone();
        }
        self.last = Some(index);
        if id.is_some() || name.is_some() {
            out.push(StreamEvent::ToolCallStart { index, id, name });
        }
        let arguments = function.get("arguments");
        let fragment = match arguments {
            Some(Value::String(s)) => s.clone(),
            // Some servers send the arguments as an object rather than text.
            Some(v) if v.is_object() => v.to_string(),
            _ => String::new(),
        };
        if !fragment.is_empty() {
            out.push(StreamEvent::ToolArgs { index, fragment });
        }
    }

    fn new_call(&mut self, server: Option<u64>) -> usize {
        let ours = self.ids.len();
        self.ids.push(None);
        if let Some(server) = server {
            self.remap.insert(server, ours);
        }
        ours
    }
}

fn stop_reason(reason: &str) -> StopReason {
    match reason {
        "stop" => StopReason::EndTurn,
        "tool_calls" | "function_call" => StopReason::ToolUse,
        "length" => StopReason::MaxTokens,
        "content_filter" => StopReason::ContentFilter,
        other => StopReason::Other(other.to_owned()),
    }
}

/// The Chat Completions request body for `request`, streaming, with usage
/// reported in the stream. Tools are sent `strict`; a required choice is the
/// string `"required"`, the only form every compatible server accepts.
pub fn request_body(request: &StepRequest) -> Value {
    let messages: Vec<Value> = request
        .messages
        .iter()
        .map(|m| match m {
            Message::System { content } => json!({ "role": "system", "content": content }),
            Message::User { content } => json!({ "role": "user", "content": content }),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                let mut message = json!({
                    "role": "assistant",
                    "content": if content.is_empty() { Value::Null } else { json!(content) },
                });
                if !tool_calls.is_empty() {
                    message["tool_calls"] = tool_calls
                        .iter()
                        .map(|c| {
                            json!({
                                "id": c.tool_call_id,
                                "type": "function",
                                "function": { "name": c.name, "arguments": c.arguments },
                            })
                        })
                        .collect();
                }
                message
            }
            Message::Tool(result) => json!({
                "role": "tool",
                "tool_call_id": result.tool_call_id,
                "content": result.content,
            }),
        })
        .collect();
    let mut body = json!({
        "model": request.model,
        "messages": messages,
        "stream": true,
        "stream_options": { "include_usage": true },
        "max_tokens": request.max_tokens,
    });
    if let Some(t) = request.temperature {
        body["temperature"] = json!(t);
    }
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| {
                json!({
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.parameters,
                        "strict": true,
                    },
                })
            })
            .collect();
        body["tool_choice"] = json!(match request.tool_choice {
            ToolChoice::Auto => "auto",
            ToolChoice::Required => "required",
        });
        body["parallel_tool_calls"] = json!(request.parallel_tool_calls);
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::StepBuilder;

    fn step(payloads: &[&str]) -> crate::providers::Step {
        let mut decoder = Decoder::default();
        let mut builder = StepBuilder::default();
        for p in payloads {
            for e in decoder.decode(p) {
                builder.push(e);
            }
        }
        builder.finish()
    }

    #[test]
    fn tolerates_local_server_quirks() {
        // Ollama: a whole call per chunk, index 0 reused for parallel calls, empty usage.
        let s = step(&[
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"read_file","arguments":"{\"file_path\":\"a.md\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"read_file","arguments":"{\"file_path\":\"b.md\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{}}"#,
            "[DONE]",
        ]);
        let names: Vec<(&str, &str)> = s
            .tool_calls
            .iter()
            .map(|c| (c.tool_call_id.as_str(), c.arguments.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("a", "{\"file_path\":\"a.md\"}"),
                ("b", "{\"file_path\":\"b.md\"}")
            ]
        );
        assert_eq!(s.stop, Some(StopReason::ToolUse));
        assert_eq!(s.usage, Usage::default());
        // No index at all, an id-less continuation, an empty finish_reason, arguments as an object.
        let s = step(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"x","function":{"name":"list_files","arguments":"{\"pre"}}]},"finish_reason":""}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"fix\":\"n\"}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"y","function":{"name":"search_project","arguments":{"query":"q"}}}]}}]}"#,
        ]);
        assert_eq!(s.tool_calls[0].arguments, "{\"prefix\":\"n\"}");
        assert_eq!(s.tool_calls[1].arguments, "{\"query\":\"q\"}");
        assert!(s.tool_calls.iter().all(|c| c.complete));
        assert_eq!(s.stop, None);
        // A mid-stream error and garbage are surfaced, not swallowed.
        let s = step(&[r#"{"error":{"message":"context overflow"}}"#]);
        assert_eq!(s.error.as_deref(), Some("context overflow"));
        assert!(step(&["{not json"]).error.unwrap().contains("not JSON"));
    }
}
