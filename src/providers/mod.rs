//! Model providers, normalised (docs/architecture.md#providers).
//!
//! Each wire format has a pure, synchronous decoder that turns one server-sent
//! event into [`StreamEvent`]s; a [`StepBuilder`] folds those into one [`Step`]:
//! assistant text, tool calls accumulated by index, stop reason and usage.
//! Decoding is lenient: payloads are read as JSON values, unknown events and
//! fields are ignored, and the known quirks of OpenAI-compatible local servers
//! (calls without `index` or `id`, a whole call in one chunk, `finish_reason:
//! ""`, `usage: {}`) are tolerated. Quirks stay in the adapters; everything
//! after them sees only the normalised step.

mod anthropic;
mod caps;
pub mod conversation;
pub(crate) mod detect;
pub mod driven;
pub mod http;
pub(crate) mod keys;
mod openai;

use futures_util::future::BoxFuture;
use futures_util::{Stream, StreamExt};
use serde::{Deserialize, Serialize};

/// One thing a provider said while streaming.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamEvent {
    /// A piece of assistant text.
    Text(String),
    /// A tool call begins (or more of its identity arrives).
    ToolCallStart {
        /// Its position among this step's calls.
        index: usize,
        /// The provider's id for it, when given.
        id: Option<String>,
        /// The tool's name, when given.
        name: Option<String>,
    },
    /// A piece of a tool call's JSON arguments.
    ToolArgs {
        /// The call it belongs to.
        index: usize,
        /// The text to append.
        fragment: String,
    },
    /// Token counts (any field may be missing).
    Usage(Usage),
    /// Why the model stopped.
    Stop(StopReason),
    /// The server reported an error inside the stream.
    Error(String),
}

/// Tokens used by one step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: Option<u64>,
    /// Generated tokens.
    pub output_tokens: Option<u64>,
}

/// Why a model stopped, in one vocabulary for every provider.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// It finished its turn.
    EndTurn,
    /// It wants tools run.
    ToolUse,
    /// It ran out of tokens: the last tool call may be cut off.
    MaxTokens,
    /// A content filter stopped it.
    ContentFilter,
    /// It refused.
    Refusal,
    /// Something else, as the provider named it.
    Other(String),
}

/// A tool call as the model made it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id, or `tc_<n>` when it gave none.
    pub tool_call_id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as the model wrote them (JSON text, not yet validated).
    pub arguments: String,
    /// Whether the arguments are one whole JSON value and the stream did not
    /// end by running out of tokens. An incomplete call is never executed.
    pub complete: bool,
}

/// One normalised model step.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// The assistant's text.
    pub text: String,
    /// Its tool calls, in index order.
    pub tool_calls: Vec<ToolCall>,
    /// Why it stopped, if the stream said.
    pub stop: Option<StopReason>,
    /// Tokens used.
    pub usage: Usage,
    /// An error the server reported in the stream.
    pub error: Option<String>,
    /// Time from sending the request to the end of the stream (set by the
    /// transport; 0 for decoded recordings).
    pub latency_ms: u64,
    /// The model that answered (set by the transport).
    pub model: String,
}

/// Folds [`StreamEvent`]s into a [`Step`].
#[derive(Debug, Default)]
pub struct StepBuilder {
    text: String,
    calls: Vec<(Option<String>, Option<String>, String)>,
    stop: Option<StopReason>,
    usage: Usage,
    error: Option<String>,
}

impl StepBuilder {
    /// Takes in one event.
    pub fn push(&mut self, event: StreamEvent) {
        match event {
            StreamEvent::Text(text) => self.text.push_str(&text),
            StreamEvent::ToolCallStart { index, id, name } => {
                let call = self.call(index);
                if id.is_some() {
                    call.0 = id;
                }
                if let Some(name) = name.filter(|n| !n.is_empty()) {
                    call.1 = Some(name);
                }
            }
            StreamEvent::ToolArgs { index, fragment } => self.call(index).2.push_str(&fragment),
            StreamEvent::Usage(usage) => {
                self.usage.input_tokens = usage.input_tokens.or(self.usage.input_tokens);
                self.usage.output_tokens = usage.output_tokens.or(self.usage.output_tokens);
            }
            StreamEvent::Stop(stop) => self.stop = Some(stop),
            StreamEvent::Error(message) => self.error = Some(message),
        }
    }

