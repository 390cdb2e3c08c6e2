//! Which file a link points at, by Obsidian's rules: a path from the root
//! first, then the one file whose path ends with the target; Markdown
//! links relative to their note first. Names compare without regard to
//! case, and `.md` may be left off a note's name.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::parse::{Link, Syntax};
use super::paths;

/// What a link points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// This file (a vault path). A same-note link (`[[#Heading]]`) points
    /// at its own note.
    File(String),
    /// Several files answer to it (sorted). Obsidian would pick one; Redline
    /// does not guess, and leaves such a link alone.
    Ambiguous(Vec<String>),
    /// No file answers to it: a link to a missing note.
    Dangling,
    /// Its relative path climbs above the vault's root.
    OutsideVault,
}

impl Resolution {
    /// The file it points at, if exactly one.
    pub fn file(&self) -> Option<&str> {
        match self {
            Resolution::File(path) => Some(path),
            _ => None,
        }
    }

    /// Whether it points at nothing in the vault (dangling or outside it).
    pub fn is_dangling(&self) -> bool {
        matches!(self, Resolution::Dangling | Resolution::OutsideVault)
    }
}

/// How a link found its file: a rewrite keeps writing it that way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Via {
    /// It points at its own note.
    SameNote,
    /// From its note's folder.
    Relative,
    /// From the whole vault: a path from the root, a path's end, a name.
    Vault,
}

/// A set of vault paths, as resolution looks at it.
pub(crate) trait FileSet {
    /// Whether `path` is a file of the vault (exactly, case included).
    fn contains(&self, path: &str) -> bool;

    /// Calls `f` with each file whose [key](paths::key) is `key`.
    fn each_with_key(&self, key: &str, f: &mut dyn FnMut(&str));
}

/// The files of a vault (every file, attachments too), with the names
/// links find them by.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Vault {
    files: HashSet<String>,
    names: HashMap<String, BTreeSet<String>>,
}

impl Vault {
    /// A vault of `files`: paths relative to its root, `/`-separated.
    pub fn new<I>(files: I) -> Vault
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        let mut vault = Vault::default();
        for file in files {
            vault.insert(file.into());
        }
        vault
    }

    /// Adds `path`; `false` when it was there already.
    pub fn insert(&mut self, path: String) -> bool {
        if self.files.contains(&path) {
            return false;
        }
        self.names
            .entry(paths::key(&path))
            .or_default()
            .insert(path.clone());
        self.files.insert(path)
    }

    /// Removes `path`; `false` when it was not there.
    pub fn remove(&mut self, path: &str) -> bool {
        if !self.files.remove(path) {
            return false;
        }
        let key = paths::key(path);
        if let Some(set) = self.names.get_mut(&key) {
            set.remove(path);
            if set.is_empty() {
                self.names.remove(&key);
            }
        }
        true
    }

    /// Whether `path` is a file of the vault.
    pub fn contains(&self, path: &str) -> bool {
        self.files.contains(path)
    }

    /// The number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether the vault has no file.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Its files, in no particular order.
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(String::as_str)
    }

    /// What `link`, written in the note at `source`, points at.
    pub fn resolve(&self, link: &Link, source: &str) -> Resolution {
        resolve(self, link, source).0
    }
}

impl FileSet for Vault {
    fn contains(&self, path: &str) -> bool {
        self.files.contains(path)
    }

    fn each_with_key(&self, key: &str, f: &mut dyn FnMut(&str)) {
        for path in self.names.get(key).into_iter().flatten() {
            f(path);
        }
    }
}

/// What `link` in the note at `source` points at in `files`, and how.
///
/// A wikilink's target is a path from the root (a leading `/` allowed),
/// else the end of one file's path (a bare name being the shortest end);
/// `./` and `../` make it relative to the note. A Markdown link is relative
/// to the note, and when nothing is there (and it does not start with `./`
/// or `../`) read as a wikilink's target is, which is how Obsidian finds the
/// `[Atlas](Atlas.md)` and `[Atlas](Projects/Atlas.md)` its "shortest" and
/// "absolute" formats write; a leading `/` makes it a path from the root.
pub(crate) fn resolve<F: FileSet + ?Sized>(
    files: &F,
    link: &Link,
    source: &str,
) -> (Resolution, Via) {
    let path = link.path();
    if path.is_empty() {
        return (Resolution::File(source.to_owned()), Via::SameNote);
    }
    let explicit = path.starts_with("./") || path.starts_with("../");
    let relative = match link.syntax {
        Syntax::Wiki { .. } => explicit,
        Syntax::Markdown { .. } => !path.starts_with('/'),
    };
    if relative {
        let Some(joined) = paths::join(paths::folder(source), &path) else {
            return (Resolution::OutsideVault, Via::Relative);
        };
        match whole_path(files, &joined) {
            Some(found) => return (found, Via::Relative),
            None if explicit => return (Resolution::Dangling, Via::Relative),
            None => {}
        }
    }
    let rooted = path.trim_start_matches('/');
    let found = if path.starts_with('/') && !link.is_wiki() {
        whole_path(files, rooted)
    } else {
        whole_path(files, rooted).or_else(|| path_end(files, rooted))
    };
    (found.unwrap_or(Resolution::Dangling), Via::Vault)
}

/// The file at `path` from the root: exactly, with `.md` added, or the one
/// whose path differs only in case.
fn whole_path<F: FileSet + ?Sized>(files: &F, path: &str) -> Option<Resolution> {
    if paths::file_name(path).is_empty() {
        return Some(Resolution::Dangling);
    }
    if files.contains(path) {
        return Some(Resolution::File(path.to_owned()));
    }
    if !paths::ends_with_md(path) {
        let with_md = format!("{path}.md");
        if files.contains(&with_md) {
            return Some(Resolution::File(with_md));
        }
    }
    let lower = paths::lower(path);
    one_of(files, path, |file| paths::matches(file, &lower))
}

/// The one file whose path ends with the components of `path`.
fn path_end<F: FileSet + ?Sized>(files: &F, path: &str) -> Option<Resolution> {
    let lower = paths::lower(path);
    one_of(files, path, |file| paths::matches_suffix(file, &lower))
}

/// The files with `path`'s key whose lower-cased path passes `test`: `None`
/// when there are none, ambiguous when there are several.
fn one_of<F: FileSet + ?Sized>(
    files: &F,
    path: &str,
    test: impl Fn(&str) -> bool,
) -> Option<Resolution> {
    let mut found = Vec::new();
    files.each_with_key(&paths::key(path), &mut |file| {
        if test(&paths::lower(file)) {
            found.push(file.to_owned());
        }
    });
    match found.len() {
        0 => None,
        1 => found.pop().map(Resolution::File),
        _ => {
            found.sort();
            Some(Resolution::Ambiguous(found))
        }
    }
}
