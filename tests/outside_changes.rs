//! Other programs' changes as reviewable hunks, on real files written by
//! real processes (`sed -i`, a shell's `rm` and `>`) and a real store: the
//! disk keeps what they wrote until a hunk is rejected, rejecting puts that
//! hunk back through the checked write path, a deleted file comes back
//! whole, and a restart keeps the review.

use std::path::Path;
use std::process::Command;

use redline::config::Limits;
use redline::config::OutsideMode;
use redline::project::Project;
use redline::review::Status;
use redline::store::Store;
use redline::workspace::{OutsideChange, RunInfo, Workspace};

const PLAN: &str =
    "# Plan\n\nShip in March.\n\n## Risks\n\nHiring is slow.\n\n## Owners\n\nAda and Grace.\n";

fn open(root: &Path, data: &Path) -> Workspace {
    let project = Project::open(root, Limits::default()).unwrap();
    let store = Store::open(data, project.root()).unwrap();
    Workspace::open(project, store).unwrap()
}

/// A folder holding `Plan.md`, and a data folder for its store.
fn folder() -> (tempfile::TempDir, tempfile::TempDir) {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(dir.path().join("Plan.md"), PLAN).unwrap();
    (dir, data)
}

fn group(job: &str) -> RunInfo {
    RunInfo {
        session_id: Some("outside".into()),
        job_id: job.into(),
        instruction: "Changed outside Redline".into(),
        seen: None,
        answers: Vec::new(),
        reads: Default::default(),
    }
}

fn sh(root: &Path, script: &str) {
    let status = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(root)
        .status()
        .unwrap();
    assert!(status.success(), "{script}");
}

fn read(root: &Path, path: &str) -> Option<String> {
    std::fs::read_to_string(root.join(path)).ok()
}

/// What `path` was (`before`) and is now on disk.
fn change(root: &Path, path: &str, before: &str) -> OutsideChange {
    OutsideChange {
        path: path.into(),
        before: before.into(),
        after: read(root, path),
        created: false,
        moved_to: None,
    }
}

#[test]
fn a_sed_edit_is_reviewed_hunk_by_hunk_and_a_rejected_hunk_goes_back() {
    let (dir, data) = folder();
    let root = dir.path();
    let mut ws = open(root, data.path());
    sh(
        root,
        "sed -i -e 's/March/May/' -e 's/Ada and Grace/Linus/' Plan.md",
    );
    let written = read(root, "Plan.md").unwrap();
    let staged = ws
        .stage_outside(
            &group("job_1"),
            &[change(root, "Plan.md", PLAN)],
            OutsideMode::Review,
        )
        .unwrap()
        .expect("a change");
    let hunks: Vec<String> = staged.bundle.hunk_ids().map(str::to_owned).collect();
    assert_eq!(hunks.len(), 2, "{:?}", staged.bundle);
    assert!(staged.destructive.is_empty());
    // Pending: the disk keeps what sed wrote, and nothing needs saving.
    let shown = ws.file_content("Plan.md").unwrap();
    assert_eq!(shown.state.pending_hunks, hunks);
    assert!(!shown.state.dirty && !shown.state.conflict);
    ws.save("Plan.md").unwrap();
    assert_eq!(read(root, "Plan.md").unwrap(), written);

    // A restart keeps the review.
    drop(ws);
    let mut ws = open(root, data.path());
    ws.decide(&hunks[0], Status::Accepted, None).unwrap();
    ws.decide(&hunks[1], Status::Rejected, None).unwrap();
    ws.save("Plan.md").unwrap();
    assert_eq!(
        read(root, "Plan.md").unwrap(),
        PLAN.replace("March", "May"),
        "the rejected hunk is put back, the accepted one kept"
    );
    // Undone, the rejection is taken back on disk too.
    ws.decide(&hunks[1], Status::Pending, None).unwrap();
    ws.save("Plan.md").unwrap();
    assert_eq!(read(root, "Plan.md").unwrap(), written);
}

#[test]
fn a_deleted_note_comes_back_whole_and_record_mode_keeps_the_rest() {
    let (dir, data) = folder();
    let root = dir.path();
    std::fs::write(root.join("Log.md"), "# Log\n\nMonday.\n").unwrap();
    std::fs::write(root.join("Big.md"), PLAN.repeat(4)).unwrap();
    let mut ws = open(root, data.path());
    sh(
        root,
        "rm Plan.md && printf '# Log\\n\\nMonday.\\nTuesday.\\n' > Log.md && : > Big.md",
    );
    let changes = [
        change(root, "Plan.md", PLAN),
        change(root, "Log.md", "# Log\n\nMonday.\n"),
        change(root, "Big.md", &PLAN.repeat(4)),
    ];
    let staged = ws
        .stage_outside(&group("job_1"), &changes, OutsideMode::Record)
        .unwrap()
        .unwrap();
    let mut destructive = staged.destructive.clone();
    destructive.sort();
    assert_eq!(destructive, ["Big.md", "Plan.md"]);
    let status = |ws: &Workspace, hunk: &str| {
        let (path, i) = ws.review().find_hunk(hunk).unwrap();
        ws.review().file(&path).unwrap().entries()[i].status
    };
    let deletion = &staged.bundle.file_ops[0];
    assert_eq!(deletion.file_path, "Plan.md");
    assert_eq!(status(&ws, &deletion.hunk_id), Status::Pending, "held");
    let log = &staged
        .bundle
        .files
        .iter()
        .find(|f| f.file_path == "Log.md")
        .unwrap()
        .hunks[0];
    assert_eq!(status(&ws, &log.hunk_id), Status::Accepted, "kept");
    let big = &staged
        .bundle
        .files
        .iter()
        .find(|f| f.file_path == "Big.md")
        .unwrap()
        .hunks[0];
    assert_eq!(status(&ws, &big.hunk_id), Status::Pending, "held");
    assert!(
        big.flags.iter().any(|f| f.reason.contains("empt")),
        "{:?}",
        big.flags
    );

    // One click each brings the deleted and the emptied note back.
    ws.decide(&deletion.hunk_id, Status::Rejected, None)
        .unwrap();
    ws.decide(&big.hunk_id, Status::Rejected, None).unwrap();
    let saved = ws
        .save_many(
            &["Plan.md".into(), "Big.md".into(), "Log.md".into()],
            &mut |_| {},
        )
        .unwrap();
    assert!(saved.iter().all(Result::is_ok), "{saved:?}");
    assert_eq!(read(root, "Plan.md").unwrap(), PLAN);
    assert_eq!(read(root, "Big.md").unwrap(), PLAN.repeat(4));
    assert_eq!(
        read(root, "Log.md").unwrap(),
        "# Log\n\nMonday.\nTuesday.\n"
    );
    // And the checkpoint of the group rolls back what was kept.
    ws.rollback(
        &staged.checkpoint.checkpoint_id,
        redline::checkpoints::RollbackMode::HardAll,
        &[],
    )
    .unwrap();
    for path in ["Plan.md", "Big.md", "Log.md"] {
        if ws.review().file(path).is_some() {
            ws.save(path).unwrap();
        }
    }
    assert_eq!(read(root, "Log.md").unwrap(), "# Log\n\nMonday.\n");
}

