//! Line-level operations on a working buffer (a `ropey` rope), for the
//! line-region log that [`super::legacy`] reads.
//!
//! The rope is built without `unicode_lines`, so like everything else in
//! Redline it ends lines at `\n` only; each line keeps its terminator.

use ropey::Rope;

/// Whether the lines `at..at + expected.len()` of `rope` are exactly `expected`.
pub fn lines_equal(rope: &Rope, at: usize, expected: &[String]) -> bool {
    if at + expected.len() > line_count(rope) {
        return false;
    }
    expected
        .iter()
        .enumerate()
        .all(|(i, line)| rope.line(at + i) == line.as_str())
}

/// The lines `at..at + len`, terminators included.
pub fn lines(rope: &Rope, at: usize, len: usize) -> Vec<String> {
    (at..at + len).map(|i| rope.line(i).to_string()).collect()
}

/// Replaces the lines `at..at + len` with `new` (lines with terminators).
pub fn replace_lines(rope: &mut Rope, at: usize, len: usize, new: &[String]) {
    let start = line_start(rope, at);
    let end = line_start(rope, at + len);
    rope.remove(start..end);
    rope.insert(start, &new.concat());
}

/// The number of lines, counted as `str::split_inclusive('\n')` counts them:
/// an empty text has none, and a final newline does not start another.
pub fn line_count(rope: &Rope) -> usize {
    let lines = rope.len_lines();
    let last_empty = rope.line(lines - 1).len_chars() == 0;
    lines - usize::from(last_empty)
}

fn line_start(rope: &Rope, line: usize) -> usize {
    if line >= rope.len_lines() {
        rope.len_chars()
    } else {
        rope.line_to_char(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_replaces_like_split_inclusive() {
        for text in ["", "a", "a\n", "a\r\nb", "a\nb\n\n", "\u{2028}x\ry\n"] {
            assert_eq!(
                line_count(&Rope::from_str(text)),
                text.split_inclusive('\n').count(),
                "{text:?}"
            );
        }
        let mut rope = Rope::from_str("a\nb\nc");
        assert!(lines_equal(&rope, 1, &["b\n".into(), "c".into()]));
        replace_lines(&mut rope, 1, 1, &["B1\n".into(), "B2\n".into()]);
        assert_eq!(rope.to_string(), "a\nB1\nB2\nc");
        replace_lines(&mut rope, 3, 1, &[]);
        assert_eq!(rope.to_string(), "a\nB1\nB2\n");
        replace_lines(&mut rope, 3, 0, &["end".into()]);
        assert_eq!(rope.to_string(), "a\nB1\nB2\nend");
        assert_eq!(lines(&rope, 0, 2), ["a\n", "B1\n"]);
    }
}
