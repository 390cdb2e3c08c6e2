//! The settings screen's side of the configuration: what it shows (an API
//! key only as a hint), and a change to it, applied to the running
//! configuration and saved to the configuration file. The file keeps its
//! comments and every key the change does not name (`toml_edit`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::{
    AgentMode, Config, FolderSettings, LimitField, Limits, OutsideMode, ProviderKind,
    ProviderSettings, check_caps, check_limit, limit_fields, names_folder,
};
use crate::providers::keys::{self, KeyStorage};

/// Why a settings change was refused; nothing changed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// A value is out of shape (an unknown limit, a negative count).
    #[error("{0}")]
    Invalid(String),
    /// The configuration file could not be read or written.
    #[error("cannot save the settings to `{path}`: {message}")]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

/// One provider as the settings screen shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ProviderView {
    /// Its settings.
    #[serde(flatten)]
    pub settings: ProviderSettings,
    /// The base URL in force (`base_url`, or the service's own).
    pub effective_base_url: String,
    /// `…` and the last four characters of its key; `null` when none is set.
    pub key_hint: Option<String>,
}

/// The settings as the screen shows them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Settings {
    /// Which provider runs jobs.
    pub agent_mode: AgentMode,
    /// What becomes of other programs' writes (the top-level setting).
    pub outside_changes: OutsideMode,
    /// The open folder, when there is one.
    pub folder: Option<String>,
    /// The open folder's own settings, over the top-level ones.
    pub folder_settings: FolderView,
    /// The remote provider.
    pub remote: ProviderView,
    /// The local provider (it needs no key).
    pub local: ProviderView,
    /// The engine's limits.
    pub limits: Limits,
    /// Each limit's name in words and its range, in the order shown.
    pub limit_fields: Vec<LimitField>,
    /// Where changes are saved; `null` when they last only until Redline stops.
    pub config_file: Option<String>,
}

/// The open folder's own settings (`[folders."<path>"]`), as the screen
/// shows them and as a change gives them, whole.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct FolderView {
    /// `outside_changes` in this folder; `null`: the top-level one.
    #[serde(default)]
    pub outside_changes: Option<OutsideMode>,
}

/// A new API key for a provider (write-only: no response ever carries it).
#[derive(Clone, Deserialize, Serialize, ts_rs::TS)]
pub struct KeyUpdate {
    /// Whose key.
    pub provider: ProviderKind,
    /// The key.
    pub key: String,
}

impl std::fmt::Debug for KeyUpdate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let key = keys::ApiKey::new(self.key.clone());
        write!(f, "KeyUpdate({:?}, {key:?})", self.provider)
    }
}

/// A change of settings; what it leaves out stays as it is.
#[derive(Clone, Debug, Default, Deserialize, Serialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct SettingsUpdate {
    /// Which provider runs jobs.
    #[serde(default)]
    pub agent_mode: Option<AgentMode>,
    /// What becomes of other programs' writes.
    #[serde(default)]
    pub outside_changes: Option<OutsideMode>,
    /// The open folder's own settings, whole (a `null` inside clears one).
    #[serde(default)]
    pub folder_settings: Option<FolderView>,
    /// The remote provider, whole.
    #[serde(default)]
    pub remote: Option<ProviderSettings>,
    /// The local provider, whole.
    #[serde(default)]
    pub local: Option<ProviderSettings>,
    /// Limits to change, by name (`{"max_tool_calls_per_job": 20}`).
    #[serde(default)]
    pub limits: Option<serde_json::Map<String, Value>>,
    /// A new API key, stored in the OS keychain.
    #[serde(default)]
    pub api_key: Option<KeyUpdate>,
}

/// What a change did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SettingsSaved {
    /// The settings now.
    pub settings: Settings,
    /// Where a new key went: `keychain`, or `memory` when no keychain can be
    /// reached (it then lasts until Redline stops); `null` when none was given.
    pub key_storage: Option<KeyStorage>,
}

/// The settings screen's view of `config`, in the folder at `root`.
pub fn view(config: &Config, file: Option<&Path>, root: Option<&Path>) -> Settings {
    let provider = |settings: &ProviderSettings, key: bool| ProviderView {
        effective_base_url: settings.base_url().to_owned(),
        key_hint: key
            .then(|| keys::lookup(settings.provider.name()))
            .flatten()
            .map(|k| k.hint()),
        settings: settings.clone(),
    };
    Settings {
        agent_mode: config.agent_mode,
        outside_changes: config.outside_changes,
        folder: root.map(|r| r.display().to_string()),
        folder_settings: FolderView {
            outside_changes: root
                .and_then(|r| config.folder(r))
                .and_then(|f| f.outside_changes),
        },
        remote: provider(&config.remote, true),
        local: provider(&config.local, false),
        limits: config.limits.clone(),
        limit_fields: limit_fields(),
        config_file: file.map(|f| f.display().to_string()),
    }
}

