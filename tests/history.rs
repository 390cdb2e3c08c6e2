//! The engine's decision history over real HTTP: undo and redo take back
//! exactly one step (a decision, a run's "Reject all pending", a pattern, an
//! apply), never re-deciding a selection, so saved work stays saved; and
//! the history survives a restart.

#[path = "support/door.rs"]
mod door;
#[path = "support/agent.rs"]
mod support;

use std::collections::BTreeMap;

use door::Door;
use redline::jobs::Runtime;
use redline::providers::Protocol;
use redline::testkit::scripted::Turn;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use support::*;

const NOTES: usize = 10;

fn note(i: usize, target: &str) -> String {
    format!("# Nota {i} — café\n\nVoir [[{target}]] pour plus, « vraiment ».\n")
}

/// Ten notes linking `[[Atlas]]`, and a run that relinks each to
/// `[[Méridien]]`: ten hunks of one pattern.
async fn relinked() -> (Harness, Door, String, String) {
    let vault = |dir: &std::path::Path| {
        std::fs::create_dir_all(dir.join("notes")).unwrap();
        std::fs::write(dir.join("Méridien.md"), "# Méridien\n").unwrap();
        for i in 0..NOTES {
            std::fs::write(dir.join(format!("notes/n{i}.md")), note(i, "Atlas")).unwrap();
        }
    };
    let edits: Vec<Value> = (0..NOTES)
        .map(|i| {
            json!({ "file_path": format!("notes/n{i}.md"), "operation": "replace", "start_line": 3,
                    "end_line": 3, "new_text": "Voir [[Méridien]] pour plus, « vraiment ».",
                    "old_text": "Voir [[Atlas]] pour plus, « vraiment »." })
        })
        .collect();
    let turns = vec![Turn::call(
        "propose_edits",
        json!({ "edits": edits, "summary": "Relinked." }),
    )];
    let h = harness_on(vault, Protocol::OpenAiChat, turns, |_| {}).await;
    let door = Door::open(h.runtime.clone()).await;
    let (session, job) = door.start("Link Méridien instead of Atlas").await;
    door.until(&job, "awaiting_review").await;
    (h, door, session, job)
}

/// Each hunk of `job` (note order) with its status.
fn statuses(runtime: &Runtime, job: &str) -> BTreeMap<String, String> {
    runtime
        .hunk_states(job, &[])
        .unwrap()
        .into_iter()
        .map(|s| (s.file_path, s.status))
        .collect()
}

fn hunks(runtime: &Runtime, job: &str) -> Vec<String> {
    let mut states = runtime.hunk_states(job, &[]).unwrap();
    states.sort_by(|a, b| a.file_path.cmp(&b.file_path));
    states.into_iter().map(|s| s.hunk_id).collect()
}

