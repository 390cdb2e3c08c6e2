//! What a decision broke: the links that resolved before it and dangle
//! after it, read from the working state before and after (see the
//! parent module).

use std::collections::{BTreeMap, BTreeSet};

use super::{Cause, kept_at};
use crate::edits::FileOp;
use crate::links::{self, Link, Vault, name_key};
use crate::project::{Overlay, Project, View};
use crate::review::{FileReview, Review, Status};
use crate::tools::links::linking_to;
use crate::workspace::{WorkspaceError, overlay_of};

/// A link the decision left dangling: in the note at `source`, naming
/// `left`, a path the note under review by `note` is no longer at; `lost`
/// when the note had a link to that note that resolved before. `own`: a
/// link of the note under review by `note` itself (at `source`), written
/// relative to `left`, where the decision took the note from.
#[derive(Debug)]
pub(super) struct Broken {
    pub(super) source: String,
    pub(super) note: String,
    pub(super) left: String,
    pub(super) lost: bool,
    pub(super) own: bool,
}

/// One side of the check: the working state as a view, with its files.
pub(super) struct Side<'a> {
    view: View<'a>,
    vault: Vault,
}

impl<'a> Side<'a> {
    fn new(project: &'a Project, overlay: &'a Overlay) -> Side<'a> {
        let view = View::with(project, overlay);
        let vault = view.with_paths(|paths| Vault::new(paths.iter().copied()));
        Side { view, vault }
    }

    fn links(&self, path: &str) -> Vec<Link> {
        self.view
            .read_text(path)
            .map(|f| links::parse(&f.text))
            .unwrap_or_default()
    }

    /// How many of `links` (written in `source`) resolve to nothing and
    /// would resolve to `gone` were a file there.
    fn dangling_to(&mut self, links: &[Link], source: &str, gone: &str) -> usize {
        if self.vault.contains(gone) {
            return 0;
        }
        self.vault.insert(gone.to_owned());
        let count = links
            .iter()
            .filter(|l| self.vault.resolve(l, source).file() == Some(gone))
            .count();
        self.vault.remove(gone);
        count
    }

    /// How many of `links` (written in `source`) resolve to `target`.
    fn count_to(&self, links: &[Link], source: &str, target: &str) -> usize {
        links
            .iter()
            .filter(|l| self.vault.resolve(l, source).file() == Some(target))
            .count()
    }
}

