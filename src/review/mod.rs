//! Review: working buffers and the change log (seed §7, §19, §20).
//!
//! Every file under review has a base (its content before the run), a working
//! buffer (what the editor shows: the base with every change not rejected),
//! and its entries in the change log. A proposal is staged into the buffer at
//! once, one `agent` entry per hunk; edits the user makes meanwhile become
//! `user` entries. Accepting changes a status; rejecting takes that hunk's
//! text out of the buffer, wherever later edits have moved it, and an edit
//! that overlaps it turns the reject into a conflict instead of an overwrite.
//!
//! Each entry knows its current region in the buffer: its new lines while it
//! is applied, its old lines while it is rejected. Every change to the buffer
//! shifts the regions after it, so the buffer for a set of decisions does not
//! depend on the order they were made in.
//!
//! Nothing reaches the disk unaccepted: [`FileReview::disk_view`] is the
//! buffer with its pending agent hunks taken out, which is what the
//! workspace saves. The review itself is pure: it reads and writes no file.

pub mod buffer;
pub mod preview;

use std::collections::BTreeMap;

use ropey::Rope;
use serde::{Deserialize, Serialize};
use similar::{Algorithm, DiffOp, TextDiff};

use crate::edits::FileProposal;
use crate::hunks::{self, DiffBundle};
use crate::project::text;

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
    /// The lines it replaced, terminators included.
    pub old: Vec<String>,
    /// The lines it put there.
    pub new: Vec<String>,
    /// `sha256:` of the buffer before it was recorded.
    pub file_hash_before: String,
    /// First line of its region in the buffer now.
    pub at: usize,
    /// Lines of its region now: `new` while applied, `old` while rejected,
    /// or more when a later edit overlapped it.
    pub len: usize,
    /// The entries whose regions it widened when it last changed (recorded,
    /// rejected or put back), as they were before: changing it back restores
    /// them.
    #[serde(default)]
    pub covers: Vec<Cover>,
}

/// An entry's region before a change overlapping it widened it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cover {
    /// The entry's index in the log.
    pub entry: usize,
    /// Its first line then, relative to the change's.
    pub offset: isize,
    /// Its length then.
    pub len: usize,
    /// Its length once widened.
    pub widened: usize,
}

impl Entry {
    fn end(&self) -> usize {
        self.at + self.len
    }

    /// The change as a unified diff of its old lines into its new ones, at its
    /// current place (the seed's `forward_patch`).
    pub fn forward_patch(&self, path: &str) -> String {
        patch_between(path, self.at, &self.old, &self.new)
    }

    /// The change undone (the seed's `reverse_patch`).
    pub fn reverse_patch(&self, path: &str) -> String {
        patch_between(path, self.at, &self.new, &self.old)
    }
}

fn patch_between(path: &str, at: usize, from: &[String], to: &[String]) -> String {
    let mut base: Vec<&str> = vec!["\n"; at];
    base.extend(from.iter().map(String::as_str));
    let to: Vec<&str> = to.iter().map(String::as_str).collect();
    hunks::patch::render(path, false, &base, at, from.len(), &to, 0)
}

/// Whether two regions `(start, len)` overlap: non-empty ones share a line,
/// or an empty one lies strictly inside the other. Regions that only touch do not.
fn regions_overlap((a, a_len): (usize, usize), (b, b_len): (usize, usize)) -> bool {
    match (a_len, b_len) {
        (0, 0) => false,
        (0, _) => b < a && a < b + b_len,
        (_, 0) => a < b && b < a + a_len,
        _ => a < b + b_len && b < a + a_len,
    }
}

/// A file under review.
#[derive(Clone, Debug)]
pub struct FileReview {
    /// The file, relative to the project root.
    pub path: String,
    /// Its content before the first staged run.
    pub base: String,
    /// `sha256:` of what Redline last read from or wrote to disk; `None`
    /// while the file does not exist there.
    pub disk_hash: Option<String>,
    /// Whether an agent run created it.
    pub created: bool,
    buffer: Rope,
    entries: Vec<Entry>,
    /// Indexes of `entries` in document order, which decides between regions
    /// that meet at one point.
    order: Vec<usize>,
}

