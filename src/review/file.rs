//! One file under review: its pieces, its change log, and the working buffer
//! they make.
//!
//! The rules, each following from visibility (see [`super::pieces`]):
//! - The working buffer counts every change but rejected agent hunks; the
//!   disk view (what a save writes) counts only accepted ones and the user's,
//!   and a move's link update set aside for one that cannot reach the disk
//!   yet (see `file/disk.rs`). Both are byte-exact: line endings, a BOM and a
//!   final newline are text.
//! - Hunk B *depends on* hunk A when B deleted text A owns, or inserted text
//!   strictly inside it (a follow-up rewrote the very words A put there).
//!   Decisions keep dependencies whole: accepting B accepts what it stands
//!   on, rejecting A rejects what builds on it, and setting either back to
//!   pending moves the others only as far as that takes. So every hunk can
//!   be decided at every moment, and no decision is refused.
//! - Two agent hunks that took out the same text are alternatives: the
//!   later one was written while the earlier was rejected. Whatever makes
//!   one count (a decision, an undo) rejects the other, with what builds on
//!   it, so the buffer never shows two replacements of the same words.
//! - Text the user typed strictly inside a hunk's text shows only while that
//!   hunk counts: rejecting the hunk leaves nothing of the agent's, and the
//!   user's typing inside it goes with it (the caller asks first, and keeps a
//!   checkpoint). Undo brings both back.

use std::collections::BTreeSet;

use ropey::Rope;
use serde::{Deserialize, Serialize};

use super::pieces::{self, BASE, Op, Piece};
use super::{Entry, Origin, Span, Status};
use crate::project::text;

mod disk;

/// A file's change log and pieces as stored: the entries, every piece's
/// text end to end (invisible ones included), and per piece its length in
/// bytes, the entry that inserted it (`None`: the base), the entries that
/// deleted it, and the entry it was typed within.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StoredLog {
    pub entries: Vec<Entry>,
    pub text: String,
    #[allow(clippy::type_complexity)]
    pub pieces: Vec<(usize, Option<u32>, Vec<u32>, Option<u32>)>,
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
    pieces: Vec<Piece>,
    entries: Vec<Entry>,
    /// The visible text of the buffer view, kept in step with the pieces.
    buffer: Rope,
    /// Per entry, the agent entries it depends on (see the module docs).
    depends_on: Vec<BTreeSet<usize>>,
    /// Per entry, the entries that depend on it.
    dependents: Vec<Vec<usize>>,
    /// Per agent entry, the agent entries that took out the same text: the
    /// later one was written while the earlier was rejected, so the two are
    /// alternatives and never count together (see [`FileReview::plan`]).
    excludes: Vec<BTreeSet<usize>>,
    /// A move or deletion of the whole file (see [`super::op`]).
    pub(super) op: Option<super::StagedOp>,
    /// The paths its retired moves took it from (see [`super::op`]).
    pub(super) moved_from: Vec<super::PastPath>,
}

impl FileReview {
    /// A file with no change yet: its buffer is `base`.
    pub fn new(path: String, base: String, disk_hash: Option<String>, created: bool) -> FileReview {
        let pieces = if base.is_empty() {
            Vec::new()
        } else {
            vec![Piece::new(&base, BASE, Vec::new(), None)]
        };
        FileReview {
            path,
            buffer: Rope::from_str(&base),
            base,
            disk_hash,
            created,
            pieces,
            entries: Vec::new(),
            depends_on: Vec::new(),
            dependents: Vec::new(),
            excludes: Vec::new(),
            op: None,
            moved_from: Vec::new(),
        }
    }

