//! Crash trials against the real server: `redline serve` (this build) on a
//! vault of hundreds of notes, driven over its HTTP API through two stacked
//! jobs of the scripted model — the second proposed on the first's pending
//! text — then the first applied, the second applied, the first's
//! checkpoint rolled back and every note saved, is killed with SIGKILL at a random moment of that
//! run. Each trial then starts the server again and checks: it opens (a
//! failed restart otherwise), no note is torn (each holds one whole version
//! of the three the run writes), no temporary file is left in the vault, and
//! the store is whole — the review lists, and rolling back to the first
//! job's checkpoint and saving brings every note back to its first bytes. Prints the
//! counts (each must be 0), where the kills landed, and the time taken.
//!
//! `cargo bench -- crash_trials`; `REDLINE_CRASH_TRIALS` (default 20),
//! `REDLINE_CRASH_NOTES` (default 300), `REDLINE_CRASH_PARALLEL` (trials at
//! once, default 2), `REDLINE_CRASH_SEED`. The first trial runs to the end
//! unkilled: it checks the run itself and times it, and the kills fall
//! anywhere in that time. Exits non-zero when any count is not 0.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use redline::testkit::scripted::{ScriptedCall, ScriptedModel, Turn};
use serde_json::{Value, json};

/// What the run was doing, in order; where a kill landed.
const PHASES: [&str; 7] = [
    "staging 1",
    "staging 2",
    "applying 1",
    "applying 2",
    "rolling back",
    "saving",
    "done",
];

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn note_path(i: usize) -> String {
    format!("Notes/note-{i:04}.md")
}

/// Note `i` at version `v` (0 as written, 1 and 2 by the jobs): a few
/// kilobytes, so that a batch of them takes a while to write.
fn note(i: usize, v: usize) -> String {
    let body = format!("Line {i} of a note long enough to take a moment to write.\n").repeat(60);
    format!("# Note {i}\n\nstate: v{v}\n\n{body}")
}

/// The scripted model's proposal setting every note's state line to `v`.
fn proposal(notes: usize, v: usize) -> Turn {
    let edits: Vec<Value> = (0..notes)
        .map(|i| {
            json!({ "file_path": note_path(i), "operation": "replace", "start_line": 3,
                    "end_line": 3, "new_text": format!("state: v{v}") })
        })
        .collect();
    Turn::Reply {
        text: Vec::new(),
        calls: vec![ScriptedCall {
            id: None,
            name: "propose_edits".into(),
            arguments: json!({ "edits": edits, "summary": format!("State v{v}.") }).to_string(),
        }],
        stop: None,
        usage: None,
        chunk_delay_ms: 0,
    }
}

/// `redline serve` on `vault`, its data in `data`, the remote provider the
/// scripted model at `model`.
struct Server {
    child: Child,
    base: String,
    token: String,
    client: reqwest::Client,
}

impl Server {
    /// Starts the server; `None` when it does not print its address within
    /// a minute (a failed restart).
    fn start(vault: &Path, data: &Path, model: &str) -> Option<Server> {
        use std::io::BufRead;
        let config = data.join("config.toml");
        std::fs::write(
            &config,
            format!("agent_mode = \"remote\"\n[remote]\nprovider = \"openai\"\nmodel = \"scripted-model\"\nbase_url = \"{model}\"\n"),
        )
        .unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_redline"))
            .args(["serve", vault.to_str().unwrap(), "--port", "0"])
            .env("REDLINE_CONFIG", &config)
            .env("REDLINE_DATA_DIR", data)
            .env("REDLINE_NO_KEYCHAIN", "1")
            .env("OPENAI_API_KEY", "sk-crash-trials")
            .env("REDLINE_LOCAL_SERVERS", "")
            .env("REDLINE_BUNDLED_MODEL_URL", "")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = std::io::BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        // An address and its token, printed as the first line.
        let address = rx
            .recv_timeout(Duration::from_secs(60))
            .ok()
            .and_then(|line| {
                let url = reqwest::Url::parse(line.trim()).ok()?;
                let token = url
                    .query_pairs()
                    .find(|(k, _)| k == "token")?
                    .1
                    .into_owned();
                Some((format!("http://{}:{}", url.host_str()?, url.port()?), token))
            });
        let Some((base, token)) = address else {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        };
        Some(Server {
            base,
            token,
            client: redline::providers::http::client_builder().build().unwrap(),
            child,
        })
    }

    /// `method` `path` with `body`; the JSON answer, or why not.
    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, String> {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.map_err(|e| e.to_string())?;
        let status = response.status();
        let text = response.text().await.map_err(|e| e.to_string())?;
        if !status.is_success() {
            return Err(format!("{path}: {status} {text}"));
        }
        serde_json::from_str(&text).map_err(|e| e.to_string())
    }

    async fn get(&self, path: &str) -> Result<Value, String> {
        self.call(reqwest::Method::GET, path, None).await
    }

