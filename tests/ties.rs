//! Changes that span notes, checked on the disk over real HTTP: a move and
//! its link updates are one change (accepting the move accepts them, its
//! dry run lists them), and saving the moved note writes the notes whose
//! links follow it in the same batch, so no link on disk points at a note
//! that is not there.

#[path = "support/door.rs"]
mod door;
#[path = "support/agent.rs"]
mod support;

use door::Door;
use redline::providers::Protocol;
use reqwest::{Method, StatusCode};
use serde_json::json;
use support::*;

const LINKERS: [&str; 3] = ["Index.md", "Journal/2026-11-28 — café.md", "Projets/Zoë.md"];

fn vault(dir: &std::path::Path) {
    for (path, text) in [
        ("Notes/Beta.md", "# Beta\n\nÉtat : brouillon.\n"),
        (LINKERS[0], "- [[Beta]]\n- [[Notes/Beta|la bêta]]\n"),
        (LINKERS[1], "Vu [[Beta#État]] ce matin, « ça avance ».\n"),
        (LINKERS[2], "Voir [la note](../Notes/Beta.md) 📝\n"),
    ] {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// Every link on disk in `dir`'s notes that names `Beta`, as written.
fn links_on_disk(dir: &std::path::Path) -> Vec<String> {
    LINKERS
        .iter()
        .map(|p| std::fs::read_to_string(dir.join(p)).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_accepted_from_its_banner_and_saved_leaves_no_link_on_disk_behind() {
    let h = harness_on(vault, Protocol::OpenAiChat, Vec::new(), |_| {}).await;
    let door = Door::open(h.runtime.clone()).await;
    let root = h.vault.path();
    let job = door
        .post(
            "/api/files/op",
            json!({ "path": "Notes/Beta.md", "op": { "kind": "move", "to": "Archives/Bêta.md" } }),
        )
        .await;
    let mv = job["diff_bundle"]["file_ops"][0]["hunk_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let updates: Vec<String> = job["diff_bundle"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["hunks"].as_array().unwrap().iter())
        .map(|h| h["hunk_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(updates.len(), 3, "one update a linking note: {job}");

    // Its dry run lists the link updates it accepts with it.
    let plan = door
        .post(
            &format!("/api/agent/hunks/{mv}/decide"),
            json!({ "status": "accepted", "dry_run": true }),
        )
        .await;
    let planned: Vec<&str> = plan["moved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["hunk_id"].as_str().unwrap())
        .collect();
    for update in &updates {
        assert!(planned.contains(&update.as_str()), "{update} in {plan}");
    }
    assert_eq!(
        links_on_disk(root)[0],
        "- [[Beta]]\n- [[Notes/Beta|la bêta]]\n",
        "a dry run writes nothing"
    );

    // Accepted from the banner, then the moved note saved alone.
    let accepted = door
        .post(
            &format!("/api/agent/hunks/{mv}/decide"),
            json!({ "status": "accepted" }),
        )
        .await;
    assert_eq!(accepted["moved"].as_array().unwrap().len(), 4, "{accepted}");
    door.post("/api/files/save", json!({ "path": "Archives/Bêta.md" }))
        .await;
    assert!(!root.join("Notes/Beta.md").exists());
    assert_eq!(
        std::fs::read_to_string(root.join("Archives/Bêta.md")).unwrap(),
        "# Beta\n\nÉtat : brouillon.\n"
    );
    let after = links_on_disk(root);
    assert_eq!(after[0], "- [[Bêta]]\n- [[Archives/Bêta|la bêta]]\n");
    assert_eq!(after[1], "Vu [[Bêta#État]] ce matin, « ça avance ».\n");
    assert!(after[2].contains("../Archives/B"), "{}", after[2]);
    let unsaved = door.get("/api/files/changed").await;
    assert!(
        unsaved["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["state"]["dirty"] == false),
        "nothing left unsaved: {unsaved}"
    );

    // Rejecting one update afterwards is the user's choice: its dry run says
    // which link it leaves naming the old path, and so does the decision.
    let job_id = job["job_id"].as_str().unwrap();
    let states = h.runtime.hunk_states(job_id, &[]).unwrap();
    let index = &states
        .iter()
        .find(|s| s.file_path == LINKERS[0])
        .unwrap()
        .hunk_id;
    let left = json!([{ "path": LINKERS[0], "hunk_id": index, "from": "Notes/Beta.md", "to": "Archives/Bêta.md" }]);
    let plan = door
        .post(
            &format!("/api/agent/hunks/{index}/decide"),
            json!({ "status": "rejected", "dry_run": true }),
        )
        .await;
    assert_eq!(plan["links_left"], left, "{plan}");
    assert_eq!(
        plan["moved"].as_array().unwrap().len(),
        1,
        "the move stays: {plan}"
    );
    let rejected = door
        .post(
            &format!("/api/agent/hunks/{index}/decide"),
            json!({ "status": "rejected" }),
        )
        .await;
    assert_eq!(rejected["links_left"], left, "{rejected}");
    door.post("/api/files/save", json!({ "path": LINKERS[0] }))
        .await;
    assert_eq!(
        links_on_disk(root)[0],
        "- [[Beta]]\n- [[Notes/Beta|la bêta]]\n"
    );
}

/// "Accept all in file" (Alt+A) is a decision like any other: in a note
/// holding a move's link update it accepts the move too, in the moved note
/// it accepts the move's link updates in the notes linking to it, and
/// Save all then leaves every link whole on disk. One undo takes it all
/// back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accepting_all_in_a_note_carries_what_ties_it_to_other_notes() {
    let h = harness_on(vault, Protocol::OpenAiChat, Vec::new(), |_| {}).await;
    let door = Door::open(h.runtime.clone()).await;
    let root = h.vault.path();
    let job = door
        .post(
            "/api/files/op",
            json!({ "path": "Notes/Beta.md", "op": { "kind": "move", "to": "Archives/Bêta.md" } }),
        )
        .await;
    let job_id = job["job_id"].as_str().unwrap();
    let statuses = || {
        h.runtime
            .hunk_states(job_id, &[])
            .unwrap()
            .into_iter()
            .map(|s| (s.file_path, s.status))
            .collect::<Vec<_>>()
    };
    assert_eq!(statuses().len(), 4, "the move and three updates");

    // From a linking note: its update, and with it the move and the other
    // notes' updates (a move and its links are one change).
    let file = door
        .post("/api/files/accept_all", json!({ "path": LINKERS[1] }))
        .await;
    assert_eq!(file["path"], LINKERS[1], "{file}");
    for (path, status) in statuses() {
        assert_eq!(status, "accepted", "{path} carried");
    }
    door.post("/api/files/save_all", json!(null)).await;
    assert!(!root.join("Notes/Beta.md").exists());
    let after = links_on_disk(root);
    assert_eq!(after[0], "- [[Bêta]]\n- [[Archives/Bêta|la bêta]]\n");
    assert_eq!(after[1], "Vu [[Bêta#État]] ce matin, « ça avance ».\n");
    assert!(after[2].contains("../Archives/B"), "{}", after[2]);

    // One undo takes back the whole decision; the next save puts the note
    // and every link back.
    let undone = door.post("/api/review/undo", json!({})).await;
    assert_eq!(undone["moved"].as_array().unwrap().len(), 4, "{undone}");
    for (path, status) in statuses() {
        assert_eq!(status, "pending", "{path} undone");
    }
    door.post("/api/files/save_all", json!(null)).await;
    assert!(root.join("Notes/Beta.md").exists());
    assert_eq!(
        links_on_disk(root)[0],
        "- [[Beta]]\n- [[Notes/Beta|la bêta]]\n"
    );

    // From the moved note: the move, and its updates in the linking notes.
    door.post(
        "/api/files/accept_all",
        json!({ "path": "Archives/Bêta.md" }),
    )
    .await;
    for (path, status) in statuses() {
        assert_eq!(status, "accepted", "{path} carried by the move");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_save_that_would_move_a_note_whose_linking_note_changed_on_disk_writes_nothing() {
    let h = harness_on(vault, Protocol::OpenAiChat, Vec::new(), |_| {}).await;
    let door = Door::open(h.runtime.clone()).await;
    let root = h.vault.path();
    let job = door
        .post(
            "/api/files/op",
            json!({ "path": "Notes/Beta.md", "op": { "kind": "move", "to": "Archives/Bêta.md" } }),
        )
        .await;
    let mv = job["diff_bundle"]["file_ops"][0]["hunk_id"]
        .as_str()
        .unwrap();
    door.post(
        &format!("/api/agent/hunks/{mv}/decide"),
        json!({ "status": "accepted" }),
    )
    .await;
    // Another program changes a note whose link follows the move.
    let theirs = "Vu [[Beta#État]] ce soir.\n";
    std::fs::write(root.join(LINKERS[1]), theirs).unwrap();
    let (code, refused) = door
        .call(
            Method::POST,
            "/api/files/save",
            Some(json!({ "path": "Archives/Bêta.md" })),
        )
        .await;
    assert_eq!(code, StatusCode::CONFLICT, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("changed on disk"), "{message}");
    assert!(root.join("Notes/Beta.md").exists(), "nothing moved");
    assert_eq!(
        std::fs::read_to_string(root.join(LINKERS[1])).unwrap(),
        theirs
    );
    assert_eq!(
        std::fs::read_to_string(root.join(LINKERS[0])).unwrap(),
        "- [[Beta]]\n- [[Notes/Beta|la bêta]]\n",
        "nothing written"
    );
}

/// A find and replace limited to one folder that renames a heading there:
/// its preview lists the note outside the folder whose link to that
/// heading follows, staging rewrites that link as a hunk tied to the
/// heading's, and rejecting the heading's change takes the link's with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_heading_renamed_in_one_folder_takes_the_links_to_it_along_and_says_so_first() {
    let vault = |dir: &std::path::Path| {
        for (path, text) in [
            ("A/Plan.md", "# Plan\n\n## Étapes\n\nUne, deux.\n"),
            ("B/Journal.md", "Voir [[Plan#Étapes]] — « bientôt ».\n"),
        ] {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    };
    let h = harness_on(vault, Protocol::OpenAiChat, Vec::new(), |_| {}).await;
    let door = Door::open(h.runtime.clone()).await;
    let op = json!({ "op": "replace_text", "find": "Étapes", "replace": "Phases", "scope": { "folders": ["A"] } });
    let preview = door
        .post(
            "/api/operations/preview",
            json!({ "operations": [op.clone()] }),
        )
        .await;
    assert_eq!(preview["reports"][0]["notes_changed"], 1, "{preview}");
    assert_eq!(
        preview["links_follow"],
        json!([{ "file_path": "B/Journal.md", "links": 1 }]),
        "{preview}"
    );
    let job = door
        .post("/api/operations", json!({ "operations": [op] }))
        .await;
    let states = h
        .runtime
        .hunk_states(job["job_id"].as_str().unwrap(), &[])
        .unwrap();
    let hunk = |path: &str| {
        states
            .iter()
            .find(|s| s.file_path == path)
            .unwrap_or_else(|| panic!("no hunk in {path}: {states:?}"))
            .hunk_id
            .clone()
    };
    let (heading, link) = (hunk("A/Plan.md"), hunk("B/Journal.md"));
    let rejected = door
        .post(
            &format!("/api/agent/hunks/{heading}/decide"),
            json!({ "status": "rejected" }),
        )
        .await;
    let moved: Vec<&str> = rejected["moved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["hunk_id"].as_str().unwrap())
        .collect();
    assert!(
        moved.contains(&link.as_str()),
        "the link's change goes with the heading's: {rejected}"
    );
}
