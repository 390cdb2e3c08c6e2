//! Sessions, jobs and their event logs, and the runtime that
//! runs jobs in the background: the layer that implements the agent's
//! [`Host`](crate::agent::Host) over the workspace and the store.

mod chain;
mod error;
pub(crate) mod events;
mod feed;
mod records;
mod runtime;
mod shapes;

pub use chain::{ProviderChain, Readiness};
pub use error::RuntimeError;
pub use events::{FeedEvent, JobEvent, NotSaved, RuntimeEvent, SavedAll};
pub use feed::{Feed, FeedEntry, FeedPage};
pub use records::Records;
pub use runtime::{
    AgentWrite, HunkState, McpConnection, OUTSIDE, OutcomeRequest, Runtime, WriteOutcome,
};
pub use shapes::*;
