//! Sessions, jobs and events in the store: the runtime's types written as
//! the store's rows (JSON documents with their columns, typed events as
//! type name and payload) and read back.

use super::shapes::{Event, Job, JobStatus, Session};
use crate::store::{EventRow, JobColumns, Store, StoreError};

use super::events::JobEvent;

/// The store's sessions, jobs and events as the runtime's types.
pub trait Records {
    /// Inserts or replaces a session.
    fn put_session(&self, session: &Session) -> Result<(), StoreError>;
    /// The session `id`, if it exists.
    fn session(&self, id: &str) -> Result<Option<Session>, StoreError>;
    /// Every session, most recently updated first.
    fn sessions(&self) -> Result<Vec<Session>, StoreError>;
    /// Inserts or replaces a job.
    fn put_job(&self, job: &Job) -> Result<(), StoreError>;
    /// The job `id`, if it exists.
    fn job(&self, id: &str) -> Result<Option<Job>, StoreError>;
    /// Jobs with one of `statuses`, oldest first.
    fn jobs_with_status(&self, statuses: &[JobStatus]) -> Result<Vec<Job>, StoreError>;
    /// The jobs of a session, oldest first.
    fn jobs_in_session(&self, session_id: &str) -> Result<Vec<Job>, StoreError>;
    /// Appends an event to a job's log.
    fn put_job_event(&self, job_id: &str, event: &Event) -> Result<(), StoreError>;
    /// Appends many events of one job in one transaction.
    fn put_job_events(&mut self, job_id: &str, events: &[Event]) -> Result<(), StoreError>;
    /// Up to `limit` events of a job from `cursor` on. An event this version
    /// cannot read is left out (and logged), not an error for the whole page.
    fn job_events(&self, job_id: &str, cursor: u64, limit: usize)
    -> Result<Vec<Event>, StoreError>;
}

fn row(event: &Event) -> EventRow {
    EventRow {
        cursor: event.cursor,
        kind: event.kind().to_owned(),
        ts: event.ts.clone(),
        data: event.data().to_string(),
    }
}

impl Records for Store {
    fn put_session(&self, session: &Session) -> Result<(), StoreError> {
        self.put_session_doc(&session.session_id, &session.updated_at, session)
    }

    fn session(&self, id: &str) -> Result<Option<Session>, StoreError> {
        self.session_doc(id)
    }

    fn sessions(&self) -> Result<Vec<Session>, StoreError> {
        self.session_docs()
    }

    fn put_job(&self, job: &Job) -> Result<(), StoreError> {
        let columns = JobColumns {
            id: &job.job_id,
            session_id: &job.session_id,
            status: job.status.as_str(),
            created_at: &job.created_at,
            finished_at: job.finished_at.as_deref(),
        };
        self.put_job_doc(columns, job)
    }

    fn job(&self, id: &str) -> Result<Option<Job>, StoreError> {
        self.job_doc(id)
    }

    fn jobs_with_status(&self, statuses: &[JobStatus]) -> Result<Vec<Job>, StoreError> {
        let names: Vec<&str> = statuses.iter().map(|s| s.as_str()).collect();
        self.job_docs_with_status(&names)
    }

    fn jobs_in_session(&self, session_id: &str) -> Result<Vec<Job>, StoreError> {
        self.job_docs_in_session(session_id)
    }

    fn put_job_event(&self, job_id: &str, event: &Event) -> Result<(), StoreError> {
        self.put_event(job_id, &row(event))
    }

    fn put_job_events(&mut self, job_id: &str, events: &[Event]) -> Result<(), StoreError> {
        let rows: Vec<EventRow> = events.iter().map(row).collect();
        self.put_events(job_id, &rows)
    }

    fn job_events(
        &self,
        job_id: &str,
        cursor: u64,
        limit: usize,
    ) -> Result<Vec<Event>, StoreError> {
        let rows = self.events(job_id, cursor, limit)?;
        Ok(rows
            .into_iter()
            .filter_map(|r| match JobEvent::decode(&r.kind, &r.data) {
                Ok(event) => Some(Event {
                    cursor: r.cursor,
                    ts: r.ts,
                    event,
                }),
                Err(e) => {
                    tracing::warn!(job = job_id, cursor = r.cursor, kind = %r.kind, error = %e,
                        "an event this version cannot read was left out");
                    None
                }
            })
            .collect())
    }
}