/// `config` with `update` applied (the key aside), checked; the folder's
/// settings are those of the folder at `root`.
pub fn updated(
    config: &Config,
    update: &SettingsUpdate,
    root: Option<&Path>,
) -> Result<Config, SettingsError> {
    let mut next = config.clone();
    if let Some(mode) = update.agent_mode {
        next.agent_mode = mode;
    }
    if let Some(mode) = update.outside_changes {
        next.outside_changes = mode;
    }
    if let Some(folder) = &update.folder_settings {
        let Some(root) = root else {
            return Err(SettingsError::Invalid("no folder is open".into()));
        };
        // The entry that names the folder already, else one by its path.
        let key = config
            .folder_key(root)
            .map_or_else(|| root.display().to_string(), str::to_owned);
        let entry = next.folders.entry(key.clone()).or_default();
        entry.outside_changes = folder.outside_changes;
        if *entry == FolderSettings::default() {
            next.folders.remove(&key);
        }
    }
    for (target, given, which) in [
        (&mut next.remote, &update.remote, "Remote provider"),
        (&mut next.local, &update.local, "Local model"),
    ] {
        if let Some(given) = given {
            if given.model.trim().is_empty() {
                return Err(SettingsError::Invalid(format!(
                    "{which}: the model name is empty"
                )));
            }
            if let Some(url) = &given.base_url
                && !(url.starts_with("http://") || url.starts_with("https://"))
            {
                return Err(SettingsError::Invalid(format!(
                    "{which}: the base URL must start with http:// or https://; `{url}` does not"
                )));
            }
            *target = given.clone();
        }
    }
    if let Some(changes) = &update.limits {
        let mut limits = serde_json::to_value(&next.limits).expect("limits serialize");
        let known = limits.as_object_mut().expect("limits are a struct");
        for (name, value) in changes {
            let value = check_limit(name, value).map_err(SettingsError::Invalid)?;
            known.insert(name.clone(), value.into());
        }
        check_caps(&limits).map_err(SettingsError::Invalid)?;
        next.limits = serde_json::from_value(limits)
            .map_err(|e| SettingsError::Invalid(format!("limits: {e}")))?;
    }
    Ok(next)
}

/// Stores a new key: in the keychain, or in memory when there is none.
pub fn store_key(update: &KeyUpdate) -> Result<KeyStorage, SettingsError> {
    let key = keys::ApiKey::new(update.key.clone());
    if key.expose().is_empty() {
        return Err(SettingsError::Invalid("the API key is empty".into()));
    }
    Ok(keys::store(update.provider.name(), &key))
}

