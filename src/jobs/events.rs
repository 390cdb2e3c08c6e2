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

use super::model::JobStatus;

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
    /// Its review is being applied.
    ApplyStarted(ApplyStarted) = "apply.started",
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
    /// The files it covers.
    pub files: Vec<String>,
}

/// `diff.generated`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DiffGenerated {
    /// Files with hunks.
    pub files: usize,
    /// Hunks.
    pub hunks: usize,
    /// Their ids, in the bundle's order.
    pub hunk_ids: Vec<String>,
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

/// `apply.started`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ApplyStarted {
    /// The hunks to accept; the job's others are rejected.
    pub accepted_hunk_ids: Vec<String>,
}

/// `apply.completed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ApplyCompleted {
    /// Per file.
    pub applied_files: Vec<AppliedFile>,
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
    /// A job's status changed: any job's, Redline's own or an external
    /// agent's, so a window follows work it did not start (a proposal to
    /// review, a question to answer).
    JobUpdated(JobUpdated) = "job.updated",
}
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
mod tests {
    use super::*;
    use crate::agent::events::*;
    use crate::agent::{FallbackReason, JobUsage};
    use crate::providers::ProviderErrorKind;

    fn usage() -> JobUsage {
        JobUsage {
            steps: 2,
            tool_calls: 1,
            input_tokens: 300,
            output_tokens: 40,
            cost_usd: 0.25,
        }
    }

    fn budget() -> Budget {
        Budget {
            tool_calls: 10,
            max_tool_calls: 12,
            tokens: 900,
            max_tokens: 1000,
            cost_usd: 0.5,
        }
    }

    fn state() -> FileState {
        FileState {
            under_review: true,
            dirty: true,
            pending_hunks: vec!["h_2".into()],
            conflict: false,
        }
    }

