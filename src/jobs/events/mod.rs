//! The two event streams, as types: a job's log ([`JobEvent`]: the runtime's
//! own events and the agent loop's [`AgentEvent`]s) and the project feed
//! ([`FeedEvent`]). Every event is `{"type": "<name>", "data": {...}}` on the
//! wire, and a discriminated union in the UI's TypeScript.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::named_events::named_events;

use crate::agent::{AgentEvent, FallbackReason, JobUsage};
use crate::checkpoints::{RollbackMode, RollbackReport};
use crate::config::AgentMode;
use crate::review::Status;
use crate::workspace::{AppliedFile, FileChange, FileState, Keep};

use super::shapes::JobStatus;

/// An event of a job's log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(untagged)]
pub enum JobEvent {
    /// What the runtime records around the loop.
    Runtime(RuntimeEvent),
    /// What the agent loop reports.
    Agent(AgentEvent),
}

impl JobEvent {
    /// The event's type name, e.g. `job.status`.
    pub fn kind(&self) -> &'static str {
        match self {
            JobEvent::Runtime(e) => e.kind(),
            JobEvent::Agent(e) => e.kind(),
        }
    }

    /// Its payload as JSON.
    pub fn data(&self) -> Value {
        let mut whole = serde_json::to_value(self).expect("events serialize");
        whole["data"].take()
    }

    /// Reads an event back from its type name and its payload's JSON text.
    pub fn decode(kind: &str, data: &str) -> Result<JobEvent, serde_json::Error> {
        let kind = serde_json::to_string(kind)?;
        serde_json::from_str(&format!(r#"{{"type":{kind},"data":{data}}}"#))
    }

    /// Whether the log keeps it past its event cap: a job's own `job.*`
    /// events, so its end is always recorded.
    pub fn always_kept(&self) -> bool {
        self.kind().starts_with("job.")
    }
}

impl From<AgentEvent> for JobEvent {
    fn from(e: AgentEvent) -> JobEvent {
        JobEvent::Agent(e)
    }
}

impl From<RuntimeEvent> for JobEvent {
    fn from(e: RuntimeEvent) -> JobEvent {
        JobEvent::Runtime(e)
    }
}

named_events! {
/// An event the job runtime records.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub enum RuntimeEvent {
    /// The job was created.
    Queued(JobQueued) = "job.queued",
    /// The agent started on it.
    Started(JobBegan) = "job.started",
    /// Its status changed; the last event of a finished job.
    Status(StatusChanged) = "job.status",
    /// Its edits are staged for review.
    AwaitingReview(JobStaged) = "job.awaiting_review",
    /// A budget ended it, with what it proposed, if anything.
    BudgetExceeded(JobOverBudget) = "job.budget_exceeded",
    /// It ended with nothing to change (or an answer in prose).
    Completed(JobAnswered) = "job.completed",
    /// It failed.
    Failed(JobFailed) = "job.failed",
    /// The user cancelled it.
    Cancelled(JobCancelled) = "job.cancelled",
    /// A provider of the chain took it on.
    ProviderSelected(ProviderSelected) = "provider.selected",
    /// `hybrid_auto` moved it to the next provider.
    ProviderFallback(ProviderFallback) = "provider.fallback",
    /// The checkpoint before its proposal was taken.
    CheckpointCreated(CheckpointCreated) = "checkpoint.created",
    /// Its hunks were computed.
    DiffGenerated(DiffGenerated) = "diff.generated",
    /// One of its hunks was decided.
    ReviewUpdated(ReviewUpdated) = "review.updated",
    /// Many of its hunks were decided at once (a pattern, every unflagged one).
    ReviewBatch(ReviewBatch) = "review.batch",
    /// Its review is being applied.
    ApplyStarted(ApplyStarted) = "apply.started",
    /// How far a long apply has come.
    ApplyProgress(ApplyProgress) = "apply.progress",
    /// Its review was applied (or conflicted).
    ApplyCompleted(ApplyCompleted) = "apply.completed",
    /// Every hunk of it was decided and the files saved: the job is complete
    /// without an apply.
    ReviewFinished(ReviewFinished) = "review.finished",
}
}

/// `job.queued`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct JobQueued {
    /// `queued`.
    pub status: JobStatus,
    /// The job it re-runs, if any.
    pub rerun_of: Option<String>,
}

/// `job.started`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct JobBegan {
    /// What the user asked.
    pub instruction: String,
}

/// `job.status`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct StatusChanged {
    /// The status now.
    pub status: JobStatus,
    /// The question it waits on, while `waiting_for_user`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub question_id: Option<String>,
}

/// `job.awaiting_review`: what was staged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct JobStaged {
    /// The checkpoint taken before staging.
    pub checkpoint_id: String,
    /// Edits staged.
    pub edits: usize,
    /// Files they touch.
    pub files: usize,
    /// Hunks to review.
    pub hunks: usize,
    /// The agent's summary.
    pub summary: Option<String>,
    /// What the job used.
    pub usage: JobUsage,
}

