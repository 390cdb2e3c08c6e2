//! Why a runtime operation was refused, with the API's error code for each.

use crate::project::{OpenError, PathError};
use crate::providers::ProviderError;
use crate::review::ReviewError;
use crate::store::StoreError;
use crate::workspace::WorkspaceError;

/// Why a runtime operation was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RuntimeError {
    /// The folder could not be opened.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A review or apply operation was refused.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// A provider could not be set up.
    #[error(transparent)]
    Provider(#[from] ProviderError),
    /// No session, job or agent has this id.
    #[error("there is no {kind} `{id}`")]
    NotFound {
        /// `session`, `job` or `agent`.
        kind: &'static str,
        /// The id asked for.
        id: String,
    },
    /// The request does not fit the job's state (answering a job that asks
    /// nothing, cancelling a finished one).
    #[error("{0}")]
    Conflict(String),
    /// The request itself is wrong.
    #[error("{0}")]
    Invalid(String),
}

impl RuntimeError {
    /// The API's error code: `not_found`, `conflict`, `invalid_request`, or
    /// `internal`.
    pub fn code(&self) -> &'static str {
        match self {
            RuntimeError::NotFound { .. } => "not_found",
            RuntimeError::Conflict(_) => "conflict",
            RuntimeError::Invalid(_) | RuntimeError::Open(_) => "invalid_request",
            RuntimeError::Workspace(e) => match e {
                WorkspaceError::UnknownCheckpoint(_)
                | WorkspaceError::Path(PathError::NotFound(_))
                | WorkspaceError::Review(
                    ReviewError::UnknownFile(_) | ReviewError::UnknownHunk(_),
                ) => "not_found",
                WorkspaceError::Review(_)
                | WorkspaceError::Write(_)
                | WorkspaceError::LinksLeftBehind { .. }
                | WorkspaceError::MoveLeavesLinks { .. }
                | WorkspaceError::MovedSince { .. }
                | WorkspaceError::NoStep { .. }
                | WorkspaceError::NotTheStep { .. }
                | WorkspaceError::TiedToConflict { .. }
                | WorkspaceError::LinkWouldDangle { .. } => "conflict",
                WorkspaceError::Edits(_)
                | WorkspaceError::Path(_)
                | WorkspaceError::NotInCheckpoint { .. }
                | WorkspaceError::NotAnImage { .. } => "invalid_request",
                WorkspaceError::Store(_) | WorkspaceError::Links(_) => "internal",
            },
            RuntimeError::Store(_) | RuntimeError::Provider(_) => "internal",
        }
    }
}

pub(super) fn not_found(kind: &'static str, id: &str) -> RuntimeError {
    RuntimeError::NotFound {
        kind,
        id: id.to_owned(),
    }
}
