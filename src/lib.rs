//! Redline: the engine of a local-first sidecar for project-wide agent edits.
//!
//! The crate is the whole engine as a library, free of any UI toolkit. An
//! embedder opens a folder as a [`Runtime`] (its jobs, review and
//! checkpoints, under one [`Config`]), serves it through [`Api`], the one
//! command router (over HTTP with [`api::http`], in-process with
//! [`api::local`]), and starts a [`Watcher`] for other programs' writes; the
//! desktop shell needs nothing else. The layers underneath (the project and
//! its guard, the tools, edits, hunks, the review, the store, providers and
//! the agent's loop; docs/architecture.md) are public only with the
//! `internals` feature, which the crate's own tests, benchmarks, fuzz
//! targets and command line turn on; `testkit` adds the scripted model and
//! the generated vaults. The `redline` binary (the `cli` feature) is a thin
//! command line over it.
//!
//! The agent's tools, reached through the internals:
//!
//! ```
//! use redline::{config::Limits, project::Project, tools};
//! use serde_json::json;
//!
//! let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/vaults/demo");
//! let project = Project::open(demo, Limits::default()).unwrap();
//!
//! let found = tools::run(&project, "search_project", json!({ "query": "ATLAS" })).unwrap();
//! assert_eq!(found["total"], 1);
//! assert_eq!(found["results"][0]["file_path"], "Reference/Style Guide.md");
//!
//! // The guard refuses before anything is read, and says which rule refused.
//! let refused = tools::run(&project, "read_file", json!({ "file_path": "../Cargo.toml" }));
//! assert_eq!(refused.unwrap_err().code(), "escapes_root");
//! ```
#![deny(missing_docs)]

// The surface an embedder builds on: a folder opened as a `Runtime` (its
// jobs, review and checkpoints, under one `Config`), served through `Api`,
// the one command router (over HTTP with `api::http`, in-process with
// `api::local`), with other programs' writes noticed by a `Watcher`.
pub use api::{Api, ApiError};
pub use config::{Config, ConfigError, Limits};
pub use jobs::{Runtime, RuntimeError};
pub use watch::{WatchError, Watcher};

// The doors and what their requests and answers are made of.
pub mod about;
pub mod api;
pub mod checkpoints;
pub mod config;
pub mod doctor;
pub mod hooks;
pub mod instance;
pub mod jobs;
pub mod logging;
pub mod mcp;
pub mod settings;
pub mod setup;
pub mod watch;
pub mod workspace;

/// Declares the engine's inner layers: public with the `internals` feature
/// (the crate's own tests, benchmarks, fuzz targets and command line reach
/// into them), private to an embedder, who gets them only through the
/// surface above.
macro_rules! internal {
    ($($module:ident),* $(,)?) => {$(
        #[cfg(feature = "internals")]
        pub mod $module;
        #[cfg(not(feature = "internals"))]
        #[allow(dead_code, unused_imports)]
        mod $module;
    )*};
}

internal!(
    agent, edits, expand, find, hunks, links, project, providers, review, store, tools
);

#[cfg(feature = "testkit")]
pub mod eval;
#[cfg(test)]
mod explore;
pub mod faults;
mod loopback;
mod named_events;
#[cfg(feature = "testkit")]
pub mod testkit;
#[cfg(all(test, feature = "testkit"))]
mod text_props;
