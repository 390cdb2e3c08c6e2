//! The fuzz targets' bodies. Each takes the fuzzer's bytes and panics only
//! on what must never happen; `fuzz_targets/*.rs` hand them to libFuzzer,
//! and `tests/fuzz_corpora.rs` (in the main crate) replays every file of
//! `corpus/<target>/` through them on stable, so a crash kept there stays a
//! regression test.

use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::OnceLock;

use redline::agent::toolset::{self, PROPOSE_EDITS, ProposeEditsArgs};
use redline::config::{Config, Limits};
use redline::project::{Project, View};
use redline::providers::{Protocol, read_step};
use serde_json::Value;

/// The provider stream decoders: an SSE body in either wire format reads to
/// the same step (or the same failure) whole and cut into chunks of any
/// size, splitting lines and characters.
///
/// Bytes: the format (low bit of the first), the chunk size (1 to 16, the
/// second), then the body.
pub fn stream(data: &[u8]) {
    let [format, cut, body @ ..] = data else {
        return;
    };
    let protocol = if format & 1 == 0 {
        Protocol::OpenAiChat
    } else {
        Protocol::AnthropicMessages
    };
    let chunk = usize::from(cut % 16) + 1;
    let whole = futures_executor::block_on(read_step(
        protocol,
        futures_util::stream::iter([Ok::<_, Infallible>(body.to_vec())]),
    ));
    let chunks = body.chunks(chunk).map(|c| Ok::<_, Infallible>(c.to_vec()));
    let chunked =
        futures_executor::block_on(read_step(protocol, futures_util::stream::iter(chunks)));
    match (whole, chunked) {
        (Ok(whole), Ok(chunked)) => assert_eq!(whole, chunked, "chunks of {chunk}"),
        (Err(_), Err(_)) => {}
        (whole, chunked) => panic!("whole {whole:?}, in chunks of {chunk} {chunked:?}"),
    }
}

/// The edit schema and its checks: a `propose_edits` call's arguments, as
/// the model may write them, decoded against the schema and prepared
/// against a small project; never a panic, and every prepared file inside
/// the project.
pub fn edits(data: &[u8]) {
    let Ok(args) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let Ok(args) = toolset::decode::<ProposeEditsArgs>(PROPOSE_EDITS, args) else {
        return;
    };
    let edits: Vec<_> = args
        .edits
        .into_iter()
        .enumerate()
        .map(|(n, e)| e.into_edit(n + 1))
        .collect();
    let project = project();
    if let Ok(proposals) = redline::edits::prepare(View::disk(project), &edits) {
        for p in proposals {
            let resolved = project
                .resolve(&p.file_path)
                .expect("a prepared path resolves");
            assert!(
                resolved.abs().starts_with(project.root()),
                "{}",
                p.file_path
            );
        }
    }
}

/// The patch writer: the unified diff it writes for a hunk, applied to the
/// base by the format's rules, gives the base with the hunk's lines
/// replaced.
///
/// Bytes: the hunk's start, length and context (the first three), then the
/// base and the new text, split at the first 0xFF.
pub fn patch(data: &[u8]) {
    let [start, len, context, rest @ ..] = data else {
        return;
    };
    let split = rest.iter().position(|&b| b == 0xFF).unwrap_or(rest.len());
    let base = String::from_utf8_lossy(&rest[..split]).into_owned();
    let new = String::from_utf8_lossy(rest.get(split + 1..).unwrap_or_default()).into_owned();
    let base: Vec<&str> = base.split_inclusive('\n').collect();
    let new: Vec<&str> = new.split_inclusive('\n').collect();
    let start = usize::from(*start).min(base.len());
    let len = usize::from(*len).min(base.len() - start);
    let context = usize::from(context % 8);
    // A line without its terminator can only be the last of its side.
    if start + len < base.len() && new.last().is_some_and(|l| !l.ends_with('\n')) {
        return;
    }
    let text = redline::hunks::patch::render("a note.md", false, &base, start, len, &new, context);
    let mut want: Vec<&str> = base[..start].to_vec();
    want.extend(&new);
    want.extend(&base[start + len..]);
    assert_eq!(apply(&base, &text), Some(want.concat()), "{text}");
}

