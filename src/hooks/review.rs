//! One write's round trip with the Redline that has the folder open: the
//! write staged as a job of the agent's session (`POST /api/agent-writes`),
//! the user's decisions waited for, and the verdict the agent gets.

mod client;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::HookError;
use super::claude_code::{HookInput, Write};
use super::gemini;
use super::patch::{self, FilePatch};
use crate::edits::lines::same_lines;
use crate::instance::{self, Instance};
use crate::jobs::{AgentWrite, HunkState, Job, OutcomeRequest, WriteOutcome};
use client::Client;

/// What to do when no decision comes in time, or no Redline is open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fallback {
    /// Refuse the write, saying why (the default: nothing lands unreviewed).
    #[default]
    Deny,
    /// Let it through: Redline, when it is open, takes it in as another
    /// program's change to review (and restore).
    Outside,
}

/// How the hook waits.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// How long to wait for the user's decisions. Default 30 minutes.
    pub wait: Duration,
    /// What to do when they do not come.
    pub fallback: Fallback,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            wait: Duration::from_secs(30 * 60),
            fallback: Fallback::Deny,
        }
    }
}

/// The hook's answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Let the call through as it is: not a write Redline reviews, or the
    /// fallback said so (`why`, for the user).
    Pass {
        /// Why, when it is not simply a call Redline does not review.
        why: Option<String>,
    },
    /// Let it through with `input` as its arguments.
    Allow {
        /// The arguments that write the decided text.
        input: Value,
        /// For the user: what the review decided.
        reason: String,
        /// For the model, when the review changed the write.
        context: Option<String>,
    },
    /// Refuse it; the model reads `reason`.
    Deny {
        /// Why.
        reason: String,
    },
}

/// The folder `from` is in that a running Redline serves (`from` itself
/// or the nearest folder above it), with that Redline.
pub fn find_instance(data_dir: &Path, from: &Path) -> Option<(PathBuf, Instance)> {
    let from = from.canonicalize().ok()?;
    from.ancestors()
        .find_map(|dir| Some((dir.to_owned(), instance::find(data_dir, dir)?)))
}

/// Reviews the call `input` asks for in the Redline `open` (the folder it
/// serves and its address; `None` when none serves `root`): waits for the
/// user's decisions and says what to answer.
pub async fn review(
    input: &HookInput,
    root: &Path,
    open: Option<&Instance>,
    options: &Options,
) -> Result<Verdict, HookError> {
    if input.tool_name == "apply_patch" {
        return review_patch(input, root, open, options).await;
    }
    let pass = Ok(Verdict::Pass { why: None });
    let Some(write) = input.write()? else {
        return pass;
    };
    let Some(rel) = relative(root, write.path()) else {
        return pass;
    };
    let Some(disk) = note(write.path()) else {
        return pass;
    };
    let after = match write.after(disk.as_deref()) {
        Ok(after) => after,
        // Gemini's `replace` guesses at an old text that is not there
        // exactly, and would write its guess unreviewed: refused, in its words.
        Err(e @ (HookError::NotFound(_) | HookError::NotUnique(..)))
            if matches!(&write, Write::Replace { edit, .. } if !edit.old.is_empty())
                && disk.is_some() =>
        {
            return Ok(Verdict::Deny {
                reason: gemini::not_made(&e, &rel),
            });
        }
        // A call the tool itself will refuse (its old text is not there) is
        // left for the tool to refuse, in its own words.
        Err(_) => return pass,
    };
    if disk.as_deref() == Some(after.as_str()) {
        // Gemini would ask its model to "correct" an edit that changes
        // nothing, and write that unreviewed: refused, in its words.
        if let Write::Replace { .. } = write {
            return Ok(Verdict::Deny {
                reason: format!(
                    "No changes to apply. The old_string and new_string are identical in file: \
                     {rel}"
                ),
            });
        }
        return pass;
    }
    // Only how the lines end would change, which the review keeps as the
    // note has it: nothing for the user to see, and nothing made unseen.
    if disk.as_deref().is_some_and(|d| same_lines(d, &after)) {
        return Ok(Verdict::Deny {
            reason: format!(
                "This {} of {rel} changes only its line endings or final newline, which Redline \
                 keeps as each note has them: it was not made, and the file is unchanged.",
                write.tool()
            ),
        });
    }
    let client = match connect(root, open, options)? {
        Ok(client) => client,
        Err(verdict) => return Ok(verdict),
    };
    let request = AgentWrite {
        agent: input.agent().into(),
        session: input.session_id.clone(),
        tool: write.tool().into(),
        file_path: rel.clone(),
        before: disk.clone(),
        after: after.clone(),
        deletes: false,
        moves_to: None,
    };
    let job = match stage(&client, &request).await {
        Ok(job) => job,
        Err(verdict) => return Ok(verdict),
    };
    let deadline = Instant::now() + options.wait;
    let outcome = match outcome(&client, &job, &rel, options, deadline).await {
        Ok(outcome) => outcome,
        Err(verdict) => return Ok(verdict),
    };
    Ok(verdict(&write, disk.as_deref(), &after, &rel, &outcome))
}

