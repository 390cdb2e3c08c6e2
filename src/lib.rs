//! Redline: the engine of a local-first sidecar for project-wide agent edits.
//!
//! The crate is the whole engine as a library, free of any UI toolkit: a
//! [`project::Project`] is one folder with its file rules and path guard;
//! [`tools`] are what the agent calls (search, read, list); [`config`] holds
//! the limits; [`vaultgen`] makes deterministic note folders for tests and
//! benchmarks. The `redline` binary is a thin command line over it.
#![deny(missing_docs)]

pub mod config;
pub mod project;
pub mod tools;
pub mod vaultgen;
