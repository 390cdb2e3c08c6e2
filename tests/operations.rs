//! Vault-wide operations end to end: a scripted model (both wire formats,
//! real HTTP) states a rename once in `propose_edits`; the engine expands it
//! over every note, in prose only, and stages it for review as one pattern.

#[path = "support/agent.rs"]
mod support;

use std::path::Path;

use redline::jobs::JobStatus;
use redline::testkit::scripted::Turn;
use serde_json::json;
use support::*;

/// Runs `instruction` to its end, which must be a proposal awaiting review.
async fn staged(h: &Harness, instruction: &str) -> redline::jobs::Job {
    let (job, events) = h.run_to_end(instruction, None).await;
    assert_eq!(
        job.status,
        JobStatus::AwaitingReview,
        "{:?}",
        kinds(&events)
    );
    job
}

/// Accepts every hunk of `job` and writes them.
fn apply_all(h: &Harness, job: &redline::jobs::Job) {
    let bundle = job.diff_bundle.as_ref().unwrap();
    let hunks: Vec<String> = bundle.hunk_ids().map(str::to_owned).collect();
    h.runtime.apply(job, &hunks).unwrap();
}

/// Notes in the generated vault.
const NOTES: usize = 300;

/// Note `i`: the term in prose, and where a rename must not go.
fn note(i: usize) -> String {
    format!(
        "---\nproject: Atlas\ntags: [atlas]\n---\n# Note {i}\n\nAtlas ships in week {i}.\n\n\
         `Atlas.run()` stays, so do [[Atlas]], [[Atlas|the Atlas plan]], https://atlas.example/Atlas and #Atlas.\n\n\
         ```\nAtlas in code\n```\n"
    )
}

/// What note `i` becomes: prose and a link's alias renamed, nothing else.
fn renamed(i: usize) -> String {
    format!(
        "---\nproject: Atlas\ntags: [atlas]\n---\n# Note {i}\n\nMeridian ships in week {i}.\n\n\
         `Atlas.run()` stays, so do [[Atlas]], [[Atlas|the Meridian plan]], https://atlas.example/Atlas and #Atlas.\n\n\
         ```\nAtlas in code\n```\n"
    )
}

fn fill(root: &Path) {
    std::fs::create_dir_all(root.join("Notes")).unwrap();
    std::fs::write(root.join("Atlas.md"), "# Atlas\n").unwrap();
    for i in 0..NOTES {
        std::fs::write(root.join(format!("Notes/{i:03}.md")), note(i)).unwrap();
    }
    // Out of scope: another folder.
    std::fs::write(root.join("Elsewhere.md"), "Atlas here stays.\n").unwrap();
}