/// One file of a Codex patch, as it would be written.
struct Patched<'a> {
    /// The path as the patch names it.
    named: &'a str,
    rel: String,
    disk: Option<String>,
    /// Its text after the patch (at `moves_to`, when it moves); empty when
    /// it `deletes` the file.
    after: String,
    deletes: bool,
    /// Where it moves the file, relative to the root.
    moves_to: Option<String>,
}

/// [`review`] for Codex's `apply_patch`: each file the patch updates, adds,
/// deletes or moves is staged as a write of its own (a move with the
/// links to the note following it), and once all are decided the
/// deletions and moves accepted are saved in Redline, links and all, and
/// the patch is let through rewritten to leave the decided texts (a file
/// wholly rejected, deleted or moved left out), or refused when nothing is
/// left of it.
async fn review_patch(
    input: &HookInput,
    root: &Path,
    open: Option<&Instance>,
    options: &Options,
) -> Result<Verdict, HookError> {
    let pass = Ok(Verdict::Pass { why: None });
    if input.hook_event_name != "PreToolUse" {
        return pass;
    }
    let Some(command) = input.tool_input["command"].as_str() else {
        return Err(HookError::Input("apply_patch without `command`".into()));
    };
    // A patch Codex cannot read is Codex's to refuse, in its own words.
    let Ok(files) = patch::parse(command) else {
        return pass;
    };
    let mut writes = Vec::new();
    for file in &files {
        let path = input.absolute(PathBuf::from(file.path()));
        let Some(rel) = relative(root, &path) else {
            return pass;
        };
        let moves_to = match file {
            FilePatch::Update {
                move_to: Some(to), ..
            } => match relative(root, &input.absolute(PathBuf::from(to))) {
                Some(to) => Some(to),
                // Out of the folder: Redline's review ends at its edge.
                None => return pass,
            },
            _ => None,
        };
        let Some(disk) = note(&path) else {
            return pass;
        };
        let after = match (file, &disk) {
            (FilePatch::Delete { .. }, Some(_)) => String::new(),
            // Added over a file that exists, it replaces it.
            (FilePatch::Add { lines, .. }, _) => lines.join("\n") + "\n",
            (FilePatch::Update { chunks, .. }, Some(text)) => match patch::apply(text, chunks) {
                Ok(after) => after,
                // Lines that are not there: Codex refuses the patch itself.
                Err(_) => return pass,
            },
            // An update or deletion of a file that does not exist: likewise.
            _ => return pass,
        };
        let deletes = matches!(file, FilePatch::Delete { .. });
        if deletes || moves_to.is_some() || disk.as_deref() != Some(after.as_str()) {
            writes.push(Patched {
                named: file.path(),
                rel,
                disk,
                after,
                deletes,
                moves_to,
            });
        }
    }
    if writes.is_empty() {
        return pass;
    }
    let client = match connect(root, open, options)? {
        Ok(client) => client,
        Err(verdict) => return Ok(verdict),
    };
    let mut jobs = Vec::new();
    for write in &writes {
        let request = AgentWrite {
            agent: input.agent().into(),
            session: input.session_id.clone(),
            tool: "apply_patch".into(),
            file_path: write.rel.clone(),
            before: write.disk.clone(),
            after: write.after.clone(),
            deletes: write.deletes,
            moves_to: write.moves_to.clone(),
        };
        match stage(&client, &request).await {
            Ok(job) => jobs.push(job),
            Err(verdict) => {
                // The patch goes whole or not at all: what was staged of
                // it is taken back.
                withdraw(&client, &jobs, "the rest of the patch was not reviewed").await;
                return Ok(verdict);
            }
        }
    }
    let deadline = Instant::now() + options.wait;
    let mut outcomes = Vec::new();
    for (write, job) in writes.iter().zip(&jobs) {
        match outcome(&client, job, &write.rel, options, deadline).await {
            Ok(outcome) => outcomes.push(outcome),
            Err(verdict) => {
                withdraw(&client, &jobs, "the hook gave up on the patch").await;
                return Ok(verdict);
            }
        }
    }
    let mut unmade = Vec::new();
    for (write, outcome) in writes.iter().zip(&outcomes) {
        for path in redline_saves(write, outcome) {
            let save = serde_json::json!({ "path": path });
            if let Err(e) = client.post::<Value>("/api/files/save", &save).await {
                unmade.push((path.to_owned(), e.to_string()));
            }
        }
    }
    Ok(patch_verdict(&writes, &outcomes, &unmade))
}

