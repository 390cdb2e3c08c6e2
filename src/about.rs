//! Which Redline this is: its version, and the commit and date it was
//! built from when the build was made by `scripts/package` or
//! `scripts/test` (they set `REDLINE_COMMIT` and `REDLINE_BUILD_DATE`);
//! a build from a plain `cargo build` says it is a development build.

use serde::{Deserialize, Serialize};

/// This build of Redline (`GET /api/about`, `redline --version`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct About {
    /// The version, from `Cargo.toml`.
    pub version: String,
    /// The commit it was built from (short hash); `null` for a development build.
    pub commit: Option<String>,
    /// The day it was built (`YYYY-MM-DD`, UTC); `null` for a development build.
    pub built: Option<String>,
}

/// This build.
pub fn about() -> About {
    let given = |value: Option<&str>| value.filter(|v| !v.is_empty()).map(str::to_owned);
    About {
        version: env!("CARGO_PKG_VERSION").to_owned(),
        commit: given(option_env!("REDLINE_COMMIT")),
        built: given(option_env!("REDLINE_BUILD_DATE")),
    }
}

impl std::fmt::Display for About {
    /// `0.1.0 (commit 1a2b3c4, built 2026-11-29)`, or `0.1.0 (development build)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.commit, &self.built) {
            (Some(commit), Some(built)) => {
                write!(f, "{} (commit {commit}, built {built})", self.version)
            }
            (Some(commit), None) => write!(f, "{} (commit {commit})", self.version),
            _ => write!(f, "{} (development build)", self.version),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_says_its_commit_and_day_or_that_it_is_a_development_build() {
        let mut about = About {
            version: "0.1.0".into(),
            commit: Some("1a2b3c4".into()),
            built: Some("2026-11-29".into()),
        };
        assert_eq!(
            about.to_string(),
            "0.1.0 (commit 1a2b3c4, built 2026-11-29)"
        );
        about.commit = None;
        about.built = None;
        assert_eq!(about.to_string(), "0.1.0 (development build)");
        assert_eq!(super::about().version, env!("CARGO_PKG_VERSION"));
    }
}
