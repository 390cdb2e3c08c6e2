//! Terminal agents' writes, asked before they land: a hook of the agent's
//! (`redline hook`, docs/agents.md) hands Redline the text a write would
//! leave; it is staged as a job of the agent's session, reviewed like any
//! proposal, and the outcome (each hunk's fate and the file's decided text)
//! goes back to the hook, which lets the write through rewritten to that
//! text or refuses it. A deletion or a move is staged as the note's own (a
//! move with the links to it following), and once accepted the hook has
//! Redline save it: the agent deleting or moving the note itself would
//! leave Redline's review of it in conflict.

use std::collections::HashMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::Runtime;
use super::external::HunkState;
use crate::agent::toolset::ModelEdit;
use crate::edits::lines::same_lines;
use crate::edits::{FileOp, Operation};
use crate::jobs::Job;
use crate::jobs::error::RuntimeError;
use crate::jobs::events::{AgentWriteWaiting, FeedEvent, JobUpdated};
use crate::review::Status;

/// A write a terminal agent is about to make to one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct AgentWrite {
    /// The agent, as the user knows it: `Claude Code`, `Codex`.
    pub agent: String,
    /// The agent's own session id: its writes are jobs of one Redline
    /// session, named after the agent and the session's first characters.
    pub session: String,
    /// The agent's tool (`Edit`, `Write`, `apply_patch`), for the job's title.
    pub tool: String,
    /// The file, relative to the project root.
    pub file_path: String,
    /// The file's text as the agent's write starts from it (what is on disk);
    /// `null` for a file the write creates.
    pub before: Option<String>,
    /// The file's text after the write (ignored when it `deletes`).
    pub after: String,
    /// The write deletes the file (Codex's `*** Delete File`). Default false.
    #[serde(default)]
    #[ts(optional, as = "Option<bool>")]
    pub deletes: bool,
    /// Where the write moves the file, `after` its text there (Codex's
    /// `*** Move to`); the links to it follow, as with any move.
    #[serde(default)]
    #[ts(optional)]
    pub moves_to: Option<String>,
}

/// What the hook asks of a staged write.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct OutcomeRequest {
    /// Wait up to this long (at most 60,000 ms) for every hunk to be
    /// decided. Default 0: answer at once.
    #[serde(default)]
    pub wait_ms: u64,
    /// Give up waiting: the hunks still pending are rejected with this
    /// reason (the hook's time limit ran out), and the outcome is final.
    #[serde(default)]
    pub withdraw: Option<String>,
}

/// What became of a staged write.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct WriteOutcome {
    /// The write's job.
    pub job_id: String,
    /// The file.
    pub file_path: String,
    /// Whether every hunk is decided (the outcome is final).
    pub decided: bool,
    /// Each hunk's fate: `pending`, `accepted`, `rejected` (with the
    /// user's reason), `changed` (the user's text) or `rolled_back`.
    pub hunks: Vec<HunkState>,
    /// Once decided, the file's text as the user decided it (what a save
    /// writes); `null` while pending, and when nothing of the write was
    /// kept (the text is what the file holds already), and for a deletion.
    pub text: Option<String>,
    /// Once decided, for a write that deletes the file: whether the user
    /// accepted the deletion (it is saved like any change, by the hook's
    /// request to save the file).
    #[serde(default)]
    pub deleted: bool,
    /// Once decided, for a write that moves the file: where, when the user
    /// accepted the move (saving the file there makes it, with `text`).
    #[serde(default)]
    pub moved_to: Option<String>,
    /// The other notes whose links to the file the accepted move updates
    /// (saving them writes the updated links).
    #[serde(default)]
    pub links: Vec<String>,
}

/// Longest wait one outcome request takes.
const MAX_WAIT: Duration = Duration::from_secs(60);

