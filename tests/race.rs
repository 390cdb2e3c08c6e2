//! Another program's writes raced against review and apply, with the file
//! watcher running: whatever the interleaving, no edit of either side is lost.
//!
//! The other program is a careful editor: it reads a file, appends a marker
//! line, and writes it back only if the file is still what it read (as
//! Redline does), retrying otherwise. Meanwhile Redline decides hunks and
//! applies a job's review at a random moment. Afterwards every marker is on
//! disk, every hunk Redline reported applied is on disk as decided, and every
//! file Redline reported in conflict still holds its accepted hunks in the
//! working buffer, flagged as a conflict.

#[path = "support/agent.rs"]
mod support;

use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use redline::config::Limits;
use redline::jobs::{JobStatus, Runtime};
use redline::project::{Project, WriteError};
use redline::providers::Protocol;
use redline::review::Status;
use redline::testkit::scripted::Turn;
use serde_json::json;
use support::*;

const FILES: usize = 4;

fn file(i: usize) -> String {
    format!("race/f{i}.md")
}

fn original(i: usize) -> String {
    (1..=9).map(|n| format!("f{i} line {n}\n")).collect()
}

/// Each file's lines 2 and 8 rewritten: two hunks a file.
fn proposal() -> Turn {
    let edits: Vec<_> = (0..FILES)
        .flat_map(|i| {
            [2, 8].map(|n| {
                json!({ "file_path": file(i), "operation": "replace", "start_line": n, "end_line": n,
                        "new_text": format!("f{i} line {n} EDITED"), "old_text": null, "rationale": null })
            })
        })
        .collect();
    Turn::call(
        "propose_edits",
        json!({ "edits": edits, "summary": "Edited." }),
    )
}

/// A second job stacked on the first's pending text: each file's line 5.
fn stacked() -> Turn {
    let edits: Vec<_> = (0..FILES)
        .map(|i| {
            json!({ "file_path": file(i), "operation": "replace", "start_line": 5, "end_line": 5,
                    "new_text": format!("f{i} line 5 STACKED"), "old_text": null, "rationale": null })
        })
        .collect();
    Turn::call(
        "propose_edits",
        json!({ "edits": edits, "summary": "Stacked." }),
    )
}

