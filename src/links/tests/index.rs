//! The link index: backlinks, outgoing, dangling and ambiguous links, kept
//! by moves and edits as a rebuild would be.

use super::*;

#[test]
fn the_index_answers_backlinks_outgoing_dangling_and_ambiguous() {
    let notes = [
        ("A/Atlas.md", "[[Missing]] [[#Top]]"),
        (
            "x.md",
            "[[Atlas]] text [[Atlas|a]] [[Plan]] [m](../nowhere.md)",
        ),
        ("y.md", "[a](A/Atlas.md)"),
    ];
    let mut index = LinkIndex::build(
        ["A/Atlas.md", "x.md", "y.md", "P/Plan.md", "Q/Plan.md"],
        notes,
    );
    let backlinks: Vec<(&str, std::ops::Range<usize>)> = index
        .backlinks("A/Atlas.md")
        .iter()
        .map(|b| (b.source, b.link.link.span.clone()))
        .collect();
    assert_eq!(
        backlinks,
        [
            ("A/Atlas.md", 12..20),
            ("x.md", 0..9),
            ("x.md", 15..26),
            ("y.md", 0..15)
        ]
    );
    assert_eq!(index.outgoing("x.md").len(), 4);
    assert_eq!(index.outgoing("nothing.md").len(), 0);
    let dangling: Vec<(&str, &str)> = index
        .dangling()
        .iter()
        .map(|d| (d.source, d.link.link.target.as_str()))
        .collect();
    assert_eq!(
        dangling,
        [("A/Atlas.md", "Missing"), ("x.md", "../nowhere.md")]
    );
    assert_eq!(index.dangling_in("x.md").count(), 1);
    assert_eq!(index.ambiguous().len(), 1);

    // Removing one Plan makes the name unique; a note named Missing
    // arriving makes its link resolve; a second Atlas makes `[[Atlas]]`
    // ambiguous, and its removal unique again.
    index.remove("Q/Plan.md");
    assert!(index.ambiguous().is_empty());
    assert_eq!(index.outgoing("x.md")[2].resolution, file("P/Plan.md"));
    index.upsert("Missing.md", "");
    assert_eq!(
        index.outgoing("A/Atlas.md")[0].resolution,
        file("Missing.md")
    );
    index.add_file("B/Atlas.md");
    assert_eq!(index.ambiguous().len(), 2);
    assert_eq!(index.backlinks("A/Atlas.md").len(), 2);
    index.remove("B/Atlas.md");
    assert_eq!(index.backlinks("A/Atlas.md").len(), 4);
}

#[test]
fn the_index_follows_moves_and_edits_as_a_rebuild_would() {
    let notes = [
        ("A/Atlas.md", "[o](../B/Other.md) [[Other]]"),
        ("B/Other.md", "[[Atlas]] [a](../A/Atlas.md)"),
    ];
    let mut index = LinkIndex::build(notes.iter().map(|n| n.0), notes);
    let moves = [("A/Atlas.md", "C/Atlas.md")];
    let plan = index.plan_moves(&moves, &shortest()).unwrap();
    index.move_files(&moves).unwrap();
    let mut texts: BTreeMap<&str, String> = BTreeMap::new();
    for (path, text) in notes {
        let now = if path == "A/Atlas.md" {
            "C/Atlas.md"
        } else {
            path
        };
        let text = apply_edits(text, plan.edits.get(path).map_or(&[][..], Vec::as_slice));
        index.upsert(now, &text);
        texts.insert(now, text);
    }
    assert_eq!(texts["B/Other.md"], "[[Atlas]] [a](../C/Atlas.md)");
    let rebuilt = LinkIndex::build(
        texts.keys().copied(),
        texts.iter().map(|(p, t)| (*p, t.as_str())),
    );
    assert_eq!(index, rebuilt);
    assert!(index.dangling().is_empty());
}