fn count(map: &BTreeMap<String, String>, status: &str) -> usize {
    map.values().filter(|s| *s == status).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undoing_reject_all_pending_brings_back_its_two_hunks_only_and_saved_work_stays_on_disk() {
    let (h, door, _, job) = relinked().await;
    let ids = hunks(&h.runtime, &job);
    for id in &ids[..8] {
        door.post(
            &format!("/api/agent/hunks/{id}/decide"),
            json!({ "status": "accepted" }),
        )
        .await;
    }
    let saved = door.post("/api/files/save_all", Value::Null).await;
    assert_eq!(saved["saved"].as_array().unwrap().len(), 8, "{saved}");
    let rejected = door
        .post(
            "/api/review/decide",
            json!({ "selection": { "kind": "job", "job_id": job }, "status": "rejected",
                    "label": "every pending hunk of the run" }),
        )
        .await;
    assert_eq!(rejected["moved"], 2, "{rejected}");

    let heads = door.get("/api/review/history").await;
    assert_eq!(
        heads["undo"]["label"], "Rejected every pending hunk of the run",
        "{heads}"
    );
    assert_eq!(heads["undo"]["hunks"], 2, "{heads}");
    assert_eq!(heads["redo"], Value::Null, "{heads}");
    let step = heads["undo"]["step_id"].as_str().unwrap().to_owned();

    let undone = door
        .post("/api/review/undo", json!({ "step_id": step }))
        .await;
    assert_eq!(undone["undone"], true);
    let moved = undone["moved"].as_array().unwrap();
    assert_eq!(moved.len(), 2, "exactly the two it rejected: {undone}");
    assert!(
        moved
            .iter()
            .all(|m| m["from"] == "rejected" && m["to"] == "pending"),
        "{undone}"
    );
    let now = statuses(&h.runtime, &job);
    assert_eq!(
        (count(&now, "accepted"), count(&now, "pending")),
        (8, 2),
        "{now:?}"
    );
    // Save all leaves the eight saved notes as they are on disk.
    door.post("/api/files/save_all", Value::Null).await;
    for i in 0..NOTES {
        let want = note(i, if i < 8 { "Méridien" } else { "Atlas" });
        assert_eq!(h.read(&format!("notes/n{i}.md")), want, "note {i}");
    }

    // Redo rejects the two again; the step names what it is.
    let heads = door.get("/api/review/history").await;
    assert_eq!(heads["redo"]["step_id"], step.as_str(), "{heads}");
    let redone = door.post("/api/review/redo", json!({})).await;
    assert_eq!(redone["undone"], false);
    assert_eq!(redone["moved"].as_array().unwrap().len(), 2, "{redone}");
    assert_eq!(count(&statuses(&h.runtime, &job), "rejected"), 2);

    // A step that is not the next one is refused, with nothing moved.
    let (code, refused) = door
        .call(
            Method::POST,
            "/api/review/undo",
            Some(json!({ "step_id": "s_999" })),
        )
        .await;
    assert_eq!(code, StatusCode::CONFLICT, "{refused}");
    assert_eq!(count(&statuses(&h.runtime, &job), "rejected"), 2);

    // Undo twice: the rejection, then the eighth accept alone.
    door.post("/api/review/undo", json!({})).await;
    let eighth = door.post("/api/review/undo", json!({})).await;
    assert_eq!(eighth["moved"].as_array().unwrap().len(), 1, "{eighth}");
    assert_eq!(eighth["moved"][0]["hunk_id"], ids[7].as_str(), "{eighth}");
    assert_eq!(eighth["files"], json!(["notes/n7.md"]), "{eighth}");

    // After a restart the history is there: undo takes back the seventh accept.
    let (vault, config) = (h.vault.path().to_owned(), h.config.clone());
    drop(door);
    let runtime = Runtime::open(&vault, config).unwrap();
    let door = Door::open(runtime.clone()).await;
    let heads = door.get("/api/review/history").await;
    assert_eq!(heads["undo"]["hunks"], 1, "{heads}");
    assert!(
        heads["undo"]["label"]
            .as_str()
            .unwrap()
            .contains(ids[6].as_str()),
        "{heads}"
    );
    assert_eq!(
        heads["redo"]["hunks"], 1,
        "the eighth accept can be redone: {heads}"
    );
    let seventh = door.post("/api/review/undo", json!({})).await;
    assert_eq!(seventh["moved"][0]["hunk_id"], ids[6].as_str(), "{seventh}");
    let now = statuses(&runtime, &job);
    assert_eq!(
        (count(&now, "accepted"), count(&now, "pending")),
        (6, 4),
        "{now:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undoing_a_pattern_leaves_a_hunk_rejected_on_its_own_and_undoing_apply_takes_back_its_decisions()
 {
    let (h, door, session, job) = relinked().await;
    let ids = hunks(&h.runtime, &job);
    door.post(
        &format!("/api/agent/hunks/{}/decide", ids[3]),
        json!({ "status": "rejected" }),
    )
    .await;
    let pattern = door
        .post(
            "/api/review/decide",
            json!({ "selection": { "kind": "pattern", "job_id": job, "pattern_id": "p1" },
                    "status": "accepted" }),
        )
        .await;
    assert_eq!(pattern["moved"], 9, "{pattern}");
    let undone = door.post("/api/review/undo", json!({})).await;
    assert_eq!(undone["moved"].as_array().unwrap().len(), 9, "{undone}");
    let now = statuses(&h.runtime, &job);
    assert_eq!(
        now["notes/n3.md"], "rejected",
        "rejected on its own, it stays: {now:?}"
    );
    assert_eq!(count(&now, "pending"), 9, "{now:?}");

    // Apply: four accepted, the rest rejected, written; one undo takes back
    // every decision it made, and redo makes them again.
    let accepted: Vec<&String> = ids[4..8].iter().collect();
    let applied = door
        .post(
            "/api/agent/apply",
            json!({ "session_id": session, "job_id": job, "accepted_hunk_ids": accepted }),
        )
        .await;
    assert_eq!(applied["status"], "completed", "{applied}");
    let heads = door.get("/api/review/history").await;
    assert!(
        heads["undo"]["label"]
            .as_str()
            .unwrap()
            .starts_with("Applied"),
        "{heads}"
    );
    let undone = door.post("/api/review/undo", json!({})).await;
    // Four accepted and five rejected by the apply; n3 was rejected already.
    assert_eq!(undone["moved"].as_array().unwrap().len(), 9, "{undone}");
    let now = statuses(&h.runtime, &job);
    assert_eq!(
        (count(&now, "pending"), count(&now, "rejected")),
        (9, 1),
        "{now:?}"
    );
    assert_eq!(now["notes/n3.md"], "rejected");
    door.post("/api/review/redo", json!({})).await;
    let now = statuses(&h.runtime, &job);
    assert_eq!(
        (count(&now, "accepted"), count(&now, "rejected")),
        (4, 6),
        "{now:?}"
    );

    // Nothing left to redo says so.
    let (code, refused) = door
        .call(Method::POST, "/api/review/redo", Some(json!({})))
        .await;
    assert_eq!(code, StatusCode::CONFLICT, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nothing to redo"),
        "{refused}"
    );
}
