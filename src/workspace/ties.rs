//! Notes tied by a move are written together: a save of one writes the
//! others in the same batch, and keeps them all back when another program
//! changed one, so the disk never has a note moved without the links to it
//! following, nor a link to where a note is not yet
//! (docs/architecture.md#changes-across-notes).

use std::collections::{HashMap, HashSet};

use super::Workspace;
use crate::links::LinkIndex;
use crate::project::{Overlay, View};

impl Workspace {
    /// Of `paths`, those a move ties to a note another program changed
    /// since Redline last read or wrote it, with that note: saved without
    /// it, they would leave a link naming where a note is not. The changed
    /// note itself is left to its own conflict.
    pub(super) fn held_back(&self, paths: &[String]) -> HashMap<String, String> {
        let mut held = HashMap::new();
        let mut checked: HashMap<String, bool> = HashMap::new();
        let mut changed = |ws: &Workspace, path: &str| -> bool {
            *checked.entry(path.to_owned()).or_insert_with(|| {
                ws.review.file(path).is_some_and(|f| {
                    let at = f.disk_path().unwrap_or(path);
                    ws.project.disk_hash(at).ok().flatten() != f.disk_hash
                })
            })
        };
        for path in paths {
            if held.contains_key(path) {
                continue;
            }
            let group = self.tie_group(path);
            if group.len() == 1 {
                continue;
            }
            if let Some(other) = group.iter().find(|p| changed(self, p)) {
                for member in group.iter().filter(|p| *p != other) {
                    held.insert(member.clone(), other.clone());
                }
            }
        }
        held
    }

    /// `path` and every file a move ties to it, transitively, through the
    /// moves a save carries out or takes back (those whose note the disk
    /// has elsewhere than where a save leaves it): a pending move's ties
    /// change nothing on disk.
    fn tie_group(&self, path: &str) -> Vec<String> {
        let in_motion = |p: &str| {
            self.review
                .file(p)
                .is_some_and(|f| f.op().is_some() && f.disk_path() != f.saved_path())
        };
        let mut group = vec![path.to_owned()];
        let mut k = 0;
        while k < group.len() {
            for other in self.review.tied_files(&group[k]) {
                if !group.contains(&other) && (in_motion(&group[k]) || in_motion(&other)) {
                    group.push(other);
                }
            }
            k += 1;
        }
        group
    }

    /// The files with unsaved work tied to `paths` by a move, transitively,
    /// not among `paths`, in path order: the notes holding link updates that
    /// follow a move of one of them, the moved notes whose moves their link
    /// updates follow, and the notes whose text on disk links to a note one
    /// of them moves or deletes (a decision since took that link out, and
    /// only their save takes it off the disk).
    pub fn tied_unsaved(&self, paths: &[String]) -> Vec<String> {
        let mut seen: HashSet<String> = paths.iter().cloned().collect();
        let mut tied = Vec::new();
        let mut k = 0;
        let mut all: Vec<String> = paths.to_vec();
        while k < all.len() {
            let mut more = self.tie_group(&all[k]);
            more.extend(self.linking_on_disk(&all[k]));
            for other in more {
                if seen.insert(other.clone()) {
                    all.push(other.clone());
                    tied.push(other);
                }
            }
            k += 1;
        }
        tied.retain(|p| self.review.file(p).is_some_and(super::files::unsaved));
        tied.sort_unstable();
        tied
    }

    /// The unsaved notes under review whose text on disk links to the note
    /// `path` has on disk, when a save of `path` moves or deletes it there.
    fn linking_on_disk(&self, path: &str) -> Vec<String> {
        let Some(file) = self.review.file(path) else {
            return Vec::new();
        };
        let Some(at) = file.disk_hash.as_ref().and(file.disk_path()) else {
            return Vec::new();
        };
        if file.op().is_none() || Some(at) == file.saved_path() {
            return Vec::new();
        }
        let empty = Overlay::new();
        let disk = View::with(&self.project, &empty);
        let texts: Vec<(String, String)> = self
            .review
            .files()
            .filter(|f| f.path != path && f.binary().is_none() && super::files::unsaved(f))
            .filter_map(|f| {
                let on = f.disk_hash.as_ref().and(f.disk_path())?;
                Some((f.path.clone(), disk.read_text(on).ok()?.text))
            })
            .collect();
        if texts.is_empty() {
            return Vec::new();
        }
        // Keyed by where the disk has each note, for relative links.
        let keys: HashMap<String, String> = texts
            .iter()
            .filter_map(|(key, _)| {
                let f = self.review.file(key)?;
                Some((f.disk_path()?.to_owned(), key.clone()))
            })
            .collect();
        let index = disk.with_paths(|paths| {
            LinkIndex::build(
                paths.iter().copied(),
                texts.iter().filter_map(|(key, text)| {
                    let f = self.review.file(key)?;
                    Some((f.disk_path()?.to_owned(), text.as_str()))
                }),
            )
        });
        let mut linking: Vec<String> = index
            .backlinks(at)
            .iter()
            .filter_map(|l| keys.get(l.source).cloned())
            .collect();
        linking.dedup();
        linking
    }
}
