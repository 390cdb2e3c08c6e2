//! The project as a reader sees it: the disk, with a working state laid over
//! it. Redline's agent and the user work on the same thing — the working
//! buffer of every file that has one (pending hunks and unsaved edits
//! included), the disk for every other file — so the tools read through a
//! [`View`]; the one-shot CLI reads the disk alone ([`View::disk`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Index, PathError, Project, ProjectPath, TextFile, text};

/// Files whose text is not the disk's: a path maps to its working text, or
/// to `None` for a file that exists only as a buffer nobody has filled (a
/// created file whose creation was rejected), which readers treat as absent.
/// A file that is not text (an attachment) moved in the working state is
/// shown at its new path with the bytes the disk has at the old one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overlay {
    files: BTreeMap<String, Option<Arc<str>>>,
    /// Path shown → the path whose bytes on disk it shows.
    moved: BTreeMap<String, String>,
}

impl Overlay {
    /// An empty overlay: the disk as it is.
    pub fn new() -> Overlay {
        Overlay::default()
    }

    /// Lays `text` over the root-relative `path` (`None`: the file is absent).
    pub fn insert(&mut self, path: impl Into<String>, text: Option<Arc<str>>) {
        self.files.insert(path.into(), text);
    }

    /// Shows at `path` the bytes the disk has at `from` (an attachment whose
    /// move the working state holds); `from` itself is left to the caller.
    pub fn insert_moved(&mut self, path: impl Into<String>, from: impl Into<String>) {
        let path = path.into();
        self.files.remove(&path);
        self.moved.insert(path, from.into());
    }

    /// What the overlay says of `path`: `None` when it says nothing (the
    /// disk holds), `Some(None)` when the file is absent, else its text.
    /// A moved attachment's path is not text: see [`Overlay::moved_from`].
    pub fn get(&self, path: &str) -> Option<Option<&str>> {
        self.files.get(path).map(|t| t.as_deref())
    }

    /// The path on disk whose bytes the overlay shows at `path`, for a
    /// moved attachment.
    pub fn moved_from(&self, path: &str) -> Option<&str> {
        self.moved.get(path).map(String::as_str)
    }

    /// Every path it covers, sorted, with its text (`None`: absent).
    pub fn iter(&self) -> impl Iterator<Item = (&str, Option<&str>)> {
        self.files.iter().map(|(p, t)| (p.as_str(), t.as_deref()))
    }

    /// Whether it covers no file.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.moved.is_empty()
    }
}

impl<'a> From<&'a Project> for View<'a> {
    fn from(project: &'a Project) -> View<'a> {
        View::disk(project)
    }
}

/// Texts read from the disk moments ago through a view, by path: the notes
/// an operation expanded over, which staging its edits would read again.
/// A view [`reading`](View::reading) them gives them for a file the
/// overlay says nothing of, instead of the disk: it is as if the second
/// read came first, which no later write can tell apart (the disk is
/// checked against the text read when the file is saved).
pub type Reads = BTreeMap<String, TextFile>;

/// A project read through an overlay.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    project: &'a Project,
    overlay: Option<&'a Overlay>,
    reads: Option<&'a Reads>,
}

impl<'a> View<'a> {
    /// The disk as it is.
    pub fn disk(project: &'a Project) -> View<'a> {
        View {
            project,
            overlay: None,
            reads: None,
        }
    }

    /// The disk with `overlay` laid over it.
    pub fn with(project: &'a Project, overlay: &'a Overlay) -> View<'a> {
        View {
            project,
            overlay: Some(overlay).filter(|o| !o.is_empty()),
            reads: None,
        }
    }

    /// This view, giving `reads` for the files the overlay says nothing of.
    pub fn reading(self, reads: &'a Reads) -> View<'a> {
        View {
            reads: Some(reads).filter(|r| !r.is_empty()),
            ..self
        }
    }

    /// The project.
    pub fn project(&self) -> &'a Project {
        self.project
    }

