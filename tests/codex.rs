//! Codex reviewed before it writes: the real Codex CLI from the npm
//! registry (`REDLINE_CODEX`, which `scripts/test` installs), headless
//! (`codex exec`) against the scripted model in the OpenAI Responses wire
//! format, with `redline hook` installed as its PreToolUse hook (`redline
//! hook install codex`, the folder's `.codex/hooks.json`) on a running
//! `redline serve`. Codex writes with `apply_patch`; the user decides over
//! the HTTP API while Codex waits: a rejected patch keeps the bytes and the
//! model reads the reason; a patch of two files, one changed in part and
//! one added, writes only what was accepted; one edited in review writes
//! the user's text, CRLF kept; of two deletions, Redline makes the one
//! accepted and Codex is told; an accepted move Redline makes, the link to
//! the note following, and a rejected one leaves the note where it is with
//! its accepted text. What Codex writes is Redline's own save.

#[path = "support/mcp.rs"]
mod mcp;

use std::path::{Path, PathBuf};
use std::process::Command;

use redline::providers::Protocol;
use redline::testkit::scripted::{ScriptedModel, Turn};
use serde_json::{Value, json};

/// The Codex CLI (`REDLINE_CODEX`); `None` skips, unless
/// `REDLINE_REQUIRE_CODEX` is set.
fn codex() -> Option<PathBuf> {
    mcp::program("REDLINE_CODEX", "REDLINE_REQUIRE_CODEX", "the Codex CLI")
}

/// Codex's home: the scripted model as its provider, spoken to in the
/// Responses format, and a model entry that gives it `apply_patch` as a
/// freeform tool (as Codex's own catalog does for its coding models).
fn codex_home(home: &Path, model_url: &str) {
    let catalog = json!({ "models": [{
        "slug": "scripted", "display_name": "scripted", "description": "A scripted model.",
        "apply_patch_tool_type": "freeform", "shell_type": "shell_command",
        "supports_reasoning_summaries": false, "support_verbosity": false,
        "default_verbosity": null, "input_modalities": ["text"],
        "truncation_policy": { "mode": "tokens", "limit": 10000 },
        "supports_parallel_tool_calls": false, "context_window": 128000,
        "reasoning_summary_format": "none", "default_reasoning_level": "medium",
        "supported_reasoning_levels": [{ "effort": "medium", "description": "medium" }],
        "visibility": "list", "minimal_client_version": "0.0.1", "supported_in_api": true,
        "upgrade": null, "priority": 0, "base_instructions": "You edit notes.",
        "experimental_supported_tools": [],
    }] });
    std::fs::write(home.join("catalog.json"), catalog.to_string()).unwrap();
    let config = format!(
        "model = \"scripted\"\nmodel_provider = \"scripted\"\n\
         model_catalog_json = {catalog:?}\napproval_policy = \"never\"\n\
         sandbox_mode = \"danger-full-access\"\n\
         [model_providers.scripted]\nname = \"Scripted\"\nbase_url = {model_url:?}\n\
         wire_api = \"responses\"\nenv_key = \"SCRIPTED_KEY\"\n",
        catalog = home.join("catalog.json").to_string_lossy(),
    );
    std::fs::write(home.join("config.toml"), config).unwrap();
}