fn rename(dry_run: bool) -> serde_json::Value {
    json!({
        "edits": [],
        "operations": [{
            "op": "replace_text", "find": "Atlas", "replace": "Meridian", "whole_word": true,
            "scope": { "folders": ["Notes"] },
        }],
        "dry_run": dry_run,
        "summary": "Renamed Atlas to Meridian in the notes' prose.",
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rename_stated_once_is_staged_over_every_note_in_prose_only() {
    for protocol in PROTOCOLS {
        let turns = vec![
            Turn::call("propose_edits", rename(true)),
            Turn::call("propose_edits", rename(false)),
        ];
        let h = harness_on(fill, protocol, turns, |_| {}).await;
        let (job, events) = h
            .run_to_end("Rename Atlas to Meridian in the notes", None)
            .await;
        assert_eq!(
            job.status,
            JobStatus::AwaitingReview,
            "{protocol:?}: {:?}",
            kinds(&events)
        );

        // The dry run told the model what would change and what stays.
        let bodies = h.bodies();
        let told = &tool_results(&bodies[1])[0].1;
        let report: serde_json::Value = serde_json::from_str(told).unwrap();
        let report = &report["reports"][0];
        assert_eq!(report["notes_changed"], NOTES, "{report}");
        assert_eq!(report["occurrences"], 2 * NOTES);
        for part in ["code", "link_target", "url", "tag", "front_matter"] {
            assert!(
                report["left_alone"][part].as_u64().unwrap() >= NOTES as u64,
                "{part}: {report}"
            );
        }
        assert_eq!(report["samples"][0]["before"], "Atlas ships in week 0.");
        assert_eq!(report["samples"][0]["after"], "Meridian ships in week 0.");
        // Nothing was staged by the dry run; the second call staged it all.
        let bundle = job.diff_bundle.clone().unwrap();
        assert_eq!(bundle.files.len(), NOTES);
        // One change, one pattern, and no note flagged for going unread.
        assert_eq!(bundle.patterns.len(), 1, "{:?}", bundle.patterns);
        let flagged: Vec<_> = bundle
            .files
            .iter()
            .flat_map(|f| &f.hunks)
            .filter(|h| !h.flags.is_empty())
            .map(|h| (&h.hunk_id, &h.flags))
            .collect();
        assert!(flagged.is_empty(), "{flagged:?}");
        for i in 0..NOTES {
            assert_eq!(
                h.read(&format!("Notes/{i:03}.md")),
                note(i),
                "nothing written before review"
            );
        }

        let hunks: Vec<String> = bundle.hunk_ids().map(str::to_owned).collect();
        h.runtime.apply(&job, &hunks).unwrap();
        for i in 0..NOTES {
            assert_eq!(h.read(&format!("Notes/{i:03}.md")), renamed(i));
        }
        assert_eq!(h.read("Elsewhere.md"), "Atlas here stays.\n");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_regex_and_an_operation_that_changes_nothing_go_back_to_the_model() {
    let bad = json!({
        "edits": [],
        "operations": [{ "op": "replace_text", "find": "(", "replace": "x", "regex": true }],
    });
    let none = json!({
        "edits": [],
        "operations": [{ "op": "replace_text", "find": "Zanzibar", "replace": "x" }],
    });
    let h = harness_on(
        fill,
        redline::providers::Protocol::OpenAiChat,
        vec![
            Turn::call("propose_edits", bad),
            Turn::call("propose_edits", none),
            Turn::call("propose_edits", rename(false)),
        ],
        |_| {},
    )
    .await;
    let (job, _) = h.run_to_end("Rename", None).await;
    assert_eq!(job.status, JobStatus::AwaitingReview);
    let bodies = h.bodies();
    let first = &tool_results(&bodies[1])[0].1;
    assert!(first.contains("not a valid regex"), "{first}");
    let told = tool_results(&bodies[2]);
    let second = &told.last().unwrap().1;
    assert!(second.contains("change nothing"), "{second}");
}

/// Meeting notes and a project note, for the front matter and tag operations.
fn meetings(root: &Path) {
    std::fs::create_dir_all(root.join("Meetings")).unwrap();
    for i in 0..20 {
        std::fs::write(
            root.join(format!("Meetings/{i:02}.md")),
            format!("---\ntype: meeting\n# why we meet\ntags: [work, atlas/q{i}]\n---\nTalked about #atlas and `#atlas`.\n"),
        )
        .unwrap();
    }
    std::fs::write(
        root.join("Plan.md"),
        "---\ntype: project\nstatus: draft\n---\n#atlas plan\n",
    )
    .unwrap();
    std::fs::write(root.join("Broken.md"), "---\ntype: [meeting\n---\nBody\n").unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn properties_and_tags_change_across_a_scope_and_every_other_byte_stays() {
    let ops = json!({
        "edits": [],
        "operations": [
            { "op": "set_property", "key": "status", "value": "done",
              "scope": { "property": { "key": "type", "value": "meeting" } } },
            { "op": "add_to_list", "key": "tags", "value": "reviewed", "scope": { "folders": ["Meetings"] } },
            { "op": "rename_tag", "from": "#atlas", "to": "meridian" },
        ],
        "summary": "Meetings done and reviewed; atlas is meridian.",
    });
    let h = harness_on(
        meetings,
        redline::providers::Protocol::OpenAiChat,
        vec![Turn::call("propose_edits", ops)],
        |_| {},
    )
    .await;
    let job = staged(&h, "Close the meetings").await;
    apply_all(&h, &job);
    for i in 0..20 {
        assert_eq!(
            h.read(&format!("Meetings/{i:02}.md")),
            format!(
                "---\ntype: meeting\n# why we meet\ntags: [work, meridian/q{i}, reviewed]\nstatus: done\n---\nTalked about #meridian and `#atlas`.\n"
            )
        );
    }
    assert_eq!(
        h.read("Plan.md"),
        "---\ntype: project\nstatus: draft\n---\n#meridian plan\n"
    );
    assert_eq!(
        h.read("Broken.md"),
        "---\ntype: [meeting\n---\nBody\n",
        "unparsable front matter is left alone"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protected_notes_are_left_out_of_operations_and_refused_to_edits() {
    let rename = json!({
        "edits": [],
        "operations": [{ "op": "rename_tag", "from": "atlas", "to": "meridian" }],
        "dry_run": true,
    });
    let edit_plan = json!({
        "edits": [{ "file_path": "Plan.md", "operation": "replace", "start_line": 5, "end_line": 5,
                    "new_text": "#meridian plan", "old_text": "#atlas plan" }],
    });
    let edit_meeting = json!({
        "edits": [{ "file_path": "Meetings/00.md", "operation": "replace", "start_line": 6, "end_line": 6,
                    "new_text": "Talked.", "old_text": null }],
    });
    let h = harness_on(
        meetings,
        redline::providers::Protocol::OpenAiChat,
        vec![
            Turn::call("propose_edits", rename),
            Turn::call("propose_edits", edit_plan),
            Turn::call("propose_edits", edit_meeting),
        ],
        |config| {
            config.protected.globs = vec!["Plan.md".into()];
            config.protected.property = Some("locked".into());
        },
    )
    .await;
    std::fs::write(
        h.vault.path().join("Meetings/01.md"),
        "---\nlocked: true\ntags: [atlas]\n---\n#atlas\n",
    )
    .unwrap();
    let job = staged(&h, "Rename the tag").await;
    let bodies = h.bodies();
    // The dry run leaves the protected notes out and says why.
    let report: serde_json::Value = serde_json::from_str(&tool_results(&bodies[1])[0].1).unwrap();
    let skipped = report["reports"][0]["skipped"].to_string();
    assert!(
        skipped.contains("Plan.md") && skipped.contains("matches `Plan.md`"),
        "{skipped}"
    );
    assert!(
        skipped.contains("Meetings/01.md") && skipped.contains("locked: true"),
        "{skipped}"
    );
    assert_eq!(report["reports"][0]["notes_changed"], 19, "{report}");
    // An edit of a protected note is refused, whatever the model says.
    let told = tool_results(&bodies[2]);
    let refusal = &told.last().unwrap().1;
    assert!(
        refusal.contains("the note is protected (it matches `Plan.md`)"),
        "{refusal}"
    );
    // The edit of an unprotected note is staged.
    let bundle = job.diff_bundle.clone().unwrap();
    assert_eq!(bundle.files.len(), 1);
    assert_eq!(bundle.files[0].file_path, "Meetings/00.md");
}

/// People notes, one of them a duplicate, and notes linking to them both ways.
fn people(root: &Path) {
    std::fs::create_dir_all(root.join("People")).unwrap();
    std::fs::create_dir_all(root.join("Daily")).unwrap();
    std::fs::write(root.join("People/Ann.md"), "# Ann\n\nSee [[#Work]].\n").unwrap();
    std::fs::write(root.join("People/Ann Lee.md"), "# Ann Lee\n").unwrap();
    for i in 0..30 {
        std::fs::write(
            root.join(format!("Daily/{i:02}.md")),
            format!(
                "---\nwith: \"[[Ann]]\"\n---\nMet [[Ann#Work|her]] on day {i}; [notes](../People/Ann.md).\n\
                 Also [[Ann Lee]], and `[[Ann]]` in code.\n"
            ),
        )
        .unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_are_retargeted_and_converted_by_the_link_engine() {
    let ops = |dry_run: bool| {
        json!({
            "edits": [],
            "operations": [
                { "op": "retarget_links", "from": "People/Ann.md", "to": "People/Ann Lee.md" },
                { "op": "convert_links", "to": "markdown", "scope": { "folders": ["Daily"] } },
            ],
            "dry_run": dry_run,
            "summary": "Ann's links point at Ann Lee, written as Markdown links.",
        })
    };
    let h = harness_on(
        people,
        redline::providers::Protocol::OpenAiChat,
        vec![
            Turn::call("propose_edits", ops(true)),
            Turn::call("propose_edits", ops(false)),
        ],
        |_| {},
    )
    .await;
    let job = staged(&h, "Merge Ann into Ann Lee").await;
    let bodies = h.bodies();
    let told: serde_json::Value =
        serde_json::from_str(&tool_results(&bodies[1]).last().unwrap().1).unwrap();
    let retarget = &told["reports"][0];
    // Three links a note (front matter, alias and heading, relative path).
    assert_eq!(retarget["occurrences"], 90, "{told}");
    assert_eq!(retarget["notes_changed"], 30, "{told}");
    // Two a note: the front matter keeps its wikilink.
    let convert = &told["reports"][1];
    assert_eq!(convert["occurrences"], 60, "{told}");
    let skipped = convert["skipped"].to_string();
    assert!(
        skipped.contains("Daily/00.md") && skipped.contains("front matter holds wikilinks only"),
        "{skipped}"
    );
    apply_all(&h, &job);
    for i in 0..30 {
        assert_eq!(
            h.read(&format!("Daily/{i:02}.md")),
            format!(
                "---\nwith: \"[[Ann Lee]]\"\n---\nMet [her](Ann%20Lee.md#Work) on day {i}; [notes](../People/Ann%20Lee.md).\n\
                 Also [Ann Lee](Ann%20Lee.md), and `[[Ann]]` in code.\n"
            )
        );
    }
    // The link within the duplicate stays a link within it.
    assert_eq!(h.read("People/Ann.md"), "# Ann\n\nSee [[#Work]].\n");
}
