//! The parts of a Markdown note the risk rules look at: its front matter,
//! its fenced code blocks, its tables and its links. Only what the rules
//! need, read line by line; not a Markdown parser.

use std::ops::Range;

use yaml_rust2::{Yaml, YamlLoader};

/// A note's front matter: the lines between a `---` first line and the
/// next `---` (or `...`) line.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FrontMatter {
    /// Its lines, the two fences included (0-based).
    pub lines: Range<usize>,
    /// Its top-level keys, in order; `Err` with the parser's message when
    /// it is not YAML, or not a mapping.
    pub keys: Result<Vec<String>, String>,
}

/// The front matter of `text`, if it has any.
pub(crate) fn front_matter(text: &str) -> Option<FrontMatter> {
    let mut lines = text.split_inclusive('\n');
    if lines.next()?.trim_end() != "---" {
        return None;
    }
    let mut body = String::new();
    for (i, line) in lines.enumerate() {
        let bare = line.trim_end();
        if bare == "---" || bare == "..." {
            return Some(FrontMatter {
                lines: 0..i + 2,
                keys: keys_of(&body),
            });
        }
        body.push_str(line);
    }
    // Never closed: the whole note would be front matter.
    Some(FrontMatter {
        lines: 0..text.split_inclusive('\n').count(),
        keys: Err("its closing `---` is missing".into()),
    })
}

fn keys_of(yaml: &str) -> Result<Vec<String>, String> {
    let docs = YamlLoader::load_from_str(yaml).map_err(|e| e.to_string())?;
    match docs.into_iter().next() {
        None | Some(Yaml::Null) => Ok(Vec::new()),
        Some(Yaml::Hash(map)) => Ok(map
            .keys()
            .map(|k| match k {
                Yaml::String(s) | Yaml::Real(s) => s.clone(),
                Yaml::Integer(i) => i.to_string(),
                Yaml::Boolean(b) => b.to_string(),
                other => format!("{other:?}"),
            })
            .collect()),
        Some(_) => Err("it is not a list of `key: value` fields".into()),
    }
}

/// The line ranges of the fenced code blocks of `text` (fences included).
/// A block left open runs to the end.
pub(crate) fn code_blocks(text: &str) -> Vec<Range<usize>> {
    if !text.contains("```") && !text.contains("~~~") {
        return Vec::new();
    }
    let mut blocks = Vec::new();
    let mut open: Option<(usize, &str)> = None;
    let mut count = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        count = i + 1;
        let bare = line.trim_start();
        let fence = ["```", "~~~"].into_iter().find(|f| bare.starts_with(f));
        match (open, fence) {
            (None, Some(f)) => open = Some((i, f)),
            (Some((start, f)), Some(g))
                if f == g && bare.trim_end().trim_start_matches(g).is_empty() =>
            {
                blocks.push(start..i + 1);
                open = None;
            }
            _ => {}
        }
    }
    if let Some((start, _)) = open {
        blocks.push(start..count);
    }
    blocks
}

/// Whether `line` is a table row (`| a | b |`, or `a | b` under a table).
pub(crate) fn is_table_row(line: &str) -> bool {
    let bare = line.trim();
    bare.starts_with('|') && bare.len() > 1
}

/// The number of cells of a table row (escaped `\|` is not a separator).
pub(crate) fn columns(row: &str) -> usize {
    let bare = row.trim();
    let inner = bare.strip_prefix('|').unwrap_or(bare);
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let mut cells = 1;
    let mut escaped = false;
    for c in inner.chars() {
        match c {
            '\\' => escaped = !escaped,
            '|' if !escaped => cells += 1,
            _ => escaped = false,
        }
    }
    cells
}

/// The tables of `text`: runs of table rows, as line ranges.
pub(crate) fn tables(text: &str) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if !is_table_row(line) {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.end == i => last.end = i + 1,
            _ => out.push(i..i + 1),
        }
    }
    out
}

/// A link in a note, as written.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Link {
    /// `[[target]]`, `[[target|alias]]`, `[[target#heading]]`, `![[…]]`:
    /// the target without heading, block or alias.
    Wiki(String),
    /// `[text](target)` with a relative target, percent-decoded, without
    /// its `#fragment`.
    Markdown(String),
}

/// The links of `text` that point into the vault (not URLs, not anchors
/// within the note).
pub(crate) fn links(text: &str) -> Vec<Link> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("[[") {
        let after = &rest[at + 2..];
        let Some(end) = after.find("]]") else { break };
        let inner = &after[..end];
        if !inner.contains('\n') {
            let target = inner.split(['|', '#', '^']).next().unwrap_or("").trim();
            if !target.is_empty() {
                out.push(Link::Wiki(target.to_owned()));
            }
        }
        rest = &after[end + 2..];
    }
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        let raw = after[..end].trim();
        let raw = raw
            .strip_prefix('<')
            .and_then(|r| r.strip_suffix('>'))
            .unwrap_or(raw);
        // A title after the target: `[x](note.md "Title")`.
        let raw = raw.split(" \"").next().unwrap_or(raw);
        let local = !raw.is_empty()
            && !raw.starts_with('#')
            && !raw.contains("://")
            && !raw.starts_with("mailto:")
            && !raw.contains('\n');
        if local {
            let target = raw.split('#').next().unwrap_or(raw);
            out.push(Link::Markdown(percent_decoded(target)));
        }
        rest = &after[end + 1..];
    }
    out
}

fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether `line` is a Markdown heading (`# …` to `###### …`).
pub(crate) fn heading(line: &str) -> Option<&str> {
    let bare = line.trim_end();
    let hashes = bare.len() - bare.trim_start_matches('#').len();
    ((1..=6).contains(&hashes) && bare[hashes..].starts_with(' ')).then(|| bare[hashes..].trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_keys_and_errors() {
        let fm = front_matter("---\ntitle: A\ntags: [x]\n---\nbody\n").unwrap();
        assert_eq!(fm.lines, 0..4);
        assert_eq!(fm.keys, Ok(vec!["title".to_owned(), "tags".to_owned()]));
        let broken = front_matter("---\ntitle: \"A\ntags: [x\n---\n").unwrap();
        assert!(broken.keys.is_err(), "{broken:?}");
        assert!(front_matter("---\ntitle: A\n").unwrap().keys.is_err());
        assert_eq!(front_matter("# No front matter\n"), None);
    }

    #[test]
    fn code_blocks_tables_and_headings() {
        let text =
            "a\n```rust\nfn x() {}\n```\n| a | b |\n|---|---|\n| 1 | 2 \\| 3 |\nz\n~~~\nopen";
        assert_eq!(code_blocks(text), vec![1..4, 8..10]);
        assert_eq!(tables(text), vec![4..7]);
        assert_eq!(columns("| 1 | 2 \\| 3 |"), 2);
        assert_eq!(columns("| a | b | c |"), 3);
        assert_eq!(heading("## Plans\n"), Some("Plans"));
        assert_eq!(heading("#tag"), None);
    }

    #[test]
    fn links_of_every_form() {
        let text = "See [[Atlas]], [[Projects/Atlas#Goals|the plan]], ![[chart.png]], \
                    [x](../Notes/Web%20Site.md#top), [y](https://e.com), [z](#here), [[a\nb]].";
        assert_eq!(
            links(text),
            vec![
                Link::Wiki("Atlas".into()),
                Link::Wiki("Projects/Atlas".into()),
                Link::Wiki("chart.png".into()),
                Link::Markdown("../Notes/Web Site.md".into()),
            ]
        );
    }
}
