//! `replace_text`: one text (or regex) replaced across a scope, in prose
//! only unless asked otherwise.

use std::collections::BTreeMap;
use std::ops::Range;

use regex::{Regex, RegexBuilder};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::prose::{Mask, Part};
use super::scope::Scope;
use super::ExpandError;

/// Replace a text (or a regex's matches) in every note of a scope.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct ReplaceText {
    /// What to find: literal text, or a regex (Rust syntax) when `regex`.
    pub find: String,
    /// What to put instead. With `regex`, `$1` or `${name}` insert a
    /// capture group (`$$` is a `$`).
    pub replace: String,
    /// Whether `find` is a regex. Default false.
    #[serde(default)]
    pub regex: bool,
    /// Only whole words: not inside a longer word. Default false.
    #[serde(default)]
    pub whole_word: bool,
    /// Whether case matters. Default true.
    #[serde(default = "yes")]
    pub case_sensitive: bool,
    /// The notes it reaches; default every Markdown note.
    #[serde(default)]
    pub scope: Scope,
    /// Parts of a note it may change besides prose (`front_matter`, `code`,
    /// `url`, `link_target`, `tag`); default none: prose only.
    #[serde(default)]
    pub include: Vec<Part>,
}

fn yes() -> bool {
    true
}

/// A compiled [`ReplaceText`].
pub(crate) struct Replacer<'a> {
    op: &'a ReplaceText,
    regex: Regex,
}

/// What a replacement did to one note.
#[derive(Debug, Default)]
pub(crate) struct Replaced {
    /// The note's new text.
    pub text: String,
    /// The byte ranges of the old text that were replaced.
    pub at: Vec<Range<usize>>,
    /// Occurrences left alone, by the part they were in.
    pub left: BTreeMap<Part, usize>,
}

impl<'a> Replacer<'a> {
    /// Compiles `op`, refusing an empty or invalid `find` with a message
    /// that says what to fix.
    pub fn new(op: &'a ReplaceText, size_limit: usize) -> Result<Replacer<'a>, ExpandError> {
        if op.find.is_empty() {
            return Err(ExpandError::Invalid("replace_text: `find` is empty".into()));
        }
        let pattern = if op.regex {
            op.find.clone()
        } else {
            regex::escape(&op.find)
        };
        let pattern = if op.whole_word {
            format!(r"\b(?:{pattern})\b")
        } else {
            pattern
        };
        let regex = RegexBuilder::new(&pattern)
            .case_insensitive(!op.case_sensitive)
            .size_limit(size_limit)
            .build()
            .map_err(|e| ExpandError::Invalid(format!("replace_text: `find` is not a valid regex: {e}")))?;
        Ok(Replacer { op, regex })
    }

    /// The pattern a line search can narrow the notes with (`None` when it
    /// may match across lines), and whether it ignores case.
    pub fn search_pattern(&self) -> Option<(String, bool)> {
        let pattern = self.regex.as_str();
        (!pattern.contains("\\n") && !self.op.find.contains('\n') && !pattern.contains("(?s"))
            .then(|| (pattern.to_owned(), !self.op.case_sensitive))
    }

    /// Replaces every occurrence in `text` that the note's parts allow.
    pub fn apply(&self, text: &str) -> Replaced {
        let mut mask: Option<Mask> = None;
        let mut out = Replaced::default();
        let mut last = 0;
        let mut new = String::with_capacity(text.len());
        for caps in self.regex.captures_iter(text) {
            let found = caps.get(0).expect("the whole match");
            if found.as_str().is_empty() {
                continue;
            }
            let range = found.range();
            let mask = mask.get_or_insert_with(|| Mask::of(text));
            if let Some(part) = mask.blocks(&range, &self.op.include) {
                *out.left.entry(part).or_default() += 1;
                continue;
            }
            let mut with = String::new();
            if self.op.regex {
                caps.expand(&self.op.replace, &mut with);
            } else {
                with.push_str(&self.op.replace);
            }
            if with == found.as_str() {
                continue;
            }
            new.push_str(&text[last..range.start]);
            new.push_str(&with);
            last = range.end;
            out.at.push(range);
        }
        new.push_str(&text[last..]);
        out.text = new;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replace(find: &str, with: &str, text: &str, tune: impl FnOnce(&mut ReplaceText)) -> Replaced {
        let mut op = ReplaceText {
            find: find.into(),
            replace: with.into(),
            regex: false,
            whole_word: false,
            case_sensitive: true,
            scope: Scope::default(),
            include: Vec::new(),
        };
        tune(&mut op);
        Replacer::new(&op, 1 << 20).unwrap().apply(text)
    }

    #[test]
    fn prose_changes_and_the_rest_is_counted() {
        let text = "---\nproject: Atlas\n---\nAtlas ships. `Atlas` [[Atlas|Atlas notes]] https://x.io/Atlas #Atlas\n";
        let done = replace("Atlas", "Meridian", text, |_| {});
        assert_eq!(
            done.text,
            "---\nproject: Atlas\n---\nMeridian ships. `Atlas` [[Atlas|Meridian notes]] https://x.io/Atlas #Atlas\n"
        );
        assert_eq!(
            done.left,
            BTreeMap::from([
                (Part::FrontMatter, 1),
                (Part::Code, 1),
                (Part::Url, 1),
                (Part::LinkTarget, 1),
                (Part::Tag, 1)
            ])
        );
    }

    #[test]
    fn included_parts_change_too() {
        let text = "---\nproject: Atlas\n---\n`Atlas`\n";
        let done = replace("Atlas", "Meridian", text, |op| op.include = vec![Part::FrontMatter, Part::Code]);
        assert_eq!(done.text, "---\nproject: Meridian\n---\n`Meridian`\n");
    }

    #[test]
    fn a_regex_with_captures_reformats_dates() {
        let text = "Met on 11/27/2026 and 1/2/2027.\n";
        let done = replace(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b", "$3-$1-$2", text, |op| op.regex = true);
        assert_eq!(done.text, "Met on 2026-11-27 and 2027-1-2.\n");
        assert_eq!(done.at.len(), 2);
    }

    #[test]
    fn whole_words_and_case() {
        let text = "Atlas, atlas and Atlases.\n";
        assert_eq!(replace("atlas", "X", text, |op| op.whole_word = true).text, "Atlas, X and Atlases.\n");
        assert_eq!(
            replace("atlas", "X", text, |op| {
                op.whole_word = true;
                op.case_sensitive = false;
            })
            .text,
            "X, X and Atlases.\n"
        );
    }

    #[test]
    fn bad_patterns_are_explained() {
        let op = ReplaceText {
            find: "(".into(),
            replace: String::new(),
            regex: true,
            whole_word: false,
            case_sensitive: true,
            scope: Scope::default(),
            include: Vec::new(),
        };
        let err = Replacer::new(&op, 1 << 20).err().unwrap().to_string();
        assert!(err.contains("not a valid regex"), "{err}");
    }
}
