//! Sessions, jobs and events as the API shows them (seed §3, §4, §9).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::edits::ProposedEdit;
use crate::hunks::DiffBundle;

/// Where a job is (DESIGN §3.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum JobStatus {
    /// Created, not started.
    Queued,
    /// The agent is working.
    Running,
    /// The agent asked a question and waits, with no timeout.
    WaitingForUser,
    /// Edits are staged for review.
    AwaitingReview,
    /// Finished: applied, or nothing to change.
    Completed,
    /// Ended by an error.
    Failed,
    /// Ended by the user.
    Cancelled,
    /// Ended by a budget, with whatever it proposed.
    BudgetExceeded,
}

impl JobStatus {
    /// Whether the job's agent has stopped for good.
    pub fn is_terminal(self) -> bool {
        !matches!(
            self,
            JobStatus::Queued | JobStatus::Running | JobStatus::WaitingForUser
        )
    }

    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Queued => "queued",
            JobStatus::Running => "running",
            JobStatus::WaitingForUser => "waiting_for_user",
            JobStatus::AwaitingReview => "awaiting_review",
            JobStatus::Completed => "completed",
            JobStatus::Failed => "failed",
            JobStatus::Cancelled => "cancelled",
            JobStatus::BudgetExceeded => "budget_exceeded",
        }
    }
}

/// A block of context the user pinned for the agent (seed §4 `context_rows`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ContextRow {
    /// Its id, e.g. `ctx_1`.
    pub id: String,
    /// `selection`, `file` or `note`.
    pub kind: String,
    /// The file it comes from, if any.
    #[serde(default)]
    pub file_path: Option<String>,
    /// Its first line in that file.
    #[serde(default)]
    pub start_line: Option<usize>,
    /// Its last line in that file.
    #[serde(default)]
    pub end_line: Option<usize>,
    /// The text.
    #[serde(default)]
    pub content: String,
    /// Whether it stays in the session for later runs. Default true.
    #[serde(default = "yes")]
    pub pinned: bool,
}

fn yes() -> bool {
    true
}

/// One line of a session's chat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ChatMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// What was said.
    pub content: String,
    /// The job it belongs to.
    #[serde(default)]
    pub job_id: Option<String>,
    /// When.
    pub ts: String,
}

/// A conversation with an agent (seed §3, seed 004).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Session {
    /// Its id, `sess_<n>`.
    pub session_id: String,
    /// The agent definition it talks to.
    pub agent_id: String,
    /// A name the user gave it.
    #[serde(default)]
    pub name: Option<String>,
    /// `active` or `archived`.
    pub status: String,
    /// When it was created.
    pub created_at: String,
    /// When it last changed.
    pub updated_at: String,
    /// The chat so far.
    #[serde(default)]
    pub chat: Vec<ChatMessage>,
    /// Pinned context.
    #[serde(default)]
    pub context_rows: Vec<ContextRow>,
    /// Its latest job.
    #[serde(default)]
    pub last_job_id: Option<String>,
    /// The job whose edits wait for review, if any.
    #[serde(default)]
    pub pending_review: Option<String>,
}

/// A question the agent asked (seed §21).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Question {
    /// Its id, `q_<n>`.
    pub question_id: String,
    /// The question.
    pub question: String,
    /// Answers offered; free text is always allowed.
    #[serde(default)]
    pub suggested_answers: Vec<String>,
}

/// Why a job failed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct JobError {
    /// A stable code: a provider error class, `schema_retries_exhausted`,
    /// `conflict`, `interrupted`, ….
    pub code: String,
    /// What happened.
    pub message: String,
}

/// What a job used.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct JobUsage {
    /// Model steps taken.
    pub steps: u32,
    /// Tool calls made (the final `propose_edits` excluded).
    pub tool_calls: usize,
    /// Prompt tokens, all steps.
    pub input_tokens: u64,
    /// Generated tokens, all steps.
    pub output_tokens: u64,
    /// Estimated cost in US dollars (from the configured price table).
    pub cost_usd: f64,
}

/// One run of an agent on one instruction (seed §3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Job {
    /// Its id, `job_<n>`.
    pub job_id: String,
    /// Its session.
    pub session_id: String,
    /// Where it is.
    pub status: JobStatus,
    /// What the user asked.
    pub instruction: String,
    /// When it was created.
    pub created_at: String,
    /// When it started.
    #[serde(default)]
    pub started_at: Option<String>,
    /// When it stopped.
    #[serde(default)]
    pub finished_at: Option<String>,
    /// The cursor the next event will get.
    pub cursor: u64,
    /// The provider that ran it last (`openai`, `anthropic`, `local`, …).
    #[serde(default)]
    pub provider: Option<String>,
    /// The model that ran it last.
    #[serde(default)]
    pub model: Option<String>,
    /// The edits it proposed, as accepted by the engine.
    #[serde(default)]
    pub proposed_edits: Vec<ProposedEdit>,
    /// Their hunks, once staged.
    #[serde(default)]
    pub diff_bundle: Option<DiffBundle>,
    /// The checkpoint taken before staging.
    #[serde(default)]
    pub checkpoint_id: Option<String>,
    /// The question it waits on.
    #[serde(default)]
    pub pending_question: Option<Question>,
    /// What the agent said last.
    #[serde(default)]
    pub summary: Option<String>,
    /// Why it failed.
    #[serde(default)]
    pub error: Option<JobError>,
    /// What it used.
    #[serde(default)]
    pub usage: JobUsage,
    /// The job this one re-runs after a conflict (seed §22).
    #[serde(default)]
    pub rerun_of: Option<String>,
    /// Tool-call budget it ran with.
    pub max_tool_calls: usize,
}

impl Job {
    /// A new job, `queued`, created now.
    pub fn new(
        job_id: String,
        session_id: String,
        instruction: String,
        max_tool_calls: usize,
    ) -> Job {
        Job {
            job_id,
            session_id,
            status: JobStatus::Queued,
            instruction,
            created_at: now(),
            started_at: None,
            finished_at: None,
            cursor: 0,
            provider: None,
            model: None,
            proposed_edits: Vec::new(),
            diff_bundle: None,
            checkpoint_id: None,
            pending_question: None,
            summary: None,
            error: None,
            usage: JobUsage::default(),
            rerun_of: None,
            max_tool_calls,
        }
    }
}

/// One event of a job's log (seed §9).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Event {
    /// Its place in the log, from 0, without gaps.
    pub cursor: u64,
    /// Its type, e.g. `tool.call.completed`.
    #[serde(rename = "type")]
    pub kind: String,
    /// When (RFC 3339).
    pub ts: String,
    /// Its payload.
    pub data: Value,
}

/// The answer of the events endpoint (seed §4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EventPage {
    /// The job.
    pub job_id: String,
    /// Its status now.
    pub status: JobStatus,
    /// The cursor to ask with next.
    pub next_cursor: u64,
    /// The events from the cursor asked for.
    pub events: Vec<Event>,
}

/// Now, as RFC 3339 with milliseconds.
pub fn now() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}
