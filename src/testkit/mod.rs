//! Stand-ins for tests, benchmarks and demos, behind the `testkit` feature
//! (on by default; the desktop shell builds without it): a scripted model
//! server that speaks the providers' real wire formats over real HTTP,
//! deterministic generated vaults, and the text people write that every
//! generator of test data draws from.

pub mod scripted;
pub mod text;
pub mod vaultgen;
