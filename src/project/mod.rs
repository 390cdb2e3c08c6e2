//! The project: one folder, its file rules, and the walk over its files.
//!
//! Everything the agent or the UI names is a path relative to the project
//! root, and passes [`Project::resolve`] before any file is touched. The walk
//! ([`Project::walk_files`]) and the guard share one configuration of the
//! `ignore` crate, so a file the walk yields is one the guard accepts.

mod batch;
mod guard;
mod index;
pub mod order;
mod path_list;
pub mod text;
mod view;
mod write;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ignore::{WalkBuilder, WalkState};

pub use batch::BatchWrite;
pub use guard::{MAX_PATH_BYTES, PathError, ProjectPath};

/// The largest file that is not text Redline moves or deletes under review
/// (64 MiB): its checkpoint keeps a copy of the bytes.
pub const MAX_ATTACHMENT_BYTES: u64 = 64 << 20;
pub use index::{Index, IndexStats};
pub use path_list::PathList;
pub use view::{Overlay, Reads, View};
pub use write::WriteError;

use crate::config::Limits;

/// An opened project folder.
#[derive(Clone, Debug)]
pub struct Project {
    root: PathBuf,
    limits: Limits,
    /// The index, when this project keeps one (shared by its clones).
    index: Option<std::sync::Arc<Index>>,
}

/// A text file read through the guard.
#[derive(Clone, Debug)]
pub struct TextFile {
    /// Where it is.
    pub path: ProjectPath,
    /// Its whole content, BOM included.
    pub text: String,
    /// `sha256:` of its bytes.
    pub hash: String,
}

/// The path guard of one operation; see [`Project::guard`].
pub struct Guard<'p> {
    project: &'p Project,
    ignore: ignore::IncrementalIgnore,
}

impl<'p> Guard<'p> {
    /// The project it guards.
    pub fn project(&self) -> &'p Project {
        self.project
    }

    /// [`Project::resolve`] with this guard's ignore rules.
    pub fn resolve(&mut self, raw: &str) -> Result<ProjectPath, PathError> {
        let root = &self.project.root;
        let parts = guard::normalize(raw)?;
        guard::check_names(raw, &parts)?;
        let rel = parts.join("/");
        // The common path has no symlink on it: one look at each of its
        // components settles it, where following links looks at every
        // folder above the root too.
        if let Some(found) = guard::unlinked(root, &rel) {
            self.check_ignored(raw, &rel, found == guard::Found::Dir)?;
            let abs = root.join(&rel);
            return Ok(ProjectPath::new(rel, abs));
        }
        let is_dir = root.join(&rel).is_dir();
        self.check_ignored(raw, &rel, is_dir)?;
        let abs = guard::resolve_links(raw, root, Path::new(&rel))?;
        let target = guard::relative_to(root, &abs)
            .ok_or_else(|| PathError::SymlinkEscape(raw.to_owned()))?;
        if target != rel {
            // A symlink inside the root: its target must pass the same rules.
            let recheck = guard::normalize(&target)
                .and_then(|parts| guard::check_names(&target, &parts))
                .and_then(|()| {
                    let is_dir = self.project.root.join(&target).is_dir();
                    self.check_ignored(&target, &target, is_dir)
                });
            if let Err(reason) = recheck {
                return Err(PathError::SymlinkTarget {
                    path: raw.to_owned(),
                    target,
                    reason: Box::new(reason),
                });
            }
        }
        Ok(ProjectPath::new(rel, abs))
    }

    fn check_ignored(&mut self, raw: &str, rel: &str, is_dir: bool) -> Result<(), PathError> {
        if rel.is_empty() {
            return Ok(());
        }
        if self.ignore.matched(rel, is_dir).is_ignore() {
            return Err(PathError::Ignored(raw.to_owned()));
        }
        Ok(())
    }
}

/// A project that could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The root is missing, unreadable or not a directory.
    #[error("cannot open project folder `{path}`: {source}")]
    Root {
        /// The folder as given.
        path: PathBuf,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
}

