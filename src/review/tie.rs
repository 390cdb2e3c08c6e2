//! Ties between hunks across notes: which hunk follows which, and of what
//! kind, as stored with the follower (bare ids from before ties had kinds
//! included).

use serde::{Deserialize, Serialize};

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
