//! Vault-wide operations: `replace_text` of a term in the prose of every
//! note of a vault of 500, 5,000 and 20,000 notes (each also holds the term
//! in code, a link target and front matter, which stay). Prints the dry run
//! (the expansion alone) and the expansion staged through the workspace
//! (checkpoint, triage, store), with the warm index `redline serve` keeps;
//! beside them, the peer on the same input: `rg` listing the files that hold
//! the term, and `sed -i` rewriting every occurrence (code and links too,
//! which is why it is not an answer).
//!
//! `cargo bench -- operations`; `REDLINE_BENCH_NOTES=500,5000` picks sizes.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use redline::expand::{self, ReplaceText, Scope, VaultOp};
use redline::hunks::HunkLimits;
use redline::project::View;
use redline::workspace::RunInfo;

const FOLDERS: usize = 20;
/// How many times the staging is measured.
const RUNS: usize = 5;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn note(i: usize) -> String {
    format!(
        "---\nproject: Atlas\n---\n# Note {i}\n\nAtlas ships in week {i}; see [[Atlas]].\n\n`Atlas.run()`\n"
    )
}

fn vault(root: &Path, n: usize) {
    for f in 0..FOLDERS {
        std::fs::create_dir_all(root.join(format!("Notes {f:02}"))).unwrap();
    }
    for i in 0..n {
        let path = root.join(format!("Notes {:02}/note-{i:05}.md", i % FOLDERS));
        std::fs::write(path, note(i)).unwrap();
    }
    // The note the links name; no prose of its own to rename.
    std::fs::write(root.join("Atlas.md"), "The project.\n").unwrap();
}

/// The rename over `scope`.
fn rename(scope: Scope) -> Vec<VaultOp> {
    vec![VaultOp::ReplaceText(ReplaceText {
        find: "Atlas".into(),
        replace: "Meridian".into(),
        regex: false,
        whole_word: true,
        case_sensitive: true,
        scope,
        include: Vec::new(),
    })]
}

/// The rename over every note.
fn everywhere() -> Vec<VaultOp> {
    rename(Scope::default())
}

/// The rename over one folder.
fn one_folder() -> Vec<VaultOp> {
    rename(Scope {
        folders: vec!["Notes 00".into()],
        ..Scope::default()
    })
}

/// Seconds a command takes, or `None` when it is not installed.
fn time(cmd: &mut Command) -> Option<Duration> {
    let start = Instant::now();
    let out = cmd.output().ok()?;
    out.status.success().then(|| start.elapsed())
}

fn at(n: usize) {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    vault(dir.path(), n);
    // The vault's own writes flushed first: the kernel writing them back
    // while a staging is timed is not the staging's cost.
    let _ = Command::new("sync").status();
    let ws = crate::scale::warm_workspace(dir.path(), data.path());

    let overlay = ws.overlay();
    let start = Instant::now();
    let dry = expand::expand(
        &View::with(ws.project(), &overlay),
        &everywhere(),
        ws.protection(),
    )
    .unwrap();
    let dry_run = start.elapsed();
    assert_eq!(dry.reports[0].notes_changed, n);
    assert_eq!(dry.reports[0].occurrences, n);

    let folder = {
        let start = Instant::now();
        let one = expand::expand(
            &View::with(ws.project(), &overlay),
            &one_folder(),
            ws.protection(),
        )
        .unwrap();
        assert_eq!(one.reports[0].notes_changed, n.div_ceil(FOLDERS));
        start.elapsed()
    };

    // Staged five times over the same vault, each into a store of its own
    // (a staging changes the review it goes into): the median and the range.
    let mut runs: Vec<Duration> = (0..RUNS)
        .map(|k| {
            let data = tempfile::tempdir().unwrap();
            let mut ws = crate::scale::warm_workspace(dir.path(), data.path());
            let start = Instant::now();
            let overlay = ws.overlay();
            let expansion = expand::expand(
                &View::with(ws.project(), &overlay),
                &everywhere(),
                ws.protection(),
            )
            .unwrap();
            // Staged as the agent's call stages it: from the notes the
            // expansion read.
            let run = RunInfo {
                job_id: format!("job_{k}"),
                instruction: "Rename Atlas to Meridian in the prose of every note".into(),
                reads: expansion.reads,
                ..RunInfo::default()
            };
            let (_, bundle) = ws
                .propose(&run, &expansion.edits, &HunkLimits::default())
                .unwrap();
            let staged = start.elapsed();
            assert_eq!(bundle.files.len(), n);
            staged
        })
        .collect();
    runs.sort();
    let staged = runs[RUNS / 2];

    let rg = time(
        Command::new("rg")
            .current_dir(dir.path())
            .args(["-l", "-w", "Atlas", "."]),
    );
    let sed = {
        let files: Vec<String> = (0..n)
            .map(|i| format!("Notes {:02}/note-{i:05}.md", i % FOLDERS))
            .collect();
        time(
            Command::new("sed")
                .current_dir(dir.path())
                .args(["-i", "s/\\bAtlas\\b/Meridian/g"])
                .args(&files),
        )
    };
    let peer =
        |d: Option<Duration>| d.map_or("not installed".to_owned(), |d| format!("{:.1} ms", ms(d)));
    println!(
        "operations {n:>6} notes: dry run {:>7.1} ms (one folder of {}: {:.1} ms), expanded and staged {:>7.1} ms (median of {RUNS}, {:.1}–{:.1}); rg -l {} (ratio {}), sed -i {}",
        ms(dry_run),
        n.div_ceil(FOLDERS),
        ms(folder),
        ms(staged),
        ms(runs[0]),
        ms(runs[RUNS - 1]),
        peer(rg),
        rg.map_or("-".into(), |rg| format!("{:.1}x", ms(dry_run) / ms(rg))),
        peer(sed),
    );
}

pub fn main() {
    let sizes: Vec<usize> = std::env::var("REDLINE_BENCH_NOTES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![500, 5_000, 20_000]);
    for n in sizes {
        at(n);
    }
}
