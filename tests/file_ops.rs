//! Notes that move and go, end to end on real files and a real store: a
//! move or a deletion is a hunk of its own, the links a move would break
//! are rewritten by the engine as hunks that follow it, and decisions,
//! saves, restarts and a crash between a save's steps keep the file in
//! exactly one place.

use std::path::Path;

#[path = "support/disk.rs"]
mod disk;

use redline::config::Limits;
use redline::edits::{FileOp, Operation, ProposedEdit};
use redline::hunks::triage::Rule;
use redline::hunks::{DiffBundle, HunkLimits};
use redline::project::{Project, View};
use redline::review::{Status, TieKind};
use redline::store::Store;
use redline::workspace::{RunInfo, Workspace, WorkspaceError};

const TARGET: &str = "Projects/Website Redesign.md";
const MOVED: &str = "Archive/Website 2027.md";

/// A vault with a note linked to in every form Obsidian knows.
fn vault(root: &Path) {
    let files = [
        (
            TARGET,
            "---\ntags: [web]\n---\n# Website Redesign\n\n## Goals\n\nShip it.\n",
        ),
        (
            "Daily/Monday.md",
            "Met about [[Website Redesign]] and [[Website Redesign#Goals|the goals]].\n\
             Also ![[Website Redesign]] embedded.\n\
             `[[Website Redesign]]` in code stays.\n",
        ),
        (
            "Daily/Tuesday.md",
            "See [the plan](../Projects/Website%20Redesign.md) today.\n",
        ),
        (
            "Index.md",
            "---\nrelated: \"[[Website Redesign]]\"\n---\n# Index\n\nNothing else links here.\n",
        ),
        ("Unrelated.md", "# Unrelated\n\nNo links at all.\n"),
    ];
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

fn open(root: &Path, data: &Path) -> Workspace {
    let project = Project::open(root, Limits::default()).unwrap();
    let store = Store::open(data, project.root()).unwrap();
    Workspace::open(project, store).unwrap()
}

fn op(id: &str, path: &str, operation: Operation, new_path: Option<&str>) -> ProposedEdit {
    ProposedEdit {
        edit_id: id.into(),
        file_path: path.into(),
        operation,
        start_line: 1,
        end_line: None,
        new_text: String::new(),
        old_text: None,
        expected_hash: None,
        rationale: String::new(),
        new_path: new_path.map(Into::into),
    }
}

fn run(job: &str) -> RunInfo {
    RunInfo {
        session_id: Some("sess_1".into()),
        job_id: job.into(),
        instruction: "Rename Website Redesign to Website 2027 and archive it".into(),
        seen: None,
        answers: Vec::new(),
        reads: Default::default(),
    }
}

fn read(root: &Path, path: &str) -> Option<String> {
    std::fs::read_to_string(root.join(path)).ok()
}

fn propose_move(ws: &mut Workspace) -> DiffBundle {
    let edits = [op("e_1", TARGET, Operation::Move, Some(MOVED))];
    ws.propose(&run("job_1"), &edits, &HunkLimits::default())
        .unwrap()
        .1
}

/// Rolls back to `checkpoint` whole (nothing kept) and saves every file
/// under review.
fn roll_back_whole(ws: &mut Workspace, checkpoint: &str) {
    let report = ws
        .rollback(checkpoint, redline::checkpoints::RollbackMode::HardAll, &[])
        .unwrap();
    assert!(
        report.files.iter().all(|f| f.status != "kept"),
        "{:?}",
        report.files
    );
    let paths: Vec<String> = ws.review().files().map(|f| f.path.clone()).collect();
    for path in paths {
        ws.save(&path).unwrap();
    }
}

fn status(ws: &Workspace, hunk: &str) -> Status {
    let (path, i) = ws.review().find_hunk(hunk).unwrap();
    ws.review().file(&path).unwrap().entries()[i].status
}

#[test]
fn a_move_rewrites_every_link_form_and_lands_whole() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    vault(root);
    let before = read(root, TARGET).unwrap();
    let mut ws = open(root, data.path());
    let bundle = propose_move(&mut ws);

    assert_eq!(bundle.file_ops.len(), 1);
    let mv = &bundle.file_ops[0];
    assert_eq!(mv.op, FileOp::Move { to: MOVED.into() });
    assert!(
        mv.patch.contains(&format!("rename from {TARGET}")),
        "{}",
        mv.patch
    );
    // Every file with a link to the note has hunks, and they follow the move.
    let linked: Vec<&str> = bundle.files.iter().map(|f| f.file_path.as_str()).collect();
    assert_eq!(linked, ["Daily/Monday.md", "Daily/Tuesday.md", "Index.md"]);
    let link_hunks: Vec<String> = bundle
        .files
        .iter()
        .flat_map(|f| f.hunks.iter().map(|h| h.hunk_id.clone()))
        .collect();
    let mut followers = mv.followers.clone();
    followers.sort();
    let mut expected = link_hunks.clone();
    expected.sort();
    assert_eq!(followers, expected);
    // Rewritten links resolve: none is flagged as dead.
    for hunk in bundle.files.iter().flat_map(|f| &f.hunks) {
        assert!(
            hunk.flags.iter().all(|f| f.rule != Rule::DeadLink),
            "{:?}",
            hunk.flags
        );
    }

    // One project view: the note is read at its new path, not at its old.
    let overlay = ws.overlay();
    let view = View::with(ws.project(), &overlay);
    assert_eq!(view.read_text(MOVED).unwrap().text, before);
    assert!(view.read_text(TARGET).is_err());
    let tree: Vec<String> = ws
        .tree("", false)
        .unwrap()
        .into_iter()
        .map(|e| e.path)
        .collect();
    assert!(tree.contains(&MOVED.to_owned()) && !tree.contains(&TARGET.to_owned()));
    // Nothing reached the disk.
    assert_eq!(read(root, TARGET).unwrap(), before);
    assert!(read(root, MOVED).is_none());

    let all: Vec<String> = bundle.hunk_ids().map(str::to_owned).collect();
    let applied = ws.apply(&bundle, &all, &mut |_| {}).unwrap();
    assert!(applied.iter().all(|a| a.status == "applied"), "{applied:?}");
    assert!(read(root, TARGET).is_none(), "no copy is left behind");
    assert_eq!(read(root, MOVED).unwrap(), before, "the note moved whole");
    assert_eq!(
        read(root, "Daily/Monday.md").unwrap(),
        "Met about [[Website 2027]] and [[Website 2027#Goals|the goals]].\n\
         Also ![[Website 2027]] embedded.\n\
         `[[Website Redesign]]` in code stays.\n"
    );
    assert_eq!(
        read(root, "Daily/Tuesday.md").unwrap(),
        "See [the plan](../Archive/Website%202027.md) today.\n"
    );
    assert!(
        read(root, "Index.md")
            .unwrap()
            .contains("related: \"[[Website 2027]]\"")
    );
    assert_eq!(ws.review_progress(&bundle).pending, 0);
    assert!(ws.review_progress(&bundle).saved);

    // Undone and saved again: the note goes back where it was.
    ws.decide_many(std::slice::from_ref(&mv.hunk_id), Status::Pending)
        .unwrap();
    ws.save(TARGET).unwrap();
    assert_eq!(read(root, TARGET).unwrap(), before);
    assert!(read(root, MOVED).is_none());
}

