use std::collections::BTreeMap;

use super::*;

/// The one link of `text`.
fn one(text: &str) -> Link {
    let links = parse(text);
    assert_eq!(links.len(), 1, "{text:?}: {links:#?}");
    links.into_iter().next().unwrap()
}

fn wiki(
    target: &str,
    subpath: Option<&str>,
    alias: Option<&str>,
) -> (String, Option<String>, Option<String>) {
    (
        target.into(),
        subpath.map(Into::into),
        alias.map(Into::into),
    )
}

fn parts(link: &Link) -> (String, Option<String>, Option<String>) {
    (
        link.target.clone(),
        link.subpath.clone(),
        link.display().map(Into::into),
    )
}

/// Every note's text once `moves` are made and the plan applied, by path
/// after the moves; and the plan.
fn moved(
    notes: &[(&str, &str)],
    attachments: &[&str],
    moves: &[(&str, &str)],
    settings: &LinkSettings,
) -> (BTreeMap<String, String>, Plan) {
    let files = notes
        .iter()
        .map(|(p, _)| *p)
        .chain(attachments.iter().copied());
    let index = LinkIndex::build(files, notes.iter().copied());
    let plan = index.plan_moves(moves, settings).unwrap();
    let texts = notes
        .iter()
        .map(|&(path, text)| {
            let now = moves
                .iter()
                .find(|(from, _)| *from == path)
                .map_or(path, |(_, to)| *to);
            let text = plan
                .edits
                .get(path)
                .map_or(text.to_owned(), |edits| apply_edits(text, edits));
            (now.to_owned(), text)
        })
        .collect();
    (texts, plan)
}

fn shortest() -> LinkSettings {
    LinkSettings::default()
}

// Parsing.

#[test]
fn wikilinks_of_every_form() {
    let cases = [
        ("[[Atlas]]", wiki("Atlas", None, None)),
        ("[[Atlas|the plan]]", wiki("Atlas", None, Some("the plan"))),
        ("[[Atlas#Goals]]", wiki("Atlas", Some("Goals"), None)),
        (
            "[[Atlas#Goals|plan]]",
            wiki("Atlas", Some("Goals"), Some("plan")),
        ),
        ("[[Atlas#^b1c2]]", wiki("Atlas", Some("^b1c2"), None)),
        ("[[#Goals]]", wiki("", Some("Goals"), None)),
        ("[[Projects/Atlas]]", wiki("Projects/Atlas", None, None)),
        ("[[Atlas.md]]", wiki("Atlas.md", None, None)),
        ("[[Atlas#Goals#Q1]]", wiki("Atlas", Some("Goals#Q1"), None)),
    ];
    for (text, expected) in cases {
        let link = one(text);
        assert!(link.is_wiki() && !link.embed, "{text}");
        assert_eq!(parts(&link), expected, "{text}");
        assert_eq!(link.span, 0..text.len());
    }
    let embed = one("x ![[chart.png]] y");
    assert!(embed.embed);
    assert_eq!(
        (embed.target.as_str(), embed.span.clone()),
        ("chart.png", 2..16)
    );
    let embed = one("![[Note#Heading]]");
    assert!(embed.embed);
    assert_eq!(embed.heading().as_deref(), Some("Heading"));
    let table = one("| [[Atlas\\|plan]] | x |");
    assert_eq!(parts(&table), wiki("Atlas", None, Some("plan")));
    assert!(matches!(
        table.syntax,
        Syntax::Wiki {
            escaped_pipe: true,
            ..
        }
    ));
    assert_eq!(table.render(), "[[Atlas\\|plan]]");
    for not_links in ["[[]]", "[[a\nb]]", "[[ |x]]", "[[a]b]]", "[ [a]]"] {
        assert_eq!(parse(not_links), vec![], "{not_links:?}");
    }
    assert_eq!(one("[[[a]]").span, 1..6);
}

