//! Every parser on the text people write: random notes made of the pieces
//! Markdown, YAML and links are built from, phrases in many scripts
//! ([`crate::testkit::text`]) and arbitrary characters. Each parser must
//! not panic, and every span it answers must fall on character boundaries
//! and give back the text it stands for.

use std::ops::Range;

use proptest::prelude::*;

use crate::expand::prose::{Mask, Part};
use crate::testkit::text::{NAMES, PHRASES};
use crate::{explore, hunks, links};

/// The characters notes are structured by, whole lines among them.
const PIECES: &[&str] = &[
    "---\n",
    "\n",
    "\r\n",
    "[[",
    "]]",
    "](",
    ")",
    "(",
    "![[",
    "#",
    "|",
    "\\|",
    "\\",
    "`",
    "```\n",
    "~~~\n",
    "> [!note] ",
    ": ",
    "- ",
    "\"",
    "'",
    "tags: [",
    "]",
    ", ",
    "aliases:\n  - ",
    "title: ",
    "#tag/",
    "https://x.y/é?q=",
    "^b1",
    " ",
    "<",
    ">",
    "%20",
    "%C3%A9",
    "==",
    "|---|\n",
    "# ",
    ".md",
    "/",
];

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(PIECES).prop_map(str::to_owned),
        2 => proptest::sample::select(PHRASES).prop_map(str::to_owned),
        2 => proptest::sample::select(NAMES).prop_map(str::to_owned),
        1 => any::<char>().prop_map(String::from),
    ]
}

/// A note: sometimes with a front matter, always of many pieces.
fn note() -> impl Strategy<Value = String> {
    (
        any::<bool>(),
        proptest::collection::vec(piece(), 0..12),
        proptest::collection::vec(piece(), 0..40),
    )
        .prop_map(|(fenced, yaml, body)| {
            if fenced {
                format!("---\n{}\n---\n{}", yaml.concat(), body.concat())
            } else {
                body.concat()
            }
        })
}

fn on_boundaries(text: &str, range: &Range<usize>, what: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        range.start <= range.end
            && range.end <= text.len()
            && text.is_char_boundary(range.start)
            && text.is_char_boundary(range.end),
        "{what} {range:?} of {text:?}"
    );
    Ok(())
}

proptest! {
    #![proptest_config(explore::config(2000))]

    #[test]
    fn link_spans_fall_on_characters_and_write_back_the_text(text in note()) {
        for link in links::parse(&text) {
            on_boundaries(&text, &link.span, "a link")?;
            prop_assert_eq!(link.render(), &text[link.span.clone()]);
            // Decoding and moving never panic on what was parsed.
            let _ = (link.path(), link.heading(), link.with_path("Été/日本語 ✓.md").render());
        }
        if let Some((inner, body)) = links::front_matter(&text) {
            on_boundaries(&text, &inner, "the front matter")?;
            prop_assert!(text.is_char_boundary(body));
        }
        for fence in links::fenced_blocks(&text, 0) {
            on_boundaries(&text, &fence, "a fence")?;
        }
    }

    #[test]
    fn the_prose_mask_and_the_front_matter_lists_fall_on_characters(text in note()) {
        let mask = Mask::of(&text);
        for part in [Part::FrontMatter, Part::Code, Part::Url, Part::LinkTarget, Part::Tag] {
            for range in mask.parts(part) {
                on_boundaries(&text, range, part.as_str())?;
            }
        }
        for key in ["tags", "aliases", "title"] {
            if let Ok(items) = crate::expand::front_matter::list_items(&text, key) {
                for item in items {
                    on_boundaries(&text, &item, key)?;
                }
            }
        }
    }

    #[test]
    fn operations_on_any_text_never_panic(
        text in note(),
        name in proptest::sample::select(NAMES),
        with in proptest::sample::select(PHRASES),
    ) {
        let rename = crate::expand::RenameTag {
            from: name.replace(' ', "_"),
            to: "étiquette/新".into(),
            scope: Default::default(),
        };
        if let Ok(Some((done, n))) = rename.edit(&text) {
            prop_assert!(n > 0 && done != text);
        }
        for whole_word in [false, true] {
            let op = crate::expand::ReplaceText {
                find: name.to_owned(),
                replace: with.to_owned(),
                regex: false,
                whole_word,
                case_sensitive: false,
                scope: Default::default(),
                include: Vec::new(),
            };
            let replaced = crate::expand::replace::Replacer::new(&op, 1 << 20).unwrap().apply(&text);
            for at in &replaced.at {
                on_boundaries(&text, at, "a replacement")?;
            }
        }
    }

    #[test]
    fn word_diffs_fall_on_characters(old in note(), new in note()) {
        for edit in hunks::words::diff(&old, &new) {
            on_boundaries(&old, &edit.old, "a removed run")?;
            on_boundaries(&new, &edit.new, "an inserted run")?;
        }
    }
}
