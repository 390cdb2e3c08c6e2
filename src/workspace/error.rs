//! Why a workspace operation failed, and whether the failure is a refusal
//! the user can resolve.

use crate::edits::EditError;
use crate::project::{PathError, WriteError};
use crate::review::ReviewError;
use crate::store::StoreError;

/// Why a workspace operation failed; the state is as it was before it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorkspaceError {
    /// The proposal's edits were refused.
    #[error("{} edits were refused: {}", .0.len(), .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Edits(Vec<EditError>),
    /// A review operation was refused.
    #[error(transparent)]
    Review(#[from] ReviewError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A path was refused.
    #[error(transparent)]
    Path(#[from] PathError),
    /// A write or delete on disk was refused (another program's change) or failed.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// Finding the links to a note failed.
    #[error("finding links failed: {0}")]
    Links(#[from] crate::tools::ToolError),
    /// A decision or rollback would leave links that resolved before it
    /// dangling to a path a note left by a move saved and moved on since,
    /// and the link engine cannot point them at the note (several notes
    /// answer to them): refused, with nothing changed (see
    /// docs/architecture.md#changes-across-notes).
    #[error(
        "this would leave the links in {} to `{from}` dangling: the note is at `{to}` now, by a move already saved, and several notes answer to those links so they cannot follow it; nothing was changed",
        files.join(", ")
    )]
    LinksLeftBehind {
        /// The path the links name, which the note left.
        from: String,
        /// Where the working state shows the note.
        to: String,
        /// The notes whose links would dangle.
        files: Vec<String>,
    },
    /// A decision would bring back a move that takes its note away from
    /// links the link engine cannot point at the note (several notes answer
    /// to them), and carrying the move's rejection would undo the decision
    /// itself: refused, with nothing changed.
    #[error(
        "bringing back the move `{hunk}` would take the note away from `{from}`, where the links in {} point, and several notes answer to them so they cannot follow it; nothing was changed",
        files.join(", ")
    )]
    MoveLeavesLinks {
        /// The move.
        hunk: String,
        /// The path the note would leave.
        from: String,
        /// The notes whose links would dangle.
        files: Vec<String>,
    },
    /// A hard rollback would put back a note's own move or deletion under
    /// review while a later move, saved since, has the note somewhere else
    /// on disk: one file cannot hold both, so it is refused, with nothing
    /// changed.
    #[error(
        "`{path}` had a move or deletion of its own under review at that checkpoint and has been moved to `{at}` and saved since; roll back to an earlier checkpoint, or undo the later move and save first"
    )]
    MovedSince {
        /// The note's path at the checkpoint.
        path: String,
        /// Where the disk has it now.
        at: String,
    },
    /// A file not saved because a move ties it to a note another program
    /// changed: written alone, it would leave a link naming where a note
    /// is not.
    #[error(
        "`{path}` was not saved: a move ties it to `{other}`, which changed on disk since Redline last read it; resolve that first"
    )]
    TiedToConflict {
        /// The file not saved.
        path: String,
        /// The note another program changed.
        other: String,
    },
    /// A save kept back a file tied to a move whose note's path a note
    /// would still link to after it.
    #[error(
        "`{path}` was not saved: it is tied to the move of `{from}`, and `{linking}` would still link there; decide the link change in `{linking}` first"
    )]
    LinkWouldDangle {
        /// The file not saved.
        path: String,
        /// The path the move takes its note from.
        from: String,
        /// A note that would still link there.
        linking: String,
    },
    /// Undo or redo with nothing to take.
    #[error("there is nothing to {}", if *.undo { "undo" } else { "redo" })]
    NoStep {
        /// Whether it was an undo.
        undo: bool,
    },
    /// Undo or redo named a step that is not the one it would take.
    #[error("`{asked}` is not the step to take back next; that is `{next}`")]
    NotTheStep {
        /// The step named.
        asked: String,
        /// The step it would take.
        next: String,
    },
    /// No checkpoint has this id.
    #[error("there is no checkpoint `{0}`")]
    UnknownCheckpoint(String),
    /// A file the redline view asked for as an image is none Redline draws,
    /// or too large to send.
    #[error("`{path}` is not drawn as an image: {why}")]
    NotAnImage {
        /// The file.
        path: String,
        /// Why not.
        why: String,
    },
    /// A scoped rollback named a hunk of another run.
    #[error("hunk `{hunk_id}` is not part of checkpoint `{checkpoint_id}`")]
    NotInCheckpoint {
        /// The hunk.
        hunk_id: String,
        /// The checkpoint.
        checkpoint_id: String,
    },
}

impl WorkspaceError {
    /// Whether the operation was refused for what the working state holds
    /// (a conflict the user can resolve), rather than for bad input or a
    /// failure.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            WorkspaceError::Review(_)
                | WorkspaceError::LinksLeftBehind { .. }
                | WorkspaceError::MoveLeavesLinks { .. }
                | WorkspaceError::MovedSince { .. }
                | WorkspaceError::NoStep { .. }
                | WorkspaceError::NotTheStep { .. }
                | WorkspaceError::TiedToConflict { .. }
                | WorkspaceError::LinkWouldDangle { .. }
        )
    }
}
