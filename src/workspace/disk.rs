//! Where the review meets the disk: saving a working buffer and applying a
//! job's review. Every write goes through the project's checked write path,
//! over the bytes Redline last read or wrote there, and is recorded in the
//! store first so that a crash in the middle is settled on the next open.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::ties::Held;
use super::{Workspace, WorkspaceError};
use crate::hunks::DiffBundle;
use crate::project::{BatchWrite, Project, text};
use crate::review::{FileReview, ReviewError, Status};
use crate::store::StoreError;

/// Where one job's review stands; see [`Workspace::review_progress`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReviewProgress {
    /// Hunks not decided.
    pub pending: usize,
    /// Hunks accepted.
    pub accepted: usize,
    /// Hunks rejected.
    pub rejected: usize,
    /// Whether every file is saved (looked at only when none is pending).
    pub saved: bool,
}

impl ReviewProgress {
    /// Every hunk decided and every file saved.
    pub fn finished(&self) -> bool {
        self.pending == 0 && self.saved
    }
}

/// What apply did to one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct AppliedFile {
    /// The file.
    pub file_path: String,
    /// Hunks accepted.
    pub applied_hunks: usize,
    /// Hunks rejected.
    pub rejected_hunks: usize,
    /// `applied`, or `conflict` when nothing was written for the file.
    pub status: String,
    /// Why, for a conflict.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub message: Option<String>,
}

impl Workspace {
    /// Saves `path`: its buffer without pending hunks, over the bytes Redline
    /// last read or wrote there; refused (`conflict`) if another program
    /// changed them. A file whose text is already on disk is not touched (it
    /// keeps its mtime); a file a run created whose every hunk was rejected
    /// stays uncreated.
    ///
    /// A note tied to it by a move (see [`Workspace::tied_unsaved`]) is saved
    /// with it in the same batch, so the disk never has a note moved
    /// without its links following, nor a link to where a note is not yet;
    /// when another program changed one of them, nothing is written.
    /// Returns the tied notes it saved too.
    pub fn save(&mut self, path: &str) -> Result<Vec<String>, WorkspaceError> {
        let mut paths = vec![path.to_owned()];
        let tied = self.tied_unsaved(&paths);
        paths.extend(tied.iter().cloned());
        let saved = self.save_many(&paths, &mut |_| {})?;
        let mut outcomes = saved.into_iter();
        outcomes.next().expect("one outcome a path")?;
        for (other, outcome) in tied.iter().zip(outcomes) {
            if let Err(e) = outcome {
                tracing::warn!(
                    path = other,
                    "a note tied to {path} by a move was not saved: {e}"
                );
            }
        }
        Ok(tied)
    }

