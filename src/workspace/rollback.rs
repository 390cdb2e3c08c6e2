//! Rollback to a checkpoint: hard (every file back as it was) or
//! scoped (only the listed hunks), each first checkpointed itself so it can
//! be undone. A rollback changes the working state only, moves and
//! deletions included: the disk changes at the next save, as after any
//! decision (see `docs/architecture.md#checkpoints-and-rollback`).

use std::collections::{BTreeMap, BTreeSet};

use super::link_rule::Cause;
use super::{Workspace, WorkspaceError};
use crate::checkpoints::{
    Checkpoint, CheckpointKind, FileSnapshot, PlannedHunk, RollbackMode, RollbackPlan,
    RollbackReport, RolledBackFile,
};
use crate::edits::FileOp;
use crate::links::{self, name_key};
use crate::project::PathError;
use crate::review::{Decision, Review, Settle, Status, TieKind};
use crate::store::NewCheckpointFile;

/// What a hard rollback drops, worked out before anything changes (see
/// [`Workspace::plan_rollback`]).
struct WholePlan {
    /// Each file of the checkpoint and its state then.
    snapshots: Vec<(String, FileSnapshot, Option<String>)>,
    /// Every path whose review state changes.
    paths: Vec<String>,
    /// The hunks of the files put back that go.
    dropped: Vec<String>,
    /// The hunks of other files rejected with them.
    carried: Vec<String>,
    /// The files put back whose typing since the run goes.
    typed: Vec<String>,
    /// The files put back (by their key in review) that had something the
    /// checkpoint did not: a later hunk or typing, which goes.
    newer: BTreeSet<String>,
}

/// What a rollback did before its undo checkpoint is taken.
struct Rolled {
    /// Each file's outcome.
    files: Vec<RolledBackFile>,
    /// Every path whose review state changed.
    paths: Vec<String>,
    /// The undo checkpoint's description.
    what: String,
    /// The files put back that had something since the checkpoint (see
    /// [`WholePlan::newer`]); none for a scoped rollback.
    newer: BTreeSet<String>,
}

/// A checkpoint as a person knows it: its run's request, quoted (cut to 60
/// characters), else its kind and id.
fn named(checkpoint: &Checkpoint) -> String {
    let request = checkpoint.instruction.trim();
    if request.is_empty() {
        return format!("checkpoint {}", checkpoint.checkpoint_id);
    }
    match request.char_indices().nth(60) {
        Some((cut, _)) => format!("“{}…”", &request[..cut]),
        None => format!("“{request}”"),
    }
}

/// Whether `text` (none: a note not there) has a link by the name of the
/// note at `path`.
fn names(text: Option<&str>, path: &str) -> bool {
    let key = name_key(path);
    text.is_some_and(|t| links::parse(t).iter().any(|l| name_key(&l.path()) == key))
}

/// The hunks that tell which file under review holds `path` of
/// `checkpoint` now: those the checkpoint recorded for it, and those its
/// snapshot's log had then (a run that changed nothing in a file moved
/// since recorded none).
fn hunks_of(checkpoint: &Checkpoint, path: &str, snapshot: &FileSnapshot) -> Vec<String> {
    let recorded = checkpoint
        .affected_files
        .iter()
        .find(|f| f.file_path == path)
        .into_iter()
        .flat_map(|f| f.hunk_ids.iter().cloned());
    let logged = snapshot
        .log
        .iter()
        .flat_map(|log| &log.entries)
        .filter_map(|e| e.hunk_id.clone());
    recorded.chain(logged).collect()
}

