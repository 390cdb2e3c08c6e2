//! Sessions: create, read, rename, clear, delete.

use super::Runtime;
use crate::jobs::error::{RuntimeError, not_found};
use crate::jobs::records::Records;
use crate::jobs::shapes::{JobStatus, Session, now};

impl Runtime {
    /// Creates a session with `agent_id` (default `default`).
    pub fn create_session(&self, agent_id: Option<&str>) -> Result<Session, RuntimeError> {
        let agent = self.agent(agent_id.unwrap_or("default"))?;
        let n = self.db().reserve("session", 1)?;
        let at = now();
        let session = Session {
            session_id: format!("sess_{n}"),
            agent_id: agent.agent_id,
            name: None,
            status: "active".into(),
            created_at: at.clone(),
            updated_at: at,
            chat: Vec::new(),
            context_rows: Vec::new(),
            last_job_id: None,
            pending_review: None,
            reported_hunks: Default::default(),
        };
        self.db().put_session(&session)?;
        self.touch();
        self.gc()?;
        Ok(session)
    }

    /// The session `id`.
    pub fn session(&self, id: &str) -> Result<Session, RuntimeError> {
        self.db()
            .session(id)?
            .ok_or_else(|| not_found("session", id))
    }

    /// Every session, most recently updated first.
    pub fn sessions(&self) -> Result<Vec<Session>, RuntimeError> {
        Ok(self.db().sessions()?)
    }

    pub(super) fn update_session(
        &self,
        id: &str,
        change: impl FnOnce(&mut Session),
    ) -> Result<Session, RuntimeError> {
        let db = self.db();
        let mut session = db.session(id)?.ok_or_else(|| not_found("session", id))?;
        change(&mut session);
        session.updated_at = now();
        db.put_session(&session)?;
        drop(db);
        // Listed with the review: a listing of before is out of date.
        self.touch();
        Ok(session)
    }

    /// Renames a session.
    pub fn rename_session(&self, id: &str, name: &str) -> Result<Session, RuntimeError> {
        let name = name.trim().to_owned();
        self.update_session(id, |s| s.name = (!name.is_empty()).then_some(name))
    }

    /// Clears a session's chat and context, keeping its identity.
    pub fn clear_session(&self, id: &str) -> Result<Session, RuntimeError> {
        self.update_session(id, |s| {
            s.chat.clear();
            s.context_rows.clear();
        })
    }

    /// Deletes a session and its jobs; running jobs are cancelled first.
    pub fn delete_session(&self, id: &str) -> Result<(), RuntimeError> {
        let jobs: Vec<String> = self
            .db()
            .jobs_with_status(&[
                JobStatus::Queued,
                JobStatus::Running,
                JobStatus::WaitingForUser,
            ])?
            .into_iter()
            .filter(|j| j.session_id == id)
            .map(|j| j.job_id)
            .collect();
        for job in jobs {
            if let Some(live) = self.inner.live.lock().unwrap().remove(&job) {
                live.cancel.cancel();
            }
        }
        if !self.db().delete_session(id)? {
            return Err(not_found("session", id));
        }
        // Listed no more, and its jobs' hunks are listed under no job.
        self.touch();
        Ok(())
    }
}

/// The most characters of a title taken from an instruction.
const TITLE_CHARS: usize = 60;

/// A session's title from its first instruction: the first line, spaces
/// collapsed, cut at a word before [`TITLE_CHARS`] characters with `…`.
pub(super) fn title(instruction: &str) -> String {
    let line = instruction
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    let words: Vec<&str> = line.split_whitespace().collect();
    let whole = words.join(" ");
    if whole.chars().count() <= TITLE_CHARS {
        return whole;
    }
    let mut title = String::new();
    for word in words {
        let next = title.chars().count() + usize::from(!title.is_empty()) + word.chars().count();
        if next > TITLE_CHARS - 1 {
            break;
        }
        if !title.is_empty() {
            title.push(' ');
        }
        title.push_str(word);
    }
    if title.is_empty() {
        // One very long word.
        title = line.chars().take(TITLE_CHARS - 1).collect();
    }
    title.push('…');
    title
}

#[cfg(test)]
mod tests {
    use super::title;

    #[test]
    fn titles_are_the_first_line_cut_at_a_word() {
        assert_eq!(
            title("  Rename ATLAS\n\nto ORION everywhere"),
            "Rename ATLAS"
        );
        assert_eq!(title("fix   the\tdates"), "fix the dates");
        let long =
            "Change every status line from draft to final in the notes about the launch plan";
        let t = title(long);
        assert!(t.ends_with('…') && t.chars().count() <= 60, "{t}");
        assert_eq!(
            t,
            "Change every status line from draft to final in the notes…"
        );
        let word = "x".repeat(100);
        assert_eq!(title(&word).chars().count(), 60);
        assert_eq!(title("Ünïcödé ✓"), "Ünïcödé ✓");
    }
}
