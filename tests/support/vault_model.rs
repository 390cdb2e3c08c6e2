//! The reference vault the model tests drive (`tests/model.rs` in
//! process, `tests/model_http.rs` through a running `redline serve`): four
//! notes that link each other, the steps that happen to it, and how its
//! links are read from a working state.

#![allow(dead_code)]

use std::collections::BTreeMap;

use proptest::prelude::*;
use redline::testkit::text;

/// The notes, each linking the next two.
pub const NOTES: [&str; 4] = ["Alpha", "Beta", "Gamma", "Delta"];

/// Note `i`'s text as the vault starts: a front matter in the text people
/// write ([`FRONT`] lines), then its heading, its links and two lines.
pub fn note(i: usize) -> String {
    format!(
        "---\ndescription: “{}” — {}\naliases: [{}, {}]\n---\n\
         # {}\n\nLinks: [[{}]] and [[{}]].\n\nline one\nline two\n",
        NOTES[i],
        text::phrase(i),
        text::name(i),
        text::name(i + 7),
        NOTES[i],
        NOTES[(i + 1) % 4],
        NOTES[(i + 2) % 4]
    )
}

/// The lines of a note's front matter: a step's line numbers count from
/// the line after it (line 1 is the heading).
pub const FRONT: usize = 4;

/// Whether `text` is note `i`'s: its heading opens the body, after the
/// front matter if it has one.
pub fn is_note(text: &str, i: usize) -> bool {
    let body = match text
        .strip_prefix("---\n")
        .and_then(|t| t.split_once("\n---\n"))
    {
        Some((_, body)) => body,
        None => text,
    };
    body.starts_with(&format!("# {}\n", NOTES[i]))
}

/// Text a step writes: a few letters, an accent, CJK, right to left.
pub const WRITTEN: &str = "[a-zéß日本ب ]{1,6}";

/// One thing that happens to the vault.
#[derive(Clone, Debug)]
pub enum Step {
    /// A run replaces line `line` of a note with `text`.
    Edit {
        note: usize,
        line: usize,
        text: String,
    },
    /// A run moves a note into `Archive/`.
    Move { note: usize },
    /// A run deletes a note.
    Delete { note: usize },
    /// A pending hunk (the `pick`th; not a link update, which follows its
    /// move) accepted or rejected.
    Decide { pick: usize, accept: bool },
    /// A decided hunk's decision undone.
    Undo { pick: usize },
    /// A move's own link update (the `pick`th, its move counting) rejected
    /// by name: the user leaving that link naming the note's old path.
    LeaveLink { pick: usize },
    /// The user types a line at the end of a note.
    Type { note: usize },
    /// Every file under review saved, one by one.
    Save,
    /// The note shown at `note` saved alone (with the notes a move ties to it).
    SaveOne { note: usize },
    /// Every pending hunk of the `pick`th run decided at once, as one step
    /// of the history (the run's "Accept all" without writing, or its
    /// "Reject all pending").
    DecideRun { pick: usize, accept: bool },
    /// Every pending hunk of the note shown at `note` accepted at once
    /// (the editor's "Accept all in file", Alt+A), with what each carries
    /// into other notes.
    AcceptFile { note: usize },
    /// The newest step of the decision history undone; with `redo`, done
    /// again at once.
    UndoLast { redo: bool },
    /// Save all: every file with unsaved work written as one batch; with
    /// `crash`, the process dies once that many files are written and the
    /// workspace is opened again.
    SaveAll { crash: Option<usize> },
    /// Another program appends a line to a note on disk; with `review`,
    /// taken in as hunks to review where the note can be (outside changes
    /// in review mode), else reloaded or a conflict.
    Outside { note: usize, review: bool },
    /// A terminal agent's write to a note, reviewed through its hook: the
    /// note's decided text (what a save of it would write; over HTTP, a
    /// line appended, staged and accepted) written by the agent itself.
    AgentWrite { note: usize },
    /// A hard rollback to the `pick`th run's checkpoint, then (with `undo`)
    /// its undo.
    Rollback { pick: usize, undo: bool },
    /// A scoped rollback of one hunk (the `hunk`th) of the `pick`th run's
    /// checkpoint, then (with `undo`) its undo.
    Scoped {
        pick: usize,
        hunk: usize,
        undo: bool,
    },
    /// The `pick`th run applied: its hunks accepted where `accept`'s bits
    /// say (one bit a hunk, in turn), the rest rejected, and its files
    /// saved. With `crash`, the process dies once that many files are
    /// written and the workspace is opened again.
    Apply {
        pick: usize,
        accept: u8,
        crash: Option<usize>,
    },
    /// The workspace closed and opened again.
    Restart,
    /// A run replaces `WORDS[word]` with `with` across the vault, stated
    /// once as a `replace_text` operation the engine expands (prose only).
    Replace {
        word: usize,
        with: String,
        whole_word: bool,
    },
    /// A run points every link to note `from` at note `to`, stated once as
    /// a `retarget_links` operation the link engine expands.
    Retarget { from: usize, to: usize },
    /// A run over every note, one at a time (`edit_each_note`): line `line`
    /// of each replaced with `text`, each note staged as it comes into the
    /// job's one checkpoint.
    EachNote { line: usize, text: String },
    /// A run writes every link as a Markdown link (or, without `markdown`,
    /// as a wikilink), stated once as a `convert_links` operation.
    Convert { markdown: bool },
}

