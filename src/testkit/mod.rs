//! Stand-ins for tests, benchmarks and demos, behind the `testkit` feature
//! (on by default; the desktop shell builds without it): a scripted model
//! server that speaks the providers' real wire formats over real HTTP, and
//! deterministic generated vaults.

pub mod scripted;
pub mod vaultgen;