#[test]
fn markdown_links_of_every_form() {
    let link = one("[text](relative/path.md)");
    assert!(!link.is_wiki());
    assert_eq!(link.path(), "relative/path.md");
    assert_eq!(link.display(), Some("text"));

    let link = one("go [x](../x/Note%20Name.md#heading) now");
    assert_eq!(link.span, 3..35);
    assert_eq!(
        (link.target.as_str(), link.path().as_ref()),
        ("../x/Note%20Name.md", "../x/Note Name.md")
    );
    assert_eq!(link.heading().as_deref(), Some("heading"));
    assert!(link.is_encoded() && link.has_md_extension());

    let link = one("[text](<path with spaces.md>)");
    assert!(matches!(link.syntax, Syntax::Markdown { angle: true, .. }));
    assert_eq!(link.path(), "path with spaces.md");

    let link = one("![alt](img.png)");
    assert!(link.embed);
    assert_eq!(
        (link.display(), link.path().as_ref()),
        (Some("alt"), "img.png")
    );

    for titled in [
        "[t](a.md \"Title\")",
        "[t](a.md 'Title')",
        "[t](a.md (Title))",
    ] {
        let link = one(titled);
        assert_eq!(
            (link.path().as_ref(), link.title()),
            ("a.md", Some("Title")),
            "{titled}"
        );
        assert_eq!(link.render(), titled);
    }
    let nested = one("[a [b] c](x.md)");
    assert_eq!(nested.display(), Some("a [b] c"));
    let parens = one("[a](x(1).md)");
    assert_eq!(parens.path(), "x(1).md");

    for not_vault in [
        "[u](https://example.com/a.md)",
        "[m](mailto:a@b.c)",
        "[o](obsidian://open?vault=x)",
        "[a](#anchor)",
        "[e]()",
        "[s](a b.md)",
        "[x] (a.md)",
    ] {
        assert_eq!(parse(not_vault), vec![], "{not_vault}");
    }
}

#[test]
fn code_and_escapes_hold_no_links() {
    let text = "\
[[A]]
```md
[[B]] [b](b.md)
```
~~~
[[C]]
~~~
- item
    ```
    [[D]]
    ```
> ```
> [[E]]
> ```
`[[F]]` and ``[[G]] ` [[H]]`` and \\[[I]] and \\[i](i.md) and `unclosed [[J]]
````
[[K]] ```
````
[[L]]
```
[[M]] never closed
";
    let targets: Vec<String> = parse(text).iter().map(|l| l.target.clone()).collect();
    assert_eq!(targets, ["A", "J", "L"]);
}

#[test]
fn front_matter_links_keep_their_quoting() {
    let text = "---\nrelated: \"[[Atlas]]\"\nsee:\n  - '[[Bob''s Notes|Bob]]'\n  - [[Plain]]\n# [[Comment]]\nnote: 'a # [[Hash]]'\n---\n[[Body]]\n";
    let links = parse(text);
    let found: Vec<(String, Option<Quote>)> = links
        .iter()
        .map(|l| (l.path().into_owned(), l.front_matter))
        .collect();
    assert_eq!(
        found,
        [
            ("Atlas".into(), Some(Quote::Double)),
            ("Bob's Notes".into(), Some(Quote::Single)),
            ("Plain".into(), Some(Quote::Plain)),
            ("Hash".into(), Some(Quote::Single)),
            ("Body".into(), None),
        ]
    );
    assert_eq!(links[1].target, "Bob''s Notes");
    // A front matter never closed is body text.
    assert_eq!(parse("---\na: `[[x]]`\n[[y]]")[0].target, "y");
}

#[test]
fn render_gives_back_the_source_of_every_form() {
    let text = "---\nup: \"[[Atlas#Goals|the \\\"plan\\\"]]\"\n---\n\
        [[Atlas]] [[ Atlas | spaced ]] [[Atlas#Goals|plan]] [[#H]] ![[c.png|300]] [[Atlas#^id]]\n\
        [a](b.md) [a](<b c.md#H>) ![a](  x.png  \"T\"  ) [a [b]](../c%20d.md#e%20f) [x](y.md\n'multi\nline')\n\
        | [[A\\|b]] |\n";
    let links = parse(text);
    assert_eq!(links.len(), 13);
    for link in &links {
        assert_eq!(link.render(), text[link.span.clone()], "{link:?}");
    }
}

#[test]
fn accessors_decode_what_was_written() {
    let link = one("[[Atlas#^block-1]]");
    assert_eq!((link.block(), link.heading()), (Some("block-1"), None));
    let link = one("[x](Web%20Site.md#Big%20Goals \"T\")");
    assert_eq!(link.heading().as_deref(), Some("Big Goals"));
    assert_eq!(link.title(), Some("T"));
    assert!(!one("[[Atlas]]").has_md_extension());
    assert!(!one("[x](a%.md)").is_encoded());
}

// Resolution.

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

