//! Gemini CLI reviewed before it writes: the real CLI from the npm registry
//! (`REDLINE_GEMINI`, which `scripts/test` installs), headless (`gemini
//! -p`) against the scripted model in the Gemini API's wire format, with
//! `redline hook` installed as its BeforeTool hook (`redline hook install
//! gemini`, the folder's `.gemini/settings.json`) on a running `redline
//! serve`. Gemini writes with `replace` and `write_file`; the user decides
//! over the HTTP API while Gemini waits: a rejected edit keeps the bytes
//! and the model reads the reason; an edit of every occurrence, half
//! accepted, writes only the accepted half and the model is told its
//! arguments were changed; a new note is written; one edited in review
//! writes the user's text, CRLF kept; an `old_string` not in the file
//! exactly is refused before Gemini can guess at it. What Gemini writes is
//! Redline's own save.

#[path = "support/mcp.rs"]
mod mcp;

use std::path::{Path, PathBuf};
use std::process::Command;

use redline::providers::Protocol;
use redline::testkit::scripted::{ScriptedModel, Turn};
use serde_json::{Value, json};

/// The Gemini CLI (`REDLINE_GEMINI`); `None` skips, unless
/// `REDLINE_REQUIRE_GEMINI` is set.
fn gemini() -> Option<PathBuf> {
    mcp::program("REDLINE_GEMINI", "REDLINE_REQUIRE_GEMINI", "the Gemini CLI")
}

/// A Gemini tool call's turn, on a file of `dir`.
fn tool(name: &str, dir: &Path, file: &str, mut args: Value) -> Turn {
    args["file_path"] = json!(dir.join(file).to_string_lossy());
    Turn::call(name, args)
}

