//! A job's review: decisions on its hunks one by one, and apply (decide the
//! rest at once and write the files).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{EXTERNAL_AGENT, Runtime};
use crate::agent::{Fate, ReviewNote};
use crate::hunks::triage::{RiskFlag, Rule, at_risk};
use crate::hunks::{DiffBundle, Hunk};
use crate::jobs::error::RuntimeError;
use crate::jobs::events::{
    ApplyCompleted, ApplyProgress, ApplyStarted, FeedEvent, ReviewBatch, ReviewFinished,
    ReviewUpdated, RuntimeEvent,
};
use crate::jobs::records::Records;
use crate::jobs::shapes::{
    DecidedMany, Job, JobError, JobStatus, PatternGroup, ProjectListing, ReviewGroup, ReviewQueue,
    Selection, Session,
};
use crate::review::{Decision, HunkMove, Review, Status};
use crate::workspace::{AppliedFile, FileContent, step_label};

/// The fewest files of an apply (or a Save all) that reports its progress.
pub(super) const PROGRESS_FROM: usize = 500;

impl Runtime {
    /// Accepts or rejects one hunk of a job's review (with the hunks that
    /// depend on it or that it stands on), or undoes its latest decision
    /// (`pending`), and records `review.updated` in the log of each job whose
    /// hunks moved and in the project feed. With `dry_run`, only says what
    /// would move. Returns the moves and the file as it is now.
    pub fn decide(
        &self,
        hunk_id: &str,
        status: Status,
        reason: Option<&str>,
        dry_run: bool,
    ) -> Result<(Decision, FileContent), RuntimeError> {
        let (decision, jobs, file) = {
            let mut ws = self.ws();
            let decision = if dry_run {
                ws.plan_decision(hunk_id, status)?
            } else {
                ws.decide(hunk_id, status, reason)?
            };
            let review = ws.review();
            let jobs: Vec<(String, Option<String>, Status)> = decision
                .moves
                .iter()
                .map(|m| {
                    let job = review
                        .find_hunk(&m.hunk_id)
                        .ok()
                        .and_then(|(p, i)| review.file(&p)?.entries()[i].job_id.clone());
                    (m.hunk_id.clone(), job, m.to)
                })
                .collect();
            let file = ws.file_content(&decision.path)?;
            (decision, jobs, file)
        };
        if dry_run {
            return Ok((decision, file));
        }
        for (hunk, job_id, status) in &jobs {
            let update = ReviewUpdated {
                path: file.path.clone(),
                state: file.state.clone(),
                hunk_id: Some(hunk.clone()),
                status: Some(*status),
                job_id: job_id.clone(),
                accepted: None,
            };
            if let Some(job_id) = job_id {
                self.emit(job_id, RuntimeEvent::ReviewUpdated(update.clone()));
            }
            self.inner.feed.push(FeedEvent::ReviewUpdated(update));
        }
        let mut settled: Vec<String> = Vec::new();
        for job in jobs.into_iter().filter_map(|(_, j, _)| j) {
            if !settled.contains(&job) {
                settled.push(job);
            }
        }
        self.settle(settled);
        Ok((decision, file))
    }

