//! Search benchmark: `search_project` in process against the `rg` command on
//! the same generated vaults. It checks that both find the same matching lines,
//! then prints the median time of each and the ratio (Redline / rg; below 1
//! means Redline is faster).
//!
//! `cargo bench --bench search` runs vaults of 5,000 and 40,000 notes;
//! `REDLINE_BENCH_NOTES=2000,10000` picks other sizes and
//! `REDLINE_BENCH_RUNS=9` the runs per measurement (default 5).

#[path = "../tests/support/rg.rs"]
mod rg;

use std::time::{Duration, Instant};

use redline::config::Limits;
use redline::project::Project;
use redline::testkit::vaultgen::{self, VaultSpec};
use redline::tools;

fn median(mut f: impl FnMut(), runs: usize) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    if !rg::available() {
        return;
    }
    let sizes: Vec<usize> = std::env::var("REDLINE_BENCH_NOTES")
        .unwrap_or_else(|_| "5000,40000".into())
        .split(',')
        .map(|s| s.trim().parse().expect("REDLINE_BENCH_NOTES: numbers"))
        .collect();
    let runs: usize =
        std::env::var("REDLINE_BENCH_RUNS").map_or(5, |s| s.parse().expect("REDLINE_BENCH_RUNS"));
    let rg_version = std::process::Command::new("rg")
        .arg("--version")
        .output()
        .unwrap();
    println!(
        "search benchmark: median of {runs} runs, {} threads; peer: {}",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        String::from_utf8_lossy(&rg_version.stdout)
            .lines()
            .next()
            .unwrap_or("rg")
    );

    // rg's times include starting a process, as they do for any tool that shells out to it.
    let spawn = median(
        || {
            std::process::Command::new("rg")
                .arg("--version")
                .output()
                .unwrap();
        },
        runs,
    );
    println!("rg process start alone (rg --version): {:.1} ms", ms(spawn));

    for notes in sizes {
        let dir = tempfile::tempdir().unwrap();
        let start = Instant::now();
        let summary = vaultgen::generate(dir.path(), &VaultSpec { notes, seed: 42 }).unwrap();
        println!(
            "\nvault: {notes} notes, {:.1} MB, generated in {:.0} ms",
            summary.bytes as f64 / 1e6,
            ms(start.elapsed())
        );
        let project = Project::open(dir.path(), Limits::default()).unwrap();
        println!(
            "{:<44} {:>7} {:>7} | {:>9} {:>9} {:>6} | {:>9} {:>6}",
            "query", "lines", "files", "redline", "rg -n", "ratio", "rg -c", "ratio"
        );
        let mut ratios = Vec::new();
        for query in rg::queries() {
            // Same answer first: every matching line, from both.
            let ours = rg::ours(&project, &query);
            rg::assert_same(&ours, &rg::lines(dir.path(), &query), &query);
            let files = ours
                .iter()
                .map(|(p, _)| p)
                .collect::<std::collections::BTreeSet<_>>()
                .len();

            let args = serde_json::json!({
                "query": query.pattern, "regex": query.regex,
                "case_sensitive": query.case_sensitive, "glob": query.glob,
            });
            let redline = median(
                || drop(tools::run(&project, "search_project", args.clone()).unwrap()),
                runs,
            );
            let rg_lines = median(
                || {
                    let out = rg::command(dir.path(), &query)
                        .args([
                            "--line-number",
                            "--with-filename",
                            "--no-heading",
                            "-e",
                            query.pattern,
                            ".",
                        ])
                        .output()
                        .unwrap();
                    assert!(out.status.code().unwrap() <= 1);
                },
                runs,
            );
            let rg_count = median(
                || {
                    rg::count(dir.path(), &query);
                },
                runs,
            );
            let label = format!(
                "{}{}{}",
                query.pattern,
                if query.regex { " (regex)" } else { "" },
                query.glob.map(|g| format!(" -g {g}")).unwrap_or_default()
            );
            println!(
                "{:<44} {:>7} {:>7} | {:>7.1}ms {:>7.1}ms {:>5.2}x | {:>7.1}ms {:>5.2}x",
                label.chars().take(44).collect::<String>(),
                ours.len(),
                files,
                ms(redline),
                ms(rg_lines),
                ms(redline) / ms(rg_lines),
                ms(rg_count),
                ms(redline) / ms(rg_count),
            );
            ratios.push(ms(redline) / ms(rg_lines));
        }
        let geomean = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
        println!("geometric mean ratio redline / rg -n at {notes} notes: {geomean:.2}x");
    }
}
