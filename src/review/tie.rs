//! Ties between hunks across notes: which hunk follows which, and of what
//! kind, as stored with the follower (bare ids from before ties had kinds
//! included); which hunks follow a move as its own link updates, and which
//! a decision moves across notes.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::{Review, Status};

/// A hunk's tie to another it follows across notes, stored once, with its
/// kind, when it is staged (docs/architecture.md#changes-across-notes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "TieRepr")]
pub struct Tie {
    /// The hunk it follows: a move, or the hunk that renames a heading.
    pub leader: String,
    /// What the tie is; `None` in a review stored before ties had kinds,
    /// where the leader's own update is the one its job staged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<TieKind>,
}

/// What ties a hunk to the one it follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TieKind {
    /// The leader's own rewrite of a link to what it moves or renames,
    /// staged with it: the two are one change.
    Update,
    /// A later hunk that links to where the leader takes a note: it needs
    /// the leader, and the leader not it.
    Needs,
}

/// A tie as stored: a bare hunk id before ties had kinds.
#[derive(Deserialize)]
#[serde(untagged)]
enum TieRepr {
    Id(String),
    Tie {
        leader: String,
        #[serde(default)]
        kind: Option<TieKind>,
    },
}

impl From<TieRepr> for Tie {
    fn from(repr: TieRepr) -> Tie {
        match repr {
            TieRepr::Id(leader) => Tie { leader, kind: None },
            TieRepr::Tie { leader, kind } => Tie { leader, kind },
        }
    }
}

impl Review {
    /// Ties the hunks `followers` to `hunk_id` (a move, or a heading's
    /// rename) as `kind`: its own link updates, or hunks that need it. A
    /// tie given again takes the kind given last.
    pub(crate) fn follow(&mut self, hunk_id: &str, followers: &[String], kind: TieKind) {
        for follower in followers {
            let Ok((path, i)) = self.find_hunk(follower) else {
                continue;
            };
            let entry = self.file_mut(&path).expect("found").entry_mut(i);
            match entry.follows.iter_mut().find(|t| t.leader == hunk_id) {
                Some(tie) => tie.kind = Some(kind),
                None => entry.follows.push(Tie {
                    leader: hunk_id.to_owned(),
                    kind: Some(kind),
                }),
            }
            self.add_follower(hunk_id, follower);
            // The move keeps its own link updates only: a later hunk that
            // links to where the note goes needs the move, not the reverse.
            if let Some(op) = self
                .find_hunk(hunk_id)
                .ok()
                .and_then(|(path, _)| self.file_mut(&path)?.op.as_mut())
            {
                match kind {
                    TieKind::Update if !op.followers.contains(follower) => {
                        op.followers.push(follower.clone())
                    }
                    TieKind::Needs => op.followers.retain(|f| f != follower),
                    TieKind::Update => {}
                }
            }
        }
    }

    /// The moves and link updates of their own whose statuses split what is
    /// one change, each with its status now and the one that mends it
    /// (pending, for both): an accepted hunk following a pending move (an
    /// update of its own, or a retarget at its note's new name), and an
    /// accepted move with a pending update of its own. A rollback leaves
    /// them so when it restores one side and not the other, and a save
    /// would then write a link to where the note is not, or move the note
    /// from under a link.
    pub(super) fn split_changes(&self) -> Vec<(String, Status, Status)> {
        let mut out = Vec::new();
        for file in self.files.values() {
            let Some(op) = file.op() else { continue };
            let entry = &file.entries()[op.entry];
            let Some(mv) = entry.hunk_id.as_ref() else {
                continue;
            };
            let followers = self.followers.get(mv).into_iter().flatten();
            let own: Vec<&String> = followers
                .clone()
                .filter(|u| self.updates_links_of(u, mv))
                .collect();
            match entry.status {
                // Every hunk that follows a pending move links to where the
                // note is not yet: its own link updates, and a retarget at
                // the note by its new name alike.
                Status::Pending => out.extend(
                    followers
                        .filter(|u| self.status_of(u) == Some(Status::Accepted))
                        .map(|u| (u.clone(), Status::Accepted, Status::Pending)),
                ),
                Status::Accepted
                    if own
                        .iter()
                        .any(|u| self.status_of(u) == Some(Status::Pending)) =>
                {
                    out.push((mv.clone(), Status::Accepted, Status::Pending));
                }
                _ => {}
            }
        }
        out
    }

    /// The files under review tied to `path` by a move: those holding link
    /// hunks that follow its move, and those whose moves its link hunks
    /// follow (whatever their statuses).
    pub(crate) fn tied_files(&self, path: &str) -> BTreeSet<String> {
        let Some(file) = self.files.get(path) else {
            return BTreeSet::new();
        };
        let own = file
            .op()
            .and_then(|op| file.entries()[op.entry].hunk_id.as_ref());
        let followers = own
            .and_then(|m| self.followers.get(m))
            .into_iter()
            .flatten();
        let leaders = file.entries().iter().flat_map(|e| e.leaders());
        followers
            .chain(leaders)
            .filter_map(|h| self.hunks.get(h))
            .filter(|p| p.as_str() != path)
            .cloned()
            .collect()
    }

    /// Whether `follower`, which follows the move `leader`, is one of its
    /// link updates (staged with it, by its job), which the move needs: a
    /// later hunk that follows it only because it links to where the note
    /// goes (a retarget, a conversion) needs the move, and the move not it.
    pub(crate) fn updates_links_of(&self, follower: &str, leader: &str) -> bool {
        let tie = self
            .find_hunk(follower)
            .ok()
            .and_then(|(path, i)| Some(self.files[&path].entries()[i].tie_to(leader)?.kind));
        match tie {
            Some(Some(kind)) => kind == TieKind::Update,
            // Stored before ties had kinds: its own update is its job's.
            Some(None) => self.job_of(follower) == self.job_of(leader),
            None => false,
        }
    }
}
