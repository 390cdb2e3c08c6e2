//! Undo: a decision's step taken back, each hunk to the status it had
//! before, and the statuses a step of the decision history left put back.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::closure::Targets;
use super::decide::{UndoStep, decision};
use super::{Decision, FileReview, Review, ReviewError, Status};

impl Review {
    /// Keeps the decision undo steps `other` has (the review before a
    /// rollback) in place of this review's: a rollback's own decisions are
    /// undone by its undo checkpoint, never hunk by hunk, so undoing a hunk
    /// after it undoes that hunk's own latest decision only.
    pub(crate) fn keep_undo_steps_of(&mut self, other: &Review) {
        let stale: Vec<String> = self
            .undo
            .keys()
            .filter(|h| !other.undo.contains_key(*h))
            .cloned()
            .collect();
        for hunk in stale {
            self.set_undo(&hunk, None);
        }
        for (hunk, step) in &other.undo {
            self.set_undo(hunk, Some(Arc::clone(step)));
        }
    }

    /// Undoes the latest decisions on `hunk_ids`, each step once: a
    /// pattern decided at once comes back at once. A hunk of a step that
    /// was moved again since keeps where it is now; a hunk with no step
    /// known goes back to pending. Returns one decision per file touched.
    pub fn undo_many(&mut self, hunk_ids: &[String]) -> Result<Vec<Decision>, ReviewError> {
        // Undone whole or not at all: what its moves carry may be refused
        // after they are made.
        self.transaction(|draft| draft.undo_steps(hunk_ids))
    }

    /// [`Review::undo_many`], leaving what it did when refused midway.
    fn undo_steps(&mut self, hunk_ids: &[String]) -> Result<Vec<Decision>, ReviewError> {
        self.check_decidable(hunk_ids, Status::Pending)?;
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
                if self.stays_put(hunk, *from, &BTreeSet::new()) {
                    continue;
                }
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
        // What a hunk that stays stands on stays with it.
        let mut staying: Vec<(String, usize)> = steps
            .iter()
            .flat_map(|step| &step.moves)
            .filter(|(hunk, from, _)| self.stays_put(hunk, *from, &BTreeSet::new()))
            .filter_map(|(hunk, _, _)| self.find_hunk(hunk).ok())
            .collect();
        while let Some((path, i)) = staying.pop() {
            for j in self.files[&path].depends_on(i) {
                if now.remove(&(path.clone(), j)).is_some() {
                    staying.push((path.clone(), j));
                }
            }
        }
        let mut by_file: BTreeMap<String, Vec<(usize, Status)>> = BTreeMap::new();
        for ((path, i), status) in now {
            if self.files[&path].entries()[i].status != status {
                by_file.entry(path).or_default().push((i, status));
            }
        }
        // What was written since on a hunk it rejects again goes with it.
        for (path, moves) in &mut by_file {
            *moves = with_dependents(&self.files[path], std::mem::take(moves));
        }
        self.check_moves(&by_file)?;
        for step in &steps {
            for (hunk, _, _) in &step.moves {
                self.set_undo(hunk, None);
            }
        }
        let mut decisions = Vec::new();
        let mut changed: Vec<(String, Status)> = Vec::new();
        for (path, moves) in by_file {
            let file = self.file_mut(&path).expect("found above");
            let decided = decision(file, &moves);
            changed.extend(decided.moves.iter().map(|m| (m.hunk_id.clone(), m.to)));
            decisions.push(decided);
            file.set_statuses(&moves);
        }
        // A step undone while a later one stands on its hunks: what crosses
        // files follows, so a link update never counts without its move.
        let carried = self.carried(&changed, Targets::Exact);
        if !carried.is_empty() {
            decisions.extend(self.decide_targets(&carried)?);
        }
        if !plain.is_empty() {
            // No step known (made before a restart): back to pending, as a
            // decision sets it, with what that carries.
            decisions.extend(self.decide_many_on_draft(&plain, Status::Pending)?);
        }
        Ok(decisions)
    }

    /// Undoes the latest decision on `hunk_id`, as [`Review::undo_many`]
    /// does: every hunk its step moved gets back the status it had before
    /// (those moved since keep where they are), or, with no step known
    /// (made before a restart), the hunk goes back to pending. Returns every
    /// move, as one decision on the hunk's file.
    pub fn undo(&mut self, hunk_id: &str) -> Result<Decision, ReviewError> {
        let (path, _) = self.find_hunk(hunk_id)?;
        Ok(Decision::merged(path, hunk_id, self.undo_many(&[hunk_id.to_owned()])?))
    }

