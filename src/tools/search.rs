//! `search_project`: find lines across the project, in process, with ripgrep's
//! libraries.
//!
//! The walk is `ignore`'s parallel walker with the project's file rules; each
//! thread clones one searcher and one matcher. Matching follows `rg`'s
//! defaults: binary files (a NUL byte) are skipped, a BOM is sniffed, lines end
//! at `\n`. Only the line numbers of matches are collected during the walk;
//! snippets are built afterwards for the page being returned, so memory grows
//! with the number of matches, not the size of the files.

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, MmapChoice, Searcher, SearcherBuilder, sinks};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Page, Tool, ToolError, compile_glob};
use crate::project::{Project, View, text};

/// Arguments of `search_project`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// The text to find. Literal unless `regex` is true. Matches within one line.
    #[schemars(length(min = 1))]
    pub query: String,
    /// Only search files matching this glob, e.g. `*.md` (any depth) or `notes/**/*.md` (from the root). Default: all files.
    pub glob: Option<String>,
    /// Most matching lines to return. Default 20, at most 50.
    #[schemars(range(min = 1))]
    pub limit: Option<usize>,
    /// Matching lines to skip, to page through results. Default 0.
    pub offset: Option<usize>,
    /// Treat `query` as a regular expression (Rust regex syntax). Default false.
    pub regex: Option<bool>,
    /// true: exact case; false: ignore case. Default: ignore case unless the query has a capital letter.
    pub case_sensitive: Option<bool>,
    /// Lines of context shown before and after each match. Default 2, at most 9.
    pub context_lines: Option<usize>,
}

/// The result of `search_project`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct SearchOutput {
    /// Snippets around the matches of this page, in path then line order.
    pub results: Vec<Snippet>,
    /// Matching lines in the whole project (as `rg --count` counts them).
    pub total: usize,
    /// Files with at least one matching line.
    pub total_files: usize,
    /// Matching lines skipped before this page.
    pub offset: usize,
    /// The page size in force.
    pub limit: usize,
    /// Where the next page starts; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// What the page holds and how to get more, for the model.
    pub notice: String,
}

/// Consecutive lines of one file around one or more matches.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Snippet {
    /// The file, relative to the project root.
    pub file_path: String,
    /// First line of the snippet (1-based).
    pub start_line: u64,
    /// Last line of the snippet (inclusive).
    pub end_line: u64,
    /// The matching lines in the snippet.
    pub match_lines: Vec<u64>,
    /// The lines, each as `<number>:<text>` for a match and `<number>-<text>` for context;
    /// for a file that is not UTF-8, a note instead.
    pub snippet: String,
    /// false when the file is not UTF-8 text: its lines are not shown, and
    /// `read_file` cannot open it. Absent when true.
    #[serde(default = "readable", skip_serializing_if = "is_readable")]
    pub readable: bool,
}

fn readable() -> bool {
    true
}

fn is_readable(readable: &bool) -> bool {
    *readable
}

/// What a snippet of a file that is not UTF-8 says instead of its lines.
const NOT_UTF8: &str = "(not UTF-8 text: its lines are not shown, and read_file cannot open it)";

/// What to look for, decoded from [`SearchArgs`].
#[derive(Clone, Debug)]
pub struct Query<'a> {
    /// The pattern.
    pub pattern: &'a str,
    /// Whether `pattern` is a regex; otherwise it is literal.
    pub regex: bool,
    /// `None`: smart case; `Some(true)`: exact; `Some(false)`: ignore case.
    pub case_sensitive: Option<bool>,
    /// Glob over root-relative paths (`rg -g` semantics).
    pub glob: Option<&'a str>,
}

/// The matching lines of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileMatches {
    /// The file, relative to the root.
    pub path: String,
    /// Its matching line numbers, ascending.
    pub lines: Vec<u64>,
}