    /// Sets the hunks `selection` names to `status` as one step of the
    /// history, said as `label` (what the window calls them; default: the
    /// selection described), `pending` undoing their latest decision, and
    /// records one `review.batch` in the log of each job whose hunks moved
    /// and in the project feed.
    pub fn decide_many(
        &self,
        selection: &Selection,
        status: Status,
        label: Option<&str>,
    ) -> Result<DecidedMany, RuntimeError> {
        let hunk_ids = self.select(selection, status)?;
        let (decisions, jobs) = {
            let mut ws = self.ws();
            let label = match label {
                Some(label) => step_label(status, label),
                None => step_label(status, &selection.describe(hunk_ids.len())),
            };
            let decisions = ws.decide_many_as(&hunk_ids, status, label)?;
            let jobs = jobs_moved(ws.review(), decisions.iter().flat_map(|d| &d.moves));
            (decisions, jobs)
        };
        let moved = decisions
            .iter()
            .flat_map(|d| &d.moves)
            .filter(|m| m.from != m.to)
            .count();
        // A file the decision came back to (a move it carried, a link kept)
        // is one file still.
        let files = decisions
            .iter()
            .filter(|d| d.moves.iter().any(|m| m.from != m.to))
            .map(|d| d.path.as_str())
            .collect::<BTreeSet<_>>()
            .len();
        let batch = ReviewBatch {
            job_ids: jobs.clone(),
            status,
            hunks: moved,
            files,
        };
        for job in &jobs {
            self.emit(job, RuntimeEvent::ReviewBatch(batch.clone()));
        }
        self.inner.feed.push(FeedEvent::ReviewBatch(batch));
        self.settle(jobs);
        Ok(DecidedMany {
            status,
            selected: hunk_ids.len(),
            moved,
            files,
            hidden_user_text: decisions
                .into_iter()
                .flat_map(|d| d.hidden_user_text)
                .collect(),
        })
    }

    /// The hunks `selection` names: of a pattern, the unflagged ones or
    /// all of a job's, the pending hunks to decide, or the decided ones to
    /// undo.
    fn select(&self, selection: &Selection, status: Status) -> Result<Vec<String>, RuntimeError> {
        // A pattern's hunks, or (no pattern) the unflagged ones, or all.
        let (job_id, pattern, all) = match selection {
            Selection::Hunks { hunk_ids } => return Ok(hunk_ids.clone()),
            Selection::Pattern { job_id, pattern_id } => (job_id, Some(pattern_id), false),
            Selection::Unflagged { job_id } => (job_id, None, false),
            Selection::Job { job_id } => (job_id, None, true),
        };
        let pick = |h: &Hunk| match pattern {
            Some(p) => h.pattern.as_ref() == Some(p),
            None => all || !at_risk(&h.flags),
        };
        let job = self.job(job_id)?;
        let bundle = job.diff_bundle.unwrap_or_default();
        if let Some(pattern_id) = pattern
            && !bundle.patterns.iter().any(|p| &p.pattern_id == pattern_id)
        {
            return Err(RuntimeError::Invalid(format!(
                "job `{job_id}` has no pattern `{pattern_id}`"
            )));
        }
        let ws = self.ws();
        let review = ws.review();
        let wanted = |h: &str| match review.find_hunk(h) {
            Ok((path, i)) => {
                let pending =
                    review.file(&path).expect("found").entries()[i].status == Status::Pending;
                pending != (status == Status::Pending)
            }
            Err(_) => false,
        };
        // Moves and deletions belong to no pattern: they count as unflagged
        // hunks when no rule flagged them.
        let ops = bundle
            .file_ops
            .iter()
            .filter(|op| pattern.is_none() && (all || !at_risk(&op.flags)) && wanted(&op.hunk_id))
            .map(|op| op.hunk_id.clone());
        Ok(ops
            .chain(
                bundle
                    .files
                    .iter()
                    .flat_map(|f| &f.hunks)
                    .filter(|h| pick(h) && wanted(&h.hunk_id))
                    .map(|h| h.hunk_id.clone()),
            )
            .collect())
    }

    /// The review queue, the files with a working buffer (their review
    /// state) and the sessions, all taken at one revision with the feed's cursor before it:
    /// the window lists them as one moment, so that nothing it shows has to
    /// be reconciled. A change made while they are read is a new revision,
    /// and they are read again (five tries; then the last, which the feed's
    /// events after its cursor bring up to date).
    pub fn listing(&self) -> Result<ProjectListing, RuntimeError> {
        let mut tries = 0;
        loop {
            tries += 1;
            let revision = self.revision();
            let mut review = self.review_queue()?;
            review.sessions = Some(self.sessions()?);
            let files = self.ws().tree("", true)?;
            if self.revision() == revision || tries == 5 {
                return Ok(ProjectListing {
                    feed_cursor: review.feed_cursor,
                    revision,
                    review,
                    files,
                });
            }
        }
    }

