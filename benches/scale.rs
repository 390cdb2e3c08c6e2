//! Review at vault scale: a one-line link rename (`[[Atlas]]` → `[[Meridian]]`)
//! in every note of a vault of 500, 1,000, 5,000 and 20,000 notes, with one note
//! where the agent did something else. Prints, through the workspace (store
//! writes included): the proposal staged (checkpoint, triage, store), the
//! review list built, the pattern accepted as one step, the outlier rejected,
//! and every file saved in one batch; beside them, on the same disk, the two
//! floors a save of that many files has: each file written with its own
//! fsync and renamed, and all written, flushed once, renamed, folders flushed.
//!
//! `cargo bench -- scale`; `REDLINE_BENCH_NOTES=500,5000` picks sizes.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use redline::config::Limits;
use redline::edits::{Operation, ProposedEdit};
use redline::hunks::HunkLimits;
use redline::project::Project;
use redline::review::Status;
use redline::store::Store;
use redline::workspace::{RunInfo, Workspace};

const FOLDERS: usize = 20;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn note_path(i: usize) -> String {
    format!("Notes {:02}/note-{i:05}.md", i % FOLDERS)
}

fn note(i: usize) -> String {
    format!("# Note {i}\n\nSee [[Atlas]] for more.\n")
}

/// A vault of `n` notes under `root`.
fn vault(root: &Path, n: usize) {
    for f in 0..FOLDERS {
        std::fs::create_dir_all(root.join(format!("Notes {f:02}"))).unwrap();
    }
    for i in 0..n {
        std::fs::write(root.join(note_path(i)), note(i)).unwrap();
    }
    std::fs::write(root.join("Meridian.md"), "# Meridian\n").unwrap();
}

fn edits(n: usize) -> Vec<ProposedEdit> {
    (0..n)
        .map(|i| ProposedEdit {
            edit_id: format!("e_{i}"),
            file_path: note_path(i),
            operation: Operation::Replace,
            start_line: 3,
            end_line: None,
            // The one outlier: a typo that links nowhere.
            new_text: if i == n / 2 {
                "See [[Meridain]] for more.".into()
            } else {
                "See [[Meridian]] for more.".into()
            },
            old_text: None,
            expected_hash: None,
            rationale: String::new(),
            new_path: None,
        })
        .collect()
}

/// `n` small files in `dir`, for a floor to replace (a save replaces notes
/// that exist: their old inodes go, which costs the file system too).
fn existing(dir: &Path, n: usize, prefix: &str) {
    for i in 0..n {
        std::fs::write(dir.join(format!("{prefix}{i}.md")), note(i)).unwrap();
    }
}

/// Replaces `n` small files in `dir` one at a time, each written to a
/// temporary file, flushed and renamed over the old one (and its folder
/// flushed): the floor of a save that does one file at a time.
fn floor_one_by_one(dir: &Path, n: usize) -> Duration {
    existing(dir, n, "f");
    let start = Instant::now();
    for i in 0..n {
        let tmp = dir.join(format!(".t{i}"));
        let file = std::fs::File::create(&tmp).unwrap();
        std::io::Write::write_all(&mut &file, note(i).as_bytes()).unwrap();
        file.sync_all().unwrap();
        std::fs::rename(&tmp, dir.join(format!("f{i}.md"))).unwrap();
        std::fs::File::open(dir).unwrap().sync_all().unwrap();
    }
    start.elapsed()
}

/// Replaces `n` small files in `dir` in one batch: all written, one
/// `syncfs`, all renamed over the old ones, the folder flushed once.
fn floor_batched(dir: &Path, n: usize) -> Duration {
    existing(dir, n, "b");
    let start = Instant::now();
    let tmps: Vec<PathBuf> = (0..n)
        .map(|i| {
            let tmp = dir.join(format!(".b{i}"));
            std::fs::write(&tmp, note(i)).unwrap();
            tmp
        })
        .collect();
    let root = std::fs::File::open(dir).unwrap();
    rustix::fs::syncfs(&root).unwrap();
    for (i, tmp) in tmps.iter().enumerate() {
        std::fs::rename(tmp, dir.join(format!("b{i}.md"))).unwrap();
    }
    root.sync_all().unwrap();
    start.elapsed()
}