#[test]
fn rejecting_the_move_rejects_its_links_and_accepting_a_link_accepts_the_move() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    vault(root);
    let mut ws = open(root, data.path());
    let bundle = propose_move(&mut ws);
    let mv = bundle.file_ops[0].hunk_id.clone();
    let link = bundle.files[0].hunks[0].hunk_id.clone();

    let decision = ws.decide(&link, Status::Accepted, None).unwrap();
    assert!(decision.moves.iter().any(|m| m.hunk_id == mv));
    assert_eq!(status(&ws, &mv), Status::Accepted);

    let decision = ws.decide(&mv, Status::Rejected, None).unwrap();
    for follower in &bundle.file_ops[0].followers {
        assert_eq!(status(&ws, follower), Status::Rejected, "{follower}");
        assert!(decision.moves.iter().any(|m| m.hunk_id == *follower));
    }
    // Undoing the reject brings the move and its links back as one step.
    ws.decide(&mv, Status::Pending, None).unwrap();
    assert_eq!(status(&ws, &mv), Status::Accepted);
    assert_eq!(status(&ws, &link), Status::Accepted);

    // Rejecting one link alone leaves the move and the other links as they are.
    let other = bundle.files[1].hunks[0].hunk_id.clone();
    ws.decide(&other, Status::Rejected, None).unwrap();
    assert_eq!(status(&ws, &mv), Status::Accepted);
}

#[test]
fn a_pending_move_survives_a_restart_and_a_crash_between_a_saves_steps() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    vault(root);
    let before = read(root, TARGET).unwrap();
    let mv = {
        let mut ws = open(root, data.path());
        let bundle = propose_move(&mut ws);
        bundle.file_ops[0].hunk_id.clone()
    };
    let mut ws = open(root, data.path());
    assert_eq!(status(&ws, &mv), Status::Pending);
    let overlay = ws.overlay();
    assert_eq!(
        View::with(ws.project(), &overlay)
            .read_text(MOVED)
            .unwrap()
            .text,
        before
    );
    ws.decide(&mv, Status::Accepted, None).unwrap();
    drop(ws);
    // A crash after the rename, before the store heard of it.
    std::fs::create_dir_all(root.join("Archive")).unwrap();
    std::fs::rename(root.join(TARGET), root.join(MOVED)).unwrap();
    let mut ws = open(root, data.path());
    let file = ws.review().file(TARGET).unwrap();
    assert_eq!(
        file.disk_path(),
        Some(MOVED),
        "the move is recorded as done"
    );
    let state = ws.file_content(MOVED).unwrap().state;
    assert!(!state.conflict, "{state:?}");
    // Saving again changes nothing: the note is already where it belongs.
    ws.save(TARGET).unwrap();
    assert_eq!(read(root, MOVED).unwrap(), before);
    assert!(read(root, TARGET).is_none());
}

#[test]
fn a_deletion_is_flagged_with_the_links_it_breaks_and_can_be_undone() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    vault(root);
    let before = read(root, TARGET).unwrap();
    let mut ws = open(root, data.path());
    let edits = [op("e_1", TARGET, Operation::DeleteFile, None)];
    let bundle = ws
        .propose(&run("job_1"), &edits, &HunkLimits::default())
        .unwrap()
        .1;
    let del = &bundle.file_ops[0];
    assert_eq!(del.op, FileOp::Delete);
    assert!(bundle.files.is_empty(), "a deletion rewrites no link");
    let flag = del
        .flags
        .iter()
        .find(|f| f.rule == Rule::DeletesLinkedNote)
        .expect("flagged");
    assert!(flag.reason.contains("5 links"), "{}", flag.reason);
    let pending = ws.pending_hunks();
    assert!(pending.iter().any(|p| p.hunk_id == del.hunk_id));

    ws.decide(&del.hunk_id, Status::Accepted, None).unwrap();
    ws.save(TARGET).unwrap();
    assert!(read(root, TARGET).is_none());
    ws.decide(&del.hunk_id, Status::Pending, None).unwrap();
    ws.save(TARGET).unwrap();
    assert_eq!(
        read(root, TARGET).unwrap(),
        before,
        "restored byte for byte"
    );
}

