use super::*;
use crate::config::Limits;
use crate::project::Project;

fn project(files: &[(&str, &[u8])]) -> (tempfile::TempDir, Project) {
    let dir = tempfile::tempdir().unwrap();
    for (path, bytes) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    let project = Project::open(dir.path(), Limits::default()).unwrap();
    (dir, project)
}

fn edit(op: Operation, start: usize, end: Option<usize>, new_text: &str) -> ProposedEdit {
    ProposedEdit {
        edit_id: format!("e_{start}"),
        file_path: "f.md".into(),
        operation: op,
        start_line: start,
        end_line: end,
        new_text: new_text.into(),
        old_text: None,
        expected_hash: None,
        rationale: String::new(),
        new_path: None,
    }
}

/// Applies `edits` to a file holding `before` and returns the proposed bytes.
fn apply(before: &[u8], edits: &[ProposedEdit]) -> String {
    let (_dir, project) = project(&[("f.md", before)]);
    let files = prepare(&project, edits).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(files.len(), 1);
    files[0].proposed.clone()
}

fn refuse(before: &[u8], edits: &[ProposedEdit]) -> Vec<EditError> {
    let (_dir, project) = project(&[("f.md", before)]);
    prepare(&project, edits).unwrap_err()
}

#[test]
fn golden_line_endings_are_kept_on_untouched_lines() {
    use Operation::*;
    // LF
    assert_eq!(
        apply(b"a\nb\nc\n", &[edit(Replace, 2, None, "B")]),
        "a\nB\nc\n"
    );
    // CRLF: new lines take the file's CRLF.
    assert_eq!(
        apply(b"a\r\nb\r\nc\r\n", &[edit(Replace, 2, None, "B1\nB2")]),
        "a\r\nB1\r\nB2\r\nc\r\n"
    );
    // Mixed, per line: the replaced line's own ending is used; the others stay.
    assert_eq!(
        apply(b"a\r\nb\nc\r\n", &[edit(Replace, 3, None, "C")]),
        "a\r\nb\nC\r\n"
    );
    assert_eq!(
        apply(b"a\r\nb\nc\r\n", &[edit(Insert, 2, None, "x")]),
        "a\r\nx\nb\nc\r\n"
    );
    // BOM stays in front.
    assert_eq!(
        apply("\u{feff}a\nb\n".as_bytes(), &[edit(Replace, 1, None, "A")]),
        "\u{feff}A\nb\n"
    );
    // No final newline stays so, even when the last line changes or text is appended.
    assert_eq!(apply(b"a\nb", &[edit(Replace, 2, None, "B\n")]), "a\nB");
    assert_eq!(apply(b"a\nb", &[edit(Insert, 3, None, "c")]), "a\nb\nc");
    assert_eq!(
        apply(b"a\r\nb", &[edit(Insert, 3, None, "c")]),
        "a\r\nb\r\nc"
    );
    // A final newline stays too.
    assert_eq!(apply(b"a\nb\n", &[edit(Delete, 2, None, "")]), "a\n");
    // Non-ASCII text is just text.
    assert_eq!(
        apply(
            "née\nZürich\n".as_bytes(),
            &[edit(Replace, 2, None, "日本語")]
        ),
        "née\n日本語\n"
    );
    // Empty file.
    assert_eq!(apply(b"", &[edit(Insert, 1, None, "first\n")]), "first\n");
    assert_eq!(apply(b"", &[edit(Insert, 1, None, "first")]), "first\n");
    // One-line file.
    assert_eq!(
        apply(b"only", &[edit(Replace, 1, None, "one\ntwo")]),
        "one\ntwo"
    );
    assert_eq!(apply(b"only\n", &[edit(Delete, 1, None, "")]), "");
}

#[test]
fn edits_compose_bottom_up_with_inserts_before_replacements() {
    use Operation::*;
    let before = b"1\n2\n3\n4\n5\n";
    let edits = [
        edit(Replace, 4, Some(5), "four-five"),
        edit(Insert, 2, None, "before two"),
        ProposedEdit {
            edit_id: "e_x".into(),
            ..edit(Replace, 2, None, "TWO")
        },
        edit(Delete, 1, None, ""),
    ];
    assert_eq!(apply(before, &edits), "before two\nTWO\n3\nfour-five\n");
    let (_dir, project) = project(&[("f.md", before)]);
    let file = &prepare(&project, &edits).unwrap()[0];
    let spans: Vec<(&str, usize, usize, usize, usize)> = file
        .edits
        .iter()
        .map(|e| {
            (
                e.edit_id.as_str(),
                e.old_start,
                e.old_len,
                e.new_start,
                e.new_len,
            )
        })
        .collect();
    assert_eq!(
        spans,
        [
            ("e_1", 0, 1, 0, 0),
            ("e_2", 1, 0, 0, 1),
            ("e_x", 1, 1, 1, 1),
            ("e_4", 3, 2, 3, 1)
        ]
    );
}

