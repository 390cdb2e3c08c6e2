//! Review: working buffers and the change log (seed §7, §19, §20), on
//! visibility (DESIGN §3.5, "Decisions as visibility").
//!
//! A file under review is a sequence of pieces, each inserted by one change
//! — its base, a hunk of a job, an edit of the user's — and possibly deleted
//! by others ([`pieces`]). A hunk's status decides whether its insertions and
//! deletions count, so the text for any set of decisions is the same whatever
//! order they came in, by construction. Proposals are diffed below the line
//! ([`words`](crate::hunks::words)): a hunk is reviewed as lines but records only the words it
//! changed. A hunk that rewrote text another hunk put there depends on it,
//! and a decision carries its dependencies with it ([`FileReview::plan`]):
//! nothing is refused. Text the user typed inside a hunk's text goes and
//! comes with that hunk, and a decision that would take it out says so
//! first ([`Decision::hidden_user_text`]).
//!
//! Nothing reaches the disk unaccepted: [`FileReview::disk_view`] counts
//! accepted hunks and the user's edits only, and is what the workspace
//! saves. The review itself is pure: it reads and writes no file.

mod buffer;
mod file;
pub(crate) mod legacy;
mod op;
pub(crate) mod pieces;
pub mod preview;

pub(crate) use file::StoredLog;
pub use file::{FileReview, Span};
pub use op::StagedOp;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use similar::{Algorithm, DiffOp, TextDiff};

use crate::edits::FileProposal;
use crate::hunks::DiffBundle;
use crate::hunks::words::{self, line_starts};
use crate::project::text;
use pieces::Op;

/// Who made a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// The agent proposed it; it is reviewed.
    Agent,
    /// The user typed it while review was open; it is theirs.
    User,
}

/// Where a change stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Shown in the buffer, not decided, not written to disk.
    Pending,
    /// Shown in the buffer and written by the next save.
    Accepted,
    /// Taken out of the buffer.
    Rejected,
}

impl Status {
    /// The status as stored and sent: `pending`, `accepted`, `rejected`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Accepted => "accepted",
            Status::Rejected => "rejected",
        }
    }

    /// Parses [`Status::as_str`]'s output.
    pub fn parse(text: &str) -> Option<Status> {
        [Status::Pending, Status::Accepted, Status::Rejected]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

impl Origin {
    /// The origin as stored and sent: `agent` or `user`.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Agent => "agent",
            Origin::User => "user",
        }
    }
}

/// One change in a file's log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Stable id, `c_1`, `c_2`, ...
    pub id: String,
    /// Who made it.
    pub origin: Origin,
    /// The agent job it came from.
    pub job_id: Option<String>,
    /// The hunk it is (agent entries).
    pub hunk_id: Option<String>,
    /// Where it stands; user entries are always accepted.
    pub status: Status,
    /// `sha256:` of the buffer before it was recorded.
    pub file_hash_before: String,
    /// The note the user gave with its last decision, if any.
    #[serde(default)]
    pub reason: Option<String>,
    /// The moves (hunk ids) this hunk follows: a link rewritten because
    /// its note moved, which only makes sense with the move.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub follows: Vec<String>,
}

impl Entry {
    /// Whether it counts in the working buffer: everything but a rejected hunk.
    pub fn in_buffer(&self) -> bool {
        self.origin == Origin::User || self.status != Status::Rejected
    }
}

/// Why a review operation was refused; nothing changed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReviewError {
    /// No hunk has this id.
    #[error("there is no hunk `{0}` under review")]
    UnknownHunk(String),
    /// No file with this path is under review.
    #[error("`{0}` is not under review")]
    UnknownFile(String),
    /// A proposal was made against text the buffer no longer holds.
    #[error(
        "the proposal for `{0}` was made against text that has changed since; run the agent again on the current content"
    )]
    StaleProposal(String),
    /// An edit named a buffer text that has changed since (a decision or a
    /// reload came first); read the file again and redo the edit on it.
    #[error("the buffer of `{0}` changed since it was read; read it again and redo the edit")]
    StaleBuffer(String),
    /// There is no conflict to resolve: the disk holds what Redline knows.
    #[error("`{0}` has no conflict with the disk")]
    NoConflict(String),
    /// The file already has a move or deletion under review.
    #[error(
        "`{0}` already has a move or deletion under review; decide that one before proposing another"
    )]
    OpStaged(String),
}

