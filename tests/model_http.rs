//! The reference-model test's slower variant: the same random sequences
//! (`tests/support/vault_model.rs`) driven through a running `redline serve`
//! over HTTP, as the window and other clients drive it — edits proposed by
//! the agent (a scripted model in the OpenAI wire format, told each step's
//! edit as it goes), moves and deletions proposed from the tree, hunks
//! decided and undone, typing, saves, runs applied, another program's writes
//! seen by the real file watcher, hard and scoped rollbacks and their undo,
//! and the server killed (SIGKILL) and started again. After every step:
//!
//! - the disk changes only at a save, an apply or another program's write;
//! - a rollback writes nothing, and undoing it gives back the working state
//!   before it, paths included;
//! - a restart after a kill changes nothing the working state shows;
//! - no link that resolved in the working state before a step dangles after
//!   it while its note is shown.
//!
//! CI runs a pinned slice (8 sequences); `REDLINE_EXPLORE_HTTP_CASES=N`
//! runs N from a new seed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

#[path = "support/disk.rs"]
mod disk;
#[path = "support/mcp.rs"]
mod mcp;
#[path = "support/vault_model.rs"]
mod vault_model;

use mcp::Serve;
use proptest::prelude::*;
use proptest::test_runner::{RngSeed, TestRunner};
use redline::testkit::scripted::{ScriptedModel, Turn};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::runtime::Runtime;
use vault_model::{
    FRONT, NOTES, Step, WORDS, broken, is_note, left_pair, note, retarget_paths, shown_at, step,
};

/// A running `redline serve` on the vault, with the scripted model it runs
/// the agent on.
struct Server {
    serve: Serve,
    client: reqwest::Client,
    session: String,
}

/// A job as the test keeps it: its hunks in order, and which of them are
/// link updates (they follow their move).
struct JobSeen {
    session: String,
    job: String,
    hunks: Vec<String>,
    links: BTreeSet<String>,
}

/// The vault, the store, the model and the server, with the runtime that
/// drives them.
struct Rig {
    rt: Runtime,
    vault: tempfile::TempDir,
    data: tempfile::TempDir,
    model: ScriptedModel,
    server: Option<Server>,
    jobs: Vec<JobSeen>,
}

impl Rig {
    fn new() -> Rig {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let vault = tempfile::tempdir().unwrap();
        let data = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(vault.path().join("Notes")).unwrap();
        for (i, name) in NOTES.iter().enumerate() {
            std::fs::write(vault.path().join(format!("Notes/{name}.md")), note(i)).unwrap();
        }
        let model = rt.block_on(ScriptedModel::start(Vec::new())).unwrap();
        mcp::use_scripted(data.path(), &model);
        let mut rig = Rig {
            rt,
            vault,
            data,
            model,
            server: None,
            jobs: Vec::new(),
        };
        rig.start();
        rig
    }

    fn root(&self) -> &Path {
        self.vault.path()
    }

    /// Starts the server (again), on the same vault and store.
    fn start(&mut self) {
        self.server = None;
        let serve = Serve::start_with(self.vault.path(), self.data.path(), &mcp::SCRIPTED_ENV);
        let client = redline::providers::http::client_builder().build().unwrap();
        let mut server = Server {
            serve,
            client,
            session: String::new(),
        };
        let made =
            self.rt
                .block_on(server.call(Method::POST, "/api/agent/sessions", Some(json!({}))));
        server.session = made.1["session_id"].as_str().unwrap().to_owned();
        self.server = Some(server);
    }

    fn call(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let server = self.server.as_ref().expect("started");
        self.rt.block_on(server.call(method, path, body))
    }

    fn get(&self, path: &str) -> Value {
        let (status, body) = self.call(Method::GET, path, None);
        assert_eq!(status, StatusCode::OK, "GET {path}: {body}");
        body
    }

    fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.call(Method::POST, path, Some(body))
    }

    /// What the working state shows: every file the tree lists where it
    /// shows it (a deleted one not at all), with its buffer's text.
    fn view(&self) -> BTreeMap<String, String> {
        let mut shown = BTreeMap::new();
        for entry in self.get("/api/files").as_array().unwrap() {
            let path = entry["path"].as_str().unwrap();
            let state = &entry["state"];
            let op = &state["op"];
            if op["op"]["kind"] == "delete" && op["status"] != "rejected" {
                continue;
            }
            let text = if state["under_review"] == true {
                let file = self.get(&format!("/api/files/content?path={}", encode(path)));
                file["text"].as_str().unwrap().to_owned()
            } else {
                std::fs::read_to_string(self.root().join(path)).unwrap()
            };
            shown.insert(path.to_owned(), text);
        }
        shown
    }

    /// Waits until job `job` is no longer queued or running.
    fn until_ended(&self, job: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let seen = self.get(&format!("/api/agent/jobs/{job}"));
            let status = seen["status"].as_str().unwrap_or_default();
            if !["queued", "running"].contains(&status) {
                return seen;
            }
            assert!(Instant::now() < deadline, "job {job} still {status}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Keeps a job that staged hunks, for a later apply.
    fn keep(&mut self, job: &Value) {
        let Some(bundle) = job.get("diff_bundle").filter(|b| !b.is_null()) else {
            return;
        };
        let ops: Vec<String> = listed(&bundle["file_ops"])
            .iter()
            .map(|o| id(&o["hunk_id"]))
            .collect();
        let mut hunks = ops.clone();
        let mut links = BTreeSet::new();
        for file in listed(&bundle["files"]) {
            for hunk in listed(&file["hunks"]) {
                hunks.push(id(&hunk["hunk_id"]));
                // A move's job holds its link updates and nothing else.
                if !ops.is_empty() {
                    links.insert(id(&hunk["hunk_id"]));
                }
            }
        }
        self.jobs.push(JobSeen {
            session: id(&job["session_id"]),
            job: id(&job["job_id"]),
            hunks,
            links,
        });
    }

    /// Every link update the jobs seen so far proposed.
    fn link_updates(&self) -> BTreeSet<String> {
        self.jobs
            .iter()
            .flat_map(|j| j.links.iter().cloned())
            .collect()
    }

    /// Each file with changes, as the listing has it, with its hunks'
    /// spans.
    fn changed(&self) -> Vec<(Value, Vec<Value>)> {
        listed(&self.get("/api/files/changed?limit=10000")["files"])
            .into_iter()
            .map(|entry| {
                let path = entry["path"].as_str().unwrap();
                let file = self.get(&format!("/api/files/content?path={}", encode(path)));
                (entry, listed(&file["hunks"]))
            })
            .collect()
    }

    /// The link updates under review (by the files' spans) not rejected,
    /// sorted.
    fn leavable(&self) -> Vec<String> {
        let links = self.link_updates();
        let mut out = BTreeSet::new();
        for (_, spans) in self.changed() {
            for span in spans {
                let hunk = id(&span["hunk_id"]);
                if span["status"] != "rejected" && links.contains(&hunk) {
                    out.insert(hunk);
                }
            }
        }
        out.into_iter().collect()
    }

    /// The hunks under review (by the files' spans), pending or decided,
    /// that are not link updates, sorted.
    fn hunks(&self, decided: bool) -> Vec<String> {
        let links = self.link_updates();
        let mut out = BTreeSet::new();
        for (entry, spans) in self.changed() {
            for span in spans {
                let hunk = id(&span["hunk_id"]);
                if (span["status"] != "pending") == decided && !links.contains(&hunk) {
                    out.insert(hunk);
                }
            }
            if let Some(op) = entry["state"]["op"].as_object()
                && (op["status"] != "pending") == decided
            {
                out.insert(id(&op["hunk_id"]));
            }
        }
        out.into_iter().collect()
    }

    /// Plans a rollback to `checkpoint` as `body` asks, then makes it:
    /// the plan (a plan refused itself, as one that says the rollback
    /// would be), and the rollback's status and answer.
    fn rollback(&self, checkpoint: &str, body: Value) -> (Value, StatusCode, Value) {
        let at = format!("/api/agent/checkpoints/{checkpoint}/rollback");
        let (status, mut plan) = self.post(&format!("{at}/plan"), body.clone());
        if status != StatusCode::OK {
            plan = json!({ "refused": plan });
        }
        let (status, report) = self.post(&at, body);
        (plan, status, report)
    }

    /// The ids of the runs' checkpoints, oldest first.
    fn run_checkpoints(&self) -> Vec<String> {
        let mut runs: Vec<String> =
            listed(&self.get("/api/agent/checkpoints?limit=1000")["checkpoints"])
                .iter()
                .filter(|c| c["kind"] == "run")
                .map(|c| id(&c["checkpoint_id"]))
                .collect();
        runs.reverse();
        runs
    }

    /// The feed's cursor now.
    fn cursor(&self) -> u64 {
        self.get("/api/events?cursor=0&wait_ms=0")["next_cursor"]
            .as_u64()
            .unwrap()
    }

    /// Waits (a few seconds at most) for the feed to say something of
    /// `path` after `cursor`: the watcher has taken in another program's
    /// write.
    fn heard(&self, mut cursor: u64, path: &str) {
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            let page = self.get(&format!("/api/events?cursor={cursor}&wait_ms=500"));
            cursor = page["next_cursor"].as_u64().unwrap();
            let said = listed(&page["events"]).iter().any(|e| {
                e["data"]["path"] == path
                    || (e["type"] == "job.updated" && e["data"]["status"] == "awaiting_review")
            });
            if said {
                return;
            }
        }
    }
}

