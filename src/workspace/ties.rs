//! Notes tied by a move are written together: a save of one writes the
//! others in the same batch, and keeps them all back when another program
//! changed one, so the disk never has a note moved without the links to it
//! following, nor a link to where a note is not yet
//! (docs/architecture.md#changes-across-notes).

use std::collections::{BTreeSet, HashMap, HashSet};

use super::Workspace;
use crate::edits::FileOp;
use crate::links::{self, LinkIndex, Vault};
use crate::project::{Overlay, View};

/// Why a save keeps a file back.
#[derive(Clone)]
pub(super) enum Held {
    /// Another program changed this note, tied to it by a move.
    Conflict(String),
    /// A note would still link to `from`, where a move tied to it takes its
    /// note from.
    LinkedFrom {
        /// The path the move leaves.
        from: String,
        /// The (first) note that links there.
        linking: String,
    },
}

/// A move a save carries out whose note's old path a note would still
/// link to after it.
struct LeftBehind {
    /// The moved note's key.
    mover: String,
    /// Its path on disk, which the move leaves.
    from: String,
    /// The keys of the notes that would link there.
    linking: Vec<String>,
    /// The keys of the notes of the save that link to where the move takes
    /// the note.
    ahead: BTreeSet<String>,
}

/// The files a save ties together, as groups: each file's group, by path.
struct Groups {
    of: HashMap<String, usize>,
    groups: Vec<Vec<String>>,
}

impl Groups {
    fn of(&self, path: &str) -> &[String] {
        self.of.get(path).map_or(&[], |&k| &self.groups[k])
    }
}

impl Workspace {
    /// Of `paths`, those a save must keep back, and why: those a move ties
    /// to a note another program changed since Redline last read or wrote
    /// it (the changed note itself is left to its own conflict), and those
    /// tied to a move whose note's path a note would still link to after
    /// the save (its link update rejected, or hidden behind a pending
    /// change): saved without them, or with them, a link would name where
    /// no note is. And those whose saved text would link back to where a
    /// saved move took a note from (see `links_back_to_left_paths`).
    pub(super) fn held_back(&self, paths: &[String]) -> HashMap<String, Held> {
        let on_disk = self.linking_on_disk();
        let groups = self.tie_groups(paths, &on_disk);
        // The notes whose save another move's group needs: those in motion
        // themselves, and those that link on disk to where another note
        // in motion is.
        let linked_by = |note: &str, mover: &str| {
            on_disk
                .iter()
                .any(|(m, linking)| m != mover && linking.iter().any(|l| l == note))
        };
        let mut held = HashMap::new();
        for group in groups.groups.iter().filter(|g| g.len() > 1) {
            let changed = group.iter().find(|p| {
                self.review.file(p).is_some_and(|f| {
                    let at = f.disk_path().unwrap_or(p);
                    self.project.disk_hash(at).ok().flatten() != f.disk_hash
                })
            });
            if let Some(other) = changed {
                for member in group.iter().filter(|p| *p != other) {
                    held.insert(member.clone(), Held::Conflict(other.clone()));
                }
            }
        }
        for LeftBehind {
            mover,
            from,
            linking,
            ahead,
        } in self.links_left_on_disk(paths)
        {
            // A note that links there may be saved: its link resolves
            // until the move is; but not one that also links to where the
            // move takes the note, which resolves only once it is, nor one
            // another move's save needs (it moves, or links to a note that
            // does). The moved note goes with the move.
            let held_too = |p: &&String| {
                !linking.contains(p)
                    || **p == mover
                    || ahead.contains(*p)
                    || self.in_motion(p)
                    || linked_by(p, &mover)
            };
            for member in groups.of(&mover).iter().filter(held_too) {
                held.entry(member.clone())
                    .or_insert_with(|| Held::LinkedFrom {
                        from: from.clone(),
                        linking: linking[0].clone(),
                    });
            }
        }
        for (note, from) in self.links_back_to_left_paths(paths) {
            for member in groups.of(&note) {
                held.entry(member.clone())
                    .or_insert_with(|| Held::LinkedFrom {
                        from: from.clone(),
                        linking: note.clone(),
                    });
            }
        }
        // A note a move ties to one kept back is kept back with it (a note
        // that links to where another move's note was may be saved, but not
        // with a move of its own whose link update that move keeps back):
        // saved alone, it would write a move without a link update of its
        // own, or a link update without its move.
        loop {
            let more: Vec<(String, Held)> = groups
                .groups
                .iter()
                .flatten()
                .filter(|p| !held.contains_key(*p))
                .filter_map(|p| {
                    let tied = self.review.tied_files(p).into_iter().find(|other| {
                        held.contains_key(other) && (self.in_motion(p) || self.in_motion(other))
                    })?;
                    Some((p.clone(), held[&tied].clone()))
                })
                .collect();
            if more.is_empty() {
                return held;
            }
            held.extend(more);
        }
    }

