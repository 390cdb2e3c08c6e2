//! Resolution by Obsidian's rules: paths, path ends, bare names, attachments,
//! relative Markdown links, and names in either normalization.

use super::*;

fn vault() -> Vault {
    Vault::new([
        "Atlas.md",
        "Projects/Atlas/Plan.md",
        "Projects/Atlas.md",
        "Archive/Plan.md",
        "Solo.md",
        "People/Ana Lima.md",
        "img/chart.png",
        "img/chart.png.md",
        "Daily/2024-01-01.md",
        "Daily/Sub/Deep.md",
        "Tasks",
    ])
}

fn at(vault: &Vault, text: &str, source: &str) -> Resolution {
    vault.resolve(&one(text), source)
}

/// That the one link of `text` in `source` is ambiguous between `files`.
fn assert_ambiguous(vault: &Vault, text: &str, source: &str, files: &[&str]) {
    assert_eq!(at(vault, text, source), Resolution::Ambiguous(files.len()));
    assert_eq!(vault.candidates(&one(text), source), files);
}
#[test]
fn wikilinks_resolve_by_path_then_by_the_end_of_one() {
    let v = vault();
    let from = "Daily/2024-01-01.md";
    assert_eq!(
        at(&v, "[[Projects/Atlas]]", from),
        file("Projects/Atlas.md")
    );
    assert_eq!(
        at(&v, "[[Projects/Atlas.md]]", from),
        file("Projects/Atlas.md")
    );
    assert_eq!(
        at(&v, "[[/Projects/Atlas]]", from),
        file("Projects/Atlas.md")
    );
    assert_eq!(
        at(&v, "[[Atlas/Plan]]", from),
        file("Projects/Atlas/Plan.md")
    );
    assert_eq!(
        at(&v, "[[atlas/PLAN]]", from),
        file("Projects/Atlas/Plan.md")
    );
    assert_eq!(at(&v, "[[jects/Atlas]]", from), Resolution::Dangling);
    assert_ambiguous(
        &v,
        "[[Plan]]",
        from,
        &["Archive/Plan.md", "Projects/Atlas/Plan.md"],
    );
    // A file without an extension wins over the note of the same name.
    assert_eq!(at(&v, "[[Tasks]]", from), file("Tasks"));
    assert_eq!(at(&v, "[[./Sub/Deep]]", from), file("Daily/Sub/Deep.md"));
    assert_eq!(
        at(&v, "[[../Solo]]", "Daily/Sub/Deep.md"),
        Resolution::Dangling
    );
    assert_eq!(
        at(&v, "[[../../Solo]]", "Daily/Sub/Deep.md"),
        file("Solo.md")
    );
    assert_eq!(
        at(&v, "[[../../../Solo]]", "Daily/Sub/Deep.md"),
        Resolution::OutsideVault
    );
}

#[test]
fn bare_names_resolve_case_insensitively_and_duplicates_are_ambiguous() {
    let v = vault();
    assert_eq!(at(&v, "[[solo]]", "x.md"), file("Solo.md"));
    assert_eq!(
        at(&v, "[[ANA LIMA|Ana]]", "x.md"),
        file("People/Ana Lima.md")
    );
    assert_eq!(at(&v, "[[Solo.md]]", "x.md"), file("Solo.md"));
    assert_eq!(at(&v, "[[Nobody]]", "x.md"), Resolution::Dangling);
    assert_eq!(
        v.candidates(&one("[[Nobody]]"), "x.md"),
        Vec::<String>::new()
    );
    assert_eq!(v.candidates(&one("[[solo]]"), "x.md"), ["Solo.md"]);
    // Two notes named Atlas, one at the root: the path from the root wins,
    // as it does in Obsidian.
    assert_eq!(at(&v, "[[Atlas]]", "x.md"), file("Atlas.md"));
    let v = Vault::new(["A/Atlas.md", "B/atlas.md"]);
    assert_ambiguous(&v, "[[Atlas]]", "x.md", &["A/Atlas.md", "B/atlas.md"]);
}

#[test]
fn attachments_resolve_by_their_full_name() {
    let v = Vault::new(["img/chart.png", "Note.md"]);
    assert_eq!(at(&v, "![[chart.png]]", "Note.md"), file("img/chart.png"));
    assert_eq!(at(&v, "![[chart]]", "Note.md"), Resolution::Dangling);
    assert_eq!(
        at(&v, "![c](img/chart.png)", "Note.md"),
        file("img/chart.png")
    );
    // `[[chart.png]]` could also be a note named `chart.png.md`.
    assert_ambiguous(
        &vault(),
        "![[chart.png]]",
        "Note.md",
        &["img/chart.png", "img/chart.png.md"],
    );
}

#[test]
fn markdown_links_resolve_from_their_note() {
    let v = vault();
    let from = "Daily/Sub/Deep.md";
    assert_eq!(
        at(&v, "[a](../../People/Ana%20Lima.md)", from),
        file("People/Ana Lima.md")
    );
    assert_eq!(
        at(&v, "[a](<../../People/Ana Lima.md>)", from),
        file("People/Ana Lima.md")
    );
    assert_eq!(
        at(&v, "[a](./../2024-01-01.md#top)", from),
        file("Daily/2024-01-01.md")
    );
    assert_eq!(at(&v, "[a](../../Solo)", from), file("Solo.md"));
    assert_eq!(
        at(&v, "[a](/Projects/Atlas.md)", from),
        file("Projects/Atlas.md")
    );
    assert_eq!(
        at(&v, "[a](../../../Solo.md)", from),
        Resolution::OutsideVault
    );
    assert_eq!(at(&v, "[a](./Solo.md)", from), Resolution::Dangling);
    // What Obsidian's "absolute" and "shortest" formats write.
    assert_eq!(
        at(&v, "[a](Projects/Atlas.md)", from),
        file("Projects/Atlas.md")
    );
    assert_eq!(at(&v, "[a](Solo.md)", from), file("Solo.md"));
    // The note's own folder first.
    let v = Vault::new(["A/Solo.md", "Solo.md"]);
    assert_eq!(at(&v, "[a](Solo.md)", "A/n.md"), file("A/Solo.md"));
    assert_eq!(at(&v, "[a](/Solo.md)", "A/n.md"), file("Solo.md"));
}

#[test]
fn same_note_links_point_at_their_note() {
    assert_eq!(at(&vault(), "[[#Goals]]", "Solo.md"), file("Solo.md"));
}
/// Obsidian compares names composed (NFC) and without regard to case, so a
/// note whose name the file system keeps decomposed (as macOS writes it)
/// answers a link typed composed, and the other way round.
#[test]
fn a_link_finds_its_note_whatever_the_normalization_of_either() {
    let nfd = "Notes/Cafe\u{301}.md";
    let vault = Vault::new([nfd, "Notes/Straße.md"]);
    for (text, file) in [
        ("[[Café]]", nfd),
        ("[[CAFÉ]]", nfd),
        ("[[Cafe\u{301}]]", nfd),
        ("[Menu](Notes/Caf%C3%A9.md)", nfd),
        ("[[STRASSE]]", ""),
        ("[[straße]]", "Notes/Straße.md"),
    ] {
        let got = vault.resolve(&one(text), "Index.md");
        let want = match file {
            "" => Resolution::Dangling,
            file => Resolution::File(file.into()),
        };
        assert_eq!(got, want, "{text}");
    }
}