#[test]
fn hashes_guard_the_target_and_old_text_relocates() {
    use Operation::*;
    let before = b"intro\nalpha\nbeta\ngamma\n";
    let mut e = edit(Replace, 2, Some(3), "AB");
    e.expected_hash = Some(lines::range_hash(["alpha", "beta"]));
    assert_eq!(
        apply(before, std::slice::from_ref(&e)),
        "intro\nAB\ngamma\n"
    );

    // The file gained two lines above the target since it was read.
    let moved = b"new\nnew\nintro\nalpha\nbeta\ngamma\n";
    let errors = refuse(moved, std::slice::from_ref(&e));
    assert!(
        matches!(
            errors[0].kind,
            EditErrorKind::Stale {
                start: 2,
                end: 3,
                ..
            }
        ),
        "{errors:?}"
    );
    assert!(errors[0].to_string().contains("read it again"));
    e.old_text = Some("alpha\nbeta\n".into());
    let (_dir, project) = project(&[("f.md", moved)]);
    let file = &prepare(&project, std::slice::from_ref(&e)).unwrap()[0];
    assert_eq!(file.proposed, "new\nnew\nintro\nAB\ngamma\n");
    assert_eq!(file.edits[0].relocated_from, Some(2));
    assert_eq!(file.edits[0].old_start, 3);

    // Twice in the window: refused, naming both places.
    let twice = b"alpha\nbeta\nx\nalpha\nbeta\n";
    let errors = refuse(twice, std::slice::from_ref(&e));
    match &errors[0].kind {
        EditErrorKind::AnchorAmbiguous { candidates, .. } => assert_eq!(candidates, &[1, 4]),
        other => panic!("{other:?}"),
    }
    // Nowhere: refused.
    let errors = refuse(b"x\ny\nz\n", std::slice::from_ref(&e));
    assert!(
        matches!(errors[0].kind, EditErrorKind::AnchorNotFound { .. }),
        "{errors:?}"
    );
    // Beyond the window: refused rather than landing far away.
    let far: String = "filler\n".repeat(300) + "alpha\nbeta\n";
    let errors = refuse(far.as_bytes(), std::slice::from_ref(&e));
    assert!(
        matches!(
            errors[0].kind,
            EditErrorKind::AnchorNotFound { window: 100, .. }
        ),
        "{errors:?}"
    );
}

#[test]
fn bad_edits_are_refused_precisely() {
    use Operation::*;
    let before = b"a\nb\nc\n";
    let cases: Vec<(Vec<ProposedEdit>, &str)> = vec![
        (
            vec![edit(Replace, 4, None, "x")],
            "outside the file, which has 3 lines",
        ),
        (vec![edit(Replace, 0, None, "x")], "1-based"),
        (vec![edit(Replace, 3, Some(2), "x")], "before start_line"),
        (vec![edit(Delete, 1, None, "x")], "empty new_text"),
        (
            vec![edit(Replace, 1, Some(2), "x"), edit(Replace, 2, None, "y")],
            "overlaps edit e_1",
        ),
        (vec![edit(Insert, 5, None, "x")], "outside the file"),
        (vec![edit(Create, 1, None, "x")], "already exists"),
        (
            vec![edit(Replace, 1, None, "x"), edit(Replace, 1, None, "y")],
            "edit_id is used twice",
        ),
        (
            vec![ProposedEdit {
                file_path: "../f.md".into(),
                ..edit(Replace, 1, None, "x")
            }],
            "leaves the project root",
        ),
        // A trailing newline in old_text is not the blank line end_line
        // names: which lines go would be a guess.
        (
            vec![ProposedEdit {
                old_text: Some("a\n".into()),
                ..edit(Delete, 1, Some(2), "")
            }],
            "old_text has 1 line(s) but lines 1-2 are 2",
        ),
        (
            vec![ProposedEdit {
                old_text: Some("a\nb\n".into()),
                ..edit(Replace, 1, Some(1), "x")
            }],
            "old_text has 2 line(s) but lines 1-1 are 1",
        ),
    ];
    for (edits, message) in cases {
        let errors = refuse(before, &edits);
        let all = errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" | ");
        assert!(all.contains(message), "{edits:?}: {all}");
    }
    // An insert between two replaced ranges, at their boundary, is fine.
    assert_eq!(
        apply(
            before,
            &[
                edit(Replace, 1, None, "A"),
                ProposedEdit {
                    edit_id: "e_i".into(),
                    ..edit(Insert, 2, None, "i")
                },
                edit(Replace, 2, None, "B"),
            ]
        ),
        "A\ni\nB\nc\n"
    );
}

