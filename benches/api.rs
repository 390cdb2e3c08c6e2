//! HTTP API load test: `redline serve`'s server in-process on loopback, driven
//! over real HTTP by concurrent clients (a session each, running jobs one
//! after another, following them with the long poll, applying some reviews)
//! while reader tasks hammer the cheap reads; scripted models over real HTTP,
//! in child processes, play the model. Prints per-route latencies, throughput, resident memory
//! over two equal rounds, and how fast an event reaches a waiting long poll.
//! Asserts only correctness (every status code, every job's outcome, every
//! applied file), never timings.
//!
//! `cargo bench -- api`. Sizes: `REDLINE_BENCH_API_SESSIONS` (client
//! sessions, default 24: with the probe's session, the lifecycle limit of
//! 25), `REDLINE_BENCH_API_JOBS` (jobs per session per round, default 6),
//! `REDLINE_BENCH_API_READERS` (default 4), `REDLINE_BENCH_API_PROBES`
//! (answered questions per probe run, default 50), `REDLINE_BENCH_API_ROUNDS`
//! (default 2); `REDLINE_BENCH_API_LOG=redline=warn` shows the runtime's logs.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use futures_util::future::BoxFuture;
use redline::api::Api;
use redline::api::http::{Served, serve};
use redline::config::Limits;
use redline::jobs::{ProviderChain, Runtime};
use redline::providers::conversation::{Message, StepRequest};
use redline::providers::http::HttpProvider;
use redline::providers::{Notice, Protocol, Provider, ProviderError, Step};
use redline::testkit::scripted::Turn;
use reqwest::{Client, Method};
use serde_json::{Value, json};

use crate::support;

// Route classes, as the table prints them.
const CREATE_SESSION: &str = "POST /sessions";
const RUN: &str = "POST /run";
const EVENTS: &str = "GET /jobs/{id}/events (long poll)";
const JOB: &str = "GET /jobs/{id}";
const APPLY: &str = "POST /apply";
const SESSIONS: &str = "GET /sessions";
const CHECKPOINTS: &str = "GET /checkpoints";
const PARKED: &str = "GET /jobs/{id}/events (probe, parked)";
const CLARIFY: &str = "POST /jobs/{id}/clarify (probe)";

/// Statuses in which a job's agent has stopped.
const ENDS: [&str; 5] = [
    "awaiting_review",
    "completed",
    "failed",
    "cancelled",
    "budget_exceeded",
];
/// How long the probe lets its long poll reach the server and park before
/// it sends the answer that wakes it.
const PARK: Duration = Duration::from_millis(30);
/// Longest a job may take before the bench calls it stuck.
const STUCK: Duration = Duration::from_secs(60);

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn rss_mb(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(0.0)
        / 1024.0
}

#[derive(Clone, Copy, Debug)]
struct Sizes {
    sessions: usize,
    jobs: usize,
    readers: usize,
    probes: usize,
    rounds: usize,
}

impl Sizes {
    fn from_env() -> Sizes {
        let sizes = Sizes {
            sessions: env_or("REDLINE_BENCH_API_SESSIONS", 24),
            jobs: env_or("REDLINE_BENCH_API_JOBS", 6),
            readers: env_or("REDLINE_BENCH_API_READERS", 4),
            probes: env_or("REDLINE_BENCH_API_PROBES", 50),
            rounds: env_or("REDLINE_BENCH_API_ROUNDS", 2),
        };
        // Within the lifecycle limits, so lifecycle GC never removes a
        // session or job a client still uses: the probe takes one session
        // (a job per round and one more), and every client session runs
        // every round's jobs.
        let limits = Limits::default();
        assert!(
            (1..limits.max_sessions).contains(&sizes.sessions),
            "1 to {} client sessions",
            limits.max_sessions - 1
        );
        assert!(
            sizes.rounds >= 1 && sizes.jobs >= 1,
            "at least one round of one job"
        );
        assert!(
            sizes.rounds * sizes.jobs <= limits.max_jobs_per_session,
            "at most {} jobs per session in all rounds",
            limits.max_jobs_per_session
        );
        // Six events per answered question; the probe's job must fit its log.
        assert!(
            (1..limits.max_events_per_job / 6 - 10).contains(&sizes.probes),
            "too many probe questions for one job's event log"
        );
        sizes
    }
}

// ----- the vault and the scripts -----

/// The note job `g` of session `s` edits: every job has its own, so no two
/// proposals ever touch one file and every apply writes cleanly.
fn note_path(s: usize, g: usize) -> String {
    format!("notes/s{s}/n{g}.md")
}