    /// Whether a save of the file under review `path` carries out a move
    /// or deletion, or takes one back: the disk has it elsewhere than where
    /// a save leaves it.
    fn in_motion(&self, path: &str) -> bool {
        self.review
            .file(path)
            .is_some_and(|f| f.op().is_some() && f.disk_path() != f.saved_path())
    }

    /// The notes of `paths` whose saved text would link to a path a note
    /// under review was moved away from (a move saved before), where no
    /// note is, more often than both the disk and the working state show:
    /// each with that path. A hunk a link update of the move stands on, set
    /// back to pending, takes the update off the disk with it, and the disk
    /// cannot show the link following the move until that hunk is decided.
    /// A link the working state shows dangling too is the user's to leave.
    fn links_back_to_left_paths(&self, paths: &[String]) -> Vec<(String, String)> {
        let empty = Overlay::new();
        let disk = View::with(&self.project, &empty);
        let left: BTreeSet<&str> = self
            .review
            .files()
            .flat_map(|f| {
                let done = f
                    .op()
                    .filter(|op| op.done && matches!(op.op, FileOp::Move { .. }))
                    .map(|_| f.path.as_str());
                f.moved_from().map(|p| p.path.as_str()).chain(done)
            })
            .filter(|p| !disk.exists(p))
            .collect();
        if left.is_empty() {
            return Vec::new();
        }
        let now = disk.with_paths(|all| Vault::new(all.iter().map(|p| (*p).to_owned())));
        // The disk after the save: its moves carried out.
        let mut after = now.clone();
        for file in paths.iter().filter_map(|p| self.review.file(p)) {
            if let (Some(at), Some(to)) = (
                file.disk_hash.as_ref().and(file.disk_path()),
                file.saved_path(),
            ) && at != to
            {
                after.remove(at);
                after.insert(to.to_owned());
            }
        }
        // Each vault with the paths left in it too, built once: a link that
        // resolves to nothing in the one and to a path left in the other
        // names where a note was.
        let with_left = |vault: Vault| {
            let mut there = vault.clone();
            for p in &left {
                there.insert((*p).to_owned());
            }
            (vault, there)
        };
        let (after, now) = (with_left(after), with_left(now));
        // The working state's, read only for a note that needs them.
        let shown = std::cell::OnceCell::new();
        let shown = || {
            shown.get_or_init(|| {
                let overlay = self.overlay();
                let working = View::with(&self.project, &overlay);
                with_left(working.with_paths(|all| Vault::new(all.iter().map(|p| (*p).to_owned()))))
            })
        };
        // Per path left, the links `text` at `source` names it by.
        let dangling = |text: &str, source: &str, (vault, there): &(Vault, Vault)| {
            let mut out: HashMap<String, usize> = HashMap::new();
            for link in links::parse(text) {
                if vault.resolve(&link, source).is_dangling()
                    && let Some(to) = there.resolve(&link, source).file()
                    && left.contains(to)
                {
                    *out.entry(to.to_owned()).or_default() += 1;
                }
            }
            out
        };
        let mut out = Vec::new();
        for file in paths.iter().filter_map(|p| self.review.file(p)) {
            let Some(source) = file.saved_path().filter(|_| file.binary().is_none()) else {
                continue;
            };
            let saved = dangling(&self.review.disk_view(file), source, &after);
            if saved.is_empty() {
                continue;
            }
            let on_disk = file
                .disk_hash
                .as_ref()
                .and(file.disk_path())
                .and_then(|at| Some((at, disk.read_text(at).ok()?.text)))
                .map(|(at, text)| dangling(&text, at, &now))
                .unwrap_or_default();
            let in_view = file
                .view_path()
                .map(|at| dangling(&file.buffer(), at, shown()))
                .unwrap_or_default();
            let worse = saved.into_iter().find(|(path, n)| {
                *n > on_disk
                    .get(path)
                    .copied()
                    .unwrap_or(0)
                    .max(in_view.get(path).copied().unwrap_or(0))
            });
            if let Some((from, _)) = worse {
                out.push((file.path.clone(), from));
            }
        }
        out
    }

