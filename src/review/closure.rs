//! The closure over ties before a decision: every hunk, in its note and in
//! others, that setting some hunks to some statuses moves with them, so
//! that no decision leaves a link update counting without its move
//! (docs/architecture.md#changes-across-notes). Every path that sets
//! statuses closes over it: a decision on one hunk or many, an undo, a
//! step of the history put back, an apply, a rollback's plan.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

use super::{Review, Status};

/// Which of a closure's targets move the hunks of their note a decision on
/// them would move ([`super::FileReview::plan`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Targets {
    /// Decided: each target moves what it builds on or what builds on it.
    Decided,
    /// Set exactly as given (an undo, a step put back, a list to apply):
    /// what they move in their notes is among them already. What they
    /// carry across notes is decided as usual.
    Exact,
}

/// When a hunk reached by a closure is set: the lower, the sooner. Where
/// two ties pull one hunk apart, the status that counts less comes first
/// and wins (a link never counts without its move, and nothing is written
/// that no one asked for); what a move brought back revives comes after
/// the rest, so a hunk the decision reaches directly keeps the status it
/// asks.
fn order(status: Status, revived: bool) -> (u8, u8) {
    let rank = match status {
        Status::Rejected => 0,
        Status::Pending => 1,
        Status::Accepted => 2,
    };
    (u8::from(revived), rank)
}

/// A hunk a closure reached: at `status`, pulled there by `from` at the
/// status it had then (none for a target's), revived by a move brought
/// back or not.
struct Reached<'a> {
    hunk: &'a str,
    status: Status,
    from: Option<(&'a str, Status)>,
    revived: bool,
}

impl Review {
    /// What setting each of `targets` to its status carries, as the hunk and
    /// the status it gets, not the targets themselves; each hunk once, at
    /// the first status it is pulled to in [`order`]. The rules,
    /// applied to each hunk reached until nothing more moves:
    ///
    /// - in its note, what [`super::FileReview::plan`] moves with it (for a
    ///   target, as `how` says);
    /// - rejected, a move takes the hunks that follow it;
    /// - accepted, a hunk takes the moves it follows, and a move its own
    ///   pending link updates (one rejected since is the user's choice to
    ///   leave that link);
    /// - pending, a move takes its accepted followers, and a follower its
    ///   rejected moves and the accepted move it is its own update of;
    /// - a rejected move brought back (accepted or pending) brings back its
    ///   rejected followers, its own link updates to its status and the
    ///   rest pending: a move never shows without them.
    ///
    /// Across notes, a hunk under review no longer or settled (see
    /// [`Review::is_final`]) is not moved. Targets set exactly (see
    /// [`Targets::Exact`]) may pull one another apart (an undo puts back a
    /// move and a hunk that needs it from two steps): a target pulled to
    /// a status that counts less than its own is listed with that one, and
    /// the pulls of the status it leaves are dropped.
    pub(crate) fn carried<'a>(
        &'a self,
        targets: &'a [(String, Status)],
        how: Targets,
    ) -> Vec<(String, Status)> {
        let mut set: HashMap<&str, Status> = targets.iter().map(|(h, s)| (h.as_str(), *s)).collect();
        let mut next = Vec::new();
        for (hunk, status) in targets {
            let from = Some((hunk.as_str(), *status));
            self.carry_one(hunk, *status, how == Targets::Decided, &mut |h, s, revived| {
                next.push(Reached { hunk: h, status: s, from, revived })
            });
        }
        // Each hunk reached; the heap holds their indexes, soonest first.
        let mut reached: Vec<Reached> = Vec::new();
        let mut queue = BinaryHeap::new();
        let mut moved_target: HashSet<&str> = HashSet::new();
        let mut out: Vec<(String, Status)> = Vec::new();
        loop {
            for r in next.drain(..) {
                queue.push(Reverse((order(r.status, r.revived), reached.len())));
                reached.push(r);
            }
            let Some(Reverse((_, k))) = queue.pop() else {
                return out;
            };
            let Reached { hunk, status, from, revived } = reached[k];
            // Pulled by a hunk set another way since: that pull is gone.
            if from.is_some_and(|(h, s)| set.get(h) != Some(&s)) {
                continue;
            }
            let fresh = match set.get(hunk) {
                None => true,
                Some(&was) => {
                    how == Targets::Exact
                        && !revived
                        && order(status, false) < order(was, false)
                        && targets.iter().any(|(h, _)| h == hunk)
                        && moved_target.insert(hunk)
                }
            };
            if !fresh {
                continue;
            }
            set.insert(hunk, status);
            out.push((hunk.to_owned(), status));
            let from = Some((hunk, status));
            self.carry_one(hunk, status, true, &mut |h, s, revived| {
                next.push(Reached { hunk: h, status: s, from, revived })
            });
        }
    }

    /// Gives `reach` the hunks setting `hunk` to `to` moves next, each
    /// with its status and whether a move brought back revives it; `plan`
    /// says whether what it moves in its note counts.
    fn carry_one<'a>(
        &'a self,
        hunk: &'a str,
        to: Status,
        plan: bool,
        reach: &mut dyn FnMut(&'a str, Status, bool),
    ) {
        let Ok((path, i)) = self.find_hunk(hunk) else {
            return;
        };
        let file = &self.files[&path];
        if plan {
            for (j, status) in file.plan(i, to).into_iter().skip(1) {
                if let Some(h) = file.entries()[j].hunk_id.as_deref() {
                    reach(h, status, false);
                }
            }
        }
        let status_of = |h: &str| self.status_of(h);
        let movable = |h: &str| self.find_hunk(h).is_ok() && !self.is_final(h);
        let followers = || self.followers.get(hunk).into_iter().flatten().map(String::as_str);
        let leaders = file.entries()[i].leaders().map(String::as_str);
        let mut across = |h: &'a str, status: Status, revived: bool| {
            if movable(h) {
                reach(h, status, revived)
            }
        };
        match to {
            Status::Rejected => followers().for_each(|f| across(f, to, false)),
            Status::Accepted => {
                leaders.for_each(|m| across(m, to, false));
                followers()
                    .filter(|f| status_of(f) == Some(Status::Pending) && self.updates_links_of(f, hunk))
                    .for_each(|f| across(f, to, false));
            }
            Status::Pending => {
                followers()
                    .filter(|f| status_of(f) == Some(Status::Accepted))
                    .for_each(|f| across(f, to, false));
                leaders
                    .filter(|m| match status_of(m) {
                        Some(Status::Rejected) => true,
                        Some(Status::Accepted) => self.updates_links_of(hunk, m),
                        _ => false,
                    })
                    .for_each(|m| across(m, to, false));
            }
        }
        if to != Status::Rejected && status_of(hunk) == Some(Status::Rejected) {
            for f in followers().filter(|f| status_of(f) == Some(Status::Rejected)) {
                let own = to == Status::Accepted && self.updates_links_of(f, hunk);
                across(f, if own { Status::Accepted } else { Status::Pending }, true);
            }
        }
    }

    /// What setting `hunk_ids` exactly to `status` carries (see
    /// [`Review::carried`]): an apply's list, a rollback's plan.
    pub fn carried_by(&self, hunk_ids: &[String], status: Status) -> Vec<(String, Status)> {
        let targets: Vec<(String, Status)> = hunk_ids.iter().map(|h| (h.clone(), status)).collect();
        self.carried(&targets, Targets::Exact)
    }
}
