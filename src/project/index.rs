//! The project index: every file the walk sees, with its size, and the
//! bytes of its text when it is text and fits the memory budget. A running
//! project (the app, `redline serve`) fills it in the background at open and
//! keeps it current from the watcher and from its own writes, so a search
//! scans memory instead of walking and reading the folder again; until it is
//! filled, searches walk as before.
//!
//! What it holds is exactly what the walk yields (the same file rules), and
//! a file is searched from memory only when that gives the same answer as
//! searching the disk: text with no NUL byte. Binary files, files over the
//! text size limit and files beyond the budget are kept by name and
//! searched from disk.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

use super::{Guard, PathList, Project};

/// One file of the index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its size in bytes.
    pub size: u64,
    /// When it was last modified, as the file system said when it was read
    /// (`None` where the file system keeps no such time).
    pub modified: Option<SystemTime>,
    /// Its bytes when they are held: text with no NUL byte, within the
    /// limits. `None`: read it from disk.
    pub text: Option<Arc<[u8]>>,
}

impl Entry {
    /// Bytes of text it holds.
    fn held(&self) -> u64 {
        self.text.as_ref().map_or(0, |t| t.len() as u64)
    }
}

/// What the index holds, for figures and the UI.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct IndexStats {
    /// Whether it has been filled (searches use it).
    pub ready: bool,
    /// Files it lists.
    pub files: usize,
    /// Files whose text it holds.
    pub text_files: usize,
    /// Bytes of text it holds.
    pub text_bytes: u64,
    /// Its budget for text, in bytes (`limits.max_index_text_bytes`).
    pub budget_bytes: u64,
}

#[derive(Default)]
struct State {
    ready: bool,
    filling: bool,
    files: BTreeMap<String, Entry>,
    /// The paths of `files` in one buffer, made when first asked for after
    /// the set of files changed.
    paths: Option<Arc<PathList>>,
    /// Paths refreshed while a fill runs: newer than what the fill read.
    touched: HashSet<String>,
}

/// The index of one project. Cheap to query while filled; a fill or a
/// refresh takes the write lock only to store what it read.
pub struct Index {
    state: RwLock<State>,
    /// Bytes of text held, against `budget`.
    held: AtomicU64,
    budget: u64,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("stats", &self.stats())
            .finish()
    }
}

impl Index {
    /// An empty index holding at most `budget` bytes of text.
    pub fn new(budget: u64) -> Index {
        Index {
            state: RwLock::default(),
            held: AtomicU64::new(0),
            budget,
        }
    }

    /// Whether it has been filled.
    pub fn ready(&self) -> bool {
        self.read().ready
    }

    /// What it holds now.
    pub fn stats(&self) -> IndexStats {
        let state = self.read();
        IndexStats {
            ready: state.ready,
            files: state.files.len(),
            text_files: state.files.values().filter(|e| e.text.is_some()).count(),
            text_bytes: self.held.load(Ordering::Relaxed),
            budget_bytes: self.budget,
        }
    }

    /// Walks `project` and reads every file into the index (in parallel),
    /// then marks it ready. Changes refreshed meanwhile win over what the
    /// walk read. Calling it again refills it from scratch (after the
    /// watcher missed events). Returns how long it took.
    pub fn fill(&self, project: &Project) -> Duration {
        let started = Instant::now();
        {
            let mut state = self.write();
            state.filling = true;
            state.touched.clear();
        }
        let root = match project.resolve(".") {
            Ok(root) => root,
            Err(e) => {
                tracing::warn!(error = %e, "the index cannot walk the project");
                return started.elapsed();
            }
        };
        let reserved = AtomicU64::new(0);
        let read = project.walk_files(&root, || {
            let reserved = &reserved;
            move |rel: &str, abs: &std::path::Path| {
                let entry = self.read_entry(project, abs, reserved)?;
                Some((rel.to_owned(), entry))
            }
        });
        let mut state = self.write();
        let State { files, touched, .. } = &mut *state;
        let fresh: BTreeMap<String, Entry> = read
            .into_iter()
            .filter(|(rel, _)| !touched.contains(rel))
            .chain(
                touched
                    .iter()
                    .filter_map(|rel| Some((rel.clone(), files.get(rel)?.clone()))),
            )
            .collect();
        *files = fresh;
        touched.clear();
        // Made now, so quick open's first keystroke does not wait for it.
        let paths = files.keys().map(String::as_str).collect();
        state.paths = Some(Arc::new(paths));
        state.filling = false;
        state.ready = true;
        let held = state.files.values().map(Entry::held).sum();
        self.held.store(held, Ordering::Relaxed);
        started.elapsed()
    }

