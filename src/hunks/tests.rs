use std::process::Command;

use proptest::prelude::*;

use super::*;
use crate::config::Limits;
use crate::edits::lines::Lines;
use crate::edits::{Operation, ProposedEdit, prepare};
use crate::project::Project;

fn proposal(before: &str, edits: &[ProposedEdit]) -> (tempfile::TempDir, Vec<FileProposal>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.md"), before).unwrap();
    let project = Project::open(dir.path(), Limits::default()).unwrap();
    let files = prepare(&project, edits).unwrap_or_else(|e| panic!("{e:?}"));
    (dir, files)
}

fn replace(id: &str, start: usize, end: usize, new_text: &str) -> ProposedEdit {
    ProposedEdit {
        edit_id: id.into(),
        file_path: "f.md".into(),
        operation: Operation::Replace,
        start_line: start,
        end_line: Some(end),
        new_text: new_text.into(),
        old_text: None,
        expected_hash: None,
        rationale: String::new(),
        new_path: None,
    }
}

/// Applies every hunk of `diff` to `base`, last first, from the hunk data.
fn apply_all(base: &str, proposed: &str, diff: &FileDiff) -> String {
    let base_lines = Lines::new(base);
    let new_lines = Lines::new(proposed);
    let mut lines: Vec<&str> = base_lines.lines.clone();
    for h in diff.hunks.iter().rev() {
        lines.splice(
            h.old_start..h.old_start + h.old_lines,
            new_lines.lines[h.new_start..h.new_start + h.new_lines]
                .iter()
                .copied(),
        );
    }
    format!("{}{}", base_lines.bom, lines.concat())
}

/// Applies only `hunk` of `diff` to `base`.
fn apply_one(base: &str, proposed: &str, diff: &FileDiff, hunk: &Hunk) -> String {
    let alone = FileDiff {
        hunks: vec![hunk.clone()],
        ..diff.clone()
    };
    apply_all(base, proposed, &alone)
}

/// Runs `git apply` and GNU `patch` on a copy of `base` with `patch_text`,
/// and returns what each made of the file.
fn real_apply(name: &str, base: Option<&str>, patch_text: &str) -> (Vec<u8>, Vec<u8>) {
    let run = |tool: &str, args: &[&str]| {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join(name);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        if let Some(base) = base {
            std::fs::write(&target, base).unwrap();
        }
        std::fs::write(dir.path().join("change.patch"), patch_text).unwrap();
        let out = Command::new(tool)
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{tool} refused:\n{patch_text}\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read(&target).unwrap()
    };
    let git = run("git", &["apply", "--whitespace=nowarn", "change.patch"]);
    let gnu = run(
        "patch",
        &["-p1", "--quiet", "--binary", "-i", "change.patch"],
    );
    (git, gnu)
}

fn single(before: &str, edits: &[ProposedEdit]) -> (FileProposal, FileDiff) {
    let (_dir, files) = proposal(before, edits);
    let diff = bundle(&files, &HunkLimits::default()).files.remove(0);
    (files.into_iter().next().unwrap(), diff)
}

#[test]
fn each_hunk_patch_applies_alone_with_git_and_gnu_patch() {
    let before: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    let (file, diff) = single(
        &before,
        &[
            replace("e_1", 3, 3, "THREE"),
            replace("e_2", 20, 21, "TWENTY"),
        ],
    );
    assert_eq!(diff.hunks.len(), 2);
    assert_eq!(diff.hunks[0].hunk_id, "h_1");
    assert_eq!(diff.hunks[0].edit_ids, ["e_1"]);
    assert_eq!(diff.hunks[1].edit_ids, ["e_2"]);
    assert_eq!(
        diff.base_file_hash.as_deref(),
        Some(crate::project::text::content_hash(before.as_bytes()).as_str())
    );
    for hunk in &diff.hunks {
        let alone = apply_one(&before, &file.proposed, &diff, hunk);
        let (git, gnu) = real_apply("f.md", Some(&before), &hunk.patch);
        assert_eq!(String::from_utf8(git).unwrap(), alone);
        assert_eq!(String::from_utf8(gnu).unwrap(), alone);
    }
    assert_eq!(apply_all(&before, &file.proposed, &diff), file.proposed);
}

