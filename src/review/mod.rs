//! Review: working buffers and the change log, on decisions as visibility
//! (docs/architecture.md#the-change-model).
//!
//! A file under review is a sequence of pieces, each inserted by one change
//! — its base, a hunk of a job, another program's change taken in, an edit
//! of the user's — and possibly deleted by others ([`pieces`]). A hunk's
//! status decides whether its insertions and deletions count, so the text
//! for any set of decisions is the same whatever order they came in, by
//! construction. Proposals are diffed below the line
//! ([`words`](crate::hunks::words)): a hunk is reviewed as lines but records
//! only the words it changed. A hunk that rewrote text another hunk put
//! there depends on it, and a decision carries its dependencies with it
//! ([`FileReview::plan`]), and across notes what ties carry ([`closure`]):
//! nothing is refused but a change to a settled hunk, which no control
//! offers ([`ReviewError::Settled`]; the workspace's rule across notes has
//! two more, for links several notes answer to: see
//! docs/architecture.md#changes-across-notes). Text the user typed inside a
//! hunk's text goes and comes with that hunk, and a decision that would
//! take it out says so first ([`Decision::hidden_user_text`]).
//!
//! Nothing reaches the disk that was not decided: [`Review::disk_view`]
//! counts accepted hunks, the user's edits and other programs' changes
//! still pending (they are on disk already), and a link update set aside
//! while its move counts; it is what the workspace saves. The review
//! itself is pure: it reads and writes no file.

mod buffer;
mod closure;
mod decide;
mod draft;
mod file;
pub(crate) mod legacy;
mod op;
mod span;
pub(crate) mod pieces;
pub(crate) mod preview;
mod settle;
mod tie;
mod undo;

use decide::UndoStep;
pub(crate) use file::StoredLog;
pub use file::FileReview;
pub use op::{PastPath, StagedOp};
pub use span::Span;
pub use settle::Settle;
pub use tie::{Tie, TieKind};

use std::collections::{BTreeMap, BTreeSet, HashMap};
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
    /// Another program wrote it to disk (an agent in a terminal, a
    /// script): reviewed like the agent's hunks, but the disk holds it
    /// until it is rejected, when a save puts the text back.
    Outside,
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
    /// The origin as stored and sent: `agent`, `user` or `outside`.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Agent => "agent",
            Origin::User => "user",
            Origin::Outside => "outside",
        }
    }

    /// Whether its changes are reviewed (the agent's and other programs'),
    /// not the user's own.
    pub fn is_reviewed(self) -> bool {
        self != Origin::User
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
    /// The hunks this hunk follows across notes, each with the kind of tie
    /// (see [`Tie`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub follows: Vec<Tie>,
    /// Whether the user rejected it by name, a move's own link update, and
    /// it stayed rejected since: their choice to leave that link naming
    /// the note's old path (docs/architecture.md#changes-across-notes).
    /// Set by the decision (or the undo or redo of one) that names it,
    /// cleared when it stops being rejected.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub leaves_link: bool,
}

impl Entry {
    /// The hunks it follows across notes (see [`Tie`]).
    pub fn leaders(&self) -> impl Iterator<Item = &String> {
        self.follows.iter().map(|t| &t.leader)
    }

    /// Its tie to `leader`, if it follows it.
    pub fn tie_to(&self, leader: &str) -> Option<&Tie> {
        self.follows.iter().find(|t| t.leader == leader)
    }

    /// Whether its id was issued after the first `issued` (`c_1` to
    /// `c_{issued}`; see `Review::ids_issued`); an id not of that form was.
    pub(crate) fn issued_after(&self, issued: u64) -> bool {
        self.id
            .strip_prefix("c_")
            .and_then(|n| n.parse::<u64>().ok())
            .is_none_or(|n| n > issued)
    }

    /// Whether it counts in the working buffer: everything but a rejected hunk.
    pub fn in_buffer(&self) -> bool {
        self.origin == Origin::User || self.status != Status::Rejected
    }

    /// Whether a save leaves it on disk: the user's, an accepted hunk, and
    /// another program's change until it is rejected (it is there already).
    pub fn on_disk(&self) -> bool {
        match self.status {
            Status::Accepted => true,
            Status::Pending => self.origin != Origin::Agent,
            Status::Rejected => self.origin == Origin::User,
        }
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
        "`{0}` already has a move or deletion under review; decide that one (and save it) before proposing another"
    )]
    OpStaged(String),
    /// A move or deletion, or a link update following one, whose file has
    /// had another move or deletion proposed since it was settled.
    #[error(
        "`{0}` is final: a later move or deletion of the same note was proposed after it was settled"
    )]
    Settled(String),
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

