//! The decision history at work: each decision path records its step
//! (`record_decisions`), and [`Workspace::undo_step`] and
//! [`Workspace::redo_step`] take back or do again exactly that step,
//! stored before they answer (docs/architecture.md#the-decision-history).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::history::{History, Step, StepKind};
use super::link_rule::Cause;
use super::{Workspace, WorkspaceError};
use crate::checkpoints::{RollbackMode, RollbackReport};
use crate::review::{Decision, HunkMove, Settle, Status};
use crate::store::StoreError;

/// What an undo or a redo did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Stepped {
    /// The step.
    pub step_id: String,
    /// What it was, in the user's words.
    pub label: String,
    /// `true` for an undo, `false` for a redo.
    pub undone: bool,
    /// Every hunk that moved, with its status before and after.
    pub moved: Vec<HunkMove>,
    /// The files those hunks are in, in path order.
    pub files: Vec<String>,
    /// Hunks of the step left as they are: moved since by something that is
    /// not a step (a rollback's own changes, a staging), settled, or no
    /// longer under review.
    pub left: Vec<String>,
    /// For a rollback's undo or redo, what that rollback did.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub rollback: Option<RollbackReport>,
}

/// A step as a window lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct StepHead {
    /// Its id.
    pub step_id: String,
    /// What it was, in the user's words.
    pub label: String,
    /// The hunks it moved (0 for a rollback).
    pub hunks: usize,
}

/// What undo and redo would take next: for a window's menu and its
/// messages, after a reload too.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct HistoryHeads {
    /// The step undo takes back next.
    pub undo: Option<StepHead>,
    /// The step redo does again next.
    pub redo: Option<StepHead>,
}

impl StepHead {
    fn of(step: &Step) -> StepHead {
        StepHead {
            step_id: step.id.clone(),
            label: step.label.clone(),
            hunks: step.moves().len(),
        }
    }
}

impl Workspace {
    /// The decision history.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// What undo and redo would take next.
    pub fn history_heads(&self) -> HistoryHeads {
        HistoryHeads {
            undo: self.history.last_done().map(StepHead::of),
            redo: self.history.last_undone().map(StepHead::of),
        }
    }

    /// Records what `decisions` moved as a step said by `label`. A decision
    /// that moved nothing is no step.
    pub(super) fn record_decisions(
        &mut self,
        label: impl FnOnce() -> String,
        decisions: &[Decision],
    ) -> Result<(), StoreError> {
        let moves = moved(decisions);
        self.record(label, moves)
    }

    fn record(
        &mut self,
        label: impl FnOnce() -> String,
        moves: Vec<HunkMove>,
    ) -> Result<(), StoreError> {
        if moves.is_empty() {
            return Ok(());
        }
        let issued = self.review.ids_issued();
        self.push_step(label(), StepKind::Decisions { moves, issued })
    }

    fn push_step(&mut self, label: String, kind: StepKind) -> Result<(), StoreError> {
        let step = self.store.push_step(&label, kind)?;
        self.history.push(step);
        Ok(())
    }

    /// Rolls back to checkpoint `id` as one step of the history. A
    /// checkpoint of the files it touches is taken first; its id in the
    /// report undoes the rollback (and undoing the step rolls back to it).
    pub fn rollback(
        &mut self,
        id: &str,
        mode: RollbackMode,
        hunk_ids: &[String],
    ) -> Result<RollbackReport, WorkspaceError> {
        let report = self.roll_back_to(id, mode, hunk_ids)?;
        let label = match mode {
            RollbackMode::HardAll => format!("Rolled back to checkpoint {id}"),
            RollbackMode::ScopedSelected => {
                format!("Rolled back {} hunk(s) of checkpoint {id}", hunk_ids.len())
            }
        };
        self.push_step(
            label,
            StepKind::Rollback {
                checkpoint_id: id.to_owned(),
                mode,
                hunk_ids: hunk_ids.to_vec(),
                undo_checkpoint_id: report.undo_checkpoint_id.clone(),
            },
        )?;
        Ok(report)
    }

