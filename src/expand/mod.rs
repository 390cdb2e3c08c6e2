//! Vault-wide operations the engine expands: a change stated once ("replace
//! Atlas with Meridian in every note of `Projects`, prose only") that the
//! engine carries out on every note it reaches, as ordinary line edits staged
//! for review with the rest of a proposal. A model asks for a 5,000-note
//! rename in one short call, and no note is rewritten by a model that could
//! truncate it (see `docs/operations.md`).
//!
//! Candidates are found through the project's warm index (the search tool's
//! matcher), read as the working state shows them, changed in memory, and
//! turned into edits by a line diff; the report says what changed, where, and
//! what was left alone and why.

pub(crate) mod front_matter;
mod links;
pub mod prose;
#[cfg(test)]
mod props;
mod protection;
pub(crate) mod replace;
pub mod scope;
mod tags;

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use similar::{DiffOp, TextDiff};

use crate::edits::{self, Operation, ProposedEdit};
use crate::project::{Guard, Reads, TextFile, View};
use crate::tools::search::{Query, find_matches};
pub use prose::Part;
pub use front_matter::{ListValue, RemoveProperty, RenameProperty, SetProperty};
pub use links::{ConvertLinks, LinkStyle, RetargetLinks};
pub use protection::Protection;
pub use replace::ReplaceText;
pub use tags::RenameTag;
pub use scope::{PropertyFilter, Scope};

/// A change stated once, which the engine carries out on every note it
/// reaches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum VaultOp {
    /// Replace a text or a regex's matches in every note of a scope.
    ReplaceText(ReplaceText),
    /// Set a front matter property.
    SetProperty(SetProperty),
    /// Rename a front matter property's key.
    RenameProperty(RenameProperty),
    /// Remove a front matter property.
    RemoveProperty(RemoveProperty),
    /// Add a value to a list property (`tags`, `aliases`).
    AddToList(ListValue),
    /// Remove a value from a list property.
    RemoveFromList(ListValue),
    /// Rename a tag and its nested tags, inline and in front matter.
    RenameTag(RenameTag),
    /// Point every link to one note at another, without moving either.
    RetargetLinks(RetargetLinks),
    /// Write every link as a wikilink or as a Markdown link.
    ConvertLinks(ConvertLinks),
}

