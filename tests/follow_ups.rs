//! A session of follow-up requests over real HTTP, on the demo vault, with
//! the scripted model: each job reads the working state (earlier jobs'
//! pending hunks, the user's unsaved edits), stacks its hunks on top, each
//! job's hunks are decided on their own, a job reviewed hunk by hunk and
//! saved completes without apply, the next job is told what the user did
//! with the earlier proposals, and no job reports a success it did not have.

#[path = "support/door.rs"]
mod door;
#[path = "support/agent.rs"]
mod support;

use door::Door;
use redline::providers::Protocol;
use redline::testkit::scripted::Turn;
use serde_json::{Value, json};
use support::*;

const PLAN: &str = "Projects/Q3 Launch Plan.md";
const SITE: &str = "Projects/Website Redesign.md";
const JOURNAL: &str = "Journal/2026-11-20.md";
const SYNC_9: &str = "Meetings/2026-11-09 Weekly Sync.md";
const SYNC_2: &str = "Meetings/2026-11-02 Weekly Sync.md";

fn replace(file: &str, line: usize, old: &str, new: &str) -> Value {
    json!({ "file_path": file, "operation": "replace", "start_line": line, "end_line": line,
            "new_text": new, "old_text": old, "rationale": null })
}

fn propose(edits: Vec<Value>, summary: &str) -> Turn {
    Turn::call(
        "propose_edits",
        json!({ "edits": edits, "summary": summary }),
    )
}

fn rename() -> Turn {
    let line = |file, n, text: &str| replace(file, n, text, &text.replace("Atlas", "Meridian"));
    propose(
        vec![
            line(
                PLAN,
                8,
                "Atlas 2.0 ships in the third quarter. The launch depends on the",
            ),
            line(
                SITE,
                9,
                "The Atlas website needs a new landing page before the Q3 launch.",
            ),
            line(
                JOURNAL,
                3,
                "Spent the morning on the Atlas pricing table. Need to ask Ben",
            ),
            line(
                SYNC_9,
                11,
                "- Atlas beta feedback is mostly about onboarding.",
            ),
            line(SYNC_2, 11, "- Atlas beta starts next week."),
        ],
        "Renamed Atlas to Meridian in five notes.",
    )
}

/// The ids of a job's hunks, by file.
fn hunks(job: &Value) -> Vec<(String, String)> {
    job["diff_bundle"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| {
            f["hunks"].as_array().unwrap().iter().map(|h| {
                (
                    f["file_path"].as_str().unwrap().to_owned(),
                    h["hunk_id"].as_str().unwrap().to_owned(),
                )
            })
        })
        .collect()
}

fn hunk_in(job: &Value, file: &str) -> String {
    hunks(job)
        .into_iter()
        .find(|(f, _)| f == file)
        .unwrap_or_else(|| panic!("no hunk in {file}: {job}"))
        .1
}