/// Every hunk that counts in `review` (pending or accepted), by id, with
/// the path of its file in review and where the working state shows it.
fn counting(review: &Review) -> BTreeMap<String, (String, PlannedHunk)> {
    let mut found = BTreeMap::new();
    for file in review.files() {
        for (i, entry) in file.entries().iter().enumerate() {
            let Some(hunk_id) = &entry.hunk_id else {
                continue;
            };
            if entry.status != Status::Rejected {
                let planned = PlannedHunk {
                    hunk_id: hunk_id.clone(),
                    file_path: file.view_path().unwrap_or(&file.path).to_owned(),
                    job_id: entry.job_id.clone(),
                    line: file.span_of(i).map(|s| s.line + 1),
                };
                found.insert(hunk_id.clone(), (file.path.clone(), planned));
            }
        }
    }
    found
}

impl Workspace {
    /// Rolls back to checkpoint `id`, as [`Workspace::rollback`] does,
    /// recording no step of the history.
    pub(super) fn roll_back_to(
        &mut self,
        id: &str,
        mode: RollbackMode,
        hunk_ids: &[String],
    ) -> Result<RollbackReport, WorkspaceError> {
        let checkpoint = self.checkpoint(id)?;
        let before = self.review.clone();
        self.transaction(|ws| {
            let counted = ws.moves_among(ws.counting_moves());
            let Rolled {
                files,
                mut paths,
                what,
                ..
            } = ws.roll_back(&checkpoint, mode, hunk_ids, &before)?;
            // Its undo gives back exactly what was, a move it takes away
            // with the links to its note that were left then; a note that
            // links there only since would keep that move back.
            paths.extend(ws.linking_to_moves_taken(&counted)?);
            // The undo checkpoint holds every file the rollback changed, as
            // it was before: those it found it had to change as it went too.
            let mut seen = BTreeSet::new();
            paths.retain(|p| seen.insert(p.clone()));
            let undo = ws.take_undo(&before, &checkpoint, what, &paths)?;
            ws.persist_all(&paths)?;
            ws.review.keep_undo_steps_of(&before);
            Ok(RollbackReport {
                undo_checkpoint_id: undo,
                files,
            })
        })
    }

    /// Rolls the review back to `checkpoint` (`before`: the review as it
    /// was) in the open transaction, carrying what the rule across notes
    /// asks (see `link_rule`).
    fn roll_back(
        &mut self,
        checkpoint: &Checkpoint,
        mode: RollbackMode,
        hunk_ids: &[String],
        before: &Review,
    ) -> Result<Rolled, WorkspaceError> {
        let mut rolled = match mode {
            RollbackMode::HardAll => self.roll_back_whole(checkpoint)?,
            RollbackMode::ScopedSelected => self.roll_back_hunks(checkpoint, hunk_ids)?,
        };
        // Undoing a rollback gives back the notes it restores exactly, but
        // for those with something new since the rollback: that goes, and
        // the rule checks their links.
        let restored: BTreeSet<String> = match checkpoint.kind {
            CheckpointKind::Rollback => checkpoint
                .affected_files
                .iter()
                .filter(|f| {
                    before
                        .file_of(&f.file_path)
                        .is_none_or(|file| !rolled.newer.contains(&file.path))
                })
                .flat_map(|f| {
                    let path = &f.file_path;
                    [before.file_of(path), self.review.file_of(path)]
                        .into_iter()
                        .flatten()
                        .flat_map(|f| f.paths().map(str::to_owned))
                        .chain([path.clone()])
                        .collect::<Vec<_>>()
                })
                .collect(),
            _ => BTreeSet::new(),
        };
        let mut carried = Vec::new();
        self.keep_links(Cause::Rollback(&restored), &mut carried)?;
        rolled.paths.extend(carried.into_iter().map(|d| d.path));
        Ok(rolled)
    }

