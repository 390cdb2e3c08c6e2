//! Decisions: a hunk's status set, with what it carries in its file (its
//! dependencies, see [`FileReview::plan`]) and across files (a move's link
//! updates, see [`Review::carried`]), kept as one step for undo
//! (taken back in `undo`).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::closure::Targets;
use super::{Decision, FileReview, HunkMove, Review, ReviewError, Status};

/// The statuses one decision moved: each hunk, its status before and after.
/// A decision on many hunks at once (a pattern) is one step, shared by all
/// of them.
#[derive(Debug, Default)]
pub(super) struct UndoStep {
    /// When it was made: steps undone together go back newest first.
    pub(super) seq: u64,
    pub(super) moves: Vec<(String, Status, Status)>,
}

impl Review {
    /// Sets a hunk's status as [`Review::decide_many`] sets one: with what
    /// it carries in its note (see [`FileReview::plan`]) and across notes
    /// (see [`Review::carried`]), as one undo step; the buffer follows.
    /// `reason` is kept with the decided hunk (a reject's "why", for the
    /// next job). Returns every move, as one decision on the hunk's file.
    pub fn decide(
        &mut self,
        hunk_id: &str,
        status: Status,
        reason: Option<&str>,
    ) -> Result<Decision, ReviewError> {
        let (path, _) = self.find_hunk(hunk_id)?;
        let decisions = self.decide_many(&[hunk_id.to_owned()], status)?;
        self.keep_reason(hunk_id, reason);
        Ok(Decision::merged(path, hunk_id, decisions))
    }

    /// Keeps `reason` with the decision on `hunk_id` (none clears it).
    pub(crate) fn keep_reason(&mut self, hunk_id: &str, reason: Option<&str>) {
        if let Ok((path, i)) = self.find_hunk(hunk_id) {
            let file = self.file_mut(&path).expect("found above");
            file.entry_mut(i).reason = reason.map(str::to_owned);
        }
    }

    /// Records that the user rejected `hunk_ids` by name: each that is a
    /// move's own link update, rejected while the move counts, is their
    /// choice to leave that link naming the note's old path (see
    /// `Entry::leaves_link`); one whose move stopped counting (the same
    /// decision took it), or whose line a link update staged since follows
    /// the move all the same (see `FileReview::covered`), leaves no link.
    pub(crate) fn leave_links(&mut self, hunk_ids: &[String]) {
        for hunk in hunk_ids {
            let Ok((path, i)) = self.find_hunk(hunk) else {
                continue;
            };
            let file = &self.files[&path];
            let entry = &file.entries()[i];
            let leaves = entry.status == Status::Rejected
                && !file.covered(i)
                && entry
                    .leaders()
                    .any(|l| self.counts(l) && self.updates_links_of(hunk, l));
            if entry.leaves_link != leaves {
                self.file_mut(&path).expect("found above").entry_mut(i).leaves_link = leaves;
            }
        }
    }

    /// Whether `hunk_id` is a link update the user chose to leave rejected
    /// (see `Entry::leaves_link`).
    pub(crate) fn leaves_link(&self, hunk_id: &str) -> bool {
        self.find_hunk(hunk_id)
            .is_ok_and(|(path, i)| self.files[&path].entries()[i].leaves_link)
    }

    /// Sets each of `hunk_ids` to `status` with what each carries (see
    /// [`Review::decide_targets`]), as one undo step: undoing any of them undoes
    /// them all. Returns one decision per file, in path order.
    pub fn decide_many(
        &mut self,
        hunk_ids: &[String],
        status: Status,
    ) -> Result<Vec<Decision>, ReviewError> {
        // What its moves carry may be refused after they are made: a
        // transaction, kept whole or not at all.
        self.transaction(|draft| draft.decide_many_on_draft(hunk_ids, status))
    }

    /// [`Review::decide_many`], leaving what it did when refused midway.
    pub(super) fn decide_many_on_draft(
        &mut self,
        hunk_ids: &[String],
        status: Status,
    ) -> Result<Vec<Decision>, ReviewError> {
        self.check_decidable(hunk_ids, status)?;
        let mut targets: Vec<(String, Status)> = hunk_ids.iter().map(|h| (h.clone(), status)).collect();
        targets.extend(self.carried(&targets, Targets::Decided));
        self.decide_targets(&targets)
    }

    /// Sets each of `targets` to its status with what it moves in its note
    /// (see [`FileReview::plan`]), in order, as one undo step: undoing any
    /// hunk it moved undoes them all. What they carry across notes is
    /// among them already (see [`Review::carried`]). Returns one decision
    /// per file, in path order.
    pub(super) fn decide_targets(&mut self, targets: &[(String, Status)]) -> Result<Vec<Decision>, ReviewError> {
        let mut by_file: BTreeMap<String, Vec<(usize, Status)>> = BTreeMap::new();
        for (hunk, status) in targets {
            let (path, i) = self.find_hunk(hunk)?;
            by_file.entry(path).or_default().push((i, *status));
        }
        self.check_moves(&by_file)?;
        let mut decisions = Vec::with_capacity(by_file.len());
        let mut step = UndoStep {
            seq: self.next_step(),
            ..UndoStep::default()
        };
        for (path, indexes) in by_file {
            let file = self.file_mut(&path).expect("found above");
            let mut before: BTreeMap<usize, Status> = BTreeMap::new();
            let mut hidden = Vec::new();
            for (i, status) in indexes {
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
                links_left: Vec::new(),
            });
        }
        let step = Arc::new(step);
        // Every hunk it moved, those it carried within their files too:
        // undoing any of them undoes the whole step, so a link update never
        // comes back without its move.
        for hunk in targets.iter().map(|(h, _)| h).chain(step.moves.iter().map(|(h, _, _)| h)) {
            self.set_undo(hunk, Some(Arc::clone(&step)));
        }
        Ok(decisions)
    }

    /// Whether `update` is a link update of a move that stays (counting
    /// and settled).
    pub(crate) fn updates_a_settled_move(&self, update: &str) -> bool {
        let Ok((path, i)) = self.find_hunk(update) else {
            return false;
        };
        self.files[&path].entries()[i].leaders().any(|leader| {
            self.status_of(leader)
                .is_some_and(|s| s != Status::Rejected)
                && self.is_final(leader)
                && self.updates_links_of(update, leader)
        })
    }

    /// Refuses an undo whose moves (per file, entry index and the status it
    /// gets) would bring back a settled hunk or a move that lost a link
    /// update, as a decision would be refused: the step may hold hunks
    /// retired since it was made.
    pub(super) fn check_moves(&self, by_file: &BTreeMap<String, Vec<(usize, Status)>>) -> Result<(), ReviewError> {
        for status in [Status::Accepted, Status::Pending, Status::Rejected] {
            let hunks: Vec<String> = by_file
                .iter()
                .flat_map(|(path, moves)| {
                    let entries = self.files[path].entries();
                    moves
                        .iter()
                        .filter(move |(_, to)| *to == status)
                        .filter_map(move |&(i, _)| entries[i].hunk_id.clone())
                })
                .collect();
            self.check_decidable(&hunks, status)?;
        }
        Ok(())
    }
}

/// What `moves` does to `file`, described before it is done.
pub(super) fn decision(file: &FileReview, moves: &[(usize, Status)]) -> Decision {
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
        links_left: Vec::new(),
    }
}
