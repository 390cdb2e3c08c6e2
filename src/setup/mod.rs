//! First run: whether a job can run now, and if not, the ways to make it
//! run that this machine offers — local model servers that answer, keys in
//! the environment, the bundled offline model — each turned into the
//! settings change that uses it.

pub mod bundled;

use serde::{Deserialize, Serialize};

use crate::config::{AgentMode, Config, ProviderKind, ProviderSettings};
use crate::providers::detect::LocalServer;
use crate::providers::keys;
use crate::settings::{KeyUpdate, SettingsUpdate};

/// Where the bundled server listens, when `scripts/run` started it.
pub const BUNDLED_URL_VAR: &str = "REDLINE_BUNDLED_MODEL_URL";

/// What the setup card shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Setup {
    /// Whether the configured providers can run a job now.
    pub ready: bool,
    /// What stands in the way, one line per provider that cannot be used
    /// (`local: …`); in hybrid mode a job runs on the other one.
    pub problems: Vec<String>,
    /// The mode in force.
    pub agent_mode: AgentMode,
    /// Local model servers that answered on this machine.
    pub local_servers: Vec<LocalServer>,
    /// Providers whose key is set in the environment.
    pub env_keys: Vec<EnvKey>,
    /// The bundled offline model, when it runs or is built.
    pub bundled: Option<Bundled>,
}

/// A provider key found in the environment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EnvKey {
    /// Whose key.
    pub provider: ProviderKind,
    /// The variable it is in.
    pub env_var: String,
    /// The model choosing it uses.
    pub model: String,
}

/// The bundled model: llama.cpp's server with SmolLM2-135M, built by
/// `scripts/llama-server`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Bundled {
    /// Its OpenAI-compatible base URL.
    pub base_url: String,
    /// Whether it answers now; choosing it starts it when not.
    pub running: bool,
    /// The model name sent.
    pub model: String,
    /// What people are told it is.
    pub label: String,
}

/// One way to get a working provider, as the setup card offers it.
#[derive(Clone, Debug, Deserialize, Serialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SetupChoice {
    /// A local server that answered: `agent_mode = "local"` on it.
    LocalServer {
        /// Its base URL.
        base_url: String,
        /// Which of its models.
        model: String,
    },
    /// A hosted provider whose key is in the environment or given here:
    /// `agent_mode = "remote"` on it.
    Remote {
        /// Which provider.
        provider: ProviderKind,
        /// A key to store (keychain, else memory); `None` when it is in the
        /// environment.
        #[serde(default)]
        key: Option<String>,
    },
    /// The bundled offline model, with the settings a tiny model needs.
    Bundled,
}

/// Why a choice cannot be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// The bundled model is neither running nor built.
    #[error(
        "the bundled model is not built (run `scripts/run --offline`, or `scripts/llama-server build`)"
    )]
    NoBundled,
    /// The bundled model's server did not start.
    #[error("the bundled model did not start: {0}")]
    Start(String),
    /// A field is empty.
    #[error("{0}")]
    Invalid(String),
}

/// The model a hosted provider is set to when chosen here.
pub fn default_model(provider: ProviderKind) -> &'static str {
    match provider {
        ProviderKind::Openai => "gpt-4o-mini",
        ProviderKind::Anthropic => "claude-haiku-4-5",
    }
}

/// The model choosing `provider`'s key uses: the one configured for it
/// when it is configured at its own service, else [`default_model`].
pub fn offered_model(provider: ProviderKind, config: &Config) -> String {
    let configured = &config.remote;
    if configured.provider == provider && configured.base_url.is_none() {
        configured.model.clone()
    } else {
        default_model(provider).to_owned()
    }
}

/// Providers with a non-empty key in their environment variable, each with
/// the model choosing it uses.
pub fn env_keys(config: &Config) -> Vec<EnvKey> {
    [ProviderKind::Openai, ProviderKind::Anthropic]
        .into_iter()
        .filter_map(|provider| {
            let var = keys::env_var(provider.name())?;
            let set = std::env::var(var).is_ok_and(|v| !v.trim().is_empty());
            set.then(|| EnvKey {
                provider,
                env_var: var.to_owned(),
                model: offered_model(provider, config),
            })
        })
        .collect()
}

/// The bundled model: where `REDLINE_BUNDLED_MODEL_URL` says it runs (set
/// by `scripts/run`), else on its fixed port ([`bundled::port`]) when
/// `scripts/llama-server` has built it; `None` when neither.
pub async fn bundled() -> Option<Bundled> {
    let given = std::env::var(BUNDLED_URL_VAR)
        .ok()
        .map(|u| u.trim().trim_end_matches('/').to_owned())
        .filter(|u| !u.is_empty());
    let url = match given {
        Some(url) => url,
        None => {
            bundled::cache()?;
            format!("http://127.0.0.1:{}", bundled::port())
        }
    };
    let base_url = if url.ends_with("/v1") {
        url
    } else {
        format!("{url}/v1")
    };
    Some(Bundled {
        running: crate::providers::detect::answers(&base_url).await.is_ok(),
        base_url,
        model: "smollm2-135m".into(),
        label: "SmolLM2-135M, the bundled offline demo model: tiny, on the CPU, \
                no key and no network. It gets simple edits right only sometimes."
            .into(),
    })
}