/// What a [`Step::Replace`] looks for: prose of the notes but never their
/// headings (a note is known by its heading), and a piece of two words.
pub const WORDS: [&str; 5] = ["line", "one", "Links", "and", "ne"];

/// One step, weighted as people and agents do them.
pub fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (0..4usize, 3..=6usize, WRITTEN).prop_map(|(note, line, text)| Step::Edit { note, line, text }),
        1 => (0..4usize).prop_map(|note| Step::Move { note }),
        1 => (0..4usize).prop_map(|note| Step::Delete { note }),
        4 => (any::<usize>(), any::<bool>()).prop_map(|(pick, accept)| Step::Decide { pick, accept }),
        1 => any::<usize>().prop_map(|pick| Step::Undo { pick }),
        1 => any::<usize>().prop_map(|pick| Step::LeaveLink { pick }),
        2 => (0..4usize).prop_map(|note| Step::Type { note }),
        3 => Just(Step::Save),
        1 => (0..4usize).prop_map(|note| Step::SaveOne { note }),
        1 => (any::<usize>(), any::<bool>()).prop_map(|(pick, accept)| Step::DecideRun { pick, accept }),
        1 => (0..4usize).prop_map(|note| Step::AcceptFile { note }),
        2 => any::<bool>().prop_map(|redo| Step::UndoLast { redo }),
        2 => proptest::option::of(0..3usize).prop_map(|crash| Step::SaveAll { crash }),
        1 => (0..4usize, any::<bool>()).prop_map(|(note, review)| Step::Outside { note, review }),
        1 => (0..4usize).prop_map(|note| Step::AgentWrite { note }),
        2 => (any::<usize>(), any::<bool>()).prop_map(|(pick, undo)| Step::Rollback { pick, undo }),
        1 => (any::<usize>(), any::<usize>(), any::<bool>())
            .prop_map(|(pick, hunk, undo)| Step::Scoped { pick, hunk, undo }),
        1 => (any::<usize>(), any::<u8>(), proptest::option::of(0..3usize))
            .prop_map(|(pick, accept, crash)| Step::Apply { pick, accept, crash }),
        1 => Just(Step::Restart),
        1 => (0..WORDS.len(), WRITTEN, any::<bool>())
            .prop_map(|(word, with, whole_word)| Step::Replace { word, with, whole_word }),
        1 => (0..4usize, 0..4usize).prop_map(|(from, to)| Step::Retarget { from, to }),
        1 => (3..=6usize, WRITTEN).prop_map(|(line, text)| Step::EachNote { line, text }),
        1 => any::<bool>().prop_map(|markdown| Step::Convert { markdown }),
    ]
}

/// Where the working state shows note `i`, if anywhere.
pub fn shown_at(shown: &BTreeMap<String, String>, i: usize) -> Option<String> {
    shown
        .iter()
        .find(|(_, text)| is_note(text, i))
        .map(|(path, _)| path.clone())
}

/// Where the working state shows the notes of a [`Step::Retarget`], when
/// both are shown and are not one note.
pub fn retarget_paths(
    shown: &BTreeMap<String, String>,
    from: usize,
    to: usize,
) -> Option<(String, String)> {
    let (from, to) = (shown_at(shown, from)?, shown_at(shown, to)?);
    (from != to).then_some((from, to))
}

