//! Links follow their notes: the links a proposal's moves would break,
//! rewritten by the link engine (never by the model) as line changes of the
//! same proposal. Each rewritten link is attributed to the move it serves,
//! so its hunk can follow that move in review.
//!
//! Only notes that can hold such a link are parsed: those whose text names
//! a moved note's old or new name (found by the project's search, as `rg`
//! would), and the moved notes themselves (their relative links).

use std::collections::{BTreeSet, HashMap};

use super::{Workspace, WorkspaceError};
use crate::edits::{
    EditError, EditErrorKind, FileOp, FileOpProposal, FileProposal, ProposedEdit, prepare,
    prepare_file_ops,
};
use crate::hunks::triage::markdown;
use crate::links::{self, LinkIndex, LinkSettings, TextEdit, apply_edits};
use crate::project::View;
use crate::tools::links::{naming, stem};

/// What a rewritten link follows: a move (its index in the proposal's
/// operations), or the change of a heading (its note, and the heading's
/// line in the proposed text, 0-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Leader {
    /// A move of the proposal.
    Op(usize),
    /// A renamed heading.
    Heading(String, usize),
}

/// What the links of a proposal's moves, deletions and renamed headings
/// come to.
#[derive(Debug, Default)]
pub(super) struct Relinked {
    /// Each rewritten link: its file, its line in the proposed text
    /// (0-based), and what it follows.
    pub links: Vec<(String, usize, Leader)>,
    /// Per operation, the links left alone because several notes answer to
    /// them (`file:line`).
    pub ambiguous: Vec<Vec<String>>,
    /// Per operation, the links that resolve to the file (a deletion
    /// breaks them).
    pub backlinks: Vec<usize>,
}

impl Workspace {
    /// The notes that `edits`, staged, would change only because they link
    /// to what the edits change (a heading renamed, a note moved), each with
    /// how many of its links follow, in path order: a preview's "outside
    /// the scope" list. Stages nothing.
    pub fn links_that_follow(
        &self,
        edits: &[ProposedEdit],
    ) -> Result<Vec<(String, usize)>, WorkspaceError> {
        let overlay = self.overlay();
        let view = View::with(&self.project, &overlay);
        let (Ok(mut proposals), Ok(ops)) = (prepare(view, edits), prepare_file_ops(view, edits))
        else {
            // The edits' own errors are the staging's to report.
            return Ok(Vec::new());
        };
        let edited: BTreeSet<String> = proposals.iter().map(|p| p.file_path.clone()).collect();
        let relinked = relink(&view, &ops, &mut proposals)?;
        let mut follow: std::collections::BTreeMap<String, usize> = Default::default();
        for (path, _, _) in relinked
            .links
            .iter()
            .filter(|(p, _, _)| !edited.contains(p))
        {
            *follow.entry(path.clone()).or_default() += 1;
        }
        Ok(follow.into_iter().collect())
    }
}