    /// Reassembles a file from its stored pieces; `None` when they do not
    /// fit together (a piece names an entry that does not exist).
    fn from_pieces(
        path: String,
        base: String,
        disk_hash: Option<String>,
        created: bool,
        entries: Vec<Entry>,
        pieces: Vec<Piece>,
    ) -> Option<FileReview> {
        let known = |c: u32| c == BASE || (c as usize) < entries.len();
        if !pieces
            .iter()
            .all(|p| known(p.ins) && p.del.iter().all(|&d| known(d)) && p.within.is_none_or(known))
        {
            return None;
        }
        let mut file = FileReview {
            path,
            base,
            disk_hash,
            created,
            pieces,
            entries,
            buffer: Rope::new(),
            depends_on: Vec::new(),
            dependents: Vec::new(),
            excludes: Vec::new(),
            op: None,
            moved_from: Vec::new(),
        };
        file.buffer = Rope::from_str(&pieces::render(&file.pieces, &in_buffer(&file.entries)));
        file.find_dependencies();
        Some(file)
    }

    /// The working buffer's text.
    pub fn buffer(&self) -> String {
        self.buffer.to_string()
    }

    /// Whether the file is not there in the working state: created by a
    /// proposal, not on disk, and its working buffer (`buffer`) empty.
    pub fn unmade(&self, buffer: &str) -> bool {
        self.created && self.disk_hash.is_none() && buffer.is_empty()
    }

    /// Whether the working buffer holds exactly `text`.
    pub fn buffer_is(&self, text: &str) -> bool {
        self.buffer == text
    }

    /// The change log, in the order changes were recorded.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The working buffer itself.
    pub(crate) fn buffer_rope(&self) -> &Rope {
        &self.buffer
    }

    /// The log and pieces in storage form.
    pub(crate) fn to_stored(&self) -> StoredLog {
        StoredLog {
            entries: self.entries.clone(),
            text: pieces::texts(&self.pieces),
            pieces: self
                .pieces
                .iter()
                .map(|p| {
                    let index = |c: u32| (c != BASE).then_some(c);
                    (p.len(), index(p.ins), p.del.clone(), p.within)
                })
                .collect(),
        }
    }

    /// A file from its log in storage form; `None` when it does not hold
    /// together.
    pub(crate) fn from_stored(
        path: String,
        base: String,
        disk_hash: Option<String>,
        created: bool,
        log: StoredLog,
    ) -> Option<FileReview> {
        let parts = log
            .pieces
            .into_iter()
            .map(|(len, ins, del, within)| (len, ins.unwrap_or(BASE), del, within));
        let pieces = pieces::from_texts(&log.text, parts)?;
        FileReview::from_pieces(path, base, disk_hash, created, log.entries, pieces)
    }

    /// Whether any agent hunk is still pending.
    pub fn has_pending(&self) -> bool {
        self.entries
            .iter()
            .any(|e| e.origin.is_reviewed() && e.status == Status::Pending)
    }

