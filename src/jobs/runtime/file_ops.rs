//! The user's own moves and deletions (from the file tree) go the agent's
//! way: a job of their own, in a session named `files`, whose one step is a
//! `propose_edits` call with the operation. The same checks refuse what
//! cannot be done, the engine rewrites the links a move would break, and the
//! user reviews it like any proposal — nothing moves before it is accepted.

use std::sync::Arc;

use serde_json::json;

use super::Runtime;
use crate::agent::AgentEvent;
use crate::agent::events::EditsRefused;
use crate::agent::toolset::PROPOSE_EDITS;
use crate::edits::FileOp;
use crate::jobs::error::RuntimeError;
use crate::jobs::{Job, JobEvent, JobStatus, RunRequest, ToolConfig};
use crate::providers::driven::{DriveError, driven};

/// The session and source name of the file tree's proposals.
pub(super) const FILES: &str = "files";

impl Runtime {
    /// Proposes moving (renaming) or deleting the file at `path` as the
    /// user asked from the file tree: returns the job once its proposal is
    /// staged (`awaiting_review`), with the link rewrites a move brings.
    /// A refused operation (a file already at the target, a path the guard
    /// refuses) is an `invalid` error saying why, and stages nothing.
    pub async fn propose_file_op(&self, path: &str, op: FileOp) -> Result<Job, RuntimeError> {
        let (instruction, edit) = match &op {
            FileOp::Move { to } => (
                format!("Move {path} to {to}"),
                json!({ "file_path": path, "operation": "move", "new_path": to }),
            ),
            FileOp::Delete => (
                format!("Delete {path}"),
                json!({ "file_path": path, "operation": "delete_file" }),
            ),
        };
        let what = if op == FileOp::Delete {
            "deletion"
        } else {
            "move"
        };
        let args = json!({ "edits": [edit], "summary": instruction });
        self.propose_as_user(FILES, &instruction, args, what).await
    }

    /// Stages `args` (a `propose_edits` call) as a job of the session
    /// `name`, asked by the user with `instruction`: returns the job once
    /// it awaits review. A refusal is an `invalid` error saying why, with
    /// nothing staged; `what` names the proposal in the message of a job
    /// that ended otherwise.
    pub(super) async fn propose_as_user(
        &self,
        name: &str,
        instruction: &str,
        args: serde_json::Value,
        what: &str,
    ) -> Result<Job, RuntimeError> {
        self.propose_after_reading(name, instruction, None, args, what)
            .await
    }

    /// [`Runtime::propose_as_user`], the file `read` read in the job first
    /// when given: what proposes read it before (a terminal agent reads a
    /// note before it edits it), so the review does not flag it unread.
    pub(super) async fn propose_after_reading(
        &self,
        name: &str,
        instruction: &str,
        read: Option<&str>,
        args: serde_json::Value,
        what: &str,
    ) -> Result<Job, RuntimeError> {
        let session = self.external_session(name)?;
        let (provider, driver) = driven(&format!("mcp:{name}"));
        let job = self.run_driven(
            RunRequest {
                session_id: session.session_id,
                instruction: instruction.to_owned(),
                context_rows: Vec::new(),
                tool_config: ToolConfig {
                    max_tool_calls: Some(2 + usize::from(read.is_some())),
                },
            },
            Arc::new(provider),
        )?;
        if let Some(path) = read {
            // A file that cannot be read is the proposal's to refuse.
            let _ = driver
                .call("read_file", json!({ "file_path": path, "end_line": 1 }))
                .await;
        }
        let call = driver.call(PROPOSE_EDITS, args).await;
        // A refused proposal leaves the job waiting for a next call: ending
        // it (the driver dropped) fails it with nothing staged.
        drop(driver);
        let refusal = self.until_settled(&job.job_id).await;
        if let Err(DriveError::Refused(told)) = call {
            // The loop's answer is worded for a model ("call propose_edits
            // again"); the user reads the refused edits' own reasons.
            return Err(RuntimeError::Invalid(refusal.map_or(told, refused_words)));
        }
        let job = self.job(&job.job_id)?;
        match job.status {
            JobStatus::AwaitingReview => Ok(job),
            status => Err(RuntimeError::Invalid(format!(
                "the {what} was not staged: the job ended {}{}",
                status.as_str(),
                job.error
                    .as_ref()
                    .map(|e| format!(" ({})", e.message))
                    .unwrap_or_default()
            ))),
        }
    }

    /// Waits until `job_id` no longer runs (it awaits review, or ended);
    /// returns the last refusal of a proposal its log holds, if any.
    async fn until_settled(&self, job_id: &str) -> Option<EditsRefused> {
        let mut cursor = 0;
        let mut refused = None;
        for _ in 0..20 {
            let Ok(page) = self.events(job_id, cursor, 500).await else {
                break;
            };
            refused = page
                .events
                .into_iter()
                .rev()
                .find_map(|e| match e.event {
                    JobEvent::Agent(AgentEvent::EditsRefused(r)) => Some(r),
                    _ => None,
                })
                .or(refused);
            cursor = page.next_cursor;
            if page.status != JobStatus::Queued && page.status != JobStatus::Running {
                break;
            }
        }
        refused
    }
}

/// A refused proposal in the user's words: each refused edit's reason,
/// or the refusal's own message.
fn refused_words(refused: EditsRefused) -> String {
    if refused.errors.is_empty() {
        return refused.message.unwrap_or_else(|| "refused".into());
    }
    refused
        .errors
        .into_iter()
        .map(|e| e.message)
        .collect::<Vec<_>>()
        .join("; ")
}
