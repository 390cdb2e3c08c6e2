//! The review engine end to end: propose → review → restart → apply →
//! checkpoints → three-way view → rollback and its undo, on real files and a
//! real SQLite store.

use std::path::Path;

use proptest::prelude::*;
use redline::checkpoints::{CheckpointKind, RollbackMode};
use redline::config::Limits;
use redline::edits::{Operation, ProposedEdit};
use redline::hunks::HunkLimits;
use redline::project::Project;
use redline::review::Status;
use redline::store::Store;
use redline::workspace::{RunInfo, Workspace, WorkspaceError};

fn copy_demo(to: &Path) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vaults/demo");
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", from.display()))
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
}

fn open(root: &Path, data: &Path) -> Workspace {
    let project = Project::open(root, Limits::default()).unwrap();
    let store = Store::open(data, project.root()).unwrap();
    Workspace::open(project, store).unwrap()
}

fn edit(id: &str, path: &str, op: Operation, start: usize, new_text: &str) -> ProposedEdit {
    ProposedEdit {
        edit_id: id.into(),
        file_path: path.into(),
        operation: op,
        start_line: start,
        end_line: None,
        new_text: new_text.into(),
        old_text: None,
        expected_hash: None,
        rationale: String::new(),
        new_path: None,
    }
}

fn run(job: &str) -> RunInfo {
    RunInfo {
        session_id: Some("sess_1".into()),
        job_id: job.into(),
        instruction: "Rename Atlas to Meridian".into(),
        seen: None,
        answers: Vec::new(),
        reads: Default::default(),
    }
}

fn read(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).unwrap()
}

