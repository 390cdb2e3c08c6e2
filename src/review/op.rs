//! Whole-file changes under review: a file moved or deleted is one hunk of
//! its file's log (an entry with no text of its own), decided like any
//! other. The file stays under review at the path it had; where the working
//! state shows it, where a save leaves it and where the disk has it now
//! follow from the operation's status and whether a save carried it out.
//!
//! Link hunks a move brought (the engine's rewrite of every link to the
//! moved note) *follow* it across files: rejecting the move rejects them,
//! accepting one of them accepts the move ([`Review::carried`]).

use serde::{Deserialize, Serialize};

use super::{
    Entry, FileReview, HunkMove, LinkLeft, Origin, Review, ReviewError, Status,
};
use crate::edits::{FileOp, FileOpProposal};

/// A whole-file operation staged on a file under review.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StagedOp {
    /// What happens to the file.
    pub op: FileOp,
    /// Its entry in the file's log.
    pub entry: usize,
    /// Whether the disk has it: a save carried it out (the file is at the
    /// move's target, or gone). A save undoes it when it no longer counts.
    pub done: bool,
    /// For a file that is not text (an attachment): the `sha256:` of its
    /// bytes, which the content store keeps. Such a file has no text under
    /// review; saves move it, delete it or bring it back whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<String>,
    /// Its own link updates in other files (their hunk ids), kept with it
    /// so that one a rollback took away is known after a restart.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub followers: Vec<String>,
}

/// A path a file under review left by a move that is retired (see
/// [`Review::retire_op`]): links written before the move may still name it,
/// and a decision that brings one back makes it follow the file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PastPath {
    /// The path the file was at.
    pub path: String,
    /// The move that took it away, a hunk of the file's log.
    pub hunk_id: String,
}

impl FileReview {
    /// The paths its retired moves took it from, oldest first: those whose
    /// move is still in its log and is not its staged operation (a
    /// rollback can bring that back), and that it is not at.
    pub fn moved_from(&self) -> impl Iterator<Item = &PastPath> {
        let staged = self
            .op
            .as_ref()
            .and_then(|op| self.entries()[op.entry].hunk_id.as_deref());
        self.moved_from.iter().filter(move |past| {
            past.path != self.path
                && staged != Some(past.hunk_id.as_str())
                && self
                    .entries()
                    .iter()
                    .any(|e| e.hunk_id.as_ref() == Some(&past.hunk_id))
        })
    }

    /// Puts back stored past paths (loading).
    pub(crate) fn set_moved_from(&mut self, moved_from: Vec<PastPath>) {
        self.moved_from = moved_from;
    }

    /// The paths as stored, unfiltered (see [`FileReview::moved_from`]).
    pub(crate) fn stored_moved_from(&self) -> &[PastPath] {
        &self.moved_from
    }

    /// The whole-file operation staged on it, if any.
    pub fn op(&self) -> Option<&StagedOp> {
        self.op.as_ref()
    }

    /// Puts back a stored operation (loading).
    pub(crate) fn set_op(&mut self, op: Option<StagedOp>) {
        self.op = op;
    }

    /// The `sha256:` of its bytes when it is not text: an attachment moved
    /// or deleted whole (see [`StagedOp::binary`]).
    pub fn binary(&self) -> Option<&str> {
        self.op.as_ref()?.binary.as_deref()
    }

    /// Records that a save carried the operation out (`true`) or undid it.
    pub(crate) fn set_op_done(&mut self, done: bool) {
        if let Some(op) = &mut self.op {
            op.done = done;
        }
    }

    /// Where the working state shows the file: at the move's target while
    /// the move is pending or accepted, nowhere while a deletion is; else
    /// at its path.
    pub fn view_path(&self) -> Option<&str> {
        match &self.op {
            Some(op) if self.entries()[op.entry].in_buffer() => op.op.target(),
            _ => Some(&self.path),
        }
    }

