//! A move brought back (by a decision from rejected to pending or
//! accepted, or by a rollback) takes its note away from its old path again,
//! and only the links its link updates rewrite follow it. A link to the
//! note that appeared after the move was proposed (rejecting an edit or a
//! rollback brought back the text that has it) has no update, and would
//! dangle: a decision that would do so is refused, with every status left
//! as it was, and a rollback rejects such a move, as it does a move whose
//! link update it took away.
//!
//! The other way round too: a hunk brought back by a decision was written
//! before a move that counts now, so a link in it to the note's old path
//! has no update either. That decision is refused the same way.

use std::collections::BTreeSet;

use super::{Workspace, WorkspaceError, overlay_of};
use crate::edits::FileOp;
use crate::project::{Overlay, View};
use crate::review::{Decision, Review, ReviewError, Status};
use crate::tools::links::{dangling_to, linking_to, stem};

impl Workspace {
    /// Checks that the moves `decisions` brought back leave no link behind,
    /// and that the hunks they brought back show no link to a moved note's
    /// old path (see the module docs), against the working state before
    /// the open transaction; otherwise refuses (the transaction is
    /// dropped).
    pub(super) fn keep_links(&self, decisions: &[Decision]) -> Result<(), WorkspaceError> {
        let revealed: Vec<String> = decisions
            .iter()
            .flat_map(|d| &d.moves)
            .filter(|m| m.from == Status::Rejected && m.to != Status::Rejected)
            .map(|m| m.hunk_id.clone())
            .collect();
        if revealed.is_empty() || self.counting_moves().is_empty() {
            return Ok(());
        }
        let shown = overlay_of(self.review.files_before());
        let refusal = match self.left_dangling(revealed.iter().cloned())? {
            Some((hunk, files)) => Some(ReviewError::LinksBehind { hunk, files }),
            None => self.links_to_moved(&shown, &revealed)?,
        };
        match refusal {
            Some(refusal) => Err(refusal.into()),
            None => Ok(()),
        }
    }

    /// The first of the moves among `hunks` that leaves a link to its note's
    /// old path dangling in the working state as the decision leaves it (a
    /// link that appeared after the move was proposed, which no update of
    /// its rewrites), with the notes that hold such links.
    fn left_dangling(
        &self,
        hunks: impl IntoIterator<Item = String>,
    ) -> Result<Option<(String, Vec<String>)>, WorkspaceError> {
        let back = self.moves_among(hunks);
        if back.is_empty() {
            return Ok(None);
        }
        let overlay = self.overlay();
        let view = View::with(&self.project, &overlay);
        for (hunk, from) in back {
            let files = dangling_to(&view, &from)?;
            if !files.is_empty() {
                return Ok(Some((hunk, files.into_iter().collect())));
            }
        }
        Ok(None)
    }

    /// The first link the hunks `revealed` show (in their files as they
    /// are now) to the old path of a note that a counting move shows
    /// elsewhere, which did not dangle in `shown` (the working state before
    /// they came back): why their decision is refused.
    fn links_to_moved(
        &self,
        shown: &Overlay,
        revealed: &[String],
    ) -> Result<Option<ReviewError>, WorkspaceError> {
        let moved: Vec<(String, String)> = self
            .review
            .files()
            .filter_map(|f| {
                let op = f.op()?;
                let to = op.op.target()?;
                f.entries()[op.entry]
                    .in_buffer()
                    .then(|| (f.path.clone(), to.to_owned()))
            })
            .collect();
        if moved.is_empty() {
            return Ok(None);
        }
        let files: BTreeSet<&str> = revealed
            .iter()
            .filter_map(|hunk| {
                let (path, _) = self.review.find_hunk(hunk).ok()?;
                self.review.file(&path)?.view_path()
            })
            .collect();
        let now = self.overlay();
        let (now, then) = (
            View::with(&self.project, &now),
            View::with(&self.project, shown),
        );
        for (from, to) in moved {
            if now.read_text(&from).is_ok() {
                continue;
            }
            let dangling = dangling_to(&now, &from)?;
            let new: Vec<String> = dangling
                .into_iter()
                .filter(|f| files.contains(f.as_str()))
                .collect();
            if new.is_empty() {
                continue;
            }
            let was = dangling_to(&then, &from)?;
            let behind: Vec<String> = new.into_iter().filter(|f| !was.contains(f)).collect();
            if !behind.is_empty() {
                return Ok(Some(ReviewError::LinksToMoved {
                    hunk: revealed[0].clone(),
                    from,
                    to,
                    files: behind,
                }));
            }
        }
        Ok(None)
    }