    async fn post(&self, path: &str, body: Value) -> Result<Value, String> {
        self.call(reqwest::Method::POST, path, Some(body)).await
    }

    /// Waits until job `id` awaits review.
    async fn staged(&self, id: &str) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let job = self
                .get(&format!("/api/agent/jobs/{id}?brief=true"))
                .await?;
            match job["status"].as_str() {
                Some("awaiting_review") => return Ok(()),
                Some("queued" | "running") if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                other => return Err(format!("job {id} is {other:?}: {job}")),
            }
        }
    }

    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The ids the run learns as it goes, for the checks after a kill.
#[derive(Default)]
struct Progress {
    phase: AtomicUsize,
    job_1: std::sync::Mutex<Option<String>>,
}

/// The two stacked jobs, the two applies and the rollback.
async fn run(server: &Server, progress: &Progress) -> Result<(), String> {
    let session = server.post("/api/agent/sessions", json!({})).await?;
    let session = session["session_id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let mut jobs = Vec::new();
    for (phase, instruction) in [(0, "State v1."), (1, "State v2, on top.")] {
        progress.phase.store(phase, Ordering::SeqCst);
        let job = server
            .post(
                "/api/agent/run",
                json!({ "session_id": session, "instruction": instruction }),
            )
            .await?;
        let id = job["job_id"].as_str().unwrap_or_default().to_owned();
        if phase == 0 {
            *progress.job_1.lock().unwrap() = Some(id.clone());
        }
        server.staged(&id).await?;
        jobs.push(id);
    }
    for (phase, id) in [(2, &jobs[0]), (3, &jobs[1])] {
        progress.phase.store(phase, Ordering::SeqCst);
        let applied = server
            .post(
                "/api/agent/apply",
                json!({ "session_id": session, "job_id": id, "accepted_hunk_ids": [],
                        "also_accept": "not_rejected", "brief": true }),
            )
            .await?;
        if applied["status"] != "completed" {
            return Err(format!("apply of {id}: {applied}"));
        }
    }
    progress.phase.store(4, Ordering::SeqCst);
    rollback(server, &jobs[0]).await?;
    progress.phase.store(5, Ordering::SeqCst);
    save_all(server).await?;
    progress.phase.store(6, Ordering::SeqCst);
    Ok(())
}

/// Saves every file with unsaved work, one call each, as the window's
/// "Save all" does.
async fn save_all(server: &Server) -> Result<(), String> {
    let changed = server.get("/api/files/changed?limit=100000").await?;
    for file in changed["files"].as_array().into_iter().flatten() {
        if file["state"]["dirty"] == true {
            server
                .post("/api/files/save", json!({ "path": file["path"] }))
                .await?;
        }
    }
    Ok(())
}

/// Rolls every file back to the checkpoint job `job` took before it ran
/// (in the working state: the files are then unsaved).
async fn rollback(server: &Server, job: &str) -> Result<(), String> {
    let page = server.get("/api/agent/checkpoints?limit=50").await?;
    let checkpoint = page["checkpoints"]
        .as_array()
        // The run's own checkpoint, not a rollback's (which names the job too).
        .and_then(|all| {
            all.iter()
                .find(|c| c["job_id"] == job && c["kind"] == "run")
        })
        .and_then(|c| c["checkpoint_id"].as_str())
        .ok_or_else(|| format!("no checkpoint of {job}: {page}"))?
        .to_owned();
    server
        .post(
            &format!("/api/agent/checkpoints/{checkpoint}/rollback"),
            json!({ "mode": "hard_all" }),
        )
        .await
        .map(drop)
}

/// Temporary files left anywhere in the vault.
fn leftovers(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| {
            if e.file_type().unwrap().is_dir() {
                leftovers(&e.path())
            } else {
                usize::from(e.file_name().to_string_lossy().starts_with(".redline-"))
            }
        })
        .sum()
}

/// Notes that hold no whole version, and notes not at version `want`.
fn notes_state(vault: &Path, notes: usize, want: usize) -> (usize, usize) {
    let (mut torn, mut other) = (0, 0);
    for i in 0..notes {
        let text = std::fs::read_to_string(vault.join(note_path(i))).unwrap_or_default();
        match (0..3).find(|&v| text == note(i, v)) {
            None => torn += 1,
            Some(v) if v != want => other += 1,
            Some(_) => {}
        }
    }
    (torn, other)
}

/// What one trial found.
#[derive(Debug, Default)]
struct Outcome {
    killed_in: Option<usize>,
    torn: usize,
    leftovers: usize,
    failed_restart: bool,
    /// The review would not list, or the rollback did not bring every
    /// note back to its first bytes.
    inconsistent: Option<String>,
}

