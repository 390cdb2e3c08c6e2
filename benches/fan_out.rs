//! One model call per note: `edit_each_note` over a folder of 1,000 notes
//! against the scripted model over real HTTP, 8 calls at once. Prints when
//! the first hunk was in the review queue, the run's whole time, and beside
//! it the same 1,000 requests sent straight through the provider 8 at a
//! time (the transport and the server, which Redline does not add): the
//! difference per note is Redline's own overhead (reading the note,
//! checking the answer, staging it). Resident memory is sampled as the run
//! goes, to show it flat. Asserts only that every note was staged.
//!
//! `cargo bench -- fan_out`; `REDLINE_BENCH_NOTES=1000` sets the notes.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use redline::jobs::JobStatus;
use redline::providers::conversation::{Message, StepRequest, ToolChoice};
use redline::providers::http::HttpProvider;
use redline::providers::{Protocol, Provider};
use redline::testkit::scripted::{ScriptedModel, Turn};
use serde_json::json;

use crate::support::*;

const CONCURRENCY: usize = 8;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(0.0)
        / 1024.0
}

fn path(i: usize) -> String {
    format!("Meetings/m{i:04}.md")
}

/// Note `i`'s answer: a summary line under its title.
fn answer(i: usize) -> Turn {
    Turn::call(
        "propose_edits",
        json!({ "edits": [{ "file_path": path(i), "operation": "insert", "start_line": 2,
                            "new_text": format!("Summary: item {i}.\n") }] }),
    )
}

async fn run(notes: usize) {
    let fill = move |root: &std::path::Path| {
        std::fs::create_dir_all(root.join("Meetings")).unwrap();
        for i in 0..notes {
            let text = format!(
                "# Meeting {i}\n\nWe agreed on item {i}.\n{}",
                "Notes.\n".repeat(20)
            );
            std::fs::write(root.join(path(i)), text).unwrap();
        }
    };
    let start = Turn::call(
        "edit_each_note",
        json!({ "instruction": "Add a summary under the title", "scope": { "folders": ["Meetings"] } }),
    );
    let h = harness_on(fill, Protocol::OpenAiChat, vec![start], |c| {
        c.limits.fan_out_concurrency = CONCURRENCY;
        c.limits.fan_out_confirm_notes = usize::MAX;
        c.limits.max_events_per_job = 100_000;
    })
    .await;
    for i in 0..notes {
        h.model
            .push_when(&format!("The note `{}`:", path(i)), answer(i));
    }
    let rss_before = rss_mib();
    let started = Instant::now();
    let job = h.start("Summarise every meeting", None);
    let mut first_hunk = None;
    let mut samples = Vec::new();
    // What the comparison sends: each note's request, its text only (the
    // scripted server's own record of the requests is not Redline's memory).
    let mut asked: Vec<String> = Vec::new();
    let take = |asked: &mut Vec<String>| {
        asked.extend(h.model.take_requests().into_iter().map(|r| {
            r.body["messages"][1]["content"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        }));
    };
    loop {
        take(&mut asked);
        let now = h.runtime.job(&job.job_id).unwrap();
        let staged = now.diff_bundle.as_ref().map_or(0, |b| b.files.len());
        if first_hunk.is_none()
            && h.runtime
                .review_queue()
                .unwrap()
                .jobs
                .iter()
                .any(|g| g.job_id.as_deref() == Some(job.job_id.as_str()))
        {
            first_hunk = Some(started.elapsed());
        }
        if samples.len() < 4 && staged >= notes * (samples.len() + 1) / 4 {
            samples.push(rss_mib());
        }
        if now.status.is_terminal() {
            assert_eq!(now.status, JobStatus::AwaitingReview, "{:?}", now.error);
            assert_eq!(staged, notes, "every note staged");
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let total = started.elapsed();

    take(&mut asked);
    // The same requests, straight through the provider, 8 at a time.
    let bodies: Vec<String> = asked.into_iter().skip(1).collect();
    let model = ScriptedModel::start((0..bodies.len()).map(answer).collect())
        .await
        .unwrap();
    let provider = HttpProvider::new(
        "bench",
        Protocol::OpenAiChat,
        &model.base_url(Protocol::OpenAiChat),
        "m",
        None,
        Default::default(),
    )
    .unwrap();
    let t = Instant::now();
    let provider = &provider;
    futures_util::stream::iter(bodies)
        .map(|content| async move {
            let request = StepRequest {
                model: "m".into(),
                messages: vec![Message::User { content }],
                tools: Vec::new(),
                tool_choice: ToolChoice::Auto,
                parallel_tool_calls: false,
                max_tokens: 1024,
                temperature: None,
            };
            provider.step(&request, &mut |_| {}).await.unwrap();
        })
        .buffer_unordered(CONCURRENCY)
        .collect::<Vec<_>>()
        .await;
    let transport = t.elapsed();
    let own = total.saturating_sub(transport);
    println!(
        "{notes} notes, {CONCURRENCY} at once: first hunk in review {:.0} ms (goal < 1000); the run {:.0} ms; the same requests alone {:.0} ms; Redline's own {:.2} ms per note (goal < 20)",
        ms(first_hunk.unwrap_or(total)),
        ms(total),
        ms(transport),
        ms(own) / notes as f64,
    );
    let shown: Vec<String> = samples.iter().map(|m| format!("{m:.0}")).collect();
    println!(
        "resident memory: {rss_before:.0} MiB before; at a quarter, half, three quarters and all staged: {} MiB",
        shown.join(", ")
    );
}

pub fn main() {
    let notes: usize = std::env::var("REDLINE_BENCH_NOTES")
        .ok()
        .and_then(|v| v.split(',').next()?.parse().ok())
        .unwrap_or(1000);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(run(notes));
}
