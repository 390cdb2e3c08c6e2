//! Other programs write, Redline shows it for review: real processes
//! (`sed -i`, a Python script writing in place, an atomic rename over the
//! file, `rm`, `mv`, a new note, a file that is not text, and a burst over
//! 1,000 notes) change the folder under a real watcher, with
//! `outside_changes = "review"`. Each change becomes a job of the `outside`
//! session whose hunks are exactly the change (the file that is not text is
//! listed with its reason); every group is still pending after a restart;
//! then, for each writer, rejecting puts the bytes back and accepting gives
//! the bytes it wrote.

#[path = "support/door.rs"]
mod door;
#[path = "support/agent.rs"]
mod support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use door::Door;
use redline::config::OutsideMode;
use redline::jobs::Runtime;
use redline::providers::Protocol;
use serde_json::{Value, json};
use support::*;

const NOTE: &str = "# Roadmap\n\nShip in March.\n\n## Risks\n\nHiring is slow.\n";

fn fill(root: &Path) {
    std::fs::create_dir_all(root.join("notes")).unwrap();
    for name in ["sed", "python", "atomic", "gone", "moved"] {
        std::fs::write(root.join(format!("notes/{name}.md")), NOTE).unwrap();
    }
    std::fs::create_dir_all(root.join("many")).unwrap();
    for i in 0..BURST {
        std::fs::write(
            root.join(format!("many/{i:04}.md")),
            format!("# Note {i}\n\nLinks to [[Atlas]].\n"),
        )
        .unwrap();
    }
}

const BURST: usize = 1000;

fn run(root: &Path, program: &str, args: &[&str]) {
    let status = Command::new(program)
        .args(args)
        .current_dir(root)
        .status()
        .unwrap();
    assert!(status.success(), "{program} {args:?}");
}

