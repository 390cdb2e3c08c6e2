//! Configuration: limits and locations.
//!
//! Values come from three layers, each overriding the one before: the built-in
//! defaults (docs/configuration.md#limits), a TOML file, and `REDLINE_*`
//! environment variables. Every limit can be set by name in the environment, for example
//! `REDLINE_MAX_SEARCH_RESULTS_CAP=30` sets `limits.max_search_results_cap`.
//!
//! The TOML file is `$REDLINE_CONFIG` when set, else `config.toml` in the
//! platform's configuration directory (`~/.config/redline/` on Linux). The data
//! directory is `$REDLINE_DATA_DIR` when set, else the platform's application
//! data directory (`~/.local/share/redline/` on Linux).
//!
//! Besides the limits, the file sets the providers (`agent_mode`, `[remote]`,
//! `[local]`, `[hybrid]`, `[http]`), a price table (`[pricing."model*"]`) and
//! agent definitions (`[[agents]]`); nested keys take `__` in the
//! environment (`REDLINE_REMOTE__MODEL=gpt-4.1`). API keys are never part of
//! the configuration: see `providers::keys`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

mod bounds;
mod load;
#[cfg(test)]
mod tests;

pub use bounds::{LimitField, check_caps, check_limit, limit_fields};
pub use load::{ConfigError, config_file};

/// Timeouts and retries of provider calls.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HttpSettings {
    /// Connecting. Default 10 s.
    pub connect_timeout_ms: u64,
    /// Silence inside a response (no byte for this long). Default 120 s.
    pub idle_timeout_ms: u64,
    /// One whole request. Default 10 min.
    pub request_timeout_ms: u64,
    /// Retries of a retryable failure. Default 3.
    pub max_retries: u32,
    /// First backoff; each retry doubles it. Default 500 ms.
    pub backoff_ms: u64,
    /// Longest wait between attempts, `retry-after` included. Default 60 s.
    pub max_backoff_ms: u64,
}

impl Default for HttpSettings {
    fn default() -> Self {
        HttpSettings {
            connect_timeout_ms: 10_000,
            idle_timeout_ms: 120_000,
            request_timeout_ms: 600_000,
            max_retries: 3,
            backoff_ms: 500,
            max_backoff_ms: 60_000,
        }
    }
}

/// Every tunable limit of the engine, with its default.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
#[serde(deny_unknown_fields)]
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
    /// Bytes of text a running project's index holds in memory; files
    /// beyond it are searched from disk. 0 keeps no text. Default 256 MiB.
    pub max_index_text_bytes: u64,
    /// Paths `list_files` returns when the caller names no `limit`. Default 200.
    pub max_list_results_default: usize,
    /// Largest `limit` a listing may ask for. Default 1000.
    pub max_list_results_cap: usize,
    /// How often a polling client asks for events, in milliseconds. Default 2000.
    pub poll_interval_ms: u64,
    /// Lines on each side of an edit's stated range searched for its `old_text`. Default 100.
    pub edit_relocation_window: usize,
    /// Tokens (input and output, all steps) one agent job may use. Default 100,000.
    pub max_token_budget: u64,
    /// Invalid tool calls or refused proposals a job may make before it fails. Default 5.
    pub max_schema_retries: usize,
    /// Most tokens the model may generate in one step. Default 4096.
    pub max_output_tokens: u32,
    /// Sessions kept; the oldest finished ones are purged beyond this. Default 25.
    pub max_sessions: usize,
    /// Jobs kept per session; the oldest finished ones are purged beyond this. Default 40.
    pub max_jobs_per_session: usize,
    /// Events kept per job; assistant text is coalesced to stay under it. Default 3000.
    pub max_events_per_job: usize,
    /// Hours a completed or failed job is kept. Default 72.
    pub completed_ttl_hours: u64,
    /// Tool calls an external agent's job (over MCP) may make before it
    /// proposes: reading ahead is its way of working. Default 200.
    pub max_mcp_calls_per_job: usize,
    /// Tool calls one MCP session may make in all. Default 2000.
    pub max_mcp_calls_per_session: usize,
    /// Proposals one MCP session may stage for review. Default 50.
    pub max_mcp_proposals_per_session: usize,
    /// Model calls a run over many notes (`edit_each_note`) makes at once
    /// on a hosted provider; a local server takes one at a time. Default 4.
    pub fan_out_concurrency: usize,
    /// Notes one such run may take. Default 5000.
    pub fan_out_max_notes: usize,
    /// A run over more notes than this waits for the user's go-ahead.
    /// Default 50.
    pub fan_out_confirm_notes: usize,
    /// A run projected to cost more than this many US cents waits for the
    /// user's go-ahead. Default 100.
    pub fan_out_confirm_cents: u64,
    /// Most tokens the model may generate for one note. Default 1024.
    pub fan_out_output_tokens: u32,
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
            max_index_text_bytes: 256 << 20,
            max_list_results_default: 200,
            max_list_results_cap: 1000,
            poll_interval_ms: 2000,
            edit_relocation_window: 100,
            max_token_budget: 100_000,
            max_schema_retries: 5,
            max_output_tokens: 4096,
            max_sessions: 25,
            max_jobs_per_session: 40,
            max_events_per_job: 3000,
            completed_ttl_hours: 72,
            max_mcp_calls_per_job: 200,
            max_mcp_calls_per_session: 2000,
            max_mcp_proposals_per_session: 50,
            fan_out_concurrency: 4,
            fan_out_max_notes: 5000,
            fan_out_confirm_notes: 50,
            fan_out_confirm_cents: 100,
            fan_out_output_tokens: 1024,
        }
    }
}

