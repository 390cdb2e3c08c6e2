//! Configuration: limits and locations.
//!
//! Values come from three layers, each overriding the one before: the built-in
//! defaults (the seed's §1), a TOML file, and `REDLINE_*` environment
//! variables. Every limit can be set by name in the environment, for example
//! `REDLINE_MAX_SEARCH_RESULTS_CAP=30` sets `limits.max_search_results_cap`.
//!
//! The TOML file is `$REDLINE_CONFIG` when set, else `config.toml` in the
//! platform's configuration directory (`~/.config/redline/` on Linux). The data
//! directory is `$REDLINE_DATA_DIR` when set, else the platform's application
//! data directory (`~/.local/share/redline/` on Linux).

use std::path::{Path, PathBuf};

use figment::{
    Figment,
    providers::{Env, Format, Serialized, Toml},
};
use serde::{Deserialize, Serialize};

/// Every tunable limit of the engine, with the seed's §1 defaults.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    /// Tool calls one agent job may make. Default 12.
    pub max_tool_calls_per_job: usize,
    /// Search results returned when the caller names no `limit`. Default 20.
    pub max_search_results_default: usize,
    /// Largest `limit` a search may ask for. Default 50.
    pub max_search_results_cap: usize,
    /// Longest snippet a search result carries, in lines. Default 20.
    pub max_search_snippet_lines: usize,
    /// Longest line shown in a snippet, in bytes; longer lines are cut. Default 400.
    pub max_snippet_line_bytes: usize,
    /// Compiled-regex size limit for search patterns, in bytes. Default 1 MiB.
    pub max_regex_bytes: usize,
    /// Bytes `read_file` returns when the caller names no `max_bytes`. Default 64 KiB.
    pub max_read_bytes_default: usize,
    /// Largest `max_bytes` a read may ask for. Default 256 KiB.
    pub max_read_bytes_cap: usize,
    /// Lines `read_file` returns when the caller names no `end_line`. Default 800.
    pub max_read_lines_default: usize,
    /// Largest file treated as text, in bytes; larger files are refused. Default 16 MiB.
    pub max_text_file_bytes: u64,
    /// Paths `list_files` returns when the caller names no `limit`. Default 200.
    pub max_list_results_default: usize,
    /// Largest `limit` a listing may ask for. Default 1000.
    pub max_list_results_cap: usize,
    /// How often a polling client asks for events, in milliseconds. Default 2000.
    pub poll_interval_ms: u64,
    /// Lines on each side of an edit's stated range searched for its `old_text`. Default 100.
    pub edit_relocation_window: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_tool_calls_per_job: 12,
            max_search_results_default: 20,
            max_search_results_cap: 50,
            max_search_snippet_lines: 20,
            max_snippet_line_bytes: 400,
            max_regex_bytes: 1 << 20,
            max_read_bytes_default: 64 * 1024,
            max_read_bytes_cap: 256 * 1024,
            max_read_lines_default: 800,
            max_text_file_bytes: 16 << 20,
            max_list_results_default: 200,
            max_list_results_cap: 1000,
            poll_interval_ms: 2000,
            edit_relocation_window: 100,
        }
    }
}

/// The whole configuration.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Where Redline keeps its own state. `None` means the platform default.
    pub data_dir: Option<PathBuf>,
    /// Engine limits.
    pub limits: Limits,
}