impl Runtime {
    /// Stages `write` as a job of the agent's session, reviewed like any
    /// proposal: returns it once its hunks await review. Refused (`conflict`)
    /// when the file holds something in Redline that is not on disk
    /// (pending hunks, a move or deletion, unsaved edits) or the disk moved
    /// on from `before`: the write would be decided over a text the agent
    /// never saw, or the staging refused it (a protected note). A write
    /// that changes nothing, or to a path Redline does not review, is
    /// `invalid_request`.
    pub async fn stage_agent_write(&self, write: &AgentWrite) -> Result<Job, RuntimeError> {
        if write.deletes && write.before.is_none() {
            return Err(RuntimeError::Invalid(format!(
                "the write deletes `{}`, which it says is not there",
                write.file_path
            )));
        }
        if !write.deletes
            && write.moves_to.is_none()
            && write
                .before
                .as_deref()
                .is_some_and(|before| same_lines(before, &write.after))
        {
            return Err(RuntimeError::Invalid(format!(
                "the write leaves the lines of `{}` as they are (a note keeps its own line \
                 endings and final newline)",
                write.file_path
            )));
        }
        let shown = match self.file_content(&write.file_path) {
            Ok(file) => Some(file),
            Err(e) if e.code() == "not_found" => None,
            // A path the guard refuses, a file that is not text.
            Err(e) => return Err(e),
        };
        let path = shown
            .as_ref()
            .map_or_else(|| write.file_path.clone(), |f| f.path.clone());
        match (&shown, &write.before) {
            (Some(file), Some(before))
                if file.text == *before
                    && file.state.pending_hunks.is_empty()
                    && !file.state.dirty => {}
            (None, None) => {}
            (Some(_), None) => {
                return Err(RuntimeError::Conflict(format!(
                    "`{path}` exists now; the agent's write would create it"
                )));
            }
            (None, Some(_)) => {
                return Err(RuntimeError::Conflict(format!(
                    "`{path}` is not there any more"
                )));
            }
            (Some(file), Some(_)) => {
                let why = if !file.state.pending_hunks.is_empty() || file.state.dirty {
                    "holds changes in Redline that are not saved (pending hunks, a move or \
                     edits); decide and save them first"
                } else {
                    "changed on disk since the agent read it"
                };
                return Err(RuntimeError::Conflict(format!("`{path}` {why}")));
            }
        }
        let mut edits = Vec::new();
        if write.deletes {
            edits.push(whole_file(&path, Operation::DeleteFile, None));
        } else if write.before.as_deref() != Some(write.after.as_str()) {
            edits.push(whole_edit(&path, write.before.as_deref(), &write.after));
        }
        if let Some(to) = &write.moves_to {
            edits.push(whole_file(&path, Operation::Move, Some(to.clone())));
        }
        let session = format!("{} · {}", write.agent, short(&write.session));
        let verb = match (&write.before, write.deletes, &write.moves_to) {
            (_, true, _) => "deletes".to_owned(),
            (_, _, Some(_)) => format!("moves {path} to"),
            (None, ..) => "creates".to_owned(),
            (Some(_), ..) => "edits".to_owned(),
        };
        let target = write.moves_to.as_deref().unwrap_or(&path);
        let instruction = format!("{} {verb} {target} ({})", write.agent, write.tool);
        let args = json!({ "edits": edits, "summary": instruction });
        // A refusal from here on (a protected note) is the hook's to deny,
        // not a path Redline leaves alone: `conflict`.
        let job = self
            .propose_after_reading(
                &session,
                &instruction,
                write.before.is_some().then_some(path.as_str()),
                args,
                "write",
            )
            .await
            .map_err(|e| match e {
                RuntimeError::Invalid(message) => RuntimeError::Conflict(message),
                e => e,
            })?;
        self.agent_writes().insert(
            job.job_id.clone(),
            Waiting {
                agent: write.agent.clone(),
                hooks: 0,
            },
        );
        self.inner
            .feed
            .push(FeedEvent::AgentWrite(AgentWriteWaiting {
                agent: write.agent.clone(),
                job_id: job.job_id.clone(),
                file_path: path,
            }));
        Ok(job)
    }