impl VaultOp {
    /// Its name, as the tool names it.
    fn name(&self) -> &'static str {
        match self {
            VaultOp::ReplaceText(_) => "replace_text",
            VaultOp::SetProperty(_) => "set_property",
            VaultOp::RenameProperty(_) => "rename_property",
            VaultOp::RemoveProperty(_) => "remove_property",
            VaultOp::AddToList(_) => "add_to_list",
            VaultOp::RemoveFromList(_) => "remove_from_list",
            VaultOp::RenameTag(_) => "rename_tag",
            VaultOp::RetargetLinks(_) => "retarget_links",
            VaultOp::ConvertLinks(_) => "convert_links",
        }
    }

    /// The notes it reaches.
    fn scope(&self) -> &Scope {
        match self {
            VaultOp::ReplaceText(op) => &op.scope,
            VaultOp::SetProperty(op) => &op.scope,
            VaultOp::RenameProperty(op) => &op.scope,
            VaultOp::RemoveProperty(op) => &op.scope,
            VaultOp::AddToList(op) | VaultOp::RemoveFromList(op) => &op.scope,
            VaultOp::RenameTag(op) => &op.scope,
            VaultOp::RetargetLinks(op) => &op.scope,
            VaultOp::ConvertLinks(op) => &op.scope,
        }
    }

    /// Reads what it needs once for every note: its regex, the vault's
    /// links; refuses an operation that contradicts itself.
    fn prepare<'a>(&'a self, view: &View<'_>) -> Result<Prepared<'a>, ExpandError> {
        let mut prepared = Prepared::default();
        match self {
            VaultOp::ReplaceText(op) => {
                let limit = view.project().limits().max_regex_bytes;
                prepared.replacer = Some(replace::Replacer::new(op, limit)?);
            }
            VaultOp::RenameTag(op) => op.check().map_err(ExpandError::Invalid)?,
            VaultOp::RetargetLinks(op) => {
                let links = links::VaultLinks::of(view);
                op.check(&links).map_err(ExpandError::Invalid)?;
                prepared.links = Some(links);
            }
            VaultOp::ConvertLinks(_) => prepared.links = Some(links::VaultLinks::of(view)),
            _ => {}
        }
        Ok(prepared)
    }

    /// A regex every line it changes matches, and whether case matters:
    /// the index narrows the scope's notes to those with such a line.
    /// `None` when it may change any note (setting a property).
    fn narrows(&self, prepared: &Prepared<'_>) -> Option<(String, bool)> {
        let literal = |text: &str, case: bool| Some((regex::escape(text), case));
        match self {
            VaultOp::ReplaceText(_) => prepared.replacer.as_ref().and_then(replace::Replacer::search_pattern),
            VaultOp::SetProperty(_) | VaultOp::AddToList(_) => None,
            VaultOp::RenameProperty(op) => literal(&op.from, true),
            VaultOp::RemoveProperty(op) => literal(&op.key, true),
            VaultOp::RemoveFromList(op) => literal(&op.value, true),
            VaultOp::RenameTag(op) => literal(op.from.trim_start_matches('#'), false),
            VaultOp::RetargetLinks(op) => Some((op.narrows(), false)),
            VaultOp::ConvertLinks(op) => Some((op.narrows(prepared.links.as_ref()?), true)),
        }
    }

    /// What it makes of the note at `path`, whose text is `text`: `None`
    /// when nothing, `Err` with why it leaves the note alone.
    fn apply(&self, prepared: &Prepared<'_>, path: &str, text: &str) -> Result<Option<Changed>, String> {
        let whole = |new: Option<String>| {
            new.filter(|new| new != text).map(|new| Changed {
                text: new,
                occurrences: 1,
                ..Changed::default()
            })
        };
        let relinked = |done: links::Relinked| Changed {
            text: done.text,
            occurrences: done.links,
            remarks: done.left,
            ..Changed::default()
        };
        match self {
            VaultOp::ReplaceText(_) => {
                let done = prepared.replacer.as_ref().expect("prepared").apply(text);
                Ok(Some(Changed {
                    occurrences: done.at.len(),
                    text: done.text,
                    left: done.left,
                    ..Changed::default()
                }))
            }
            VaultOp::SetProperty(op) => op.edit(text).map(whole),
            VaultOp::RenameProperty(op) => op.edit(text).map(whole),
            VaultOp::RemoveProperty(op) => op.edit(text).map(whole),
            VaultOp::AddToList(op) => op.add(text).map(whole),
            VaultOp::RemoveFromList(op) => op.remove(text).map(whole),
            VaultOp::RenameTag(op) => Ok(op.edit(text)?.map(|(text, occurrences)| Changed {
                text,
                occurrences,
                ..Changed::default()
            })),
            VaultOp::RetargetLinks(op) => {
                Ok(Some(relinked(op.edit(prepared.links.as_ref().expect("prepared"), path, text))))
            }
            VaultOp::ConvertLinks(op) => {
                Ok(Some(relinked(op.edit(prepared.links.as_ref().expect("prepared"), path, text))))
            }
        }
    }
}

/// What an operation reads once for every note.
#[derive(Default)]
struct Prepared<'a> {
    /// A replacement's compiled pattern.
    replacer: Option<replace::Replacer<'a>>,
    /// The vault's files and link settings, for a link operation.
    links: Option<links::VaultLinks>,
}

/// What an operation made of one note.
#[derive(Default)]
struct Changed {
    /// The note's new text (the old one when it changed nothing).
    text: String,
    /// What it changed: occurrences replaced, tags renamed; 1 for a property.
    occurrences: usize,
    /// Occurrences left alone, by the part they were in.
    left: BTreeMap<Part, usize>,
    /// What it left alone that a reader should know of (a link that
    /// cannot be rewritten, and why), reported with the note.
    remarks: Vec<String>,
}