    /// Every pending hunk of the project, grouped by job (oldest first),
    /// each with its pattern and flags, and each job's patterns; in one
    /// page, numbered 0 (the API pages it).
    pub fn review_queue(&self) -> Result<ReviewQueue, RuntimeError> {
        // Read first: what changes while the queue is made is in the feed after it.
        let feed_cursor = self.feed().next_cursor();
        let hunks = self.ws().pending_hunks();
        let mut groups: Vec<ReviewGroup> = Vec::new();
        for hunk in hunks {
            match groups.iter_mut().find(|g| g.job_id == hunk.job_id) {
                Some(group) => group.hunks.push(hunk),
                None => groups.push(ReviewGroup {
                    job_id: hunk.job_id.clone(),
                    session_id: None,
                    instruction: String::new(),
                    source: None,
                    hunks: vec![hunk],
                    pending: 0,
                    patterns: Vec::new(),
                    flagged: 0,
                }),
            }
        }
        let db = self.db();
        let mut order = Vec::new();
        for group in &mut groups {
            group.pending = group.hunks.len();
            let job = match &group.job_id {
                Some(id) => db.job(id)?,
                None => None,
            };
            match job {
                Some(job) => {
                    group.source = db.session(&job.session_id)?.and_then(|s| {
                        let client = s.agent_id.strip_prefix(EXTERNAL_AGENT)?;
                        Some(super::external::source_name(client).to_owned())
                    });
                    group.session_id = Some(job.session_id);
                    group.instruction = job.instruction;
                    order.push(job.created_at);
                    if let Some(bundle) = &job.diff_bundle {
                        let ws = self.ws();
                        let rejected = |hunk: &str| {
                            ws.review().find_hunk(hunk).is_ok_and(|(path, i)| {
                                ws.review().file(&path).expect("found").entries()[i].status
                                    == Status::Rejected
                            })
                        };
                        triaged(group, bundle, &rejected);
                    }
                }
                None => {
                    group.instruction = "Other changes".into();
                    // After every job.
                    order.push("~".into());
                }
            }
        }
        let mut keyed: Vec<(String, ReviewGroup)> = order.into_iter().zip(groups).collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        let jobs: Vec<ReviewGroup> = keyed.into_iter().map(|(_, g)| g).collect();
        Ok(ReviewQueue {
            total: jobs.iter().map(|g| g.hunks.len()).sum(),
            offset: 0,
            snapshot: 0,
            feed_cursor,
            jobs,
            sessions: None,
        })
    }

    /// What became of the hunks the session's earlier jobs proposed, since
    /// the agent was last told (`session.reported_hunks`), in the order they
    /// were proposed; and the report to record once it is told. Pending hunks
    /// are not news.
    pub(super) fn review_notes(
        &self,
        session: &Session,
    ) -> Result<(Vec<ReviewNote>, BTreeMap<String, String>), RuntimeError> {
        let jobs = self.db().jobs_in_session(&session.session_id)?;
        let mut reported = session.reported_hunks.clone();
        let mut notes = Vec::new();
        let ws = self.ws();
        for bundle in jobs.iter().filter_map(|j| j.diff_bundle.as_ref()) {
            for diff in &bundle.files {
                for hunk in &diff.hunks {
                    let fate = ws.review().hunk_fate(&hunk.hunk_id);
                    let (key, path, line, fate) = match fate {
                        None => (
                            "rolled_back",
                            diff.file_path.clone(),
                            hunk.new_start + 1,
                            Fate::RolledBack,
                        ),
                        Some(f) if f.edited && f.status == Status::Accepted => {
                            ("edited", f.path, f.line, Fate::Edited { now: f.now })
                        }
                        Some(f) => match f.status {
                            Status::Pending => continue,
                            Status::Accepted => ("accepted", f.path, f.line, Fate::Accepted),
                            Status::Rejected => (
                                "rejected",
                                f.path,
                                f.line,
                                Fate::Rejected {
                                    old: f.old,
                                    reason: f.reason,
                                },
                            ),
                        },
                    };
                    if reported.get(&hunk.hunk_id).map(String::as_str) == Some(key) {
                        continue;
                    }
                    reported.insert(hunk.hunk_id.clone(), key.to_owned());
                    notes.push(ReviewNote {
                        path,
                        line,
                        hunk_id: hunk.hunk_id.clone(),
                        fate,
                    });
                }
            }
        }
        Ok((notes, reported))
    }