    /// Saves each of `paths` as [`Workspace::save`] does, in one batch:
    /// the temporary files written, flushed together, moved into place, the
    /// folders flushed once (see [`Project::write_many`]). The hashes about
    /// to be written are recorded first, in one transaction, so a crash
    /// anywhere in the batch is settled on the next open (see
    /// [`Workspace::open`]). Returns each file's outcome, in order; `Err`
    /// only when the store fails. `progress`
    /// hears how many files have been written.
    ///
    /// [`Project::write_many`]: crate::project::Project::write_many
    pub fn save_many(
        &mut self,
        paths: &[String],
        progress: &mut dyn FnMut(usize),
    ) -> Result<Vec<Result<(), WorkspaceError>>, StoreError> {
        let mut outcomes: Vec<Option<Result<(), WorkspaceError>>> = Vec::new();
        // (outcome index, path, text, expected, hash)
        let mut planned: Vec<(usize, &str, String, Option<String>, String)> = Vec::new();
        // Files with a move or deletion under review, saved one by one.
        let mut moving: Vec<(usize, &str)> = Vec::new();
        let held = self.held_back(paths);
        for path in paths {
            let Some(file) = self.review.file(path) else {
                outcomes.push(Some(Err(ReviewError::UnknownFile(path.clone()).into())));
                continue;
            };
            if let Some(why) = held.get(path.as_str()) {
                outcomes.push(Some(Err(match why {
                    Held::Conflict(other) => WorkspaceError::TiedToConflict {
                        path: path.clone(),
                        other: other.clone(),
                    },
                    Held::LinkedFrom { from, linking } => WorkspaceError::LinkWouldDangle {
                        path: path.clone(),
                        from: from.clone(),
                        linking: linking.clone(),
                    },
                })));
                continue;
            }
            if file.op().is_some() {
                moving.push((outcomes.len(), path));
                outcomes.push(None);
                continue;
            }
            let text = self.review.disk_view(file);
            let hash = text::content_hash(text.as_bytes());
            let unmade =
                text.is_empty() && !file.entries().iter().any(|e| e.status == Status::Accepted);
            if unmade && file.disk_hash.is_none() {
                outcomes.push(Some(Ok(())));
                continue;
            }
            // A created file written already (another program's, or one
            // saved before its hunks were rejected) goes again.
            if unmade && file.created {
                outcomes.push(Some(self.uncreate(path)));
                continue;
            }
            if file.disk_hash.as_deref() == Some(hash.as_str()) {
                outcomes.push(Some(Ok(())));
                continue;
            }
            planned.push((outcomes.len(), path, text, file.disk_hash.clone(), hash));
            outcomes.push(None);
        }
        // A move or deletion is journaled with the texts: a crash anywhere
        // in the batch is finished on the next open, moves included, so the
        // disk never has a note's links rewritten without its move.
        let intents: Vec<(String, String)> = planned
            .iter()
            .map(|(_, path, _, _, hash)| ((*path).to_owned(), hash.clone()))
            .chain(moving.iter().map(|(_, path)| {
                let file = self.review.file(path).expect("found above");
                let hash = match file.binary() {
                    Some(bytes) => bytes.to_owned(),
                    None => text::content_hash(self.review.disk_view(file).as_bytes()),
                };
                ((*path).to_owned(), hash)
            }))
            .collect();
        self.store.intend_writes(&intents)?;
        let writes: Vec<BatchWrite<'_>> = planned
            .iter()
            .map(|(_, path, text, expected, _)| BatchWrite {
                path,
                bytes: text.as_bytes(),
                expected: expected.as_deref(),
            })
            .collect();
        let written = self.project.write_many(&writes, progress);
        let mut settled = Vec::with_capacity(planned.len());
        for ((k, path, ..), result) in planned.iter().zip(written) {
            let hash = result.as_ref().ok().cloned();
            if let Some(hash) = &hash {
                self.review.file_mut(path).expect("found above").disk_hash = Some(hash.clone());
            }
            settled.push(((*path).to_owned(), hash));
            outcomes[*k] = Some(result.map(drop).map_err(WorkspaceError::from));
        }
        self.store.settle_writes(&settled)?;
        let mut placed = Vec::with_capacity(moving.len());
        for (k, path) in moving {
            outcomes[k] = Some(self.save_op(path));
            placed.push((path.to_owned(), None));
        }
        // Each carried out or not, as `save_op` recorded: no intent left.
        self.store.settle_writes(&placed)?;
        Ok(outcomes
            .into_iter()
            .map(|o| o.expect("every path settled"))
            .collect())
    }

    /// The files with unsaved work (text or a place a save would write), in
    /// path order: what Save all saves.
    pub fn unsaved(&self) -> Vec<String> {
        let mut paths: Vec<String> = self
            .review
            .files()
            .filter(|f| super::files::unsaved(&self.review, f))
            .map(|f| f.path.clone())
            .collect();
        paths.sort_unstable();
        paths
    }