/// A line naming what `ops` do, for a job's title: "Replace “Atlas” with
/// “Meridian”", with "and N more" when there are several.
pub fn describe(ops: &[VaultOp]) -> String {
    let Some(first) = ops.first() else {
        return "No change".into();
    };
    let what = match first {
        VaultOp::ReplaceText(op) => format!("Replace “{}” with “{}”", op.find, op.replace),
        VaultOp::SetProperty(op) => format!("Set {} to “{}”", op.key, op.value),
        VaultOp::RenameProperty(op) => format!("Rename the property {} to {}", op.from, op.to),
        VaultOp::RemoveProperty(op) => format!("Remove the property {}", op.key),
        VaultOp::AddToList(op) => format!("Add “{}” to {}", op.value, op.key),
        VaultOp::RemoveFromList(op) => format!("Remove “{}” from {}", op.value, op.key),
        VaultOp::RenameTag(op) => format!(
            "Rename the tag #{} to #{}",
            op.from.trim_start_matches('#'),
            op.to.trim_start_matches('#')
        ),
        VaultOp::RetargetLinks(op) => format!("Point the links to {} at {}", op.from, op.to),
        VaultOp::ConvertLinks(op) => match op.to {
            Some(LinkStyle::Markdown) => "Write the links as Markdown links".into(),
            Some(LinkStyle::Wikilink) => "Write the links as wikilinks".into(),
            None => "Write the links as the vault's settings say".into(),
        },
    };
    match ops.len() {
        1 => what,
        n => format!("{what} and {} more", n - 1),
    }
}

/// Why an operation could not be expanded; nothing was staged.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExpandError {
    /// The operation contradicts itself or names something invalid; the
    /// message says what to fix.
    #[error("{0}")]
    Invalid(String),
}

/// What the operations came to: the edits to stage, and a report for each.
#[derive(Debug, Default)]
pub struct Expansion {
    /// Line edits, numbered `op_<n>`, pinned to the text they read.
    pub edits: Vec<ProposedEdit>,
    /// One report an operation, in order.
    pub reports: Vec<Report>,
    /// The notes the edits change, as they were read (for staging the
    /// edits without reading them again: see [`Reads`]).
    pub reads: Reads,
}

/// What one operation found and did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
pub struct Report {
    /// Notes in its scope that were read.
    pub notes_searched: usize,
    /// Notes it changes.
    pub notes_changed: usize,
    /// Occurrences it changes.
    pub occurrences: usize,
    /// Occurrences it left alone, by the part of the note they were in
    /// (`code`, `link_target`, …): asked for, they would change too.
    pub left_alone: BTreeMap<Part, usize>,
    /// A few of its changes, in context.
    pub samples: Vec<Sample>,
    /// Notes in scope it did not touch, and why; and the links it left
    /// alone in the notes it changed (`line N: [[link]] left alone: why`).
    pub skipped: Vec<SkippedNote>,
}

/// What one operation did, in counts: what a job's log keeps of its
/// [`Report`] (its samples and skipped notes are the preview's).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Tally {
    /// Notes it changes.
    pub notes_changed: usize,
    /// Occurrences it changes (a line may hold several).
    pub occurrences: usize,
    /// Occurrences it left alone, by the part of the note they were in.
    pub left_alone: BTreeMap<Part, usize>,
    /// Notes in its scope it did not touch (with links it left alone).
    pub skipped: usize,
}

impl Report {
    /// Its counts.
    pub fn tally(&self) -> Tally {
        Tally {
            notes_changed: self.notes_changed,
            occurrences: self.occurrences,
            left_alone: self.left_alone.clone(),
            skipped: self.skipped.len(),
        }
    }
}

/// One change, as a line before and after.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
pub struct Sample {
    /// The note.
    pub file_path: String,
    /// The line (1-based).
    pub line: usize,
    /// The line now.
    pub before: String,
    /// The line after the change.
    pub after: String,
}

/// A note an operation left alone, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
pub struct SkippedNote {
    /// The note.
    pub file_path: String,
    /// Why.
    pub reason: String,
}

/// Samples a report keeps.
const SAMPLES: usize = 5;

