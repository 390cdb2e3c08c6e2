//! Whole agent jobs against a real model server: llama.cpp's `llama-server`
//! serving SmolLM2-135M, built by `scripts/llama-server` from registry
//! packages. It speaks OpenAI chat and Anthropic messages with real tool
//! calls; the tests assert protocol facts — tool calls executed and recorded,
//! usage reported, the job ends, events well formed — never answer quality.
//!
//! The server comes from `REDLINE_LLAMA_SERVER_BIN`, `REDLINE_LLAMA_MODEL` and
//! `REDLINE_LLAMA_TEMPLATE` (`eval "$(scripts/llama-server env)"`); without
//! them the tests are skipped with a note, unless `REDLINE_REQUIRE_LLAMA=1`.

#[path = "support/agent.rs"]
mod support;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use redline::config::{ProviderKind, ProviderSettings};
use redline::jobs::{JobStatus, Runtime};
use redline::providers::Protocol;
use support::*;

/// Held by each test for its whole run: two model servers generating at
/// once on a 2-core machine slow every step past what a step should take,
/// which tests the machine rather than Redline.
static ONE_MODEL_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn server() -> Option<Server> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let (Some(bin), Some(model), Some(template)) = (
        var("REDLINE_LLAMA_SERVER_BIN"),
        var("REDLINE_LLAMA_MODEL"),
        var("REDLINE_LLAMA_TEMPLATE"),
    ) else {
        assert!(
            var("REDLINE_REQUIRE_LLAMA").is_none(),
            "REDLINE_REQUIRE_LLAMA is set but the llama-server variables are not: run scripts/llama-server env"
        );
        eprintln!(
            "skipped: no llama-server (eval \"$(scripts/llama-server env)\" to run these tests)"
        );
        return None;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(bin)
        .args([
            "-m",
            &model,
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
        ])
        .args([
            "--jinja",
            "--chat-template-file",
            &template,
            "-c",
            "8192",
            "--temp",
            "0",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("llama-server starts");
    let server = Server { child, port };
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let healthy = std::net::TcpStream::connect(("127.0.0.1", port)).is_ok_and(|mut s| {
            use std::io::{Read, Write};
            let _ = s.write_all(b"GET /health HTTP/1.0\r\n\r\n");
            let mut reply = String::new();
            let _ = s.read_to_string(&mut reply);
            reply.starts_with("HTTP/1.1 200") || reply.starts_with("HTTP/1.0 200")
        });
        if healthy {
            return Some(server);
        }
        assert!(
            Instant::now() < deadline,
            "llama-server did not become healthy in 120 s"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whole_jobs_run_against_a_real_model_in_both_wire_formats() {
    let _alone = ONE_MODEL_AT_A_TIME.lock().await;
    let Some(server) = server() else { return };
    // SAFETY: tests only ever set this variable, to the same value.
    unsafe { std::env::set_var("REDLINE_NO_KEYCHAIN", "1") };
    for (protocol, base) in [
        (
            Protocol::OpenAiChat,
            format!("http://127.0.0.1:{}/v1", server.port),
        ),
        (
            Protocol::AnthropicMessages,
            format!("http://127.0.0.1:{}", server.port),
        ),
    ] {
        let vault = tempfile::tempdir().unwrap();
        write_vault(vault.path());
        let data = tempfile::tempdir().unwrap();
        let mut config = config(data.path());
        config.remote = ProviderSettings {
            provider: match protocol {
                Protocol::OpenAiChat => ProviderKind::Openai,
                Protocol::AnthropicMessages => ProviderKind::Anthropic,
            },
            model: "smollm2-135m".into(),
            base_url: Some(base),
            temperature: Some(0.0),
            require_tools: true,
            max_output_tokens: None,
        };
        config.limits.max_output_tokens = 256;
        config.http.request_timeout_ms = 120_000;
        let runtime = Runtime::open(vault.path(), config).unwrap();
        let session = runtime.create_session(None).unwrap();
        let job = runtime
            .run(redline::jobs::RunRequest {
                session_id: session.session_id,
                instruction: "In notes/alpha.md, change the status line to final.".into(),
                context_rows: Vec::new(),
                tool_config: redline::jobs::ToolConfig {
                    max_tool_calls: Some(3),
                },
            })
            .unwrap();
        let started = Instant::now();
        let mut events = Vec::new();
        let mut cursor = 0;
        loop {
            let page = runtime.events(&job.job_id, cursor, 5_000).await.unwrap();
            cursor = page.next_cursor;
            events.extend(page.events);
            if runtime.job(&job.job_id).unwrap().status.is_terminal()
                && runtime.job(&job.job_id).unwrap().cursor <= cursor
            {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(400),
                "{protocol:?}: {:?}",
                kinds(&events)
            );
        }
        let job = runtime.job(&job.job_id).unwrap();
        let k = kinds(&events);
        eprintln!(
            "{protocol:?}: {} in {:.1} s, {} steps, {} tool calls, {} tokens; events {:?}",
            job.status.as_str(),
            started.elapsed().as_secs_f64(),
            job.usage.steps,
            job.usage.tool_calls,
            job.usage.input_tokens + job.usage.output_tokens,
            k
        );
        // Protocol facts.
        assert!(matches!(
            job.status,
            JobStatus::AwaitingReview
                | JobStatus::BudgetExceeded
                | JobStatus::Completed
                | JobStatus::Failed
        ));
        // A 135M model may end its job by failing the loop's guards (calls
        // that do not validate, or a failed call repeated); the calls
        // themselves went over the wire and were run, which is what this
        // test is for.
        if let Some(error) = &job.error {
            assert!(
                ["schema_retries_exhausted", "repeated_calls"].contains(&error.code.as_str()),
                "the wire protocol itself must work: {error:?}"
            );
        }
        let cursors: Vec<u64> = events.iter().map(|e| e.cursor).collect();
        assert_eq!(cursors, (0..events.len() as u64).collect::<Vec<_>>());
        let steps = of_kind(&events, "model.step");
        assert!(!steps.is_empty());
        assert!(
            steps
                .iter()
                .all(|s| s["input_tokens"].as_u64().unwrap() > 0),
            "the server reported usage"
        );
        let requested = of_kind(&events, "tool.call.requested");
        assert!(
            !requested.is_empty(),
            "the real model made tool calls: {k:?}"
        );
        // Every call the model made was answered: run and recorded, or refused with a reason.
        for call in &requested {
            let id = &call["tool_call_id"];
            let answered = events.iter().any(|e| {
                matches!(e.kind(), "tool.call.completed" | "tool.call.failed")
                    && &e.data()["tool_call_id"] == id
            }) || matches!(
                call["tool"].as_str(),
                Some("propose_edits" | "clarify_user")
            );
            assert!(answered, "call {id} was never answered");
        }
        assert!(
            job.usage.tool_calls <= 3,
            "the budget held: {:?}",
            job.usage
        );
    }
}

/// Stops the process `pid` when dropped.
struct Kill(u32);

impl Drop for Kill {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.0.to_string()).status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_rename_runs_offline_on_the_bundled_model_with_its_defaults() {
    // The bundled model as the app finds it: in scripts/llama-server's cache,
    // not running, started by the engine on its port.
    let _alone = ONE_MODEL_AT_A_TIME.lock().await;
    if server().is_none() {
        return;
    }
    let bin = std::path::PathBuf::from(std::env::var("REDLINE_LLAMA_SERVER_BIN").unwrap());
    let cache_dir = bin.parent().and_then(|b| b.parent()).unwrap().to_owned();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // SAFETY: tests only ever set these variables, each to one value.
    unsafe {
        std::env::set_var("REDLINE_NO_KEYCHAIN", "1");
        std::env::set_var("REDLINE_LLAMA_DIR", &cache_dir);
        std::env::set_var("REDLINE_BUNDLED_PORT", port.to_string());
        std::env::remove_var(redline::setup::BUNDLED_URL_VAR);
    }
    let offered = redline::setup::bundled().await.expect("the cache is found");
    assert!(!offered.running);
    assert_eq!(offered.base_url, format!("http://127.0.0.1:{port}/v1"));
    let cache = redline::setup::bundled::cache().unwrap();
    let started = Instant::now();
    let _server = Kill(redline::setup::bundled::start(&cache, port).await.unwrap());
    eprintln!(
        "the bundled model started in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let bundled = redline::setup::bundled().await.unwrap();
    assert!(bundled.running);
    let vault = tempfile::tempdir().unwrap();
    copy_demo(vault.path());
    let data = tempfile::tempdir().unwrap();
    // The settings the setup card's "bundled model" choice saves, nothing else.
    let base = config(data.path());
    let choice =
        redline::setup::update_for(&redline::setup::SetupChoice::Bundled, &base, Some(&bundled))
            .unwrap();
    let mut config = redline::settings::updated(&base, &choice, None).unwrap();
    config.http.request_timeout_ms = 120_000;
    let runtime = Runtime::open(vault.path(), config).unwrap();
    let session = runtime.create_session(None).unwrap();
    let started = Instant::now();
    let job = runtime
        .run(redline::jobs::RunRequest {
            session_id: session.session_id,
            instruction: "Rename the project Atlas to Meridian everywhere.".into(),
            context_rows: Vec::new(),
            tool_config: redline::jobs::ToolConfig {
                max_tool_calls: None,
            },
        })
        .unwrap();
    let mut events = Vec::new();
    let mut cursor = 0;
    let job = loop {
        let page = runtime.events(&job.job_id, cursor, 5_000).await.unwrap();
        cursor = page.next_cursor;
        events.extend(page.events);
        let now = runtime.job(&job.job_id).unwrap();
        if now.status.is_terminal() && now.cursor <= cursor {
            break now;
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "{:?}",
            kinds(&events)
        );
    };
    eprintln!(
        "demo rename on the bundled model: {} ({}) in {:.1} s, {} steps, {} tool calls, {} tokens, {} hunks",
        job.status.as_str(),
        job.error.as_ref().map_or("no error", |e| e.code.as_str()),
        started.elapsed().as_secs_f64(),
        job.usage.steps,
        job.usage.tool_calls,
        job.usage.input_tokens + job.usage.output_tokens,
        job.diff_bundle.as_ref().map_or(0, |b| b
            .files
            .iter()
            .map(|f| f.hunks.len())
            .sum::<usize>()),
    );
    // A clean end: a state the user can act on, never a transport failure
    // or a retried format error.
    assert!(
        matches!(
            job.status,
            JobStatus::AwaitingReview
                | JobStatus::BudgetExceeded
                | JobStatus::Completed
                | JobStatus::Failed
        ),
        "{:?}",
        job.status
    );
    if let Some(error) = &job.error {
        assert!(
            matches!(
                error.code.as_str(),
                "schema_retries_exhausted" | "repeated_calls" | "no_proposal" | "proposal_refused"
            ),
            "not a clean end: {error:?}"
        );
    }
    // A retry is the transport's answer to a slow or busy server, and only
    // that: a format error is the loop's to correct, never retried as sent.
    for retry in of_kind(&events, "provider.retry") {
        eprintln!("retried: {retry}");
        assert!(
            matches!(
                retry["error"]["code"].as_str(),
                Some("timeout" | "transport" | "server")
            ),
            "{retry}"
        );
    }
    let steps = of_kind(&events, "model.step");
    assert!(!steps.is_empty());
    assert!(
        steps
            .iter()
            .all(|s| s["output_tokens"].as_u64().unwrap() <= 256),
        "the small output limit held"
    );
}
