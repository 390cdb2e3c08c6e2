//! What counts as a text file, how its lines are numbered, and how it is hashed.
//!
//! Lines are numbered from 1 and end at `\n`; the terminator (`\n` or `\r\n`)
//! is not part of a line's text. A final newline does not start a new line, so
//! `"a\nb\n"` and `"a\nb"` both have two lines and `""` has none. Search, read
//! and the edit format all use this numbering.

use sha2::{Digest, Sha256};

/// The UTF-8 byte order mark.
pub const BOM: &str = "\u{feff}";

/// Why a file's bytes are not text Redline will read or edit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotText {
    /// The bytes hold a NUL, the mark of a binary file (as ripgrep decides).
    Binary,
    /// The bytes are not UTF-8; `valid_up_to` is the offset of the first bad byte.
    NotUtf8 {
        /// Length of the longest valid UTF-8 prefix.
        valid_up_to: usize,
    },
}

/// Decodes `bytes` as text: UTF-8 with no NUL byte.
pub fn decode(bytes: &[u8]) -> Result<&str, NotText> {
    if bytes.contains(&0) {
        return Err(NotText::Binary);
    }
    std::str::from_utf8(bytes).map_err(|e| NotText::NotUtf8 {
        valid_up_to: e.valid_up_to(),
    })
}

/// The `sha256:<hex>` digest of `bytes`, the form every `*_hash` field uses.
pub fn content_hash(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in digest {
        out.push(char::from(b"0123456789abcdef"[usize::from(byte >> 4)]));
        out.push(char::from(b"0123456789abcdef"[usize::from(byte & 15)]));
    }
    out
}

/// The lines of `text` without their terminators, numbered from 1 by position.
/// A leading BOM is not part of line 1.
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    let text = text.strip_prefix(BOM).unwrap_or(text);
    text.split_inclusive('\n').map(strip_terminator)
}

/// The same as [`lines`] for bytes that need not be UTF-8 (search snippets).
pub fn byte_lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let bytes = bytes.strip_prefix(BOM.as_bytes()).unwrap_or(bytes);
    bytes.split_inclusive(|&b| b == b'\n').map(|line| {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        line.strip_suffix(b"\r").unwrap_or(line)
    })
}

fn strip_terminator(line: &str) -> &str {
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}

/// Cuts `line` to at most `max` bytes on a character boundary, marking the cut.
pub fn clip_line(line: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if line.len() <= max {
        return line.into();
    }
    let mut end = max;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}… [line cut at {end} of {} bytes]",
        &line[..end],
        line.len()
    )
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_ignores_the_final_newline_and_terminators() {
        assert_eq!(lines("").count(), 0);
        assert_eq!(lines("a").collect::<Vec<_>>(), ["a"]);
        assert_eq!(lines("a\nb\n").collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(lines("a\r\nb\r\n\n").collect::<Vec<_>>(), ["a", "b", ""]);
        assert_eq!(lines("\u{feff}x\r\ny").collect::<Vec<_>>(), ["x", "y"]);
        assert_eq!(
            byte_lines(b"\xef\xbb\xbfx\r\n\xff\n").collect::<Vec<_>>(),
            [&b"x"[..], &b"\xff"[..]]
        );
    }

    #[test]
    fn decode_refuses_nul_and_bad_utf8() {
        assert_eq!(decode(b"ok\n"), Ok("ok\n"));
        assert_eq!(decode(b"a\0b"), Err(NotText::Binary));
        assert_eq!(decode(b"caf\xe9"), Err(NotText::NotUtf8 { valid_up_to: 3 }));
    }

    #[test]
    fn hash_is_prefixed_lowercase_sha256() {
        assert_eq!(
            content_hash(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn clip_respects_char_boundaries() {
        assert_eq!(clip_line("héllo", 10), "héllo");
        assert!(clip_line("héllo", 2).starts_with("h…"));
    }
}
