//! Claude Code reviewed before it writes: the real CLI from the npm
//! registry (`REDLINE_CLAUDE`, which `scripts/test` installs), headless
//! (`claude -p`) against the scripted model in the Anthropic wire format,
//! with `redline hook` installed as its PreToolUse hook (`redline hook
//! install claude-code`) on a running `redline serve`. The user's decisions
//! are made over the HTTP API while Claude Code waits: a rejected edit
//! keeps the bytes and the model reads the reason; an accepted one writes
//! exactly its text; a partly accepted one only the accepted part; one
//! edited in review the user's text; a Write makes a new note; and with no
//! decision in time the write is refused. What the agent writes is taken
//! as Redline's own save: no outside change, no conflict.

#[path = "support/mcp.rs"]
mod mcp;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use redline::providers::Protocol;
use redline::testkit::scripted::{ScriptedModel, Turn};
use serde_json::{Value, json};

/// The Claude Code CLI (`REDLINE_CLAUDE`); `None` skips, unless
/// `REDLINE_REQUIRE_CLAUDE` is set.
fn claude() -> Option<PathBuf> {
    mcp::program(
        "REDLINE_CLAUDE",
        "REDLINE_REQUIRE_CLAUDE",
        "the Claude Code CLI",
    )
}

/// A Claude Code tool call's turn, on a file of `dir`.
fn tool(name: &str, dir: &Path, file: &str, mut args: Value) -> Turn {
    args["file_path"] = json!(dir.join(file).to_string_lossy());
    Turn::call(name, args)
}

/// Runs `claude -p` in `dir` against the model at `model_url`, with its home in `home`; returns its JSON result.
fn run_claude(claude: &Path, dir: &Path, home: &Path, data: &Path, model_url: &str) -> Value {
    let mut command = Command::new(claude);
    command
        .current_dir(dir)
        .args(["-p", "Tidy the notes", "--output-format", "json"])
        .env("HOME", home)
        .env("ANTHROPIC_BASE_URL", model_url)
        .env("ANTHROPIC_API_KEY", "sk-ant-test")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    mcp::redline_env(&mut command, data);
    let out = mcp::run_agent(&mut command);
    assert!(
        out.status.success(),
        "claude failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stdout));
    })
}