#[test]
fn golden_endings_survive_real_patch_tools() {
    let cases: &[(&str, &str, ProposedEdit)] = &[
        ("crlf", "a\r\nb\r\nc\r\n", replace("e", 2, 2, "B")),
        ("mixed", "a\r\nb\nc\r\nd\n", replace("e", 3, 3, "C1\nC2")),
        ("bom", "\u{feff}a\nb\n", replace("e", 1, 1, "A")),
        ("no final newline", "a\nb", replace("e", 2, 2, "B")),
        (
            "non-ascii",
            "née\nZürich\n日本\n",
            replace("e", 2, 2, "Genève"),
        ),
        ("one line", "only", replace("e", 1, 1, "one\ntwo")),
        (
            "empty",
            "",
            ProposedEdit {
                operation: Operation::Insert,
                end_line: None,
                ..replace("e", 1, 1, "first\n")
            },
        ),
        (
            "delete all",
            "x\ny\n",
            ProposedEdit {
                operation: Operation::Delete,
                new_text: String::new(),
                ..replace("e", 1, 2, "")
            },
        ),
    ];
    for (name, before, edit) in cases {
        let (file, diff) = single(before, std::slice::from_ref(edit));
        assert_eq!(diff.hunks.len(), 1, "{name}");
        let (git, gnu) = real_apply("f.md", Some(before), &diff.hunks[0].patch);
        assert_eq!(
            git,
            file.proposed.as_bytes(),
            "{name}: git apply\n{}",
            diff.hunks[0].patch
        );
        assert_eq!(
            gnu,
            file.proposed.as_bytes(),
            "{name}: patch\n{}",
            diff.hunks[0].patch
        );
    }
}

#[test]
fn created_files_patch_from_dev_null() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::open(dir.path(), Limits::default()).unwrap();
    let edit = ProposedEdit {
        file_path: "notes/new note.md".into(),
        operation: Operation::Create,
        ..replace("e_1", 1, 1, "# New\n\nbody\n")
    };
    let files = prepare(&project, &[edit]).unwrap();
    let diff = bundle(&files, &HunkLimits::default()).files.remove(0);
    assert!(diff.created && diff.base_file_hash.is_none());
    let (git, gnu) = real_apply("notes/new note.md", None, &diff.hunks[0].patch);
    assert_eq!(
        (git.as_slice(), gnu.as_slice()),
        (&b"# New\n\nbody\n"[..], &b"# New\n\nbody\n"[..])
    );
}

#[test]
fn oversized_hunks_split_at_edits_then_blank_lines() {
    let before: String = (1..=200).map(|i| format!("old {i}\n")).collect();
    // Two adjacent edits make one diff block of 300 changed lines.
    let first: String = (1..=30).map(|i| format!("new a{i}\n")).collect();
    let second: String = (1..=140)
        .map(|i| {
            if i % 10 == 0 {
                "\n".to_owned()
            } else {
                format!("new b{i}\n")
            }
        })
        .collect();
    let (file, diff) = single(
        &before,
        &[
            replace("e_1", 1, 30, &first),
            replace("e_2", 31, 200, &second),
        ],
    );
    assert!(diff.hunks.len() >= 4, "{}", diff.hunks.len());
    assert_eq!(diff.hunks[0].edit_ids, ["e_1"]);
    assert!(diff.hunks[1..].iter().all(|h| h.edit_ids == ["e_2"]));
    for h in &diff.hunks {
        assert!(h.old_lines + h.new_lines <= 80, "{h:?}");
        assert!(!h.oversized_hunk);
        let alone = apply_one(&before, &file.proposed, &diff, h);
        let (git, _) = real_apply("f.md", Some(&before), &h.patch);
        assert_eq!(String::from_utf8(git).unwrap(), alone);
    }
    assert_eq!(apply_all(&before, &file.proposed, &diff), file.proposed);

    // One 10 KB line cannot be split: it is marked.
    let (_, diff) = single("short\n", &[replace("e_1", 1, 1, &"word ".repeat(2000))]);
    assert_eq!(diff.hunks.len(), 1);
    assert!(diff.hunks[0].oversized_hunk);
}

#[test]
fn sentence_ends_split_long_prose() {
    let prose: String = (1..=120)
        .map(|i| format!("Sentence number {i} ends here.\n"))
        .collect();
    let (file, diff) = single(
        "title\n",
        &[ProposedEdit {
            operation: Operation::Insert,
            end_line: None,
            ..replace("e_1", 2, 2, &prose)
        }],
    );
    assert!(diff.hunks.len() >= 2);
    assert!(
        diff.hunks
            .iter()
            .all(|h| !h.oversized_hunk && h.new_lines <= 80)
    );
    assert_eq!(apply_all("title\n", &file.proposed, &diff), file.proposed);
}