/// A page of matching lines across `files`: from the `offset`-th line on,
/// at most `limit` of them, each file that has some with its slice of them.
pub(crate) fn page_of(
    files: &[FileMatches],
    offset: usize,
    limit: usize,
) -> Vec<(&FileMatches, &[u64])> {
    let (mut skip, mut take) = (offset, limit);
    let mut out = Vec::new();
    for file in files {
        if take == 0 {
            break;
        }
        if skip >= file.lines.len() {
            skip -= file.lines.len();
            continue;
        }
        let end = (skip + take).min(file.lines.len());
        let lines = &file.lines[skip..end];
        (skip, take) = (0, take - lines.len());
        out.push((file, lines));
    }
    out
}

/// Where a file's bytes come from.
enum Source<'a> {
    /// Held by the project index.
    Memory(&'a [u8]),
    /// Read from disk.
    Disk(&'a std::path::Path),
}

/// Every matching line in the project as `view` shows it (a `&Project`: the
/// disk), sorted by path. A project whose index is filled is searched from
/// it (memory, and the disk for the files it holds no text of); otherwise
/// the folder is walked.
pub fn find_matches<'a>(
    view: impl Into<View<'a>>,
    query: &Query<'_>,
) -> Result<Vec<FileMatches>, ToolError> {
    let view = view.into();
    let project = view.project();
    let matcher = build_matcher(project, query)?;
    let glob = compile_glob(query.glob)?;
    let mut searcher = SearcherBuilder::new();
    searcher
        .line_number(true)
        .binary_detection(BinaryDetection::quit(0))
        .memory_map(MmapChoice::never());
    let search_file = |searcher: &mut Searcher, rel: &str, source: Source<'_>| {
        if glob.as_ref().is_some_and(|g| !g.is_match(rel)) || view.covers(rel) {
            return None;
        }
        let mut lines = Vec::new();
        let sink = sinks::Bytes(|line, _| {
            lines.push(line);
            Ok(true)
        });
        // A file that vanished or cannot be read mid-walk is skipped, as rg does.
        match source {
            Source::Memory(bytes) => searcher.search_slice(&matcher, bytes, sink),
            Source::Disk(abs) => searcher.search_path(&matcher, abs, sink),
        }
        .ok()?;
        (!lines.is_empty()).then(|| FileMatches {
            path: rel.to_owned(),
            lines,
        })
    };
    let indexed = project.index().and_then(|index| {
        index.with_files(|files| {
            let entries: Vec<_> = files.iter().collect();
            let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(12));
            let chunk = entries.len().div_ceil(threads).max(1);
            std::thread::scope(|scope| {
                let workers: Vec<_> = entries
                    .chunks(chunk)
                    .map(|part| {
                        let (searcher, search_file) = (&searcher, &search_file);
                        scope.spawn(move || {
                            let mut searcher = searcher.build();
                            part.iter()
                                .filter_map(|(rel, entry)| {
                                    let abs;
                                    let source = match &entry.text {
                                        Some(text) => Source::Memory(text),
                                        None => {
                                            abs = project.root().join(rel.as_str());
                                            Source::Disk(&abs)
                                        }
                                    };
                                    search_file(&mut searcher, rel, source)
                                })
                                .collect::<Vec<_>>()
                        })
                    })
                    .collect();
                workers
                    .into_iter()
                    .flat_map(|w| w.join().expect("a search thread panicked"))
                    .collect::<Vec<_>>()
            })
        })
    });
    let mut files = match indexed {
        Some(files) => files,
        None => {
            let root = project.resolve(".")?;
            project.walk_files(&root, || {
                // A searcher holds buffers behind a RefCell: one per thread.
                let mut searcher: Searcher = searcher.build();
                let search_file = &search_file;
                move |rel, abs| search_file(&mut searcher, rel, Source::Disk(abs))
            })
        }
    };
    // Files with a working buffer are searched as it has them.
    let mut searcher = searcher.build();
    for (rel, text) in view.overlaid_under("") {
        if glob.as_ref().is_some_and(|g| !g.is_match(rel)) {
            continue;
        }
        let mut lines = Vec::new();
        let sink = sinks::Bytes(|line, _| {
            lines.push(line);
            Ok(true)
        });
        if searcher
            .search_slice(&matcher, text.as_bytes(), sink)
            .is_ok()
            && !lines.is_empty()
        {
            files.push(FileMatches {
                path: rel.to_owned(),
                lines,
            });
        }
    }
    files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