    /// What became of the write staged as `job_id`, once every hunk is
    /// decided or `request.wait_ms` has passed; with `withdraw`, the hunks
    /// still pending are rejected first with that reason.
    pub async fn agent_write_outcome(
        &self,
        job_id: &str,
        request: &OutcomeRequest,
    ) -> Result<WriteOutcome, RuntimeError> {
        let job = self.job(job_id)?;
        let bundle = job.diff_bundle.as_ref();
        // The file's move or deletion, if the write has one: its link
        // updates are the bundle's other files.
        let op = bundle.and_then(|b| b.file_ops.first());
        let file_path = op
            .map(|o| o.file_path.clone())
            .or_else(|| {
                bundle
                    .and_then(|b| b.files.first())
                    .map(|f| f.file_path.clone())
            })
            .ok_or_else(|| RuntimeError::Invalid(format!("job `{job_id}` staged no write")))?;
        let deletes = op.is_some_and(|o| o.op == FileOp::Delete);
        if let Some(reason) = &request.withdraw {
            for state in self.hunk_states(job_id, &[])? {
                if !state.decided() {
                    self.decide(&state.hunk_id, Status::Rejected, Some(reason), false)?;
                }
            }
        }
        let wait = Duration::from_millis(request.wait_ms).min(MAX_WAIT);
        let hunks = {
            // Marked on the job while the hook waits; unmarked however the
            // wait ends, the hook hanging up included (the future dropped).
            let _waits = (!wait.is_zero()).then(|| HookWaits::start(self, job_id));
            self.hunk_states_decided(job_id, &[], wait).await?
        };
        let decided = hunks.iter().all(HunkState::decided);
        if decided {
            // The outcome is final: no hook of this write waits again.
            self.agent_writes().remove(job_id);
        }
        let taken = |h: &HunkState| h.status == "accepted" || h.status == "changed";
        let kept = hunks.iter().any(taken);
        let op_taken =
            decided && op.is_some_and(|o| hunks.iter().any(|h| h.hunk_id == o.hunk_id && taken(h)));
        let moved_to = match op.map(|o| &o.op) {
            Some(FileOp::Move { to }) if op_taken => Some(to.clone()),
            _ => None,
        };
        let mut links: Vec<String> = Vec::new();
        if moved_to.is_some() {
            for h in hunks
                .iter()
                .filter(|h| taken(h) && h.file_path != file_path)
            {
                if !links.contains(&h.file_path) {
                    links.push(h.file_path.clone());
                }
            }
        }
        let text = if decided && kept && !deletes {
            let file = self.file_content(&file_path)?;
            let ws = self.ws();
            // What a save writes: the buffer without hunks still pending
            // (another job's, proposed meanwhile).
            Some(
                ws.review()
                    .file_of(&file.path)
                    .map_or(file.text, |f| ws.review().disk_view(f)),
            )
        } else {
            None
        };
        Ok(WriteOutcome {
            job_id: job_id.to_owned(),
            file_path,
            decided,
            hunks,
            text,
            deleted: op_taken && deletes,
            moved_to,
            links,
        })
    }
}

/// A staged write's agent, and how many of its hook's outcome requests
/// wait now.
pub(super) struct Waiting {
    agent: String,
    hooks: usize,
}

/// One outcome request waiting on a write's review: the job says its agent
/// waits from the first such request to the last one's end.
struct HookWaits<'a> {
    runtime: &'a Runtime,
    job_id: &'a str,
}

impl<'a> HookWaits<'a> {
    fn start(runtime: &'a Runtime, job_id: &'a str) -> HookWaits<'a> {
        let first = runtime.agent_writes().get_mut(job_id).is_some_and(|w| {
            w.hooks += 1;
            w.hooks == 1
        });
        if first {
            runtime.announce_waiting(job_id);
        }
        HookWaits { runtime, job_id }
    }
}

impl Drop for HookWaits<'_> {
    fn drop(&mut self) {
        let last = self
            .runtime
            .agent_writes()
            .get_mut(self.job_id)
            .is_some_and(|w| {
                w.hooks = w.hooks.saturating_sub(1);
                w.hooks == 0
            });
        if last {
            self.runtime.announce_waiting(self.job_id);
        }
    }
}

impl Runtime {
    fn agent_writes(&self) -> std::sync::MutexGuard<'_, HashMap<String, Waiting>> {
        self.inner
            .agent_writes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// The agent whose hook waits on job `id`'s review now, if any.
    pub(super) fn waiting_agent(&self, id: &str) -> Option<String> {
        self.agent_writes()
            .get(id)
            .filter(|w| w.hooks > 0)
            .map(|w| w.agent.clone())
    }