    /// Whether an undo or redo leaves `hunk` where it is rather than set it
    /// to `to`: its decision is final (see [`Review::is_final`]), or it is a
    /// link update of a move saved and moved on since, which the move cannot
    /// follow back, and `to` would count it less (a rejected one coming
    /// back to pending follows its move again, as it should). Not when the
    /// moved note is among `given_back`, the notes with nothing new since
    /// the step an undo takes back: its move was settled when the step was
    /// made, and the update was as the undo sets it then.
    fn stays_put(&self, hunk: &str, to: Status, given_back: &BTreeSet<String>) -> bool {
        let rank = |s: Status| match s {
            Status::Rejected => 0,
            Status::Pending => 1,
            Status::Accepted => 2,
        };
        let settled_before = || {
            self.find_hunk(hunk).is_ok_and(|(path, i)| {
                self.files[&path].entries()[i].leaders().any(|leader| {
                    self.find_hunk(leader)
                        .is_ok_and(|(note, _)| given_back.contains(&note))
                })
            })
        };
        self.is_final(hunk)
            || (self.status_of(hunk).is_some_and(|now| rank(to) < rank(now))
                && self.updates_a_settled_move(hunk)
                && !settled_before())
    }

    /// Sets hunks back (or forward) to where a step of the decision history
    /// left them: each `(hunk, now, to)` of `targets` is set to `to` where
    /// its status is still `now`, and nothing else is decided from it but
    /// what a note's text needs: what was written since on a hunk it
    /// rejects goes with it, as a rejection takes what builds on a hunk,
    /// and a hunk written since over the same words as one it brings back
    /// is rejected (with the moves such a link update follows). Returns one
    /// decision per file touched and the hunks left as they are: moved
    /// since, no longer under review, settled (see [`Review::is_final`]), or
    /// the link update of a move saved and moved on since the step (a note
    /// not among `given_back`, see [`Review::stays_put`]). A `redo` puts
    /// back exactly what its step moved, the link update of such a move
    /// too: the step moved it from a state where it was allowed, and its
    /// undo brought that state back.
    pub fn restore(
        &mut self,
        targets: &[(String, Status, Status)],
        redo: bool,
        given_back: &BTreeSet<String>,
    ) -> (Vec<Decision>, Vec<String>) {
        let mut left = Vec::new();
        let mut by_file: BTreeMap<String, Vec<(usize, Status)>> = BTreeMap::new();
        for (hunk, now, to) in targets {
            match self.find_hunk(hunk) {
                Ok((path, i))
                    if self.files[&path].entries()[i].status == *now
                        && (redo || !self.stays_put(hunk, *to, given_back)) =>
                {
                    let moves = by_file.entry(path).or_default();
                    match moves.iter_mut().find(|(j, _)| *j == i) {
                        Some(m) => m.1 = *to,
                        None => moves.push((i, *to)),
                    }
                }
                _ => left.push(hunk.clone()),
            }
        }
        let by_file = self.staying_with(by_file, redo, given_back, &mut left);
        let mut decisions = Vec::new();
        for (path, moves) in by_file {
            let file = self.file_mut(&path).expect("found above");
            let decided = decision(file, &moves);
            file.set_statuses(&moves);
            // A hunk's own latest decision is no longer what undo takes back.
            for m in &decided.moves {
                self.set_undo(&m.hunk_id, None);
            }
            decisions.push(decided);
        }
        // A move rejected takes what follows it (a later hunk that links to
        // where it took the note), and a link update rejected because what
        // it was written on went takes its move, as a decision's would.
        let rejected: Vec<(String, Status)> = decisions
            .iter()
            .flat_map(|d| &d.moves)
            .filter(|m| m.to == Status::Rejected && m.from != Status::Rejected)
            .map(|m| (m.hunk_id.clone(), Status::Rejected))
            .collect();
        let taken: Vec<(String, Status, Status)> = self
            .carried(&rejected, Targets::Exact)
            .into_iter()
            .filter_map(|(h, to)| {
                let now = self.status_of(&h)?;
                (now != Status::Rejected).then_some((h, now, to))
            })
            .collect();
        if !taken.is_empty() {
            let (more, _) = self.restore(&taken, redo, given_back);
            decisions.extend(more);
        }
        (decisions, left)
    }
}