/// The text the model got back from its one `read_file` call in `body`.
fn read_result(body: &Value) -> String {
    tool_results(body)
        .into_iter()
        .map(|(_, content, _)| content)
        .find(|c| c.contains("\"file_hash\""))
        .expect("a read_file result")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follow_ups_stack_on_pending_work_and_the_agent_learns_the_decisions() {
    let turns = vec![
        // Job 1: the rename.
        Turn::call("search_project", json!({ "query": "Atlas" })),
        rename(),
        // Job 2, before any decision: a follow-up on a file with a pending hunk.
        Turn::call("read_file", json!({ "file_path": SYNC_2 })),
        propose(
            vec![replace(
                SYNC_2,
                8,
                "Attendees: Ana, Ben.",
                "Attendees: Ana, Ben, Cleo.",
            )],
            "Added Cleo.",
        ),
        // Job 3: a file with a pending hunk and the user's unsaved line.
        Turn::call("read_file", json!({ "file_path": JOURNAL })),
        propose(
            vec![replace(
                JOURNAL,
                1,
                "# 20 November 2026",
                "# Friday, 20 November 2026",
            )],
            "Named the day.",
        ),
        // Job 4: told what became of the earlier proposals.
        nothing("Nothing else to change."),
    ];
    let h = harness_on(copy_demo, Protocol::OpenAiChat, turns, |_| {}).await;
    let door = Door::open(h.runtime.clone()).await;
    let before = |file: &str| {
        std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures/vaults/demo")
                .join(file),
        )
        .unwrap()
    };
    let session = door.post("/api/agent/sessions", json!({})).await["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let run = |instruction: &str| json!({ "session_id": session, "instruction": instruction });
    let job_of = |v: Value| v["job_id"].as_str().unwrap().to_owned();

    // 1. The rename: five hunks pending, nothing on disk.
    let job1 = job_of(
        door.post(
            "/api/agent/run",
            run("Rename the Atlas project to Meridian everywhere"),
        )
        .await,
    );
    door.until(&job1, "awaiting_review").await;
    let j1 = door.get(&format!("/api/agent/jobs/{job1}")).await;
    assert_eq!(hunks(&j1).len(), 5, "{j1}");
    for file in [PLAN, SITE, JOURNAL, SYNC_9, SYNC_2] {
        assert_eq!(h.read(file), before(file), "nothing reached the disk");
    }

    // 2. A follow-up on one of those files before any decision: the agent
    // reads the pending text, and its hunk is staged on top.
    let job2 = job_of(
        door.post(
            "/api/agent/run",
            run("Also add Cleo to the attendees of the 2 November sync"),
        )
        .await,
    );
    door.until(&job2, "awaiting_review").await;
    let read = read_result(&h.bodies()[3]);
    assert!(
        read.contains("Meridian beta starts next week."),
        "the agent read the working state: {read}"
    );
    let j2 = door.get(&format!("/api/agent/jobs/{job2}")).await;
    assert_eq!(j2["status"], "awaiting_review");
    let sync2 = door
        .get(&format!("/api/files/content?path={}", urlencode(SYNC_2)))
        .await;
    assert_eq!(
        sync2["state"]["pending_hunks"].as_array().unwrap().len(),
        2,
        "both jobs' hunks: {sync2}"
    );
    assert_eq!(
        sync2["text"],
        before(SYNC_2)
            .replace("Atlas beta", "Meridian beta")
            .replace("Ana, Ben.", "Ana, Ben, Cleo.")
    );
    assert_eq!(h.read(SYNC_2), before(SYNC_2));

    // 3. The user types an unsaved line; the next job reads it and stacks on it.
    let journal = door
        .get(&format!("/api/files/content?path={}", urlencode(JOURNAL)))
        .await;
    let typed = format!(
        "{}\nRemember: call Ben.\n",
        journal["text"].as_str().unwrap()
    );
    let (status, _) = door
        .put(
            "/api/files/buffer",
            json!({ "path": JOURNAL, "text": typed, "base_hash": journal["hash"] }),
        )
        .await;
    assert_eq!(status, 200);
    let job3 = job_of(
        door.post(
            "/api/agent/run",
            run("Name the weekday in the journal's title"),
        )
        .await,
    );
    door.until(&job3, "awaiting_review").await;
    let read = read_result(&h.bodies()[5]);
    assert!(
        read.contains("Remember: call Ben.") && read.contains("Meridian pricing"),
        "{read}"
    );
    let journal = door
        .get(&format!("/api/files/content?path={}", urlencode(JOURNAL)))
        .await;
    assert_eq!(
        journal["text"],
        typed.replace("# 20 November", "# Friday, 20 November")
    );
    assert_eq!(
        h.read(JOURNAL),
        before(JOURNAL),
        "unsaved work stays off the disk"
    );

    // 4. Job 2 reviewed hunk by hunk and saved: completed without apply.
    let j2_hunk = hunk_in(&j2, SYNC_2);
    door.post(
        &format!("/api/agent/hunks/{j2_hunk}/decide"),
        json!({ "status": "accepted" }),
    )
    .await;
    assert_eq!(
        door.get(&format!("/api/agent/jobs/{job2}")).await["status"],
        "awaiting_review",
        "not saved yet"
    );
    door.post("/api/files/save", json!({ "path": SYNC_2 }))
        .await;
    let j2 = door.get(&format!("/api/agent/jobs/{job2}")).await;
    assert_eq!(j2["status"], "completed", "{j2}");
    let events = door
        .get(&format!("/api/agent/jobs/{job2}/events?cursor=0"))
        .await["events"]
        .clone();
    assert!(
        events
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "review.finished"),
        "{events}"
    );
    assert_eq!(
        h.read(SYNC_2),
        before(SYNC_2).replace("Ana, Ben.", "Ana, Ben, Cleo."),
        "job 2's hunk on disk, job 1's still pending"
    );

    // Job 1: one hunk rejected, one rewritten by the user, the rest accepted; all saved.
    let site = hunk_in(&j1, SITE);
    door.post(
        &format!("/api/agent/hunks/{site}/decide"),
        json!({ "status": "rejected", "reason": "the site keeps its name" }),
    )
    .await;
    let plan = door
        .get(&format!("/api/files/content?path={}", urlencode(PLAN)))
        .await;
    let rewritten = plan["text"]
        .as_str()
        .unwrap()
        .replace("Meridian 2.0", "Meridian 2.1");
    let (status, _) = door
        .put(
            "/api/files/buffer",
            json!({ "path": PLAN, "text": rewritten, "base_hash": plan["hash"] }),
        )
        .await;
    assert_eq!(status, 200);
    for (file, hunk) in hunks(&j1).into_iter().filter(|(f, _)| f != SITE) {
        door.post(
            &format!("/api/agent/hunks/{hunk}/decide"),
            json!({ "status": "accepted" }),
        )
        .await;
        door.post("/api/files/save", json!({ "path": file })).await;
    }
    door.post("/api/files/save", json!({ "path": SITE })).await;
    assert_eq!(
        door.get(&format!("/api/agent/jobs/{job1}")).await["status"],
        "completed"
    );
    assert_eq!(
        h.read(SITE),
        before(SITE),
        "the rejected hunk never reached the disk"
    );
    assert_eq!(
        h.read(PLAN),
        before(PLAN).replace("Atlas 2.0", "Meridian 2.1")
    );
    assert_eq!(
        h.read(SYNC_2),
        before(SYNC_2)
            .replace("Ana, Ben.", "Ana, Ben, Cleo.")
            .replace("Atlas beta", "Meridian beta")
    );
    // Job 3's hunk is still pending: its file holds job 1's accepted hunk
    // and the user's line on disk, the title change in the buffer only.
    assert_eq!(
        h.read(JOURNAL),
        typed.replace("# Friday, 20 November", "# 20 November"),
        "saved without the pending hunk"
    );
    assert_eq!(
        door.get(&format!("/api/agent/jobs/{job3}")).await["status"],
        "awaiting_review"
    );

    // 5. The next job's first request says what happened, and never that the
    // rejected change was made.
    let job4 = job_of(
        door.post("/api/agent/run", run("Anything else to rename?"))
            .await,
    );
    door.until(&job4, "completed").await;
    let first = h.bodies()[6]["messages"].to_string();
    let said = |needle: &str| assert!(first.contains(needle), "missing {needle:?} in {first}");
    said(&format!(
        "{SITE} line 9 ({site}): rejected — this change was NOT made; the lines are still \\\"The Atlas website"
    ));
    said("The user's reason: \\\"the site keeps its name\\\".");
    said(&format!(
        "{PLAN} line 8 ({}): changed by the user; the lines now read \\\"Meridian 2.1 ships",
        hunk_in(&j1, PLAN)
    ));
    said(&format!("{SYNC_2} line 8 ({j2_hunk}): accepted."));
    assert!(
        !first.contains(&format!(
            "({})",
            hunk_in(&door.get(&format!("/api/agent/jobs/{job3}")).await, JOURNAL)
        )),
        "a pending hunk is not news"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_that_staged_nothing_never_ends_completed() {
    let turns = vec![
        // A refused proposal, then prose twice: failed, with the reasons.
        propose(
            vec![replace(
                "notes/alpha.md",
                3,
                "Status: nowhere",
                "Status: final",
            )],
            "Final.",
        ),
        Turn::text(&["ok"]),
        Turn::text(&["ok"]),
        // Prose twice with nothing refused: failed, no_proposal.
        Turn::text(&["Alpha looks fine."]),
        Turn::text(&["Really, it is fine."]),
        // Prose, then an explicit "nothing to change" after the reminder: completed.
        Turn::text(&["Alpha looks fine."]),
        nothing("Alpha needs no change."),
    ];
    let h = harness(Protocol::AnthropicMessages, turns, |_| {}).await;
    let door = Door::open(h.runtime.clone()).await;

    let (_, job) = door.start("Mark Alpha final").await;
    door.until(&job, "failed").await;
    let j = door.get(&format!("/api/agent/jobs/{job}")).await;
    assert_eq!(j["error"]["code"], "proposal_refused", "{j}");
    assert!(
        j["error"]["message"]
            .as_str()
            .unwrap()
            .contains("old_text was not found"),
        "{j}"
    );
    let events = door
        .get(&format!("/api/agent/jobs/{job}/events?cursor=0"))
        .await["events"]
        .clone();
    let reminded: Vec<&Value> = events
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "agent.reminded")
        .collect();
    assert_eq!(reminded.len(), 1, "reminded once: {events}");
    let reminder = h.bodies()[2]["messages"].to_string();
    assert!(reminder.contains("Call propose_edits now"), "{reminder}");

    let (_, job) = door.start("Check Alpha").await;
    door.until(&job, "failed").await;
    let j = door.get(&format!("/api/agent/jobs/{job}")).await;
    assert_eq!(j["error"]["code"], "no_proposal", "{j}");

    let (_, job) = door.start("Check Alpha again").await;
    door.until(&job, "completed").await;
    let j = door.get(&format!("/api/agent/jobs/{job}")).await;
    assert_eq!(j["summary"], "Alpha needs no change.");
    assert_eq!(h.read("notes/alpha.md"), ALPHA);
}

fn urlencode(path: &str) -> String {
    path.replace(' ', "%20")
}
