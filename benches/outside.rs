//! Other programs' writes into review, under a real watcher: from a write
//! to its hunk in the review, for one file (many samples: p50 and p95) and
//! for a `sed -i` over 1,000 notes, beside `git diff` computing the same
//! change set on the same folder (the peer a terminal user would run).
//!
//! `cargo bench -- outside`; `REDLINE_BENCH_SAMPLES=60` picks the
//! one-file samples (default 40), `REDLINE_BENCH_NOTES=5000` the burst's
//! size (default 1,000).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use redline::config::{Config, OutsideMode};
use redline::jobs::Runtime;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn run(root: &Path, program: &str, args: &[&str]) -> Duration {
    let t = Instant::now();
    let out = Command::new(program)
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{program} {args:?}");
    t.elapsed()
}

/// Pending hunks in the review now.
fn pending(runtime: &Runtime) -> usize {
    runtime
        .review_queue()
        .unwrap()
        .jobs
        .iter()
        .map(|j| j.hunks.len())
        .sum()
}

/// Waits until the review holds `want` pending hunks; the time it took.
fn until_pending(runtime: &Runtime, want: usize, since: Instant) -> Duration {
    let deadline = since + Duration::from_secs(60);
    while pending(runtime) < want {
        assert!(
            Instant::now() < deadline,
            "the review never got {want} hunks"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    since.elapsed()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

pub fn main() {
    // SAFETY: set before any thread starts.
    unsafe { std::env::set_var("REDLINE_NO_KEYCHAIN", "1") };
    let samples = env("REDLINE_BENCH_SAMPLES", 40);
    let notes = env("REDLINE_BENCH_NOTES", 1_000);
    let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = vault.path();
    std::fs::create_dir_all(root.join("solo")).unwrap();
    for i in 0..samples {
        std::fs::write(root.join(format!("solo/{i:03}.md")), "# Solo\n\nDraft.\n").unwrap();
    }
    std::fs::create_dir_all(root.join("many")).unwrap();
    for i in 0..notes {
        std::fs::write(
            root.join(format!("many/{i:05}.md")),
            format!("# Note {i}\n\nLinks to [[Atlas]].\n"),
        )
        .unwrap();
    }
    run(root, "git", &["init", "-q"]);
    run(root, "git", &["add", "-A"]);
    run(
        root,
        "git",
        &[
            "-c",
            "user.name=b",
            "-c",
            "user.email=b@b",
            "commit",
            "-qm",
            "start",
        ],
    );

    let tokio = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let _inside = tokio.enter();
    let config = Config {
        data_dir: Some(data.path().to_path_buf()),
        outside_changes: OutsideMode::Review,
        ..Config::default()
    };
    let runtime = Runtime::open(root, config).unwrap();
    let _watching = redline::watch::start(runtime.clone()).unwrap();
    while !runtime.project().index().is_some_and(|i| i.ready()) {
        std::thread::sleep(Duration::from_millis(5));
    }

    // One file at a time, a pause between: each its own group.
    let mut one = Vec::with_capacity(samples);
    for i in 0..samples {
        let before = pending(&runtime);
        std::thread::sleep(Duration::from_millis(200));
        let t = Instant::now();
        std::fs::write(root.join(format!("solo/{i:03}.md")), "# Solo\n\nDone.\n").unwrap();
        one.push(ms(until_pending(&runtime, before + 1, t)));
    }
    one.sort_by(f64::total_cmp);
    println!(
        "one file written -> its hunk in the review: p50 {:.0} ms, p95 {:.0} ms, max {:.0} ms over {samples} writes \
         (goal p95 200 ms; the folder must be quiet for 150 ms first)",
        percentile(&one, 0.5),
        percentile(&one, 0.95),
        one[one.len() - 1],
    );

    // A sed over every note of `many/`, in one process.
    let before = pending(&runtime);
    let files: Vec<String> = (0..notes).map(|i| format!("many/{i:05}.md")).collect();
    let mut args = vec!["-i", "s/\\[\\[Atlas\\]\\]/[[Meridian]]/"];
    args.extend(files.iter().map(String::as_str));
    let t = Instant::now();
    let sed = run(root, "sed", &args);
    let burst = until_pending(&runtime, before + notes, t);
    let git = (0..3)
        .map(|_| run(root, "git", &["diff", "--stat", "--", "many"]))
        .min()
        .unwrap();
    println!(
        "sed -i over {notes} notes -> {notes} hunks in the review: {:.0} ms from the write's start \
         (sed itself {:.0} ms; goal 2,000 ms); git diff over the same change {:.0} ms ({:.1}x)",
        ms(burst),
        ms(sed),
        ms(git),
        ms(burst) / ms(git).max(0.001),
    );
}
