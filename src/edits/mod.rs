//! Proposed edits: what a model (or any external agent) asks to change, checked
//! against the files as they are now and composed into proposed file contents.
//!
//! Models are bad at line numbers and cannot compute hashes, so an edit's
//! target is verified, never trusted: its lines must hash to `expected_hash`
//! (or equal `old_text`). When they do not, but `old_text` occurs exactly once
//! within [`Limits::edit_relocation_window`](crate::config::Limits) lines of
//! the stated range, the edit is moved there and the move is recorded. An edit
//! never lands on text it did not target.

mod file_ops;
pub(crate) mod lines;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use rayon::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::project::{PathError, ProjectPath, View};
pub use file_ops::{FileOp, FileOpProposal, prepare_file_ops};
use lines::{Lines, content, edit_lines, range_hash};

/// What an edit does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    /// Replace lines `start_line..=end_line` with `new_text`.
    Replace,
    /// Insert `new_text` before `start_line` (`total_lines + 1` appends).
    Insert,
    /// Delete lines `start_line..=end_line`; `new_text` must be empty.
    Delete,
    /// Create a new file with `new_text`; fails if the file exists.
    Create,
    /// Move (rename) the whole file to `new_path`; links to it follow by
    /// themselves. Fails if a file is at `new_path`.
    Move,
    /// Delete the whole file.
    DeleteFile,
}

impl Operation {
    /// Whether it changes a whole file (`move`, `delete_file`) rather than
    /// its lines.
    pub fn is_file_op(self) -> bool {
        matches!(self, Operation::Move | Operation::DeleteFile)
    }
}

/// One change a model proposes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct ProposedEdit {
    /// An id unique within the proposal, e.g. `e_1`.
    pub edit_id: String,
    /// The file, relative to the project root.
    pub file_path: String,
    /// What to do.
    pub operation: Operation,
    /// First target line (1-based). Default 1.
    #[serde(default = "one")]
    pub start_line: usize,
    /// Last target line (inclusive). Default `start_line`. Ignored by insert and create.
    #[serde(default)]
    pub end_line: Option<usize>,
    /// The new text of the target lines. Empty for delete.
    #[serde(default)]
    pub new_text: String,
    /// The exact current text of the target lines (for insert: of the lines the
    /// text goes before), used to find them if the line numbers are off.
    #[serde(default)]
    pub old_text: Option<String>,
    /// `sha256:` of the target lines as last read, each line's text followed
    /// by `\n` (see [`lines::range_hash`]). Computed by the engine for agent runs.
    #[serde(default)]
    pub expected_hash: Option<String>,
    /// Why, in a sentence.
    #[serde(default)]
    pub rationale: String,
    /// Where `move` takes the file, relative to the project root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub new_path: Option<String>,
}

fn one() -> usize {
    1
}

/// Why an edit was refused.
#[derive(Debug, thiserror::Error)]
#[error("edit {edit_id} on `{file_path}`: {kind}")]
pub struct EditError {
    /// The refused edit.
    pub edit_id: String,
    /// Its file.
    pub file_path: String,
    /// What is wrong.
    pub kind: EditErrorKind,
}