/// One hunk a decision moved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct HunkMove {
    /// The hunk.
    pub hunk_id: String,
    /// Its status before.
    pub from: Status,
    /// Its status after.
    pub to: Status,
}

/// What a decision did (or, planned, would do) to one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The file.
    pub path: String,
    /// Every hunk it moved, the one decided first, then those that depend on
    /// it or that it stands on. A hunk already where it was asked to be is
    /// listed with `from == to`.
    pub moves: Vec<HunkMove>,
    /// The log ids of the moved entries, in the order of `moves`.
    pub entry_ids: Vec<String>,
    /// Text the user typed inside the moved hunks that the decision takes
    /// out of the buffer (it comes back with an undo).
    pub hidden_user_text: Vec<String>,
}

impl Decision {
    /// One decision of `decisions` (of several files), reported as the
    /// decision on `path`: every move of every file, in order.
    pub fn merged(path: String, decisions: Vec<Decision>) -> Decision {
        let mut merged = Decision {
            path,
            moves: Vec::new(),
            entry_ids: Vec::new(),
            hidden_user_text: Vec::new(),
        };
        for d in decisions {
            merged.moves.extend(d.moves);
            merged.entry_ids.extend(d.entry_ids);
            merged.hidden_user_text.extend(d.hidden_user_text);
        }
        merged
    }
}

/// What became of one agent hunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HunkFate {
    /// Its file.
    pub path: String,
    /// Its first line in the buffer now (1-based).
    pub line: usize,
    /// Where it stands.
    pub status: Status,
    /// Whether something else changed its text since (the user typed inside
    /// it or took some of it out, or a later hunk rewrote it).
    pub edited: bool,
    /// The lines it replaced.
    pub old: String,
    /// Its lines in the buffer now.
    pub now: String,
    /// The note the user gave with its decision.
    pub reason: Option<String>,
}

/// Every file under review, and the change log.
#[derive(Clone, Debug, Default)]
pub struct Review {
    files: BTreeMap<String, FileReview>,
    /// The file of every hunk under review.
    hunks: HashMap<String, String>,
    next_id: u64,
    /// Per hunk, the statuses its latest decision moved, as they were: undo
    /// puts them back as one step. Kept for this run of the program only;
    /// after a restart, undo sets the hunk back to pending.
    undo: HashMap<String, Arc<UndoStep>>,
    /// The number of the latest undo step.
    next_step: u64,
    /// Per target of a staged move, the file it moves (see [`op`]).
    moved_to: HashMap<String, String>,
    /// Per move, the link hunks that follow it (see [`op`]).
    followers: HashMap<String, Vec<String>>,
}

/// The statuses one decision moved: each hunk, its status before and after.
/// A decision on many hunks at once (a pattern) is one step, shared by all
/// of them.
#[derive(Debug, Default)]
struct UndoStep {
    /// When it was made: steps undone together go back newest first.
    seq: u64,
    moves: Vec<(String, Status, Status)>,
}

impl Review {
    /// An empty review.
    pub fn new() -> Review {
        Review::default()
    }

    /// The file under review at `path`.
    pub fn file(&self, path: &str) -> Option<&FileReview> {
        self.files.get(path)
    }

    /// The file under review at `path`, to change.
    pub(crate) fn file_mut(&mut self, path: &str) -> Option<&mut FileReview> {
        self.files.get_mut(path)
    }