    /// The moves a save of `paths` carries out whose note's old path a note
    /// under review would still link to after it, read as the disk will be:
    /// each note of the batch by its saved text where the save leaves it,
    /// the others as the disk has them (an unsaved one that links to a
    /// moving note is tied into the batch already), every moved note at its
    /// new path. A link that resolves then, by name or path, follows; one
    /// that resolves to nothing but would to the old path is left behind.
    fn links_left_on_disk(&self, paths: &[String]) -> Vec<LeftBehind> {
        let batch: HashSet<&str> = paths.iter().map(String::as_str).collect();
        let moving: Vec<(&str, &str, &str)> = paths
            .iter()
            .filter_map(|p| self.review.file(p))
            .filter(|f| f.op().is_some())
            .filter_map(|f| {
                // A deletion leaves its links as the user chose to.
                let at = f.disk_hash.as_ref().and(f.disk_path())?;
                let to = f.saved_path()?;
                (at != to).then_some((f.path.as_str(), at, to))
            })
            .collect();
        if moving.is_empty() {
            return Vec::new();
        }
        let gone: HashSet<&str> = moving.iter().map(|(_, at, _)| *at).collect();
        let empty = Overlay::new();
        let disk = View::with(&self.project, &empty);
        let (after, there) = disk.with_paths(|all| {
            let after: Vec<String> = all
                .iter()
                .filter(|p| !gone.contains(**p))
                .map(|p| (*p).to_owned())
                .chain(moving.iter().map(|(_, _, to)| (*to).to_owned()))
                .collect();
            let there = Vault::new(
                after
                    .iter()
                    .cloned()
                    .chain(gone.iter().map(|g| (*g).to_owned())),
            );
            (Vault::new(after), there)
        });
        let mut linking: HashMap<&str, BTreeSet<String>> = HashMap::new();
        let mut ahead: HashMap<&str, BTreeSet<String>> = HashMap::new();
        let new: HashMap<&str, &str> = moving.iter().map(|(_, at, to)| (*to, *at)).collect();
        for file in self.review.files().filter(|f| f.binary().is_none()) {
            let source = if batch.contains(file.path.as_str()) {
                file.saved_path()
            } else if super::files::unsaved(&self.review, file) {
                None
            } else {
                file.disk_hash.as_ref().and(file.disk_path())
            };
            let Some(source) = source else { continue };
            let text = self.review.disk_view(file);
            for link in links::parse(&text) {
                if let Some(to) = after.resolve(&link, source).file() {
                    if let Some(&at) = new.get(to)
                        && !disk.exists(to)
                    {
                        ahead.entry(at).or_default().insert(file.path.clone());
                    }
                    continue;
                }
                if let Some(at) = there.resolve(&link, source).file()
                    && let Some(&at) = gone.get(at)
                {
                    linking.entry(at).or_default().insert(file.path.clone());
                }
            }
        }
        moving
            .into_iter()
            .filter_map(|(key, at, _)| {
                // The moved note itself among them: a link to itself by its
                // old path that a pending change hides from the working
                // state, which the move's link updates were planned on.
                let from: Vec<String> = linking.remove(at)?.into_iter().collect();
                Some(LeftBehind {
                    mover: key.to_owned(),
                    from: at.to_owned(),
                    linking: from,
                    ahead: ahead.remove(at).unwrap_or_default(),
                })
            })
            .collect()
    }

