//! The workspace driven through random sequences of what the agent, the
//! user and other programs do to a small linked vault — edits, moves and
//! deletions proposed, hunks decided and undone, typing, saves, another
//! program's writes, hard rollbacks and their undo, restarts — and checked
//! after every step against what must hold whatever the order:
//!
//! - the disk changes only at a save or another program's write;
//! - a save leaves each file on disk as its decisions say (its accepted
//!   text, at the path its accepted move gives it, or nowhere);
//! - a restart changes nothing the working state shows;
//! - undoing a rollback gives back the working state before it, paths
//!   included;
//! - no link that resolved in the working state before a step dangles
//!   after it while its note is shown.
//!
//! The random sequences are not yet in CI (see the property's comment);
//! the sequences they found, fixed, are named tests that are.
//! `REDLINE_EXPLORE_CASES=N` sets how many sequences the property tries.

use std::collections::BTreeMap;
use std::path::Path;

#[path = "support/disk.rs"]
mod disk;

use proptest::prelude::*;
use redline::checkpoints::{CheckpointKind, RollbackMode};
use redline::config::Limits;
use redline::edits::{Operation, ProposedEdit};
use redline::hunks::HunkLimits;
use redline::project::Project;
use redline::review::Status;
use redline::store::Store;
use redline::workspace::{RunInfo, Workspace};

/// The notes, each linking the next two.
const NOTES: [&str; 4] = ["Alpha", "Beta", "Gamma", "Delta"];

fn note(i: usize) -> String {
    format!(
        "# {}\n\nLinks: [[{}]] and [[{}]].\n\nline one\nline two\n",
        NOTES[i],
        NOTES[(i + 1) % 4],
        NOTES[(i + 2) % 4]
    )
}

/// One thing that happens to the vault.
#[derive(Clone, Debug)]
enum Step {
    /// A run replaces line `line` of a note with `text`.
    Edit {
        note: usize,
        line: usize,
        text: String,
    },
    /// A run moves a note into `Archive/`.
    Move { note: usize },
    /// A run deletes a note.
    Delete { note: usize },
    /// A pending hunk (the `pick`th; not a link update, which follows its
    /// move) accepted or rejected.
    Decide { pick: usize, accept: bool },
    /// A decided hunk's decision undone.
    Undo { pick: usize },
    /// The user types a line at the end of a note.
    Type { note: usize },
    /// Every file under review saved.
    Save,
    /// Another program appends a line to a note on disk.
    Outside { note: usize },
    /// A hard rollback to the `pick`th run's checkpoint, then (with `undo`)
    /// its undo.
    Rollback { pick: usize, undo: bool },
    /// The workspace closed and opened again.
    Restart,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (0..4usize, 3..=6usize, "[a-z]{1,6}").prop_map(|(note, line, text)| Step::Edit { note, line, text }),
        1 => (0..4usize).prop_map(|note| Step::Move { note }),
        1 => (0..4usize).prop_map(|note| Step::Delete { note }),
        4 => (any::<usize>(), any::<bool>()).prop_map(|(pick, accept)| Step::Decide { pick, accept }),
        1 => any::<usize>().prop_map(|pick| Step::Undo { pick }),
        2 => (0..4usize).prop_map(|note| Step::Type { note }),
        3 => Just(Step::Save),
        1 => (0..4usize).prop_map(|note| Step::Outside { note }),
        2 => (any::<usize>(), any::<bool>()).prop_map(|(pick, undo)| Step::Rollback { pick, undo }),
        1 => Just(Step::Restart),
    ]
}

fn open(root: &Path, data: &Path) -> Workspace {
    let project = Project::open(root, Limits::default()).unwrap();
    let store = Store::open(data, project.root()).unwrap();
    Workspace::open(project, store).unwrap()
}

/// What the working state shows: the disk with every buffer laid over it.
fn view(ws: &Workspace, root: &Path) -> BTreeMap<String, String> {
    let mut shown = disk::texts(root);
    for (path, text) in ws.overlay().iter() {
        match text {
            Some(text) => shown.insert(path.to_owned(), text.to_owned()),
            None => shown.remove(path),
        };
    }
    shown
}

