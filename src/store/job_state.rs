//! Sessions, jobs and event logs. Sessions and jobs are stored as JSON
//! documents with the columns lifecycle GC needs beside them; events are rows
//! keyed by (job, cursor), so reading from a cursor is one index range.

use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError};
use crate::config::Limits;
use crate::jobs::{Event, Job, Session};

fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("job documents serialize")
}

fn from_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("a stored document: {e}")))
}

impl Store {
    /// Inserts or replaces a session.
    pub fn put_session(&self, session: &Session) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO sessions (id, updated_at, doc) VALUES (?1, ?2, ?3)
             ON CONFLICT(id) DO UPDATE SET updated_at = ?2, doc = ?3",
            params![session.session_id, session.updated_at, to_json(session)],
        )?;
        Ok(())
    }

    /// The session `id`, if it exists.
    pub fn session(&self, id: &str) -> Result<Option<Session>, StoreError> {
        let doc: Option<String> = self
            .conn
            .query_row("SELECT doc FROM sessions WHERE id = ?1", [id], |r| r.get(0))
            .optional()?;
        doc.map(|d| from_json(&d)).transpose()
    }

    /// Every session, most recently updated first.
    pub fn sessions(&self) -> Result<Vec<Session>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT doc FROM sessions ORDER BY updated_at DESC, id DESC")?;
        let docs = stmt.query_map([], |r| r.get::<_, String>(0))?;
        docs.map(|d| from_json(&d?)).collect()
    }

    /// Deletes a session with its jobs and their events.
    pub fn delete_session(&self, id: &str) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .execute("DELETE FROM sessions WHERE id = ?1", [id])?
            > 0)
    }

    /// Inserts or replaces a job.
    pub fn put_job(&self, job: &Job) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO jobs (id, session_id, status, created_at, finished_at, doc) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT(id) DO UPDATE SET status = ?3, finished_at = ?5, doc = ?6",
            params![
                job.job_id,
                job.session_id,
                job.status.as_str(),
                job.created_at,
                job.finished_at,
                to_json(job)
            ],
        )?;
        Ok(())
    }

    /// The job `id`, if it exists.
    pub fn job(&self, id: &str) -> Result<Option<Job>, StoreError> {
        let doc: Option<String> = self
            .conn
            .query_row("SELECT doc FROM jobs WHERE id = ?1", [id], |r| r.get(0))
            .optional()?;
        doc.map(|d| from_json(&d)).transpose()
    }

    /// Jobs with one of `statuses`, oldest first.
    pub fn jobs_with_status(&self, statuses: &[&str]) -> Result<Vec<Job>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT doc, status FROM jobs ORDER BY created_at, id")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        let mut jobs = Vec::new();
        for row in rows {
            let (doc, status) = row?;
            if statuses.contains(&status.as_str()) {
                jobs.push(from_json(&doc)?);
            }
        }
        Ok(jobs)
    }

    /// Saves the loop state of a job waiting for the user (JSON).
    pub fn put_loop_state(&self, job_id: &str, state: Option<&str>) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE jobs SET loop_state = ?2 WHERE id = ?1",
            params![job_id, state],
        )?;
        Ok(())
    }

    /// The saved loop state of a job.
    pub fn loop_state(&self, job_id: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .query_row("SELECT loop_state FROM jobs WHERE id = ?1", [job_id], |r| {
                r.get(0)
            })
            .optional()?
            .flatten())
    }

    /// Appends an event at `cursor` (the job's next one).
    pub fn put_event(&self, job_id: &str, event: &Event) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO events (job_id, cursor, type, ts, data) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                job_id,
                event.cursor as i64,
                event.kind,
                event.ts,
                event.data.to_string()
            ],
        )?;
        Ok(())
    }

    /// The cursor the next event of a job gets (0 for the first).
    pub fn next_event_cursor(&self, job_id: &str) -> Result<u64, StoreError> {
        let last: Option<i64> = self.conn.query_row(
            "SELECT MAX(cursor) FROM events WHERE job_id = ?1",
            [job_id],
            |r| r.get(0),
        )?;
        Ok(last.map_or(0, |c| c as u64 + 1))
    }

    /// Appends many events of one job in one transaction (imports, benchmarks).
    pub fn put_events(&mut self, job_id: &str, events: &[Event]) -> Result<(), StoreError> {
        self.transaction(|tx| {
            let mut stmt = tx.prepare_cached(
                "INSERT INTO events (job_id, cursor, type, ts, data) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for e in events {
                stmt.execute(params![
                    job_id,
                    e.cursor as i64,
                    e.kind,
                    e.ts,
                    e.data.to_string()
                ])?;
            }
            Ok(())
        })
    }

    /// Up to `limit` events of a job from `cursor` on, in order.
    pub fn events(
        &self,
        job_id: &str,
        cursor: u64,
        limit: usize,
    ) -> Result<Vec<Event>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT cursor, type, ts, data FROM events WHERE job_id = ?1 AND cursor >= ?2 ORDER BY cursor LIMIT ?3",
        )?;
        let rows = stmt.query_map(params![job_id, cursor as i64, limit as i64], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
            ))
        })?;
        rows.map(|row| {
            let (cursor, kind, ts, data) = row?;
            Ok(Event {
                cursor: cursor as u64,
                kind,
                ts,
                data: from_json(&data)?,
            })
        })
        .collect()
    }

    /// Lifecycle GC (seed §25): purges completed, failed and cancelled jobs
    /// older than the TTL (`now_secs` is the current Unix time) or beyond a
    /// session's job limit, then whole sessions beyond the session limit whose
    /// jobs are all purgeable. Jobs waiting for the user or with a review
    /// open are never purged. Returns the jobs and sessions removed.
    pub fn gc(&mut self, limits: &Limits, now_secs: u64) -> Result<(usize, usize), StoreError> {
        let purgeable = "('completed', 'failed', 'cancelled')";
        let cutoff = humantime::format_rfc3339_millis(
            std::time::UNIX_EPOCH
                + std::time::Duration::from_secs(
                    now_secs.saturating_sub(limits.completed_ttl_hours * 3600),
                ),
        )
        .to_string();
        let max_jobs = limits.max_jobs_per_session as i64;
        let max_sessions = limits.max_sessions as i64;
        self.transaction(|tx| {
            let mut jobs = tx.execute(
                &format!("DELETE FROM jobs WHERE status IN {purgeable} AND finished_at < ?1"),
                [&cutoff],
            )?;
            jobs += tx.execute(
                &format!(
                    "DELETE FROM jobs WHERE status IN {purgeable} AND id IN (
                       SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY session_id ORDER BY created_at DESC, id DESC) AS n FROM jobs)
                       WHERE n > ?1)"
                ),
                [max_jobs],
            )?;
            let sessions = tx.execute(
                &format!(
                    "DELETE FROM sessions WHERE id IN (
                       SELECT id FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY updated_at DESC, id DESC) AS n FROM sessions)
                       WHERE n > ?1)
                     AND NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.session_id = sessions.id AND jobs.status NOT IN {purgeable})"
                ),
                [max_sessions],
            )?;
            Ok((jobs, sessions))
        })
    }
}