pub(crate) fn build_matcher(
    project: &Project,
    query: &Query<'_>,
) -> Result<RegexMatcher, ToolError> {
    if query.pattern.is_empty() {
        return Err(ToolError::InvalidPattern("the query is empty".into()));
    }
    let size = project.limits().max_regex_bytes;
    let mut builder = RegexMatcherBuilder::new();
    builder
        .fixed_strings(!query.regex)
        .line_terminator(Some(b'\n'))
        .ban_byte(Some(0))
        .size_limit(size)
        .dfa_size_limit(size);
    match query.case_sensitive {
        None => builder.case_smart(true),
        Some(false) => builder.case_insensitive(true),
        Some(true) => &mut builder,
    };
    builder.build(query.pattern).map_err(|e| {
        let e = e.to_string();
        let hint = if query.pattern.contains('\n') {
            " (matches are within one line; search for one line at a time)"
        } else if !query.regex {
            ""
        } else {
            " (regex syntax is Rust's; set `regex` to false to search the text literally)"
        };
        ToolError::InvalidPattern(format!("{e}{hint}"))
    })
}

/// Every file with a line `args` (the tool's arguments) matches, not only
/// those of the page the tool returned: what a search lets an agent see of
/// the project, for the review's risk rules. Empty when the arguments do
/// not decode or the query does not compile.
pub fn files_matching<'a>(view: impl Into<View<'a>>, args: &serde_json::Value) -> Vec<String> {
    let Ok(args) = serde_json::from_value::<SearchArgs>(args.clone()) else {
        return Vec::new();
    };
    let query = Query {
        pattern: &args.query,
        regex: args.regex.unwrap_or(false),
        case_sensitive: args.case_sensitive,
        glob: args.glob.as_deref(),
    };
    find_matches(view, &query)
        .map(|files| files.into_iter().map(|f| f.path).collect())
        .unwrap_or_default()
}

/// The `search_project` tool.
pub struct SearchProject;

impl Tool for SearchProject {
    const NAME: &'static str = "search_project";
    const DESCRIPTION: &'static str = "Search every text file of the project for lines matching a query \
        (literal by default, or a regex), skipping hidden, ignored and binary files. Returns snippets \
        with numbered lines (`12:` marks a matching line, `11-` context), sorted by path then line, \
        the total number of matching lines, and `next_offset` when more remain.";
    type Args = SearchArgs;
    type Output = SearchOutput;

    fn run(view: &View<'_>, args: SearchArgs) -> Result<SearchOutput, ToolError> {
        let limits = view.project().limits();
        let page = Page::new(
            args.offset,
            args.limit,
            limits.max_search_results_default,
            limits.max_search_results_cap,
        );
        let max_context = limits.max_search_snippet_lines.saturating_sub(1) / 2;
        let context = args.context_lines.unwrap_or(2).min(max_context) as u64;
        let query = Query {
            pattern: &args.query,
            regex: args.regex.unwrap_or(false),
            case_sensitive: args.case_sensitive,
            glob: args.glob.as_deref(),
        };
        let files = find_matches(*view, &query)?;
        let total: usize = files.iter().map(|f| f.lines.len()).sum();

        let mut results = Vec::new();
        for (file, lines) in page_of(&files, page.offset, page.limit) {
            results.extend(snippets(view, &file.path, lines, context));
        }

        let next_offset = page.next_offset(total);
        let shown = total.saturating_sub(page.offset).min(page.limit);
        let notice = if total == 0 {
            "No matches.".to_owned()
        } else if shown == 0 {
            format!(
                "offset {} is past the last of {total} matching lines.",
                page.offset
            )
        } else {
            let mut notice = format!(
                "Matching lines {}-{} of {total} in {} files.",
                page.offset + 1,
                page.offset + shown,
                files.len()
            );
            if let Some(next) = next_offset {
                notice.push_str(&format!(" Call again with offset={next} for more."));
            }
            notice
        };
        Ok(SearchOutput {
            results,
            total,
            total_files: files.len(),
            offset: page.offset,
            limit: page.limit,
            next_offset,
            notice,
        })
    }
}