#[test]
fn the_whole_review_cycle_survives_a_restart() {
    let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    copy_demo(vault.path());
    let root = vault.path();
    let style = "Reference/Style Guide.md";
    let sync = "Meetings/2026-11-09 Weekly Sync.md";
    let style_before = read(root, style);
    let sync_before = read(root, sync);

    let mut ws = open(root, data.path());
    let edits = [
        edit(
            "e_1",
            style,
            Operation::Replace,
            9,
            "- Product name: **Meridian**.",
        ),
        edit(
            "e_2",
            sync,
            Operation::Replace,
            11,
            "- Meridian beta feedback is mostly about onboarding.",
        ),
        edit(
            "e_3",
            sync,
            Operation::Insert,
            17,
            "- Ana: review the launch post.",
        ),
        edit(
            "e_4",
            "Inbox/Meridian.md",
            Operation::Create,
            1,
            "# Meridian\n",
        ),
    ];
    let (checkpoint, bundle) = ws
        .propose(&run("job_1"), &edits, &HunkLimits::default())
        .unwrap();
    assert_eq!(checkpoint.kind, CheckpointKind::Run);
    assert_eq!(checkpoint.affected_files.len(), 3);
    let ids: Vec<String> = bundle
        .files
        .iter()
        .flat_map(|f| f.hunks.iter().map(|h| h.hunk_id.clone()))
        .collect();
    assert_eq!(ids, ["h_1", "h_2", "h_3", "h_4"]);
    // Nothing is written before review.
    assert_eq!(read(root, style), style_before);
    assert!(!root.join("Inbox/Meridian.md").exists());
    ws.decide("h_1", Status::Accepted, None).unwrap(); // the new file
    ws.decide("h_2", Status::Rejected, None).unwrap(); // first hunk of the sync note
    let buffers: Vec<(String, String)> = ws
        .review()
        .files()
        .map(|f| (f.path.clone(), f.buffer()))
        .collect();
    drop(ws);

    // Restart: pending stays pending, decisions and buffers come back.
    let mut ws = open(root, data.path());
    let again: Vec<(String, String)> = ws
        .review()
        .files()
        .map(|f| (f.path.clone(), f.buffer()))
        .collect();
    assert_eq!(again, buffers);
    let statuses: Vec<(Option<String>, Status)> = ws
        .review()
        .files()
        .flat_map(|f| f.entries().iter().map(|e| (e.hunk_id.clone(), e.status)))
        .collect();
    assert!(
        statuses.contains(&(Some("h_3".into()), Status::Pending)),
        "{statuses:?}"
    );
    assert!(statuses.contains(&(Some("h_2".into()), Status::Rejected)));

    // Apply: h_1 and h_3 in, the rest out; CRLF kept in the sync note.
    let report = ws
        .apply(&bundle, &["h_1".into(), "h_3".into()], &mut |_| {})
        .unwrap();
    assert!(report.iter().all(|f| f.status == "applied"), "{report:?}");
    assert_eq!(read(root, "Inbox/Meridian.md"), "# Meridian\n");
    assert_eq!(read(root, style), style_before, "h_4 was rejected by apply");
    assert_eq!(
        read(root, sync),
        sync_before.replace(
            "quotes for the launch post.\r\n",
            "quotes for the launch post.\r\n- Ana: review the launch post.\r\n"
        )
    );

    // Three-way view.
    let three = ws.diff3(&checkpoint.checkpoint_id, sync).unwrap();
    assert_eq!(three.checkpoint_base.as_deref(), Some(sync_before.as_str()));
    assert!(
        three
            .agent_proposed
            .as_deref()
            .unwrap()
            .contains("Meridian beta feedback")
    );
    assert_eq!(
        three.current_file.as_deref(),
        Some(read(root, sync).as_str())
    );

    // The user keeps working; then a hard rollback to before the run.
    let typed = format!("{}\r\n- Typed by me.\r\n", read(root, sync).trim_end());
    ws.user_edit(sync, &typed).unwrap();
    let before_rollback: Vec<(String, String)> = ws
        .review()
        .files()
        .map(|f| (f.path.clone(), f.buffer()))
        .collect();
    let report = ws
        .rollback(&checkpoint.checkpoint_id, RollbackMode::HardAll, &[])
        .unwrap();
    let sync_row = report.files.iter().find(|f| f.file_path == sync).unwrap();
    assert_eq!(sync_row.status, "restored");
    let created = report
        .files
        .iter()
        .find(|f| f.file_path == "Inbox/Meridian.md")
        .unwrap();
    assert_eq!(created.status, "removed", "nobody edited the created file");
    assert!(
        root.join("Inbox/Meridian.md").exists(),
        "a rollback writes nothing before a save"
    );
    assert_eq!(ws.review().file(sync).unwrap().buffer(), sync_before);
    assert_eq!(ws.review().file(style).unwrap().buffer(), style_before);
    ws.save(sync).unwrap();
    assert_eq!(read(root, sync), sync_before, "saved back byte for byte");
    ws.save("Inbox/Meridian.md").unwrap();
    assert!(
        !root.join("Inbox/Meridian.md").exists(),
        "the save removes it"
    );

    // Undo the rollback: the buffers are as they were before it.
    ws.rollback(&report.undo_checkpoint_id, RollbackMode::HardAll, &[])
        .unwrap();
    for (path, text) in &before_rollback {
        assert_eq!(&ws.review().file(path).unwrap().buffer(), text, "{path}");
    }
    let kinds: Vec<CheckpointKind> = ws
        .checkpoints(None, 100)
        .unwrap()
        .checkpoints
        .iter()
        .map(|c| c.kind)
        .collect();
    assert_eq!(
        kinds,
        [
            CheckpointKind::Rollback,
            CheckpointKind::Rollback,
            CheckpointKind::Run
        ]
    );
}

