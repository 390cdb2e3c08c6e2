//! The decision history: every decision, batch, pattern decision, apply
//! and rollback is a step with an id, and undo and redo take back exactly
//! that step (docs/architecture.md#the-decision-history).
//!
//! A step records what it did, not what it was asked: each hunk it moved
//! with its status before and after (those it carried included), or the
//! checkpoints of a rollback. Undoing it sets each of those hunks back to
//! its status before, where nothing since has moved it; redoing it sets
//! them forward again. Nothing is re-decided from a selection, so a hunk
//! saved earlier and not moved by the step stays as it is.
//!
//! The history is linear, as an editor's: a new step drops the steps
//! undone after it. It holds the newest [`History::LIMIT`] steps.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::checkpoints::RollbackMode;
use crate::review::{HunkMove, Status};

/// What a step did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StepKind {
    /// Hunks decided: each with its status before and after.
    Decisions {
        /// Every hunk it moved (`from != to`), in the order they moved.
        moves: Vec<HunkMove>,
        /// The review's entry ids issued when it was made (`c_1` to
        /// `c_{issued}`): a note with no entry since is as the step left it.
        /// 0 in a history stored before steps kept it.
        #[serde(default)]
        issued: u64,
    },
    /// A rollback to `checkpoint_id`; rolling back to `undo_checkpoint_id`
    /// (the checkpoint it took first) undoes it.
    Rollback {
        /// The checkpoint rolled back to.
        checkpoint_id: String,
        /// How.
        mode: RollbackMode,
        /// The hunks of a scoped rollback.
        hunk_ids: Vec<String>,
        /// The checkpoint taken before it.
        undo_checkpoint_id: String,
    },
}

/// One step of the history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// Its id, `s_1`, `s_2`, ... (never reused in a project).
    pub id: String,
    /// What it was, in the user's words ("Rejected 2 pending hunks of …").
    pub label: String,
    /// What it did.
    pub kind: StepKind,
}

impl Step {
    /// The hunks it moved (none for a rollback, which moves files).
    pub fn moves(&self) -> &[HunkMove] {
        match &self.kind {
            StepKind::Decisions { moves, .. } => moves,
            StepKind::Rollback { .. } => &[],
        }
    }

    /// The step that takes back `moves` (the moves an undo made): each
    /// hunk from where the undo left it to where it was; `issued`, the
    /// review's entry ids issued once the undo was made (a redo gives back
    /// as they were the notes with no entry since).
    pub(crate) fn reversed(id: String, label: String, moves: &[HunkMove], issued: u64) -> Step {
        Step {
            id,
            label,
            kind: StepKind::Decisions {
                moves: moves
                    .iter()
                    .rev()
                    .map(|m| HunkMove {
                        hunk_id: m.hunk_id.clone(),
                        from: m.to,
                        to: m.from,
                    })
                    .collect(),
                issued,
            },
        }
    }

    /// The statuses undoing it asks for: each hunk it moved back to where it
    /// was, newest move first (a hunk moved twice ends where it began).
    pub(crate) fn undo_targets(&self) -> Vec<(String, Status, Status)> {
        self.moves()
            .iter()
            .rev()
            .map(|m| (m.hunk_id.clone(), m.to, m.from))
            .collect()
    }
}

/// The steps done (newest last) and the steps undone (the next to redo
/// last).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct History {
    done: VecDeque<Step>,
    undone: Vec<Step>,
}

impl History {
    /// How many steps are kept; older ones are dropped.
    pub const LIMIT: usize = 200;

    /// A history of `done` steps (oldest first) and `undone` ones (the
    /// next to redo last), as stored.
    pub(crate) fn from_parts(done: Vec<Step>, undone: Vec<Step>) -> History {
        History {
            done: done.into(),
            undone,
        }
    }

    /// Records a new step: the steps undone are dropped, and the oldest
    /// beyond [`History::LIMIT`]. Returns the ids of the steps dropped.
    pub(crate) fn push(&mut self, step: Step) -> Vec<String> {
        let mut dropped: Vec<String> = self.undone.drain(..).map(|s| s.id).collect();
        self.done.push_back(step);
        while self.done.len() > History::LIMIT {
            dropped.extend(self.done.pop_front().map(|s| s.id));
        }
        dropped
    }

    /// The step undo takes back next.
    pub fn last_done(&self) -> Option<&Step> {
        self.done.back()
    }

    /// The step redo does again next.
    pub fn last_undone(&self) -> Option<&Step> {
        self.undone.last()
    }

    /// Moves the newest done step to the undone ones, as `step` (what the
    /// undo did, for redo to take back).
    pub(crate) fn undid(&mut self, step: Step) {
        self.done.pop_back();
        self.undone.push(step);
    }

    /// Moves the next undone step back to the done ones, as `step`.
    pub(crate) fn redid(&mut self, step: Step) {
        self.undone.pop();
        self.done.push_back(step);
    }

    /// The steps done, oldest first.
    pub fn done(&self) -> impl DoubleEndedIterator<Item = &Step> {
        self.done.iter()
    }

    /// The steps undone, the next to redo last.
    pub fn undone(&self) -> &[Step] {
        &self.undone
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(n: usize, hunk: &str) -> Step {
        Step {
            id: format!("s_{n}"),
            label: format!("Accepted {hunk}"),
            kind: StepKind::Decisions {
                moves: vec![HunkMove {
                    hunk_id: hunk.to_owned(),
                    from: Status::Pending,
                    to: Status::Accepted,
                }],
                issued: 0,
            },
        }
    }

    #[test]
    fn a_new_step_drops_the_undone_ones_and_the_oldest_beyond_the_limit() {
        let mut history = History::default();
        for k in 0..History::LIMIT {
            let s = step(k + 1, &format!("h_{k}"));
            assert!(history.push(s).is_empty());
        }
        let last = history.last_done().unwrap().clone();
        let back = Step::reversed(last.id.clone(), last.label.clone(), last.moves(), 0);
        history.undid(back);
        assert_eq!(history.undone().len(), 1);
        let s = step(History::LIMIT + 1, "h_new");
        let dropped = history.push(s);
        // The undone step, then nothing else: the limit is not passed.
        assert_eq!(dropped, vec![format!("s_{}", History::LIMIT)]);
        let s = step(History::LIMIT + 2, "h_newer");
        assert_eq!(history.push(s), vec!["s_1".to_owned()]);
        assert_eq!(history.done().count(), History::LIMIT);
        assert_eq!(
            history.last_done().unwrap().id,
            format!("s_{}", History::LIMIT + 2)
        );
    }

    #[test]
    fn undoing_asks_for_each_hunk_where_it_began() {
        let step = Step {
            id: "s_1".into(),
            label: String::new(),
            kind: StepKind::Decisions {
                moves: vec![
                    HunkMove {
                        hunk_id: "h_1".into(),
                        from: Status::Pending,
                        to: Status::Accepted,
                    },
                    HunkMove {
                        hunk_id: "h_2".into(),
                        from: Status::Rejected,
                        to: Status::Pending,
                    },
                ],
                issued: 0,
            },
        };
        assert_eq!(
            step.undo_targets(),
            vec![
                ("h_2".to_owned(), Status::Pending, Status::Rejected),
                ("h_1".to_owned(), Status::Accepted, Status::Pending),
            ]
        );
        let back = Step::reversed("s_1".into(), String::new(), &step.moves()[..1], 0);
        assert_eq!(back.moves()[0].from, Status::Accepted);
        assert_eq!(back.moves()[0].to, Status::Pending);
    }
}