/// Which model backend runs jobs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum AgentMode {
    /// The remote provider. The default.
    #[default]
    Remote,
    /// The local provider only.
    Local,
    /// The local provider first, the remote one when a trigger fires.
    HybridAuto,
}

/// A provider's wire format, as the configuration names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    /// OpenAI Chat Completions, or any compatible server (Ollama, LM Studio,
    /// llama.cpp, vLLM) through `base_url`.
    Openai,
    /// Anthropic Messages (or a compatible server through `base_url`).
    Anthropic,
}

impl ProviderKind {
    /// Its name: `openai` or `anthropic` (also the key's keychain entry).
    pub fn name(self) -> &'static str {
        match self {
            ProviderKind::Openai => "openai",
            ProviderKind::Anthropic => "anthropic",
        }
    }

    /// The service's own base URL.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::Openai => "https://api.openai.com/v1",
            ProviderKind::Anthropic => "https://api.anthropic.com",
        }
    }
}

/// One model endpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct ProviderSettings {
    /// Its wire format.
    pub provider: ProviderKind,
    /// The model to ask.
    pub model: String,
    /// Where it is; `None` means the service's own URL.
    #[serde(default)]
    pub base_url: Option<String>,
    /// Sampling temperature; `None` leaves the server's default.
    #[serde(default)]
    pub temperature: Option<f32>,
    /// Ask for a tool call on every step instead of leaving the choice to the
    /// model, with the tools' schemas bounded so that a call fits the step's
    /// output limit (every string, list and number capped). llama.cpp's
    /// server (with `--jinja`) and vLLM then constrain decoding to those
    /// schemas, so every call a small local model makes is valid and ends.
    /// For local servers; the bundled model has it. Default false.
    #[serde(default)]
    pub require_tools: bool,
    /// The most tokens one step may generate, below `limits.max_output_tokens`
    /// (a tiny CPU model that rambles). `None`: the limit alone.
    #[serde(default)]
    pub max_output_tokens: Option<u32>,
}

impl ProviderSettings {
    /// The base URL in force.
    pub fn base_url(&self) -> &str {
        self.base_url
            .as_deref()
            .unwrap_or(self.provider.default_base_url())
    }
}