/// What is wrong with an edit; each message says what to do instead.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EditErrorKind {
    /// The path guard or the text rules refused the file.
    #[error(transparent)]
    Path(#[from] PathError),
    /// The range does not fit the file.
    #[error(
        "lines {start}-{end} are outside the file, which has {total} lines; read it again for the right numbers"
    )]
    OutOfRange {
        /// First line asked for.
        start: usize,
        /// Last line asked for.
        end: usize,
        /// Lines in the file.
        total: usize,
    },
    /// The edit contradicts itself.
    #[error("{0}")]
    Invalid(String),
    /// Two edits of one proposal touch the same lines.
    #[error("it overlaps edit {other}; merge the two into one edit")]
    Overlap {
        /// The other edit.
        other: String,
    },
    /// The target lines changed and there is no `old_text` to find them by.
    #[error(
        "lines {start}-{end} no longer hash to {expected}: the file changed since it was read; read it again and resend the edit (with old_text)"
    )]
    Stale {
        /// First target line.
        start: usize,
        /// Last target line.
        end: usize,
        /// The hash the edit expected.
        expected: String,
    },
    /// `old_text` is not within the window around the stated range.
    #[error(
        "old_text was not found at lines {start}-{end} nor within {window} lines of them; read the file again"
    )]
    AnchorNotFound {
        /// First target line.
        start: usize,
        /// Last target line.
        end: usize,
        /// The window searched on each side.
        window: usize,
    },
    /// `old_text` occurs more than once within the window.
    #[error("old_text occurs {} times near lines {start}-{end} (at lines {}); give the exact line numbers or a longer old_text", candidates.len(), join(candidates))]
    AnchorAmbiguous {
        /// First target line.
        start: usize,
        /// Last target line.
        end: usize,
        /// Where it occurs (1-based first lines).
        candidates: Vec<usize>,
    },
    /// `create` names an existing file.
    #[error("the file already exists; use replace or insert to change it")]
    AlreadyExists,
    /// The note is protected by the folder's settings: no proposal may
    /// change it.
    #[error("the note is protected ({0}); leave it unchanged")]
    Protected(String),
}

impl EditErrorKind {
    /// The stable, machine-readable name of the problem. Path refusals use the
    /// guard's rule names.
    pub fn code(&self) -> &'static str {
        match self {
            EditErrorKind::Path(e) => e.rule(),
            EditErrorKind::OutOfRange { .. } => "out_of_range",
            EditErrorKind::Invalid(_) => "invalid_edit",
            EditErrorKind::Overlap { .. } => "overlap",
            EditErrorKind::Stale { .. } => "stale_target",
            EditErrorKind::AnchorNotFound { .. } => "anchor_not_found",
            EditErrorKind::AnchorAmbiguous { .. } => "anchor_ambiguous",
            EditErrorKind::AlreadyExists => "already_exists",
            EditErrorKind::Protected(_) => "protected",
        }
    }
}

fn join(lines: &[usize]) -> String {
    lines
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where an accepted edit sits, in 0-based line indexes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlacedEdit {
    /// The edit.
    pub edit_id: String,
    /// First line it replaces in the base.
    pub old_start: usize,
    /// Lines it replaces in the base.
    pub old_len: usize,
    /// First line of its text in the proposed content.
    pub new_start: usize,
    /// Lines of its text in the proposed content.
    pub new_len: usize,
    /// The 1-based line the edit named, when `old_text` moved it elsewhere.
    pub relocated_from: Option<usize>,
}

/// The proposal for one file: its base, its proposed content, and the edits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileProposal {
    /// The file, relative to the project root.
    pub file_path: String,
    /// Whether the file is new.
    pub created: bool,
    /// Its content now, as the view shows it (empty for a new file).
    pub base: String,
    /// `sha256:` of `base` (the bytes on disk for a file with no working
    /// buffer); `None` for a new file.
    pub base_file_hash: Option<String>,
    /// Its content with every edit applied.
    pub proposed: String,
    /// The edits, in the order of their place in the file.
    pub edits: Vec<PlacedEdit>,
}

/// Pins `edit` to `read_version`, the text the model read when it made the
/// edit: `expected_hash` becomes the hash of its target lines there, and
/// `old_text` (unless the model gave one) their text, so the edit can be found
/// again if the file moved on. Models cannot compute hashes; the engine does.
/// A range outside `read_version` is left for [`prepare`] to refuse.
pub fn pin(edit: &mut ProposedEdit, read_version: &str) {
    let lines = Lines::new(read_version);
    let start = edit.start_line.max(1) - 1;
    let len = match edit.operation {
        Operation::Replace | Operation::Delete => edit
            .end_line
            .unwrap_or(edit.start_line)
            .saturating_sub(start),
        Operation::Insert => usize::from(start < lines.len()),
        Operation::Create | Operation::Move | Operation::DeleteFile => return,
    };
    let Some(target) = lines.lines.get(start..start + len) else {
        return;
    };
    edit.expected_hash = Some(range_hash(target.iter().copied()));
    if edit.old_text.is_none() && !target.is_empty() {
        edit.old_text = Some(
            target
                .iter()
                .map(|l| content(l))
                .collect::<Vec<_>>()
                .join("\n"),
        );
    }
}

