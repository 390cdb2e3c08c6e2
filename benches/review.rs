//! Review engine benchmark: decisions on big files, a diff bundle against
//! `git diff --no-index` on the same pairs, checkpoint cost against folder
//! size, and rollbacks. Prints figures; asserts only that the work was done.
//!
//! `cargo bench -- review`; `REDLINE_BENCH_VAULTS=5000,40000` picks the
//! vault sizes for the checkpoint figure.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use redline::checkpoints::RollbackMode;
use redline::config::Limits;
use redline::edits::{Operation, ProposedEdit, prepare};
use redline::hunks::{HunkLimits, bundle};
use redline::project::Project;
use redline::review::Status;
use redline::store::Store;
use redline::testkit::vaultgen::{self, VaultSpec};
use redline::workspace::{RunInfo, Workspace};

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn replace(id: usize, path: &str, line: usize, text: &str) -> ProposedEdit {
    ProposedEdit {
        edit_id: format!("e_{id}"),
        file_path: path.into(),
        operation: Operation::Replace,
        start_line: line,
        end_line: None,
        new_text: text.into(),
        old_text: None,
        expected_hash: None,
        rationale: String::new(),
        new_path: None,
    }
}

/// The paths `list_files` returns for `args`.
fn list(project: &Project, args: serde_json::Value) -> Vec<String> {
    let out = redline::tools::run(project, "list_files", args).unwrap();
    out["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

fn workspace(root: &Path, data: &Path) -> Workspace {
    let project = Project::open(root, Limits::default()).unwrap();
    let store = Store::open(data, project.root()).unwrap();
    Workspace::open(project, store).unwrap()
}

fn run(job: &str) -> RunInfo {
    RunInfo {
        job_id: job.into(),
        ..RunInfo::default()
    }
}

/// Accept and reject one hunk in files of growing size (store writes included).
fn decisions() {
    println!("\naccept / reject one hunk (median of 50, each persisted to SQLite)");
    println!("{:>10} {:>12} {:>12}", "lines", "accept", "reject");
    for lines in [1_000, 10_000, 100_000] {
        let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let body: String = (1..=lines)
            .map(|i| format!("line {i} of a long note\n"))
            .collect();
        std::fs::write(vault.path().join("big.md"), body).unwrap();
        let mut ws = workspace(vault.path(), data.path());
        let edits: Vec<ProposedEdit> = (0..50)
            .map(|k| replace(k, "big.md", 1 + k * (lines / 50), "changed"))
            .collect();
        let (_, bundle) = ws
            .propose(&run("job"), &edits, &HunkLimits::default())
            .unwrap();
        let hunks: Vec<String> = bundle.files[0]
            .hunks
            .iter()
            .map(|h| h.hunk_id.clone())
            .collect();
        let time = |ws: &mut Workspace, status: Status| {
            let times = hunks
                .iter()
                .map(|h| {
                    let start = Instant::now();
                    ws.decide(h, status, None).unwrap();
                    start.elapsed()
                })
                .collect();
            median(times)
        };
        let accept = time(&mut ws, Status::Accepted);
        let reject = time(&mut ws, Status::Rejected);
        println!("{lines:>10} {:>10.3}ms {:>10.3}ms", ms(accept), ms(reject));
    }
}

/// The piece log on its own (no store): a decision on a 100,000-line file
/// with 1,000 hunks of two jobs stacked (over 3,000 pieces), staging a
/// 10-file proposal, and a 5,000-hunk job decided hunk by hunk.
fn piece_log() {
    use redline::edits::FileProposal;
    use redline::hunks::bundle_from;
    use redline::project::text::content_hash;
    use redline::review::Review;

    let proposal = |path: &str, base: &str, proposed: &str| FileProposal {
        file_path: path.into(),
        created: false,
        base: base.into(),
        base_file_hash: Some(content_hash(base.as_bytes())),
        proposed: proposed.into(),
        edits: Vec::new(),
    };
    let limits = HunkLimits::default();
    println!(
        "
piece log, in memory (no store): median and p95"
    );

    // 100,000 lines; job 1 renames a word on 500 lines, job 2 dates 500 others.
    let base: String = (1..=100_000)
        .map(|i| format!("line {i} of a long note about Atlas\n"))
        .collect();
    let first: String = base
        .lines()
        .enumerate()
        .map(|(i, l)| if i % 200 == 0 { l.replace("Atlas", "Meridian") } else { l.to_owned() } + "\n")
        .collect();
    let second: String = first
        .lines()
        .enumerate()
        .map(|(i, l)| if i % 200 == 100 { l.replace("long", "short") } else { l.to_owned() } + "\n")
        .collect();
    let mut review = Review::new();
    let one = [proposal("big.md", &base, &first)];
    let b1 = bundle_from(&one, &limits, 1);
    review.stage("job_1", &one, &b1).unwrap();
    let two = [proposal("big.md", &first, &second)];
    let b2 = bundle_from(&two, &limits, 1 + b1.hunk_ids().count() as u64);
    review.stage("job_2", &two, &b2).unwrap();
    let hunks: Vec<String> = b1
        .hunk_ids()
        .chain(b2.hunk_ids())
        .map(str::to_owned)
        .collect();
    let stats = |mut t: Vec<Duration>| {
        t.sort();
        (ms(t[t.len() / 2]), ms(t[t.len() * 95 / 100]))
    };
    let mut timed = |status: Status| {
        let times: Vec<Duration> = hunks
            .iter()
            .map(|h| {
                let start = Instant::now();
                match status {
                    Status::Pending => review.undo(h).map(drop),
                    _ => review.decide(h, status, None).map(drop),
                }
                .unwrap();
                start.elapsed()
            })
            .collect();
        stats(times)
    };
    for (what, status) in [
        ("accept", Status::Accepted),
        ("reject", Status::Rejected),
        ("undo", Status::Pending),
    ] {
        let (p50, p95) = timed(status);
        println!(
            "  {what:<6} one hunk, 100,000 lines, {} hunks: {p50:.3} ms, p95 {p95:.3} ms (goal < 1 ms)",
            hunks.len()
        );
    }

    // A 10-file proposal: 200 lines each, 5 hunks each.
    let files: Vec<(String, String, String)> = (0..10)
        .map(|f| {
            let base: String = (1..=200).map(|i| format!("note {f} line {i} with Atlas\n")).collect();
            let proposed: String = base
                .lines()
                .enumerate()
                .map(|(i, l)| if i % 40 == 7 { l.replace("Atlas", "Meridian") } else { l.to_owned() } + "\n")
                .collect();
            (format!("n{f}.md"), base, proposed)
        })
        .collect();
    let proposals: Vec<FileProposal> = files.iter().map(|(p, b, n)| proposal(p, b, n)).collect();
    let bundle = bundle_from(&proposals, &limits, 1);
    let times: Vec<Duration> = (0..200)
        .map(|_| {
            let mut review = Review::new();
            let start = Instant::now();
            review.stage("job", &proposals, &bundle).unwrap();
            start.elapsed()
        })
        .collect();
    let (p50, p95) = stats(times);
    println!("  stage a 10-file proposal (50 hunks): {p50:.3} ms, p95 {p95:.3} ms (goal <= 1 ms)");

    // A 5,000-hunk job: one line in each of 5,000 notes, accepted one by one.
    let notes: Vec<FileProposal> = (0..5_000)
        .map(|f| {
            let base = format!("# Note {f}\n\nSee [[Atlas]] for more.\n");
            proposal(
                &format!("notes/n{f}.md"),
                &base,
                &base.replace("Atlas", "Meridian"),
            )
        })
        .collect();
    let bundle = bundle_from(&notes, &limits, 1);
    let mut review = Review::new();
    let start = Instant::now();
    review.stage("job", &notes, &bundle).unwrap();
    let staged = start.elapsed();
    let times: Vec<Duration> = bundle
        .hunk_ids()
        .map(|h| {
            let start = Instant::now();
            review.decide(h, Status::Accepted, None).unwrap();
            start.elapsed()
        })
        .collect();
    let total: Duration = times.iter().sum();
    let (p50, p95) = stats(times);
    println!(
        "  5,000-hunk job (one per note): staged in {:.1} ms; each accept {p50:.3} ms, p95 {p95:.3} ms; all 5,000 in {:.0} ms",
        ms(staged),
        ms(total)
    );
}

/// A 5,000-hunk job through the workspace (store writes included): one line
/// in each of 5,000 notes, proposed, then accepted hunk by hunk.
fn job_of_5000() {
    let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for f in 0..5_000 {
        std::fs::write(
            vault.path().join(format!("n{f}.md")),
            format!("# Note {f}\n\nSee [[Atlas]] for more.\n"),
        )
        .unwrap();
    }
    let mut ws = workspace(vault.path(), data.path());
    let edits: Vec<ProposedEdit> = (0..5_000)
        .map(|f| replace(f, &format!("n{f}.md"), 3, "See [[Meridian]] for more."))
        .collect();
    let start = Instant::now();
    let (_, bundle) = ws
        .propose(&run("job"), &edits, &HunkLimits::default())
        .unwrap();
    let proposed = start.elapsed();
    let hunks: Vec<String> = bundle.hunk_ids().map(str::to_owned).collect();
    let mut times: Vec<Duration> = hunks
        .iter()
        .map(|h| {
            let start = Instant::now();
            ws.decide(h, Status::Accepted, None).unwrap();
            start.elapsed()
        })
        .collect();
    let total: Duration = times.iter().sum();
    times.sort();
    println!(
        "\n5,000-hunk job through the workspace: proposed in {:.0} ms; each accept (persisted) p50 {:.3} ms, p95 {:.3} ms; all in {:.0} ms",
        ms(proposed),
        ms(times[times.len() / 2]),
        ms(times[times.len() * 95 / 100]),
        ms(total)
    );
}

/// A diff bundle for 1,000 edits over 200 files, against git diff on the same pairs.
fn bundle_vs_git() {
    let vault = tempfile::tempdir().unwrap();
    vaultgen::generate(
        vault.path(),
        &VaultSpec {
            notes: 200,
            seed: 5,
        },
    )
    .unwrap();
    let project = Project::open(vault.path(), Limits::default()).unwrap();
    let files = list(&project, serde_json::json!({"glob": "*.md", "limit": 1000}));
    let mut edits = Vec::new();
    for (f, path) in files.iter().take(200).enumerate() {
        let total = std::fs::read_to_string(vault.path().join(path))
            .unwrap()
            .lines()
            .count();
        for k in 0..5 {
            let line = 1 + k * total / 5;
            edits.push(replace(f * 5 + k, path, line, &format!("edited line {k}")));
        }
    }
    let times: Vec<Duration> = (0..5)
        .map(|_| {
            let start = Instant::now();
            let proposals = prepare(&project, &edits).unwrap();
            let bundle = bundle(&proposals, &HunkLimits::default());
            assert!(!bundle.files.is_empty());
            start.elapsed()
        })
        .collect();
    let ours = median(times);

    // The same pairs on disk, for git.
    let pairs = tempfile::tempdir().unwrap();
    let proposals = prepare(&project, &edits).unwrap();
    for p in &proposals {
        for (side, text) in [("a", &p.base), ("b", &p.proposed)] {
            let path = pairs.path().join(side).join(&p.file_path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    }
    let times: Vec<Duration> = (0..5)
        .map(|_| {
            let start = Instant::now();
            let out = Command::new("git")
                .args([
                    "diff",
                    "--no-index",
                    "--no-color",
                    "--no-ext-diff",
                    "a",
                    "b",
                ])
                .current_dir(pairs.path())
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(1), "git diff found the differences");
            start.elapsed()
        })
        .collect();
    let git = median(times);
    println!(
        "\ndiff bundle, {} edits over {} files: redline {:.1} ms (read, verify, compose, diff, split, patches), \
         git diff --no-index {:.1} ms, ratio {:.2}x",
        edits.len(),
        proposals.len(),
        ms(ours),
        ms(git),
        ms(ours) / ms(git)
    );
}

/// A 10-file run's propose (checkpoint included) in vaults of growing size.
fn checkpoint_cost() {
    let sizes: Vec<usize> = std::env::var("REDLINE_BENCH_VAULTS")
        .unwrap_or_else(|_| "5000,40000".into())
        .split(',')
        .map(|s| s.trim().parse().unwrap())
        .collect();
    println!("\n10-file run: propose = verify + diff + checkpoint + stage + persist (median of 5)");
    for notes in sizes {
        let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        vaultgen::generate(vault.path(), &VaultSpec { notes, seed: 9 }).unwrap();
        let mut ws = workspace(vault.path(), data.path());
        let files = list(
            ws.project(),
            serde_json::json!({"prefix": "Inbox", "limit": 60}),
        );
        let times: Vec<Duration> = (0..5)
            .map(|round| {
                let edits: Vec<ProposedEdit> = files[round * 10..round * 10 + 10]
                    .iter()
                    .enumerate()
                    .map(|(k, p)| replace(k, p, 1, "---"))
                    .collect();
                let start = Instant::now();
                let (checkpoint, _) = ws
                    .propose(
                        &run(&format!("job_{round}")),
                        &edits,
                        &HunkLimits::default(),
                    )
                    .unwrap();
                let took = start.elapsed();
                assert_eq!(checkpoint.affected_files.len(), 10);
                took
            })
            .collect();
        println!("{notes:>8} notes: {:.2} ms", ms(median(times)));
    }
}

/// Hard rollback of a 500-file run and scoped rollback of 100 hunks.
fn rollbacks() {
    let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for i in 0..500 {
        let body: String = (1..=40).map(|l| format!("note {i} line {l}\n")).collect();
        std::fs::write(vault.path().join(format!("n{i:03}.md")), body).unwrap();
    }
    let mut ws = workspace(vault.path(), data.path());
    let edits: Vec<ProposedEdit> = (0..500)
        .map(|i| replace(i, &format!("n{i:03}.md"), 5, "changed"))
        .collect();
    let (checkpoint, bundle) = ws
        .propose(&run("job_1"), &edits, &HunkLimits::default())
        .unwrap();
    let start = Instant::now();
    let report = ws
        .rollback(&checkpoint.checkpoint_id, RollbackMode::HardAll, &[])
        .unwrap();
    let hard = start.elapsed();
    assert_eq!(report.files.len(), 500);
    ws.rollback(&report.undo_checkpoint_id, RollbackMode::HardAll, &[])
        .unwrap();
    let hunks: Vec<String> = bundle
        .files
        .iter()
        .take(100)
        .map(|f| f.hunks[0].hunk_id.clone())
        .collect();
    let start = Instant::now();
    let report = ws
        .rollback(
            &checkpoint.checkpoint_id,
            RollbackMode::ScopedSelected,
            &hunks,
        )
        .unwrap();
    let scoped = start.elapsed();
    assert!(report.files.iter().all(|f| f.status == "reverted"));
    println!(
        "\nhard rollback of 500 files: {:.1} ms; scoped rollback of 100 hunks: {:.1} ms (each checkpointed first)",
        ms(hard),
        ms(scoped)
    );
}

pub fn main() {
    piece_log();
    job_of_5000();
    decisions();
    bundle_vs_git();
    checkpoint_cost();
    rollbacks();
}