#[test]
fn scoped_rollback_keeps_newer_edits_and_the_users_typing() {
    let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = vault.path();
    let body: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    std::fs::write(root.join("n.md"), &body).unwrap();
    let mut ws = open(root, data.path());
    let edits = [
        edit("e_1", "n.md", Operation::Replace, 3, "THREE"),
        edit("e_2", "n.md", Operation::Replace, 10, "TEN"),
        edit("e_3", "n.md", Operation::Replace, 17, "SEVENTEEN"),
    ];
    let (checkpoint, bundle) = ws
        .propose(&run("job_1"), &edits, &HunkLimits::default())
        .unwrap();
    let report = ws
        .apply(
            &bundle,
            &["h_1".into(), "h_2".into(), "h_3".into()],
            &mut |_| {},
        )
        .unwrap();
    assert!(report.iter().all(|f| f.status == "applied"), "{report:?}");
    // Later: the user adds a line at the top and types just after h_3's word.
    let now = read(root, "n.md");
    let edited = format!("added\n{}", now.replace("SEVENTEEN", "SEVENTEEN (mine)"));
    ws.user_edit("n.md", &edited).unwrap();

    let report = ws
        .rollback(
            &checkpoint.checkpoint_id,
            RollbackMode::ScopedSelected,
            &["h_1".into(), "h_3".into()],
        )
        .unwrap();
    let statuses: Vec<&str> = report.files.iter().map(|f| f.status.as_str()).collect();
    assert_eq!(statuses, ["reverted", "reverted"]);
    let buffer = ws.review().file("n.md").unwrap().buffer();
    assert!(
        buffer.starts_with("added\nline 1\nline 2\nline 3\nline 4\n"),
        "{buffer}"
    );
    // The user's typing beside the reverted word is theirs: it stays.
    assert!(
        buffer.contains("TEN\n") && buffer.contains("\nline 17 (mine)\n"),
        "{buffer}"
    );

    let err = ws
        .rollback(
            &checkpoint.checkpoint_id,
            RollbackMode::ScopedSelected,
            &["h_99".into()],
        )
        .unwrap_err();
    assert!(matches!(err, WorkspaceError::NotInCheckpoint { .. }));
    assert!(matches!(
        ws.rollback("cp_404", RollbackMode::HardAll, &[]),
        Err(WorkspaceError::UnknownCheckpoint(_))
    ));

    // Undo the scoped rollback.
    ws.rollback(&report.undo_checkpoint_id, RollbackMode::HardAll, &[])
        .unwrap();
    assert_eq!(ws.review().file("n.md").unwrap().buffer(), edited);
}

/// Text the user typed inside a hunk's words goes with the hunk when it is
/// rejected; the file with that text is checkpointed first, and both an undo
/// and a rollback to that checkpoint bring it back.
#[test]
fn a_reject_that_takes_out_typing_checkpoints_it_first() {
    let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = vault.path();
    std::fs::write(root.join("n.md"), "# Plan\n\nAtlas launch.\n").unwrap();
    let mut ws = open(root, data.path());
    ws.propose(
        &run("job_1"),
        &[edit(
            "e_1",
            "n.md",
            Operation::Replace,
            3,
            "Meridian launch.",
        )],
        &HunkLimits::default(),
    )
    .unwrap();
    let typed = "# Plan\n\nMeri-dian launch.\n";
    ws.user_edit("n.md", typed).unwrap();
    let plan = ws.plan_decision("h_1", Status::Rejected).unwrap();
    assert_eq!(plan.hidden_user_text, ["-"]);
    assert_eq!(
        ws.review().file("n.md").unwrap().buffer(),
        typed,
        "a plan changes nothing"
    );
    let decided = ws.decide("h_1", Status::Rejected, Some("not now")).unwrap();
    assert_eq!(decided.hidden_user_text, ["-"]);
    assert_eq!(
        ws.review().file("n.md").unwrap().buffer(),
        "# Plan\n\nAtlas launch.\n"
    );
    let newest = &ws.checkpoints(None, 1).unwrap().checkpoints[0];
    assert_eq!(newest.kind, CheckpointKind::Decision);
    ws.decide("h_1", Status::Pending, None).unwrap();
    assert_eq!(
        ws.review().file("n.md").unwrap().buffer(),
        typed,
        "undo brings it back"
    );
    ws.decide("h_1", Status::Rejected, None).unwrap();
    ws.rollback(&newest.checkpoint_id, RollbackMode::HardAll, &[])
        .unwrap();
    assert_eq!(ws.review().file("n.md").unwrap().buffer(), typed);
}

