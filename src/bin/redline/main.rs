//! The `redline` command line: a thin edge over the library.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use redline::config::Config;
use redline::project::Project;
use redline::{testkit::vaultgen, tools};

mod eval;
mod hook;
mod run_job;

/// This build's version line: the version, and the commit and day it was
/// built from (see `redline::about`).
static VERSION: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| redline::about::about().to_string());

/// Redline: project-wide agent edits, reviewed hunk by hunk.
#[derive(Parser)]
#[command(name = "redline", version = VERSION.as_str(), about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Open a folder and print what Redline sees in it.
    Open {
        /// The project folder.
        folder: PathBuf,
    },
    /// Run one tool exactly as the agent would and print its JSON result.
    ///
    /// Errors are printed as JSON too, `{"error": {"code", "message"}}`, with exit status 1.
    Tool {
        /// search_project, read_file or list_files.
        name: String,
        /// The project folder.
        folder: PathBuf,
        /// The arguments, a JSON object.
        #[arg(default_value = "{}")]
        arguments: String,
    },
    /// Check a list of edits against a folder and print the diff bundle; writes nothing.
    ///
    /// EDITS is a JSON file (or `-` for standard input) holding a list of edits, or
    /// `{"edits": [...]}`. Refused edits are printed as JSON, with exit status 1.
    Propose {
        /// The project folder.
        folder: PathBuf,
        /// The edits.
        edits: PathBuf,
    },
    /// Run one agent job on a folder and print its events as JSON lines.
    ///
    /// Questions the agent asks are answered from standard input, one line
    /// each (an empty line skips the question). The job ends by printing its
    /// diff bundle. Exit status: 0 when edits await review or nothing needed
    /// to change, 1 when the job failed or was cancelled, 3 when a budget
    /// ended it.
    Run {
        /// The project folder.
        folder: PathBuf,
        /// What to do.
        instruction: String,
        #[command(flatten)]
        flags: ProviderFlags,
        /// Tool calls allowed (default: limits.max_tool_calls_per_job).
        #[arg(long)]
        max_tool_calls: Option<usize>,
    },
    /// Serve the API for a folder on loopback, with a random per-launch token.
    ///
    /// Prints the URL (token included) and serves until killed.
    Serve {
        /// The project folder.
        folder: PathBuf,
        /// Loopback port (0 picks a free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// The built UI to serve (default: this checkout's `ui/dist`, if built).
        #[arg(long)]
        ui: Option<PathBuf>,
    },
    /// Serve a folder to another agent over MCP (standard input and output):
    /// its edits are staged for review in Redline, hunk by hunk. When a
    /// `redline serve` or the app has the folder open, the calls go to it,
    /// so proposals show live in the open review.
    ///
    /// Register it with an agent as a stdio server, e.g. for Claude Code:
    /// `claude mcp add redline -- redline mcp /path/to/notes`.
    Mcp {
        /// The project folder.
        folder: PathBuf,
    },
    /// A terminal agent's PreToolUse hook (Claude Code's, Codex's): each
    /// write it is about to make is reviewed in the Redline that has the
    /// folder open, and the agent is answered with what the user decided
    /// (the write let through with the decided text, or refused with the
    /// reason). `redline hook install claude-code|codex FOLDER` sets it up.
    Hook(hook::HookArgs),
    /// Serve a scripted model over HTTP, in the OpenAI and Anthropic wire
    /// formats, for tests and demos without a real model.
    ///
    /// SCRIPT is a JSON list of turns (see `redline::testkit::scripted::Turn`). Prints
    /// the base URL, then serves until killed.
    ScriptedModel {
        /// The script.
        script: PathBuf,
        /// Loopback port (0 picks a free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
    /// Run the eval suite and print its metrics; `eval report`
    /// draws a page comparing results.
    ///
    /// Each task runs through the real runtime in a copy of its folder; the
    /// oracle reviews the hunks, they are applied, and the task's checks run
    /// on disk. A progress line per task, the summary per run, and with
    /// `--json` the results as JSON.
    Eval(EvalArgs),
    /// Print every tool's name, description and JSON schema.
    Tools,
    /// Print the configuration in force, as TOML.
    Config,
    /// Check what this machine needs to run Redline, and say how to fix
    /// each miss in one line: the desktop window's WebKitGTK, a keychain,
    /// the file watch limit against FOLDER's folders, the data directory,
    /// a local model server. Exit status 1 when something is missing.
    Doctor {
        /// The vault to check the file watch limit against (default: none).
        folder: Option<PathBuf>,
        /// Print the checks as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print the man page (roff) or a shell's completions, generated from
    /// this command line's own definition.
    Generate {
        /// What to print.
        #[arg(value_enum)]
        what: Generated,
    },
    /// Write a deterministic vault of generated notes, for tests and benchmarks.
    GenVault {
        /// Where to write it.
        dir: PathBuf,
        /// Notes to write.
        #[arg(long, default_value_t = 500)]
        notes: usize,
        /// Seed of the generator.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

/// What `redline generate` prints.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Generated {
    /// The man page, redline(1).
    Man,
    /// Completions for bash.
    Bash,
    /// Completions for zsh.
    Zsh,
    /// Completions for fish.
    Fish,
}

/// `redline eval`'s arguments.
#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
struct EvalArgs {
    #[command(subcommand)]
    command: Option<EvalCommand>,
    /// The tasks folder (default: this checkout's fixtures/evals).
    tasks: Option<PathBuf>,
    #[command(flatten)]
    flags: ProviderFlags,
    /// Run the same tasks in all three modes (the provider flags then name
    /// the remote provider).
    #[arg(long, conflicts_with = "mode")]
    matrix: bool,
    /// Only tasks whose id matches this glob.
    #[arg(long)]
    filter: Option<String>,
    /// Runs of each task.
    #[arg(long, default_value_t = 1)]
    repeat: usize,
    /// Write the results to this file as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Serve each task's golden trace through the scripted model as the
    /// (remote, or with `--mode local` the local) provider.
    #[arg(long)]
    golden: bool,
    /// Keep each task's model turns in DIR/<task>/golden.json.
    #[arg(long, value_name = "DIR")]
    record: Option<PathBuf>,
}

#[derive(Subcommand)]
enum EvalCommand {
    /// Write one self-contained HTML page comparing results files.
    Report {
        /// Results written by `redline eval --json`.
        #[arg(required = true)]
        results: Vec<PathBuf>,
        /// The page to write.
        #[arg(long)]
        out: PathBuf,
    },
}

/// The provider flags of `run` and `eval`: each replaces one setting of
/// the configuration for this command only.
#[derive(clap::Args)]
struct ProviderFlags {
    /// remote, local or hybrid_auto (replaces `agent_mode`).
    #[arg(long, value_enum)]
    mode: Option<ModeArg>,
    /// The provider's wire format (replaces `[local].provider` in local
    /// mode, else `[remote].provider`).
    #[arg(long, value_enum)]
    provider: Option<ProviderArg>,
    /// The model (replaces that provider's `model`).
    #[arg(long)]
    model: Option<String>,
    /// The provider's base URL, e.g. http://127.0.0.1:11434/v1 for Ollama
    /// (replaces that provider's `base_url`).
    #[arg(long)]
    base_url: Option<String>,
}

impl ProviderFlags {
    /// `config` with the flags applied: the mode, then the provider the
    /// flags name (the local one in local mode, else the remote one).
    fn apply(self, config: &mut Config) {
        use redline::config::AgentMode;
        if let Some(mode) = self.mode {
            config.agent_mode = mode.into();
        }
        let target = if config.agent_mode == AgentMode::Local {
            &mut config.local
        } else {
            &mut config.remote
        };
        if let Some(p) = self.provider {
            target.provider = p.into();
        }
        if let Some(m) = self.model {
            target.model = m;
        }
        if self.base_url.is_some() {
            target.base_url = self.base_url;
        }
    }
}

/// The `--mode` values.
#[derive(Clone, Copy, clap::ValueEnum)]
enum ModeArg {
    /// The remote provider.
    Remote,
    /// The local provider only.
    Local,
    /// The local provider first, the remote one when a trigger fires.
    #[value(name = "hybrid_auto")]
    HybridAuto,
}

impl From<ModeArg> for redline::config::AgentMode {
    fn from(mode: ModeArg) -> Self {
        match mode {
            ModeArg::Remote => redline::config::AgentMode::Remote,
            ModeArg::Local => redline::config::AgentMode::Local,
            ModeArg::HybridAuto => redline::config::AgentMode::HybridAuto,
        }
    }
}

/// The `--provider` values.
#[derive(Clone, Copy, clap::ValueEnum)]
enum ProviderArg {
    /// OpenAI Chat Completions or a compatible server.
    Openai,
    /// Anthropic Messages.
    Anthropic,
}

impl From<ProviderArg> for redline::config::ProviderKind {
    fn from(p: ProviderArg) -> Self {
        match p {
            ProviderArg::Openai => redline::config::ProviderKind::Openai,
            ProviderArg::Anthropic => redline::config::ProviderKind::Anthropic,
        }
    }
}

fn main() -> ExitCode {
    redline::logging::init();
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("redline: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// The UI folder to serve: the one given, else the one installed beside
/// this binary by the packages (`../lib/redline/ui`), else this checkout's
/// build if any.
fn ui_dir(given: Option<PathBuf>) -> Option<PathBuf> {
    let installed = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join("lib/redline/ui")))
        .filter(|dir| dir.join("index.html").is_file());
    let dir = given
        .or(installed)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/ui/dist")));
    if dir.join("index.html").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "redline: no built UI at {} (run `npm run build` in ui/): serving the API only",
            dir.display()
        );
        None
    }
}