    /// What a hard rollback to `checkpoint` drops, changing nothing: the
    /// files it puts back (by the path each has in review now), the hunks
    /// of theirs it drops (the run's and later ones), the hunks in other
    /// files that go with them (a dropped move's link updates, the move of
    /// a dropped link update), and the files whose typing it drops.
    fn plan_whole(&self, checkpoint: &Checkpoint) -> Result<WholePlan, WorkspaceError> {
        let id = &checkpoint.checkpoint_id;
        let mut snapshots = self.store.checkpoint_snapshots(id)?;
        // Files that were there first: one a move took away is put back
        // before the path it was moved to is looked at.
        snapshots.sort_by_key(|(_, s, _)| s.text.is_none() && !s.binary);
        let mut dropped = Vec::new();
        let mut typed = Vec::new();
        let mut paths: Vec<String> = Vec::new();
        // What the checkpoint keeps, whichever of its paths keeps it: a file
        // moved since is held under one path and put back from another.
        let kept: BTreeSet<&str> = snapshots
            .iter()
            .flat_map(|(_, snapshot, _)| snapshot.log.iter().flat_map(|log| &log.entries))
            .map(|e| e.id.as_str())
            .collect();
        let mut holders = BTreeSet::new();
        let mut newer = BTreeSet::new();
        let issued = snapshots
            .iter()
            .map(|(_, s, _)| s.issued)
            .max()
            .unwrap_or(0);
        // The notes it puts back as not there (deleted, or not yet made): no
        // link of theirs shows.
        let mut gone = BTreeSet::new();
        // The text each note is put back with, by its key in review.
        let mut texts: BTreeMap<String, Option<&str>> = BTreeMap::new();
        for (path, snapshot, _) in &snapshots {
            paths.push(path.clone());
            let Some(holder) = self.holder(path, &hunks_of(checkpoint, path, snapshot), snapshot)
            else {
                continue;
            };
            if !holders.insert(holder.key.clone()) {
                continue;
            }
            texts.insert(holder.key.clone(), snapshot.text.as_deref());
            // Deleted, saved or not: a note hidden by a deletion shows no
            // link; were the deletion rejected, the rule across notes would
            // check its links then.
            let deleted = snapshot.op.as_ref().is_some_and(|op| {
                matches!(op.op, FileOp::Delete)
                    && snapshot
                        .log
                        .as_ref()
                        .and_then(|log| log.entries.get(op.entry))
                        .is_some_and(|e| e.status != Status::Rejected)
            });
            if deleted || (snapshot.text.is_none() && !snapshot.binary) {
                gone.insert(holder.key.clone());
            }
            let file = self.review.file(&holder.key).expect("under review");
            let later = file
                .entries()
                .iter()
                .filter(|e| !kept.contains(e.id.as_str()));
            let mut user = false;
            for entry in later {
                // What the rollback being undone put back is not new since.
                if issued == 0 || entry.issued_after(issued) {
                    newer.insert(holder.key.clone());
                }
                match &entry.hunk_id {
                    Some(hunk) => dropped.push(hunk.clone()),
                    None => user |= entry.origin == crate::review::Origin::User,
                }
            }
            if user {
                typed.push(file.view_path().unwrap_or(&file.path).to_owned());
            }
            paths.push(holder.key);
        }
        // A note moved since the rollback being undone: a note put back
        // that linked to where it was is not given back as it was (the
        // link resolved then), so none is, and the rule checks them all.
        let moved_since = issued > 0
            && self.review.files().any(|f| {
                f.op().is_some_and(|op| {
                    matches!(op.op, FileOp::Move { .. })
                        && f.entries()[op.entry].issued_after(issued)
                })
            });
        if moved_since {
            newer.extend(holders.iter().cloned());
        }
        // What depends on a dropped change in another file goes with it: a
        // dropped move's link updates, and a move whose link update in a
        // restored note is dropped (kept, it would leave that link behind),
        // with its other link updates. A dropped hunk that follows a move
        // only because it links to where the note goes (a later retarget or
        // conversion) leaves the move alone: the text under it links there
        // too, or the move's own link update is dropped with it. So does a
        // link update in a note put back as not there (a deletion undone,
        // say): no link of it is left behind.
        let restoring: BTreeSet<String> = paths.iter().cloned().collect();
        let elsewhere = |hunk: &str| {
            self.review
                .find_hunk(hunk)
                .ok()
                .filter(|(path, _)| !restoring.contains(path))
        };
        // A move a note put back keeps a link update of, counting, keeps
        // that note's links whole itself: it stays. So does one whose note
        // the note put back names no link to.
        let updated_still: BTreeSet<&str> = snapshots
            .iter()
            .flat_map(|(_, snapshot, _)| snapshot.log.iter().flat_map(|log| &log.entries))
            .filter(|e| e.status != Status::Rejected)
            .flat_map(|e| &e.follows)
            .filter(|t| t.kind != Some(TieKind::Needs))
            .map(|t| t.leader.as_str())
            .collect();
        let mut leaders = Vec::new();
        for hunk in &dropped {
            let (path, i) = self.review.find_hunk(hunk)?;
            if gone.contains(&path) {
                continue;
            }
            let entry = &self.review.file(&path).expect("under review").entries()[i];
            leaders.extend(
                entry
                    .leaders()
                    .filter(|h| {
                        !updated_still.contains(h.as_str())
                            && elsewhere(h).is_some_and(|(mover, _)| {
                                texts.get(&path).is_none_or(|text| names(*text, &mover))
                            })
                            && self.review.updates_links_of(hunk, h)
                    })
                    .cloned(),
            );
        }
        dropped.extend(leaders.iter().cloned());
        // A move the checkpoint kept but had rejected, accepted since, goes
        // back to rejected: its link updates go back with it.
        let reverted: Vec<String> = snapshots
            .iter()
            .flat_map(|(_, snapshot, _)| snapshot.log.iter().flat_map(|log| &log.entries))
            .filter(|e| e.status == Status::Rejected)
            .filter_map(|e| e.hunk_id.clone())
            .filter(|h| self.review.counts(h))
            .collect();
        let mut carried = leaders;
        for hunks in [&dropped, &reverted] {
            let taken = self.review.carried_by(hunks, Status::Rejected);
            carried.extend(taken.into_iter().map(|(h, _)| h));
        }
        let mut seen = BTreeSet::new();
        carried.retain(|h| seen.insert(h.clone()));
        carried.retain(|h| match elsewhere(h) {
            Some((path, _)) => {
                paths.push(path);
                true
            }
            None => false,
        });
        let mut seen = BTreeSet::new();
        paths.retain(|p| seen.insert(p.clone()));
        dropped.retain(|h| !carried.contains(h));
        Ok(WholePlan {
            snapshots,
            paths,
            dropped,
            carried,
            typed,
            newer,
        })
    }