impl FileReview {
    /// The working buffer's text.
    pub fn buffer(&self) -> String {
        self.buffer.to_string()
    }

    /// The change log, in the order changes were recorded.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Reassembles a file from stored parts; `order` lists entry indexes in
    /// document order.
    pub(crate) fn from_parts(
        path: String,
        base: String,
        disk_hash: Option<String>,
        created: bool,
        buffer: &str,
        entries: Vec<Entry>,
        order: Vec<usize>,
    ) -> FileReview {
        FileReview {
            path,
            base,
            disk_hash,
            created,
            buffer: Rope::from_str(buffer),
            entries,
            order,
        }
    }

    /// Entry indexes in document order.
    pub(crate) fn order(&self) -> &[usize] {
        &self.order
    }

    /// Sets entry `i`'s status, moving the buffer when it enters or leaves
    /// `rejected`. Used to replay decisions made after a stored snapshot.
    pub(crate) fn set_status(&mut self, i: usize, status: Status) -> Result<(), ReviewError> {
        if (self.entries[i].status == Status::Rejected) != (status == Status::Rejected) {
            self.toggle(i, status == Status::Rejected)?;
        }
        self.entries[i].status = status;
        Ok(())
    }

    /// Whether any agent hunk is still pending.
    pub fn has_pending(&self) -> bool {
        self.entries
            .iter()
            .any(|e| e.origin == Origin::Agent && e.status == Status::Pending)
    }

    /// Replaces buffer lines `at..at + old_len` with `new` and logs the change.
    /// A change of no lines goes before an entry starting where it is.
    fn record(&mut self, at: usize, old_len: usize, new: Vec<String>, entry: Entry) {
        let old = buffer::lines(&self.buffer, at, old_len);
        let change = Entry {
            old,
            at,
            len: new.len(),
            new,
            ..entry
        };
        let end = at + old_len;
        let delta = change.len as isize - old_len as isize;
        let covers = self.widen(&[], at, old_len, change.len);
        let mut first_after = None;
        for (pos, &i) in self.order.iter().enumerate() {
            if covers.iter().any(|c| c.entry == i) {
                continue;
            }
            let f = &mut self.entries[i];
            if f.at >= end {
                f.at = f.at.saturating_add_signed(delta);
                first_after.get_or_insert(pos);
            }
        }
        buffer::replace_lines(&mut self.buffer, at, old_len, &change.new);
        self.entries.push(Entry { covers, ..change });
        let index = self.entries.len() - 1;
        match first_after {
            Some(pos) => self.order.insert(pos, index),
            None => self.order.push(index),
        }
    }