/// The files Redline saves to carry out what the user decided of `w`: a
/// deletion accepted, a move accepted with the notes whose links follow
/// it, or the text kept of a file whose move was rejected. Codex deleting,
/// moving or writing such a note itself would leave Redline's review of
/// it in conflict; Codex writes the rest.
fn redline_saves<'a>(w: &'a Patched<'_>, o: &'a WriteOutcome) -> Vec<&'a str> {
    match (&o.moved_to, &w.moves_to) {
        (Some(to), _) => std::iter::once(to)
            .chain(&o.links)
            .map(String::as_str)
            .collect(),
        (None, Some(_)) if o.text.is_some() => vec![&w.rel],
        _ if o.deleted => vec![&w.rel],
        _ => Vec::new(),
    }
}

/// Rejects what is still pending of `jobs`, saying `why`.
async fn withdraw(client: &Client, jobs: &[Job], why: &str) {
    for job in jobs {
        let ask = OutcomeRequest {
            wait_ms: 0,
            withdraw: Some(why.to_owned()),
        };
        let path = format!("/api/agent-writes/{}/outcome", job.job_id);
        let _ = client.post::<WriteOutcome>(&path, &ask).await;
    }
}

/// The verdict on a decided patch, whose accepted deletions and moves
/// Redline has made but for the files in `unmade` (with why not).
fn patch_verdict(
    writes: &[Patched<'_>],
    outcomes: &[WriteOutcome],
    unmade: &[(String, String)],
) -> Verdict {
    let kept: Vec<(&str, Option<&str>, &str)> = writes
        .iter()
        .zip(outcomes)
        .filter(|(w, _)| !w.deletes && w.moves_to.is_none())
        .filter_map(|(w, o)| Some((w.named, w.disk.as_deref(), o.text.as_deref()?)))
        .collect();
    let told: Vec<String> = writes
        .iter()
        .zip(outcomes)
        .filter_map(|(w, o)| told(w, o, unmade))
        .collect();
    let carried = writes
        .iter()
        .zip(outcomes)
        .any(|(w, o)| !redline_saves(w, o).is_empty());
    if kept.is_empty() && !carried {
        return Verdict::Deny {
            reason: format!(
                "The user reviewed this patch in Redline and rejected it: {}. No file was changed.",
                told.join("; ")
            ),
        };
    }
    if kept.is_empty() {
        return Verdict::Deny {
            reason: format!(
                "The user reviewed this patch in Redline, which carried out what they \
                 accepted: {}. Nothing is left for apply_patch to do; do not apply it again.",
                told.join("; ")
            ),
        };
    }
    let accepted: usize = outcomes
        .iter()
        .map(|o| o.hunks.iter().filter(|h| h.status == "accepted").count())
        .sum();
    let total: usize = outcomes.iter().map(|o| o.hunks.len()).sum();
    Verdict::Allow {
        input: serde_json::json!({ "command": patch::rewritten(&kept) }),
        reason: format!("Reviewed in Redline: {accepted} of {total} changes accepted as proposed"),
        context: (!told.is_empty()).then(|| {
            format!(
                "The user reviewed this patch in Redline, and not all of it is applied as \
                 proposed: {}. The files now hold the text they decided; read them again \
                 before you edit them further.",
                told.join("; ")
            )
        }),
    }
}

/// What the model is told of one file of a decided patch, whose deletion
/// or move Redline made but where `unmade` says; `None` when the patch
/// writes it as proposed.
fn told(w: &Patched<'_>, o: &WriteOutcome, unmade: &[(String, String)]) -> Option<String> {
    let why_not = |path: &str| unmade.iter().find(|(p, _)| p == path).map(|(_, why)| why);
    let rejected = reasons(o).map_or_else(String::new, |r| format!(" ({r})"));
    let rel = &w.rel;
    // The fates of the file's own lines (not its move, not the links).
    let lines: Vec<String> = o
        .hunks
        .iter()
        .filter(|h| h.file_path == *rel && h.line > 0 && h.status != "accepted")
        .map(fate)
        .collect();
    let text = (!lines.is_empty()).then(|| format!("; its text: {}", lines.join("; ")));
    let text = text.unwrap_or_default();
    if w.deletes {
        return Some(match (o.deleted, why_not(rel)) {
            (false, _) => format!("deleting {rel} was rejected{rejected}"),
            (true, Some(why)) => {
                format!("deleting {rel} was accepted, but Redline could not delete it: {why}")
            }
            (true, None) => format!("{rel} was deleted by Redline, as the user accepted"),
        });
    }
    if let Some(to) = &w.moves_to {
        return Some(match (&o.moved_to, why_not(to)) {
            (None, _) if o.text.is_none() => format!("{rel} was rejected{rejected}"),
            (None, Some(why)) => format!(
                "moving {rel} to {to} was rejected{rejected}, and Redline could not write the \
                 text the user kept: {why}"
            ),
            (None, None) => format!(
                "moving {rel} to {to} was rejected{rejected}; Redline wrote the text the user \
                 kept in place{text}"
            ),
            (Some(_), Some(why)) => {
                format!("moving {rel} to {to} was accepted, but Redline could not make it: {why}")
            }
            (Some(_), None) => {
                let mut said = format!("{rel} was moved to {to} by Redline, as the user accepted");
                let saved: Vec<&str> = o
                    .links
                    .iter()
                    .filter(|l| why_not(l).is_none())
                    .map(String::as_str)
                    .collect();
                if !saved.is_empty() {
                    said += &format!(", and the links to it updated in {}", saved.join(", "));
                }
                for l in &o.links {
                    if let Some(why) = why_not(l) {
                        said += &format!("; the links in {l} were not saved: {why}");
                    }
                }
                said + &text
            }
        });
    }
    match &o.text {
        None => Some(format!("{rel} was rejected{rejected}")),
        Some(t) if *t == w.after => None,
        Some(_) => Some(format!(
            "{rel}: {}",
            o.hunks.iter().map(fate).collect::<Vec<_>>().join("; ")
        )),
    }
}

/// The user's reasons for a write's rejected hunks, if they gave any.
fn reasons(outcome: &WriteOutcome) -> Option<String> {
    let reasons: Vec<&str> = outcome
        .hunks
        .iter()
        .filter_map(|h| h.reason.as_deref())
        .collect();
    (!reasons.is_empty()).then(|| reasons.join("; "))
}

/// The text of the file at `path` (`Some(None)`: there is none yet);
/// `None` when it is not a note Redline reviews (not text, unreadable).
fn note(path: &Path) -> Option<Option<String>> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).ok().map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(None),
        Err(_) => None,
    }
}