/// Writes what `update` names into the TOML file at `file` (created if
/// missing), keeping its comments and other keys.
pub fn save(
    file: &Path,
    next: &Config,
    update: &SettingsUpdate,
    root: Option<&Path>,
) -> Result<(), SettingsError> {
    let fail = |message: String| SettingsError::File {
        path: file.to_path_buf(),
        message,
    };
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(fail(e.to_string())),
    };
    // A file that does not load is not edited: the settings screen says
    // which key, which line, and the user fixes the file.
    if !text.trim().is_empty() {
        Config::load_from(Some(file)).map_err(|e| SettingsError::Invalid(e.to_string()))?;
    }
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e| fail(format!("{e}")))?;
    // The open folder's table: the one whose path names it, else a new one.
    let folder_key = root.map(|root| {
        doc.get("folders")
            .and_then(|f| f.as_table_like())
            .and_then(|f| f.iter().map(|(k, _)| k).find(|k| names_folder(k, root)))
            .map_or_else(|| root.display().to_string(), str::to_owned)
    });
    // A key is written only where its value changes: one the file holds
    // already is left as it is, and one it leaves out is added only when
    // the value is not what leaving it out means (the default). A value
    // replaced keeps the comment after it.
    let defaults = serde_json::to_value(Config::default()).expect("serializes");
    let mut set = |path: &[&str], value: Value| -> Result<(), SettingsError> {
        let (last, tables) = path.split_last().expect("a key");
        let held = tables
            .iter()
            .try_fold(doc.as_item(), |item, name| item.get(name))
            .and_then(|table| table.get(last));
        match held {
            Some(item) if item.as_value().is_some_and(|old| same(old, &value)) => return Ok(()),
            None if path.iter().try_fold(&defaults, |v, k| v.get(k)) == Some(&value) => {
                return Ok(());
            }
            _ => {}
        }
        let mut item = toml_edit::ser::to_document(&serde_json::json!({ "v": value }))
            .map_err(|e| fail(e.to_string()))?["v"]
            .clone();
        if let (Some(old), Some(new)) = (held.and_then(|i| i.as_value()), item.as_value_mut()) {
            *new.decor_mut() = old.decor().clone();
        }
        let mut table = doc.as_table_mut();
        for name in tables {
            table = table
                .entry(name)
                .or_insert(toml_edit::table())
                .as_table_mut()
                .ok_or_else(|| fail(format!("`{name}` is not a table")))?;
        }
        // In place: the key keeps the comments above it (`insert` would
        // write a new key without them).
        match table.get_mut(last) {
            Some(slot) => *slot = item,
            None => {
                table.insert(last, item);
            }
        }
        Ok(())
    };
    if update.agent_mode.is_some() {
        set(
            &["agent_mode"],
            serde_json::to_value(next.agent_mode).expect("serializes"),
        )?;
    }
    if update.outside_changes.is_some() {
        set(
            &["outside_changes"],
            serde_json::to_value(next.outside_changes).expect("serializes"),
        )?;
    }
    for (name, given, now) in [
        ("remote", &update.remote, &next.remote),
        ("local", &update.local, &next.local),
    ] {
        if given.is_some() {
            let now = serde_json::to_value(now).expect("serializes");
            for (key, value) in now.as_object().expect("a struct") {
                if !value.is_null() {
                    set(&[name, key], value.clone())?;
                }
            }
        }
    }
    if let Some(changes) = &update.limits {
        let now = serde_json::to_value(&next.limits).expect("serializes");
        for name in changes.keys() {
            set(&["limits", name], now[name].clone())?;
        }
    }
    if let (Some(_), Some(root), Some(key)) = (&update.folder_settings, root, &folder_key) {
        match next.folder(root).and_then(|f| f.outside_changes) {
            Some(mode) => set(
                &["folders", key, "outside_changes"],
                serde_json::to_value(mode).expect("serializes"),
            )?,
            None => {
                if let Some(folders) = doc.get_mut("folders").and_then(|f| f.as_table_like_mut())
                    && let Some(folder) = folders.get_mut(key).and_then(|f| f.as_table_like_mut())
                {
                    folder.remove("outside_changes");
                    if folder.is_empty() {
                        folders.remove(key);
                    }
                }
            }
        }
    }
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| fail(e.to_string()))?;
    }
    let tmp = file.with_extension("toml.tmp");
    std::fs::write(&tmp, doc.to_string())
        .and_then(|()| std::fs::rename(&tmp, file))
        .map_err(|e| fail(e.to_string()))
}

