//! The vault's link settings (`.obsidian/app.json`): read with defaults, and
//! how they shape the links a move or a new link writes.

use super::*;

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