/// Expands `ops` over the project as `view` shows it (the working state:
/// pending hunks and unsaved typing included), changing nothing; the notes
/// `protection` covers are left out and reported. Edits of
/// several operations to the same note are composed: a later operation
/// reads what the earlier ones made of it.
pub fn expand(
    view: &View<'_>,
    ops: &[VaultOp],
    protection: &Protection,
) -> Result<Expansion, ExpandError> {
    // What each note read as, and as the operations so far left it.
    let mut texts: BTreeMap<String, (TextFile, String)> = BTreeMap::new();
    let mut reports = Vec::new();
    for op in ops {
        let prepared = op.prepare(view)?;
        let scope = op.scope();
        let mut notes = scope.notes(view)?;
        if let Some((pattern, case)) = op.narrows(&prepared) {
            let query = Query {
                pattern: &pattern,
                regex: true,
                case_sensitive: Some(case),
                glob: None,
            };
            let holding: BTreeSet<String> = find_matches(*view, &query)
                .map_err(|e| ExpandError::Invalid(format!("{}: {e}", op.name())))?
                .into_iter()
                .map(|f| f.path)
                .collect();
            // A note an earlier operation changed is read as it left it.
            notes.retain(|n| holding.contains(n) || texts.contains_key(n));
        }
        // Each note on its own, on every core; then taken in, in order. A
        // guard a worker: it reads the ignore files once, not once a note.
        let outcomes: Vec<(String, Outcome)> = notes
            .into_par_iter()
            .map_init(
                || view.project().guard(),
                |guard, path| {
                    let outcome = visit(view, guard, &texts, &path, op, &prepared, protection);
                    (path, outcome)
                },
            )
            .collect();
        let mut report = Report::default();
        for (path, outcome) in outcomes {
            let (current, done) = match outcome {
                Outcome::Unread(reason) => {
                    report.skipped.push(SkippedNote { file_path: path, reason });
                    continue;
                }
                Outcome::Skipped(reason) => {
                    report.notes_searched += 1;
                    report.skipped.push(SkippedNote { file_path: path, reason });
                    continue;
                }
                Outcome::Unchanged(done) => {
                    report.notes_searched += 1;
                    add_left(&mut report, &done, &path);
                    continue;
                }
                Outcome::Changed(read, done) => (read, done),
            };
            report.notes_searched += 1;
            add_left(&mut report, &done, &path);
            report.notes_changed += 1;
            report.occurrences += done.occurrences;
            if report.samples.len() < SAMPLES {
                report.samples.extend(sample(&path, current.text(), &done.text));
            }
            match current {
                Read::Earlier(_) => {
                    if let Some((_, now)) = texts.get_mut(&path) {
                        *now = done.text;
                    }
                }
                Read::File(file) => {
                    texts.insert(path, (file, done.text));
                }
            }
        }
        reports.push(report);
    }
    // The line diffs, on every core too.
    let per_note: Vec<Vec<ProposedEdit>> = texts
        .par_iter()
        .map(|(path, (before, after))| edits_between(path, &before.text, after))
        .collect();
    let mut edits: Vec<ProposedEdit> = per_note.into_iter().flatten().collect();
    for (n, edit) in edits.iter_mut().enumerate() {
        edit.edit_id = format!("op_{}", n + 1);
    }
    // What the working state gave is read from it again, as it may be by then.
    let from_disk = |path: &str| view.overlay().is_none_or(|o| o.get(path).is_none());
    let reads = texts
        .into_iter()
        .filter(|(path, _)| from_disk(path))
        .map(|(path, (read, _))| (path, read))
        .collect();
    Ok(Expansion {
        edits,
        reports,
        reads,
    })
}

/// What an operation came to in one note.
enum Outcome {
    /// It could not be read: why.
    Unread(String),
    /// Left alone: why (protected, its front matter does not parse, …).
    Skipped(String),
    /// Nothing to change; what was left alone in it.
    Unchanged(Changed),
    /// Its text before, and what the operation made of it.
    Changed(Read, Changed),
}

/// A note's text before an operation.
enum Read {
    /// As read through the view, with its hash.
    File(TextFile),
    /// As an earlier operation left it.
    Earlier(String),
}

impl Read {
    fn text(&self) -> &str {
        match self {
            Read::File(file) => &file.text,
            Read::Earlier(text) => text,
        }
    }
}

/// Adds what `done` left alone in the note at `path` to `report`.
fn add_left(report: &mut Report, done: &Changed, path: &str) {
    for (part, n) in &done.left {
        *report.left_alone.entry(*part).or_default() += n;
    }
    report.skipped.extend(done.remarks.iter().map(|remark| SkippedNote {
        file_path: path.to_owned(),
        reason: remark.clone(),
    }));
}

