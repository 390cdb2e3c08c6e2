//! Round trips of the operations, over generated notes: an operation and
//! its inverse give back the note byte for byte, and whatever is not the
//! operation's business (code, link targets, other keys) never changes.

use proptest::prelude::*;

use super::front_matter::{ListValue, RemoveProperty, SetProperty};
use super::replace::{ReplaceText, Replacer};
use super::scope::Scope;
use super::tags::RenameTag;

/// A note of front matter, prose, code, links and tags built from `words`.
fn note() -> impl Strategy<Value = String> {
    let word = prop::sample::select(vec!["alpha", "beta", "Gamma", "delta", "x", "y2"]);
    let line = prop_oneof![
        prop::collection::vec(word.clone(), 1..6).prop_map(|w| w.join(" ")),
        word.clone().prop_map(|w| format!("`{w}` and [[{w}]] and [{w}]({w}.md)")),
        word.clone().prop_map(|w| format!("#{w} and #{w}/sub")),
        word.clone().prop_map(|w| format!("```\n{w}\n```")),
    ];
    let eol = prop_oneof![Just("\n"), Just("\r\n")];
    (
        prop::collection::vec(line, 0..6),
        eol,
        proptest::option::of(prop::collection::vec(word, 0..3)),
    )
        .prop_map(|(lines, eol, tags)| {
            let mut text = String::new();
            if let Some(tags) = tags {
                text.push_str(&format!("---{eol}kind: note{eol}tags: [{}]{eol}# a comment{eol}---{eol}", tags.join(", ")));
            }
            for line in lines {
                text.push_str(&line.replace('\n', eol));
                text.push_str(eol);
            }
            text
        })
}

fn replace(find: &str, with: &str) -> ReplaceText {
    ReplaceText {
        find: find.into(),
        replace: with.into(),
        regex: false,
        whole_word: true,
        case_sensitive: true,
        scope: Scope::default(),
        include: Vec::new(),
    }
}

proptest! {
    #![proptest_config(crate::explore::config(256))]

    #[test]
    fn a_replacement_and_its_inverse_give_the_note_back(text in note()) {
        // `omega` is in no generated note, so the way back is unambiguous.
        let there = replace("beta", "omega");
        let back = replace("omega", "beta");
        let done = Replacer::new(&there, 1 << 20).unwrap().apply(&text);
        let again = Replacer::new(&back, 1 << 20).unwrap().apply(&done.text);
        prop_assert_eq!(&again.text, &text);
        // Code, links and tags are never touched by default.
        for kept in ["`beta`", "[[beta]]", "(beta.md)", "#beta"] {
            prop_assert_eq!(text.matches(kept).count(), done.text.matches(kept).count(), "{}", kept);
        }
    }

    #[test]
    fn a_property_set_then_removed_gives_the_note_back(text in note()) {
        prop_assume!(!text.contains("status:"));
        let set = SetProperty { key: "status".into(), value: "done".into(), only_if_missing: false, scope: Scope::default() };
        let Ok(Some(done)) = set.edit(&text) else {
            return Err(TestCaseError::fail("set did nothing"));
        };
        let removed = RemoveProperty { key: "status".into(), scope: Scope::default() }.edit(&done).unwrap().unwrap();
        if text.starts_with("---") {
            prop_assert_eq!(&removed, &text);
        } else {
            // A note with no front matter keeps the empty block it was given.
            prop_assert!(removed.ends_with(&text));
        }
    }

    #[test]
    fn a_list_value_added_then_removed_gives_the_note_back(text in note()) {
        let value = ListValue { key: "tags".into(), value: "omega".into(), scope: Scope::default() };
        let added = value.add(&text).unwrap().unwrap();
        let removed = value.remove(&added).unwrap().unwrap();
        if text.starts_with("---") {
            prop_assert_eq!(&removed, &text);
        } else {
            // A note with no front matter keeps the list it was given, empty.
            prop_assert!(removed.ends_with(&text));
        }
    }

    #[test]
    fn a_tag_renamed_and_back_gives_the_note_back(text in note()) {
        let there = RenameTag { from: "beta".into(), to: "omega".into(), scope: Scope::default() };
        let back = RenameTag { from: "omega".into(), to: "beta".into(), scope: Scope::default() };
        let Some((done, _)) = there.edit(&text).unwrap() else {
            return Ok(());
        };
        prop_assert!(!done.contains("#beta "), "{}", done);
        let (again, _) = back.edit(&done).unwrap().unwrap();
        prop_assert_eq!(&again, &text);
    }
}
