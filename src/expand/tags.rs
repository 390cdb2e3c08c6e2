//! Tags renamed wherever a note has them: inline (`#atlas`, and nested
//! `#atlas/q1`, never in code, URLs or link targets) and in the front
//! matter's `tags` list. Obsidian reads tags without regard to case; so does
//! the rename.

use std::ops::Range;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::front_matter::list_items;
use super::prose::{Mask, Part};
use super::scope::Scope;
use crate::links;

/// Rename a tag and its nested tags (`#atlas` and `#atlas/q1` become
/// `#meridian` and `#meridian/q1`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct RenameTag {
    /// The tag now, with or without its `#`.
    pub from: String,
    /// Its new name, with or without its `#`.
    pub to: String,
    /// The notes it reaches; default every Markdown note.
    #[serde(default)]
    pub scope: Scope,
}

impl RenameTag {
    fn names(&self) -> (&str, &str) {
        (self.from.trim_start_matches('#'), self.to.trim_start_matches('#'))
    }

    /// Whether `name` (without `#`) is the tag or one nested in it: the
    /// length of its part that is the tag.
    fn matches(&self, name: &str) -> Option<usize> {
        let from = links::fold(self.names().0);
        // Compared folded, so `#CAFÉ`, `#café` and a decomposed `#café` are
        // one tag, whatever their byte lengths: the tag ends where the name
        // does or at a `/` of a nested one.
        let ends = name.match_indices('/').map(|(at, _)| at);
        ends.chain([name.len()])
            .find(|&end| links::fold(&name[..end]) == from)
    }

    /// Refuses a rename that would make no tag.
    pub(crate) fn check(&self) -> Result<(), String> {
        let (from, to) = self.names();
        let bad = |t: &str| t.is_empty() || t.contains(char::is_whitespace) || t.chars().all(|c| c.is_ascii_digit());
        if bad(from) || bad(to) {
            return Err("rename_tag: `from` and `to` must be tags: no spaces, not only digits".into());
        }
        Ok(())
    }

    /// Renames the tag in `text`: its count of renamed tags and new text.
    pub(crate) fn edit(&self, text: &str) -> Result<Option<(String, usize)>, String> {
        let (_, to) = self.names();
        let mut cuts: Vec<Range<usize>> = Vec::new();
        let mask = Mask::of(text);
        for tag in mask.parts(Part::Tag) {
            // A tag inside code or a link is not a tag.
            if mask.blocks(tag, &[Part::Tag]).is_some() {
                continue;
            }
            if let Some(len) = self.matches(&text[tag.start + 1..tag.end]) {
                cuts.push(tag.start + 1..tag.start + 1 + len);
            }
        }
        for key in ["tags", "tag"] {
            for item in list_items(text, key)? {
                let hash = usize::from(text[item.clone()].starts_with('#'));
                if let Some(len) = self.matches(&text[item.start + hash..item.end]) {
                    cuts.push(item.start + hash..item.start + hash + len);
                }
            }
        }
        if cuts.is_empty() {
            return Ok(None);
        }
        cuts.sort_by_key(|r| r.start);
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for cut in &cuts {
            out.push_str(&text[last..cut.start]);
            out.push_str(to);
            last = cut.end;
        }
        out.push_str(&text[last..]);
        Ok(Some((out, cuts.len())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rename(from: &str, to: &str) -> RenameTag {
        RenameTag {
            from: from.into(),
            to: to.into(),
            scope: Scope::default(),
        }
    }

    #[test]
    fn inline_nested_and_front_matter_tags_are_renamed() {
        let note = "---\ntags: [atlas, work, atlas/q1]\n---\nSee #atlas and #Atlas/q2, not #atlases or `#atlas`.\n";
        let (done, n) = rename("#atlas", "meridian").edit(note).unwrap().unwrap();
        assert_eq!(
            done,
            "---\ntags: [meridian, work, meridian/q1]\n---\nSee #meridian and #meridian/q2, not #atlases or `#atlas`.\n"
        );
        assert_eq!(n, 4);
    }

    #[test]
    fn a_block_list_of_tags_is_renamed_in_place() {
        let note = "---\ntags:\n  - \"#atlas\"\n  - work\n---\nBody\n";
        let (done, _) = rename("atlas", "meridian").edit(note).unwrap().unwrap();
        assert_eq!(done, "---\ntags:\n  - \"#meridian\"\n  - work\n---\nBody\n");
        assert_eq!(rename("nothing", "x").edit(note).unwrap(), None);
    }

    #[test]
    fn tags_in_any_script_match_without_regard_to_case_or_normalization() {
        let note = "---\ntags: [Café, 日本語/メモ]\n---\n#CAFÉ and #cafe\u{301}/menü, #日本語 and #ΣΟΦΙΑ, not #cafés.\n";
        let (done, n) = rename("café", "été").edit(note).unwrap().unwrap();
        assert_eq!(
            done,
            "---\ntags: [été, 日本語/メモ]\n---\n#été and #été/menü, #日本語 and #ΣΟΦΙΑ, not #cafés.\n"
        );
        assert_eq!(n, 3);
        let (done, _) = rename("σοφια", "sophia").edit(note).unwrap().unwrap();
        assert!(done.contains("#sophia, not"), "{done}");
        let (done, _) = rename("日本語", "nihongo").edit(note).unwrap().unwrap();
        assert!(done.contains("[Café, nihongo/メモ]") && done.contains("#nihongo and"), "{done}");
    }

    #[test]
    fn an_empty_quoted_tag_is_no_tag() {
        for note in ["---\ntags: [\"\"]\n---\n#atlas\n", "---\ntags: \"\"\n---\n", "---\ntags:\n  - ''\n---\n"] {
            let renamed = rename("atlas", "meridian").edit(note).unwrap();
            assert_eq!(renamed.is_some(), note.ends_with("#atlas\n"), "{note:?}");
        }
    }

    #[test]
    fn a_rename_to_no_tag_is_refused() {
        assert!(rename("atlas", "two words").check().is_err());
        assert!(rename("atlas", "2026").check().is_err());
        assert!(rename("atlas", "meridian").check().is_ok());
    }
}