    /// The files under review, by path.
    pub fn files(&self) -> impl Iterator<Item = &FileReview> {
        self.files.values()
    }

    fn next_step(&mut self) -> u64 {
        self.next_step += 1;
        self.next_step
    }

    fn next_id(&mut self) -> String {
        self.next_id += 1;
        format!("c_{}", self.next_id)
    }

    /// Stages a job's proposal: every hunk of `bundle` goes into its file's
    /// buffer as a pending agent entry, recording the words it changes. A
    /// file already under review must still hold the text the proposal was
    /// made against.
    pub fn stage(
        &mut self,
        job_id: &str,
        proposals: &[FileProposal],
        bundle: &DiffBundle,
    ) -> Result<(), ReviewError> {
        for (proposal, diff) in proposals.iter().zip(&bundle.files) {
            if let Some(file) = self.files.get(&proposal.file_path)
                && !file.buffer_is(&proposal.base)
            {
                return Err(ReviewError::StaleProposal(proposal.file_path.clone()));
            }
            debug_assert_eq!(proposal.file_path, diff.file_path);
        }
        for (proposal, diff) in proposals.iter().zip(&bundle.files) {
            let before = text::content_hash(proposal.base.as_bytes());
            let mut entries = Vec::with_capacity(diff.hunks.len());
            for hunk in &diff.hunks {
                entries.push(Entry {
                    id: self.next_id(),
                    origin: Origin::Agent,
                    job_id: Some(job_id.to_owned()),
                    hunk_id: Some(hunk.hunk_id.clone()),
                    status: Status::Pending,
                    file_hash_before: before.clone(),
                    reason: None,
                    follows: Vec::new(),
                });
            }
            for hunk in &diff.hunks {
                self.hunks
                    .insert(hunk.hunk_id.clone(), proposal.file_path.clone());
            }
            let file = self
                .files
                .entry(proposal.file_path.clone())
                .or_insert_with(|| {
                    FileReview::new(
                        proposal.file_path.clone(),
                        proposal.base.clone(),
                        proposal.base_file_hash.clone(),
                        proposal.created,
                    )
                });
            let old = line_starts(&proposal.base);
            let new = line_starts(&proposal.proposed);
            let mut ops = Vec::new();
            for (k, hunk) in diff.hunks.iter().enumerate() {
                let from = old[hunk.old_start]..old[hunk.old_start + hunk.old_lines];
                let to = new[hunk.new_start]..new[hunk.new_start + hunk.new_lines];
                word_ops(
                    k,
                    &proposal.base[from],
                    old[hunk.old_start],
                    &proposal.proposed[to],
                    &mut ops,
                );
            }
            file.record(entries, ops);
        }
        Ok(())
    }

    /// Records the user's edit of `path`: the buffer becomes `new_text`, and
    /// each changed block of lines becomes a `user` entry, recording the
    /// words it changed. Returns their ids.
    pub fn user_edit(&mut self, path: &str, new_text: &str) -> Result<Vec<String>, ReviewError> {
        let current = self
            .files
            .get(path)
            .ok_or_else(|| ReviewError::UnknownFile(path.to_owned()))?
            .buffer();
        let old: Vec<&str> = current.split_inclusive('\n').collect();
        let new: Vec<&str> = new_text.split_inclusive('\n').collect();
        let diff = TextDiff::configure()
            .algorithm(Algorithm::Myers)
            .diff_slices(&old, &new);
        let mut blocks: Vec<(usize, usize, usize, usize)> = Vec::new();
        let mut open = false;
        for op in diff.ops() {
            if matches!(op, DiffOp::Equal { .. }) {
                open = false;
                continue;
            }
            let (_, o, n) = op.as_tag_tuple();
            match blocks.last_mut() {
                Some(b) if open => {
                    b.1 = o.end;
                    b.3 = n.end;
                }
                _ => blocks.push((o.start, o.end, n.start, n.end)),
            }
            open = true;
        }
        let before = text::content_hash(current.as_bytes());
        let (old_at, new_at) = (line_starts(&current), line_starts(new_text));
        let mut entries = Vec::with_capacity(blocks.len());
        let mut ops = Vec::new();
        for (k, &(o, oe, n, ne)) in blocks.iter().enumerate() {
            entries.push(Entry {
                id: self.next_id(),
                origin: Origin::User,
                job_id: None,
                hunk_id: None,
                status: Status::Accepted,
                file_hash_before: before.clone(),
                reason: None,
                follows: Vec::new(),
            });
            typed_ops(
                k,
                &current[old_at[o]..old_at[oe]],
                old_at[o],
                &new_text[new_at[n]..new_at[ne]],
                &mut ops,
            );
        }
        let ids = entries.iter().map(|e| e.id.clone()).collect();
        if !entries.is_empty() {
            let file = self.files.get_mut(path).expect("checked above");
            file.record(entries, ops);
        }
        Ok(ids)
    }