    /// Keeps each of `jobs` in step with its review: one awaiting review
    /// whose every hunk is decided and whose files are saved is completed
    /// (Apply stays for deciding the rest at once; this is the path of a
    /// review done hunk by hunk); a completed one with a hunk set back to
    /// pending awaits review again.
    pub(super) fn settle(&self, jobs: impl IntoIterator<Item = String>) {
        for job_id in jobs {
            let Ok(job) = self.job(&job_id) else { continue };
            let Some(bundle) = &job.diff_bundle else {
                continue;
            };
            let progress = self.ws().review_progress(bundle);
            let open = matches!(
                job.status,
                JobStatus::AwaitingReview | JobStatus::BudgetExceeded
            );
            if open && progress.finished() {
                self.emit(
                    &job_id,
                    RuntimeEvent::ReviewFinished(ReviewFinished {
                        accepted: progress.accepted,
                        rejected: progress.rejected,
                    }),
                );
                self.set_status(&job_id, JobStatus::Completed, None);
                let _ = self.update_session(&job.session_id, |s| {
                    if s.pending_review.as_deref() == Some(job_id.as_str()) {
                        s.pending_review = None;
                    }
                });
            } else if job.status == JobStatus::Completed && progress.pending > 0 {
                self.set_status(&job_id, JobStatus::AwaitingReview, None);
                let _ = self.update_session(&job.session_id, |s| {
                    s.pending_review = Some(job_id.clone());
                });
            }
        }
    }

    /// Applies a job's review: the listed hunks are accepted, the job's
    /// others rejected, and the files written after their hash check. A file
    /// that changed on disk is a `conflict`: nothing is written for it, and
    /// the job can be re-run on the current content ([`Runtime::rerun`]).
    /// `job` is as [`Runtime::job`] answered it: the caller has it already,
    /// and a vault-wide job is megabytes to read again.
    pub fn apply(
        &self,
        job: &Job,
        accepted_hunk_ids: &[String],
    ) -> Result<Vec<AppliedFile>, RuntimeError> {
        let job_id = job.job_id.as_str();
        let bundle = job
            .diff_bundle
            .as_ref()
            .filter(|_| {
                matches!(
                    job.status,
                    JobStatus::AwaitingReview | JobStatus::BudgetExceeded
                )
            })
            .ok_or_else(|| RuntimeError::Conflict(format!("job `{job_id}` has no review open")))?;
        if let Some(stray) = accepted_hunk_ids.iter().find(|h| !bundle.contains(h)) {
            return Err(RuntimeError::Invalid(format!(
                "hunk `{stray}` is not part of job `{job_id}`"
            )));
        }
        self.emit(
            job_id,
            RuntimeEvent::ApplyStarted(ApplyStarted {
                accepted: accepted_hunk_ids.len(),
            }),
        );
        // Only this job's hunks are decided: another job's pending hunks in
        // the same files stay staged, and saving writes the buffer without them.
        let total = bundle.files.len();
        // Only an apply long enough to watch reports how far it has come.
        let mut progress = |done: usize| {
            if total >= PROGRESS_FROM {
                self.emit(
                    job_id,
                    RuntimeEvent::ApplyProgress(ApplyProgress { done, total }),
                )
            }
        };
        let report = self.ws().apply(bundle, accepted_hunk_ids, &mut progress)?;
        let conflicts = report.iter().filter(|f| f.status == "conflict").count();
        self.emit(
            job_id,
            RuntimeEvent::ApplyCompleted(ApplyCompleted {
                written: report.len() - conflicts,
                not_written: report
                    .iter()
                    .filter(|f| f.status == "conflict")
                    .cloned()
                    .collect(),
                conflicts,
                rerun_available: conflicts > 0,
            }),
        );
        if conflicts == 0 {
            self.set_status(job_id, JobStatus::Completed, None);
        } else {
            self.set_job(job_id, |j| {
                j.error = Some(JobError {
                    code: "conflict".into(),
                    message: format!(
                        "{conflicts} files changed on disk since the agent read them; nothing was written to them. Re-run the job on the current content."
                    ),
                })
            });
            self.set_status(job_id, JobStatus::Failed, None);
        }
        let _ = self.update_session(&job.session_id, |s| {
            if s.pending_review.as_deref() == Some(job_id) {
                s.pending_review = None;
            }
        });
        Ok(report)
    }
}

