//! The HTTP API end to end over real HTTP, with the scripted model: every
//! refusal of the security layer, and the whole flow from a new session to a
//! rollback and its undo, across a server restart.

#[path = "support/disk.rs"]
mod disk;
#[path = "support/door.rs"]
mod door;
#[path = "support/agent.rs"]
mod support;

use std::time::Duration;

use door::{Door, json_of};
use redline::api::Api;
use redline::api::http::serve;
use redline::jobs::Runtime;
use redline::providers::Protocol;
use redline::testkit::scripted::Turn;
use reqwest::Method;
use serde_json::{Value, json};
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_refuses_strangers_and_bad_requests() {
    let h = harness(Protocol::OpenAiChat, Vec::new(), |_| {}).await;
    let door = Door::open(h.runtime.clone()).await;
    let sessions = door.url("/api/agent/sessions");
    let code = |v: &Value| v["error"]["code"].as_str().unwrap_or("").to_owned();

    let res = door.client.get(&sessions).send().await.unwrap();
    assert_eq!(res.status(), 401, "no token");
    assert_eq!(code(&json_of(res).await), "unauthorized");
    let res = door
        .client
        .get(&sessions)
        .bearer_auth("0".repeat(64))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401, "a wrong token");

    let res = door
        .client
        .get(&sessions)
        .bearer_auth(&door.served.token)
        .header("host", "evil.example:80")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403, "a rebinding host");
    let res = door
        .client
        .get(&sessions)
        .bearer_auth(&door.served.token)
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403, "a foreign page");
    assert_eq!(code(&json_of(res).await), "forbidden");
    let own = format!("http://localhost:{}", door.served.addr.port());
    let res = door
        .client
        .get(&sessions)
        .bearer_auth(&door.served.token)
        .header("origin", own)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "its own origin");

    // An announced body over the limit is refused before it is read (a raw
    // socket, so the refusal is read however much of the body was sent).
    let reply = tokio::task::spawn_blocking({
        let (addr, token) = (door.served.addr, door.served.token.clone());
        move || {
            use std::io::{Read, Write};
            let mut s = std::net::TcpStream::connect(addr).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let head = format!(
                "POST /api/agent/run HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\
                 Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{{",
                18 << 20
            );
            s.write_all(head.as_bytes()).unwrap();
            let mut reply = Vec::new();
            let _ = s.read_to_end(&mut reply);
            String::from_utf8_lossy(&reply).into_owned()
        }
    })
    .await
    .unwrap();
    assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");
    assert!(reply.contains("payload_too_large"), "{reply}");

    let (status, body) = door
        .call(
            Method::POST,
            "/api/agent/run",
            Some(json!({ "instruction": 5 })),
        )
        .await;
    assert_eq!(
        (status.as_u16(), code(&body).as_str()),
        (400, "invalid_request")
    );
    let (status, body) = door
        .call(Method::GET, "/api/agent/jobs/job_404", None)
        .await;
    assert_eq!((status.as_u16(), code(&body).as_str()), (404, "not_found"));
    let (status, body) = door.call(Method::GET, "/api/nowhere", None).await;
    assert_eq!((status.as_u16(), code(&body).as_str()), (404, "not_found"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_built_ui_is_served_beside_the_api_with_its_security_policy() {
    let h = harness(Protocol::OpenAiChat, Vec::new(), |_| {}).await;
    let ui = tempfile::tempdir().unwrap();
    std::fs::write(
        ui.path().join("index.html"),
        "<!doctype html><title>Redline</title>",
    )
    .unwrap();
    std::fs::create_dir(ui.path().join("assets")).unwrap();
    std::fs::write(ui.path().join("assets/app.js"), "console.log(1)").unwrap();
    let served = serve(Api::new(h.runtime.clone()), 0, Some(ui.path().into()))
        .await
        .unwrap();
    let client = redline::providers::http::client_builder().build().unwrap();
    let get = |path: &str| client.get(format!("http://{}{path}", served.addr)).send();

    // Pages need no token (they hold no data); every page carries the policy.
    let page = get("/").await.unwrap();
    assert_eq!(page.status(), 200);
    let policy = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(policy.contains("default-src 'self'") && policy.contains("connect-src 'self'"));
    assert!(
        page.text()
            .await
            .unwrap()
            .contains("<title>Redline</title>")
    );
    let script = get("/assets/app.js").await.unwrap();
    assert_eq!(script.status(), 200);
    assert!(
        script.headers()["content-type"]
            .to_str()
            .unwrap()
            .contains("javascript")
    );
    // A deep link is the app; a way out of the folder is not.
    assert!(
        get("/review/a.md")
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
            .contains("Redline")
    );
    let escape = get("/assets/../../Cargo.toml")
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!escape.contains("[package]"));

    // The API keeps its token, its errors and its host check.
    let api = get("/api/agent/sessions").await.unwrap();
    assert_eq!(api.status(), 401);
    let unknown = client
        .get(format!("http://{}/api/nothing", served.addr))
        .bearer_auth(&served.token)
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    assert_eq!(json_of(unknown).await["error"]["code"], "not_found");
    let rebound = client
        .get(format!("http://{}/", served.addr))
        .header("host", "evil.example:80")
        .send()
        .await
        .unwrap();
    assert_eq!(rebound.status(), 403);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_review_cycle_over_http_survives_a_restart() {
    let h = harness(
        Protocol::AnthropicMessages,
        vec![
            Turn::call("clarify_user", json!({ "question": "Final or done?" })),
            Turn::call("read_file", json!({ "file_path": "notes/alpha.md" })),
            propose_alpha(),
        ],
        |_| {},
    )
    .await;
    let door = Door::open(h.runtime.clone()).await;
    let session = door.post("/api/agent/sessions", json!({})).await;
    assert_eq!(session["status"], "active");
    let sid = session["session_id"].as_str().unwrap();
    let started = door
        .post(
            "/api/agent/run",
            json!({ "session_id": sid, "instruction": "Mark Alpha final" }),
        )
        .await;
    assert_eq!(started["status"], "queued");
    let job = started["job_id"].as_str().unwrap().to_owned();

    let events = door.until(&job, "waiting_for_user").await;
    let question = events
        .iter()
        .find(|e| e["type"] == "clarification.requested")
        .unwrap();
    let qid = question["data"]["question_id"].as_str().unwrap();
    door.post(
        &format!("/api/agent/jobs/{job}/clarify"),
        json!({ "question_id": qid, "answer": "final" }),
    )
    .await;
    door.until(&job, "awaiting_review").await;
    let snapshot = door.get(&format!("/api/agent/jobs/{job}")).await;
    let hunk = snapshot["diff_bundle"]["files"][0]["hunks"][0]["hunk_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let checkpoint = snapshot["checkpoint_id"].as_str().unwrap().to_owned();

    let applied = door
        .post(
            "/api/agent/apply",
            json!({ "session_id": sid, "job_id": job, "accepted_hunk_ids": [hunk] }),
        )
        .await;
    assert_eq!(applied["status"], "completed");
    assert_eq!(applied["applied_files"][0]["applied_hunks"], 1);
    let final_text = ALPHA.replace("draft", "final");
    assert_eq!(h.read("notes/alpha.md"), final_text);

    let list = door.get("/api/agent/checkpoints").await;
    assert!(
        list["checkpoints"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["checkpoint_id"] == checkpoint.as_str())
    );
    let three = door
        .get(&format!(
            "/api/agent/checkpoints/{checkpoint}/diff3?file_path=notes/alpha.md"
        ))
        .await;
    assert_eq!(three["checkpoint_base"], ALPHA);
    assert_eq!(three["current_file"], final_text.as_str());
    assert_eq!(three["agent_proposed"], final_text.as_str());

    // Restart: a new runtime and server on the same data directory.
    h.runtime.shutdown();
    drop(door);
    let runtime = Runtime::open(h.vault.path(), h.config.clone()).unwrap();
    let door = Door::open(runtime).await;
    let job_again = door.get(&format!("/api/agent/jobs/{job}")).await;
    assert_eq!(job_again["status"], "completed");
    let session_again = door.get(&format!("/api/agent/sessions/{sid}")).await;
    assert_eq!(session_again["last_job_id"], job.as_str());

    let report = door
        .post(
            &format!("/api/agent/checkpoints/{checkpoint}/rollback"),
            json!({ "mode": "hard_all" }),
        )
        .await;
    let undo = report["undo_checkpoint_id"].as_str().unwrap().to_owned();
    // Rollback updates the buffers; the disk follows on save. The three-way
    // view shows the rolled-back text as current.
    let three = door
        .get(&format!(
            "/api/agent/checkpoints/{checkpoint}/diff3?file_path=notes/alpha.md"
        ))
        .await;
    assert_eq!(three["current_file"], ALPHA);
    door.post(
        &format!("/api/agent/checkpoints/{undo}/rollback"),
        json!({ "mode": "hard_all" }),
    )
    .await;
    let three = door
        .get(&format!(
            "/api/agent/checkpoints/{checkpoint}/diff3?file_path=notes/alpha.md"
        ))
        .await;
    assert_eq!(
        three["current_file"],
        final_text.as_str(),
        "the rollback was undone"
    );
    let (status, body) = door
        .call(
            Method::POST,
            "/api/agent/checkpoints/cp_999/rollback",
            Some(json!({ "mode": "hard_all" })),
        )
        .await;
    assert_eq!(
        (status.as_u16(), body["error"]["code"].as_str()),
        (404, Some("not_found"))
    );
}

/// The propose_edits call setting alpha's and beta's status lines to `final`.
fn propose_alpha_and_beta() -> Turn {
    let edit = |file: &str| {
        json!({ "file_path": file, "operation": "replace", "start_line": 3, "end_line": 3,
                "new_text": "Status: final", "old_text": null, "rationale": null })
    };
    Turn::call(
        "propose_edits",
        json!({ "edits": [edit("notes/alpha.md"), edit("notes/beta.md")], "summary": "Both final." }),
    )
}

fn hunk_of(job: &Value, file: &str) -> String {
    job["diff_bundle"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file_path"] == file)
        .unwrap()["hunks"][0]["hunk_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hunks_are_decided_edited_saved_and_rolled_back_one_by_one_over_http() {
    let h = harness(Protocol::OpenAiChat, vec![propose_alpha_and_beta()], |_| {}).await;
    let door = Door::open(h.runtime.clone()).await;
    let (sid, job) = door.start("Both final").await;
    door.until(&job, "awaiting_review").await;
    let snapshot = door.get(&format!("/api/agent/jobs/{job}")).await;
    let (ha, hb) = (
        hunk_of(&snapshot, "notes/alpha.md"),
        hunk_of(&snapshot, "notes/beta.md"),
    );
    let checkpoint = snapshot["checkpoint_id"].as_str().unwrap().to_owned();

    // Restart before deciding: the review is still pending afterwards.
    h.runtime.shutdown();
    drop(door);
    let door = Door::open(Runtime::open(h.vault.path(), h.config.clone()).unwrap()).await;
    let tree = door.get("/api/files").await;
    let badge = |path: &str| {
        tree.as_array()
            .unwrap()
            .iter()
            .find(|e| e["path"] == path)
            .unwrap()["state"]["pending_hunks"]
            .clone()
    };
    assert_eq!(badge("notes/alpha.md"), json!([ha]));
    assert_eq!(badge("notes/beta.md"), json!([hb]));
    assert_eq!(badge("notes/gamma.md"), json!([]));
    let alpha = door.get("/api/files/content?path=notes/alpha.md").await;
    assert_eq!(alpha["text"], ALPHA.replace("draft", "final"));
    assert_eq!(alpha["state"]["conflict"], false);
    // Where the editor draws the hunk: its line in the buffer, what it replaced.
    assert_eq!(
        alpha["hunks"],
        json!([{ "hunk_id": ha, "job_id": job, "status": "pending", "line": 2, "lines": 1,
                 "old_text": "Status: draft\n", "before_text": "Status: draft\n",
                 "depends_on": [], "dependents": [], "typed_inside": false }])
    );
    assert_eq!(
        h.read("notes/alpha.md"),
        ALPHA,
        "nothing reaches the disk before a save"
    );

    let mut cursor = 0;
    let decided = door
        .post(
            &format!("/api/agent/hunks/{ha}/decide"),
            json!({ "status": "accepted" }),
        )
        .await;
    assert_eq!(decided["file"]["state"]["pending_hunks"], json!([]));
    assert_eq!(decided["file"]["state"]["dirty"], true);
    assert_eq!(
        decided["moved"],
        json!([{ "hunk_id": ha, "from": "pending", "to": "accepted" }])
    );
    assert_eq!(decided["dry_run"], false);
    let rejected = door
        .post(
            &format!("/api/agent/hunks/{hb}/decide"),
            json!({ "status": "rejected" }),
        )
        .await;
    assert_eq!(
        rejected["file"]["text"], BETA,
        "a rejected hunk leaves the buffer"
    );
    assert_eq!(rejected["file"]["hunks"][0]["status"], "rejected");
    assert_eq!(
        rejected["file"]["hunks"][0]["old_text"],
        "Status: draft\r\n"
    );
    let undone = door
        .post(
            &format!("/api/agent/hunks/{hb}/decide"),
            json!({ "status": "pending" }),
        )
        .await;
    assert_eq!(undone["file"]["text"], BETA.replace("draft", "final"));
    door.post(
        &format!("/api/agent/hunks/{hb}/decide"),
        json!({ "status": "rejected" }),
    )
    .await;
    let events = door.feed_until(&mut cursor, "review.updated", None).await;
    assert_eq!(events[0]["data"]["hunk_id"], ha.as_str());

    // The user types in alpha's buffer: an edit on a stale text is refused.
    let accepted_text = ALPHA.replace("draft", "final");
    let mine = format!("{accepted_text}Reviewed by me.\n");
    let (status, body) = door
        .put(
            "/api/files/buffer",
            json!({ "path": "notes/alpha.md", "text": mine, "base_hash": "sha256:0" }),
        )
        .await;
    assert_eq!(
        (status.as_u16(), body["error"]["code"].as_str()),
        (409, Some("conflict"))
    );
    let current = door.get("/api/files/content?path=notes/alpha.md").await;
    let (status, edited) = door
        .put(
            "/api/files/buffer",
            json!({ "path": "notes/alpha.md", "text": mine, "base_hash": current["hash"] }),
        )
        .await;
    assert_eq!(status, 200, "{edited}");
    assert_eq!(edited["text"], mine.as_str());
    let saved = door
        .post("/api/files/save", json!({ "path": "notes/alpha.md" }))
        .await;
    assert_eq!(saved["state"]["dirty"], false);
    assert_eq!(
        h.read("notes/alpha.md"),
        mine,
        "the accepted hunk and the user's line"
    );
    door.post("/api/files/save", json!({ "path": "notes/beta.md" }))
        .await;
    assert_eq!(h.read("notes/beta.md"), BETA, "byte for byte, CRLF kept");
    let events = door.feed_until(&mut cursor, "file.saved", None).await;
    assert!(events.iter().any(|e| e["type"] == "file.edited"));

    // Roll back just alpha's hunk: the user's later line stays.
    let report = door
        .post(
            &format!("/api/agent/checkpoints/{checkpoint}/rollback"),
            json!({ "mode": "scoped_selected", "hunk_ids": [ha] }),
        )
        .await;
    assert_eq!(report["files"][0]["status"], "reverted");
    door.post("/api/files/save", json!({ "path": "notes/alpha.md" }))
        .await;
    assert_eq!(
        h.read("notes/alpha.md"),
        format!("{ALPHA}Reviewed by me.\n")
    );
    door.feed_until(&mut cursor, "rollback.completed", None)
        .await;
    let (status, body) = door
        .call(
            Method::POST,
            &format!("/api/agent/checkpoints/{checkpoint}/rollback"),
            Some(json!({ "mode": "scoped_selected", "hunk_ids": ["h_999"] })),
        )
        .await;
    assert_eq!(
        (status.as_u16(), body["error"]["code"].as_str()),
        (400, Some("invalid_request"))
    );

    // Sessions: rename, clear, re-run, delete.
    let renamed = door
        .call(
            Method::PATCH,
            &format!("/api/agent/sessions/{sid}"),
            Some(json!({ "name": "Statuses" })),
        )
        .await;
    assert_eq!(renamed.1["name"], "Statuses");
    let cleared = door
        .post(&format!("/api/agent/sessions/{sid}/clear"), json!({}))
        .await;
    assert_eq!(cleared["chat"], json!([]));
    assert_eq!(cleared["name"], "Statuses");
    let again = door
        .post(&format!("/api/agent/jobs/{job}/rerun"), json!({}))
        .await;
    let again = door
        .get(&format!(
            "/api/agent/jobs/{}",
            again["job_id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(again["rerun_of"], job.as_str());
    assert_eq!(again["instruction"], "Both final");
    let (status, _) = door
        .call(Method::DELETE, &format!("/api/agent/sessions/{sid}"), None)
        .await;
    assert_eq!(status, 200);
    let (status, _) = door
        .call(Method::GET, &format!("/api/agent/sessions/{sid}"), None)
        .await;
    assert_eq!(status, 404);
    let (status, body) = door
        .call(
            Method::GET,
            "/api/agent/jobs/job_1/events?cursor=minus",
            None,
        )
        .await;
    assert_eq!(
        (status.as_u16(), body["error"]["code"].as_str()),
        (400, Some("invalid_request"))
    );
    let (status, body) = door
        .call(Method::GET, "/api/files/content?path=../etc/passwd", None)
        .await;
    assert_eq!(
        (status.as_u16(), body["error"]["code"].as_str()),
        (400, Some("invalid_request"))
    );
}

/// Writes `text` to `path` the way most editors save: a new file renamed over it.
fn editor_save(dir: &std::path::Path, path: &str, text: &str) {
    let tmp = dir.join(format!("{path}~"));
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, dir.join(path)).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_programs_change_reloads_a_clean_buffer_and_conflicts_with_a_held_one() {
    let h = harness(Protocol::OpenAiChat, vec![propose_alpha()], |_| {}).await;
    let _watching = redline::watch::start(h.runtime.clone()).unwrap();
    let door = Door::open(h.runtime.clone()).await;
    let dir = h.vault.path();
    let mut cursor = 0;

    // A file Redline holds nothing for: the feed says it changed.
    editor_save(dir, "notes/beta.md", "# Beta\n\nStatus: elsewhere\n");
    let events = door
        .feed_until(&mut cursor, "file.changed", Some("notes/beta.md"))
        .await;
    assert!(events.iter().any(|e| e["data"]["path"] == "notes/beta.md"));

    // A clean buffer (edited through Redline and saved) follows the disk.
    let gamma = door.get("/api/files/content?path=notes/gamma.md").await;
    let edited = format!("{}More.\n", gamma["text"].as_str().unwrap());
    door.put(
        "/api/files/buffer",
        json!({ "path": "notes/gamma.md", "text": edited }),
    )
    .await;
    door.post("/api/files/save", json!({ "path": "notes/gamma.md" }))
        .await;
    editor_save(dir, "notes/gamma.md", "# Gamma\n\nRewritten elsewhere.\n");
    let events = door
        .feed_until(&mut cursor, "file.reloaded", Some("notes/gamma.md"))
        .await;
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "file.reloaded" && e["data"]["path"] == "notes/gamma.md")
    );
    let gamma = door.get("/api/files/content?path=notes/gamma.md").await;
    assert_eq!(gamma["text"], "# Gamma\n\nRewritten elsewhere.\n");
    assert_eq!(gamma["state"]["conflict"], false);

    // A buffer with a pending hunk keeps both versions.
    let (sid, job) = door.start("Final").await;
    door.until(&job, "awaiting_review").await;
    let theirs = "# Alpha\n\nStatus: draft\nOwner: Ann\nAdded elsewhere.\n";
    editor_save(dir, "notes/alpha.md", theirs);
    let events = door
        .feed_until(&mut cursor, "file.conflict", Some("notes/alpha.md"))
        .await;
    let conflict = events
        .iter()
        .find(|e| e["type"] == "file.conflict")
        .unwrap();
    assert_eq!(conflict["data"]["path"], "notes/alpha.md");
    let alpha = door.get("/api/files/content?path=notes/alpha.md").await;
    assert_eq!(alpha["state"]["conflict"], true);
    assert_eq!(alpha["disk_text"], theirs);
    assert_eq!(
        alpha["text"],
        ALPHA.replace("draft", "final"),
        "the buffer is kept"
    );

    // Apply re-checks the disk: nothing is written over their version.
    let hunk = hunk_of(
        &door.get(&format!("/api/agent/jobs/{job}")).await,
        "notes/alpha.md",
    );
    let applied = door
        .post(
            "/api/agent/apply",
            json!({ "session_id": sid, "job_id": job, "accepted_hunk_ids": [hunk] }),
        )
        .await;
    assert_eq!(applied["status"], "conflict");
    assert_eq!(h.read("notes/alpha.md"), theirs);
    let (status, _) = door
        .call(
            Method::POST,
            "/api/files/save",
            Some(json!({ "path": "notes/alpha.md" })),
        )
        .await;
    assert_eq!(status, 409);

    // Keeping Redline's version saves theirs in a checkpoint first.
    let resolved = door
        .post(
            "/api/files/resolve",
            json!({ "path": "notes/alpha.md", "keep": "mine" }),
        )
        .await;
    assert_eq!(resolved["file"]["state"]["conflict"], false);
    let kept = resolved["checkpoint_id"].as_str().unwrap();
    let three = door
        .get(&format!(
            "/api/agent/checkpoints/{kept}/diff3?file_path=notes/alpha.md"
        ))
        .await;
    assert_eq!(
        three["checkpoint_base"], theirs,
        "their version is kept in the checkpoint"
    );
    door.post("/api/files/save", json!({ "path": "notes/alpha.md" }))
        .await;
    assert_eq!(h.read("notes/alpha.md"), ALPHA.replace("draft", "final"));
    let (status, body) = door
        .call(
            Method::POST,
            "/api/files/resolve",
            Some(json!({ "path": "notes/alpha.md", "keep": "theirs" })),
        )
        .await;
    assert_eq!(
        (status.as_u16(), body["error"]["code"].as_str()),
        (409, Some("conflict")),
        "no conflict is left"
    );

    // Unsaved edits conflict too; keeping theirs checkpoints ours.
    let (status, _) = door
        .put(
            "/api/files/buffer",
            json!({ "path": "notes/gamma.md", "text": "# Gamma\n\nMy unsaved words.\n" }),
        )
        .await;
    assert_eq!(status, 200);
    editor_save(dir, "notes/gamma.md", "# Gamma\n\nTheir words.\n");
    door.feed_until(&mut cursor, "file.conflict", Some("notes/gamma.md"))
        .await;
    let resolved = door
        .post(
            "/api/files/resolve",
            json!({ "path": "notes/gamma.md", "keep": "theirs" }),
        )
        .await;
    assert_eq!(resolved["file"]["text"], "# Gamma\n\nTheir words.\n");
    assert_eq!(resolved["file"]["state"]["under_review"], false);
    let kept = resolved["checkpoint_id"].as_str().unwrap();
    let three = door
        .get(&format!(
            "/api/agent/checkpoints/{kept}/diff3?file_path=notes/gamma.md"
        ))
        .await;
    assert_eq!(
        three["checkpoint_base"], "# Gamma\n\nMy unsaved words.\n",
        "ours is kept in the checkpoint"
    );
    assert_eq!(h.read("notes/gamma.md"), "# Gamma\n\nTheir words.\n");
}

/// The twelve notes with a job that renames `[[Atlas]]` to `[[Meridian]]`
/// in each (to `[[Meridain]]`, a note that does not exist, in note
/// `outlier`), awaiting review: the harness, its door, the session, the job.
async fn twelve_renamed(outlier: Option<usize>) -> (Harness, Door, String, String) {
    let edits: Vec<Value> = (0..12)
        .map(|i| {
            let new = if Some(i) == outlier { "See [[Meridain]] for more." } else { "See [[Meridian]] for more." };
            json!({ "file_path": format!("notes/n{i:02}.md"), "operation": "replace", "start_line": 3,
                    "end_line": 3, "new_text": new, "old_text": "See [[Atlas]] for more." })
        })
        .collect();
    let turns = vec![
        Turn::call("search_project", json!({ "query": "[[Atlas]]" })),
        Turn::call(
            "propose_edits",
            json!({ "edits": edits, "summary": "Renamed." }),
        ),
    ];
    let h = harness_on(twelve_notes, Protocol::OpenAiChat, turns, |_| {}).await;
    let door = Door::open(h.runtime.clone()).await;
    let (sid, job) = door.start("Rename Atlas to Meridian in every note").await;
    door.until(&job, "awaiting_review").await;
    (h, door, sid, job)
}

/// Twelve notes linking `[[Atlas]]`, and the note they should link to.
fn twelve_notes(dir: &std::path::Path) {
    std::fs::create_dir_all(dir.join("notes")).unwrap();
    std::fs::write(dir.join("Meridian.md"), "# Meridian\n").unwrap();
    for i in 0..12 {
        std::fs::write(
            dir.join(format!("notes/n{i:02}.md")),
            format!("# Note {i}\n\nSee [[Atlas]] for more.\n"),
        )
        .unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pattern_and_the_unflagged_hunks_are_decided_at_once_and_undone_as_one_step() {
    let (h, door, _, job) = twelve_renamed(Some(7)).await;

    // One pattern of eleven; the twelfth is flagged, with its reasons.
    let review = door.get("/api/review").await;
    let group = &review["jobs"][0];
    assert_eq!(group["flagged"], 1);
    assert_eq!(
        group["patterns"],
        json!([{ "pattern": { "pattern_id": "p1", "removed": "Atlas", "inserted": "Meridian", "hunks": 11, "files": 11 },
                 "pending": 11, "pending_files": 11 }])
    );
    let flagged: Vec<&Value> = group["hunks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h.get("flags").is_some())
        .collect();
    assert_eq!(flagged.len(), 1);
    assert_eq!(flagged[0]["path"], "notes/n07.md");
    let rules: Vec<&str> = flagged[0]["flags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["dead_link", "breaks_pattern"]);
    assert!(
        group["hunks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["pattern"] == "p1")
            .count()
            == 11
    );

    // The pattern, accepted at once: one event, every hunk accepted.
    let mut cursor = 0;
    let pattern = json!({ "kind": "pattern", "job_id": job, "pattern_id": "p1" });
    let done = door
        .post(
            "/api/review/decide",
            json!({ "selection": pattern, "status": "accepted" }),
        )
        .await;
    assert_eq!(
        (
            done["selected"].clone(),
            done["moved"].clone(),
            done["files"].clone()
        ),
        (json!(11), json!(11), json!(11))
    );
    let batch = door.feed_until(&mut cursor, "review.batch", None).await;
    assert_eq!(batch.last().unwrap()["data"]["hunks"], 11);
    let review = door.get("/api/review").await;
    assert_eq!(
        review["jobs"][0]["hunks"].as_array().unwrap().len(),
        1,
        "only the outlier is pending"
    );
    let decided = door.get(&format!("/api/agent/jobs/{job}")).await;
    let accepted = decided["diff_bundle"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["hunks"][0]["accepted"] == true)
        .count();
    assert_eq!(accepted, 11, "the job's hunks carry their decisions");

    // Undone as one step; then every unflagged hunk accepted at once.
    let undone = door
        .post(
            "/api/review/decide",
            json!({ "selection": pattern, "status": "pending" }),
        )
        .await;
    assert_eq!(undone["moved"], 11);
    assert_eq!(
        door.get("/api/review").await["jobs"][0]["hunks"]
            .as_array()
            .unwrap()
            .len(),
        12
    );
    let unflagged = json!({ "kind": "unflagged", "job_id": job });
    let done = door
        .post(
            "/api/review/decide",
            json!({ "selection": unflagged, "status": "accepted" }),
        )
        .await;
    assert_eq!(done["moved"], 11);
    let (status, body) = door
        .call(Method::POST, "/api/review/decide", Some(json!({ "selection": { "kind": "pattern", "job_id": job, "pattern_id": "p9" }, "status": "accepted" })))
        .await;
    assert_eq!(
        (status.as_u16(), body["error"]["code"].as_str()),
        (400, Some("invalid_request"))
    );

    // Applied: the eleven written in one batch, the outlier not.
    let outlier = flagged[0]["hunk_id"].as_str().unwrap();
    let ids: Vec<Value> = decided["diff_bundle"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["hunks"][0]["hunk_id"].clone())
        .filter(|h| h != outlier)
        .collect();
    let sid = decided["session_id"].clone();
    let applied = door
        .post(
            "/api/agent/apply",
            json!({ "session_id": sid, "job_id": job, "accepted_hunk_ids": ids }),
        )
        .await;
    assert!(
        applied["applied_files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["status"] == "applied"),
        "{applied}"
    );
    assert_eq!(
        h.read("notes/n00.md"),
        "# Note 0\n\nSee [[Meridian]] for more.\n"
    );
    assert_eq!(
        h.read("notes/n07.md"),
        "# Note 7\n\nSee [[Atlas]] for more.\n"
    );
}

/// The data of every event of `kind` in job `job`'s log, in order.
async fn logged(door: &Door, job: &str, kind: &str) -> Vec<Value> {
    let events = door
        .get(&format!("/api/agent/jobs/{job}/events?cursor=0"))
        .await;
    events["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == kind)
        .map(|e| e["data"].clone())
        .collect()
}

/// The ids of the hunks in a page of `/api/review`.
fn page_ids(page: &Value) -> Vec<String> {
    page["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["hunks"].as_array().unwrap())
        .map(|h| h["hunk_id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_big_review_is_served_a_page_at_a_time_from_one_moment_and_applied_without_listing_its_hunks()
 {
    let (h, door, sid, job) = twelve_renamed(None).await;

    // The first page: five hunks, every job with its counts, the listing's number.
    let first = door.get("/api/review?limit=5").await;
    assert_eq!(
        (first["total"].clone(), first["offset"].clone()),
        (json!(12), json!(0))
    );
    assert_eq!(first["jobs"][0]["pending"], 12);
    assert_eq!(first["jobs"][0]["patterns"][0]["pending"], 12);
    let snapshot = first["snapshot"].as_u64().unwrap();
    let mut ids = page_ids(&first);
    assert_eq!(ids.len(), 5);
    // The sessions of that moment come with the first page, and only with it.
    let listed: Vec<&str> = first["sessions"]
        .as_array()
        .expect("the first page lists the sessions")
        .iter()
        .map(|s| s["session_id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [sid.as_str()]);

    // A decision between pages: the later pages still come from the same
    // moment, so no hunk is skipped or seen twice.
    let (accepted, rejected) = (ids[0].clone(), ids[1].clone());
    door.post(
        &format!("/api/agent/hunks/{accepted}/decide"),
        json!({ "status": "accepted" }),
    )
    .await;
    door.post(
        &format!("/api/agent/hunks/{rejected}/decide"),
        json!({ "status": "rejected" }),
    )
    .await;
    for offset in [5, 10] {
        let page = door
            .get(&format!(
                "/api/review?offset={offset}&limit=5&snapshot={snapshot}"
            ))
            .await;
        assert_eq!(
            (page["snapshot"].as_u64(), page["offset"].as_u64()),
            (Some(snapshot), Some(offset))
        );
        ids.extend(page_ids(&page));
        assert!(page.get("sessions").is_none(), "a later page lists none");
    }
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!((ids.len(), unique.len()), (12, 12), "{ids:?}");
    // The changed files named by the review's number are that moment's too:
    // their pending hunks are the review's, the two decided since among them.
    let files = door
        .get(&format!("/api/files/changed?snapshot={snapshot}"))
        .await;
    assert_eq!(files["snapshot"].as_u64(), Some(snapshot));
    let mut pending: Vec<String> = files["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["state"]["pending_hunks"].as_array().unwrap())
        .map(|h| h.as_str().unwrap().to_owned())
        .collect();
    pending.sort();
    assert_eq!(pending, unique);
    // A new listing says what is pending now; an unknown number makes one too.
    let now = door.get("/api/review").await;
    assert_eq!(
        (now["total"].clone(), now["jobs"][0]["pending"].clone()),
        (json!(10), json!(10))
    );
    assert_ne!(now["snapshot"].as_u64(), Some(snapshot));
    assert_eq!(
        door.get("/api/review?snapshot=987654&limit=1").await["total"],
        10
    );
    // A session renamed is a new moment: the next listing names it.
    let before = door.get("/api/review?limit=1").await["snapshot"].clone();
    let (status, renamed) = door
        .call(
            Method::PATCH,
            &format!("/api/agent/sessions/{sid}"),
            Some(json!({ "name": "Renumbered ünïcode notes" })),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::OK, "{renamed}");
    let after = door.get("/api/review?limit=1").await;
    assert_ne!(after["snapshot"], before);
    assert_eq!(after["sessions"][0]["name"], "Renumbered ünïcode notes");

    // The changed files, a page at a time, sorted, each once.
    let mut files = Vec::new();
    let mut snapshot = None::<u64>;
    loop {
        let at = files.len();
        let query = snapshot.map_or(String::new(), |s| format!("&snapshot={s}"));
        let page = door
            .get(&format!("/api/files/changed?offset={at}&limit=5{query}"))
            .await;
        snapshot = page["snapshot"].as_u64();
        assert_eq!(page["total"], 12);
        files.extend(
            page["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["path"].as_str().unwrap().to_owned()),
        );
        if files.len() >= 12 {
            break;
        }
    }
    let want: Vec<String> = (0..12).map(|i| format!("notes/n{i:02}.md")).collect();
    assert_eq!(files, want);

    // The job in brief: its status without its megabytes; in full, its hunks.
    let brief = door.get(&format!("/api/agent/jobs/{job}?brief=true")).await;
    assert_eq!(brief["status"], "awaiting_review");
    assert_eq!(
        (
            brief["proposed_edits"].clone(),
            brief["diff_bundle"].clone()
        ),
        (json!([]), Value::Null)
    );
    let full = door.get(&format!("/api/agent/jobs/{job}")).await;
    assert_eq!(full["proposed_edits"].as_array().unwrap().len(), 12);

    // The log gives the proposal's size, not its edits (the job has them).
    let call = logged(&door, &job, "tool.call.requested")
        .await
        .into_iter()
        .find(|d| d["tool"] == "propose_edits")
        .unwrap();
    assert_eq!(
        (
            call["arguments"]["edits"].clone(),
            call["arguments"]["summary"].clone()
        ),
        (json!(12), json!("Renamed."))
    );
    let proposed = logged(&door, &job, "edits.proposed").await.remove(0);
    assert_eq!(
        (proposed["edits"].clone(), proposed["files"].clone()),
        (json!(12), json!(12))
    );

    // "Accept all": every hunk not rejected, with no ids listed.
    let applied = door
        .post(
            "/api/agent/apply",
            json!({ "session_id": sid, "job_id": job, "accepted_hunk_ids": [], "also_accept": "not_rejected", "brief": true }),
        )
        .await;
    assert_eq!(applied["status"], "completed", "{applied}");
    assert_eq!(
        (applied["written"].clone(), applied["applied_files"].clone()),
        (json!(12), json!([])),
        "in brief, only the files not written are listed"
    );
    let rejected_path = full["diff_bundle"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["hunks"][0]["hunk_id"] == rejected.as_str())
        .unwrap()["file_path"]
        .clone();
    for (i, path) in want.iter().enumerate() {
        let link = if rejected_path == path.as_str() {
            "Atlas"
        } else {
            "Meridian"
        };
        assert_eq!(
            h.read(path),
            format!("# Note {i}\n\nSee [[{link}]] for more.\n"),
            "{path}"
        );
    }
    let started = logged(&door, &job, "apply.started").await.pop().unwrap();
    assert_eq!(started["accepted"], 11);
    let completed = logged(&door, &job, "apply.completed").await.pop().unwrap();
    assert_eq!(
        (
            completed["written"].clone(),
            completed["not_written"].clone()
        ),
        (json!(12), json!([]))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_and_a_delete_from_the_file_tree_are_reviewed_before_anything_moves() {
    let linked = |dir: &std::path::Path| {
        twelve_notes(dir);
        std::fs::write(dir.join("index.md"), "- [[n00]]\n- [[n01]]\n").unwrap();
    };
    let h = harness_on(linked, Protocol::OpenAiChat, Vec::new(), |_| {}).await;
    let door = Door::open(h.runtime.clone()).await;
    let root = h.vault.path();

    // A move of a note another links to: one job, the move and its link.
    let job = door
        .post(
            "/api/files/op",
            json!({ "path": "notes/n00.md", "op": { "kind": "move", "to": "archive/First.md" } }),
        )
        .await;
    assert_eq!(job["status"], "awaiting_review");
    assert_eq!(job["instruction"], "Move notes/n00.md to archive/First.md");
    let mv = job["diff_bundle"]["file_ops"][0]["hunk_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        root.join("notes/n00.md").exists(),
        "nothing moved before review"
    );
    let review = door.get("/api/review").await;
    let group = &review["jobs"][0];
    assert_eq!(group["source"], "tree");
    let hunk = |group: &Value, path: &str| -> Value {
        group["hunks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["path"] == path)
            .cloned()
            .unwrap_or(Value::Null)
    };
    assert_eq!(hunk(group, "notes/n00.md")["hunk_id"], mv.as_str());
    assert_eq!(hunk(group, "notes/n00.md")["op"]["kind"], "move");
    // The tree shows it at its new path, marked with where it came from.
    let tree = door.get("/api/files?prefix=&changed=true").await;
    let moved = tree
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["state"].get("op").is_some())
        .unwrap();
    assert_eq!(moved["path"], "archive/First.md");
    assert_eq!(moved["state"]["op"]["from"], "notes/n00.md");

    // One link update rejected alone: the move is flagged for the link it leaves behind.
    let link = hunk(group, "index.md")["hunk_id"]
        .as_str()
        .unwrap()
        .to_owned();
    door.post(
        &format!("/api/agent/hunks/{link}/decide"),
        json!({ "status": "rejected" }),
    )
    .await;
    let flagged = door.get("/api/review").await;
    let row = hunk(&flagged["jobs"][0], "notes/n00.md");
    assert_eq!(row["hunk_id"], mv.as_str());
    assert_eq!(row["flags"][0]["rule"], "dead_link", "{row}");
    assert!(
        row["flags"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("1 of its link updates was rejected")
    );

    let job_id = job["job_id"].as_str().unwrap();
    let all: Vec<String> = group["hunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["hunk_id"].as_str().unwrap().to_owned())
        .collect();
    let session = job["session_id"].as_str().unwrap();
    let applied = door
        .post(
            "/api/agent/apply",
            json!({ "session_id": session, "job_id": job_id, "accepted_hunk_ids": all }),
        )
        .await;
    assert!(applied.to_string().contains("applied"), "{applied}");
    assert!(!root.join("notes/n00.md").exists());
    assert_eq!(
        std::fs::read_to_string(root.join("archive/First.md")).unwrap(),
        "# Note 0\n\nSee [[Atlas]] for more.\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("index.md")).unwrap(),
        "- [[First]]\n- [[n01]]\n"
    );

    // A target that is taken is refused, with the reason, and nothing is staged.
    let (status, refused) = door
        .call(
            Method::POST,
            "/api/files/op",
            Some(json!({ "path": "notes/n01.md", "op": { "kind": "move", "to": "Meridian.md" } })),
        )
        .await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused.to_string().contains("already at `Meridian.md`"),
        "{refused}"
    );
    assert!(
        !refused.to_string().contains("propose_edits"),
        "in the user's words, not the model's: {refused}"
    );

    // A deletion of a note nothing links to: staged, not flagged, not done.
    let job = door
        .post(
            "/api/files/op",
            json!({ "path": "Meridian.md", "op": { "kind": "delete" } }),
        )
        .await;
    let op = &job["diff_bundle"]["file_ops"][0];
    assert_eq!(op["op"]["kind"], "delete", "{op}");
    assert!(op.get("flags").is_none(), "{op}");
    assert!(root.join("Meridian.md").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_another_program_makes_is_a_move_and_a_review_moves_with_its_file() {
    let h = harness(Protocol::OpenAiChat, vec![propose_alpha()], |_| {}).await;
    let _watching = redline::watch::start(h.runtime.clone()).unwrap();
    let door = Door::open(h.runtime.clone()).await;
    let dir = h.vault.path();
    let mut cursor = 0;
    // What was where before a rename is the index's to say.
    while !h.runtime.project().index().is_some_and(|i| i.ready()) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    // A file Redline holds nothing for: whether its rename is reported as a
    // move or as two changes depends on how the kernel's events fall into
    // batches; either way the tree lists it at its new path.
    std::fs::rename(dir.join("notes/beta.md"), dir.join("notes/beta-2.md")).unwrap();
    door.feed_until(&mut cursor, "file.changed", Some("notes/beta-2.md"))
        .await;
    let listed = door.get("/api/files/children?prefix=notes").await;
    let names: Vec<&str> = listed["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"notes/beta-2.md") && !names.contains(&"notes/beta.md"),
        "{names:?}"
    );

    // A file with a pending hunk: its review goes with it.
    let (_, job) = door.start("Final").await;
    door.until(&job, "awaiting_review").await;
    let before = door.get("/api/files/content?path=notes/alpha.md").await;
    let pending = before["state"]["pending_hunks"].clone();
    assert_eq!(pending.as_array().unwrap().len(), 1);
    std::fs::create_dir_all(dir.join("archive")).unwrap();
    std::fs::rename(dir.join("notes/alpha.md"), dir.join("archive/alpha.md")).unwrap();
    let events = door.feed_until(&mut cursor, "file.moved", None).await;
    let moved = events
        .iter()
        .find(|e| e["type"] == "file.moved" && e["data"]["to"] == "archive/alpha.md")
        .unwrap();
    assert_eq!(moved["data"]["under_review"], true);
    assert!(
        !events.iter().any(|e| e["type"] == "file.conflict"),
        "a move is not a conflict: {events:?}"
    );
    let after = door.get("/api/files/content?path=archive/alpha.md").await;
    assert_eq!(after["text"], before["text"]);
    assert_eq!(after["state"]["pending_hunks"], pending);
    assert_eq!(after["state"]["conflict"], false);
    // Saved where it is now, hash-checked as before.
    door.post("/api/files/save", json!({ "path": "archive/alpha.md" }))
        .await;
    assert!(!dir.join("notes/alpha.md").exists());
}

/// Saves every file with unsaved work, as the window's Save all does: one
/// request, the engine's batch. Returns how many it wrote, having checked
/// they are the files the tree marked unsaved.
async fn save_dirty(door: &Door) -> usize {
    let tree = door.get("/api/files?prefix=&changed=true").await;
    let dirty: Vec<String> = tree
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["state"]["dirty"] == true)
        .map(|e| e["path"].as_str().unwrap().to_owned())
        .collect();
    let saved = door.post("/api/files/save_all", Value::Null).await;
    let mut written: Vec<String> = serde_json::from_value(saved["saved"].clone()).unwrap();
    written.sort();
    let mut dirty = dirty;
    dirty.sort();
    assert_eq!(written, dirty, "{saved}");
    assert!(saved["not_saved"].as_array().unwrap().is_empty(), "{saved}");
    written.len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn save_all_is_one_batch_that_finishes_when_its_caller_leaves_and_skips_what_changed() {
    let (h, door, _, job) = twelve_renamed(None).await;
    let everything = json!({ "selection": { "kind": "job", "job_id": job }, "status": "accepted" });
    door.post("/api/review/decide", everything).await;
    // Another program changed one note since Redline read it.
    let theirs = "# Note 3\n\nTheir words — «les leurs».\n";
    std::fs::write(h.vault.path().join("notes/n03.md"), theirs).unwrap();
    let mut cursor = door.get("/api/events?cursor=0").await["next_cursor"]
        .as_u64()
        .unwrap();

    // The request is sent whole and the connection closed 100 ms later,
    // unanswered, as a window closed right after Save all would.
    {
        use tokio::io::AsyncWriteExt;
        let mut socket = tokio::net::TcpStream::connect(door.served.addr)
            .await
            .unwrap();
        let request = format!(
            "POST /api/files/save_all HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\nContent-Length: 0\r\n\r\n",
            door.served.addr, door.served.token
        );
        socket.write_all(request.as_bytes()).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let seen = door.feed_until(&mut cursor, "files.saved", None).await;
    let saved = &seen.iter().find(|e| e["type"] == "files.saved").unwrap()["data"];
    assert_eq!(saved["saved"].as_array().unwrap().len(), 11, "{saved}");
    assert_eq!(saved["not_saved"][0]["path"], "notes/n03.md", "{saved}");
    for i in (0..12).filter(|&i| i != 3) {
        assert_eq!(
            h.read(&format!("notes/n{i:02}.md")),
            format!("# Note {i}\n\nSee [[Meridian]] for more.\n"),
        );
    }
    assert_eq!(
        h.read("notes/n03.md"),
        theirs,
        "another program's text is kept"
    );
    // Nothing left to save but the conflict, and a second Save all says so.
    let again = door.post("/api/files/save_all", Value::Null).await;
    assert!(again["saved"].as_array().unwrap().is_empty(), "{again}");
    assert_eq!(again["not_saved"].as_array().unwrap().len(), 1, "{again}");
}

/// Accepts and applies every hunk of `job`.
async fn apply_all(door: &Door, job: &Value) {
    let bundle = &job["diff_bundle"];
    let listed = |v: &Value| v.as_array().cloned().unwrap_or_default();
    let mut all: Vec<Value> = listed(&bundle["file_ops"])
        .iter()
        .map(|o| o["hunk_id"].clone())
        .collect();
    for file in listed(&bundle["files"]) {
        all.extend(listed(&file["hunks"]).iter().map(|h| h["hunk_id"].clone()));
    }
    assert!(!all.is_empty(), "{job}");
    let applied = door
        .post(
            "/api/agent/apply",
            json!({ "session_id": job["session_id"], "job_id": job["job_id"], "accepted_hunk_ids": all }),
        )
        .await;
    assert_eq!(applied["status"], "completed", "{applied}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rollbacks_after_and_of_renames_and_deletions_write_only_at_a_save_and_break_no_link() {
    let linked = |dir: &std::path::Path| {
        twelve_notes(dir);
        std::fs::write(dir.join("index.md"), "- [[n00]]\n- [[n01]]\n").unwrap();
    };
    let turns = vec![Turn::call(
        "propose_edits",
        json!({ "edits": [{ "file_path": "notes/n00.md", "operation": "replace", "start_line": 3,
                            "end_line": 3, "new_text": "See [[Atlas]] for much more.", "old_text": null }],
                "summary": "More." }),
    )];
    let h = harness_on(linked, Protocol::OpenAiChat, turns, |_| {}).await;
    let door = Door::open(h.runtime.clone()).await;
    let root = h.vault.path();
    let original = disk::texts(root);

    // Run 1 edits the note; then the user renames it from the tree (its
    // link in index.md follows), and both are applied.
    let (_, job) = door.start("Say more").await;
    door.until(&job, "awaiting_review").await;
    let run_1 = door.get(&format!("/api/agent/jobs/{job}")).await;
    apply_all(&door, &run_1).await;
    let renamed = door
        .post(
            "/api/files/op",
            json!({ "path": "notes/n00.md", "op": { "kind": "move", "to": "archive/First.md" } }),
        )
        .await;
    apply_all(&door, &renamed).await;
    let after = disk::texts(root);
    assert_eq!(after["index.md"], "- [[First]]\n- [[n01]]\n");

    // Rolled back: nothing on disk moves until the save, and then the note
    // and its link are back together.
    let checkpoint = run_1["checkpoint_id"].as_str().unwrap();
    let report = door
        .post(
            &format!("/api/agent/checkpoints/{checkpoint}/rollback"),
            json!({ "mode": "hard_all" }),
        )
        .await;
    assert_eq!(
        disk::texts(root),
        after,
        "a rollback writes nothing: {report}"
    );
    assert!(save_dirty(&door).await > 0);
    assert_eq!(disk::texts(root), original, "no link dangles");

    // Undone, and saved: the rename and the edit are back, paths included.
    let undo = report["undo_checkpoint_id"].as_str().unwrap();
    door.post(
        &format!("/api/agent/checkpoints/{undo}/rollback"),
        json!({ "mode": "hard_all" }),
    )
    .await;
    assert_eq!(disk::texts(root), original, "an undo writes nothing either");
    save_dirty(&door).await;
    assert_eq!(disk::texts(root), after);

    // A deletion rolled back: the note comes back at the save, whole.
    let deleted = door
        .post(
            "/api/files/op",
            json!({ "path": "notes/n01.md", "op": { "kind": "delete" } }),
        )
        .await;
    apply_all(&door, &deleted).await;
    let gone = disk::texts(root);
    assert!(!gone.contains_key("notes/n01.md"));
    let deletion = door
        .get(&format!(
            "/api/agent/jobs/{}",
            deleted["job_id"].as_str().unwrap()
        ))
        .await;
    let checkpoint = deletion["checkpoint_id"].as_str().unwrap();
    door.post(
        &format!("/api/agent/checkpoints/{checkpoint}/rollback"),
        json!({ "mode": "hard_all" }),
    )
    .await;
    assert_eq!(disk::texts(root), gone, "a rollback writes nothing");
    save_dirty(&door).await;
    assert_eq!(
        disk::texts(root),
        after,
        "the deleted note is back, its link resolves again"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_user_s_find_and_replace_is_previewed_then_reviewed_as_a_job_of_its_own() {
    let h = harness_on(twelve_notes, Protocol::OpenAiChat, Vec::new(), |_| {}).await;
    let door = Door::open(h.runtime.clone()).await;
    let root = h.vault.path();
    let replace = json!({ "operations": [{ "op": "replace_text", "find": "more", "replace": "detail",
                                            "whole_word": true, "scope": { "folders": ["notes"] } }] });

    // The preview stages nothing and says what would change.
    let preview = door.post("/api/operations/preview", replace.clone()).await;
    assert_eq!(preview["edits"], 12, "{preview}");
    assert_eq!(preview["reports"][0]["occurrences"], 12);
    assert_eq!(
        preview["reports"][0]["samples"][0]["after"],
        "See [[Atlas]] for detail."
    );
    assert_eq!(
        door.get("/api/review").await["total"],
        0,
        "a preview stages nothing"
    );

    // Staged: one job of the `operations` session, named after what it does.
    let job = door.post("/api/operations", replace).await;
    assert_eq!(job["status"], "awaiting_review", "{job}");
    assert_eq!(job["instruction"], "Replace “more” with “detail”");
    let review = door.get("/api/review").await;
    assert_eq!(review["total"], 12);
    assert_eq!(review["jobs"][0]["source"], "operations");
    assert_eq!(
        review["jobs"][0]["patterns"].as_array().unwrap().len(),
        1,
        "{review}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("notes/n00.md")).unwrap(),
        "# Note 0\n\nSee [[Atlas]] for more.\n"
    );
    apply_all(&door, &job).await;
    assert_eq!(
        std::fs::read_to_string(root.join("notes/n00.md")).unwrap(),
        "# Note 0\n\nSee [[Atlas]] for detail.\n"
    );

    // Nothing to change, or a bad regex: refused with the reason, nothing staged.
    let (status, refused) = door
        .call(Method::POST, "/api/operations", Some(json!({ "operations": [{ "op": "replace_text", "find": "Zanzibar", "replace": "x" }] })))
        .await;
    assert_eq!(status, reqwest::StatusCode::BAD_REQUEST, "{refused}");
    assert!(refused.to_string().contains("change nothing"), "{refused}");
    let (status, refused) = door
        .call(Method::POST, "/api/operations/preview", Some(json!({ "operations": [{ "op": "replace_text", "find": "(", "replace": "x", "regex": true }] })))
        .await;
    assert_eq!(status, reqwest::StatusCode::BAD_REQUEST, "{refused}");
    assert!(
        refused.to_string().contains("not a valid regex"),
        "{refused}"
    );
    assert_eq!(door.get("/api/review").await["total"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_of_the_vault_is_sent_for_the_redline_view_and_nothing_else_is() {
    use base64::Engine as _;
    let h = harness(Protocol::OpenAiChat, Vec::new(), |_| {}).await;
    let door = Door::open(h.runtime.clone()).await;
    let png: Vec<u8> = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0xff].to_vec();
    std::fs::create_dir_all(h.vault.path().join("Pièces jointes")).unwrap();
    std::fs::write(h.vault.path().join("Pièces jointes/schéma.PNG"), &png).unwrap();
    std::fs::write(h.vault.path().join("secret.md"), "# not an image\n").unwrap();

    let image = door
        .get("/api/files/image?path=Pi%C3%A8ces%20jointes/sch%C3%A9ma.PNG")
        .await;
    assert_eq!(image["mime"], "image/png");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(image["base64"].as_str().unwrap())
        .unwrap();
    assert_eq!(bytes, png, "the bytes as they are, not decoded as text");

    // A note, a path outside the vault, a missing image: refused, saying why.
    for (path, status, says) in [
        ("secret.md", 400, "is not drawn as an image"),
        ("../etc/passwd.png", 400, ""),
        ("missing.png", 404, ""),
    ] {
        let (got, body) = door
            .call(Method::GET, &format!("/api/files/image?path={path}"), None)
            .await;
        assert_eq!(got, status, "{path}: {body}");
        assert!(body.to_string().contains(says), "{path}: {body}");
    }
}
