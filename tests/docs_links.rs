//! The README and the pages of `docs/` hold together: every relative link or
//! image points at a file that exists, every `#anchor` names a heading of the
//! page it points into (GitHub's anchor rules), the README stays short, and
//! it links every page of `docs/`. Links inside fenced code blocks and inline
//! code spans are not links and are left alone.
//!
//! Standard library only, so it also runs on its own:
//! `rustc --edition 2024 --test tests/docs_links.rs -o /tmp/docs_links && /tmp/docs_links`
//! from the repository root.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Component, Path, PathBuf};

/// Longest the README may be, in lines.
const README_MAX_LINES: usize = 200;

fn root() -> PathBuf {
    PathBuf::from(option_env!("CARGO_MANIFEST_DIR").unwrap_or("."))
}

/// README.md and every `docs/*.md`, sorted.
fn pages() -> Vec<PathBuf> {
    let root = root();
    let mut pages = vec![root.join("README.md")];
    pages.extend(doc_pages());
    pages
}

/// Every `docs/*.md`, sorted.
fn doc_pages() -> Vec<PathBuf> {
    let dir = root().join("docs");
    let mut pages: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    pages
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A page's name as the failures show it: its path from the repository root.
fn shown(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Whether a line opens or closes a code fence: its marker (the fence
/// character) and length.
fn fence(line: &str) -> Option<(char, usize)> {
    let trimmed = line.trim_start();
    let c = trimmed.chars().next()?;
    if c != '`' && c != '~' {
        return None;
    }
    let n = trimmed.chars().take_while(|&x| x == c).count();
    (n >= 3).then_some((c, n))
}

/// The page's lines outside fenced code blocks, each with whether it is
/// outside one (fence lines themselves count as inside).
fn outside_fences(text: &str) -> Vec<(&str, bool)> {
    let mut open: Option<(char, usize)> = None;
    text.lines()
        .map(|line| match (open, fence(line)) {
            (None, Some(f)) => {
                open = Some(f);
                (line, false)
            }
            (Some((c, n)), Some((c2, n2)))
                if c == c2
                    && n2 >= n
                    && line.trim_start().trim_start_matches(c).trim().is_empty() =>
            {
                open = None;
                (line, false)
            }
            (Some(_), _) => (line, false),
            (None, None) => (line, true),
        })
        .collect()
}

/// `block` with its inline code spans blanked out: a run of n backticks opens
/// a span that the next run of exactly n backticks closes; an unclosed run is
/// literal text.
fn strip_code_spans(block: &str) -> String {
    let chars: Vec<char> = block.chars().collect();
    let run_at = |i: usize| chars[i..].iter().take_while(|&&c| c == '`').count();
    let mut out = String::with_capacity(block.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let n = run_at(i);
        // Look for a closing run of exactly n backticks.
        let mut j = i + n;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let m = run_at(j);
                if m == n {
                    close = Some(j);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match close {
            Some(j) => {
                for &c in &chars[i..j + n] {
                    out.push(if c == '\n' { '\n' } else { ' ' });
                }
                i = j + n;
            }
            None => {
                out.extend(&chars[i..i + n]);
                i += n;
            }
        }
    }
    out
}

/// The page's prose: outside fenced code, with inline code spans blanked,
/// spans never crossing a blank line.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut block = String::new();
    for (line, outside) in outside_fences(text) {
        if !outside || line.trim().is_empty() {
            out.push_str(&strip_code_spans(&block));
            block.clear();
            out.push('\n');
            continue;
        }
        block.push_str(line);
        block.push('\n');
    }
    out.push_str(&strip_code_spans(&block));
    out
}

/// Every link and image destination in `prose`: inline `[text](dest)` and
/// `![alt](dest)`, and reference definitions `[id]: dest`.
fn destinations(prose: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = prose[from..].find("](") {
        let start = from + at + 2;
        from = start;
        let rest = &prose[start..];
        let rest = rest.trim_start_matches([' ', '\t']);
        if let Some(angled) = rest.strip_prefix('<') {
            if let Some(end) = angled.find('>') {
                found.push(angled[..end].to_owned());
            }
            continue;
        }
        // Up to whitespace or the `)` that balances the opening one.
        let mut depth = 0usize;
        let mut end = rest.len();
        for (k, c) in rest.char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    end = k;
                    break;
                }
                ')' => depth -= 1,
                c if c.is_whitespace() => {
                    end = k;
                    break;
                }
                _ => {}
            }
        }
        if end > 0 {
            found.push(rest[..end].to_owned());
        }
    }
    for line in prose.lines() {
        let t = line.trim_start();
        if line.len() - t.len() > 3 || !t.starts_with('[') || t.starts_with("[^") {
            continue;
        }
        if let Some(close) = t.find("]:") {
            let rest = t[close + 2..].trim_start();
            let dest = match rest.strip_prefix('<') {
                Some(angled) => angled.split('>').next().unwrap_or(""),
                None => rest.split_whitespace().next().unwrap_or(""),
            };
            if !dest.is_empty() {
                found.push(dest.to_owned());
            }
        }
    }
    found
}

/// Whether a destination leaves the repository (a URL, a mail address).
fn is_external(dest: &str) -> bool {
    let lower = dest.to_ascii_lowercase();
    lower.starts_with("http:") || lower.starts_with("https:") || lower.starts_with("mailto:")
}