/// Gives `group`'s pending hunks their pattern and flags from the job's
/// `bundle`, and the group its patterns with their pending counts.
fn triaged(group: &mut ReviewGroup, bundle: &DiffBundle, rejected: &dyn Fn(&str) -> bool) {
    let by_id: HashMap<&str, &Hunk> = bundle
        .files
        .iter()
        .flat_map(|f| &f.hunks)
        .map(|h| (h.hunk_id.as_str(), h))
        .collect();
    let mut counts: HashMap<&str, (usize, BTreeSet<String>)> = HashMap::new();
    for pending in &mut group.hunks {
        if let Some(op) = bundle
            .file_ops
            .iter()
            .find(|o| o.hunk_id == pending.hunk_id)
        {
            pending.flags = op.flags.clone();
            pending.followers = op.followers.clone();
            // A link update rejected on its own leaves its link behind.
            let left = op.followers.iter().filter(|h| rejected(h)).count();
            if left > 0 {
                pending.flags.push(RiskFlag::new(Rule::DeadLink, format!(
                        "{left} of its link updates {} rejected: accepted, it leaves {} pointing at the old path",
                        if left == 1 { "was" } else { "were" },
                        if left == 1 { "that link" } else { "those links" },
                    )));
            }
            continue;
        }
        let Some(hunk) = by_id.get(pending.hunk_id.as_str()) else {
            continue;
        };
        pending.pattern = hunk.pattern.clone();
        pending.flags = hunk.flags.clone();
        if let Some(p) = &hunk.pattern {
            let (n, files) = counts.entry(p.as_str()).or_default();
            *n += 1;
            if !files.contains(&pending.path) {
                files.insert(pending.path.clone());
            }
        }
    }
    group.flagged = group.hunks.iter().filter(|h| at_risk(&h.flags)).count();
    group.patterns = bundle
        .patterns
        .iter()
        .filter_map(|p| {
            let (pending, files) = counts.get(p.pattern_id.as_str())?;
            Some(PatternGroup {
                pattern: p.clone(),
                pending: *pending,
                pending_files: files.len(),
            })
        })
        .collect();
}

/// The jobs whose hunks `moves` moved, in the order first met.
pub(super) fn jobs_moved<'a>(
    review: &Review,
    moves: impl IntoIterator<Item = &'a HunkMove>,
) -> Vec<String> {
    let mut jobs: Vec<String> = Vec::new();
    for m in moves {
        if let Some(job) = review
            .job_of(&m.hunk_id)
            .filter(|j| !jobs.iter().any(|k| k == j))
        {
            jobs.push(job.to_owned());
        }
    }
    jobs
}