    /// The notes (by their paths in review) that link to where a move of
    /// `counted` (each with the path its file is under review by, where its
    /// note was) that counts no more leaves its note: kept in a rollback's
    /// undo checkpoint, so that its undo gives them back as they were.
    pub(super) fn linking_to_moves_taken(
        &self,
        counted: &[(String, String)],
    ) -> Result<Vec<String>, WorkspaceError> {
        let now = self.counting_moves();
        let taken: Vec<&str> = counted
            .iter()
            .filter(|(hunk, _)| !now.contains(hunk))
            .map(|(_, from)| from.as_str())
            .collect();
        if taken.is_empty() {
            return Ok(Vec::new());
        }
        let overlay = self.overlay();
        let view = View::with(&self.project, &overlay);
        let mut out = Vec::new();
        for from in taken {
            if view.read_text(from).is_err() {
                continue;
            }
            for path in linking_to(&view, from)? {
                out.push(self.key_of(&path));
            }
        }
        Ok(out)
    }

    /// The moves that count now (pending or accepted), by hunk.
    pub(super) fn counting_moves(&self) -> BTreeSet<String> {
        self.review
            .files()
            .filter_map(|f| {
                let op = f.op()?;
                let entry = &f.entries()[op.entry];
                (matches!(op.op, FileOp::Move { .. }) && entry.status != Status::Rejected)
                    .then(|| entry.hunk_id.clone())
                    .flatten()
            })
            .collect()
    }

    /// Of `hunks`, the moves staged on their files now, with the path
    /// each file is under review by.
    pub(super) fn moves_among(
        &self,
        hunks: impl IntoIterator<Item = String>,
    ) -> Vec<(String, String)> {
        hunks
            .into_iter()
            .filter_map(|hunk| {
                let (path, i) = self.review.find_hunk(&hunk).ok()?;
                let op = self.review.file(&path)?.op()?;
                (op.entry == i && matches!(op.op, FileOp::Move { .. })).then_some((hunk, path))
            })
            .collect()
    }

    /// Of the moves `back` (hunk, its file's path), those that would leave
    /// links behind, with the notes that hold them: the notes of `shown`
    /// (the working state before they came back, the file at its path)
    /// that link to the file and hold no counting link update of the move.
    pub(super) fn left_behind(
        &self,
        shown: &Overlay,
        back: Vec<(String, String)>,
    ) -> Result<Vec<(String, Vec<String>)>, WorkspaceError> {
        let view = View::with(&self.project, shown);
        let mut out = Vec::new();
        for (hunk, path) in back {
            let mut behind = linking_to(&view, &path)?;
            // A note with a link update is known by any of its paths.
            for key in self.review.follower_files(&hunk) {
                let file = self.review.file(&key).expect("holds a hunk");
                for path in file.paths() {
                    behind.remove(path);
                }
            }
            if !behind.is_empty() {
                out.push((hunk, behind.into_iter().collect()));
            }
        }
        Ok(out)
    }