    /// Takes in what `rel` is now: read again when the walk would list it,
    /// gone otherwise. A folder (or a path that was one) has every file
    /// under it taken in again.
    pub fn refresh(&self, project: &Project, rel: &str) {
        self.refresh_with(&mut project.guard(), rel);
    }

    /// [`Index::refresh`] through `guard`, for many paths in one operation
    /// (a guard reads the ignore rules when it is made).
    pub fn refresh_with(&self, guard: &mut Guard<'_>, rel: &str) {
        let project = guard.project();
        let path = guard.resolve(rel).ok();
        let meta = path
            .as_ref()
            .and_then(|p| std::fs::symlink_metadata(p.abs()).ok());
        let entry = match (&path, &meta) {
            (Some(path), Some(meta)) if meta.is_file() => {
                let unreserved = AtomicU64::new(self.held.load(Ordering::Relaxed));
                self.read_entry(project, path.abs(), &unreserved)
            }
            _ => None,
        };
        let folder = format!("{rel}/");
        let mut under = Vec::new();
        if let (Some(path), Some(meta)) = (&path, &meta)
            && meta.is_dir()
        {
            let reserved = AtomicU64::new(self.held.load(Ordering::Relaxed));
            under = project.walk_files(path, || {
                let reserved = &reserved;
                move |rel: &str, abs: &std::path::Path| {
                    Some((rel.to_owned(), self.read_entry(project, abs, reserved)?))
                }
            });
        }
        let mut state = self.write();
        let stale: Vec<String> = state
            .files
            .range(folder.clone()..)
            .take_while(|(p, _)| p.starts_with(&folder))
            .map(|(p, _)| p.clone())
            .chain(std::iter::once(rel.to_owned()))
            .collect();
        let mut gone = Vec::new();
        for path in &stale {
            if let Some(old) = state.files.remove(path) {
                self.held.fetch_sub(old.held(), Ordering::Relaxed);
                gone.push(path.as_str());
            }
        }
        let mut came = Vec::new();
        for (path, entry) in entry.map(|e| (rel.to_owned(), e)).into_iter().chain(under) {
            if state.filling {
                state.touched.insert(path.clone());
            }
            self.held.fetch_add(entry.held(), Ordering::Relaxed);
            came.push(path.clone());
            state.files.insert(path, entry);
        }
        // A file read again (the common refresh) leaves the list of paths as it was.
        gone.sort_unstable();
        came.sort_unstable();
        if !gone.iter().eq(&came) {
            state.paths = None;
        }
        if state.filling {
            state.touched.extend(stale);
        }
    }

    /// The files whose size or modification time on disk is not what the
    /// index read, those the walk finds that it does not list, and those it
    /// lists that are gone, sorted; `None` while it is not filled. Only file
    /// metadata is read (no file is opened, so a file watcher hears nothing):
    /// it is how changes the watcher missed are found again. A write that
    /// keeps both the size and the modification time is not seen.
    pub fn stale(&self, project: &Project) -> Option<Vec<String>> {
        let root = project.resolve(".").ok()?;
        let on_disk: BTreeMap<String, (u64, Option<SystemTime>)> = project
            .walk_files(&root, || {
                |rel: &str, abs: &std::path::Path| {
                    let meta = std::fs::metadata(abs).ok()?;
                    Some((rel.to_owned(), (meta.len(), meta.modified().ok())))
                }
            })
            .into_iter()
            .collect();
        self.with_files(|files| {
            let changed = on_disk.iter().filter(|(rel, (size, modified))| {
                files
                    .get(*rel)
                    .is_none_or(|e| e.size != *size || e.modified != *modified)
            });
            let gone = files.keys().filter(|rel| !on_disk.contains_key(*rel));
            let mut stale: Vec<String> = changed.map(|(rel, _)| rel.clone()).chain(gone.cloned()).collect();
            stale.sort_unstable();
            stale
        })
    }

    /// Runs `f` over the files, sorted by path, while the index is ready;
    /// `None` when it is not (search the disk instead).
    pub fn with_files<R>(&self, f: impl FnOnce(&BTreeMap<String, Entry>) -> R) -> Option<R> {
        let state = self.read();
        state.ready.then(|| f(&state.files))
    }

    /// Its paths, sorted, while it is ready; `None` when it is not. The list
    /// is shared: it is made again only after files come or go.
    pub fn paths(&self) -> Option<Arc<PathList>> {
        {
            let state = self.read();
            if !state.ready {
                return None;
            }
            if let Some(paths) = &state.paths {
                return Some(paths.clone());
            }
        }
        let mut state = self.write();
        let State {
            files,
            paths,
            ready,
            ..
        } = &mut *state;
        if !*ready {
            return None;
        }
        Some(
            paths
                .get_or_insert_with(|| Arc::new(files.keys().map(String::as_str).collect()))
                .clone(),
        )
    }

