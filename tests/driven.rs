//! Jobs driven by an external agent: its calls go through Redline's own
//! loop (the same checks, events, question card and staging), the loop's
//! answers come back to it, and an agent that goes away leaves nothing
//! half done.

#[path = "support/agent.rs"]
mod support;

use std::sync::Arc;

use redline::jobs::{JobStatus, RunRequest, ToolConfig};
use redline::providers::Protocol;
use redline::providers::driven::{DriveError, driven};
use serde_json::json;
use support::*;

fn external_job(h: &Harness, client: &str) -> (String, redline::providers::driven::Driver) {
    let session = h
        .runtime
        .create_session(Some(&format!("mcp:{client}")))
        .unwrap();
    let (provider, driver) = driven(&format!("mcp:{client}"));
    let job = h
        .runtime
        .run_driven(
            RunRequest {
                session_id: session.session_id,
                instruction: format!("Edits from {client}"),
                context_rows: Vec::new(),
                tool_config: ToolConfig::default(),
            },
            Arc::new(provider),
        )
        .unwrap();
    (job.job_id, driver)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_external_agent_searches_reads_asks_and_proposes_through_the_loop() {
    let h = harness(Protocol::OpenAiChat, vec![], |_| {}).await;
    let (job, driver) = external_job(&h, "claude-code");

    let found = driver
        .call("search_project", json!({ "query": "Owner" }))
        .await
        .unwrap();
    assert_eq!(found["total"], 2, "{found}");
    // The guard answers as it answers Redline's own agent.
    let refused = driver
        .call("read_file", json!({ "file_path": "../outside.md" }))
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, DriveError::Refused(m) if m.starts_with("escapes_root")),
        "{refused:?}"
    );
    let read = driver
        .call("read_file", json!({ "file_path": "notes/alpha.md" }))
        .await
        .unwrap();
    assert!(
        read["content"].as_str().unwrap().contains("Owner: Ann"),
        "{read}"
    );

    // A question shows as the job's question; the user's answer comes back.
    let asking = {
        let driver = driver.clone();
        tokio::spawn(async move {
            driver
                .call(
                    "clarify_user",
                    json!({ "question": "Who owns it now?", "suggested_answers": ["Bo", "Cy"] }),
                )
                .await
        })
    };
    h.events_until(&job, 0, |s| s == JobStatus::WaitingForUser)
        .await;
    let waiting = h.runtime.job(&job).unwrap();
    assert_eq!(
        waiting.pending_question.as_ref().unwrap().question,
        "Who owns it now?"
    );
    h.runtime
        .clarify(
            &job,
            &waiting.pending_question.unwrap().question_id,
            Some("Bo".into()),
        )
        .unwrap();
    let answer = asking.await.unwrap().unwrap();
    assert!(answer.to_string().contains("Bo"), "{answer}");

    // A proposal that does not verify is refused with its reasons; a good
    // one is staged and ends the job, awaiting review like any other.
    let bad = driver
        .call(
            "propose_edits",
            json!({ "edits": [{ "file_path": "notes/alpha.md", "operation": "replace",
                "start_line": 4, "end_line": 4, "new_text": "Owner: Bo\n", "old_text": "Owner: Zed" }] }),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&bad, DriveError::Refused(m) if m.contains("no edit was staged")),
        "{bad:?}"
    );
    let staged = driver
        .call(
            "propose_edits",
            json!({ "edits": [{ "file_path": "notes/alpha.md", "operation": "replace",
                "start_line": 4, "end_line": 4, "new_text": "Owner: Bo\n", "old_text": "Owner: Ann" }],
                "summary": "Alpha goes to Bo." }),
        )
        .await;
    assert_eq!(staged, Err(DriveError::Ended));
    let events = h.events_until(&job, 0, JobStatus::is_terminal).await;
    let done = h.runtime.job(&job).unwrap();
    assert_eq!(
        done.status,
        JobStatus::AwaitingReview,
        "{:?}",
        kinds(&events)
    );
    let bundle = done.diff_bundle.unwrap();
    assert_eq!(bundle.files.len(), 1);
    assert_eq!(bundle.files[0].file_path, "notes/alpha.md");
    assert_eq!(done.provider.as_deref(), Some("mcp:claude-code"));
    // The timeline shows what the external agent did, as for Redline's agent.
    let tools = strings(&events, "tool.call.requested", "tool");
    assert_eq!(
        tools,
        [
            "search_project",
            "read_file",
            "read_file",
            "clarify_user",
            "propose_edits",
            "propose_edits"
        ]
    );
    // Nothing reached the disk: the proposal waits for review.
    assert_eq!(h.read("notes/alpha.md"), ALPHA);
    assert!(!driver.is_open());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_goes_away_leaves_nothing_half_done() {
    let h = harness(Protocol::OpenAiChat, vec![], |_| {}).await;
    let (job, driver) = external_job(&h, "codex");
    driver.call("list_files", json!({})).await.unwrap();
    drop(driver);
    h.events_until(&job, 0, JobStatus::is_terminal).await;
    let ended = h.runtime.job(&job).unwrap();
    assert_eq!(ended.status, JobStatus::Failed);
    let error = ended.error.unwrap();
    assert_eq!(error.code, "gone", "{error:?}");
    assert!(ended.diff_bundle.is_none());
    assert_eq!(h.read("notes/alpha.md"), ALPHA);
}
