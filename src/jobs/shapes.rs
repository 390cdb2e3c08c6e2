//! Sessions, jobs and events as the API shows them (docs/http-api.md).

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::agent::{ChatMessage, ContextRow, JobUsage, Question};
use crate::edits::ProposedEdit;
use crate::hunks::DiffBundle;

use super::events::JobEvent;

/// Where a job is.
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

/// A conversation with an agent.
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
    /// What the agent was last told of each earlier hunk (`accepted`,
    /// `rejected`, `edited`, `rolled_back`): the next job is told only what
    /// changed since.
    #[serde(default)]
    pub reported_hunks: std::collections::BTreeMap<String, String>,
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

/// One run of an agent on one instruction.
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
    /// The job this one re-runs after a conflict.
    #[serde(default)]
    pub rerun_of: Option<String>,
    /// Tool-call budget it ran with.
    pub max_tool_calls: usize,
    /// For a group of other programs' changes: the files it changed that
    /// could not be reviewed, and why.
    #[serde(default)]
    pub not_reviewable: Vec<crate::workspace::NotReviewable>,
    /// For a terminal agent's write: the agent (`Claude Code`) while its
    /// hook waits for this job's review before the write lands; `null`
    /// otherwise. Live: after a restart no hook waits.
    #[serde(default)]
    pub waiting_agent: Option<String>,
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
            not_reviewable: Vec::new(),
            waiting_agent: None,
        }
    }
}

/// One event of a job's log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Event {
    /// Its place in the log, from 0, without gaps.
    pub cursor: u64,
    /// When (RFC 3339).
    pub ts: String,
    /// What happened: its `type` and `data`.
    #[serde(flatten)]
    pub event: JobEvent,
}

impl Event {
    /// Its type name, e.g. `tool.call.completed`.
    pub fn kind(&self) -> &'static str {
        self.event.kind()
    }

    /// Its payload as JSON.
    pub fn data(&self) -> Value {
        self.event.data()
    }
}

/// The answer of the events endpoint.
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

/// Every pending hunk of the project, grouped by the job that proposed it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ReviewQueue {
    /// The jobs, oldest first; hunks of no known job come last, under a
    /// group with no job id. Every job with pending hunks is listed, with
    /// the hunks of this page.
    pub jobs: Vec<ReviewGroup>,
    /// Pending hunks in all: the rows a page is cut from, counted across
    /// the jobs in their order.
    pub total: usize,
    /// The page's first row.
    pub offset: usize,
    /// The listing's number, for its next page (`GET /api/review?snapshot=`).
    pub snapshot: u64,
    /// The project feed's cursor when the listing was taken: followed from
    /// it, the feed misses nothing that happened after (`GET /api/feed`).
    pub feed_cursor: u64,
    /// Every session at the listing's moment, most recently updated first:
    /// on its first page only (`offset` 0), so that the session picker
    /// lists what the review lists. `null` on later pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub sessions: Option<Vec<Session>>,
}

/// The review, the changed files and the sessions as they were at one revision of the
/// runtime (see `Runtime::listing`): what the API serves a page at a time.
#[derive(Clone, Debug)]
pub struct ProjectListing {
    /// Every pending hunk, grouped by job (one page, numbered 0).
    pub review: ReviewQueue,
    /// The files with a working buffer, sorted, with their review state.
    pub files: Vec<crate::workspace::TreeEntry>,
    /// The project feed's cursor before the listing was taken.
    pub feed_cursor: u64,
    /// The runtime's revision the listing holds.
    pub revision: u64,
}

impl ReviewQueue {
    /// The page of hunks `rows` (counted across the jobs, in order), from
    /// the listing numbered `snapshot`: every job with its counts, and
    /// those of its hunks that fall in the page.
    pub fn page(&self, rows: std::ops::Range<usize>, snapshot: u64) -> ReviewQueue {
        let mut first = 0;
        let jobs = self
            .jobs
            .iter()
            .map(|group| {
                let own = first..first + group.hunks.len();
                first = own.end;
                let start = rows.start.clamp(own.start, own.end) - own.start;
                let end = rows.end.clamp(own.start, own.end) - own.start;
                ReviewGroup {
                    hunks: group.hunks[start..end].to_vec(),
                    ..group.clone_without_hunks()
                }
            })
            .collect();
        ReviewQueue {
            jobs,
            total: self.total,
            offset: rows.start,
            snapshot,
            feed_cursor: self.feed_cursor,
            sessions: self.sessions.clone().filter(|_| rows.start == 0),
        }
    }
}