    /// Undoes the newest step of the history: each hunk it moved goes back
    /// to its status before, where nothing since has moved it (see
    /// [`crate::review::Review::restore`]); a rollback is rolled back to
    /// the checkpoint it took first. `step_id`, when given, must be that
    /// step (a window undoing what it shows). Stored before it answers.
    pub fn undo_step(&mut self, step_id: Option<&str>) -> Result<Stepped, WorkspaceError> {
        let step = self
            .history
            .last_done()
            .cloned()
            .ok_or(WorkspaceError::NoStep { undo: true })?;
        expect_step(step_id, &step)?;
        let (done, stepped) = match &step.kind {
            StepKind::Decisions { issued, .. } => {
                let given_back = self.given_back(*issued);
                let (moves, left) =
                    self.restore_statuses(&step.undo_targets(), false, &given_back)?;
                let stepped = self.stepped(&step, true, moves.clone(), left);
                (
                    Step::reversed(
                        step.id.clone(),
                        step.label.clone(),
                        &moves,
                        self.review.ids_issued(),
                    ),
                    stepped,
                )
            }
            StepKind::Rollback {
                undo_checkpoint_id, ..
            } => {
                let report = self.roll_back_to(undo_checkpoint_id, RollbackMode::HardAll, &[])?;
                let mut stepped = self.stepped(&step, true, Vec::new(), Vec::new());
                stepped.files = report.files.iter().map(|f| f.file_path.clone()).collect();
                stepped.rollback = Some(report);
                (step.clone(), stepped)
            }
        };
        self.store.mark_step(&done, true)?;
        self.history.undid(done);
        Ok(stepped)
    }

    /// Does again the step undone last: each hunk its undo moved goes where
    /// the step had put it, where nothing since has moved it; a rollback is
    /// made again (with a checkpoint of its own to undo it). `step_id`,
    /// when given, must be that step.
    pub fn redo_step(&mut self, step_id: Option<&str>) -> Result<Stepped, WorkspaceError> {
        let step = self
            .history
            .last_undone()
            .cloned()
            .ok_or(WorkspaceError::NoStep { undo: false })?;
        expect_step(step_id, &step)?;
        let (done, stepped) = match &step.kind {
            StepKind::Decisions { moves, issued } => {
                let targets: Vec<(String, Status, Status)> = moves
                    .iter()
                    .map(|m| (m.hunk_id.clone(), m.from, m.to))
                    .collect();
                let given_back = self.given_back(*issued);
                let (moves, left) = self.restore_statuses(&targets, true, &given_back)?;
                let stepped = self.stepped(&step, false, moves.clone(), left);
                let done = Step {
                    kind: StepKind::Decisions {
                        moves,
                        issued: self.review.ids_issued(),
                    },
                    ..step.clone()
                };
                (done, stepped)
            }
            StepKind::Rollback {
                checkpoint_id,
                mode,
                hunk_ids,
                ..
            } => {
                let report = self.roll_back_to(checkpoint_id, *mode, hunk_ids)?;
                let done = Step {
                    kind: StepKind::Rollback {
                        checkpoint_id: checkpoint_id.clone(),
                        mode: *mode,
                        hunk_ids: hunk_ids.clone(),
                        undo_checkpoint_id: report.undo_checkpoint_id.clone(),
                    },
                    ..step.clone()
                };
                let mut stepped = self.stepped(&step, false, Vec::new(), Vec::new());
                stepped.files = report.files.iter().map(|f| f.file_path.clone()).collect();
                stepped.rollback = Some(report);
                (done, stepped)
            }
        };
        self.store.mark_step(&done, false)?;
        self.history.redid(done);
        Ok(stepped)
    }

    /// The notes an undo (or a redo) gives back as they were before the
    /// step (or the undo) made when `issued` entry ids had been issued:
    /// those with nothing new since, a link that dangled then included.
    /// None for a step stored before steps kept `issued` (0).
    fn given_back(&self, issued: u64) -> BTreeSet<String> {
        match issued {
            0 => BTreeSet::new(),
            n => self.review.unchanged_since(n),
        }
    }