#[test]
fn create_makes_a_new_file_only() {
    let (_dir, project) = project(&[("f.md", b"x\n")]);
    let create = ProposedEdit {
        file_path: "notes/new.md".into(),
        ..edit(Operation::Create, 1, None, "hello\n")
    };
    let files = prepare(&project, std::slice::from_ref(&create)).unwrap();
    assert!(files[0].created);
    assert_eq!(
        (files[0].base.as_str(), files[0].proposed.as_str()),
        ("", "hello\n")
    );
    let hidden = ProposedEdit {
        file_path: ".secret.md".into(),
        ..create
    };
    assert_eq!(
        prepare(&project, &[hidden]).unwrap_err()[0]
            .kind
            .to_string(),
        "`.secret.md` is hidden (`.secret.md` starts with a dot)"
    );
}

#[test]
fn binary_and_non_utf8_targets_are_refused() {
    let (_dir, project) = project(&[("f.md", b"a\0b"), ("g.md", b"caf\xe9\n")]);
    let errors = prepare(&project, &[edit(Operation::Replace, 1, None, "x")]).unwrap_err();
    assert!(matches!(
        errors[0].kind,
        EditErrorKind::Path(PathError::Binary(_))
    ));
    let g = ProposedEdit {
        file_path: "g.md".into(),
        ..edit(Operation::Replace, 1, None, "x")
    };
    let errors = prepare(&project, &[g]).unwrap_err();
    assert!(matches!(
        errors[0].kind,
        EditErrorKind::Path(PathError::NotUtf8 { .. })
    ));
}

#[test]
fn pinned_edits_follow_their_text_and_refuse_changed_text() {
    use Operation::*;
    let read = "intro\nalpha\nbeta\ngamma\n";
    let mut e = edit(Replace, 2, Some(3), "AB");
    pin(&mut e, read);
    assert_eq!(
        e.expected_hash.as_deref(),
        Some(lines::range_hash(["alpha", "beta"]).as_str())
    );
    assert_eq!(e.old_text.as_deref(), Some("alpha\nbeta"));
    // The user added lines above meanwhile: the edit follows its text.
    assert_eq!(
        apply(
            b"new\nintro\nalpha\nbeta\ngamma\n",
            std::slice::from_ref(&e)
        ),
        "new\nintro\nAB\ngamma\n"
    );
    // The user changed the target itself: refused, never applied elsewhere.
    let errors = refuse(b"intro\nalpha!\nbeta\ngamma\n", std::slice::from_ref(&e));
    assert!(
        matches!(errors[0].kind, EditErrorKind::AnchorNotFound { .. }),
        "{errors:?}"
    );
    // A wrong line number with the right old_text: the pinned hash of the
    // wrong line would match, but the quoted text decides where it goes.
    let mut wrong = edit(Replace, 2, None, "GAMMA");
    wrong.old_text = Some("gamma".into());
    pin(&mut wrong, read);
    assert_eq!(
        apply(read.as_bytes(), std::slice::from_ref(&wrong)),
        "intro\nalpha\nbeta\nGAMMA\n"
    );
    // An insert is pinned to the line it goes before.
    let mut i = edit(Insert, 4, None, "x");
    pin(&mut i, read);
    assert_eq!(
        apply(
            b"top\nintro\nalpha\nbeta\ngamma\n",
            std::slice::from_ref(&i)
        ),
        "top\nintro\nalpha\nbeta\nx\ngamma\n"
    );
}