    /// Reads the file at `abs` into an entry, holding its text when it is
    /// text within the limits and `reserved` (bytes already held) leaves room.
    fn read_entry(
        &self,
        project: &Project,
        abs: &std::path::Path,
        reserved: &AtomicU64,
    ) -> Option<Entry> {
        let meta = std::fs::metadata(abs).ok()?;
        let size = meta.len();
        let modified = meta.modified().ok();
        let fits = size <= project.limits().max_text_file_bytes
            && reserved.fetch_add(size, Ordering::Relaxed) + size <= self.budget;
        if !fits {
            if size <= project.limits().max_text_file_bytes {
                reserved.fetch_sub(size, Ordering::Relaxed);
            }
            return Some(Entry {
                size,
                modified,
                text: None,
            });
        }
        let bytes = match std::fs::read(abs) {
            Ok(bytes) => bytes,
            Err(_) => {
                reserved.fetch_sub(size, Ordering::Relaxed);
                return None;
            }
        };
        if bytes.contains(&0) || bytes.len() as u64 != size {
            // Binary, or changing under us: the disk answers for it.
            reserved.fetch_sub(size, Ordering::Relaxed);
            return Some(Entry {
                size: bytes.len() as u64,
                modified,
                text: None,
            });
        }
        Some(Entry {
            size,
            modified,
            text: Some(Arc::from(bytes)),
        })
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Limits;

    #[test]
    fn the_list_of_paths_follows_the_files_that_come_and_go() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("notes")).unwrap();
        std::fs::write(root.join("notes/a.md"), "a\n").unwrap();
        std::fs::write(root.join("b.md"), "b\n").unwrap();
        let project = Project::open(root, Limits::default()).unwrap().with_index();
        let index = project.index().unwrap();
        assert!(index.paths().is_none(), "not filled yet");
        index.fill(&project);
        let listed =
            || -> Vec<String> { index.paths().unwrap().iter().map(str::to_owned).collect() };
        assert_eq!(listed(), ["b.md", "notes/a.md"]);

        // A file written again keeps the list as it is.
        let before = index.paths().unwrap();
        std::fs::write(root.join("b.md"), "b, edited\n").unwrap();
        index.refresh(&project, "b.md");
        assert!(Arc::ptr_eq(&before, &index.paths().unwrap()));
        // Files that come, go, and a folder that becomes a file.
        std::fs::write(root.join("c.md"), "c\n").unwrap();
        index.refresh(&project, "c.md");
        assert_eq!(listed(), ["b.md", "c.md", "notes/a.md"]);
        std::fs::remove_file(root.join("b.md")).unwrap();
        index.refresh(&project, "b.md");
        assert_eq!(listed(), ["c.md", "notes/a.md"]);
        std::fs::remove_dir_all(root.join("notes")).unwrap();
        std::fs::write(root.join("notes"), "now a file\n").unwrap();
        index.refresh(&project, "notes");
        assert_eq!(listed(), ["c.md", "notes"]);
    }

    #[test]
    fn stale_lists_what_changed_came_or_went_since_it_was_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for name in ["same", "edited", "gone", "renamed"] {
            std::fs::write(root.join(format!("{name}.md")), format!("{name}\n")).unwrap();
        }
        let project = Project::open(root, Limits::default()).unwrap().with_index();
        let index = project.index().unwrap();
        assert_eq!(index.stale(&project), None, "not filled yet");
        index.fill(&project);
        assert_eq!(index.stale(&project), Some(vec![]));

        // The same size, written later: its time tells.
        let edited = root.join("edited.md");
        let read_at = std::fs::metadata(&edited).unwrap().modified().unwrap();
        std::fs::write(&edited, "EDITED\n").unwrap();
        let file = std::fs::File::options().write(true).open(&edited).unwrap();
        file.set_modified(read_at + Duration::from_secs(1)).unwrap();
        std::fs::remove_file(root.join("gone.md")).unwrap();
        std::fs::rename(root.join("renamed.md"), root.join("moved.md")).unwrap();
        std::fs::write(root.join("new.md"), "new\n").unwrap();
        assert_eq!(
            index.stale(&project).unwrap(),
            ["edited.md", "gone.md", "moved.md", "new.md", "renamed.md"]
        );
        for rel in ["edited.md", "gone.md", "moved.md", "new.md", "renamed.md"] {
            index.refresh(&project, rel);
        }
        assert_eq!(index.stale(&project), Some(vec![]), "read again: current");
    }
}