/// Builds snippets for `matches` (ascending lines of `path`): each match gets
/// `context` lines around it, and matches whose windows touch share a snippet
/// while it stays within the snippet line limit.
fn snippets(view: &View<'_>, path: &str, matches: &[u64], context: u64) -> Vec<Snippet> {
    let limits = view.project().limits();
    let max_lines = limits.max_search_snippet_lines.max(1) as u64;
    // The path came from the walk; the file may have changed since, so a
    // missing line just shortens the snippet.
    let bytes = view.bytes(path);
    let readable = std::str::from_utf8(&bytes).is_ok();
    let lines: Vec<&[u8]> = text::byte_lines(&bytes).collect();
    let last = lines.len() as u64;

    let mut out: Vec<Snippet> = Vec::new();
    for &line in matches {
        let start = line.saturating_sub(context).max(1);
        let end = (line + context).min(last).max(line);
        match out.last_mut() {
            Some(s)
                if start <= s.end_line + 1 && end.max(s.end_line) - s.start_line < max_lines =>
            {
                s.end_line = end.max(s.end_line);
                s.match_lines.push(line);
            }
            _ => out.push(Snippet {
                file_path: path.to_owned(),
                start_line: start,
                end_line: end,
                match_lines: vec![line],
                snippet: String::new(),
                readable: true,
            }),
        }
    }
    for s in &mut out {
        if !readable {
            s.readable = false;
            s.snippet = NOT_UTF8.to_owned();
            continue;
        }
        let width = s.end_line.to_string().len();
        let mut rendered = Vec::new();
        for n in s.start_line..=s.end_line {
            let Some(bytes) = lines.get(n as usize - 1) else {
                break;
            };
            let text = String::from_utf8_lossy(bytes);
            let mark = if s.match_lines.contains(&n) { ':' } else { '-' };
            rendered.push(format!(
                "{n:>width$}{mark}{}",
                text::clip_line(&text, limits.max_snippet_line_bytes)
            ));
        }
        s.snippet = rendered.join("\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Limits;
    use proptest::prelude::*;

    fn project_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Project) {
        let dir = tempfile::tempdir().unwrap();
        for (path, content) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content).unwrap();
        }
        let project = Project::open(dir.path(), Limits::default()).unwrap();
        (dir, project)
    }

    fn search(project: &Project, args: serde_json::Value) -> SearchOutput {
        let value = crate::tools::run(project, "search_project", args).unwrap();
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn snippets_merge_nearby_matches_and_mark_them() {
        let body: String = (1..=30)
            .map(|i| format!("line {i}{}\n", if i % 4 == 0 { " hit" } else { "" }))
            .collect();
        let (_dir, project) = project_with(&[("a.md", &body)]);
        let out = search(
            &project,
            serde_json::json!({"query": "hit", "limit": 3, "context_lines": 1}),
        );
        assert_eq!(out.total, 7);
        assert_eq!(out.next_offset, Some(3));
        assert_eq!(out.results.len(), 3, "windows 3-5, 7-9, 11-13 do not touch");
        let first = &out.results[0];
        assert_eq!((first.start_line, first.end_line), (3, 5));
        assert_eq!(first.snippet, "3-line 3\n4:line 4 hit\n5-line 5");
        let out = search(
            &project,
            serde_json::json!({"query": "hit", "limit": 3, "context_lines": 2}),
        );
        assert_eq!(out.results.len(), 1, "windows 2-6, 6-10, 10-14 touch");
        assert_eq!(out.results[0].match_lines, [4, 8, 12]);
        assert_eq!(
            (out.results[0].start_line, out.results[0].end_line),
            (2, 14)
        );
    }

    #[test]
    fn a_snippet_never_exceeds_the_line_limit() {
        let body = "x\n".repeat(100);
        let (_dir, project) = project_with(&[("a.md", &body)]);
        let out = search(
            &project,
            serde_json::json!({"query": "x", "limit": 50, "context_lines": 9}),
        );
        assert_eq!(out.total, 100);
        for s in &out.results {
            assert!(s.end_line - s.start_line < 20, "{s:?}");
            assert_eq!(
                s.snippet.lines().count() as u64,
                s.end_line - s.start_line + 1
            );
        }
        let covered: Vec<u64> = out
            .results
            .iter()
            .flat_map(|s| s.match_lines.clone())
            .collect();
        assert_eq!(covered, (1..=50).collect::<Vec<_>>());
    }

    #[test]
    fn bad_regexes_are_explained() {
        let (_dir, project) = project_with(&[("a.md", "a\n")]);
        let err = crate::tools::run(
            &project,
            "search_project",
            serde_json::json!({"query": "a(", "regex": true}),
        )
        .unwrap_err();
        assert_eq!(err.code(), "invalid_pattern");
        assert!(err.to_string().contains("regex"), "{err}");
        let huge = format!("({}){{1000}}", "[a-z]{100}".repeat(10));
        let err = crate::tools::run(
            &project,
            "search_project",
            serde_json::json!({"query": huge, "regex": true}),
        )
        .unwrap_err();
        assert_eq!(err.code(), "invalid_pattern", "{err}");
    }

    fn naive(files: &[(String, String)], needle: &str, ignore_case: bool) -> Vec<FileMatches> {
        let fold = |s: &str| {
            if ignore_case {
                s.to_lowercase()
            } else {
                s.to_owned()
            }
        };
        let mut out: Vec<FileMatches> = files
            .iter()
            .filter_map(|(path, body)| {
                let lines: Vec<u64> = text::lines(body)
                    .enumerate()
                    .filter(|(_, l)| fold(l).contains(&fold(needle)))
                    .map(|(i, _)| i as u64 + 1)
                    .collect();
                (!lines.is_empty()).then(|| FileMatches {
                    path: path.clone(),
                    lines,
                })
            })
            .collect();
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// A literal search finds exactly the lines a plain scan finds, in order.
        #[test]
        fn literal_search_agrees_with_a_plain_scan(
            files in proptest::collection::btree_map("[a-c]{1,2}(/[a-c]{1,2})?\\.md", "([abAB \r]{0,6}\n){0,8}[ab]{0,3}", 1..6),
            needle in "[abAB]{1,2}",
            case in proptest::option::of(any::<bool>()),
        ) {
            let files: Vec<(String, String)> = files.into_iter().collect();
            let dir = tempfile::tempdir().unwrap();
            for (path, body) in &files {
                let abs = dir.path().join(path);
                std::fs::create_dir_all(abs.parent().unwrap()).unwrap();
                std::fs::write(&abs, body).unwrap();
            }
            let project = Project::open(dir.path(), Limits::default()).unwrap();
            let query = Query { pattern: &needle, regex: false, case_sensitive: case, glob: None };
            let ignore_case = case.map_or(!needle.chars().any(char::is_uppercase), |c| !c);
            let expected = naive(&files, &needle, ignore_case);
            prop_assert_eq!(find_matches(&project, &query).unwrap(), expected);
        }
    }
}
