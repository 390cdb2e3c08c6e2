//! A first run: a job with no usable provider fails at once with
//! `no_provider` and sends nothing; hybrid passes over a local server that
//! does not answer; the setup API finds local servers and the bundled model
//! and turns a choice into saved settings; agents can be listed and picked;
//! sessions take their title from the first instruction; usage is current
//! while a job waits.
//!
//! This binary owns its environment: no provider key is set, and the local
//! servers probed are the stand-ins it names.

#[path = "support/door.rs"]
mod door;
#[path = "support/agent.rs"]
mod support;

use std::time::{Duration, Instant};

use redline::api::Api;
use redline::api::http::serve;
use redline::config::{AgentDefinition, AgentMode, Config};
use redline::jobs::{JobStatus, Runtime};
use redline::providers::Protocol;
use redline::testkit::scripted::{ScriptedModel, Turn};
use reqwest::{Method, StatusCode};
use serde_json::json;
use support::*;

/// No keys, no keychain: what a fresh machine has.
fn fresh_machine() {
    // SAFETY: every test of this binary sets the same values.
    unsafe {
        std::env::remove_var("OPENAI_API_KEY");
        std::env::remove_var("ANTHROPIC_API_KEY");
        std::env::set_var("REDLINE_NO_KEYCHAIN", "1");
    }
}

/// A loopback URL nothing listens on.
async fn closed_url() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    drop(listener);
    url
}