/// Where the working state shows note `i`, if anywhere.
fn shown_at(shown: &BTreeMap<String, String>, i: usize) -> Option<String> {
    let head = format!("# {}\n", NOTES[i]);
    shown
        .iter()
        .find(|(_, text)| text.starts_with(&head))
        .map(|(path, _)| path.clone())
}

/// What a save of every file under review must leave on disk, from the
/// disk before it. A file another program changed since Redline last read
/// it is a conflict, which a save leaves alone until it is resolved.
fn saved(ws: &Workspace, mut on_disk: BTreeMap<String, String>) -> BTreeMap<String, String> {
    for file in ws.review().files() {
        let at = file.disk_path().unwrap_or(&file.path);
        if ws.project().disk_hash(at).ok().flatten() != file.disk_hash {
            continue;
        }
        if file.disk_hash.is_some()
            && let Some(at) = file.disk_path()
        {
            on_disk.remove(at);
        }
        let text = file.disk_view();
        let accepted = file.entries().iter().any(|e| e.status == Status::Accepted);
        let unmade = text.is_empty() && !accepted && file.created;
        if let (Some(to), false) = (file.saved_path(), unmade) {
            on_disk.insert(to.to_owned(), text);
        }
    }
    on_disk
}

/// Every link of the working state, as (the note it is in, the note it
/// names, whether it resolves): a note is known by its heading, a link by
/// the note its name starts with (a moved note is `Alpha 12`).
fn links(shown: &BTreeMap<String, String>) -> Vec<(usize, usize, bool)> {
    let stems: Vec<&str> = shown
        .keys()
        .map(|p| p.rsplit('/').next().unwrap().trim_end_matches(".md"))
        .collect();
    let mut out = Vec::new();
    for (from, _) in NOTES.iter().enumerate() {
        let Some(path) = shown_at(shown, from) else {
            continue;
        };
        for link in shown[&path]
            .split("[[")
            .skip(1)
            .filter_map(|s| s.split("]]").next())
        {
            let stem = link.split(['|', '#']).next().unwrap();
            let name = stem.split(' ').next().unwrap();
            if let Some(to) = NOTES.iter().position(|n| *n == name) {
                out.push((from, to, stems.contains(&stem)));
            }
        }
    }
    out
}