/// `job.budget_exceeded`: what the forced final step staged, if anything.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct JobOverBudget {
    /// The checkpoint taken before staging, if something was staged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub checkpoint_id: Option<String>,
    /// Edits staged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub edits: Option<usize>,
    /// Files they touch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub files: Option<usize>,
    /// Hunks to review.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub hunks: Option<usize>,
    /// The agent's summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub summary: Option<String>,
    /// What the job used.
    pub usage: JobUsage,
}

/// `job.completed` from the loop: the agent's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct JobAnswered {
    /// What the agent said.
    pub summary: String,
    /// What the job used.
    pub usage: JobUsage,
}

/// `job.failed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct JobFailed {
    /// A stable code (see `JobError`).
    pub code: String,
    /// What happened.
    pub message: String,
    /// What the job used.
    pub usage: JobUsage,
}

/// `job.cancelled`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct JobCancelled {
    /// What the job used.
    pub usage: JobUsage,
}

/// `provider.selected`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ProviderSelected {
    /// The provider.
    pub provider: String,
    /// Its configured model.
    pub model: String,
    /// The `agent_mode` in force.
    pub mode: AgentMode,
    /// Its place in the chain, from 0.
    pub attempt: usize,
}

/// `provider.fallback`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ProviderFallback {
    /// The provider given up on.
    pub from: String,
    /// The next one.
    pub to: String,
    /// The trigger.
    pub reason: Option<FallbackReason>,
    /// What the failure said, if it was one.
    pub detail: Option<String>,
}

/// `checkpoint.created`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CheckpointCreated {
    /// The checkpoint.
    pub checkpoint_id: String,
    /// How many files it covers (the checkpoint lists them; an earlier
    /// version's list reads as its length).
    #[serde(deserialize_with = "crate::named_events::count_or_list")]
    pub files: usize,
}

/// `diff.generated`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DiffGenerated {
    /// Files with hunks.
    pub files: usize,
    /// Hunks (the job's bundle has them).
    pub hunks: usize,
}

/// `review.updated`: a decision on one hunk (`hunk_id`, `status`, `job_id`),
/// or every pending hunk of a file accepted at once (`accepted`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ReviewUpdated {
    /// The file.
    pub path: String,
    /// Its review state now.
    pub state: FileState,
    /// The hunk decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub hunk_id: Option<String>,
    /// Its status now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub status: Option<Status>,
    /// The job it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub job_id: Option<String>,
    /// How many hunks were accepted at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub accepted: Option<usize>,
}

/// `review.batch`: many hunks decided as one step (one undo brings them
/// all back).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ReviewBatch {
    /// The jobs whose hunks moved.
    pub job_ids: Vec<String>,
    /// What they were set to (`pending`: an undo).
    pub status: Status,
    /// Hunks moved (those carried with them included).
    pub hunks: usize,
    /// Files they are in.
    pub files: usize,
}

/// `apply.progress` (and `save.progress`): files written so far of a long
/// apply (or Save all).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ApplyProgress {
    /// Files done.
    pub done: usize,
    /// Files in all.
    pub total: usize,
}

/// `apply.started`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ApplyStarted {
    /// How many hunks it accepts; the job's others are rejected (an
    /// earlier version's list of their ids reads as its length).
    #[serde(
        alias = "accepted_hunk_ids",
        deserialize_with = "crate::named_events::count_or_list"
    )]
    pub accepted: usize,
}

/// `apply.completed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ApplyCompleted {
    /// Files written.
    #[serde(default)]
    pub written: usize,
    /// The files not written, each with why (the response of the apply
    /// has every file; this log would hold thousands of lines per apply).
    #[serde(default)]
    pub not_written: Vec<AppliedFile>,
    /// Files not written because they changed on disk.
    pub conflicts: usize,
    /// Whether re-running the job on the current content is offered.
    pub rerun_available: bool,
}

/// `review.finished`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ReviewFinished {
    /// Hunks accepted (and saved).
    pub accepted: usize,
    /// Hunks rejected.
    pub rejected: usize,
}