    /// Takes entry `i` out of the buffer (`to_old`) or puts it back.
    fn toggle(&mut self, i: usize, to_old: bool) -> Result<(), ReviewError> {
        let e = &self.entries[i];
        let (from, to) = if to_old {
            (e.new.clone(), e.old.clone())
        } else {
            (e.old.clone(), e.new.clone())
        };
        let hunk = e.hunk_id.clone().unwrap_or_else(|| e.id.clone());
        if e.len != from.len() || !buffer::lines_equal(&self.buffer, e.at, &from) {
            return Err(ReviewError::Conflict {
                hunk_id: hunk,
                reason:
                    "its text was edited after it was proposed; accept it, or undo that edit first"
                        .into(),
            });
        }
        // A later change whose text is in the buffer was made on top of
        // this one: changing this one would overwrite it. Earlier changes
        // this one was made on top of are narrowed or widened below.
        let on_top = self.entries.iter().enumerate().find(|&(j, f)| {
            j > i
                && f.status != Status::Rejected
                && (regions_overlap((e.at, e.len), (f.at, f.len))
                    || f.covers.iter().any(|c| c.entry == i))
        });
        if let Some((_, other)) = on_top {
            return Err(ReviewError::Conflict {
                hunk_id: hunk,
                reason: format!(
                    "a later change ({}) overlaps it",
                    other.hunk_id.as_deref().unwrap_or(&other.id)
                ),
            });
        }
        let (at, end) = (e.at, e.end());
        let delta = to.len() as isize - from.len() as isize;
        // The entries this one moved when it last changed go back to where
        // they were; any other entry it overlaps now is widened to take it in.
        let restored = self.narrow(i);
        let skip: Vec<usize> = restored.iter().map(|c| c.entry).chain([i]).collect();
        let widened = self.widen(&skip, at, from.len(), to.len());
        let rank = self
            .order
            .iter()
            .position(|&x| x == i)
            .expect("every entry is ordered");
        for (pos, &j) in self.order.iter().enumerate() {
            let f = &mut self.entries[j];
            // Something at the very point of an empty region is after it when
            // it comes after it in document order.
            let after = f.at > end || (f.at == end && (end > at || pos > rank));
            let covered = restored.iter().chain(&widened).any(|c| c.entry == j);
            if j != i && after && !covered {
                f.at = f.at.saturating_add_signed(delta);
            }
        }
        buffer::replace_lines(&mut self.buffer, at, from.len(), &to);
        self.entries[i].len = to.len();
        self.entries[i].covers = widened;
        Ok(())
    }

    /// Widens every entry (but those in `skip`) whose region overlaps the
    /// lines `at..at + old_len`, about to become `new_len` lines, to take the
    /// change in: its text is no longer only its own. Returns how each was
    /// before, so the change can put them back when it is undone.
    fn widen(&mut self, skip: &[usize], at: usize, old_len: usize, new_len: usize) -> Vec<Cover> {
        let end = at + old_len;
        let delta = new_len as isize - old_len as isize;
        let mut covers = Vec::new();
        for (j, f) in self.entries.iter_mut().enumerate() {
            if skip.contains(&j) || !regions_overlap((f.at, f.len), (at, old_len)) {
                continue;
            }
            let before = (f.at, f.len);
            let stop = (f.end().max(end) as isize + delta) as usize;
            f.at = f.at.min(at);
            f.len = stop - f.at;
            covers.push(Cover {
                entry: j,
                offset: before.0 as isize - at as isize,
                len: before.1,
                widened: f.len,
            });
        }
        covers
    }

    /// Puts back the entries that entry `i` widened when it last changed, as
    /// it is changed back: each gets its region from before, plus whatever it
    /// grew by since. Returns what it put back.
    fn narrow(&mut self, i: usize) -> Vec<Cover> {
        let at = self.entries[i].at;
        let covers = std::mem::take(&mut self.entries[i].covers);
        for c in &covers {
            let f = &mut self.entries[c.entry];
            let grown = f.len as isize - c.widened as isize;
            let mut len = (c.len as isize + grown).max(0) as usize;
            let inside = c.offset + c.len as isize;
            if c.offset > 0 {
                f.at = at.saturating_add_signed(c.offset);
            } else if inside > 0 && f.at + f.len < at {
                // It began before this change and ran into it, and lines were
                // put in since at the point where it was cut: its lines in the
                // change come back past them. It takes them in rather than
                // lose its end.
                len = len.max(at.saturating_add_signed(inside) - f.at);
            }
            f.len = len;
        }
        covers
    }