/// Runs `gemini -p` in `dir` against the model at `model_url`, with its
/// home in `home`; returns its answer and what it showed the user.
fn run_gemini(
    gemini: &Path,
    dir: &Path,
    home: &Path,
    data: &Path,
    model_url: &str,
) -> (String, String) {
    // An API key's sign-in, and no usage figures sent anywhere.
    let settings = json!({ "security": { "auth": { "selectedType": "gemini-api-key" } },
                           "privacy": { "usageStatisticsEnabled": false } });
    std::fs::create_dir_all(home.join(".gemini")).unwrap();
    std::fs::write(home.join(".gemini/settings.json"), settings.to_string()).unwrap();
    let mut command = Command::new(gemini);
    command
        .current_dir(dir)
        // A model named, so that no side call picks one.
        .args(["-m", "gemini-2.5-flash", "-p", "Tidy the notes"])
        .args(["--approval-mode", "yolo", "-o", "json"])
        .env("HOME", home)
        .env("GEMINI_API_KEY", "test")
        .env("GOOGLE_GEMINI_BASE_URL", model_url)
        // The folder trusted, as a person does once when Gemini first asks.
        .env("GEMINI_CLI_TRUST_WORKSPACE", "true");
    mcp::redline_env(&mut command, data);
    let out = mcp::run_agent(&mut command);
    assert!(
        out.status.success(),
        "gemini failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let said: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stdout));
    });
    (
        said["response"].as_str().unwrap_or_default().to_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// What the model was told of each tool call, in order.
fn tool_results(model: &ScriptedModel) -> Vec<String> {
    let last = model
        .requests()
        .last()
        .map(|r| r.body.clone())
        .unwrap_or_default();
    last["contents"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["parts"].as_array())
        .flatten()
        .filter_map(|p| p.get("functionResponse"))
        .map(|r| r["response"].to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn geminis_writes_are_reviewed_before_they_land() {
    let Some(gemini) = gemini() else { return };
    let vault = tempfile::tempdir().unwrap();
    let dir = vault.path().canonicalize().unwrap();
    let home = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    write("a.md", "# A\n\nStatus: draft\n");
    write(
        "b.md",
        "# B\n\none x\ntwo\nthree\nfour\nfive\nsix\nseven x\n",
    );
    write("c.md", "# C\r\n\r\nOwner: Ann\r\n");
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();

    let mut install = Command::new(env!("CARGO_BIN_EXE_redline"));
    install.args(["hook", "install", "gemini"]).arg(&dir);
    mcp::redline_env(&mut install, data.path());
    let printed = install.output().unwrap();
    let printed = String::from_utf8_lossy(&printed.stdout);
    assert!(
        printed.contains(".gemini/settings.json") && printed.contains("BeforeTool"),
        "{printed}"
    );

    let turns = vec![
        tool(
            "replace",
            &dir,
            "a.md",
            json!({ "instruction": "Finish it", "old_string": "Status: draft",
                    "new_string": "Status: final" }),
        ),
        tool(
            "replace",
            &dir,
            "b.md",
            json!({ "instruction": "x to y", "old_string": " x", "new_string": " y",
                    "allow_multiple": true }),
        ),
        tool(
            "write_file",
            &dir,
            "n.md",
            json!({ "content": "# N\n\nNew note.\n" }),
        ),
        tool(
            "replace",
            &dir,
            "c.md",
            json!({ "instruction": "New owner", "old_string": "Owner: Ann",
                    "new_string": "Owner: Bo" }),
        ),
        // Not in the file exactly: Gemini would guess; Redline refuses.
        tool(
            "replace",
            &dir,
            "a.md",
            json!({ "instruction": "Again", "old_string": "Status:  draft",
                    "new_string": "Status: done" }),
        ),
        Turn::text(&["Done."]),
    ];
    let model = ScriptedModel::bind(turns, 0).await.unwrap();
    let serve = mcp::Serve::start(&dir, data.path());
    let pending = |path: &'static str| {
        let serve = &serve;
        async move {
            let found = serve.pending_of("Gemini CLI", &[path]).await;
            found.into_iter().map(|(_, _, h)| h).collect::<Vec<_>>()
        }
    };

    // The user, in the window, while Gemini waits on each write.
    let deciding = async {
        let a = pending("a.md").await;
        serve
            .decide(&a[0], "rejected", Some("keep it a draft until Friday"))
            .await;
        serve.carried_out().await;

        let b = pending("b.md").await;
        assert_eq!(b.len(), 2, "two occurrences, two hunks: {b:?}");
        serve.decide(&b[0], "accepted", None).await;
        serve
            .decide(&b[1], "rejected", Some("seven keeps its x"))
            .await;
        serve.carried_out().await;

        for hunk in pending("n.md").await {
            serve.decide(&hunk, "accepted", None).await;
        }
        serve.carried_out().await;

        let c = pending("c.md").await;
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
        serve.decide(&c[0], "accepted", None).await;
        serve.carried_out().await;
    };
    let running = tokio::task::spawn_blocking({
        let (gemini, dir, home, data) = (
            gemini.clone(),
            dir.clone(),
            home.path().to_owned(),
            data.path().to_owned(),
        );
        let url = model.base_url(Protocol::AnthropicMessages);
        move || run_gemini(&gemini, &dir, &home, &data, &url)
    });
    let ((), ran) = tokio::join!(deciding, running);
    let (said, shown) = ran.unwrap();
    // Every write decided and carried out: nothing is left to review.
    serve.settled().await;
    assert_eq!(said, "Done.");
    assert!(
        shown.contains("was rejected (seven keeps its x)"),
        "the user sees what the model cannot be told: {shown}"
    );

    // The bytes: each file exactly as the user decided.
    assert_eq!(
        read("a.md"),
        "# A\n\nStatus: draft\n",
        "rejected: untouched"
    );
    assert_eq!(
        read("b.md"),
        "# B\n\none y\ntwo\nthree\nfour\nfive\nsix\nseven x\n",
        "only the accepted half"
    );
    assert_eq!(read("n.md"), "# N\n\nNew note.\n");
    assert_eq!(
        read("c.md"),
        "# C\r\n\r\nOwner: Bo and Cy\r\n",
        "the user's text, CRLF kept"
    );

    // The model was told each outcome.
    let results = tool_results(&model);
    assert_eq!(results.len(), 5, "{results:#?}");
    assert!(
        results[0].contains("Tool execution blocked")
            && results[0].contains("keep it a draft until Friday"),
        "the reason reaches the model: {}",
        results[0]
    );
    assert!(
        results[1].contains("modified the `new_string`") && results[1].contains("one y"),
        "told that its edit was changed: {}",
        results[1]
    );
    assert!(
        results[2].contains("Successfully created") && !results[2].contains("modified by a hook"),
        "accepted as proposed: left as it was: {}",
        results[2]
    );
    assert!(results[3].contains("Bo and Cy"), "{}", results[3]);
    assert!(
        results[4].contains("Could not find an exact match"),
        "refused in Gemini's words: {}",
        results[4]
    );

    // One session named after Gemini's; what Gemini wrote is Redline's own
    // save: nothing in conflict, nothing left to save.
    serve.saved_by("Gemini CLI").await;
}
