//! `redline run`: one job in the terminal, events as JSON lines.

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;

use redline::config::Config;
use redline::jobs::{JobEvent, JobStatus, RunRequest, Runtime, RuntimeEvent, ToolConfig};
use serde_json::json;

/// Runs `instruction` on `folder` and streams its events to standard output.
pub async fn run(
    folder: &Path,
    config: Config,
    instruction: String,
    max_tool_calls: Option<usize>,
) -> anyhow::Result<ExitCode> {
    let runtime = Runtime::open(folder, config)?;
    let session = runtime.create_session(None)?;
    let job = runtime.run(RunRequest {
        session_id: session.session_id,
        instruction,
        context_rows: Vec::new(),
        tool_config: ToolConfig { max_tool_calls },
    })?;
    // Answers come from a blocking reader thread, one line per question.
    let (lines_tx, mut lines) = tokio::sync::mpsc::unbounded_channel::<Option<String>>();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            if lines_tx.send(line.ok()).is_err() {
                return;
            }
        }
        let _ = lines_tx.send(None);
    });
    let mut cursor = 0;
    let mut answered: Option<String> = None;
    let mut out = std::io::stdout().lock();
    loop {
        let page = runtime.events(&job.job_id, cursor, 30_000).await?;
        cursor = page.next_cursor;
        let mut ended = false;
        for event in &page.events {
            writeln!(out, "{}", serde_json::to_string(event)?)?;
            // The terminal status change is the last event a job writes.
            ended |= matches!(
                &event.event,
                JobEvent::Runtime(RuntimeEvent::Status(s)) if s.status.is_terminal()
            );
        }
        out.flush()?;
        let current = runtime.job(&job.job_id)?;
        if current.status == JobStatus::WaitingForUser
            && let Some(question) = current.pending_question
            && answered.as_ref() != Some(&question.question_id)
        {
            // End of input skips every later question.
            let answer = lines
                .recv()
                .await
                .flatten()
                .filter(|l| !l.trim().is_empty());
            runtime.clarify(&job.job_id, &question.question_id, answer)?;
            answered = Some(question.question_id);
        }
        if ended {
            writeln!(
                out,
                "{}",
                json!({ "job_id": current.job_id, "status": current.status, "usage": current.usage,
                        "error": current.error, "summary": current.summary,
                        "diff_bundle": current.diff_bundle })
            )?;
            if let Some(error) = &current.error {
                eprintln!(
                    "redline: the job failed ({}): {}",
                    error.code, error.message
                );
            }
            return Ok(match current.status {
                JobStatus::AwaitingReview | JobStatus::Completed => ExitCode::SUCCESS,
                JobStatus::BudgetExceeded => ExitCode::from(3),
                _ => ExitCode::from(1),
            });
        }
    }
}
