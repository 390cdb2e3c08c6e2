//! API keys: where they come from, and a type that never shows them.
//!
//! A key comes from the provider's environment variable (`OPENAI_API_KEY`,
//! `ANTHROPIC_API_KEY`) or, failing that, from the OS keychain (service
//! `redline`, user = the provider's name). [`ApiKey`] prints only a hint of
//! its last four characters, and is not `Serialize`, so it cannot reach an
//! event, a trace, a log line or an API response by accident.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

/// The keychain service name Redline's keys are stored under.
pub const KEYCHAIN_SERVICE: &str = "redline";

/// A secret API key. `Debug` and `Display` show only [`ApiKey::hint`].
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key; surrounding whitespace (a pasted newline) is dropped.
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into().trim().to_owned())
    }

    /// The key itself, for the one place that needs it: a request header.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// `…` and the last four characters, for showing which key is set.
    pub fn hint(&self) -> String {
        let chars: Vec<char> = self.0.chars().collect();
        let tail: String = chars[chars.len().saturating_sub(4)..].iter().collect();
        format!("…{tail}")
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKey({})", self.hint())
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.hint())
    }
}

/// The environment variable holding `provider`'s key, if it has one.
pub fn env_var(provider: &str) -> Option<&'static str> {
    match provider {
        "openai" => Some("OPENAI_API_KEY"),
        "anthropic" => Some("ANTHROPIC_API_KEY"),
        _ => None,
    }
}

/// Keys given through the settings while no keychain could be reached:
/// they last until the process ends.
static IN_MEMORY: Mutex<BTreeMap<String, ApiKey>> = Mutex::new(BTreeMap::new());

/// Where a stored key went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum KeyStorage {
    /// The OS keychain (service `redline`).
    Keychain,
    /// This process's memory: no keychain could be reached.
    Memory,
}

/// The key for `provider`: its environment variable, else one given in this
/// run, else the keychain. `None` when none has one (local servers need
/// none). A keychain that cannot be reached (no secret service running, or
/// `REDLINE_NO_KEYCHAIN` set) counts as empty.
pub fn lookup(provider: &str) -> Option<ApiKey> {
    if let Some(key) = env_var(provider)
        .and_then(|v| std::env::var(v).ok())
        .filter(|k| !k.trim().is_empty())
    {
        return Some(ApiKey::new(key));
    }
    if let Some(key) = IN_MEMORY
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(provider)
    {
        return Some(key.clone());
    }
    if std::env::var_os("REDLINE_NO_KEYCHAIN").is_some() {
        return None;
    }
    match keyring::Entry::new(KEYCHAIN_SERVICE, provider).and_then(|e| e.get_password()) {
        Ok(key) if !key.trim().is_empty() => Some(ApiKey::new(key)),
        Ok(_) | Err(keyring::Error::NoEntry) => None,
        Err(e) => {
            tracing::debug!(provider, error = %e, "the keychain could not be read");
            None
        }
    }
}

/// Whether the OS keychain answers (a read of an entry that need not
/// exist): `Err` says why not. `REDLINE_NO_KEYCHAIN` makes it unreachable.
pub fn keychain_reachable() -> Result<(), String> {
    if std::env::var_os("REDLINE_NO_KEYCHAIN").is_some() {
        return Err("REDLINE_NO_KEYCHAIN is set".into());
    }
    match keyring::Entry::new(KEYCHAIN_SERVICE, "doctor").and_then(|e| e.get_password()) {
        Ok(_) | Err(keyring::Error::NoEntry) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

/// Stores `key` for `provider` in the OS keychain, or, when none can be
/// reached (or `REDLINE_NO_KEYCHAIN` is set), in memory for this run. The key
/// is used from now on either way (an environment variable still wins).
pub fn store(provider: &str, key: &ApiKey) -> KeyStorage {
    IN_MEMORY
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(provider.to_owned(), key.clone());
    if std::env::var_os("REDLINE_NO_KEYCHAIN").is_some() {
        return KeyStorage::Memory;
    }
    match keyring::Entry::new(KEYCHAIN_SERVICE, provider).and_then(|e| e.set_password(key.expose()))
    {
        Ok(()) => KeyStorage::Keychain,
        Err(e) => {
            tracing::warn!(provider, error = %e, "no keychain: the key is kept in memory for this run");
            KeyStorage::Memory
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_shows_only_its_hint() {
        let key = ApiKey::new("sk-test-abcdefgh1234\n");
        assert_eq!(key.expose(), "sk-test-abcdefgh1234");
        assert_eq!(format!("{key}"), "…1234");
        assert_eq!(format!("{key:?}"), "ApiKey(…1234)");
        assert_eq!(ApiKey::new("ab").hint(), "…ab");
    }
}