    /// The overlay, if any file has one.
    pub fn overlay(&self) -> Option<&'a Overlay> {
        self.overlay
    }

    /// [`Project::read_text`] through the overlay: the guard first, then the
    /// overlay's text (its `hash` is of that text), else the disk.
    pub fn read_text(&self, raw: &str) -> Result<TextFile, PathError> {
        self.read_resolved(self.project.resolve(raw)?)
    }

    /// [`View::read_text`] for a path that already passed the guard.
    pub fn read_resolved(&self, path: ProjectPath) -> Result<TextFile, PathError> {
        if let Some(from) = self.overlay.and_then(|o| o.moved_from(path.rel())) {
            // An attachment: the reason it cannot be read is the same here.
            return Err(match self.project.read_text(from) {
                Ok(_) | Err(PathError::Binary(_)) => PathError::Binary(path.rel().to_owned()),
                Err(e) => e,
            });
        }
        match self.overlay.and_then(|o| o.get(path.rel())) {
            None => match self.reads.and_then(|r| r.get(path.rel())) {
                Some(read) => Ok(read.clone()),
                None => self.project.read_resolved(path),
            },
            Some(None) => Err(PathError::NotFound(path.rel().to_owned())),
            Some(Some(text)) => Ok(TextFile {
                hash: text::content_hash(text.as_bytes()),
                text: text.to_owned(),
                path,
            }),
        }
    }

    /// The bytes of `raw` whatever they hold, with their `sha256:` (see
    /// [`Project::read_bytes`]), as the view shows them: for a file that
    /// is not text, moved or deleted as a whole.
    pub fn read_bytes(&self, raw: &str) -> Result<(ProjectPath, Vec<u8>, String), PathError> {
        let path = self.project.resolve(raw)?;
        let overlay = self.overlay;
        if let Some(text) = overlay.and_then(|o| o.get(path.rel())) {
            let text = text.ok_or_else(|| PathError::NotFound(path.rel().to_owned()))?;
            let bytes = text.as_bytes().to_vec();
            let hash = text::content_hash(&bytes);
            return Ok((path, bytes, hash));
        }
        let (bytes, hash) = match overlay.and_then(|o| o.moved_from(path.rel())) {
            Some(from) => self.project.read_bytes(&self.project.resolve(from)?)?,
            None => self.project.read_bytes(&path)?,
        };
        Ok((path, bytes, hash))
    }

    /// The text of `rel` (a path from a walk or the overlay) as bytes:
    /// the overlay's, else the disk's; empty when it cannot be read.
    pub fn bytes(&self, rel: &str) -> Vec<u8> {
        let disk = self.overlay.and_then(|o| o.moved_from(rel)).unwrap_or(rel);
        match self.overlay.and_then(|o| o.get(rel)) {
            Some(text) => text.unwrap_or_default().as_bytes().to_vec(),
            None => std::fs::read(self.project.root().join(disk)).unwrap_or_default(),
        }
    }

    /// Whether something is at `rel` as the view shows it: a file, a
    /// folder, anything.
    pub fn exists(&self, rel: &str) -> bool {
        match self.overlay.and_then(|o| o.get(rel)) {
            Some(text) => text.is_some(),
            None => {
                self.overlay.is_some_and(|o| o.moved_from(rel).is_some())
                    || self.project.root().join(rel).symlink_metadata().is_ok()
            }
        }
    }

    /// Whether the overlay decides what `rel` holds (its text, its absence,
    /// or another path's bytes).
    pub fn covers(&self, rel: &str) -> bool {
        self.overlay
            .is_some_and(|o| o.get(rel).is_some() || o.moved_from(rel).is_some())
    }

    /// Runs `f` over every file of the project as the view shows it, sorted:
    /// the index's list when it is filled (else a walk), with the overlay's
    /// files added and the files it makes absent taken out. The index's
    /// paths are lent from its shared list, not copied (quick open ranks
    /// them on every keystroke).
    pub fn with_paths<R>(&self, f: impl FnOnce(&[&str]) -> R) -> R {
        if let Some(listed) = self.project.index().and_then(Index::paths) {
            return f(&laid_over(self.overlay, listed.iter()));
        }
        let Ok(root) = self.project.resolve(".") else {
            return f(&[]);
        };
        let mut walked = self.project.walk_files(&root, || {
            |rel: &str, _: &std::path::Path| Some(rel.to_owned())
        });
        walked.sort_unstable();
        f(&laid_over(self.overlay, walked.iter().map(String::as_str)))
    }

    /// The moved attachments the overlay shows under the folder `scope`
    /// (`""`: all): files with no text, listed but never searched.
    pub fn moved_under<'s>(&'s self, scope: &'s str) -> impl Iterator<Item = &'a str> + 's {
        let folder = format!("{scope}/");
        self.overlay
            .into_iter()
            .flat_map(|o| o.moved.keys())
            .map(String::as_str)
            .filter(move |path| scope.is_empty() || path.starts_with(&folder))
    }

    /// The overlay's files that exist under the folder `scope` (`""`: all),
    /// with their text.
    pub fn overlaid_under<'s>(
        &'s self,
        scope: &'s str,
    ) -> impl Iterator<Item = (&'a str, &'a str)> + 's {
        let folder = format!("{scope}/");
        self.overlay
            .into_iter()
            .flat_map(Overlay::iter)
            .filter_map(|(path, text)| Some((path, text?)))
            .filter(move |(path, _)| scope.is_empty() || path.starts_with(&folder))
    }
}