fn file(path: &str) -> Resolution {
    Resolution::File(path.into())
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

// Rewriting for moves.

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
fn link_settings_decide_how_a_name_is_qualified() {
    let notes = [
        ("P/Q/Atlas.md", ""),
        ("R/Atlas V.md", ""),
        ("D/E/n.md", "[[Atlas]] [a](Atlas.md) [[P/Q/Atlas]]\n"),
    ];
    let moves = [("R/Atlas V.md", "R/Atlas.md")];
    let expect = [
        (
            NewLinkFormat::Shortest,
            "[[Q/Atlas]] [a](Q/Atlas.md) [[P/Q/Atlas]]\n",
        ),
        (
            NewLinkFormat::Relative,
            "[[../../P/Q/Atlas]] [a](../../P/Q/Atlas.md) [[P/Q/Atlas]]\n",
        ),
        (
            NewLinkFormat::Absolute,
            "[[P/Q/Atlas]] [a](P/Q/Atlas.md) [[P/Q/Atlas]]\n",
        ),
    ];
    for (format, text) in expect {
        for use_markdown_links in [false, true] {
            let settings = LinkSettings {
                new_link_format: format,
                use_markdown_links,
            };
            let (texts, _) = moved(&notes, &[], &moves, &settings);
            assert_eq!(texts["D/E/n.md"], text, "{settings:?}");
        }
    }
}

#[test]
fn app_json_is_read_with_defaults() {
    let read = LinkSettings::from_app_json;
    assert_eq!(read(""), LinkSettings::default());
    assert_eq!(read("{broken"), LinkSettings::default());
    assert_eq!(read("[]"), LinkSettings::default());
    assert_eq!(read("{}"), LinkSettings::default());
    assert_eq!(
        read(r#"{"newLinkFormat": "relative", "useMarkdownLinks": true, "other": 1}"#),
        LinkSettings {
            new_link_format: NewLinkFormat::Relative,
            use_markdown_links: true
        }
    );
    assert_eq!(
        read(r#"{"newLinkFormat": "absolute", "useMarkdownLinks": "yes"}"#),
        LinkSettings {
            new_link_format: NewLinkFormat::Absolute,
            use_markdown_links: false
        }
    );
    assert_eq!(
        read(r#"{"newLinkFormat": "weird"}"#),
        LinkSettings::default()
    );

    let dir = tempfile::tempdir().unwrap();
    assert_eq!(LinkSettings::read(dir.path()), LinkSettings::default());
    std::fs::create_dir(dir.path().join(".obsidian")).unwrap();
    std::fs::write(
        dir.path().join(".obsidian/app.json"),
        r#"{"newLinkFormat":"absolute","useMarkdownLinks":true}"#,
    )
    .unwrap();
    assert_eq!(
        LinkSettings::read(dir.path()),
        LinkSettings {
            new_link_format: NewLinkFormat::Absolute,
            use_markdown_links: true
        }
    );
}

#[test]
fn new_links_are_written_as_the_settings_say() {
    let index = LinkIndex::build(
        ["A/Atlas.md", "B/Atlas.md", "A/Solo Note.md", "img/c.png"],
        Vec::<(&str, &str)>::new(),
    );
    let at = |format, md, file, display| {
        let settings = LinkSettings {
            new_link_format: format,
            use_markdown_links: md,
        };
        index.new_link(file, "D/n.md", &settings, display).unwrap()
    };
    use NewLinkFormat::*;
    assert_eq!(at(Shortest, false, "A/Solo Note.md", None), "[[Solo Note]]");
    assert_eq!(
        at(Shortest, false, "A/Atlas.md", Some("a")),
        "[[A/Atlas|a]]"
    );
    assert_eq!(at(Shortest, false, "img/c.png", None), "[[c.png]]");
    assert_eq!(
        at(Shortest, true, "A/Solo Note.md", None),
        "[Solo Note](Solo%20Note.md)"
    );
    assert_eq!(
        at(Relative, false, "A/Solo Note.md", None),
        "[[../A/Solo Note]]"
    );
    assert_eq!(
        at(Relative, true, "A/Atlas.md", Some("x")),
        "[x](../A/Atlas.md)"
    );
    assert_eq!(
        at(Absolute, true, "A/Atlas.md", None),
        "[Atlas](A/Atlas.md)"
    );
    assert_eq!(index.new_link("nope.md", "D/n.md", &shortest(), None), None);
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

// The index.

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

/// Text people write, in front matter as in the body: the scanner walks
/// characters, so an accent, a CJK title or an emoji before a link is
/// stepped over, never sliced into.
#[test]
fn links_after_text_in_any_script_are_found_in_front_matter_and_body() {
    let text = "---\ndescription: café — “déjà vu”\u{a0}🚀\ntitle: 日本語のメモ\n\
                related: \"[[Été 2025]]\"\naliases: [naïve, عربي]\n---\n\
                # Ελληνικά\n\nজানুন [[Café#Menü|le café]] et ![[写真.png]] שלום [x](Ünïcode%20Note.md)\n";
    let links = parse(text);
    let targets: Vec<String> = links.iter().map(|l| l.path().into_owned()).collect();
    assert_eq!(targets, ["Été 2025", "Café", "写真.png", "Ünïcode Note.md"]);
    for link in &links {
        assert_eq!(link.render(), text[link.span.clone()], "{link:?}");
    }
    assert_eq!(links[0].front_matter, Some(Quote::Double));
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