/// A link a decision leaves naming a note's old path: the link update of
/// a move that still counts, rejected (the user's choice to leave that link
/// as it is, said before it is made).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct LinkLeft {
    /// The note with the link, where the working state shows it.
    pub path: String,
    /// The rejected link update.
    pub hunk_id: String,
    /// The path the link still names.
    pub from: String,
    /// Where the move takes that note.
    pub to: String,
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
    /// The links it leaves naming a note's old path (see
    /// [`Review::links_left`]); filled in by the workspace.
    pub links_left: Vec<LinkLeft>,
}

impl Decision {
    /// One decision of `decisions` (of several files), reported as the
    /// decision on `hunk` in `path`: its own move first, then every other
    /// move of every file, in order.
    pub fn merged(path: String, hunk: &str, decisions: Vec<Decision>) -> Decision {
        let mut merged = Decision {
            path,
            moves: Vec::new(),
            entry_ids: Vec::new(),
            hidden_user_text: Vec::new(),
            links_left: Vec::new(),
        };
        for d in decisions {
            merged.moves.extend(d.moves);
            merged.entry_ids.extend(d.entry_ids);
            merged.hidden_user_text.extend(d.hidden_user_text);
            merged.links_left.extend(d.links_left);
        }
        if let Some(i) = merged.moves.iter().position(|m| m.hunk_id == hunk) {
            merged.moves[..=i].rotate_right(1);
            merged.entry_ids[..=i].rotate_right(1);
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
    /// The open transactions, innermost last (see [`draft`]).
    journal: Vec<draft::Savepoint>,
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
        self.keep(path);
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

    /// Issues entry ids from `next` on at least (`c_{next}`), whatever
    /// the entries under review now: ids once issued stay taken.
    pub(crate) fn skip_ids_below(&mut self, next: u64) {
        self.next_id = self.next_id.max(next - 1);
    }

    /// How many entry ids have been issued (`c_1` to `c_{n}`).
    pub(crate) fn ids_issued(&self) -> u64 {
        self.next_id
    }

    /// The files under review with no entry issued after `issued` (see
    /// [`Review::ids_issued`]), by path.
    pub(crate) fn unchanged_since(&self, issued: u64) -> BTreeSet<String> {
        self.files
            .values()
            .filter(|f| f.entries().iter().all(|e| !e.issued_after(issued)))
            .flat_map(|f| f.paths().map(str::to_owned))
            .collect()
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
                    leaves_link: false,
                });
            }
            for hunk in &diff.hunks {
                self.hunks
                    .insert(hunk.hunk_id.clone(), proposal.file_path.clone());
            }
            self.keep(&proposal.file_path);
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
                leaves_link: false,
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
            let file = self.file_mut(path).expect("checked above");
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
                self.set_hunk_file(hunk, Some(file.path.clone()));
                for moved in entry.leaders() {
                    self.add_follower(moved, hunk);
                }
            }
        }
        if let Some(to) = file.op().and_then(|op| op.op.target()) {
            self.set_moved_to(to, Some(file.path.clone()));
        }
        self.keep(&file.path);
        self.files.insert(file.path.clone(), file);
    }

    /// Takes a file out of review.
    pub(crate) fn remove_file(&mut self, path: &str) -> Option<FileReview> {
        self.keep(path);
        let file = self.files.remove(path)?;
        // The followers stay listed: a move restored from a checkpoint leads
        // its link updates again.
        for hunk in file.entries().iter().filter_map(|e| e.hunk_id.as_ref()) {
            self.set_hunk_file(hunk, None);
            self.set_undo(hunk, None);
        }
        // Only its own: a file restored beside it may take the same path.
        if let Some(to) = file.op().and_then(|op| op.op.target())
            && self.moved_to.get(to).is_some_and(|from| from == path)
        {
            self.set_moved_to(to, None);
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

    /// The text a save writes for `file` (see [`FileReview::disk_view_with`]):
    /// a move's link update set aside for one written on a pending hunk
    /// stays on disk while the move does.
    pub fn disk_view(&self, file: &FileReview) -> String {
        file.disk_view_with(&|leader| self.status_of(leader) == Some(Status::Accepted))
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