#[test]
fn a_created_file_the_user_edited_survives_a_hard_rollback() {
    let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = vault.path();
    let mut ws = open(root, data.path());
    let (checkpoint, bundle) = ws
        .propose(
            &run("job_1"),
            &[edit("e_1", "new.md", Operation::Create, 1, "draft\n")],
            &HunkLimits::default(),
        )
        .unwrap();
    let report = ws.apply(&bundle, &["h_1".into()], &mut |_| {}).unwrap();
    assert_eq!(report[0].status, "applied");
    ws.user_edit("new.md", "draft\nmy notes\n").unwrap();
    let report = ws
        .rollback(&checkpoint.checkpoint_id, RollbackMode::HardAll, &[])
        .unwrap();
    assert_eq!(report.files[0].status, "kept");
    assert!(root.join("new.md").exists());
    assert_eq!(
        ws.review().file("new.md").unwrap().buffer(),
        "draft\nmy notes\n"
    );
}

#[test]
fn save_and_apply_write_only_accepted_text_over_the_expected_bytes() {
    let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = vault.path();
    let base = "title\n\none\ntwo\nthree\n\nfour\nfive\nsix\n";
    std::fs::write(root.join("f.md"), base).unwrap();
    std::fs::write(root.join("g.md"), "g\n").unwrap();
    let mut ws = open(root, data.path());
    let edits = [
        edit("e_1", "f.md", Operation::Replace, 3, "ONE"),
        edit(
            "e_2",
            "f.md",
            Operation::Replace,
            8,
            "FIVE\nfive and a half",
        ),
        edit("e_3", "g.md", Operation::Replace, 1, "G"),
    ];
    let (_, bundle) = ws
        .propose(&run("job_1"), &edits, &HunkLimits::default())
        .unwrap();
    assert_eq!(bundle.hunk_ids().collect::<Vec<_>>(), ["h_1", "h_2", "h_3"]);

    // Another editor changes g.md behind Redline's back.
    std::fs::write(root.join("g.md"), "g changed elsewhere\n").unwrap();
    let report = ws
        .apply(&bundle, &["h_1".into(), "h_3".into()], &mut |_| {})
        .unwrap();
    let f = &report[0];
    assert_eq!(
        (f.status.as_str(), f.applied_hunks, f.rejected_hunks),
        ("applied", 1, 1)
    );
    assert_eq!(read(root, "f.md"), base.replace("one", "ONE"));
    assert_eq!(report[1].status, "conflict");
    assert!(
        report[1]
            .message
            .as_deref()
            .unwrap()
            .contains("changed on disk")
    );
    assert_eq!(read(root, "g.md"), "g changed elsewhere\n");

    // A later save writes over what Redline itself wrote.
    let buffer = ws.review().file("f.md").unwrap().buffer();
    ws.user_edit("f.md", &format!("{buffer}extra\n")).unwrap();
    ws.save("f.md").unwrap();
    assert!(read(root, "f.md").ends_with("six\nextra\n"));
}

#[test]
fn a_created_file_appears_only_when_accepted() {
    let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = vault.path();
    let mut ws = open(root, data.path());
    let (_, bundle) = ws
        .propose(
            &run("job_1"),
            &[edit("e_1", "new.md", Operation::Create, 1, "fresh\n")],
            &HunkLimits::default(),
        )
        .unwrap();
    let report = ws.apply(&bundle, &[], &mut |_| {}).unwrap();
    assert_eq!(
        (report[0].status.as_str(), report[0].rejected_hunks),
        ("applied", 1)
    );
    assert!(!root.join("new.md").exists());
    ws.decide("h_1", Status::Accepted, None).unwrap();
    ws.save("new.md").unwrap();
    assert_eq!(read(root, "new.md"), "fresh\n");
}

