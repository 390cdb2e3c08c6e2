//! The notes a hard rollback's undo must give back because of the moves
//! it takes away: those that link to where such a move had taken its note
//! (docs/architecture.md#checkpoints-and-rollback). What a rollback must
//! not leave apart across notes is settled with every other operation
//! (`Review::settle`).

use std::collections::BTreeSet;

use super::{Workspace, WorkspaceError};
use crate::edits::FileOp;
use crate::project::View;
use crate::review::Status;
use crate::tools::links::linking_to;

impl Workspace {
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