impl Project {
    /// Opens the folder at `root` with the given limits. The root is
    /// canonicalised, so symlinks above it do not matter later.
    pub fn open(root: impl AsRef<Path>, limits: Limits) -> Result<Project, OpenError> {
        let given = root.as_ref();
        let err = |source| OpenError::Root {
            path: given.to_path_buf(),
            source,
        };
        let root = given.canonicalize().map_err(err)?;
        if !root.is_dir() {
            return Err(err(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                "not a directory",
            )));
        }
        Ok(Project {
            root,
            limits,
            index: None,
        })
    }

    /// This project with an index (empty until [`Index::fill`]), holding
    /// at most `limits.max_index_text_bytes` of text. Clones share it.
    pub fn with_index(mut self) -> Project {
        self.index = Some(std::sync::Arc::new(Index::new(
            self.limits.max_index_text_bytes,
        )));
        self
    }

    /// Its index, if it keeps one.
    pub fn index(&self) -> Option<&Index> {
        self.index.as_deref()
    }

    /// Tells the index (if any) that `rel` may have changed.
    pub fn reindex(&self, rel: &str) {
        if let Some(index) = &self.index {
            index.refresh(self, rel);
        }
    }

    /// [`Project::reindex`] through `guard` (many paths in one operation).
    pub fn reindex_with(&self, guard: &mut Guard<'_>, rel: &str) {
        if let Some(index) = &self.index {
            index.refresh_with(guard, rel);
        }
    }

    /// The canonical root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// A walk over the project with its file rules: hidden names skipped, and
    /// `.gitignore`, `.ignore` and `.git/info/exclude` applied whether or not
    /// the folder is a git repository. Rules from folders above the root and
    /// the user's global git excludes do not apply: the project is the folder.
    /// Symlinks are not followed.
    pub fn walk_builder(&self) -> WalkBuilder {
        let mut builder = WalkBuilder::new(&self.root);
        builder
            .standard_filters(true)
            .parents(false)
            .git_global(false)
            .require_git(false)
            .follow_links(false);
        builder
    }

    /// Runs the guard on `raw` and returns the path it names, which may not
    /// exist. See [`PathError`] for every rule. The root itself (`.`) is
    /// accepted with an empty relative path.
    pub fn resolve(&self, raw: &str) -> Result<ProjectPath, PathError> {
        self.guard().resolve(raw)
    }

    /// A guard for checking many paths in one operation: the ignore files it
    /// reads are read once, so it sees them as they were when it was made.
    pub fn guard(&self) -> Guard<'_> {
        Guard {
            project: self,
            ignore: self.walk_builder().build_matchers().remove(0),
        }
    }

    /// Resolves `raw` and requires an existing directory; `""` is the root.
    pub fn resolve_dir(&self, raw: &str) -> Result<ProjectPath, PathError> {
        let path = self.resolve(if raw.is_empty() { "." } else { raw })?;
        match std::fs::metadata(path.abs()) {
            Ok(meta) if meta.is_dir() => Ok(path),
            Ok(_) => Err(PathError::NotADirectory(raw.to_owned())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(PathError::NotFound(raw.to_owned()))
            }
            Err(source) => Err(PathError::Io {
                path: raw.to_owned(),
                source,
            }),
        }
    }

    /// Resolves `raw` and reads it as text: a regular file, within the text
    /// size limit, UTF-8 with no NUL byte. Nothing is opened unless the guard
    /// accepts the path and the metadata says it is a regular file.
    pub fn read_text(&self, raw: &str) -> Result<TextFile, PathError> {
        self.read_resolved(self.resolve(raw)?)
    }

    /// [`Project::read_text`] for a path that already passed the guard.
    pub fn read_resolved(&self, path: ProjectPath) -> Result<TextFile, PathError> {
        let raw = path.rel().to_owned();
        let raw = raw.as_str();
        let meta = regular_file(&path)?;
        let limit = self.limits.max_text_file_bytes;
        if meta.len() > limit {
            return Err(PathError::TooLarge {
                path: raw.to_owned(),
                size: meta.len(),
                limit,
            });
        }
        let bytes = std::fs::read(path.abs()).map_err(|e| io_error(raw, e))?;
        let hash = text::content_hash(&bytes);
        match text::decode(&bytes) {
            Ok(_) => {}
            Err(text::NotText::Binary) => return Err(PathError::Binary(raw.to_owned())),
            Err(text::NotText::NotUtf8 { valid_up_to }) => {
                return Err(PathError::NotUtf8 {
                    path: raw.to_owned(),
                    offset: valid_up_to,
                });
            }
        }
        let text = String::from_utf8(bytes).expect("decoded above");
        Ok(TextFile { path, text, hash })
    }

    /// The bytes of the file at `path` (which passed the guard), whatever
    /// they hold, with their `sha256:`: an attachment moved or deleted as a
    /// whole. Refused over [`MAX_ATTACHMENT_BYTES`], since the checkpoint
    /// keeps a copy.
    pub fn read_bytes(&self, path: &ProjectPath) -> Result<(Vec<u8>, String), PathError> {
        let raw = path.rel();
        let meta = regular_file(path)?;
        if meta.len() > MAX_ATTACHMENT_BYTES {
            return Err(PathError::AttachmentTooLarge {
                path: raw.to_owned(),
                size: meta.len(),
                limit: MAX_ATTACHMENT_BYTES,
            });
        }
        let bytes = std::fs::read(path.abs()).map_err(|e| io_error(raw, e))?;
        let hash = text::content_hash(&bytes);
        Ok((bytes, hash))
    }

    /// Walks the regular files under the directory `scope` in parallel and
    /// returns what `visit` makes of each. `make_visitor` is called once per
    /// thread, so a visitor may keep per-thread state (a searcher, buffers).
    /// The visitor gets the root-relative `/`-path and the absolute path.
    /// Files whose names are not UTF-8 are skipped: no tool could name them.
    /// The order of the result is unspecified.
    pub fn walk_files<T, V, M>(&self, scope: &ProjectPath, make_visitor: M) -> Vec<T>
    where
        T: Send,
        V: FnMut(&str, &Path) -> Option<T> + Send,
        M: Fn() -> V + Sync,
    {
        let out = Mutex::new(Vec::new());
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(12));
        let mut builder = self.walk_builder();
        if !scope.rel().is_empty() {
            // Walk from the root so the rules of the folders above the scope
            // apply, but descend only along the way to the scope and inside it.
            let root = self.root.clone();
            let scope_abs = scope.abs().to_path_buf();
            builder.filter_entry(move |entry| {
                let path = entry.path();
                path == root || scope_abs.starts_with(path) || path.starts_with(&scope_abs)
            });
        }
        builder.threads(threads).build_parallel().run(|| {
            let mut visit = make_visitor();
            let out = &out;
            let root = &self.root;
            Box::new(move |entry| {
                let Ok(entry) = entry else {
                    return WalkState::Continue;
                };
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    return WalkState::Continue;
                }
                let Some(rel) = guard::relative_to(root, entry.path()) else {
                    return WalkState::Continue;
                };
                if let Some(item) = visit(&rel, entry.path()) {
                    out.lock().expect("walk results lock").push(item);
                }
                WalkState::Continue
            })
        });
        out.into_inner().expect("walk results lock")
    }
}

/// The metadata of the regular file at `path`; what else is there refused.
fn regular_file(path: &ProjectPath) -> Result<std::fs::Metadata, PathError> {
    let raw = path.rel();
    let meta = match std::fs::metadata(path.abs()) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(PathError::NotFound(raw.to_owned()));
        }
        Err(e) => return Err(io_error(raw, e)),
    };
    if meta.is_dir() {
        return Err(PathError::IsDirectory(raw.to_owned()));
    }
    if !meta.is_file() {
        return Err(PathError::NotAFile(raw.to_owned()));
    }
    Ok(meta)
}

fn io_error(path: &str, source: std::io::Error) -> PathError {
    PathError::Io {
        path: path.to_owned(),
        source,
    }
}
