//! `redline mcp` driven by a real MCP client: the protocol's official Python
//! SDK (`mcp` on PyPI, `tests/mcp/stdio_client.py`) over stdio — the tool
//! list and schemas, search, list and read, hostile paths refused with the
//! API's codes, a proposal staged and its status read back, the session's
//! limits on proposals and calls answered as `limit_reached`. Then Redline
//! opens the folder as the app would, with no MCP server running: the
//! client's proposal is in its review, in a session named after the client,
//! and nothing reached the disk; and a `redline serve` started later shows
//! it under the client's name.
//!
//! Needs `REDLINE_MCP_PYTHON`, a Python with `mcp` installed (`scripts/test`
//! makes one); skipped without it unless `REDLINE_REQUIRE_MCP` is set.

#[path = "support/mcp.rs"]
mod mcp;
#[path = "support/agent.rs"]
mod support;

use redline::jobs::Runtime;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_mcp_client_reads_and_proposes_for_review() {
    let Some(python) = mcp::python() else { return };
    let vault = tempfile::tempdir().unwrap();
    write_vault(vault.path());
    let data = tempfile::tempdir().unwrap();
    // Small session limits, for the client to run into.
    std::fs::write(
        data.path().join("config.toml"),
        "[limits]\nmax_mcp_proposals_per_session = 1\nmax_mcp_calls_per_session = 10\n",
    )
    .unwrap();
    let redline = std::ffi::OsStr::new(env!("CARGO_BIN_EXE_redline"));
    let said = mcp::run_client(
        &python,
        "stdio_client.py",
        &[redline, vault.path().as_os_str(), data.path().as_os_str()],
    );
    let job_id = said["job_id"].as_str().unwrap();

    // Redline opened later on the same folder: the review is there.
    let runtime = Runtime::open(vault.path(), config(data.path())).unwrap();
    let job = runtime.job(job_id).unwrap();
    assert_eq!(job.status, redline::jobs::JobStatus::AwaitingReview);
    let session = runtime.session(&job.session_id).unwrap();
    assert_eq!(session.agent_id, "mcp:py-agent");
    assert_eq!(session.name.as_deref(), Some("py-agent"));
    let queue = runtime.review_queue().unwrap();
    let pending: Vec<&str> = queue
        .jobs
        .iter()
        .filter(|g| g.job_id.as_deref() == Some(job_id))
        .flat_map(|g| g.hunks.iter().map(|h| h.hunk_id.as_str()))
        .collect();
    assert_eq!(
        pending,
        said["hunks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h.as_str().unwrap())
            .collect::<Vec<_>>()
    );
    let alpha = runtime.file_content("notes/alpha.md").unwrap();
    assert!(alpha.text.contains("Owner: Bo"), "{}", alpha.text);
    assert_eq!(
        std::fs::read_to_string(vault.path().join("notes/alpha.md")).unwrap(),
        ALPHA,
        "nothing reaches the disk before the user decides"
    );
    runtime.shutdown();

    // And in a `redline serve` started later, grouped under the client.
    let serve = mcp::Serve::start(vault.path(), data.path());
    let queue = serve.get("/api/review").await;
    let group = queue["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["job_id"] == job_id)
        .expect("the proposal is in the review");
    assert_eq!(group["source"], "py-agent");
    assert_eq!(group["hunks"].as_array().unwrap().len(), pending.len());
}
