//! `redline eval`: runs a suite of eval tasks and prints a line per task and
//! the summary of the metrics (docs/evals.md#what-it-reports); `redline eval
//! report` draws the comparison page.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use redline::config::{AgentMode, Config};
use redline::eval::{self, RunResults, Runner, TaskResult};

/// What `redline eval` was asked to run.
pub struct Suite {
    /// The tasks folder.
    pub tasks: PathBuf,
    /// Only tasks whose id matches this glob.
    pub filter: Option<String>,
    /// Runs of each task.
    pub repeat: usize,
    /// The modes to run, in order (one, or all three for `--matrix`).
    pub modes: Vec<AgentMode>,
    /// Serve the golden traces as the model.
    pub golden: bool,
    /// Keep the traces here.
    pub record: Option<PathBuf>,
    /// Write the results here.
    pub json: Option<PathBuf>,
}

/// Runs `suite` with `config`; exits non-zero only when the suite could not
/// run (failed tasks are results).
pub async fn run(suite: Suite, config: Config) -> anyhow::Result<ExitCode> {
    let tasks = eval::load_all(&suite.tasks, suite.filter.as_deref())?;
    anyhow::ensure!(
        !tasks.is_empty(),
        "no task in {} matches",
        suite.tasks.display()
    );
    let mut runs = Vec::new();
    for mode in &suite.modes {
        let mut config = config.clone();
        config.agent_mode = *mode;
        let label = label(*mode, suite.golden);
        let model = model_of(&config, suite.golden);
        println!(
            "== {label}: {} tasks × {} ({model})",
            tasks.len(),
            suite.repeat
        );
        let runner = Runner {
            config,
            golden: suite.golden,
            record: suite.record.clone(),
        };
        let mut results = Vec::new();
        let total = tasks.len() * suite.repeat;
        for round in 0..suite.repeat {
            for (i, task) in tasks.iter().enumerate() {
                let result = runner.run(task).await;
                println!(
                    "[{:>3}/{total}] {}",
                    round * tasks.len() + i + 1,
                    line(&result)
                );
                results.push(result);
            }
        }
        let summary = eval::summarize(&results);
        print_summary(&label, &summary);
        runs.push(RunResults {
            label,
            mode: mode_name(*mode).into(),
            model,
            tasks: results,
            summary,
        });
    }
    if let Some(path) = &suite.json {
        let text = match runs.as_slice() {
            [one] => serde_json::to_string_pretty(one)?,
            _ => serde_json::to_string_pretty(&serde_json::json!({ "runs": runs }))?,
        };
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
        println!("results: {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Reads results files (a run, or `{"runs": [...]}`) and writes the report page.
pub fn report(results: &[PathBuf], out: &Path) -> anyhow::Result<ExitCode> {
    let mut runs: Vec<RunResults> = Vec::new();
    for path in results {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let value: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not JSON", path.display()))?;
        match value.get("runs") {
            Some(many) => runs.extend(serde_json::from_value::<Vec<RunResults>>(many.clone())?),
            None => runs.push(serde_json::from_value(value)?),
        }
    }
    anyhow::ensure!(!runs.is_empty(), "no runs in the results given");
    std::fs::write(out, eval::report::html(&runs))
        .with_context(|| format!("writing {}", out.display()))?;
    println!("{}", out.display());
    Ok(ExitCode::SUCCESS)
}

fn mode_name(mode: AgentMode) -> &'static str {
    match mode {
        AgentMode::Remote => "remote",
        AgentMode::Local => "local",
        AgentMode::HybridAuto => "hybrid_auto",
    }
}

fn label(mode: AgentMode, golden: bool) -> String {
    let name = mode_name(mode);
    if golden {
        format!("{name} (golden)")
    } else {
        name.to_owned()
    }
}

fn model_of(config: &Config, golden: bool) -> String {
    let remote = if golden {
        "golden".to_owned()
    } else {
        config.remote.model.clone()
    };
    let local = if golden && config.agent_mode == AgentMode::Local {
        "golden".to_owned()
    } else {
        config.local.model.clone()
    };
    match config.agent_mode {
        AgentMode::Remote => remote,
        AgentMode::Local => local,
        AgentMode::HybridAuto => format!("{local} → {remote}"),
    }
}

/// One task's progress line.
fn line(r: &TaskResult) -> String {
    let verdict = if r.success { "ok  " } else { "FAIL" };
    let mut out = format!(
        "{:<34} {verdict} {} job(s) [{}] {}/{} hunks accepted, {} flagged, {} tools, {} questions, {:.1} s",
        r.id,
        r.jobs,
        r.statuses.join(", "),
        r.accepted,
        r.hunks,
        r.flagged,
        r.tool_calls,
        r.questions,
        r.latency_ms as f64 / 1000.0
    );
    if let Some(first) = r.failures.first() {
        out.push_str(&format!("\n        {first}"));
    }
    out
}

fn print_summary(label: &str, s: &eval::Summary) {
    println!("-- {label}");
    println!(
        "   task success            {}/{} ({:.0}%)",
        s.successes,
        s.tasks,
        s.success_rate * 100.0
    );
    println!(
        "   accepted-hunk ratio     {:.0}%",
        s.accepted_hunk_ratio * 100.0
    );
    println!(
        "   damage flagged          {:.0}% of {} damaging hunks (goal: all)",
        s.damage_flagged_ratio * 100.0,
        s.damaging
    );
    println!(
        "   flagged, clean tasks    {:.1}% of hunks (goal: under 5%)",
        s.clean_flag_rate * 100.0
    );
    println!("   conflict rate           {:.0}%", s.conflict_rate * 100.0);
    println!("   tool calls per success  {:.1}", s.tool_calls_per_success);
    println!(
        "   latency p50 / p95       {:.1} s / {:.1} s",
        s.latency_p50_ms as f64 / 1000.0,
        s.latency_p95_ms as f64 / 1000.0
    );
    println!(
        "   tokens in / out         {} / {}",
        s.input_tokens, s.output_tokens
    );
    println!("   cost                    ${:.4}", s.cost_usd);
    println!(
        "   clarification rate      {:.0}% ({} unnecessary questions)",
        s.clarification_rate * 100.0,
        s.unnecessary_questions
    );
    println!("   malformed edits per job {:.2}", s.malformed_edit_rate);
    println!("   relocations             {}", s.relocations);
    println!(
        "   unintended bytes        {} proposed, {} written",
        s.unintended_bytes_proposed, s.unintended_bytes_written
    );
}
