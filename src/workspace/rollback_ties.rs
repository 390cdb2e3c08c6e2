//! What a hard rollback must not leave apart: a move that counts without a
//! link update of its own, a link update without its move, a link update
//! of a move already settled. Each finds, for a file a rollback restored,
//! the hunks that would stand apart, for the rollback to carry
//! (docs/architecture.md#changes-across-notes).

use std::collections::BTreeSet;

use super::{Workspace, WorkspaceError};
use crate::edits::FileOp;
use crate::project::View;
use crate::review::Status;
use crate::tools::links::linking_to;

impl Workspace {
    /// The move of the file under review at `path`, when it counts (pending
    /// or accepted) and a link update of its own (see
    /// [`crate::review::Review::updates_links_of`]) is gone or rejected.
    pub(super) fn move_apart(&self, path: &str) -> Option<String> {
        let file = self.review.file(path)?;
        let op = file.op()?;
        let entry = &file.entries()[op.entry];
        let hunk = entry.hunk_id.clone()?;
        if entry.status == Status::Rejected {
            return None;
        }
        let mut followers = self
            .review
            .carried_across(std::slice::from_ref(&hunk), Status::Rejected);
        followers.extend(op.followers.iter().cloned());
        followers
            .iter()
            .any(|f| match self.review.status_of(f) {
                None => op.followers.contains(f),
                Some(status) => {
                    status == Status::Rejected
                        && !self.review.superseded(f)
                        && self.review.updates_links_of(f, &hunk)
                }
            })
            .then_some(hunk)
    }

    /// Whether `hunk` counts: it is under review, pending or accepted.
    pub(super) fn counts(&self, hunk: &str) -> bool {
        self.review
            .status_of(hunk)
            .is_some_and(|s| s != Status::Rejected)
    }

    /// The link updates, in other files, that count (pending or accepted)
    /// while the move they follow, in the file under review at `path`, is
    /// rejected: put back from a time it was, it takes them with it.
    pub(super) fn followers_apart(&self, path: &str) -> Vec<String> {
        let Some(file) = self.review.file(path) else {
            return Vec::new();
        };
        file.entries()
            .iter()
            .filter(|e| e.status == Status::Rejected)
            .filter_map(|e| e.hunk_id.clone())
            .flat_map(|h| self.review.carried_across(&[h], Status::Rejected))
            .filter(|h| self.counts(h))
            .collect()
    }

    /// The moves, in other files, that count (pending or accepted) while a
    /// link update of theirs in the file under review at `path` is
    /// rejected: brought back that way, the file's link would be left
    /// behind. A settled move stays (see [`Review::is_final`]).
    pub(super) fn leaders_apart(&self, path: &str) -> Vec<String> {
        let Some(file) = self.review.file(path) else {
            return Vec::new();
        };
        file.entries()
            .iter()
            .enumerate()
            .filter(|(i, e)| e.status == Status::Rejected && !file.covered(*i))
            .flat_map(|(_, e)| {
                e.leaders().filter(|l| {
                    e.hunk_id
                        .as_deref()
                        .is_some_and(|h| self.review.updates_links_of(h, l))
                })
            })
            .filter(|l| self.counts(l) && !self.review.is_final(l))
            .cloned()
            .collect()
    }

    /// The link updates in the file under review at `path`, rejected or
    /// pending, whose move counts and is settled (accepted and saved: the
    /// note is at its new path on disk).
    pub(super) fn links_of_settled_moves(&self, path: &str) -> Vec<String> {
        let Some(file) = self.review.file(path) else {
            return Vec::new();
        };
        let stands = |leader: &String| self.counts(leader) && self.review.is_final(leader);
        // The move's own link updates only (a retarget at its note needs
        // no keeping); and not one whose line shows a link that follows the
        // move without it (see `FileReview::covered`).
        file.entries()
            .iter()
            .enumerate()
            .filter(|(i, e)| {
                let update = |l: &&String| {
                    e.hunk_id
                        .as_deref()
                        .is_some_and(|h| self.review.updates_links_of(h, l))
                };
                e.status != Status::Accepted
                    && e.leaders().filter(update).any(stands)
                    && !file.covered(*i)
            })
            .filter_map(|(_, e)| e.hunk_id.clone())
            .collect()
    }

    /// The link updates in the file under review at `path` that count
    /// (pending or accepted) while a move they follow is gone or rejected.
    pub(super) fn links_apart(&self, path: &str) -> Vec<String> {
        let Some(file) = self.review.file(path) else {
            return Vec::new();
        };
        let gone = |leader: &String| {
            self.review
                .status_of(leader)
                .is_none_or(|s| s == Status::Rejected)
        };
        file.entries()
            .iter()
            .filter(|e| e.status != Status::Rejected && e.leaders().any(gone))
            .filter_map(|e| e.hunk_id.clone())
            .collect()
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
}