/// Checks `edits` against the project as `view` shows it (a `&Project`: the
/// disk; the workspace's view: the working buffers) and composes each file's
/// proposed content on that text. Every refused edit is reported; nothing is
/// written.
pub fn prepare<'a>(
    view: impl Into<View<'a>>,
    edits: &[ProposedEdit],
) -> Result<Vec<FileProposal>, Vec<EditError>> {
    let view = view.into();
    let project = view.project();
    let mut errors = Vec::new();
    let mut ids = std::collections::HashSet::new();
    // Each distinct spelling goes through the guard once, on every core (a
    // guard is per thread: it holds the ignore rules it read).
    let mut spellings: Vec<&str> = Vec::new();
    let mut first: HashMap<&str, usize> = HashMap::new();
    // Whole-file operations are checked by `prepare_file_ops`.
    let edits: Vec<&ProposedEdit> = edits.iter().filter(|e| !e.operation.is_file_op()).collect();
    for edit in &edits {
        first.entry(&edit.file_path).or_insert_with(|| {
            spellings.push(&edit.file_path);
            spellings.len() - 1
        });
    }
    let resolved: Vec<Result<ProjectPath, PathError>> = spellings
        .par_iter()
        .with_min_len(PAR_MIN)
        .map_init(|| project.guard(), |guard, raw| guard.resolve(raw))
        .collect();
    let mut by_file: BTreeMap<String, (ProjectPath, Vec<&ProposedEdit>)> = BTreeMap::new();
    for &edit in &edits {
        let fail = |kind| EditError {
            edit_id: edit.edit_id.clone(),
            file_path: edit.file_path.clone(),
            kind,
        };
        if !ids.insert(edit.edit_id.as_str()) {
            errors.push(fail(EditErrorKind::Invalid(
                "its edit_id is used twice".into(),
            )));
            continue;
        }
        match &resolved[first[edit.file_path.as_str()]] {
            Ok(path) => by_file
                .entry(path.rel().to_owned())
                .or_insert_with(|| (path.clone(), Vec::new()))
                .1
                .push(edit),
            // The error is reported for every edit of the path, each by its own id.
            Err(_) => errors.push(fail(
                project
                    .resolve(&edit.file_path)
                    .expect_err("refused above")
                    .into(),
            )),
        }
    }
    let window = project.limits().edit_relocation_window;
    // Files are read and their edits placed on every core: a vault-wide
    // proposal is thousands of small files.
    let by_file: Vec<_> = by_file.into_values().collect();
    let prepared: Vec<Result<FileProposal, Vec<EditError>>> = by_file
        .into_par_iter()
        .with_min_len(PAR_MIN)
        .map(|(path, edits)| prepare_file(&view, path, &edits, window))
        .collect();
    let mut files = Vec::with_capacity(prepared.len());
    for file in prepared {
        match file {
            Ok(file) => files.push(file),
            Err(mut e) => errors.append(&mut e),
        }
    }
    if errors.is_empty() {
        return Ok(files);
    }
    // Report in the order the edits were given.
    errors.sort_by_key(|e| edits.iter().position(|x| x.edit_id == e.edit_id));
    Err(errors)
}

/// Files below this many go to one thread (a thread costs more than they do).
const PAR_MIN: usize = 64;

