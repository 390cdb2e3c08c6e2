//! Rewriting for moves and heading renames: links follow their file or
//! heading, written as they were.

use super::*;

#[test]
fn a_rename_keeps_alias_subpath_embed_and_title() {
    let note = "[[Atlas]] [[Atlas|plan]] [[Atlas#Goals|g]] [[Atlas#^b1]] ![[Atlas#Map]] \
                [a](Projects/Atlas.md \"T\") ![a](<Projects/Atlas.md#Map>) [[Projects/Atlas.md]]\n";
    let (texts, plan) = moved(
        &[("Projects/Atlas.md", "# A\n"), ("Home.md", note)],
        &[],
        &[("Projects/Atlas.md", "Projects/Atlas V2.md")],
        &shortest(),
    );
    assert_eq!(
        texts["Home.md"],
        "[[Atlas V2]] [[Atlas V2|plan]] [[Atlas V2#Goals|g]] [[Atlas V2#^b1]] ![[Atlas V2#Map]] \
         [a](Projects/Atlas%20V2.md \"T\") ![a](<Projects/Atlas V2.md#Map>) [[Projects/Atlas V2.md]]\n"
    );
    assert_eq!(plan.edits["Home.md"].len(), 8);
    assert!(plan.skipped.is_empty());
}

#[test]
fn links_to_an_attachment_follow_it() {
    let (texts, _) = moved(
        &[("Notes/a.md", "![[chart.png|300]] ![c](../img/chart.png)\n")],
        &["img/chart.png"],
        &[("img/chart.png", "media/charts/q1.png")],
        &shortest(),
    );
    assert_eq!(
        texts["Notes/a.md"],
        "![[q1.png|300]] ![c](../media/charts/q1.png)\n"
    );
}

#[test]
fn relative_markdown_links_get_a_new_relative_path() {
    let (texts, _) = moved(
        &[
            ("A/B/Target Note.md", ""),
            (
                "A/x.md",
                "[t](B/Target%20Note.md#Sec) [u](./B/Target%20Note.md)\n",
            ),
            (
                "C/y.md",
                "[t](../A/B/Target%20Note.md) [r](/A/B/Target%20Note.md)\n",
            ),
        ],
        &[],
        &[("A/B/Target Note.md", "Z/Target Note.md")],
        &shortest(),
    );
    assert_eq!(
        texts["A/x.md"],
        "[t](../Z/Target%20Note.md#Sec) [u](../Z/Target%20Note.md)\n"
    );
    assert_eq!(
        texts["C/y.md"],
        "[t](../Z/Target%20Note.md) [r](/Z/Target%20Note.md)\n"
    );
}

#[test]
fn the_md_extension_stays_as_written() {
    let (texts, _) = moved(
        &[("N.md", ""), ("x.md", "[[N]] [[N.md]] [a](N) [b](N.md)\n")],
        &[],
        &[("N.md", "Sub/M.md")],
        &shortest(),
    );
    assert_eq!(texts["x.md"], "[[M]] [[M.md]] [a](Sub/M) [b](Sub/M.md)\n");
}

#[test]
fn encoding_follows_the_original() {
    let (texts, _) = moved(
        &[
            ("café.md", ""),
            ("x.md", "[a](caf%C3%A9.md) [b](café.md) [c](<café.md>)\n"),
        ],
        &[],
        &[("café.md", "Sub/déjà vu.md")],
        &shortest(),
    );
    assert_eq!(
        texts["x.md"],
        "[a](Sub/d%C3%A9j%C3%A0%20vu.md) [b](Sub/déjà%20vu.md) [c](<Sub/déjà vu.md>)\n"
    );
}

#[test]
fn front_matter_links_are_rewritten_with_their_quotes() {
    let note = "---\nrelated: \"[[Atlas]]\"\nsee:\n  - '[[Atlas|A]]'\n  - \"[[Atlas#Goals]]\"\nplain: see [[Atlas]]\n---\n[[Atlas]]\n";
    let (texts, _) = moved(
        &[("Atlas.md", ""), ("x.md", note)],
        &[],
        &[("Atlas.md", "Bob's \"Atlas\".md")],
        &shortest(),
    );
    let text = &texts["x.md"];
    assert_eq!(
        text,
        "---\nrelated: \"[[Bob's \\\"Atlas\\\"]]\"\nsee:\n  - '[[Bob''s \"Atlas\"|A]]'\n  - \"[[Bob's \\\"Atlas\\\"#Goals]]\"\nplain: see [[Bob's \"Atlas\"]]\n---\n[[Bob's \"Atlas\"]]\n"
    );
    let yaml = text.split("---\n").nth(1).unwrap();
    let docs = yaml_rust2::YamlLoader::load_from_str(yaml).expect("still YAML");
    assert_eq!(docs[0]["related"].as_str(), Some("[[Bob's \"Atlas\"]]"));
    assert_eq!(docs[0]["see"][0].as_str(), Some("[[Bob's \"Atlas\"|A]]"));
    // And the index reads them back to the moved note.
    let index = LinkIndex::build(["Bob's \"Atlas\".md"], [("x.md", text.as_str())]);
    assert!(
        index
            .outgoing("x.md")
            .iter()
            .all(|r| r.resolution == file("Bob's \"Atlas\".md"))
    );
}

