//! Project search for people: the agent's search engine (the same matcher,
//! files, index and working buffers, so the same lines as `rg`), answered
//! as files with their matching lines and the spans that matched, a page
//! of matching lines at a time.

use grep_matcher::Matcher as _;
use serde::{Deserialize, Serialize};

use crate::project::{View, text};
use crate::tools::search::{Query, build_matcher, find_matches, page_of};
use crate::tools::{Page, ToolError};

/// What to look for (`GET /api/search`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct SearchRequest {
    /// The text, literal unless `regex`.
    pub query: String,
    /// A regular expression (Rust syntax). Default false.
    #[serde(default)]
    pub regex: Option<bool>,
    /// Exact case (true), any case (false); default smart case.
    #[serde(default)]
    pub case_sensitive: Option<bool>,
    /// Only files matching this glob (`*.md`, `notes/**`).
    #[serde(default)]
    pub glob: Option<String>,
    /// Matching lines to skip. Default 0.
    #[serde(default)]
    pub offset: Option<usize>,
    /// Matching lines per page. Default 200, at most 1,000.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// A page of matching lines, grouped by file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct SearchResults {
    /// Files of this page, in path order, each with its lines of the page.
    pub files: Vec<FileHits>,
    /// Matching lines in the whole project.
    pub total: usize,
    /// Files with a matching line.
    pub total_files: usize,
    /// Matching lines skipped before this page.
    pub offset: usize,
    /// Where the next page starts; absent on the last.
    pub next_offset: Option<usize>,
}

/// One file's matching lines.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct FileHits {
    /// Root-relative path.
    pub path: String,
    /// false when the file is not UTF-8: its lines are not shown.
    pub readable: bool,
    /// Its matching lines on this page.
    pub hits: Vec<Hit>,
}

/// One matching line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Hit {
    /// 1-based line number.
    pub line: u64,
    /// The line (cut when very long; empty when the file is not UTF-8).
    pub text: String,
    /// The spans of `text` that matched, as `[start, end)` in UTF-16 code
    /// units (what the UI's strings index).
    pub spans: Vec<[u32; 2]>,
}

/// Largest page.
const MAX_LIMIT: usize = 1000;

/// Runs `request` over `view`.
pub fn search(view: &View<'_>, request: &SearchRequest) -> Result<SearchResults, ToolError> {
    let project = view.project();
    let query = Query {
        pattern: &request.query,
        regex: request.regex.unwrap_or(false),
        case_sensitive: request.case_sensitive,
        glob: request.glob.as_deref(),
    };
    let matcher = build_matcher(project, &query)?;
    let files = find_matches(*view, &query)?;
    let total = files.iter().map(|f| f.lines.len()).sum();
    let page = Page::new(request.offset, request.limit, 200, MAX_LIMIT);
    let max_line = project.limits().max_snippet_line_bytes;
    let mut out = Vec::new();
    for (file, wanted) in page_of(&files, page.offset, page.limit) {
        let bytes = view.bytes(&file.path);
        let readable = std::str::from_utf8(&bytes).is_ok();
        let lines: Vec<&[u8]> = text::byte_lines(&bytes).collect();
        let hits = wanted
            .iter()
            .map(|&n| {
                let line = lines.get(n as usize - 1).copied().unwrap_or_default();
                if !readable {
                    return Hit {
                        line: n,
                        text: String::new(),
                        spans: Vec::new(),
                    };
                }
                let full = String::from_utf8_lossy(line);
                let shown = text::clip_line(&full, max_line).into_owned();
                let mut spans = Vec::new();
                let _ = matcher.find_iter(line, |m| {
                    // grep-regex matches bytes: an empty match (`a*`) or a
                    // `(?-u:…)` one may start or end inside a character.
                    if m.end() <= max_line.min(line.len())
                        && full.is_char_boundary(m.start())
                        && full.is_char_boundary(m.end())
                    {
                        spans.push([utf16_at(&full, m.start()), utf16_at(&full, m.end())]);
                    }
                    true
                });
                Hit {
                    line: n,
                    text: shown,
                    spans,
                }
            })
            .collect();
        out.push(FileHits {
            path: file.path.clone(),
            readable,
            hits,
        });
    }
    Ok(SearchResults {
        files: out,
        total,
        total_files: files.len(),
        offset: page.offset,
        next_offset: page.next_offset(total),
    })
}

/// The UTF-16 offset of byte offset `at` of `text` (a char boundary).
fn utf16_at(text: &str, at: usize) -> u32 {
    text[..at].encode_utf16().count() as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Limits;
    use crate::project::{Overlay, Project};
    use std::sync::Arc;

    #[test]
    fn a_match_inside_a_character_is_no_span() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "éx\n").unwrap();
        let project = Project::open(dir.path(), Limits::default()).unwrap();
        let overlay = Overlay::new();
        let view = View::with(&project, &overlay);
        for query in ["x*", "(?-u:\\xC3)"] {
            let request = SearchRequest {
                query: query.into(),
                regex: Some(true),
                ..SearchRequest::default()
            };
            let found = search(&view, &request).unwrap();
            let spans = &found.files[0].hits[0].spans;
            assert!(spans.iter().all(|[a, b]| a <= b && *b <= 2), "{query}: {spans:?}");
        }
    }

    #[test]
    fn lines_come_with_their_spans_and_pages_like_the_tool() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("a.md"),
            "Größe Atlas\nnone\natlas and ATLAS\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("b.md"), "Atlas again\n").unwrap();
        std::fs::write(dir.path().join("c.txt"), b"atlas \xe9\n").unwrap();
        let project = Project::open(dir.path(), Limits::default()).unwrap();
        let mut overlay = Overlay::new();
        overlay.insert("b.md", Some(Arc::from("unsaved atlas\n")));
        let view = View::with(&project, &overlay);
        let request = |offset, limit| SearchRequest {
            query: "atlas".into(),
            offset,
            limit,
            ..SearchRequest::default()
        };
        let all = search(&view, &request(None, None)).unwrap();
        assert_eq!((all.total, all.total_files, all.next_offset), (4, 3, None));
        let a = &all.files[0];
        assert_eq!(a.hits[0].line, 1);
        // `Größe ` is 6 UTF-16 units.
        assert_eq!(a.hits[0].spans, [[6, 11]]);
        assert_eq!(a.hits[1].spans, [[0, 5], [10, 15]]);
        assert_eq!(
            all.files[1].hits[0].text, "unsaved atlas",
            "the working buffer"
        );
        assert!(!all.files[2].readable && all.files[2].hits[0].text.is_empty());
        let second = search(&view, &request(Some(1), Some(2))).unwrap();
        assert_eq!(second.next_offset, Some(3));
        let lines: Vec<_> = second
            .files
            .iter()
            .flat_map(|f| f.hits.iter().map(move |h| (f.path.as_str(), h.line)))
            .collect();
        assert_eq!(lines, [("a.md", 3), ("b.md", 1)]);
        assert!(
            search(
                &view,
                &SearchRequest {
                    query: "(".into(),
                    regex: Some(true),
                    ..SearchRequest::default()
                }
            )
            .is_err()
        );
    }
}