/// The bundled model, started from its cache when it is not running yet.
pub async fn start_bundled() -> Result<Bundled, SetupError> {
    let found = bundled().await.ok_or(SetupError::NoBundled)?;
    if found.running {
        return Ok(found);
    }
    let cache = bundled::cache().ok_or(SetupError::NoBundled)?;
    let pid = bundled::start(&cache, bundled::port()).await?;
    tracing::info!(pid, url = %found.base_url, "started the bundled model");
    Ok(Bundled {
        running: true,
        ..found
    })
}

/// The settings change `choice` stands for, on top of `config`; `bundled`
/// is where the bundled model runs (needed only to choose it).
pub fn update_for(
    choice: &SetupChoice,
    config: &Config,
    bundled: Option<&Bundled>,
) -> Result<SettingsUpdate, SetupError> {
    let nonempty = |what: &str, value: &str| {
        if value.trim().is_empty() {
            Err(SetupError::Invalid(format!("the {what} is empty")))
        } else {
            Ok(())
        }
    };
    let local = |base_url: &str, model: &str| ProviderSettings {
        provider: ProviderKind::Openai,
        model: model.trim().to_owned(),
        base_url: Some(base_url.trim().to_owned()),
        ..config.local.clone()
    };
    Ok(match choice {
        SetupChoice::LocalServer { base_url, model } => {
            nonempty("server URL", base_url)?;
            nonempty("model", model)?;
            SettingsUpdate {
                agent_mode: Some(AgentMode::Local),
                local: Some(local(base_url, model)),
                ..SettingsUpdate::default()
            }
        }
        SetupChoice::Remote { provider, key } => {
            if let Some(key) = key {
                nonempty("API key", key)?;
            }
            // Exactly what the offer names: the provider at its own
            // service, with the model it said (a base URL set for another
            // server would send the key there); its other settings kept.
            let mut remote = if config.remote.provider == *provider {
                config.remote.clone()
            } else {
                ProviderSettings {
                    provider: *provider,
                    model: String::new(),
                    base_url: None,
                    temperature: None,
                    require_tools: false,
                    max_output_tokens: None,
                }
            };
            remote.model = offered_model(*provider, config);
            remote.base_url = None;
            SettingsUpdate {
                agent_mode: Some(AgentMode::Remote),
                remote: Some(remote),
                api_key: key.as_ref().map(|key| KeyUpdate {
                    provider: *provider,
                    key: key.clone(),
                }),
                ..SettingsUpdate::default()
            }
        }
        SetupChoice::Bundled => {
            let bundled = bundled.ok_or(SetupError::NoBundled)?;
            SettingsUpdate {
                agent_mode: Some(AgentMode::Local),
                local: Some(ProviderSettings {
                    temperature: Some(0.0),
                    require_tools: true,
                    max_output_tokens: Some(256),
                    ..local(&bundled.base_url, &bundled.model)
                }),
                ..SettingsUpdate::default()
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_choice_is_the_settings_change_it_names() {
        let config = Config::default();
        let local = update_for(
            &SetupChoice::LocalServer {
                base_url: "http://127.0.0.1:1234/v1".into(),
                model: "qwen2.5-7b-instruct".into(),
            },
            &config,
            None,
        )
        .unwrap();
        assert_eq!(local.agent_mode, Some(AgentMode::Local));
        let settings = local.local.unwrap();
        assert_eq!(
            settings.base_url.as_deref(),
            Some("http://127.0.0.1:1234/v1")
        );
        assert_eq!(settings.model, "qwen2.5-7b-instruct");
        assert!(local.remote.is_none() && local.api_key.is_none());

        let anthropic = update_for(
            &SetupChoice::Remote {
                provider: ProviderKind::Anthropic,
                key: Some("sk-ant-test-1234".into()),
            },
            &config,
            None,
        )
        .unwrap();
        assert_eq!(anthropic.agent_mode, Some(AgentMode::Remote));
        let remote = anthropic.remote.unwrap();
        assert_eq!(
            (remote.provider, remote.model.as_str(), remote.base_url),
            (ProviderKind::Anthropic, "claude-haiku-4-5", None)
        );
        assert_eq!(anthropic.api_key.unwrap().key, "sk-ant-test-1234");
        // OpenAI chosen: its configured model is kept, at OpenAI's own
        // service, as the offer says; set for another server, the offer
        // and the choice are OpenAI's default model at OpenAI.
        let openai = SetupChoice::Remote {
            provider: ProviderKind::Openai,
            key: None,
        };
        let chosen = update_for(&openai, &config, None).unwrap();
        assert_eq!(chosen.remote.unwrap(), config.remote);
        let mut elsewhere = config.clone();
        elsewhere.remote.model = "qwen3".into();
        elsewhere.remote.base_url = Some("http://127.0.0.1:9/v1".into());
        elsewhere.remote.temperature = Some(0.2);
        let offered = offered_model(ProviderKind::Openai, &elsewhere);
        assert_eq!(offered, "gpt-4o-mini");
        let remote = update_for(&openai, &elsewhere, None)
            .unwrap()
            .remote
            .unwrap();
        assert_eq!(
            (remote.model.as_str(), remote.base_url, remote.temperature),
            (offered.as_str(), None, Some(0.2))
        );

        let empty = SetupChoice::Remote {
            provider: ProviderKind::Openai,
            key: Some("  ".into()),
        };
        assert!(
            update_for(&empty, &config, None)
                .unwrap_err()
                .to_string()
                .contains("API key")
        );
        let no_model = SetupChoice::LocalServer {
            base_url: "http://127.0.0.1:8080/v1".into(),
            model: String::new(),
        };
        assert!(
            update_for(&no_model, &config, None)
                .unwrap_err()
                .to_string()
                .contains("model")
        );
    }
}
