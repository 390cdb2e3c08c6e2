//! The provider chain of a job: the models `agent_mode` calls for, in the
//! order they are tried, built from the configuration.

use std::sync::Arc;
use std::time::Duration;

use crate::config::{AgentMode, Config, ProviderSettings};
use crate::providers::http::HttpProvider;
use crate::providers::{Provider, ProviderError, keys};

/// The models a job may use, in the order `agent_mode` tries them.
#[derive(Clone, Default)]
pub struct Providers {
    /// Tried in order; each with the hybrid step timeout it runs under.
    pub(super) chain: Vec<(Arc<dyn Provider>, Option<Duration>)>,
}

impl std::fmt::Debug for Providers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.chain.iter().map(|(p, _)| (p.name(), p.model())))
            .finish()
    }
}

impl Providers {
    /// The chain `config.agent_mode` calls for: remote; local; or local
    /// (`hybrid.max_local_attempts` times, each step under the hybrid
    /// timeout) then remote. Keys come from the environment or keychain.
    pub fn from_config(config: &Config) -> Result<Providers, ProviderError> {
        let build = |name: &str, settings: &ProviderSettings, key: bool| {
            let key = key
                .then(|| keys::lookup(settings.provider.name()))
                .flatten();
            HttpProvider::new(
                name,
                settings.provider.protocol(),
                settings.base_url(),
                &settings.model,
                key,
                config.http.clone(),
            )
            .map(|p| {
                Arc::new(
                    p.with_temperature(settings.temperature)
                        .with_required_tools(settings.require_tools),
                ) as Arc<dyn Provider>
            })
        };
        let remote = || build(config.remote.provider.name(), &config.remote, true);
        let local = || build("local", &config.local, false);
        let chain = match config.agent_mode {
            AgentMode::Remote => vec![(remote()?, None)],
            AgentMode::Local => vec![(local()?, None)],
            AgentMode::HybridAuto => {
                let timeout = Some(Duration::from_millis(config.hybrid.remote_on_timeout_ms));
                let mut chain: Vec<_> = (0..config.hybrid.max_local_attempts.max(1))
                    .map(|_| local().map(|p| (p, timeout)))
                    .collect::<Result<_, _>>()?;
                chain.push((remote()?, None));
                chain
            }
        };
        Ok(Providers { chain })
    }

    /// A chain of exactly these providers (tests, embedding).
    pub fn new(chain: Vec<(Arc<dyn Provider>, Option<Duration>)>) -> Providers {
        Providers { chain }
    }

    /// The same chain with each provider wrapped by `wrap` (a recorder, say).
    pub fn wrap(self, wrap: impl Fn(Arc<dyn Provider>) -> Arc<dyn Provider>) -> Providers {
        Providers {
            chain: self.chain.into_iter().map(|(p, t)| (wrap(p), t)).collect(),
        }
    }
}
