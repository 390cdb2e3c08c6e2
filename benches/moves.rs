//! A note renamed in a big vault, through the workspace: 40,000 notes on
//! disk, one of them linked from 2,000 others in assorted forms (wikilinks,
//! with alias or heading, embeds, relative Markdown links with encoded
//! spaces), and 1,000 more that name it in plain text. Prints the time to
//! stage the move with every link rewritten as a hunk that follows it (the
//! notes that may link found by the warm index's search, then parsed,
//! planned, diffed, triaged and stored), beside `rg -l` finding the files
//! that name the note on the same folder; then the apply (the move and
//! 2,000 notes saved).
//!
//! `cargo bench -- moves`; `REDLINE_BENCH_NOTES=10000` picks another
//! size and `REDLINE_BENCH_RUNS=5` the runs (default 3).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use redline::config::Limits;
use redline::edits::{Operation, ProposedEdit};
use redline::hunks::HunkLimits;
use redline::project::Project;
use redline::review::Status;
use redline::store::Store;
use redline::workspace::{RunInfo, Workspace};

const TARGET: &str = "Projects/Atlas Plan.md";
const MOVED: &str = "Archive/Atlas Plan 2027.md";
const LINKERS: usize = 2_000;
const MENTIONS: usize = 1_000;
const FOLDERS: usize = 40;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn note_path(i: usize) -> String {
    format!("Notes {:02}/note-{i:05}.md", i % FOLDERS)
}

/// Note `i`: a linker (in one of four forms), a mention, or neither.
fn note(i: usize, n: usize) -> String {
    let step = n / LINKERS;
    let body = if i.is_multiple_of(step) && i / step < LINKERS {
        match (i / step) % 4 {
            0 => "See [[Atlas Plan]] for more.".to_owned(),
            1 => "Read [[Atlas Plan#Goals|the goals]] first.".to_owned(),
            2 => "![[Atlas Plan]]".to_owned(),
            _ => "Also [the plan](../Projects/Atlas%20Plan.md).".to_owned(),
        }
    } else if i % step == 1 && i / step < MENTIONS {
        "The atlas plan came up in passing.".to_owned()
    } else {
        format!("Nothing to see in note {i}.")
    };
    format!("# Note {i}\n\n{body}\n")
}

fn vault(root: &Path, n: usize) {
    for f in 0..FOLDERS {
        std::fs::create_dir_all(root.join(format!("Notes {f:02}"))).unwrap();
    }
    std::fs::create_dir_all(root.join("Projects")).unwrap();
    for i in 0..n {
        std::fs::write(root.join(note_path(i)), note(i, n)).unwrap();
    }
    std::fs::write(root.join(TARGET), "# Atlas Plan\n\n## Goals\n\nShip.\n").unwrap();
}

/// The best of `runs` runs of `f`.
fn best(runs: usize, mut f: impl FnMut() -> Duration) -> Duration {
    (0..runs).map(|_| f()).min().unwrap()
}

pub fn main() {
    let n: usize = std::env::var("REDLINE_BENCH_NOTES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(40_000);
    let runs: usize = std::env::var("REDLINE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(3);
    let dir = tempfile::tempdir().unwrap();
    vault(dir.path(), n);
    let project = Project::open(dir.path(), Limits::default())
        .unwrap()
        .with_index();
    project.index().unwrap().fill(&project);
    let edits = [ProposedEdit {
        edit_id: "e_1".into(),
        file_path: TARGET.into(),
        operation: Operation::Move,
        start_line: 1,
        end_line: None,
        new_text: String::new(),
        old_text: None,
        expected_hash: None,
        rationale: String::new(),
        new_path: Some(MOVED.into()),
    }];
    let run = RunInfo {
        job_id: "job_1".into(),
        instruction: "Rename Atlas Plan to Atlas Plan 2027 and archive it".into(),
        ..RunInfo::default()
    };

    // Each run on a fresh store: the same proposal, staged from nothing.
    let mut ws = None;
    let mut bundle = None;
    let stage = best(runs, || {
        let data = tempfile::tempdir().unwrap();
        let project = Project::open(dir.path(), Limits::default())
            .unwrap()
            .with_index();
        project.index().unwrap().fill(&project);
        let store = Store::open(data.path(), project.root()).unwrap();
        let mut w = Workspace::open(project, store).unwrap();
        let start = Instant::now();
        let (_, b) = w.propose(&run, &edits, &HunkLimits::default()).unwrap();
        let took = start.elapsed();
        ws = Some((w, data));
        bundle = Some(b);
        took
    });
    let bundle = bundle.unwrap();
    let (mut ws, _data) = ws.unwrap();
    let followers = bundle.file_ops[0].followers.len();
    assert_eq!(followers, LINKERS, "every link follows the move");

    let rg = best(runs, || {
        let start = Instant::now();
        let out = Command::new("rg")
            .args(["-l", "-i", "Atlas Plan|Atlas%20Plan"])
            .current_dir(dir.path())
            .output();
        let took = start.elapsed();
        match out {
            Ok(out) if out.status.success() => took,
            _ => Duration::ZERO,
        }
    });

    // One decision each way, carrying every link update, with the rule
    // across notes checked at its end.
    let mv = bundle.file_ops[0].hunk_id.clone();
    let start = Instant::now();
    let accepted = ws.decide(&mv, Status::Accepted, None).unwrap();
    let accept_move = start.elapsed();
    assert_eq!(
        accepted.moves.len(),
        LINKERS + 1,
        "the move carries its links"
    );
    let start = Instant::now();
    let rejected = ws.decide(&mv, Status::Rejected, None).unwrap();
    let reject_move = start.elapsed();
    assert_eq!(rejected.moves.len(), LINKERS + 1, "and takes them back");

    let all: Vec<String> = bundle.hunk_ids().map(str::to_owned).collect();
    let start = Instant::now();
    let applied = ws.apply(&bundle, &all, &mut |_| {}).unwrap();
    let apply = start.elapsed();
    assert!(applied.iter().all(|a| a.status == "applied"));
    assert!(dir.path().join(MOVED).exists() && !dir.path().join(TARGET).exists());

    println!(
        "\nA note linked from {LINKERS} notes renamed in a vault of {n} notes; ms (best of {runs})"
    );
    println!(
        "{:>7} {:>10} {:>12} {:>10} {:>12} {:>12} {:>12}",
        "notes", "stage", "rg -l name", "ratio", "accept move", "reject move", "apply all"
    );
    let ratio = if rg.is_zero() {
        "no rg".to_owned()
    } else {
        format!("{:.1}x", ms(stage) / ms(rg))
    };
    println!(
        "{n:>7} {:>10.0} {:>12.1} {:>10} {:>12.0} {:>12.0} {:>12.0}",
        ms(stage),
        ms(rg),
        ratio,
        ms(accept_move),
        ms(reject_move),
        ms(apply)
    );
}
