//! Other programs' writes as jobs: each burst the watcher saw (one agent's
//! step, a script's run) is a job of the `outside` session, titled by when
//! it happened and what it touched, whose hunks are reviewed like a
//! proposal's (see [`Workspace::stage_outside`]). Its status says whether
//! any of it still waits for a decision.
//!
//! [`Workspace::stage_outside`]: crate::workspace::Workspace::stage_outside

use std::collections::HashSet;

use super::{EXTERNAL_AGENT, Runtime};
use crate::config::OutsideMode;
use crate::jobs::error::RuntimeError;
use crate::jobs::events::{
    FeedEvent, JobStaged, OutsideDestructive, OutsideNotReviewable, RuntimeEvent,
};
use crate::jobs::records::Records;
use crate::jobs::shapes::{Job, JobStatus, JobUsage, now};
use crate::workspace::{FileChange, NotReviewable, OutsideChange, RunInfo};

use super::log::record_status;

/// The session (and external agent) other programs' changes are grouped in.
pub const OUTSIDE: &str = "outside";

impl Runtime {
    /// The newest job of the `outside` session, if any: the last group of
    /// other programs' changes.
    pub fn latest_outside_job(&self) -> Option<String> {
        let agent = format!("{EXTERNAL_AGENT}{OUTSIDE}");
        self.sessions()
            .ok()?
            .into_iter()
            .find(|s| s.agent_id == agent)?
            .last_job_id
    }

    /// `outside_changes` in force in this folder: its own, else the
    /// top-level one.
    pub fn outside_mode(&self) -> OutsideMode {
        self.config().outside_changes_in(self.project().root())
    }

    /// Whether another program's change to `path` would be taken in as an
    /// outside change (see [`Workspace::takes_outside`]), as
    /// [`Runtime::outside_mode`] allows.
    ///
    /// [`Workspace::takes_outside`]: crate::workspace::Workspace::takes_outside
    pub fn takes_outside(&self, path: &str) -> bool {
        self.outside_mode() != OutsideMode::Off && self.ws().takes_outside(path)
    }

    /// Takes in `changes` (one burst of other programs' writes) as one
    /// job, as [`Runtime::outside_mode`] says, and announces
    /// each file as changed. A file that could not be staged is taken in
    /// as before ([`Runtime::external_change`]: reloaded, or a conflict).
    /// The files of the burst that cannot be reviewed (`unreviewable`) are
    /// listed with the job (`Job::not_reviewable`, and `outside.not_reviewable`
    /// in the feed). Returns the job, `None` when there is none.
    pub fn take_outside(
        &self,
        changes: &[OutsideChange],
        unreviewable: &[NotReviewable],
    ) -> Result<Option<Job>, RuntimeError> {
        // A file Redline held a buffer of follows the disk (`reloaded`), as
        // before; one it did not is `changed`.
        let held: Vec<bool> = changes.iter().map(|c| self.under_review(&c.path)).collect();
        let job = self.stage_outside(changes, unreviewable);
        let staged: HashSet<&str> = match &job {
            Ok(Some((_, paths))) => paths.iter().map(String::as_str).collect(),
            _ => HashSet::new(),
        };
        for (change, held) in changes.iter().zip(held) {
            if staged.contains(change.path.as_str()) {
                for path in std::iter::once(&change.path).chain(&change.moved_to) {
                    let disk_hash = self.project().disk_hash(path).ok().flatten();
                    let path = path.clone();
                    self.inner.feed.push(FeedEvent::of_change(if held {
                        FileChange::Reloaded { path, disk_hash }
                    } else {
                        FileChange::Changed { path, disk_hash }
                    }));
                }
            } else if let Err(e) = self.external_change(&change.path) {
                tracing::debug!(path = %change.path, error = %e, "change not taken in");
            }
        }
        job.map(|job| job.map(|(job, _)| job))
    }

