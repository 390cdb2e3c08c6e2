//! An agent's string replacements (`old_string` → `new_string`), done as
//! the agent's own tool does them, and the one replacement that leaves a
//! decided text instead. Claude Code matches against the file with `\r\n`
//! read as `\n` and writes a CRLF file back with CRLF; both directions work
//! on the text as the agent reads it.

use std::borrow::Cow;

use super::{HookError, excerpt};

/// How a file ends its lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endings {
    /// `\n`.
    Lf,
    /// `\r\n`.
    Crlf,
}

impl Endings {
    /// `Crlf` when most of the text's line ends are `\r\n`.
    pub fn of(text: &str) -> Endings {
        let crlf = text.matches("\r\n").count();
        let lf = text.matches('\n').count() - crlf;
        if crlf > lf {
            Endings::Crlf
        } else {
            Endings::Lf
        }
    }

    /// `text` as the agent reads it: `\r\n` read as `\n` in a CRLF file.
    pub fn read(self, text: &str) -> Cow<'_, str> {
        match self {
            Endings::Crlf if text.contains("\r\n") => Cow::Owned(text.replace("\r\n", "\n")),
            _ => Cow::Borrowed(text),
        }
    }

    /// `text`, as the agent reads it, as the file will hold it.
    pub fn write(self, text: &str) -> Cow<'_, str> {
        match self {
            Endings::Crlf if text.contains('\n') => Cow::Owned(text.replace('\n', "\r\n")),
            _ => Cow::Borrowed(text),
        }
    }
}

/// One replacement of an edit call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replacement {
    /// The text replaced; empty only to create a file.
    pub old: String,
    /// The text put in its place.
    pub new: String,
    /// Every occurrence, not only the one there must be.
    pub all: bool,
}

/// `text` (as the file holds it) with `edits` made in order, as the agent's
/// tool makes them: each `old` must be there, once unless `all`. An empty
/// `old` on an empty (or new) file writes `new`.
pub fn apply(text: &str, edits: &[Replacement]) -> Result<String, HookError> {
    let endings = Endings::of(text);
    let mut now = endings.read(text).into_owned();
    for edit in edits {
        if edit.old.is_empty() {
            if !now.is_empty() {
                return Err(HookError::NotFound(String::new()));
            }
            now.clone_from(&edit.new);
            continue;
        }
        match now.matches(edit.old.as_str()).count() {
            0 => return Err(HookError::NotFound(excerpt(&edit.old))),
            n if n > 1 && !edit.all => return Err(HookError::NotUnique(excerpt(&edit.old), n)),
            _ if edit.all => now = now.replace(edit.old.as_str(), &edit.new),
            _ => now = now.replacen(edit.old.as_str(), &edit.new, 1),
        }
    }
    Ok(endings.write(&now).into_owned())
}

/// The one replacement that turns `text` into `decided` (both as the file
/// holds them) when the agent's tool makes it: the lines that differ,
/// widened a line at a time until `old` occurs once in `text`. `None` when
/// they are the same, or `text` is empty (no `old` can name a place in it).
pub fn replacement(text: &str, decided: &str) -> Option<Replacement> {
    let endings = Endings::of(text);
    let (text, decided) = (endings.read(text), endings.read(decided));
    let (text, decided) = (text.as_ref(), decided.as_ref());
    if text == decided || text.is_empty() {
        return None;
    }
    let head = common_prefix(text, decided);
    let tail = common_suffix(&text[head..], &decided[head..]);
    // The lines that differ, whole.
    let mut start = line_start(text, head);
    let mut end = line_end(text, text.len() - tail);
    while text[start..end].is_empty() || text.matches(&text[start..end]).count() > 1 {
        if start == 0 && end == text.len() {
            break;
        }
        start = line_start(text, start.saturating_sub(1));
        end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
    }
    let decided_end = decided.len() - (text.len() - end);
    Some(Replacement {
        old: text[start..end].to_owned(),
        new: decided[start..decided_end].to_owned(),
        all: false,
    })
}

/// The bytes `a` and `b` begin with alike, on a character boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    a.char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or(a.len().min(b.len()), |((i, _), _)| i)
}

