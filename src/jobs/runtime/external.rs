//! External agents' jobs (over MCP): each client works in a session of its
//! own, named after it, and the user's decisions on its hunks are read back
//! to it, waited for when it asks.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{EXTERNAL_AGENT, Runtime};
use crate::hunks::triage::RiskFlag;
use crate::jobs::error::RuntimeError;
use crate::jobs::shapes::Session;
use crate::review::Status;

/// Longest text of a changed hunk given back (longer ones say only `changed`).
const SHORT_TEXT: usize = 2_000;

/// What became of one proposed hunk.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct HunkState {
    /// The hunk.
    pub hunk_id: String,
    /// Its file.
    pub file_path: String,
    /// Its first line in the working buffer (1-based); 0 once rolled back.
    pub line: usize,
    /// `pending`, `accepted`, `rejected`, `changed` (accepted with text the
    /// user edited) or `rolled_back`.
    pub status: String,
    /// The hunk's lines as the user left them, when `changed` and short.
    pub text: Option<String>,
    /// The note the user gave with the decision (why it was rejected), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reason: Option<String>,
    /// The pattern of the job it belongs to (hunks making the same change), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub pattern: Option<String>,
    /// Why the review flagged it for a look, if it did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<_>")]
    pub flags: Vec<RiskFlag>,
}

impl HunkState {
    /// Whether the user has done something with it.
    pub fn decided(&self) -> bool {
        self.status != "pending"
    }
}

impl Runtime {
    /// The session of the external agent `client`: its newest, else a new
    /// one named for what it holds (see [`session_title`]).
    pub fn external_session(&self, client: &str) -> Result<Session, RuntimeError> {
        let agent_id = format!("{EXTERNAL_AGENT}{client}");
        if let Some(found) = self
            .sessions()?
            .into_iter()
            .find(|s| s.agent_id == agent_id)
        {
            return Ok(found);
        }
        let session = self.create_session(Some(&agent_id))?;
        self.rename_session(&session.session_id, session_title(client))
    }

    /// What became of the hunks of `job_id` (all of them, or those listed).
    pub fn hunk_states(
        &self,
        job_id: &str,
        hunk_ids: &[String],
    ) -> Result<Vec<HunkState>, RuntimeError> {
        let job = self.job(job_id)?;
        let ws = self.ws();
        let mut out = Vec::new();
        // (hunk, its file, its pattern, its flags): moves and deletions first.
        let mut hunks: Vec<(&str, &str, Option<&String>, &[RiskFlag])> = Vec::new();
        if let Some(bundle) = &job.diff_bundle {
            for op in &bundle.file_ops {
                hunks.push((&op.hunk_id, &op.file_path, None, &op.flags));
            }
            for diff in &bundle.files {
                for h in &diff.hunks {
                    hunks.push((&h.hunk_id, &diff.file_path, h.pattern.as_ref(), &h.flags));
                }
            }
        }
        for (hunk_id, file_path, pattern, flags) in hunks {
            if !hunk_ids.is_empty() && !hunk_ids.iter().any(|h| h == hunk_id) {
                continue;
            }
            let mut state = match ws.review().hunk_fate(hunk_id) {
                None => HunkState {
                    hunk_id: hunk_id.to_owned(),
                    file_path: file_path.to_owned(),
                    line: 0,
                    status: "rolled_back".into(),
                    text: None,
                    reason: None,
                    pattern: None,
                    flags: Vec::new(),
                },
                Some(fate) => HunkState {
                    hunk_id: hunk_id.to_owned(),
                    file_path: fate.path,
                    line: fate.line,
                    // Text typed into a hunk still pending is not a decision.
                    status: match (fate.edited, fate.status) {
                        (_, Status::Pending) => "pending",
                        (true, Status::Accepted) => "changed",
                        (false, Status::Accepted) => "accepted",
                        (_, Status::Rejected) => "rejected",
                    }
                    .into(),
                    text: (fate.edited
                        && fate.status == Status::Accepted
                        && fate.now.len() <= SHORT_TEXT)
                        .then_some(fate.now),
                    reason: fate.reason,
                    pattern: None,
                    flags: Vec::new(),
                },
            };
            state.pattern = pattern.cloned();
            state.flags = flags.to_vec();
            out.push(state);
        }
        if let Some(id) = hunk_ids
            .iter()
            .find(|id| !out.iter().any(|s| &s.hunk_id == *id))
        {
            return Err(RuntimeError::Invalid(format!(
                "hunk `{id}` is not one of job `{job_id}`'s"
            )));
        }
        Ok(out)
    }

    /// [`hunk_states`](Self::hunk_states), once every one of them is
    /// decided or `wait` has passed (whichever comes first).
    pub async fn hunk_states_decided(
        &self,
        job_id: &str,
        hunk_ids: &[String],
        wait: Duration,
    ) -> Result<Vec<HunkState>, RuntimeError> {
        let deadline = tokio::time::Instant::now() + wait;
        let mut cursor = self.inner.feed.page(0, 0).await.next_cursor;
        loop {
            let states = self.hunk_states(job_id, hunk_ids)?;
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if states.iter().all(HunkState::decided) || left.is_zero() {
                return Ok(states);
            }
            cursor = self
                .inner
                .feed
                .page(cursor, left.as_millis() as u64)
                .await
                .next_cursor;
        }
    }
}

/// What the session of the external agent `client` is called in the
/// session picker: the tree's and the operations' own sessions by what
/// they hold, an MCP client or a terminal agent by its own name.
fn session_title(client: &str) -> &str {
    match client {
        super::file_ops::FILES => "Moves and deletions from the tree",
        super::operations::OPERATIONS => "Find and replace, and vault operations",
        other => other,
    }
}

/// What the review calls the proposer `client` in a job's badge: the tree,
/// the operations, or an MCP client or terminal agent by its own name.
pub(super) fn source_name(client: &str) -> &str {
    match client {
        super::file_ops::FILES => "tree",
        super::operations::OPERATIONS => "operations",
        other => other,
    }
}