    fn stage_outside(
        &self,
        changes: &[OutsideChange],
        unreviewable: &[NotReviewable],
    ) -> Result<Option<(Job, Vec<String>)>, RuntimeError> {
        let mode = self.outside_mode();
        // Nothing to stage or list: no group (nor its session).
        if mode == OutsideMode::Off
            || (unreviewable.is_empty() && self.ws().stageable(changes).is_empty())
        {
            return Ok(None);
        }
        let session = self.external_session(OUTSIDE)?;
        let n = self.db().reserve("job", 1)?;
        let job_id = format!("job_{n}");
        let mut job = Job::new(
            job_id.clone(),
            session.session_id.clone(),
            title(changes, unreviewable),
            1,
        );
        let run = RunInfo {
            session_id: Some(session.session_id.clone()),
            job_id: job_id.clone(),
            instruction: job.instruction.clone(),
            seen: None,
            answers: Vec::new(),
            reads: Default::default(),
        };
        job.not_reviewable = unreviewable.to_vec();
        let Some(mut group) = self.ws().stage_outside(&run, changes, mode)? else {
            if unreviewable.is_empty() {
                return Ok(None);
            }
            // Nothing to review, but a listing of what changed.
            job.summary = Some(format!(
                "{} file(s) changed by another program, not reviewable: {}",
                unreviewable.len(),
                listing(unreviewable)
            ));
            record_status(&mut job, JobStatus::Completed, None);
            self.db().put_job(&job)?;
            self.update_session(&session.session_id, |s| {
                s.last_job_id = Some(job_id.clone());
            })?;
            self.touch();
            self.announce_status(&job_id, JobStatus::Completed, None, Some(&job));
            self.announce_unreviewable(&job_id, unreviewable);
            return Ok(Some((job, Vec::new())));
        };
        let hunks = group.bundle.hunk_count();
        let files = group.bundle.paths().len();
        let mut summary = match group.destructive.len() {
            0 => format!("{hunks} hunk(s) in {files} file(s), written by another program"),
            n => format!(
                "{hunks} hunk(s) in {files} file(s), written by another program; held for review: {n} file(s) deleted, emptied, cut by half or changed at once ({}{})",
                group
                    .destructive
                    .iter()
                    .take(5)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", "),
                if n > 5 { ", …" } else { "" }
            ),
        };
        let restore: Vec<String> = group
            .bundle
            .file_ops
            .iter()
            .filter(|op| group.destructive.contains(&op.file_path))
            .map(|op| op.hunk_id.clone())
            .chain(
                group
                    .bundle
                    .files
                    .iter()
                    .filter(|f| group.destructive.contains(&f.file_path))
                    .flat_map(|f| f.hunks.iter().map(|h| h.hunk_id.clone())),
            )
            .collect();
        if !unreviewable.is_empty() {
            summary.push_str(&format!("; not reviewable: {}", listing(unreviewable)));
        }
        job.summary = Some(summary.clone());
        job.checkpoint_id = Some(group.checkpoint.checkpoint_id.clone());
        job.diff_bundle = Some(group.bundle);
        record_status(&mut job, JobStatus::AwaitingReview, None);
        self.db().put_job(&job)?;
        self.update_session(&session.session_id, |s| {
            s.last_job_id = Some(job_id.clone());
            s.pending_review = Some(job_id.clone());
        })?;
        // The hunks were staged before the job was stored: a listing made
        // in between named their group after no job, and was kept as the
        // listing of this revision.
        self.touch();
        self.emit(
            &job_id,
            RuntimeEvent::AwaitingReview(JobStaged {
                checkpoint_id: group.checkpoint.checkpoint_id,
                edits: 0,
                files,
                hunks,
                summary: Some(summary),
                usage: JobUsage::default(),
            }),
        );
        self.announce_status(&job_id, JobStatus::AwaitingReview, None, Some(&job));
        if !restore.is_empty() {
            self.inner
                .feed
                .push(FeedEvent::Destructive(OutsideDestructive {
                    job_id: job_id.clone(),
                    files: std::mem::take(&mut group.destructive),
                    restore,
                }));
        }
        self.announce_unreviewable(&job_id, unreviewable);
        // Kept as they are (record mode), with nothing held: done already.
        self.settle([job_id.clone()]);
        Ok(Some((self.job(&job_id)?, std::mem::take(&mut group.paths))))
    }

    fn announce_unreviewable(&self, job_id: &str, files: &[NotReviewable]) {
        if !files.is_empty() {
            self.inner
                .feed
                .push(FeedEvent::NotReviewable(OutsideNotReviewable {
                    job_id: job_id.to_owned(),
                    files: files.to_vec(),
                    message: listing(files),
                    outside_changes: self.outside_mode(),
                }));
        }
    }
}

/// The first few of `files` with their reasons, for a summary.
fn listing(files: &[NotReviewable]) -> String {
    let mut words: Vec<String> = files
        .iter()
        .take(5)
        .map(|f| format!("{} ({})", f.path, f.reason.describe()))
        .collect();
    if files.len() > 5 {
        words.push("…".into());
    }
    words.join(", ")
}

/// A group's title: when it happened and what it touched.
fn title(changes: &[OutsideChange], unreviewable: &[NotReviewable]) -> String {
    let at = now();
    let clock = at.get(11..19).unwrap_or(&at);
    let all: Vec<&str> = changes
        .iter()
        .map(|c| c.path.as_str())
        .chain(unreviewable.iter().map(|f| f.path.as_str()))
        .collect();
    let names = &all[..all.len().min(3)];
    let more = all.len() - names.len();
    format!(
        "Changed outside Redline at {clock} UTC: {}{}",
        names.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    )
}