named_events! {
/// An event of the project feed: what happened to the folder's files and
/// their review.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub enum FeedEvent {
    /// The user edited a working buffer.
    Edited(FileEdited) = "file.edited",
    /// A buffer was saved to disk.
    Saved(FileSaved) = "file.saved",
    /// Hunks were decided.
    ReviewUpdated(ReviewUpdated) = "review.updated",
    /// Many hunks were decided at once: the files they are in should be
    /// fetched again.
    ReviewBatch(ReviewBatch) = "review.batch",
    /// A file Redline holds nothing for changed on disk.
    Changed(FileChange) = "file.changed",
    /// A clean buffer took another program's change.
    Reloaded(FileChange) = "file.reloaded",
    /// Another program changed a file Redline holds edits for.
    Conflict(FileChange) = "file.conflict",
    /// A conflict was resolved.
    Resolved(FileResolved) = "file.resolved",
    /// A rollback ran.
    RollbackCompleted(RollbackCompleted) = "rollback.completed",
    /// A folder changed on disk (or the watcher lost track): the tree under
    /// `path` should be listed again.
    TreeChanged(TreeChanged) = "tree.changed",
    /// Another program moved (renamed) a file: the same bytes at a new
    /// path. A file under review moved with its review.
    Moved(FileMoved) = "file.moved",
    /// A job's status changed: any job's, Redline's own or an external
    /// agent's, so a window follows work it did not start (a proposal to
    /// review, a question to answer).
    JobUpdated(JobUpdated) = "job.updated",
    /// Another program deleted, emptied or cut down notes (or changed many
    /// at once): they are held for review, and rejecting `restore` puts
    /// them back.
    Destructive(OutsideDestructive) = "outside.destructive",
    /// Another program changed files Redline cannot review (not text, or
    /// with no copy of their text before): listed with their reasons.
    NotReviewable(OutsideNotReviewable) = "outside.not_reviewable",
    /// An MCP client connected: the window offers review mode for other
    /// programs' changes while one is, unless it is in force already.
    McpConnected(McpConnected) = "mcp.connected",
    /// A terminal agent's write was staged from its hook, and the agent
    /// waits for the user's review before it writes.
    AgentWrite(AgentWriteWaiting) = "agent.write",
    /// How far a long Save all has come.
    SaveProgress(ApplyProgress) = "save.progress",
    /// Save all wrote every file with unsaved work in one batch (those
    /// another program changed left unwritten): their states should be
    /// fetched again.
    SavedAll(SavedAll) = "files.saved",
}
}

/// What Save all did (`POST /api/files/save_all`, and `files.saved`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SavedAll {
    /// The files written, where the window shows them (a moved file at
    /// its target).
    pub saved: Vec<String>,
    /// The files left unwritten, each with why (another program changed it
    /// since Redline last read it: a conflict).
    pub not_saved: Vec<NotSaved>,
}

/// A file Save all did not write.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct NotSaved {
    /// The file.
    pub path: String,
    /// Why.
    pub message: String,
}

impl FeedEvent {
    /// The event for a change another program made.
    pub fn of_change(change: FileChange) -> FeedEvent {
        match change {
            FileChange::Changed { .. } => FeedEvent::Changed(change),
            FileChange::Reloaded { .. } => FeedEvent::Reloaded(change),
            FileChange::Conflict { .. } => FeedEvent::Conflict(change),
        }
    }
}

/// `file.edited`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct FileEdited {
    /// The file.
    pub path: String,
    /// The log entries the edit became.
    pub entry_ids: Vec<String>,
    /// The buffer's hash now.
    pub hash: String,
    /// Its review state now.
    pub state: FileState,
}

/// `file.saved`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct FileSaved {
    /// The file.
    pub path: String,
    /// Its hash on disk now.
    pub disk_hash: Option<String>,
    /// Its review state now.
    pub state: FileState,
}

/// `file.resolved`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct FileResolved {
    /// The file.
    pub path: String,
    /// The version kept.
    pub kept: Keep,
    /// The checkpoint holding the other one.
    pub checkpoint_id: String,
}

/// `rollback.completed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RollbackCompleted {
    /// The checkpoint rolled back to.
    pub checkpoint_id: String,
    /// How.
    pub mode: RollbackMode,
    /// What it did.
    pub report: RollbackReport,
}

/// `tree.changed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TreeChanged {
    /// The folder, relative to the root (`""`: the whole project).
    pub path: String,
}

/// `file.moved`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct FileMoved {
    /// Where the file was, relative to the root.
    pub from: String,
    /// Where it is now.
    pub to: String,
    /// Whether it was under review, and its review (pending hunks, unsaved
    /// edits) moved with it.
    pub under_review: bool,
}

/// `outside.destructive`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct OutsideDestructive {
    /// The job of the outside group.
    pub job_id: String,
    /// The files deleted, emptied or cut by more than half.
    pub files: Vec<String>,
    /// The hunks whose rejection (and a save) puts those files back.
    pub restore: Vec<String>,
}

/// `outside.not_reviewable`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct OutsideNotReviewable {
    /// The job of the outside group they are listed with.
    pub job_id: String,
    /// The files, each with why.
    pub files: Vec<crate::workspace::NotReviewable>,
    /// The first few of them with their reasons, in words.
    pub message: String,
    /// The mode they were taken in with: the window tells of them at once
    /// in review mode, and keeps record mode quiet for the user's editor.
    pub outside_changes: crate::config::OutsideMode,
}

/// `mcp.connected`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct McpConnected {
    /// The client's name, as it gave it.
    pub client: String,
    /// The mode other programs' changes are taken in with in this folder.
    pub outside_changes: crate::config::OutsideMode,
}

/// `agent.write`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AgentWriteWaiting {
    /// The agent, as the user knows it (`Claude Code`).
    pub agent: String,
    /// The write's job.
    pub job_id: String,
    /// The file it writes.
    pub file_path: String,
}

/// `job.updated`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct JobUpdated {
    /// The job.
    pub job_id: String,
    /// Its session.
    pub session_id: String,
    /// Its status now.
    pub status: JobStatus,
}

#[cfg(test)]
mod tests;
