//! `redline run` end to end: a real process against a scripted model over
//! real HTTP, clarification answers from standard input, events as JSON
//! lines, exit statuses, and the API key in no output, log or database.

#[path = "support/agent.rs"]
mod support;

use std::io::Write;
use std::process::{Command, Stdio};

use redline::providers::Protocol;
use redline::testkit::scripted::{ScriptedModel, Turn};
use serde_json::{Value, json};
use support::*;

const KEY: &str = "sk-redline-test-0123456789-SECRET-abcd";

struct Run {
    status: i32,
    stdout: String,
    stderr: String,
    lines: Vec<Value>,
}

async fn run(
    model: &ScriptedModel,
    protocol: Protocol,
    vault: &std::path::Path,
    data: &std::path::Path,
    stdin: &str,
    extra: &[&str],
) -> Run {
    let provider = match protocol {
        Protocol::OpenAiChat => "openai",
        Protocol::AnthropicMessages => "anthropic",
    };
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_redline"));
    cmd.args([
        "run",
        vault.to_str().unwrap(),
        "Update the status lines",
        "--provider",
        provider,
    ])
    .args([
        "--model",
        "scripted-model",
        "--base-url",
        &model.base_url(protocol),
    ])
    .args(extra)
    .env("REDLINE_CONFIG", "/nonexistent/redline.toml")
    .env("REDLINE_DATA_DIR", data)
    .env("REDLINE_NO_KEYCHAIN", "1")
    .env("REDLINE_LOG", "trace")
    .env("OPENAI_API_KEY", KEY)
    .env("ANTHROPIC_API_KEY", KEY)
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let stdin = stdin.to_owned();
    let out = tokio::task::spawn_blocking(move || {
        let mut child = cmd.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
        .collect();
    Run {
        status: out.status.code().unwrap_or(-1),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        stdout,
        lines,
    }
}

/// Every byte under `dir`, for a search for the key.
fn all_bytes(dir: &std::path::Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    for entry in walk(dir) {
        bytes.extend(std::fs::read(entry).unwrap_or_default());
    }
    bytes
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_answers_questions_from_stdin_and_never_shows_the_key() {
    for protocol in PROTOCOLS {
        let model = ScriptedModel::start(vec![
            Turn::call("clarify_user", json!({ "question": "Which status?" })),
            Turn::call("read_file", json!({ "file_path": "notes/alpha.md" })),
            Turn::call("clarify_user", json!({ "question": "Anything else?" })),
            propose_alpha(),
        ])
        .await
        .unwrap();
        let vault = tempfile::tempdir().unwrap();
        write_vault(vault.path());
        let data = tempfile::tempdir().unwrap();
        let out = run(
            &model,
            protocol,
            vault.path(),
            data.path(),
            "final\n\n",
            &[],
        )
        .await;
        assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);

        let kinds: Vec<&str> = out
            .lines
            .iter()
            .filter_map(|l| l["type"].as_str())
            .collect();
        assert!(
            kinds.contains(&"clarification.requested") && kinds.contains(&"job.awaiting_review"),
            "{}",
            out.stdout
        );
        let received: Vec<&Value> = out
            .lines
            .iter()
            .filter(|l| l["type"] == "clarification.received")
            .collect();
        assert_eq!(received[0]["data"]["answer"], "final");
        assert_eq!(received[1]["data"]["skipped"], true, "an empty line skips");
        let last = out.lines.last().unwrap();
        assert_eq!(last["status"], "awaiting_review");
        assert_eq!(
            last["diff_bundle"]["files"][0]["file_path"],
            "notes/alpha.md"
        );
        // The review waits: nothing was written.
        assert_eq!(
            std::fs::read_to_string(vault.path().join("notes/alpha.md")).unwrap(),
            ALPHA
        );

        // The key reached the server, and nothing else.
        let requests = model.requests();
        let sent = requests[0]
            .headers
            .iter()
            .find(|(k, _)| k == "authorization" || k == "x-api-key")
            .map(|(_, v)| v.clone())
            .unwrap();
        assert!(sent.ends_with(KEY));
        assert!(out.stderr.contains("event"), "traces were on");
        for (what, text) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            assert!(
                !text.contains(KEY) && !text.contains("SECRET"),
                "the key is in {what}"
            );
        }
        let stored = all_bytes(data.path());
        assert!(
            !stored.windows(6).any(|w| w == b"SECRET"),
            "the key is in the data directory"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_exit_statuses_tell_failure_and_budget() {
    let vault = tempfile::tempdir().unwrap();
    write_vault(vault.path());
    let data = tempfile::tempdir().unwrap();
    let model = ScriptedModel::start(vec![Turn::Error {
        status: 401,
        headers: Vec::new(),
        body: r#"{"error":{"message":"Incorrect API key provided: sk-redl***abcd"}}"#.into(),
    }])
    .await
    .unwrap();
    let out = run(
        &model,
        Protocol::OpenAiChat,
        vault.path(),
        data.path(),
        "",
        &[],
    )
    .await;
    assert_eq!(out.status, 1);
    assert_eq!(out.lines.last().unwrap()["error"]["code"], "auth");

    let read = || Turn::call("list_files", json!({}));
    let model = ScriptedModel::start(vec![read(), read(), Turn::text(&["No."])])
        .await
        .unwrap();
    let out = run(
        &model,
        Protocol::AnthropicMessages,
        vault.path(),
        data.path(),
        "",
        &["--max-tool-calls", "2"],
    )
    .await;
    assert_eq!(out.status, 3, "{}", out.stdout);
    assert_eq!(out.lines.last().unwrap()["status"], "budget_exceeded");
}

/// `redline serve` as a real process: a key given through the settings
/// reaches the model and no response, log line, config file or stored byte.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_takes_a_key_through_settings_and_never_shows_it() {
    use std::io::{BufRead, Read};

    let model = ScriptedModel::start(vec![
        Turn::call("read_file", json!({ "file_path": "notes/alpha.md" })),
        propose_alpha(),
    ])
    .await
    .unwrap();
    let vault = tempfile::tempdir().unwrap();
    write_vault(vault.path());
    let data = tempfile::tempdir().unwrap();
    let config_file = data.path().join("config.toml");
    let mut child = Command::new(env!("CARGO_BIN_EXE_redline"))
        .args(["serve", vault.path().to_str().unwrap(), "--port", "0"])
        .env("REDLINE_CONFIG", &config_file)
        .env("REDLINE_DATA_DIR", data.path())
        .env("REDLINE_NO_KEYCHAIN", "1")
        .env("REDLINE_LOG", "trace")
        .env_remove("OPENAI_API_KEY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut url = String::new();
    stdout.read_line(&mut url).unwrap();
    let url = reqwest::Url::parse(url.trim()).unwrap();
    let token = url
        .query_pairs()
        .find(|(k, _)| k == "token")
        .unwrap()
        .1
        .into_owned();
    let base = format!("http://{}:{}", url.host_str().unwrap(), url.port().unwrap());
    let client = redline::providers::http::client_builder().build().unwrap();
    let mut bodies = String::new();
    let mut call = async |method: reqwest::Method, path: &str, body: Option<Value>| -> Value {
        let mut req = client
            .request(method, format!("{base}{path}"))
            .bearer_auth(&token);
        if let Some(body) = body {
            req = req
                .header("content-type", "application/json")
                .body(body.to_string());
        }
        let text = req.send().await.unwrap().text().await.unwrap();
        bodies.push_str(&text);
        serde_json::from_str(&text).unwrap()
    };

    let before = call(reqwest::Method::GET, "/api/settings", None).await;
    assert_eq!(before["remote"]["key_hint"], Value::Null);
    let saved = call(
        reqwest::Method::PUT,
        "/api/settings",
        Some(json!({
            "remote": { "provider": "openai", "model": "scripted-model",
                        "base_url": model.base_url(Protocol::OpenAiChat) },
            "api_key": { "provider": "openai", "key": KEY },
        })),
    )
    .await;
    assert_eq!(saved["settings"]["remote"]["key_hint"], "…abcd");
    assert_eq!(saved["key_storage"], "memory", "no keychain in tests");
    let sid = call(
        reqwest::Method::POST,
        "/api/agent/sessions",
        Some(json!({})),
    )
    .await["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let job = call(
        reqwest::Method::POST,
        "/api/agent/run",
        Some(json!({ "session_id": sid, "instruction": "Mark Alpha final" })),
    )
    .await["job_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut cursor = 0;
    loop {
        let page = call(
            reqwest::Method::GET,
            &format!("/api/agent/jobs/{job}/events?cursor={cursor}&wait_ms=2000"),
            None,
        )
        .await;
        cursor = page["next_cursor"].as_u64().unwrap();
        if page["status"] == "awaiting_review" {
            break;
        }
        assert_ne!(page["status"], "failed", "{page}");
    }
    call(
        reqwest::Method::GET,
        &format!("/api/agent/jobs/{job}"),
        None,
    )
    .await;
    call(reqwest::Method::GET, "/api/settings", None).await;
    child.kill().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    child.wait().unwrap();

    let sent = model.requests()[0]
        .headers
        .iter()
        .find(|(k, _)| k == "authorization")
        .map(|(_, v)| v.clone())
        .unwrap();
    assert!(sent.ends_with(KEY), "the key reached the model");
    assert!(stderr.contains("event"), "traces were on");
    let config = std::fs::read_to_string(&config_file).unwrap();
    assert!(
        config.contains("scripted-model"),
        "the settings were saved: {config}"
    );
    for (what, text) in [
        ("a response", &bodies),
        ("the log", &stderr),
        ("the config file", &config),
    ] {
        assert!(!text.contains("SECRET"), "the key is in {what}");
    }
    assert!(
        !all_bytes(data.path()).windows(6).any(|w| w == b"SECRET"),
        "the key is in the data directory"
    );
}

/// `redline run` with `args` under the configuration file `config` (TOML),
/// with no key anywhere.
async fn run_with_config(
    vault: &std::path::Path,
    config: &str,
    args: &[&str],
) -> (Run, std::time::Duration) {
    let data = tempfile::tempdir().unwrap();
    let file = data.path().join("config.toml");
    std::fs::write(&file, config).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_redline"));
    cmd.args(["run", vault.to_str().unwrap(), "Mark Alpha final"])
        .args(args)
        .env("REDLINE_CONFIG", &file)
        .env("REDLINE_DATA_DIR", data.path())
        .env("REDLINE_NO_KEYCHAIN", "1")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .stdin(Stdio::null());
    let started = std::time::Instant::now();
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    let took = started.elapsed();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let run = Run {
        status: out.status.code().unwrap_or(-1),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        lines: stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
        stdout,
    };
    (run, took)
}

/// The `provider` of each `provider.selected` line, and each fallback's reason.
fn providers_used(run: &Run) -> (Vec<String>, Vec<String>) {
    let of = |kind: &str, key: &str| {
        run.lines
            .iter()
            .filter(|l| l["type"] == kind)
            .map(|l| l["data"][key].as_str().unwrap().to_owned())
            .collect()
    };
    (
        of("provider.selected", "provider"),
        of("provider.fallback", "reason"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_uses_the_configured_mode_and_mode_overrides_it() {
    let vault = tempfile::tempdir().unwrap();
    write_vault(vault.path());
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", l.local_addr().unwrap())
    };

    // agent_mode = "local" in the file: the local provider runs the job.
    let local = ScriptedModel::start(vec![propose_alpha()]).await.unwrap();
    let config = format!(
        "agent_mode = \"local\"\n[local]\nprovider = \"openai\"\nmodel = \"scripted-model\"\nbase_url = \"{}\"\n",
        local.base_url(Protocol::OpenAiChat)
    );
    let (out, _) = run_with_config(vault.path(), &config, &[]).await;
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(providers_used(&out).0, ["local"]);
    assert_eq!(local.requests().len(), 1);

    // agent_mode = "hybrid_auto" in the file, its local server silent: the
    // remote one the flags name runs it.
    let remote = ScriptedModel::start(vec![propose_alpha()]).await.unwrap();
    let hybrid = format!(
        "agent_mode = \"hybrid_auto\"\n[local]\nprovider = \"openai\"\nmodel = \"m\"\nbase_url = \"{closed}\"\n"
    );
    let remote_url = remote.base_url(Protocol::OpenAiChat);
    let flags = [
        "--provider",
        "openai",
        "--model",
        "scripted-model",
        "--base-url",
        &remote_url,
    ];
    let (out, _) = run_with_config(vault.path(), &hybrid, &flags).await;
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        providers_used(&out),
        (vec!["openai".into()], vec!["provider_error".into()])
    );

    // --mode hybrid_auto over a remote file, and --mode local with the flags
    // naming the local provider.
    let remote = ScriptedModel::start(vec![propose_alpha()]).await.unwrap();
    let remote_url = remote.base_url(Protocol::OpenAiChat);
    let flags = [
        "--mode",
        "hybrid_auto",
        "--base-url",
        &remote_url,
        "--model",
        "scripted-model",
    ];
    let silent_local =
        format!("[local]\nprovider = \"openai\"\nmodel = \"m\"\nbase_url = \"{closed}\"\n");
    let (out, _) = run_with_config(vault.path(), &silent_local, &flags).await;
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        providers_used(&out),
        (vec!["openai".into()], vec!["provider_error".into()])
    );
    let local = ScriptedModel::start(vec![propose_alpha()]).await.unwrap();
    let local_url = local.base_url(Protocol::OpenAiChat);
    let flags = [
        "--mode",
        "local",
        "--base-url",
        &local_url,
        "--model",
        "scripted-model",
    ];
    let (out, _) = run_with_config(vault.path(), "", &flags).await;
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(providers_used(&out).0, ["local"]);
    assert_eq!(local.requests()[0].body["model"], "scripted-model");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_with_no_provider_says_how_to_fix_it_and_exits_at_once() {
    let vault = tempfile::tempdir().unwrap();
    write_vault(vault.path());
    let (out, took) = run_with_config(vault.path(), "", &["--mode", "remote"]).await;
    assert_eq!(out.status, 1, "{}\n{}", out.stdout, out.stderr);
    let last = out.lines.last().unwrap();
    assert_eq!(last["error"]["code"], "no_provider", "{last}");
    assert!(
        out.stderr.contains("openai: no API key") && out.stderr.contains("OPENAI_API_KEY"),
        "{}",
        out.stderr
    );
    // The process as a whole, its start and the database included.
    assert!(took < std::time::Duration::from_secs(1), "took {took:?}");
}