/// Twenty lines; `Status: draft` on line 3 and `Owner: Ann` on line 12 are
/// far enough apart to be two hunks.
fn note(s: usize, g: usize) -> String {
    let mut lines: Vec<String> = (1..=20)
        .map(|n| format!("Line {n} of note {s}.{g}."))
        .collect();
    lines[0] = format!("# Note {s}.{g}");
    lines[2] = "Status: draft".into();
    lines[11] = "Owner: Ann".into();
    lines.join("\n") + "\n"
}

fn write_vault(root: &Path, sizes: Sizes) {
    for s in 0..sizes.sessions {
        std::fs::create_dir_all(root.join(format!("notes/s{s}"))).unwrap();
        for g in 0..sizes.rounds * sizes.jobs {
            std::fs::write(root.join(note_path(s, g)), note(s, g)).unwrap();
        }
    }
}

/// One job's three model steps: search, read, propose two edits.
fn job_turns(path: &str) -> [Turn; 3] {
    let edit = |line: usize, old: &str, new: &str| {
        json!({ "file_path": path, "operation": "replace", "start_line": line, "end_line": line,
                "old_text": old, "new_text": new, "rationale": null })
    };
    [
        Turn::call("search_project", json!({ "query": "Status: draft" })),
        Turn::call("read_file", json!({ "file_path": path })),
        Turn::call(
            "propose_edits",
            json!({
                "edits": [edit(3, "Status: draft", "Status: final"), edit(12, "Owner: Ann", "Owner: Bo")],
                "summary": format!("Marked {path} final and handed it to Bo."),
            }),
        ),
    ]
}

/// The probe's script, for `runs` jobs: `cycles` questions each, then a
/// closing answer. Tiny reported usage keeps a long job within its token budget.
fn probe_script(cycles: usize, runs: usize) -> Vec<Turn> {
    let mut ask = Turn::call("clarify_user", json!({ "question": "Final or done?" }));
    if let Turn::Reply { usage, .. } = &mut ask {
        *usage = Some((10, 10));
    }
    let run: Vec<Turn> = (0..cycles)
        .map(|_| ask.clone())
        .chain([support::nothing("Done.")])
        .collect();
    (0..runs).flat_map(|_| run.clone()).collect()
}

/// The scripted model answers requests in arrival order from one global
/// queue, so concurrent jobs cannot share one script. Each session gets its
/// own scripted server (still over real HTTP, in both wire formats), picked
/// by the `[tag]` its instructions start with; a session's jobs run one
/// after another, so its script is followed in order.
struct Routed {
    routes: HashMap<String, HttpProvider>,
}

fn tag_of(text: &str) -> Option<&str> {
    text.strip_prefix('[')?.split_once(']').map(|(tag, _)| tag)
}

impl Provider for Routed {
    fn name(&self) -> &str {
        "scripted"
    }

    fn model(&self) -> &str {
        "scripted-model"
    }

    fn step<'a>(
        &'a self,
        request: &'a StepRequest,
        notices: &'a mut (dyn FnMut(Notice) + Send),
    ) -> BoxFuture<'a, Result<Step, ProviderError>> {
        let tag = request.messages.iter().find_map(|m| match m {
            Message::User { content } => tag_of(content),
            _ => None,
        });
        let provider = tag
            .and_then(|t| self.routes.get(t))
            .unwrap_or_else(|| panic!("no scripted route for tag {tag:?}"));
        provider.step(request, notices)
    }
}

/// The scripted models, as child processes (`redline scripted-model`): a
/// scripted model keeps every request it is sent, which in this process
/// would grow its memory with every job and hide whether Redline's own grows.
/// Dropping it ends them.
struct Models {
    /// Each one's base URL, in the order of the scripts.
    urls: Vec<String>,
    children: Vec<std::process::Child>,
    /// Where their scripts are.
    dir: tempfile::TempDir,
}

impl Models {
    fn start(scripts: &[(String, Protocol, Vec<Turn>)]) -> Models {
        use std::io::BufRead;
        // Built first, so a failure half way still ends those started.
        let mut models = Models {
            urls: Vec::new(),
            children: Vec::new(),
            dir: tempfile::tempdir().unwrap(),
        };
        for (tag, _, turns) in scripts {
            let path = models.dir.path().join(format!("{tag}.json"));
            std::fs::write(&path, serde_json::to_string(turns).unwrap()).unwrap();
            let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_redline"))
                .arg("scripted-model")
                .arg(&path)
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("the redline binary runs");
            // It prints its base URL once it listens.
            let mut url = String::new();
            std::io::BufReader::new(child.stdout.take().unwrap())
                .read_line(&mut url)
                .unwrap();
            models.children.push(child);
            assert!(
                url.starts_with("http://"),
                "scripted model {tag} said {url:?}"
            );
            models.urls.push(url.trim().to_owned());
        }
        models
    }
}