#[test]
fn operations_that_cannot_be_done_are_refused_with_the_reason() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    vault(root);
    let mut ws = open(root, data.path());
    let refused = |ws: &mut Workspace, edits: &[ProposedEdit]| -> String {
        match ws.propose(&run("job_x"), edits, &HunkLimits::default()) {
            Err(WorkspaceError::Edits(errors)) => errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
            other => panic!("not refused: {other:?}"),
        }
    };
    let taken = refused(
        &mut ws,
        &[op("e_1", TARGET, Operation::Move, Some("Index.md"))],
    );
    assert!(taken.contains("already at `Index.md`"), "{taken}");
    let no_path = refused(&mut ws, &[op("e_1", TARGET, Operation::Move, None)]);
    assert!(no_path.contains("needs new_path"), "{no_path}");
    let escape = refused(
        &mut ws,
        &[op("e_1", TARGET, Operation::Move, Some("../out.md"))],
    );
    assert!(escape.contains("e_1"), "{escape}");
    let mut edit = op("e_2", TARGET, Operation::Replace, None);
    edit.new_text = "x".into();
    let both = refused(
        &mut ws,
        &[op("e_1", TARGET, Operation::DeleteFile, None), edit],
    );
    assert!(both.contains("lines of the file it deletes"), "{both}");
    assert!(read(root, TARGET).is_some(), "nothing was touched");

    propose_move(&mut ws);
    let again = refused(
        &mut ws,
        &[op("e_1", MOVED, Operation::Move, Some("Elsewhere.md"))],
    );
    assert!(again.contains("already has a move"), "{again}");
}

#[test]
fn a_follow_up_edits_a_moved_note_at_its_new_path() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    vault(root);
    let mut ws = open(root, data.path());
    let first = propose_move(&mut ws);
    let mut edit = op("e_1", MOVED, Operation::Replace, None);
    edit.start_line = 8;
    edit.new_text = "Ship it in 2027.".into();
    let second = ws
        .propose(&run("job_2"), &[edit], &HunkLimits::default())
        .unwrap()
        .1;
    // Under review by the path it had; shown, with the edit, at its new one.
    assert_eq!(second.files[0].file_path, TARGET);
    let shown = ws.file_content(MOVED).unwrap();
    assert!(shown.text.contains("Ship it in 2027."));
    let all: Vec<String> = first
        .hunk_ids()
        .chain(second.hunk_ids())
        .map(str::to_owned)
        .collect();
    ws.apply(&first, &all, &mut |_| {}).unwrap();
    ws.apply(&second, &all, &mut |_| {}).unwrap();
    assert!(read(root, TARGET).is_none());
    assert!(read(root, MOVED).unwrap().contains("Ship it in 2027."));
}

#[test]
fn a_hard_rollback_puts_a_saved_move_and_its_links_back() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    vault(root);
    let before: Vec<(String, Option<String>)> = [TARGET, MOVED, "Daily/Monday.md", "Index.md"]
        .iter()
        .map(|p| (p.to_string(), read(root, p)))
        .collect();
    let mut ws = open(root, data.path());
    let edits = [op("e_1", TARGET, Operation::Move, Some(MOVED))];
    let (checkpoint, bundle) = ws
        .propose(&run("job_1"), &edits, &HunkLimits::default())
        .unwrap();
    let all: Vec<String> = bundle.hunk_ids().map(str::to_owned).collect();
    ws.apply(&bundle, &all, &mut |_| {}).unwrap();
    assert!(read(root, TARGET).is_none());

    roll_back_whole(&mut ws, &checkpoint.checkpoint_id);
    for (path, text) in &before {
        assert_eq!(&read(root, path), text, "{path}");
    }
}

#[test]
fn a_scoped_rollback_of_a_move_takes_its_links_with_it() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    vault(root);
    let mut ws = open(root, data.path());
    let edits = [op("e_1", TARGET, Operation::Move, Some(MOVED))];
    let (checkpoint, bundle) = ws
        .propose(&run("job_1"), &edits, &HunkLimits::default())
        .unwrap();
    let mv = bundle.file_ops[0].hunk_id.clone();
    ws.rollback(
        &checkpoint.checkpoint_id,
        redline::checkpoints::RollbackMode::ScopedSelected,
        std::slice::from_ref(&mv),
    )
    .unwrap();
    assert_eq!(status(&ws, &mv), Status::Rejected);
    for follower in &bundle.file_ops[0].followers {
        assert_eq!(status(&ws, follower), Status::Rejected);
    }
    // Stored as decided: a restart keeps it.
    drop(ws);
    let ws = open(root, data.path());
    for follower in &bundle.file_ops[0].followers {
        assert_eq!(status(&ws, follower), Status::Rejected);
    }
}

