//! The line-region change log of schema version 3, kept only to read stores
//! and checkpoints it wrote and move them to the piece log.
//!
//! In that log each entry knew its current region of whole lines and moved
//! the regions around it by hand when it was rejected or put back. To move a
//! file to pieces, its entries are taken out of its buffer latest first (as
//! that log could always do: nothing later stands on the entry being taken
//! out), each step recording which lines became which; then the steps are
//! replayed earliest first as changes of the piece log, word by word, and
//! each entry gets its status. The buffer comes out byte for byte as it was,
//! every hunk decidable. An entry whose text the user had edited inside
//! takes that text with it (the old log could not reject it at all); a
//! rejected entry whose old lines were edited since is kept, rejected, with
//! no text to put back.

use ropey::Rope;
use serde::{Deserialize, Serialize};

use super::{Entry, FileReview, Origin, Status, buffer, line_starts, typed_ops, word_ops};

/// One change in a file's log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LegacyEntry {
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
pub(crate) struct Cover {
    /// The entry's index in the log.
    pub entry: usize,
    /// Its first line then, relative to the change's.
    pub offset: isize,
    /// Its length then.
    pub len: usize,
    /// Its length once widened.
    pub widened: usize,
}

impl LegacyEntry {
    fn end(&self) -> usize {
        self.at + self.len
    }
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

/// A file in the line-region log: its buffer, entries, and their document order.
#[derive(Clone, Debug)]
pub(crate) struct LegacyFile {
    pub buffer: Rope,
    pub entries: Vec<LegacyEntry>,
    pub order: Vec<usize>,
}

/// A toggle the old log refused.
#[derive(Debug)]
pub(crate) struct Refused;

impl LegacyFile {
    /// Replaces buffer lines `at..at + old_len` with `new` and logs the change.
    /// A change of no lines goes before an entry starting where it is. (Only
    /// the tests record: they make old logs to move.)
    #[cfg(test)]
    pub(crate) fn record(
        &mut self,
        at: usize,
        old_len: usize,
        new: Vec<String>,
        entry: LegacyEntry,
    ) {
        let old = buffer::lines(&self.buffer, at, old_len);
        let change = LegacyEntry {
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
        self.entries.push(LegacyEntry { covers, ..change });
        let index = self.entries.len() - 1;
        match first_after {
            Some(pos) => self.order.insert(pos, index),
            None => self.order.push(index),
        }
    }

    /// Takes entry `i` out of the buffer (`to_old`) or puts it back.
    fn toggle(&mut self, i: usize, to_old: bool) -> Result<(), Refused> {
        let e = &self.entries[i];
        let (from, to) = if to_old {
            (e.new.clone(), e.old.clone())
        } else {
            (e.old.clone(), e.new.clone())
        };
        if e.len != from.len() || !buffer::lines_equal(&self.buffer, e.at, &from) {
            return Err(Refused);
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
        if on_top.is_some() {
            return Err(Refused);
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

    /// Sets entry `i`'s status, moving the buffer when it enters or leaves
    /// `rejected`.
    pub(crate) fn set_status(&mut self, i: usize, status: Status) -> Result<(), Refused> {
        if (self.entries[i].status == Status::Rejected) != (status == Status::Rejected) {
            self.toggle(i, status == Status::Rejected)?;
        }
        self.entries[i].status = status;
        Ok(())
    }

    /// Brings the statuses of a stored snapshot to `current` as that log's
    /// loader did: changes taken out latest first (one made on top of
    /// another comes out before it), then changes put back earliest first,
    /// then the other status changes.
    pub(crate) fn replay(&mut self, current: &[Status]) -> Result<(), Refused> {
        let snapshot: Vec<Status> = self.entries.iter().map(|e| e.status).collect();
        let rejected = |s: Status| s == Status::Rejected;
        let mut replay: Vec<usize> = (0..current.len())
            .rev()
            .filter(|&i| rejected(current[i]) && !rejected(snapshot[i]))
            .collect();
        replay
            .extend((0..current.len()).filter(|&i| !rejected(current[i]) && rejected(snapshot[i])));
        replay
            .extend((0..current.len()).filter(|&i| rejected(current[i]) == rejected(snapshot[i])));
        for i in replay {
            self.set_status(i, current[i])?;
        }
        Ok(())
    }

    /// The file in the piece log: see the module docs. `Err` says why it
    /// could not be moved (a log the old rules could not have made).
    pub(crate) fn migrate(
        mut self,
        path: String,
        base: String,
        disk_hash: Option<String>,
        created: bool,
    ) -> Result<FileReview, String> {
        let shown = self.buffer.to_string();
        let n = self.entries.len();
        let statuses: Vec<Status> = self.entries.iter().map(|e| e.status).collect();
        if self.order.len() != n || self.order.iter().any(|&i| i >= n) {
            return Err("its document order does not match its entries".into());
        }
        // Latest first: each entry out of the buffer, and what that did.
        enum Step {
            Applied {
                at: usize,
                from: Vec<String>,
                to: Vec<String>,
            },
            Rejected {
                at: usize,
                region: Vec<String>,
            },
        }
        let mut steps = Vec::with_capacity(n);
        for i in (0..n).rev() {
            let e = &self.entries[i];
            let (at, len) = (e.at, e.len);
            if at + len > buffer::line_count(&self.buffer) {
                return Err(format!("entry {} lies past the end", e.id));
            }
            let region = buffer::lines(&self.buffer, at, len);
            if e.origin == Origin::Agent && e.status == Status::Rejected {
                steps.push(Step::Rejected { at, region });
                continue;
            }
            // Text edited inside it goes out with it.
            self.entries[i].new = region.clone();
            let to = self.entries[i].old.clone();
            self.set_status(i, Status::Rejected)
                .map_err(|_| format!("entry {} could not be taken out", self.entries[i].id))?;
            steps.push(Step::Applied {
                at,
                from: region,
                to,
            });
        }
        steps.reverse();
        let mut file = FileReview::new(path, self.buffer.to_string(), disk_hash, created);
        file.base = base;
        // Earliest first: each step undone as a change of the piece log.
        for (i, step) in steps.into_iter().enumerate() {
            let old = &self.entries[i];
            let mut entry = Entry {
                id: old.id.clone(),
                origin: old.origin,
                job_id: old.job_id.clone(),
                hunk_id: old.hunk_id.clone(),
                status: Status::Pending,
                file_hash_before: old.file_hash_before.clone(),
                reason: None,
                follows: Vec::new(),
                leaves_link: false,
            };
            let status = statuses[i];
            let (at, there, wanted) = match step {
                Step::Applied { at, from, to } => (at, to, from),
                Step::Rejected { at, region } if region == old.old => (at, region, old.new.clone()),
                // Its old lines were edited since: nothing to put back.
                Step::Rejected { at, region } => (at, region.clone(), region),
            };
            if !buffer::lines_equal(file.buffer_rope(), at, &there) {
                return Err(format!("entry {} does not replay", old.id));
            }
            let starts = line_starts(&file.buffer());
            let mut ops = Vec::new();
            let (there, wanted) = (there.concat(), wanted.concat());
            if old.origin == Origin::User {
                typed_ops(0, &there, starts[at], &wanted, &mut ops);
            } else {
                word_ops(0, &there, starts[at], &wanted, &mut ops);
            }
            if old.origin == Origin::User {
                entry.status = status;
            }
            file.record(vec![entry], ops);
            file.set_statuses(&[(i, status)]);
        }
        if !file.buffer_is(&shown) {
            return Err("its buffer does not come back".into());
        }
        Ok(file)
    }
}
