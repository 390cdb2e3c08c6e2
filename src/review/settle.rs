//! Settling ties across notes after an operation moved hunks: one fixpoint
//! that finds the ties the operation left apart and mends each toward what
//! keeps the notes' links whole, until none is apart
//! (docs/architecture.md#changes-across-notes).
//!
//! A decision closes over ties before it is made ([`Review::carried`]);
//! what it moves beyond that (a hunk rejected as a consequence in its
//! note), and what a hard rollback puts back from a checkpoint, can leave a
//! tie apart. The rules below are checks of the state, so running them
//! again after a mend is how a mend's own consequences are settled.

use std::collections::{BTreeSet, HashSet};

use super::{Decision, Review, ReviewError, Status};

/// What an operation asks of [`Review::settle`].
#[derive(Clone, Copy, Debug)]
pub enum Settle<'a> {
    /// A decision (one hunk, a batch or pattern, an undo or redo), which
    /// closed over ties before it was made: only what it rejected as a
    /// consequence is settled (rule 2). A link update among `named`
    /// rejected is the user's choice to leave that link as it is, and does
    /// not take its move.
    Decision {
        /// The hunks the user named.
        named: &'a [String],
    },
    /// A hard rollback, which put the notes `restored` (by path under
    /// review) back from a checkpoint: their ties are checked whole.
    Rollback {
        /// The notes put back.
        restored: &'a [String],
        /// Whether it gives back notes as they were (undoing a rollback):
        /// a move beside a rejected link update of its own was so then,
        /// and stays (rule 1's second half and rule 3 are not applied).
        as_they_were: bool,
    },
}

/// A tie as it stands: a follower, its note, and the hunk it follows.
struct TieAt<'a> {
    follower: &'a str,
    path: &'a str,
    index: usize,
    leader: &'a str,
}

impl Review {
    /// Mends the ties the operation `how` (its decisions so far in
    /// `decisions`) left apart, adding the decisions it makes to
    /// `decisions`, until none is apart. In order, each mend made before
    /// the rules are checked again:
    ///
    /// 1. (a rollback) a follower that counts while what it follows is
    ///    rejected or gone is rejected; and, but for a rollback that gives
    ///    notes back as they were, a move (or heading rename) that counts
    ///    while a link update of its own is rejected or gone is rejected,
    ///    where either is in a restored note;
    /// 2. a move that counts is rejected when the operation rejected a
    ///    hunk that follows it as a consequence (not named, and not
    ///    superseded: its line links where the move takes the note all the
    ///    same) ([`Review::carried_rejections`]);
    /// 3. (a rollback, but as they were) a restored note's link update of
    ///    a settled move is accepted: the note is at its new path on disk,
    ///    and so is its link;
    /// 4. (a rollback) a move and its own link update are one change, and
    ///    a hunk that follows a pending move links to where the note is not
    ///    yet: one side pending takes the other, accepted, back to pending
    ///    ([`Review::split_changes`]).
    ///
    /// A hunk is mended toward one status once, so two rules that pull it
    /// apart end with the later one.
    pub fn settle(
        &mut self,
        how: Settle<'_>,
        decisions: &mut Vec<Decision>,
    ) -> Result<(), ReviewError> {
        let (mut named, restored, as_they_were) = match how {
            Settle::Decision { named } => (named.to_vec(), None, false),
            Settle::Rollback {
                restored,
                as_they_were,
            } => (Vec::new(), Some(restored), as_they_were),
        };
        let mut mended: HashSet<(String, Status)> = HashSet::new();
        let mut fresh = |hunks: Vec<String>, to: Status| -> Vec<String> {
            let mut hunks: Vec<String> = hunks
                .into_iter()
                .filter(|h| !mended.contains(&(h.clone(), to)))
                .collect();
            hunks.sort_unstable();
            hunks.dedup();
            mended.extend(hunks.iter().map(|h| (h.clone(), to)));
            hunks
        };
        loop {
            let (reject, accept) = match restored {
                Some(restored) => self.apart(restored, as_they_were),
                None => Default::default(),
            };
            let reject = fresh(reject, Status::Rejected);
            if !reject.is_empty() {
                named.extend(reject.iter().cloned());
                decisions.extend(self.decide_many(&reject, Status::Rejected)?);
                continue;
            }
            let moves = fresh(self.carried_rejections(&named, decisions), Status::Rejected);
            if !moves.is_empty() {
                decisions.extend(self.decide_many(&moves, Status::Rejected)?);
                continue;
            }
            let accept = fresh(accept, Status::Accepted);
            if !accept.is_empty() {
                decisions.extend(self.decide_many(&accept, Status::Accepted)?);
                continue;
            }
            if restored.is_none() {
                return Ok(());
            }
            let split: Vec<_> = self
                .split_changes()
                .into_iter()
                .filter(|(h, _, to)| !fresh(vec![h.clone()], *to).is_empty())
                .collect();
            if split.is_empty() {
                return Ok(());
            }
            let (more, _) = self.restore(&split, false, &BTreeSet::new());
            if more.is_empty() {
                return Ok(());
            }
            decisions.extend(more);
        }
    }