#[test]
fn stacked_runs_roll_back_to_what_each_began_with() {
    let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = vault.path();
    let base = "one\ntwo\nthree\n";
    std::fs::write(root.join("n.md"), base).unwrap();
    let mut ws = open(root, data.path());
    let (first, _) = ws
        .propose(
            &run("job_1"),
            &[edit("e_1", "n.md", Operation::Replace, 2, "TWO")],
            &HunkLimits::default(),
        )
        .unwrap();
    let after_first = ws.review().file("n.md").unwrap().buffer();
    // The second run reads the first one's pending text and edits the same line again.
    let mut again = edit("e_1", "n.md", Operation::Replace, 2, "TWO!");
    again.old_text = Some("TWO".into());
    let (second, _) = ws
        .propose(
            &run("job_2"),
            &[again, edit("e_2", "n.md", Operation::Replace, 3, "THREE")],
            &HunkLimits::default(),
        )
        .unwrap();
    assert_eq!(
        ws.review().file("n.md").unwrap().buffer(),
        "one\nTWO!\nTHREE\n"
    );
    // The second checkpoint holds the file as the second run began: with the first run's hunk.
    assert_eq!(
        ws.diff3(&second.checkpoint_id, "n.md")
            .unwrap()
            .checkpoint_base
            .as_deref(),
        Some(after_first.as_str())
    );
    ws.rollback(&second.checkpoint_id, RollbackMode::HardAll, &[])
        .unwrap();
    assert_eq!(ws.review().file("n.md").unwrap().buffer(), after_first);
    assert_eq!(
        ws.review()
            .file("n.md")
            .unwrap()
            .entries()
            .iter()
            .filter(|e| e.hunk_id.is_some())
            .count(),
        1
    );
    ws.rollback(&first.checkpoint_id, RollbackMode::HardAll, &[])
        .unwrap();
    assert_eq!(
        ws.current_hash("n.md").unwrap(),
        Some(redline::project::text::content_hash(base.as_bytes()))
    );
    assert_eq!(read(root, "n.md"), base, "nothing was written all along");
}

fn arb_notes() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(
        (
            proptest::collection::vec("[a-c]{0,3}", 1..12),
            any::<bool>(),
        )
            .prop_map(|(lines, crlf)| {
                let eol = if crlf { "\r\n" } else { "\n" };
                lines
                    .iter()
                    .map(|l| format!("{l}{eol}"))
                    .collect::<String>()
            }),
        1..4,
    )
}

/// Each file under review: its path, its buffer, and its log's ids and statuses.
type ReviewState = Vec<(String, String, Vec<(String, Status)>)>;