    /// Sets the hunks of `targets` as [`crate::review::Review::restore`]
    /// does (for an undo, or exactly for a `redo`), checkpointing first the files whose typing it would take out,
    /// checking that no link is left behind but in the notes an undo gives
    /// back (`given_back`), and storing the statuses.
    /// Returns what moved and the hunks left as they are.
    fn restore_statuses(
        &mut self,
        targets: &[(String, Status, Status)],
        redo: bool,
        given_back: &BTreeSet<String>,
    ) -> Result<(Vec<HunkMove>, Vec<String>), WorkspaceError> {
        let typed: BTreeSet<String> = targets
            .iter()
            .filter_map(|(hunk, _, _)| self.review.find_hunk(hunk).ok())
            .map(|(path, _)| path)
            .filter(|path| {
                self.review
                    .file(path)
                    .is_some_and(|f| !f.typed_inside().is_empty())
            })
            .collect();
        if !typed.is_empty() {
            let what = format!(
                "Your typing in {} files, kept before an undo or redo that could take it out",
                typed.len()
            );
            self.checkpoint_files(&what, typed)?;
        }
        self.transaction(|ws| {
            let (mut decisions, left) = ws.review.restore(targets, redo, given_back);
            // What the step itself moves is as it was; what it carries
            // beyond (a link update an alternative excludes) may take its
            // move.
            let named: Vec<String> = targets.iter().map(|(h, _, _)| h.clone()).collect();
            ws.review
                .settle(Settle::Decision { named: &named }, &mut decisions)?;
            // What it rejects by its step, not what it left as it was (and
            // something else may have rejected since, as a consequence).
            let rejected: Vec<String> = targets
                .iter()
                .filter(|(h, _, to)| *to == Status::Rejected && !left.contains(h))
                .map(|(h, _, _)| h.clone())
                .collect();
            // A note where it carried more than the step's own moves, or
            // left one of them as it is, is not given back as it was: the
            // rule checks its links.
            let asked =
                |hunk: &str, to: Status| targets.iter().any(|(h, _, t)| h == hunk && *t == to);
            let carried = decisions
                .iter()
                .filter(|d| d.moves.iter().any(|m| !asked(&m.hunk_id, m.to)))
                .map(|d| d.path.clone());
            let kept = left
                .iter()
                .filter_map(|h| ws.review.find_hunk(h).ok())
                .map(|(path, _)| path);
            let mut given_back = given_back.clone();
            for key in carried.chain(kept) {
                if let Some(file) = ws.review.file(&key) {
                    for path in file.paths() {
                        given_back.remove(path);
                    }
                }
                given_back.remove(&key);
            }
            ws.keep_links(Cause::Undo(&rejected, &given_back), &mut decisions)?;
            ws.store_statuses(&decisions, None)?;
            Ok((moved(&decisions), left))
        })
    }

    /// The answer for `step` undone (`undone`) or redone, having moved `moved`.
    fn stepped(
        &self,
        step: &Step,
        undone: bool,
        moved: Vec<HunkMove>,
        left: Vec<String>,
    ) -> Stepped {
        let files: BTreeSet<String> = moved
            .iter()
            .filter_map(|m| self.review.find_hunk(&m.hunk_id).ok())
            .filter_map(|(path, _)| {
                let file = self.review.file(&path)?;
                Some(file.view_path().unwrap_or(&file.path).to_owned())
            })
            .collect();
        Stepped {
            step_id: step.id.clone(),
            label: step.label.clone(),
            undone,
            moved,
            files: files.into_iter().collect(),
            left,
            rollback: None,
        }
    }
}

/// Refuses to take `step` when the caller named another.
fn expect_step(asked: Option<&str>, step: &Step) -> Result<(), WorkspaceError> {
    match asked {
        Some(asked) if asked != step.id => Err(WorkspaceError::NotTheStep {
            asked: asked.to_owned(),
            next: step.id.clone(),
        }),
        _ => Ok(()),
    }
}

/// Every hunk `decisions` moved (`from != to`), in order.
fn moved(decisions: &[Decision]) -> Vec<HunkMove> {
    net(decisions.iter().flat_map(|d| &d.moves).cloned())
}

/// Each hunk of `moves` once, from where the first found it to where the
/// last left it, in the order first moved; a hunk left where it was is
/// none. A decision that carries what the rule across notes asks may move
/// a hunk twice (brought back, then taken again): it moved it from and to
/// the same status.
fn net(moves: impl IntoIterator<Item = HunkMove>) -> Vec<HunkMove> {
    let mut out: Vec<HunkMove> = Vec::new();
    let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for m in moves {
        match at.get(&m.hunk_id) {
            Some(&i) => out[i].to = m.to,
            None => {
                at.insert(m.hunk_id.clone(), out.len());
                out.push(m);
            }
        }
    }
    out.retain(|m| m.from != m.to);
    out
}

/// A step's words for a decision setting `what` (hunks, as the user calls
/// them) to `status`: "Accepted …", "Rejected …", "Set … back to pending".
pub fn step_label(status: Status, what: &str) -> String {
    match status {
        Status::Accepted => format!("Accepted {what}"),
        Status::Rejected => format!("Rejected {what}"),
        Status::Pending => format!("Set {what} back to pending"),
    }
}
