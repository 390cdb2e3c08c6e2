//! What an eval run measured (docs/evals.md#what-it-reports): per task, and summed up per run.

use serde::{Deserialize, Serialize};

/// One task's run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskResult {
    /// The task.
    pub id: String,
    /// Its tags.
    pub tags: Vec<String>,
    /// Every check held and no file changed where none may.
    pub success: bool,
    /// What did not hold, or why the run broke off.
    pub failures: Vec<String>,
    /// Each job's status once reviewed and applied, in order (follow-ups and
    /// re-runs included).
    pub statuses: Vec<String>,
    /// Hunks proposed, all jobs.
    pub hunks: usize,
    /// Hunks the oracle accepted.
    pub accepted: usize,
    /// Hunks the review's risk rules flagged.
    #[serde(default)]
    pub flagged: usize,
    /// Damaging hunks the task names (`[[damage]]`) that its jobs proposed.
    #[serde(default)]
    pub damaging: usize,
    /// Of those, the ones flagged.
    #[serde(default)]
    pub damaging_flagged: usize,
    /// Applies that reported a conflict (another program's change).
    pub conflicts: usize,
    /// Jobs re-run after a conflict.
    pub reruns: usize,
    /// Jobs run.
    pub jobs: usize,
    /// Model steps.
    pub steps: u32,
    /// Tool calls.
    pub tool_calls: usize,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
    /// Estimated cost in US dollars.
    pub cost_usd: f64,
    /// From the first request to the last job's end (the oracle's review
    /// and apply included), in milliseconds.
    pub latency_ms: u64,
    /// Questions the agent asked.
    pub questions: usize,
    /// Questions in a task that needed none.
    pub unnecessary_questions: usize,
    /// Calls that were malformed and not run (`tool.call.failed`).
    pub schema_failures: usize,
    /// Proposals refused (`edits.refused`).
    pub refused_proposals: usize,
    /// Edits moved to where their `old_text` was.
    pub relocations: usize,
    /// Bytes the proposals changed where no check allows a change, before review.
    pub unintended_bytes_proposed: usize,
    /// Bytes changed on disk where no check allows a change, after review.
    pub unintended_bytes_written: usize,
    /// Providers that ran it (the chain's order; `hybrid_auto` may list two).
    pub providers: Vec<String>,
}

/// A run of a suite, summed up.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Tasks run.
    pub tasks: usize,
    /// Tasks that succeeded.
    pub successes: usize,
    /// `successes / tasks`.
    pub success_rate: f64,
    /// Accepted hunks over proposed hunks.
    pub accepted_hunk_ratio: f64,
    /// Damaging hunks proposed (tasks with `[[damage]]`).
    #[serde(default)]
    pub damaging: usize,
    /// Damaging hunks flagged, over damaging hunks proposed (goal: all).
    #[serde(default)]
    pub damage_flagged_ratio: f64,
    /// Flagged hunks over hunks, in the tasks whose jobs proposed no damage
    /// a task names (goal: under 5%).
    #[serde(default)]
    pub clean_flag_rate: f64,
    /// Tasks with a conflict on apply, over tasks.
    pub conflict_rate: f64,
    /// Tool calls per successful task.
    pub tool_calls_per_success: f64,
    /// Median task latency.
    pub latency_p50_ms: u64,
    /// 95th percentile task latency.
    pub latency_p95_ms: u64,
    /// Prompt tokens, all tasks.
    pub input_tokens: u64,
    /// Generated tokens, all tasks.
    pub output_tokens: u64,
    /// Estimated cost, all tasks.
    pub cost_usd: f64,
    /// Tasks with a question, over tasks.
    pub clarification_rate: f64,
    /// Questions asked where none was needed.
    pub unnecessary_questions: usize,
    /// Malformed calls and refused proposals per job.
    pub malformed_edit_rate: f64,
    /// Edits relocated by their `old_text`.
    pub relocations: usize,
    /// Bytes proposed where no change is allowed, all tasks.
    pub unintended_bytes_proposed: usize,
    /// Bytes written where no change is allowed, all tasks.
    pub unintended_bytes_written: usize,
}

/// One run: what ran, and what it measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunResults {
    /// `remote`, `local` or `hybrid_auto`, plus ` golden` for golden traces.
    pub label: String,
    /// The agent mode.
    pub mode: String,
    /// The model(s) asked.
    pub model: String,
    /// Per task.
    pub tasks: Vec<TaskResult>,
    /// Summed up.
    pub summary: Summary,
}

/// Sums `tasks` up.
pub fn summarize(tasks: &[TaskResult]) -> Summary {
    let n = tasks.len();
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let successes = tasks.iter().filter(|t| t.success).count();
    let sum = |f: fn(&TaskResult) -> usize| tasks.iter().map(f).sum::<usize>();
    let mut latencies: Vec<u64> = tasks.iter().map(|t| t.latency_ms).collect();
    latencies.sort_unstable();
    let pct = |p: usize| {
        latencies
            .get((p * latencies.len()).div_ceil(100).saturating_sub(1))
            .copied()
            .unwrap_or(0)
    };
    Summary {
        tasks: n,
        successes,
        success_rate: ratio(successes, n),
        accepted_hunk_ratio: ratio(sum(|t| t.accepted), sum(|t| t.hunks)),
        damaging: sum(|t| t.damaging),
        damage_flagged_ratio: ratio(sum(|t| t.damaging_flagged), sum(|t| t.damaging)),
        clean_flag_rate: {
            let clean = tasks.iter().filter(|t| t.damaging == 0);
            let (flagged, hunks) = clean.fold((0, 0), |(f, h), t| (f + t.flagged, h + t.hunks));
            ratio(flagged, hunks)
        },
        conflict_rate: ratio(tasks.iter().filter(|t| t.conflicts > 0).count(), n),
        tool_calls_per_success: ratio(
            tasks
                .iter()
                .filter(|t| t.success)
                .map(|t| t.tool_calls)
                .sum(),
            successes,
        ),
        latency_p50_ms: pct(50),
        latency_p95_ms: pct(95),
        input_tokens: tasks.iter().map(|t| t.input_tokens).sum(),
        output_tokens: tasks.iter().map(|t| t.output_tokens).sum(),
        cost_usd: tasks.iter().map(|t| t.cost_usd).sum(),
        clarification_rate: ratio(tasks.iter().filter(|t| t.questions > 0).count(), n),
        unnecessary_questions: sum(|t| t.unnecessary_questions),
        malformed_edit_rate: ratio(
            sum(|t| t.schema_failures) + sum(|t| t.refused_proposals),
            sum(|t| t.jobs),
        ),
        relocations: sum(|t| t.relocations),
        unintended_bytes_proposed: sum(|t| t.unintended_bytes_proposed),
        unintended_bytes_written: sum(|t| t.unintended_bytes_written),
    }
}