    /// What rolling back to checkpoint `id` would do, for the confirmation,
    /// which lists it before anything happens. The rollback itself is tried
    /// on the working state and taken back, so the plan is what it would
    /// really do: the hunks that would stop counting (each listed as dropped
    /// or carried), those that would come back, and, when the rollback
    /// would be refused, why (and nothing else). Nothing changes, on disk
    /// or in the store.
    pub fn plan_rollback(
        &mut self,
        id: &str,
        mode: RollbackMode,
        hunk_ids: &[String],
    ) -> Result<RollbackPlan, WorkspaceError> {
        self.planning(|ws| ws.plan_rollback_on_draft(id, mode, hunk_ids))
    }

    /// [`Workspace::plan_rollback`], in [`Workspace::planning`].
    fn plan_rollback_on_draft(
        &mut self,
        id: &str,
        mode: RollbackMode,
        hunk_ids: &[String],
    ) -> Result<RollbackPlan, WorkspaceError> {
        let checkpoint = self.checkpoint(id)?;
        let (files, listed, typed) = match mode {
            RollbackMode::HardAll => {
                let plan = self.plan_whole(&checkpoint)?;
                let files = plan.snapshots.into_iter().map(|(path, ..)| path).collect();
                (files, plan.dropped, plan.typed)
            }
            RollbackMode::ScopedSelected => {
                let mut files = Vec::new();
                for hunk in hunk_ids {
                    let file = checkpoint
                        .affected_files
                        .iter()
                        .find(|f| f.hunk_ids.contains(hunk))
                        .ok_or_else(|| WorkspaceError::NotInCheckpoint {
                            hunk_id: hunk.clone(),
                            checkpoint_id: id.to_owned(),
                        })?;
                    if !files.contains(&file.file_path) {
                        files.push(file.file_path.clone());
                    }
                    self.review.find_hunk(hunk)?;
                }
                (files, hunk_ids.to_vec(), Vec::new())
            }
        };
        // The files it puts back or reverts, as the review holds them now:
        // a hunk that goes from one of them is dropped, from another carried.
        let home: BTreeSet<String> = listed
            .iter()
            .filter_map(|h| self.review.find_hunk(h).ok().map(|(path, _)| path))
            .chain(files.iter().cloned())
            .collect();
        let before = self.review.clone();
        self.review.begin();
        let tried = self.roll_back(&checkpoint, mode, hunk_ids, &before);
        let after = std::mem::replace(&mut self.review, before);
        if let Err(refusal) = tried {
            if !refusal.is_refusal() {
                return Err(refusal);
            }
            return Ok(RollbackPlan {
                files,
                refused: Some(refusal.to_string()),
                ..RollbackPlan::default()
            });
        }
        let was = counting(&self.review);
        let will = counting(&after);
        let (dropped, carried): (Vec<_>, Vec<_>) = was
            .iter()
            .filter(|(hunk, _)| !will.contains_key(*hunk))
            .map(|(_, (path, planned))| (home.contains(path), planned.clone()))
            .partition(|(home, _)| *home);
        let planned = |hunks: Vec<(bool, PlannedHunk)>| hunks.into_iter().map(|(_, h)| h).collect();
        Ok(RollbackPlan {
            files,
            dropped: planned(dropped),
            carried: planned(carried),
            restored: will
                .into_iter()
                .filter(|(hunk, _)| !was.contains_key(hunk))
                .map(|(_, (_, planned))| planned)
                .collect(),
            typed,
            refused: None,
        })
    }

