//! The one rule across notes (docs/architecture.md#changes-across-notes),
//! checked once at the end of every decision path (one hunk, a batch or
//! pattern, an apply, an undo or redo, a rollback) against the working
//! state before it: **no decision leaves a link dangling to a path a note
//! was moved away from**. Where one would, the decision carries what mends
//! it, and the rule is checked again: the move that took the note away,
//! rejected with what follows it; or, where the decision itself brought
//! that move back or the move is final, a link update of the move that
//! points the link where the note is (the link follows it, as it did when
//! the move was proposed). A link that names a path the note left by a
//! move saved and moved on since (`FileReview::moved_from`) always
//! follows the note: that move stays.
//!
//! A link is known by the note it is in and the path it names. A note that
//! shows more links dangling to a path a moved note left than it did
//! before the decision has one the decision broke. A link the link engine
//! leaves alone (several notes answer to it) cannot be mended: the
//! decision is refused. A link whose own update the user rejected by name
//! is their choice to leave it as it is (`Entry::leaves_link`; the
//! decision reports it as `links_left`), and an undo gives back the notes
//! it restores exactly.

mod broken;

use std::collections::BTreeSet;

use self::broken::{Broken, broken_links};
use super::{Workspace, WorkspaceError, overlay_of};
use crate::edits::{FileOp, FileProposal};
use crate::hunks::{HunkLimits, bundle_from};
use crate::links::{self, LinkIndex, LinkSettings, Vault, apply_edits, name_key, retarget_links};
use crate::project::View;
use crate::project::text::content_hash;
use crate::review::{Decision, FileReview, HunkMove, Review, Status, TieKind};

/// The operation whose decisions the rule checks.
#[derive(Clone, Copy, Debug)]
pub(super) enum Cause<'a> {
    /// A decision setting the hunks it names to a status (one hunk, a
    /// batch or pattern, an apply's).
    Decision(Status, &'a [String]),
    /// An undo or redo, which rejects the hunks it names and gives back
    /// the notes at these paths as they were before the step it takes
    /// back: a link that dangled then may dangle again.
    Undo(&'a [String], &'a BTreeSet<String>),
    /// A rollback, which names no hunk; undoing one gives back the notes at
    /// these paths as the user left them, links that dangled then
    /// included.
    Rollback(&'a BTreeSet<String>),
}

impl<'a> Cause<'a> {
    /// The hunks it rejects by name: a move's own link update among them
    /// is the user's choice to leave that link (`Entry::leaves_link`).
    fn rejects(self) -> &'a [String] {
        match self {
            Cause::Decision(Status::Rejected, named) | Cause::Undo(named, _) => named,
            _ => &[],
        }
    }

    /// Whether the operation named what it decides (not a rollback).
    fn names(self) -> bool {
        !matches!(self, Cause::Rollback(_))
    }

    /// Whether it gives back the note at `path` as it was.
    fn gives_back(self, path: &str) -> bool {
        matches!(self, Cause::Undo(_, paths) | Cause::Rollback(paths) if paths.contains(path))
    }
}