/// `patch` (one hunk of a unified diff) applied to `base` by the format's
/// rules; `None` when it does not fit.
fn apply(base: &[&str], patch: &str) -> Option<String> {
    let mut lines = patch.split_inclusive('\n').skip(2);
    let header = lines.next()?.strip_prefix("@@ -")?;
    let old = header.split(' ').next()?;
    let (start, count) = old.split_once(',').unwrap_or((old, "1"));
    let (start, count): (usize, usize) = (start.parse().ok()?, count.parse().ok()?);
    // An empty range names the line before it.
    let at = if count == 0 { start } else { start - 1 };
    let mut old_side: Vec<String> = Vec::new();
    let mut new_side: Vec<String> = Vec::new();
    let mut last: Option<char> = None;
    for line in lines {
        if line.starts_with("\\ No newline at end of file") {
            let side: &mut Vec<String> = if last == Some('+') {
                &mut new_side
            } else {
                &mut old_side
            };
            side.last_mut()?.pop();
            if last == Some(' ') {
                new_side.last_mut()?.pop();
            }
            continue;
        }
        let (prefix, text) = line.split_at(1);
        last = prefix.chars().next();
        match prefix {
            " " => {
                old_side.push(text.to_owned());
                new_side.push(text.to_owned());
            }
            "-" => old_side.push(text.to_owned()),
            "+" => new_side.push(text.to_owned()),
            _ => return None,
        }
    }
    let end = at + old_side.len();
    if base.get(at..end)? != old_side.iter().map(String::as_str).collect::<Vec<_>>() {
        return None;
    }
    Some([base[..at].concat(), new_side.concat(), base[end..].concat()].concat())
}

/// The path guard: whatever the spelling, a path it accepts is inside the
/// project, relative, without `.` or `..`, and resolves to itself again.
pub fn paths(data: &[u8]) {
    let Ok(raw) = std::str::from_utf8(data) else {
        return;
    };
    let project = project();
    let Ok(path) = project.resolve(raw) else {
        return;
    };
    let rel = path.rel();
    assert!(
        !rel.starts_with('/') && !rel.split('/').any(|c| c == ".." || c == "."),
        "{raw:?} → {rel:?}"
    );
    assert!(
        path.abs().starts_with(project.root()),
        "{raw:?} → {}",
        path.abs().display()
    );
    // The root itself is accepted as `.`, with an empty relative path.
    let again = project
        .resolve(if rel.is_empty() { "." } else { rel })
        .expect("an accepted path resolves again");
    assert_eq!(again.rel(), rel, "{raw:?}");
}

/// The configuration parser: any file is loaded or refused with a message
/// (and its line when it has one), never half-applied or a panic.
pub fn config(data: &[u8]) {
    static FILE: OnceLock<tempfile::TempDir> = OnceLock::new();
    let dir = FILE.get_or_init(|| tempfile::tempdir().unwrap());
    let file = dir
        .path()
        .join(format!("config-{:?}.toml", std::thread::current().id()));
    std::fs::write(&file, data).unwrap();
    match Config::load_from(Some(&file)) {
        Ok(config) => drop(config),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

/// Tool arguments as an agent over MCP (or the model) may send them: any
/// JSON to any tool is run or refused with a typed error, never a panic.
///
/// Bytes: the tool (the first), then the arguments as JSON.
pub fn tool_args(data: &[u8]) {
    const TOOLS: [&str; 5] = [
        "search_project",
        "read_file",
        "list_files",
        "links",
        "no_such_tool",
    ];
    let [tool, json @ ..] = data else { return };
    let Ok(args) = serde_json::from_slice::<Value>(json) else {
        return;
    };
    let tool = TOOLS[usize::from(*tool) % TOOLS.len()];
    let _ = redline::tools::run(View::disk(project()), tool, args);
}

/// A small project the targets share: notes in folders, links, front
/// matter, a table, and a file that is not text.
fn project() -> &'static Project {
    static PROJECT: OnceLock<(tempfile::TempDir, Project)> = OnceLock::new();
    &PROJECT
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let files: [(&str, &[u8]); 5] = [
                (
                    "Atlas.md",
                    b"---\ntags: [project]\n---\n# Atlas\n\nSee [[Notes/Plan|the plan]].\n",
                ),
                (
                    "Notes/Plan.md",
                    b"# Plan\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nBack to [[Atlas]].\n",
                ),
                ("Notes/Empty.md", b""),
                ("Notes/No newline.md", b"one line"),
                ("image.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"),
            ];
            for (path, bytes) in files {
                let path: PathBuf = dir.path().join(path);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, bytes).unwrap();
            }
            let project = Project::open(dir.path(), Limits::default()).unwrap();
            (dir, project)
        })
        .1
}

/// The fuzzer's bytes as the text people write: a byte below 0x60 is the
/// ASCII character 0x20 above it (a tab and a newline for two of them), so
/// the structure of Markdown, YAML and links is a byte away; a byte from
/// 0x60 is one of [`PALETTE`]'s characters (accents precomposed and
/// decomposed, CJK, right to left, Bengali, emoji and their joiners, NBSP,
/// typographic quotes). With the first byte odd, the rest is read as
/// UTF-16 instead, so every code point can come up.
pub fn text(data: &[u8]) -> String {
    let Some((&mode, rest)) = data.split_first() else {
        return String::new();
    };
    if mode & 1 == 1 {
        let units = rest
            .chunks_exact(2)
            .map(|p| u16::from_le_bytes([p[0], p[1]]));
        return char::decode_utf16(units)
            .map(|c| c.unwrap_or('\u{fffd}'))
            .collect();
    }
    rest.iter()
        .map(|&b| match b {
            0x5e => '\n',
            0x5f => '\t',
            0..0x5e => char::from(b + 0x20),
            _ => PALETTE[usize::from(b - 0x60) % PALETTE.len()],
        })
        .collect()
}