fn prepare_file(
    view: &View<'_>,
    resolved: ProjectPath,
    edits: &[&ProposedEdit],
    window: usize,
) -> Result<FileProposal, Vec<EditError>> {
    let path = resolved.rel().to_owned();
    let path = path.as_str();
    let fail = |edit: &ProposedEdit, kind| EditError {
        edit_id: edit.edit_id.clone(),
        file_path: edit.file_path.clone(),
        kind,
    };
    if let Some(create) = edits.iter().find(|e| e.operation == Operation::Create) {
        if let Some(other) = edits.iter().find(|e| e.edit_id != create.edit_id) {
            return Err(vec![fail(
                other,
                EditErrorKind::Overlap {
                    other: create.edit_id.clone(),
                },
            )]);
        }
        return match view.read_resolved(resolved) {
            Err(PathError::NotFound(_)) => Ok(FileProposal {
                file_path: path.to_owned(),
                created: true,
                base: String::new(),
                base_file_hash: None,
                proposed: create.new_text.clone(),
                edits: vec![PlacedEdit {
                    edit_id: create.edit_id.clone(),
                    old_start: 0,
                    old_len: 0,
                    new_start: 0,
                    new_len: Lines::new(&create.new_text).len(),
                    relocated_from: None,
                }],
            }),
            Ok(_) => Err(vec![fail(create, EditErrorKind::AlreadyExists)]),
            Err(e) => Err(vec![fail(create, e.into())]),
        };
    }

    let file = view.read_resolved(resolved).map_err(|e| {
        // The same refusal applies to every edit of the file; report it once.
        vec![fail(edits[0], e.into())]
    })?;
    let lines = Lines::new(&file.text);
    let mut targets = Vec::new();
    let mut errors = Vec::new();
    for (order, edit) in edits.iter().enumerate() {
        match locate(edit, &lines, window) {
            Ok(target) => targets.push((target, order)),
            Err(kind) => errors.push(fail(edit, kind)),
        }
    }
    // Inserts go before a replacement that starts at the same line.
    targets.sort_by_key(|(t, order)| (t.start, t.len > 0, *order));
    for pair in targets.windows(2) {
        let ((a, a_order), (b, b_order)) = (&pair[0], &pair[1]);
        if b.start < a.start + a.len {
            errors.push(fail(
                edits[*b_order],
                EditErrorKind::Overlap {
                    other: edits[*a_order].edit_id.clone(),
                },
            ));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }

    let mut out: Vec<Cow<'_, str>> = Vec::with_capacity(lines.len());
    let mut placed = Vec::new();
    let mut next = 0;
    for (target, order) in &targets {
        let edit = edits[*order];
        extend(
            &mut out,
            lines.lines[next..target.start]
                .iter()
                .map(|l| Cow::Borrowed(*l)),
            &lines,
        );
        let eol = lines.eol_at(target.start);
        let new_start = out.len();
        let new_lines: Vec<&str> = edit_lines(&edit.new_text);
        extend(
            &mut out,
            new_lines.iter().map(|l| Cow::Owned(format!("{l}{eol}"))),
            &lines,
        );
        placed.push(PlacedEdit {
            edit_id: edit.edit_id.clone(),
            old_start: target.start,
            old_len: target.len,
            new_start,
            new_len: new_lines.len(),
            relocated_from: target.relocated_from,
        });
        next = target.start + target.len;
    }
    extend(
        &mut out,
        lines.lines[next..].iter().map(|l| Cow::Borrowed(*l)),
        &lines,
    );
    // The file keeps its final-newline state, whatever the edits did at its end.
    if let Some(last) = out.last_mut() {
        let text = content(last);
        if lines.ends_with_newline() {
            if !last.ends_with('\n') {
                *last = Cow::Owned(format!("{last}{}", lines.eol_at(lines.len())));
            }
        } else if text.len() != last.len() {
            *last = Cow::Owned(text.to_owned());
        }
    }
    let mut proposed = String::with_capacity(file.text.len());
    proposed.push_str(lines.bom);
    for line in &out {
        proposed.push_str(line);
    }
    Ok(FileProposal {
        file_path: path.to_owned(),
        created: false,
        base_file_hash: Some(file.hash),
        base: file.text.clone(),
        proposed,
        edits: placed,
    })
}

/// Appends lines, giving the previous last line a terminator if it had none
/// (a line can only lack one at the very end of a file).
fn extend<'a>(
    out: &mut Vec<Cow<'a, str>>,
    new: impl Iterator<Item = Cow<'a, str>>,
    lines: &Lines<'_>,
) {
    for line in new {
        if let Some(last) = out.last_mut()
            && !last.ends_with('\n')
        {
            *last = Cow::Owned(format!("{last}{}", lines.eol_at(lines.len())));
        }
        out.push(line);
    }
}

/// A verified target: `len` base lines from `start` (0-based); `len` is 0 for
/// an insert before `start`.
#[derive(Debug)]
struct Target {
    start: usize,
    len: usize,
    relocated_from: Option<usize>,
}