#[test]
fn a_folder_move_rewrites_links_into_it_and_between_its_notes() {
    let notes = [
        (
            "Projects/Atlas/Plan.md",
            "[[Budget]] [b](Budget.md) [h](../../Home.md)\n",
        ),
        ("Projects/Atlas/Budget.md", "[p](./Plan.md)\n"),
        (
            "Home.md",
            "[[Projects/Atlas/Plan]] [[Budget|b]] [p](Projects/Atlas/Plan.md)\n",
        ),
    ];
    let index = LinkIndex::build(notes.iter().map(|n| n.0), notes);
    let moves = index.folder_moves("Projects/Atlas", "Archive/2024/Atlas");
    assert_eq!(moves.len(), 2);
    let (texts, plan) = moved(
        &notes,
        &[],
        &moves
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect::<Vec<_>>(),
        &shortest(),
    );
    assert_eq!(
        texts["Home.md"],
        "[[Archive/2024/Atlas/Plan]] [[Budget|b]] [p](Archive/2024/Atlas/Plan.md)\n"
    );
    // Moved together, relative links between them hold; the one out does not.
    assert_eq!(
        texts["Archive/2024/Atlas/Plan.md"],
        "[[Budget]] [b](Budget.md) [h](../../../Home.md)\n"
    );
    assert_eq!(texts["Archive/2024/Atlas/Budget.md"], "[p](./Plan.md)\n");
    assert!(!plan.edits.contains_key("Projects/Atlas/Budget.md"));
}

#[test]
fn a_move_that_makes_a_name_ambiguous_qualifies_the_link() {
    // `x` meant the only Atlas; a second one arriving would make it ambiguous.
    let (texts, _) = moved(
        &[
            ("Projects/Atlas.md", ""),
            ("Archive/Old/Atlas V.md", ""),
            ("x.md", "[[Atlas]] [[Atlas|a]]\n"),
            ("y.md", "[[Projects/Atlas]]\n"),
        ],
        &[],
        &[("Archive/Old/Atlas V.md", "Archive/Old/Atlas.md")],
        &shortest(),
    );
    assert_eq!(texts["x.md"], "[[Projects/Atlas]] [[Projects/Atlas|a]]\n");
    assert_eq!(texts["y.md"], "[[Projects/Atlas]]\n");
    // Moving the linked note next to another Atlas: the shortest unique end.
    let (texts, _) = moved(
        &[
            ("Projects/Atlas.md", ""),
            ("Archive/Q/Atlas V.md", ""),
            ("x.md", "[[Atlas V]]\n"),
        ],
        &[],
        &[("Archive/Q/Atlas V.md", "Archive/Q/Atlas.md")],
        &shortest(),
    );
    assert_eq!(texts["x.md"], "[[Q/Atlas]]\n");
}

#[test]
fn a_move_that_makes_a_name_unique_leaves_qualified_links_qualified() {
    let (texts, plan) = moved(
        &[
            ("A/Atlas.md", ""),
            ("B/Atlas.md", ""),
            ("x.md", "[[A/Atlas]] [[B/Atlas]]\n"),
        ],
        &[],
        &[("B/Atlas.md", "B/Atlas Old.md")],
        &shortest(),
    );
    assert_eq!(texts["x.md"], "[[A/Atlas]] [[B/Atlas Old]]\n");
    assert_eq!(plan.edits["x.md"].len(), 1);
}

#[test]
fn ambiguous_links_are_reported_and_left_alone() {
    let (texts, plan) = moved(
        &[
            ("A/Atlas.md", ""),
            ("B/Atlas.md", ""),
            ("x.md", "[[Atlas]] and [[A/Atlas]]\n"),
        ],
        &[],
        &[("A/Atlas.md", "C/Atlas.md")],
        &shortest(),
    );
    assert_eq!(texts["x.md"], "[[Atlas]] and [[C/Atlas]]\n");
    assert_eq!(
        plan.skipped,
        [Skipped {
            source: "x.md".into(),
            span: 0..9,
            reason: SkipReason::Ambiguous(vec!["A/Atlas.md".into(), "B/Atlas.md".into()]),
        }]
    );
}

#[test]
fn links_in_code_are_never_touched() {
    let note = "`[[Atlas]]`\n```\n[[Atlas]] [a](Atlas.md)\n```\n[[Atlas]]\n";
    let (texts, _) = moved(
        &[("Atlas.md", ""), ("x.md", note)],
        &[],
        &[("Atlas.md", "Maps.md")],
        &shortest(),
    );
    assert_eq!(
        texts["x.md"],
        "`[[Atlas]]`\n```\n[[Atlas]] [a](Atlas.md)\n```\n[[Maps]]\n"
    );
}

