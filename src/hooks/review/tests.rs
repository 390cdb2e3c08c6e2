//! What the agent is told of a write's outcome, the patch that keeps what
//! the user kept, and paths made relative to the folder.

use super::*;
use serde_json::json;

fn state(status: &str, reason: Option<&str>) -> HunkState {
    HunkState {
        hunk_id: "h_1".into(),
        file_path: "a.md".into(),
        line: 3,
        status: status.into(),
        text: None,
        reason: reason.map(str::to_owned),
        pattern: None,
        flags: Vec::new(),
    }
}

fn outcome(text: Option<&str>, hunks: Vec<HunkState>) -> WriteOutcome {
    WriteOutcome {
        job_id: "job_1".into(),
        file_path: "a.md".into(),
        decided: true,
        hunks,
        text: text.map(str::to_owned),
        deleted: false,
        moved_to: None,
        links: Vec::new(),
    }
}

fn edit() -> Write {
    let input = json!({ "session_id": "s", "cwd": "/n", "hook_event_name": "PreToolUse",
                        "tool_name": "Edit", "tool_input": { "file_path": "/n/a.md",
                        "old_string": "draft", "new_string": "final" } });
    HookInput::parse(&input.to_string())
        .unwrap()
        .write()
        .unwrap()
        .unwrap()
}

#[test]
fn a_move_redline_made_is_told_with_its_links() {
    let moving = Patched {
        named: "m.md",
        rel: "m.md".into(),
        disk: Some("# M\n".into()),
        after: "# M\n".into(),
        deletes: false,
        moves_to: Some("archive/m.md".into()),
    };
    let moved = WriteOutcome {
        moved_to: Some("archive/m.md".into()),
        links: vec!["a.md".into(), "b.md".into()],
        ..outcome(Some("# M\n"), vec![state("accepted", None)])
    };
    assert_eq!(
        redline_saves(&moving, &moved),
        ["archive/m.md", "a.md", "b.md"]
    );
    let unmade = [("b.md".to_owned(), "changed on disk".to_owned())];
    let Verdict::Deny { reason } = patch_verdict(std::slice::from_ref(&moving), &[moved], &unmade)
    else {
        panic!("denied: Redline made it all");
    };
    assert!(
        reason.contains("m.md was moved to archive/m.md by Redline")
            && reason.contains("links to it updated in a.md;")
            && reason.contains("the links in b.md were not saved: changed on disk"),
        "{reason}"
    );
    // The move rejected, nothing else proposed: nothing for Redline to
    // save; with its text kept, Redline writes that in place.
    let stays = outcome(None, vec![state("rejected", Some("keep it"))]);
    assert!(redline_saves(&moving, &stays).is_empty());
    let kept = outcome(
        Some("# M, kept\n"),
        vec![state("rejected", Some("keep it"))],
    );
    assert_eq!(redline_saves(&moving, &kept), ["m.md"]);
}

#[test]
fn paths_are_made_relative_where_folders_are_still_to_come() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir(root.join("a")).unwrap();
    let rel = |p: &str| relative(&root, &root.join(p));
    assert_eq!(rel("a/n.md").as_deref(), Some("a/n.md"));
    assert_eq!(rel("new/deeper/n.md").as_deref(), Some("new/deeper/n.md"));
    assert_eq!(rel("../out.md"), None, "outside");
    assert_eq!(
        rel("new/../../out.md"),
        None,
        "climbing out of a folder to come"
    );
}

#[test]
fn all_rejected_is_refused_with_the_reasons() {
    let o = outcome(None, vec![state("rejected", Some("not yet"))]);
    let Verdict::Deny { reason } = verdict(&edit(), Some("draft\n"), "final\n", "a.md", &o) else {
        panic!("denied");
    };
    assert!(reason.contains("rejected it: not yet"), "{reason}");
}