    /// Where a save leaves the file: at the target of an accepted move,
    /// nowhere after an accepted deletion (or another program's, until it
    /// is rejected); else at its path.
    pub fn saved_path(&self) -> Option<&str> {
        match &self.op {
            Some(op) if self.entries()[op.entry].on_disk() => op.op.target(),
            _ => Some(&self.path),
        }
    }

    /// Where the disk has the file now (when it has it: see `disk_hash`).
    pub fn disk_path(&self) -> Option<&str> {
        match &self.op {
            Some(op) if op.done => op.op.target(),
            _ => Some(&self.path),
        }
    }

    /// The paths the file has been or may be at: its own, and a move's target.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.path.as_str()).chain(self.op.as_ref().and_then(|op| op.op.target()))
    }
}

impl Review {
    /// Stages whole-file operations as pending hunks of `job_id`, one per
    /// file, with the ids in `hunk_ids` (in order). A file already under
    /// review must hold the text each was made against, and may not have an
    /// operation already (decide that one first).
    pub fn stage_ops(
        &mut self,
        job_id: &str,
        ops: &[FileOpProposal],
        hunk_ids: &[String],
    ) -> Result<(), ReviewError> {
        for proposal in ops {
            if let Some(file) = self.files.get(&proposal.file_path) {
                if !file.buffer_is(&proposal.base) {
                    return Err(ReviewError::StaleProposal(proposal.file_path.clone()));
                }
                if file.op.is_some() {
                    return Err(ReviewError::OpStaged(proposal.file_path.clone()));
                }
            }
        }
        for (proposal, hunk_id) in ops.iter().zip(hunk_ids) {
            let entry = Entry {
                id: self.next_id(),
                origin: Origin::Agent,
                job_id: Some(job_id.to_owned()),
                hunk_id: Some(hunk_id.clone()),
                status: Status::Pending,
                file_hash_before: proposal.base_file_hash.clone(),
                reason: None,
                follows: Vec::new(),
                leaves_link: false,
            };
            self.hunks
                .insert(hunk_id.clone(), proposal.file_path.clone());
            self.keep(&proposal.file_path);
            let file = self
                .files
                .entry(proposal.file_path.clone())
                .or_insert_with(|| {
                    FileReview::new(
                        proposal.file_path.clone(),
                        proposal.base.clone(),
                        Some(proposal.base_file_hash.clone()),
                        false,
                    )
                });
            let at = file.entries().len();
            file.record(vec![entry], Vec::new());
            file.op = Some(StagedOp {
                op: proposal.op.clone(),
                entry: at,
                done: false,
                binary: proposal
                    .bytes
                    .is_some()
                    .then(|| proposal.base_file_hash.clone()),
                followers: Vec::new(),
            });
            if let Some(to) = proposal.op.target() {
                self.moved_to
                    .insert(to.to_owned(), proposal.file_path.clone());
            }
        }
        Ok(())
    }

    /// Retires the settled move or deletion of the file the working state
    /// shows at `path` (one accepted and carried out, or rejected and not
    /// carried out), so that another can be proposed: a moved file is under
    /// review at its new path from then on. Its hunk stays in the log as
    /// decided, with nothing left to undo on disk. Returns the path the file
    /// was under review by, and the one it is now; `None` when there is
    /// nothing to retire (no operation, or one still pending or not saved).
    pub(crate) fn retire_op(&mut self, path: &str) -> Option<(String, String)> {
        let file = self.file_at(path).or_else(|| self.files.get(path))?;
        let op = file.op()?;
        let status = file.entries()[op.entry].status;
        let settled = match status {
            Status::Accepted => op.done,
            Status::Rejected => !op.done,
            Status::Pending => false,
        };
        if !settled {
            return None;
        }
        let key = file.path.clone();
        let binary = file.binary().is_some();
        let mut file = self.remove_file(&key).expect("under review");
        if binary {
            // An attachment has no text to keep reviewing: it is a file on
            // disk like any other from here on.
            let now = match status {
                Status::Accepted => op_target(&file).unwrap_or_default(),
                _ => file.path,
            };
            return Some((key, now));
        }
        if status == Status::Accepted {
            match op_target(&file) {
                Some(to) => {
                    let entry = file.op.as_ref().map_or(0, |op| op.entry);
                    if let Some(hunk_id) = file.entries()[entry].hunk_id.clone() {
                        file.moved_from.push(PastPath {
                            path: std::mem::replace(&mut file.path, to),
                            hunk_id,
                        });
                    } else {
                        file.path = to;
                    }
                }
                // A deleted file: nothing is left to review.
                None => return Some((key, String::new())),
            }
        }
        file.op = None;
        let now = file.path.clone();
        self.insert_file(file);
        Some((key, now))
    }