impl Drop for Models {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

// ----- measuring -----

/// What one task saw: each request's latency by route, event delivery
/// latencies, and every failed check.
#[derive(Default)]
struct Stats {
    routes: BTreeMap<&'static str, Vec<Duration>>,
    /// From an event's timestamp to the arrival of the long poll that was
    /// already waiting when it was appended.
    delivery: Vec<Duration>,
    /// The probe: (answer sent → parked poll's reply, answer's round trip).
    probe: Vec<(Duration, Duration)>,
    /// Every failed request or check, in order.
    errors: Vec<String>,
}

impl Stats {
    fn fail(&mut self, what: String) {
        self.errors.push(what);
    }

    fn absorb(&mut self, other: Stats) {
        for (route, mut v) in other.routes {
            self.routes.entry(route).or_default().append(&mut v);
        }
        self.delivery.extend(other.delivery);
        self.probe.extend(other.probe);
        self.errors.extend(other.errors);
    }

    fn requests(&self) -> usize {
        self.routes.values().map(Vec::len).sum()
    }
}

/// The `q` quantile of sorted `v` (nearest rank).
fn quantile<T: Copy>(v: &[T], q: f64) -> T {
    v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1]
}

fn spread(mut v: Vec<f64>) -> String {
    if v.is_empty() {
        return "no samples".into();
    }
    v.sort_by(f64::total_cmp);
    format!(
        "p50 {:.2}  p90 {:.2}  p99 {:.2}  max {:.2} ms ({} samples)",
        quantile(&v, 0.5),
        quantile(&v, 0.9),
        quantile(&v, 0.99),
        v[v.len() - 1],
        v.len()
    )
}

fn report(title: &str, stats: &Stats, wall: Duration) {
    println!(
        "\n{title}: {} requests in {:.2} s = {:.0} requests/s",
        stats.requests(),
        wall.as_secs_f64(),
        stats.requests() as f64 / wall.as_secs_f64()
    );
    println!(
        "  {:<40} {:>6} {:>8} {:>8} {:>8} {:>8}",
        "route", "count", "p50", "p90", "p99", "max (ms)"
    );
    for (route, v) in &stats.routes {
        let mut v: Vec<f64> = v.iter().copied().map(ms).collect();
        v.sort_by(f64::total_cmp);
        println!(
            "  {route:<40} {:>6} {:>8.2} {:>8.2} {:>8.2} {:>8.2}",
            v.len(),
            quantile(&v, 0.5),
            quantile(&v, 0.9),
            quantile(&v, 0.99),
            v[v.len() - 1]
        );
    }
    if !stats.delivery.is_empty() {
        println!(
            "  event delivery to a waiting long poll (event timestamp → reply at the client): {}",
            spread(stats.delivery.iter().copied().map(ms).collect())
        );
    }
    report_probe(stats);
}

fn report_probe(stats: &Stats) {
    if stats.probe.is_empty() {
        return;
    }
    let delivery = stats.probe.iter().map(|p| ms(p.0)).collect();
    let trigger = stats.probe.iter().map(|p| ms(p.1)).collect();
    let beyond = stats.probe.iter().map(|p| ms(p.0) - ms(p.1)).collect();
    println!(
        "  probe, answer sent → parked long poll's reply: {}",
        spread(delivery)
    );
    println!(
        "  probe, the answer's own round trip:            {}",
        spread(trigger)
    );
    println!(
        "  probe, delivery minus that round trip:         {}",
        spread(beyond)
    );
}

// ----- the client side -----

/// One simulated client: its own connection pool, the server's address and token.
#[derive(Clone)]
struct Door {
    client: Client,
    base: String,
    token: String,
}

impl Door {
    fn new(served: &(String, String)) -> Door {
        Door {
            client: redline::providers::http::client_builder().build().unwrap(),
            base: served.0.clone(),
            token: served.1.clone(),
        }
    }