/// The other program: `count` read-append-write cycles on random files.
/// Returns the markers it wrote, per file.
fn other_program(root: std::path::PathBuf, seed: u64, count: usize) -> Vec<Vec<String>> {
    let project = Project::open(&root, Limits::default()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut written = vec![Vec::new(); FILES];
    for k in 0..count {
        let i = rng.random_range(0..FILES);
        let marker = format!("marker {seed}-{k}");
        loop {
            let read = project.read_text(&file(i)).unwrap();
            let text = format!("{}{marker}\n", read.text);
            match project.write_checked(&file(i), text.as_bytes(), Some(&read.hash)) {
                Ok(_) => break,
                Err(WriteError::Conflict { .. }) => continue,
                Err(e) => panic!("{e}"),
            }
        }
        written[i].push(marker);
        std::thread::sleep(Duration::from_micros(rng.random_range(0..1_500)));
    }
    written
}

/// Waits until the watcher has taken in every change (the feed is quiet).
async fn settle(runtime: &Runtime) {
    let mut cursor = runtime.feed().page(0, 0).await.next_cursor;
    loop {
        let page = runtime.feed().page(cursor, 300).await;
        if page.events.is_empty() {
            return;
        }
        cursor = page.next_cursor;
    }
}

async fn race(seed: u64) {
    let h = harness(Protocol::OpenAiChat, vec![proposal(), stacked()], |_| {}).await;
    for i in 0..FILES {
        std::fs::create_dir_all(h.vault.path().join("race")).unwrap();
        std::fs::write(h.vault.path().join(file(i)), original(i)).unwrap();
    }
    let _watching = redline::watch::start(h.runtime.clone()).unwrap();
    let (job, _) = h.run_to_end("Edit", None).await;
    assert_eq!(job.status, JobStatus::AwaitingReview, "seed {seed}");
    let job = h.runtime.job(&job.job_id).unwrap();
    let hunks: Vec<(String, String)> = job
        .diff_bundle
        .unwrap()
        .files
        .iter()
        .flat_map(|f| {
            f.hunks
                .iter()
                .map(|h| (f.file_path.clone(), h.hunk_id.clone()))
        })
        .collect();
    assert_eq!(hunks.len(), 2 * FILES);
    // A second job stacks on the first's pending hunks and stays pending.
    let (second, _) = h.run_to_end("Stack", None).await;
    assert_eq!(second.status, JobStatus::AwaitingReview, "seed {seed}");

    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let other = std::thread::spawn({
        let root = h.vault.path().to_path_buf();
        move || other_program(root, seed, 40)
    });
    // Review while the other program writes: random decisions, then apply.
    let until = Instant::now() + Duration::from_millis(rng.random_range(0..40));
    while Instant::now() < until {
        let (_, hunk) = &hunks[rng.random_range(0..hunks.len())];
        let status = [Status::Accepted, Status::Rejected, Status::Pending][rng.random_range(0..3)];
        // A decision may be refused (a conflict); that is not a loss.
        let _ = h.runtime.decide(hunk, status, None, false);
        tokio::time::sleep(Duration::from_micros(rng.random_range(0..2_000))).await;
    }
    let accepted: Vec<String> = hunks
        .iter()
        .filter(|_| rng.random_bool(0.5))
        .map(|(_, h)| h.clone())
        .collect();
    let report = h
        .runtime
        .apply(&h.runtime.job(&job.job_id).unwrap(), &accepted)
        .unwrap();
    let markers = other.join().unwrap();
    settle(&h.runtime).await;

    for (i, markers) in markers.iter().enumerate() {
        let path = file(i);
        let disk = h.read(&path);
        let stacked = format!("f{i} line 5 STACKED");
        assert!(
            !disk.contains(&stacked),
            "seed {seed}: a pending hunk reached {path}"
        );
        let buffer = h.runtime.file_content(&path).unwrap().text;
        assert!(
            buffer.contains(&stacked),
            "seed {seed}: the stacked hunk left {path}'s buffer"
        );
        for marker in markers {
            assert!(
                disk.contains(marker),
                "seed {seed}: {marker} lost from {path}:\n{disk}"
            );
        }
        let outcome = report.iter().find(|f| f.file_path == path).unwrap();
        let mine: Vec<(String, bool)> = [2, 8]
            .iter()
            .zip(hunks.iter().filter(|(p, _)| *p == path))
            .map(|(n, (_, h))| (format!("f{i} line {n} EDITED"), accepted.contains(h)))
            .collect();
        match outcome.status.as_str() {
            "applied" => {
                for (text, accepted) in &mine {
                    assert_eq!(
                        disk.contains(text),
                        *accepted,
                        "seed {seed}: {path}:\n{disk}"
                    );
                }
            }
            "conflict" => {
                let held = h.runtime.file_content(&path).unwrap();
                assert!(held.state.conflict, "seed {seed}: {path} {held:?}");
                for (text, accepted) in &mine {
                    if *accepted {
                        assert!(
                            held.text.contains(text),
                            "seed {seed}: {text} lost from the buffer"
                        );
                    }
                }
            }
            other => panic!("seed {seed}: {path} {other}"),
        }
    }
    eprintln!(
        "seed {seed}: {} markers, files applied {}, in conflict {}",
        markers.iter().map(Vec::len).sum::<usize>(),
        report.iter().filter(|f| f.status == "applied").count(),
        report.iter().filter(|f| f.status == "conflict").count(),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn external_writes_raced_against_review_and_apply_lose_nothing() {
    for seed in 1..=8 {
        race(seed).await;
    }
}