/// A link a decision says it leaves (`links_left`: the note at `path`
/// links to where the note under review by `from` was), as [`broken`]
/// names it (`Gamma -> Alpha`). A note is known by its file's name (a
/// moved note is `Archive/Alpha 12.md`), shown or not: one a pending
/// deletion hides shows the link again once the deletion is rejected.
pub fn left_pair(path: &str, from: &str) -> Option<String> {
    let note = |path: &str| {
        let stem = path.rsplit('/').next()?.split([' ', '.']).next()?;
        NOTES.iter().position(|n| *n == stem)
    };
    Some(format!("{} -> {}", NOTES[note(path)?], NOTES[note(from)?]))
}

/// The file names (`.md` left off) `text`'s links name, in the order they
/// come: a wikilink's name (`[[Beta 12|Beta]]`) and a Markdown link's file
/// (`[Beta](Archive/Beta%2012.md)`), subpaths and aliases left off.
fn link_names(text: &str) -> Vec<String> {
    let wiki = text.match_indices("[[").filter_map(|(at, _)| {
        let link = text[at + 2..].split("]]").next()?;
        let name = link.split(['|', '#']).next().unwrap();
        Some((at, name.strip_suffix(".md").unwrap_or(name).to_owned()))
    });
    let markdown = text.match_indices("](").filter_map(|(at, _)| {
        let target = text[at + 2..].split(')').next()?;
        let path = target.split('#').next().unwrap().replace("%20", " ");
        let name = path.rsplit('/').next().unwrap();
        Some((at, name.strip_suffix(".md").unwrap_or(name).to_owned()))
    });
    let mut all: Vec<(usize, String)> = wiki.chain(markdown).collect();
    all.sort_by_key(|(at, _)| *at);
    all.into_iter().map(|(_, name)| name).collect()
}

/// Every link of the working state, as (the note it is in, the note it
/// names, whether it resolves): a note is known by its heading, a link by
/// the note its name starts with (a moved note is `Alpha 12`), whether it
/// is a wikilink or a Markdown link.
pub fn links(shown: &BTreeMap<String, String>) -> Vec<(usize, usize, bool)> {
    by_note(shown)
        .into_iter()
        .flat_map(|(from, links)| {
            links
                .into_iter()
                .map(move |(to, resolves)| (from, to, resolves))
        })
        .collect()
}

/// Each shown note's links in order, as (the note each names, whether it
/// resolves).
fn by_note(shown: &BTreeMap<String, String>) -> BTreeMap<usize, Vec<(usize, bool)>> {
    let stems: Vec<&str> = shown
        .keys()
        .map(|p| p.rsplit('/').next().unwrap().trim_end_matches(".md"))
        .collect();
    let mut out = BTreeMap::new();
    for (from, _) in NOTES.iter().enumerate() {
        let Some(path) = shown_at(shown, from) else {
            continue;
        };
        let links = link_names(&shown[&path])
            .into_iter()
            .filter_map(|stem| {
                let name = stem.split(' ').next().unwrap();
                let to = NOTES.iter().position(|n| *n == name)?;
                Some((to, stems.contains(&stem.as_str())))
            })
            .collect();
        out.insert(from, links);
    }
    out
}

/// The links that resolved in `before` and dangle in `after` while both
/// notes are shown: a link left behind by a move, or brought back without
/// it. A link is known by its place among its note's links and the note it
/// names, so a link that already dangled before the step is not taken for
/// one it broke, nor is a link a rejection brings back in place of another
/// (a retarget's old link to a note moved since, which dangles as rejecting
/// always may).
pub fn broken(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> Vec<String> {
    let (was, now) = (by_note(before), by_note(after));
    let mut out: Vec<String> = now
        .iter()
        .filter_map(|(from, links)| Some((*from, links, was.get(from)?)))
        .flat_map(|(from, links, then)| {
            links
                .iter()
                .zip(then)
                .filter(|((to, resolves), (to_then, resolved))| {
                    to == to_then && *resolved && !resolves
                })
                .map(move |((to, _), _)| (from, *to))
        })
        .filter(|&(_, to)| shown_at(after, to).is_some())
        .map(|(from, to)| format!("{} -> {}", NOTES[from], NOTES[to]))
        .collect();
    out.dedup();
    out
}

/// A run replacing line `line` of note `note` with "a".
pub fn edit(note: usize, line: usize) -> Step {
    Step::Edit {
        note,
        line,
        text: "a".into(),
    }
}

/// A step replacing word `word` of [`WORDS`] with `a` across the vault.
pub fn replace(word: usize) -> Step {
    Step::Replace {
        word,
        with: "a".into(),
        whole_word: false,
    }
}