/// The pending hunks of one job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ReviewGroup {
    /// The job; `null` for hunks whose job is gone.
    pub job_id: Option<String>,
    /// Its session.
    pub session_id: Option<String>,
    /// What the user asked (the group's heading).
    pub instruction: String,
    /// The external agent that proposed it (its MCP client's name), shown
    /// beside the heading; `null` for Redline's own agent.
    pub source: Option<String>,
    /// Its pending hunks in the page, by path then line.
    pub hunks: Vec<crate::workspace::PendingHunk>,
    /// Its pending hunks in all.
    pub pending: usize,
    /// Its patterns with pending hunks, largest first.
    pub patterns: Vec<PatternGroup>,
    /// How many of its pending hunks are flagged.
    pub flagged: usize,
}

impl ReviewGroup {
    fn clone_without_hunks(&self) -> ReviewGroup {
        ReviewGroup {
            job_id: self.job_id.clone(),
            session_id: self.session_id.clone(),
            instruction: self.instruction.clone(),
            source: self.source.clone(),
            hunks: Vec::new(),
            pending: self.pending,
            patterns: self.patterns.clone(),
            flagged: self.flagged,
        }
    }
}

/// A pattern of a job, as the review list shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PatternGroup {
    /// The pattern (its counts are over all its hunks).
    pub pattern: crate::hunks::triage::Pattern,
    /// Its hunks still pending.
    pub pending: usize,
    /// The files they are in.
    pub pending_files: usize,
}

/// Which hunks one decision covers (`POST /api/review/decide`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Selection {
    /// The hunks of one pattern of a job: the pending ones to accept or
    /// reject, the decided ones to undo.
    Pattern {
        /// The job.
        job_id: String,
        /// The pattern, `p1`, `p2`, ….
        pattern_id: String,
    },
    /// Every pending hunk of a job that no risk rule flagged (a file the
    /// job never read is no risk: see `Rule::is_risk`).
    Unflagged {
        /// The job.
        job_id: String,
    },
    /// Every pending hunk of a job (a run's "Reject all": decided, not
    /// written; the save writes).
    Job {
        /// The job.
        job_id: String,
    },
    /// These hunks.
    Hunks {
        /// Their ids.
        hunk_ids: Vec<String>,
    },
}

impl Selection {
    /// The selection in the user's words, for the history: `n` hunks of it.
    pub fn describe(&self, n: usize) -> String {
        match self {
            Selection::Pattern { job_id, pattern_id } => {
                format!("the pattern {pattern_id} of {job_id} ({n} hunks)")
            }
            Selection::Unflagged { job_id } => {
                format!("every unflagged hunk of {job_id} ({n} hunks)")
            }
            Selection::Job { job_id } => format!("every pending hunk of {job_id} ({n} hunks)"),
            Selection::Hunks { .. } => format!("{n} hunks"),
        }
    }
}

/// What a decision on many hunks did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DecidedMany {
    /// What they were set to (`pending`: an undo).
    pub status: crate::review::Status,
    /// The hunks selected.
    pub selected: usize,
    /// Hunks whose status changed (those carried with them included).
    pub moved: usize,
    /// Files they are in.
    pub files: usize,
    /// Text the user typed inside them that the decision takes out of the
    /// buffers (kept in a checkpoint; an undo brings it back).
    pub hidden_user_text: Vec<String>,
}

/// A request to run an agent (`POST /api/agent/run`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, ts_rs::TS)]
pub struct RunRequest {
    /// The session.
    pub session_id: String,
    /// What to do.
    pub instruction: String,
    /// Context for this run; pinned rows also stay in the session.
    #[serde(default)]
    #[ts(as = "Option<_>", optional)]
    pub context_rows: Vec<ContextRow>,
    /// Overrides of the job's limits.
    #[serde(default)]
    #[ts(as = "Option<_>", optional)]
    pub tool_config: ToolConfig,
}

/// Per-run limits (a run's `tool_config`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, ts_rs::TS)]
pub struct ToolConfig {
    /// Tool calls allowed; default `limits.max_tool_calls_per_job`.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub max_tool_calls: Option<usize>,
}

/// Now, as RFC 3339 with milliseconds.
pub fn now() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}
