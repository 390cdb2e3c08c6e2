//! The hook's round trip (`redline::hooks::review`) with a Redline served
//! over real HTTP, for what the Claude Code test (tests/claude_code.rs)
//! does not reach: a file Redline does not review passes, a protected note
//! and a note holding pending work are refused with the reason, no open
//! Redline and a time limit fall back as configured, and a withdrawn write
//! is rejected in the review with the time limit as its reason; a Codex
//! patch Redline does not review first (a move out of the folder, lines
//! not in the file) passes; a Gemini CLI edit whose old text is not in the file exactly is
//! refused in Gemini's words.

#[path = "support/agent.rs"]
mod agent;
#[path = "support/door.rs"]
mod door;

use std::path::Path;
use std::time::Duration;

use redline::hooks::claude_code::HookInput;
use redline::hooks::review::{Fallback, Options, Verdict, review};
use redline::instance::Instance;
use redline::providers::Protocol;
use serde_json::json;

/// Claude Code's PreToolUse input for `tool(args)` in `root`.
fn call(root: &Path, tool: &str, file: &str, mut args: serde_json::Value) -> HookInput {
    args["file_path"] = json!(root.join(file).to_string_lossy());
    let input = json!({
        "session_id": "5f2c9a10-aaaa-bbbb-cccc-000000000000",
        "cwd": root,
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": args,
    });
    HookInput::parse(&input.to_string()).unwrap()
}

/// The running Redline `door` serves, as the hook finds it for `root`.
fn instance(root: &Path, door: &door::Door) -> Instance {
    Instance {
        root: root.to_owned(),
        port: door.served.addr.port(),
        token: door.served.token.clone(),
        pid: std::process::id(),
    }
}