/// When `hybrid_auto` moves a job from the local to the remote provider
/// (`[hybrid]` in the configuration).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[serde(deny_unknown_fields)]
pub struct HybridSettings {
    /// Local attempts before falling back. Default 1.
    pub max_local_attempts: u32,
    /// Fall back when the local model keeps making invalid calls. Default true.
    pub remote_on_schema_fail: bool,
    /// Fall back when the conversation overflows the local context. Default true.
    pub remote_on_context_overflow: bool,
    /// Fall back when one local step takes longer than this. Default 120 s.
    pub remote_on_timeout_ms: u64,
}

impl Default for HybridSettings {
    fn default() -> Self {
        HybridSettings {
            max_local_attempts: 1,
            remote_on_schema_fail: true,
            remote_on_context_overflow: true,
            remote_on_timeout_ms: 120_000,
        }
    }
}

/// What a model costs, in US dollars per million tokens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// Per million input tokens.
    pub input_per_mtok: f64,
    /// Per million output tokens.
    pub output_per_mtok: f64,
}

/// An agent definition: a named system prompt, the tools it may
/// use, and optionally its own model. The configuration file's `[[agents]]`;
/// the agent module adds the built-in `default` and the tool check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct AgentDefinition {
    /// Its id, e.g. `default`.
    pub agent_id: String,
    /// The name people see.
    pub display_name: String,
    /// What it is for.
    #[serde(default)]
    pub description: String,
    /// Its instructions, put before Redline's own rules.
    #[serde(default)]
    pub system_prompt: String,
    /// Glob patterns of the tools it may use; `None` allows all.
    #[serde(default)]
    pub tool_allowlist: Option<Vec<String>>,
    /// Glob patterns of tools it may not use, applied after the allowlist.
    #[serde(default)]
    pub tool_denylist: Option<Vec<String>>,
    /// A model of the provider in force to use instead of the configured one.
    #[serde(default)]
    pub model: Option<String>,
}

/// How other programs' changes are taken in (`outside_changes` in the
/// configuration).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum OutsideMode {
    /// Kept as they are and listed, each hunk revertible; destructive ones
    /// (a file deleted, emptied or cut by half) held pending. The default: it is
    /// quiet for the user's own editor.
    #[default]
    Record,
    /// Every change held pending until decided: for while an agent works
    /// in a terminal beside Redline.
    Review,
    /// Not taken in (files still reload as today).
    Off,
}

/// Settings of one folder (`[folders."/home/me/Notes"]`), over the
/// top-level ones while that folder is open.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FolderSettings {
    /// `outside_changes` in this folder; unset: the top-level one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside_changes: Option<OutsideMode>,
    /// The notes of this folder no proposal may change; unset: the
    /// top-level `[protected]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protected: Option<Protected>,
}

/// Notes no proposal may change, whatever the prompt said: an agent's
/// edits, an operation's, an MCP client's. Refused at staging with the
/// reason. The user's own typing is never refused. Default: none.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Protected {
    /// Globs over paths from the folder's root (`Journal/**`, `*.canvas`).
    pub globs: Vec<String>,
    /// A front matter property that protects a note when it is `true`
    /// (`locked: true` with `property = "locked"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub property: Option<String>,
}

/// The whole configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Where Redline keeps its own state. `None` means the platform default.
    pub data_dir: Option<PathBuf>,
    /// Engine limits.
    pub limits: Limits,
    /// Which provider runs jobs. Default `remote`.
    pub agent_mode: AgentMode,
    /// What becomes of changes other programs write to the open folder:
    /// `record` (default), `review` or `off` (see [`OutsideMode`]).
    pub outside_changes: OutsideMode,
    /// Settings of particular folders, by path (absolute, or from `~/`),
    /// over the top-level ones. Default none.
    pub folders: std::collections::BTreeMap<String, FolderSettings>,
    /// The remote provider. Default OpenAI `gpt-4o-mini`.
    pub remote: ProviderSettings,
    /// The local provider. Default Ollama's OpenAI endpoint on its own port.
    pub local: ProviderSettings,
    /// Hybrid fallback triggers.
    pub hybrid: HybridSettings,
    /// Provider timeouts and retries.
    pub http: HttpSettings,
    /// Prices by model name (a trailing `*` matches a prefix), for cost
    /// estimates. Defaults cover a few common models; unknown ones cost 0.
    pub pricing: std::collections::BTreeMap<String, Price>,
    /// Agent definitions besides the built-in `default` (`[[agents]]`).
    pub agents: Vec<AgentDefinition>,
    /// Notes no proposal may change (`[protected]`). Default none.
    pub protected: Protected,
}