    fn in_buffer(&self) -> impl Fn(u32) -> bool + '_ {
        in_buffer(&self.entries)
    }

    fn is_agent(&self) -> impl Fn(u32) -> bool + '_ {
        is_agent(&self.entries)
    }

    /// Records `entries` with their `ops` (positioned in the buffer as it is,
    /// sorted, one batch): the buffer becomes what they make of it.
    pub(crate) fn record(&mut self, entries: Vec<Entry>, ops: Vec<(usize, Op)>) {
        let first = self.entries.len();
        self.entries.extend(entries);
        let ops: Vec<Op> = ops
            .into_iter()
            .map(|(i, op)| Op {
                who: (first + i) as u32,
                ..op
            })
            .collect();
        let old = std::mem::take(&mut self.pieces);
        self.pieces = pieces::apply(
            old,
            &ops,
            &in_buffer(&self.entries),
            &is_agent(&self.entries),
        );
        // Applied from the last, each op's position is still the buffer's.
        for op in ops.iter().rev() {
            let start = self.buffer.byte_to_char(op.at);
            let end = self.buffer.byte_to_char(op.at + op.del);
            self.buffer.remove(start..end);
            self.buffer.insert(start, &op.ins);
        }
        self.find_dependencies();
    }

    /// Works out every entry's dependencies from the pieces.
    fn find_dependencies(&mut self) {
        let is_agent = is_agent(&self.entries);
        let mut deps = vec![BTreeSet::new(); self.entries.len()];
        let mut excludes = vec![BTreeSet::new(); self.entries.len()];
        for p in &self.pieces {
            for (k, &a) in p.del.iter().enumerate() {
                for &b in &p.del[k + 1..] {
                    if a != b && is_agent(a) && is_agent(b) {
                        excludes[a as usize].insert(b as usize);
                        excludes[b as usize].insert(a as usize);
                    }
                }
            }
            if let Some(owner) = p.owner(&is_agent) {
                for &d in &p.del {
                    if d != owner {
                        deps[d as usize].insert(owner as usize);
                    }
                }
            }
            if let Some(w) = p.within
                && p.ins != BASE
                && p.ins != w
            {
                deps[p.ins as usize].insert(w as usize);
            }
        }
        // Only agent hunks are decided; only they are depended on.
        for (i, d) in deps.iter_mut().enumerate() {
            if self.entries[i].origin == Origin::User {
                d.clear();
            }
        }
        let mut dependents = vec![Vec::new(); self.entries.len()];
        for (j, on) in deps.iter().enumerate() {
            for &k in on {
                dependents[k].push(j);
            }
        }
        self.depends_on = deps;
        self.dependents = dependents;
        self.excludes = excludes;
    }

    /// Whether entry `i` inserted or took out any text (a move or deletion
    /// of the whole file changes none).
    pub(crate) fn changes_text(&self, i: usize) -> bool {
        let i = i as u32;
        self.pieces.iter().any(|p| p.ins == i || p.del.contains(&i))
    }

    /// The agent entries entry `i` depends on, directly.
    pub fn depends_on(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.depends_on[i].iter().copied()
    }

    /// The agent entries that depend on entry `i`, directly.
    pub fn dependents(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.dependents[i].iter().copied()
    }

    /// Every entry a decision setting entry `i` to `status` moves, `i` first,
    /// with its new status; see the module docs. An entry that comes to
    /// count rejects the alternatives it excludes (see
    /// [`FileReview::with_exclusions`]).
    pub(crate) fn plan(&self, i: usize, status: Status) -> Vec<(usize, Status)> {
        self.with_exclusions(self.plan_within(i, status))
    }

    /// `moves`, and the rejection (with what builds on them) of every
    /// entry that took out the same text as one `moves` makes count, while
    /// it counts: a hunk written while another was rejected replaced the
    /// same words, and the two together would show both replacements side
    /// by side ("Gamma 0Gamma").
    pub(crate) fn with_exclusions(&self, mut moves: Vec<(usize, Status)>) -> Vec<(usize, Status)> {
        let Some(&(first, _)) = moves.first() else {
            return moves;
        };
        let mut k = 0;
        while k < moves.len() {
            let (j, status) = moves[k];
            k += 1;
            if status == Status::Rejected {
                continue;
            }
            for &x in self.excludes.get(j).into_iter().flatten() {
                let now = moves
                    .iter()
                    .rev()
                    .find(|(e, _)| *e == x)
                    .map_or(self.entries[x].status, |m| m.1);
                if now == Status::Rejected {
                    continue;
                }
                for (e, s) in self.plan_within(x, Status::Rejected) {
                    match moves.iter_mut().find(|(m, _)| *m == e) {
                        Some(m) if m.1 == Status::Rejected => {}
                        // Both ways round: the one asked for wins.
                        Some(_) if e == first => {}
                        Some(m) => m.1 = s,
                        None => moves.push((e, s)),
                    }
                }
            }
        }
        moves
    }

    /// Whether entry `i`'s line shows a link that follows its moves without
    /// it: a counting hunk that follows the same moves is an alternative of
    /// it (it replaced the same words since, see
    /// [`FileReview::with_exclusions`]), or one it rewrote (a move's own
    /// link update, written another way since: rejected, the link update's
    /// text shows again). Rejected, such a follower leaves no link behind.
    /// An alternative written while the move was rejected links to the old
    /// path, and covers nothing.
    pub(crate) fn covered(&self, i: usize) -> bool {
        let leaders = &self.entries[i].follows;
        let follows_them = |x: usize| {
            self.entries[x].status != Status::Rejected
                && leaders
                    .iter()
                    .all(|l| self.entries[x].tie_to(&l.leader).is_some())
        };
        !leaders.is_empty()
            && (self.excludes.get(i).into_iter().flatten().any(|&x| follows_them(x))
                || self.depends_on(i).any(follows_them))
    }

    /// [`FileReview::plan`] by dependencies alone.
    fn plan_within(&self, i: usize, status: Status) -> Vec<(usize, Status)> {
        let mut moves = vec![(i, status)];
        let mut seen = BTreeSet::from([i]);
        let mut todo = vec![i];
        while let Some(j) = todo.pop() {
            // Accept: up to what it stands on. Reject: down to what builds
            // on it. Pending: accepted dependents and rejected ancestors.
            let up: Vec<usize> = self.depends_on(j).collect();
            let down: Vec<usize> = self.dependents(j).collect();
            let next: Vec<(usize, Status)> = match status {
                Status::Accepted => up
                    .into_iter()
                    .filter(|&k| self.entries[k].status != Status::Accepted)
                    .map(|k| (k, Status::Accepted))
                    .collect(),
                Status::Rejected => down
                    .into_iter()
                    .filter(|&k| self.entries[k].status != Status::Rejected)
                    .map(|k| (k, Status::Rejected))
                    .collect(),
                Status::Pending => down
                    .into_iter()
                    .filter(|&k| self.entries[k].status == Status::Accepted)
                    .chain(
                        up.into_iter()
                            .filter(|&k| self.entries[k].status == Status::Rejected),
                    )
                    .map(|k| (k, Status::Pending))
                    .collect(),
            };
            for (k, s) in next {
                if seen.insert(k) {
                    moves.push((k, s));
                    todo.push(k);
                }
            }
        }
        moves
    }

    /// Sets the statuses `moves` names; the buffer follows.
    pub(crate) fn set_statuses(&mut self, moves: &[(usize, Status)]) {
        let before: Vec<bool> = moves
            .iter()
            .map(|&(i, _)| self.entries[i].in_buffer())
            .collect();
        for &(i, status) in moves {
            let entry = &mut self.entries[i];
            // A choice to leave a link lasts while the update stays rejected.
            entry.leaves_link &= status == Status::Rejected;
            entry.status = status;
        }
        let flips: Vec<u32> = moves
            .iter()
            .zip(&before)
            .filter(|&(&(i, _), &was)| self.entries[i].in_buffer() != was)
            .map(|(&(i, _), _)| i as u32)
            .collect();
        if flips.is_empty() {
            return;
        }
        let now = in_buffer(&self.entries);
        let was = |c: u32| if flips.contains(&c) { !now(c) } else { now(c) };
        pieces::flip(&self.pieces, &mut self.buffer, &was, &now);
    }

    /// Text the user typed that `moves` would take out of the buffer.
    pub(crate) fn user_text_hidden_by(&self, moves: &[(usize, Status)]) -> Vec<String> {
        let now = self.in_buffer();
        let after = |c: u32| match moves.iter().find(|&&(i, _)| i as u32 == c) {
            Some(&(_, s)) => s != Status::Rejected,
            None => now(c),
        };
        self.pieces
            .iter()
            .filter(|p| self.is_user_text(p) && p.visible(&now) && !p.visible(&after))
            .map(|p| p.text().to_owned())
            .collect()
    }

    /// Where each agent hunk stands in the buffer, in document order.
    pub fn spans(&self) -> Vec<Span> {
        let (reach, offsets) = self.reach();
        in_document_order(&reach)
            .into_iter()
            .map(|i| self.span(i, &reach, &offsets))
            .collect()
    }

    /// The agent entries in document order (what [`FileReview::spans`]
    /// orders by, without working out their lines).
    pub fn hunk_order(&self) -> Vec<usize> {
        in_document_order(&self.reach().0)
    }

    /// Where agent entry `i` stands in the buffer; `None` for a user entry.
    pub fn span_of(&self, i: usize) -> Option<Span> {
        let (reach, offsets) = self.reach();
        reach[i]?;
        Some(self.span(i, &reach, &offsets))
    }

    /// Per agent entry, the lowest and highest offset of the buffer it
    /// touches; and where each piece starts in the buffer (an invisible one:
    /// where it would go).
    #[allow(clippy::type_complexity)]
    fn reach(&self) -> (Vec<Option<(usize, usize)>>, Vec<usize>) {
        let is_agent = self.is_agent();
        let now = self.in_buffer();
        let mut reach: Vec<Option<(usize, usize)>> = vec![None; self.entries.len()];
        let mut offsets = Vec::with_capacity(self.pieces.len());
        let mut at = 0;
        for p in &self.pieces {
            offsets.push(at);
            let end = if p.visible(&now) { at + p.len() } else { at };
            let mut touch = |c: u32| {
                if c == BASE || !is_agent(c) {
                    return;
                }
                let r = reach[c as usize].get_or_insert((at, end));
                r.1 = r.1.max(end);
            };
            touch(p.ins);
            p.del.iter().for_each(|&d| touch(d));
            at = end;
        }
        (reach, offsets)
    }

    /// The span of entry `i`: the lines that it, and the hunks a reject of
    /// it carries, touch (`reach`); `offsets` are where the pieces start.
    fn span(&self, i: usize, reach: &[Option<(usize, usize)>], offsets: &[usize]) -> Span {
        // Without it means without what builds on it too (a reject carries
        // them): never a text no decision can make.
        let gone: Vec<u32> = self
            .plan(i, Status::Rejected)
            .into_iter()
            .map(|(j, _)| j as u32)
            .collect();
        let (lo, hi) = gone
            .iter()
            .filter_map(|&j| reach[j as usize])
            .fold((usize::MAX, 0), |(lo, hi), (a, b)| (lo.min(a), hi.max(b)));
        let rope = &self.buffer;
        let line = rope.byte_to_line(lo);
        let at_line_start = lo == 0 || rope.byte(lo - 1) == b'\n';
        let end_line = if hi > lo {
            rope.byte_to_line(hi - 1) + 1
        } else if at_line_start {
            line
        } else {
            line + 1
        };
        let line_byte = |l: usize| {
            if l >= rope.len_lines() {
                rope.len_bytes()
            } else {
                rope.line_to_byte(l)
            }
        };
        let (start, end) = (line_byte(line), line_byte(end_line));
        let now = self.in_buffer();
        let without = |c: u32| !gone.contains(&c) && now(c);
        // Before it: the changes recorded earlier, as decided now; none of
        // the later ones, whether they build on it or not.
        let before = |c: u32| (c == BASE || c < i as u32) && now(c);
        let (mut old, mut was, mut untyped) = (String::new(), String::new(), String::new());
        let mut typed = false;
        let from = offsets.partition_point(|&o| o < start).saturating_sub(1);
        for (p, &o) in self.pieces[from..].iter().zip(&offsets[from..]) {
            if o > end {
                break;
            }
            let visible = p.visible(&now);
            let (text, shown) = if visible {
                let (a, b) = (o.max(start), (o + p.len()).min(end));
                (a < b).then(|| &p.text()[a - o..b - o]).map_or(("", false), |t| (t, true))
            } else {
                (p.text(), start <= o)
            };
            if shown && p.visible(&without) {
                old.push_str(text);
            }
            if shown && p.visible(&before) {
                was.push_str(text);
            }
            if shown && visible {
                if p.within.is_some() && self.is_user_text(p) {
                    typed = true;
                } else {
                    untyped.push_str(text);
                }
            }
        }
        Span {
            entry: i,
            line,
            lines: end_line - line,
            old,
            before: was,
            now: rope.byte_slice(start..end).to_string(),
            untyped: typed.then_some(untyped),
            bytes: start..end,
        }
    }

    /// Whether anything but entry `i` changed its lines since it was
    /// recorded: the user typed or deleted on them, or another change that
    /// counts deleted text it owns or put text inside it.
    pub fn edited(&self, i: usize) -> bool {
        let now = self.in_buffer();
        let is_agent = self.is_agent();
        let c = i as u32;
        let user = |d: u32| d != BASE && self.entries[d as usize].origin == Origin::User;
        let lines = self.span_of(i).map(|s| s.bytes);
        let mut at = 0;
        self.pieces.iter().any(|p| {
            let visible = p.visible(&now);
            let here = at;
            if visible {
                at += p.len();
            }
            let owned = p.owner(&is_agent) == Some(c);
            let on_its_lines = lines.as_ref().is_some_and(|l| {
                if visible {
                    here < l.end && l.start < at
                } else {
                    l.start <= here && here <= l.end
                }
            });
            (owned && p.del.iter().any(|&d| d != c && now(d)))
                || (p.within == Some(c) && p.ins != c && now(p.ins))
                || (on_its_lines && ((visible && user(p.ins)) || p.del.iter().any(|&d| user(d))))
        })
    }

    /// The hunks with text the user typed inside their text that shows now:
    /// rejecting one of them would take that text out too.
    pub fn typed_inside(&self) -> BTreeSet<usize> {
        let now = self.in_buffer();
        self.pieces
            .iter()
            .filter(|p| self.is_user_text(p) && p.visible(&now))
            .filter_map(|p| p.within.map(|w| w as usize))
            .collect()
    }

    /// Whether the user typed `p`.
    fn is_user_text(&self, p: &Piece) -> bool {
        p.ins != BASE && self.entries[p.ins as usize].origin == Origin::User
    }

    /// The entry's change as a unified diff of the lines it replaced into its
    /// lines now, at its place (its `forward_patch`); reversed, the
    /// `reverse_patch`. `None` for an entry with no place in the buffer.
    pub fn patch(&self, i: usize, reverse: bool) -> Option<String> {
        let span = self.span_of(i)?;
        let (from, to) = if reverse {
            (&span.now, &span.old)
        } else {
            (&span.old, &span.now)
        };
        let mut base: Vec<&str> = vec!["\n"; span.line];
        base.extend(from.split_inclusive('\n'));
        let to: Vec<&str> = to.split_inclusive('\n').collect();
        let from_len = from.split_inclusive('\n').count();
        Some(crate::hunks::patch::render(
            &self.path, false, &base, span.line, from_len, &to, 0,
        ))
    }

    /// `sha256:` of the buffer.
    pub fn buffer_hash(&self) -> String {
        text::content_hash(self.buffer().as_bytes())
    }

    /// Entry `i`, to change what is not text (its decision's note).
    pub(crate) fn entry_mut(&mut self, i: usize) -> &mut Entry {
        &mut self.entries[i]
    }
}

/// Which changes count in the working buffer: the base, the user's, and
/// agent hunks not rejected.
fn in_buffer(entries: &[Entry]) -> impl Fn(u32) -> bool + '_ {
    |c| c == BASE || entries[c as usize].in_buffer()
}

/// Whether a change is an agent hunk.
fn is_agent(entries: &[Entry]) -> impl Fn(u32) -> bool + '_ {
    |c| c != BASE && entries[c as usize].origin.is_reviewed()
}

/// The entries that `reach` places, by where they start (then by index).
fn in_document_order(reach: &[Option<(usize, usize)>]) -> Vec<usize> {
    let mut order: Vec<(usize, usize)> = reach
        .iter()
        .enumerate()
        .filter_map(|(i, r)| Some((r.as_ref()?.0, i)))
        .collect();
    order.sort_unstable();
    order.into_iter().map(|(_, i)| i).collect()
}