    fn call(&mut self, index: usize) -> &mut (Option<String>, Option<String>, String) {
        if self.calls.len() <= index {
            self.calls.resize_with(index + 1, Default::default);
        }
        &mut self.calls[index]
    }

    /// The step so far.
    pub fn finish(self) -> Step {
        // The length limit cuts the call being written, the last one; the
        // ones before it ended before the limit.
        let truncated = self.stop == Some(StopReason::MaxTokens);
        let calls: Vec<_> = self
            .calls
            .into_iter()
            .enumerate()
            .filter(|(_, (id, name, args))| id.is_some() || name.is_some() || !args.is_empty())
            .collect();
        let last = calls.len().saturating_sub(1);
        let tool_calls = calls
            .into_iter()
            .enumerate()
            .map(|(position, (i, (id, name, args)))| {
                let truncated = truncated && position == last;
                // A call with no arguments at all (a tool without parameters) is `{}`.
                let arguments = if args.trim().is_empty() {
                    "{}".to_owned()
                } else {
                    args
                };
                let whole = serde_json::from_str::<serde_json::Value>(&arguments).is_ok();
                ToolCall {
                    tool_call_id: id.unwrap_or_else(|| format!("tc_{}", i + 1)),
                    complete: whole && !truncated && name.is_some(),
                    name: name.unwrap_or_default(),
                    arguments,
                }
            })
            .collect();
        Step {
            text: self.text,
            tool_calls,
            stop: self.stop,
            usage: self.usage,
            error: self.error,
            latency_ms: 0,
            model: String::new(),
        }
    }
}

/// The head of a payload, for an error message.
fn clip(text: &str) -> String {
    text.chars().take(200).collect()
}

/// The wire formats Redline speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    /// OpenAI Chat Completions (and Ollama, LM Studio, llama.cpp, vLLM).
    OpenAiChat,
    /// Anthropic Messages.
    AnthropicMessages,
}

impl From<crate::config::ProviderKind> for Protocol {
    /// The wire format a configured provider speaks.
    fn from(kind: crate::config::ProviderKind) -> Protocol {
        match kind {
            crate::config::ProviderKind::Openai => Protocol::OpenAiChat,
            crate::config::ProviderKind::Anthropic => Protocol::AnthropicMessages,
        }
    }
}

/// Why a stream could not be read.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// The byte stream failed, or its SSE framing is broken.
    #[error("the model's event stream broke: {0}")]
    Transport(String),
}

/// Reads a whole SSE byte stream in `protocol` into one step. Bytes may come
/// in chunks of any size, split anywhere.
pub async fn read_step<S, B, E>(protocol: Protocol, bytes: S) -> Result<Step, StreamError>
where
    S: Stream<Item = Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
    E: std::fmt::Display,
{
    read_step_with(protocol, bytes, &mut |_| {}).await
}

/// [`read_step`], showing `seen` every event as it is decoded (to stream
/// assistant text while the step is still running).
pub async fn read_step_with<S, B, E>(
    protocol: Protocol,
    bytes: S,
    seen: &mut (dyn FnMut(&StreamEvent) + Send),
) -> Result<Step, StreamError>
where
    S: Stream<Item = Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
    E: std::fmt::Display,
{
    use eventsource_stream::Eventsource;
    let mut events = bytes.eventsource();
    let mut builder = StepBuilder::default();
    let mut openai = openai::Decoder::default();
    while let Some(event) = events.next().await {
        let event = event.map_err(|e| StreamError::Transport(e.to_string()))?;
        let decoded = match protocol {
            Protocol::OpenAiChat => openai.decode(&event.data),
            Protocol::AnthropicMessages => anthropic::decode(&event.event, &event.data),
        };
        for e in decoded {
            seen(&e);
            builder.push(e);
        }
    }
    Ok(builder.finish())
}

/// What a provider reports while a step runs.
#[derive(Debug)]
pub enum Notice {
    /// A piece of assistant text, as it streams.
    Text(String),
    /// An attempt failed and will be retried after `delay_ms`.
    Retry {
        /// The retry's number (1 for the first).
        attempt: u32,
        /// How long it waits first.
        delay_ms: u64,
        /// What went wrong.
        error: ProviderError,
    },
}

