//! One model call per note, end to end: a scripted model (both wire
//! formats, real HTTP) starts a run over a folder with `edit_each_note`;
//! every note gets a call of its own that sees only that note, and what
//! comes back is staged into the job as it arrives, under one checkpoint.
//! The go-ahead past the thresholds, a decline, a cancel that keeps what is
//! staged, and a stop in the middle that the next start resumes without
//! asking any note twice.

#[path = "support/agent.rs"]
mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use redline::jobs::{Job, JobStatus, Runtime};
use redline::testkit::scripted::Turn;
use serde_json::{Value, json};
use support::*;

/// Meeting notes in the folder the run covers.
const MEETINGS: usize = 12;

fn meeting(i: usize) -> String {
    format!("# Meeting {i}\n\nWe discussed topic {i} at length.\n")
}

fn summarised(i: usize) -> String {
    format!("# Meeting {i}\nSummary: topic {i}.\n\nWe discussed topic {i} at length.\n")
}

fn fill(root: &Path) {
    std::fs::create_dir_all(root.join("Meetings")).unwrap();
    std::fs::create_dir_all(root.join("Other")).unwrap();
    for i in 0..MEETINGS {
        std::fs::write(root.join(format!("Meetings/m{i:02}.md")), meeting(i)).unwrap();
    }
    std::fs::write(
        root.join("Meetings/locked.md"),
        "---\nlocked: true\n---\n# Locked\n",
    )
    .unwrap();
    std::fs::write(root.join("Other/x.md"), "# Not a meeting\n").unwrap();
}

fn start_run() -> Turn {
    Turn::call(
        "edit_each_note",
        json!({
            "instruction": "Add a one-line summary under the title",
            "scope": { "folders": ["Meetings"] },
            "summary": "Summaries under each meeting's title.",
        }),
    )
}

/// What the request for note `path` carries, as its key.
fn key(path: &str) -> String {
    format!("The note `{path}`:")
}

/// The answer for meeting `i`: its summary line under the title.
fn summary_of(i: usize) -> Turn {
    Turn::call(
        "propose_edits",
        json!({ "edits": [{
            "file_path": format!("Meetings/m{i:02}.md"), "operation": "insert", "start_line": 2,
            "new_text": format!("Summary: topic {i}.\n"),
        }] }),
    )
}

/// Scripts every meeting's answer: a summary, but `m03` needs none and
/// `m05` twice edits another note (so it fails, after being told once).
fn script_notes(h: &Harness, slow_from: Option<usize>) {
    for i in 0..MEETINGS {
        let path = format!("Meetings/m{i:02}.md");
        let mut turn = match i {
            3 => Turn::call("propose_edits", json!({ "edits": [] })),
            5 => {
                let wrong = Turn::call(
                    "propose_edits",
                    json!({ "edits": [{ "file_path": "Other/x.md", "operation": "replace",
                                        "start_line": 1, "new_text": "# Meeting\n" }] }),
                );
                h.model.push_when(&key(&path), wrong.clone());
                wrong
            }
            _ => summary_of(i),
        };
        if slow_from.is_some_and(|from| i >= from)
            && let Turn::Reply { chunk_delay_ms, .. } = &mut turn
        {
            *chunk_delay_ms = 100;
        }
        h.model.push_when(&key(&path), turn);
    }
}

/// The per-note requests the model received, by note.
fn note_requests(h: &Harness) -> Vec<(String, Value)> {
    h.bodies()
        .into_iter()
        .filter_map(|body| {
            let text = body.to_string();
            let at = text.find("The note `")? + "The note `".len();
            let path = text[at..].split('`').next()?.to_owned();
            Some((path, body))
        })
        .collect()
}

