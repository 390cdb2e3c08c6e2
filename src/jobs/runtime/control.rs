//! Controlling a job while it runs: answering its question, cancelling it.

use super::Runtime;
use crate::agent::Answer;
use crate::jobs::error::RuntimeError;
use crate::jobs::shapes::JobStatus;

impl Runtime {
    /// Answers (or, with `None`, skips) the question a job waits on.
    pub fn clarify(
        &self,
        job_id: &str,
        question_id: &str,
        answer: Option<String>,
    ) -> Result<(), RuntimeError> {
        let job = self.job(job_id)?;
        let pending = job
            .pending_question
            .filter(|_| job.status == JobStatus::WaitingForUser)
            .ok_or_else(|| {
                RuntimeError::Conflict(format!("job `{job_id}` is not waiting for an answer"))
            })?;
        if pending.question_id != question_id {
            return Err(RuntimeError::Conflict(format!(
                "job `{job_id}` waits on question `{}`, not `{question_id}`",
                pending.question_id
            )));
        }
        let live = self.inner.live.lock().unwrap();
        let sender = live
            .get(job_id)
            .ok_or_else(|| RuntimeError::Conflict(format!("job `{job_id}` is not running")))?;
        sender
            .answers
            .send(Answer {
                question_id: question_id.to_owned(),
                answer,
            })
            .map_err(|_| RuntimeError::Conflict(format!("job `{job_id}` has stopped")))
    }

    /// Cancels a job that has not finished.
    pub fn cancel(&self, job_id: &str) -> Result<(), RuntimeError> {
        let job = self.job(job_id)?;
        if job.status.is_terminal() {
            return Err(RuntimeError::Conflict(format!(
                "job `{job_id}` has already ended ({})",
                job.status.as_str()
            )));
        }
        match self.inner.live.lock().unwrap().get(job_id) {
            Some(live) => {
                live.cancel.cancel();
                Ok(())
            }
            None => Err(RuntimeError::Conflict(format!(
                "job `{job_id}` is not running"
            ))),
        }
    }
}