/// Rewrites, in `proposals`, every link that `ops` would break (adding a
/// proposal for each note that only needs its links changed, at the end),
/// and says which move each rewritten link serves. Texts already proposed
/// are rewritten as proposed. Paths are the view's.
pub(super) fn relink(
    view: &View<'_>,
    ops: &[FileOpProposal],
    proposals: &mut Vec<FileProposal>,
) -> Result<Relinked, WorkspaceError> {
    let mut out = Relinked {
        ambiguous: vec![Vec::new(); ops.len()],
        backlinks: vec![0; ops.len()],
        ..Relinked::default()
    };
    // Headings the proposal renames: their links are rewritten first, and
    // the moves' rewrites then work on what that left.
    let headings: Vec<(String, String, String, usize)> = proposals
        .iter()
        .filter(|p| !p.created && p.file_path.to_ascii_lowercase().ends_with(".md"))
        .flat_map(|p| {
            renamed_headings(&p.base, &p.proposed)
                .into_iter()
                .map(|(old, new, line)| (p.file_path.clone(), old, new, line))
        })
        .collect();
    if ops.is_empty() && headings.is_empty() {
        return Ok(out);
    }
    let mut names: BTreeSet<String> = BTreeSet::new();
    for op in ops {
        names.insert(stem(&op.file_path).to_owned());
        if let Some(to) = op.op.target() {
            names.insert(stem(to).to_owned());
        }
    }
    names.extend(headings.iter().map(|h| stem(&h.0).to_owned()));
    let found = naming(view, names.iter().map(String::as_str)).map_err(|e| {
        // The operation, or the renamed heading's edit, the search was for.
        let (edit_id, file_path) = match ops.first() {
            Some(op) => (op.edit_id.clone(), op.file_path.clone()),
            None => {
                let note = &headings[0].0;
                let edit = proposals
                    .iter()
                    .find(|p| &p.file_path == note)
                    .and_then(|p| p.edits.first())
                    .map(|e| e.edit_id.clone());
                (edit.unwrap_or_default(), note.clone())
            }
        };
        refused(edit_id, file_path, e.to_string())
    })?;
    let mut candidates: BTreeSet<String> = found
        .into_iter()
        .filter(|p| p.to_ascii_lowercase().ends_with(".md"))
        .collect();
    candidates.extend(ops.iter().map(|op| op.file_path.clone()));
    candidates.extend(headings.iter().map(|h| h.0.clone()));
    let mut proposed: HashMap<String, usize> = proposals
        .iter()
        .enumerate()
        .map(|(i, p)| (p.file_path.clone(), i))
        .collect();
    // Each note's text as the proposal leaves it, and the hash of its base.
    let mut texts: HashMap<String, (String, Option<String>)> = HashMap::new();
    for path in &candidates {
        let text = match proposed.get(path) {
            Some(&i) => (proposals[i].proposed.clone(), None),
            None => match view.read_text(path) {
                Ok(file) => (file.text, Some(file.hash)),
                // Not text after all (or gone meanwhile): no links to rewrite.
                Err(_) => continue,
            },
        };
        texts.insert(path.clone(), text);
    }
    let index_of = |texts: &HashMap<String, (String, Option<String>)>| {
        view.with_paths(|paths| {
            LinkIndex::build(
                paths.iter().copied(),
                texts.iter().map(|(p, (t, _))| (p.as_str(), t.as_str())),
            )
        })
    };
    let mut index = index_of(&texts);
    for (k, op) in ops.iter().enumerate() {
        out.backlinks[k] = index.backlinks(&op.file_path).len();
    }
    if !headings.is_empty() {
        let mut rewrite = Rewrite {
            texts: &texts,
            proposed: &mut proposed,
            proposals,
            links: &mut out.links,
        };
        for (note, old, new, line) in &headings {
            let plan = index.plan_heading_rename(note, old, new);
            for (source, edits) in &plan.edits {
                rewrite.apply(source, edits, |_| {
                    vec![Leader::Heading(note.clone(), *line)]
                });
            }
        }
        // The moves' plan reads the links as the headings' rewrites left
        // them (`[[Note#New]]`, which a move makes `[[Moved#New]]`).
        for (path, (text, _)) in &mut texts {
            if let Some(&i) = proposed.get(path) {
                text.clone_from(&proposals[i].proposed);
            }
        }
        index = index_of(&texts);
    }
    let moves: Vec<(&str, &str, usize)> = ops
        .iter()
        .enumerate()
        .filter_map(|(k, op)| match &op.op {
            FileOp::Move { to } => Some((op.file_path.as_str(), to.as_str(), k)),
            FileOp::Delete => None,
        })
        .collect();
    if moves.is_empty() {
        return Ok(out);
    }
    let pairs: Vec<(&str, &str)> = moves.iter().map(|&(f, t, _)| (f, t)).collect();
    let settings = LinkSettings::read(view.project().root());
    let plan = index.plan_moves(&pairs, &settings).map_err(|e| {
        let op = &ops[moves[0].2];
        refused(op.edit_id.clone(), op.file_path.clone(), e.to_string())
    })?;
    let move_of = |file: &str| moves.iter().find(|m| m.0 == file).map(|m| m.2);
    for skipped in &plan.skipped {
        let line = texts
            .get(&skipped.source)
            .map_or(0, |(t, _)| line_of(t, skipped.span.start) + 1);
        let at = format!("{}:{line}", skipped.source);
        let among: Vec<usize> = match &skipped.reason {
            links::SkipReason::Ambiguous(files) => {
                files.iter().filter_map(|f| move_of(f)).collect()
            }
            links::SkipReason::Unwritable => move_of(&skipped.source).into_iter().collect(),
        };
        for k in among {
            out.ambiguous[k].push(at.clone());
        }
    }
    let mut rewrite = Rewrite {
        texts: &texts,
        proposed: &mut proposed,
        proposals,
        links: &mut out.links,
    };
    for (source, edits) in &plan.edits {
        let text = texts.get(source).map_or("", |(t, _)| t.as_str());
        rewrite.apply(source, edits, |edit| {
            let served = links::parse(&text[edit.range.clone()])
                .first()
                .and_then(|link| index.resolve(link, source).file().and_then(move_of))
                .or_else(|| move_of(source));
            match served {
                Some(k) => vec![Leader::Op(k)],
                // A link whose name a moved note takes over: it serves them all.
                None => moves.iter().map(|m| Leader::Op(m.2)).collect(),
            }
        });
    }
    Ok(out)
}