/// The client of the Redline `open`, or the fallback's verdict when no
/// Redline serves `root`.
fn connect(
    root: &Path,
    open: Option<&Instance>,
    options: &Options,
) -> Result<Result<Client, Verdict>, HookError> {
    Ok(match open {
        Some(open) => Ok(Client::new(open)?),
        None => Err(fallen_back(
            options.fallback,
            format!("Redline is not open on {}", root.display()),
        )),
    })
}

/// Stages `request` in the running Redline: its job, or the verdict when
/// Redline does not take it (a file it never reviews passes; a refusal
/// denies, saying why).
async fn stage(client: &Client, request: &AgentWrite) -> Result<Job, Verdict> {
    let rel = &request.file_path;
    match client.post("/api/agent-writes", request).await {
        Ok(job) => Ok(job),
        // A file Redline does not review (a path its guard refuses, one
        // that is not text) is not Redline's to hold back.
        Err(HookError::Refused { code, message }) if code == "invalid_request" => {
            Err(Verdict::Pass {
                why: Some(format!("Redline does not review {rel}: {message}")),
            })
        }
        Err(e) => Err(Verdict::Deny {
            reason: format!("Redline could not take this write of {rel} for review: {e}"),
        }),
    }
}

/// Waits until every hunk of `job` (the write of `rel`) is decided, or
/// `deadline`: then its hunks still pending are withdrawn, and the verdict
/// is the fallback's.
async fn outcome(
    client: &Client,
    job: &Job,
    rel: &str,
    options: &Options,
    deadline: Instant,
) -> Result<WriteOutcome, Verdict> {
    let path = format!("/api/agent-writes/{}/outcome", job.job_id);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let ask = OutcomeRequest {
            wait_ms: left.min(Duration::from_secs(55)).as_millis() as u64,
            withdraw: left.is_zero().then(|| {
                format!(
                    "no decision within {} (the hook's time limit)",
                    humantime::format_duration(options.wait)
                )
            }),
        };
        let withdrawn = |o: &WriteOutcome| {
            ask.withdraw.is_some() && o.hunks.iter().any(|h| h.reason == ask.withdraw)
        };
        match client.post::<WriteOutcome>(&path, &ask).await {
            Ok(outcome) if outcome.decided && !withdrawn(&outcome) => return Ok(outcome),
            Ok(_) if ask.withdraw.is_some() => {
                return Err(fallen_back(
                    options.fallback,
                    format!(
                        "no decision on this write of {rel} in Redline within {}",
                        humantime::format_duration(options.wait)
                    ),
                ));
            }
            Ok(_) => continue,
            Err(e) => {
                return Err(fallen_back(
                    options.fallback,
                    format!("Redline stopped answering before a decision on {rel}: {e}"),
                ));
            }
        }
    }
}