/// One trial in a fresh vault: the run, killed after `kill_after` (never,
/// when `None`), then the restart and its checks.
async fn trial(notes: usize, kill_after: Option<Duration>) -> (Outcome, Duration) {
    let vault = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(vault.path().join("Notes")).unwrap();
    for i in 0..notes {
        std::fs::write(vault.path().join(note_path(i)), note(i, 0)).unwrap();
    }
    let model = ScriptedModel::start(vec![proposal(notes, 1), proposal(notes, 2)])
        .await
        .unwrap();
    let url = model.base_url(redline::providers::Protocol::OpenAiChat);
    let mut outcome = Outcome::default();
    let server = Server::start(vault.path(), data.path(), &url).expect("the first start");
    let progress = Arc::new(Progress::default());
    let started = Instant::now();
    match kill_after {
        None => {
            run(&server, &progress)
                .await
                .unwrap_or_else(|e| panic!("the unkilled run: {e}"));
            let (torn, other) = notes_state(vault.path(), notes, 0);
            assert_eq!(
                (torn, other),
                (0, 0),
                "the unkilled run ends where it began"
            );
        }
        Some(after) => {
            tokio::select! {
                result = run(&server, &progress) => result.unwrap_or_else(|e| panic!("the run: {e}")),
                () = tokio::time::sleep(after) => {}
            }
            outcome.killed_in = Some(progress.phase.load(Ordering::SeqCst));
        }
    }
    let took = started.elapsed();
    server.kill();

    // The next open.
    let Some(server) = Server::start(vault.path(), data.path(), &url) else {
        outcome.failed_restart = true;
        return (outcome, took);
    };
    outcome.torn = notes_state(vault.path(), notes, 0).0;
    outcome.leftovers = leftovers(vault.path());
    let job_1 = progress.job_1.lock().unwrap().clone();
    let consistent = async {
        server.get("/api/review?limit=10").await?;
        // A job killed before its proposal was staged has no checkpoint; nothing was written then.
        let staged = match &job_1 {
            Some(job) => server
                .get(&format!("/api/agent/jobs/{job}?brief=true"))
                .await?["checkpoint_id"]
                .is_string(),
            None => false,
        };
        if staged {
            rollback(&server, job_1.as_deref().unwrap()).await?;
            save_all(&server).await?;
        }
        match notes_state(vault.path(), notes, 0) {
            (0, 0) => Ok(()),
            (torn, other) => Err(format!(
                "after the rollback: {torn} torn, {other} not at their first bytes"
            )),
        }
    };
    outcome.inconsistent = consistent.await.err();
    server.kill();
    (outcome, took)
}

pub fn main() {
    let trials = env("REDLINE_CRASH_TRIALS", 20) as usize;
    let notes = env("REDLINE_CRASH_NOTES", 300) as usize;
    let parallel = env("REDLINE_CRASH_PARALLEL", 2).max(1) as usize;
    let seed = env("REDLINE_CRASH_SEED", 7);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let started = Instant::now();
    let (_, whole) = runtime.block_on(trial(notes, None));
    println!(
        "Crash trials: `redline serve` on {notes} notes, two stacked jobs, two applies, a rollback and saves \
         ({:.0} ms unkilled), SIGKILLed at a random moment, {trials} trials, {parallel} at once",
        whole.as_secs_f64() * 1e3
    );
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let kills: Vec<Duration> = (0..trials)
        .map(|_| whole.mul_f64(rng.random_range(0.0..1.1)))
        .collect();
    let outcomes: Vec<Outcome> = runtime.block_on(async {
        let limit = Arc::new(tokio::sync::Semaphore::new(parallel));
        let tasks: Vec<_> = kills
            .into_iter()
            .map(|after| {
                let limit = limit.clone();
                tokio::spawn(async move {
                    let _slot = limit.acquire_owned().await.unwrap();
                    trial(notes, Some(after)).await.0
                })
            })
            .collect();
        let mut outcomes = Vec::new();
        for task in tasks {
            outcomes.push(task.await.unwrap());
        }
        outcomes
    });
    let mut landed = [0usize; PHASES.len()];
    for o in &outcomes {
        landed[o.killed_in.unwrap_or(PHASES.len() - 1)] += 1;
    }
    let count = |f: &dyn Fn(&Outcome) -> bool| outcomes.iter().filter(|o| f(o)).count();
    let torn: usize = outcomes.iter().map(|o| o.torn).sum();
    let left: usize = outcomes.iter().map(|o| o.leftovers).sum();
    let failed = count(&|o| o.failed_restart);
    let inconsistent = count(&|o| o.inconsistent.is_some());
    let where_: Vec<String> = PHASES
        .iter()
        .zip(landed)
        .map(|(p, n)| format!("{p} {n}"))
        .collect();
    println!("  kills landed: {}", where_.join(", "));
    println!(
        "  torn notes {torn}, leftover temporary files {left}, failed restarts {failed}, \
         inconsistent stores {inconsistent} ({trials} trials in {:.0} s)",
        started.elapsed().as_secs_f64()
    );
    for o in outcomes.iter().filter(|o| o.inconsistent.is_some()).take(5) {
        println!("  {o:?}");
    }
    if torn + left + failed + inconsistent > 0 {
        std::process::exit(1);
    }
}