/// The bytes `a` and `b` end with alike, on a character boundary.
fn common_suffix(a: &str, b: &str) -> usize {
    a.char_indices()
        .rev()
        .zip(b.chars().rev())
        .find(|((_, x), y)| x != y)
        .map_or(a.len().min(b.len()), |((i, x), _)| {
            a.len() - i - x.len_utf8()
        })
}

/// Where the line holding byte `at` begins.
fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// Where the line holding byte `at` ends, its `\n` included; `at` itself
/// when it begins a line (the lines before it are the ones that differ).
fn line_end(text: &str, at: usize) -> usize {
    if at == 0 || text.as_bytes()[at - 1] == b'\n' {
        return at;
    }
    text[at..].find('\n').map_or(text.len(), |i| at + i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(old: &str, new: &str) -> Replacement {
        Replacement {
            old: old.into(),
            new: new.into(),
            all: false,
        }
    }

    /// `replacement(text, decided)`, made as the agent makes it, leaves `decided`.
    fn round_trip(text: &str, decided: &str) -> Replacement {
        let r = replacement(text, decided).expect("a replacement");
        assert_eq!(
            apply(text, std::slice::from_ref(&r)).unwrap(),
            decided,
            "{r:?}"
        );
        r
    }

    #[test]
    fn edits_are_made_as_the_agent_makes_them() {
        assert_eq!(apply("a\nb\n", &[edit("b", "c")]).unwrap(), "a\nc\n");
        let both = [edit("a", "x"), edit("x\nb", "y")];
        assert_eq!(apply("a\nb\n", &both).unwrap(), "y\n", "in order");
        let all = Replacement {
            all: true,
            ..edit("a", "b")
        };
        assert_eq!(apply("a a\n", &[all]).unwrap(), "b b\n");
        assert!(matches!(
            apply("a a\n", &[edit("a", "b")]),
            Err(HookError::NotUnique(_, 2))
        ));
        assert!(matches!(
            apply("a\n", &[edit("z", "b")]),
            Err(HookError::NotFound(_))
        ));
        assert_eq!(apply("", &[edit("", "# New\n")]).unwrap(), "# New\n");
    }

    #[test]
    fn crlf_is_matched_as_lf_and_written_back_as_crlf() {
        let text = "# A\r\n\r\nStatus: draft\r\nEnd\r\n";
        let after = apply(
            text,
            &[edit("Status: draft\nEnd", "Status: final\nMore\nEnd")],
        )
        .unwrap();
        assert_eq!(after, "# A\r\n\r\nStatus: final\r\nMore\r\nEnd\r\n");
        let back = round_trip(text, "# A\r\n\r\nStatus: kept\r\nEnd\r\n");
        assert_eq!(
            (back.old.as_str(), back.new.as_str()),
            ("Status: draft\n", "Status: kept\n")
        );
    }

    #[test]
    fn the_replacement_names_whole_lines_found_once() {
        let r = round_trip("a\nb\nc\n", "a\nB\nc\n");
        assert_eq!((r.old.as_str(), r.new.as_str()), ("b\n", "B\n"));
        // "x" is on two lines: widened until it names one place.
        let r = round_trip("x\n1\nx\n2\n", "x\n1\ny\n2\n");
        assert_eq!(r.old, "1\nx\n2\n");
        // Lines inserted, lines taken out, at the start and the end.
        round_trip("a\nb\n", "a\nnew\nb\n");
        round_trip("a\nb\nc\n", "a\nc\n");
        round_trip("a\nb\n", "z\na\nb\n");
        round_trip("a\nb\n", "a\nb\nz\n");
        round_trip("a\nb\n", "a\n");
        round_trip("only\n", "");
        // A missing final newline, kept or given.
        round_trip("a\nlast", "a\nlast, changed");
        round_trip("a\nlast", "a\nlast\n");
        round_trip("same\nsame\nsame\n", "same\nsame\n");
        round_trip("é\nü\n", "é\nö\n");
        assert_eq!(replacement("a\n", "a\n"), None);
        assert_eq!(replacement("", "new\n"), None);
    }
}
