//! The provider chain of a job: the models `agent_mode` calls for, in the
//! order they are tried, built from the configuration, each with what must
//! hold before it is sent anything (a key, a server that answers).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use crate::config::{AgentMode, Config, ProviderSettings};
use crate::providers::http::HttpProvider;
use crate::providers::{Provider, ProviderError, detect, keys};

/// One provider of the chain.
#[derive(Clone)]
pub(super) struct Link {
    pub(super) provider: Arc<dyn Provider>,
    /// The hybrid step timeout it runs under, if any.
    pub(super) step_timeout: Option<Duration>,
    needs: Needs,
}

/// What must hold before a provider is sent a request.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Needs {
    /// Nothing to check: it has a key, or it was built by hand.
    Nothing,
    /// A key: it is a hosted service at its own URL and none was found.
    Key(&'static str),
    /// An answer at this base URL: a local or compatible server, no key.
    Answer(String),
}

/// The models a job may use, in the order `agent_mode` tries them.
#[derive(Clone, Default)]
pub struct ProviderChain {
    pub(super) chain: Vec<Link>,
}

impl std::fmt::Debug for ProviderChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(
                self.chain
                    .iter()
                    .map(|l| (l.provider.name(), l.provider.model(), &l.needs)),
            )
            .finish()
    }
}

impl ProviderChain {
    /// A chain of `provider` alone, used as it is.
    pub fn single(provider: Arc<dyn Provider>) -> ProviderChain {
        ProviderChain {
            chain: vec![Link {
                provider,
                step_timeout: None,
                needs: Needs::Nothing,
            }],
        }
    }

    /// The chain `config.agent_mode` calls for: remote; local; or local
    /// (`hybrid.max_local_attempts` times, each step under the hybrid
    /// timeout) then remote. Keys come from the environment or keychain.
    pub fn from_config(config: &Config) -> Result<ProviderChain, ProviderError> {
        let build = |name: &str, settings: &ProviderSettings, keyed: bool, timeout| {
            let key = keyed
                .then(|| keys::lookup(settings.provider.name()))
                .flatten();
            let own_url = settings
                .base_url
                .as_deref()
                .is_none_or(|u| u.trim_end_matches('/') == settings.provider.default_base_url());
            let needs = match (&key, own_url) {
                (Some(_), _) => Needs::Nothing,
                (None, true) => Needs::Key(settings.provider.name()),
                (None, false) => Needs::Answer(settings.base_url().to_owned()),
            };
            let provider = HttpProvider::new(
                name,
                settings.provider.into(),
                settings.base_url(),
                &settings.model,
                key,
                config.http.clone(),
            )?
            .with_temperature(settings.temperature)
            .with_required_tools(settings.require_tools)
            .with_max_output_tokens(settings.max_output_tokens);
            Ok::<_, ProviderError>(Link {
                provider: Arc::new(provider),
                step_timeout: timeout,
                needs,
            })
        };
        let remote = || build(config.remote.provider.name(), &config.remote, true, None);
        let local = |timeout| build("local", &config.local, false, timeout);
        let chain = match config.agent_mode {
            AgentMode::Remote => vec![remote()?],
            AgentMode::Local => vec![local(None)?],
            AgentMode::HybridAuto => {
                let timeout = Some(Duration::from_millis(config.hybrid.remote_on_timeout_ms));
                let mut chain: Vec<_> = (0..config.hybrid.max_local_attempts.max(1))
                    .map(|_| local(timeout))
                    .collect::<Result<_, _>>()?;
                chain.push(remote()?);
                chain
            }
        };
        Ok(ProviderChain { chain })
    }

    /// A chain of exactly these providers, each with its hybrid step timeout
    /// (tests, embedding); nothing is checked before they are used.
    pub fn new(chain: Vec<(Arc<dyn Provider>, Option<Duration>)>) -> ProviderChain {
        ProviderChain {
            chain: chain
                .into_iter()
                .map(|(provider, step_timeout)| Link {
                    provider,
                    step_timeout,
                    needs: Needs::Nothing,
                })
                .collect(),
        }
    }

    /// The same chain with each provider wrapped by `wrap` (a recorder, say).
    pub fn wrap(self, wrap: impl Fn(Arc<dyn Provider>) -> Arc<dyn Provider>) -> ProviderChain {
        ProviderChain {
            chain: self
                .chain
                .into_iter()
                .map(|l| Link {
                    provider: wrap(l.provider),
                    ..l
                })
                .collect(),
        }
    }

    /// Whether a job can run now (some provider of the chain can be used:
    /// a job passes over those that cannot), and why not for each that
    /// cannot (`name: reason`). Probes each server once.
    pub async fn check(&self) -> Readiness {
        let mut checked = Checked::default();
        let mut readiness = Readiness::default();
        for link in &self.chain {
            match checked.usable(link).await {
                Ok(()) => readiness.ready = true,
                Err(why) => {
                    let problem = format!("{}: {why}", link.provider.name());
                    if !readiness.problems.contains(&problem) {
                        readiness.problems.push(problem);
                    }
                }
            }
        }
        readiness
    }
}

/// Whether a job can run now, and what stands in the way of each provider
/// that cannot be used.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Readiness {
    /// Some provider of the chain can be used.
    pub ready: bool,
    /// `name: reason` for each that cannot (in hybrid mode, a job runs on
    /// the other one).
    pub problems: Vec<String>,
}

/// The answers of readiness checks already made (a hybrid chain names the
/// same local server once per local attempt).
#[derive(Default)]
pub(super) struct Checked(HashMap<Needs, Result<(), String>>);

impl Checked {
    /// Whether `link` can be sent a request now; if not, why not.
    pub(super) async fn usable(&mut self, link: &Link) -> Result<(), String> {
        if let Some(known) = self.0.get(&link.needs) {
            return known.clone();
        }
        let verdict = match &link.needs {
            Needs::Nothing => Ok(()),
            Needs::Key(provider) => Err(match keys::env_var(provider) {
                Some(var) => format!("no API key (set {var}, or add one in Settings)"),
                None => "no API key (add one in Settings)".to_owned(),
            }),
            Needs::Answer(url) => detect::answers(url).await.map_err(|e| e.to_string()),
        };
        self.0.insert(link.needs.clone(), verdict.clone());
        verdict
    }
}

/// What a job that found no usable provider says: each problem, then the
/// ways to fix it.
pub(super) fn no_provider_message(problems: &[String]) -> String {
    if problems.is_empty() {
        return "No model provider is configured.".into();
    }
    format!(
        "No model provider can be used: {}. To fix it: set OPENAI_API_KEY or \
         ANTHROPIC_API_KEY (or add a key in Settings); or start a local model \
         server (Ollama, LM Studio, llama.cpp's server, vLLM) and choose it in \
         Settings; or start the bundled offline model with \
         `scripts/llama-server start` and use its URL as the local provider.",
        problems.join("; ")
    )
}