    /// Marks the hunks `hunk_ids` as another program's changes (see
    /// [`Origin::Outside`]): the disk holds them until they are rejected.
    pub(crate) fn mark_outside(&mut self, hunk_ids: &[String]) {
        for hunk in hunk_ids {
            if let Ok((path, i)) = self.find_hunk(hunk) {
                self.file_mut(&path).expect("found").entry_mut(i).origin = Origin::Outside;
            }
        }
    }

    /// Puts `file`, a state restored from a checkpoint (with the move or
    /// deletion it had then, if any), under review in place of the file at
    /// its path and of `holder`, the file under review that holds it now
    /// when that is another (a settled move took it elsewhere). Nothing
    /// moves on disk: the file keeps where the disk has it now, `at`
    /// (`None`: nowhere). Its own operation counts as carried out where the
    /// disk agrees; a file the disk has at another path, or an attachment
    /// (`binary`, its `sha256:`) the disk does not have, gets a move or
    /// deletion of its own, rejected and marked carried out, so that the
    /// next save takes it back (see `docs/architecture.md#the-change-model`).
    pub(crate) fn put_back(
        &mut self,
        mut file: FileReview,
        holder: Option<&str>,
        at: Option<&str>,
        binary: Option<&str>,
        job_id: Option<&str>,
    ) {
        // Where the file has been stays known: a checkpoint keeps its log,
        // not the paths its retired moves left.
        if let Some(was) = holder.and_then(|h| self.files.get(h)) {
            for past in &was.moved_from {
                if !file.moved_from.contains(past) {
                    file.moved_from.push(past.clone());
                }
            }
        }
        if let Some(holder) = holder
            && holder != file.path
        {
            self.remove_file(holder);
        }
        // A rejected move of its own that a later, saved move took the file
        // away from: the file is where neither of the move's paths is, and
        // only a move back from there places it. The rejected move is
        // retired (its note has moved since, so it stays rejected).
        if let (Some(op), Some(at)) = (&file.op, at)
            && at != file.path
            && op.op.target() != Some(at)
            && file.entries()[op.entry].status == Status::Rejected
        {
            file.op = None;
        }
        if let Some(op) = &mut file.op {
            op.done = match op.op.target() {
                Some(to) => at == Some(to),
                None => at.is_none(),
            };
        } else {
            let back = match at {
                Some(at) if at != file.path => Some(FileOp::Move { to: at.to_owned() }),
                None if binary.is_some() => Some(FileOp::Delete),
                _ => None,
            };
            if let Some(op) = back {
                let entry = Entry {
                    id: self.next_id(),
                    origin: Origin::Agent,
                    job_id: job_id.map(str::to_owned),
                    hunk_id: None,
                    status: Status::Rejected,
                    file_hash_before: file.buffer_hash(),
                    reason: Some("rolled back".to_owned()),
                    follows: Vec::new(),
                    leaves_link: false,
                };
                let at = file.entries().len();
                file.record(vec![entry], Vec::new());
                file.op = Some(StagedOp {
                    op,
                    entry: at,
                    done: true,
                    binary: binary.map(str::to_owned),
                    followers: Vec::new(),
                });
            }
        }
        self.insert_file(file);
    }

