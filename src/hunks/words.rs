//! Changes below the line: what a line-level hunk removed and inserted, word
//! by word, as byte ranges of its old and new text.
//!
//! A hunk is still the line-level unit the user reviews, but the change log
//! records only the words it touched. So a follow-up that rewrites another
//! part of the same line does not delete, and so does not depend on, the
//! words an earlier hunk put there.
//!
//! Lines first: a line added or removed is added or removed whole, and a
//! block of changed lines is compared word by word only line against line
//! (when as many lines came as went; otherwise it is replaced whole). So a
//! change never borrows another line's end, and the lines it leaves stay
//! lines whatever is decided around them.
//!
//! Within a line, tokens are runs of word characters (letters, digits, `_`),
//! runs of horizontal white space, the line end (`\n`, `\r\n`), and any
//! other character on its own; a link's opening with its target path (`[[`
//! or `](`, up to its heading, alias or end) is one token. So `[[Atlas]]` →
//! `[[Meridian]]` changes the opening and name and keeps the closing, two
//! changes to one link always overlap, and a link's target is never taken
//! for a word of the same spelling elsewhere (a Markdown link's text, say).
//! Concatenated, the tokens are the text, byte for byte.

use std::ops::Range;
use std::time::{Duration, Instant};

use similar::{Algorithm, DiffOp};

/// How long one hunk's word diff may take before it settles for a coarser one.
const DEADLINE: Duration = Duration::from_millis(100);

/// One change: the bytes `old` of the old text became the bytes `new` of
/// the new text. Either may be empty (an insertion, a deletion).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WordEdit {
    /// The bytes removed, in the old text.
    pub old: Range<usize>,
    /// The bytes inserted, in the new text.
    pub new: Range<usize>,
}

/// The token boundaries of `text`: byte offsets, `0` first and `text.len()` last.
fn boundaries(text: &str) -> Vec<usize> {
    let mut cuts = vec![0];
    let mut at = 0;
    while at < text.len() {
        at += link_target(&text[at..]).unwrap_or_else(|| token_len(&text[at..]));
        cuts.push(at);
    }
    cuts
}

/// The length of the link opening and target `rest` starts with (`[[` or
/// `](`, then the path up to a heading, an alias or a title), when the link
/// closes on this line and names a target.
///
/// One token: two changes to one link (a rename, then a move; a conversion
/// to a wikilink, then a move) then touch the same bytes, so one depends on
/// the other, and taking one back can never leave half of each, a link to
/// no note.
pub(crate) fn link_target(rest: &str) -> Option<usize> {
    let (open, close, ends): (&str, &str, &[char]) = if rest.starts_with("[[") {
        ("[[", "]]", &['|', '#', ']'])
    } else if rest.starts_with("](") {
        ("](", ")", &['#', ')', ' '])
    } else {
        return None;
    };
    let line = &rest[open.len()..rest.find('\n').unwrap_or(rest.len())];
    line.find(close)?;
    line.find(ends).filter(|&len| len > 0).map(|len| open.len() + len)
}

/// The length of the token `rest` starts with: a run of word characters or
/// of horizontal white space, a line end, or one other character.
fn token_len(rest: &str) -> usize {
    #[derive(PartialEq)]
    enum Class {
        Word,
        Space,
        Other,
    }
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            Class::Word
        } else if c == ' ' || c == '\t' {
            Class::Space
        } else {
            Class::Other
        }
    };
    if rest.starts_with("\r\n") {
        return 2;
    }
    let mut chars = rest.chars();
    let first = chars.next().expect("not empty");
    match class(first) {
        Class::Other => first.len_utf8(),
        run => {
            first.len_utf8()
                + chars
                    .take_while(|&c| class(c) == run)
                    .map(char::len_utf8)
                    .sum::<usize>()
        }
    }
}

fn tokens<'a>(text: &'a str, cuts: &[usize]) -> Vec<&'a str> {
    cuts.windows(2).map(|w| &text[w[0]..w[1]]).collect()
}

/// The changes that turn `old` into `new`, in order, none empty on both
/// sides, adjacent ones merged: lines first, then words within a line (see
/// the module docs).
pub fn diff(old: &str, new: &str) -> Vec<WordEdit> {
    let (ol, nl) = (line_starts(old), line_starts(new));
    let ops = similar::capture_diff_slices_deadline(
        Algorithm::Myers,
        &tokens(old, &ol),
        &tokens(new, &nl),
        Some(Instant::now() + DEADLINE),
    );
    let mut edits = Vec::new();
    for op in ops {
        let (tag, o, n) = op.as_tag_tuple();
        match tag {
            similar::DiffTag::Equal => {}
            similar::DiffTag::Replace if o.len() == n.len() => {
                for (i, j) in o.zip(n) {
                    let (from, to) = (ol[i]..ol[i + 1], nl[j]..nl[j + 1]);
                    for e in in_line(&old[from.clone()], &new[to.clone()]) {
                        push(
                            &mut edits,
                            WordEdit {
                                old: from.start + e.old.start..from.start + e.old.end,
                                new: to.start + e.new.start..to.start + e.new.end,
                            },
                        );
                    }
                }
            }
            _ => push(
                &mut edits,
                WordEdit {
                    old: ol[o.start]..ol[o.end],
                    new: nl[n.start]..nl[n.end],
                },
            ),
        }
    }
    edits
}