/// Carries `op` out on the note at `path`, as the operations before it
/// left it (`texts`) or as `view` shows it.
fn visit(
    view: &View<'_>,
    guard: &mut Guard<'_>,
    texts: &BTreeMap<String, (TextFile, String)>,
    path: &str,
    op: &VaultOp,
    prepared: &Prepared<'_>,
    protection: &Protection,
) -> Outcome {
    let read = match texts.get(path) {
        Some((_, now)) => Read::Earlier(now.clone()),
        None => match guard.resolve(path).and_then(|path| view.read_resolved(path)) {
            Ok(file) => Read::File(file),
            Err(e) => return Outcome::Unread(e.to_string()),
        },
    };
    let current = read.text();
    if let Some(why) = protection.why(path, Some(current)) {
        return Outcome::Skipped(format!("protected: {why}"));
    }
    let admitted = match op.scope().admits_text(current) {
        Ok(admitted) => admitted,
        Err(reason) => return Outcome::Skipped(reason),
    };
    if !admitted {
        return Outcome::Unchanged(Changed::default());
    }
    match op.apply(prepared, path, current) {
        Err(reason) => Outcome::Skipped(reason),
        Ok(None) => Outcome::Unchanged(Changed::default()),
        Ok(Some(done)) if done.occurrences == 0 || done.text == current => Outcome::Unchanged(done),
        Ok(Some(done)) => Outcome::Changed(read, done),
    }
}
/// The first line `after` changes of `before`, as it was and as it is.
fn sample(path: &str, before: &str, after: &str) -> Option<Sample> {
    let old: Vec<&str> = before.split_inclusive('\n').collect();
    let new: Vec<&str> = after.split_inclusive('\n').collect();
    let i = (0..old.len().max(new.len())).find(|&i| old.get(i) != new.get(i))?;
    let line = |lines: &[&str]| lines.get(i).map_or("", |l| edits::lines::content(l)).to_owned();
    Some(Sample {
        file_path: path.to_owned(),
        line: i + 1,
        before: line(&old),
        after: line(&new),
    })
}

/// The line edits that turn `before` into `after` in `path`, pinned to
/// `before` (unnumbered: the caller numbers a proposal's edits).
pub fn edits_between(path: &str, before: &str, after: &str) -> Vec<ProposedEdit> {
    let old: Vec<&str> = before.split_inclusive('\n').collect();
    let new: Vec<&str> = after.split_inclusive('\n').collect();
    let diff = TextDiff::from_slices(&old, &new);
    let mut edits = Vec::new();
    for op in diff.ops() {
        let (removed, inserted) = match *op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete { old_index, old_len, .. } => (old_index..old_index + old_len, 0..0),
            DiffOp::Insert { old_index, new_index, new_len } => (old_index..old_index, new_index..new_index + new_len),
            DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                (old_index..old_index + old_len, new_index..new_index + new_len)
            }
        };
        let new_text: String = new[inserted.clone()]
            .iter()
            .map(|l| edits::lines::content(l))
            .collect::<Vec<_>>()
            .join("\n");
        let operation = match (removed.is_empty(), inserted.is_empty()) {
            (true, _) => Operation::Insert,
            (false, true) => Operation::Delete,
            (false, false) => Operation::Replace,
        };
        let mut edit = ProposedEdit {
            edit_id: String::new(),
            file_path: path.to_owned(),
            operation,
            start_line: removed.start + 1,
            end_line: (!removed.is_empty()).then_some(removed.end),
            new_text,
            old_text: None,
            expected_hash: None,
            rationale: String::new(),
            new_path: None,
        };
        edits::pin(&mut edit, before);
        edits.push(edit);
    }
    edits
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::config::Limits;
    use crate::project::{Overlay, Project};

    #[test]
    fn staging_is_handed_the_notes_read_from_disk_and_no_buffer() {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in [("a.md", "Atlas\n"), ("b.md", "Atlas\n"), ("c.md", "none\n")] {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        let project = Project::open(dir.path(), Limits::default()).unwrap();
        let mut overlay = Overlay::new();
        overlay.insert("b.md", Some(Arc::from("Atlas, typed\n")));
        let rename = VaultOp::ReplaceText(ReplaceText {
            find: "Atlas".into(),
            replace: "Meridian".into(),
            regex: false,
            whole_word: true,
            case_sensitive: true,
            scope: Scope::default(),
            include: Vec::new(),
        });
        let view = View::with(&project, &overlay);
        let expansion = expand(&view, &[rename], &Protection::default()).unwrap();
        assert_eq!(expansion.edits.len(), 2, "a.md and b.md's buffer");
        let read: Vec<&str> = expansion.reads.keys().map(String::as_str).collect();
        assert_eq!(read, ["a.md"], "what the disk gave, changed; no buffer");
        let a = &expansion.reads["a.md"];
        assert_eq!(
            (a.text.as_str(), a.hash.as_str()),
            ("Atlas\n", crate::project::text::content_hash(b"Atlas\n").as_str())
        );
    }
}