    /// The files with unsaved work tied to `paths` by a move, transitively,
    /// not among `paths`, in path order: the notes holding link updates that
    /// follow a move of one of them, the moved notes whose moves their link
    /// updates follow, and the notes whose text on disk links to a note one
    /// of them moves or deletes (a decision since took that link out, and
    /// only their save takes it off the disk).
    pub fn tied_unsaved(&self, paths: &[String]) -> Vec<String> {
        let groups = self.tie_groups(paths, &self.linking_on_disk());
        let given: BTreeSet<&String> = paths.iter().collect();
        let tied: BTreeSet<String> = paths
            .iter()
            .flat_map(|p| groups.of(p))
            .filter(|p| !given.contains(p))
            .filter(|p| {
                self.review
                    .file(p)
                    .is_some_and(|f| super::files::unsaved(&self.review, f))
            })
            .cloned()
            .collect();
        tied.into_iter().collect()
    }

    /// The group of each of `paths`: it and every file a move ties to it,
    /// transitively, through the moves a save carries out or takes back
    /// (those whose note the disk has elsewhere than where a save leaves it;
    /// a pending move's ties change nothing on disk), and the unsaved notes
    /// whose text on disk links to a note such a save moves or deletes
    /// (`on_disk`, see [`Workspace::linking_on_disk`]).
    fn tie_groups(&self, paths: &[String], on_disk: &HashMap<String, Vec<String>>) -> Groups {
        // Both ways: a group reached from a linking note has its move too.
        let mut on_disk = on_disk.clone();
        let back: Vec<(String, String)> = on_disk
            .iter()
            .flat_map(|(mover, linking)| linking.iter().map(move |l| (l.clone(), mover.clone())))
            .collect();
        for (linking, mover) in back {
            on_disk.entry(linking).or_default().push(mover);
        }
        let mut groups = Groups {
            of: HashMap::new(),
            groups: Vec::new(),
        };
        for path in paths {
            if groups.of.contains_key(path) {
                continue;
            }
            let k = groups.groups.len();
            let mut group = vec![path.clone()];
            groups.of.insert(path.clone(), k);
            let mut i = 0;
            while i < group.len() {
                let here = group[i].clone();
                let mut next: Vec<String> = self
                    .review
                    .tied_files(&here)
                    .into_iter()
                    .filter(|other| self.in_motion(&here) || self.in_motion(other))
                    .collect();
                next.extend(on_disk.get(&here).into_iter().flatten().cloned());
                for other in next {
                    if !groups.of.contains_key(&other) {
                        groups.of.insert(other.clone(), k);
                        group.push(other);
                    }
                }
                i += 1;
            }
            groups.groups.push(group);
        }
        groups
    }

    /// Per file under review whose move or deletion a save carries out, the
    /// unsaved notes under review whose text on disk links to where the
    /// disk has it now. Read once, for all of them.
    fn linking_on_disk(&self) -> HashMap<String, Vec<String>> {
        let moving: Vec<(&str, &str)> = self
            .review
            .files()
            .filter(|f| f.op().is_some())
            .filter_map(|f| {
                let at = f.disk_hash.as_ref().and(f.disk_path())?;
                (Some(at) != f.saved_path()).then_some((f.path.as_str(), at))
            })
            .collect();
        if moving.is_empty() {
            return HashMap::new();
        }
        let empty = Overlay::new();
        let disk = View::with(&self.project, &empty);
        // Keyed by where the disk has each note, for relative links.
        let texts: Vec<(String, String, String)> = self
            .review
            .files()
            .filter(|f| f.binary().is_none() && super::files::unsaved(&self.review, f))
            .filter_map(|f| {
                let on = f.disk_hash.as_ref().and(f.disk_path())?;
                Some((on.to_owned(), f.path.clone(), disk.read_text(on).ok()?.text))
            })
            .collect();
        if texts.is_empty() {
            return HashMap::new();
        }
        let keys: HashMap<&str, &str> = texts
            .iter()
            .map(|(on, key, _)| (on.as_str(), key.as_str()))
            .collect();
        let index = disk.with_paths(|paths| {
            LinkIndex::build(
                paths.iter().copied(),
                texts
                    .iter()
                    .map(|(on, _, text)| (on.as_str(), text.as_str())),
            )
        });
        let mut out = HashMap::new();
        for (key, at) in moving {
            let mut linking: Vec<String> = index
                .backlinks(at)
                .iter()
                .filter_map(|l| keys.get(l.source).map(|k| (*k).to_owned()))
                .filter(|k| k != key)
                .collect();
            linking.sort_unstable();
            linking.dedup();
            if !linking.is_empty() {
                out.insert(key.to_owned(), linking);
            }
        }
        out
    }
}
