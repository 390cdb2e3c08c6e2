//! Sessions, jobs and their event logs (DESIGN §3.9), and the runtime that
//! runs jobs in the background.

mod editing;
mod feed;
mod model;
pub mod runtime;

pub use feed::{Feed, FeedPage};
pub use model::*;
pub use runtime::{Providers, RunRequest, Runtime, RuntimeError, ToolConfig};