impl Server {
    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.serve.base))
            .bearer_auth(&self.serve.token);
        if let Some(body) = body {
            request = request
                .header("content-type", "application/json")
                .body(body.to_string());
        }
        let reply = request.send().await.unwrap();
        let status = reply.status();
        let bytes = reply.bytes().await.unwrap();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }
}

fn listed(v: &Value) -> Vec<Value> {
    v.as_array().cloned().unwrap_or_default()
}

fn id(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_owned()
}

/// `path` for a query string.
fn encode(path: &str) -> String {
    path.replace('%', "%25")
        .replace(' ', "%20")
        .replace('&', "%26")
        .replace('#', "%23")
}

/// Drives a server through `steps`, checking after each.
fn check(steps: &[Step]) -> Result<(), TestCaseError> {
    let mut rig = Rig::new();
    // The links the user chose to leave naming a note's old path (as
    // `broken` names them): they may dangle for the rest of the sequence.
    let mut chosen: BTreeSet<String> = BTreeSet::new();
    for (n, step) in steps.iter().enumerate() {
        let root = rig.root().to_owned();
        let before = disk::texts(&root);
        let shown = rig.view();
        let mut writes = false;
        match step {
            Step::Edit { .. }
            | Step::Replace { .. }
            | Step::Retarget { .. }
            | Step::Convert { .. }
            | Step::EachNote { .. } => {
                let proposal = match step {
                    Step::Edit { note, line, text } => {
                        let Some(path) = shown_at(&shown, *note) else {
                            continue;
                        };
                        let edit = json!({ "file_path": path, "operation": "replace", "start_line": line + FRONT,
                                           "end_line": line + FRONT, "new_text": text, "old_text": null });
                        json!({ "edits": [edit], "summary": format!("Step {n}.") })
                    }
                    Step::Replace {
                        word,
                        with,
                        whole_word,
                    } => json!({
                        "edits": [],
                        "operations": [{ "op": "replace_text", "find": WORDS[*word], "replace": with,
                                         "whole_word": whole_word }],
                        "summary": format!("Step {n}."),
                    }),
                    Step::Retarget { from, to } => {
                        let Some((from, to)) = retarget_paths(&shown, *from, *to) else {
                            continue;
                        };
                        json!({
                            "edits": [],
                            "operations": [{ "op": "retarget_links", "from": from, "to": to }],
                            "summary": format!("Step {n}."),
                        })
                    }
                    Step::Convert { markdown } => json!({
                        "edits": [],
                        "operations": [{ "op": "convert_links",
                                         "to": if *markdown { "markdown" } else { "wikilink" } }],
                        "summary": format!("Step {n}."),
                    }),
                    Step::EachNote { line, text } => {
                        // Each note's own call answers for that note.
                        for path in (0..NOTES.len()).filter_map(|i| shown_at(&shown, i)) {
                            let edit = json!({ "file_path": path, "operation": "replace",
                                               "start_line": line + FRONT, "end_line": line + FRONT, "new_text": text });
                            rig.model.push_when(
                                &format!("The note `{path}`:"),
                                Turn::call("propose_edits", json!({ "edits": [edit] })),
                            );
                        }
                        json!({ "instruction": format!("Step {n}: line {line}."), "scope": {} })
                    }
                    _ => unreachable!(),
                };
                let tool = match step {
                    Step::EachNote { .. } => "edit_each_note",
                    _ => "propose_edits",
                };
                // An operation that changes nothing goes back to the model,
                // which then ends with text.
                rig.model
                    .push([Turn::call(tool, proposal), Turn::text(&["Done."])]);
                let session = rig.server.as_ref().unwrap().session.clone();
                let (status, started) = rig.post(
                    "/api/agent/run",
                    json!({ "session_id": session, "instruction": format!("step {n}") }),
                );
                prop_assert_eq!(status, StatusCode::OK, "step {}: {}", n, started);
                let job = rig.until_ended(started["job_id"].as_str().unwrap());
                rig.model.clear();
                rig.keep(&job);
            }
            Step::Move { note } | Step::Delete { note } => {
                let Some(path) = shown_at(&shown, *note) else {
                    continue;
                };
                let op = match step {
                    Step::Move { .. } => {
                        json!({ "kind": "move", "to": format!("Archive/{} {n}.md", NOTES[*note]) })
                    }
                    _ => json!({ "kind": "delete" }),
                };
                let (status, job) = rig.post("/api/files/op", json!({ "path": path, "op": op }));
                if status == StatusCode::OK {
                    rig.keep(&job);
                }
            }
            Step::Decide { pick, accept } => {
                let pending = rig.hunks(false);
                if pending.is_empty() {
                    continue;
                }
                let status = if *accept { "accepted" } else { "rejected" };
                let hunk = &pending[pick % pending.len()];
                rig.post(
                    &format!("/api/agent/hunks/{hunk}/decide"),
                    json!({ "status": status }),
                );
            }
            Step::Undo { pick } => {
                let decided = rig.hunks(true);
                if decided.is_empty() {
                    continue;
                }
                let hunk = &decided[pick % decided.len()];
                rig.post(
                    &format!("/api/agent/hunks/{hunk}/decide"),
                    json!({ "status": "pending" }),
                );
            }
            Step::LeaveLink { pick } => {
                let updates = rig.leavable();
                if updates.is_empty() {
                    continue;
                }
                let hunk = &updates[pick % updates.len()];
                let (status, decision) = rig.post(
                    &format!("/api/agent/hunks/{hunk}/decide"),
                    json!({ "status": "rejected" }),
                );
                prop_assert_eq!(status, StatusCode::OK, "step {}: {}", n, decision);
                // Every link it leaves dangling is one it says it leaves.
                let now = rig.view();
                let said: BTreeSet<String> = listed(&decision["links_left"])
                    .iter()
                    .filter_map(|l| left_pair(l["path"].as_str()?, l["from"].as_str()?))
                    .collect();
                for link in broken(&shown, &now) {
                    prop_assert!(
                        said.contains(&link),
                        "step {}: {:?} left {} unsaid ({})",
                        n,
                        step,
                        link,
                        decision
                    );
                }
                // Those it says it leaves may dangle from now on, one that
                // was no link to that note before included (a later hunk
                // on the update, rejected with it, had pointed it
                // elsewhere).
                chosen.extend(said);
            }
            Step::Type { note } => {
                let Some(path) = shown_at(&shown, *note) else {
                    continue;
                };
                let text = format!("{}tapé {n} 日本\n", shown[&path]);
                rig.call(
                    Method::PUT,
                    "/api/files/buffer",
                    Some(json!({ "path": path, "text": text })),
                );
            }
            Step::Save => {
                for entry in listed(&rig.get("/api/files/changed?limit=10000")["files"]) {
                    rig.post("/api/files/save", json!({ "path": entry["path"] }));
                }
                writes = true;
            }
            Step::SaveOne { note } => {
                let Some(path) = shown_at(&shown, *note) else {
                    continue;
                };
                rig.post("/api/files/save", json!({ "path": path }));
                writes = true;
            }
            Step::DecideRun { pick, accept } => {
                if rig.jobs.is_empty() {
                    continue;
                }
                let seen = &rig.jobs[pick % rig.jobs.len()];
                let status = if *accept { "accepted" } else { "rejected" };
                let selection = json!({ "kind": "job", "job_id": seen.job });
                rig.post(
                    "/api/review/decide",
                    json!({ "selection": selection, "status": status }),
                );
            }
            Step::AcceptFile { note } => {
                let Some(path) = shown_at(&shown, *note) else {
                    continue;
                };
                rig.post("/api/files/accept_all", json!({ "path": path }));
            }
            Step::UndoLast { redo } => {
                let (status, undone) = rig.post("/api/review/undo", json!({}));
                if status == StatusCode::OK && *redo && undone.get("rollback").is_none() {
                    let (status, redone) =
                        rig.post("/api/review/redo", json!({ "step_id": undone["step_id"] }));
                    prop_assert_eq!(status, StatusCode::OK, "step {}: {}", n, redone);
                    prop_assert_eq!(rig.view(), shown.clone(), "step {}: undone and redone", n);
                }
            }
            // The crash is the in-process model's: here, one request.
            Step::SaveAll { .. } => {
                let (status, saved) = rig.post("/api/files/save_all", Value::Null);
                prop_assert_eq!(status, StatusCode::OK, "step {}: {}", n, saved);
                writes = true;
            }
            Step::Outside { note, .. } => {
                let Some((path, text)) = before.iter().find(|(_, t)| is_note(t, *note)) else {
                    continue;
                };
                let cursor = rig.cursor();
                std::fs::write(root.join(path), format!("{text}dehors {n} — «ok»\n")).unwrap();
                rig.heard(cursor, path);
                writes = true;
            }
            Step::AgentWrite { note } => {
                // A terminal agent's hook round trip: a line appended,
                // staged, accepted, and the decided text written by the agent.
                let Some((path, text)) = before.iter().find(|(_, t)| is_note(t, *note)) else {
                    continue;
                };
                let write = json!({
                    "agent": "Claude Code", "session": "model", "tool": "Edit",
                    "file_path": path, "before": text, "after": format!("{text}agent {n}\n"),
                });
                let (status, job) = rig.post("/api/agent-writes", write);
                if status != StatusCode::OK {
                    // The note holds what the disk does not: refused, nothing staged.
                    prop_assert_eq!(status, StatusCode::CONFLICT, "step {}: {}", n, job);
                    continue;
                }
                let job_id = id(&job["job_id"]);
                for file in listed(&job["diff_bundle"]["files"]) {
                    for hunk in listed(&file["hunks"]) {
                        let hunk = id(&hunk["hunk_id"]);
                        rig.post(
                            &format!("/api/agent/hunks/{hunk}/decide"),
                            json!({ "status": "accepted" }),
                        );
                    }
                }
                let (_, outcome) =
                    rig.post(&format!("/api/agent-writes/{job_id}/outcome"), json!({}));
                prop_assert_eq!(&outcome["decided"], &json!(true), "step {}: {}", n, outcome);
                let decided = outcome["text"].as_str().unwrap_or_default().to_owned();
                prop_assert!(
                    decided.ends_with(&format!("agent {n}\n")),
                    "step {}: {}",
                    n,
                    outcome
                );
                let cursor = rig.cursor();
                std::fs::write(root.join(path), &decided).unwrap();
                rig.heard(cursor, path);
                writes = true;
                // Taken as Redline's own save: clean, no conflict.
                let files = rig.get("/api/files/changed?limit=10000");
                let entry = listed(&files["files"])
                    .into_iter()
                    .find(|f| f["path"] == json!(path));
                if let Some(entry) = entry {
                    prop_assert_eq!(
                        &entry["state"]["dirty"],
                        &json!(false),
                        "step {}: {}",
                        n,
                        entry
                    );
                    prop_assert_eq!(
                        &entry["state"]["conflict"],
                        &json!(false),
                        "step {}: {}",
                        n,
                        entry
                    );
                }
            }
            Step::Rollback { pick, undo } => {
                let runs = rig.run_checkpoints();
                if runs.is_empty() {
                    continue;
                }
                let checkpoint = &runs[pick % runs.len()];
                let asked = rig.rollback(checkpoint, json!({ "mode": "hard_all" }));
                rolled(&rig, n, asked, *undo, &before, &shown)?;
            }
            Step::Scoped { pick, hunk, undo } => {
                let runs = rig.run_checkpoints();
                if runs.is_empty() {
                    continue;
                }
                let checkpoint = &runs[pick % runs.len()];
                let listed_hunks: Vec<String> = listed(
                    &rig.get(&format!("/api/agent/checkpoints/{checkpoint}"))["affected_files"],
                )
                .iter()
                .flat_map(|f| listed(&f["hunk_ids"]).iter().map(id).collect::<Vec<_>>())
                .collect();
                if listed_hunks.is_empty() {
                    continue;
                }
                let chosen = &listed_hunks[hunk % listed_hunks.len()];
                let scoped = json!({ "mode": "scoped_selected", "hunk_ids": [chosen] });
                let asked = rig.rollback(checkpoint, scoped);
                rolled(&rig, n, asked, *undo, &before, &shown)?;
            }
            Step::Apply {
                pick,
                accept,
                crash,
            } => {
                if rig.jobs.is_empty() {
                    continue;
                }
                let seen = &rig.jobs[pick % rig.jobs.len()];
                // A link update goes as its move goes.
                let chosen: Vec<String> = seen
                    .hunks
                    .iter()
                    .filter(|h| !seen.links.contains(*h))
                    .enumerate()
                    .filter(|(k, _)| accept >> (k % 8) & 1 == 1)
                    .map(|(_, h)| h.clone())
                    .collect();
                let moved = seen.links.len() < seen.hunks.len() && chosen.contains(&seen.hunks[0]);
                let mut accepted = chosen;
                if moved {
                    accepted.extend(seen.links.iter().cloned());
                }
                let body = json!({ "session_id": seen.session, "job_id": seen.job,
                                   "accepted_hunk_ids": accepted });
                rig.post("/api/agent/apply", body);
                writes = true;
                if crash.is_some() {
                    // Killed right after: what the apply did is all there is.
                    let shown = rig.view();
                    rig.start();
                    prop_assert_eq!(rig.view(), shown, "step {}: killed after an apply", n);
                }
            }
            Step::Restart => {
                rig.start();
                prop_assert_eq!(rig.view(), shown.clone(), "step {}: a restart", n);
            }
        }
        if !writes {
            prop_assert_eq!(
                &disk::texts(&root),
                &before,
                "step {}: {:?} wrote to disk",
                n,
                step
            );
        }
        if std::env::var_os("REDLINE_MODEL_TRACE").is_some() {
            eprintln!("--- step {n}: {step:?} ({} jobs)", rig.jobs.len());
            for (path, text) in rig.view() {
                eprintln!("  {path}: {:?}", text.lines().nth(2).unwrap_or(""));
            }
        }
        let mut left = broken(&shown, &rig.view());
        left.retain(|l| !chosen.contains(l));
        prop_assert!(left.is_empty(), "step {}: {:?} broke {:?}", n, step, left);
        if matches!(
            step,
            Step::Save | Step::SaveAll { .. } | Step::Apply { .. } | Step::SaveOne { .. }
        ) {
            let mut left = broken(&before, &disk::texts(&root));
            left.retain(|l| !chosen.contains(l));
            prop_assert!(
                left.is_empty(),
                "step {}: {:?} broke on disk {:?}",
                n,
                step,
                left
            );
        }
    }
    Ok(())
}