/// `redline hook install claude-code dir` with `args`; returns what it printed.
fn install(dir: &Path, data: &Path, args: &[&str]) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_redline"));
    command
        .args(["hook", "install", "claude-code"])
        .arg(dir)
        .args(args);
    mcp::redline_env(&mut command, data);
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// What the model was told of each tool call, in order: (its text, whether an error).
fn tool_results(model: &ScriptedModel) -> Vec<(String, bool)> {
    let last = model
        .requests()
        .last()
        .map(|r| r.body.clone())
        .unwrap_or_default();
    last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| {
            let text = match &b["content"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (text, b["is_error"] == true)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_codes_writes_are_reviewed_before_they_land() {
    let Some(claude) = claude() else { return };
    let vault = tempfile::tempdir().unwrap();
    let dir = vault.path().canonicalize().unwrap();
    let home = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    write("a.md", "# A\n\nStatus: draft\n");
    write("b.md", "# B\n\none\ntwo\nthree\n");
    write("c.md", "# C\r\n\r\nOwner: Ann\r\n");
    write("e.md", "# E\n\nDue: May\n");
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();

    let printed = install(&dir, data.path(), &[]);
    assert!(
        printed.contains(".claude/settings.json") && printed.contains("hook --folder"),
        "{printed}"
    );

    let turns = vec![
        tool("Read", &dir, "a.md", json!({})),
        tool(
            "Edit",
            &dir,
            "a.md",
            json!({ "old_string": "Status: draft", "new_string": "Status: final" }),
        ),
        tool("Read", &dir, "b.md", json!({})),
        tool(
            "Edit",
            &dir,
            "b.md",
            json!({ "old_string": "one\ntwo\nthree", "new_string": "ONE\ntwo\nTHREE" }),
        ),
        tool("Read", &dir, "c.md", json!({})),
        tool(
            "Edit",
            &dir,
            "c.md",
            json!({ "old_string": "Owner: Ann", "new_string": "Owner: Bo" }),
        ),
        tool(
            "Write",
            &dir,
            "d.md",
            json!({ "content": "# D\n\nNew note.\n" }),
        ),
        tool("Read", &dir, "e.md", json!({})),
        tool(
            "Edit",
            &dir,
            "e.md",
            json!({ "old_string": "Due: May", "new_string": "Due: June" }),
        ),
        Turn::text(&["Done."]),
    ];
    let model = ScriptedModel::bind(turns, 0).await.unwrap();
    let serve = mcp::Serve::start(&dir, data.path());

    // The user, in the window, while Claude Code waits on each write.
    let deciding = async {
        let mut jobs = Vec::new();
        for _ in 0..5 {
            let pending = serve.pending_of("Claude Code", &[]).await;
            let (job, path, _) = pending[0].clone();
            jobs.push(job);
            let hunks: Vec<&str> = pending.iter().map(|(_, _, h)| h.as_str()).collect();
            match path.as_str() {
                "a.md" => {
                    serve
                        .decide(hunks[0], "rejected", Some("keep it a draft until Friday"))
                        .await
                }
                "b.md" => {
                    assert_eq!(hunks.len(), 2, "two changes, two hunks: {pending:?}");
                    serve.decide(hunks[0], "accepted", None).await;
                    serve
                        .decide(hunks[1], "rejected", Some("three stays lower case"))
                        .await;
                }
                "c.md" => {
                    // The proposed text changed in the editor, then accepted.
                    let file = serve.get("/api/files/content?path=c.md").await;
                    let text = file["text"]
                        .as_str()
                        .unwrap()
                        .replace("Owner: Bo", "Owner: Bo and Cy");
                    let body = json!({ "path": "c.md", "text": text, "base_hash": file["hash"] });
                    serve
                        .call(reqwest::Method::PUT, "/api/files/buffer", Some(body))
                        .await;
                    serve.decide(hunks[0], "accepted", None).await;
                }
                _ => {
                    for hunk in hunks {
                        serve.decide(hunk, "accepted", None).await;
                    }
                }
            }
            // Claude Code's next write comes once this one is answered.
            let deadline = Instant::now() + Duration::from_secs(30);
            while serve.get("/api/review").await["jobs"]
                .as_array()
                .unwrap()
                .iter()
                .any(|g| g["job_id"] == json!(jobs.last().unwrap()))
            {
                assert!(Instant::now() < deadline);
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        jobs
    };
    let running = tokio::task::spawn_blocking({
        let (claude, dir, home, data) = (
            claude.clone(),
            dir.clone(),
            home.path().to_owned(),
            data.path().to_owned(),
        );
        let url = model.base_url(Protocol::AnthropicMessages);
        move || run_claude(&claude, &dir, &home, &data, &url)
    });
    let (jobs, result) = tokio::join!(deciding, running);
    let result = result.unwrap();
    assert_eq!(result["result"], "Done.", "{result}");

    // The bytes: each file exactly as the user decided.
    assert_eq!(
        read("a.md"),
        "# A\n\nStatus: draft\n",
        "rejected: untouched"
    );
    assert_eq!(
        read("b.md"),
        "# B\n\nONE\ntwo\nthree\n",
        "only the accepted part"
    );
    assert_eq!(
        read("c.md"),
        "# C\r\n\r\nOwner: Bo and Cy\r\n",
        "the user's text, CRLF kept"
    );
    assert_eq!(read("d.md"), "# D\n\nNew note.\n");
    assert_eq!(read("e.md"), "# E\n\nDue: June\n");

    // The model was told: the rejection with its reason, the rest written.
    let results = tool_results(&model);
    let edits: Vec<&(String, bool)> = results.iter().filter(|(t, _)| !t.contains("\t")).collect();
    assert!(
        edits[0]
            .0
            .contains("rejected it: keep it a draft until Friday"),
        "the reason reaches the model: {results:?}"
    );
    assert!(
        edits[1..].iter().all(|(t, _)| t.contains("updated")
            || t.contains("created")
            || t.contains("written")
            || t.contains("success")),
        "{results:?}"
    );

    // Five jobs of one session named after Claude Code's; what Claude Code
    // wrote is Redline's own save: no outside change, nothing in conflict.
    assert_eq!(jobs.len(), 5);
    serve.saved_by("Claude Code").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_no_one_decides_in_time_is_refused() {
    let Some(claude) = claude() else { return };
    let vault = tempfile::tempdir().unwrap();
    let dir = vault.path().canonicalize().unwrap();
    let home = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    std::fs::write(dir.join("f.md"), "# F\n\nDraft.\n").unwrap();
    install(&dir, data.path(), &["--wait", "2s", "--fallback", "deny"]);
    let turns = vec![
        tool("Read", &dir, "f.md", json!({})),
        tool(
            "Edit",
            &dir,
            "f.md",
            json!({ "old_string": "Draft.", "new_string": "Final." }),
        ),
        Turn::text(&["Done."]),
    ];
    let model = ScriptedModel::bind(turns, 0).await.unwrap();
    let serve = mcp::Serve::start(&dir, data.path());
    let result = tokio::task::spawn_blocking({
        let (dir, home, data) = (dir.clone(), home.path().to_owned(), data.path().to_owned());
        let url = model.base_url(Protocol::AnthropicMessages);
        move || run_claude(&claude, &dir, &home, &data, &url)
    })
    .await
    .unwrap();
    assert_eq!(result["result"], "Done.");
    assert_eq!(
        std::fs::read_to_string(dir.join("f.md")).unwrap(),
        "# F\n\nDraft.\n"
    );
    let results = tool_results(&model);
    assert!(results[1].0.contains("no decision"), "{results:?}");
    // Withdrawn from the review, with the reason on its hunk.
    let review = serve.get("/api/review").await;
    assert!(review["jobs"].as_array().unwrap().is_empty(), "{review}");
}