fn review_state(ws: &Workspace) -> ReviewState {
    ws.review()
        .files()
        .map(|f| {
            (
                f.path.clone(),
                f.buffer(),
                f.entries()
                    .iter()
                    .map(|e| (e.id.clone(), e.status))
                    .collect(),
            )
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// A hard rollback restores every affected file byte for byte, whatever
    /// was decided, saved or typed after the run; undoing it gives back the
    /// state before it.
    #[test]
    fn hard_rollback_restores_and_undo_returns(
        notes in arb_notes(),
        picks in proptest::collection::vec((0usize..4, 0usize..12, "[x-z]{1,3}"), 1..6),
        decisions in proptest::collection::vec(0u8..3, 12),
        typed in proptest::option::of(("[0-3]", "[p-r]{1,4}")),
        save in any::<bool>(),
    ) {
        let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let root = vault.path();
        for (i, body) in notes.iter().enumerate() {
            std::fs::write(root.join(format!("n{i}.md")), body).unwrap();
        }
        let project = Project::open(root, Limits::default()).unwrap();
        let mut ws = Workspace::open(project, Store::open_at(Path::new(":memory:")).unwrap()).unwrap();
        drop(data);
        // One replace per file at most, so edits never overlap.
        let mut edits = Vec::new();
        for (k, (file, line, text)) in picks.into_iter().enumerate() {
            let file = file % notes.len();
            let path = format!("n{file}.md");
            if edits.iter().any(|e: &ProposedEdit| e.file_path == path) { continue; }
            let total = notes[file].lines().count();
            edits.push(edit(&format!("e_{k}"), &path, Operation::Replace, line % total + 1, &text));
        }
        let (checkpoint, bundle) = ws.propose(&run("job_1"), &edits, &HunkLimits::default()).unwrap();
        let hunks: Vec<String> = bundle.files.iter().flat_map(|f| f.hunks.iter().map(|h| h.hunk_id.clone())).collect();
        for (i, hunk) in hunks.iter().enumerate() {
            let status = [Status::Pending, Status::Accepted, Status::Rejected][decisions[i % decisions.len()] as usize];
            ws.decide(hunk, status, None).unwrap();
        }
        if let Some((file, text)) = typed {
            let path = format!("n{}.md", file.parse::<usize>().unwrap() % notes.len());
            if let Some(f) = ws.review().file(&path) {
                let edited = format!("{text}\n{}", f.buffer());
                ws.user_edit(&path, &edited).unwrap();
            }
        }
        if save {
            let paths: Vec<String> = ws.review().files().map(|f| f.path.clone()).collect();
            for path in paths {
                // A save may be refused (edited pending hunks); the rollback must not care.
                let _ = ws.save(&path);
            }
        }
        let before = review_state(&ws);

        let report = ws.rollback(&checkpoint.checkpoint_id, RollbackMode::HardAll, &[]).unwrap();
        for file in &checkpoint.affected_files {
            let i: usize = file.file_path[1..file.file_path.len() - 3].parse().unwrap();
            prop_assert_eq!(ws.review().file(&file.file_path).unwrap().buffer(), notes[i].clone());
        }
        ws.rollback(&report.undo_checkpoint_id, RollbackMode::HardAll, &[]).unwrap();
        prop_assert_eq!(review_state(&ws), before);
    }
}

/// A proposal that takes a heading out of a note flags its hunk for the
/// links it breaks, there and in other notes (a heading renamed in place
/// is not taken out: its links follow it).
#[test]
fn a_hunk_that_takes_out_a_linked_heading_is_flagged() {
    let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = vault.path();
    std::fs::write(
        root.join("Plan.md"),
        "# Plan\n\n## Objectifs\n\nA.\n\n## Étapes\n\nVoir [[#Étapes]].\n",
    )
    .unwrap();
    std::fs::write(
        root.join("Journal.md"),
        "Les [[Plan#étapes|étapes]] du plan.\n",
    )
    .unwrap();
    let mut ws = open(root, data.path());
    let flags = |ws: &mut Workspace, job: &str, edits: &[ProposedEdit]| {
        let (_, bundle) = ws
            .propose(&run(job), edits, &HunkLimits::default())
            .unwrap();
        bundle
            .files
            .iter()
            .flat_map(|f| &f.hunks)
            .flat_map(|h| h.flags.iter().map(|f| (f.rule, f.reason.clone())))
            .collect::<Vec<_>>()
    };
    let mut out = edit("e_1", "Plan.md", Operation::Replace, 7, "Suite.");
    out.end_line = Some(7);
    let found = flags(&mut ws, "job_1", &[out]);
    let dead: Vec<&String> = found
        .iter()
        .filter(|(rule, _)| *rule == redline::hunks::triage::Rule::DeadLink)
        .map(|(_, why)| why)
        .collect();
    assert_eq!(dead.len(), 1, "{found:?}");
    assert!(
        dead[0].contains("“Étapes”, which 2 links point to"),
        "{}",
        dead[0]
    );
}