    /// Removes a created file whose every hunk is rejected, if the disk
    /// still holds what Redline last knew of it (a conflict otherwise).
    fn uncreate(&mut self, path: &str) -> Result<(), WorkspaceError> {
        let file = self.review.file_mut(path).expect("under review");
        let known = file.disk_hash.clone().expect("on disk");
        self.project.remove_checked(path, &known)?;
        file.disk_hash = None;
        self.store.save_file(file)?;
        Ok(())
    }

    /// Saves a file with a move or deletion under review: the file goes to
    /// where its decisions put it (the move's target once it is accepted,
    /// back to its path once it no longer is; gone once a deletion is
    /// accepted, back once it no longer is), each step hash-checked and
    /// recorded before the next, then its text is written there as any
    /// save writes it. A crash between the steps is settled on the next
    /// open ([`settle_op`]).
    fn save_op(&mut self, path: &str) -> Result<(), WorkspaceError> {
        let file = self.review.file(path).expect("under review");
        if file.binary().is_some() {
            return self.save_attachment(path);
        }
        let text = self.review.disk_view(file);
        let hash = text::content_hash(text.as_bytes());
        let now = file
            .disk_hash
            .as_ref()
            .and(file.disk_path())
            .map(str::to_owned);
        let want = file.saved_path().map(str::to_owned);
        let uncreated =
            file.unmade(&text) && !file.entries().iter().any(|e| e.status == Status::Accepted);
        let Some(want) = want else {
            if let (Some(at), Some(known)) = (&now, file.disk_hash.clone()) {
                self.project.remove_checked(at, &known)?;
                let file = self.review.file_mut(path).expect("under review");
                file.disk_hash = None;
                file.set_op_done(true);
                self.store.save_file(file)?;
            }
            return Ok(());
        };
        let done = want != path;
        match &now {
            Some(at) if *at != want => {
                let known = file.disk_hash.clone().expect("on disk");
                self.project.rename_checked(at, &want, &known)?;
                let file = self.review.file_mut(path).expect("under review");
                file.set_op_done(done);
                self.store.save_file(file)?;
            }
            None if uncreated => return Ok(()),
            _ => {}
        }
        let file = self.review.file(path).expect("under review");
        if file.disk_hash.as_deref() == Some(hash.as_str()) && now.is_some() {
            return Ok(());
        }
        let expected = now.as_ref().and(file.disk_hash.clone());
        self.store
            .intend_writes(&[(path.to_owned(), hash.clone())])?;
        let written = self
            .project
            .write_checked(&want, text.as_bytes(), expected.as_deref());
        let file = self.review.file_mut(path).expect("under review");
        match written {
            Ok(hash) => {
                file.disk_hash = Some(hash.clone());
                file.set_op_done(done);
                self.store.save_file(file)?;
                // Done: the next open has nothing to finish.
                self.store.settle_writes(&[(path.to_owned(), Some(hash))])?;
                Ok(())
            }
            Err(e) => {
                self.store.settle_writes(&[(path.to_owned(), None)])?;
                Err(e.into())
            }
        }
    }

