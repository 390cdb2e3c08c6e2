//! A provider whose steps are another agent's tool calls. An external agent
//! (a Claude Code or Codex session over MCP) does its own thinking; what it
//! asks Redline to do goes through the same loop as Redline's own agent — the
//! same checks, limits, events, question card and staging — by being handed
//! to the loop as the "model's" next tool call. The loop's answer to that
//! call is the external agent's result.
//!
//! [`driven`] makes the pair: the [`Driven`] provider for the job, and the
//! [`Driver`] the external agent's adapter holds. Dropping the driver ends
//! the job's next step with [`ProviderErrorKind::Gone`]: a job whose agent
//! went away fails with nothing staged, and what it staged before stays.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use futures_util::future::BoxFuture;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::conversation::{Message, StepRequest};
use super::{Notice, Provider, ProviderError, ProviderErrorKind, Step, StopReason, ToolCall};

/// What became of one call.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DriveError {
    /// The loop answered it with an error (a refused path, a refused
    /// proposal, a spent budget): the message says why.
    #[error("{0}")]
    Refused(String),
    /// The job ended before answering it: it staged a proposal, or failed,
    /// or was cancelled. The job's record says which.
    #[error("the job ended")]
    Ended,
}

/// Where the answer to one call goes: its value, or the loop's error message.
type Reply = oneshot::Sender<Result<Value, String>>;

/// One call of the external agent, and where its answer goes.
struct Call {
    name: String,
    arguments: Value,
    reply: Reply,
}

/// The job's side: each step is the external agent's next call.
pub struct Driven {
    name: String,
    calls: tokio::sync::Mutex<mpsc::Receiver<Call>>,
    /// The call handed to the loop last, waiting for its answer.
    waiting: Mutex<Option<(String, Reply)>>,
    next_id: AtomicU64,
}

/// The external agent's side: sends calls into the job.
#[derive(Clone)]
pub struct Driver {
    calls: mpsc::Sender<Call>,
}

/// A provider named `name` (e.g. `mcp:claude-code`) and the driver that feeds it.
pub fn driven(name: &str) -> (Driven, Driver) {
    let (tx, rx) = mpsc::channel(1);
    (
        Driven {
            name: name.to_owned(),
            calls: tokio::sync::Mutex::new(rx),
            waiting: Mutex::new(None),
            next_id: AtomicU64::new(1),
        },
        Driver { calls: tx },
    )
}

impl Driver {
    /// Hands `name(arguments)` to the job and waits for the loop's answer.
    /// [`DriveError::Ended`] when the job ended first (or had ended).
    pub async fn call(&self, name: &str, arguments: Value) -> Result<Value, DriveError> {
        let (reply, answer) = oneshot::channel();
        let call = Call {
            name: name.to_owned(),
            arguments,
            reply,
        };
        self.calls.send(call).await.map_err(|_| DriveError::Ended)?;
        match answer.await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(message)) => Err(DriveError::Refused(message)),
            Err(_) => Err(DriveError::Ended),
        }
    }

    /// Whether the job still takes calls.
    pub fn is_open(&self) -> bool {
        !self.calls.is_closed()
    }
}

impl Driven {
    /// Answers the call waiting for its result, from the loop's tool result
    /// for it in `request`.
    fn answer(&self, request: &StepRequest) {
        let Some((id, reply)) = self.waiting.lock().unwrap().take() else {
            return;
        };
        let result = request.messages.iter().rev().find_map(|m| match m {
            Message::Tool(r) if r.tool_call_id == id => Some(r),
            _ => None,
        });
        let Some(result) = result else {
            let _ = reply.send(Err("the call was not answered".into()));
            return;
        };
        // Tools answer with JSON objects; the question card with the user's
        // words, kept as text even when they parse as JSON (`42`, `true`).
        let value = serde_json::from_str::<Value>(&result.content)
            .ok()
            .filter(|v| v.is_object() || v.is_array())
            .unwrap_or_else(|| Value::String(result.content.clone()));
        let _ = reply.send(if result.is_error {
            let message = value["error"]
                .as_str()
                .map_or_else(|| result.content.clone(), str::to_owned);
            Err(message)
        } else {
            Ok(value)
        });
    }
}

impl Provider for Driven {
    fn name(&self) -> &str {
        &self.name
    }

    fn model(&self) -> &str {
        &self.name
    }

    fn step<'a>(
        &'a self,
        request: &'a StepRequest,
        _notices: &'a mut (dyn FnMut(Notice) + Send),
    ) -> BoxFuture<'a, Result<Step, ProviderError>> {
        Box::pin(async move {
            self.answer(request);
            let Some(call) = self.calls.lock().await.recv().await else {
                return Err(ProviderError::new(
                    ProviderErrorKind::Gone,
                    None,
                    format!("{} went away", self.name),
                ));
            };
            let id = format!("ext_{}", self.next_id.fetch_add(1, Ordering::Relaxed));
            *self.waiting.lock().unwrap() = Some((id.clone(), call.reply));
            Ok(Step {
                tool_calls: vec![ToolCall {
                    tool_call_id: id,
                    name: call.name,
                    arguments: call.arguments.to_string(),
                    complete: true,
                }],
                stop: Some(StopReason::ToolUse),
                ..Step::default()
            })
        })
    }
}