    /// Puts a file under review as stored, replacing any with its path.
    pub(crate) fn insert_file(&mut self, file: FileReview) {
        self.remove_file(&file.path);
        for entry in file.entries() {
            if let Some(n) = entry.id.strip_prefix("c_").and_then(|n| n.parse().ok()) {
                self.next_id = self.next_id.max(n);
            }
            if let Some(hunk) = &entry.hunk_id {
                self.hunks.insert(hunk.clone(), file.path.clone());
                for moved in &entry.follows {
                    self.followers
                        .entry(moved.clone())
                        .or_default()
                        .push(hunk.clone());
                }
            }
        }
        if let Some(to) = file.op().and_then(|op| op.op.target()) {
            self.moved_to.insert(to.to_owned(), file.path.clone());
        }
        self.files.insert(file.path.clone(), file);
    }

    /// Takes a file out of review.
    pub(crate) fn remove_file(&mut self, path: &str) -> Option<FileReview> {
        let file = self.files.remove(path)?;
        for hunk in file.entries().iter().filter_map(|e| e.hunk_id.as_ref()) {
            self.hunks.remove(hunk);
            self.undo.remove(hunk);
            self.followers.remove(hunk);
        }
        if let Some(to) = file.op().and_then(|op| op.op.target()) {
            self.moved_to.remove(to);
        }
        Some(file)
    }

    /// The file and index of the entry for `hunk_id`.
    pub fn find_hunk(&self, hunk_id: &str) -> Result<(String, usize), ReviewError> {
        let unknown = || ReviewError::UnknownHunk(hunk_id.to_owned());
        let path = self.hunks.get(hunk_id).ok_or_else(unknown)?;
        let i = self.files[path]
            .entries()
            .iter()
            .position(|e| e.hunk_id.as_deref() == Some(hunk_id))
            .ok_or_else(unknown)?;
        Ok((path.clone(), i))
    }

    /// What became of the hunk `hunk_id`, or `None` when it is no longer
    /// under review (rolled back, or its file resolved away).
    pub fn hunk_fate(&self, hunk_id: &str) -> Option<HunkFate> {
        let (path, i) = self.find_hunk(hunk_id).ok()?;
        let file = &self.files[&path];
        let entry = &file.entries()[i];
        if let Some(op) = file.op().filter(|op| op.entry == i) {
            // A whole-file change has no lines: its text is the path.
            return Some(HunkFate {
                line: 0,
                status: entry.status,
                edited: false,
                old: path.clone(),
                now: op.op.target().unwrap_or_default().to_owned(),
                reason: entry.reason.clone(),
                path,
            });
        }
        let Some(span) = file.span_of(i) else {
            // A retired move or deletion: decided, with no lines of its own.
            return Some(HunkFate {
                line: 0,
                status: entry.status,
                edited: false,
                old: String::new(),
                now: String::new(),
                reason: entry.reason.clone(),
                path,
            });
        };
        Some(HunkFate {
            line: span.line + 1,
            status: entry.status,
            edited: file.edited(i),
            old: span.old,
            now: span.now,
            reason: entry.reason.clone(),
            path,
        })
    }