    /// Tells the window that whether an agent waits on job `id` changed: a
    /// `job.updated` with the status it has, so the job is fetched again.
    fn announce_waiting(&self, id: &str) {
        if let Ok(job) = self.stored_job(id) {
            self.inner.feed.push(FeedEvent::JobUpdated(JobUpdated {
                job_id: job.job_id,
                session_id: job.session_id,
                status: job.status,
            }));
        }
    }
}

/// The first eight characters of an agent's session id.
fn short(session: &str) -> &str {
    session
        .char_indices()
        .nth(8)
        .map_or(session, |(i, _)| &session[..i])
}

/// The edit that deletes the file at `path`, or moves it to `new_path`.
fn whole_file(path: &str, operation: Operation, new_path: Option<String>) -> ModelEdit {
    ModelEdit {
        file_path: path.to_owned(),
        operation,
        start_line: None,
        end_line: None,
        new_text: None,
        old_text: None,
        rationale: None,
        new_path,
    }
}

/// The one edit that turns `before` into `after`: the lines between their
/// common first and last lines replaced (or inserted, or deleted), or the
/// file created. The engine diffs it into hunks as it does any proposal.
fn whole_edit(path: &str, before: Option<&str>, after: &str) -> ModelEdit {
    let edit = |operation, start_line, end_line, new_text: String, old_text| ModelEdit {
        file_path: path.to_owned(),
        operation,
        start_line: Some(start_line),
        end_line,
        new_text: Some(new_text),
        old_text,
        rationale: None,
        new_path: None,
    };
    let Some(before) = before else {
        return edit(Operation::Create, 1, None, after.to_owned(), None);
    };
    let old: Vec<&str> = before.split_inclusive('\n').collect();
    let new: Vec<&str> = after.split_inclusive('\n').collect();
    let head = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let tail = old[head..]
        .iter()
        .rev()
        .zip(new[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (gone, came) = (&old[head..old.len() - tail], &new[head..new.len() - tail]);
    let (start, end) = (head + 1, head + gone.len());
    match (gone.is_empty(), came.is_empty()) {
        (true, _) => edit(Operation::Insert, start, None, came.concat(), None),
        (false, true) => edit(
            Operation::Delete,
            start,
            Some(end),
            String::new(),
            Some(gone.concat()),
        ),
        (false, false) => edit(
            Operation::Replace,
            start,
            Some(end),
            came.concat(),
            Some(gone.concat()),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Limits;
    use crate::edits::prepare;
    use crate::project::Project;

    /// The text the engine stages for `whole_edit(before, after)`.
    fn staged(before: &str, after: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), before).unwrap();
        let project = Project::open(dir.path(), Limits::default()).unwrap();
        let edit = whole_edit("a.md", Some(before), after).into_edit(1);
        let files = prepare(&project, &[edit]).unwrap_or_else(|e| panic!("{e:?}"));
        files[0].proposed.clone()
    }

    #[test]
    fn the_edit_leaves_exactly_the_text_after() {
        let cases = [
            ("a\nb\nc\n", "a\nB\nc\n"),
            ("a\nb\nc\n", "a\nb\nx\ny\nc\n"),
            ("a\nb\nc\n", "a\nc\n"),
            ("a\nb\nc\n", "z\na\nb\nc\n"),
            ("a\nb\nc\n", "a\nb\nc\nd\n"),
            ("a\r\nb\r\nc\r\n", "a\r\nB\r\nB2\r\nc\r\n"),
            ("a\nb\nno newline", "a\nb\nchanged, still none"),
            ("a\nb", "a\nb\nc"),
            ("same\nsame\nsame\n", "same\nsame\n"),
        ];
        for (before, after) in cases {
            assert_eq!(staged(before, after), after, "{before:?} → {after:?}");
        }
    }

    #[test]
    fn a_new_file_is_created_and_a_session_named_by_its_start() {
        let edit = whole_edit("n.md", None, "# New\n").into_edit(1);
        assert_eq!(
            (edit.operation, edit.new_text.as_str()),
            (Operation::Create, "# New\n")
        );
        assert_eq!(short("a0890ae0-e568-4806"), "a0890ae0");
        assert_eq!(short("abc"), "abc");
    }
}