/// A configuration that could not be loaded.
#[derive(Debug, thiserror::Error)]
#[error("invalid configuration: {0}")]
pub struct ConfigError(#[from] Box<figment::Error>);

/// The environment prefix of every variable Redline reads.
const ENV_PREFIX: &str = "REDLINE_";

impl Config {
    /// Loads defaults, then the TOML file at `file` (if it exists), then the
    /// `REDLINE_*` variables of the process environment.
    pub fn load_from(file: Option<&Path>) -> Result<Config, ConfigError> {
        let mut figment = Figment::from(Serialized::defaults(Config::default()));
        if let Some(file) = file {
            figment = figment.merge(Toml::file_exact(file));
        }
        figment
            .merge(Env::prefixed(ENV_PREFIX).map(|key| {
                // Limits are flat in the environment and nested in the file.
                let key = key.as_str().to_ascii_lowercase();
                if limit_names().any(|name| name == key) {
                    format!("limits.{key}").into()
                } else {
                    key.into()
                }
            }))
            .extract()
            .map_err(|e| ConfigError(Box::new(e)))
    }

    /// Loads the configuration from its default places (see the module docs).
    /// A missing file is not an error; a malformed one is.
    pub fn load() -> Result<Config, ConfigError> {
        let file = config_file();
        Config::load_from(file.as_deref().filter(|p| p.exists()))
    }

    /// The data directory in force: the configured one, else the platform's.
    pub fn data_dir(&self) -> PathBuf {
        self.data_dir.clone().unwrap_or_else(|| {
            project_dirs()
                .map(|d| d.data_dir().to_path_buf())
                .unwrap_or_else(|| PathBuf::from(".redline-data"))
        })
    }
}

/// The configuration file Redline reads: `$REDLINE_CONFIG`, else
/// `config.toml` in the platform configuration directory.
pub fn config_file() -> Option<PathBuf> {
    match std::env::var_os("REDLINE_CONFIG") {
        Some(path) => Some(PathBuf::from(path)),
        None => project_dirs().map(|d| d.config_dir().join("config.toml")),
    }
}

fn project_dirs() -> Option<directories::ProjectDirs> {
    directories::ProjectDirs::from("", "", "redline")
}

/// The field names of [`Limits`], as the environment and the file spell them.
fn limit_names() -> impl Iterator<Item = String> {
    let value = serde_json::to_value(Limits::default()).expect("limits serialize");
    let serde_json::Value::Object(map) = value else {
        unreachable!("limits is a struct")
    };
    map.into_iter().map(|(k, _)| k)
}

#[cfg(test)]
// figment's Jail returns its own (large) error type; that is its API, not ours.
#[allow(clippy::result_large_err)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_seed_values() {
        figment::Jail::expect_with(|_| {
            let limits = Config::load_from(None).unwrap().limits;
            assert_eq!(limits.max_tool_calls_per_job, 12);
            assert_eq!(limits.max_search_results_default, 20);
            assert_eq!(limits.max_search_results_cap, 50);
            assert_eq!(limits.max_search_snippet_lines, 20);
            assert_eq!(limits.max_read_bytes_default, 65536);
            assert_eq!(limits.max_read_lines_default, 800);
            assert_eq!(limits.poll_interval_ms, 2000);
            Ok(())
        });
    }

    #[test]
    fn environment_overrides_file_overrides_defaults() {
        figment::Jail::expect_with(|jail| {
            jail.create_file(
                "redline.toml",
                "data_dir = \"/tmp/from-file\"\n[limits]\nmax_search_results_cap = 30\nmax_read_lines_default = 100\n",
            )?;
            jail.set_env("REDLINE_MAX_SEARCH_RESULTS_CAP", "40");
            let config = Config::load_from(Some(Path::new("redline.toml"))).unwrap();
            assert_eq!(config.limits.max_search_results_cap, 40);
            assert_eq!(config.limits.max_read_lines_default, 100);
            assert_eq!(config.limits.max_search_results_default, 20);
            assert_eq!(config.data_dir(), PathBuf::from("/tmp/from-file"));
            jail.set_env("REDLINE_DATA_DIR", "/tmp/from-env");
            let config = Config::load_from(Some(Path::new("redline.toml"))).unwrap();
            assert_eq!(config.data_dir(), PathBuf::from("/tmp/from-env"));
            Ok(())
        });
    }

    #[test]
    fn a_bad_value_names_its_key() {
        figment::Jail::expect_with(|jail| {
            jail.set_env("REDLINE_MAX_READ_BYTES_DEFAULT", "lots");
            let err = Config::load_from(None)
                .unwrap_err()
                .to_string()
                .to_lowercase();
            assert!(err.contains("max_read_bytes_default"), "{err}");
            Ok(())
        });
    }
}