/// Waits until the job's record says `until`.
async fn wait_for(h: &Harness, job_id: &str, until: impl Fn(&Job) -> bool) -> Job {
    for _ in 0..3000 {
        let job = h.runtime.job(job_id).unwrap();
        if until(&job) {
            return job;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "job {job_id} never got there: {:?}",
        h.runtime.job(job_id).unwrap().status
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_note_gets_one_call_of_its_own_and_the_run_is_one_reviewed_job() {
    for protocol in PROTOCOLS {
        let h = harness_on(fill, protocol, vec![start_run()], |config| {
            config.protected.property = Some("locked".into());
        })
        .await;
        script_notes(&h, None);
        let (job, events) = h.run_to_end("Summarise each meeting note", None).await;
        assert_eq!(
            job.status,
            JobStatus::AwaitingReview,
            "{protocol:?}: {:?}",
            kinds(&events)
        );

        // Planned first: the notes (the protected one left out), the cost.
        let planned = &of_kind(&events, "fan_out.planned")[0];
        assert_eq!(planned["notes"], MEETINGS, "{planned}");
        assert_eq!(planned["protected"], 1);
        assert_eq!(planned["needs_confirmation"], false);

        // One request per note (m05 twice: told what was wrong), each with
        // that note only and propose_edits as its only tool.
        let requests = note_requests(&h);
        assert_eq!(requests.len(), MEETINGS + 1, "{protocol:?}");
        for (path, body) in &requests {
            assert!(path.starts_with("Meetings/m"), "{path}");
            let text = body.to_string();
            let others = (0..MEETINGS)
                .map(|i| format!("Meetings/m{i:02}.md"))
                .filter(|p| p != path && text.contains(p.as_str()))
                .count();
            assert_eq!(others, 0, "{path}'s request shows no other note");
            assert_eq!(tool_names(body), ["propose_edits"], "{path}");
        }

        // Staged into one job and one checkpoint; nothing written yet.
        let bundle = job.diff_bundle.clone().unwrap();
        let files: Vec<&str> = bundle.files.iter().map(|f| f.file_path.as_str()).collect();
        assert_eq!(files.len(), MEETINGS - 2, "{files:?}");
        assert!(!files.contains(&"Meetings/m03.md") && !files.contains(&"Meetings/m05.md"));
        // The job keeps every edit staged, each with an id of its own.
        let ids: BTreeSet<&str> = job
            .proposed_edits
            .iter()
            .map(|e| e.edit_id.as_str())
            .collect();
        assert_eq!(
            (job.proposed_edits.len(), ids.len()),
            (MEETINGS - 2, MEETINGS - 2)
        );
        let checkpoint = job.checkpoint_id.clone().unwrap();
        let covered = h.runtime.read_workspace(|ws| {
            ws.checkpoints(None, 50)
                .unwrap()
                .checkpoints
                .into_iter()
                .filter(|c| c.job_id.as_deref() == Some(job.job_id.as_str()))
                .map(|c| (c.checkpoint_id, c.affected_files.len()))
                .collect::<Vec<_>>()
        });
        assert_eq!(
            covered,
            [(checkpoint, MEETINGS - 2)],
            "one checkpoint for the run"
        );
        for i in 0..MEETINGS {
            assert_eq!(h.read(&format!("Meetings/m{i:02}.md")), meeting(i));
        }

        // The summary says what became of every note.
        let summary = job.summary.clone().unwrap();
        assert!(
            summary.contains("10 changed, 1 unchanged, 1 failed"),
            "{summary}"
        );
        assert!(summary.contains("Meetings/m05.md"), "{summary}");
        let progress = of_kind(&events, "fan_out.progress");
        let last = progress.last().unwrap();
        assert_eq!(
            (last["done"].as_u64(), last["total"].as_u64()),
            (Some(12), Some(12))
        );
        assert!(last["input_tokens"].as_u64().unwrap() > 0);
        assert_eq!(
            job.usage.steps as usize,
            1 + MEETINGS + 1,
            "the plan and each note's calls"
        );

        // Reviewed like any job: applied, every summary is on disk.
        let hunks: Vec<String> = bundle.hunk_ids().map(str::to_owned).collect();
        h.runtime.apply(&job, &hunks).unwrap();
        for i in (0..MEETINGS).filter(|i| ![3, 5].contains(i)) {
            assert_eq!(h.read(&format!("Meetings/m{i:02}.md")), summarised(i));
        }
        assert_eq!(h.read("Other/x.md"), "# Not a meeting\n");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_big_run_waits_for_the_go_ahead_and_a_decline_goes_back_to_the_model() {
    let h = harness_on(
        fill,
        PROTOCOLS[0],
        vec![start_run(), nothing("Left the notes alone.")],
        |config| {
            config.protected.property = Some("locked".into());
            config.limits.fan_out_confirm_notes = 5;
        },
    )
    .await;
    let job = h.start("Summarise each meeting note", None);
    let waiting = wait_for(&h, &job.job_id, |j| j.status == JobStatus::WaitingForUser).await;
    let question = waiting.pending_question.unwrap();
    assert!(
        question.question.contains("over 12 notes"),
        "{}",
        question.question
    );
    assert_eq!(question.suggested_answers, ["Run", "Cancel"]);
    h.runtime
        .clarify(&job.job_id, &question.question_id, Some("Cancel".into()))
        .unwrap();
    let events = h.events_until(&job.job_id, 0, JobStatus::is_terminal).await;
    let job = h.runtime.job(&job.job_id).unwrap();
    assert_eq!(job.status, JobStatus::Completed, "{:?}", kinds(&events));
    assert!(note_requests(&h).is_empty(), "no note was asked");
    let told = tool_results(h.bodies().last().unwrap());
    assert!(told[0].1.contains("did not confirm"), "{told:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_keeps_what_is_staged_and_review_starts_before_the_end() {
    let h = harness_on(fill, PROTOCOLS[1], vec![start_run()], |config| {
        config.protected.property = Some("locked".into());
        config.limits.fan_out_confirm_notes = 5;
        config.limits.fan_out_concurrency = 1;
    })
    .await;
    script_notes(&h, Some(6));
    let job = h.start("Summarise each meeting note", None);
    let waiting = wait_for(&h, &job.job_id, |j| j.status == JobStatus::WaitingForUser).await;
    let question = waiting.pending_question.unwrap();
    h.runtime
        .clarify(&job.job_id, &question.question_id, Some("Run".into()))
        .unwrap();
    // The first notes are in review while the run goes on.
    let running = wait_for(&h, &job.job_id, |j| {
        j.diff_bundle.as_ref().is_some_and(|b| b.files.len() >= 3)
    })
    .await;
    assert_eq!(running.status, JobStatus::Running);
    let review = h.runtime.review_queue().unwrap();
    let group = review
        .jobs
        .iter()
        .find(|g| g.job_id.as_deref() == Some(job.job_id.as_str()))
        .expect("the running job's hunks are listed for review");
    assert!(!group.hunks.is_empty());
    h.runtime.cancel(&job.job_id).unwrap();
    let events = h.events_until(&job.job_id, 0, JobStatus::is_terminal).await;
    let job = h.runtime.job(&job.job_id).unwrap();
    assert_eq!(job.status, JobStatus::Cancelled, "{:?}", kinds(&events));
    let kept = job.diff_bundle.unwrap();
    assert!(
        kept.files.len() >= 3 && kept.files.len() < MEETINGS - 2,
        "{}",
        kept.files.len()
    );
    let listed = h.runtime.review_queue().unwrap();
    let pending: usize = listed
        .jobs
        .iter()
        .filter(|g| g.job_id.as_deref() == Some(job.job_id.as_str()))
        .map(|g| g.hunks.len())
        .sum();
    assert_eq!(
        pending,
        kept.hunk_count(),
        "what was staged stays in review"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_stopped_midway_resumes_with_the_notes_not_done_and_no_hunk_twice() {
    let h = harness_on(fill, PROTOCOLS[0], vec![start_run()], |config| {
        config.protected.property = Some("locked".into());
        config.limits.fan_out_concurrency = 1;
    })
    .await;
    script_notes(&h, Some(4));
    let job = h.start("Summarise each meeting note", None);
    wait_for(&h, &job.job_id, |j| {
        j.diff_bundle.as_ref().is_some_and(|b| b.files.len() >= 2)
    })
    .await;
    // Stopped where it stands, as a crash would: a note asked and not yet
    // staged is asked again (its answer was lost with the process).
    h.runtime.shutdown();
    let staged_before: Vec<String> = h
        .runtime
        .job(&job.job_id)
        .unwrap()
        .diff_bundle
        .unwrap()
        .files
        .into_iter()
        .map(|f| f.file_path)
        .collect();
    assert!(staged_before.len() < MEETINGS - 2, "stopped midway");
    script_notes(&h, None);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let runtime = Runtime::open(h.vault.path(), h.config.clone()).unwrap();
    let mut job = runtime.job(&job.job_id).unwrap();
    for _ in 0..3000 {
        if job.status.is_terminal() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        job = runtime.job(&job.job_id).unwrap();
    }
    assert_eq!(job.status, JobStatus::AwaitingReview, "{:?}", job.error);
    let bundle = job.diff_bundle.clone().unwrap();
    let mut files: Vec<&str> = bundle.files.iter().map(|f| f.file_path.as_str()).collect();
    let all = files.len();
    files.dedup();
    assert_eq!(files.len(), all, "no note staged twice");
    assert_eq!(
        all,
        MEETINGS - 2,
        "every note that needed a change is staged"
    );
    let edited: BTreeSet<&str> = job
        .proposed_edits
        .iter()
        .map(|e| e.file_path.as_str())
        .collect();
    assert_eq!(
        (job.proposed_edits.len(), edited.len()),
        (MEETINGS - 2, MEETINGS - 2),
        "the edits staged before the stop and after it, once each"
    );
    // A note staged before the stop was not asked again.
    let asked: Vec<String> = note_requests(&h).into_iter().map(|(p, _)| p).collect();
    for note in &staged_before {
        assert_eq!(
            asked.iter().filter(|p| *p == note).count(),
            1,
            "{note} asked twice"
        );
    }
    let hunks: Vec<String> = bundle.hunk_ids().map(str::to_owned).collect();
    runtime.apply(&job, &hunks).unwrap();
    for i in (0..MEETINGS).filter(|i| ![3, 5].contains(i)) {
        assert_eq!(h.read(&format!("Meetings/m{i:02}.md")), summarised(i));
    }
}