/// A harness on a fresh machine: the default remote provider (OpenAI at
/// its own URL, no key), then `tweak`; its scripted model serves `turns`.
async fn fresh(turns: Vec<Turn>, tweak: impl FnOnce(&mut Config)) -> Harness {
    fresh_machine();
    harness(Protocol::OpenAiChat, turns, |c| {
        c.remote = Config::default().remote;
        tweak(c);
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_key_fails_at_once_with_no_provider_and_sends_nothing() {
    let h = fresh(vec![propose_alpha()], |c| c.agent_mode = AgentMode::Remote).await;
    let started = Instant::now();
    let job = h.start("Mark Alpha final", None);
    while !h.runtime.job(&job.job_id).unwrap().status.is_terminal() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let took = started.elapsed();
    let events = h.events_until(&job.job_id, 0, JobStatus::is_terminal).await;
    let job = h.runtime.job(&job.job_id).unwrap();
    assert_eq!(job.status, JobStatus::Failed, "{:?}", kinds(&events));
    let error = job.error.unwrap();
    assert_eq!(error.code, "no_provider");
    for fix in [
        "openai: no API key",
        "OPENAI_API_KEY",
        "Settings",
        "scripts/llama-server start",
    ] {
        assert!(
            error.message.contains(fix),
            "`{fix}` missing from: {}",
            error.message
        );
    }
    // Nothing was asked of any provider: no selection, no step, no retry.
    for kind in [
        "provider.selected",
        "model.step",
        "provider.retry",
        "job.started",
    ] {
        assert!(
            of_kind(&events, kind).is_empty(),
            "{kind}: {:?}",
            kinds(&events)
        );
    }
    assert!(took < Duration::from_secs(1), "took {took:?}");
    assert!(h.model.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_local_server_that_does_not_answer_is_named() {
    let url = closed_url().await;
    let local = url.clone();
    let h = fresh(vec![], move |c| {
        c.agent_mode = AgentMode::Local;
        c.local.base_url = Some(local);
    })
    .await;
    let (job, events) = h.run_to_end("Mark Alpha final", None).await;
    let error = job.error.unwrap();
    assert_eq!(error.code, "no_provider", "{:?}", kinds(&events));
    assert!(
        error
            .message
            .contains(&format!("local: nothing answers at {url}/models")),
        "{}",
        error.message
    );
    assert!(of_kind(&events, "provider.selected").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hybrid_passes_over_a_silent_local_server_and_not_to_a_remote_without_a_key() {
    // Local silent, remote scripted: the job runs on the remote.
    let url = closed_url().await;
    let local = url.clone();
    fresh_machine();
    let h = harness(Protocol::OpenAiChat, vec![propose_alpha()], move |c| {
        c.agent_mode = AgentMode::HybridAuto;
        c.hybrid.max_local_attempts = 2;
        c.local.base_url = Some(local);
    })
    .await;
    let (job, events) = h.run_to_end("Mark Alpha final", None).await;
    assert_eq!(
        job.status,
        JobStatus::AwaitingReview,
        "{:?}",
        kinds(&events)
    );
    let fallback = of_kind(&events, "provider.fallback");
    assert_eq!(
        fallback.len(),
        1,
        "one fallback for both local attempts: {fallback:?}"
    );
    assert_eq!(fallback[0]["reason"], "provider_error");
    assert_eq!(
        (fallback[0]["from"].as_str(), fallback[0]["to"].as_str()),
        (Some("local"), Some("openai"))
    );
    assert!(
        fallback[0]["detail"].as_str().unwrap().contains(&url),
        "{}",
        fallback[0]
    );
    let selected = of_kind(&events, "provider.selected");
    assert_eq!(selected.len(), 1);
    assert_eq!(selected[0]["provider"], "openai");
    assert_eq!(h.model.requests().len(), 1);

    // Local scripted and failing, remote without a key: no fallback to it;
    // the job ends with the local model's own failure.
    let local = ScriptedModel::start((0..8).map(|_| unparseable()).collect())
        .await
        .unwrap();
    let settings = support::settings(&local, Protocol::OpenAiChat);
    let h = fresh(vec![], move |c| {
        c.agent_mode = AgentMode::HybridAuto;
        c.local = settings;
        c.limits.max_schema_retries = 1;
    })
    .await;
    let (job, events) = h.run_to_end("Mark Alpha final", None).await;
    assert_eq!(job.status, JobStatus::Failed, "{:?}", kinds(&events));
    assert_ne!(job.error.unwrap().code, "no_provider");
    assert!(of_kind(&events, "provider.fallback").is_empty());
    assert!(!local.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setup_is_ready_in_each_mode_when_a_provider_a_job_may_use_can_run() {
    let closed = closed_url().await;
    let h = fresh(vec![], |_| {}).await;
    let answering = support::settings(&h.model, Protocol::OpenAiChat);
    let readiness = |mode: AgentMode, local_answers: bool, remote_answers: bool| {
        let mut config = h.config.clone();
        config.agent_mode = mode;
        config.local = if local_answers {
            answering.clone()
        } else {
            redline::config::ProviderSettings {
                base_url: Some(closed.clone()),
                ..Config::default().local
            }
        };
        // Without an answering server: OpenAI's own service, and no key.
        config.remote = if remote_answers {
            answering.clone()
        } else {
            Config::default().remote
        };
        h.runtime.reconfigure(config).unwrap();
        let runtime = h.runtime.clone();
        async move {
            let r = runtime.provider_readiness().await;
            let said: Vec<&str> = r
                .problems
                .iter()
                .map(|p| {
                    if p.starts_with("local:") {
                        "local"
                    } else {
                        "remote"
                    }
                })
                .collect();
            (r.ready, said)
        }
    };
    use AgentMode::*;
    let cases = [
        (Remote, false, false, false, vec!["remote"]),
        (Remote, false, true, true, vec![]),
        (Local, false, true, false, vec!["local"]),
        (Local, true, false, true, vec![]),
        // Hybrid runs on whichever can: ready with either, each problem said.
        (HybridAuto, false, true, true, vec!["local"]),
        (HybridAuto, true, false, true, vec!["remote"]),
        (HybridAuto, false, false, false, vec!["local", "remote"]),
        (HybridAuto, true, true, true, vec![]),
    ];
    for (mode, local, remote, ready, problems) in cases {
        assert_eq!(
            readiness(mode, local, remote).await,
            (ready, problems),
            "{mode:?}, local answers: {local}, remote answers: {remote}"
        );
    }
}

/// The API over `runtime`, saving settings to `file`.
async fn door(runtime: Runtime, file: &std::path::Path) -> door::Door {
    door::Door {
        served: serve(
            Api::new(runtime).with_config_file(Some(file.to_path_buf())),
            0,
            None,
        )
        .await
        .unwrap(),
        client: redline::providers::http::client_builder().build().unwrap(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setup_finds_servers_and_the_bundled_model_and_a_choice_makes_jobs_run() {
    // Stand-ins: a llama.cpp-shaped server (the scripted model answers
    // `/v1/models` as llama.cpp does) and the bundled model's server.
    let found = ScriptedModel::start(vec![propose_alpha()]).await.unwrap();
    let bundled = ScriptedModel::start(vec![propose_alpha()]).await.unwrap();
    let found_url = found.base_url(Protocol::OpenAiChat);
    let bundled_url = bundled.base_url(Protocol::OpenAiChat);
    let closed = closed_url().await;
    // SAFETY: only this test reads these two variables.
    unsafe {
        std::env::set_var(
            "REDLINE_LOCAL_SERVERS",
            format!("llama_cpp={found_url},ollama={closed},vllm={bundled_url}"),
        );
        std::env::set_var("REDLINE_BUNDLED_MODEL_URL", &bundled_url);
    }
    let h = fresh(vec![], |c| c.agent_mode = AgentMode::Remote).await;
    let file = h.data.path().join("config.toml");
    let door = door(h.runtime.clone(), &file).await;

    let setup = door.get("/api/setup").await;
    assert_eq!(setup["ready"], false, "{setup}");
    assert!(
        setup["problems"][0]
            .as_str()
            .unwrap()
            .starts_with("openai: no API key"),
        "{setup}"
    );
    assert_eq!(setup["env_keys"], json!([]));
    // The bundled server is offered as itself, not again as a found server.
    assert_eq!(
        setup["local_servers"],
        json!([{ "kind": "llama_cpp", "label": "llama.cpp", "base_url": found_url, "models": ["scripted-model"] }])
    );
    assert_eq!(setup["bundled"]["base_url"], bundled_url.as_str());
    assert_eq!(setup["bundled"]["running"], true);
    assert!(
        setup["bundled"]["label"]
            .as_str()
            .unwrap()
            .contains("offline demo")
    );

    // A bad choice changes nothing.
    let (status, body) = door
        .call(
            Method::POST,
            "/api/setup",
            Some(json!({ "kind": "local_server", "base_url": found_url, "model": "" })),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(!file.exists());

    // Picking the found server: saved, in force, and a job runs on it.
    let saved = door
        .post(
            "/api/setup",
            json!({ "kind": "local_server", "base_url": found_url, "model": "scripted-model" }),
        )
        .await;
    assert_eq!(saved["settings"]["agent_mode"], "local");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("agent_mode = \"local\"") && text.contains(&found_url),
        "{text}"
    );
    assert_eq!(door.get("/api/setup").await["ready"], true);
    let (_, job) = door.start("Mark Alpha final").await;
    door.until(&job, "awaiting_review").await;
    assert_eq!(found.requests().len(), 1);

    // Picking the bundled model: the settings a tiny model needs.
    let saved = door.post("/api/setup", json!({ "kind": "bundled" })).await;
    let local = &saved["settings"]["local"];
    assert_eq!(
        (
            &local["base_url"],
            &local["require_tools"],
            &local["max_output_tokens"]
        ),
        (&json!(bundled_url), &json!(true), &json!(256))
    );
    let (_, job) = door.start("Mark Alpha final").await;
    door.until(&job, "awaiting_review").await;
    let body = &bundled.requests()[0].body;
    assert_eq!(
        (&body["max_tokens"], &body["tool_choice"]),
        (&json!(256), &json!("required"))
    );

    // The model list of a server, and of a port with nothing on it.
    let models = door
        .get(&format!("/api/settings/models?base_url={found_url}"))
        .await;
    assert_eq!(
        models,
        json!({ "models": ["scripted-model"], "error": null })
    );
    let none = door
        .get(&format!("/api/settings/models?base_url={closed}"))
        .await;
    assert_eq!(none["models"], json!([]));
    assert!(
        none["error"].as_str().unwrap().contains("nothing answers"),
        "{none}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agents_are_listed_and_a_session_starts_with_one() {
    let h = harness(Protocol::OpenAiChat, vec![], |c| {
        c.agents.push(AgentDefinition {
            agent_id: "copyedit".into(),
            display_name: "Copy editor".into(),
            description: "Fixes typos; never changes meaning.".into(),
            system_prompt: "Fix typos only.".into(),
            tool_allowlist: None,
            tool_denylist: Some(vec!["clarify_user".into()]),
            model: None,
        });
    })
    .await;
    let door = door::Door::open(h.runtime.clone()).await;
    let agents = door.get("/api/agents").await;
    let listed: Vec<_> = agents
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["agent_id"].as_str().unwrap(),
                a["display_name"].as_str().unwrap(),
                a["description"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(listed[0].0, "default");
    assert_eq!(
        listed[1],
        (
            "copyedit",
            "Copy editor",
            "Fixes typos; never changes meaning."
        )
    );
    let created = door
        .post("/api/agent/sessions", json!({ "agent_id": "copyedit" }))
        .await;
    let id = created["session_id"].as_str().unwrap();
    let session = door.get(&format!("/api/agent/sessions/{id}")).await;
    assert_eq!(session["agent_id"], "copyedit", "{session}");
    let (status, body) = door
        .call(
            Method::POST,
            "/api/agent/sessions",
            Some(json!({ "agent_id": "nobody" })),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_titled_by_its_first_instruction_until_renamed() {
    let h = harness(
        Protocol::OpenAiChat,
        vec![propose_alpha(), nothing("Nothing else to do.")],
        |_| {},
    )
    .await;
    let session = h.runtime.create_session(None).unwrap();
    assert_eq!(session.name, None);
    let run = |instruction: &str| {
        h.runtime
            .run(redline::jobs::RunRequest {
                session_id: session.session_id.clone(),
                instruction: instruction.into(),
                context_rows: Vec::new(),
                tool_config: redline::jobs::ToolConfig {
                    max_tool_calls: None,
                },
            })
            .unwrap()
    };
    let first = run("Mark   Alpha final\nand say so in the summary");
    h.events_until(&first.job_id, 0, JobStatus::is_terminal)
        .await;
    let titled = h.runtime.session(&session.session_id).unwrap();
    assert_eq!(titled.name.as_deref(), Some("Mark Alpha final"));
    h.runtime
        .rename_session(&session.session_id, "Status pass")
        .unwrap();
    let second = run("Anything else?");
    h.events_until(&second.job_id, 0, JobStatus::is_terminal)
        .await;
    let kept = h.runtime.session(&session.session_id).unwrap();
    assert_eq!(
        kept.name.as_deref(),
        Some("Status pass"),
        "a second request keeps the title"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_is_current_after_each_step_and_while_waiting() {
    let h = harness(
        Protocol::OpenAiChat,
        vec![
            Turn::call("search_project", json!({ "query": "Status" })),
            Turn::call("read_file", json!({ "file_path": "notes/alpha.md" })),
            Turn::call(
                "clarify_user",
                json!({ "question": "Final or done?", "suggested_answers": ["final", "done"] }),
            ),
            propose_alpha(),
        ],
        |_| {},
    )
    .await;
    let job = h.start("Mark Alpha final", Some(10));
    let events = h
        .events_until(&job.job_id, 0, |s| s == JobStatus::WaitingForUser)
        .await;
    let waiting = h.runtime.job(&job.job_id).unwrap();
    let steps = of_kind(&events, "model.step");
    assert_eq!(steps.len(), 3);
    assert_eq!(waiting.usage.steps, 3);
    assert_eq!(
        waiting.usage.tool_calls, 3,
        "search, read and the question: {:?}",
        waiting.usage
    );
    let tokens: u64 = steps
        .iter()
        .map(|s| s["input_tokens"].as_u64().unwrap() + s["output_tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(
        waiting.usage.input_tokens + waiting.usage.output_tokens,
        tokens
    );
    assert!(tokens > 0);
}
