//! Parsing: every link form found with its span and parts, and written
//! back byte for byte.

use super::*;

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