/// Whether the TOML value `old` is `new`.
fn same(old: &toml_edit::Value, new: &Value) -> bool {
    match new {
        Value::String(s) => old.as_str() == Some(s.as_str()),
        Value::Bool(b) => old.as_bool() == Some(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => old.as_integer() == Some(i),
            None => n.as_f64().is_some_and(|f| old.as_float() == Some(f)),
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_change_keeps_the_files_comments_and_other_keys_and_loads_back() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(
            &file,
            "# my settings\n[remote]\nprovider = \"openai\"\nmodel = \"gpt-4o\" # the good one\n\n[limits]\nmax_sessions = 10\n",
        )
        .unwrap();
        let config = Config::load_from(Some(&file)).unwrap();
        let update: SettingsUpdate = serde_json::from_value(json!({
            "agent_mode": "hybrid_auto",
            "outside_changes": "review",
            "local": { "provider": "openai", "model": "qwen3", "base_url": "http://127.0.0.1:8080/v1" },
            "limits": { "max_tool_calls_per_job": 20 },
        }))
        .unwrap();
        let next = updated(&config, &update, None).unwrap();
        save(&file, &next, &update, None).unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            text.contains("# my settings") && text.contains("# the good one"),
            "{text}"
        );
        let loaded = Config::load_from(Some(&file)).unwrap();
        assert_eq!(loaded.agent_mode, AgentMode::HybridAuto);
        assert_eq!(loaded.outside_changes, OutsideMode::Review);
        assert_eq!(loaded.local.model, "qwen3");
        assert_eq!(loaded.remote.model, "gpt-4o");
        assert_eq!(loaded.limits.max_tool_calls_per_job, 20);
        assert_eq!(loaded.limits.max_sessions, 10);
    }

    #[test]
    fn a_save_changes_only_the_lines_whose_values_change() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        let text = "# Redline settings\n# (mine)\n\nagent_mode = \"remote\" # which model\n\n\
            # The hosted provider\n[remote]\n# who\nprovider = \"openai\"\nmodel = \"gpt-4o\" # the good one\n\
            # after the model\n\n# Limits I chose\n[limits]\nmax_sessions = 10 # enough\n# the end\n";
        std::fs::write(&file, text).unwrap();
        let config = Config::load_from(Some(&file)).unwrap();
        let update: SettingsUpdate = serde_json::from_value(json!({
            "agent_mode": "hybrid_auto",
            "remote": { "provider": "openai", "model": "gpt-4.1" },
            "limits": { "max_sessions": 10, "max_tool_calls_per_job": 20 },
        }))
        .unwrap();
        let next = updated(&config, &update, None).unwrap();
        save(&file, &next, &update, None).unwrap();
        let saved = std::fs::read_to_string(&file).unwrap();
        let expected = text
            .replace("agent_mode = \"remote\"", "agent_mode = \"hybrid_auto\"")
            .replace("model = \"gpt-4o\"", "model = \"gpt-4.1\"")
            .replace(
                "max_sessions = 10 # enough\n",
                "max_sessions = 10 # enough\nmax_tool_calls_per_job = 20\n",
            );
        assert_eq!(saved, expected);
        // Saved again unchanged: not a byte moves.
        save(&file, &next, &update, None).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), expected);
    }

    #[test]
    fn a_folder_has_its_own_outside_changes_saved_under_its_path_and_cleared_again() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        let (vault, other) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (root, elsewhere) = (
            std::fs::canonicalize(vault.path()).unwrap(),
            std::fs::canonicalize(other.path()).unwrap(),
        );
        std::fs::write(&file, "outside_changes = \"record\" # quiet\n").unwrap();
        let change = |config: &Config, v: Value| {
            let update: SettingsUpdate = serde_json::from_value(v).unwrap();
            let next = updated(config, &update, Some(&root)).unwrap();
            save(&file, &next, &update, Some(&root)).unwrap();
            Config::load_from(Some(&file)).unwrap()
        };
        let loaded = change(
            &Config::load_from(Some(&file)).unwrap(),
            json!({ "folder_settings": { "outside_changes": "review" } }),
        );
        assert_eq!(loaded.outside_changes_in(&root), OutsideMode::Review);
        assert_eq!(loaded.outside_changes_in(&elsewhere), OutsideMode::Record);
        let shown = view(&loaded, Some(&file), Some(&root));
        assert_eq!(
            shown.folder_settings.outside_changes,
            Some(OutsideMode::Review)
        );
        assert_eq!(shown.outside_changes, OutsideMode::Record);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            text.contains("# quiet") && text.contains("[folders."),
            "{text}"
        );

        // A `null` gives the folder back to the top-level setting.
        let loaded = change(
            &loaded,
            json!({ "folder_settings": { "outside_changes": null } }),
        );
        assert_eq!(loaded.outside_changes_in(&root), OutsideMode::Record);
        assert!(loaded.folders.is_empty(), "{:?}", loaded.folders);
        assert!(
            !std::fs::read_to_string(&file)
                .unwrap()
                .contains("outside_changes = \"review\"")
        );
    }

    #[test]
    fn bad_values_are_refused_with_their_name() {
        let config = Config::default();
        let bad = |v: Value| {
            updated(&config, &serde_json::from_value(v).unwrap(), None)
                .unwrap_err()
                .to_string()
        };
        assert!(bad(json!({ "limits": { "max_bananas": 1 } })).contains("max_bananas"));
        assert_eq!(
            bad(json!({ "limits": { "max_sessions": -1 } })),
            "Sessions kept must be a whole number from 1 to 10,000; -1 is not"
        );
        assert!(
            bad(json!({ "limits": { "max_tool_calls_per_job": 1e23 } })).contains("1e+23 is not")
        );
        assert_eq!(
            bad(
                json!({ "remote": { "provider": "openai", "model": "m", "base_url": "file:///etc" } })
            ),
            "Remote provider: the base URL must start with http:// or https://; `file:///etc` does not"
        );
        assert_eq!(
            bad(json!({ "local": { "provider": "openai", "model": " " } })),
            "Local model: the model name is empty"
        );
        let key = KeyUpdate {
            provider: ProviderKind::Openai,
            key: "sk-secret-value-9876".into(),
        };
        assert_eq!(format!("{key:?}"), "KeyUpdate(Openai, ApiKey(…9876))");
    }

    #[test]
    fn a_file_that_does_not_load_is_not_edited_and_the_refusal_says_where() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        let text =
            "[remote]\nprovider = \"openai\"\nmodel = \"gpt-4o\"\n\n[limits]\nmax_sesions = 10\n";
        std::fs::write(&file, text).unwrap();
        let update: SettingsUpdate =
            serde_json::from_value(json!({ "agent_mode": "local" })).unwrap();
        let next = updated(&Config::default(), &update, None).unwrap();
        let err = save(&file, &next, &update, None).unwrap_err();
        assert!(matches!(err, SettingsError::Invalid(_)), "{err}");
        let message = err.to_string();
        assert!(
            message.contains("max_sesions") && message.contains("(line 6)"),
            "{message}"
        );
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            text,
            "the file is as it was"
        );
    }
}
