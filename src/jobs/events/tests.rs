//! Every event round-trips with its type name.

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
        op: None,
    }
}

fn batch() -> ReviewBatch {
    ReviewBatch {
        job_ids: vec!["job_1".into()],
        status: Status::Accepted,
        hunks: 4_812,
        files: 4_790,
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
            files: 1,
        }),
        R::DiffGenerated(DiffGenerated { files: 1, hunks: 2 }),
        R::ReviewUpdated(ReviewUpdated {
            path: "a.md".into(),
            state: state(),
            hunk_id: Some("h_1".into()),
            status: Some(Status::Rejected),
            job_id: Some("job_2".into()),
            accepted: None,
        }),
        R::ReviewBatch(batch()),
        R::ApplyStarted(ApplyStarted { accepted: 1 }),
        R::ApplyProgress(ApplyProgress {
            done: 500,
            total: 5_000,
        }),
        R::ApplyCompleted(ApplyCompleted {
            written: 1,
            not_written: vec![AppliedFile {
                file_path: "b.md".into(),
                applied_hunks: 1,
                rejected_hunks: 0,
                status: "conflict".into(),
                message: Some("b.md changed on disk".into()),
            }],
            conflicts: 1,
            rerun_available: true,
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
            files: 2,
            operations: vec![crate::expand::Tally {
                notes_changed: 2,
                occurrences: 4,
                left_alone: [(crate::expand::Part::Code, 1)].into(),
                skipped: 0,
            }],
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
        A::FanOutPlanned(FanOutPlanned {
            tool_call_id: "call_5".into(),
            instruction: "Add a summary".into(),
            notes: 1000,
            protected: 2,
            projected_input_tokens: 900_000,
            projected_output_tokens: 60_000,
            projected_cost_usd: 2.5,
            needs_confirmation: true,
        }),
        A::FanOutProgress(FanOutProgress {
            done: 10,
            total: 1000,
            changed: 8,
            failed: 1,
            input_tokens: 9_000,
            output_tokens: 600,
            cost_usd: 0.02,
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
            R::ReviewBatch(_) => 30,
            R::ApplyProgress(_) => 31,
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
            A::FanOutPlanned(_) => 32,
            A::FanOutProgress(_) => 33,
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
        F::ReviewBatch(batch()),
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
        F::Moved(FileMoved {
            from: "a.md".into(),
            to: "Archive/a.md".into(),
            under_review: true,
        }),
        F::JobUpdated(JobUpdated {
            job_id: "job_1".into(),
            session_id: "sess_1".into(),
            status: JobStatus::WaitingForUser,
        }),
        F::Destructive(OutsideDestructive {
            job_id: "job_2".into(),
            files: vec!["a.md".into()],
            restore: vec!["h_9".into()],
        }),
        F::NotReviewable(OutsideNotReviewable {
            job_id: "job_3".into(),
            files: vec![crate::workspace::NotReviewable {
                path: "chart.png".into(),
                reason: crate::workspace::NotReviewableReason::NotText,
            }],
            message: "chart.png (not text)".into(),
            outside_changes: crate::config::OutsideMode::Review,
        }),
        F::McpConnected(McpConnected {
            client: "claude-code".into(),
            outside_changes: crate::config::OutsideMode::Record,
        }),
        F::AgentWrite(AgentWriteWaiting {
            agent: "Claude Code".into(),
            job_id: "job_4".into(),
            file_path: "a.md".into(),
        }),
        F::SaveProgress(ApplyProgress {
            done: 500,
            total: 1200,
        }),
        F::SavedAll(SavedAll {
            saved: vec!["Été/会議.md".into()],
            not_saved: vec![NotSaved {
                path: "a.md".into(),
                message: "changed on disk".into(),
            }],
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
                F::ReviewBatch(_) => 10,
                F::Moved(_) => 11,
                F::Destructive(_) => 12,
                F::NotReviewable(_) => 13,
                F::McpConnected(_) => 14,
                F::AgentWrite(_) => 15,
                F::SaveProgress(_) => 16,
                F::SavedAll(_) => 17,
            };
            (i, e)
        })
        .collect()
}

#[test]
fn lists_an_earlier_version_stored_in_events_read_as_their_counts() {
    use RuntimeEvent as R;
    let read = |kind: &str, data: &str| JobEvent::decode(kind, data).unwrap();
    assert_eq!(
        read(
            "checkpoint.created",
            r#"{"checkpoint_id": "cp_1", "files": ["a.md", "b.md"]}"#
        ),
        JobEvent::Runtime(R::CheckpointCreated(CheckpointCreated {
            checkpoint_id: "cp_1".into(),
            files: 2
        }))
    );
    assert_eq!(
        read(
            "diff.generated",
            r#"{"files": 1, "hunks": 2, "hunk_ids": ["h_1", "h_2"]}"#
        ),
        JobEvent::Runtime(R::DiffGenerated(DiffGenerated { files: 1, hunks: 2 }))
    );
    assert_eq!(
        read(
            "apply.started",
            r#"{"accepted_hunk_ids": ["h_1", "h_2", "h_3"]}"#
        ),
        JobEvent::Runtime(R::ApplyStarted(ApplyStarted { accepted: 3 }))
    );
    let applied = r#"{"applied_files": [{"file_path": "a.md", "applied_hunks": 1, "rejected_hunks": 0, "status": "applied"}], "conflicts": 0, "rerun_available": false}"#;
    assert!(matches!(
        read("apply.completed", applied),
        JobEvent::Runtime(R::ApplyCompleted(ApplyCompleted { conflicts: 0, .. }))
    ));
    assert_eq!(
        read(
            "edits.proposed",
            r#"{"tool_call_id": "c", "edits": 3, "files": ["a.md"]}"#
        ),
        JobEvent::Agent(AgentEvent::EditsProposed(EditsProposed {
            tool_call_id: "c".into(),
            edits: 3,
            files: 1,
            operations: Vec::new(),
        }))
    );
}

#[test]
fn every_job_event_round_trips_with_its_type_name() {
    let samples = job_samples();
    let positions: std::collections::BTreeSet<usize> = samples.iter().map(|s| s.0).collect();
    assert_eq!(positions, (0..34).collect(), "one sample of each variant");
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
    assert_eq!(positions, (0..18).collect(), "one sample of each variant");
    for (_, event) in samples {
        let json = serde_json::to_value(&event).unwrap();
        assert_eq!(json["type"], event.kind(), "{json}");
        assert_eq!(serde_json::from_value::<FeedEvent>(json).unwrap(), event);
    }
}

#[test]
fn a_job_event_has_the_wire_shape_of_the_log() {
    let event = super::super::shapes::Event {
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
