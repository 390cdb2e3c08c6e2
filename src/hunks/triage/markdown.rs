//! The parts of a Markdown note the risk rules look at: its front matter,
//! its fenced code blocks, its tables and its headings (its links are
//! [`crate::links`]'s). Only what the rules need, read line by line; not a
//! Markdown parser.

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
}