/// A heading's text as GitHub renders it, for its anchor: inline code, emphasis
/// and link markup taken away.
fn rendered(heading: &str) -> String {
    let mut text = String::new();
    let chars: Vec<char> = heading.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '`' | '*' => i += 1,
            '!' if chars.get(i + 1) == Some(&'[') => i += 1,
            '[' => i += 1,
            ']' if chars.get(i + 1) == Some(&'(') => {
                // Skip the destination of a link.
                let mut depth = 0;
                i += 1;
                while i < chars.len() {
                    match chars[i] {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                i += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
            }
            ']' => i += 1,
            c => {
                text.push(c);
                i += 1;
            }
        }
    }
    text
}

/// GitHub's anchor of a heading: lowercase, spaces to `-`, every character
/// that is not a letter, a digit, `-` or `_` dropped.
fn anchor(heading: &str) -> String {
    rendered(heading)
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a page's ATX headings outside code, with GitHub's `-1`,
/// `-2`, … for repeats.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut all = BTreeSet::new();
    for (line, outside) in outside_fences(text) {
        let t = line.trim_start();
        if !outside || line.len() - t.len() > 3 {
            continue;
        }
        let level = t.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&level) {
            continue;
        }
        let rest = &t[level..];
        if !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')) {
            continue;
        }
        // A closing sequence of `#`s is not part of the heading.
        let mut title = rest.trim();
        let without = title.trim_end_matches('#');
        if without.is_empty() || without.ends_with(' ') {
            title = without.trim_end();
        }
        let base = anchor(title);
        let n = seen.entry(base.clone()).or_insert(0);
        let id = if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        };
        *n += 1;
        all.insert(id);
    }
    all
}

/// `%XX` escapes decoded (a link to `a%20b.md` names `a b.md`).
fn percent_decoded(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Some(b) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `base/rel` with `.` and `..` resolved lexically.
fn join(base: &Path, rel: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for part in base.join(rel).components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Every relative link of `page` that does not resolve, as `page: target`.
fn broken_links(page: &Path, cache: &mut HashMap<PathBuf, BTreeSet<String>>) -> Vec<String> {
    let text = read(page);
    let dir = page.parent().expect("a page is in a folder");
    let mut broken = Vec::new();
    for dest in destinations(&prose(&text)) {
        if is_external(&dest) {
            continue;
        }
        let (path, fragment) = match dest.split_once('#') {
            Some((p, f)) => (p, Some(f)),
            None => (dest.as_str(), None),
        };
        let target = if path.is_empty() {
            page.to_path_buf()
        } else {
            join(dir, &percent_decoded(path))
        };
        if !target.exists() {
            broken.push(format!("{}: {dest} (no such file)", shown(page)));
            continue;
        }
        let Some(fragment) = fragment else { continue };
        if target.extension().is_none_or(|x| x != "md") {
            continue;
        }
        let known = cache
            .entry(target.clone())
            .or_insert_with(|| anchors(&read(&target)));
        if !known.contains(&percent_decoded(fragment)) {
            broken.push(format!(
                "{}: {dest} (no heading `#{fragment}` in {})",
                shown(page),
                shown(&target)
            ));
        }
    }
    broken
}

#[test]
fn every_relative_link_and_image_resolves() {
    let mut cache = HashMap::new();
    let broken: Vec<String> = pages()
        .iter()
        .flat_map(|page| broken_links(page, &mut cache))
        .collect();
    assert!(
        broken.is_empty(),
        "{} broken link(s):\n  {}",
        broken.len(),
        broken.join("\n  ")
    );
}

#[test]
fn the_readme_is_short() {
    let lines = read(&root().join("README.md")).lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines; at most {README_MAX_LINES}: move the detail into docs/"
    );
}

#[test]
fn the_readme_links_every_page_of_docs() {
    let readme = root().join("README.md");
    let linked: BTreeSet<PathBuf> = destinations(&prose(&read(&readme)))
        .into_iter()
        .filter(|d| !is_external(d))
        .map(|d| {
            let path = d.split('#').next().unwrap_or_default().to_owned();
            join(&root(), &percent_decoded(&path))
        })
        .collect();
    let unlinked: Vec<String> = doc_pages()
        .iter()
        .map(|p| join(&root(), &shown(p)))
        .filter(|p| !linked.contains(p))
        .map(|p| shown(&p))
        .collect();
    assert!(
        unlinked.is_empty(),
        "README.md links no page of its own to: {}",
        unlinked.join(", ")
    );
}

#[test]
fn the_checker_reads_markdown_as_github_does() {
    assert_eq!(anchor("The change model"), "the-change-model");
    assert_eq!(
        anchor("`redline tool` and `redline tools`"),
        "redline-tool-and-redline-tools"
    );
    assert_eq!(anchor("hybrid_auto"), "hybrid_auto");
    assert_eq!(
        anchor("Paths, tools and the index"),
        "paths-tools-and-the-index"
    );
    assert_eq!(anchor("Other programs' changes"), "other-programs-changes");
    assert_eq!(anchor("See [moves](moves.md) now"), "see-moves-now");
    let text = "# A\n\n```sh\n# not a heading [x](gone.md)\n```\n\n## A\nText `[y](gone.md)` and [z](here.md#a-1).\n";
    assert_eq!(
        anchors(text),
        BTreeSet::from(["a".to_owned(), "a-1".to_owned()])
    );
    assert_eq!(destinations(&prose(text)), vec!["here.md#a-1".to_owned()]);
    assert_eq!(
        destinations("![pic](img/a.png \"title\") [r]: ref.md\n[r]: <other file.md>\n"),
        vec!["img/a.png".to_owned(), "other file.md".to_owned()]
    );
    assert_eq!(percent_decoded("a%20b.md"), "a b.md");
}