impl Workspace {
    /// Checks the rule against the working state before the open
    /// transaction, `cause`'s, carrying what it must (the decisions are
    /// added to `decisions`).
    pub(super) fn keep_links(
        &mut self,
        cause: Cause<'_>,
        decisions: &mut Vec<Decision>,
    ) -> Result<(), WorkspaceError> {
        // A choice stands while the move counts: set before the rule is
        // checked, and again once it has carried what it must.
        self.review.leave_links(cause.rejects());
        loop {
            let broken = broken_links(&self.project, &self.review, cause)?;
            let brought_back = |decisions: &[Decision], hunk: &str| {
                decisions.iter().flat_map(|d| &d.moves).any(|m| {
                    m.hunk_id == hunk && m.from == Status::Rejected && m.to != Status::Rejected
                })
            };
            let mut moves = Vec::new();
            let mut follow: Vec<(&Broken, String)> = Vec::new();
            for b in &broken {
                if b.own {
                    // The note's own links follow the move the decision
                    // brought back; else the move is taken back.
                    match takeable_move(&self.review, &b.note) {
                        Some(hunk) if cause.names() && brought_back(decisions, &hunk) => {
                            follow.push((b, hunk))
                        }
                        Some(hunk) => moves.push(hunk),
                        None => {}
                    }
                    continue;
                }
                // A path a retired move took the note from: that move stays,
                // so the link follows the note, whatever it resolved to before.
                if let Some(hunk) = past_move(&self.review, &b.note, &b.left) {
                    follow.push((b, hunk));
                    continue;
                }
                match takeable_move(&self.review, &b.note) {
                    // Taking back the move a decision brings back would
                    // undo the decision itself: the link follows it instead.
                    Some(hunk) if cause.names() && brought_back(decisions, &hunk) => {
                        follow.push((b, hunk))
                    }
                    Some(hunk) => moves.push(hunk),
                    // A link brought back naming where a note was, which
                    // resolved to nothing before either: nothing to mend.
                    None if !b.lost => {}
                    // A move saved and moved on since: the link follows it.
                    None => match settled_move(&self.review, &b.note) {
                        Some(hunk) => follow.push((b, hunk)),
                        // No move to follow: a change under review that
                        // wrote the link to where the note was goes.
                        None => match writers(&self.review, b).as_slice() {
                            [] => return Err(left_behind(&self.review, &broken, b)),
                            hunks => moves.extend(hunks.iter().cloned()),
                        },
                    },
                }
            }
            if !follow.is_empty() {
                // One rewrite of a note can mend several of its links: each
                // is checked again on what the last one left.
                let mut mended = false;
                for (b, hunk) in &follow {
                    let to = self.review.file(&b.note).and_then(kept_at);
                    let followed = match to.map(str::to_owned) {
                        Some(to) if b.own => self.follow_own_move(&b.left, &to, hunk)?,
                        Some(to) => self.follow_move(&b.source, &b.left, &to, hunk)?,
                        None => None,
                    };
                    if let Some(decision) = followed {
                        decisions.push(decision);
                        mended = true;
                    }
                }
                if mended {
                    continue;
                }
                // A link the link engine leaves alone (several notes
                // answer to it): nothing mends it.
                let (b, hunk) = &follow[0];
                return Err(match takeable_move(&self.review, &b.note) {
                    Some(_) => WorkspaceError::MoveLeavesLinks {
                        hunk: hunk.clone(),
                        from: b.left.clone(),
                        files: vec![b.source.clone()],
                    },
                    None => left_behind(&self.review, &broken, b),
                });
            }
            if moves.is_empty() {
                self.forget_lost_updates(decisions);
                self.review.leave_links(cause.rejects());
                return Ok(());
            }
            moves.sort_unstable();
            moves.dedup();
            decisions.extend(self.review.decide_many(&moves, Status::Rejected)?);
        }
    }

    /// Forgets the link updates a rollback took from each move `decisions`
    /// brought back: the rule has checked the links they were for (each
    /// follows the move again, or is no longer there), and a later rollback
    /// must not take the move back for them.
    fn forget_lost_updates(&mut self, decisions: &[Decision]) {
        let brought: Vec<&str> = decisions
            .iter()
            .flat_map(|d| &d.moves)
            .filter(|m| m.from == Status::Rejected && m.to != Status::Rejected)
            .map(|m| m.hunk_id.as_str())
            .collect();
        for hunk in brought {
            if let Some(path) = self.review.forget_lost_updates(hunk) {
                self.relinked.insert(path);
            }
        }
    }

