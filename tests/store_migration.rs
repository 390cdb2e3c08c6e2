//! A store written by the line-region change log (schema version 3,
//! `fixtures/stores/v3`) opens in the piece log with every file as it was:
//! the same buffer, the same hunk statuses, the same disk view where that
//! build had one — and now every hunk can be decided, a hard rollback to its
//! old checkpoint restores what it held, and the store is written anew.
//! A file whose piece text schema version 4 kept as a blob (5 keeps it in the
//! file's row) loads the same.

use std::path::Path;

use redline::checkpoints::RollbackMode;
use redline::config::Limits;
use redline::edits::{Operation, ProposedEdit};
use redline::hunks::HunkLimits;
use redline::project::Project;
use redline::review::Status;
use redline::store::{MIGRATIONS, Store};
use redline::workspace::{RunInfo, Workspace};
use serde_json::Value;

fn fixture() -> (tempfile::TempDir, Value) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/stores/v3");
    let dir = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", from.display()))
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    let expected = std::fs::read_to_string(dir.path().join("expected.json")).unwrap();
    (dir, serde_json::from_str(&expected).unwrap())
}

fn open(dir: &Path) -> Workspace {
    let project = Project::open(dir.join("vault"), Limits::default()).unwrap();
    let store = Store::open_at(&dir.join("redline.db")).unwrap();
    Workspace::open(project, store).unwrap()
}

fn statuses(ws: &Workspace, path: &str) -> Vec<(String, Status)> {
    let mut hunks: Vec<(String, Status)> = ws
        .file_content(path)
        .unwrap()
        .hunks
        .into_iter()
        .map(|h| (h.hunk_id, h.status))
        .collect();
    hunks.sort_by(|a, b| a.0.cmp(&b.0));
    hunks
}

#[test]
fn a_version_3_store_opens_with_every_hunk_intact() {
    let (dir, expected) = fixture();
    let version = rusqlite_version(&dir.path().join("redline.db"));
    assert_eq!(version, 3, "the fixture is a version 3 store");
    let mut ws = open(dir.path());
    assert_eq!(ws.store().schema_version().unwrap(), MIGRATIONS.len());
    for (path, want) in expected["files"].as_object().unwrap() {
        let file = ws.review().file(path).expect("still under review");
        assert_eq!(file.buffer(), want["buffer"].as_str().unwrap(), "{path}");
        if let Some(disk) = want["disk_view"].as_str() {
            assert_eq!(ws.review().disk_view(file), disk, "{path}");
        }
        let mut hunks: Vec<(String, Status)> = want["hunks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                let status = Status::parse(h["status"].as_str().unwrap()).unwrap();
                (h["hunk_id"].as_str().unwrap().to_owned(), status)
            })
            .collect();
        hunks.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(statuses(&ws, path), hunks, "{path}");
    }
    // The web note's pending title held the user's typing, which the old log
    // could neither save around nor reject. Typed just after the hunk's new
    // word, it is the user's own: saved without the pending hunk, and kept
    // when the hunk is rejected.
    let web = "Projects/Website Redesign.md";
    let original = std::fs::read_to_string(dir.path().join("vault").join(web)).unwrap();
    let typed = original.replace(
        "title: Website Redesign\n",
        "title: Website Redesign (draft)\n",
    );
    assert_eq!(ws.review().disk_view(ws.review().file(web).unwrap()), typed);
    ws.decide("h_5", Status::Rejected, None).unwrap();
    assert_eq!(ws.file_content(web).unwrap().text, typed);

    // The store was written anew: it opens again, the same, with no replay.
    let plan = "Projects/Q3 Launch Plan.md";
    let before = ws.file_content(plan).unwrap().text;
    drop(ws);
    let mut ws = open(dir.path());
    assert_eq!(ws.file_content(plan).unwrap().text, before);
    // The job 1 rename rejected under job 2's pending date on the same line.
    ws.decide("h_2", Status::Rejected, None).unwrap();
    assert!(
        ws.file_content(plan)
            .unwrap()
            .text
            .contains("\nAtlas 2.0 ships on 9 September. The launch depends on the\n")
    );

    // A hard rollback to a checkpoint the old build wrote restores its text.
    let checkpoint = expected["checkpoint_job_2"].as_str().unwrap();
    ws.rollback(checkpoint, RollbackMode::HardAll, &[]).unwrap();
    assert_eq!(
        ws.file_content(plan).unwrap().text,
        expected["plan_rolled_back_to_job_2"].as_str().unwrap()
    );
    // ...with its hunks decidable again.
    let pending = ws.file_content(plan).unwrap().state.pending_hunks;
    assert!(!pending.is_empty());
    for hunk in &pending {
        ws.decide(hunk, Status::Rejected, None).unwrap();
    }
}

fn rusqlite_version(path: &Path) -> i64 {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap()
}

#[test]
fn a_piece_text_stored_as_a_blob_by_version_4_still_loads() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    std::fs::create_dir(&vault).unwrap();
    std::fs::write(vault.join("a.md"), "one\ntwo\nthree\n").unwrap();
    let mut ws = open(dir.path());
    let edit = ProposedEdit {
        edit_id: "e_1".into(),
        file_path: "a.md".into(),
        operation: Operation::Replace,
        start_line: 2,
        end_line: None,
        new_text: "TWO".into(),
        old_text: None,
        expected_hash: None,
        rationale: String::new(),
        new_path: None,
    };
    let run = RunInfo {
        session_id: None,
        job_id: "job_1".into(),
        instruction: "Shout two".into(),
        seen: None,
        answers: Vec::new(),
        reads: Default::default(),
    };
    ws.propose(&run, &[edit], &HunkLimits::default()).unwrap();
    let buffer = ws.review().file("a.md").unwrap().buffer();
    let hunks = statuses(&ws, "a.md");
    drop(ws);

    // The row as version 4 wrote it: the piece text a blob, named by hash.
    let conn = rusqlite::Connection::open(dir.path().join("redline.db")).unwrap();
    let packed: Vec<u8> = conn
        .query_row(
            "SELECT pieces_text FROM review_files WHERE path = 'a.md'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let text = lz4_flex::decompress_size_prepended(&packed).unwrap();
    let hash = redline::project::text::content_hash(&text);
    conn.execute(
        "INSERT OR IGNORE INTO blobs (hash, size, data) VALUES (?1, ?2, ?3)",
        rusqlite::params![hash, text.len() as i64, packed],
    )
    .unwrap();
    conn.execute(
        "UPDATE review_files SET pieces_text = NULL, pieces_hash = ?1 WHERE path = 'a.md'",
        [&hash],
    )
    .unwrap();
    drop(conn);

    let ws = open(dir.path());
    assert_eq!(ws.review().file("a.md").unwrap().buffer(), buffer);
    assert_eq!(statuses(&ws, "a.md"), hunks);
}
