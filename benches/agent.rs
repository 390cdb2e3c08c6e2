//! Agent loop benchmark: the loop's own overhead per tool step against a
//! scripted model over real HTTP, and resident memory with the lifecycle
//! limits (docs/configuration.md#limits) filled. Prints figures; asserts
//! only that the work was done.
//!
//! `cargo bench -- agent`; `REDLINE_BENCH_STEPS=50` sets the steps per job.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::*;
use redline::agent::AgentEvent;
use redline::agent::events::ToolCallCompleted;
use redline::config::Limits;
use redline::jobs::{Event, Job, JobStatus, Records, Session};
use redline::project::Project;
use redline::providers::conversation::{Message, StepRequest, ToolChoice};
use redline::providers::http::HttpProvider;
use redline::providers::{Protocol, Provider};
use redline::store::Store;
use redline::testkit::scripted::{ScriptedModel, Turn};
use serde_json::json;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn rss_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

async fn overhead(protocol: Protocol, steps: usize) {
    let read = || Turn::call("read_file", json!({ "file_path": "notes/alpha.md" }));
    let mut turns: Vec<Turn> = (0..steps).map(|_| read()).collect();
    turns.push(nothing("Done."));
    let h = harness(protocol, turns, |c| {
        c.limits.max_token_budget = u64::MAX / 4;
        c.limits.max_events_per_job = 100_000;
    })
    .await;
    let started = Instant::now();
    let job = h.start("Read alpha many times", Some(steps + 1));
    let mut cursor = 0;
    // The terminal status event wakes the long poll at once.
    while !h
        .runtime
        .events(&job.job_id, cursor, 5_000)
        .await
        .unwrap()
        .status
        .is_terminal()
    {
        cursor = h.runtime.job(&job.job_id).unwrap().cursor;
    }
    let total = started.elapsed();
    let job = h.runtime.job(&job.job_id).unwrap();
    assert_eq!(job.status, JobStatus::Completed, "{:?}", job.error);
    assert_eq!(job.usage.tool_calls, steps);

    // The same requests without the loop: transport (HTTP, SSE, decoding) ...
    let bodies = h.bodies();
    let model = ScriptedModel::start((0..bodies.len()).map(|_| read()).collect())
        .await
        .unwrap();
    let provider = HttpProvider::new(
        "bench",
        protocol,
        &model.base_url(protocol),
        "m",
        None,
        Default::default(),
    )
    .unwrap();
    let request = StepRequest {
        model: "m".into(),
        messages: vec![Message::User {
            content: "x".into(),
        }],
        tools: Vec::new(),
        tool_choice: ToolChoice::Auto,
        parallel_tool_calls: true,
        max_tokens: 100,
        temperature: None,
    };
    let t = Instant::now();
    for _ in 0..bodies.len() {
        provider.step(&request, &mut |_| {}).await.unwrap();
    }
    let transport = t.elapsed();
    // ... and the tool itself.
    let project = Project::open(h.vault.path(), Limits::default()).unwrap();
    let t = Instant::now();
    for _ in 0..steps {
        redline::tools::run(
            &project,
            "read_file",
            json!({ "file_path": "notes/alpha.md" }),
        )
        .unwrap();
    }
    let tool = t.elapsed();
    let per = |d: Duration, n: usize| ms(d) / n as f64;
    let own = total.saturating_sub(transport).saturating_sub(tool);
    println!(
        "{protocol:?}, {steps} tool steps: {:.3} ms per step in all; transport {:.3} ms, tool {:.3} ms; loop's own overhead {:.3} ms per step (goal < 1 ms)",
        per(total, steps + 1),
        per(transport, bodies.len()),
        per(tool, steps),
        per(own, steps + 1),
    );
}