/// Runs `codex exec` in `dir`; returns its last message.
fn run_codex(codex: &Path, dir: &Path, home: &Path, data: &Path) -> String {
    let mut command = Command::new(codex);
    command
        .current_dir(dir)
        .args([
            "exec",
            "--skip-git-repo-check",
            // The folder's hooks run without the prompts a person answers
            // once: trust for the project and for its hooks.
            "--trust",
            "--dangerously-bypass-hook-trust",
            "Tidy the notes",
        ])
        .env("CODEX_HOME", home)
        .env("SCRIPTED_KEY", "test")
        .env_remove("OPENAI_API_KEY");
    mcp::redline_env(&mut command, data);
    let out = mcp::run_agent(&mut command);
    assert!(
        out.status.success(),
        "codex failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// What the model was told of each `apply_patch`, in order.
fn patch_results(model: &ScriptedModel) -> Vec<String> {
    let last = model
        .requests()
        .last()
        .map(|r| r.body.clone())
        .unwrap_or_default();
    last["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["type"] == "custom_tool_call_output")
        .map(|i| match &i["output"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codexs_patches_are_reviewed_before_they_land() {
    let Some(codex) = codex() else { return };
    let vault = tempfile::tempdir().unwrap();
    let dir = vault.path().canonicalize().unwrap();
    let home = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    write("a.md", "# A\n\nStatus: draft\n");
    write("b.md", "# B\n\none\ntwo\nthree\nfour\nfive\nsix\nseven\n");
    write("c.md", "# C\r\n\r\nOwner: Ann\r\n");
    write("d.md", "# D\n");
    write("e.md", "# E\n");
    write("m.md", "# M\n\nStatus: old\n");
    write("l.md", "See [[m]].\n");
    write("p.md", "# P\n\none\n");
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();

    let mut install = Command::new(env!("CARGO_BIN_EXE_redline"));
    install.args(["hook", "install", "codex"]).arg(&dir);
    mcp::redline_env(&mut install, data.path());
    let printed = install.output().unwrap();
    let printed = String::from_utf8_lossy(&printed.stdout);
    assert!(
        printed.contains(".codex/hooks.json") && printed.contains("apply_patch"),
        "{printed}"
    );

    let patch = |body: &str| {
        Turn::call(
            "apply_patch",
            json!(format!("*** Begin Patch\n{body}*** End Patch\n")),
        )
    };
    let turns = vec![
        patch("*** Update File: a.md\n@@\n-Status: draft\n+Status: final\n"),
        patch(
            "*** Update File: b.md\n@@\n-one\n+ONE\n two\n@@\n six\n-seven\n+SEVEN\n\
             *** Add File: n.md\n+# N\n+\n+New note.\n",
        ),
        patch("*** Update File: c.md\n@@\n-Owner: Ann\n+Owner: Bo\n"),
        patch("*** Delete File: d.md\n*** Delete File: e.md\n"),
        patch(
            "*** Update File: m.md\n*** Move to: archive/m2.md\n@@\n-Status: old\n+Status: new\n",
        ),
        patch("*** Update File: p.md\n*** Move to: q.md\n@@\n-one\n+two\n"),
        Turn::text(&["Done."]),
    ];
    let model = ScriptedModel::bind(turns, 0).await.unwrap();
    codex_home(home.path(), &model.base_url(Protocol::OpenAiChat));
    let serve = mcp::Serve::start(&dir, data.path());
    let pending = |paths: &'static [&'static str]| {
        let serve = &serve;
        async move {
            let found = serve.pending_of("Codex", paths).await;
            let hunks = |path: &str| -> Vec<String> {
                found
                    .iter()
                    .filter(|(_, p, _)| p == path)
                    .map(|(_, _, h)| h.clone())
                    .collect()
            };
            paths.iter().map(|p| hunks(p)).collect::<Vec<_>>()
        }
    };

    // The user, in the window, while Codex waits on each patch.
    let deciding = async {
        let a = pending(&["a.md"]).await;
        serve
            .decide(&a[0][0], "rejected", Some("keep it a draft until Friday"))
            .await;
        serve.carried_out().await;

        let bn = pending(&["b.md", "n.md"]).await;
        let (b, n) = (&bn[0], &bn[1]);
        assert_eq!(b.len(), 2, "two changes of b.md, two hunks: {bn:?}");
        serve.decide(&b[0], "accepted", None).await;
        serve
            .decide(&b[1], "rejected", Some("seven stays lower case"))
            .await;
        for hunk in n {
            serve.decide(hunk, "accepted", None).await;
        }
        serve.carried_out().await;

        let c = pending(&["c.md"]).await;
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
        serve.decide(&c[0][0], "accepted", None).await;
        serve.carried_out().await;

        // Two deletions: one accepted, one not.
        let de = pending(&["d.md", "e.md"]).await;
        serve.decide(&de[0][0], "accepted", None).await;
        serve
            .decide(&de[1][0], "rejected", Some("e is still in use"))
            .await;
        serve.carried_out().await;

        // A move with its text changed, the link to it following: all accepted.
        let ml = pending(&["m.md", "l.md"]).await;
        assert_eq!(
            (ml[0].len(), ml[1].len()),
            (2, 1),
            "move, text, link: {ml:?}"
        );
        for hunk in ml.concat() {
            serve.decide(&hunk, "accepted", None).await;
        }
        serve.carried_out().await;

        // A move rejected, its text accepted (the move is listed first).
        let p = pending(&["p.md"]).await;
        serve
            .decide(&p[0][0], "rejected", Some("p keeps its name"))
            .await;
        serve.decide(&p[0][1], "accepted", None).await;
        serve.carried_out().await;
    };
    let running = tokio::task::spawn_blocking({
        let (codex, dir, home, data) = (
            codex.clone(),
            dir.clone(),
            home.path().to_owned(),
            data.path().to_owned(),
        );
        move || run_codex(&codex, &dir, &home, &data)
    });
    let ((), said) = tokio::join!(deciding, running);
    assert!(said.unwrap().ends_with("Done."));
    // Every write decided and carried out: nothing is left to review.
    serve.settled().await;

    // The bytes: each file exactly as the user decided.
    assert_eq!(
        read("a.md"),
        "# A\n\nStatus: draft\n",
        "rejected: untouched"
    );
    assert_eq!(
        read("b.md"),
        "# B\n\nONE\ntwo\nthree\nfour\nfive\nsix\nseven\n",
        "only the accepted part"
    );
    assert_eq!(read("n.md"), "# N\n\nNew note.\n");
    assert_eq!(
        read("c.md"),
        "# C\r\n\r\nOwner: Bo and Cy\r\n",
        "the user's text, CRLF kept"
    );
    assert!(!dir.join("d.md").exists(), "the accepted deletion made");
    assert_eq!(read("e.md"), "# E\n", "the rejected one not");
    assert!(!dir.join("m.md").exists(), "the accepted move made");
    assert_eq!(read("archive/m2.md"), "# M\n\nStatus: new\n");
    assert_eq!(read("l.md"), "See [[m2]].\n", "the link followed");
    assert_eq!(read("p.md"), "# P\n\ntwo\n", "text taken, move not");
    assert!(!dir.join("q.md").exists());

    // The model was told: the rejection with its reason, the rest applied.
    let results = patch_results(&model);
    assert_eq!(results.len(), 6, "{results:?}");
    assert!(
        results[0].contains("keep it a draft until Friday"),
        "the reason reaches the model: {results:?}"
    );
    assert!(
        results[1..3].iter().all(|r| r.contains("Success")),
        "{results:?}"
    );
    assert!(
        results[3].contains("d.md was deleted by Redline")
            && results[3].contains("deleting e.md was rejected (e is still in use)")
            && results[3].contains("do not apply it again"),
        "told what Redline did and why not the rest: {}",
        results[3]
    );
    assert!(
        results[4].contains("m.md was moved to archive/m2.md by Redline")
            && results[4].contains("links to it updated in l.md"),
        "{}",
        results[4]
    );
    assert!(
        results[5].contains("moving p.md to q.md was rejected (p keeps its name)")
            && results[5].contains("Redline wrote the text the user kept in place"),
        "{}",
        results[5]
    );

    // One session named after Codex's; what Codex wrote is Redline's own
    // save: nothing in conflict, nothing left to save.
    serve.saved_by("Codex").await;
}
