//! A job's record and its event log: appending events (each one wakes the
//! long-polling readers), reading them from a cursor with a long poll, and
//! the status changes every reader follows.

use std::time::Duration;

use super::Runtime;
use crate::agent::Question;
use crate::jobs::error::{RuntimeError, not_found};
use crate::jobs::events::{FeedEvent, JobEvent, JobUpdated, RuntimeEvent, StatusChanged};
use crate::jobs::records::Records;
use crate::jobs::shapes::{Event, EventPage, Job, JobStatus, now};
use crate::review::Status;

impl Runtime {
    /// Changes the stored job `job_id`; returns it as saved, or `None` when
    /// there is no such job (deleted with its session meanwhile).
    pub(super) fn set_job(&self, job_id: &str, change: impl FnOnce(&mut Job)) -> Option<Job> {
        let db = self.db();
        let mut job = db.job(job_id).ok().flatten()?;
        change(&mut job);
        if let Err(e) = db.put_job(&job) {
            tracing::error!(job = job_id, error = %e, "could not save the job");
        }
        Some(job)
    }

    /// Records a status change (and the question waited on) and announces it.
    pub(super) fn set_status(&self, job_id: &str, status: JobStatus, question: Option<&Question>) {
        let job = self.set_job(job_id, |j| record_status(j, status, question));
        self.announce_status(job_id, status, question, job.as_ref());
    }

    /// Says that job `id` is now `status` (recorded by [`record_status`]):
    /// in its log and in the project feed.
    pub(super) fn announce_status(
        &self,
        job_id: &str,
        status: JobStatus,
        question: Option<&Question>,
        job: Option<&Job>,
    ) {
        self.emit(
            job_id,
            RuntimeEvent::Status(StatusChanged {
                status,
                question_id: question.map(|q| q.question_id.clone()),
            }),
        );
        if let Some(job) = job {
            self.inner.feed.push(FeedEvent::JobUpdated(JobUpdated {
                job_id: job.job_id.clone(),
                session_id: job.session_id.clone(),
                status,
            }));
        }
    }

    /// Appends an event to a job's log and wakes every waiting reader. Past
    /// `max_events_per_job`, only `job.*` events are kept, so a job's end is
    /// always recorded.
    pub(super) fn emit(&self, job_id: &str, event: impl Into<JobEvent>) {
        let event = event.into();
        let db = self.db();
        let cursor = match db.next_event_cursor(job_id) {
            Ok(c) => c,
            Err(e) => {
                tracing::error!(job = job_id, error = %e, "could not read the event log");
                return;
            }
        };
        let kind = event.kind();
        if cursor >= self.config().limits.max_events_per_job as u64 && !event.always_kept() {
            tracing::debug!(
                job = job_id,
                kind,
                "event dropped: the job's event log is full"
            );
            return;
        }
        let event = Event {
            cursor,
            ts: now(),
            event,
        };
        if let Err(e) = db.put_job_event(job_id, &event) {
            // Lifecycle GC purged the job while a checkpoint kept its hunks
            // (a rollback's undo brings them back): its log is gone with it.
            if matches!(db.job(job_id), Ok(None)) {
                tracing::debug!(job = job_id, kind, "event dropped: the job was purged");
            } else {
                tracing::error!(job = job_id, error = %e, "could not append an event");
            }
            return;
        }
        drop(db);
        tracing::info!(job = job_id, cursor, kind, data = %clip(&event.data().to_string()), "event");
        self.inner.changed.send_modify(|n| *n += 1);
    }

    /// The job `id`, with its cursor, and each hunk of its diff bundle
    /// with the decision it has now (`accepted`: `null` while pending or
    /// no longer under review).
    pub fn job(&self, id: &str) -> Result<Job, RuntimeError> {
        let mut job = self.stored_job(id)?;
        if let Some(bundle) = &mut job.diff_bundle {
            let ws = self.ws();
            let review = ws.review();
            let decided = |hunk_id: &str| {
                review.find_hunk(hunk_id).ok().and_then(|(path, i)| {
                    match review.file(&path)?.entries()[i].status {
                        Status::Accepted => Some(true),
                        Status::Rejected => Some(false),
                        Status::Pending => None,
                    }
                })
            };
            for hunk in bundle.files.iter_mut().flat_map(|f| &mut f.hunks) {
                hunk.accepted = decided(&hunk.hunk_id);
            }
            for op in &mut bundle.file_ops {
                op.accepted = decided(&op.hunk_id);
            }
        }
        Ok(job)
    }

    /// Job `id` without its edits and hunks (`proposed_edits` empty,
    /// `diff_bundle` null).
    pub fn job_brief(&self, id: &str) -> Result<Job, RuntimeError> {
        let mut job = self.stored_job(id)?;
        job.proposed_edits = Vec::new();
        job.diff_bundle = None;
        Ok(job)
    }

    /// Job `id` as stored, with the cursor its log has reached and the
    /// agent whose hook waits on it now.
    pub(super) fn stored_job(&self, id: &str) -> Result<Job, RuntimeError> {
        let db = self.db();
        let mut job = db.job(id)?.ok_or_else(|| not_found("job", id))?;
        job.cursor = db.next_event_cursor(id)?;
        drop(db);
        job.waiting_agent = self.waiting_agent(id);
        Ok(job)
    }

    /// The events of a job from `cursor` on. With `wait_ms`, waits up to that
    /// long for one to exist, answering the moment it does (long poll).
    pub async fn events(
        &self,
        job_id: &str,
        cursor: u64,
        wait_ms: u64,
    ) -> Result<EventPage, RuntimeError> {
        let deadline = tokio::time::Instant::now() + Duration::from_millis(wait_ms.min(60_000));
        let mut changed = self.inner.changed.subscribe();
        loop {
            // Subscribed before reading: an event appended after the read
            // still wakes us.
            changed.borrow_and_update();
            let (job, events) = {
                let db = self.db();
                let job = db.job(job_id)?.ok_or_else(|| not_found("job", job_id))?;
                (job, db.job_events(job_id, cursor, 500)?)
            };
            if !events.is_empty() || tokio::time::Instant::now() >= deadline {
                let next_cursor = events.last().map_or(cursor, |e| e.cursor + 1);
                return Ok(EventPage {
                    job_id: job_id.to_owned(),
                    status: job.status,
                    next_cursor,
                    events,
                });
            }
            let _ = tokio::time::timeout_at(deadline, changed.changed()).await;
        }
    }
}

/// An event's payload, cut for a log line.
fn clip(text: &str) -> &str {
    match text.char_indices().nth(300) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// Sets `job`'s status, the question it waits on, and when it started or
/// finished; [`Runtime::announce_status`] says so.
pub(super) fn record_status(job: &mut Job, status: JobStatus, question: Option<&Question>) {
    job.status = status;
    job.pending_question = question.cloned();
    if status == JobStatus::Running && job.started_at.is_none() {
        job.started_at = Some(now());
    }
    if status.is_terminal() && job.finished_at.is_none() {
        job.finished_at = Some(now());
    }
}