/// The next job of the `outside` session with pending hunks that is not in
/// `seen`, once its hunks number `hunks` (a burst may come as several
/// groups: all of them, then).
async fn groups(door: &Door, seen: &mut Vec<String>, hunks: usize) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let review = door.get("/api/review?limit=5000").await;
        let new: Vec<Value> = review["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|j| {
                j["instruction"]
                    .as_str()
                    .is_some_and(|i| i.starts_with("Changed outside Redline"))
                    && !seen.contains(&j["job_id"].as_str().unwrap().to_owned())
            })
            .cloned()
            .collect();
        let count: usize = new
            .iter()
            .map(|j| j["hunks"].as_array().unwrap().len())
            .sum();
        if count >= hunks {
            seen.extend(new.iter().map(|j| j["job_id"].as_str().unwrap().to_owned()));
            return new;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {hunks} outside hunk(s): {review}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The next job of the `outside` session not in `seen` that lists files it
/// could not review, from the project feed.
async fn unreviewable(door: &Door, seen: &mut Vec<String>) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut cursor = 0;
    loop {
        let page = door
            .get(&format!("/api/events?cursor={cursor}&wait_ms=1000"))
            .await;
        cursor = page["next_cursor"].as_u64().unwrap();
        let listed = page["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["type"] == "outside.not_reviewable")
            .map(|e| e["data"]["job_id"].as_str().unwrap().to_owned())
            .find(|id| !seen.contains(id));
        if let Some(id) = listed {
            seen.push(id.clone());
            return door.get(&format!("/api/agent/jobs/{id}")).await;
        }
        assert!(Instant::now() < deadline, "no listing came");
    }
}

/// The patches of `job`'s hunks, whole-file ones first.
async fn patches(door: &Door, job: &Value) -> Vec<String> {
    let job = door
        .get(&format!(
            "/api/agent/jobs/{}",
            job["job_id"].as_str().unwrap()
        ))
        .await;
    let bundle = &job["diff_bundle"];
    bundle["file_ops"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|op| op["patch"].as_str().unwrap().to_owned())
        .chain(
            bundle["files"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|f| {
                    f["hunks"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|h| h["patch"].as_str().unwrap().to_owned())
                }),
        )
        .collect()
}

async fn decide(door: &Door, hunk: &Value, status: &str) {
    door.post(
        &format!(
            "/api/agent/hunks/{}/decide",
            hunk["hunk_id"].as_str().unwrap()
        ),
        json!({ "status": status }),
    )
    .await;
}

fn read(root: &Path, path: &str) -> Option<Vec<u8>> {
    std::fs::read(root.join(path)).ok()
}

/// A file a writer touched: its path, and its bytes before and as written
/// (`None`: no file).
type Touched = (&'static str, Option<Vec<u8>>, Option<Vec<u8>>);

/// One writer's change as the test checks it: the group it made and the
/// files it touched.
struct Written {
    what: &'static str,
    group: Value,
    files: Vec<Touched>,
}

/// Each of `written`'s files holds its bytes as written (`as_written`), or
/// before.
fn assert_files(root: &Path, written: &Written, as_written: bool, when: &str) {
    for file in &written.files {
        let want = if as_written { &file.2 } else { &file.1 };
        assert_eq!(
            read(root, file.0).as_deref(),
            want.as_deref(),
            "{}: {} {when}",
            written.what,
            file.0
        );
    }
}

/// Decides every hunk of `written`'s group `status` and saves their files.
async fn decide_all(door: &Door, written: &Written, status: &str) {
    let hunks = written.group["hunks"].as_array().unwrap();
    for hunk in hunks {
        decide(door, hunk, status).await;
    }
    for hunk in hunks {
        door.post("/api/files/save", json!({ "path": hunk["path"] }))
            .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_programs_writes_are_reviewed_and_a_rejection_puts_the_bytes_back() {
    let h = harness_on(fill, Protocol::OpenAiChat, vec![], |c| {
        c.outside_changes = OutsideMode::Review;
    })
    .await;
    let watching = redline::watch::start(h.runtime.clone()).unwrap();
    let door = Door::open(h.runtime.clone()).await;
    let root = h.vault.path();
    while !h.runtime.project().index().is_some_and(|i| i.ready()) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mut seen = Vec::new();
    let note = Some(NOTE.as_bytes().to_vec());
    let mut written: Vec<Written> = Vec::new();

    // sed -i: one hunk, exactly the change.
    run(root, "sed", &["-i", "s/March/May/", "notes/sed.md"]);
    let group = groups(&door, &mut seen, 1).await.remove(0);
    let patch = patches(&door, &group).await;
    assert_eq!(patch.len(), 1, "{patch:?}");
    assert!(
        patch[0].contains("-Ship in March.\n+Ship in May.\n"),
        "{}",
        patch[0]
    );
    let sed = NOTE.replace("March", "May").into_bytes();
    assert_eq!(
        read(root, "notes/sed.md").unwrap(),
        sed,
        "pending: as written"
    );
    written.push(Written {
        what: "sed -i",
        group,
        files: vec![("notes/sed.md", note.clone(), Some(sed))],
    });

    // A Python script writing in place.
    run(
        root,
        "python3",
        &[
            "-c",
            "f = open('notes/python.md', 'r+'); t = f.read(); f.seek(0); f.truncate(); f.write(t.replace('Hiring is slow.', 'Hiring is done.'))",
        ],
    );
    let group = groups(&door, &mut seen, 1).await.remove(0);
    let patch = patches(&door, &group).await;
    assert_eq!(patch.len(), 1, "{patch:?}");
    assert!(
        patch[0].contains("-Hiring is slow.\n+Hiring is done.\n"),
        "{}",
        patch[0]
    );
    written.push(Written {
        what: "python",
        group,
        files: vec![(
            "notes/python.md",
            note.clone(),
            Some(
                NOTE.replace("Hiring is slow.", "Hiring is done.")
                    .into_bytes(),
            ),
        )],
    });

    // An atomic save: a new file renamed over the note.
    let atomic = NOTE.replace("## Risks", "## Dangers");
    std::fs::write(root.join("notes/.atomic.tmp"), &atomic).unwrap();
    run(root, "mv", &["notes/.atomic.tmp", "notes/atomic.md"]);
    let group = groups(&door, &mut seen, 1).await.remove(0);
    let patch = patches(&door, &group).await;
    assert_eq!(patch.len(), 1, "{patch:?}");
    assert!(
        patch[0].contains("-## Risks\n+## Dangers\n"),
        "{}",
        patch[0]
    );
    written.push(Written {
        what: "atomic rename",
        group,
        files: vec![("notes/atomic.md", note.clone(), Some(atomic.into_bytes()))],
    });

    // rm: a deletion already carried out.
    run(root, "rm", &["notes/gone.md"]);
    let group = groups(&door, &mut seen, 1).await.remove(0);
    let patch = patches(&door, &group).await;
    assert_eq!(patch.len(), 1, "{patch:?}");
    assert!(patch[0].contains("deleted file mode"), "{}", patch[0]);
    written.push(Written {
        what: "rm",
        group,
        files: vec![("notes/gone.md", note.clone(), None)],
    });

    // mv: a move, not a deletion and a new file.
    run(root, "mv", &["notes/moved.md", "moved-away.md"]);
    let group = groups(&door, &mut seen, 1).await.remove(0);
    let patch = patches(&door, &group).await;
    assert_eq!(patch.len(), 1, "{patch:?}");
    assert!(
        patch[0].contains("rename from notes/moved.md\nrename to moved-away.md"),
        "{patch:?}"
    );
    written.push(Written {
        what: "mv",
        group,
        files: vec![
            ("notes/moved.md", note.clone(), None),
            ("moved-away.md", None, note.clone()),
        ],
    });

    // A new note, written under a temporary name and renamed into place:
    // one hunk that adds it.
    run(
        root,
        "sh",
        &[
            "-c",
            "printf '# Draft\\n\\nNew.\\n' > notes/.draft.tmp && mv notes/.draft.tmp notes/Draft.md",
        ],
    );
    let group = groups(&door, &mut seen, 1).await.remove(0);
    let patch = patches(&door, &group).await;
    assert_eq!(patch.len(), 1, "{patch:?}");
    assert!(
        patch[0].contains("--- /dev/null") && patch[0].contains("+# Draft\n+\n+New.\n"),
        "{}",
        patch[0]
    );
    assert_eq!(group["hunks"][0]["path"], "notes/Draft.md");
    written.push(Written {
        what: "new note",
        group,
        files: vec![("notes/Draft.md", None, Some(b"# Draft\n\nNew.\n".to_vec()))],
    });

    // A file that is not text: listed with its reason, nothing to review.
    std::fs::write(
        root.join("notes/chart.png"),
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
    )
    .unwrap();
    let listed = unreviewable(&door, &mut seen).await;
    assert_eq!(listed["status"], "completed", "{listed}");
    assert_eq!(
        listed["not_reviewable"],
        json!([{ "path": "notes/chart.png", "reason": "not_text" }])
    );
    assert!(
        listed["summary"]
            .as_str()
            .unwrap()
            .contains("notes/chart.png (not text)"),
        "{listed}"
    );

    // A burst over 1,000 notes: taken in whole, as few groups as the
    // writes' pauses make.
    let started = Instant::now();
    let files: Vec<String> = (0..BURST).map(|i| format!("many/{i:04}.md")).collect();
    let mut args = vec!["-i", "s/\\[\\[Atlas\\]\\]/[[Meridian]]/"];
    args.extend(files.iter().map(String::as_str));
    run(root, "sed", &args);
    let burst = groups(&door, &mut seen, BURST).await;
    let taken = started.elapsed();
    let hunks: usize = burst
        .iter()
        .map(|j| j["hunks"].as_array().unwrap().len())
        .sum();
    let odd: Vec<&Value> = burst
        .iter()
        .flat_map(|j| j["hunks"].as_array().unwrap())
        .filter(|h| !h["path"].as_str().unwrap().starts_with("many/"))
        .collect();
    assert!(odd.is_empty(), "{odd:?}");
    let mut paths: Vec<&str> = burst
        .iter()
        .flat_map(|j| j["hunks"].as_array().unwrap())
        .map(|h| h["path"].as_str().unwrap())
        .collect();
    paths.sort_unstable();
    let twice: Vec<&&str> = paths
        .windows(2)
        .filter(|w| w[0] == w[1])
        .map(|w| &w[0])
        .collect();
    assert!(
        twice.is_empty(),
        "{} group(s); twice: {twice:?}",
        burst.len()
    );
    assert_eq!(hunks, BURST);
    eprintln!(
        "a sed over {BURST} notes: {} group(s), in the review {} ms after the write began",
        burst.len(),
        taken.as_millis()
    );

    // A restart keeps every group pending, each file as written.
    drop(door);
    drop(watching);
    let (vault, data, config) = (h.vault, h.data, h.config);
    drop(h.runtime);
    let runtime = Runtime::open(vault.path(), config).unwrap();
    let door = Door::open(runtime).await;
    let root = vault.path();
    let review = door.get("/api/review?limit=5000").await;
    let pending_of = |job: &Value| -> Vec<String> {
        review["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|j| j["job_id"] == job["job_id"])
            .flat_map(|j| j["hunks"].as_array().unwrap())
            .map(|h| h["hunk_id"].as_str().unwrap().to_owned())
            .collect()
    };
    for w in &written {
        let before: Vec<String> = w.group["hunks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["hunk_id"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            pending_of(&w.group),
            before,
            "{}: pending after a restart",
            w.what
        );
        assert_files(root, w, true, "as written, pending");
    }
    let pending: usize = burst.iter().map(|j| pending_of(j).len()).sum();
    assert_eq!(pending, BURST, "the burst is still pending after a restart");

    // For each writer: rejected, the bytes come back; accepted then, they
    // are as it wrote them.
    for w in &written {
        decide_all(&door, w, "rejected").await;
        assert_files(root, w, false, "back after a rejection");
        decide_all(&door, w, "accepted").await;
        assert_files(root, w, true, "as written after an acceptance");
    }
    drop(data);
}