/// Adds `edit` to `edits`, merged with the last when they touch.
fn push(edits: &mut Vec<WordEdit>, edit: WordEdit) {
    match edits.last_mut() {
        Some(last) if last.old.end == edit.old.start && last.new.end == edit.new.start => {
            last.old.end = edit.old.end;
            last.new.end = edit.new.end;
        }
        _ => edits.push(edit),
    }
}

/// The byte offset of each line start of `text` (as `split_inclusive('\n')`
/// counts lines), and its length last.
pub(crate) fn line_starts(text: &str) -> Vec<usize> {
    let mut cuts = vec![0];
    cuts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    if *cuts.last().expect("not empty") != text.len() {
        cuts.push(text.len());
    }
    cuts
}

/// The word-level changes that turn the line `old` into the line `new`.
fn in_line(old: &str, new: &str) -> Vec<WordEdit> {
    if old == new {
        return Vec::new();
    }
    let (ob, nb) = (boundaries(old), boundaries(new));
    let (ot, nt) = (tokens(old, &ob), tokens(new, &nb));
    let ops = similar::capture_diff_slices_deadline(
        Algorithm::Myers,
        &ot,
        &nt,
        Some(Instant::now() + DEADLINE),
    );
    let mut edits: Vec<WordEdit> = Vec::new();
    for op in ops {
        if matches!(op, DiffOp::Equal { .. }) {
            continue;
        }
        let (_, o, n) = op.as_tag_tuple();
        push(
            &mut edits,
            WordEdit {
                old: ob[o.start]..ob[o.end],
                new: nb[n.start]..nb[n.end],
            },
        );
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(old: &str, new: &str, edits: &[WordEdit]) -> String {
        let mut out = String::new();
        let mut at = 0;
        for e in edits {
            out.push_str(&old[at..e.old.start]);
            out.push_str(&new[e.new.clone()]);
            at = e.old.end;
        }
        out.push_str(&old[at..]);
        out
    }

    #[test]
    fn a_renamed_word_is_the_only_change() {
        let old = "Atlas 2.0 ships in the third quarter.\n";
        let new = "Meridian 2.0 ships in the third quarter.\n";
        let edits = diff(old, new);
        assert_eq!(edits.len(), 1);
        assert_eq!(&old[edits[0].old.clone()], "Atlas");
        assert_eq!(&new[edits[0].new.clone()], "Meridian");
        let link = diff("see [[Atlas]] now", "see [[Meridian]] now");
        assert_eq!(link.len(), 1);
        assert_eq!(link[0].old, 4..11);
    }

    #[test]
    fn line_ends_and_multibyte_text_stay_whole() {
        for (old, new) in [
            ("a\r\nb\n", "a\nb\r\n"),
            ("héllo wörld\n", "héllo wörld!\n"),
            ("", "new line\n"),
            ("gone\n", ""),
            ("x\r\n", "x\r\ny\r\n"),
            ("日本語 text", "日本 text"),
        ] {
            let edits = diff(old, new);
            assert_eq!(apply(old, new, &edits), new, "{old:?} -> {new:?}");
            for e in &edits {
                assert!(!(e.old.is_empty() && e.new.is_empty()));
            }
        }
        assert_eq!(boundaries("a\r\nb"), [0, 1, 3, 4]);
        // A line added is added whole, never glued to another's end.
        let edits = diff("x\r\ny\n", "x\r\nc\r\ny\n");
        assert_eq!(
            edits,
            [WordEdit {
                old: 3..3,
                new: 3..6
            }]
        );
    }

    #[test]
    fn a_link_target_changes_whole() {
        // A move's update after a rename: the same bytes, so one follows the other.
        let moved = diff("see [[Beta]] now", "see [[Beta 1]] now");
        assert_eq!(moved.len(), 1);
        assert_eq!(moved[0].old, 4..10);
        let md = diff("[x](Notes/Beta.md) y", "[x](Archive/Beta.md) y");
        assert_eq!(md.len(), 1);
        assert_eq!(md[0].old, 2..17);
        // Unclosed on its line: words as ever.
        assert_eq!(boundaries("[[a b\n]]"), [0, 1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(boundaries("[[a b]]"), [0, 5, 6, 7]);
        // The path only: an alias or a heading is words as ever.
        assert_eq!(boundaries("[[a b|c d]]"), [0, 5, 6, 7, 8, 9, 10, 11]);
        assert_eq!(boundaries("[c](a%20b.md#h)"), [0, 1, 2, 12, 13, 14, 15]);
        // A wikilink's target is not a Markdown link's text of the same
        // spelling: converting one to the other replaces the link whole.
        let converted = diff("[Delta](Delta.md)", "[[Delta]]");
        assert_eq!(converted.len(), 1, "{converted:?}");
        assert_eq!((converted[0].old.clone(), converted[0].new.clone()), (0..17, 0..9));
    }
}