    /// What setting `hunk_id` to `status` would move, changing nothing.
    pub fn plan(&self, hunk_id: &str, status: Status) -> Result<Decision, ReviewError> {
        let (path, i) = self.find_hunk(hunk_id)?;
        let file = &self.files[&path];
        let moves = file.plan(i, status);
        Ok(decision(file, &moves))
    }

    /// Sets a hunk's status, with the hunks that depend on it or that it
    /// stands on as [`FileReview::plan`] says; the buffer follows. `reason`
    /// is kept with the decided hunk (a reject's "why", for the next job).
    pub fn decide(
        &mut self,
        hunk_id: &str,
        status: Status,
        reason: Option<&str>,
    ) -> Result<Decision, ReviewError> {
        let (path, i) = self.find_hunk(hunk_id)?;
        let file = self.files.get_mut(&path).expect("found above");
        let moves = file.plan(i, status);
        let decision = decision(file, &moves);
        file.set_statuses(&moves);
        file.entry_mut(i).reason = reason.map(str::to_owned);
        let moves = decision
            .moves
            .iter()
            .map(|m| (m.hunk_id.clone(), m.from, m.to))
            .collect();
        let seq = self.next_step();
        self.undo
            .insert(hunk_id.to_owned(), Arc::new(UndoStep { seq, moves }));
        Ok(decision)
    }

    /// Sets each of `hunk_ids` to `status` with what each carries (as
    /// [`Review::decide`]), as one undo step: undoing any of them undoes
    /// them all. Returns one decision per file, in path order.
    pub fn decide_many(
        &mut self,
        hunk_ids: &[String],
        status: Status,
    ) -> Result<Vec<Decision>, ReviewError> {
        // Moves and the link hunks that follow them go together.
        let mut all = hunk_ids.to_vec();
        all.extend(self.carried_across(hunk_ids, status));
        let hunk_ids = &all[..];
        let mut by_file: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for hunk in hunk_ids {
            let (path, i) = self.find_hunk(hunk)?;
            by_file.entry(path).or_default().push(i);
        }
        let mut decisions = Vec::with_capacity(by_file.len());
        let mut step = UndoStep {
            seq: self.next_step(),
            ..UndoStep::default()
        };
        for (path, indexes) in by_file {
            let file = self.files.get_mut(&path).expect("found above");
            let mut before: BTreeMap<usize, Status> = BTreeMap::new();
            let mut hidden = Vec::new();
            for i in indexes {
                let moves = file.plan(i, status);
                hidden.extend(file.user_text_hidden_by(&moves));
                for &(j, _) in &moves {
                    before.entry(j).or_insert(file.entries()[j].status);
                }
                file.set_statuses(&moves);
                file.entry_mut(i).reason = None;
            }
            let entries = file.entries();
            let moves: Vec<HunkMove> = before
                .iter()
                .map(|(&j, &from)| HunkMove {
                    hunk_id: entries[j].hunk_id.clone().unwrap_or_default(),
                    from,
                    to: entries[j].status,
                })
                .collect();
            step.moves
                .extend(moves.iter().map(|m| (m.hunk_id.clone(), m.from, m.to)));
            decisions.push(Decision {
                path,
                entry_ids: before.keys().map(|&j| entries[j].id.clone()).collect(),
                moves,
                hidden_user_text: hidden,
            });
        }
        let step = Arc::new(step);
        for hunk in hunk_ids {
            self.undo.insert(hunk.clone(), Arc::clone(&step));
        }
        Ok(decisions)
    }