/// Characters that are not ASCII, from the scripts and traps of real notes.
const PALETTE: &[char] = &[
    'é', 'É', 'ß', 'ẞ', 'İ', 'ı', 'ø', 'Å', 'ñ', 'ü', 'Σ', 'σ', 'ς', 'Ж', 'ж', '日', '本', '語',
    '会', '議', '中', '한', '국', 'ب', 'ع', 'ر', 'ي', 'ש', 'ל', 'ו', 'ם', 'ক', '্', 'ষ', 'া',
    '\u{301}', '\u{308}', '\u{200d}', '\u{200f}', '\u{202e}', '\u{a0}', '\u{2009}', '\u{feff}',
    '“', '”', '‘', '’', '«', '»', '—', '–', '…', '🚀', '👩', '👧', '🇵', '🇹', '☕', '✓', '\u{fe0f}',
    '\u{2028}', '\r', '＃', '［', '］', '｜',
];

/// `text`'s spans are on its characters and give back what they stand for.
fn on_chars(text: &str, span: &std::ops::Range<usize>) {
    assert!(
        span.start <= span.end
            && span.end <= text.len()
            && text.is_char_boundary(span.start)
            && text.is_char_boundary(span.end),
        "{span:?} of {text:?}"
    );
}

/// The link scanner: every link found is on characters, writes back the
/// text it was read from, decodes, and moves (`with_path`) without a panic;
/// a vault of two notes plans a move of one.
pub fn links(data: &[u8]) {
    let text = text(data);
    for link in redline::links::parse(&text) {
        on_chars(&text, &link.span);
        assert_eq!(link.render(), &text[link.span.clone()]);
        let _ = (
            link.path(),
            link.heading(),
            link.with_path("Été/日本 ✓.md").render(),
        );
    }
    let index =
        redline::links::LinkIndex::build(["Note.md", "Café.md"], [("Note.md", text.as_str())]);
    let _ = index.plan_moves(
        &[("Café.md", "Archivé/Cafe\u{301} 2.md")],
        &Default::default(),
    );
}

/// The front-matter scanner: the text as a note's front matter, its links
/// found as above and its properties changed by every property operation.
pub fn front_matter(data: &[u8]) {
    let note = format!("---\n{}\n---\n# Body\n", text(data));
    for link in redline::links::parse(&note) {
        on_chars(&note, &link.span);
        assert_eq!(link.render(), &note[link.span.clone()]);
    }
    expand_on(
        &note,
        serde_json::json!([
            { "op": "set_property", "key": "status", "value": "fait ✓" },
            { "op": "rename_property", "from": "tags", "to": "étiquettes" },
            { "op": "add_to_list", "key": "aliases", "value": "Σοφία" },
            { "op": "remove_from_list", "key": "tags", "value": "Café" },
            { "op": "remove_property", "key": "title" },
        ]),
    );
}

/// The prose mask of vault-wide replacements: every part it finds is on
/// characters.
pub fn prose(data: &[u8]) {
    use redline::expand::prose::{Mask, Part};
    let text = text(data);
    let mask = Mask::of(&text);
    for part in [
        Part::FrontMatter,
        Part::Code,
        Part::Url,
        Part::LinkTarget,
        Part::Tag,
    ] {
        for range in mask.parts(part) {
            on_chars(&text, range);
        }
    }
}

/// The operation expander: every vault-wide operation over the text as a
/// note of the shared project, none of them panicking.
pub fn expand(data: &[u8]) {
    let text = text(data);
    expand_on(
        &text,
        serde_json::json!([
            { "op": "replace_text", "find": "é", "replace": "e\u{301}" },
            { "op": "replace_text", "find": "café", "replace": "☕", "whole_word": true, "case_sensitive": false },
            { "op": "rename_tag", "from": "σοφια", "to": "sophia/ß" },
            { "op": "add_to_list", "key": "tags", "value": "日本語" },
            { "op": "retarget_links", "from": "Atlas.md", "to": "Notes/Plan.md" },
            { "op": "convert_links", "to": "markdown" },
            { "op": "convert_links", "to": "wikilink" },
        ]),
    );
}

/// `ops` (JSON) expanded over the project with `Atlas.md` reading `text`;
/// refusals are fine, panics are not.
fn expand_on(text: &str, ops: Value) {
    use redline::expand::{Protection, VaultOp};
    let ops: Vec<VaultOp> = serde_json::from_value(ops).expect("valid operations");
    let mut overlay = redline::project::Overlay::new();
    overlay.insert("Atlas.md", Some(std::sync::Arc::from(text)));
    let view = View::with(project(), &overlay);
    for op in ops {
        let _ = redline::expand::expand(&view, std::slice::from_ref(&op), &Protection::default());
    }
}