/// A piece of a split hunk never ends in a line without a terminator unless
/// it also ends the file on the other side: each hunk's patch is a patch on
/// its own, and both real tools take it.
#[test]
fn an_unterminated_last_line_stays_in_the_last_piece() {
    let limits = HunkLimits {
        max_lines: 4,
        max_bytes: 20,
        ..HunkLimits::default()
    };
    for (before, edit, pieces) in [
        // The proposal loses its final newline while lines after it go.
        ("\na\n\n\n ", replace("e_0", 3, 5, ""), 2),
        // The base has none and lines are appended after its last line:
        // every cut would leave that line in the middle, so it is one hunk.
        ("a\n ", replace("e_0", 2, 2, "\n\nb\n\nc\n\nd\n"), 1),
    ] {
        let (_dir, files) = proposal(before, std::slice::from_ref(&edit));
        let diff = bundle(&files, &limits).files.remove(0);
        assert_eq!(
            apply_all(before, &files[0].proposed, &diff),
            files[0].proposed
        );
        assert_eq!(diff.hunks.len(), pieces, "{before:?}");
        for hunk in &diff.hunks {
            let alone = apply_one(before, &files[0].proposed, &diff, hunk);
            let (git, gnu) = real_apply("f.md", Some(before), &hunk.patch);
            assert_eq!(String::from_utf8(git).unwrap(), alone, "{}", hunk.patch);
            assert_eq!(String::from_utf8(gnu).unwrap(), alone, "{}", hunk.patch);
        }
    }
}

/// Non-overlapping replacements of `before`, in file order, from raw picks.
fn random_edits(before: &str, raw: Vec<(usize, usize, String)>) -> Vec<ProposedEdit> {
    let total = Lines::new(before).len();
    let mut edits = Vec::new();
    let mut next_free = 1;
    for (i, (start, len, text)) in raw.into_iter().enumerate() {
        let start = next_free + start % 3;
        if start > total {
            break;
        }
        let end = (start + len).min(total);
        edits.push(replace(&format!("e_{i}"), start, end, &text));
        next_free = end + 1;
    }
    edits
}

fn arb_text() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec("[a-c ]{0,3}", 0..25),
        proptest::bool::ANY,
        proptest::bool::ANY,
    )
        .prop_map(|(lines, crlf, final_nl)| {
            let eol = if crlf { "\r\n" } else { "\n" };
            let mut text = lines.join(eol);
            if final_nl && !lines.is_empty() {
                text.push_str(eol);
            }
            text
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// Hunks are ordered, disjoint, and together turn the base into the proposal.
    #[test]
    fn hunks_rebuild_the_proposal(before in arb_text(), raw in proptest::collection::vec((0usize..30, 0usize..4, "[a-d\\n]{0,8}"), 1..5)) {
        let edits = random_edits(&before, raw);
        prop_assume!(!edits.is_empty());
        let (_dir, files) = proposal(&before, &edits);
        let limits = HunkLimits { max_lines: 4, max_bytes: 20, ..HunkLimits::default() };
        let diff = bundle(&files, &limits).files.remove(0);
        let file = &files[0];
        prop_assert_eq!(apply_all(&before, &file.proposed, &diff), file.proposed.clone());
        for pair in diff.hunks.windows(2) {
            prop_assert!(pair[0].old_start + pair[0].old_lines <= pair[1].old_start);
            prop_assert!(pair[0].new_start + pair[0].new_lines <= pair[1].new_start);
        }
        for h in &diff.hunks {
            prop_assert!(h.old_lines + h.new_lines > 0);
            prop_assert!(!h.edit_ids.is_empty());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Every patch of random proposals passes `git apply --check` and
    /// `patch --dry-run` against the base (mixed endings, no final newline).
    #[test]
    fn every_patch_passes_the_real_tools(before in arb_text(), raw in proptest::collection::vec((0usize..30, 0usize..4, "[a-d\\n]{0,8}"), 1..4)) {
        let edits = random_edits(&before, raw);
        prop_assume!(!edits.is_empty());
        let (_dir, files) = proposal(&before, &edits);
        let diff = bundle(&files, &HunkLimits { max_lines: 4, max_bytes: 20, ..HunkLimits::default() }).files.remove(0);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f.md"), &before).unwrap();
        for hunk in &diff.hunks {
            std::fs::write(dir.path().join("h.patch"), &hunk.patch).unwrap();
            for (tool, args) in [("git", &["apply", "--check", "h.patch"][..]), ("patch", &["-p1", "--dry-run", "--binary", "-i", "h.patch"][..])] {
                let out = Command::new(tool).args(args).current_dir(dir.path()).output().unwrap();
                prop_assert!(out.status.success(), "{} refused:\n{}\n{}", tool, hunk.patch, String::from_utf8_lossy(&out.stderr));
            }
        }
    }
}