    /// One event of every kind, each variant's position in its enum beside
    /// it: a new variant fails to compile here until it has a sample.
    fn job_samples() -> Vec<(usize, JobEvent)> {
        use RuntimeEvent as R;
        let runtime = [
            R::Queued(JobQueued {
                status: JobStatus::Queued,
                rerun_of: Some("job_1".into()),
            }),
            R::Started(JobBegan {
                instruction: "Rename Atlas".into(),
            }),
            R::Status(StatusChanged {
                status: JobStatus::WaitingForUser,
                question_id: Some("q_1".into()),
            }),
            R::AwaitingReview(JobStaged {
                checkpoint_id: "cp_1".into(),
                edits: 2,
                files: 1,
                hunks: 2,
                summary: Some("Renamed".into()),
                usage: usage(),
            }),
            R::BudgetExceeded(JobOverBudget {
                checkpoint_id: None,
                edits: None,
                files: None,
                hunks: None,
                summary: None,
                usage: usage(),
            }),
            R::Completed(JobAnswered {
                summary: "Nothing to change".into(),
                usage: usage(),
            }),
            R::Failed(JobFailed {
                code: "auth".into(),
                message: "401".into(),
                usage: usage(),
            }),
            R::Cancelled(JobCancelled { usage: usage() }),
            R::ProviderSelected(ProviderSelected {
                provider: "local".into(),
                model: "smollm2".into(),
                mode: AgentMode::HybridAuto,
                attempt: 0,
            }),
            R::ProviderFallback(ProviderFallback {
                from: "local".into(),
                to: "openai".into(),
                reason: Some(FallbackReason::SchemaFailures),
                detail: Some("too many invalid calls".into()),
            }),
            R::CheckpointCreated(CheckpointCreated {
                checkpoint_id: "cp_1".into(),
                files: vec!["a.md".into()],
            }),
            R::DiffGenerated(DiffGenerated {
                files: 1,
                hunks: 2,
                hunk_ids: vec!["h_1".into(), "h_2".into()],
            }),
            R::ReviewUpdated(ReviewUpdated {
                path: "a.md".into(),
                state: state(),
                hunk_id: Some("h_1".into()),
                status: Some(Status::Rejected),
                job_id: Some("job_2".into()),
                accepted: None,
            }),
            R::ApplyStarted(ApplyStarted {
                accepted_hunk_ids: vec!["h_1".into()],
            }),
            R::ApplyCompleted(ApplyCompleted {
                applied_files: vec![AppliedFile {
                    file_path: "a.md".into(),
                    applied_hunks: 1,
                    rejected_hunks: 1,
                    status: "applied".into(),
                    message: None,
                }],
                conflicts: 0,
                rerun_available: false,
            }),
            R::ReviewFinished(ReviewFinished {
                accepted: 3,
                rejected: 1,
            }),
        ];
        use AgentEvent as A;
        let agent = [
            A::ModelStep(ModelStep {
                provider: "openai".into(),
                model: "gpt-4o-mini".into(),
                latency_ms: 800,
                stop_reason: "needs_tools".into(),
                input_tokens: 300,
                output_tokens: 40,
                tool_calls: 1,
                budget: budget(),
            }),
            A::AssistantDelta(AssistantDelta {
                text: "Looking…\n".into(),
            }),
            A::ProviderRetry(ProviderRetry {
                provider: "anthropic".into(),
                attempt: 2,
                delay_ms: 500,
                error: ProviderFault {
                    code: ProviderErrorKind::Overloaded,
                    status: Some(529),
                    message: "overloaded".into(),
                },
            }),
            A::ToolCallRequested(ToolCallRequested {
                tool_call_id: "call_1".into(),
                tool: "search_project".into(),
                arguments: serde_json::json!({ "query": "Atlas" }),
            }),
            A::ToolCallCompleted(ToolCallCompleted {
                tool_call_id: "call_1".into(),
                tool: "read_file".into(),
                ok: false,
                result_count: None,
                error: Some(ToolFailure {
                    code: "escapes_root".into(),
                    message: "outside the folder".into(),
                }),
            }),
            A::ToolCallFailed(ToolCallFailed {
                tool_call_id: "call_2".into(),
                tool: "Read-File".into(),
                code: "invalid_json".into(),
                message: "not JSON".into(),
            }),
            A::ClarificationRequested(ClarificationRequested {
                tool_call_id: "call_3".into(),
                question_id: "q_1".into(),
                question: "Which date format?".into(),
                suggested_answers: vec!["day/month/year".into()],
            }),
            A::ClarificationReceived(ClarificationReceived {
                question_id: "q_1".into(),
                skipped: true,
                answer: None,
            }),
            A::EditsProposed(EditsProposed {
                tool_call_id: "call_4".into(),
                edits: 3,
                files: vec!["a.md".into(), "b.md".into()],
            }),
            A::EditsRefused(EditsRefused {
                tool_call_id: "call_4".into(),
                errors: vec![EditProblem {
                    edit: "e_1".into(),
                    file_path: "a.md".into(),
                    code: "stale_target".into(),
                    message: "read it again".into(),
                }],
                message: None,
            }),
            A::BudgetWarning(budget()),
            A::BudgetExhausted(budget()),
            A::Reminded(Reminded {
                refusal: Some("edit e_1: stale".into()),
            }),
            A::Unreadable(Unreadable {
                message: "does not match the expected format".into(),
                failures: 2,
            }),
        ];
        let mut all = Vec::new();
        for e in runtime {
            let i = match &e {
                R::Queued(_) => 0,
                R::Started(_) => 1,
                R::Status(_) => 2,
                R::AwaitingReview(_) => 3,
                R::BudgetExceeded(_) => 4,
                R::Completed(_) => 5,
                R::Failed(_) => 6,
                R::Cancelled(_) => 7,
                R::ProviderSelected(_) => 8,
                R::ProviderFallback(_) => 9,
                R::CheckpointCreated(_) => 10,
                R::DiffGenerated(_) => 11,
                R::ReviewUpdated(_) => 12,
                R::ApplyStarted(_) => 13,
                R::ApplyCompleted(_) => 14,
                R::ReviewFinished(_) => 28,
            };
            all.push((i, JobEvent::Runtime(e)));
        }
        for e in agent {
            let i = match &e {
                A::ModelStep(_) => 15,
                A::AssistantDelta(_) => 16,
                A::ProviderRetry(_) => 17,
                A::ToolCallRequested(_) => 18,
                A::ToolCallCompleted(_) => 19,
                A::ToolCallFailed(_) => 20,
                A::ClarificationRequested(_) => 21,
                A::ClarificationReceived(_) => 22,
                A::EditsProposed(_) => 23,
                A::EditsRefused(_) => 24,
                A::BudgetWarning(_) => 25,
                A::BudgetExhausted(_) => 26,
                A::Reminded(_) => 27,
                A::Unreadable(_) => 29,
            };
            all.push((i, JobEvent::Agent(e)));
        }
        all
    }

