//! Decisions as transactions: a decision is made on the review as a draft,
//! checked, then kept or dropped whole. Nothing takes a half-made decision
//! back by hand (docs/architecture.md#changes-across-notes).
//!
//! The draft is the review itself with a journal beside it: each file is
//! kept as it was the first time the transaction changes it, and so is
//! each key of the indexes (a hunk's file, its undo step, a move's target
//! and followers), so a decision over a few notes of a vault-wide review
//! copies those notes and keys only. Transactions nest: an
//! inner one dropped puts back its own changes; kept, they become the
//! outer one's.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use super::decide::UndoStep;
use super::{FileReview, Review};

/// Each key's value as it was when a transaction first changed it
/// (`None`: absent then).
type Before<V> = HashMap<String, Option<V>>;

/// The review as it was when a transaction began: what it changed since,
/// kept the first time it changes, so a transaction costs what it touches.
#[derive(Clone, Debug, Default)]
pub(super) struct Savepoint {
    /// Each file the transaction changed, as it was (`None`: not under
    /// review then).
    files: BTreeMap<String, Option<FileReview>>,
    hunks: Before<String>,
    next_id: u64,
    undo: Before<Arc<UndoStep>>,
    next_step: u64,
    moved_to: Before<String>,
    followers: Before<Vec<String>>,
}

/// Keeps in `before` what `map` holds at `key`, the first time.
fn remember<V: Clone>(before: Option<&mut Before<V>>, map: &HashMap<String, V>, key: &str) {
    if let Some(before) = before
        && !before.contains_key(key)
    {
        before.insert(key.to_owned(), map.get(key).cloned());
    }
}

/// Puts back in `map` what `before` kept.
fn put_back<V>(map: &mut HashMap<String, V>, before: Before<V>) {
    for (key, value) in before {
        match value {
            Some(value) => map.insert(key, value),
            None => map.remove(&key),
        };
    }
}

/// Hands what an inner transaction kept to the one around it, where that
/// one has not kept the key already.
fn hand_over<V>(outer: &mut Before<V>, inner: Before<V>) {
    for (key, value) in inner {
        outer.entry(key).or_insert(value);
    }
}

impl Review {
    /// Runs `change` as one transaction: what it did is kept when it
    /// returns `Ok`, and dropped whole, the review as it was before, when
    /// it returns `Err`.
    pub(crate) fn transaction<T, E>(
        &mut self,
        change: impl FnOnce(&mut Review) -> Result<T, E>,
    ) -> Result<T, E> {
        self.begin();
        let done = change(self);
        self.end(done.is_ok());
        done
    }

    /// How many transactions are open.
    pub(crate) fn depth(&self) -> usize {
        self.journal.len()
    }

    /// Begins a transaction; [`Review::end`] keeps or drops it.
    pub(crate) fn begin(&mut self) {
        self.journal.push(Savepoint {
            next_id: self.next_id,
            next_step: self.next_step,
            ..Savepoint::default()
        });
    }

    /// Ends the transaction begun last: keeps what it did, or puts the
    /// review back as it was when it began.
    pub(crate) fn end(&mut self, keep: bool) {
        let Some(savepoint) = self.journal.pop() else {
            debug_assert!(false, "a transaction ended that never began");
            return;
        };
        if keep {
            if let Some(outer) = self.journal.last_mut() {
                for (path, file) in savepoint.files {
                    outer.files.entry(path).or_insert(file);
                }
                hand_over(&mut outer.hunks, savepoint.hunks);
                hand_over(&mut outer.undo, savepoint.undo);
                hand_over(&mut outer.moved_to, savepoint.moved_to);
                hand_over(&mut outer.followers, savepoint.followers);
            }
            return;
        }
        for (path, file) in savepoint.files {
            match file {
                Some(file) => self.files.insert(path, file),
                None => self.files.remove(&path),
            };
        }
        put_back(&mut self.hunks, savepoint.hunks);
        self.next_id = savepoint.next_id;
        put_back(&mut self.undo, savepoint.undo);
        self.next_step = savepoint.next_step;
        put_back(&mut self.moved_to, savepoint.moved_to);
        put_back(&mut self.followers, savepoint.followers);
    }

    /// Sets (`None`: clears) the file of `hunk`.
    pub(super) fn set_hunk_file(&mut self, hunk: &str, path: Option<String>) {
        remember(self.journal.last_mut().map(|s| &mut s.hunks), &self.hunks, hunk);
        match path {
            Some(path) => self.hunks.insert(hunk.to_owned(), path),
            None => self.hunks.remove(hunk),
        };
    }

    /// Sets (`None`: clears) the undo step of `hunk`.
    pub(super) fn set_undo(&mut self, hunk: &str, step: Option<Arc<UndoStep>>) {
        remember(self.journal.last_mut().map(|s| &mut s.undo), &self.undo, hunk);
        match step {
            Some(step) => self.undo.insert(hunk.to_owned(), step),
            None => self.undo.remove(hunk),
        };
    }