/// Fills a store to the lifecycle limits: 25 sessions of 40 jobs of 3000
/// events each (`REDLINE_BENCH_EVENTS` overrides the events per job).
fn fill(data: &std::path::Path, root: &std::path::Path, events_per_job: usize) -> usize {
    let limits = Limits::default();
    let mut store = Store::open(data, root).unwrap();
    let mut count = 0;
    let now = redline::jobs::now();
    for s in 0..limits.max_sessions {
        let session = Session {
            session_id: format!("sess_b{s}"),
            agent_id: "default".into(),
            name: Some(format!("Session {s}")),
            status: "active".into(),
            created_at: now.clone(),
            updated_at: now.clone(),
            chat: Vec::new(),
            context_rows: Vec::new(),
            last_job_id: None,
            pending_review: None,
            reported_hunks: Default::default(),
        };
        store.put_session(&session).unwrap();
        for j in 0..limits.max_jobs_per_session {
            let job = Job {
                // Jobs with a review open are kept by lifecycle GC.
                status: JobStatus::AwaitingReview,
                ..Job::new(
                    format!("job_b{s}_{j}"),
                    session.session_id.clone(),
                    "Benchmark instruction".into(),
                    12,
                )
            };
            store.put_job(&job).unwrap();
            let events: Vec<Event> = (0..events_per_job)
                .map(|c| Event {
                    cursor: c as u64,
                    ts: now.clone(),
                    event: AgentEvent::ToolCallCompleted(ToolCallCompleted {
                        tool_call_id: format!("call_{c}"),
                        tool: "search_project".into(),
                        ok: true,
                        result_count: Some(c as u64),
                        error: None,
                    })
                    .into(),
                })
                .collect();
            store.put_job_events(&job.job_id, &events).unwrap();
            count += events.len();
        }
    }
    count
}

async fn memory() {
    let events_per_job: usize = std::env::var("REDLINE_BENCH_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(Limits::default().max_events_per_job);
    let vault = tempfile::tempdir().unwrap();
    write_vault(vault.path());
    let data = tempfile::tempdir().unwrap();
    let before = rss_kib("VmRSS:");
    let t = Instant::now();
    let root = std::fs::canonicalize(vault.path()).unwrap();
    let events = fill(data.path(), &root, events_per_job);
    let fill_time = t.elapsed();

    // 25 jobs waiting for the user, one per session, live at once, on top of
    // the filled store.
    let turns: Vec<Turn> = (0..25)
        .map(|_| Turn::call("clarify_user", json!({ "question": "Which?" })))
        .collect();
    let model = ScriptedModel::start(turns).await.unwrap();
    let mut config = config(data.path());
    config.remote = settings(&model, Protocol::OpenAiChat);
    let runtime = redline::jobs::Runtime::open(vault.path(), config).unwrap();
    let mut live = Vec::new();
    for s in 0..25 {
        let session = runtime.session(&format!("sess_b{s}")).unwrap();
        live.push(
            runtime
                .run(redline::jobs::RunRequest {
                    session_id: session.session_id,
                    instruction: "Ask".into(),
                    ..Default::default()
                })
                .unwrap(),
        );
    }
    for job in &live {
        while runtime.job(&job.job_id).unwrap().status != JobStatus::WaitingForUser {
            runtime.events(&job.job_id, 0, 200).await.unwrap();
        }
    }
    // Read every session, and page through one full event log.
    let t = Instant::now();
    let sessions = runtime.sessions().unwrap();
    let mut cursor = 0;
    let mut read = 0;
    loop {
        let page = runtime.events("job_b0_0", cursor, 0).await.unwrap();
        if page.events.is_empty() {
            break;
        }
        read += page.events.len();
        cursor = page.next_cursor;
    }
    let read_time = t.elapsed();
    let _keep = Arc::new(runtime);
    println!(
        "lifecycle limits filled: {} sessions, {events} stored events ({events_per_job} per job), 25 live jobs waiting for the user; \
         filled in {:.1} s; all sessions + one {read}-event log read in {:.1} ms; \
         resident memory {:.1} MB (peak {:.1} MB, {:.1} MB before; goal < 150 MB)",
        sessions.len(),
        fill_time.as_secs_f64(),
        ms(read_time),
        rss_kib("VmRSS:") as f64 / 1024.0,
        rss_kib("VmHWM:") as f64 / 1024.0,
        before as f64 / 1024.0,
    );
}

pub fn main() {
    let steps: usize = std::env::var("REDLINE_BENCH_STEPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        for protocol in PROTOCOLS {
            overhead(protocol, 12).await;
            overhead(protocol, steps).await;
        }
        memory().await;
    });
}