    fn feed_samples() -> Vec<(usize, FeedEvent)> {
        use FeedEvent as F;
        let change = FileChange::Conflict {
            path: "a.md".into(),
            disk_hash: None,
            known_hash: Some("sha256:1".into()),
            state: state(),
        };
        let events = [
            F::Edited(FileEdited {
                path: "a.md".into(),
                entry_ids: vec!["c_1".into()],
                hash: "sha256:2".into(),
                state: state(),
            }),
            F::Saved(FileSaved {
                path: "a.md".into(),
                disk_hash: Some("sha256:3".into()),
                state: state(),
            }),
            F::ReviewUpdated(ReviewUpdated {
                path: "a.md".into(),
                state: state(),
                hunk_id: None,
                status: None,
                job_id: None,
                accepted: Some(3),
            }),
            F::Changed(FileChange::Changed {
                path: "b.md".into(),
                disk_hash: None,
            }),
            F::Reloaded(FileChange::Reloaded {
                path: "b.md".into(),
                disk_hash: Some("sha256:4".into()),
            }),
            F::Conflict(change),
            F::Resolved(FileResolved {
                path: "a.md".into(),
                kept: Keep::Mine,
                checkpoint_id: "cp_3".into(),
            }),
            F::RollbackCompleted(RollbackCompleted {
                checkpoint_id: "cp_1".into(),
                mode: RollbackMode::HardAll,
                report: RollbackReport {
                    undo_checkpoint_id: "cp_4".into(),
                    files: Vec::new(),
                },
            }),
            F::TreeChanged(TreeChanged {
                path: "Notes".into(),
            }),
            F::JobUpdated(JobUpdated {
                job_id: "job_1".into(),
                session_id: "sess_1".into(),
                status: JobStatus::WaitingForUser,
            }),
        ];
        events
            .into_iter()
            .map(|e| {
                let i = match &e {
                    F::Edited(_) => 0,
                    F::Saved(_) => 1,
                    F::ReviewUpdated(_) => 2,
                    F::Changed(_) => 3,
                    F::Reloaded(_) => 4,
                    F::Conflict(_) => 5,
                    F::Resolved(_) => 6,
                    F::RollbackCompleted(_) => 7,
                    F::TreeChanged(_) => 8,
                    F::JobUpdated(_) => 9,
                };
                (i, e)
            })
            .collect()
    }

    #[test]
    fn every_job_event_round_trips_with_its_type_name() {
        let samples = job_samples();
        let positions: std::collections::BTreeSet<usize> = samples.iter().map(|s| s.0).collect();
        assert_eq!(positions, (0..30).collect(), "one sample of each variant");
        let mut kinds = std::collections::BTreeSet::new();
        for (_, event) in samples {
            let json = serde_json::to_value(&event).unwrap();
            assert_eq!(json["type"], event.kind(), "{json}");
            assert_eq!(
                json.as_object().unwrap().len(),
                2,
                "only type and data: {json}"
            );
            assert_eq!(json["data"], event.data());
            assert_eq!(serde_json::from_value::<JobEvent>(json).unwrap(), event);
            let stored = event.data().to_string();
            assert_eq!(JobEvent::decode(event.kind(), &stored).unwrap(), event);
            assert!(kinds.insert(event.kind()), "{} named twice", event.kind());
        }
    }

    #[test]
    fn every_feed_event_round_trips_with_its_type_name() {
        let samples = feed_samples();
        let positions: std::collections::BTreeSet<usize> = samples.iter().map(|s| s.0).collect();
        assert_eq!(positions, (0..10).collect(), "one sample of each variant");
        for (_, event) in samples {
            let json = serde_json::to_value(&event).unwrap();
            assert_eq!(json["type"], event.kind(), "{json}");
            assert_eq!(serde_json::from_value::<FeedEvent>(json).unwrap(), event);
        }
    }

    #[test]
    fn a_job_event_has_the_wire_shape_of_the_log() {
        let event = super::super::model::Event {
            cursor: 7,
            ts: "2026-11-23T10:00:00.000Z".into(),
            event: JobEvent::Runtime(RuntimeEvent::Status(StatusChanged {
                status: JobStatus::Completed,
                question_id: None,
            })),
        };
        assert_eq!(
            serde_json::to_value(&event).unwrap(),
            serde_json::json!({ "cursor": 7, "ts": "2026-11-23T10:00:00.000Z",
                                "type": "job.status", "data": { "status": "completed" } })
        );
        assert!(event.event.always_kept());
    }
}