    /// Sends one request, timing it to its last body byte; anything but a
    /// 200 with a JSON body is an error.
    async fn call(
        &self,
        stats: &mut Stats,
        route: &'static str,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, String> {
        let what = format!("{method} {path}");
        let started = Instant::now();
        let mut req = self
            .client
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.token);
        if let Some(body) = body {
            req = req
                .header("content-type", "application/json")
                .body(body.to_string());
        }
        let reply = async {
            let res = req.send().await.map_err(|e| e.to_string())?;
            let status = res.status();
            let bytes = res.bytes().await.map_err(|e| e.to_string())?;
            Ok::<_, String>((status, bytes))
        }
        .await;
        stats
            .routes
            .entry(route)
            .or_default()
            .push(started.elapsed());
        let (status, bytes) = reply.map_err(|e| format!("{what}: {e}"))?;
        let text = String::from_utf8_lossy(&bytes);
        if status != 200 {
            return Err(format!("{what}: {status} {text}"));
        }
        serde_json::from_slice(&bytes).map_err(|e| format!("{what}: {e}: {text}"))
    }
}

fn check(ok: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if ok { Ok(()) } else { Err(what()) }
}

/// `t` to the millisecond, as event timestamps are written.
fn floor_ms(t: SystemTime) -> SystemTime {
    let since = t.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    SystemTime::UNIX_EPOCH + Duration::from_millis(since.as_millis() as u64)
}

/// One long poll of a job's events. For the first event appended after the
/// poll was sent (so the poll was waiting for it, or on its way), records the
/// time from the event's timestamp to the reply's arrival.
async fn poll(door: &Door, stats: &mut Stats, job: &str, cursor: u64) -> Result<Value, String> {
    let sent = floor_ms(SystemTime::now());
    let path = format!("/api/agent/jobs/{job}/events?cursor={cursor}&wait_ms=5000");
    let page = door.call(stats, EVENTS, Method::GET, &path, None).await?;
    let arrived = SystemTime::now();
    let fresh = page["events"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| humantime::parse_rfc3339(e["ts"].as_str()?).ok())
        .find(|ts| *ts >= sent);
    if let Some(ts) = fresh {
        stats
            .delivery
            .push(arrived.duration_since(ts).unwrap_or_default());
    }
    Ok(page)
}

/// Long-polls a job's events from `cursor` until a `job.status` event says
/// `until`; another end is an error, and so is a gap in the cursors. Returns
/// the events and the next cursor.
async fn follow(
    door: &Door,
    stats: &mut Stats,
    job: &str,
    mut cursor: u64,
    until: &str,
) -> Result<(Vec<Value>, u64), String> {
    let deadline = Instant::now() + STUCK;
    let mut events = Vec::new();
    loop {
        let page = poll(door, stats, job, cursor).await?;
        for e in page["events"]
            .as_array()
            .ok_or("an event page without events")?
        {
            check(e["cursor"] == cursor, || {
                format!(
                    "job {job}: event {} where cursor {cursor} was due",
                    e["cursor"]
                )
            })?;
            cursor += 1;
            events.push(e.clone());
            let status = e["data"]["status"].as_str().unwrap_or("");
            if e["type"] == "job.status" && status == until {
                return Ok((events, cursor));
            }
            check(e["type"] != "job.status" || !ENDS.contains(&status), || {
                let kinds: Vec<&Value> = events.iter().map(|e| &e["type"]).collect();
                let end = events.iter().rev().find(|e| e["type"] != "job.status");
                format!(
                    "job {job} ended {status}, not {until}; events {kinds:?}; the last: {}",
                    end.map_or(Value::Null, |e| e["data"].clone())
                )
            })?;
        }
        if Instant::now() > deadline {
            // The job as the server sees it, to tell a stuck job from lost events.
            let path = format!("/api/agent/jobs/{job}");
            let now = door.call(stats, JOB, Method::GET, &path, None).await?;
            let kinds: Vec<&Value> = events.iter().map(|e| &e["type"]).collect();
            return Err(format!(
                "job {job} never reached {until}: from cursor {cursor}, events {kinds:?}; \
                 the job is {} with cursor {}, pending question {}",
                now["status"], now["cursor"], now["pending_question"]
            ));
        }
    }
}

/// Everything a client task needs.
struct Bench {
    served: (String, String),
    vault: PathBuf,
    /// Jobs started so far, for the readers.
    seen: Mutex<Vec<String>>,
    /// Set when the round's clients and probe are done.
    stop: AtomicBool,
}

