//! Redline: the engine of a local-first sidecar for project-wide agent edits.
//!
//! The crate is the whole engine as a library, free of any UI toolkit: a
//! [`project::Project`] is one folder with its file rules and path guard;
//! [`tools`] are what the agent calls (search, read, list); [`config`] holds
//! the limits; `testkit` (a feature) holds the scripted model and the
//! generated vaults of tests and benchmarks. The `redline` binary is a thin
//! command line over it.
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

pub mod agent;
pub mod api;
pub mod checkpoints;
pub mod config;
pub mod edits;
#[cfg(feature = "testkit")]
pub mod eval;
#[cfg(test)]
mod explore;
pub mod find;
pub mod hunks;
pub mod instance;
pub mod jobs;
pub mod links;
pub mod logging;
mod loopback;
pub mod mcp;
mod named_events;
pub mod project;
pub mod providers;
pub mod review;
pub mod settings;
pub mod setup;
pub mod store;
#[cfg(feature = "testkit")]
pub mod testkit;
pub mod tools;
pub mod watch;
pub mod workspace;