    /// Puts every file of `checkpoint` back as it was, dropping their later
    /// changes; what depends on a dropped change in another file (the link
    /// updates of a dropped move) is rejected with it.
    /// Returns what became of each file, every path whose review state
    /// changed, and what its undo checkpoint is called.
    fn roll_back_whole(&mut self, checkpoint: &Checkpoint) -> Result<Rolled, WorkspaceError> {
        let WholePlan {
            snapshots,
            mut paths,
            carried,
            newer,
            ..
        } = self.plan_whole(checkpoint)?;
        // A move saved and moved on since cannot go back: a rollback that
        // would take it with a link update is refused before anything changes.
        self.review.check_decidable(&carried, Status::Rejected)?;

        // What they take with them (a move whose link update goes) is in
        // the undo checkpoint too.
        if !carried.is_empty() {
            for decision in self.review.decide_many(&carried, Status::Rejected)? {
                paths.push(decision.path);
            }
        }
        let mut files = Vec::new();
        for (path, snapshot, _) in &snapshots {
            files.push(self.restore(
                path,
                snapshot,
                &hunks_of(checkpoint, path, snapshot),
                checkpoint,
            )?);
        }
        // What it put back may stand apart from what it is tied to in
        // other notes (another rollback rejected or dropped a move's link
        // updates, a link update's move is gone): the ties are settled.
        // Undoing a rollback gives back its notes as they were, a move
        // beside a link update rejected or gone included; a link it would
        // leave dangling in a note it does not give back, the rule across
        // notes mends.
        let restored: Vec<String> = snapshots.iter().map(|(path, _, _)| path.clone()).collect();
        let mut decisions = Vec::new();
        self.review.settle(
            Settle::Rollback {
                restored: &restored,
                as_they_were: checkpoint.kind == CheckpointKind::Rollback,
            },
            &mut decisions,
        )?;
        paths.extend(decisions.into_iter().map(|d| d.path));
        Ok(Rolled {
            files,
            paths,
            what: format!("Before rolling back {}", named(checkpoint)),
            newer,
        })
    }