/// One job of session `s`, run and followed to its review. Returns the job
/// and its two hunks' ids.
async fn run_job(
    bench: &Bench,
    door: &Door,
    stats: &mut Stats,
    session: &str,
    s: usize,
    g: usize,
) -> Result<(String, Vec<Value>), String> {
    let path = note_path(s, g);
    let started = door
        .call(
            stats,
            RUN,
            Method::POST,
            "/api/agent/run",
            Some(json!({ "session_id": session,
                         "instruction": format!("[s{s}] Mark {path} final and hand it to Bo") })),
        )
        .await?;
    check(started["status"] == "queued", || format!("run: {started}"))?;
    let job = started["job_id"]
        .as_str()
        .ok_or("run: no job_id")?
        .to_owned();
    bench.seen.lock().unwrap().push(job.clone());

    let (events, _) = follow(door, stats, &job, 0, "awaiting_review").await?;
    let tools = events
        .iter()
        .filter(|e| e["type"] == "tool.call.completed" && e["data"]["ok"] == true)
        .count();
    check(tools == 2, || {
        format!(
            "job {job}: {tools} tool calls, not 2: its proposal was refused and the model tried again"
        )
    })?;

    let snapshot = door
        .call(
            stats,
            JOB,
            Method::GET,
            &format!("/api/agent/jobs/{job}"),
            None,
        )
        .await?;
    let file = &snapshot["diff_bundle"]["files"][0];
    let hunks = file["hunks"].as_array().cloned().unwrap_or_default();
    check(
        snapshot["status"] == "awaiting_review"
            && file["file_path"] == path.as_str()
            && hunks.len() == 2,
        || format!("job {job}: {snapshot}"),
    )?;
    Ok((job, hunks.iter().map(|h| h["hunk_id"].clone()).collect()))
}

/// Applies two reviews out of three (all hunks, or only the first; the third
/// stays open) and checks the disk holds what apply reported.
async fn review_job(
    bench: &Bench,
    door: &Door,
    stats: &mut Stats,
    session: &str,
    (s, g): (usize, usize),
    (job, hunks): (String, Vec<Value>),
) -> Result<(), String> {
    let path = note_path(s, g);
    let accept = match g % 3 {
        0 => 2,
        1 => 1,
        _ => return Ok(()),
    };
    let ids = &hunks[..accept];
    let applied = door
        .call(
            stats,
            APPLY,
            Method::POST,
            "/api/agent/apply",
            Some(json!({ "session_id": session, "job_id": job, "accepted_hunk_ids": ids })),
        )
        .await?;
    let text = std::fs::read_to_string(bench.vault.join(&path)).map_err(|e| e.to_string())?;
    let lines: Vec<&str> = text.lines().collect();
    check(
        applied["status"] == "completed" && applied["applied_files"][0]["applied_hunks"] == accept,
        || {
            format!(
                "apply {job} ({path} on disk now: {:?}, {:?}): {applied}",
                lines[2], lines[11]
            )
        },
    )?;
    // What apply reported is what the disk holds.
    let owner = if accept == 2 {
        "Owner: Bo"
    } else {
        "Owner: Ann"
    };
    check(lines[2] == "Status: final" && lines[11] == owner, || {
        format!("{path} after applying {accept} hunks:\n{text}")
    })
}

/// Who takes part in a round: client `s` with its session (`None` until its
/// first round creates it), and the probe's session. One whose job failed
/// drops out: its later jobs would follow a script out of step.
#[derive(Default)]
struct Cast {
    clients: Vec<(usize, Option<String>)>,
    probe: Option<String>,
}

