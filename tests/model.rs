//! The workspace driven through random sequences of what the agent, the
//! user and other programs do to a small linked vault — edits, moves and
//! deletions proposed, hunks decided and undone, typing, saves, runs
//! applied (and cut off by a crash), another program's writes (reloaded,
//! a conflict, or hunks to review), hard and scoped rollbacks and their
//! undo, restarts — and checked after every step against what must hold
//! whatever the order:
//!
//! - the disk changes only at a save, an apply or another program's write;
//! - a save or an apply leaves each file on disk as its decisions say (its
//!   accepted text, at the path its accepted move gives it, or nowhere);
//! - an apply cut off by a crash, opened again, shows what the whole apply
//!   shows, and leaves every file as it was or as the apply wrote it;
//! - a restart changes nothing the working state shows;
//! - a rollback writes nothing, and undoing it gives back the working state
//!   before it, paths included;
//! - no link that resolved in the working state before a step dangles
//!   after it while its note is shown.
//!
//! CI runs a pinned slice of the random sequences; `scripts/explore model`
//! runs them unpinned. Every sequence they found is a named test.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[path = "support/disk.rs"]
mod disk;
#[path = "support/vault_model.rs"]
mod vault_model;

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::test_runner::{FileFailurePersistence, RngSeed, TestRunner};
use redline::checkpoints::{CheckpointKind, RollbackMode, RollbackReport};
use redline::config::{Limits, OutsideMode};
use redline::edits::{Operation, ProposedEdit};
use redline::expand::{ConvertLinks, LinkStyle, ReplaceText, RetargetLinks, Scope, VaultOp};
use redline::hunks::{DiffBundle, HunkLimits};
use redline::project::Project;
use redline::project::View;
use redline::review::{ReviewError, Status, TieKind};
use redline::store::Store;
use redline::workspace::{FileChange, OutsideChange, RunInfo, StepKind, Workspace, WorkspaceError};
use vault_model::{
    FRONT, NOTES, Step, WORDS, broken, edit, is_note, left_pair, links, note, replace,
    retarget_paths, shown_at, step,
};

fn open(root: &Path, data: &Path) -> Workspace {
    let project = Project::open(root, Limits::default()).unwrap();
    let db = Store::project_dir(data, project.root()).join("redline.db");
    if !db.exists() {
        std::fs::create_dir_all(db.parent().unwrap()).unwrap();
        std::fs::write(&db, migrated_store()).unwrap();
    }
    let store = Store::open(data, project.root()).unwrap();
    Workspace::open(project, store).unwrap()
}

/// The bytes of a new store with every migration run, made once per
/// process: each sequence starts from a copy, where running every
/// migration's SQL again was an eighth of an explore run's time. (The
/// migrations themselves are the store's tests' to check.)
fn migrated_store() -> &'static [u8] {
    static TEMPLATE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    TEMPLATE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let (made, copy) = (dir.path().join("made.db"), dir.path().join("copy.db"));
        drop(Store::open_at(&made).unwrap());
        // One file, its write-ahead log folded in.
        rusqlite::Connection::open(&made)
            .unwrap()
            .execute("VACUUM INTO ?1", [copy.to_str().unwrap()])
            .unwrap();
        std::fs::read(copy).unwrap()
    })
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
        let text = ws.review().disk_view(file);
        let accepted = file.entries().iter().any(|e| e.status == Status::Accepted);
        let unmade = text.is_empty() && !accepted && file.created;
        if let (Some(to), false) = (file.saved_path(), unmade) {
            on_disk.insert(to.to_owned(), text);
        }
    }
    on_disk
}

fn run(job: usize) -> RunInfo {
    RunInfo {
        session_id: Some("sess_1".into()),
        job_id: format!("job_{job}"),
        instruction: format!("step {job}"),
        seen: None,
        answers: Vec::new(),
        reads: Default::default(),
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

/// The pending or decided hunks that are not link updates, in order: those
/// the review offers a decision on (a final one it does not).
fn hunks(ws: &Workspace, decided: bool) -> Vec<String> {
    let mut out = Vec::new();
    for file in ws.review().files() {
        for entry in file.entries() {
            if let Some(hunk) = &entry.hunk_id
                && entry.follows.is_empty()
                && (entry.status != Status::Pending) == decided
                && !ws.review().is_final(hunk)
            {
                out.push(hunk.clone());
            }
        }
    }
    out.sort();
    out
}

/// The link updates the user can reject by name to leave a link naming a
/// note's old path: a move's own, not rejected, of a move that counts.
fn link_updates(ws: &Workspace) -> Vec<String> {
    let review = ws.review();
    let counts = |hunk: &str| {
        review
            .status_of(hunk)
            .is_some_and(|s| s != Status::Rejected)
    };
    let mut out: Vec<String> = review
        .files()
        .flat_map(|f| f.entries())
        .filter(|e| e.status != Status::Rejected)
        .filter(|e| {
            e.follows
                .iter()
                .any(|t| t.kind == Some(TieKind::Update) && counts(&t.leader))
        })
        .filter_map(|e| e.hunk_id.clone())
        .filter(|h| !review.is_final(h))
        .collect();
    out.sort();
    out
}

/// The hunks whose decisions are final (see `Review::is_final`), in order.
fn final_hunks(ws: &Workspace) -> Vec<String> {
    let mut out: Vec<String> = ws
        .review()
        .files()
        .flat_map(|f| f.entries())
        .filter_map(|e| e.hunk_id.clone())
        .filter(|h| ws.review().is_final(h))
        .collect();
    out.sort();
    out
}

/// The ids of the runs' checkpoints, oldest first.
fn run_checkpoints(ws: &Workspace) -> Vec<String> {
    ws.checkpoints(None, 1000)
        .unwrap()
        .checkpoints
        .into_iter()
        .filter(|c| c.kind == CheckpointKind::Run)
        .map(|c| c.checkpoint_id)
        .collect()
}

/// Each of `files` with every path its review gives it.
fn paths_of(ws: &Workspace, files: &[String]) -> Vec<String> {
    let mut paths = Vec::new();
    for path in files {
        paths.push(path.clone());
        if let Some(file) = ws.review().file_of(path) {
            paths.extend(file.paths().map(str::to_owned));
        }
    }
    paths
}

/// A `replace_text` operation over the whole vault, prose only.
fn replace_text(find: &str, with: &str, whole_word: bool) -> VaultOp {
    VaultOp::ReplaceText(ReplaceText {
        find: find.to_owned(),
        replace: with.to_owned(),
        regex: false,
        whole_word,
        case_sensitive: true,
        scope: Scope::default(),
        include: Vec::new(),
    })
}

/// The hunks that count (pending or accepted) in `ws`'s review.
fn counting(ws: &Workspace) -> BTreeSet<String> {
    ws.review()
        .files()
        .flat_map(|f| f.entries())
        .filter(|e| e.status != Status::Rejected)
        .filter_map(|e| e.hunk_id.clone())
        .collect()
}

/// Step `n`'s rollback to checkpoint `id`, planned first: the plan changes
/// nothing, and says what the rollback then does: refused for the same
/// reason, or exactly the hunks it stops counting and those it brings back.
fn planned_rollback(
    ws: &mut Workspace,
    root: &Path,
    n: usize,
    (id, mode, hunks): (&str, RollbackMode, &[String]),
    shown: &BTreeMap<String, String>,
) -> Result<Result<RollbackReport, WorkspaceError>, TestCaseError> {
    let was = counting(ws);
    let plan = ws.plan_rollback(id, mode, hunks);
    prop_assert_eq!(
        &view(ws, root),
        shown,
        "step {}: planning changed the working state",
        n
    );
    prop_assert_eq!(&counting(ws), &was, "step {}: planning decided", n);
    let rolled = ws.rollback(id, mode, hunks);
    match (&plan, &rolled) {
        (Err(planned), Err(e)) => prop_assert_eq!(planned.to_string(), e.to_string()),
        (Ok(plan), Err(e)) => prop_assert_eq!(
            plan.refused.clone(),
            Some(e.to_string()),
            "step {}: refused unplanned",
            n
        ),
        (Ok(plan), Ok(_)) => {
            prop_assert_eq!(&plan.refused, &None, "step {}: planned a refusal", n);
            let now = counting(ws);
            let went: BTreeSet<String> = was.difference(&now).cloned().collect();
            let came: BTreeSet<String> = now.difference(&was).cloned().collect();
            let planned = |hunks: &[redline::checkpoints::PlannedHunk]| -> BTreeSet<String> {
                hunks.iter().map(|h| h.hunk_id.clone()).collect()
            };
            let mut listed = planned(&plan.dropped);
            listed.extend(planned(&plan.carried));
            prop_assert_eq!(listed, went, "step {}: what the plan said would go", n);
            prop_assert_eq!(
                planned(&plan.restored),
                came,
                "step {}: what it said would come back",
                n
            );
        }
        (Err(e), Ok(_)) => {
            return Err(TestCaseError::fail(format!(
                "step {n}: planning failed: {e}"
            )));
        }
    }
    Ok(rolled)
}

/// After a rollback (`report`) of step `at`: the disk is as it was
/// (`before`), and undoing it, with `undo`, gives back the working state
/// before it (`shown`), paths included.
fn undo_rollback(
    ws: &mut Workspace,
    root: &Path,
    (n, step): (usize, &Step),
    report: &RollbackReport,
    undo: bool,
    before: &BTreeMap<String, String>,
    shown: &BTreeMap<String, String>,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(&disk::texts(root), before, "step {}: a rollback wrote", n);
    if undo {
        if std::env::var_os("REDLINE_MODEL_TRACE").is_some() {
            trace(n, step, ws, root);
            let cp = ws.checkpoint(&report.undo_checkpoint_id).unwrap();
            eprintln!(
                "  undo checkpoint: {:?}",
                cp.affected_files
                    .iter()
                    .map(|f| &f.file_path)
                    .collect::<Vec<_>>()
            );
        }
        ws.rollback(&report.undo_checkpoint_id, RollbackMode::HardAll, &[])
            .map_err(|e| TestCaseError::fail(format!("step {n}: undo: {e}")))?;
        if std::env::var_os("REDLINE_MODEL_TRACE").is_some() {
            trace(n, step, ws, root);
        }
        prop_assert_eq!(&view(ws, root), shown, "step {}: the undo", n);
    }
    Ok(())
}

/// What [`cut_off`] cuts off: it writes, hearing how many files it has
/// written; whether it did all it was asked.
type Act<'a> = dyn Fn(&mut Workspace, &mut dyn FnMut(usize)) -> bool + 'a;

/// Step `n`: `act` (an apply, a Save all) done by a process that dies once
/// `crash` files are written, and opened again, beside a twin of the
/// workspace (a copy of the vault and the store) that does it whole: the
/// working state is the same, and every file on disk is as it was `before`
/// or as the whole act wrote it.
fn cut_off(
    ws: Workspace,
    (root, data): (&Path, &Path),
    n: usize,
    crash: usize,
    before: &BTreeMap<String, String>,
    act: &Act<'_>,
) -> Result<Workspace, TestCaseError> {
    // Closed first, so that the store's files are whole to copy.
    drop(ws);
    // A twin of the workspace acts whole; this one dies once `crash`
    // files are written, and is opened again.
    let twin = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    disk::copy_tree(root, twin.0.path());
    disk::copy_tree(
        &Store::project_dir(data, root),
        &Store::project_dir(twin.1.path(), twin.0.path()),
    );
    let mut whole = open(twin.0.path(), twin.1.path());
    let mut ws = open(root, data);
    let done = act(&mut whole, &mut |_| {});
    let cut = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        act(&mut ws, &mut |written| {
            if written >= crash {
                std::panic::panic_any(Crash);
            }
        })
    }));
    if cut.is_err() {
        drop(ws);
        ws = open(root, data);
    }
    if done {
        prop_assert_eq!(
            view(&ws, root),
            view(&whole, twin.0.path()),
            "step {}: a crash lost or changed what was decided",
            n
        );
        let (now, done) = (disk::texts(root), disk::texts(twin.0.path()));
        for (path, text) in &now {
            prop_assert!(
                before.get(path) == Some(text) || done.get(path) == Some(text),
                "step {}: a crash left {} neither before nor after",
                n,
                path
            );
        }
    }
    Ok(ws)
}

/// Save all as the runtime makes it: the files with unsaved work, one
/// batch; whether every one was written.
fn save_all(ws: &mut Workspace, progress: &mut dyn FnMut(usize)) -> bool {
    let paths = ws.unsaved();
    ws.save_many(&paths, progress)
        .is_ok_and(|saved| saved.iter().all(Result::is_ok))
}

/// What an apply's progress panics with to stand for the process dying.
struct Crash;

/// Keeps a stood-for crash out of the test's output.
fn quiet_crashes() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !info.payload().is::<Crash>() {
                report(info);
            }
        }));
    });
}

/// Drives the workspace through `steps`, checking after each.
fn check(steps: &[Step]) -> Result<(), TestCaseError> {
    walk(steps).map(|_| ())
}

/// [`check`], failing on any refused decision: for a sequence whose
/// decisions the engine once refused.
fn check_unrefused(steps: &[Step]) -> Result<BTreeMap<String, String>, TestCaseError> {
    REFUSED_HERE.set(0);
    let shown = walk(steps)?;
    prop_assert_eq!(REFUSED_HERE.get(), 0, "a decision was refused");
    Ok(shown)
}