/// A model backend. Adapters implement it; the agent loop sees
/// only [`Step`]s.
pub trait Provider: Send + Sync {
    /// The name events record for it (`openai`, `anthropic`, `local`, …).
    fn name(&self) -> &str;
    /// The model it asks.
    fn model(&self) -> &str;
    /// Takes one step: sends `request`, streams text and retries through
    /// `notices`, and returns the whole step. Dropping the future cancels it.
    fn step<'a>(
        &'a self,
        request: &'a conversation::StepRequest,
        notices: &'a mut (dyn FnMut(Notice) + Send),
    ) -> BoxFuture<'a, Result<Step, ProviderError>>;
}

/// The classes of provider failure; they decide retries and hybrid fallback.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ProviderErrorKind {
    /// A missing or refused key (401, 403): never retried.
    Auth,
    /// The request was refused as malformed (400, 404, 422): never retried.
    InvalidRequest,
    /// The conversation no longer fits the model's context: never retried.
    ContextOverflow,
    /// 429: retried after `retry-after` or a backoff.
    RateLimited,
    /// 529 or `overloaded_error`: retried with backoff.
    Overloaded,
    /// 5xx or an error inside the stream: retried a few times.
    Server,
    /// No answer in time: retried.
    Timeout,
    /// The connection failed or broke: retried.
    Transport,
    /// The server could not parse what the model generated (a weak model's
    /// broken tool call, as llama.cpp reports it): a malformed step for the
    /// loop to correct, never retried as it was.
    MalformedOutput,
    /// The agent driving the job went away (an external agent's client
    /// disconnected): never retried.
    Gone,
}

impl ProviderErrorKind {
    /// Whether an error of this class is worth another attempt.
    pub fn retryable(self) -> bool {
        !matches!(
            self,
            ProviderErrorKind::Auth
                | ProviderErrorKind::InvalidRequest
                | ProviderErrorKind::ContextOverflow
                | ProviderErrorKind::MalformedOutput
                | ProviderErrorKind::Gone
        )
    }
}

/// A provider call that failed for good.
#[derive(Clone, Debug, thiserror::Error, Serialize, Deserialize)]
#[error("{kind:?} error from the model provider{}: {message}", status.map(|s| format!(" (HTTP {s})")).unwrap_or_default())]
pub struct ProviderError {
    /// Its class.
    pub kind: ProviderErrorKind,
    /// The HTTP status, when there was one.
    pub status: Option<u16>,
    /// What the server (or the transport) said.
    pub message: String,
}

impl ProviderError {
    /// An error of `kind`.
    pub fn new(kind: ProviderErrorKind, status: Option<u16>, message: impl Into<String>) -> Self {
        ProviderError {
            kind,
            status,
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_accumulate_by_index_and_incomplete_ones_are_marked() {
        let mut b = StepBuilder::default();
        b.push(StreamEvent::ToolCallStart {
            index: 1,
            id: Some("b".into()),
            name: Some("read_file".into()),
        });
        b.push(StreamEvent::ToolCallStart {
            index: 0,
            id: Some("a".into()),
            name: Some("list_files".into()),
        });
        b.push(StreamEvent::ToolArgs {
            index: 1,
            fragment: "{\"file_path\":".into(),
        });
        b.push(StreamEvent::ToolArgs {
            index: 1,
            fragment: "\"x.md\"}".into(),
        });
        b.push(StreamEvent::Usage(Usage {
            input_tokens: Some(10),
            output_tokens: None,
        }));
        b.push(StreamEvent::Usage(Usage {
            input_tokens: None,
            output_tokens: Some(5),
        }));
        b.push(StreamEvent::Stop(StopReason::ToolUse));
        let step = b.finish();
        assert_eq!(step.tool_calls.len(), 2);
        assert_eq!(
            (
                step.tool_calls[0].arguments.as_str(),
                step.tool_calls[0].complete
            ),
            ("{}", true)
        );
        assert_eq!(step.tool_calls[1].arguments, "{\"file_path\":\"x.md\"}");
        assert_eq!(
            step.usage,
            Usage {
                input_tokens: Some(10),
                output_tokens: Some(5)
            }
        );

        let mut b = StepBuilder::default();
        b.push(StreamEvent::ToolCallStart {
            index: 0,
            id: None,
            name: Some("read_file".into()),
        });
        b.push(StreamEvent::ToolArgs {
            index: 0,
            fragment: "{\"file_pa".into(),
        });
        b.push(StreamEvent::Stop(StopReason::MaxTokens));
        let step = b.finish();
        assert_eq!(step.tool_calls[0].tool_call_id, "tc_1");
        assert!(
            !step.tool_calls[0].complete,
            "a call cut off by the length limit is never complete"
        );
    }
}