/// One client: its session (created on its first round), then its jobs in
/// order. A failed review is counted and the client goes on; a failed job
/// stops it. Returns the client if it can go on.
async fn client(
    bench: Arc<Bench>,
    door: Door,
    s: usize,
    session: Option<String>,
    jobs: Range<usize>,
) -> (Stats, Option<(usize, Option<String>)>) {
    let mut stats = Stats::default();
    let session = match session {
        Some(id) => id,
        None => match door
            .call(
                &mut stats,
                CREATE_SESSION,
                Method::POST,
                "/api/agent/sessions",
                Some(json!({})),
            )
            .await
        {
            Ok(created) => created["session_id"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            Err(e) => {
                stats.fail(e);
                return (stats, None);
            }
        },
    };
    for g in jobs {
        let review = match run_job(&bench, &door, &mut stats, &session, s, g).await {
            Ok(review) => review,
            Err(e) => {
                stats.fail(e);
                return (stats, None);
            }
        };
        if let Err(e) = review_job(&bench, &door, &mut stats, &session, (s, g), review).await {
            stats.fail(e);
        }
    }
    (stats, Some((s, Some(session))))
}

/// Hammers the cheap reads, in turn, until the round ends.
async fn reader(bench: Arc<Bench>, door: Door) -> Stats {
    let mut stats = Stats::default();
    let mut i = 0usize;
    while !bench.stop.load(Ordering::Relaxed) {
        let outcome = match i % 3 {
            0 => door
                .call(
                    &mut stats,
                    SESSIONS,
                    Method::GET,
                    "/api/agent/sessions",
                    None,
                )
                .await
                .and_then(|v| {
                    check(v.as_array().is_some_and(|a| !a.is_empty()), || {
                        format!("sessions: {v}")
                    })
                }),
            1 => {
                let job = {
                    let seen = bench.seen.lock().unwrap();
                    seen.get(i / 3 % seen.len().max(1)).cloned()
                };
                match job {
                    Some(job) => door
                        .call(
                            &mut stats,
                            JOB,
                            Method::GET,
                            &format!("/api/agent/jobs/{job}"),
                            None,
                        )
                        .await
                        .and_then(|v| {
                            check(v["job_id"] == job.as_str(), || format!("job {job}: {v}"))
                        }),
                    None => Ok(()),
                }
            }
            _ => door
                .call(
                    &mut stats,
                    CHECKPOINTS,
                    Method::GET,
                    "/api/agent/checkpoints",
                    None,
                )
                .await
                .and_then(|v| check(v["checkpoints"].is_array(), || format!("checkpoints: {v}"))),
        };
        if let Err(e) = outcome {
            stats.fail(e);
        }
        i += 1;
    }
    stats
}

/// Event delivery, measured directly: one job asks `cycles` questions; for
/// each, a long poll (wait_ms=5000) is parked on the job while it waits for
/// the user, then the answer is sent from here. The time from just before
/// sending the answer to the parked poll's reply is the delivery; the
/// answer's own round trip is recorded beside it. Returns the probe's
/// session if it can go on.
async fn probe(door: Door, session: String, cycles: usize) -> (Stats, Option<String>) {
    let mut stats = Stats::default();
    match probe_job(&door, &mut stats, &session, cycles).await {
        Ok(()) => (stats, Some(session)),
        Err(e) => {
            stats.fail(format!("probe: {e}"));
            (stats, None)
        }
    }
}

async fn probe_job(
    door: &Door,
    stats: &mut Stats,
    session: &str,
    cycles: usize,
) -> Result<(), String> {
    let started = door
        .call(
            stats,
            RUN,
            Method::POST,
            "/api/agent/run",
            Some(
                json!({ "session_id": session, "instruction": "[probe] Ask me",
                         "tool_config": { "max_tool_calls": cycles + 5 } }),
            ),
        )
        .await?;
    let job = started["job_id"]
        .as_str()
        .ok_or("run: no job_id")?
        .to_owned();
    let mut cursor = 0;
    for _ in 0..cycles {
        let (events, next) = follow(door, stats, &job, cursor, "waiting_for_user").await?;
        let question = events.last().map(|e| e["data"]["question_id"].clone());
        let parked = tokio::spawn({
            let door = door.clone();
            let path = format!("/api/agent/jobs/{job}/events?cursor={next}&wait_ms=5000");
            async move {
                let mut stats = Stats::default();
                let page = door
                    .call(&mut stats, PARKED, Method::GET, &path, None)
                    .await;
                (Instant::now(), page, stats)
            }
        });
        tokio::time::sleep(PARK).await;
        let sent = Instant::now();
        door.call(
            stats,
            CLARIFY,
            Method::POST,
            &format!("/api/agent/jobs/{job}/clarify"),
            Some(json!({ "question_id": question, "answer": "final" })),
        )
        .await?;
        let round_trip = sent.elapsed();
        let (arrived, page, more) = parked.await.map_err(|e| e.to_string())?;
        stats.absorb(more);
        let page = page?;
        check(
            page["events"][0]["type"] == "clarification.received",
            || format!("the parked poll woke to {page}"),
        )?;
        stats.probe.push((arrived - sent, round_trip));
        // Only the answer's event is taken: the page may already hold the
        // next question's, which `follow` must see.
        cursor = next + 1;
    }
    follow(door, stats, &job, cursor, "completed")
        .await
        .map(|_| ())
}

/// One round: every client of `cast` runs `jobs` on its session while the
/// readers hammer and the probe, if any, runs. Returns what all saw, the
/// round's wall time, and who can go on.
async fn round(
    bench: &Arc<Bench>,
    cast: Cast,
    jobs: Range<usize>,
    probe_cycles: usize,
    readers: usize,
) -> (Stats, Duration, Cast) {
    bench.stop.store(false, Ordering::Relaxed);
    // Every task's HTTP client is built before the clock starts: building
    // one (its TLS setup) costs tens of ms of CPU, and 30 at once would stall
    // the load generator at the start of the round.
    let door = || Door::new(&bench.served);
    let client_doors: Vec<Door> = cast.clients.iter().map(|_| door()).collect();
    let reader_doors: Vec<Door> = (0..readers).map(|_| door()).collect();
    let probe_door = door();
    let t = Instant::now();
    let clients: Vec<_> = cast
        .clients
        .into_iter()
        .zip(client_doors)
        .map(|((s, id), door)| tokio::spawn(client(bench.clone(), door, s, id, jobs.clone())))
        .collect();
    let readers: Vec<_> = reader_doors
        .into_iter()
        .map(|door| tokio::spawn(reader(bench.clone(), door)))
        .collect();
    let probe = cast
        .probe
        .map(|session| tokio::spawn(probe(probe_door, session, probe_cycles)));
    let mut stats = Stats::default();
    let mut next = Cast::default();
    for c in clients {
        let (s, client) = c.await.unwrap();
        stats.absorb(s);
        next.clients.extend(client);
    }
    if let Some(p) = probe {
        let (s, session) = p.await.unwrap();
        stats.absorb(s);
        next.probe = session;
    }
    let wall = t.elapsed();
    bench.stop.store(true, Ordering::Relaxed);
    for r in readers {
        stats.absorb(r.await.unwrap());
    }
    (stats, wall, next)
}

/// A round's errors, for the verdict at the end (every figure is printed
/// first, even when a round failed): their count, and each kind once (ids
/// and numbers blanked) with its count and first instance.
fn errors_of(title: &str, stats: &Stats) -> Option<String> {
    let first = stats.errors.first()?;
    let mut kinds: BTreeMap<String, (usize, &str)> = BTreeMap::new();
    for e in &stats.errors {
        let mut kind = String::new();
        for c in e.chars() {
            match c.is_ascii_digit() {
                true if kind.ends_with('#') => {}
                true => kind.push('#'),
                false => kind.push(c),
            }
        }
        let kind = kind.chars().take(90).collect();
        kinds.entry(kind).or_insert((0, e)).0 += 1;
    }
    println!(
        "  ERRORS: {}, of {} kinds:",
        stats.errors.len(),
        kinds.len()
    );
    for (n, e) in kinds.values() {
        println!("    {n} x {e}");
    }
    Some(format!(
        "{title}: {} errors; the first: {first}",
        stats.errors.len()
    ))
}

fn tokio_runtime(name: &str) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name(name)
        .enable_all()
        .build()
        .unwrap()
}