/// Link edits applied to the proposal's notes, each recorded with what it
/// follows.
struct Rewrite<'a> {
    /// Each candidate note's text as the proposal leaves it (the text the
    /// plan's edits were made on), and the hash of the text on disk.
    texts: &'a HashMap<String, (String, Option<String>)>,
    /// The index in `proposals` of each note the proposal changes.
    proposed: &'a mut HashMap<String, usize>,
    proposals: &'a mut Vec<FileProposal>,
    links: &'a mut Vec<(String, usize, Leader)>,
}

impl Rewrite<'_> {
    /// Applies `edits` (of one plan) to `source`, recording each rewritten
    /// link with what `leaders` says it follows.
    fn apply(
        &mut self,
        source: &str,
        edits: &[TextEdit],
        leaders: impl Fn(&TextEdit) -> Vec<Leader>,
    ) {
        let Some((text, hash)) = self.texts.get(source) else {
            return;
        };
        let new_text = apply_edits(text, edits);
        let mut shift: isize = 0;
        for edit in edits {
            let at = (edit.range.start as isize + shift) as usize;
            let line = line_of(&new_text, at);
            for leader in leaders(edit) {
                self.links.push((source.to_owned(), line, leader));
            }
            shift += edit.text.len() as isize - edit.range.len() as isize;
        }
        match self.proposed.get(source) {
            Some(&i) => self.proposals[i].proposed = new_text,
            None => {
                self.proposed
                    .insert(source.to_owned(), self.proposals.len());
                self.proposals.push(FileProposal {
                    file_path: source.to_owned(),
                    created: false,
                    base: text.clone(),
                    base_file_hash: hash.clone(),
                    proposed: new_text,
                    edits: Vec::new(),
                });
            }
        }
    }
}

/// The headings `proposed` renames in `base`: when both have the same
/// headings at the same levels in the same order (code blocks aside), each
/// one whose text changed and whose old text is gone, with the line of its
/// new text. Any other change of headings renames none.
pub(super) fn renamed_headings(base: &str, proposed: &str) -> Vec<(String, String, usize)> {
    fn headings(text: &str) -> Vec<(usize, &str, usize)> {
        let code = markdown::code_blocks(text);
        text.split_inclusive('\n')
            .enumerate()
            .filter(|(i, _)| !code.iter().any(|block| block.contains(i)))
            .filter_map(|(i, line)| {
                let title = markdown::heading(line)?;
                let level = line.len() - line.trim_start_matches('#').len();
                Some((level, title, i))
            })
            .collect()
    }
    let (before, after) = (headings(base), headings(proposed));
    if before.len() != after.len() || before.iter().zip(&after).any(|(a, b)| a.0 != b.0) {
        return Vec::new();
    }
    before
        .iter()
        .zip(&after)
        .filter(|(a, b)| a.1 != b.1 && !after.iter().any(|c| c.1 == a.1))
        .map(|(a, b)| (a.1.to_owned(), b.1.to_owned(), b.2))
        .collect()
}

/// The 0-based line of byte `at` of `text`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count()
}

/// The error of an edit whose links could not be worked out (not expected
/// once the edits passed their checks): its id and file, and why.
fn refused(edit_id: String, file_path: String, why: String) -> WorkspaceError {
    WorkspaceError::Edits(vec![EditError {
        edit_id,
        file_path,
        kind: EditErrorKind::Invalid(format!("its links could not be worked out: {why}")),
    }])
}