#[test]
fn a_scoped_rollback_of_a_link_update_takes_its_move_and_its_plan_says_so() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    vault(root);
    let mut ws = open(root, data.path());
    let edits = [op("e_1", TARGET, Operation::Move, Some(MOVED))];
    let (checkpoint, bundle) = ws
        .propose(&run("job_1"), &edits, &HunkLimits::default())
        .unwrap();
    let mv = bundle.file_ops[0].hunk_id.clone();
    let link = bundle.file_ops[0].followers[0].clone();
    let scoped = redline::checkpoints::RollbackMode::ScopedSelected;
    let plan = ws
        .plan_rollback(
            &checkpoint.checkpoint_id,
            scoped,
            std::slice::from_ref(&link),
        )
        .unwrap();
    let planned: Vec<&str> = plan
        .dropped
        .iter()
        .chain(&plan.carried)
        .map(|h| h.hunk_id.as_str())
        .collect();
    assert!(planned.contains(&mv.as_str()), "{planned:?}");
    for follower in &bundle.file_ops[0].followers {
        assert!(planned.contains(&follower.as_str()), "{planned:?}");
    }
    ws.rollback(
        &checkpoint.checkpoint_id,
        scoped,
        std::slice::from_ref(&link),
    )
    .unwrap();
    assert_eq!(
        status(&ws, &mv),
        Status::Rejected,
        "the move went with its link"
    );
    for follower in &bundle.file_ops[0].followers {
        assert_eq!(status(&ws, follower), Status::Rejected);
    }
}

#[test]
fn a_moved_note_can_be_moved_again_and_a_kept_one_proposed_again() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    vault(root);
    let before = read(root, TARGET).unwrap();
    let mut ws = open(root, data.path());
    let first = propose_move(&mut ws);
    let all: Vec<String> = first.hunk_ids().map(str::to_owned).collect();
    ws.apply(&first, &all, &mut |_| {}).unwrap();

    // A second move refused (its target is taken) leaves the first as it
    // was: not retired, so still undoable.
    let taken = [op("e_1", MOVED, Operation::Move, Some("Unrelated.md"))];
    assert!(
        ws.propose(&run("job_2"), &taken, &HunkLimits::default())
            .is_err()
    );
    assert!(!ws.review().is_final(&first.file_ops[0].hunk_id));
    drop(ws);
    let mut ws = open(root, data.path());
    assert!(!ws.review().is_final(&first.file_ops[0].hunk_id));

    // Moved and saved: moved again from where it is now.
    let again = [op("e_1", MOVED, Operation::Move, Some("Final/Website.md"))];
    let (_, second) = ws
        .propose(&run("job_2"), &again, &HunkLimits::default())
        .unwrap();
    let all: Vec<String> = second.hunk_ids().map(str::to_owned).collect();
    ws.apply(&second, &all, &mut |_| {}).unwrap();
    assert_eq!(read(root, "Final/Website.md").unwrap(), before);
    assert!(read(root, MOVED).is_none() && read(root, TARGET).is_none());
    assert_eq!(
        read(root, "Daily/Tuesday.md").unwrap(),
        "See [the plan](../Final/Website.md) today.\n"
    );
    // The first move's hunk is still known, as decided.
    assert_eq!(status(&ws, &first.file_ops[0].hunk_id), Status::Accepted);
    // Applied again with nothing accepted, the first run leaves its move
    // as it is (settled: the note moved on since) instead of refusing, and
    // no link dangles.
    ws.apply(&first, &[], &mut |_| {}).unwrap();
    assert_eq!(status(&ws, &first.file_ops[0].hunk_id), Status::Accepted);
    assert_eq!(read(root, "Final/Website.md").unwrap(), before);
    assert_eq!(
        read(root, "Daily/Tuesday.md").unwrap(),
        "See [the plan](../Final/Website.md) today.\n"
    );

    // A rejected deletion: the note can be proposed for deletion again.
    let delete = [op("e_1", "Final/Website.md", Operation::DeleteFile, None)];
    let (_, third) = ws
        .propose(&run("job_3"), &delete, &HunkLimits::default())
        .unwrap();
    ws.apply(&third, &[], &mut |_| {}).unwrap();
    let (_, fourth) = ws
        .propose(&run("job_4"), &delete, &HunkLimits::default())
        .unwrap();
    let all: Vec<String> = fourth.hunk_ids().map(str::to_owned).collect();
    ws.apply(&fourth, &all, &mut |_| {}).unwrap();
    assert!(read(root, "Final/Website.md").is_none());
    drop(ws);
    open(root, data.path());
}

#[test]
fn links_to_a_renamed_heading_follow_it() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    vault(root);
    let mut ws = open(root, data.path());
    let mut edit = op("e_1", TARGET, Operation::Replace, None);
    edit.start_line = 6;
    edit.new_text = "## Objectives".into();
    let (_, bundle) = ws
        .propose(&run("job_1"), &[edit], &HunkLimits::default())
        .unwrap();
    let heading = bundle
        .files
        .iter()
        .find(|f| f.file_path == TARGET)
        .unwrap()
        .hunks[0]
        .clone();
    let monday = bundle
        .files
        .iter()
        .find(|f| f.file_path == "Daily/Monday.md")
        .expect("the link to the heading is rewritten");
    assert_eq!(heading.followers, vec![monday.hunks[0].hunk_id.clone()]);
    let overlay = ws.overlay();
    let text = View::with(ws.project(), &overlay)
        .read_text("Daily/Monday.md")
        .unwrap()
        .text;
    assert!(
        text.contains("[[Website Redesign#Objectives|the goals]]"),
        "{text}"
    );
    // Rejecting the heading's change takes the link's with it.
    ws.decide(&heading.hunk_id, Status::Rejected, None).unwrap();
    assert_eq!(status(&ws, &monday.hunks[0].hunk_id), Status::Rejected);
}