    /// Undoes the latest decisions on `hunk_ids`, each step once: a
    /// pattern decided at once comes back at once. A hunk of a step that
    /// was moved again since keeps where it is now; a hunk with no step
    /// known goes back to pending. Returns one decision per file touched.
    pub fn undo_many(&mut self, hunk_ids: &[String]) -> Result<Vec<Decision>, ReviewError> {
        let mut steps: Vec<Arc<UndoStep>> = Vec::new();
        let mut plain = Vec::new();
        for hunk in hunk_ids {
            self.find_hunk(hunk)?;
            match self.undo.get(hunk) {
                Some(step) if !steps.iter().any(|s| Arc::ptr_eq(s, step)) => {
                    steps.push(Arc::clone(step))
                }
                Some(_) => {}
                None => plain.push(hunk.clone()),
            }
        }
        // Newest first, each step on the statuses the newer ones left: two
        // steps over the same hunks come back to what was before both.
        steps.sort_by_key(|step| std::cmp::Reverse(step.seq));
        let mut now: BTreeMap<(String, usize), Status> = BTreeMap::new();
        for step in &steps {
            for (hunk, from, to) in &step.moves {
                self.undo.remove(hunk);
                let Ok((path, i)) = self.find_hunk(hunk) else {
                    continue;
                };
                let status = now
                    .get(&(path.clone(), i))
                    .copied()
                    .unwrap_or(self.files[&path].entries()[i].status);
                if status == *to {
                    now.insert((path, i), *from);
                }
            }
        }
        let mut by_file: BTreeMap<String, Vec<(usize, Status)>> = BTreeMap::new();
        for ((path, i), status) in now {
            if self.files[&path].entries()[i].status != status {
                by_file.entry(path).or_default().push((i, status));
            }
        }
        let mut decisions = Vec::new();
        let mut changed: Vec<(String, Status)> = Vec::new();
        for (path, moves) in by_file {
            let file = self.files.get_mut(&path).expect("found above");
            let decided = decision(file, &moves);
            changed.extend(decided.moves.iter().map(|m| (m.hunk_id.clone(), m.to)));
            decisions.push(decided);
            file.set_statuses(&moves);
        }
        // A step undone while a later one stands on its hunks: what crosses
        // files follows, so a link update never counts without its move
        // (a rejection last, where the two disagree).
        for status in [Status::Accepted, Status::Pending, Status::Rejected] {
            let hunks: Vec<String> = changed
                .iter()
                .filter(|(_, s)| *s == status)
                .map(|(h, _)| h.clone())
                .collect();
            let carried = self.carried_across(&hunks, status);
            if !carried.is_empty() {
                decisions.extend(self.decide_many(&carried, status)?);
            }
        }
        if !plain.is_empty() {
            // Back to pending, with what that carries across files.
            decisions.extend(self.decide_many(&plain, Status::Pending)?);
        }
        Ok(decisions)
    }

    /// Undoes the latest decision on `hunk_id`: every hunk it moved gets the
    /// status it had before, as one step. When that decision is not known
    /// (made before a restart) or a later one moved its hunks again, the
    /// hunk is set back to pending instead.
    pub fn undo(&mut self, hunk_id: &str) -> Result<Decision, ReviewError> {
        let Some((path, moves)) = self.undo_moves(hunk_id)? else {
            return self.decide(hunk_id, Status::Pending, None);
        };
        self.undo.remove(hunk_id);
        let file = self.files.get_mut(&path).expect("found above");
        let decision = decision(file, &moves);
        file.set_statuses(&moves);
        Ok(decision)
    }

    /// What [`Review::undo`] would move, changing nothing.
    pub fn plan_undo(&self, hunk_id: &str) -> Result<Decision, ReviewError> {
        match self.undo_moves(hunk_id)? {
            Some((path, moves)) => Ok(decision(&self.files[&path], &moves)),
            None => self.plan(hunk_id, Status::Pending),
        }
    }