#[test]
fn a_second_write_stacks_on_the_first_and_rejecting_both_gives_the_first_base() {
    let (dir, data) = folder();
    let root = dir.path();
    let mut ws = open(root, data.path());
    sh(root, "sed -i 's/March/May/' Plan.md");
    let first = ws
        .stage_outside(
            &group("job_1"),
            &[change(root, "Plan.md", PLAN)],
            OutsideMode::Review,
        )
        .unwrap()
        .unwrap();
    let between = read(root, "Plan.md").unwrap();
    assert!(ws.takes_outside("Plan.md"), "pending outside hunks only");
    sh(root, "sed -i 's/Ada and Grace/Linus/' Plan.md");
    let second = ws
        .stage_outside(
            &group("job_2"),
            &[change(root, "Plan.md", &between)],
            OutsideMode::Review,
        )
        .unwrap()
        .expect("stacked on the first");
    let shown = ws.file_content("Plan.md").unwrap();
    assert_eq!(shown.state.pending_hunks.len(), 2);
    assert!(!shown.state.conflict && !shown.state.dirty);
    for hunk in first.bundle.hunk_ids().chain(second.bundle.hunk_ids()) {
        ws.decide(hunk, Status::Rejected, None).unwrap();
    }
    ws.save("Plan.md").unwrap();
    assert_eq!(
        read(root, "Plan.md").unwrap(),
        PLAN,
        "the first base, byte for byte"
    );
}

#[test]
fn notes_a_program_makes_are_kept_in_record_mode_and_the_three_way_view_shows_each_change() {
    let (dir, data) = folder();
    let root = dir.path();
    let mut ws = open(root, data.path());
    // A folder of notes copied in with one edit: made files are not "many
    // at once", so only what is destructive would be held.
    sh(
        root,
        "mkdir -p Import && for i in $(seq 1 60); do printf '# Note %s\\n' $i > Import/$i.md; done && sed -i 's/March/May/' Plan.md",
    );
    let mut changes: Vec<OutsideChange> = (1..=60)
        .map(|i| OutsideChange {
            path: format!("Import/{i}.md"),
            before: String::new(),
            created: true,
            after: read(root, &format!("Import/{i}.md")),
            moved_to: None,
        })
        .collect();
    changes.push(change(root, "Plan.md", PLAN));
    let staged = ws
        .stage_outside(&group("job_1"), &changes, OutsideMode::Record)
        .unwrap()
        .unwrap();
    assert!(staged.destructive.is_empty(), "{:?}", staged.destructive);
    assert_eq!(staged.bundle.hunk_count(), 61);
    let pending: usize = ws
        .review()
        .files()
        .map(|f| {
            f.entries()
                .iter()
                .filter(|e| e.status == Status::Pending)
                .count()
        })
        .sum();
    assert_eq!(pending, 0, "record mode keeps them all");

    // The three-way view of the group's checkpoint: before, as written, now.
    let id = &staged.checkpoint.checkpoint_id;
    let plan = ws.diff3(id, "Plan.md").unwrap();
    assert_eq!(plan.checkpoint_base.as_deref(), Some(PLAN));
    let written = PLAN.replace("March", "May");
    assert_eq!(plan.agent_proposed.as_deref(), Some(written.as_str()));
    assert_eq!(plan.current_file.as_deref(), Some(written.as_str()));
    let made = ws.diff3(id, "Import/7.md").unwrap();
    assert_eq!(made.checkpoint_base, None, "it was not there");
    assert_eq!(made.agent_proposed.as_deref(), Some("# Note 7\n"));

    // Reverted from the history (rejected after all), a made note goes.
    let hunk = staged
        .bundle
        .files
        .iter()
        .find(|f| f.file_path == "Import/7.md")
        .unwrap()
        .hunks[0]
        .hunk_id
        .clone();
    ws.decide(&hunk, Status::Rejected, None).unwrap();
    ws.save("Import/7.md").unwrap();
    assert_eq!(read(root, "Import/7.md"), None);
    assert!(ws.diff3(id, "Import/7.md").unwrap().current_file.is_none());
    assert_eq!(read(root, "Import/8.md").as_deref(), Some("# Note 8\n"));
}