fn locate(edit: &ProposedEdit, lines: &Lines<'_>, window: usize) -> Result<Target, EditErrorKind> {
    let total = lines.len();
    let anchor: Option<Vec<&str>> = edit
        .old_text
        .as_deref()
        .filter(|t| !t.is_empty())
        .map(edit_lines);
    let start = edit.start_line;
    if start == 0 {
        return Err(EditErrorKind::Invalid(
            "start_line is 1-based; 0 is not a line".into(),
        ));
    }
    // `checked` is the range whose text the hash and the anchor describe.
    let (checked_len, is_insert) = match edit.operation {
        Operation::Replace | Operation::Delete => {
            if edit.operation == Operation::Delete && !edit.new_text.is_empty() {
                return Err(EditErrorKind::Invalid(
                    "a delete has an empty new_text; use replace".into(),
                ));
            }
            let end = edit.end_line.unwrap_or(start);
            if end < start {
                return Err(EditErrorKind::Invalid(format!(
                    "end_line {end} is before start_line {start}"
                )));
            }
            // Both name the lines: where they disagree, which lines go is a
            // guess (a trailing newline in old_text is not a blank line).
            if let (Some(anchor), Some(end)) = (&anchor, edit.end_line)
                && end - start + 1 != anchor.len()
            {
                return Err(EditErrorKind::Invalid(format!(
                    "old_text has {} line(s) but lines {start}-{end} are {}: quote every line of the range in old_text (a blank line is a line of its own), or leave out end_line",
                    anchor.len(),
                    end - start + 1
                )));
            }
            (anchor.as_ref().map_or(end - start + 1, Vec::len), false)
        }
        Operation::Insert => (
            anchor
                .as_ref()
                .map_or(usize::from(start <= total), Vec::len),
            true,
        ),
        Operation::Create | Operation::Move | Operation::DeleteFile => {
            unreachable!("handled per file")
        }
    };
    let at = start - 1;
    let end_line = start + checked_len.max(1) - 1;
    let in_bounds = if is_insert {
        at <= total && at + checked_len <= total
    } else {
        at + checked_len <= total
    };
    let range = |at: usize| &lines.lines[at..at + checked_len];
    // Both must hold where given: lines that hash as the model read them
    // but are not the text it quoted were named by a wrong number.
    let matches_at = |at: usize| {
        let hash_ok = edit
            .expected_hash
            .as_ref()
            .is_none_or(|hash| range_hash(range(at).iter().copied()) == *hash);
        let anchor_ok = anchor.as_ref().is_none_or(|anchor| {
            range(at)
                .iter()
                .map(|l| content(l))
                .eq(anchor.iter().copied())
        });
        hash_ok && anchor_ok
    };
    let target = |at| Target {
        start: at,
        len: if is_insert { 0 } else { checked_len },
        relocated_from: None,
    };
    if in_bounds && matches_at(at) {
        return Ok(target(at));
    }
    let Some(anchor) = &anchor else {
        return Err(if in_bounds {
            EditErrorKind::Stale {
                start,
                end: end_line,
                expected: edit.expected_hash.clone().unwrap_or_default(),
            }
        } else {
            EditErrorKind::OutOfRange {
                start,
                end: end_line,
                total,
            }
        });
    };
    let first = at.saturating_sub(window);
    let last = (at + window).min(total.saturating_sub(anchor.len()));
    let candidates: Vec<usize> = (first..=last)
        .filter(|&p| p + anchor.len() <= total)
        .filter(|&p| {
            lines.lines[p..p + anchor.len()]
                .iter()
                .map(|l| content(l))
                .eq(anchor.iter().copied())
        })
        .collect();
    match candidates.as_slice() {
        [only] => Ok(Target {
            relocated_from: Some(start),
            ..target(*only)
        }),
        [] => Err(EditErrorKind::AnchorNotFound {
            start,
            end: end_line,
            window,
        }),
        many => Err(EditErrorKind::AnchorAmbiguous {
            start,
            end: end_line,
            candidates: many.iter().map(|p| p + 1).collect(),
        }),
    }
}

#[cfg(test)]
mod tests;