#[test]
fn a_note_moved_with_a_heading_renamed_gets_links_to_both_right() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    vault(root);
    let mut ws = open(root, data.path());
    let mut retitle = op("e_2", TARGET, Operation::Replace, None);
    retitle.start_line = 6;
    retitle.new_text = "## Objectives".into();
    let edits = [op("e_1", TARGET, Operation::Move, Some(MOVED)), retitle];
    let (_, bundle) = ws
        .propose(&run("job_1"), &edits, &HunkLimits::default())
        .unwrap();
    let monday = bundle
        .files
        .iter()
        .find(|f| f.file_path == "Daily/Monday.md")
        .unwrap();
    let link = &monday.hunks[0];
    assert!(
        link.patch
            .contains("+Met about [[Website 2027]] and [[Website 2027#Objectives|the goals]]."),
        "{}",
        link.patch
    );
    let heading = &bundle
        .files
        .iter()
        .find(|f| f.file_path == TARGET)
        .unwrap()
        .hunks[0];
    assert!(
        heading.followers.contains(&link.hunk_id),
        "follows the heading"
    );
    assert!(
        bundle.file_ops[0].followers.contains(&link.hunk_id),
        "and the move"
    );

    // Rejecting the move takes the link with it, and so the heading's
    // change: kept, it would leave that link naming a heading that is gone.
    ws.decide(&bundle.file_ops[0].hunk_id, Status::Rejected, None)
        .unwrap();
    assert_eq!(status(&ws, &link.hunk_id), Status::Rejected);
    assert_eq!(status(&ws, &heading.hunk_id), Status::Rejected);
    // Applied whole, the note is at its new path with its new heading and
    // every link names both.
    let all: Vec<String> = bundle.hunk_ids().map(str::to_owned).collect();
    ws.apply(&bundle, &all, &mut |_| {}).unwrap();
    assert!(read(root, MOVED).unwrap().contains("## Objectives"));
    let monday = read(root, "Daily/Monday.md").unwrap();
    assert!(
        monday.contains("[[Website 2027#Objectives|the goals]]"),
        "{monday}"
    );
}

const CHART: &str = "assets/chart.png";
const CHART_MOVED: &str = "Media/Charts/q3.png";
/// Not text: a PNG's signature, a NUL, bytes that are not UTF-8.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\xff\xfe chart";

/// The vault with an image embedded two ways.
fn vault_with_chart(root: &Path) {
    vault(root);
    std::fs::create_dir_all(root.join("assets")).unwrap();
    std::fs::write(root.join(CHART), PNG).unwrap();
    std::fs::write(
        root.join("Report.md"),
        "# Report\n\n![[chart.png]]\n\n![The chart](assets/chart.png)\n",
    )
    .unwrap();
}

fn bytes(root: &Path, path: &str) -> Option<Vec<u8>> {
    std::fs::read(root.join(path)).ok()
}

#[test]
fn an_attachment_moves_with_its_embeds_and_rolls_back_whole() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    vault_with_chart(root);
    let report = read(root, "Report.md").unwrap();
    let mut ws = open(root, data.path());
    let edits = [op("e_1", CHART, Operation::Move, Some(CHART_MOVED))];
    let (checkpoint, bundle) = ws
        .propose(&run("job_1"), &edits, &HunkLimits::default())
        .unwrap();
    let mv = &bundle.file_ops[0];
    assert!(mv.binary, "an attachment");
    assert!(mv.patch.contains(&format!("rename to {CHART_MOVED}")));
    assert_eq!(bundle.files.len(), 1);
    assert_eq!(bundle.files[0].file_path, "Report.md");
    assert_eq!(
        mv.followers.len(),
        bundle.files[0].hunks.len(),
        "every embed follows the move"
    );

    // A restart keeps the move; the working state shows the image at its
    // new path, as an image: no text to read or edit.
    drop(ws);
    let mut ws = open(root, data.path());
    let overlay = ws.overlay();
    let view = View::with(ws.project(), &overlay);
    let listed = view.with_paths(|p| p.iter().map(|p| p.to_string()).collect::<Vec<_>>());
    assert!(listed.iter().any(|p| p == CHART_MOVED), "{listed:?}");
    assert!(!listed.iter().any(|p| p == CHART), "{listed:?}");
    assert_eq!(
        view.read_text(CHART_MOVED).unwrap_err().rule(),
        "binary_file"
    );
    assert_eq!(view.bytes(CHART_MOVED), PNG);
    let shown = ws.file_content(CHART_MOVED).unwrap();
    assert!(shown.binary && shown.text.is_empty() && shown.state.op.is_some());
    assert!(ws.edit(CHART_MOVED, "text over an image", None).is_err());

    let all: Vec<String> = bundle.hunk_ids().map(str::to_owned).collect();
    let applied = ws.apply(&bundle, &all, &mut |_| {}).unwrap();
    assert!(applied.iter().all(|f| f.status == "applied"), "{applied:?}");
    assert_eq!(
        bytes(root, CHART_MOVED).as_deref(),
        Some(PNG),
        "moved whole"
    );
    assert!(bytes(root, CHART).is_none(), "not a copy left behind");
    let relinked = read(root, "Report.md").unwrap();
    assert!(relinked.contains("![[q3.png]]"), "{relinked}");
    assert!(relinked.contains("](Media/Charts/q3.png)"), "{relinked}");

    roll_back_whole(&mut ws, &checkpoint.checkpoint_id);
    assert_eq!(bytes(root, CHART).as_deref(), Some(PNG), "back whole");
    assert!(bytes(root, CHART_MOVED).is_none());
    assert_eq!(read(root, "Report.md").unwrap(), report);
}