/// The links the open transaction, `cause`'s, broke (see the module
/// docs), but for those the user chose to leave.
pub(super) fn broken_links(
    project: &Project,
    review: &Review,
    cause: Cause<'_>,
) -> Result<Vec<Broken>, WorkspaceError> {
    let before: BTreeMap<&str, &FileReview> = review
        .files_before()
        .flat_map(|f| f.paths().map(move |p| (p, f)))
        .collect();
    let shown_before = |key: &str, now: &FileReview| -> Option<String> {
        let was = before
            .get(key)
            .or_else(|| now.paths().find_map(|p| before.get(p)))?;
        was.view_path().map(str::to_owned)
    };
    // Only a move, or a note the decision showed elsewhere, takes a note
    // away from a path: without one, nothing needs reading.
    let moving = review.files().any(|f| {
        f.op()
            .is_some_and(|op| matches!(op.op, FileOp::Move { .. }))
            || f.moved_from().next().is_some()
    });
    let shifted = || {
        review.journaled().any(|key| {
            review
                .file(key)
                .is_some_and(|f| shown_before(key, f).as_deref() != f.view_path())
        })
    };
    if !moving && !shifted() {
        return Ok(Vec::new());
    }
    let (then_overlay, now_overlay) = (
        overlay_of(review.files_before()),
        overlay_of(review.files()),
    );
    let (mut then, mut now) = (
        Side::new(project, &then_overlay),
        Side::new(project, &now_overlay),
    );
    // The notes shown away from a path they had, by the name a link finds
    // that path by: the only notes a link can be left behind by.
    let mut away: BTreeMap<String, Vec<(&str, String)>> = BTreeMap::new();
    // Those that left a path in this decision: every note that linked
    // there then may have lost a link.
    let mut vacated: Vec<String> = Vec::new();
    for file in review.files().filter(|f| f.binary().is_none()) {
        let Some(at) = kept_at(file) else { continue };
        let was = shown_before(&file.path, file);
        let past = file.moved_from().map(|p| p.path.clone());
        // A note a pending deletion hides is still on disk: only the links
        // to where it was before a retired move are mended to there.
        let left: BTreeSet<String> = match file.view_path() {
            Some(_) => file
                .paths()
                .map(str::to_owned)
                .chain(was.clone())
                .chain(past)
                .collect(),
            None => past.collect(),
        };
        let left = left
            .into_iter()
            .filter(|p| p != at && !now.vault.contains(p));
        for path in left {
            if was.as_deref() == Some(path.as_str()) {
                vacated.push(path.clone());
            }
            away.entry(name_key(&path))
                .or_default()
                .push((&file.path, path));
        }
    }
    if away.is_empty() {
        return Ok(Vec::new());
    }
    // The notes to look at, by their key: those the decision changed, and
    // those that linked to a path a note left.
    let mut sources: BTreeSet<String> = review.journaled().map(str::to_owned).collect();
    for path in &vacated {
        for linking in linking_to(&then.view, path)? {
            sources.insert(review.file_of(&linking).map_or(linking, |f| f.path.clone()));
        }
    }
    let mut out = Vec::new();
    for key in sources {
        let file = review.file(&key);
        let Some(at) = file.map_or(Some(key.as_str()), FileReview::view_path) else {
            continue;
        };
        if cause.gives_back(&key) || cause.gives_back(at) {
            continue;
        }
        let was = match file {
            Some(file) => shown_before(&key, file),
            None => Some(key.clone()),
        };
        let links_now = now.links(at);
        let links_then = was.as_deref().map(|p| then.links(p)).unwrap_or_default();
        let mut shown: BTreeSet<(&str, &str)> = BTreeSet::new();
        for link in &links_now {
            if let Some(notes) = away.get(&name_key(&link.path())) {
                shown.extend(notes.iter().map(|(note, gone)| (*note, gone.as_str())));
            }
        }
        for (note, gone) in shown {
            let now_dangling = now.dangling_to(&links_now, at, gone);
            let then_dangling = was
                .as_deref()
                .map_or(0, |from| then.dangling_to(&links_then, from, gone));
            if now_dangling <= then_dangling || left_by_choice(review, &before, &key, note) {
                continue;
            }
            let target = review.file(note).expect("under review");
            let had = match (&was, shown_before(note, target)) {
                (Some(from), Some(to)) => then.count_to(&links_then, from, &to),
                _ => 0,
            };
            let has = target
                .view_path()
                .map_or(0, |to| now.count_to(&links_now, at, to));
            out.push(Broken {
                source: at.to_owned(),
                note: note.to_owned(),
                left: gone.to_owned(),
                lost: has < had,
                own: false,
            });
        }
        // The note's own links, written where it was shown before: one that
        // found a note there finds it where it is now, or it was left
        // behind by the note's own move.
        if let (Some(file), Some(from)) = (file, was.as_deref())
            && from != at
        {
            let now_of = |target: &str| match before.get(target) {
                Some(f) => review
                    .file(&f.path)
                    .and_then(FileReview::view_path)
                    .map(str::to_owned),
                None => now.vault.contains(target).then(|| target.to_owned()),
            };
            let left_behind = links_now.iter().any(|link| {
                let written = link.path();
                let then_to = links_then
                    .iter()
                    .find(|l| l.path() == written)
                    .and_then(|l| then.vault.resolve(l, from).file().map(str::to_owned));
                then_to
                    .as_deref()
                    .and_then(now_of)
                    .is_some_and(|to| now.vault.resolve(link, at).file() != Some(to.as_str()))
            });
            if left_behind {
                out.push(Broken {
                    source: at.to_owned(),
                    note: file.path.clone(),
                    left: from.to_owned(),
                    lost: true,
                    own: true,
                });
            }
        }
    }
    Ok(out)
}

/// Whether the note under review by `source` holds a link update of the
/// move of the note under review by `note` that the user chose to leave
/// rejected (`Entry::leaves_link`). Not when the decision also rejected,
/// as a consequence, another update of that move there (one staged since
/// for the same link, say): that one left the link.
fn left_by_choice(
    review: &Review,
    before: &BTreeMap<&str, &FileReview>,
    source: &str,
    note: &str,
) -> bool {
    let Some(file) = review.file(note) else {
        return false;
    };
    let moves: Vec<&str> = file
        .op()
        .and_then(|op| file.entries()[op.entry].hunk_id.as_deref())
        .into_iter()
        .chain(file.moved_from().map(|p| p.hunk_id.as_str()))
        .collect();
    let was_rejected = |hunk: &str| {
        before.get(source).is_some_and(|file| {
            file.entries()
                .iter()
                .any(|e| e.hunk_id.as_deref() == Some(hunk) && e.status == Status::Rejected)
        })
    };
    let Some(file) = review.file(source) else {
        return false;
    };
    let (mut chosen, mut carried) = (false, false);
    for entry in file
        .entries()
        .iter()
        .filter(|e| e.status == Status::Rejected)
    {
        let Some(hunk) = entry.hunk_id.as_deref() else {
            continue;
        };
        if !moves.iter().any(|mv| review.updates_links_of(hunk, mv)) {
            continue;
        }
        if entry.leaves_link {
            chosen = true;
        } else if !was_rejected(hunk) {
            carried = true;
        }
    }
    chosen && !carried
}