    /// The text a save writes: the buffer without its pending agent hunks.
    pub fn disk_view(&self) -> Result<String, ReviewError> {
        let mut copy = self.clone();
        let mut pending: Vec<usize> = (0..copy.entries.len())
            .filter(|&i| {
                copy.entries[i].origin == Origin::Agent && copy.entries[i].status == Status::Pending
            })
            .collect();
        // The latest first: a change made on top of another comes out before it.
        pending.reverse();
        let mut blocked = Vec::new();
        for i in pending {
            if copy.toggle(i, true).is_err() {
                blocked.push(copy.entries[i].hunk_id.clone().unwrap_or_default());
            }
        }
        if blocked.is_empty() {
            Ok(copy.buffer())
        } else {
            Err(ReviewError::PendingEdited {
                path: self.path.clone(),
                hunk_ids: blocked,
            })
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
    /// The decision would overwrite an edit made after the hunk.
    #[error("hunk {hunk_id} cannot be changed: {reason}")]
    Conflict {
        /// The hunk.
        hunk_id: String,
        /// Why.
        reason: String,
    },
    /// A proposal was made against text the buffer no longer holds.
    #[error(
        "the proposal for `{0}` was made against text that has changed since; run the agent again on the current content"
    )]
    StaleProposal(String),
    /// Pending hunks were edited by the user, so a save cannot leave them out.
    #[error("`{path}`: pending hunks {} were edited after they were proposed; accept them before saving", hunk_ids.join(", "))]
    PendingEdited {
        /// The file.
        path: String,
        /// The hunks.
        hunk_ids: Vec<String>,
    },
    /// An edit named a buffer text that has changed since (a decision or a
    /// reload came first); read the file again and redo the edit on it.
    #[error("the buffer of `{0}` changed since it was read; read it again and redo the edit")]
    StaleBuffer(String),
    /// There is no conflict to resolve: the disk holds what Redline knows.
    #[error("`{0}` has no conflict with the disk")]
    NoConflict(String),
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
    /// Whether the user changed its lines since (they no longer hold the
    /// hunk's text, or the old text it was rejected back to).
    pub edited: bool,
    /// The lines it replaced.
    pub old: String,
    /// Its lines in the buffer now.
    pub now: String,
}

/// Every file under review, and the change log.
#[derive(Clone, Debug, Default)]
pub struct Review {
    files: BTreeMap<String, FileReview>,
    next_id: u64,
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

    fn next_id(&mut self) -> String {
        self.next_id += 1;
        format!("c_{}", self.next_id)
    }

    /// Stages a job's proposal: every hunk of `bundle` goes into its file's
    /// buffer as a pending agent entry. A file already under review must still
    /// hold the text the proposal was made against.
    pub fn stage(
        &mut self,
        job_id: &str,
        proposals: &[FileProposal],
        bundle: &DiffBundle,
    ) -> Result<(), ReviewError> {
        for (proposal, diff) in proposals.iter().zip(&bundle.files) {
            if let Some(file) = self.files.get(&proposal.file_path)
                && file.buffer != proposal.base.as_str()
            {
                return Err(ReviewError::StaleProposal(proposal.file_path.clone()));
            }
            debug_assert_eq!(proposal.file_path, diff.file_path);
        }
        for (proposal, diff) in proposals.iter().zip(&bundle.files) {
            let mut ids: Vec<String> = diff.hunks.iter().map(|_| self.next_id()).collect();
            let file = self
                .files
                .entry(proposal.file_path.clone())
                .or_insert_with(|| FileReview {
                    path: proposal.file_path.clone(),
                    base: proposal.base.clone(),
                    disk_hash: proposal.base_file_hash.clone(),
                    created: proposal.created,
                    buffer: Rope::from_str(&proposal.base),
                    entries: Vec::new(),
                    order: Vec::new(),
                });
            let before = text::content_hash(proposal.base.as_bytes());
            let new_lines: Vec<&str> = proposal.proposed.split_inclusive('\n').collect();
            // Bottom-up, so each hunk's base position is still its buffer position.
            for hunk in diff.hunks.iter().rev() {
                let new = new_lines[hunk.new_start..hunk.new_start + hunk.new_lines]
                    .iter()
                    .map(|l| (*l).to_owned())
                    .collect();
                let entry = Entry {
                    id: ids.pop().expect("one id per hunk"),
                    origin: Origin::Agent,
                    job_id: Some(job_id.to_owned()),
                    hunk_id: Some(hunk.hunk_id.clone()),
                    status: Status::Pending,
                    old: Vec::new(),
                    new: Vec::new(),
                    file_hash_before: before.clone(),
                    at: 0,
                    len: 0,
                    covers: Vec::new(),
                };
                file.record(hunk.old_start, hunk.old_lines, new, entry);
            }
        }
        Ok(())
    }