fn header(sizes: Sizes) {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let Sizes {
        sessions,
        jobs,
        readers,
        probes,
        rounds,
    } = sizes;
    let per_round = sessions * jobs;
    let park = PARK.as_millis();
    print!(
        "\
HTTP API load test over loopback, {cores} cores. Redline's server, job runtime and file watcher run on one
2-thread tokio runtime, the load generator on another, in this process; the scripted models (one per
session, so each session's jobs follow their script in order) run as child processes.
Sizes: {sessions} client sessions (a task each) x {jobs} jobs per round = {per_round} jobs; {rounds} equal rounds.
  A job: 3 model steps (search_project, read_file, propose_edits of 2 edits to a note of its own), followed
  with the long poll to awaiting_review, then GET /jobs/{{id}}; 2 reviews in 3 applied (all hunks, or one).
  {readers} reader tasks loop over GET /sessions, /jobs/{{id}}, /checkpoints while a round runs.
  The probe's own session runs one job of {probes} questions in each round, and once more alone at the end.
Figures: per route, each request's time from send to its last body byte, at the client (a long poll's
  includes its wait for the next event); requests/s over the round's wall time. Event delivery: from an
  event's timestamp (ms resolution: up to 1 ms high) to the arrival of a long poll sent before it. Probe: a
  long poll (wait_ms=5000) is parked on a job waiting for the user for {park} ms, then POST clarify answers
  it; the time from just before sending the answer to the parked poll's reply, beside the answer's own round trip
  (goal: an event reaches a waiting client within 20 ms). Memory: this process's VmRSS (Redline and the
  load generator). Only correctness is asserted: every status code, job outcome and written file.
"
    );
}