/// After a rollback of step `n` answered `status` and `report`, planned
/// first as `plan`: the plan said whether it would be refused; a refusal
/// changed nothing; else the disk is as it was (`before`), and undoing it,
/// with `undo`, gives back the working state before it (`shown`).
fn rolled(
    rig: &Rig,
    n: usize,
    (plan, status, report): (Value, StatusCode, Value),
    undo: bool,
    before: &BTreeMap<String, String>,
    shown: &BTreeMap<String, String>,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        plan["refused"].is_null(),
        status == StatusCode::OK,
        "step {}: planned {}, answered {}",
        n,
        plan,
        report
    );
    if status != StatusCode::OK {
        prop_assert_eq!(
            &rig.view(),
            shown,
            "step {}: refused ({}), yet changed",
            n,
            report
        );
        return Ok(());
    }
    prop_assert_eq!(
        &disk::texts(rig.root()),
        before,
        "step {}: a rollback wrote",
        n
    );
    if undo {
        let back = report["undo_checkpoint_id"].as_str().unwrap();
        let (status, answer) = rig.post(
            &format!("/api/agent/checkpoints/{back}/rollback"),
            json!({ "mode": "hard_all" }),
        );
        prop_assert_eq!(status, StatusCode::OK, "step {}: undo: {}", n, answer);
        prop_assert_eq!(&rig.view(), shown, "step {}: the undo", n);
    }
    Ok(())
}

