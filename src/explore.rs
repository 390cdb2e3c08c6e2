//! The number of cases a property test runs: its own default in CI, or
//! `REDLINE_EXPLORE_CASES` for a longer, unpinned exploration
//! (`scripts/explore` runs the review's properties that way).

use proptest::test_runner::Config;

/// The configuration of a property: `cases` cases, or `REDLINE_EXPLORE_CASES`.
pub(crate) fn config(cases: u32) -> Config {
    let cases = std::env::var("REDLINE_EXPLORE_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(cases);
    Config::with_cases(cases)
}