    /// Ends the review of one job's hunks (`bundle`, its diff bundle): each
    /// is accepted if `accepted` lists it and rejected otherwise, whatever
    /// was decided before, as one decision and one step (a settled hunk,
    /// with a settled move's link updates, stays as it is; a link update
    /// whose move a rollback dropped is never accepted); then every file is saved in one
    /// batch ([`Workspace::save_many`]). Other jobs' pending hunks in the
    /// same files stay staged (a save leaves them out). A file whose write
    /// conflicts is reported and left unwritten. `progress` hears how many
    /// files have been written.
    pub fn apply(
        &mut self,
        bundle: &DiffBundle,
        accepted: &[String],
        progress: &mut dyn FnMut(usize),
    ) -> Result<Vec<AppliedFile>, WorkspaceError> {
        // A link update never counts without its move: accepting one
        // accepts the move it follows, as a decision would.
        let mut accepted: HashSet<String> = accepted.iter().cloned().collect();
        let listed: Vec<String> = accepted.iter().cloned().collect();
        accepted.extend(
            self.review
                .carried_by(&listed, Status::Accepted)
                .into_iter()
                .filter(|(_, s)| *s == Status::Accepted)
                .map(|(h, _)| h),
        );
        let hunks: Vec<&str> = bundle.hunk_ids().collect();
        let mut to_accept = Vec::new();
        let mut to_reject = Vec::new();
        for hunk in &hunks {
            let Some(status) = self.review.status_of(hunk) else {
                continue;
            };
            if accepted.contains(*hunk) {
                // A link update whose move is gone (rolled back) stays as it
                // is: accepted, it would count without its move.
                if status != Status::Accepted && !self.review.is_final(hunk) {
                    to_accept.push((*hunk).to_owned());
                }
            } else if status != Status::Rejected && !self.settled_with_move(hunk) {
                to_reject.push((*hunk).to_owned());
            }
        }
        // Accepting first: an accepted hunk accepts what it stands on, even
        // another job's; a rejected one then rejects what builds on it. One
        // transaction and one step of the history: a refusal changes
        // nothing, one undo takes back both.
        let label = match &bundle.job_id {
            Some(job) => format!("Applied the review of {job}"),
            None => "Applied a review".to_owned(),
        };
        let both: Vec<String> = to_accept.iter().chain(&to_reject).cloned().collect();
        self.keep_typing(&both)?;
        self.decide_and_store(
            &[
                (&to_accept, Status::Accepted),
                (&to_reject, Status::Rejected),
            ],
            None,
            || label,
        )?;
        // What each file got, as decided (a rejection may have carried
        // hunks the request listed).
        let mut counted: Vec<(String, usize, usize)> = Vec::new();
        let mut row: HashMap<&str, usize> = HashMap::new();
        let files = bundle
            .files
            .iter()
            .map(|diff| {
                let ids = diff.hunks.iter().map(|h| h.hunk_id.as_str()).collect();
                (diff.file_path.as_str(), ids)
            })
            .chain(
                bundle
                    .file_ops
                    .iter()
                    .map(|op| (op.file_path.as_str(), vec![op.hunk_id.as_str()])),
            );
        for (path, ids) in files {
            let at = *row.entry(path).or_insert_with(|| {
                counted.push((path.to_owned(), 0, 0));
                counted.len() - 1
            });
            for id in ids {
                match self.review.status_of(id) {
                    Some(Status::Accepted) => counted[at].1 += 1,
                    Some(Status::Rejected) => counted[at].2 += 1,
                    _ => {}
                }
            }
        }
        // With the notes a move ties to them: the disk never has a note
        // moved without its links following.
        let mut paths: Vec<String> = counted.iter().map(|c| c.0.clone()).collect();
        paths.extend(self.tied_unsaved(&paths));
        let saved = self.save_many(&paths, progress)?;
        Ok(counted
            .into_iter()
            .zip(saved)
            .map(|((file_path, applied, rejected), outcome)| AppliedFile {
                file_path,
                applied_hunks: applied,
                rejected_hunks: rejected,
                status: if outcome.is_ok() {
                    "applied"
                } else {
                    "conflict"
                }
                .to_owned(),
                message: outcome.err().map(|e| e.to_string()),
            })
            .collect())
    }

    /// Whether an apply leaves `hunk` as it is, listed or not: its decision
    /// is final (its note moved on since), or it is a link update of a
    /// final move, which stays with its move (a move and its links are one
    /// change).
    fn settled_with_move(&self, hunk: &str) -> bool {
        let review = &self.review;
        let leaders = review.find_hunk(hunk).ok().and_then(|(path, i)| {
            let entry = &review.file(&path)?.entries()[i];
            Some(entry.leaders().cloned().collect::<Vec<_>>())
        });
        review.is_final(hunk)
            || leaders
                .into_iter()
                .flatten()
                .any(|l| review.is_final(&l) && review.updates_links_of(hunk, &l))
    }