#[test]
fn the_model_is_told_when_the_file_is_not_what_it_proposed() {
    let taken = outcome(Some("final\n"), vec![state("accepted", None)]);
    let Verdict::Allow { input, context, .. } =
        verdict(&edit(), Some("draft\n"), "final\n", "a.md", &taken)
    else {
        panic!("allowed");
    };
    assert_eq!(
        (input["old_string"].as_str(), input["new_string"].as_str()),
        (Some("draft\n"), Some("final\n"))
    );
    assert_eq!(context, None, "exactly as proposed: nothing to tell");
    let partly = outcome(
        Some("final\n"),
        vec![state("accepted", None), state("rejected", Some("keep it"))],
    );
    let Verdict::Allow { context, .. } =
        verdict(&edit(), Some("draft\n"), "final\nmore\n", "a.md", &partly)
    else {
        panic!("allowed");
    };
    assert!(context.unwrap().contains("was rejected (keep it)"));
    // Accepted whole, but the file kept its final newline.
    let kept = outcome(Some("final\n"), vec![state("accepted", None)]);
    let Verdict::Allow { context, .. } = verdict(&edit(), Some("draft\n"), "final", "a.md", &kept)
    else {
        panic!("allowed");
    };
    assert!(context.unwrap().contains("not byte for byte"));
}

#[test]
fn a_patch_keeps_what_was_kept_of_each_file() {
    let writes = [
        Patched {
            named: "a.md",
            rel: "a.md".into(),
            disk: Some("draft\n".into()),
            after: "final\n".into(),
            deletes: false,
            moves_to: None,
        },
        Patched {
            named: "./n.md",
            rel: "n.md".into(),
            disk: None,
            after: "# N\n".into(),
            deletes: false,
            moves_to: None,
        },
    ];
    let rejected = outcome(None, vec![state("rejected", Some("not yet"))]);
    let added = outcome(Some("# N\n"), vec![state("accepted", None)]);
    let Verdict::Allow { input, context, .. } =
        patch_verdict(&writes, &[rejected.clone(), added.clone()], &[])
    else {
        panic!("allowed");
    };
    let command = input["command"].as_str().unwrap();
    assert_eq!(
        command,
        "*** Begin Patch\n*** Add File: ./n.md\n+# N\n*** End Patch\n"
    );
    assert!(context.unwrap().contains("a.md was rejected (not yet)"));
    let Verdict::Deny { reason } =
        patch_verdict(&writes[..1], std::slice::from_ref(&rejected), &[])
    else {
        panic!("denied");
    };
    assert!(reason.contains("a.md was rejected (not yet)"), "{reason}");
    // All taken as proposed: let through, nothing to tell.
    let Verdict::Allow { context, .. } =
        patch_verdict(&writes[1..], std::slice::from_ref(&added), &[])
    else {
        panic!("allowed");
    };
    assert_eq!(context, None);
}

#[test]
fn a_deletion_redline_made_is_left_out_of_the_patch_and_told() {
    let gone = Patched {
        named: "old.md",
        rel: "old.md".into(),
        disk: Some("# Old\n".into()),
        after: String::new(),
        deletes: true,
        moves_to: None,
    };
    let added = Patched {
        named: "n.md",
        rel: "n.md".into(),
        disk: None,
        after: "# N\n".into(),
        deletes: false,
        moves_to: None,
    };
    let deleted = WriteOutcome {
        deleted: true,
        ..outcome(None, vec![state("accepted", None)])
    };
    let taken = outcome(Some("# N\n"), vec![state("accepted", None)]);
    let writes = [gone, added];
    let Verdict::Allow { input, context, .. } =
        patch_verdict(&writes, &[deleted.clone(), taken], &[])
    else {
        panic!("allowed");
    };
    assert!(!input["command"].as_str().unwrap().contains("Delete File"));
    assert!(context.unwrap().contains("old.md was deleted by Redline"));
    // The deletion alone: nothing left for Codex to do, and it is told so.
    let Verdict::Deny { reason } = patch_verdict(&writes[..1], std::slice::from_ref(&deleted), &[])
    else {
        panic!("denied");
    };
    assert!(reason.contains("carried out") && reason.contains("do not apply it again"));
    // Redline could not make it: said, and nothing else done.
    let unmade = [("old.md".to_owned(), "changed on disk".to_owned())];
    let Verdict::Deny { reason } = patch_verdict(&writes[..1], &[deleted], &unmade) else {
        panic!("denied");
    };
    assert!(
        reason.contains("could not delete it: changed on disk"),
        "{reason}"
    );
    // Rejected: refused with the reason.
    let kept = WriteOutcome {
        deleted: false,
        ..outcome(None, vec![state("rejected", Some("I still need it"))])
    };
    let Verdict::Deny { reason } = patch_verdict(&writes[..1], &[kept], &[]) else {
        panic!("denied");
    };
    assert!(
        reason.contains("deleting old.md was rejected (I still need it)"),
        "{reason}"
    );
}