    /// The file under review that the working state shows at `path`: the
    /// file of that path, or one whose move to `path` counts.
    pub fn file_at(&self, path: &str) -> Option<&FileReview> {
        if let Some(file) = self.files.get(path)
            && file.view_path() == Some(path)
        {
            return Some(file);
        }
        let from = self.moved_to.get(path)?;
        self.files.get(from).filter(|f| f.view_path() == Some(path))
    }

    /// The file under review that has `path` among its paths (see
    /// [`FileReview::paths`]): the file of that path, or the one a move
    /// (whatever its status) takes there.
    pub fn file_of(&self, path: &str) -> Option<&FileReview> {
        self.files
            .get(path)
            .or_else(|| self.files.get(self.moved_to.get(path)?))
    }

    /// The links `moves` (a decision's, made) leave naming a note's old
    /// path: each link update it rejected whose move still counts, unless
    /// its line shows a link that follows the move all the same.
    pub fn links_left(&self, moves: &[HunkMove]) -> Vec<LinkLeft> {
        let mut left = Vec::new();
        for m in moves.iter().filter(|m| m.to == Status::Rejected && m.from != Status::Rejected) {
            let Ok((path, i)) = self.find_hunk(&m.hunk_id) else {
                continue;
            };
            let file = &self.files[&path];
            if self.superseded(&m.hunk_id) {
                continue;
            }
            // A hunk that only needs the move wrote no link update.
            let own = file.entries()[i]
                .leaders()
                .filter(|l| self.updates_links_of(&m.hunk_id, l));
            for leader in own.filter(|l| self.counts(l)) {
                let Ok((moved, _)) = self.find_hunk(leader) else {
                    continue;
                };
                let moved = &self.files[&moved];
                // The move staged, or one saved and moved on since (the
                // note is where it took it, or further; or still there,
                // under a deletion not yet saved, which may be undone).
                let staged = moved
                    .op()
                    .filter(|op| moved.entries()[op.entry].hunk_id.as_ref() == Some(leader))
                    .and_then(|op| Some((moved.path.as_str(), op.op.target()?)));
                let retired = || {
                    let past = moved.moved_from().find(|p| &p.hunk_id == leader)?;
                    let at = moved
                        .view_path()
                        .or(moved.saved_path())
                        .or(moved.disk_path())?;
                    Some((past.path.as_str(), at))
                };
                if let Some((from, to)) = staged.or_else(retired) {
                    left.push(LinkLeft {
                        path: file.view_path().unwrap_or(&file.path).to_owned(),
                        hunk_id: m.hunk_id.clone(),
                        from: from.to_owned(),
                        to: to.to_owned(),
                    });
                }
            }
        }
        left
    }

    /// Whether `hunk_id`'s decision is final: a move or deletion retired
    /// when a later one of the same file was proposed (see
    /// [`Review::retire_op`]), a link update that follows one retired
    /// rejected or no longer under review (a rollback dropped it), or a
    /// hunk that stands on a final rejection. The file no longer takes the
    /// path either gave, so changing it would leave links to a path
    /// nothing is at.
    pub fn is_final(&self, hunk_id: &str) -> bool {
        let Ok((path, i)) = self.find_hunk(hunk_id) else {
            return false;
        };
        let file = &self.files[&path];
        let entry = &file.entries()[i];
        // One that stands on a final rejection can never count again.
        let on_final = file.depends_on(i).any(|j| {
            let under = &file.entries()[j];
            under.status == Status::Rejected && under.hunk_id.as_ref().is_some_and(|h| self.is_final(h))
        });
        if on_final {
            return true;
        }
        if !entry.follows.is_empty() {
            return entry.leaders().any(|leader| match self.status_of(leader) {
                None => true,
                Some(status) => status == Status::Rejected && self.is_final(leader),
            });
        }
        // An operation's entry changes no text; once retired, no operation
        // of its file points at it.
        file.op().is_none_or(|op| op.entry != i) && !file.changes_text(i)
    }