    /// Stages, in the note the working state shows at `source`, a link
    /// update of the move `hunk` that points the links naming `gone`, where
    /// the note was, at `to`, where it is: its job's, tied to it, counting
    /// as it counts. The decision it returns sets it from rejected, so that
    /// undoing the step takes it back with the move. `None` when the link
    /// engine rewrites nothing there.
    fn follow_move(
        &mut self,
        source: &str,
        gone: &str,
        to: &str,
        hunk: &str,
    ) -> Result<Option<Decision>, WorkspaceError> {
        let overlay = overlay_of(self.review.files());
        let view = View::with(&self.project, &overlay);
        let Ok(read) = view.read_text(source) else {
            return Ok(None);
        };
        let text = read.text;
        let mut vault = view.with_paths(|paths| Vault::new(paths.iter().copied()));
        // A note a pending deletion hides is still where the link goes.
        if !vault.contains(to) {
            vault.insert(to.to_owned());
        }
        let settings = LinkSettings::read(self.project.root());
        let plan = retarget_links(&text, source, gone, to, &vault, &settings);
        let proposed = apply_edits(&text, &plan.edits);
        self.stage_update(source, text, proposed, hunk)
    }

    /// Rewrites the links of the note the move `hunk` takes from `from` to
    /// `to` that were written where it was, as the move's proposal did: a
    /// link update of the move, as [`Workspace::follow_move`] stages one.
    fn follow_own_move(
        &mut self,
        from: &str,
        to: &str,
        hunk: &str,
    ) -> Result<Option<Decision>, WorkspaceError> {
        let overlay = overlay_of(self.review.files());
        let view = View::with(&self.project, &overlay);
        let Ok(read) = view.read_text(to) else {
            return Ok(None);
        };
        let text = read.text;
        // The vault as it was before the move: the note at `from`.
        let index = view.with_paths(|paths| {
            let paths = paths.iter().copied().filter(|p| *p != to).chain([from]);
            LinkIndex::build(paths, [(from, text.as_str())])
        });
        let settings = LinkSettings::read(self.project.root());
        let Ok(plan) = index.plan_moves(&[(from, to)], &settings) else {
            return Ok(None);
        };
        let Some(edits) = plan.edits.get(from) else {
            return Ok(None);
        };
        let proposed = apply_edits(&text, edits);
        self.stage_update(to, text, proposed, hunk)
    }

    /// Stages `proposed` over `text` in the note at `source` as link
    /// updates of `hunk`, counting as it counts; `None` when nothing
    /// changes.
    fn stage_update(
        &mut self,
        source: &str,
        text: String,
        proposed: String,
        hunk: &str,
    ) -> Result<Option<Decision>, WorkspaceError> {
        let (Some(status), Some(job)) = (self.review.status_of(hunk), self.review.job_of(hunk))
        else {
            return Ok(None);
        };
        if proposed == text {
            return Ok(None);
        }
        let job = job.to_owned();
        let key = self
            .review
            .file_at(source)
            .map_or_else(|| source.to_owned(), |f| f.path.clone());
        let proposals = [FileProposal {
            file_path: key.clone(),
            created: false,
            base_file_hash: Some(content_hash(text.as_bytes())),
            base: text,
            proposed,
            edits: Vec::new(),
        }];
        let mut bundle = bundle_from(&proposals, &HunkLimits::default(), 0);
        let first = self.reserve_hunks(bundle.hunk_count() as u64)?;
        for (k, staged) in bundle
            .files
            .iter_mut()
            .flat_map(|f| &mut f.hunks)
            .enumerate()
        {
            staged.hunk_id = format!("h_{}", first + k as u64);
        }
        self.review.stage(&job, &proposals, &bundle)?;
        let ids: Vec<String> = bundle.hunk_ids().map(str::to_owned).collect();
        self.review.follow(hunk, &ids, TieKind::Update);
        self.review.set_new_hunks(&key, &ids, status);
        self.relinked.insert(key.clone());
        // The move's file keeps its own link updates with it.
        if let Ok((leader, _)) = self.review.find_hunk(hunk) {
            self.relinked.insert(leader);
        }
        let file = self.review.file(&key).expect("staged");
        let entry_of = |id: &String| {
            file.entries()
                .iter()
                .find(|e| e.hunk_id.as_ref() == Some(id))
                .map(|e| e.id.clone())
                .unwrap_or_default()
        };
        Ok(Some(Decision {
            path: key.clone(),
            entry_ids: ids.iter().map(entry_of).collect(),
            moves: ids
                .iter()
                .map(|id| HunkMove {
                    hunk_id: id.clone(),
                    from: Status::Rejected,
                    to: status,
                })
                .collect(),
            hidden_user_text: Vec::new(),
            links_left: Vec::new(),
        }))
    }
}

