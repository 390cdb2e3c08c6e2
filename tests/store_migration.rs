//! A store written by the line-region change log (schema version 3,
//! `fixtures/stores/v3`) opens in the piece log with every file as it was:
//! the same buffer, the same hunk statuses, the same disk view where that
//! build had one — and now every hunk can be decided, a hard rollback to its
//! old checkpoint restores what it held, and the store is written anew.

use std::path::Path;

use redline::checkpoints::RollbackMode;
use redline::config::Limits;
use redline::project::Project;
use redline::review::Status;
use redline::store::{MIGRATIONS, Store};
use redline::workspace::Workspace;
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
            assert_eq!(file.disk_view(), disk, "{path}");
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
    assert_eq!(ws.review().file(web).unwrap().disk_view(), typed);
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