#[test]
fn links_inside_the_moved_note_follow_its_folder() {
    let note =
        "[[#Top]] [[Other]] [o](Other.md) [o](../B/Other.md) [s](Moving.md#Top) [[./Other]]\n";
    let (texts, plan) = moved(
        &[("A/Moving.md", note), ("A/Other.md", "")],
        &[],
        &[("A/Moving.md", "B/Deeper/Moving.md")],
        &shortest(),
    );
    assert_eq!(
        texts["B/Deeper/Moving.md"],
        "[[#Top]] [[Other]] [o](../../A/Other.md) [o](../B/Other.md) [s](Moving.md#Top) [[../../A/Other]]\n"
    );
    assert_eq!(plan.edits["A/Moving.md"].len(), 2);
}

#[test]
fn a_file_taking_a_name_qualifies_links_to_the_one_that_had_it() {
    // Nothing links to the file that moves, but it moves into a name.
    let (texts, _) = moved(
        &[
            ("Work/Atlas.md", ""),
            ("Drafts/Untitled.md", ""),
            ("Daily/n.md", "[[Atlas]] [a](Atlas.md)\n"),
        ],
        &[],
        &[("Drafts/Untitled.md", "Daily/Atlas.md")],
        &shortest(),
    );
    assert_eq!(texts["Daily/n.md"], "[[Work/Atlas]] [a](Work/Atlas.md)\n");
}
#[test]
fn moves_are_checked_before_planning() {
    let index = LinkIndex::build(["a.md", "b.md"], Vec::<(&str, &str)>::new());
    let plan = |moves: &[(&str, &str)]| index.plan_moves(moves, &shortest());
    assert_eq!(
        plan(&[("x.md", "y.md")]),
        Err(MoveError::Missing("x.md".into()))
    );
    assert_eq!(
        plan(&[("a.md", "b.md")]),
        Err(MoveError::Taken("b.md".into()))
    );
    assert_eq!(
        plan(&[("a.md", "c.md"), ("b.md", "c.md")]),
        Err(MoveError::Twice("c.md".into()))
    );
    assert_eq!(
        plan(&[("a.md", "../c.md")]),
        Err(MoveError::Invalid("../c.md".into()))
    );
    assert_eq!(
        plan(&[("a.md", "/c.md")]),
        Err(MoveError::Invalid("/c.md".into()))
    );
    // A swap is two moves at once.
    assert!(plan(&[("a.md", "b.md"), ("b.md", "a.md")]).is_ok());
}

#[test]
fn a_swap_keeps_each_link_on_its_file() {
    let (texts, _) = moved(
        &[
            ("A/a.md", ""),
            ("B/a.md", ""),
            ("x.md", "[[A/a]] [[B/a]] [p](A/a.md)\n"),
        ],
        &[],
        &[("A/a.md", "B/a.md"), ("B/a.md", "A/a.md")],
        &shortest(),
    );
    assert_eq!(texts["x.md"], "[[B/a]] [[A/a]] [p](B/a.md)\n");
}
// Heading renames.

#[test]
fn a_heading_rename_follows_in_every_link_to_it() {
    let notes = [
        (
            "Atlas.md",
            "# Old Goals\n[[#Old Goals]] [[#old goals|g]] [[#Other]]\n",
        ),
        (
            "x.md",
            "[[Atlas#Old Goals]] [[Atlas#Old Goals|a]] [a](Atlas.md#Old%20Goals) [[Atlas#^blk]] [[Atlas#Top#Old Goals]] [[Other#Old Goals]]\n",
        ),
        ("Other.md", ""),
    ];
    let index = LinkIndex::build(["Atlas.md", "x.md", "Other.md"], notes);
    let plan = index.plan_heading_rename("Atlas.md", "Old Goals", "New: Goals #2");
    assert_eq!(
        apply_edits(notes[0].1, &plan.edits["Atlas.md"]),
        "# Old Goals\n[[#New: Goals 2]] [[#New: Goals 2|g]] [[#Other]]\n"
    );
    assert_eq!(
        apply_edits(notes[1].1, &plan.edits["x.md"]),
        "[[Atlas#New: Goals 2]] [[Atlas#New: Goals 2|a]] [a](Atlas.md#New:%20Goals%202) [[Atlas#^blk]] [[Atlas#Top#New: Goals 2]] [[Other#Old Goals]]\n"
    );
    assert!(!plan.edits.contains_key("Other.md"));
    // Renamed to itself, nothing changes.
    assert_eq!(
        index.plan_heading_rename("Atlas.md", "Old Goals", "Old Goals"),
        Plan::default()
    );
}