    /// Refuses a rollback that shows a note it restored (one of `paths`)
    /// at another path than `before` showed it, where nothing is left at
    /// the old one while notes link there: a move brought back settled
    /// (saved, then retired by a later proposal), which no rejection can
    /// take back, with its link updates gone.
    pub(super) fn refuse_moves_leaving_links(
        &self,
        before: &Review,
        paths: &[String],
    ) -> Result<(), WorkspaceError> {
        let overlay = self.overlay();
        let view = View::with(&self.project, &overlay);
        let shown = |review: &Review, path: &str| match review.file_of(path) {
            Some(file) => file.view_path().map(str::to_owned),
            None => Some(path.to_owned()),
        };
        for path in paths {
            let (Some(from), Some(to)) = (shown(before, path), shown(&self.review, path)) else {
                continue;
            };
            if from == to || view.read_text(&from).is_ok() {
                continue;
            }
            let files = dangling_to(&view, &from)?;
            if !files.is_empty() {
                return Err(WorkspaceError::LinksLeftBehind {
                    from,
                    to,
                    files: files.into_iter().collect(),
                });
            }
        }
        Ok(())
    }

    /// Of the moves that came to count since `counting` (undoing a
    /// rollback brought them back), those a note of `shown` outside
    /// `restored` links to with no link update of theirs: a link written
    /// since the rollback (the notes that linked there then are among
    /// `restored`, see [`Workspace::linking_to_moves_taken`]). Rejected,
    /// with their link updates. Returns the files that changed.
    pub(super) fn reject_moves_leaving_others(
        &mut self,
        shown: &Overlay,
        counting: &BTreeSet<String>,
        restored: &BTreeSet<String>,
    ) -> Result<Vec<String>, WorkspaceError> {
        let now = self.counting_moves();
        let back = self.moves_among(now.into_iter().filter(|h| !counting.contains(h)));
        let hunks: Vec<String> = self
            .left_behind(shown, back)?
            .into_iter()
            .filter(|(_, files)| files.iter().any(|f| !restored.contains(f)))
            .map(|(hunk, _)| hunk)
            .collect();
        self.reject_moves(&hunks)
    }

    /// The moves that count after a rollback and would leave links behind:
    /// one that came to count since `counting` (see
    /// [`Workspace::counting_moves`]) where a note of `shown` links to its
    /// note, and any whose note's old path a link dangles to that did not
    /// in `shown` (the rollback put back a note as it was before the move,
    /// or rejected a later move's link update with that move), in one of
    /// the files the rollback changed (`changed`). Rejected, with their
    /// link updates. Returns the files that changed.
    pub(super) fn reject_moves_leaving_links(
        &mut self,
        shown: &Overlay,
        counting: &BTreeSet<String>,
        changed: &[String],
    ) -> Result<Vec<String>, WorkspaceError> {
        let now = self.counting_moves();
        let back = self.moves_among(now.iter().filter(|h| !counting.contains(*h)).cloned());
        let mut hunks: Vec<String> = self
            .left_behind(shown, back)?
            .into_iter()
            .map(|(hunk, _)| hunk)
            .collect();
        let overlay = self.overlay();
        let (view, then) = (
            View::with(&self.project, &overlay),
            View::with(&self.project, shown),
        );
        // Only a changed file can hold a new link to a moved note, and only
        // one that names it: the rest of the vault is not searched.
        let texts: Vec<String> = changed
            .iter()
            .filter_map(|p| self.review.file(p).and_then(|f| f.view_path()))
            .filter_map(|p| view.read_text(p).ok())
            .map(|f| f.text.to_lowercase())
            .collect();
        for (hunk, path) in self.moves_among(now) {
            let name = stem(&path).to_lowercase();
            let encoded = name.replace(' ', "%20");
            if hunks.contains(&hunk)
                || !texts
                    .iter()
                    .any(|t| t.contains(&name) || t.contains(&encoded))
                || view.read_text(&path).is_ok()
            {
                continue;
            }
            let was = dangling_to(&then, &path)?;
            if dangling_to(&view, &path)?.iter().any(|f| !was.contains(f)) {
                hunks.push(hunk);
            }
        }
        self.reject_moves(&hunks)
    }

    /// Rejects the moves `hunks` (with their link updates); returns the
    /// files that changed.
    fn reject_moves(&mut self, hunks: &[String]) -> Result<Vec<String>, WorkspaceError> {
        if hunks.is_empty() {
            return Ok(Vec::new());
        }
        Ok(self
            .review
            .decide_many(hunks, Status::Rejected)?
            .into_iter()
            .map(|d| d.path)
            .collect())
    }
}
