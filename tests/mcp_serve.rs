//! Other agents reviewed through a running `redline serve`, driven by the
//! official MCP Python SDK (`tests/mcp/serve_client.py`): `/mcp` over
//! streamable HTTP behind the token, Host and Origin guard; `redline mcp`
//! bridged to the server over its lock file, so proposals show live in its
//! review and questions on its card, answered and skipped through the API;
//! a waiting `review_status` answered by a decision, that decision undone and
//! redone through `review_undo` (a step named wrong refused); and a client killed
//! mid-call, after which the server still serves and what was staged stays.
//! Here: the bytes saved are exactly the accepted edits.

#[path = "support/agent.rs"]
mod agent;
#[path = "support/mcp.rs"]
mod mcp;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_agents_review_through_a_running_redline() {
    let Some(python) = mcp::python() else { return };
    let vault = tempfile::tempdir().unwrap();
    agent::write_vault(vault.path());
    let data = tempfile::tempdir().unwrap();
    let serve = mcp::Serve::start(vault.path(), data.path());

    let said = mcp::run_client(
        &python,
        "serve_client.py",
        &[
            std::ffi::OsStr::new(env!("CARGO_BIN_EXE_redline")),
            vault.path().as_os_str(),
            data.path().as_os_str(),
            std::ffi::OsStr::new(&serve.base),
            std::ffi::OsStr::new(&serve.token),
        ],
    );

    // Saved: the two accepted edits, byte for byte; the dropped client's
    // proposal waits in the review and has not reached the disk.
    let read = |path: &str| std::fs::read_to_string(vault.path().join(path)).unwrap();
    assert_eq!(read("notes/gamma.md"), "# Gamma\n\nStatus: archived\n");
    assert_eq!(read("notes/alpha.md"), agent::ALPHA.replace("Ann", "Bo"));
    assert_eq!(read("notes/beta.md"), agent::BETA);
    let queue = serve.get("/api/review").await;
    let pending: Vec<&str> = queue["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g["job_id"].as_str())
        .collect();
    assert_eq!(pending, [said["dropped_job"].as_str().unwrap()]);
}
