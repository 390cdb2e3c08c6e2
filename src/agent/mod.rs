//! The agent: its definitions, the tools it is offered, its prompt, and the
//! loop that runs one job (docs/architecture.md#the-agent-loop). The loop
//! speaks to whatever runs it through [`Host`], in types of its own; it knows
//! nothing of jobs, stores or the review.

mod calls;
mod definition;
pub mod events;
pub mod fan_out;
mod host;
mod prompt;
mod run;
mod state;
pub mod toolset;

pub use definition::{AgentDefinition, definitions};
pub use events::AgentEvent;
pub use host::{Answer, Asked, Host, Refusal, Staged};
pub use prompt::{ChatMessage, ContextRow, Fate, ReviewNote, opening_messages};
pub use run::{NO_USER_ANSWER, drive};
pub use state::{
    FallbackReason, JobParams, JobUsage, LoopState, Outcome, PendingQuestion, Proposal, Question,
};