    /// Where the review of `bundle` (one job's hunks) stands: its hunks
    /// pending, accepted and rejected (a hunk no longer under review —
    /// rolled back, resolved away — counts as none), and whether every file
    /// of it is saved: the disk holds what its buffer should write, so its
    /// accepted hunks are on disk. Whether the files are saved is only
    /// looked at (it reads them) once no hunk is pending.
    pub fn review_progress(&self, bundle: &DiffBundle) -> ReviewProgress {
        let mut progress = ReviewProgress::default();
        for diff in &bundle.files {
            let Some(file) = self.review.file(&diff.file_path) else {
                continue;
            };
            for hunk in &diff.hunks {
                let entry = file
                    .entries()
                    .iter()
                    .find(|e| e.hunk_id.as_deref() == Some(hunk.hunk_id.as_str()));
                match entry.map(|e| e.status) {
                    Some(Status::Pending) => progress.pending += 1,
                    Some(Status::Accepted) => progress.accepted += 1,
                    Some(Status::Rejected) => progress.rejected += 1,
                    None => {}
                }
            }
        }
        for op in &bundle.file_ops {
            let Ok((path, i)) = self.review.find_hunk(&op.hunk_id) else {
                continue;
            };
            match self.review.file(&path).expect("found").entries()[i].status {
                Status::Pending => progress.pending += 1,
                Status::Accepted => progress.accepted += 1,
                Status::Rejected => progress.rejected += 1,
            }
        }
        progress.saved = progress.pending == 0 && self.saved(bundle);
        progress
    }

    /// Whether every file of `bundle` holds on disk what its buffer should write.
    fn saved(&self, bundle: &DiffBundle) -> bool {
        bundle.paths().iter().all(|path| {
            let Some(file) = self.review.file(path) else {
                return true;
            };
            if file.op().is_some() {
                let at = file.disk_hash.as_ref().and(file.disk_path());
                let want = file.saved_path();
                let text = text::content_hash(self.review.disk_view(file).as_bytes());
                return at == want
                    && want.is_none_or(|w| {
                        file.disk_hash.as_deref() == Some(text.as_str())
                            && self.project.disk_hash(w).ok().flatten() == file.disk_hash
                    });
            }
            let wanted = text::content_hash(self.review.disk_view(file).as_bytes());
            let written = match &file.disk_hash {
                Some(known) => *known == wanted,
                // A file the run would create and that stays uncreated.
                None => wanted == text::content_hash(b""),
            };
            written && self.project.disk_hash(&file.path).ok().flatten() == file.disk_hash
        })
    }
}

/// Settles where a file with a move or deletion under review is, after a
/// crash may have cut a save off between its steps: the file Redline last
/// wrote is looked for at its path and at the move's target, and an
/// accepted deletion that happened is recorded. Returns whether anything
/// changed (the caller stores it).
pub(super) fn settle_op(project: &Project, file: &mut FileReview) -> bool {
    let Some(op) = file.op().cloned() else {
        return false;
    };
    let Some(known) = file.disk_hash.clone() else {
        return false;
    };
    let at = file.disk_path().map(str::to_owned);
    let here = |p: &str| project.disk_hash(p).ok().flatten();
    if at.as_deref().and_then(here).as_deref() == Some(known.as_str()) {
        return false;
    }
    let other = if op.done {
        Some(file.path.clone())
    } else {
        op.op.target().map(str::to_owned)
    };
    if let Some(other) = other
        && here(&other).as_deref() == Some(known.as_str())
    {
        file.set_op_done(!op.done);
        return true;
    }
    let accepted = file.entries()[op.entry].status == Status::Accepted;
    if op.op.target().is_none() && accepted && at.as_deref().and_then(here).is_none() {
        file.disk_hash = None;
        file.set_op_done(true);
        return true;
    }
    false
}