    /// Rejects the hunks `hunk_ids` of `checkpoint` where they are now,
    /// with what builds on them, keeping unrelated newer changes.
    fn roll_back_hunks(
        &mut self,
        checkpoint: &Checkpoint,
        hunk_ids: &[String],
    ) -> Result<Rolled, WorkspaceError> {
        let id = &checkpoint.checkpoint_id;
        let mut paths = Vec::new();
        for hunk in hunk_ids {
            let file = checkpoint
                .affected_files
                .iter()
                .find(|f| f.hunk_ids.contains(hunk))
                .ok_or_else(|| WorkspaceError::NotInCheckpoint {
                    hunk_id: hunk.clone(),
                    checkpoint_id: id.to_owned(),
                })?;
            if !paths.contains(&file.file_path) {
                paths.push(file.file_path.clone());
            }
        }
        let what = format!(
            "Before reverting {} change{} of {}",
            hunk_ids.len(),
            if hunk_ids.len() == 1 { "" } else { "s" },
            named(checkpoint)
        );
        let mut files = Vec::new();
        let mut touched: Vec<String> = Vec::new();
        for hunk in hunk_ids {
            let (path, _) = self.review.find_hunk(hunk)?;
            // A move takes the links that follow it, in other files, and a
            // link update its move: rolled back alone, it would leave the
            // link behind (as a hard rollback takes it). Named here, it is
            // not the user's choice to leave that link.
            let mut decisions = self
                .review
                .decide_many(std::slice::from_ref(hunk), Status::Rejected)?;
            self.review
                .settle(Settle::Decision { named: &[] }, &mut decisions)?;
            touched.extend(decisions.iter().map(|d| d.path.clone()));
            let decision = Decision::merged(path.clone(), hunk, decisions);
            let carried: Vec<&str> = decision
                .moves
                .iter()
                .filter(|m| m.hunk_id != *hunk && m.from != m.to)
                .map(|m| m.hunk_id.as_str())
                .collect();
            files.push(RolledBackFile {
                file_path: path,
                status: "reverted".to_owned(),
                message: (!carried.is_empty())
                    .then(|| format!("with {}, which built on it", carried.join(", "))),
            });
        }
        paths.extend(touched);
        Ok(Rolled {
            files,
            paths,
            what,
            newer: BTreeSet::new(),
        })
    }

    /// Takes the checkpoint that undoes a rollback of `checkpoint`: the
    /// files at `paths` as `review` (the review before the rollback) and
    /// the disk have them. Returns its id.
    fn take_undo(
        &mut self,
        review: &Review,
        checkpoint: &Checkpoint,
        what: String,
        paths: &[String],
    ) -> Result<String, WorkspaceError> {
        // Taken once the rollback is made: see `FileSnapshot::issued`.
        let issued = self.review.ids_issued();
        let files = paths
            .iter()
            .map(|path| {
                Ok(NewCheckpointFile {
                    path: path.clone(),
                    snapshot: FileSnapshot {
                        issued,
                        ..FileSnapshot::take(&self.project, review, path)?
                    },
                    proposed: None,
                    hunk_ids: Vec::new(),
                    reverse_patches: Vec::new(),
                })
            })
            .collect::<Result<Vec<_>, PathError>>()?;
        let undo = self.store.add_checkpoint(
            CheckpointKind::Rollback,
            checkpoint.session_id.as_deref(),
            checkpoint.job_id.as_deref(),
            &what,
            files,
        )?;
        Ok(undo.checkpoint_id)
    }
}