/// The links that resolved in `before` and dangle in `after` while both
/// notes are shown: a link left behind by a move, or brought back without it.
fn broken(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> Vec<String> {
    let was: Vec<(usize, usize)> = links(before)
        .into_iter()
        .filter(|l| l.2)
        .map(|(from, to, _)| (from, to))
        .collect();
    links(after)
        .into_iter()
        .filter(|&(from, to, resolves)| !resolves && was.contains(&(from, to)))
        .filter(|&(_, to, _)| shown_at(after, to).is_some())
        .map(|(from, to, _)| format!("{} -> {}", NOTES[from], NOTES[to]))
        .collect()
}

fn run(job: usize) -> RunInfo {
    RunInfo {
        session_id: Some("sess_1".into()),
        job_id: format!("job_{job}"),
        instruction: format!("step {job}"),
        seen: None,
    }
}

fn proposed(path: &str, operation: Operation) -> ProposedEdit {
    ProposedEdit {
        edit_id: "e_1".into(),
        file_path: path.into(),
        operation,
        start_line: 1,
        end_line: None,
        new_text: String::new(),
        old_text: None,
        expected_hash: None,
        rationale: String::new(),
        new_path: None,
    }
}

/// The pending or decided hunks that are not link updates, in order.
fn hunks(ws: &Workspace, decided: bool) -> Vec<String> {
    let mut out = Vec::new();
    for file in ws.review().files() {
        for entry in file.entries() {
            if let Some(hunk) = &entry.hunk_id
                && entry.follows.is_empty()
                && (entry.status != Status::Pending) == decided
            {
                out.push(hunk.clone());
            }
        }
    }
    out.sort();
    out
}

/// Drives the workspace through `steps`, checking after each.
fn check(steps: &[Step]) -> Result<(), TestCaseError> {
    let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = vault.path();
    std::fs::create_dir_all(root.join("Notes")).unwrap();
    for (i, name) in NOTES.iter().enumerate() {
        std::fs::write(root.join(format!("Notes/{name}.md")), note(i)).unwrap();
    }
    let mut ws = open(root, data.path());
    let mut jobs = 0;
    for (n, step) in steps.iter().enumerate() {
        let before = disk::texts(root);
        let shown = view(&ws, root);
        let mut writes = false;
        match step {
            Step::Edit { note, line, text } => {
                let Some(path) = shown_at(&shown, *note) else {
                    continue;
                };
                let mut edit = proposed(&path, Operation::Replace);
                edit.start_line = *line;
                edit.new_text = text.clone();
                jobs += 1;
                let _ = ws.propose(&run(jobs), &[edit], &HunkLimits::default());
            }
            Step::Move { note } => {
                let Some(path) = shown_at(&shown, *note) else {
                    continue;
                };
                let mut edit = proposed(&path, Operation::Move);
                edit.new_path = Some(format!("Archive/{} {n}.md", NOTES[*note]));
                jobs += 1;
                let _ = ws.propose(&run(jobs), &[edit], &HunkLimits::default());
            }
            Step::Delete { note } => {
                let Some(path) = shown_at(&shown, *note) else {
                    continue;
                };
                jobs += 1;
                let _ = ws.propose(
                    &run(jobs),
                    &[proposed(&path, Operation::DeleteFile)],
                    &HunkLimits::default(),
                );
            }
            Step::Decide { pick, accept } => {
                let pending = hunks(&ws, false);
                if pending.is_empty() {
                    continue;
                }
                let status = if *accept {
                    Status::Accepted
                } else {
                    Status::Rejected
                };
                let _ = ws.decide(&pending[pick % pending.len()], status, None);
            }
            Step::Undo { pick } => {
                let decided = hunks(&ws, true);
                if decided.is_empty() {
                    continue;
                }
                let _ = ws.decide(&decided[pick % decided.len()], Status::Pending, None);
            }
            Step::Type { note } => {
                let Some(path) = shown_at(&shown, *note) else {
                    continue;
                };
                let text = format!("{}typed {n}\n", shown[&path]);
                let _ = ws.edit(&path, &text, None);
            }
            Step::Save => {
                let expected = saved(&ws, before.clone());
                let keys: Vec<String> = ws.review().files().map(|f| f.path.clone()).collect();
                let failed: Vec<String> = keys
                    .iter()
                    .filter(|k| ws.save(k).is_err())
                    .cloned()
                    .collect();
                if failed.is_empty() {
                    prop_assert_eq!(disk::texts(root), expected, "step {}: {:?}", n, step);
                }
                writes = true;
            }
            Step::Outside { note } => {
                let head = format!("# {}\n", NOTES[*note]);
                let Some((path, text)) = before.iter().find(|(_, t)| t.starts_with(&head)) else {
                    continue;
                };
                std::fs::write(root.join(path), format!("{text}outside {n}\n")).unwrap();
                let _ = ws.external_change(path);
                writes = true;
            }
            Step::Rollback { pick, undo } => {
                let runs: Vec<String> = ws
                    .checkpoints(None, 1000)
                    .unwrap()
                    .checkpoints
                    .into_iter()
                    .filter(|c| c.kind == CheckpointKind::Run)
                    .map(|c| c.checkpoint_id)
                    .collect();
                if runs.is_empty() {
                    continue;
                }
                let report = ws
                    .rollback(&runs[pick % runs.len()], RollbackMode::HardAll, &[])
                    .map_err(|e| TestCaseError::fail(format!("step {n}: {step:?}: {e}")))?;
                prop_assert_eq!(
                    disk::texts(root),
                    before.clone(),
                    "step {}: a rollback wrote",
                    n
                );
                if *undo {
                    ws.rollback(&report.undo_checkpoint_id, RollbackMode::HardAll, &[])
                        .map_err(|e| TestCaseError::fail(format!("step {n}: undo: {e}")))?;
                    prop_assert_eq!(view(&ws, root), shown.clone(), "step {}: the undo", n);
                }
            }
            Step::Restart => {
                drop(ws);
                ws = open(root, data.path());
                prop_assert_eq!(view(&ws, root), shown.clone(), "step {}: a restart", n);
            }
        }
        if !writes {
            prop_assert_eq!(
                disk::texts(root),
                before,
                "step {}: {:?} wrote to disk",
                n,
                step
            );
        }
        let left = broken(&shown, &view(&ws, root));
        prop_assert!(left.is_empty(), "step {}: {:?} broke {:?}", n, step, left);
    }
    Ok(())
}

fn cases() -> u32 {
    std::env::var("REDLINE_EXPLORE_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(64)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Not yet in CI: it still finds sequences that break a link, each a
    /// bug to fix (`cargo test --test model -- --ignored` shows the
    /// shortest). Those found so far, and fixed, are the named tests below;
    /// open ones, shrunk:
    /// - a move, an edit of the moved note, a rejection, typing, a second
    ///   move refused, an edit, then undoing a decision: the links to the
    ///   note are left behind;
    /// - Beta moved, Alpha edited and accepted, saved, Alpha moved, Beta
    ///   moved again, then a rollback to the third run: Delta's link to Beta
    ///   dangles.
    #[test]
    #[ignore = "finds open bugs; see its doc comment"]
    fn every_sequence_keeps_the_disk_the_links_and_the_undo(steps in proptest::collection::vec(step(), 1..40)) {
        check(&steps)?;
    }
}

fn edit(note: usize, line: usize) -> Step {
    Step::Edit {
        note,
        line,
        text: "a".into(),
    }
}

/// Rolled back, a note loses a link update of a later move that is kept:
/// the move goes with it, or the link would be left behind.
#[test]
fn a_rollback_that_drops_a_link_update_takes_its_move_with_it() {
    check(&[
        edit(0, 4),
        Step::Move { note: 1 },
        Step::Rollback {
            pick: 1,
            undo: false,
        },
    ])
    .unwrap();
}

/// Two rollbacks of different times: a move brought back without its link
/// updates, or a link update without its move, is rejected.
#[test]
fn rollbacks_of_different_times_never_bring_a_move_and_its_links_apart() {
    check(&[
        Step::Move { note: 2 },
        edit(0, 3),
        Step::Move { note: 0 },
        edit(0, 3),
        Step::Rollback {
            pick: 3,
            undo: false,
        },
        Step::Rollback {
            pick: 1,
            undo: false,
        },
    ])
    .unwrap();
    check(&[
        Step::Move { note: 2 },
        edit(0, 3),
        Step::Delete { note: 1 },
        edit(0, 3),
        Step::Rollback {
            pick: 3,
            undo: false,
        },
        Step::Rollback {
            pick: 1,
            undo: false,
        },
    ])
    .unwrap();
}

/// An accepted move with its link updates pending is undone exactly.
#[test]
fn undoing_a_rollback_keeps_an_accepted_move_with_pending_links() {
    check(&[
        edit(0, 3),
        edit(0, 3),
        edit(1, 4),
        Step::Move { note: 1 },
        Step::Decide {
            pick: 4098698035277657840,
            accept: true,
        },
        edit(0, 3),
        edit(0, 3),
        Step::Rollback {
            pick: 10015186746416072570,
            undo: true,
        },
    ])
    .unwrap();
}

/// A move whose link update a rollback took away can only be rejected, a
/// restart later too: undoing its rejection would leave the link behind.
#[test]
fn a_move_that_lost_a_link_update_is_not_brought_back_by_an_undo() {
    let steps = [
        edit(3, 4),
        Step::Move { note: 0 },
        Step::Rollback {
            pick: 1,
            undo: false,
        },
    ];
    let mut again = steps.to_vec();
    again.push(Step::Undo { pick: 0 });
    check(&again).unwrap();
    again.insert(3, Step::Restart);
    check(&again).unwrap();
}

/// Another program's write to a note holding a pending link update is a
/// conflict a save leaves alone.
#[test]
fn a_save_leaves_a_conflict_alone() {
    check(&[
        Step::Move { note: 1 },
        Step::Outside { note: 0 },
        Step::Save,
    ])
    .unwrap();
}