    /// Records the user's edit of `path`: the buffer becomes `new_text`, and
    /// each changed block becomes a `user` entry. Returns their ids.
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
                    b.1 = o.end - b.0;
                    b.3 = n.end - b.2;
                }
                _ => blocks.push((o.start, o.len(), n.start, n.len())),
            }
            open = true;
        }
        let before = text::content_hash(current.as_bytes());
        let mut ids = Vec::new();
        for (o, ol, n, nl) in blocks.into_iter().rev() {
            let id = self.next_id();
            let lines = new[n..n + nl].iter().map(|l| (*l).to_owned()).collect();
            let file = self.files.get_mut(path).expect("checked above");
            let entry = Entry {
                id: id.clone(),
                origin: Origin::User,
                job_id: None,
                hunk_id: None,
                status: Status::Accepted,
                old: Vec::new(),
                new: Vec::new(),
                file_hash_before: before.clone(),
                at: 0,
                len: 0,
                covers: Vec::new(),
            };
            file.record(o, ol, lines, entry);
            ids.push(id);
        }
        ids.reverse();
        Ok(ids)
    }

    /// Puts a file under review as stored, replacing any with its path.
    pub(crate) fn insert_file(&mut self, file: FileReview) {
        for entry in &file.entries {
            if let Some(n) = entry.id.strip_prefix("c_").and_then(|n| n.parse().ok()) {
                self.next_id = self.next_id.max(n);
            }
        }
        self.files.insert(file.path.clone(), file);
    }

    /// Takes a file out of review.
    pub(crate) fn remove_file(&mut self, path: &str) -> Option<FileReview> {
        self.files.remove(path)
    }

    /// The file and index of the entry for `hunk_id`.
    pub fn find_hunk(&self, hunk_id: &str) -> Result<(String, usize), ReviewError> {
        for file in self.files.values() {
            if let Some(i) = file
                .entries
                .iter()
                .position(|e| e.hunk_id.as_deref() == Some(hunk_id))
            {
                return Ok((file.path.clone(), i));
            }
        }
        Err(ReviewError::UnknownHunk(hunk_id.to_owned()))
    }

    /// What became of the hunk `hunk_id`, or `None` when it is no longer
    /// under review (rolled back, or its file resolved away).
    pub fn hunk_fate(&self, hunk_id: &str) -> Option<HunkFate> {
        let (path, i) = self.find_hunk(hunk_id).ok()?;
        let file = &self.files[&path];
        let entry = &file.entries[i];
        let now = buffer::lines(&file.buffer, entry.at, entry.len);
        let expected = if entry.status == Status::Rejected {
            &entry.old
        } else {
            &entry.new
        };
        Some(HunkFate {
            path,
            line: entry.at + 1,
            status: entry.status,
            edited: now != *expected,
            old: entry.old.concat(),
            now: now.concat(),
        })
    }

    /// Sets a hunk's status: accept, reject, or back to pending (undo). The
    /// buffer follows; a reject that would overwrite a later edit is refused.
    /// Returns the id of the hunk's log entry.
    pub fn decide(&mut self, hunk_id: &str, status: Status) -> Result<String, ReviewError> {
        let (path, i) = self.find_hunk(hunk_id)?;
        let file = self.files.get_mut(&path).expect("found above");
        file.set_status(i, status)?;
        Ok(file.entries[i].id.clone())
    }

    /// Accepts every pending hunk of `path`.
    pub fn accept_all_in_file(&mut self, path: &str) -> Result<usize, ReviewError> {
        let file = self
            .files
            .get_mut(path)
            .ok_or_else(|| ReviewError::UnknownFile(path.to_owned()))?;
        let mut count = 0;
        for e in &mut file.entries {
            if e.origin == Origin::Agent && e.status == Status::Pending {
                e.status = Status::Accepted;
                count += 1;
            }
        }
        Ok(count)
    }
}

#[cfg(test)]
mod tests;