#[test]
fn a_deleted_attachment_comes_back_from_the_content_store() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    vault_with_chart(root);
    let mut ws = open(root, data.path());
    let edits = [op("e_1", CHART, Operation::DeleteFile, None)];
    let (checkpoint, bundle) = ws
        .propose(&run("job_1"), &edits, &HunkLimits::default())
        .unwrap();
    let del = &bundle.file_ops[0];
    assert!(del.patch.contains("Binary files"), "{}", del.patch);
    let flag = del
        .flags
        .iter()
        .find(|f| f.rule == Rule::DeletesLinkedNote)
        .expect("flagged");
    assert!(flag.reason.contains("2 links"), "{}", flag.reason);

    ws.decide(&del.hunk_id, Status::Accepted, None).unwrap();
    ws.save(CHART).unwrap();
    assert!(bytes(root, CHART).is_none());
    // Undone after a restart: the bytes come back from the store.
    drop(ws);
    let mut ws = open(root, data.path());
    ws.decide(&del.hunk_id, Status::Pending, None).unwrap();
    ws.save(CHART).unwrap();
    assert_eq!(bytes(root, CHART).as_deref(), Some(PNG));

    ws.decide(&del.hunk_id, Status::Accepted, None).unwrap();
    ws.save(CHART).unwrap();
    assert!(bytes(root, CHART).is_none());
    let rolled = ws
        .rollback(
            &checkpoint.checkpoint_id,
            redline::checkpoints::RollbackMode::HardAll,
            &[],
        )
        .unwrap();
    assert_eq!(rolled.files[0].status, "restored", "{:?}", rolled.files);
    assert!(
        bytes(root, CHART).is_none(),
        "nothing is written before a save"
    );
    ws.save(CHART).unwrap();
    assert_eq!(
        bytes(root, CHART).as_deref(),
        Some(PNG),
        "rolled back whole"
    );
}

#[test]
fn applying_links_without_their_move_applies_the_move_too() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    vault(root);
    let mut ws = open(root, data.path());
    let bundle = propose_move(&mut ws);
    let links: Vec<String> = bundle
        .files
        .iter()
        .flat_map(|f| f.hunks.iter().map(|h| h.hunk_id.clone()))
        .collect();
    let applied = ws.apply(&bundle, &links, &mut |_| {}).unwrap();
    assert_eq!(status(&ws, &bundle.file_ops[0].hunk_id), Status::Accepted);
    let moved = applied.iter().find(|f| f.file_path == TARGET).unwrap();
    assert_eq!(
        (moved.applied_hunks, moved.rejected_hunks),
        (1, 0),
        "{applied:?}"
    );
    assert!(read(root, TARGET).is_none() && read(root, MOVED).is_some());
    assert!(
        read(root, "Daily/Monday.md")
            .unwrap()
            .contains("[[Website 2027]]")
    );
}

/// Saves every file under review.
fn save_all(ws: &mut Workspace) {
    let paths: Vec<String> = ws.review().files().map(|f| f.path.clone()).collect();
    for path in paths {
        ws.save(&path).unwrap();
    }
}

/// Undoes a rollback (`undo`, its checkpoint) whose save left `rolled`:
/// nothing moves before the next save, then the disk is `before` again.
fn undo_and_save(
    ws: &mut Workspace,
    root: &Path,
    undo: &str,
    rolled: &std::collections::BTreeMap<String, Vec<u8>>,
    before: &std::collections::BTreeMap<String, Vec<u8>>,
) {
    ws.rollback(undo, redline::checkpoints::RollbackMode::HardAll, &[])
        .unwrap();
    assert_eq!(
        &disk::files(root),
        rolled,
        "an undo writes nothing before a save"
    );
    save_all(ws);
    assert_eq!(
        &disk::files(root),
        before,
        "undoing the rollback restores paths too"
    );
}

/// Applies every hunk of `bundle`.
fn accept_all(ws: &mut Workspace, bundle: &DiffBundle) {
    let all: Vec<String> = bundle.hunk_ids().map(str::to_owned).collect();
    ws.apply(bundle, &all, &mut |_| {}).unwrap();
}

/// A run that changes the line `Ship it.` of the note at `path`.
fn edit_goal(ws: &mut Workspace, job: &str, path: &str) -> (String, DiffBundle) {
    let mut edit = op("e_1", path, Operation::Replace, None);
    edit.start_line = 8;
    edit.new_text = "Ship it in 2027.".into();
    let (checkpoint, bundle) = ws
        .propose(&run(job), &[edit], &HunkLimits::default())
        .unwrap();
    (checkpoint.checkpoint_id, bundle)
}