/// [`check`], returning what the working state shows at the end.
fn walk(steps: &[Step]) -> Result<BTreeMap<String, String>, TestCaseError> {
    quiet_crashes();
    let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = vault.path();
    std::fs::create_dir_all(root.join("Notes")).unwrap();
    for (i, name) in NOTES.iter().enumerate() {
        std::fs::write(root.join(format!("Notes/{name}.md")), note(i)).unwrap();
    }
    let mut ws = open(root, data.path());
    let mut jobs = 0;
    let mut bundles: Vec<DiffBundle> = Vec::new();
    // The step of the history the model step before made, if it made just
    // one, and the working state before it.
    let mut last_step: Option<(String, BTreeMap<String, String>)> = None;
    // The links the user chose to leave naming a note's old path (as
    // `broken` names them): they may dangle for the rest of the sequence.
    let mut chosen: BTreeSet<String> = BTreeSet::new();
    // The working state before each step of the history a model step made
    // alone: an undone rollback gives back the notes as they were then.
    let mut before_step: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (n, step) in steps.iter().enumerate() {
        // Set by an undo of a rollback: the working state it gives back.
        let mut given_back: Option<&BTreeMap<String, String>> = None;
        let before = disk::texts(root);
        let shown = view(&ws, root);
        let mut writes = false;
        let steps_before: Vec<String> = ws.history().done().map(|s| s.id.clone()).collect();
        STEP.with(|s| *s.borrow_mut() = format!("step {n}: {step:?}"));
        match step {
            Step::Edit { note, line, text } => {
                let Some(path) = shown_at(&shown, *note) else {
                    continue;
                };
                let mut edit = proposed(&path, Operation::Replace);
                edit.start_line = *line + FRONT;
                edit.new_text = text.clone();
                jobs += 1;
                bundles.extend(
                    ws.propose(&run(jobs), &[edit], &HunkLimits::default())
                        .ok()
                        .map(|p| p.1),
                );
            }
            Step::Replace { .. } | Step::Retarget { .. } | Step::Convert { .. } => {
                let op = match step {
                    Step::Replace {
                        word,
                        with,
                        whole_word,
                    } => replace_text(WORDS[*word], with, *whole_word),
                    Step::Retarget { from, to } => {
                        let Some((from, to)) = retarget_paths(&shown, *from, *to) else {
                            continue;
                        };
                        VaultOp::RetargetLinks(RetargetLinks {
                            from,
                            to,
                            scope: Scope::default(),
                        })
                    }
                    Step::Convert { markdown } => VaultOp::ConvertLinks(ConvertLinks {
                        to: Some(if *markdown {
                            LinkStyle::Markdown
                        } else {
                            LinkStyle::Wikilink
                        }),
                        scope: Scope::default(),
                    }),
                    _ => unreachable!(),
                };
                let overlay = ws.overlay();
                let expansion = redline::expand::expand(
                    &View::with(ws.project(), &overlay),
                    &[op],
                    ws.protection(),
                )
                .map_err(|e| TestCaseError::fail(format!("step {n}: {e}")))?;
                if expansion.edits.is_empty() {
                    continue;
                }
                jobs += 1;
                let proposal = ws.propose(&run(jobs), &expansion.edits, &HunkLimits::default());
                let (_, bundle) = proposal
                    .map_err(|e| TestCaseError::fail(format!("step {n}: {step:?}: {e}")))?;
                bundles.push(bundle);
            }
            Step::EachNote { line, text } => {
                jobs += 1;
                let mut job: Option<(String, DiffBundle)> = None;
                for note in 0..NOTES.len() {
                    let Some(path) = shown_at(&shown, note) else {
                        continue;
                    };
                    let mut edit = proposed(&path, Operation::Replace);
                    edit.start_line = *line + FRONT;
                    edit.new_text = text.clone();
                    let into = job.as_ref().map(|(cp, _)| cp.as_str());
                    let Ok((checkpoint, bundle)) =
                        ws.propose_into(&run(jobs), &[edit], &HunkLimits::default(), into)
                    else {
                        continue;
                    };
                    match &mut job {
                        Some((_, so_far)) => so_far.absorb(bundle),
                        None => job = Some((checkpoint.checkpoint_id, bundle)),
                    }
                }
                bundles.extend(job.map(|(_, bundle)| bundle));
            }
            Step::Move { note } => {
                let Some(path) = shown_at(&shown, *note) else {
                    continue;
                };
                let mut edit = proposed(&path, Operation::Move);
                edit.new_path = Some(format!("Archive/{} {n}.md", NOTES[*note]));
                jobs += 1;
                bundles.extend(
                    ws.propose(&run(jobs), &[edit], &HunkLimits::default())
                        .ok()
                        .map(|p| p.1),
                );
            }
            Step::Delete { note } => {
                let Some(path) = shown_at(&shown, *note) else {
                    continue;
                };
                jobs += 1;
                let proposal = ws.propose(
                    &run(jobs),
                    &[proposed(&path, Operation::DeleteFile)],
                    &HunkLimits::default(),
                );
                bundles.extend(proposal.ok().map(|p| p.1));
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
                decided(
                    ws.decide(&pending[pick % pending.len()], status, None)
                        .map(drop),
                );
            }
            Step::Undo { pick } => {
                let finals = final_hunks(&ws);
                if pick % 4 == 0 && !finals.is_empty() {
                    // Not offered; a client that sends it all the same is
                    // refused, with nothing changed.
                    let hunk = &finals[pick / 4 % finals.len()];
                    let refused = ws.decide(hunk, Status::Pending, None);
                    prop_assert!(
                        matches!(
                            refused,
                            Err(WorkspaceError::Review(ReviewError::Settled(_)))
                        ),
                        "step {}: undoing the final {}: {:?}",
                        n,
                        hunk,
                        refused.map(drop)
                    );
                    prop_assert_eq!(view(&ws, root), shown.clone(), "step {}: refused", n);
                    continue;
                }
                let decided_hunks = hunks(&ws, true);
                if decided_hunks.is_empty() {
                    continue;
                }
                let hunk = &decided_hunks[pick % decided_hunks.len()];
                decided(ws.decide(hunk, Status::Pending, None).map(drop));
            }
            Step::LeaveLink { pick } => {
                let updates = link_updates(&ws);
                if updates.is_empty() {
                    continue;
                }
                let decision = ws.decide(&updates[pick % updates.len()], Status::Rejected, None);
                decided(decision.as_ref().map(drop));
                let Ok(decision) = decision else {
                    continue;
                };
                // Every link it leaves dangling is one it says it leaves.
                let now = view(&ws, root);
                let said: BTreeSet<String> = decision
                    .links_left
                    .iter()
                    .filter_map(|l| left_pair(&l.path, &l.from))
                    .collect();
                for link in broken(&shown, &now) {
                    prop_assert!(
                        said.contains(&link),
                        "step {}: {:?} left {} unsaid ({:?})",
                        n,
                        step,
                        link,
                        decision.links_left
                    );
                }
                // Those it says it leaves may dangle from now on, one that
                // was no link to that note before included (a later hunk
                // on the update, rejected with it, had pointed it
                // elsewhere).
                chosen.extend(said);
            }
            Step::Type { note } => {
                let Some(path) = shown_at(&shown, *note) else {
                    continue;
                };
                let text = format!("{}tapé {n} 日本\n", shown[&path]);
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
            Step::SaveOne { note } => {
                let Some(path) = shown_at(&shown, *note) else {
                    continue;
                };
                let key = ws.key_of(&path);
                if ws.review().file(&key).is_none() {
                    continue;
                }
                writes = true;
                let expected = saved(&ws, before.clone());
                if let Ok(tied) = ws.save(&key) {
                    // It and the notes a move ties to it, as their reviews
                    // say; nothing else.
                    let written: Vec<String> = std::iter::once(key).chain(tied).collect();
                    let paths = paths_of(&ws, &written);
                    let now = disk::texts(root);
                    for path in before.keys().chain(now.keys()) {
                        // A note tied to one another program changed is
                        // kept back whole, as it was.
                        let want = if paths.contains(path) {
                            expected.get(path)
                        } else {
                            before.get(path)
                        };
                        prop_assert!(
                            now.get(path) == want || now.get(path) == before.get(path),
                            "step {}: {:?}: {}",
                            n,
                            step,
                            path
                        );
                    }
                }
            }
            Step::DecideRun { pick, accept } => {
                if bundles.is_empty() {
                    continue;
                }
                let bundle = &bundles[pick % bundles.len()];
                let pending: Vec<String> = bundle
                    .hunk_ids()
                    .filter(|h| ws.review().status_of(h) == Some(Status::Pending))
                    .map(str::to_owned)
                    .collect();
                if pending.is_empty() {
                    continue;
                }
                let status = if *accept {
                    Status::Accepted
                } else {
                    Status::Rejected
                };
                decided(ws.decide_many(&pending, status).map(drop));
            }
            Step::AcceptFile { note } => {
                let Some(path) = shown_at(&shown, *note) else {
                    continue;
                };
                let key = ws.key_of(&path);
                let Some(file) = ws.review().file(&key) else {
                    continue;
                };
                let pending: Vec<String> = file
                    .entries()
                    .iter()
                    .filter(|e| e.status == Status::Pending && e.origin.is_reviewed())
                    .filter_map(|e| e.hunk_id.clone())
                    .collect();
                if pending.is_empty() {
                    continue;
                }
                let accepted = ws.accept_all_in_file(&key);
                decided(accepted.as_ref().map(drop));
                // Every hunk of the note it named counts now.
                for hunk in pending.iter().filter(|_| accepted.is_ok()) {
                    prop_assert_eq!(
                        ws.review().status_of(hunk),
                        Some(Status::Accepted),
                        "step {}: {:?}: {} after accepting all in {}",
                        n,
                        step,
                        hunk,
                        key
                    );
                }
            }
            Step::UndoLast { redo } => {
                let Some((step_id, rollback)) = ws
                    .history()
                    .last_done()
                    .map(|s| (s.id.clone(), matches!(s.kind, StepKind::Rollback { .. })))
                else {
                    continue;
                };
                let statuses = statuses_of(&ws);
                let undone = ws.undo_step(None);
                match &undone {
                    // Undoing a rollback, or the undo of one, is a rollback
                    // (to the checkpoint it took first), refused as one.
                    Err(e) if rollback => rollback_refused(e),
                    _ => decided(undone.as_ref().map(drop)),
                }
                let Ok(undone) = undone else {
                    prop_assert_eq!(view(&ws, root), shown.clone(), "step {}: a refused undo", n);
                    continue;
                };
                prop_assert_eq!(&undone.step_id, &step_id);
                // An undo gives back the notes as they were before the step,
                // a link that dangled then included.
                given_back = before_step.get(&step_id);
                if undone.rollback.is_none() {
                    // Exactly what it says it moved moved, nothing else.
                    let now = statuses_of(&ws);
                    for (hunk, was) in &statuses {
                        let moved = undone.moved.iter().find(|m| &m.hunk_id == hunk);
                        let want = moved.map_or(*was, |m| m.to);
                        prop_assert_eq!(
                            now.get(hunk),
                            Some(&want),
                            "step {}: {} after the undo of {}",
                            n,
                            hunk,
                            step_id
                        );
                    }
                }
                // Right after the step it takes back, the working state is
                // as it was before that step.
                if let Some((_, was)) = last_step.as_ref().filter(|(id, _)| *id == step_id) {
                    prop_assert_eq!(&view(&ws, root), was, "step {}: the undo of {}", n, step_id);
                }
                if *redo && undone.rollback.is_none() {
                    decided(ws.redo_step(Some(&step_id)).map(drop));
                    // Every hunk as before the undo; a link update the
                    // undo staged (a link following a move it brought
                    // back) is taken back with it.
                    let mut now = statuses_of(&ws);
                    now.retain(|hunk, status| {
                        statuses.contains_key(hunk) || *status != Status::Rejected
                    });
                    prop_assert_eq!(now, statuses, "step {}: redo", n);
                    prop_assert_eq!(view(&ws, root), shown.clone(), "step {}: redo", n);
                }
            }
            Step::SaveAll { crash } => {
                writes = true;
                if let Some(crash) = crash {
                    ws = cut_off(ws, (root, data.path()), n, *crash, &before, &save_all)?;
                } else {
                    let expected = saved(&ws, before.clone());
                    if save_all(&mut ws, &mut |_| {}) {
                        prop_assert_eq!(disk::texts(root), expected, "step {}: {:?}", n, step);
                    }
                }
            }
            Step::Outside { note, review } => {
                let Some((path, text)) = before.iter().find(|(_, t)| is_note(t, *note)) else {
                    continue;
                };
                let after = format!("{text}dehors {n} — «ok»\n");
                std::fs::write(root.join(path), &after).unwrap();
                // As the runtime takes a burst in: hunks where the mode and
                // the note allow, else reloaded or a conflict.
                let change = OutsideChange {
                    path: path.clone(),
                    before: text.clone(),
                    created: false,
                    after: Some(after),
                    moved_to: None,
                };
                jobs += 1;
                let staged = *review
                    && ws.takes_outside(path)
                    && ws
                        .stage_outside(&run(jobs), &[change], OutsideMode::Review)
                        .map_err(|e| TestCaseError::fail(format!("step {n}: {e}")))?
                        .is_some();
                if !staged {
                    let _ = ws.external_change(path);
                }
                writes = true;
            }
            Step::AgentWrite { note } => {
                // The hook answered with what a save of the note writes,
                // and the agent wrote it: only over the bytes Redline knows
                // there (the hook refuses otherwise) and where the note is.
                let Some(path) = shown_at(&shown, *note) else {
                    continue;
                };
                let Some(file) = ws.review().file_of(&path) else {
                    continue;
                };
                let at = file.path.clone();
                let text = ws.review().disk_view(file);
                let known = ws.project().disk_hash(&at).ok().flatten() == file.disk_hash;
                if file.op().is_some() || !known || before.get(&at) == Some(&text) {
                    continue;
                }
                std::fs::write(root.join(&at), &text).unwrap();
                let change = ws.external_change(&at);
                writes = true;
                // Taken as a save: nothing shown changes, nothing conflicts,
                // and a save has nothing more to write there.
                prop_assert!(
                    matches!(change, Ok(Some(FileChange::Reloaded { .. }))),
                    "step {}: {:?}: {:?}",
                    n,
                    step,
                    change
                );
                prop_assert_eq!(view(&ws, root), shown.clone(), "step {}: {:?}", n, step);
                let now = disk::texts(root);
                let kept = saved(&ws, now.clone());
                prop_assert_eq!(kept.get(&at), now.get(&at), "step {}: {:?}", n, step);
            }
            Step::Rollback { pick, undo } => {
                let runs = run_checkpoints(&ws);
                if runs.is_empty() {
                    continue;
                }
                let id = &runs[pick % runs.len()];
                let rolled =
                    planned_rollback(&mut ws, root, n, (id, RollbackMode::HardAll, &[]), &shown)?;
                let report = match rolled {
                    Ok(report) => report,
                    // A move saved and moved on since cannot be taken back:
                    // refused, with nothing changed.
                    Err(
                        e @ (WorkspaceError::Review(ReviewError::Settled(_))
                        | WorkspaceError::LinksLeftBehind { .. }
                        | WorkspaceError::MovedSince { .. }),
                    ) => {
                        rollback_refused(&e);
                        prop_assert_eq!(view(&ws, root), shown.clone(), "step {}: refused", n);
                        continue;
                    }
                    Err(e) => return Err(TestCaseError::fail(format!("step {n}: {step:?}: {e}"))),
                };
                undo_rollback(&mut ws, root, (n, step), &report, *undo, &before, &shown)?;
            }
            Step::Scoped { pick, hunk, undo } => {
                let runs = run_checkpoints(&ws);
                if runs.is_empty() {
                    continue;
                }
                let checkpoint = ws.checkpoint(&runs[pick % runs.len()]).unwrap();
                // The run's hunks the window offers to revert: those the
                // engine says stand somewhere now (not one a hard rollback
                // dropped, nor a final one).
                let listed: Vec<String> = checkpoint
                    .affected_files
                    .iter()
                    .flat_map(|f| f.hunk_ids.iter().zip(&f.hunks_now))
                    .filter(|(_, now)| now.is_some())
                    .map(|(h, _)| h.clone())
                    .collect();
                if listed.is_empty() {
                    continue;
                }
                let chosen = listed[hunk % listed.len()].clone();
                let scoped = (
                    checkpoint.checkpoint_id.as_str(),
                    RollbackMode::ScopedSelected,
                    std::slice::from_ref(&chosen),
                );
                let rolled = planned_rollback(&mut ws, root, n, scoped, &shown)?;
                let report = match rolled {
                    Ok(report) => report,
                    // A hunk gone from review (dropped by a hard rollback)
                    // or settled: refused, with nothing changed.
                    Err(e) => {
                        rollback_refused(&e);
                        prop_assert_eq!(view(&ws, root), shown.clone(), "step {}: refused", n);
                        continue;
                    }
                };
                prop_assert_eq!(
                    ws.review().status_of(&chosen),
                    Some(Status::Rejected),
                    "step {}: the hunk rolled back",
                    n
                );
                undo_rollback(&mut ws, root, (n, step), &report, *undo, &before, &shown)?;
            }
            Step::Apply {
                pick,
                accept,
                crash,
            } => {
                if bundles.is_empty() {
                    continue;
                }
                let bundle = bundles[pick % bundles.len()].clone();
                // A link update goes as its move goes (rejecting one alone
                // is the user leaving that link as it is).
                let leaders = |h: &str| {
                    let (path, i) = ws.review().find_hunk(h).ok()?;
                    let entry = &ws.review().file(&path)?.entries()[i];
                    let follows: Vec<String> = entry.leaders().cloned().collect();
                    (!follows.is_empty()).then_some(follows)
                };
                let mut accepted: Vec<String> = bundle
                    .hunk_ids()
                    .filter(|h| leaders(h).is_none())
                    .enumerate()
                    .filter(|(k, _)| accept >> (k % 8) & 1 == 1)
                    .map(|(_, h)| h.to_owned())
                    .collect();
                let followers: Vec<String> = bundle
                    .hunk_ids()
                    .filter(|h| leaders(h).is_some_and(|l| l.iter().any(|l| accepted.contains(l))))
                    .map(str::to_owned)
                    .collect();
                accepted.extend(followers);
                writes = true;
                if let Some(crash) = crash {
                    let act = |ws: &mut Workspace, progress: &mut dyn FnMut(usize)| {
                        ws.apply(&bundle, &accepted, progress).is_ok()
                    };
                    ws = cut_off(ws, (root, data.path()), n, *crash, &before, &act)?;
                } else {
                    // Its decisions are never refused (a settled hunk stays
                    // as it is).
                    let applied = ws.apply(&bundle, &accepted, &mut |_| {});
                    decided(applied.as_ref().map(drop));
                    if let Ok(applied) = applied {
                        // The files it saved (one moved since is not the bundle's).
                        let written: Vec<String> = applied
                            .iter()
                            .filter(|f| f.status == "applied")
                            .map(|f| f.file_path.clone())
                            .collect();
                        let now = disk::texts(root);
                        let kept = saved(&ws, now.clone());
                        for path in paths_of(&ws, &written) {
                            prop_assert_eq!(
                                now.get(&path),
                                kept.get(&path),
                                "step {}: {:?} left {} unlike its review",
                                n,
                                step,
                                path
                            );
                        }
                    }
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
                &disk::texts(root),
                &before,
                "step {}: {:?} wrote to disk",
                n,
                step
            );
        }
        if std::env::var_os("REDLINE_MODEL_TRACE").is_some() {
            trace(n, step, &ws, root);
        }
        // One note a path: the review finds each note where it is shown.
        for file in ws.review().files() {
            if let Some(at) = file.view_path() {
                prop_assert_eq!(
                    ws.review().file_at(at).map(|f| &f.path),
                    Some(&file.path),
                    "step {}: {:?}: the note shown at {} is not found there",
                    n,
                    step,
                    at
                );
            }
        }
        let now = view(&ws, root);
        let mut left = broken(&shown, &now);
        left.retain(|l| !chosen.contains(l));
        if let Some(then) = given_back {
            // A link that dangled before the step an undo takes back (a
            // rollback, a decision) may dangle again after it: the notes
            // are given back as they were.
            let then = broken(then, &now);
            left.retain(|l| then.contains(l));
        }
        prop_assert!(left.is_empty(), "step {}: {:?} broke {:?}", n, step, left);
        let made: Vec<String> = ws
            .history()
            .done()
            .map(|s| s.id.clone())
            .filter(|id| !steps_before.contains(id))
            .collect();
        last_step = match (made.as_slice(), step) {
            ([one], _) => Some((one.clone(), shown.clone())),
            _ => None,
        };
        if let [one] = made.as_slice() {
            before_step.insert(one.clone(), shown.clone());
        }
        // What Redline writes never breaks a link on disk either: a note's
        // move is written with the notes whose links follow it.
        if matches!(
            step,
            Step::Save | Step::SaveAll { .. } | Step::Apply { .. } | Step::SaveOne { .. }
        ) {
            let mut left = broken(&before, &disk::texts(root));
            left.retain(|l| !chosen.contains(l));
            prop_assert!(
                left.is_empty(),
                "step {}: {:?} broke on disk {:?}",
                n,
                step,
                left
            );
        }
    }
    Ok(view(&ws, root))
}

/// Prints the working state after step `n`: what each note shows and every
/// hunk with its status and the moves it follows.
fn trace(n: usize, step: &Step, ws: &Workspace, root: &Path) {
    eprintln!("--- step {n}: {step:?}");
    for (path, text) in view(ws, root) {
        // The lines that link: what the link checks read.
        let links: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("[[") || l.contains("]("))
            .collect();
        eprintln!("  {path}: {links:?}");
    }
    for (path, text) in disk::texts(root) {
        let links: Vec<&str> = text.lines().filter(|l| l.contains("[[")).collect();
        eprintln!("  disk {path}: {links:?}");
    }
    for id in run_checkpoints(ws) {
        let files = ws
            .checkpoint(&id)
            .map(|c| c.affected_files)
            .unwrap_or_default();
        let files: Vec<&str> = files.iter().map(|f| f.file_path.as_str()).collect();
        eprintln!("  checkpoint {id}: {files:?}");
    }
    for file in ws.review().files() {
        let op = file.op().map(|op| format!("{:?} done={}", op.op, op.done));
        eprintln!("  file {} {}", file.path, op.unwrap_or_default());
        let past: Vec<(&str, &str)> = file
            .moved_from()
            .map(|p| (p.path.as_str(), p.hunk_id.as_str()))
            .collect();
        let log: Vec<(Option<&str>, Status)> = file
            .entries()
            .iter()
            .map(|e| (e.hunk_id.as_deref(), e.status))
            .collect();
        eprintln!("    log {log:?} moved from {past:?}");
        if ws.file_content(&file.path).is_err() {
            // Not shown under its key (moved, or gone): its entries as kept.
            for e in file.entries() {
                eprintln!("    {:?} {:?} follows {:?}", e.hunk_id, e.status, e.follows);
            }
        }
        // Each hunk as the editor lists it: what it was written on and
        // what it follows.
        for h in ws
            .file_content(&file.path)
            .map(|c| c.hunks)
            .unwrap_or_default()
        {
            eprintln!(
                "    {} {:?} {:?} on {:?} follows {:?} needs {:?}",
                h.hunk_id, h.job_id, h.status, h.old_text, h.follows, h.depends_on
            );
        }
    }
}

/// Steps checked so far, for the explore run's figure.
static STEPS: AtomicUsize = AtomicUsize::new(0);

/// Decisions made (one hunk, a run's at once, an undo or redo) and those
/// refused, for the explore run's figures: the goal is none refused.
static DECISIONS: AtomicUsize = AtomicUsize::new(0);
static REFUSED: AtomicUsize = AtomicUsize::new(0);

/// Rollbacks refused (a rollback to before a later saved move of the same
/// note, a hunk no longer under review), counted apart from decisions.
static ROLLBACKS_REFUSED: AtomicUsize = AtomicUsize::new(0);

/// Counts a rollback refused.
fn rollback_refused(e: &WorkspaceError) {
    ROLLBACKS_REFUSED.fetch_add(1, Ordering::Relaxed);
    if std::env::var_os("REDLINE_MODEL_REFUSALS").is_some() {
        STEP.with(|step| eprintln!("rollback refused: {e} ({})", step.borrow()));
    }
    // One to before a later saved move of the same note is the design's.
    if matches!(
        e,
        WorkspaceError::MovedSince { .. } | WorkspaceError::Review(ReviewError::Settled(_))
    ) {
        return;
    }
    REFUSED_HERE.set(REFUSED_HERE.get() + 1);
    if std::env::var_os("REDLINE_MODEL_STRICT").is_some() {
        panic!("rollback refused: {e}");
    }
}

thread_local! {
    /// The step being checked, for a refusal's print.
    static STEP: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    /// Decisions refused on this thread (see [`check_unrefused`]).
    static REFUSED_HERE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts a decision and whether it was refused.
fn decided<E: std::fmt::Display>(outcome: Result<(), E>) {
    DECISIONS.fetch_add(1, Ordering::Relaxed);
    if let Err(e) = outcome {
        REFUSED.fetch_add(1, Ordering::Relaxed);
        REFUSED_HERE.set(REFUSED_HERE.get() + 1);
        if std::env::var_os("REDLINE_MODEL_REFUSALS").is_some() {
            STEP.with(|step| eprintln!("refused: {e} ({})", step.borrow()));
        }
        // A refusal as a failure, for the sequence it shrinks to.
        if std::env::var_os("REDLINE_MODEL_STRICT").is_some() {
            panic!("refused: {e}");
        }
    }
}

/// The status of every hunk under review.
fn statuses_of(ws: &Workspace) -> BTreeMap<String, Status> {
    ws.review()
        .files()
        .flat_map(|f| f.entries())
        .filter_map(|e| Some((e.hunk_id.clone()?, e.status)))
        .collect()
}

/// Random sequences of up to 40 steps, checked after every step. CI runs a
/// pinned slice (200 sequences, one seed); `REDLINE_EXPLORE_CASES=N` runs
/// N sequences from a new seed and prints how many steps they took
/// (`scripts/explore model`). A failure prints the sequence it shrank to and
/// keeps it in `proptest-regressions/model.txt`, which every run replays
/// first; each becomes a named test below.
#[test]
fn every_sequence_keeps_the_disk_the_links_and_the_undo() {
    let explore = std::env::var("REDLINE_EXPLORE_CASES")
        .ok()
        .and_then(|n| n.parse().ok());
    let config = ProptestConfig {
        cases: explore.unwrap_or(200),
        rng_seed: match explore {
            Some(_) => RngSeed::Random,
            None => RngSeed::Fixed(0x5eed_0039),
        },
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/model.txt",
        ))),
        ..ProptestConfig::default()
    };
    let mut runner = TestRunner::new(config);
    let started = std::time::Instant::now();
    let sequences = AtomicUsize::new(0);
    let result = runner.run(&proptest::collection::vec(step(), 1..40), |steps| {
        let total = STEPS.fetch_add(steps.len(), Ordering::Relaxed) + steps.len();
        // An explore run says how far it got as it goes.
        if explore.is_some() && sequences.fetch_add(1, Ordering::Relaxed) % 1000 == 999 {
            eprintln!(
                "explored {} sequences, {total} steps, {} s; {} decisions, {} refused",
                sequences.load(Ordering::Relaxed),
                started.elapsed().as_secs(),
                DECISIONS.load(Ordering::Relaxed),
                REFUSED.load(Ordering::Relaxed)
            );
        }
        check(&steps)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    eprintln!(
        "explored {} sequences, {} steps; {} decisions, {} refused; {} rollbacks refused",
        explore.unwrap_or(200),
        STEPS.load(Ordering::Relaxed),
        DECISIONS.load(Ordering::Relaxed),
        REFUSED.load(Ordering::Relaxed),
        ROLLBACKS_REFUSED.load(Ordering::Relaxed)
    );
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
        Step::Outside {
            note: 0,
            review: false,
        },
        Step::Save,
    ])
    .unwrap();
}

/// A move's rejection undone after its undo step was lost (a rollback and
/// its undo came between) brings back the link updates rejected with it.
#[test]
fn a_move_brought_back_without_its_step_brings_its_links() {
    check(&[
        edit(3, 3),
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Move { note: 0 },
        Step::Move { note: 1 },
        Step::Rollback {
            pick: 1575194688810855325,
            undo: false,
        },
        Step::Move { note: 0 },
        Step::Decide {
            pick: 4,
            accept: false,
        },
        edit(0, 5),
        Step::Decide {
            pick: 244906171095081110,
            accept: true,
        },
        Step::Rollback {
            pick: 12927187660931746131,
            undo: true,
        },
        Step::Undo {
            pick: 999030423520209411,
        },
    ])
    .unwrap();
}

/// A rejected move whose note was moved again since is final: undoing its
/// rejection would bring back link updates to a path nothing is at.
#[test]
fn a_move_replaced_by_a_later_one_stays_decided() {
    check(&[
        Step::Move { note: 0 },
        edit(0, 3),
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Type { note: 0 },
        Step::Move { note: 0 },
        edit(0, 3),
        Step::Undo { pick: 0 },
    ])
    .unwrap();
}

