//! Vault paths as links see them: `/`-separated, relative to the vault's
//! root, compared without regard to case where Obsidian does.

use std::borrow::Cow;

use unicode_normalization::UnicodeNormalization;

/// The folder of `path`: `""` at the root.
pub(crate) fn folder(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

/// The last component of `path`.
pub(crate) fn file_name(path: &str) -> &str {
    path.rfind('/').map_or(path, |i| &path[i + 1..])
}

/// Whether `path` ends with `.md`, in any case.
pub(crate) fn ends_with_md(path: &str) -> bool {
    path.len() >= 3
        && path.is_char_boundary(path.len() - 3)
        && path[path.len() - 3..].eq_ignore_ascii_case(".md")
}

/// `path` without a final `.md`.
pub(crate) fn strip_md(path: &str) -> &str {
    if ends_with_md(path) {
        &path[..path.len() - 3]
    } else {
        path
    }
}

/// The name a file is looked up by: its last component, lower-cased, less
/// `.md`. A file answers a link target only when both have the same key
/// (see [`matches`]), which is what lets the index find the links that a
/// file's arrival or departure can redirect.
pub(crate) fn key(path: &str) -> String {
    lower(strip_md(file_name(path)))
}

/// `s` composed (NFC) and lower-cased one character at a time, as Obsidian
/// compares names: a file system may hand back `Café` decomposed (NFD, as
/// macOS writes it) while a link spells it composed, and both name one note.
/// Unlike `str::to_lowercase`, a part lower-cases the same alone as within
/// the whole (no final sigma), which keys and matches rely on.
pub(crate) fn lower(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    s.nfc().flat_map(char::to_lowercase).collect()
}

/// Whether the file at `file` is what `target` (lower-cased) names, case
/// aside: the same path, or the path with `.md` added to a target without it.
pub(crate) fn matches(file: &str, target: &str) -> bool {
    // Most paths are ASCII: compared in place, nothing allocated.
    if file.is_ascii() {
        matches_as(file, target, str::eq_ignore_ascii_case)
    } else {
        matches_as(&lower(file), target, |a, b| a == b)
    }
}

fn matches_as(file: &str, target: &str, same: fn(&str, &str) -> bool) -> bool {
    same(file, target)
        || (!ends_with_md(target)
            && file.len() == target.len() + 3
            && ends_with_md(file)
            && file.is_char_boundary(target.len())
            && same(&file[..target.len()], target))
}

/// Whether the file at `file` ends with the components of `target`
/// (lower-cased), case aside, `.md` added as in [`matches`].
pub(crate) fn matches_suffix(file: &str, target: &str) -> bool {
    let file = if file.is_ascii() {
        Cow::Borrowed(file)
    } else {
        Cow::Owned(lower(file))
    };
    let tail = |len: usize| {
        file.len() > len
            && file.as_bytes()[file.len() - len - 1] == b'/'
            && matches(&file[file.len() - len..], target)
    };
    tail(target.len()) || (!ends_with_md(target) && tail(target.len() + 3))
}

/// `rel` taken from `base` (a folder), with `.` and `..` worked out; `None`
/// when it climbs above the root or names no file (ends in `/`, `.`, `..`).
pub(crate) fn join(base: &str, rel: &str) -> Option<String> {
    let last = file_name(rel);
    if last.is_empty() || last == "." || last == ".." {
        return None;
    }
    let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            _ => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// The path from folder `from` to `to` (a vault path): `../` for each
/// folder to climb, then the rest; never starts with `./`.
pub(crate) fn relative(from: &str, to: &str) -> String {
    let from: Vec<&str> = from.split('/').filter(|p| !p.is_empty()).collect();
    let to_parts: Vec<&str> = to.split('/').collect();
    let (to_folders, _) = to_parts.split_at(to_parts.len() - 1);
    let common = from
        .iter()
        .zip(to_folders)
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = "../".repeat(from.len() - common);
    out.push_str(&to_parts[common..].join("/"));
    out
}

/// Whether `s` holds a `%XX` escape.
pub(crate) fn is_encoded(s: &str) -> bool {
    escapes(s).next().is_some()
}

/// Whether `s` holds a `%XX` escape of a byte outside ASCII.
pub(crate) fn encodes_non_ascii(s: &str) -> bool {
    escapes(s).any(|b| b >= 0x80)
}

fn escapes(s: &str) -> impl Iterator<Item = u8> + '_ {
    s.as_bytes()
        .windows(3)
        .filter(|w| w[0] == b'%')
        .filter_map(|w| Some((hex(w[1])? << 4) | hex(w[2])?))
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// `s` with `%XX` escapes decoded; invalid UTF-8 comes out as U+FFFD.
pub(crate) fn percent_decode(s: &str) -> Cow<'_, str> {
    if !s.contains('%') {
        return Cow::Borrowed(s);
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = match bytes[i..] {
            [b'%', hi, lo, ..] => hex(hi).zip(hex(lo)).map(|(h, l)| (h << 4) | l),
            _ => None,
        };
        match escaped {
            Some(b) => {
                out.push(b);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

/// `s` encoded for a Markdown link destination: what would end it or be
/// read as an escape (space, `%`, parentheses, angle brackets, `#`, `\`,
/// controls) as `%XX`, and every byte outside ASCII too when `non_ascii`.
pub(crate) fn percent_encode(s: &str, non_ascii: bool) -> Cow<'_, str> {
    let special = |b: u8| {
        matches!(b, b' ' | b'%' | b'(' | b')' | b'<' | b'>' | b'#' | b'\\')
            || b.is_ascii_control()
            || (non_ascii && b >= 0x80)
    };
    if !s.bytes().any(special) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for (i, c) in s.char_indices() {
        if c.is_ascii() && !special(c as u8) || !c.is_ascii() && !non_ascii {
            out.push(c);
        } else {
            for b in s[i..i + c.len_utf8()].bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    Cow::Owned(out)
}

/// `s` with CommonMark's backslash escapes of ASCII punctuation undone.
pub(crate) fn unescape_backslashes(s: &str) -> Cow<'_, str> {
    if !s.contains('\\') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match chars.peek() {
            Some(&n) if c == '\\' && n.is_ascii_punctuation() => {
                out.push(n);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_and_relative_are_inverse_inside_the_root() {
        assert_eq!(join("A/B", "../C/x.md").as_deref(), Some("A/C/x.md"));
        assert_eq!(join("", "./x.md").as_deref(), Some("x.md"));
        assert_eq!(join("A", "../../x.md"), None);
        assert_eq!(join("A", "x/.."), None);
        assert_eq!(relative("A/B", "A/C/x.md"), "../C/x.md");
        assert_eq!(relative("", "A/x.md"), "A/x.md");
        assert_eq!(relative("A/B", "x.md"), "../../x.md");
        assert_eq!(relative("A", "A/x.md"), "x.md");
        for (from, to) in [("A/B", "A/C/x.md"), ("", "x.md"), ("Q", "A/B/c.png")] {
            assert_eq!(join(from, &relative(from, to)).as_deref(), Some(to));
        }
    }

    #[test]
    fn matching_adds_md_only_where_it_is_missing() {
        assert!(matches("atlas.md", "atlas"));
        assert!(matches("atlas.md", "atlas.md"));
        assert!(matches("atlas", "atlas"));
        assert!(!matches("atlas.md.md", "atlas.md"));
        assert!(matches("chart.png.md", "chart.png"));
        assert!(matches_suffix("projects/atlas/plan.md", "atlas/plan"));
        assert!(matches("Atlas.MD", "atlas") && matches("ÉTÉ.md", "été"));
        assert!(matches_suffix("Projects/Atlas/Plan.md", "atlas/plan"));
        assert!(matches_suffix("Dossier/Été/Ça.md", "été/ça"));
        assert!(!matches_suffix("projects/xatlas/plan.md", "atlas/plan"));
        assert!(!matches_suffix("atlas/plan.md", "atlas/plan"));
        assert_eq!(key("Projects/Atlas.MD"), "atlas");
        assert_eq!(key("img/Chart.png"), "chart.png");
    }

    #[test]
    fn percent_coding_round_trips() {
        assert_eq!(percent_decode("Web%20Site.md"), "Web Site.md");
        assert_eq!(percent_decode("100%.md"), "100%.md");
        assert_eq!(percent_encode("a b(1)%.md", false), "a%20b%281%29%25.md");
        assert_eq!(percent_encode("café.md", false), "café.md");
        assert_eq!(percent_encode("café.md", true), "caf%C3%A9.md");
        assert!(encodes_non_ascii("caf%C3%A9.md") && !encodes_non_ascii("a%20b"));
        for s in ["a b(1)%.md", "x/y z.md", "café 2.md"] {
            assert_eq!(percent_decode(&percent_encode(s, true)), s);
        }
        assert_eq!(unescape_backslashes(r"a\(b\).md"), "a(b).md");
    }
}
