//! `redline eval` (docs/evals.md). A suite of tasks
//! (`fixtures/evals/`, see [`task`]) runs through the real runtime, each
//! job's hunks reviewed by an oracle derived from the task's checks
//! ([`oracle`]) and applied, the checks then run on disk ([`checks`]); the
//! metrics come per task and per run ([`results`]), and a page compares
//! runs ([`report`]).

pub mod checks;
mod oracle;
pub mod report;
mod results;
mod run;
mod task;

use std::time::Duration;

pub use results::{RunResults, Summary, TaskResult, summarize};
pub use run::Runner;
pub use task::{Task, load_all};

use crate::jobs::RuntimeError;
use crate::providers::ProviderError;
use crate::workspace::WorkspaceError;

/// Why an eval could not run (a task's own failure is a result, not this).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EvalError {
    /// A task's files are malformed.
    #[error("task `{0}`: {1}")]
    Task(String, String),
    /// The command was used wrongly.
    #[error("{0}")]
    Usage(String),
    /// A job ran longer than the harness waits.
    #[error("job {0} ran longer than {1:?} and was cancelled")]
    Timeout(String, Duration),
    /// The runtime refused something.
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    /// A provider could not be set up.
    #[error(transparent)]
    Provider(#[from] ProviderError),
    /// A file could not be read or written.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// JSON could not be written.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

impl From<WorkspaceError> for EvalError {
    fn from(e: WorkspaceError) -> EvalError {
        EvalError::Runtime(e.into())
    }
}
