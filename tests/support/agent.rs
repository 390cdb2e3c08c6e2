//! A runtime on a small vault, with a scripted model over real HTTP.

#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

use redline::config::{AgentMode, Config, ProviderKind, ProviderSettings};
use redline::jobs::{Event, Job, JobStatus, RunRequest, Runtime, ToolConfig};
use redline::providers::Protocol;
use redline::testkit::scripted::{ScriptedModel, Turn};
use serde_json::{Value, json};

/// Both wire formats, for tests that run each scenario in each.
pub const PROTOCOLS: [Protocol; 2] = [Protocol::OpenAiChat, Protocol::AnthropicMessages];

pub const ALPHA: &str = "# Alpha\n\nStatus: draft\nOwner: Ann\n";
pub const BETA: &str = "# Beta\r\n\r\nStatus: draft\r\nOwner: Bo\r\n";

/// Writes the test vault into `dir`.
pub fn write_vault(dir: &Path) {
    std::fs::create_dir_all(dir.join("notes")).unwrap();
    std::fs::write(dir.join("notes/alpha.md"), ALPHA).unwrap();
    std::fs::write(dir.join("notes/beta.md"), BETA).unwrap();
    std::fs::write(dir.join("notes/gamma.md"), "# Gamma\n\nStatus: final\n").unwrap();
}

pub struct Harness {
    pub runtime: Runtime,
    pub model: ScriptedModel,
    pub vault: tempfile::TempDir,
    pub data: tempfile::TempDir,
    pub protocol: Protocol,
    pub config: Config,
}

/// The settings that point a provider at `model`.
pub fn settings(model: &ScriptedModel, protocol: Protocol) -> ProviderSettings {
    ProviderSettings {
        provider: match protocol {
            Protocol::OpenAiChat => ProviderKind::Openai,
            Protocol::AnthropicMessages => ProviderKind::Anthropic,
        },
        model: "scripted-model".into(),
        base_url: Some(model.base_url(protocol)),
        temperature: None,
        require_tools: false,
        max_output_tokens: None,
    }
}

/// A test configuration: fast retries, no keychain, data in `data`.
pub fn config(data: &Path) -> Config {
    let mut config = Config {
        data_dir: Some(data.to_path_buf()),
        agent_mode: AgentMode::Remote,
        ..Config::default()
    };
    config.http.backoff_ms = 5;
    config.http.max_backoff_ms = 2_000;
    config
}

/// Copies the demo vault (`fixtures/vaults/demo`) into `dir`.
pub fn copy_demo(dir: &Path) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vaults/demo");
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", from.display()))
        .arg(dir)
        .status()
        .unwrap();
    assert!(status.success());
}

pub async fn harness(
    protocol: Protocol,
    turns: Vec<Turn>,
    tweak: impl FnOnce(&mut Config),
) -> Harness {
    harness_on(write_vault, protocol, turns, tweak).await
}

/// [`harness`] on the vault `fill` writes.
pub async fn harness_on(
    fill: impl FnOnce(&Path),
    protocol: Protocol,
    turns: Vec<Turn>,
    tweak: impl FnOnce(&mut Config),
) -> Harness {
    // SAFETY: tests only ever set this variable, to the same value.
    unsafe { std::env::set_var("REDLINE_NO_KEYCHAIN", "1") };
    let model = ScriptedModel::start(turns).await.unwrap();
    let vault = tempfile::tempdir().unwrap();
    fill(vault.path());
    let data = tempfile::tempdir().unwrap();
    let mut config = config(data.path());
    config.remote = settings(&model, protocol);
    tweak(&mut config);
    let runtime = Runtime::open(vault.path(), config.clone()).unwrap();
    Harness {
        runtime,
        model,
        vault,
        data,
        protocol,
        config,
    }
}

impl Harness {
    /// Starts a job in a new session.
    pub fn start(&self, instruction: &str, max_tool_calls: Option<usize>) -> Job {
        let session = self.runtime.create_session(None).unwrap();
        self.start_in(&session.session_id, instruction, max_tool_calls)
    }

