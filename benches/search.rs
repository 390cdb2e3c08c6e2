//! Search benchmark: `search_project` in process against the `rg` command on
//! the same generated vaults. It checks that both find the same matching lines,
//! then prints the median time of each and the ratio (Redline / rg; below 1
//! means Redline is faster): walking the folder as a one-shot run does, and
//! through a running project's filled index (goal: at most 0.3x of rg), with
//! the index's fill time and resident memory per MB of notes; quick open's
//! time to rank every path as a query is typed; then the resident memory of
//! the whole `redline serve` with its index filled.
//!
//! `cargo bench -- search` runs vaults of 5,000 and 40,000 notes;
//! `REDLINE_BENCH_NOTES=2000,10000` picks other sizes and
//! `REDLINE_BENCH_RUNS=9` the runs per measurement (default 5).

use std::time::{Duration, Instant};

use redline::config::Limits;
use redline::find::paths;
use redline::project::{Project, View};
use redline::testkit::vaultgen::{self, VaultSpec};
use redline::tools;

use crate::rg;

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

/// This process's resident memory in MB (`VmRSS`).
fn rss_mb() -> f64 {
    status_mb("self", "VmRSS:")
}

/// A field of `/proc/<pid>/status` in MB.
fn status_mb(pid: &str, field: &str) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with(field))?;
            line.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// `redline serve` (this build) on `folder`, until it says its index is
/// filled: how long that took, and its resident memory then and at its peak.
fn serve_memory(folder: &std::path::Path) -> (Duration, f64, f64) {
    use std::io::BufRead;
    let data = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_redline"))
        .args(["serve", folder.to_str().unwrap(), "--port", "0"])
        .env("REDLINE_DATA_DIR", data.path())
        .env("REDLINE_CONFIG", data.path().join("config.toml"))
        .env("REDLINE_NO_KEYCHAIN", "1")
        .env("REDLINE_LOG", "info")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let filled = stderr
        .lines()
        .map_while(Result::ok)
        .any(|line| line.contains("project index filled"));
    let took = start.elapsed();
    // Settled: the fill's threads are done and their buffers returned.
    std::thread::sleep(Duration::from_millis(500));
    let pid = child.id().to_string();
    let (rss, peak) = (status_mb(&pid, "VmRSS:"), status_mb(&pid, "VmHWM:"));
    child.kill().ok();
    child.wait().ok();
    assert!(filled, "redline serve ended before its index was filled");
    (took, rss, peak)
}

/// Quick open's figures through the filled index: the median time to rank
/// every path for queries as a person types them, a letter at a time.
fn quick_open(project: &Project, runs: usize) {
    let view = View::disk(project);
    let mut paths = Vec::new();
    view.with_paths(|all| paths.extend(all.iter().step_by(997).take(3).map(|p| p.to_string())));
    for path in paths {
        let name = path
            .rsplit('/')
            .next()
            .unwrap_or(&path)
            .trim_end_matches(".md");
        let times: Vec<String> = (1..=name.len())
            .filter(|&n| name.is_char_boundary(n) && [1, 3, 6, name.len()].contains(&n))
            .map(|n| {
                let query = &name[..n];
                let took = median(|| drop(paths::quick_open(&view, query, 50)), runs);
                format!("{query:?} {:.1} ms", ms(took))
            })
            .collect();
        println!(
            "quick open, {} paths: {}",
            project.index().unwrap().stats().files,
            times.join(", ")
        );
    }
}

pub fn main() {
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
        let before = rss_mb();
        let indexed = project.clone().with_index();
        let index = indexed.index().unwrap();
        let fill = index.fill(&indexed);
        let stats = index.stats();
        let held = rss_mb() - before;
        println!(
            "index: {} files ({} held as text, {:.1} MB) filled in {:.0} ms; resident memory +{:.1} MB \
             ({:.2} MB per MB of notes); this process now {:.1} MB",
            stats.files,
            stats.text_files,
            stats.text_bytes as f64 / 1e6,
            ms(fill),
            held,
            held / (summary.bytes as f64 / 1e6),
            rss_mb()
        );
        quick_open(&indexed, runs);
        println!(
            "{:<44} {:>7} {:>7} | {:>9} {:>9} {:>9} | {:>6} {:>6} | {:>9} {:>6}",
            "query", "lines", "files", "walk", "index", "rg -n", "walk", "index", "rg -c", "index"
        );
        let mut ratios = Vec::new();
        let mut indexed_ratios = Vec::new();
        for query in rg::queries() {
            // Same answer first: every matching line, from both.
            let ours = rg::ours(&project, &query);
            let theirs = rg::lines(dir.path(), &query);
            rg::assert_same(&ours, &theirs, &query);
            rg::assert_same(&rg::ours(&indexed, &query), &theirs, &query);
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
            let from_index = median(
                || drop(tools::run(&indexed, "search_project", args.clone()).unwrap()),
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
                "{:<44} {:>7} {:>7} | {:>7.1}ms {:>7.1}ms {:>7.1}ms | {:>5.2}x {:>5.2}x | {:>7.1}ms {:>5.2}x",
                label.chars().take(44).collect::<String>(),
                ours.len(),
                files,
                ms(redline),
                ms(from_index),
                ms(rg_lines),
                ms(redline) / ms(rg_lines),
                ms(from_index) / ms(rg_lines),
                ms(rg_count),
                ms(from_index) / ms(rg_count),
            );
            ratios.push(ms(redline) / ms(rg_lines));
            indexed_ratios.push(ms(from_index) / ms(rg_lines));
        }
        let geomean = |r: &[f64]| (r.iter().map(|r| r.ln()).sum::<f64>() / r.len() as f64).exp();
        println!(
            "geometric mean ratio redline / rg -n at {notes} notes: walking {:.2}x, with the index {:.2}x (goal 0.3x)",
            geomean(&ratios),
            geomean(&indexed_ratios)
        );
        let (took, rss, peak) = serve_memory(dir.path());
        println!(
            "redline serve on this vault: index filled {:.0} ms after start; resident {rss:.1} MB, peak {peak:.1} MB \
             (goal under 120 MB at 40,000 notes)",
            ms(took)
        );
    }
}
