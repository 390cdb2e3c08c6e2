//! Sessions, jobs and event logs. Sessions and jobs are stored as JSON
//! documents (whatever the caller serialises) with the columns lifecycle GC
//! needs beside them; events are rows keyed by (job, cursor), so reading
//! from a cursor is one index range.

use rusqlite::{OptionalExtension, params};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Store, StoreError};
use crate::config::Limits;

fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("job documents serialize")
}

fn from_json<T: DeserializeOwned>(text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("a stored document: {e}")))
}

/// The columns of a job row besides its document.
#[derive(Clone, Copy, Debug)]
pub struct JobColumns<'a> {
    /// Its id.
    pub id: &'a str,
    /// Its session's id (deleting the session deletes the job).
    pub session_id: &'a str,
    /// Its status, by name: GC purges `completed`, `failed` and `cancelled`.
    pub status: &'a str,
    /// When it was created (RFC 3339): GC keeps the newest.
    pub created_at: &'a str,
    /// When it ended: GC purges those older than the TTL.
    pub finished_at: Option<&'a str>,
}

/// One stored event of a job's log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventRow {
    /// Its place in the log.
    pub cursor: u64,
    /// Its type name.
    pub kind: String,
    /// When (RFC 3339).
    pub ts: String,
    /// Its payload, as JSON text.
    pub data: String,
}

impl Store {
    /// Inserts or replaces the session `id`, updated at `updated_at`.
    pub fn put_session_doc(
        &self,
        id: &str,
        updated_at: &str,
        doc: &impl Serialize,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO sessions (id, updated_at, doc) VALUES (?1, ?2, ?3)
             ON CONFLICT(id) DO UPDATE SET updated_at = ?2, doc = ?3",
            params![id, updated_at, to_json(doc)],
        )?;
        Ok(())
    }

    /// The session `id`, if it exists.
    pub fn session_doc<T: DeserializeOwned>(&self, id: &str) -> Result<Option<T>, StoreError> {
        let doc: Option<String> = self
            .conn
            .query_row("SELECT doc FROM sessions WHERE id = ?1", [id], |r| r.get(0))
            .optional()?;
        doc.map(|d| from_json(&d)).transpose()
    }

    /// Every session, most recently updated first.
    pub fn session_docs<T: DeserializeOwned>(&self) -> Result<Vec<T>, StoreError> {
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
    pub fn put_job_doc(&self, row: JobColumns<'_>, doc: &impl Serialize) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO jobs (id, session_id, status, created_at, finished_at, doc) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT(id) DO UPDATE SET status = ?3, finished_at = ?5, doc = ?6",
            params![
                row.id,
                row.session_id,
                row.status,
                row.created_at,
                row.finished_at,
                to_json(doc)
            ],
        )?;
        Ok(())
    }

    /// The job `id`, if it exists.
    pub fn job_doc<T: DeserializeOwned>(&self, id: &str) -> Result<Option<T>, StoreError> {
        let doc: Option<String> = self
            .conn
            .query_row("SELECT doc FROM jobs WHERE id = ?1", [id], |r| r.get(0))
            .optional()?;
        doc.map(|d| from_json(&d)).transpose()
    }

    /// Jobs with one of `statuses`, oldest first.
    pub fn job_docs_with_status<T: DeserializeOwned>(
        &self,
        statuses: &[&str],
    ) -> Result<Vec<T>, StoreError> {
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

    /// The jobs of session `id`, oldest first.
    pub fn job_docs_in_session<T: DeserializeOwned>(&self, id: &str) -> Result<Vec<T>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT doc FROM jobs WHERE session_id = ?1 ORDER BY created_at, id")?;
        let docs = stmt.query_map([id], |r| r.get::<_, String>(0))?;
        docs.map(|d| from_json(&d?)).collect()
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
    pub fn put_event(&self, job_id: &str, event: &EventRow) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO events (job_id, cursor, type, ts, data) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                job_id,
                event.cursor as i64,
                event.kind,
                event.ts,
                event.data
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
    pub fn put_events(&mut self, job_id: &str, events: &[EventRow]) -> Result<(), StoreError> {
        self.transaction(|tx| {
            let mut stmt = tx.prepare_cached(
                "INSERT INTO events (job_id, cursor, type, ts, data) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for e in events {
                stmt.execute(params![job_id, e.cursor as i64, e.kind, e.ts, e.data])?;
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
    ) -> Result<Vec<EventRow>, StoreError> {
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
            Ok(EventRow {
                cursor: cursor as u64,
                kind,
                ts,
                data,
            })
        })
        .collect()
    }

    /// Lifecycle GC: purges completed, failed and cancelled jobs
    /// older than the TTL (`now_secs` is the current Unix time) or beyond a
    /// session's job limit, then whole sessions beyond the session limit whose
    /// jobs are all purgeable. Jobs waiting for the user or with a review
    /// open are never purged, nor a finished job whose hunks the review
    /// still holds (a decision on them can be undone, and the undo is
    /// logged as the job's). Returns the jobs and sessions removed.
    pub fn gc(&mut self, limits: &Limits, now_secs: u64) -> Result<(usize, usize), StoreError> {
        let purgeable = "jobs.status IN ('completed', 'failed', 'cancelled')
            AND NOT EXISTS (SELECT 1 FROM entries WHERE entries.job_id = jobs.id)";
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
                &format!("DELETE FROM jobs WHERE {purgeable} AND finished_at < ?1"),
                [&cutoff],
            )?;
            jobs += tx.execute(
                &format!(
                    "DELETE FROM jobs WHERE {purgeable} AND id IN (
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
                     AND NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.session_id = sessions.id AND NOT ({purgeable}))"
                ),
                [max_sessions],
            )?;
            Ok((jobs, sessions))
        })
    }
}