/// A move saved, then rejected, then rolled back and the rollback undone:
/// the note is shown at one path, not at its old path and its target both.
#[test]
fn undoing_a_rollback_of_a_saved_move_shows_the_note_once() {
    check(&[
        Step::Move { note: 0 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::Save,
        Step::Undo { pick: 0 },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Rollback {
            pick: 0,
            undo: true,
        },
        Step::Save,
    ])
    .unwrap();
}

/// Rejecting an edit brings back a link to a note whose move is rejected
/// later: bringing that move back would leave the link behind, and is
/// refused.
#[test]
fn a_move_that_would_leave_a_link_behind_is_not_brought_back() {
    check(&[
        edit(1, 3),
        edit(0, 3),
        Step::Edit {
            note: 0,
            line: 3,
            text: "b".into(),
        },
        Step::Move { note: 2 },
        Step::Decide {
            pick: 4456477373298519012,
            accept: false,
        },
        Step::Decide {
            pick: 6183724818921755063,
            accept: false,
        },
        Step::Undo {
            pick: 4389362219426363023,
        },
    ])
    .unwrap();
}

/// A note deleted by a save, its deletion then undone: a restart writes
/// nothing back (the save's record of its write was settled).
#[test]
fn a_restart_after_a_saved_deletion_writes_nothing() {
    check(&[
        Step::Type { note: 2 },
        Step::Delete { note: 2 },
        Step::Save,
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::Save,
        Step::Undo { pick: 0 },
        edit(0, 3),
        Step::Restart,
    ])
    .unwrap();
}

/// A note moved, saved and moved again, then rolled back to before an edit
/// of it: its hunks are stored once, under the path it is put back at.
#[test]
fn a_rollback_of_a_note_moved_twice_stores_it_once() {
    check(&[
        Step::Move { note: 3 },
        edit(3, 3),
        Step::Decide {
            pick: 3153133792945656080,
            accept: true,
        },
        Step::Save,
        Step::Move { note: 3 },
        Step::Rollback {
            pick: 660023767519328386,
            undo: false,
        },
    ])
    .unwrap();
}

/// Entries a rollback dropped come back from a checkpoint after a restart
/// without clashing with entries made since: ids are never issued twice.
#[test]
fn entry_ids_are_not_reused_after_a_restart() {
    check(&[
        edit(0, 3),
        edit(0, 3),
        edit(1, 3),
        Step::Delete { note: 2 },
        Step::Type { note: 1 },
        edit(1, 3),
        Step::Delete { note: 1 },
        Step::Delete { note: 1 },
        Step::Delete { note: 1 },
        edit(1, 3),
        Step::Rollback {
            pick: 15396608193012131715,
            undo: false,
        },
        Step::Save,
        Step::Restart,
        Step::Delete { note: 0 },
        edit(1, 3),
        Step::Rollback {
            pick: 5876268846313954266,
            undo: false,
        },
    ])
    .unwrap();
}

/// A rollback that brings a move back while a note it restores links to
/// the note's old path rejects the move; undoing a rollback still gives
/// back exactly what was.
#[test]
fn a_rollback_rejects_a_move_that_would_leave_a_link_behind() {
    check(&[
        Step::Delete { note: 0 },
        Step::Delete { note: 3 },
        edit(0, 3),
        Step::Undo { pick: 0 },
        Step::Move { note: 1 },
        edit(0, 3),
        Step::Move { note: 2 },
        Step::Rollback {
            pick: 1227046654381505823,
            undo: false,
        },
        edit(0, 4),
        Step::Delete { note: 1 },
        Step::Undo { pick: 0 },
        Step::Decide {
            pick: 7007191707427184109,
            accept: false,
        },
        Step::Rollback {
            pick: 10894864884886004806,
            undo: false,
        },
    ])
    .unwrap();
    check(&[
        Step::Move { note: 2 },
        edit(3, 3),
        Step::Move { note: 0 },
        Step::Decide {
            pick: 2780112247594422442,
            accept: false,
        },
        Step::Rollback {
            pick: 5020763122818915206,
            undo: true,
        },
    ])
    .unwrap();
}

/// A rollback that would drop the link update of a move saved and moved
/// again since is refused, with nothing changed.
#[test]
fn a_rollback_cannot_take_back_a_move_that_moved_on() {
    check(&[
        edit(2, 4),
        Step::Move { note: 0 },
        Step::Decide {
            pick: 1855436590873969973,
            accept: true,
        },
        edit(0, 3),
        Step::Save,
        Step::Move { note: 0 },
        Step::Rollback {
            pick: 7393595750524685903,
            undo: false,
        },
    ])
    .unwrap();
}

/// A rollback that brings back a note with a link update rejected while
/// its move, in a note it leaves alone, still counts: the move goes.
#[test]
fn a_rollback_that_brings_back_a_rejected_link_update_takes_its_move() {
    check(&[
        Step::Move { note: 2 },
        edit(0, 3),
        Step::Decide {
            pick: 6506366232981279199,
            accept: false,
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Delete { note: 1 },
        edit(0, 3),
        Step::Undo {
            pick: 7609448781108107124,
        },
        Step::Decide {
            pick: 11874741598781705401,
            accept: false,
        },
        Step::Rollback {
            pick: 13699116785803231861,
            undo: false,
        },
    ])
    .unwrap();
}

/// A rollback that rejects a move on its way (its link update was
/// dropped) and is then undone gives back the move and its link updates:
/// the undo checkpoint holds every file the rollback changed.
#[test]
fn undoing_a_rollback_brings_back_a_move_it_rejected_on_its_way() {
    check(&[
        edit(1, 3),
        Step::Move { note: 0 },
        Step::Decide {
            pick: 7682743042878576397,
            accept: false,
        },
        Step::Type { note: 0 },
        edit(2, 3),
        Step::Undo { pick: 0 },
        edit(0, 3),
        edit(0, 3),
        Step::Rollback {
            pick: 18188201778657662947,
            undo: true,
        },
    ])
    .unwrap();
}

/// A rollback's own decisions (link updates of a move it took away) are
/// undone by its undo checkpoint, never by undoing a hunk they touched.
#[test]
fn undoing_a_hunk_after_a_rollback_never_undoes_the_rollback_in_part() {
    check(&[
        edit(0, 3),
        Step::Move { note: 0 },
        Step::Move { note: 2 },
        edit(1, 3),
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Move { note: 1 },
        edit(0, 4),
        Step::Rollback {
            pick: 15029256375762211395,
            undo: false,
        },
        Step::Undo {
            pick: 3824325707900823055,
        },
    ])
    .unwrap();
}

/// Undoing a rollback that put a note moved twice back under its first
/// path drops nothing of it: what the undo keeps under one path is not lost
/// under the other, so the link updates of its first move stay.
#[test]
fn undoing_a_rollback_of_a_note_moved_twice_keeps_its_first_moves_links() {
    check(&[
        edit(0, 3),
        Step::Rollback {
            pick: 0,
            undo: false,
        },
        edit(0, 3),
        Step::Decide {
            pick: 0,
            accept: false,
        },
        edit(0, 3),
        Step::Decide {
            pick: 0,
            accept: false,
        },
        edit(0, 3),
        Step::Move { note: 3 },
        edit(3, 3),
        Step::Decide {
            pick: 5434586152226341945,
            accept: true,
        },
        edit(1, 3),
        Step::Save,
        Step::Move { note: 3 },
        Step::Rollback {
            pick: 2980841166747632394,
            undo: true,
        },
    ])
    .unwrap();
}

/// A rollback to a time a move was rejected, made after its rejection was
/// undone, rejects its link updates in the notes it leaves alone too.
#[test]
fn a_rollback_to_a_rejected_move_takes_its_links_in_other_notes() {
    check(&[
        Step::Move { note: 0 },
        edit(0, 3),
        Step::Delete { note: 1 },
        Step::Move { note: 0 },
        Step::Rollback {
            pick: 3441722139403497581,
            undo: false,
        },
        edit(0, 3),
        Step::Move { note: 0 },
        Step::Decide {
            pick: 5217113890432755470,
            accept: false,
        },
        edit(0, 3),
        edit(0, 3),
        Step::Undo { pick: 0 },
        edit(0, 3),
        edit(2, 3),
        Step::Rollback {
            pick: 6460181249213105165,
            undo: false,
        },
    ])
    .unwrap();
}

/// A note moved, saved, moved again and rolled back twice, the second
/// rollback undone: the note is shown once, where the disk has it, and a
/// run that changed nothing in it still finds it under its new path.
#[test]
fn undoing_a_rollback_of_a_note_moved_on_shows_it_once_where_it_is() {
    check(&[
        Step::Move { note: 0 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        edit(0, 3),
        edit(0, 3),
        Step::Save,
        edit(0, 3),
        Step::Move { note: 0 },
        Step::Rollback {
            pick: 46386451313078279,
            undo: false,
        },
        edit(0, 3),
        Step::Rollback {
            pick: 10371928485212384353,
            undo: true,
        },
    ])
    .unwrap();
}

/// A rollback to a run that changed nothing in a note moved since finds
/// the note by its logged hunks: it is stored once.
#[test]
fn a_rollback_to_a_run_that_changed_nothing_in_a_moved_note_stores_it_once() {
    check(&[
        Step::Move { note: 0 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        edit(0, 3),
        edit(0, 3),
        Step::Save,
        edit(0, 3),
        Step::Move { note: 0 },
        Step::Rollback {
            pick: 7163972773458886,
            undo: false,
        },
    ])
    .unwrap();
}

/// A hunk carried within its file by a move's rejection (it rewrote a link
/// update's line) undoes the whole decision: the link update never comes
/// back without its move.
#[test]
fn undoing_a_hunk_carried_with_a_move_undoes_the_move_too() {
    check(&[
        Step::Move { note: 0 },
        edit(2, 3),
        edit(0, 3),
        Step::Edit {
            note: 0,
            line: 3,
            text: "b".into(),
        },
        edit(0, 3),
        Step::Decide {
            pick: 5485951341992069345,
            accept: false,
        },
        Step::Undo {
            pick: 2782305009803112973,
        },
        Step::Rollback {
            pick: 0,
            undo: true,
        },
    ])
    .unwrap();
}

/// After a restart (no undo steps), undoing a hunk that stands on a link
/// update brings back the link update's move, and the move its other link
/// updates: nothing counts without what it goes with.
#[test]
fn undoing_after_a_restart_brings_back_a_link_update_with_its_move() {
    check(&[
        Step::Move { note: 1 },
        edit(0, 3),
        Step::Decide {
            pick: 4766815204246944582,
            accept: false,
        },
        Step::Restart,
        Step::Undo {
            pick: 15830736606165775817,
        },
        Step::Rollback {
            pick: 0,
            undo: true,
        },
    ])
    .unwrap();
}

/// A move retired by a second move of the same note, a rejection between,
/// then an undo: no link the working state resolved is left behind.
#[test]
fn undoing_after_a_note_moved_twice_leaves_no_link_behind() {
    check(&[
        edit(0, 4),
        Step::Move { note: 1 },
        edit(3, 3),
        Step::Edit {
            note: 0,
            line: 4,
            text: "b".into(),
        },
        Step::Decide {
            pick: 7283414013258979429,
            accept: false,
        },
        Step::Move { note: 1 },
        Step::Undo {
            pick: 52111064654579123,
        },
    ])
    .unwrap();
}

/// A scoped rollback of one link update takes its move with it, and the
/// move its other link updates: rolled back alone, it would leave the link
/// behind.
#[test]
fn a_scoped_rollback_of_a_link_update_takes_its_move() {
    for hunk in 0..3 {
        check(&[
            Step::Move { note: 0 },
            Step::Scoped {
                pick: 0,
                hunk,
                undo: true,
            },
            Step::Scoped {
                pick: 0,
                hunk,
                undo: false,
            },
            Step::Save,
        ])
        .unwrap();
    }
}

/// A run applied by a process that dies after its first write, opened
/// again: the working state is what the whole apply decided, and every
/// file on disk is as it was before or as the apply wrote it.
#[test]
fn an_apply_cut_off_by_a_crash_loses_nothing() {
    for crash in 0..3 {
        check(&[
            edit(0, 3),
            edit(1, 3),
            Step::Move { note: 2 },
            Step::Type { note: 1 },
            Step::Apply {
                pick: 0,
                accept: 0b11,
                crash: Some(crash),
            },
            Step::Apply {
                pick: 2,
                accept: 0b1,
                crash: Some(crash),
            },
            Step::Save,
            Step::Restart,
        ])
        .unwrap();
    }
}

/// A move dropped by a rollback, its run then applied, and a rollback
/// undone: no link is left pointing at where the note never went.
#[test]
fn applying_a_run_a_rollback_dropped_moves_nothing() {
    check(&[
        Step::Delete { note: 0 },
        Step::Rollback {
            pick: 0,
            undo: false,
        },
        Step::Move { note: 0 },
        Step::Rollback {
            pick: 1,
            undo: false,
        },
        Step::Apply {
            pick: 1,
            accept: 1,
            crash: None,
        },
        Step::Rollback {
            pick: 1854209228646427904,
            undo: true,
        },
    ])
    .unwrap();
}

/// A note moved, saved, deleted and rolled back twice: the second rollback
/// leaves no link behind.
#[test]
fn a_second_rollback_after_a_saved_move_leaves_no_link_behind() {
    check(&[
        Step::Move { note: 0 },
        Step::Move { note: 2 },
        Step::Decide {
            pick: 3624714760721448013,
            accept: true,
        },
        edit(0, 3),
        Step::Save,
        Step::Delete { note: 2 },
        Step::Rollback {
            pick: 9001254115809762222,
            undo: false,
        },
        edit(0, 3),
        edit(0, 3),
        edit(2, 3),
        Step::Rollback {
            pick: 1600201927367533493,
            undo: false,
        },
    ])
    .unwrap();
}

/// A run applied after its link update was carried away by a later edit's
/// decision: the apply does not keep the move without its link update.
#[test]
fn an_apply_never_keeps_a_move_without_its_link_update() {
    check(&[
        Step::Move { note: 1 },
        edit(0, 3),
        edit(0, 3),
        Step::Edit {
            note: 0,
            line: 3,
            text: "b".into(),
        },
        Step::Scoped {
            pick: 483443626199455834,
            hunk: 0,
            undo: false,
        },
        Step::Type { note: 0 },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Apply {
            pick: 8181017619410017657,
            accept: 49,
            crash: None,
        },
    ])
    .unwrap();
}

/// A move proposed after an apply of a run whose hunks stood on another
/// program's reviewed write, then a rollback: no link is left behind.
#[test]
fn a_rollback_after_an_apply_over_reviewed_outside_writes_leaves_no_link_behind() {
    check(&[
        Step::Move { note: 0 },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        edit(0, 3),
        Step::Decide {
            pick: 0,
            accept: false,
        },
        edit(0, 3),
        Step::Outside {
            note: 1,
            review: true,
        },
        Step::Edit {
            note: 2,
            line: 4,
            text: "a".into(),
        },
        Step::Undo {
            pick: 8303374090625255226,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "b".into(),
        },
        Step::Apply {
            pick: 2026913720781304227,
            accept: 43,
            crash: None,
        },
        Step::Decide {
            pick: 18220249087272731492,
            accept: true,
        },
        Step::Save,
        edit(0, 3),
        Step::Move { note: 0 },
        Step::Rollback {
            pick: 14021933907598293643,
            undo: false,
        },
    ])
    .unwrap();
}

/// A note moved twice, the second move's run applied after a rollback
/// dropped the move: the apply saves the files it can (the note's review
/// is under another path now) as the review says.
#[test]
fn an_apply_after_a_rollback_of_a_second_move_leaves_what_the_review_says() {
    check(&[
        Step::Move { note: 3 },
        edit(3, 3),
        edit(0, 3),
        Step::Apply {
            pick: 317706368024051589,
            accept: 133,
            crash: None,
        },
        Step::Move { note: 3 },
        edit(3, 3),
        edit(0, 3),
        edit(0, 3),
        Step::Rollback {
            pick: 13099628649326674621,
            undo: false,
        },
        Step::Apply {
            pick: 11273377660959473377,
            accept: 0,
            crash: None,
        },
    ])
    .unwrap();
}

/// Stacked edits of one line around a rollback, one undone, then a
/// rollback undone: the undo gives back exactly what was shown.
#[test]
fn undoing_a_rollback_after_an_undone_stacked_edit_gives_back_what_was_shown() {
    check(&[
        edit(1, 3),
        Step::Move { note: 1 },
        edit(0, 3),
        Step::Rollback {
            pick: 1286678558888209580,
            undo: false,
        },
        edit(0, 3),
        edit(0, 3),
        Step::Undo { pick: 0 },
        Step::Rollback {
            pick: 10411622903500186280,
            undo: true,
        },
    ])
    .unwrap();
}

/// Three notes moved, one move rejected and its note moved again, an edit
/// standing on a link update accepted and saved, then a rollback: no link
/// is left behind.
#[test]
fn a_rollback_after_a_saved_link_update_of_a_moved_again_note_leaves_no_link_behind() {
    check(&[
        Step::Move { note: 1 },
        Step::Move { note: 3 },
        Step::Move { note: 2 },
        Step::Decide {
            pick: 16948829015499462171,
            accept: false,
        },
        Step::Move { note: 1 },
        edit(0, 3),
        Step::Decide {
            pick: 1397960347717106840,
            accept: true,
        },
        Step::Save,
        Step::Rollback {
            pick: 5711745305455482777,
            undo: false,
        },
    ])
    .unwrap();
}

/// A note's move rejected, then accepted and saved, and the note moved on
/// and saved again; a rollback to a run before the first move was accepted
/// puts the note back where it was: the first move's link updates, accepted
/// and saved since, go back with it, and no link is left behind.
#[test]
fn a_rollback_to_before_a_move_was_accepted_takes_its_saved_link_updates_back() {
    check(&[
        Step::Move { note: 2 },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        edit(2, 3),
        edit(0, 3),
        Step::Apply {
            pick: 10352260977025899726,
            accept: 55,
            crash: None,
        },
        Step::Move { note: 2 },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Decide {
            pick: 2631755571708135901,
            accept: true,
        },
        Step::Save,
        edit(0, 3),
        Step::Rollback {
            pick: 1481956324618757723,
            undo: false,
        },
    ])
    .unwrap();
}

/// A retarget rejected, its note's target moved, then the rejection undone:
/// the retarget's links name the note's old path, and no link update of the
/// move follows them, so the undo takes the move back with it (it was
/// refused before the rule across notes carried).
#[test]
fn undoing_a_rejection_that_would_link_to_a_note_moved_since_takes_the_move_back() {
    check(&[
        Step::Replace {
            word: 0,
            with: "a".into(),
            whole_word: false,
        },
        Step::Retarget { from: 2, to: 1 },
        Step::Decide {
            pick: 429146442648882,
            accept: false,
        },
        Step::Decide {
            pick: 391197302825009885,
            accept: false,
        },
        Step::Decide {
            pick: 7482600402665838894,
            accept: false,
        },
        Step::Move { note: 1 },
        Step::Undo {
            pick: 12991785960828050075,
        },
    ])
    .unwrap();
}

/// A rejection brings back a link to a note moved since (it dangles, and
/// rejecting is always allowed); a later step that leaves it dangling, as
/// it was, broke nothing.
#[test]
fn a_link_that_already_dangled_is_not_one_a_later_step_broke() {
    check(&[
        edit(3, 3),
        edit(0, 3),
        Step::Retarget { from: 3, to: 0 },
        Step::Move { note: 3 },
        Step::Decide {
            pick: 6707100758535465782,
            accept: false,
        },
        Step::Retarget { from: 2, to: 3 },
        edit(0, 3),
    ])
    .unwrap();
}

/// Links retargeted at a note while its move is pending name the move's
/// path: rejecting the move rejects them too, as its link updates.
#[test]
fn links_retargeted_at_a_moved_notes_path_follow_the_move() {
    check(&[
        Step::Move { note: 0 },
        Step::Edit {
            note: 0,
            line: 4,
            text: "a".into(),
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Edit {
            note: 0,
            line: 5,
            text: "a".into(),
        },
        Step::Retarget { from: 2, to: 0 },
        Step::Move { note: 3 },
        Step::Apply {
            pick: 7476683323766741571,
            accept: 0,
            crash: None,
        },
        Step::Restart,
        Step::Decide {
            pick: 2743434002897857369,
            accept: false,
        },
        Step::Retarget { from: 2, to: 3 },
        Step::Decide {
            pick: 8550367729194973619,
            accept: false,
        },
    ])
    .unwrap();
}

/// A retarget that writes a second link to a moved note's path on a line
/// that has one already: the hunk wrote a link only the move gives a
/// target, so rejecting the move rejects it too.
#[test]
fn a_second_link_to_a_moved_notes_path_on_one_line_follows_the_move() {
    check(&[
        edit(0, 3),
        Step::Move { note: 0 },
        Step::Retarget { from: 1, to: 0 },
        Step::Decide {
            pick: 15459516394011116221,
            accept: false,
        },
    ])
    .unwrap();
}

/// A scoped rollback between a retarget's hunk and a move's link update on
/// one link: each hunk changes the link whole, so taking one back never
/// leaves half of each (a link to no note).
#[test]
fn a_scoped_rollback_never_splices_two_hunks_into_one_link() {
    check(&[
        Step::Retarget { from: 2, to: 1 },
        Step::Move { note: 1 },
        Step::Move { note: 0 },
        Step::Replace {
            word: 0,
            with: "a".into(),
            whole_word: false,
        },
        Step::Decide {
            pick: 9704181406655522959,
            accept: false,
        },
        Step::Retarget { from: 1, to: 2 },
        Step::Replace {
            word: 1,
            with: "a".into(),
            whole_word: false,
        },
        edit(1, 3),
        Step::Scoped {
            pick: 507299540376374591,
            hunk: 4082236347548830190,
            undo: false,
        },
    ])
    .unwrap();
}

/// Rejecting a retarget whose link a move's update rewrote since: the
/// update goes with it (it changed the same link), and so does its move,
/// whose update of the line's other link would otherwise be lost.
#[test]
fn rejecting_a_hunk_under_a_link_update_takes_the_move() {
    check(&[
        Step::Retarget { from: 2, to: 3 },
        edit(2, 3),
        Step::Replace {
            word: 2,
            with: "a".into(),
            whole_word: false,
        },
        Step::Move { note: 3 },
        Step::Decide {
            pick: 5056613817324000786,
            accept: false,
        },
    ])
    .unwrap();
}

/// Undoing a rejection whose hunk's words a later run replaced meanwhile:
/// the two replacements are alternatives, and the one brought back rejects
/// the other (never both side by side, a link to no note).
#[test]
fn undoing_a_rejection_rejects_the_hunk_that_replaced_the_same_words_since() {
    check(&[
        Step::Move { note: 2 },
        Step::Retarget { from: 1, to: 2 },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        edit(0, 3),
        Step::Retarget { from: 1, to: 2 },
        edit(0, 3),
        Step::Undo { pick: 0 },
    ])
    .unwrap();
}

/// A move's link update rejected because a later hunk rewrote its line (the
/// two are alternatives) leaves no link behind: undoing a rollback keeps
/// the move it follows, accepted and saved, as it was.
#[test]
fn a_link_update_whose_line_was_rewritten_does_not_take_its_move() {
    check(&[
        edit(0, 3),
        Step::Move { note: 3 },
        Step::Apply {
            pick: 1166779695532744837,
            accept: 32,
            crash: None,
        },
        edit(1, 3),
        Step::Delete { note: 0 },
        edit(1, 3),
        Step::Edit {
            note: 1,
            line: 3,
            text: "b".into(),
        },
        Step::Outside {
            note: 2,
            review: true,
        },
        Step::Apply {
            pick: 389674977442375267,
            accept: 187,
            crash: None,
        },
        Step::Replace {
            word: 0,
            with: "a".into(),
            whole_word: false,
        },
        edit(0, 3),
        Step::Scoped {
            pick: 84870995228149586,
            hunk: 0,
            undo: true,
        },
    ])
    .unwrap();
}

/// Links written as Markdown links, then a note moved and the move rolled
/// back: the move rewrites the Markdown links to it (percent-encoded), the
/// rollback takes them back, and every link resolves throughout.
#[test]
fn markdown_links_follow_a_move_and_its_rollback() {
    let converted = walk(&[Step::Convert { markdown: true }]).unwrap();
    assert!(
        converted["Notes/Alpha.md"].contains("[Beta](Beta.md)"),
        "{converted:?}"
    );
    assert!(
        converted.values().all(|text| !text.contains("[[")),
        "{converted:?}"
    );
    let moved = walk(&[Step::Convert { markdown: true }, Step::Move { note: 1 }]).unwrap();
    assert!(
        moved["Notes/Alpha.md"].contains("(../Archive/Beta%201.md)"),
        "{moved:?}"
    );
    assert!(
        links(&moved).iter().all(|&(_, _, resolves)| resolves),
        "{moved:?}"
    );
    let back = walk(&[
        Step::Convert { markdown: true },
        Step::Move { note: 1 },
        Step::Rollback {
            pick: 1,
            undo: false,
        },
        Step::Convert { markdown: false },
    ])
    .unwrap();
    assert!(
        links(&back).iter().all(|&(_, _, resolves)| resolves),
        "{back:?}"
    );
}

/// A note moved, then deleted, every link converted, the conversion
/// rejected, and a rollback to before the move undone: the undo gives back
/// the moved note and the links to it.
#[test]
fn undoing_a_rollback_past_a_move_and_a_rejected_conversion_gives_all_back() {
    check(&[
        Step::Move { note: 0 },
        Step::Delete { note: 0 },
        Step::Convert { markdown: true },
        Step::Apply {
            pick: 3482508811665248581,
            accept: 0,
            crash: None,
        },
        Step::Rollback {
            pick: 0,
            undo: true,
        },
    ])
    .unwrap();
}

/// Links converted both ways and retargeted, a note moved, then an edit's
/// hunk rejected: no link breaks.
#[test]
fn rejecting_an_edit_after_conversions_retargets_and_a_move_breaks_no_link() {
    check(&[
        Step::Convert { markdown: true },
        Step::Convert { markdown: false },
        Step::Retarget { from: 1, to: 3 },
        Step::Retarget { from: 2, to: 1 },
        Step::Apply {
            pick: 6346603310715851167,
            accept: 181,
            crash: None,
        },
        Step::Move { note: 1 },
        Step::Edit {
            note: 0,
            line: 4,
            text: "a".into(),
        },
        Step::Edit {
            note: 0,
            line: 4,
            text: "b".into(),
        },
        Step::Decide {
            pick: 13424721633609467,
            accept: false,
        },
    ])
    .unwrap();
}

/// The checker itself: a link a move leaves behind is broken; a link a
/// rejection brings back in place of another, to a note moved since, is not.
#[test]
fn the_checker_knows_a_link_left_behind_from_one_brought_back() {
    let vault = |alpha_links: &str, beta_at: &str| -> BTreeMap<String, String> {
        BTreeMap::from([
            (
                "Notes/Alpha.md".to_owned(),
                format!("# Alpha\n\nLinks: {alpha_links}.\n"),
            ),
            (beta_at.to_owned(), "# Beta\n\nLinks: none.\n".to_owned()),
        ])
    };
    let before = vault("[[Beta]]", "Notes/Beta.md");
    assert_eq!(
        broken(&before, &vault("[[Beta]]", "Archive/Beta 1.md")),
        ["Alpha -> Beta"]
    );
    assert_eq!(
        broken(&before, &vault("[[Beta 1]]", "Archive/Beta 1.md")),
        Vec::<String>::new()
    );
    let markdown = vault("[Beta](Beta.md)", "Notes/Beta.md");
    assert_eq!(
        broken(&markdown, &vault("[Beta](Beta.md)", "Archive/Beta 1.md")),
        ["Alpha -> Beta"]
    );
    let retargeted = vault("[[Alpha]] and [[Beta 1]]", "Archive/Beta 1.md");
    let rejected = vault("[[Beta]] and [[Beta 1]]", "Archive/Beta 1.md");
    assert_eq!(broken(&retargeted, &rejected), Vec::<String>::new());
}

/// Links converted both ways, a note moved, then a conversion applied in
/// part: no link breaks.
#[test]
fn applying_part_of_a_conversion_under_a_move_breaks_no_link() {
    check(&[
        Step::Replace {
            word: 0,
            with: "a".into(),
            whole_word: false,
        },
        Step::EachNote {
            line: 4,
            text: "a".into(),
        },
        Step::Convert { markdown: true },
        Step::Convert { markdown: false },
        Step::Move { note: 3 },
        Step::Apply {
            pick: 9719744093823605723,
            accept: 96,
            crash: None,
        },
    ])
    .unwrap();
}

/// Conversions and edits stacked on a note's links line, the note moved,
/// then a run applied wholly rejected: no link breaks.
#[test]
fn rejecting_a_run_whole_under_conversions_and_a_move_breaks_no_link() {
    check(&[
        Step::Convert { markdown: true },
        edit(0, 3),
        Step::Convert { markdown: false },
        edit(0, 3),
        Step::Replace {
            word: 0,
            with: "a".into(),
            whole_word: false,
        },
        edit(0, 3),
        Step::Move { note: 0 },
        Step::Apply {
            pick: 5661392502010859735,
            accept: 0,
            crash: None,
        },
    ])
    .unwrap();
}

/// Many steps on one note's links line, then every link converted and the
/// conversion applied: no link breaks.
#[test]
fn a_conversion_applied_over_edits_retargets_and_a_move_breaks_no_link() {
    check(&[
        Step::Outside {
            note: 0,
            review: true,
        },
        edit(0, 4),
        Step::Retarget { from: 1, to: 0 },
        Step::Move { note: 2 },
        Step::Decide {
            pick: 2150238378600500594,
            accept: false,
        },
        Step::Replace {
            word: 0,
            with: "a".into(),
            whole_word: false,
        },
        edit(0, 3),
        Step::Replace {
            word: 1,
            with: "a".into(),
            whole_word: false,
        },
        Step::Type { note: 0 },
        edit(0, 3),
        Step::EachNote {
            line: 4,
            text: "a".into(),
        },
        edit(0, 3),
        Step::Convert { markdown: true },
        Step::Apply {
            pick: 2556899396756208842,
            accept: 127,
            crash: None,
        },
    ])
    .unwrap();
}

/// Edits over links lines, moves, a conversion and retargets, then a
/// rollback undone: the undo gives back every move and link as it was.
#[test]
fn undoing_a_rollback_after_moves_retargets_and_a_conversion_gives_all_back() {
    check(&[
        edit(0, 3),
        Step::Move { note: 1 },
        Step::Convert { markdown: false },
        edit(0, 3),
        edit(3, 3),
        Step::Retarget { from: 2, to: 0 },
        edit(1, 3),
        Step::Move { note: 3 },
        Step::Retarget { from: 3, to: 1 },
        Step::Rollback {
            pick: 10176995257516931932,
            undo: true,
        },
    ])
    .unwrap();
}

/// A move, every link converted and one retargeted at the moved note, a
/// run applied in part, then a rollback undone: all comes back.
#[test]
fn undoing_a_rollback_after_a_retarget_at_a_moved_note_gives_all_back() {
    check(&[
        Step::Move { note: 2 },
        Step::Convert { markdown: true },
        Step::Retarget { from: 0, to: 2 },
        edit(0, 3),
        Step::Apply {
            pick: 3443145005505534861,
            accept: 60,
            crash: None,
        },
        Step::Rollback {
            pick: 38081101126622053,
            undo: true,
        },
    ])
    .unwrap();
}

/// Retargets at moved notes, a conversion, an undo, runs over every note
/// and a replacement, then a rejection: no link breaks.
#[test]
fn rejecting_after_retargets_at_moved_notes_and_a_conversion_breaks_no_link() {
    check(&[
        Step::Retarget { from: 2, to: 0 },
        Step::Move { note: 2 },
        edit(0, 4),
        Step::Apply {
            pick: 5743319245936916862,
            accept: 66,
            crash: None,
        },
        Step::Move { note: 1 },
        Step::Convert { markdown: true },
        Step::Restart,
        Step::Retarget { from: 1, to: 2 },
        Step::Undo {
            pick: 344015569817125153,
        },
        Step::EachNote {
            line: 4,
            text: "b".into(),
        },
        Step::EachNote {
            line: 4,
            text: "c".into(),
        },
        Step::Replace {
            word: 0,
            with: "a".into(),
            whole_word: false,
        },
        Step::Decide {
            pick: 1809037786963520770,
            accept: false,
        },
    ])
    .unwrap();
}

/// Retargets both ways around a move, edits and runs over every note, then
/// a scoped rollback of one hunk: no link breaks.
#[test]
fn a_scoped_rollback_after_retargets_around_a_move_breaks_no_link() {
    check(&[
        Step::Outside {
            note: 0,
            review: true,
        },
        replace(0),
        edit(0, 3),
        Step::Retarget { from: 3, to: 1 },
        Step::Decide {
            pick: 6796396486418055633,
            accept: false,
        },
        Step::Move { note: 3 },
        Step::EachNote {
            line: 4,
            text: "a".into(),
        },
        Step::Decide {
            pick: 374667738867715908,
            accept: false,
        },
        replace(0),
        Step::Retarget { from: 1, to: 3 },
        edit(0, 3),
        replace(1),
        Step::Scoped {
            pick: 13624257578392910796,
            hunk: 0,
            undo: false,
        },
    ])
    .unwrap();
}

/// Moves, edits and rollbacks, a retarget and a conversion, a move and a
/// rejection, then a rollback undone: all comes back.
#[test]
fn undoing_a_rollback_after_a_retarget_a_conversion_and_a_move_gives_all_back() {
    check(&[
        Step::Move { note: 0 },
        edit(0, 3),
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Replace {
            word: 0,
            with: "a".into(),
            whole_word: false,
        },
        Step::Rollback {
            pick: 13027806108196461362,
            undo: false,
        },
        edit(0, 3),
        Step::Rollback {
            pick: 0,
            undo: false,
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        edit(2, 3),
        Step::Retarget { from: 1, to: 2 },
        Step::Convert { markdown: true },
        Step::Move { note: 1 },
        Step::Decide {
            pick: 906238581764838809,
            accept: false,
        },
        Step::Rollback {
            pick: 4132935410406619944,
            undo: true,
        },
    ])
    .unwrap();
}

/// A rejection, a move, edits in every note, a conversion and a retarget,
/// rolled back; then edits, a deletion and edits in every note again, and a
/// rollback undone: the move comes back with its link updates.
#[test]
fn undoing_a_rollback_after_a_deletion_brings_back_the_move_under_it() {
    check(&[
        edit(0, 3),
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Move { note: 1 },
        Step::EachNote {
            line: 4,
            text: "a".into(),
        },
        Step::Convert { markdown: true },
        Step::Retarget { from: 0, to: 1 },
        Step::Rollback {
            pick: 11271090249318872016,
            undo: false,
        },
        edit(0, 3),
        Step::Delete { note: 0 },
        edit(0, 3),
        edit(1, 3),
        Step::EachNote {
            line: 3,
            text: "a".into(),
        },
        Step::Rollback {
            pick: 6822621777786049552,
            undo: true,
        },
    ])
    .unwrap();
}

/// A move, conversions both ways around an edit, rolled back; two
/// replacements, and a rollback undone: the move comes back.
#[test]
fn undoing_a_rollback_after_conversions_both_ways_brings_back_the_move() {
    check(&[
        edit(0, 3),
        Step::Move { note: 1 },
        Step::Convert { markdown: true },
        Step::Edit {
            note: 3,
            line: 4,
            text: "a".into(),
        },
        Step::Convert { markdown: false },
        Step::Rollback {
            pick: 1436985803440597741,
            undo: false,
        },
        replace(0),
        replace(1),
        Step::Rollback {
            pick: 2055999011681116642,
            undo: true,
        },
    ])
    .unwrap();
}

/// Moves, a deletion, applies (one cut off by a crash), rollbacks and
/// undone decisions, then a rejection: no link breaks.
#[test]
fn rejecting_after_applies_rollbacks_and_moves_breaks_no_link() {
    check(&[
        Step::Convert { markdown: true },
        Step::Move { note: 0 },
        Step::EachNote {
            line: 4,
            text: "a".into(),
        },
        Step::Rollback {
            pick: 6075970507645306435,
            undo: false,
        },
        Step::Apply {
            pick: 3762319327230066171,
            accept: 200,
            crash: Some(0),
        },
        edit(0, 4),
        Step::Undo {
            pick: 6236873731515158608,
        },
        Step::Move { note: 3 },
        Step::Decide {
            pick: 2861340166554727799,
            accept: true,
        },
        Step::Undo {
            pick: 1176590293645997239,
        },
        Step::Move { note: 2 },
        Step::Delete { note: 0 },
        Step::Apply {
            pick: 2614564166789656179,
            accept: 136,
            crash: None,
        },
        Step::Rollback {
            pick: 16892834526527240793,
            undo: false,
        },
        Step::Move { note: 3 },
        Step::Edit {
            note: 0,
            line: 3,
            text: "b".into(),
        },
        Step::Decide {
            pick: 8635947806012118689,
            accept: false,
        },
    ])
    .unwrap();
}

/// A retarget applied, moves, undone decisions, edits and a conversion, a
/// rejection, then a rollback undone: the move comes back.
#[test]
fn undoing_a_rollback_after_undone_moves_and_a_conversion_brings_back_the_move() {
    check(&[
        Step::Retarget { from: 3, to: 0 },
        Step::Apply {
            pick: 0,
            accept: 4,
            crash: None,
        },
        Step::Move { note: 3 },
        Step::Undo { pick: 0 },
        edit(2, 4),
        Step::Undo { pick: 0 },
        edit(1, 3),
        edit(0, 4),
        Step::Move { note: 2 },
        Step::Undo { pick: 0 },
        edit(0, 5),
        Step::Convert { markdown: true },
        Step::Decide {
            pick: 1327666731815486040,
            accept: false,
        },
        edit(0, 3),
        Step::Rollback {
            pick: 5809592286470915708,
            undo: true,
        },
    ])
    .unwrap();
}

/// Applies, a deletion rejected, a scoped rollback and rejections, a move
/// of the note whose deletion was rejected, then an undo: no link breaks.
#[test]
fn undoing_after_a_move_of_a_note_whose_deletion_was_rejected_breaks_no_link() {
    check(&[
        replace(2),
        Step::Move { note: 2 },
        Step::Convert { markdown: true },
        Step::Apply {
            pick: 3805457484813020968,
            accept: 0,
            crash: None,
        },
        Step::Apply {
            pick: 4868547411232266509,
            accept: 12,
            crash: None,
        },
        Step::Delete { note: 0 },
        Step::Decide {
            pick: 1931722459156718978,
            accept: false,
        },
        Step::Decide {
            pick: 11094252559928427733,
            accept: false,
        },
        Step::Edit {
            note: 1,
            line: 3,
            text: "b".into(),
        },
        Step::Apply {
            pick: 3319945356216336717,
            accept: 191,
            crash: None,
        },
        Step::Scoped {
            pick: 305615662522162005,
            hunk: 0,
            undo: false,
        },
        Step::Decide {
            pick: 2481948128135174836,
            accept: false,
        },
        Step::Move { note: 0 },
        Step::Undo {
            pick: 2587230448606689606,
        },
    ])
    .unwrap();
}

/// Replacements, an edit, a retarget, a deletion and a move, runs over
/// them, a rollback, the note moved again and another rollback: no link
/// breaks.
#[test]
fn a_rollback_after_a_note_moved_twice_around_a_rollback_breaks_no_link() {
    check(&[
        replace(0),
        replace(1),
        edit(0, 3),
        Step::Retarget { from: 2, to: 0 },
        Step::Delete { note: 3 },
        Step::Move { note: 1 },
        replace(2),
        Step::EachNote {
            line: 3,
            text: "a".into(),
        },
        edit(0, 3),
        Step::Rollback {
            pick: 4165382505036340339,
            undo: false,
        },
        Step::Move { note: 1 },
        Step::Rollback {
            pick: 2154333945573907062,
            undo: false,
        },
    ])
    .unwrap();
}

/// A move rejected, edits and a conversion, an undo and a replacement,
/// then a rollback: no link breaks.
#[test]
fn a_rollback_after_a_rejected_move_a_conversion_and_an_undo_breaks_no_link() {
    check(&[
        Step::Move { note: 3 },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        edit(0, 3),
        Step::Convert { markdown: true },
        edit(1, 3),
        Step::Undo { pick: 0 },
        replace(0),
        edit(0, 3),
        Step::Rollback {
            pick: 17286683245987757984,
            undo: false,
        },
    ])
    .unwrap();
}

/// Conversions both ways, retargets to and from a moved note, edits, then
/// a rollback: no link breaks.
#[test]
fn a_rollback_after_retargets_to_and_from_a_moved_note_breaks_no_link() {
    check(&[
        edit(0, 3),
        Step::Convert { markdown: true },
        Step::Retarget { from: 3, to: 2 },
        edit(0, 3),
        Step::Move { note: 3 },
        Step::Retarget { from: 2, to: 3 },
        edit(0, 3),
        edit(0, 3),
        Step::Convert { markdown: false },
        Step::Retarget { from: 0, to: 1 },
        edit(0, 3),
        Step::Rollback {
            pick: 6289360020654957111,
            undo: false,
        },
    ])
    .unwrap();
}

/// Edits, a scoped rollback, moves of two notes, replacements and a run
/// over every note, rejections and rollbacks, a note moved again and
/// rolled back: no link breaks.
#[test]
fn a_rollback_after_a_note_moved_again_among_replacements_breaks_no_link() {
    check(&[
        edit(0, 3),
        edit(0, 4),
        Step::Scoped {
            pick: 837941620446301633,
            hunk: 0,
            undo: false,
        },
        edit(2, 3),
        Step::Decide {
            pick: 3566053773542147126,
            accept: false,
        },
        Step::Move { note: 0 },
        replace(2),
        Step::Move { note: 1 },
        edit(0, 3),
        Step::EachNote {
            line: 4,
            text: "a".into(),
        },
        replace(3),
        Step::Decide {
            pick: 250641813116090897,
            accept: false,
        },
        Step::Rollback {
            pick: 1815679648025940517,
            undo: false,
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        edit(0, 3),
        Step::Move { note: 0 },
        Step::Rollback {
            pick: 11544326183679278786,
            undo: false,
        },
    ])
    .unwrap();
}

/// A conversion rejected, a move saved with a link update in the note
/// (the link written over the conversion's line), then the note moved on
/// again: bringing the conversion back would reject that link update with
/// it, and the link would point at the note's old path. Refused.
#[test]
fn undoing_a_rejection_under_a_saved_moves_link_update_breaks_no_link() {
    check(&[
        Step::Convert { markdown: true },
        Step::Apply {
            pick: 0,
            accept: 84,
            crash: None,
        },
        Step::Move { note: 2 },
        Step::Apply {
            pick: 0,
            accept: 45,
            crash: Some(0),
        },
        edit(0, 4),
        Step::Edit {
            note: 0,
            line: 3,
            text: "b".into(),
        },
        Step::Save,
        Step::Decide {
            pick: 944956215936348893,
            accept: false,
        },
        replace(0),
        edit(2, 3),
        Step::Move { note: 2 },
        Step::Undo {
            pick: 12632128959929239105,
        },
    ])
    .unwrap();
}

/// A note moved and saved, then staged for deletion at its new path; a
/// rollback puts it back at its old path while its hunks stay with the
/// moved file, and a rollback to the move's run then puts the file holding
/// those hunks back (not the copy at the old path), and its undo stores
/// every hunk once.
#[test]
fn a_rollback_past_a_move_and_a_deletion_stores_each_hunk_once() {
    check(&[
        Step::Edit {
            note: 3,
            line: 3,
            text: "a".into(),
        },
        Step::Rollback {
            pick: 0,
            undo: false,
        },
        Step::Move { note: 3 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        edit(0, 3),
        replace(0),
        Step::EachNote {
            line: 3,
            text: "a".into(),
        },
        Step::Save,
        Step::Delete { note: 3 },
        edit(0, 3),
        Step::Rollback {
            pick: 1806096241389971516,
            undo: false,
        },
        edit(0, 3),
        edit(0, 3),
        Step::Rollback {
            pick: 4008280459898340805,
            undo: true,
        },
    ])
    .unwrap();
}

/// Found by the explore run of 2026-11-28 (unpinned, with the notes' front
/// matter in other scripts): a hard rollback to one of these runs left
/// Gamma's link to the moved Alpha dangling (with ASCII text in the steps
/// too). A move and its own link updates are one change now: the rollback
/// that puts the move back to pending takes them with it.
#[test]
fn a_hard_rollback_over_runs_on_every_note_and_a_move_breaks_no_link() {
    check(&[
        Step::EachNote {
            line: 4,
            text: "本".into(),
        },
        Step::Edit {
            note: 3,
            line: 3,
            text: "é".into(),
        },
        Step::Move { note: 0 },
        Step::Edit {
            note: 0,
            line: 3,
            text: "é".into(),
        },
        Step::EachNote {
            line: 4,
            text: "a".into(),
        },
        Step::Replace {
            word: 3,
            with: " ".into(),
            whole_word: false,
        },
        Step::Rollback {
            pick: 238733720892384658,
            undo: false,
        },
    ])
    .unwrap();
}

/// A pending change takes out a note's link to Alpha, and Alpha is moved:
/// the link update would have to change text the buffer does not show, so
/// the move is refused (decide that change first); the save that follows
/// leaves no link on disk naming where Alpha is not.
#[test]
fn a_move_of_a_note_linked_from_behind_a_pending_change_breaks_no_link_on_disk() {
    check(&[
        Step::Edit {
            note: 3,
            line: 3,
            text: "ß".into(),
        },
        Step::EachNote {
            line: 3,
            text: "é".into(),
        },
        Step::DecideRun {
            pick: 5219246732763841675,
            accept: false,
        },
        Step::Retarget { from: 2, to: 0 },
        Step::Move { note: 0 },
        edit(0, 3),
        Step::Decide {
            pick: 20249823388639141,
            accept: true,
        },
        Step::Save,
    ])
    .unwrap();
}

/// A note whose deletion is pending still links to Delta on disk, and
/// Delta is moved: refused as above, since the note is not shown to have
/// its link rewritten.
#[test]
fn a_move_of_a_note_linked_from_a_note_pending_deletion_breaks_no_link_on_disk() {
    check(&[
        edit(0, 3),
        Step::Delete { note: 1 },
        Step::Move { note: 3 },
        Step::Edit {
            note: 0,
            line: 3,
            text: String::new(),
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Apply {
            pick: 17675523253644785682,
            accept: 61,
            crash: None,
        },
    ])
    .unwrap();
}

/// An apply of a later edit of a moved note saves the note, and so the
/// move: the notes whose link updates follow it are written in the same
/// batch.
#[test]
fn an_apply_that_writes_a_move_writes_its_link_updates() {
    check(&[
        edit(0, 3),
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Move { note: 0 },
        Step::Edit {
            note: 0,
            line: 3,
            text: String::new(),
        },
        Step::Decide {
            pick: 1300960912883475530,
            accept: true,
        },
        Step::Apply {
            pick: 8945106961519492322,
            accept: 0,
            crash: None,
        },
    ])
    .unwrap();
}

/// Found by the disk check: Beta's move is saved with its link update in
/// Alpha; an undo brings back an edit of Alpha's link line, pending, which
/// excludes the link update (the two replaced the same words), so the link
/// update is rejected as a consequence. The working state shows the
/// pending edit (no link), but what a save of Alpha writes is its base
/// line, `[[Beta]]`: the move goes with its link update
/// (`Review::carry_moves`), and the next save moves Beta back.
#[test]
fn an_undo_that_excludes_a_saved_moves_link_update_breaks_no_link_on_disk() {
    check(&[
        Step::Edit {
            note: 0,
            line: 3,
            text: "é".into(),
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Edit {
            note: 0,
            line: 4,
            text: "ب".into(),
        },
        Step::Move { note: 1 },
        Step::Move { note: 0 },
        Step::Apply {
            pick: 12526661944035897998,
            accept: 61,
            crash: None,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "日".into(),
        },
        Step::Delete { note: 2 },
        Step::Apply {
            pick: 635127195867269503,
            accept: 92,
            crash: Some(0),
        },
        Step::Outside {
            note: 1,
            review: false,
        },
        Step::Undo {
            pick: 3102945961075104054,
        },
        Step::SaveAll { crash: Some(0) },
    ])
    .unwrap();
}

/// Alpha's link to Beta is taken out by an accepted edit not yet saved, and
/// Beta is moved and applied: Alpha's disk text still links to Beta, so the
/// apply saves Alpha in the same batch.
#[test]
fn saving_a_move_saves_the_notes_whose_disk_text_still_links_to_it() {
    check(&[
        Step::Edit {
            note: 0,
            line: 4,
            text: "ß".into(),
        },
        Step::Replace {
            word: 0,
            with: "é".into(),
            whole_word: false,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "本".into(),
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "a".into(),
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::UndoLast { redo: false },
        Step::Decide {
            pick: 7732043273883967360,
            accept: true,
        },
        Step::Move { note: 1 },
        Step::Edit {
            note: 0,
            line: 3,
            text: "a".into(),
        },
        Step::Apply {
            pick: 1555407425727427120,
            accept: 103,
            crash: None,
        },
    ])
    .unwrap();
}

/// A pending move of Gamma ties Alpha's link update to it, and Gamma
/// changes on disk: saving Gamma writes Alpha's typing all the same, since
/// a pending move changes nothing on disk.
#[test]
fn a_pending_moves_ties_keep_back_nothing() {
    check(&[
        Step::Move { note: 2 },
        Step::Outside {
            note: 2,
            review: false,
        },
        Step::Type { note: 0 },
        edit(0, 3),
        Step::SaveOne { note: 2 },
    ])
    .unwrap();
}

/// The same case as `an_undo_that_excludes_a_saved_moves_link_update_breaks_no_link_on_disk`,
/// found by an unpinned run: an undo brings back Gamma's edit of its link
/// line, pending, which excludes Alpha's move's link update there; the
/// move goes with it, so accepting and saving it later writes the link
/// update too.
#[test]
fn an_exclusion_under_a_moves_link_update_then_the_move_saved_breaks_no_link_on_disk() {
    check(&[
        Step::EachNote {
            line: 3,
            text: "日".into(),
        },
        Step::Apply {
            pick: 0,
            accept: 3,
            crash: Some(0),
        },
        Step::Move { note: 0 },
        Step::Undo {
            pick: 2874478288354793782,
        },
        Step::SaveAll { crash: None },
        Step::Decide {
            pick: 12492209816159032285,
            accept: true,
        },
        Step::SaveAll { crash: None },
    ])
    .unwrap();
}

/// Alpha's deletion is accepted and another program changes Alpha, so the
/// deletion cannot be carried out, while Alpha's text on disk links to
/// Beta: an apply that moves Beta keeps it back with Alpha (a conflict),
/// rather than leave that link naming where Beta is not.
#[test]
fn a_move_is_kept_back_with_a_note_that_still_links_to_it_and_cannot_be_saved() {
    check(&[
        Step::Delete { note: 0 },
        Step::Edit {
            note: 1,
            line: 5,
            text: "a".into(),
        },
        Step::Decide {
            pick: 432419046083053106,
            accept: true,
        },
        Step::Replace {
            word: 0,
            with: "日".into(),
            whole_word: false,
        },
        Step::Move { note: 1 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::Outside {
            note: 0,
            review: false,
        },
        Step::Retarget { from: 2, to: 1 },
        Step::Edit {
            note: 1,
            line: 3,
            text: "ß".into(),
        },
        Step::Replace {
            word: 1,
            with: "é".into(),
            whole_word: false,
        },
        Step::Replace {
            word: 2,
            with: "本".into(),
            whole_word: false,
        },
        Step::Decide {
            pick: 6515854147938062259,
            accept: false,
        },
        Step::Undo {
            pick: 2246495884917923114,
        },
        Step::DecideRun {
            pick: 3542312852889515044,
            accept: false,
        },
        Step::Decide {
            pick: 4064451588205288855,
            accept: true,
        },
        Step::Apply {
            pick: 6527297998807192700,
            accept: 0,
            crash: None,
        },
    ])
    .unwrap();
}

/// Found by an unpinned run: a rollback brings Beta's move back, its undo
/// takes it out again, a retarget links Gamma to where Beta is now, and an
/// undo of the rollback's undo (through the history) brings the move back
/// once more: Gamma's new link must follow it.
#[test]
fn undoing_a_rollback_step_after_a_retarget_breaks_no_link() {
    check(&[
        Step::Move { note: 1 },
        Step::Rollback {
            pick: 0,
            undo: true,
        },
        Step::UndoLast { redo: false },
        Step::Retarget { from: 0, to: 1 },
        Step::UndoLast { redo: false },
    ])
    .unwrap();
}

/// Found by an unpinned run: an apply rejects hunks, Alpha moves (its link
/// updates written on what the apply left), and undoing the apply brings
/// back hunks written before the move: no link may dangle to Alpha's old
/// path.
#[test]
fn undoing_an_apply_after_a_move_breaks_no_link() {
    check(&[
        Step::Delete { note: 1 },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Replace {
            word: 0,
            with: "日".into(),
            whole_word: false,
        },
        Step::Delete { note: 0 },
        Step::Delete { note: 0 },
        Step::Edit {
            note: 0,
            line: 3,
            text: " ".into(),
        },
        Step::Rollback {
            pick: 184108779448272381,
            undo: false,
        },
        Step::Undo { pick: 0 },
        Step::EachNote {
            line: 3,
            text: "ß".into(),
        },
        Step::Apply {
            pick: 965059237806231151,
            accept: 48,
            crash: None,
        },
        Step::Move { note: 0 },
        Step::UndoLast { redo: false },
    ])
    .unwrap();
}

/// Found by an unpinned run: a scoped rollback takes Beta's move back, a
/// retarget, an undo, then a run accepted whole and saved: no link on disk
/// may name where Beta is not.
#[test]
fn a_run_accepted_after_a_scoped_rollback_of_a_move_breaks_no_link_on_disk() {
    check(&[
        Step::Move { note: 1 },
        Step::Scoped {
            pick: 0,
            hunk: 0,
            undo: false,
        },
        Step::Retarget { from: 1, to: 0 },
        Step::Undo { pick: 0 },
        Step::DecideRun {
            pick: 4579497107463145944,
            accept: true,
        },
        Step::Save,
    ])
    .unwrap();
}

/// Found by an unpinned run: an apply rejects Delta's link update of
/// Beta's move (the user leaves that link), a rollback and its undo: the
/// move comes back as it was, that link left as the user chose.
#[test]
fn undoing_a_rollback_gives_back_a_move_beside_a_link_the_user_left() {
    check(&[
        Step::EachNote {
            line: 3,
            text: "a".into(),
        },
        Step::Decide {
            pick: 1528203453801123728,
            accept: false,
        },
        Step::Decide {
            pick: 9042302575033472537,
            accept: true,
        },
        Step::Move { note: 1 },
        Step::Apply {
            pick: 10979047548551343348,
            accept: 24,
            crash: None,
        },
        Step::Rollback {
            pick: 8219952343783571840,
            undo: true,
        },
    ])
    .unwrap();
}

/// Found by the pinned run while ties got their kinds (the move's own link
/// updates were first taken for hunks that only need it, as they write
/// links to where the note goes): Alpha moved, the move accepted, then the
/// run of the links rejected must take the move with its updates.
#[test]
fn rejecting_an_edit_run_under_a_moves_link_updates_breaks_no_link() {
    check(&[
        Step::Edit {
            note: 0,
            line: 3,
            text: "ß".into(),
        },
        Step::Move { note: 0 },
        Step::Decide {
            pick: 436639658743532191,
            accept: true,
        },
        Step::DecideRun {
            pick: 324234937181579851,
            accept: false,
        },
    ])
    .unwrap();
}

/// Found by an unpinned run: Gamma's move rejected and that undone through
/// the hunk, a retarget links to where Gamma is then, and the history's
/// undo takes back the undo: the move is rejected again, and the retarget
/// that needs it goes with it.
#[test]
fn undoing_an_undone_rejection_after_a_retarget_breaks_no_link() {
    check(&[
        Step::Move { note: 2 },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Undo { pick: 0 },
        Step::Retarget { from: 0, to: 2 },
        Step::UndoLast { redo: false },
    ])
    .unwrap();
}

/// Found by an unpinned run: Beta moved and saved, moved again, the
/// history's undo takes back the first move's acceptance (settled: left as
/// it is), and an apply of a run writes the disk: no link on disk may name
/// where Beta is not.
#[test]
fn an_apply_after_undoing_a_settled_moves_acceptance_breaks_no_link_on_disk() {
    check(&[
        Step::Move { note: 1 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::Save,
        Step::Move { note: 1 },
        Step::UndoLast { redo: false },
        Step::Apply {
            pick: 10320587487953869567,
            accept: 12,
            crash: None,
        },
    ])
    .unwrap();
}

/// Found by an unpinned run: Beta moved, retargets to and from it, edits,
/// rejections, an apply, then a hard rollback saved: no link on disk may
/// name where Beta is not.
#[test]
fn a_rollback_after_retargets_around_a_move_and_an_apply_breaks_no_link_on_disk() {
    check(&[
        Step::Move { note: 1 },
        Step::Retarget { from: 2, to: 0 },
        Step::Replace {
            word: 0,
            with: "ß".into(),
            whole_word: false,
        },
        Step::Edit {
            note: 0,
            line: 4,
            text: "ß".into(),
        },
        Step::Edit {
            note: 0,
            line: 4,
            text: " ".into(),
        },
        Step::Retarget { from: 1, to: 2 },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Apply {
            pick: 2864575613850283835,
            accept: 13,
            crash: None,
        },
        Step::Rollback {
            pick: 405099803897210394,
            undo: false,
        },
        Step::Save,
    ])
    .unwrap();
}

/// Found by an unpinned run: Alpha moved, an edit, decisions, a rollback, a
/// rejection and the history's undo of it, then Save all: no link on disk
/// may name where Alpha is not.
#[test]
fn save_all_after_undoing_a_rejection_past_a_rollback_breaks_no_link_on_disk() {
    check(&[
        Step::Move { note: 0 },
        Step::Edit {
            note: 2,
            line: 3,
            text: "ب".into(),
        },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::Rollback {
            pick: 366046364639402394,
            undo: false,
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::UndoLast { redo: false },
        Step::SaveAll { crash: None },
    ])
    .unwrap();
}

/// Found by an unpinned run: a replacement, another program's write, an
/// undo, rollbacks, edits and Delta's move, a decision, then a rollback
/// saved: no link on disk may name where Delta is not.
#[test]
fn a_rollback_after_a_move_among_edits_and_an_outside_write_breaks_no_link_on_disk() {
    check(&[
        Step::Replace {
            word: 0,
            with: "a".into(),
            whole_word: false,
        },
        Step::AgentWrite { note: 0 },
        Step::Undo { pick: 0 },
        Step::Rollback {
            pick: 0,
            undo: false,
        },
        edit(0, 3),
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "日".into(),
        },
        Step::Move { note: 3 },
        Step::Edit {
            note: 1,
            line: 3,
            text: "ß".into(),
        },
        edit(0, 3),
        Step::Decide {
            pick: 3414048021342054039,
            accept: true,
        },
        Step::Rollback {
            pick: 8310042936116185549,
            undo: false,
        },
        Step::Save,
    ])
    .unwrap();
}

/// Found by an unpinned run: an edit of Beta's link line, Alpha moved, a
/// replacement, then two rejections: no link to Alpha may dangle. Rejecting
/// the move takes its link update in Gamma; the replacement written beside
/// it ("and" → " ") stayed, but sat inside the update's old words, so the
/// line read "[[Delta]][[Alpha   ]]". A replacement now sits beside the
/// text it took out (`review::pieces::apply`).
#[test]
fn rejections_after_a_move_over_an_edit_and_a_replacement_break_no_link() {
    check(&[
        edit(1, 3),
        Step::Move { note: 0 },
        Step::Replace {
            word: 3,
            with: " ".into(),
            whole_word: false,
        },
        Step::Decide {
            pick: 11165459090488521890,
            accept: false,
        },
        Step::Decide {
            pick: 14314633326800042192,
            accept: false,
        },
    ])
    .unwrap();
}

/// Found by an unpinned run: a retarget, a rejection, an apply, Gamma's
/// move, then the history's undo and redo of the apply: the redo puts back
/// exactly what the apply did.
#[test]
fn redoing_an_apply_after_a_move_puts_back_what_it_did() {
    check(&[
        Step::Retarget { from: 2, to: 0 },
        Step::Decide {
            pick: 6366381724670811535,
            accept: false,
        },
        Step::Apply {
            pick: 0,
            accept: 126,
            crash: None,
        },
        Step::Move { note: 2 },
        Step::UndoLast { redo: true },
    ])
    .unwrap();
}

/// Found by an unpinned run: edits, a rollback, two moves, a Save all, an
/// apply, then a conversion staged over it and the history's undo of the
/// apply: every hunk ends where the undo says it moved it.
#[test]
fn undoing_an_apply_under_a_conversion_moves_what_it_says() {
    check(&[
        edit(0, 3),
        Step::Rollback {
            pick: 0,
            undo: false,
        },
        Step::Move { note: 2 },
        Step::Edit {
            note: 0,
            line: 3,
            text: " ".into(),
        },
        Step::Move { note: 1 },
        Step::Edit {
            note: 2,
            line: 3,
            text: "日".into(),
        },
        Step::EachNote {
            line: 3,
            text: "é".into(),
        },
        Step::SaveAll { crash: None },
        Step::Apply {
            pick: 48745019707178424,
            accept: 48,
            crash: None,
        },
        Step::Convert { markdown: true },
        Step::UndoLast { redo: false },
    ])
    .unwrap();
}

/// Found by the strict explore run: a run's move and a link conversion it
/// stood on accepted together, saved, the note moved again (the first move
/// is final), then the conversion's hunk undone. The undo takes back what
/// it can and leaves the final move as it is (it was refused whole).
#[test]
fn undoing_a_hunk_decided_with_a_move_since_final_leaves_the_move() {
    check(&[
        Step::Convert { markdown: true },
        Step::Move { note: 0 },
        Step::DecideRun {
            pick: 9209197594262530751,
            accept: true,
        },
        Step::Save,
        Step::Move { note: 0 },
        Step::Undo {
            pick: 4746482667940390921,
        },
    ])
    .unwrap();
}

/// Found by the strict explore run: a move rejected, links retargeted to
/// where the note was, and the rejection undone and redone: the undo's
/// link updates (the retarget's links following the move it brought back)
/// are rejected again with the move by the redo.
#[test]
fn redoing_a_moves_rejection_takes_back_the_links_its_undo_made_follow() {
    check(&[
        Step::Edit {
            note: 2,
            line: 3,
            text: "a".into(),
        },
        Step::Move { note: 2 },
        Step::Decide {
            pick: 4220378880660904682,
            accept: false,
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Retarget { from: 0, to: 2 },
        Step::UndoLast { redo: true },
    ])
    .unwrap();
}

/// Found by the strict explore run: a move a rollback took back (with a
/// link update of its own), brought back by an undo (its link follows it,
/// staged anew), then a scoped rollback and its undo: the undo gives back
/// the move with its links.
#[test]
fn a_scoped_rollback_undone_gives_back_a_move_whose_link_followed_it_again() {
    check(&[
        Step::Edit {
            note: 0,
            line: 4,
            text: "a".into(),
        },
        Step::Outside {
            note: 1,
            review: true,
        },
        Step::Retarget { from: 2, to: 3 },
        Step::Move { note: 3 },
        Step::Replace {
            word: 0,
            with: "a".into(),
            whole_word: false,
        },
        Step::Rollback {
            pick: 6784398654652006282,
            undo: false,
        },
        Step::Undo { pick: 0 },
        Step::Edit {
            note: 0,
            line: 3,
            text: "ب".into(),
        },
        Step::Scoped {
            pick: 7245165022566927668,
            hunk: 9300983208832837870,
            undo: true,
        },
    ])
    .unwrap();
}

/// Found by the strict explore run: a move proposed after a rollback that
/// the history's undo then takes back (the move's file is given back as it
/// was, so the move's link update is final), and a retarget written over
/// that link update: it stands on a final rejection, so it is final too,
/// and not offered (undoing it was refused).
#[test]
fn a_hunk_over_a_link_update_whose_move_an_undone_rollback_took_is_final() {
    check(&[
        Step::Retarget { from: 3, to: 0 },
        Step::Rollback {
            pick: 0,
            undo: false,
        },
        Step::Edit {
            note: 0,
            line: 4,
            text: "本".into(),
        },
        Step::Move { note: 2 },
        Step::Retarget { from: 2, to: 0 },
        Step::UndoLast { redo: false },
        Step::Undo {
            pick: 4464448494554984473,
        },
    ])
    .unwrap();
}

/// Found by the unpinned run: a save after an undo broke a link on disk
/// (Alpha's to Beta).
#[test]
fn a_save_after_an_undo_keeps_a_moved_notes_links_on_disk() {
    check(&[
        Step::Move { note: 2 },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Convert { markdown: true },
        Step::Apply {
            pick: 15905142754137908131,
            accept: 57,
            crash: None,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "日".into(),
        },
        Step::DecideRun {
            pick: 1246098870381179825,
            accept: false,
        },
        Step::Retarget { from: 0, to: 2 },
        Step::Move { note: 1 },
        Step::Decide {
            pick: 13321722237571050965,
            accept: false,
        },
        Step::Decide {
            pick: 8111686477445934209,
            accept: true,
        },
        Step::SaveAll { crash: None },
        Step::Undo {
            pick: 59927742262985602,
        },
        Step::Save,
    ])
    .unwrap();
}

/// Found by the unpinned run: a note moved, saved and moved again, then
/// an apply of the first move's run broke a link to it (Alpha's to Delta).
#[test]
fn an_apply_after_a_note_moved_on_breaks_no_link_to_it() {
    check(&[
        Step::Edit {
            note: 0,
            line: 4,
            text: "本".into(),
        },
        Step::Edit {
            note: 0,
            line: 4,
            text: "".into(),
        },
        Step::Retarget { from: 2, to: 3 },
        Step::Retarget { from: 1, to: 2 },
        Step::Convert { markdown: true },
        Step::Move { note: 3 },
        Step::DecideRun {
            pick: 11312629900706626229,
            accept: true,
        },
        Step::Save,
        Step::Move { note: 3 },
        Step::Apply {
            pick: 9176946447595476525,
            accept: 110,
            crash: None,
        },
    ])
    .unwrap();
}

/// Found by the unpinned release run while a saved move's link update,
/// rejected with what it was written on, was made to follow the move
/// again: a move saved, the note then staged for deletion (the move is
/// final), and a run rejected whole by an apply broke the links on disk.
/// The note keeps the path its move took it from, so the links that name
/// it again follow it to where the disk keeps it until the deletion is
/// saved (before, the apply was refused: `LinkOfSettledMove`).
#[test]
fn an_apply_rejecting_under_a_final_moves_links_breaks_none_on_disk() {
    check_unrefused(&[
        Step::Convert { markdown: true },
        Step::Move { note: 3 },
        Step::Retarget { from: 0, to: 1 },
        Step::DecideRun {
            pick: 2470752444453882439,
            accept: true,
        },
        Step::Save,
        Step::Delete { note: 3 },
        Step::Apply {
            pick: 6060332805397202092,
            accept: 0,
            crash: None,
        },
    ])
    .unwrap();
}

/// A move saved, the note moved again, and an apply that rejects the run
/// under the first move's link updates, and the second move: the links
/// those updates were written on name where the note was before its saved
/// move, and they follow it to where it is, as new link updates of the
/// saved move (before, the apply was refused: `LinkOfSettledMove`). The
/// apply's undo and redo take them back and bring them again.
#[test]
fn rejecting_what_a_saved_moves_link_updates_stand_on_makes_the_links_follow() {
    let steps = [
        Step::Convert { markdown: true },
        Step::Move { note: 3 },
        Step::Retarget { from: 0, to: 1 },
        Step::DecideRun {
            pick: 2470752444453882439,
            accept: true,
        },
        Step::Save,
        Step::Move { note: 3 },
        Step::Apply {
            pick: 6060332805397202092,
            accept: 0,
            crash: None,
        },
    ];
    let shown = check_unrefused(&steps).unwrap();
    let links = |note: &str| {
        shown[note]
            .lines()
            .find(|l| l.starts_with("Links"))
            .map(str::to_owned)
    };
    assert_eq!(
        links("Notes/Beta.md").as_deref(),
        Some("Links: [[Gamma]] and [[Delta 1]].")
    );
    assert_eq!(
        links("Notes/Gamma.md").as_deref(),
        Some("Links: [[Delta 1]] and [[Alpha]].")
    );
    let mut again = steps.to_vec();
    again.extend([
        Step::UndoLast { redo: false },
        Step::UndoLast { redo: true },
    ]);
    check_unrefused(&again).unwrap();
    // The path the note left is stored with the review: after a restart
    // the links follow it the same way.
    let mut restarted = steps.to_vec();
    restarted.insert(6, Step::Restart);
    assert_eq!(check_unrefused(&restarted).unwrap(), shown);
}

/// Found by a strict run: a move rejected with its link update, which a
/// rejection of what the update stands on carried, then that rejection set
/// back to pending: the link update comes back, and with it its move and
/// its other link updates (before, the decision was refused: the link
/// named where the note was not).
#[test]
fn setting_back_what_carried_a_moves_rejection_brings_the_move_back() {
    check_unrefused(&[
        edit(0, 5),
        Step::Edit {
            note: 0,
            line: 3,
            text: "ب".into(),
        },
        Step::Convert { markdown: true },
        Step::Move { note: 3 },
        Step::Decide {
            pick: 2219794542282421106,
            accept: false,
        },
        Step::Scoped {
            pick: 9680311608009739682,
            hunk: 0,
            undo: false,
        },
        Step::Undo {
            pick: 10884026308509464737,
        },
    ])
    .unwrap();
}

/// Found by a strict run: a note linking to itself by its name on disk
/// (an accepted, saved retarget), the link hidden in the working state by
/// a pending edit when the note is renamed (so the move has no link update
/// for it), then an apply that saves the move: the save keeps the move
/// back, as it does for another note that would still link to the old
/// path, instead of leaving the note's link to itself dangling on disk.
#[test]
fn a_save_keeps_back_a_move_whose_note_would_still_link_to_itself_by_its_old_name() {
    check_unrefused(&[
        Step::Edit {
            note: 0,
            line: 4,
            text: "ß".into(),
        },
        Step::Retarget { from: 1, to: 0 },
        Step::Edit {
            note: 0,
            line: 3,
            text: "a".into(),
        },
        Step::Move { note: 0 },
        Step::Decide {
            pick: 2523623860796905431,
            accept: true,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "本".into(),
        },
        Step::EachNote {
            line: 3,
            text: "日".into(),
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "本".into(),
        },
        Step::Save,
        Step::Apply {
            pick: 13100868799595187635,
            accept: 161,
            crash: None,
        },
    ])
    .unwrap();
}

/// Found by the release explore run: a move rejected with its link
/// updates, the rejection set back to pending (the links follow the move as
/// new link updates), and a scoped rollback that rejects, as a consequence,
/// one of those new updates: the old update, rejected with the move before,
/// read as the user's choice to leave the link, so the link dangled. The
/// rollback now takes the move back with it.
#[test]
fn a_scoped_rollback_rejecting_a_link_that_followed_a_move_back_takes_the_move() {
    check(&[
        Step::Replace {
            word: 0,
            with: "ß".into(),
            whole_word: false,
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::EachNote {
            line: 5,
            text: "本".into(),
        },
        Step::Edit {
            note: 3,
            line: 5,
            text: "é".into(),
        },
        Step::Decide {
            pick: 132688686397026072,
            accept: false,
        },
        Step::Rollback {
            pick: 0,
            undo: false,
        },
        Step::Type { note: 0 },
        Step::Move { note: 1 },
        Step::Move { note: 0 },
        Step::Scoped {
            pick: 3722046730993035125,
            hunk: 0,
            undo: false,
        },
        Step::Rollback {
            pick: 1190479313015817687,
            undo: false,
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Replace {
            word: 0,
            with: " ".into(),
            whole_word: false,
        },
        Step::UndoLast { redo: false },
        Step::UndoLast { redo: false },
        Step::Convert { markdown: true },
        Step::Decide {
            pick: 4717280860095763893,
            accept: false,
        },
        Step::Undo {
            pick: 5970544710775992681,
        },
        Step::Scoped {
            pick: 6345648110582747837,
            hunk: 0,
            undo: false,
        },
    ])
    .unwrap();
}

/// Found by a strict release explore run: a move accepted with its run's
/// other hunks rejected by an apply, a rollback undone, the move saved and
/// its note staged for deletion (the move is final), then the history's
/// undo of the rollback's undo: that is a rollback to before the saved
/// move, refused as a rollback is (the design's one refusal), and the
/// model now counts it with the rollbacks, not as a refused decision.
#[test]
fn undoing_a_rollbacks_undo_across_a_saved_move_is_refused_as_a_rollback() {
    check_unrefused(&[
        Step::Replace {
            word: 0,
            with: "日".into(),
            whole_word: false,
        },
        Step::Move { note: 2 },
        Step::Apply {
            pick: 0,
            accept: 0,
            crash: None,
        },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::Rollback {
            pick: 474026757506491637,
            undo: true,
        },
        Step::Save,
        Step::Delete { note: 2 },
        Step::UndoLast { redo: false },
    ])
    .unwrap();
}

/// Found by a strict release explore run: two notes moved with a run's
/// conversions, an apply that accepts and saves them, one of them moved
/// again (its first move final), and the history's undo of the apply:
/// it left the final move's accepted link update where it was but set the
/// conversion under it back to pending, which took the update along, and
/// the next save wrote the note's link to where the note was. What a hunk
/// that stays stands on now stays with it, as an undo of a decision keeps.
#[test]
fn undoing_an_apply_keeps_what_a_final_moves_link_update_stands_on() {
    check_unrefused(&[
        Step::Convert { markdown: true },
        Step::Move { note: 3 },
        Step::Move { note: 1 },
        Step::Edit {
            note: 0,
            line: 3,
            text: "é".into(),
        },
        Step::Decide {
            pick: 1819848234503191622,
            accept: false,
        },
        Step::Apply {
            pick: 6026898050536713906,
            accept: 55,
            crash: None,
        },
        Step::Move { note: 1 },
        Step::UndoLast { redo: false },
        Step::Save,
    ])
    .unwrap();
}

/// Found by a strict release explore run (the one refused decision of the
/// long run before): a note moved and its move rejected, then staged for
/// deletion (the move retired, final, and its link updates with it), and
/// another note's rejected move, whose link update in that note stands on
/// one of them, set back to pending: the final update was to come back
/// with it, and the decision was refused (`Settled`). It stays rejected
/// now, and the link follows the move as a new update.
#[test]
fn bringing_a_move_back_leaves_its_final_link_update_and_the_link_follows() {
    check_unrefused(&[
        Step::Convert { markdown: true },
        Step::Move { note: 3 },
        Step::Move { note: 0 },
        Step::Decide {
            pick: 13855496078506566996,
            accept: false,
        },
        Step::Decide {
            pick: 108458173016260676,
            accept: false,
        },
        Step::Delete { note: 3 },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Restart,
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::DecideRun {
            pick: 13640950726734314276,
            accept: false,
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "ب".into(),
        },
        Step::Undo {
            pick: 3823387135670271269,
        },
    ])
    .unwrap();
}

/// A move rejected, links written since to where the note was (a
/// retarget), and the rejection undone: the move comes back and those links
/// follow it, as link updates of the move staged by the undo (before, the
/// undo was refused). Undoing the undo takes them back with it.
#[test]
fn undoing_a_moves_rejection_under_links_written_since_takes_them_along() {
    let steps = [
        Step::Move { note: 0 },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Retarget { from: 1, to: 0 },
        Step::UndoLast { redo: false },
    ];
    let shown = walk(&steps).unwrap();
    assert!(shown.contains_key("Archive/Alpha 0.md"), "{shown:?}");
    assert_eq!(
        shown["Notes/Delta.md"]
            .lines()
            .find(|l| l.starts_with("Links")),
        Some("Links: [[Alpha 0]] and [[Alpha 0]].")
    );
    // The undo is a step of its own: redone, the move goes with its links.
    let mut again = steps.to_vec();
    again.push(Step::UndoLast { redo: true });
    walk(&again).unwrap();
}

/// A rollback that takes a move's link update from a note it restores
/// (the move goes back to rejected with it), then the move brought back:
/// the restored link follows it, staged anew (before, the move could only
/// be rejected: "it lost a link update to a rollback").
#[test]
fn a_move_brought_back_after_a_rollback_took_its_link_update_takes_the_link_along() {
    let shown = walk(&[
        edit(0, 4),
        Step::Move { note: 1 },
        Step::Rollback {
            pick: 1,
            undo: false,
        },
        Step::Undo { pick: 1 },
    ])
    .unwrap();
    assert!(shown.contains_key("Archive/Beta 1.md"), "{shown:?}");
    assert!(shown["Notes/Alpha.md"].contains("[[Beta 1]]"), "{shown:?}");
}

/// Found by an unpinned run: Alpha moved, the move rolled back by hunk and
/// that undone, edits, a replacement, Alpha's move accepted and saved, its
/// deletion staged, then a hard rollback and a Save all: no link on disk
/// dangles after it.
#[test]
fn a_rollback_past_a_saved_move_and_a_deletion_saves_no_link_behind() {
    check(&[
        Step::Move { note: 0 },
        Step::Scoped {
            pick: 0,
            hunk: 0,
            undo: false,
        },
        Step::Edit {
            note: 2,
            line: 3,
            text: "ß".into(),
        },
        Step::UndoLast { redo: false },
        Step::Replace {
            word: 0,
            with: " ".into(),
            whole_word: false,
        },
        Step::EachNote {
            line: 3,
            text: "a".into(),
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "b".into(),
        },
        Step::Decide {
            pick: 6609550882449623280,
            accept: true,
        },
        Step::Save,
        Step::Delete { note: 0 },
        Step::Edit {
            note: 1,
            line: 3,
            text: "日".into(),
        },
        Step::Rollback {
            pick: 1689698539817074351,
            undo: false,
        },
        Step::SaveAll { crash: None },
    ])
    .unwrap();
}

/// Found by an unpinned run: a replacement, an edit, a rollback, another
/// program's change, a conversion to Markdown links, Alpha moved, then a
/// scoped rollback of one hunk: no link to Alpha dangles after it.
#[test]
fn a_scoped_rollback_after_a_conversion_and_a_move_breaks_no_link() {
    check(&[
        Step::Replace {
            word: 0,
            with: "日".into(),
            whole_word: false,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "ب".into(),
        },
        Step::Rollback {
            pick: 1125510442007312261,
            undo: false,
        },
        Step::Outside {
            note: 0,
            review: true,
        },
        Step::Convert { markdown: true },
        Step::Move { note: 0 },
        Step::Scoped {
            pick: 165980868618443071,
            hunk: 848051617894668450,
            undo: false,
        },
    ])
    .unwrap();
}

/// Found by an unpinned run: Beta edited and deleted, rollbacks around a
/// retarget to Alpha, Alpha moved, undos, a restart, then the history's
/// undo of the last rollback. It gives back Beta as it was before that
/// rollback, its link to Alpha's old path dangling then (an undone
/// rollback had brought back the retarget beside the move): the checker
/// now takes an undone rollback's notes as it gave them back, and flags
/// only a link that was whole before that rollback too.
#[test]
fn undoing_a_rollback_after_a_restart_breaks_no_link() {
    check(&[
        Step::Edit {
            note: 1,
            line: 4,
            text: "ب".into(),
        },
        Step::Delete { note: 1 },
        Step::EachNote {
            line: 4,
            text: "ß".into(),
        },
        Step::Rollback {
            pick: 2044795016760888019,
            undo: false,
        },
        Step::Retarget { from: 2, to: 0 },
        Step::Rollback {
            pick: 3495139932687505366,
            undo: false,
        },
        Step::Move { note: 0 },
        Step::UndoLast { redo: false },
        edit(0, 3),
        Step::Rollback {
            pick: 14803391067063897613,
            undo: false,
        },
        Step::Restart,
        edit(0, 3),
        Step::UndoLast { redo: false },
    ])
    .unwrap();
}

/// Found by an unpinned run: Gamma moved, a conversion, an apply rejecting
/// a run, a retarget to Gamma, then the history's undo of the apply: every
/// hunk ends where the undo says it moved it (a hunk it brought back and
/// the rule across notes took again is reported as not moved).
#[test]
fn undoing_an_apply_before_a_retarget_reports_what_it_moved() {
    check(&[
        Step::Move { note: 2 },
        Step::Convert { markdown: true },
        Step::Apply {
            pick: 8740569866017174727,
            accept: 0,
            crash: None,
        },
        Step::Retarget { from: 0, to: 2 },
        Step::UndoLast { redo: false },
    ])
    .unwrap();
}

/// Found by an unpinned release run: Beta moved, a link to it retargeted
/// and accepted with the run, Delta edited and saved, then a rollback and
/// a save: no link on disk names where Beta was.
#[test]
fn a_rollback_after_a_saved_retarget_to_a_moved_note_saves_no_link_behind() {
    check(&[
        Step::Move { note: 1 },
        Step::Edit {
            note: 0,
            line: 3,
            text: "ب".into(),
        },
        Step::Retarget { from: 0, to: 1 },
        Step::DecideRun {
            pick: 1046969317957511075,
            accept: true,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "本".into(),
        },
        Step::Save,
        Step::Rollback {
            pick: 15101377416743631498,
            undo: false,
        },
        Step::Save,
    ])
    .unwrap();
}

/// Found by an unpinned release run: after a save, a deletion and setting
/// a conversion back to pending (a saved move's link updates standing on it
/// went with it), the history's redo of that step puts back exactly what
/// it moved: the update too, which an undo would leave where it is.
#[test]
fn redoing_a_set_back_after_a_deletion_moves_only_what_it_moved() {
    check(&[
        Step::Convert { markdown: true },
        Step::Replace {
            word: 0,
            with: "a".into(),
            whole_word: false,
        },
        Step::Decide {
            pick: 8897677221938681908,
            accept: false,
        },
        Step::DecideRun {
            pick: 10036068891242940744,
            accept: true,
        },
        Step::Move { note: 2 },
        Step::Decide {
            pick: 24158821250958504,
            accept: false,
        },
        Step::Decide {
            pick: 1752566166168097448,
            accept: true,
        },
        Step::Save,
        Step::Delete { note: 2 },
        Step::Undo {
            pick: 112753531682722998,
        },
        Step::UndoLast { redo: true },
    ])
    .unwrap();
}

/// Found by an unpinned release run: a move's link update rejected, the
/// note moved again, an edit undone by the history, then an apply: no
/// link on disk names where Alpha was.
#[test]
fn an_apply_after_a_second_move_and_an_undo_breaks_no_link_on_disk() {
    check(&[
        Step::Convert { markdown: false },
        Step::Move { note: 0 },
        Step::Retarget { from: 0, to: 2 },
        Step::Decide {
            pick: 299371538407153,
            accept: false,
        },
        Step::Move { note: 2 },
        Step::Edit {
            note: 0,
            line: 3,
            text: "ب".into(),
        },
        Step::UndoLast { redo: false },
        Step::Apply {
            pick: 14786357954269749602,
            accept: 223,
            crash: None,
        },
    ])
    .unwrap();
}

/// Found by an unpinned explore run: a note typed in, rolled back, moved and
/// saved, moved again, then a hard rollback: the note (only the user's
/// typing in the checkpoint, no hunk) is found where it is under review by
/// its log's entries; it was put back a second time at its old path, and
/// the store refused the same entry ids twice.
#[test]
fn a_rollback_after_a_second_move_of_a_typed_note_is_stored() {
    check(&[
        Step::Type { note: 3 },
        Step::Edit {
            note: 0,
            line: 3,
            text: "ß".into(),
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "a".into(),
        },
        Step::Rollback {
            pick: 0,
            undo: false,
        },
        Step::Retarget { from: 1, to: 2 },
        Step::Rollback {
            pick: 11247755210320702677,
            undo: false,
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Move { note: 3 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::SaveAll { crash: None },
        Step::Move { note: 3 },
        Step::Rollback {
            pick: 11409484958776636782,
            undo: false,
        },
    ])
    .unwrap();
}

/// Found by an unpinned strict run on the final engine of 2026-11-30: an
/// apply cut off by a crash, the note moved again, a hunk set back, an
/// edit and a second apply, then the history's undo of that apply: Gamma's
/// working text reads `[[Beta[[Beta 5]]`, a link update left counting over
/// words the undo took out, where it read `[[Beta 5]]` before the apply.
#[test]
fn undoing_an_apply_after_a_crashed_one_leaves_every_link_whole() {
    check(&[
        Step::Replace {
            word: 0,
            with: "ß".into(),
            whole_word: false,
        },
        Step::AgentWrite { note: 0 },
        Step::Retarget { from: 0, to: 1 },
        Step::Move { note: 1 },
        Step::Apply {
            pick: 361314085641229652,
            accept: 73,
            crash: Some(0),
        },
        Step::Move { note: 1 },
        Step::Undo {
            pick: 108126891136959797,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: " ".into(),
        },
        Step::Apply {
            pick: 9438252768795200211,
            accept: 0,
            crash: None,
        },
        Step::UndoLast { redo: false },
    ])
    .unwrap();
}

/// Found by an unpinned strict run: a hard rollback to a checkpoint that
/// held a note where a saved move had put it, after a rollback that took
/// that move back was saved, was refused ("several notes answer to those
/// links"): the links written since to where the note is on disk would
/// dangle, and no move of the note's own was found for them to follow.
/// They follow the accepted move that holds the note there now, as link
/// updates of it, and the next save writes them with the move.
#[test]
fn a_rollback_to_where_a_rolled_back_move_had_put_a_note_takes_its_links_along() {
    let mut steps = vec![
        Step::Move { note: 3 },
        Step::Apply {
            pick: 0,
            accept: 11,
            crash: None,
        },
        Step::Delete { note: 3 },
        Step::Retarget { from: 0, to: 1 },
        Step::Rollback {
            pick: 2,
            undo: true,
        },
        Step::UndoLast { redo: false },
        Step::SaveAll { crash: None },
        Step::Rollback {
            pick: 1,
            undo: false,
        },
    ];
    check_unrefused(&steps).unwrap();
    steps.push(Step::SaveAll { crash: None });
    check_unrefused(&steps).unwrap();
    steps.push(Step::UndoLast { redo: true });
    steps.push(Step::SaveAll { crash: None });
    check_unrefused(&steps).unwrap();
}

/// Found by an unpinned strict run on 5d5810ed: a rollback that brings back
/// a deleted note staged a link update in it to follow a pending move of
/// another note; undoing the rollback dropped that update and, as the move
/// of a dropped link update, rejected the move too, so the undo did not
/// give back what was (the note shown at its old path). A note put back as
/// deleted leaves no link behind: the move stays.
#[test]
fn undoing_a_rollback_that_brought_a_deleted_note_back_leaves_a_move_pending() {
    check(&[
        Step::Delete { note: 2 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::Rollback {
            pick: 0,
            undo: false,
        },
        Step::Replace {
            word: 0,
            with: "ب".into(),
            whole_word: false,
        },
        Step::UndoLast { redo: false },
        Step::Move { note: 0 },
        Step::EachNote {
            line: 4,
            text: "日".into(),
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "本".into(),
        },
        Step::Decide {
            pick: 515637690499839765,
            accept: true,
        },
        Step::Apply {
            pick: 0,
            accept: 13,
            crash: None,
        },
        Step::Move { note: 0 },
        Step::Rollback {
            pick: 1148291068215131873,
            undo: true,
        },
    ])
    .unwrap();
}

/// Found by an unpinned run on d186e7fb, a regression of the rule before
/// it: undoing a rollback put back a note whose deletion was pending (so
/// still on disk, with its links) as if it were gone, kept the move one
/// of its dropped link updates follows, and the move came back rejected
/// by the link rule instead of as it was. Only a deletion accepted and
/// saved leaves no link behind.
#[test]
fn undoing_a_rollback_over_a_pending_deletion_gives_back_the_move() {
    check(&[
        Step::Delete { note: 0 },
        Step::Scoped {
            pick: 0,
            hunk: 0,
            undo: false,
        },
        Step::Edit {
            note: 0,
            line: 4,
            text: "日".into(),
        },
        Step::Move { note: 1 },
        Step::UndoLast { redo: false },
        Step::Rollback {
            pick: 0,
            undo: true,
        },
    ])
    .unwrap();
}

/// Found by an unpinned run on d186e7fb (and failing on the engine before
/// this session too): a hard rollback to the checkpoint of a replace,
/// after a rejection of a move had carried a second move's link update in
/// Gamma with it, brings the second move back pending while its link
/// update in Gamma stays rejected, and the link rule takes that for the
/// user's choice: Gamma's `[[Alpha]]` dangles. What a rollback rejects to
/// keep moves and link updates together carries, in turn, the moves of
/// the link updates it rejects, as a decision's consequences do.
#[test]
fn a_rollback_after_a_carried_rejection_leaves_no_link_to_the_old_path() {
    check(&[
        Step::EachNote {
            line: 4,
            text: "a".into(),
        },
        Step::Move { note: 3 },
        Step::Retarget { from: 1, to: 0 },
        Step::Convert { markdown: true },
        Step::Delete { note: 1 },
        Step::Move { note: 0 },
        Step::Replace {
            word: 0,
            with: "日".into(),
            whole_word: false,
        },
        Step::Decide {
            pick: 14998102233014715847,
            accept: false,
        },
        Step::Rollback {
            pick: 7212315712172511325,
            undo: false,
        },
    ])
    .unwrap();
}

/// Found by an unpinned strict run on d186e7fb (and failing on the engine
/// before this session too): setting back to pending a convert hunk an
/// apply had rejected, after the retarget it was written on was rejected
/// on its own, made it count over words that are not there
/// (`[[Alpha 1[Beta](Beta.md)`). An undo leaves a hunk where it is when
/// what it was written on stays rejected.
#[test]
fn undoing_a_rejection_over_a_hunk_rejected_since_garbles_no_link() {
    check(&[
        Step::Edit {
            note: 0,
            line: 4,
            text: "日".into(),
        },
        Step::Move { note: 0 },
        Step::Retarget { from: 0, to: 1 },
        Step::Decide {
            pick: 1725700034557148620,
            accept: false,
        },
        Step::Edit {
            note: 0,
            line: 4,
            text: "a".into(),
        },
        Step::Convert { markdown: true },
        Step::Apply {
            pick: 15364352034691523429,
            accept: 32,
            crash: None,
        },
        Step::Decide {
            pick: 1070039495658489237,
            accept: false,
        },
        Step::Decide {
            pick: 191367497533795981,
            accept: false,
        },
        Step::Undo {
            pick: 3509030791122339124,
        },
    ])
    .unwrap();
}

/// Found by an unpinned run on b9466592: a saved move, a pending deletion
/// of the moved note, a rollback to before the move was saved (taking the
/// move back, and its link updates in Alpha and Delta with it), then a
/// rollback to the deletion's checkpoint, which puts the note back where
/// the move had taken it. The link updates the first rollback rejected
/// were read as the user's choice to leave those links, and `[[Beta]]`
/// dangled: a link update rejected while its move did not count is no
/// one's choice, and its links follow the move brought back.
#[test]
fn a_second_rollback_after_a_deletion_leaves_no_link_to_the_old_path() {
    check(&[
        Step::Move { note: 1 },
        Step::Edit {
            note: 3,
            line: 3,
            text: "a".into(),
        },
        Step::Apply {
            pick: 7373808245988491594,
            accept: 188,
            crash: None,
        },
        Step::Replace {
            word: 0,
            with: "a".into(),
            whole_word: false,
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Apply {
            pick: 3116813668423631433,
            accept: 1,
            crash: None,
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Delete { note: 1 },
        Step::Rollback {
            pick: 8095411877857254901,
            undo: false,
        },
        Step::Rollback {
            pick: 10453925858618350412,
            undo: false,
        },
    ])
    .unwrap();
}

/// Found by an unpinned run on b9466592: an apply that accepts a move
/// rejected before, while a note that holds one of its link updates is
/// hidden by a pending deletion and links by a later retarget to where
/// the note was. The move was kept back (a saved link would name its old
/// path), but the hidden note was written, with its link update naming
/// where the move takes the note: on disk it dangled. A note that links
/// to both is kept back with the move.
#[test]
fn an_apply_after_a_deletion_leaves_no_link_broken_on_disk() {
    check(&[
        Step::Edit {
            note: 0,
            line: 4,
            text: "ب".into(),
        },
        Step::Move { note: 1 },
        Step::Apply {
            pick: 6673274476018147129,
            accept: 158,
            crash: None,
        },
        Step::Retarget { from: 2, to: 1 },
        Step::Delete { note: 0 },
        Step::Decide {
            pick: 13746607287607695433,
            accept: true,
        },
        Step::Apply {
            pick: 833583620188532101,
            accept: 157,
            crash: None,
        },
    ])
    .unwrap();
}

/// Found by an unpinned strict run on 9aff4a3e: conversions rejected by an
/// apply, a move accepted and saved with its link updates (written on the
/// rejected conversions), a deletion of the moved note, then an undo of the
/// apply. The conversions come back pending; the link rule writes new link
/// updates of the move over them (needing them) and the saved ones are set
/// aside. The disk view counted neither update (the new ones stand on
/// pending conversions), so saving Beta wrote `[[Delta]]` back, where no
/// note is. A link update set aside now stays on disk until what replaces
/// it counts there.
#[test]
fn a_save_after_undoing_a_deletion_of_a_moved_note_leaves_its_links_whole() {
    check(&[
        Step::Convert { markdown: true },
        Step::Apply {
            pick: 0,
            accept: 0,
            crash: None,
        },
        Step::Move { note: 3 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::SaveAll { crash: None },
        Step::Delete { note: 3 },
        Step::Undo {
            pick: 1583289110477024149,
        },
        Step::Save,
    ])
    .unwrap();
}

/// Found by an unpinned run on 9aff4a3e: two saved moves of Delta, a move
/// of Alpha, a rollback and its undo, a typed edit in Alpha, a deletion of
/// Delta, then an apply of the last run: Delta's note on disk kept
/// `[[Alpha]]` while its review said the save wrote `[[Alpha 6]]`. The
/// undo put back the review of Delta's note and then took out the one the
/// rollback had made, and with it the record of where the first one's
/// move takes the note: the deletion was staged on a second review of the
/// same note, which the apply wrote over the first one's text.
#[test]
fn an_apply_after_a_rolled_back_move_writes_what_its_review_says() {
    check(&[
        Step::Move { note: 3 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::Save,
        Step::Move { note: 3 },
        Step::DecideRun {
            pick: 723732050698512253,
            accept: true,
        },
        Step::Save,
        Step::Move { note: 0 },
        Step::Rollback {
            pick: 4030994009956278419,
            undo: false,
        },
        Step::UndoLast { redo: false },
        Step::Edit {
            note: 0,
            line: 3,
            text: "本".into(),
        },
        Step::Decide {
            pick: 1415414325488452921,
            accept: true,
        },
        Step::Delete { note: 3 },
        Step::Apply {
            pick: 3388833655486819939,
            accept: 30,
            crash: None,
        },
    ])
    .unwrap();
}

/// Found by an unpinned run on 9aff4a3e, the class of
/// `a_save_after_undoing_a_deletion_of_a_moved_note_leaves_its_links_whole`:
/// a save after undoing a hunk an apply rejected (which brings back, pending,
/// the link update of a saved move it was written on) wrote Alpha's link
/// to Gamma, moved and saved, back to the path Gamma left. The link update
/// the apply wrote instead, set aside, now stays on disk.
#[test]
fn a_save_after_undoing_a_crashed_apply_leaves_the_links_to_a_saved_move_whole() {
    check(&[
        Step::Replace {
            word: 0,
            with: "本".into(),
            whole_word: false,
        },
        Step::Convert { markdown: true },
        Step::Move { note: 2 },
        Step::Edit {
            note: 0,
            line: 3,
            text: "本".into(),
        },
        Step::Apply {
            pick: 8286082194751031110,
            accept: 253,
            crash: None,
        },
        Step::Move { note: 2 },
        Step::Edit {
            note: 0,
            line: 3,
            text: " ".into(),
        },
        Step::Apply {
            pick: 3194466137693174966,
            accept: 0,
            crash: Some(0),
        },
        Step::Undo {
            pick: 2116748720023234434,
        },
        Step::Save,
    ])
    .unwrap();
}

/// Found by an unpinned run on 74d92e2d: a deletion saved, a rollback and
/// undos that leave it saved, a move of Alpha whose link update in the
/// deleted note an undo then drops (the note is put back deleted, so no
/// link needs it), and a rollback of the move's run, undone. The undo took
/// Alpha's move for the link update gone, where it had been before the
/// rollback too; now it gives the notes back as they were.
#[test]
fn an_undo_of_a_rollback_after_an_undone_move_gives_back_the_notes() {
    check(&[
        Step::Delete { note: 2 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::Save,
        Step::Rollback {
            pick: 0,
            undo: true,
        },
        Step::UndoLast { redo: false },
        Step::Move { note: 0 },
        Step::UndoLast { redo: false },
        Step::Rollback {
            pick: 0,
            undo: true,
        },
    ])
    .unwrap();
}

/// Found by an unpinned run on bfde1f55: after a crashed apply, moves of
/// Beta (one saved), conversions and edits, an undo sets back to pending a
/// hunk in Delta that the saved move's link update stands on; the update
/// goes pending with it, and an apply then wrote Delta's text from before
/// both, linking to where Beta was. A save now keeps back a note whose
/// saved text would link to a path a saved move left more often than the
/// disk and the working state do.
#[test]
fn an_apply_after_an_undo_over_a_crashed_apply_leaves_no_link_broken_on_disk() {
    check(&[
        Step::Replace {
            word: 0,
            with: "ب".into(),
            whole_word: false,
        },
        Step::Convert { markdown: true },
        Step::Move { note: 1 },
        Step::Edit {
            note: 0,
            line: 4,
            text: "é".into(),
        },
        Step::Apply {
            pick: 5870495681457037842,
            accept: 19,
            crash: Some(0),
        },
        Step::Convert { markdown: false },
        Step::Replace {
            word: 1,
            with: "ß".into(),
            whole_word: false,
        },
        Step::Move { note: 1 },
        Step::EachNote {
            line: 4,
            text: "ß".into(),
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "日".into(),
        },
        Step::Retarget { from: 2, to: 0 },
        Step::Undo {
            pick: 9057326933814690770,
        },
        Step::Apply {
            pick: 4367556601436620354,
            accept: 0,
            crash: None,
        },
    ])
    .unwrap();
}

/// Found by an unpinned run on bfde1f55: moves of Gamma and Beta, Beta's
/// saved with its link update in Gamma, a scoped rollback that rejects
/// that update with what it stands on, Beta moved on (so its saved move is
/// settled), then a scoped rollback undone. The undo accepted the update
/// again, as a rollback keeps a settled move's link updates; an undo gives
/// back its notes as they were.
#[test]
fn an_undo_of_a_scoped_rollback_after_moves_gives_back_the_notes() {
    check(&[
        Step::Retarget { from: 0, to: 1 },
        Step::Move { note: 2 },
        Step::Move { note: 1 },
        Step::Apply {
            pick: 10488049012842915164,
            accept: 19,
            crash: None,
        },
        Step::Scoped {
            pick: 1271809639874515535,
            hunk: 946203774539656225,
            undo: false,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "日".into(),
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "a".into(),
        },
        Step::Move { note: 1 },
        Step::Scoped {
            pick: 3211644126866869843,
            hunk: 0,
            undo: true,
        },
    ])
    .unwrap();
}

/// Found by an unpinned run on 87289325 (after 2.0 M steps on it): a move
/// of Alpha applied, then its deletion applied; a rollback of the move's
/// run, undone, then redone (the undo undone); Save all writes the
/// rollback (Alpha back at `Notes/Alpha.md`, the links to it put back);
/// then an undo of the rollback. It restored Alpha's review moved and
/// deleted, carried out, and dropped the note the rollback had put back at
/// `Notes/Alpha.md` from review, though the save had written it there: the
/// working state showed Alpha there, not under review, with the links to
/// `Alpha 2` dangling. Now the note a save wrote there is emptied, so that
/// the next save takes it off that path again.
#[test]
fn an_undo_after_a_save_all_following_a_rollback_breaks_no_link() {
    check(&[
        Step::Edit {
            note: 1,
            line: 3,
            text: "a".into(),
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Move { note: 0 },
        Step::Edit {
            note: 0,
            line: 3,
            text: "a".into(),
        },
        Step::Apply {
            pick: 10323537780982814434,
            accept: 133,
            crash: None,
        },
        Step::Delete { note: 0 },
        Step::Apply {
            pick: 4643612192761824907,
            accept: 103,
            crash: None,
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Rollback {
            pick: 6518740814389544378,
            undo: true,
        },
        Step::UndoLast { redo: false },
        Step::SaveAll { crash: None },
        Step::UndoLast { redo: false },
    ])
    .unwrap();
}

/// Found by an unpinned strict run on 87289325 (after 3.1 M steps on it):
/// a conversion, a move of Beta applied, a second move of Beta, then a
/// scoped rollback of Delta's conversion, which rejects the second move's
/// link update there and mends the link with a new one. Its undo dropped
/// that new update and took the second move with it (and Alpha's typing
/// on the move's update there), though Delta, put back, had the move's own
/// update again: a move a restored note keeps an update of now stays.
#[test]
fn an_undo_of_a_scoped_rollback_after_a_second_move_gives_back_the_notes() {
    check(&[
        Step::Outside {
            note: 0,
            review: true,
        },
        Step::Convert { markdown: true },
        Step::Move { note: 1 },
        Step::Apply {
            pick: 916164687448263635,
            accept: 11,
            crash: None,
        },
        Step::Move { note: 1 },
        Step::Edit {
            note: 0,
            line: 3,
            text: "ß".into(),
        },
        Step::Scoped {
            pick: 10422737727530467588,
            hunk: 4195895943031132170,
            undo: true,
        },
    ])
    .unwrap();
}

/// Found by an unpinned strict run on f3c41550 (after 1.0 M steps on it):
/// Alpha's move and Beta's, both accepted and unsaved, each with a link
/// update in Delta; Alpha's links line set back to pending, so that its
/// saved text links to Beta where Beta's move has no update. Saving Alpha
/// kept Beta's move back with Delta (Alpha would link to where Beta was),
/// but wrote Alpha's move, whose link update in Delta was kept back with
/// it: Delta's link to Alpha dangled on disk. A note whose save carries
/// out a move is now kept back with any note tied to it that is.
#[test]
fn a_save_keeps_a_move_back_with_a_note_tied_to_it_kept_back_by_another_move() {
    check(&[
        Step::EachNote {
            line: 3,
            text: "é".into(),
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: " ".into(),
        },
        Step::Apply {
            pick: 5605351610520306380,
            accept: 17,
            crash: None,
        },
        Step::Edit {
            note: 0,
            line: 4,
            text: "é".into(),
        },
        Step::Move { note: 0 },
        Step::Apply {
            pick: 1731607592811869329,
            accept: 0,
            crash: None,
        },
        Step::Move { note: 1 },
        Step::Retarget { from: 0, to: 2 },
        Step::Decide {
            pick: 5894332203422163624,
            accept: true,
        },
        Step::DecideRun {
            pick: 124367673796862332,
            accept: true,
        },
        Step::Undo {
            pick: 8901539477140680447,
        },
        Step::Save,
    ])
    .unwrap();
}

/// Found by an unpinned strict run on f3c41550: Gamma's move saved, a
/// second move of Gamma staged (no note links to it: Alpha's links line
/// was replaced), then a hard rollback of Alpha's run, which brings the
/// links line back with a link update of the second move written on it;
/// its undo drops that update and took the second move with it, though
/// Alpha, given back, names no link to Gamma. A rollback takes a move for
/// a dropped link update only where the note put back links by that name.
#[test]
fn an_undo_of_a_rollback_after_a_second_move_of_a_note_gives_it_back() {
    check(&[
        Step::EachNote {
            line: 3,
            text: "é".into(),
        },
        Step::DecideRun {
            pick: 0,
            accept: true,
        },
        Step::Rollback {
            pick: 0,
            undo: false,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "日".into(),
        },
        Step::UndoLast { redo: false },
        Step::Edit {
            note: 0,
            line: 3,
            text: "ß".into(),
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "日".into(),
        },
        Step::UndoLast { redo: true },
        Step::Move { note: 2 },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Type { note: 0 },
        Step::Apply {
            pick: 12408211152827450114,
            accept: 47,
            crash: None,
        },
        Step::Move { note: 2 },
        Step::Rollback {
            pick: 4512144958967785936,
            undo: true,
        },
    ])
    .unwrap();
}

/// Found by an unpinned run on 39469609: Delta's move rejected by a scoped
/// rollback, then a retarget writes a relative link in Delta to itself
/// (`./Delta.md`) and an undo brings the move back: the link, written
/// where Delta was, dangled where the move takes it. The note's own links
/// are checked from where it was and where it is now; they follow the
/// move the decision brought back, as the move's proposal rewrote them.
#[test]
fn an_undo_after_a_retarget_of_a_moved_note_breaks_no_link() {
    check(&[
        Step::Move { note: 3 },
        Step::Convert { markdown: true },
        Step::Edit {
            note: 0,
            line: 4,
            text: "本".into(),
        },
        Step::Scoped {
            pick: 6905396918683604357,
            hunk: 0,
            undo: false,
        },
        Step::Move { note: 1 },
        Step::Retarget { from: 1, to: 3 },
        Step::Undo { pick: 0 },
    ])
    .unwrap();
}

/// Found by an unpinned strict run on 39469609: Gamma's move saved, a
/// retarget writes `[[Gamma 2]]` in Delta (no tie: the move was settled),
/// then a hard rollback of the move's run puts Gamma back: it was refused,
/// with no move to follow. The pending hunk that wrote the link to where
/// the note was goes with the move now (rejected, in the rollback's plan).
#[test]
fn a_rollback_after_a_deleted_moved_note_is_retargeted_is_not_refused() {
    check_unrefused(&[
        Step::Edit {
            note: 0,
            line: 4,
            text: "日".into(),
        },
        Step::Apply {
            pick: 0,
            accept: 0,
            crash: None,
        },
        Step::Move { note: 2 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::Save,
        Step::Delete { note: 2 },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Replace {
            word: 0,
            with: "".into(),
            whole_word: false,
        },
        Step::Retarget { from: 0, to: 2 },
        Step::Edit {
            note: 0,
            line: 3,
            text: "本".into(),
        },
        Step::Decide {
            pick: 94187904479075346,
            accept: false,
        },
        Step::Decide {
            pick: 7348825290376751120,
            accept: false,
        },
        Step::Rollback {
            pick: 7242031279473460768,
            undo: false,
        },
    ])
    .unwrap();
}

/// Found by an unpinned run on 39469609: an undone rollback gives Beta
/// back with its link to Delta dangling (Delta's move pending, as before
/// the rollback); rejecting the move makes that link resolve; the undo of
/// that rejection brought the move back and the link rule, seeing the link
/// break against the state before the undo, had it follow the move (a new
/// link update in Beta): the undo did not give back the working state
/// before the rejection. An undo now gives back the notes with no entry
/// since the step as they were, a link that dangled then included (a step
/// keeps how many entry ids were issued when it was made).
#[test]
fn an_undo_after_undoing_a_rollback_of_deletions_gives_back_the_notes() {
    check(&[
        Step::Edit {
            note: 1,
            line: 3,
            text: "é".into(),
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "本".into(),
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Delete { note: 2 },
        Step::Delete { note: 1 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::Rollback {
            pick: 229803123166571851,
            undo: true,
        },
        Step::Move { note: 3 },
        Step::UndoLast { redo: false },
        Step::Edit {
            note: 0,
            line: 3,
            text: "a".into(),
        },
        Step::Decide {
            pick: 736391534283551348,
            accept: false,
        },
        Step::UndoLast { redo: false },
    ])
    .unwrap();
}

/// Found by an unpinned run on ce0482e7: the same as
/// `an_undo_after_undoing_a_rollback_of_deletions_gives_back_the_notes`
/// after a Save all and a note saved alone: Gamma, given back by an undone
/// rollback with its link to a moved Alpha dangling, got a link update
/// from the undo of Alpha's move's rejection.
#[test]
fn an_undo_after_saving_a_rollback_undone_gives_back_the_notes() {
    check(&[
        Step::Delete { note: 2 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::Rollback {
            pick: 0,
            undo: true,
        },
        Step::Move { note: 0 },
        Step::UndoLast { redo: false },
        Step::SaveAll { crash: None },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::SaveOne { note: 1 },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::UndoLast { redo: false },
    ])
    .unwrap();
}

/// Found by an unpinned run on 93bebbd3 (after about 2.5 M steps on it):
/// the undo of a rejection of Delta's move brought back a conversion that
/// a retarget's link update of Gamma's move was written over; that update,
/// rejected as a consequence, took Gamma's move and, with it, what Beta's
/// update of Delta's move stands on. Beta had nothing new since the step,
/// so the rule did not look at it, and its link to Delta dangled. A note
/// where an undo carries more than the step's own moves is checked again.
#[test]
fn an_undo_after_a_retarget_breaks_no_link_in_a_note_it_gives_back() {
    check(&[
        Step::Move { note: 2 },
        Step::Delete { note: 2 },
        Step::Convert { markdown: true },
        Step::Move { note: 3 },
        Step::Decide {
            pick: 647760730461069577,
            accept: false,
        },
        Step::Retarget { from: 0, to: 2 },
        Step::UndoLast { redo: false },
    ])
    .unwrap();
}

/// Found by an unpinned run on 93bebbd3 (after about 2.5 M steps on it):
/// Beta's edit rolled back, Delta's move rejected, Delta moved again with
/// a link update in Beta, then the rollback undone. The undo put Beta back
/// as it was before the rollback, its update of the second move dropped,
/// and took Beta for a note given back exactly, so the rule let its link
/// to Delta's old name dangle beside the second move. A note with
/// something new since the rollback is not given back exactly: the rule
/// checks its links (here the second move goes back).
#[test]
fn an_undo_after_a_rollback_and_a_second_move_breaks_no_link_in_a_note_it_gives_back() {
    check(&[
        Step::Move { note: 3 },
        Step::Edit {
            note: 1,
            line: 4,
            text: "ب".into(),
        },
        Step::Rollback {
            pick: 456135708478574892,
            undo: false,
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Move { note: 3 },
        Step::UndoLast { redo: false },
        Step::UndoLast { redo: false },
    ])
    .unwrap();
}

/// Found by an unpinned run on c0fb090e (after about 1.0 M steps on it):
/// Gamma moved and saved, its run rolled back and the rollback undone (the
/// undo a rollback of its own), Gamma moved again (its note keyed where the
/// saved move took it, the old path among those it left), and that undo
/// undone. The rollback put back for Gamma found no file holding its old
/// path and added it a second time: the note showed at both paths, and a
/// later save left links to where it was. The file a saved move took from
/// a path holds that path for a rollback.
#[test]
fn a_save_all_after_undoing_a_second_move_over_an_undone_rollback_leaves_no_link_broken_on_disk() {
    check(&[
        Step::Convert { markdown: true },
        Step::Scoped {
            pick: 0,
            hunk: 3105142659134684788,
            undo: false,
        },
        Step::Move { note: 2 },
        Step::Apply {
            pick: 0,
            accept: 27,
            crash: None,
        },
        Step::Rollback {
            pick: 1003469213800807229,
            undo: true,
        },
        Step::Move { note: 2 },
        Step::UndoLast { redo: false },
        Step::Save,
        Step::UndoLast { redo: false },
        Step::SaveAll { crash: None },
    ])
    .unwrap();
}

/// Found by an unpinned run on 2c008f82 (after about 3.0 M steps on it):
/// Delta's and Gamma's links to Alpha retargeted and rejected, Delta's
/// accepted and saved, Alpha moved (its link update in Gamma on the words
/// the retarget changes), the apply undone (Delta given back linking to
/// Alpha's old path, as it was), then the rejection undone and redone. The
/// redo staged a link update making Delta's link follow the move, so it
/// did not give back what was before the undo. A redo gives back as they
/// were the notes with nothing new since the undo, as an undo does those
/// with nothing new since the step.
#[test]
fn a_redo_after_undoing_an_apply_under_a_later_move_gives_back_the_statuses() {
    check(&[
        Step::Retarget { from: 0, to: 1 },
        Step::DecideRun {
            pick: 0,
            accept: false,
        },
        Step::Apply {
            pick: 0,
            accept: 1,
            crash: None,
        },
        Step::Move { note: 0 },
        Step::UndoLast { redo: false },
        Step::UndoLast { redo: true },
    ])
    .unwrap();
}

/// Found by an unpinned run on bcbe344d (after about 1.6 M steps on it):
/// Gamma moved (accepted and saved), then Gamma and Alpha deleted. A
/// rollback of the move's run puts Gamma back where it was (its log then
/// has no move) and rejects Beta's link update; a rollback of the deletion's
/// run then puts Gamma back where the saved move took it. Beta's update,
/// rejected while the move was out of review, was taken for the user's
/// choice to leave the link, which dangled: the link follows the note.
#[test]
fn a_second_rollback_after_a_saved_move_and_deletions_breaks_no_link() {
    check(&[
        Step::Edit {
            note: 2,
            line: 3,
            text: "a".into(),
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Move { note: 2 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::Save,
        Step::Delete { note: 2 },
        Step::Delete { note: 0 },
        Step::Rollback {
            pick: 5036250101375867619,
            undo: false,
        },
        Step::Rollback {
            pick: 4906705000130374321,
            undo: false,
        },
    ])
    .unwrap();
}

/// Found by an unpinned run on 5e6bb444 (after about 0.5 M steps on it):
/// undoing an apply that rejected two moves and a retarget between them,
/// after the first note's deletion was proposed, brings back the second
/// move but not Delta's link update of it (it stands on the retarget,
/// which stands on the first move, retired). Delta was taken as given
/// back as it was, so its link to Beta dangled: it follows the move.
#[test]
fn an_undo_of_a_deletion_after_an_apply_over_two_moves_breaks_no_link() {
    check(&[
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Move { note: 0 },
        Step::Retarget { from: 0, to: 1 },
        Step::Move { note: 1 },
        Step::Apply {
            pick: 17463115232371452582,
            accept: 30,
            crash: None,
        },
        Step::Delete { note: 0 },
        Step::UndoLast { redo: false },
    ])
    .unwrap();
}

/// Found by an unpinned run on 148eb09f (after about 2.6 M steps on it):
/// undoing a hunk's acceptance after a rollback had rejected it since set
/// it back to pending alone, in its file, with the link update it stands
/// on, while that update's move stayed rejected (the undo, not knowing the
/// step any more, was taken for one within a file). A rollback's undo
/// later could not give that state back, and the user's typing in the
/// hunk went. The move now comes back with its link update.
#[test]
fn an_undo_of_a_hunk_a_rollback_rejected_since_brings_back_its_move() {
    check(&[
        Step::Move { note: 2 },
        Step::Replace {
            word: 0,
            with: "ß".into(),
            whole_word: false,
        },
        Step::Decide {
            pick: 403848620291498410,
            accept: true,
        },
        Step::Apply {
            pick: 3641702110125579745,
            accept: 0,
            crash: None,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: " ".into(),
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "ß".into(),
        },
        Step::Edit {
            note: 0,
            line: 4,
            text: "本".into(),
        },
        Step::Decide {
            pick: 187324226334008317,
            accept: true,
        },
        Step::Replace {
            word: 0,
            with: "a".into(),
            whole_word: false,
        },
        Step::Scoped {
            pick: 3450935823583506437,
            hunk: 0,
            undo: true,
        },
        Step::UndoLast { redo: false },
        Step::Undo {
            pick: 6975273550099847572,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "ß".into(),
        },
        Step::Restart,
        Step::Rollback {
            pick: 0,
            undo: true,
        },
    ])
    .unwrap();
}

/// Undoing a rollback after a deletion undone by the history and a hunk
/// undone by hand gives back the working state before it: the note where
/// its move took it, and the link that follows it.
#[test]
fn undoing_a_rollback_after_undos_by_step_and_by_hunk_gives_back_the_move() {
    check(&[
        Step::Replace {
            word: 0,
            with: "a".into(),
            whole_word: false,
        },
        Step::Edit {
            note: 0,
            line: 4,
            text: "é".into(),
        },
        Step::Delete { note: 0 },
        Step::Rollback {
            pick: 461761089697098009,
            undo: false,
        },
        Step::Move { note: 1 },
        Step::Delete { note: 0 },
        Step::UndoLast { redo: false },
        Step::Undo { pick: 0 },
        Step::Rollback {
            pick: 669891701614594355,
            undo: true,
        },
    ])
    .unwrap();
}

/// Undoing an apply whose move was saved and moved on since leaves the
/// move and its link updates as they are, and a conversion it brings back
/// over the same words rejects them: that is a consequence, not the user's
/// choice, so the link follows the move and no save writes it dangling.
#[test]
fn undoing_an_apply_over_a_retired_move_leaves_no_link_dangling_on_disk() {
    check(&[
        Step::Move { note: 2 },
        Step::Delete { note: 2 },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Scoped {
            pick: 0,
            hunk: 0,
            undo: false,
        },
        Step::Convert { markdown: true },
        Step::Apply {
            pick: 771175548845684294,
            accept: 5,
            crash: None,
        },
        Step::Delete { note: 2 },
        Step::UndoLast { redo: false },
        Step::Save,
    ])
    .unwrap();
}

/// A link the user chose to leave (Beta's link update of Delta's move
/// rejected by name), then a hard rollback dropping the move and its
/// updates, then its undo: the notes come back as they were, Beta's link
/// left naming Delta's old path included, and Delta's move stays.
#[test]
fn undoing_a_rollback_gives_back_a_link_the_user_chose_to_leave() {
    check(&[
        Step::EachNote {
            line: 3,
            text: "a".into(),
        },
        Step::EachNote {
            line: 3,
            text: "本".into(),
        },
        Step::Rollback {
            pick: 9600443450166661657,
            undo: false,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "ب".into(),
        },
        Step::Move { note: 3 },
        Step::LeaveLink { pick: 0 },
        Step::Rollback {
            pick: 7942752719040530722,
            undo: true,
        },
    ])
    .unwrap();
}

/// A link the user chose to leave, then a save: found by the explore run
/// (see its trace).
#[test]
fn a_save_after_leaving_a_link_breaks_no_other_link_on_disk() {
    check(&[
        Step::Edit {
            note: 0,
            line: 4,
            text: "a".into(),
        },
        Step::Edit {
            note: 1,
            line: 4,
            text: "é".into(),
        },
        Step::Edit {
            note: 0,
            line: 4,
            text: "ß".into(),
        },
        Step::Edit {
            note: 0,
            line: 4,
            text: "ب".into(),
        },
        Step::Move { note: 0 },
        Step::Retarget { from: 0, to: 1 },
        Step::Edit {
            note: 1,
            line: 3,
            text: "a".into(),
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "ß".into(),
        },
        Step::Rollback {
            pick: 13731742309740194526,
            undo: false,
        },
        Step::Decide {
            pick: 4998292208378977127,
            accept: true,
        },
        Step::SaveAll { crash: None },
        Step::LeaveLink { pick: 0 },
        Step::Save,
    ])
    .unwrap();
}

/// A link the user chose to leave, then a rollback and its undo: found by
/// the explore run (see its trace).
#[test]
fn undoing_a_rollback_after_leaving_a_link_gives_back_the_working_state() {
    check(&[
        Step::Move { note: 0 },
        Step::Replace {
            word: 0,
            with: "a".into(),
            whole_word: false,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "ب".into(),
        },
        Step::Replace {
            word: 1,
            with: "ß".into(),
            whole_word: false,
        },
        Step::Delete { note: 1 },
        Step::Edit {
            note: 0,
            line: 3,
            text: "ب".into(),
        },
        Step::EachNote {
            line: 3,
            text: "a".into(),
        },
        Step::Rollback {
            pick: 9771111805658454520,
            undo: false,
        },
        Step::Replace {
            word: 1,
            with: " ".into(),
            whole_word: false,
        },
        Step::LeaveLink { pick: 0 },
        Step::Replace {
            word: 2,
            with: "日".into(),
            whole_word: false,
        },
        Step::Rollback {
            pick: 13276627843924271423,
            undo: true,
        },
    ])
    .unwrap();
}

/// A link update of a second move of a note whose first was saved,
/// rejected by name: the decision says which link it leaves.
#[test]
fn leaving_a_link_to_a_note_moved_twice_says_so() {
    check(&[
        Step::Move { note: 2 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::Restart,
        Step::Save,
        Step::Delete { note: 1 },
        Step::Move { note: 2 },
        Step::LeaveLink {
            pick: 5786770218620851332,
        },
    ])
    .unwrap();
}

/// A link update of a saved move rejected by name while the note is
/// hidden by a pending deletion, then a save: the decision says which link
/// it leaves, and only that link dangles on disk.
#[test]
fn leaving_a_link_to_a_note_being_deleted_says_so() {
    check(&[
        Step::Move { note: 1 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::Save,
        Step::Delete { note: 1 },
        Step::LeaveLink { pick: 0 },
        Step::Save,
    ])
    .unwrap();
}

/// A link update under a conversion left by choice, then the undo of a
/// hunk that decision carried: the undo takes back the whole decision.
#[test]
fn undoing_a_hunk_a_left_link_carried_takes_back_the_choice() {
    check(&[
        Step::Move { note: 0 },
        Step::Convert { markdown: true },
        Step::LeaveLink { pick: 0 },
        Step::Undo { pick: 0 },
    ])
    .unwrap();
}

/// A saved move, a deletion applied and undone, rejected, a rollback and
/// its undo, then a link update of the saved move rejected by name: the
/// decision says which link it leaves.
#[test]
fn leaving_a_link_after_an_undone_rollback_says_so() {
    check(&[
        Step::Move { note: 0 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::Save,
        Step::Delete { note: 0 },
        Step::Apply {
            pick: 5553135303236786705,
            accept: 187,
            crash: None,
        },
        Step::UndoLast { redo: false },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Rollback {
            pick: 992846130603674033,
            undo: true,
        },
        Step::LeaveLink { pick: 0 },
    ])
    .unwrap();
}

/// Found by the explore run on dda38ffd (see its trace).
#[test]
fn undoing_twice_after_an_undone_rollback_leaves_no_link_dangling() {
    check(&[
        Step::Delete { note: 2 },
        Step::Retarget { from: 3, to: 0 },
        Step::Decide {
            pick: 6430647079718736163,
            accept: false,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "日".into(),
        },
        Step::Decide {
            pick: 8216727808264403882,
            accept: true,
        },
        Step::Rollback {
            pick: 2948057728582421777,
            undo: true,
        },
        Step::Move { note: 3 },
        Step::UndoLast { redo: false },
        Step::Rollback {
            pick: 7090704458773197792,
            undo: true,
        },
        Step::UndoLast { redo: false },
        Step::UndoLast { redo: false },
    ])
    .unwrap();
}

/// Found by the explore run on dda38ffd (see its trace).
#[test]
fn an_apply_after_an_undone_rollback_and_a_retarget_breaks_no_link_on_disk() {
    check(&[
        Step::Move { note: 3 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "a".into(),
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "a".into(),
        },
        Step::Save,
        Step::Edit {
            note: 0,
            line: 3,
            text: "ب".into(),
        },
        Step::Move { note: 0 },
        Step::Rollback {
            pick: 10568059887318236939,
            undo: true,
        },
        Step::UndoLast { redo: false },
        Step::Retarget { from: 0, to: 1 },
        Step::Apply {
            pick: 14475947363539083862,
            accept: 31,
            crash: None,
        },
    ])
    .unwrap();
}

/// Found by the explore run on 8e8a83f8 (see its trace).
#[test]
fn a_save_after_leaving_a_link_in_a_note_being_deleted_breaks_no_link_on_disk() {
    check(&[
        Step::Edit {
            note: 0,
            line: 4,
            text: " ".into(),
        },
        Step::Edit {
            note: 2,
            line: 3,
            text: "日".into(),
        },
        Step::Move { note: 2 },
        Step::Edit {
            note: 0,
            line: 5,
            text: "ß".into(),
        },
        Step::Decide {
            pick: 5182857277504654290,
            accept: true,
        },
        Step::Decide {
            pick: 0,
            accept: false,
        },
        Step::Edit {
            note: 0,
            line: 4,
            text: "a".into(),
        },
        Step::Save,
        Step::Edit {
            note: 0,
            line: 4,
            text: "é".into(),
        },
        Step::Edit {
            note: 1,
            line: 3,
            text: " ".into(),
        },
        Step::Delete { note: 0 },
        Step::LeaveLink {
            pick: 7968081599302892222,
        },
        Step::Delete { note: 1 },
        Step::Decide {
            pick: 17262060138730063790,
            accept: false,
        },
        Step::Save,
    ])
    .unwrap();
}

/// The user's choice to leave a link is state of the review: a link
/// update rejected by name is marked so across a restart, and accepting it
/// again clears the mark, across a restart too.
#[test]
fn a_link_left_by_choice_is_remembered_across_a_restart() {
    let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = vault.path();
    std::fs::create_dir_all(root.join("Notes")).unwrap();
    for (i, name) in NOTES.iter().enumerate() {
        std::fs::write(root.join(format!("Notes/{name}.md")), note(i)).unwrap();
    }
    let mut ws = open(root, data.path());
    let mut edit = proposed("Notes/Beta.md", Operation::Move);
    edit.new_path = Some("Archive/Beta 1.md".into());
    ws.propose(&run(1), &[edit], &HunkLimits::default())
        .unwrap();
    let update = link_updates(&ws)[0].clone();
    let leaves = |ws: &Workspace| {
        let (path, i) = ws.review().find_hunk(&update).unwrap();
        ws.review().file(&path).unwrap().entries()[i].leaves_link
    };
    assert!(!leaves(&ws), "a pending update leaves nothing");
    let left = ws.decide(&update, Status::Rejected, None).unwrap();
    assert_eq!(left.links_left.len(), 1, "{:?}", left.links_left);
    assert!(leaves(&ws));
    drop(ws);
    let mut ws = open(root, data.path());
    assert!(leaves(&ws), "the choice is stored");
    ws.decide(&update, Status::Accepted, None).unwrap();
    assert!(!leaves(&ws), "accepted again, it leaves no link");
    drop(ws);
    assert!(!leaves(&open(root, data.path())));
}

/// Found by the explore run on 1d32a18e (see docs/testing.md).
#[test]
fn undoing_an_undo_of_a_link_left_under_a_pending_deletion_gives_back_the_link() {
    check(&[
        Step::Move { note: 3 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::SaveAll { crash: None },
        Step::Edit {
            note: 0,
            line: 3,
            text: " ".into(),
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "a".into(),
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: " ".into(),
        },
        Step::Delete { note: 3 },
        Step::Edit {
            note: 1,
            line: 3,
            text: "日".into(),
        },
        Step::LeaveLink {
            pick: 6547730257503347738,
        },
        Step::Undo {
            pick: 91716973899489837,
        },
        Step::UndoLast { redo: false },
    ])
    .unwrap();
}

/// Found by the explore run on 473d8aae: an undo by hunk after a link left
/// by choice under a second move left Beta's link to Delta dangling.
#[test]
fn undoing_a_hunk_after_a_link_left_under_a_second_move_leaves_no_link_dangling() {
    check(&[
        Step::Move { note: 3 },
        Step::AcceptFile { note: 1 },
        Step::Replace {
            word: 0,
            with: "日".into(),
            whole_word: false,
        },
        Step::Edit {
            note: 0,
            line: 3,
            text: "a".into(),
        },
        Step::AgentWrite { note: 0 },
        Step::SaveAll { crash: None },
        Step::Move { note: 3 },
        Step::LeaveLink {
            pick: 9355408627272043346,
        },
        Step::Undo {
            pick: 617222246353574181,
        },
    ])
    .unwrap();
}

/// Found by the explore run on 14ef0270: a Save after an undo by hunk
/// over a link left by choice under a pending deletion of a moved note
/// broke Delta's link to Alpha on disk.
#[test]
fn a_save_after_undoing_a_link_left_under_a_deletion_of_a_moved_note_breaks_no_link() {
    check(&[
        Step::Move { note: 0 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::Save,
        Step::Delete { note: 0 },
        Step::Decide {
            pick: 0,
            accept: true,
        },
        Step::LeaveLink { pick: 0 },
        Step::Undo {
            pick: 2654320387200583509,
        },
        Step::Save,
    ])
    .unwrap();
}