impl Default for Config {
    fn default() -> Self {
        let price = |input_per_mtok, output_per_mtok| Price {
            input_per_mtok,
            output_per_mtok,
        };
        Config {
            data_dir: None,
            limits: Limits::default(),
            agent_mode: AgentMode::default(),
            outside_changes: OutsideMode::default(),
            folders: Default::default(),
            remote: ProviderSettings {
                provider: ProviderKind::Openai,
                model: "gpt-4o-mini".into(),
                base_url: None,
                temperature: None,
                require_tools: false,
                max_output_tokens: None,
            },
            local: ProviderSettings {
                provider: ProviderKind::Openai,
                model: "llama3.2".into(),
                base_url: Some("http://127.0.0.1:11434/v1".into()),
                temperature: Some(0.0),
                require_tools: false,
                max_output_tokens: None,
            },
            hybrid: HybridSettings::default(),
            http: HttpSettings::default(),
            pricing: [
                ("gpt-4o-mini*", price(0.15, 0.60)),
                ("gpt-4o*", price(2.50, 10.00)),
                ("gpt-4.1-mini*", price(0.40, 1.60)),
                ("gpt-4.1*", price(2.00, 8.00)),
                ("claude-haiku-4-5*", price(1.00, 5.00)),
                ("claude-sonnet-4*", price(3.00, 15.00)),
                ("claude-opus-4*", price(15.00, 75.00)),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
            agents: Vec::new(),
            protected: Protected::default(),
        }
    }
}

impl Config {
    /// The key under `folders` of the entry that names the folder at
    /// `root` itself, if there is one.
    pub fn folder_key(&self, root: &Path) -> Option<&str> {
        self.folders
            .keys()
            .find(|path| names_folder(path, root))
            .map(String::as_str)
    }

    /// The settings of the folder at `root`, if it has any.
    pub fn folder(&self, root: &Path) -> Option<&FolderSettings> {
        self.folders.get(self.folder_key(root)?)
    }

    /// `outside_changes` in force in the folder at `root`: its own, else
    /// the top-level one.
    pub fn outside_changes_in(&self, root: &Path) -> OutsideMode {
        self.folder(root)
            .and_then(|f| f.outside_changes)
            .unwrap_or(self.outside_changes)
    }

    /// The protected notes in force in the folder at `root`: its own, else
    /// the top-level ones.
    pub fn protected_in(&self, root: &Path) -> &Protected {
        self.folder(root)
            .and_then(|f| f.protected.as_ref())
            .unwrap_or(&self.protected)
    }

    /// The estimated cost in US dollars of `input` and `output` tokens of
    /// `model`: the exact entry, else the longest matching prefix entry.
    pub fn cost_usd(&self, model: &str, input: u64, output: u64) -> f64 {
        let price = self.pricing.get(model).or_else(|| {
            self.pricing
                .iter()
                .filter_map(|(k, v)| Some((k.strip_suffix('*')?, v)))
                .filter(|(prefix, _)| model.starts_with(prefix))
                .max_by_key(|(prefix, _)| prefix.len())
                .map(|(_, v)| v)
        });
        price.map_or(0.0, |p| {
            (input as f64 * p.input_per_mtok + output as f64 * p.output_per_mtok) / 1e6
        })
    }
}

/// Whether `path`, as written under `folders` (absolute, or from `~/`),
/// names the folder `root` (resolved, as a project's root is).
pub(crate) fn names_folder(path: &str, root: &Path) -> bool {
    let path = match path.strip_prefix("~/") {
        Some(rest) => match directories::BaseDirs::new() {
            Some(dirs) => dirs.home_dir().join(rest),
            None => return false,
        },
        None => PathBuf::from(path),
    };
    path == root || std::fs::canonicalize(&path).is_ok_and(|p| p == root)
}