    /// Whether `hunk_id` is rejected while its line shows a link that
    /// follows its moves all the same (see [`FileReview::covered`]): a
    /// link update so rejected leaves no link behind.
    pub(crate) fn superseded(&self, hunk_id: &str) -> bool {
        self.find_hunk(hunk_id).is_ok_and(|(path, i)| {
            let file = &self.files[&path];
            file.entries()[i].status == Status::Rejected && file.covered(i)
        })
    }

    /// Whether `hunk_id` is a link update that follows a move.
    fn follows_a_move(&self, hunk_id: &str) -> bool {
        self.find_hunk(hunk_id)
            .is_ok_and(|(path, i)| !self.files[&path].entries()[i].follows.is_empty())
    }

    /// The status of `hunk_id`, if it is under review.
    pub fn status_of(&self, hunk_id: &str) -> Option<Status> {
        let (path, i) = self.find_hunk(hunk_id).ok()?;
        Some(self.files[&path].entries()[i].status)
    }

    /// Whether `hunk_id` counts: it is under review, pending or accepted.
    pub(crate) fn counts(&self, hunk_id: &str) -> bool {
        self.status_of(hunk_id).is_some_and(|s| s != Status::Rejected)
    }

    /// The job `hunk_id` came from, if it is under review.
    pub(crate) fn job_of(&self, hunk_id: &str) -> Option<&str> {
        let (path, i) = self.find_hunk(hunk_id).ok()?;
        self.files[&path].entries()[i].job_id.as_deref()
    }

    /// Refuses a decision setting `hunk_ids` to `status` that would bring
    /// back a settled hunk (see [`Review::is_final`]).
    pub(crate) fn check_decidable(
        &self,
        hunk_ids: &[String],
        status: Status,
    ) -> Result<(), ReviewError> {
        // Rejecting a link update is always safe: it brings no link back.
        let changes = |h: &str| {
            self.status_of(h) != Some(status)
                && !(status == Status::Rejected && self.follows_a_move(h))
        };
        match hunk_ids.iter().find(|h| changes(h) && self.is_final(h)) {
            Some(settled) => Err(ReviewError::Settled(settled.clone())),
            None => Ok(()),
        }
    }

    /// Drops from the move `hunk_id` the link updates of its own no longer
    /// under review (a rollback took them); returns its file when it had
    /// any.
    pub(crate) fn forget_lost_updates(&mut self, hunk_id: &str) -> Option<String> {
        let (path, i) = self.find_hunk(hunk_id).ok()?;
        let op = self.files[&path].op().filter(|op| op.entry == i)?;
        let kept: Vec<String> = op
            .followers
            .iter()
            .filter(|f| self.hunks.contains_key(*f))
            .cloned()
            .collect();
        if kept.len() == op.followers.len() {
            return None;
        }
        self.file_mut(&path)?.op.as_mut()?.followers = kept;
        Some(path)
    }

    /// Sets the hunks `hunk_ids` of `path`, staged pending in the open
    /// decision, to `status`.
    pub(crate) fn set_new_hunks(&mut self, path: &str, hunk_ids: &[String], status: Status) {
        let Some(file) = self.file_mut(path) else {
            return;
        };
        let moves: Vec<(usize, Status)> = file
            .entries()
            .iter()
            .enumerate()
            .filter(|(_, e)| e.hunk_id.as_ref().is_some_and(|h| hunk_ids.contains(h)))
            .map(|(i, _)| (i, status))
            .collect();
        file.set_statuses(&moves);
    }

}

/// Where `file`'s operation takes it (`None`: a deletion).
fn op_target(file: &FileReview) -> Option<String> {
    file.op().and_then(|op| op.op.target()).map(str::to_owned)
}