/// Random sequences of up to 25 steps through a running server, checked
/// after every step: a pinned slice of 8 in CI, `REDLINE_EXPLORE_HTTP_CASES`
/// from a new seed.
#[test]
fn every_sequence_over_http_keeps_the_disk_the_links_and_the_undo() {
    let explore = std::env::var("REDLINE_EXPLORE_HTTP_CASES")
        .ok()
        .and_then(|n| n.parse().ok());
    let config = ProptestConfig {
        cases: explore.unwrap_or(8),
        rng_seed: match explore {
            Some(_) => RngSeed::Random,
            None => RngSeed::Fixed(0x5eed_0040),
        },
        failure_persistence: None,
        // Each case starts a server: shrinking a failure is slow but worth it.
        max_shrink_iters: 200,
        ..ProptestConfig::default()
    };
    let mut runner = TestRunner::new(config);
    let steps = std::sync::atomic::AtomicUsize::new(0);
    let result = runner.run(&proptest::collection::vec(step(), 1..25), |sequence| {
        steps.fetch_add(sequence.len(), std::sync::atomic::Ordering::Relaxed);
        check(&sequence)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    eprintln!(
        "explored {} sequences, {} steps, over HTTP",
        explore.unwrap_or(8),
        steps.into_inner()
    );
}
