//! The oracle's review: each hunk of a job is accepted or rejected by a rule
//! derived from the task's checks, the way a careful reviewer who knows the
//! intended outcome would decide:
//!
//! 1. a hunk in a file no check allows to change (no check names it, or one
//!    says it must stay `unchanged`) is rejected;
//! 2. a hunk that, applied alone to the file as the job found it, breaks a
//!    condition of a check (one `contains` needle, one `not_contains`, the
//!    pattern, …) that held without it is rejected;
//! 3. every other hunk is accepted.
//!
//! Checks that need several hunks together (a `contains` spanning two of
//! them) are not broken by either alone, so both are accepted.
//!
//! A move or deletion of a whole file ([`review_ops`]) is accepted when the
//! checks ask for what it does: a move when a check names its target and
//! none says the file must stay where it was, a deletion when a check says
//! the file must not exist.

use super::checks::{self, Snapshot};
use super::task::Task;
use crate::edits::FileOp;
use crate::hunks::{FileDiff, FileOpHunk, Hunk};

/// The oracle's decision on one hunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The hunk.
    pub hunk_id: String,
    /// Accepted, else rejected.
    pub accept: bool,
    /// Why, for a reject.
    pub reason: Option<String>,
}

/// One file of a job's proposal: its hunks, and the file's text as the job
/// found it and as it proposed it (`None`: no file).
pub struct Proposed<'a> {
    /// The file's hunks.
    pub diff: &'a FileDiff,
    /// The text the job's proposal was made on.
    pub base: Option<&'a str>,
    /// The text it proposed.
    pub proposed: Option<&'a str>,
}

/// Decides every hunk of `files` for `task`; `start` is the folder as the
/// task began (for `unchanged` checks).
pub fn review(task: &Task, start: &Snapshot, files: &[Proposed<'_>]) -> Vec<Decision> {
    let mut out = Vec::new();
    for file in files {
        let path = &file.diff.file_path;
        for hunk in &file.diff.hunks {
            let reject = |reason: String| Decision {
                hunk_id: hunk.hunk_id.clone(),
                accept: false,
                reason: Some(reason),
            };
            if !checks::may_change(task, path) {
                out.push(reject(format!("no check allows {path} to change")));
                continue;
            }
            let with = alone(file, hunk);
            let was = start.get(path).map(Vec::as_slice);
            let broken = task
                .spec
                .checks
                .iter()
                .filter(|c| c.names(path))
                .find_map(|c| {
                    let before = checks::failing(task, c, path, was, file.base.map(str::as_bytes));
                    checks::failing(task, c, path, was, with.as_deref().map(str::as_bytes))
                        .into_iter()
                        .find(|reason| !before.contains(reason))
                });
            match broken {
                Some(reason) => out.push(reject(format!(
                    "alone, it breaks what held without it: {reason}"
                ))),
                None => out.push(Decision {
                    hunk_id: hunk.hunk_id.clone(),
                    accept: true,
                    reason: None,
                }),
            }
        }
    }
    out
}

/// Decides the moves and deletions of a job for `task` (see the module
/// documentation).
pub fn review_ops(task: &Task, ops: &[FileOpHunk]) -> Vec<Decision> {
    let named = |path: &str, gone: bool| {
        task.spec
            .checks
            .iter()
            .any(|c| c.names(path) && (c.exists == Some(false)) == gone)
    };
    let must_go = |path: &str| named(path, true);
    let must_stay = |path: &str| named(path, false);
    ops.iter()
        .map(|op| {
            let (accept, why) = match &op.op {
                FileOp::Move { to } => (
                    must_stay(to) && !must_stay(&op.file_path),
                    format!("no check asks for {} to move to {to}", op.file_path),
                ),
                FileOp::Delete => (
                    must_go(&op.file_path),
                    format!("no check asks for {} to go", op.file_path),
                ),
            };
            Decision {
                hunk_id: op.hunk_id.clone(),
                accept,
                reason: (!accept).then_some(why),
            }
        })
        .collect()
}

/// The file with only `hunk` of its proposal applied.
fn alone(file: &Proposed<'_>, hunk: &Hunk) -> Option<String> {
    let proposed: Vec<&str> = file
        .proposed
        .unwrap_or_default()
        .split_inclusive('\n')
        .collect();
    let mut lines: Vec<&str> = file
        .base
        .unwrap_or_default()
        .split_inclusive('\n')
        .collect();
    let new = proposed
        .get(hunk.new_start..hunk.new_start + hunk.new_lines)
        .unwrap_or_default();
    let end = (hunk.old_start + hunk.old_lines).min(lines.len());
    lines.splice(hunk.old_start.min(end)..end, new.iter().copied());
    let text = lines.concat();
    // A file the job would create exists once one of its hunks is in.
    (file.base.is_some() || !text.is_empty() || hunk.new_lines > 0).then_some(text)
}
