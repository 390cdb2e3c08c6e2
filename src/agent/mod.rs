//! The agent: its definitions, the tools it is offered, its prompt, and the
//! loop that runs one job (DESIGN §3.7).

pub mod definition;
pub mod prompt;
pub mod run;
pub mod toolset;

pub use definition::AgentDefinition;
pub use run::{Answer, FallbackReason, Host, JobParams, LoopState, Outcome, Proposal, drive};