fn options(wait_ms: u64, fallback: Fallback) -> Options {
    Options {
        wait: Duration::from_millis(wait_ms),
        fallback,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_redline_cannot_review_pass_and_refused_ones_say_why() {
    let h = agent::harness_on(
        |root| {
            agent::write_vault(root);
            std::fs::create_dir_all(root.join(".claude")).unwrap();
            std::fs::write(root.join(".claude/notes.md"), "x\n").unwrap();
            std::fs::create_dir_all(root.join("Journal")).unwrap();
            std::fs::write(root.join("Journal/today.md"), "# Today\n").unwrap();
        },
        Protocol::OpenAiChat,
        Vec::new(),
        |c| c.protected.globs = vec!["Journal/**".into()],
    )
    .await;
    let root = h.vault.path().canonicalize().unwrap();
    let door = door::Door::open(h.runtime.clone()).await;
    let open = instance(&root, &door);
    let quick = options(300, Fallback::Deny);

    // A hidden file: Redline never reviews it, so the agent's own prompt decides.
    let hidden = call(
        &root,
        "Write",
        ".claude/notes.md",
        json!({ "content": "y\n" }),
    );
    let verdict = review(&hidden, &root, Some(&open), &quick).await.unwrap();
    assert!(
        matches!(&verdict, Verdict::Pass { why: Some(why) } if why.contains("hidden")),
        "{verdict:?}"
    );
    // Outside the folder, and a read: untouched.
    let outside = call(
        Path::new("/"),
        "Write",
        "tmp/elsewhere.md",
        json!({ "content": "y" }),
    );
    assert_eq!(
        review(&outside, &root, Some(&open), &quick).await.unwrap(),
        Verdict::Pass { why: None }
    );
    let read = call(&root, "Read", "notes/alpha.md", json!({}));
    assert_eq!(
        review(&read, &root, Some(&open), &quick).await.unwrap(),
        Verdict::Pass { why: None }
    );

    // A protected note: refused with the rule's reason.
    let journal = call(
        &root,
        "Edit",
        "Journal/today.md",
        json!({ "old_string": "Today", "new_string": "Now" }),
    );
    let verdict = review(&journal, &root, Some(&open), &quick).await.unwrap();
    assert!(
        matches!(&verdict, Verdict::Deny { reason } if reason.contains("protected")),
        "{verdict:?}"
    );
    assert_eq!(h.read("Journal/today.md"), "# Today\n");

    // No decision within the time limit: withdrawn from the review with
    // the limit as its reason, and refused.
    let edit = call(
        &root,
        "Edit",
        "notes/alpha.md",
        json!({ "old_string": "Status: draft", "new_string": "Status: final" }),
    );
    let verdict = review(&edit, &root, Some(&open), &quick).await.unwrap();
    assert!(
        matches!(&verdict, Verdict::Deny { reason } if reason.contains("no decision")),
        "{verdict:?}"
    );
    let review_now = door.get("/api/review").await;
    assert_eq!(review_now["jobs"], json!([]), "withdrawn: nothing pending");
    let job = door.get("/api/agent/sessions").await;
    assert!(job.to_string().contains("Claude Code · 5f2c9a10"), "{job}");

    // With `outside`, the same is let through to be reviewed afterwards.
    let verdict = review(&edit, &root, Some(&open), &options(300, Fallback::Outside))
        .await
        .unwrap();
    assert!(
        matches!(&verdict, Verdict::Pass { why: Some(why) } if why.contains("outside change")),
        "{verdict:?}"
    );

    // A note with work pending in Redline: refused, saying so.
    let first = call(
        &root,
        "Edit",
        "notes/beta.md",
        json!({ "old_string": "Beta", "new_string": "B" }),
    );
    let staged = tokio::spawn({
        let (root, open) = (root.clone(), open.clone());
        async move { review(&first, &root, Some(&open), &options(5_000, Fallback::Deny)).await }
    });
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while door.get("/api/review").await["jobs"]
        .as_array()
        .unwrap()
        .is_empty()
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the first write was not staged"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let second = call(
        &root,
        "Edit",
        "notes/beta.md",
        json!({ "old_string": "Beta", "new_string": "Bee" }),
    );
    let verdict = review(&second, &root, Some(&open), &quick).await.unwrap();
    assert!(
        matches!(&verdict, Verdict::Deny { reason } if reason.contains("holds changes in Redline")),
        "{verdict:?}"
    );
    staged.abort();

    // No Redline open: the fallback, saying so.
    let verdict = review(&edit, &root, None, &quick).await.unwrap();
    assert!(
        matches!(&verdict, Verdict::Deny { reason } if reason.contains("not open")),
        "{verdict:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_says_its_agent_waits_while_the_hook_does() {
    let h = agent::harness(Protocol::OpenAiChat, Vec::new(), |_| {}).await;
    let root = h.vault.path().canonicalize().unwrap();
    let door = door::Door::open(h.runtime.clone()).await;
    let open = instance(&root, &door);
    let edit = call(
        &root,
        "Edit",
        "notes/alpha.md",
        json!({ "old_string": "Status: draft", "new_string": "Status: final" }),
    );
    let job_of =
        |review: &serde_json::Value| review["jobs"][0]["job_id"].as_str().map(str::to_owned);
    let waiting = |job: &serde_json::Value| job["waiting_agent"].clone();
    // The job under review once it names Claude Code as waiting on it.
    let waited_on = || {
        let door = &door;
        async move {
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            loop {
                if let Some(id) = job_of(&door.get("/api/review").await) {
                    let job = door.get(&format!("/api/agent/jobs/{id}?brief=true")).await;
                    if waiting(&job) == json!("Claude Code") {
                        return id;
                    }
                }
                assert!(
                    std::time::Instant::now() < deadline,
                    "no job said Claude Code waits: {}",
                    door.get("/api/review").await
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };

    // While the hook waits, the job names the agent that waits.
    let hooked = tokio::spawn({
        let (root, open, edit) = (root.clone(), open.clone(), edit.clone());
        async move { review(&edit, &root, Some(&open), &options(20_000, Fallback::Deny)).await }
    });
    let id = waited_on().await;
    // The agent read the note before it edited it (Claude Code's Edit
    // requires it): the write is not flagged as made to an unread file.
    let listed = door.get("/api/review").await;
    assert_eq!(listed["jobs"][0]["flagged"], json!(0), "{listed}");
    let cursor = door.get("/api/events?cursor=18446744073709551615").await["next_cursor"].clone();

    // A hook that hangs up stops waiting: the mark goes with it, and the
    // feed says the job changed, so a window fetches it again.
    hooked.abort();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while waiting(&door.get(&format!("/api/agent/jobs/{id}?brief=true")).await) != json!(null) {
        assert!(
            std::time::Instant::now() < deadline,
            "still waiting after the hook hung up"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let feed = door.get(&format!("/api/events?cursor={cursor}")).await;
    let updated: Vec<&serde_json::Value> = feed["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "job.updated" && e["data"]["job_id"] == json!(id))
        .collect();
    assert_eq!(updated.len(), 1, "{feed}");
    assert_eq!(updated[0]["data"]["status"], "awaiting_review");

    // Asked again, it waits again; decided, the write goes through and no
    // agent waits on the job any more.
    let outcome = tokio::spawn({
        let req = door
            .client
            .post(door.url(&format!("/api/agent-writes/{id}/outcome")))
            .bearer_auth(&door.served.token)
            .header("content-type", "application/json")
            .body(json!({ "wait_ms": 20_000 }).to_string());
        async move { door::json_of(req.send().await.unwrap()).await }
    });
    let again = waited_on().await;
    assert_eq!(again, id);
    let job = door.get(&format!("/api/agent/jobs/{id}")).await;
    let hunk = job["diff_bundle"]["files"][0]["hunks"][0]["hunk_id"].clone();
    door.post(
        &format!("/api/agent/hunks/{}/decide", hunk.as_str().unwrap()),
        json!({ "status": "accepted" }),
    )
    .await;
    let outcome = outcome.await.unwrap();
    assert_eq!(outcome["decided"], json!(true), "{outcome}");
    let job = door.get(&format!("/api/agent/jobs/{id}?brief=true")).await;
    assert_eq!(waiting(&job), json!(null), "{job}");
    assert_eq!(job["status"], "awaiting_review", "{job}");

    // Claude Code writes the text decided: the disk holds what a save
    // would write, nothing is left to save, and the job ends.
    let text = outcome["text"].as_str().unwrap();
    std::fs::write(root.join("notes/alpha.md"), text).unwrap();
    h.runtime.external_change("notes/alpha.md").unwrap();
    let job = door.get(&format!("/api/agent/jobs/{id}?brief=true")).await;
    assert_eq!(job["status"], "completed", "{job}");
    let file = door.get("/api/files/content?path=notes/alpha.md").await;
    assert_eq!(file["state"]["dirty"], json!(false), "{file}");
}

#[tokio::test]
async fn codex_patches_redline_cannot_review_first_pass_and_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("a.md"), "# A\n\nStatus: draft\n").unwrap();
    let patch = |body: &str| {
        let input = json!({
            "session_id": "01a22118-4f29-7bc1-a338-6418726a95bd",
            "turn_id": "t", "model": "m", "permission_mode": "default", "tool_use_id": "call_1",
            "transcript_path": null, "cwd": root, "hook_event_name": "PreToolUse",
            "tool_name": "apply_patch",
            "tool_input": { "command": format!("*** Begin Patch\n{body}*** End Patch\n") },
        });
        HookInput::parse(&input.to_string()).unwrap()
    };
    let quick = options(300, Fallback::Deny);
    // A move out of the folder passes: Redline's review ends at its edge.
    let out = patch("*** Update File: a.md\n*** Move to: ../elsewhere.md\n");
    assert_eq!(
        review(&out, &root, None, &quick).await.unwrap(),
        Verdict::Pass { why: None }
    );
    // Deleting a note that is not there: Codex refuses that itself.
    let missing = patch("*** Delete File: gone.md\n");
    assert_eq!(
        review(&missing, &root, None, &quick).await.unwrap(),
        Verdict::Pass { why: None }
    );
    // A deletion or a move (into a folder still to come) is reviewed
    // first: with no Redline open, the fallback.
    for first in [
        "*** Delete File: a.md\n",
        "*** Update File: a.md\n*** Move to: new/b.md\n",
    ] {
        let verdict = review(&patch(first), &root, None, &quick).await.unwrap();
        assert!(
            matches!(&verdict, Verdict::Deny { reason } if reason.contains("not open")),
            "{first}: {verdict:?}"
        );
    }
    // Lines the file does not have: Codex refuses that patch itself.
    let missing = patch("*** Update File: a.md\n@@\n-Status: done\n+Status: final\n");
    assert_eq!(
        review(&missing, &root, None, &quick).await.unwrap(),
        Verdict::Pass { why: None }
    );
    // A real change with no Redline open: the fallback, saying so.
    let update = patch("*** Update File: a.md\n@@\n-Status: draft\n+Status: final\n");
    let verdict = review(&update, &root, None, &quick).await.unwrap();
    assert!(
        matches!(&verdict, Verdict::Deny { reason } if reason.contains("not open")),
        "{verdict:?}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("a.md")).unwrap(),
        "# A\n\nStatus: draft\n"
    );
}

#[tokio::test]
async fn gemini_edits_redline_cannot_review_exactly_are_refused_in_its_words() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("a.md"), "# A\n\nx\nStatus: draft\nx\n").unwrap();
    let call = |tool: &str, args: serde_json::Value| {
        let input = json!({
            "session_id": "d65f9d30-aa2e-4ada-b5c9-3feb140c18e6",
            "transcript_path": "/tmp/chats/session.jsonl", "cwd": root,
            "hook_event_name": "BeforeTool", "timestamp": "2026-11-28T09:30:46.090Z",
            "tool_name": tool, "tool_input": args,
        });
        HookInput::parse(&input.to_string()).unwrap()
    };
    let replace = |old: &str| {
        call(
            "replace",
            json!({ "file_path": "a.md", "instruction": "i", "old_string": old,
                    "new_string": "Status: final" }),
        )
    };
    let quick = options(300, Fallback::Deny);
    assert_eq!(replace("x").agent(), "Gemini CLI");
    // Reads pass untouched.
    let read = call("read_file", json!({ "file_path": "a.md" }));
    assert_eq!(
        review(&read, &root, None, &quick).await.unwrap(),
        Verdict::Pass { why: None }
    );
    // Not there exactly, or there twice: Gemini would guess at it, and
    // write its guess unreviewed; refused before any Redline is asked.
    for (old, said) in [
        ("Status:  draft", "Could not find an exact match"),
        ("x", "Expected 1 occurrence but found 2"),
    ] {
        let verdict = review(&replace(old), &root, None, &quick).await.unwrap();
        assert!(
            matches!(&verdict, Verdict::Deny { reason } if reason.contains(said)),
            "{old}: {verdict:?}"
        );
    }
    // No change at all: Gemini would have its model "correct" it.
    let same = call(
        "replace",
        json!({ "file_path": "a.md", "instruction": "i", "old_string": "Status: draft",
                "new_string": "Status: draft" }),
    );
    let verdict = review(&same, &root, None, &quick).await.unwrap();
    assert!(
        matches!(&verdict, Verdict::Deny { reason } if reason.contains("No changes to apply")),
        "{verdict:?}"
    );
    // An edit of a file that is not there: Gemini refuses it itself.
    let missing = call(
        "replace",
        json!({ "file_path": "b.md", "instruction": "i", "old_string": "x", "new_string": "y" }),
    );
    assert_eq!(
        review(&missing, &root, None, &quick).await.unwrap(),
        Verdict::Pass { why: None }
    );
    // A real change with no Redline open: the fallback, saying so.
    let verdict = review(&replace("Status: draft"), &root, None, &quick)
        .await
        .unwrap();
    assert!(
        matches!(&verdict, Verdict::Deny { reason } if reason.contains("not open")),
        "{verdict:?}"
    );
}

#[tokio::test]
async fn a_write_of_line_endings_alone_is_refused_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("c.md"), "# C\r\n\r\nOwner: Ann\r\n").unwrap();
    let quick = options(300, Fallback::Deny);
    // LF for CRLF, and the final newline dropped: no line changes.
    for content in ["# C\n\nOwner: Ann\n", "# C\r\n\r\nOwner: Ann"] {
        let write = call(&root, "Write", "c.md", json!({ "content": content }));
        let verdict = review(&write, &root, None, &quick).await.unwrap();
        assert!(
            matches!(&verdict, Verdict::Deny { reason } if reason.contains("only its line endings or final newline")),
            "{content:?}: {verdict:?}"
        );
    }
    // A line changed besides: reviewed (here, with no Redline, the fallback).
    let write = call(
        &root,
        "Write",
        "c.md",
        json!({ "content": "# C\n\nOwner: Bo\n" }),
    );
    let verdict = review(&write, &root, None, &quick).await.unwrap();
    assert!(
        matches!(&verdict, Verdict::Deny { reason } if reason.contains("not open")),
        "{verdict:?}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("c.md")).unwrap(),
        "# C\r\n\r\nOwner: Ann\r\n"
    );
}
