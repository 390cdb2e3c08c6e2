//! Where the configuration comes from: the defaults, the file and the
//! environment merged, and a refusal that names the key and the line.

use std::path::{Path, PathBuf};

use figment::{
    Figment,
    providers::{Env, Format, Serialized, Toml},
};
use serde::Serialize;

use super::{Config, Limits};

/// A configuration that could not be loaded: a key no setting has, a value
/// of the wrong type, a file that does not parse. Says which key, and for
/// the file, which line.
#[derive(Debug, thiserror::Error)]
#[error("invalid configuration: {error}{}", line.map_or(String::new(), |n| format!(" (line {n})")))]
pub struct ConfigError {
    error: Box<figment::Error>,
    /// The line of the file the key is on, when it is in the file.
    line: Option<usize>,
}

impl ConfigError {
    /// The line of the configuration file at fault, when there is one.
    pub fn line(&self) -> Option<usize> {
        self.line
    }
}

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
        let keys = config_keys();
        figment
            .merge(
                Env::prefixed(ENV_PREFIX)
                    .map(|key| {
                        // Limits are flat in the environment and nested in the file.
                        // Nested keys outside the limits use `__`: REDLINE_REMOTE__MODEL.
                        let key = key.as_str().to_ascii_lowercase();
                        if limit_names().any(|name| name == key) {
                            format!("limits.{key}").into()
                        } else {
                            key.replace("__", ".").into()
                        }
                    })
                    // Other `REDLINE_` variables (REDLINE_CONFIG, the tests'
                    // switches) are not settings; a typo inside a section
                    // (REDLINE_REMOTE__MODL) is refused like one in the file.
                    .filter_map(move |key| {
                        let section = key.as_str().split('.').next().unwrap_or_default();
                        keys.iter().any(|k| k == section).then(|| key.into())
                    }),
            )
            .extract()
            .map_err(|error| ConfigError {
                line: file.and_then(|file| line_of(file, &error)),
                error: Box::new(error),
            })
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

/// The top-level keys of [`Config`], as the file spells them.
fn config_keys() -> Vec<String> {
    field_names(&Config::default())
}

/// The line of `file` that holds the key `error` is about, when the error
/// came from that file and the key is in it.
fn line_of(file: &Path, error: &figment::Error) -> Option<usize> {
    use figment::error::Kind;
    let from_file = error
        .metadata
        .as_ref()
        .and_then(|m| m.source.as_ref())
        .and_then(|s| s.file_path())
        .is_some_and(|p| p == file);
    if !from_file {
        return None;
    }
    let mut path: Vec<&str> = error.path.iter().map(String::as_str).collect();
    // figment names the unknown field in the path or only in the kind.
    if let Kind::UnknownField(field, _) = &error.kind
        && path.last() != Some(&field.as_str())
    {
        path.push(field);
    }
    let text = std::fs::read_to_string(file).ok()?;
    let doc = toml_edit::Document::parse(text.as_str()).ok()?;
    let mut table = doc.as_table() as &dyn toml_edit::TableLike;
    let mut span = None;
    for (i, key) in path.iter().enumerate() {
        let (k, item) = table.get_key_value(key)?;
        span = k.span();
        if i + 1 < path.len() {
            table = item.as_table_like()?;
        }
    }
    Some(text[..span?.start].matches('\n').count() + 1)
}

/// The field names of [`Limits`], as the environment and the file spell them.
fn limit_names() -> impl Iterator<Item = String> {
    field_names(&Limits::default()).into_iter()
}

/// The field names of a settings struct, as serialised.
fn field_names(value: &impl Serialize) -> Vec<String> {
    let value = serde_json::to_value(value).expect("settings serialize");
    let serde_json::Value::Object(map) = value else {
        unreachable!("settings are structs")
    };
    map.into_iter().map(|(k, _)| k).collect()
}