pub fn main() {
    // The runtime logs what it cannot report otherwise (an event it could not
    // store, say); `REDLINE_BENCH_API_LOG=redline=warn` shows it on stderr.
    if let Ok(filter) = std::env::var("REDLINE_BENCH_API_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_writer(std::io::stderr)
            .init();
    }
    let sizes = Sizes::from_env();
    header(sizes);
    let redline_rt = tokio_runtime("redline");
    let world_rt = tokio_runtime("world");

    let vault = tempfile::tempdir().unwrap();
    write_vault(vault.path(), sizes);
    let data = tempfile::tempdir().unwrap();
    let config = support::config(data.path());

    // The scripted models: one per client session, alternating wire formats, and the probe's.
    let mut scripts: Vec<(String, Protocol, Vec<Turn>)> = (0..sizes.sessions)
        .map(|s| {
            let turns = (0..sizes.rounds * sizes.jobs)
                .flat_map(|g| job_turns(&note_path(s, g)))
                .collect();
            (format!("s{s}"), support::PROTOCOLS[s % 2], turns)
        })
        .collect();
    scripts.push((
        "probe".into(),
        Protocol::OpenAiChat,
        probe_script(sizes.probes, sizes.rounds + 1),
    ));
    let models = Models::start(&scripts);
    let routes = scripts
        .iter()
        .zip(&models.urls)
        .map(|((tag, protocol, _), url)| {
            let base = match protocol {
                Protocol::OpenAiChat => format!("{url}/v1"),
                Protocol::AnthropicMessages => url.clone(),
            };
            let provider = HttpProvider::new(
                "scripted",
                *protocol,
                &base,
                "scripted-model",
                None,
                config.http.clone(),
            )
            .unwrap();
            (tag.clone(), provider)
        })
        .collect();
    let providers = ProviderChain::new(vec![(
        Arc::new(Routed { routes }) as Arc<dyn Provider>,
        None,
    )]);

    // As `redline serve` does: the runtime, its file watcher, the server.
    let (served, watching): (Served, _) = redline_rt.block_on(async {
        let runtime = Runtime::open_with(vault.path(), config, providers).unwrap();
        let watching = redline::watch::start(runtime.clone()).unwrap();
        (serve(Api::new(runtime), 0, None).await.unwrap(), watching)
    });
    let bench = Arc::new(Bench {
        served: (format!("http://{}", served.addr), served.token.clone()),
        vault: vault.path().to_path_buf(),
        seen: Mutex::new(Vec::new()),
        stop: AtomicBool::new(false),
    });

    let mut failures = Vec::new();
    world_rt.block_on(async {
        let probe_session = Door::new(&bench.served)
            .call(
                &mut Stats::default(),
                CREATE_SESSION,
                Method::POST,
                "/api/agent/sessions",
                Some(json!({})),
            )
            .await
            .unwrap()["session_id"]
            .as_str()
            .unwrap()
            .to_owned();
        let mut memory = vec![format!("{:.1} MB before the rounds", rss_mb("VmRSS:"))];
        let total = Instant::now();
        // The first round's clients create their sessions; later rounds reuse them.
        let mut cast = Cast {
            clients: (0..sizes.sessions).map(|s| (s, None)).collect(),
            probe: Some(probe_session),
        };
        for r in 0..sizes.rounds {
            let jobs = r * sizes.jobs..(r + 1) * sizes.jobs;
            let (stats, wall, next) = round(&bench, cast, jobs, sizes.probes, sizes.readers).await;
            cast = next;
            let title = format!("Round {}", r + 1);
            report(&title, &stats, wall);
            failures.extend(errors_of(&title, &stats));
            memory.push(format!("{:.1} MB after round {}", rss_mb("VmRSS:"), r + 1));
            let out = sizes.sessions - cast.clients.len();
            if out > 0 || cast.probe.is_none() {
                println!(
                    "  Out of step after a failed job, sitting out later rounds: {out} clients{}",
                    if cast.probe.is_none() {
                        " and the probe"
                    } else {
                        ""
                    }
                );
            }
        }
        let alone = Cast {
            clients: Vec::new(),
            probe: cast.probe,
        };
        let (stats, wall, _) = round(&bench, alone, 0..0, sizes.probes, 0).await;
        report("Probe alone (no other load)", &stats, wall);
        failures.extend(errors_of("The lone probe", &stats));
        println!(
            "\nResident memory: {} (peak {:.1} MB).\nRounds and probes took {:.1} s.",
            memory.join(", "),
            rss_mb("VmHWM:"),
            total.elapsed().as_secs_f64()
        );
    });
    drop(served);
    drop(watching);
    drop(models);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