/// `listed` (sorted) with `overlay`'s files added and the files it makes
/// absent taken out.
fn laid_over<'s>(
    overlay: Option<&'s Overlay>,
    listed: impl Iterator<Item = &'s str>,
) -> Vec<&'s str> {
    let mut paths: Vec<&str> = listed.collect();
    let moved = overlay
        .into_iter()
        .flat_map(|o| o.moved.keys())
        .map(|p| (p.as_str(), Some("")));
    for (path, text) in overlay.into_iter().flat_map(Overlay::iter).chain(moved) {
        match (paths.binary_search(&path), text) {
            (Err(at), Some(_)) => paths.insert(at, path),
            (Ok(at), None) => {
                paths.remove(at);
            }
            _ => {}
        }
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Limits;

    #[test]
    fn reads_given_stand_for_the_disk_but_not_for_the_overlay() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "disk\n").unwrap();
        std::fs::write(dir.path().join("b.md"), "disk\n").unwrap();
        let project = Project::open(dir.path(), Limits::default()).unwrap();
        let mut overlay = Overlay::new();
        overlay.insert("b.md", Some(Arc::from("buffer\n")));
        let read = |path: &str| TextFile {
            path: project.resolve(path).unwrap(),
            text: "read before\n".into(),
            hash: text::content_hash(b"read before\n"),
        };
        let reads: Reads = ["a.md", "b.md"].map(|p| (p.to_owned(), read(p))).into();
        let view = View::with(&project, &overlay).reading(&reads);
        assert_eq!(view.read_text("a.md").unwrap().text, "read before\n");
        assert_eq!(view.read_text("b.md").unwrap().text, "buffer\n");
        assert_eq!(
            view.read_text("../a.md").unwrap_err().rule(),
            "escapes_root",
            "the guard first"
        );
    }

    #[test]
    fn the_overlay_wins_and_the_guard_still_runs() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "disk\n").unwrap();
        std::fs::write(dir.path().join("b.md"), "b\n").unwrap();
        let project = Project::open(dir.path(), Limits::default()).unwrap();
        let mut overlay = Overlay::new();
        overlay.insert("a.md", Some(Arc::from("buffer\n")));
        overlay.insert("new.md", Some(Arc::from("created\n")));
        overlay.insert("gone.md", None);
        let view = View::with(&project, &overlay);

        let a = view.read_text("a.md").unwrap();
        assert_eq!(a.text, "buffer\n");
        assert_eq!(a.hash, text::content_hash(b"buffer\n"));
        assert_eq!(view.read_text("./new.md").unwrap().text, "created\n");
        assert_eq!(view.read_text("b.md").unwrap().text, "b\n");
        assert!(matches!(
            view.read_text("gone.md"),
            Err(PathError::NotFound(_))
        ));
        assert_eq!(
            view.read_text("../a.md").unwrap_err().rule(),
            "escapes_root"
        );
        assert_eq!(
            View::disk(&project).read_text("a.md").unwrap().text,
            "disk\n"
        );
        let under: Vec<_> = view.overlaid_under("").map(|(p, _)| p).collect();
        assert_eq!(under, ["a.md", "new.md"]);
    }

    #[test]
    fn paths_are_the_disks_with_the_overlay_laid_over() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a.md", "b.md", "c.md"] {
            std::fs::write(dir.path().join(name), "x\n").unwrap();
        }
        let project = Project::open(dir.path(), Limits::default()).unwrap();
        let mut overlay = Overlay::new();
        overlay.insert("a.md", Some(Arc::from("buffer\n")));
        overlay.insert("ab.md", Some(Arc::from("created\n")));
        overlay.insert("b.md", None);
        overlay.insert("never.md", None);
        let listed = View::with(&project, &overlay).with_paths(|p| p.join(" "));
        assert_eq!(listed, "a.md ab.md c.md");
        let disk = View::disk(&project).with_paths(|p| p.join(" "));
        assert_eq!(disk, "a.md b.md c.md");
    }
}
