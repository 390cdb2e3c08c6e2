//! A file as lines that keep their own terminators, so that every line an edit
//! does not touch goes back to disk byte for byte: LF, CRLF, mixed endings, a
//! BOM and a missing final newline all survive.

use crate::project::text::BOM;

/// A text split into lines, each with its terminator (`\n`, `\r\n`, or none
/// for an unterminated last line). A leading BOM is kept apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lines<'a> {
    /// `"\u{feff}"` or `""`.
    pub bom: &'a str,
    /// The lines, terminators included.
    pub lines: Vec<&'a str>,
}

impl<'a> Lines<'a> {
    /// Splits `text` into lines.
    pub fn new(text: &'a str) -> Lines<'a> {
        let (bom, body) = match text.strip_prefix(BOM) {
            Some(body) => (BOM, body),
            None => ("", text),
        };
        Lines {
            bom,
            lines: body.split_inclusive('\n').collect(),
        }
    }

    /// The number of lines.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether the last line ends with a terminator (true for an empty text).
    pub fn ends_with_newline(&self) -> bool {
        self.lines.last().is_none_or(|l| l.ends_with('\n'))
    }

    /// The terminator a new line written at `index` should get: the one of the
    /// line there, else of the line before, else the file's most common one.
    pub fn eol_at(&self, index: usize) -> &'static str {
        let of = |line: &str| {
            if line.ends_with("\r\n") {
                Some("\r\n")
            } else if line.ends_with('\n') {
                Some("\n")
            } else {
                None
            }
        };
        let near = self.lines.get(index).and_then(|l| of(l)).or_else(|| {
            index
                .checked_sub(1)
                .and_then(|i| self.lines.get(i))
                .and_then(|l| of(l))
        });
        near.unwrap_or_else(|| {
            let crlf = self.lines.iter().filter(|l| l.ends_with("\r\n")).count();
            let lf = self.lines.iter().filter(|l| l.ends_with('\n')).count() - crlf;
            if crlf > lf { "\r\n" } else { "\n" }
        })
    }
}

/// A line's text without its terminator.
pub fn content(line: &str) -> &str {
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}

/// `sha256:` over the contents of `lines`, each followed by `\n`: the hash of
/// a line range, independent of how the lines end.
pub fn range_hash<'s>(lines: impl IntoIterator<Item = &'s str>) -> String {
    let mut joined = String::new();
    for line in lines {
        joined.push_str(content(line));
        joined.push('\n');
    }
    crate::project::text::content_hash(joined.as_bytes())
}

/// The lines of `text` as an edit means them: `"a\nb"` and `"a\nb\n"` are both
/// two lines, `""` is none, `"\n"` is one empty line.
pub fn edit_lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').map(content).collect()
}

/// Whether `a` and `b` have the same lines, however they end them: a
/// change from one to the other is no change to review, as a note keeps
/// its own line endings and final newline.
pub fn same_lines(a: &str, b: &str) -> bool {
    edit_lines(a) == edit_lines(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_the_same_however_they_end() {
        assert!(same_lines("a\r\nb\r\n", "a\nb\n"));
        assert!(same_lines("a\nb\n", "a\nb"));
        assert!(!same_lines("a\nb\n", "a\nb\n\n"), "a blank line is a line");
        assert!(!same_lines("a\nb\n", "a\nB\n"));
    }

    #[test]
    fn lines_keep_terminators_and_bom() {
        let lines = Lines::new("\u{feff}a\r\nb\nc");
        assert_eq!(lines.bom, BOM);
        assert_eq!(lines.lines, ["a\r\n", "b\n", "c"]);
        assert!(!lines.ends_with_newline());
        assert_eq!(lines.eol_at(0), "\r\n");
        assert_eq!(lines.eol_at(2), "\n", "c has none, so b's");
        assert_eq!(Lines::new("x\r\ny\r\n").eol_at(2), "\r\n");
        assert!(Lines::new("").ends_with_newline());
    }

    #[test]
    fn range_hash_ignores_line_endings() {
        assert_eq!(range_hash(["a\r\n", "b"]), range_hash(["a\n", "b\n"]));
        assert_ne!(range_hash(["a\n"]), range_hash(["a \n"]));
    }

    #[test]
    fn edit_lines_reads_text_as_lines() {
        assert_eq!(edit_lines("a\nb"), ["a", "b"]);
        assert_eq!(edit_lines("a\r\nb\n"), ["a", "b"]);
        assert!(edit_lines("").is_empty());
        assert_eq!(edit_lines("\n"), [""]);
    }
}