/// The refusal for a link `b` of `broken` lost to a note that no move can
/// mend.
fn left_behind(review: &Review, broken: &[Broken], b: &Broken) -> WorkspaceError {
    let to = review
        .file(&b.note)
        .and_then(FileReview::view_path)
        .unwrap_or(&b.note);
    WorkspaceError::LinksLeftBehind {
        from: b.left.clone(),
        to: to.to_owned(),
        files: broken
            .iter()
            .filter(|o| o.note == b.note && o.lost)
            .map(|o| o.source.clone())
            .collect(),
    }
}

/// The accepted move that holds the note under review by `note` where it
/// is while no staged move of its own counts: the latest whole-file entry
/// of its log, accepted. It was saved and moved on since (retired), or a
/// rollback rejected the move that took the note back from where it put
/// it (an entry of the rollback's own, which no link update follows).
fn settled_move(review: &Review, note: &str) -> Option<String> {
    let file = review.file(note)?;
    if file
        .op()
        .is_some_and(|op| file.entries()[op.entry].in_buffer())
    {
        return None;
    }
    let entries = file.entries();
    (0..entries.len())
        .rev()
        .find(|&i| entries[i].hunk_id.is_some() && !file.changes_text(i))
        .filter(|&i| entries[i].status == Status::Accepted)
        .and_then(|i| entries[i].hunk_id.clone())
}

/// Where the note of `file` is shown, or, hidden by a pending deletion,
/// where the disk keeps it until that is saved.
fn kept_at(file: &FileReview) -> Option<&str> {
    file.view_path().or_else(|| file.saved_path())
}

/// The move a link that names `left`, a path the note under review by
/// `note` left by a retired move, follows: the note's staged move where it
/// counts (it takes the note where it is shown), else that retired move.
fn past_move(review: &Review, note: &str, left: &str) -> Option<String> {
    let file = review.file(note)?;
    let past = file.moved_from().find(|p| p.path == left)?;
    let staged = file
        .op()
        .filter(|op| matches!(op.op, FileOp::Move { .. }) && file.entries()[op.entry].in_buffer())
        .and_then(|op| file.entries()[op.entry].hunk_id.clone());
    Some(staged.unwrap_or_else(|| past.hunk_id.clone()))
}

/// The agent's changes under review that count in the note at `b.source`
/// and write a link by the name of `b.left` (a retarget at a note's new
/// name, written after its move was saved): when no move of the note can
/// follow, the link goes with them.
fn writers(review: &Review, b: &Broken) -> Vec<String> {
    let Some(file) = review.file_at(&b.source) else {
        return Vec::new();
    };
    let key = name_key(&b.left);
    let naming = |text: &str| {
        links::parse(text)
            .iter()
            .filter(|l| name_key(&l.path()) == key)
            .count()
    };
    file.entries()
        .iter()
        .enumerate()
        .filter(|(_, e)| e.origin.is_reviewed() && e.status != Status::Rejected)
        .filter(|&(i, _)| {
            file.span_of(i)
                .is_some_and(|span| naming(&span.now) > naming(&span.old))
        })
        .filter_map(|(_, e)| e.hunk_id.clone())
        .filter(|h| !review.is_final(h))
        .collect()
}

/// The move of the note under review by `note` that counts and can still
/// be rejected.
fn takeable_move(review: &Review, note: &str) -> Option<String> {
    let file = review.file(note)?;
    let op = file.op()?;
    let entry = &file.entries()[op.entry];
    let hunk = entry.hunk_id.clone()?;
    (matches!(op.op, FileOp::Move { .. })
        && entry.status != Status::Rejected
        && !review.is_final(&hunk))
    .then_some(hunk)
}