impl Review {
    /// `by_file` (per file, entry index and the status it gets) with what
    /// each move carries within its file (see [`with_dependents`]), but
    /// for a hunk that stays where it is (see [`Review::stays_put`]) and
    /// what it stands on, which stay with it: setting a hunk back that a
    /// saved move's link update stands on would take the update along. A
    /// `redo` keeps nothing back (see [`Review::restore`]).
    /// The hunks asked for and so kept are added to `left`.
    fn staying_with(
        &self,
        by_file: BTreeMap<String, Vec<(usize, Status)>>,
        redo: bool,
        given_back: &BTreeSet<String>,
        left: &mut Vec<String>,
    ) -> BTreeMap<String, Vec<(usize, Status)>> {
        let mut kept: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
        loop {
            let mut out = BTreeMap::new();
            let mut more = false;
            for (path, moves) in &by_file {
                let file = &self.files[path];
                let kept_here = kept.entry(path.clone()).or_default();
                let asked: Vec<(usize, Status)> =
                    moves.iter().filter(|(i, _)| !kept_here.contains(i)).copied().collect();
                let carried = with_dependents(file, asked);
                let mut todo: Vec<usize> = carried
                    .iter()
                    .filter(|&&(j, to)| {
                        file.entries()[j]
                            .hunk_id
                            .as_deref()
                            .is_some_and(|h| !redo && self.stays_put(h, to, given_back))
                    })
                    .map(|&(j, _)| j)
                    .collect();
                while let Some(j) = todo.pop() {
                    if kept_here.insert(j) {
                        more = true;
                        todo.extend(file.depends_on(j));
                    }
                }
                out.insert(path.clone(), carried);
            }
            if !more {
                for (path, indexes) in kept {
                    let entries = self.files[&path].entries();
                    let asked = &by_file[&path];
                    left.extend(
                        indexes
                            .into_iter()
                            .filter(|i| asked.iter().any(|(j, _)| j == i))
                            .filter_map(|i| entries[i].hunk_id.clone()),
                    );
                }
                return out;
            }
        }
    }
}

/// `moves` of `file`'s entries, with the hunks written since on one they
/// reject (rejected with it, as a decision rejects what builds on a hunk)
/// or set back from accepted to pending (those accepted go pending with it:
/// the disk never holds a hunk without what it stands on), and those that
/// replaced the same words as one they bring back (its alternatives, see
/// [`FileReview::with_exclusions`]); but none that would make a hunk count
/// while what it was written on stays rejected (see [`standing`]).
fn with_dependents(file: &FileReview, moves: Vec<(usize, Status)>) -> Vec<(usize, Status)> {
    let mut moves = file.with_exclusions(moves);
    let leaving: Vec<(usize, Status)> = moves
        .iter()
        .filter(|&&(i, s)| {
            s == Status::Rejected
                || (s == Status::Pending && file.entries()[i].status == Status::Accepted)
        })
        .copied()
        .collect();
    for (i, to) in leaving {
        for (j, status) in file.plan(i, to).into_iter().skip(1) {
            if !moves.iter().any(|(k, _)| *k == j) {
                moves.push((j, status));
            }
        }
    }
    standing(file, moves)
}

/// `moves` without those that would make a hunk count (pending or
/// accepted) while a hunk it was written on stays rejected: its words
/// replace words that are not there. A step undone brings back a hunk
/// whose ground was rejected by a later decision: that hunk stays where
/// that decision left it, as a decision rejecting its ground would have.
fn standing(file: &FileReview, mut moves: Vec<(usize, Status)>) -> Vec<(usize, Status)> {
    loop {
        let after = |k: usize| {
            moves
                .iter()
                .rev()
                .find(|(e, _)| *e == k)
                .map_or(file.entries()[k].status, |m| m.1)
        };
        let baseless = moves.iter().position(|&(i, to)| {
            to != Status::Rejected && file.depends_on(i).any(|j| after(j) == Status::Rejected)
        });
        match baseless {
            Some(p) => {
                moves.remove(p);
            }
            None => return moves,
        }
    }
}