    /// Starts a job in the session `session_id`.
    pub fn start_in(
        &self,
        session_id: &str,
        instruction: &str,
        max_tool_calls: Option<usize>,
    ) -> Job {
        self.runtime
            .run(RunRequest {
                session_id: session_id.to_owned(),
                instruction: instruction.into(),
                context_rows: Vec::new(),
                tool_config: ToolConfig { max_tool_calls },
            })
            .unwrap()
    }

    /// Reads the job's events (long polling) from `from` until its status
    /// satisfies `until`; returns them.
    pub async fn events_until(
        &self,
        job_id: &str,
        from: u64,
        until: impl Fn(JobStatus) -> bool,
    ) -> Vec<Event> {
        let mut events = Vec::new();
        let mut cursor = from;
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let page = self.runtime.events(job_id, cursor, 2_000).await.unwrap();
            cursor = page.next_cursor;
            let quiet = page.events.is_empty();
            events.extend(page.events);
            if until(page.status) && quiet {
                return events;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "job {job_id} stuck in {:?}; events: {:#?}",
                page.status,
                kinds(&events)
            );
        }
    }

    /// Runs a job to its end; returns it and its events.
    pub async fn run_to_end(
        &self,
        instruction: &str,
        max_tool_calls: Option<usize>,
    ) -> (Job, Vec<Event>) {
        let job = self.start(instruction, max_tool_calls);
        let events = self
            .events_until(&job.job_id, 0, JobStatus::is_terminal)
            .await;
        (self.runtime.job(&job.job_id).unwrap(), events)
    }

    pub fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.vault.path().join(path)).unwrap()
    }

    /// The request bodies the model received.
    pub fn bodies(&self) -> Vec<Value> {
        self.model.requests().into_iter().map(|r| r.body).collect()
    }
}

pub fn kinds(events: &[Event]) -> Vec<&'static str> {
    events.iter().map(|e| e.kind()).collect()
}

/// The payload of each event of `kind`, as JSON.
pub fn of_kind(events: &[Event], kind: &str) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e.kind() == kind)
        .map(|e| e.data())
        .collect()
}

/// The string `key` of each event of `kind`.
pub fn strings(events: &[Event], kind: &str, key: &str) -> Vec<String> {
    of_kind(events, kind)
        .into_iter()
        .map(|e| e[key].as_str().unwrap().to_owned())
        .collect()
}

/// The propose_edits call setting alpha's status line to `final`.
pub fn propose_alpha() -> Turn {
    Turn::call(
        "propose_edits",
        json!({
            "edits": [{ "file_path": "notes/alpha.md", "operation": "replace", "start_line": 3,
                        "end_line": 3, "new_text": "Status: final", "old_text": null, "rationale": null }],
            "summary": "Marked Alpha final.",
        }),
    )
}

/// A propose_edits call with no edits: "nothing needs to change", `summary` saying why.
pub fn nothing(summary: &str) -> Turn {
    Turn::call("propose_edits", json!({ "edits": [], "summary": summary }))
}

/// The tool results a request body carries, as (call id, content, is_error),
/// whatever its wire format.
pub fn tool_results(body: &Value) -> Vec<(String, String, bool)> {
    let mut out = Vec::new();
    for m in body["messages"].as_array().unwrap() {
        if m["role"] == "tool" {
            out.push((
                m["tool_call_id"].as_str().unwrap().to_owned(),
                m["content"].as_str().unwrap().to_owned(),
                false,
            ));
        }
        for b in m["content"].as_array().into_iter().flatten() {
            if b["type"] == "tool_result" {
                out.push((
                    b["tool_use_id"].as_str().unwrap().to_owned(),
                    b["content"].as_str().unwrap().to_owned(),
                    b["is_error"] == true,
                ));
            }
        }
    }
    out
}

/// The names of the tools a request offers.
pub fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            t["function"]["name"]
                .as_str()
                .or(t["name"].as_str())
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// llama.cpp's own answer (recorded) when a small model's output is no tool
/// call it can parse: HTTP 200, then an error event.
pub fn unparseable() -> Turn {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/provider-streams/llama-server-functionary-template"
    );
    Turn::Raw {
        content_type: "text/event-stream".into(),
        body: std::fs::read_to_string(format!("{dir}/oai_chat_stream_auto.response.sse")).unwrap(),
    }
}
