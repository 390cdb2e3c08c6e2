//! The eval harness's own overhead: the whole golden suite (each task's
//! trace served by the scripted model, through the real runtime, the
//! oracle's review, apply and the checks), three rounds, with the time per
//! task. The model answers at once, so this is what the harness and Redline
//! cost around a model.

use std::path::Path;
use std::time::Instant;

use redline::config::Config;
use redline::eval::{self, Runner};

pub fn main() {
    // SAFETY: set before any thread starts.
    unsafe { std::env::set_var("REDLINE_NO_KEYCHAIN", "1") };
    let tasks = eval::load_all(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/evals"),
        None,
    )
    .unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let runner = Runner {
        config: Config::default(),
        golden: true,
        record: None,
    };
    let mut per_task = Vec::new();
    let started = Instant::now();
    for _ in 0..3 {
        for task in &tasks {
            let t0 = Instant::now();
            let result = runtime.block_on(runner.run(task));
            assert!(result.success, "{}: {:?}", task.id, result.failures);
            per_task.push(t0.elapsed().as_secs_f64() * 1000.0);
        }
    }
    let total = started.elapsed().as_secs_f64();
    per_task.sort_by(f64::total_cmp);
    let pct = |p: usize| per_task[(p * per_task.len() / 100).min(per_task.len() - 1)];
    println!(
        "eval harness, golden suite: {} tasks x 3 rounds in {total:.1} s; per task p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms \
         (copy the folder, open a project and store, run the jobs over HTTP, review, apply, check)",
        tasks.len(),
        pct(50),
        pct(95),
        per_task.last().unwrap()
    );
}
