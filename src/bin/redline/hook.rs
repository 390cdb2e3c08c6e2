//! `redline hook`: a terminal agent's PreToolUse (or BeforeTool) hook, and
//! its installer.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use redline::config::Config;
use redline::hooks::claude_code::{self, HookInput};
use redline::hooks::review::{self, Fallback, Options, Verdict};
use redline::hooks::{gemini, install};

/// `redline hook`'s arguments.
#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct HookArgs {
    #[command(subcommand)]
    command: Option<HookCommand>,
    #[command(flatten)]
    waiting: Waiting,
    /// The folder Redline has open (default: the one the agent runs in, or
    /// the nearest folder above it that a running Redline serves).
    #[arg(long)]
    folder: Option<PathBuf>,
}

/// How the hook waits for the user.
#[derive(clap::Args)]
struct Waiting {
    /// How long to wait for the user's decisions, e.g. `30m` or `90s`.
    #[arg(long, default_value = "30m")]
    wait: humantime::Duration,
    /// What to do when no decision comes in time, or no Redline has the
    /// folder open: refuse the write (`deny`), or let it through to be
    /// reviewed as another program's change (`outside`).
    #[arg(long, value_enum, default_value_t = FallbackArg::Deny)]
    fallback: FallbackArg,
}

#[derive(clap::Subcommand)]
enum HookCommand {
    /// Write an agent's hook settings for a folder, and print them.
    Install {
        /// The agent.
        #[arg(value_enum)]
        agent: AgentArg,
        /// The folder (default: the current one).
        folder: Option<PathBuf>,
        #[command(flatten)]
        waiting: Waiting,
    },
}

/// The agents `install` knows.
#[derive(Clone, Copy, clap::ValueEnum)]
enum AgentArg {
    /// Claude Code: `.claude/settings.json` in the folder.
    ClaudeCode,
    /// Codex: `.codex/hooks.json` in the folder.
    Codex,
    /// Gemini CLI: `.gemini/settings.json` in the folder.
    Gemini,
}

/// The `--fallback` values.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FallbackArg {
    /// Refuse the write, saying why.
    Deny,
    /// Let it through, to review as an outside change.
    Outside,
}

impl FallbackArg {
    fn name(self) -> &'static str {
        match self {
            FallbackArg::Deny => "deny",
            FallbackArg::Outside => "outside",
        }
    }
}

impl From<&Waiting> for Options {
    fn from(w: &Waiting) -> Options {
        Options {
            wait: *w.wait,
            fallback: match w.fallback {
                FallbackArg::Deny => Fallback::Deny,
                FallbackArg::Outside => Fallback::Outside,
            },
        }
    }
}

/// Runs `redline hook` (the hook itself, reading the agent's call on
/// standard input) or `redline hook install`.
pub fn run(args: HookArgs, config: Config) -> anyhow::Result<ExitCode> {
    if let Some(HookCommand::Install {
        agent,
        folder,
        waiting,
    }) = args.command
    {
        return install_hook(agent, folder, &waiting);
    }
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .context("reading the hook's input")?;
    let input = HookInput::parse(&text)?;
    let data_dir = config.data_dir();
    let (root, open) = match &args.folder {
        Some(folder) => {
            let root = folder
                .canonicalize()
                .with_context(|| format!("opening {}", folder.display()))?;
            let open = redline::instance::find(&data_dir, &root);
            (root, open)
        }
        None => match review::find_instance(&data_dir, &input.cwd) {
            Some((root, open)) => (root, Some(open)),
            None => (input.cwd.clone(), None),
        },
    };
    let options = Options::from(&args.waiting);
    // Whatever goes wrong, the write does not land unreviewed: the agent
    // reads why (an error status would let its permission prompt decide).
    let reviewed = std::panic::catch_unwind(|| {
        super::tokio_runtime()?
            .block_on(review::review(&input, &root, open.as_ref(), &options))
            .map_err(anyhow::Error::from)
    });
    let verdict = match reviewed {
        Ok(Ok(verdict)) => verdict,
        Ok(Err(e)) => Verdict::Deny {
            reason: format!("Redline's hook could not review this write: {e:#}"),
        },
        Err(_) => Verdict::Deny {
            reason: "Redline's hook failed while reviewing this write (see its error output)"
                .into(),
        },
    };
    let answer = match verdict {
        Verdict::Pass { why: None } => return Ok(ExitCode::SUCCESS),
        Verdict::Pass { why: Some(why) } => serde_json::json!({ "systemMessage": why }),
        // Gemini tells its model only that the arguments were changed (and
        // what `modified_by_user` says): the rest is for the user.
        Verdict::Allow {
            input: args,
            reason,
            context,
        } if input.hook_event_name == gemini::EVENT => {
            let said = context.map_or_else(|| reason.clone(), |c| format!("{reason}. {c}"));
            gemini::allow((args != input.tool_input).then_some(args), &said)
        }
        Verdict::Allow {
            input: args,
            reason,
            context,
        } => claude_code::allow(Some(args), &reason, context.as_deref()),
        Verdict::Deny { reason } if input.hook_event_name == gemini::EVENT => gemini::deny(&reason),
        Verdict::Deny { reason } => claude_code::deny(&reason),
    };
    println!("{answer}");
    Ok(ExitCode::SUCCESS)
}

fn install_hook(
    agent: AgentArg,
    folder: Option<PathBuf>,
    waiting: &Waiting,
) -> anyhow::Result<ExitCode> {
    let folder = folder.unwrap_or_else(|| PathBuf::from("."));
    let folder = folder
        .canonicalize()
        .with_context(|| format!("opening {}", folder.display()))?;
    let exe = std::env::current_exe().context("finding this redline")?;
    let command = format!(
        "{} hook --folder {} --wait {} --fallback {}",
        install::quoted(&exe.to_string_lossy()),
        install::quoted(&folder.to_string_lossy()),
        install::quoted(&waiting.wait.to_string()),
        waiting.fallback.name(),
    );
    // The agent's own limit on the hook: the wait, and a minute to spare.
    let timeout = waiting.wait.as_secs() + 60;
    let (installed, told) = match agent {
        AgentArg::ClaudeCode => (
            install::claude_code(&folder, &command, timeout)?,
            "Claude Code run in {folder} now asks Redline before each Edit, MultiEdit and Write",
        ),
        AgentArg::Codex => (
            install::codex(&folder, &command, timeout)?,
            "Codex run in {folder} now asks Redline before each apply_patch, once you trust the \
             project and its hooks (Codex asks when it starts there; `codex exec` needs \
             `--dangerously-bypass-hook-trust` until then)",
        ),
        AgentArg::Gemini => (
            install::gemini(&folder, &command, timeout)?,
            "Gemini CLI run in {folder} now asks Redline before each write_file and replace, \
             once you trust the folder (Gemini asks when it starts there)",
        ),
    };
    println!("Wrote {}:\n\n{}", installed.path.display(), installed.text);
    println!(
        "{}; keep the folder open in Redline (the app or `redline serve`) to review them.",
        told.replace("{folder}", &folder.display().to_string())
    );
    Ok(ExitCode::SUCCESS)
}
