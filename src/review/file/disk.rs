//! What a save writes of a file under review: its disk view.

use super::{FileReview, pieces};
use crate::review::pieces::BASE;
use crate::review::{Entry, Origin, Status, TieKind};

impl FileReview {
    /// The text a save writes: the accepted hunks and the user's edits,
    /// without the pending hunks (or anything typed inside them);
    /// `leader_on_disk` says whether a save leaves a hunk of another note
    /// on disk (see [`Review::disk_view`], which answers it).
    ///
    /// [`Review::disk_view`]: super::Review::disk_view
    pub fn disk_view_with(&self, leader_on_disk: &dyn Fn(&str) -> bool) -> String {
        pieces::render(&self.pieces, &self.on_disk(leader_on_disk))
    }

    /// Which entries a save leaves on disk: those whose status does (see
    /// [`Entry::on_disk`]) and whose every entry they were written on does
    /// too. A hunk accepted over a pending one's words (a move's link
    /// update following a link the pending hunk wrote) would otherwise
    /// splice its words into the text the pending one replaced.
    fn on_disk(&self, leader_on_disk: &dyn Fn(&str) -> bool) -> impl Fn(u32) -> bool + '_ {
        let mut counts: Vec<bool> = Vec::with_capacity(self.entries.len());
        for (i, entry) in self.entries.iter().enumerate() {
            let under = self.depends_on[i].iter().all(|&d| counts.get(d).copied().unwrap_or(true));
            counts.push(entry.on_disk() && under);
        }
        for i in 0..self.entries.len() {
            if self.stands_in(i, &counts, leader_on_disk) {
                counts[i] = true;
            }
        }
        move |c| c == BASE || counts[c as usize]
    }

    /// Whether entry `i`, a link update set aside, stays on disk for the one
    /// that replaced it (`counts` says which entries a save leaves there).
    ///
    /// A link update is set aside when a hunk that took out the same words
    /// comes to count (an undo brings back what it was written over); the
    /// link then follows its move in an update written on that hunk, which
    /// reaches the disk only with it. Until it does, and while the move is
    /// on disk, the disk keeps the update set aside, so a save never writes
    /// back a link to where a move took its note from. Not when the
    /// replacement is rejected: that is the user's choice to leave the link
    /// as it is.
    fn stands_in(&self, i: usize, counts: &[bool], leader_on_disk: &dyn Fn(&str) -> bool) -> bool {
        let entry = &self.entries[i];
        fn update_of(e: &Entry) -> Vec<&str> {
            e.follows
                .iter()
                .filter(|t| t.kind == Some(TieKind::Update))
                .map(|t| t.leader.as_str())
                .collect()
        }
        let mut leaders = update_of(entry);
        if entry.status != Status::Rejected
            || entry.origin != Origin::Agent
            || leaders.is_empty()
            || !self.depends_on[i].iter().all(|&d| counts[d])
            || self.excludes[i].iter().any(|&x| counts[x])
        {
            return false;
        }
        leaders.retain(|l| leader_on_disk(l));
        // What set it aside: an alternative shown in the buffer, not on disk.
        let aside: Vec<usize> = self.excludes[i]
            .iter()
            .copied()
            .filter(|&x| self.entries[x].in_buffer())
            .collect();
        self.entries.iter().enumerate().any(|(j, e)| {
            e.in_buffer()
                && !counts[j]
                && update_of(e).iter().any(|l| leaders.contains(l))
                && self.depends_on[j].iter().any(|d| aside.contains(d))
        })
    }
}