#[test]
fn a_hard_rollback_after_a_rename_writes_nothing_until_a_save_and_keeps_every_link() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    vault(root);
    let original = disk::files(root);
    let mut ws = open(root, data.path());
    // Run 1 changes a line; then the note is renamed (its links follow),
    // and both are saved.
    let (run_1, edit) = edit_goal(&mut ws, "job_1", TARGET);
    accept_all(&mut ws, &edit);
    let renamed = propose_move(&mut ws);
    accept_all(&mut ws, &renamed);
    let before = disk::files(root);
    assert!(before.contains_key(MOVED) && !before.contains_key(TARGET));
    assert!(String::from_utf8_lossy(&before["Daily/Monday.md"]).contains("[[Website 2027]]"));

    let report = ws
        .rollback(&run_1, redline::checkpoints::RollbackMode::HardAll, &[])
        .unwrap();
    assert!(
        report.files.iter().all(|f| f.status != "kept"),
        "{report:?}"
    );
    assert_eq!(
        disk::files(root),
        before,
        "a rollback writes nothing before a save"
    );
    // The working state shows the note back at its path, its links with it.
    assert!(ws.file_content(TARGET).unwrap().text.contains("Ship it.\n"));
    for follower in &renamed.file_ops[0].followers {
        assert_eq!(status(&ws, follower), Status::Rejected, "{follower}");
    }
    // Stored as rolled back: a restart keeps it.
    drop(ws);
    let mut ws = open(root, data.path());
    assert_eq!(disk::files(root), before);
    save_all(&mut ws);
    assert_eq!(
        disk::files(root),
        original,
        "the note and its links are back together"
    );

    undo_and_save(
        &mut ws,
        root,
        &report.undo_checkpoint_id,
        &original,
        &before,
    );
}

#[test]
fn a_hard_rollback_of_a_rename_edited_since_writes_nothing_until_a_save() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    vault(root);
    let original = disk::files(root);
    let mut ws = open(root, data.path());
    // Run 1 is the agent's rename; run 2 edits the note at its new path.
    let (run_1, renamed) = ws
        .propose(
            &run("job_1"),
            &[op("e_1", TARGET, Operation::Move, Some(MOVED))],
            &HunkLimits::default(),
        )
        .unwrap();
    accept_all(&mut ws, &renamed);
    let (_, edit) = edit_goal(&mut ws, "job_2", MOVED);
    accept_all(&mut ws, &edit);
    let before = disk::files(root);
    assert!(String::from_utf8_lossy(&before[MOVED]).contains("Ship it in 2027."));

    let report = ws
        .rollback(
            &run_1.checkpoint_id,
            redline::checkpoints::RollbackMode::HardAll,
            &[],
        )
        .unwrap();
    assert!(
        report.files.iter().all(|f| f.status != "kept"),
        "{report:?}"
    );
    assert_eq!(
        disk::files(root),
        before,
        "a rollback writes nothing before a save"
    );
    assert!(ws.file_content(TARGET).unwrap().text.contains("Ship it.\n"));
    save_all(&mut ws);
    assert_eq!(disk::files(root), original);

    undo_and_save(
        &mut ws,
        root,
        &report.undo_checkpoint_id,
        &original,
        &before,
    );
}

#[test]
fn a_move_whose_links_run_through_a_protected_note_is_refused() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    vault(root);
    let mut ws = open(root, data.path());
    let protected = redline::config::Protected {
        globs: vec!["Daily/**".into()],
        property: None,
    };
    ws.protect(redline::expand::Protection::new(&protected).unwrap());
    let edits = [op("e_1", TARGET, Operation::Move, Some(MOVED))];
    let Err(WorkspaceError::Edits(errors)) =
        ws.propose(&run("job_1"), &edits, &HunkLimits::default())
    else {
        panic!("the move was staged");
    };
    assert_eq!(errors[0].kind.code(), "protected");
    assert!(errors[0].to_string().contains("Daily/"), "{}", errors[0]);
    // Nothing changed: the note is not under review.
    assert!(ws.review().file(TARGET).is_none());
    // Moving a note into a protected folder is refused too.
    let edits = [op(
        "e_1",
        "Unrelated.md",
        Operation::Move,
        Some("Daily/Unrelated.md"),
    )];
    let Err(WorkspaceError::Edits(errors)) =
        ws.propose(&run("job_2"), &edits, &HunkLimits::default())
    else {
        panic!("the move was staged");
    };
    assert!(
        errors[0]
            .to_string()
            .contains("new path `Daily/Unrelated.md`"),
        "{}",
        errors[0]
    );
}

/// One proposal moves the note and, in another note, writes a new link to
/// where it goes: that hunk needs the move, but is not one of its link
/// updates. Accepting the move accepts the updates and leaves the new
/// sentence to its own decision; rejecting the move takes the sentence too.
#[test]
fn a_hunk_that_links_to_where_a_move_goes_needs_it_and_is_not_its_update() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    vault(dir.path());
    let mut ws = open(dir.path(), data.path());
    let mut link = op("e_2", "Unrelated.md", Operation::Replace, None);
    link.start_line = 3;
    link.end_line = Some(3);
    link.new_text = "Now see [[Website 2027]] — « déjà ».".into();
    let edits = [op("e_1", TARGET, Operation::Move, Some(MOVED)), link];
    let (_, bundle) = ws
        .propose(&run("job_1"), &edits, &HunkLimits::default())
        .unwrap();
    let mv = bundle.file_ops[0].hunk_id.clone();
    let hunk_in = |path: &str| {
        bundle
            .files
            .iter()
            .find(|f| f.file_path == path)
            .unwrap()
            .hunks[0]
            .hunk_id
            .clone()
    };
    let (update, sentence) = (hunk_in("Daily/Tuesday.md"), hunk_in("Unrelated.md"));
    let tie = |hunk: &str| {
        let (path, i) = ws.review().find_hunk(hunk).unwrap();
        ws.review().file(&path).unwrap().entries()[i]
            .tie_to(&mv)
            .and_then(|t| t.kind)
    };
    assert_eq!(tie(&update), Some(TieKind::Update));
    assert_eq!(tie(&sentence), Some(TieKind::Needs));

    ws.decide(&mv, Status::Accepted, None).unwrap();
    assert_eq!(ws.review().status_of(&update), Some(Status::Accepted));
    assert_eq!(ws.review().status_of(&sentence), Some(Status::Pending));
    // Its own decision, and a rejection of it leaves no link behind.
    let rejected = ws.decide(&sentence, Status::Rejected, None).unwrap();
    assert!(rejected.links_left.is_empty(), "{rejected:?}");
    ws.decide(&sentence, Status::Pending, None).unwrap();
    ws.decide(&mv, Status::Rejected, None).unwrap();
    assert_eq!(ws.review().status_of(&sentence), Some(Status::Rejected));

    // The kinds survive a restart.
    drop(ws);
    let ws = open(dir.path(), data.path());
    let (path, i) = ws.review().find_hunk(&sentence).unwrap();
    let kind = ws.review().file(&path).unwrap().entries()[i]
        .tie_to(&mv)
        .unwrap()
        .kind;
    assert_eq!(kind, Some(TieKind::Needs));
}