/// The workspace on the vault at `root` with its store in `data`, with the
/// index `redline serve` keeps warm (its saves keep it current), filled.
pub(crate) fn warm_workspace(root: &Path, data: &Path) -> Workspace {
    let project = Project::open(root, Limits::default()).unwrap().with_index();
    project.index().unwrap().fill(&project);
    let store = Store::open(data, project.root()).unwrap();
    Workspace::open(project, store).unwrap()
}

fn at(n: usize) {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    vault(dir.path(), n);
    let mut ws = warm_workspace(dir.path(), data.path());
    let run = RunInfo {
        job_id: "job_1".into(),
        instruction: "Rename Atlas to Meridian in every note, links included".into(),
        ..RunInfo::default()
    };

    let start = Instant::now();
    let (_, bundle) = ws.propose(&run, &edits(n), &HunkLimits::default()).unwrap();
    let staged = start.elapsed();

    let start = Instant::now();
    let listed = ws.pending_hunks();
    let list = start.elapsed();
    assert_eq!(listed.len(), n);

    let hunks: Vec<_> = bundle.files.iter().flat_map(|f| &f.hunks).collect();
    let pattern: Vec<String> = hunks
        .iter()
        .filter(|h| h.pattern.as_deref() == Some("p1"))
        .map(|h| h.hunk_id.clone())
        .collect();
    let flagged: Vec<&str> = hunks
        .iter()
        .filter(|h| !h.flags.is_empty())
        .map(|h| h.hunk_id.as_str())
        .collect();
    assert_eq!(
        (pattern.len(), flagged.len()),
        (n - 1, 1),
        "one pattern, one outlier"
    );

    let start = Instant::now();
    ws.decide_many(&pattern, Status::Accepted).unwrap();
    let accepted = start.elapsed();
    let start = Instant::now();
    ws.decide(flagged[0], Status::Rejected, Some("a typo"))
        .unwrap();
    let rejected = start.elapsed();

    // Save all as the runtime makes it: the files with unsaved work found,
    // then written as one batch.
    let start = Instant::now();
    let paths = ws.unsaved();
    let saved = ws.save_many(&paths, &mut |_| {}).unwrap();
    let save = start.elapsed();
    assert_eq!(paths.len(), n - 1, "every note but the rejected outlier");
    assert!(saved.iter().all(Result::is_ok));
    assert_eq!(
        std::fs::read_to_string(dir.path().join(note_path(0))).unwrap(),
        note(0).replace("Atlas", "Meridian")
    );

    let floors = tempfile::tempdir_in(dir.path()).unwrap();
    let one = floor_one_by_one(floors.path(), n);
    let batched = floor_batched(floors.path(), n);
    println!(
        "{n:>7} {:>10.0} {:>10.1} {:>10.1} {:>9.2} {:>10.0} {:>12.0} {:>12.0} {:>7.1}x",
        ms(staged),
        ms(list),
        ms(accepted),
        ms(rejected),
        ms(save),
        ms(one),
        ms(batched),
        ms(save) / ms(batched),
    );
}

pub fn main() {
    let sizes: Vec<usize> = std::env::var("REDLINE_BENCH_NOTES")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![500, 1_000, 5_000, 20_000]);
    println!("\nA link rename in every note, one outlier; ms (save ratio: ours / batched floor)");
    println!(
        "{:>7} {:>10} {:>10} {:>10} {:>9} {:>10} {:>12} {:>12} {:>8}",
        "notes",
        "stage",
        "list",
        "pattern",
        "outlier",
        "save all",
        "floor 1-by-1",
        "floor batch",
        "ratio"
    );
    for n in sizes {
        at(n);
    }
}