fn tokio_runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}

/// Reads edits given as a list or as `{"edits": [...]}`.
fn parse_edits(text: &str) -> anyhow::Result<Vec<redline::edits::ProposedEdit>> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Input {
        List(Vec<redline::edits::ProposedEdit>),
        Wrapped {
            edits: Vec<redline::edits::ProposedEdit>,
        },
    }
    let input: Input =
        serde_json::from_str(text).context("the edits are not a JSON list of edits")?;
    Ok(match input {
        Input::List(edits) | Input::Wrapped { edits } => edits,
    })
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let config = Config::load()?;
    match cli.command {
        Command::Open { folder } => {
            let project = Project::open(&folder, config.limits.clone())?;
            let listing = tools::run(&project, "list_files", serde_json::json!({ "limit": 10 }))?;
            println!("Project  {}", project.root().display());
            println!("Data     {}", config.data_dir().display());
            if let Some(file) = redline::config::config_file() {
                println!("Config   {}", file.display());
            }
            println!("Files    {} visible to the agent", listing["total"]);
            for file in listing["files"].as_array().into_iter().flatten() {
                println!("         {}", file.as_str().unwrap_or_default());
            }
            println!();
            println!("Try the agent's tools on it:");
            let root = folder.display();
            println!("  redline tool search_project {root} '{{\"query\": \"project\"}}'");
            println!("  redline tool list_files {root} '{{\"prefix\": \"\"}}'");
            println!("  redline tool read_file {root} '{{\"file_path\": \"<a path above>\"}}'");
            Ok(ExitCode::SUCCESS)
        }
        Command::Tool {
            name,
            folder,
            arguments,
        } => {
            let project = Project::open(&folder, config.limits)?;
            let result = serde_json::from_str(&arguments)
                .map_err(|e| tools::ToolError::InvalidArguments {
                    tool: "tool",
                    problems: vec![format!("the arguments are not JSON: {e}")],
                })
                .and_then(|args| tools::run(&project, &name, args));
            match result {
                Ok(value) => {
                    println!("{}", serde_json::to_string_pretty(&value)?);
                    Ok(ExitCode::SUCCESS)
                }
                Err(err) => {
                    println!("{}", serde_json::to_string_pretty(&err.to_json())?);
                    Ok(ExitCode::from(1))
                }
            }
        }
        Command::Propose { folder, edits } => {
            let project = Project::open(&folder, config.limits)?;
            let text = if edits == std::path::Path::new("-") {
                std::io::read_to_string(std::io::stdin())?
            } else {
                std::fs::read_to_string(&edits)
                    .with_context(|| format!("reading {}", edits.display()))?
            };
            let edits = parse_edits(&text)?;
            match redline::edits::prepare(&project, &edits) {
                Ok(files) => {
                    let bundle =
                        redline::hunks::bundle(&files, &redline::hunks::HunkLimits::default());
                    println!("{}", serde_json::to_string_pretty(&bundle)?);
                    Ok(ExitCode::SUCCESS)
                }
                Err(errors) => {
                    let edits: Vec<serde_json::Value> = errors
                        .iter()
                        .map(|e| {
                            serde_json::json!({
                                "edit_id": e.edit_id, "file_path": e.file_path,
                                "code": e.kind.code(), "message": e.kind.to_string(),
                            })
                        })
                        .collect();
                    let out = serde_json::json!({ "error": {
                        "code": "invalid_edits",
                        "message": format!("{} of the edits were refused; nothing was proposed", errors.len()),
                        "edits": edits,
                    }});
                    println!("{}", serde_json::to_string_pretty(&out)?);
                    Ok(ExitCode::from(1))
                }
            }
        }
        Command::Run {
            folder,
            instruction,
            flags,
            max_tool_calls,
        } => {
            let mut config = config;
            flags.apply(&mut config);
            tokio_runtime()?.block_on(run_job::run(&folder, config, instruction, max_tool_calls))
        }
        Command::Serve { folder, port, ui } => tokio_runtime()?.block_on(async {
            let data_dir = config.data_dir();
            let runtime = redline::jobs::Runtime::open(&folder, config)?;
            let _watching = redline::watch::start(runtime.clone())?;
            let root = runtime.project().root().to_owned();
            let api =
                redline::api::Api::new(runtime).with_config_file(redline::config::config_file());
            let served = redline::api::http::serve(api, port, ui_dir(ui)).await?;
            // `redline mcp` on this folder bridges here while this runs.
            let _claim =
                redline::instance::claim(&data_dir, &root, served.addr.port(), &served.token)
                    .context("recording this server in the data folder")?;
            println!("{}", served.url());
            std::future::pending::<()>().await;
            Ok(ExitCode::SUCCESS)
        }),
        Command::Mcp { folder } => tokio_runtime()?.block_on(async {
            let root = folder
                .canonicalize()
                .with_context(|| format!("opening {}", folder.display()))?;
            if let Some(running) = redline::instance::find(&config.data_dir(), &root) {
                redline::mcp::serve_bridge(running).await?;
                return Ok(ExitCode::SUCCESS);
            }
            let runtime = redline::jobs::Runtime::open(&folder, config)?;
            let served = redline::mcp::serve_stdio(runtime.clone()).await;
            runtime.shutdown();
            served?;
            Ok(ExitCode::SUCCESS)
        }),
        Command::Hook(args) => hook::run(args, config),
        Command::ScriptedModel { script, port } => {
            let text = std::fs::read_to_string(&script)
                .with_context(|| format!("reading {}", script.display()))?;
            let turns: Vec<redline::testkit::scripted::Turn> =
                serde_json::from_str(&text).context("the script is not a JSON list of turns")?;
            tokio_runtime()?.block_on(async {
                let model = redline::testkit::scripted::ScriptedModel::bind(turns, port).await?;
                println!(
                    "{}",
                    model.base_url(redline::providers::Protocol::AnthropicMessages)
                );
                std::future::pending::<()>().await;
                Ok(ExitCode::SUCCESS)
            })
        }
        Command::Eval(args) => run_eval(args, config),
        Command::Doctor { folder, json } => doctor(&config, folder.as_deref(), json),
        Command::Generate { what } => {
            generate(what)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Tools => {
            println!(
                "{}",
                serde_json::to_string_pretty(&redline::agent::toolset::every_spec())?
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Config => {
            let mut shown = config.clone();
            shown.data_dir = Some(config.data_dir());
            print!("{}", toml::to_string(&shown)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::GenVault { dir, notes, seed } => {
            let summary = vaultgen::generate(&dir, &vaultgen::VaultSpec { notes, seed })
                .with_context(|| format!("writing a vault to {}", dir.display()))?;
            println!(
                "{} notes ({} CRLF, {} non-ASCII), {} binaries, {} hidden or ignored files, {} bytes in {}",
                summary.notes,
                summary.crlf,
                summary.non_ascii,
                summary.binaries,
                summary.excluded,
                summary.bytes,
                dir.display()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn run_eval(args: EvalArgs, mut config: Config) -> anyhow::Result<ExitCode> {
    if let Some(EvalCommand::Report { results, out }) = args.command {
        return eval::report(&results, &out);
    }
    use redline::config::AgentMode;
    if args.matrix {
        config.agent_mode = AgentMode::Remote;
    }
    args.flags.apply(&mut config);
    let modes = if args.matrix {
        vec![AgentMode::Remote, AgentMode::Local, AgentMode::HybridAuto]
    } else {
        vec![config.agent_mode]
    };
    let suite = eval::Suite {
        tasks: args.tasks.unwrap_or_else(|| {
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/evals"))
        }),
        filter: args.filter,
        repeat: args.repeat.max(1),
        modes,
        golden: args.golden,
        record: args.record,
        json: args.json,
    };
    tokio_runtime()?.block_on(eval::run(suite, config))
}

/// `redline doctor`: every check, a line each (and its fix), or JSON.
fn doctor(
    config: &Config,
    folder: Option<&std::path::Path>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    use redline::doctor::Outcome;
    let checks = tokio_runtime()?.block_on(redline::doctor::checks(config, folder));
    if json {
        println!("{}", serde_json::to_string_pretty(&checks)?);
    } else {
        println!("Redline {}", *VERSION);
        for check in &checks {
            let mark = match check.outcome {
                Outcome::Ok => "ok  ",
                Outcome::Warn => "warn",
                Outcome::Miss => "MISS",
            };
            println!("{mark}  {}: {}", check.name, check.found);
            if let Some(fix) = &check.fix {
                println!("      fix: {fix}");
            }
        }
    }
    let missing = checks.iter().any(|c| c.outcome == Outcome::Miss);
    Ok(if missing {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `redline generate`: the man page or a shell's completions, on stdout.
fn generate(what: Generated) -> anyhow::Result<()> {
    use clap::CommandFactory;
    use clap_complete::Shell;
    let mut command = Cli::command();
    let mut out = std::io::stdout().lock();
    let shell = match what {
        Generated::Man => return Ok(clap_mangen::Man::new(command).render(&mut out)?),
        Generated::Bash => Shell::Bash,
        Generated::Zsh => Shell::Zsh,
        Generated::Fish => Shell::Fish,
    };
    // Made whole first: the generator panics on a closed pipe.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "redline", &mut script);
    Ok(std::io::Write::write_all(&mut out, &script)?)
}