/// The verdict on a decided write that would have left `after`.
fn verdict(
    write: &Write,
    disk: Option<&str>,
    after: &str,
    rel: &str,
    outcome: &WriteOutcome,
) -> Verdict {
    let Some(decided) = &outcome.text else {
        let why = reasons(outcome).map_or_else(String::new, |r| format!(": {r}"));
        return Verdict::Deny {
            reason: format!(
                "The user reviewed this {} of {rel} in Redline and rejected it{why}. The file is unchanged.",
                write.tool()
            ),
        };
    };
    let kept = outcome
        .hunks
        .iter()
        .filter(|h| h.status == "accepted")
        .count();
    let total = outcome.hunks.len();
    let changed = outcome.hunks.iter().any(|h| h.status != "accepted");
    let reason = format!("Reviewed in Redline: {kept} of {total} changes accepted as proposed");
    let context = if changed {
        let fates: Vec<String> = outcome.hunks.iter().map(fate).collect();
        Some(format!(
            "The user reviewed this {} of {rel} in Redline and did not take all of it: {}. \
             The file now holds the text they decided, not exactly what you proposed; \
             read it again before you edit it further.",
            write.tool(),
            fates.join("; ")
        ))
    } else if decided != after {
        // Accepted whole, but staged as lines: the file kept its line
        // endings or its final newline where the write would have changed them.
        Some(format!(
            "The user accepted this {} of {rel} in Redline; the file keeps its own line endings \
             and final newline, so it is not byte for byte what you proposed.",
            write.tool()
        ))
    } else {
        None
    };
    Verdict::Allow {
        input: write.rewritten(disk, decided),
        reason,
        context,
    }
}

/// One hunk's fate, in words.
fn fate(h: &HunkState) -> String {
    let at = format!("the change at line {}", h.line.max(1));
    match (h.status.as_str(), &h.reason, &h.text) {
        ("rejected", Some(why), _) => format!("{at} was rejected ({why})"),
        ("changed", _, Some(text)) => format!("{at} was changed by the user to {text:?}"),
        (status, _, _) => format!("{at} was {}", status.replace('_', " ")),
    }
}

/// The fallback's verdict, `why` said in it.
fn fallen_back(fallback: Fallback, why: String) -> Verdict {
    match fallback {
        Fallback::Deny => Verdict::Deny {
            reason: format!("{why}; the write was not made. Ask the user to review it in Redline."),
        },
        Fallback::Outside => Verdict::Pass {
            why: Some(format!(
                "{why}; let through, to review in Redline as an outside change"
            )),
        },
    }
}

/// `path` relative to `root` (both as the file system resolves them), if
/// it is inside it; folders of it that do not exist yet (where a move
/// goes) are taken as named, and may not climb with `..`.
fn relative(root: &Path, path: &Path) -> Option<String> {
    let root = root.canonicalize().ok()?;
    let mut there = path.parent()?;
    let mut rest = vec![path.file_name()?];
    let found = loop {
        if let Ok(found) = there.canonicalize() {
            break found;
        }
        rest.push(there.file_name()?);
        there = there.parent()?;
    };
    let rel = rest.iter().rev().fold(found, |at, part| at.join(part));
    let rel = rel.strip_prefix(&root).ok()?;
    Some(rel.to_str()?.replace('\\', "/"))
}

#[cfg(test)]
mod tests;