    /// Sets (`None`: clears) the file a staged move takes to `to`.
    pub(super) fn set_moved_to(&mut self, to: &str, path: Option<String>) {
        remember(self.journal.last_mut().map(|s| &mut s.moved_to), &self.moved_to, to);
        match path {
            Some(path) => self.moved_to.insert(to.to_owned(), path),
            None => self.moved_to.remove(to),
        };
    }

    /// Lists `follower` among the followers of `leader`, once.
    pub(super) fn add_follower(&mut self, leader: &str, follower: &str) {
        remember(
            self.journal.last_mut().map(|s| &mut s.followers),
            &self.followers,
            leader,
        );
        let list = self.followers.entry(leader.to_owned()).or_default();
        if !list.iter().any(|h| h == follower) {
            list.push(follower.to_owned());
        }
    }

    /// The files under review as they were before the outermost open
    /// transaction (the files as they are, when none is open): what the
    /// working state showed before a decision, to check it against.
    pub(crate) fn files_before(&self) -> impl Iterator<Item = &FileReview> {
        let mut before: BTreeMap<&str, Option<&FileReview>> = BTreeMap::new();
        for savepoint in &self.journal {
            for (path, file) in &savepoint.files {
                before.entry(path).or_insert(file.as_ref());
            }
        }
        let unchanged = self
            .files
            .iter()
            .filter(move |(path, _)| !self.journal.iter().any(|s| s.files.contains_key(*path)))
            .map(|(_, file)| file);
        before.into_values().flatten().chain(unchanged)
    }

    /// The paths of the files the open transactions changed (none when no
    /// transaction is open).
    pub(crate) fn journaled(&self) -> impl Iterator<Item = &str> {
        let mut paths: BTreeSet<&str> = BTreeSet::new();
        for savepoint in &self.journal {
            paths.extend(savepoint.files.keys().map(String::as_str));
        }
        paths.into_iter()
    }

    /// Keeps the file at `path` as it is now in the open transaction, if
    /// any, the first time it changes.
    pub(super) fn keep(&mut self, path: &str) {
        if let Some(savepoint) = self.journal.last_mut()
            && !savepoint.files.contains_key(path)
        {
            savepoint
                .files
                .insert(path.to_owned(), self.files.get(path).cloned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edits::FileProposal;
    use crate::hunks::{HunkLimits, bundle};
    use crate::project::text;
    use crate::review::Status;

    /// A review of two notes, one hunk each; their hunk ids.
    fn staged() -> (Review, Vec<String>) {
        let files: Vec<FileProposal> = [("a.md", "Café\n", "Café noir\n"), ("b.md", "日本\n", "日本語\n")]
            .into_iter()
            .map(|(path, base, proposed)| FileProposal {
                file_path: path.into(),
                created: false,
                base: base.into(),
                base_file_hash: Some(text::content_hash(base.as_bytes())),
                proposed: proposed.into(),
                edits: Vec::new(),
            })
            .collect();
        let bundle = bundle(&files, &HunkLimits::default());
        let mut review = Review::new();
        review.stage("job_1", &files, &bundle).unwrap();
        let hunks = bundle.hunk_ids().map(str::to_owned).collect();
        (review, hunks)
    }

    #[test]
    fn a_dropped_transaction_puts_back_every_file_and_index() {
        let (mut review, hunks) = staged();
        let before = format!("{review:?}");
        let out: Result<(), &str> = review.transaction(|r| {
            r.decide_many(&hunks, Status::Accepted).unwrap();
            r.remove_file("a.md");
            Err("dropped")
        });
        assert!(out.is_err());
        assert_eq!(format!("{review:?}"), before);
    }

    #[test]
    fn an_inner_transaction_kept_is_dropped_with_the_outer_one() {
        let (mut review, hunks) = staged();
        let before = format!("{review:?}");
        review.begin();
        let inner: Result<(), ()> = review.transaction(|r| {
            r.decide_many(&hunks, Status::Rejected).unwrap();
            Ok(())
        });
        assert!(inner.is_ok());
        assert_ne!(format!("{review:?}"), before);
        review.end(false);
        assert_eq!(format!("{review:?}"), before);
    }

    #[test]
    fn an_inner_transaction_dropped_leaves_the_outer_ones_changes() {
        let (mut review, hunks) = staged();
        review.begin();
        review.decide_many(&hunks[..1], Status::Accepted).unwrap();
        let outer = format!("{review:?}");
        let inner: Result<(), ()> = review.transaction(|r| {
            r.decide_many(&hunks, Status::Rejected).unwrap();
            r.remove_file("b.md");
            Err(())
        });
        assert!(inner.is_err());
        assert_eq!(format!("{review:?}"), outer);
        review.end(true);
        assert_eq!(review.status_of(&hunks[0]), Some(Status::Accepted));
        assert_eq!(review.status_of(&hunks[1]), Some(Status::Pending));
    }
}