    /// The moves that undo the latest decision on `hunk_id`, while every
    /// hunk it moved still has the status it gave it.
    #[allow(clippy::type_complexity)]
    fn undo_moves(
        &self,
        hunk_id: &str,
    ) -> Result<Option<(String, Vec<(usize, Status)>)>, ReviewError> {
        let (path, _) = self.find_hunk(hunk_id)?;
        let Some(step) = self.undo.get(hunk_id) else {
            return Ok(None);
        };
        if step
            .moves
            .iter()
            .any(|(h, _, _)| self.hunks.get(h) != Some(&path))
        {
            // A step over many files is undone by `undo_many`.
            return Ok(None);
        }
        let file = &self.files[&path];
        let index = |h: &str| {
            file.entries()
                .iter()
                .position(|e| e.hunk_id.as_deref() == Some(h))
        };
        let moves: Option<Vec<(usize, Status)>> = step
            .moves
            .iter()
            .map(|(h, from, to)| {
                let i = index(h)?;
                (file.entries()[i].status == *to).then_some((i, *from))
            })
            .collect();
        Ok(moves.map(|m| (path, m)))
    }

    /// Accepts every pending hunk of `path`; returns the moves.
    pub fn accept_all_in_file(&mut self, path: &str) -> Result<Decision, ReviewError> {
        let file = self
            .files
            .get_mut(path)
            .ok_or_else(|| ReviewError::UnknownFile(path.to_owned()))?;
        let moves: Vec<(usize, Status)> = file
            .entries()
            .iter()
            .enumerate()
            .filter(|(_, e)| e.origin == Origin::Agent && e.status == Status::Pending)
            .map(|(i, _)| (i, Status::Accepted))
            .collect();
        let decision = decision(file, &moves);
        file.set_statuses(&moves);
        Ok(decision)
    }
}

/// What `moves` does to `file`, described before it is done.
fn decision(file: &FileReview, moves: &[(usize, Status)]) -> Decision {
    let entries = file.entries();
    Decision {
        path: file.path.clone(),
        moves: moves
            .iter()
            .map(|&(i, to)| HunkMove {
                hunk_id: entries[i].hunk_id.clone().unwrap_or_default(),
                from: entries[i].status,
                to,
            })
            .collect(),
        entry_ids: moves.iter().map(|&(i, _)| entries[i].id.clone()).collect(),
        hidden_user_text: file.user_text_hidden_by(moves),
    }
}

/// The word-level ops of the `k`th change of a batch, which turns `old`
/// (at byte `at` of the buffer) into `new`.
fn word_ops(k: usize, old: &str, at: usize, new: &str, ops: &mut Vec<(usize, Op)>) {
    for edit in words::diff(old, new) {
        ops.push((
            k,
            Op {
                at: at + edit.old.start,
                del: edit.old.len(),
                ins: new[edit.new].to_owned(),
                who: 0,
            },
        ));
    }
}

/// The op of the `k`th change of a user's edit, which turns `old` (at byte
/// `at` of the buffer) into `new`: what lies between their common start and
/// end, to the character. Typing is recorded where it was typed, so a word
/// typed inside a hunk's word is inside its text.
fn typed_ops(k: usize, old: &str, at: usize, new: &str, ops: &mut Vec<(usize, Op)>) {
    let prefix: usize = old
        .chars()
        .zip(new.chars())
        .take_while(|(a, b)| a == b)
        .map(|(c, _)| c.len_utf8())
        .sum();
    let suffix: usize = old[prefix..]
        .chars()
        .rev()
        .zip(new[prefix..].chars().rev())
        .take_while(|(a, b)| a == b)
        .map(|(c, _)| c.len_utf8())
        .sum();
    let (old_end, new_end) = (old.len() - suffix, new.len() - suffix);
    if prefix == old_end && prefix == new_end {
        return;
    }
    ops.push((
        k,
        Op {
            at: at + prefix,
            del: old_end - prefix,
            ins: new[prefix..new_end].to_owned(),
            who: 0,
        },
    ));
}

#[cfg(test)]
mod tests;