/// Two notes moved together into one folder, one linking the other by path
/// and relatively, a third linking them by path and by name: Save all
/// writes both moves (no link is left naming where a note was), and every
/// link resolves on disk after it.
#[test]
fn notes_moved_together_are_saved_together_with_their_links() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for (path, text) in [
        ("Inbox/Budget.md", "# Budget\n\n100k — « budget ».\n"),
        (
            "Inbox/Brief.md",
            "# Brief\n\nSee [[Inbox/Budget]] and [budget](Budget.md).\n",
        ),
        ("Dashboard.md", "- [[Inbox/Brief]]\n- [[Budget]]\n"),
    ] {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let mut ws = open(dir.path(), data.path());
    let edits = [
        op(
            "e_1",
            "Inbox/Budget.md",
            Operation::Move,
            Some("Projects/Apollo/Budget.md"),
        ),
        op(
            "e_2",
            "Inbox/Brief.md",
            Operation::Move,
            Some("Projects/Apollo/Brief.md"),
        ),
    ];
    let (_, bundle) = ws
        .propose(&run("job_1"), &edits, &HunkLimits::default())
        .unwrap();
    let all: Vec<String> = bundle.hunk_ids().map(str::to_owned).collect();
    ws.decide_many(&all, Status::Accepted).unwrap();
    let paths: Vec<String> = ws.review().files().map(|f| f.path.clone()).collect();
    let saved = ws.save_many(&paths, &mut |_| {}).unwrap();
    for (path, outcome) in paths.iter().zip(&saved) {
        assert!(outcome.is_ok(), "{path}: {outcome:?}");
    }
    assert_eq!(read(dir.path(), "Inbox/Budget.md"), None);
    assert_eq!(
        read(dir.path(), "Projects/Apollo/Brief.md").unwrap(),
        "# Brief\n\nSee [[Projects/Apollo/Budget]] and [budget](Budget.md).\n"
    );
    assert_eq!(
        read(dir.path(), "Dashboard.md").unwrap(),
        "- [[Projects/Apollo/Brief]]\n- [[Budget]]\n"
    );
}

/// The rule across notes carries rather than refuses: bringing back a
/// change whose link names where a pending move takes the note from
/// (written before the move, so no link update follows it) rejects the
/// move with it, its dry run says so first, and one undo takes it all back.
#[test]
fn bringing_back_a_link_to_where_a_note_was_carries_its_move_back() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    vault(root);
    let mut ws = open(root, data.path());
    let mut link = op("e_1", "Unrelated.md", Operation::Replace, None);
    link.start_line = 3;
    link.new_text = "Voir [[Website Redesign]] — « café ».".into();
    let (_, first) = ws
        .propose(&run("job_0"), &[link], &HunkLimits::default())
        .unwrap();
    let hunk = first.files[0].hunks[0].hunk_id.clone();
    ws.decide(&hunk, Status::Rejected, None).unwrap();
    let bundle = propose_move(&mut ws);
    let mv = bundle.file_ops[0].hunk_id.clone();
    let updates: Vec<String> = bundle
        .files
        .iter()
        .flat_map(|f| f.hunks.iter().map(|h| h.hunk_id.clone()))
        .collect();
    assert!(!updates.is_empty(), "the move rewrites the other links");

    let planned = ws.plan_decision(&hunk, Status::Accepted).unwrap();
    let to = |d: &redline::review::Decision, h: &str| {
        d.moves.iter().find(|m| m.hunk_id == h).map(|m| m.to)
    };
    assert_eq!(to(&planned, &mv), Some(Status::Rejected), "{planned:?}");
    assert_eq!(
        status(&ws, &mv),
        Status::Pending,
        "a dry run changes nothing"
    );

    let decided = ws.decide(&hunk, Status::Accepted, None).unwrap();
    assert_eq!(decided.moves, planned.moves, "the dry run said it all");
    assert_eq!(status(&ws, &hunk), Status::Accepted);
    assert_eq!(status(&ws, &mv), Status::Rejected);
    for update in &updates {
        assert_eq!(status(&ws, update), Status::Rejected, "{update}");
    }
    let overlay = ws.overlay();
    let view = View::with(ws.project(), &overlay);
    assert!(
        view.read_text(TARGET).is_ok(),
        "the note stays where the link finds it"
    );
    assert!(
        view.read_text("Unrelated.md")
            .unwrap()
            .text
            .contains("[[Website Redesign]]")
    );

    ws.undo_step(None).unwrap();
    assert_eq!(status(&ws, &hunk), Status::Rejected);
    assert_eq!(status(&ws, &mv), Status::Pending);
    for update in &updates {
        assert_eq!(status(&ws, update), Status::Pending, "{update}");
    }
}