    /// The ties with an end in the notes `restored` that stand apart: the
    /// hunks to reject (rule 1 of [`Review::settle`]) and the link updates
    /// to accept (rule 3). With `as_they_were`, only followers whose
    /// leader is rejected or gone.
    fn apart(&self, restored: &[String], as_they_were: bool) -> (Vec<String>, Vec<String>) {
        let restored: HashSet<&str> = restored.iter().map(String::as_str).collect();
        let mut reject = Vec::new();
        let mut accept = Vec::new();
        for tie in self.ties() {
            let in_restored = restored.contains(tie.path);
            if !in_restored && !self.hunks.get(tie.leader).is_some_and(|p| restored.contains(p.as_str())) {
                continue;
            }
            let file = &self.files[tie.path];
            let status = file.entries()[tie.index].status;
            // A note not put back keeps its settled hunks: they are history.
            if status != Status::Rejected
                && !self.counts(tie.leader)
                && (in_restored || !self.is_final(tie.follower))
            {
                reject.push(tie.follower.to_owned());
            }
            if as_they_were
                || !self.updates_links_of(tie.follower, tie.leader)
                || file.covered(tie.index)
                || !self.counts(tie.leader)
            {
                continue;
            }
            match self.is_final(tie.leader) {
                false if status == Status::Rejected => reject.push(tie.leader.to_owned()),
                true if in_restored && status != Status::Accepted => {
                    accept.push(tie.follower.to_owned())
                }
                _ => {}
            }
        }
        // A restored move whose own link update a rollback took out of
        // review would leave that link behind.
        for path in restored.iter().filter(|_| !as_they_were) {
            let Some(file) = self.files.get(*path) else {
                continue;
            };
            let Some(op) = file.op() else { continue };
            let entry = &file.entries()[op.entry];
            if let Some(mv) = entry.hunk_id.as_ref()
                && entry.status != Status::Rejected
                && op.followers.iter().any(|f| !self.hunks.contains_key(f))
            {
                reject.push(mv.clone());
            }
        }
        (reject, accept)
    }

    /// Every tie across notes under review, once, from its follower.
    fn ties(&self) -> impl Iterator<Item = TieAt<'_>> {
        self.files.iter().flat_map(|(path, file)| {
            file.entries()
                .iter()
                .enumerate()
                .filter_map(|(i, e)| Some((i, e.hunk_id.as_deref()?, e)))
                .flat_map(move |(index, follower, e)| {
                    e.leaders().map(move |leader| TieAt {
                        follower,
                        path,
                        index,
                        leader,
                    })
                })
        })
    }

    /// The moves that count and can be taken whose link updates (or
    /// hunks that need them) `decisions` rejected as a consequence: not
    /// named (that is the user's choice to leave the link as it is), and
    /// not superseded (their line links to where the note goes all the
    /// same). Such a rejection — a hunk that replaced the same words came to
    /// count, or what the link update was written on went — would leave
    /// the link naming the note's old path, in the working state or on
    /// disk.
    fn carried_rejections(&self, named: &[String], decisions: &[Decision]) -> Vec<String> {
        let mut moves: Vec<String> = decisions
            .iter()
            .flat_map(|d| &d.moves)
            .filter(|m| m.to == Status::Rejected && m.from != Status::Rejected)
            .filter(|m| !named.contains(&m.hunk_id) && !self.superseded(&m.hunk_id))
            .filter_map(|m| self.find_hunk(&m.hunk_id).ok())
            .flat_map(|(path, i)| self.files[&path].entries()[i].leaders().cloned().collect::<Vec<_>>())
            .filter(|m| self.counts(m) && !self.is_final(m))
            .collect();
        moves.sort_unstable();
        moves.dedup();
        moves
    }
}
