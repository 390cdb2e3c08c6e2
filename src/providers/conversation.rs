//! What Redline sends a model, in one shape for every provider: the messages
//! so far, the tools offered, and how strongly a tool is asked for. Each
//! adapter turns a [`StepRequest`] into its own wire format.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ToolCall;

/// One message of a conversation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// Instructions from Redline (the agent definition's prompt).
    System {
        /// The text.
        content: String,
    },
    /// The person, or Redline speaking for the loop (wrap-up notes).
    User {
        /// The text.
        content: String,
    },
    /// What the model said: text, tool calls, or both.
    Assistant {
        /// Its text (may be empty).
        content: String,
        /// The calls it made, as made (arguments are the model's own text).
        tool_calls: Vec<ToolCall>,
    },
    /// The answer to one tool call.
    Tool(ToolResult),
}

/// The result of one tool call, as the model reads it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The call answered.
    pub tool_call_id: String,
    /// The tool's name.
    pub name: String,
    /// The result (JSON text) or the error message.
    pub content: String,
    /// Whether the call failed.
    pub is_error: bool,
}

/// A tool offered to the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Its name.
    pub name: String,
    /// What the model is told it does.
    pub description: String,
    /// JSON schema of its arguments, in the strict subset every provider
    /// accepts (see `tools::strict`).
    pub parameters: Value,
    /// The same schema with its length, item and number bounds and its
    /// content marks kept, for a server that constrains decoding to it (see
    /// [`super::caps`]); `null` for a schema not sent to a model.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub bounded: Value,
}

/// How strongly the model is asked to call a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoice {
    /// Text or tools, as the model likes.
    Auto,
    /// Some tool must be called. With a single tool offered this forces that
    /// tool on every server, including those without named choice
    /// (llama.cpp, Ollama's Anthropic endpoint).
    Required,
}

/// One model step to take.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepRequest {
    /// The model to ask.
    pub model: String,
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// The tools offered.
    pub tools: Vec<ToolSpec>,
    /// How strongly a tool is asked for.
    pub tool_choice: ToolChoice,
    /// Whether several calls in one step are allowed. Off when the final tool
    /// is forced: strict schemas are not guaranteed for parallel calls.
    pub parallel_tool_calls: bool,
    /// Most tokens the model may generate in this step.
    pub max_tokens: u32,
    /// Sampling temperature, when set.
    pub temperature: Option<f32>,
}

impl ToolCall {
    /// The arguments as a JSON object, for wire formats that carry them as
    /// one (`{}` when the model's text is not an object).
    pub fn arguments_object(&self) -> Value {
        match serde_json::from_str::<Value>(&self.arguments) {
            Ok(v @ Value::Object(_)) => v,
            _ => Value::Object(Default::default()),
        }
    }
}
