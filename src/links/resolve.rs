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
    /// This many files answer to it ([`Vault::candidates`] lists them).
    /// Obsidian would pick one; Redline does not guess, and leaves such a
    /// link alone.
    Ambiguous(usize),
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

    /// The files `link`, written in the note at `source`, may mean, sorted:
    /// the one it resolves to, the several of an ambiguous link, or none.
    pub fn candidates(&self, link: &Link, source: &str) -> Vec<String> {
        candidates(self, link, source)
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
    resolve_listing(files, link, source, None)
}

/// The files `link` in the note at `source` may mean in `files`, sorted.
pub(crate) fn candidates<F: FileSet + ?Sized>(files: &F, link: &Link, source: &str) -> Vec<String> {
    let mut list = Vec::new();
    match resolve_listing(files, link, source, Some(&mut list)).0 {
        Resolution::File(file) => vec![file],
        Resolution::Ambiguous(_) => {
            list.sort();
            list
        }
        Resolution::Dangling | Resolution::OutsideVault => Vec::new(),
    }
}

/// [`resolve`], listing in `list` the files of an ambiguous link.
fn resolve_listing<F: FileSet + ?Sized>(
    files: &F,
    link: &Link,
    source: &str,
    mut list: Option<&mut Vec<String>>,
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
        match lookup(files, &joined, false, list.as_deref_mut()) {
            Some(found) => return (found, Via::Relative),
            None if explicit => return (Resolution::Dangling, Via::Relative),
            None => {}
        }
    }
    let ends = link.is_wiki() || !path.starts_with('/');
    let found = lookup(files, path.trim_start_matches('/'), ends, list);
    (found.unwrap_or(Resolution::Dangling), Via::Vault)
}

/// The file `path` names from the root (exactly, else with `.md` added,
/// else differing only in case), or when `ends` the one whose path ends
/// with it; `None` when none does. The files of an ambiguous answer go to
/// `list` when there is one; otherwise they are only counted, so that a
/// name hundreds of notes share costs no allocation.
fn lookup<F: FileSet + ?Sized>(
    files: &F,
    path: &str,
    ends: bool,
    list: Option<&mut Vec<String>>,
) -> Option<Resolution> {
    if paths::file_name(path).is_empty() {
        return Some(Resolution::Dangling);
    }
    if files.contains(path) {
        return Some(Resolution::File(path.to_owned()));
    }
    let key = paths::key(path);
    let lower = paths::lower(path);
    let adds_md = !paths::ends_with_md(path);
    let mut with_md = None;
    let mut whole = Matches::new(list.is_some());
    files.each_with_key(&key, &mut |file| {
        if adds_md
            && file.len() == path.len() + 3
            && file.starts_with(path)
            && file.ends_with(".md")
        {
            with_md = Some(file.to_owned());
        } else if paths::matches(file, &lower) {
            whole.add(file);
        }
    });
    if with_md.is_some() {
        return with_md.map(Resolution::File);
    }
    if whole.count > 0 || !ends {
        return whole.into_resolution(list);
    }
    let mut end = Matches::new(list.is_some());
    files.each_with_key(&key, &mut |file| {
        if paths::matches_suffix(file, &lower) {
            end.add(file);
        }
    });
    end.into_resolution(list)
}

/// The files a lookup found in one of its passes.
struct Matches {
    count: usize,
    first: Option<String>,
    all: Option<Vec<String>>,
}

impl Matches {
    fn new(listing: bool) -> Matches {
        Matches {
            count: 0,
            first: None,
            all: listing.then(Vec::new),
        }
    }

    fn add(&mut self, file: &str) {
        self.count += 1;
        if self.count == 1 {
            self.first = Some(file.to_owned());
        }
        if let Some(all) = &mut self.all {
            all.push(file.to_owned());
        }
    }

    fn into_resolution(self, list: Option<&mut Vec<String>>) -> Option<Resolution> {
        match self.count {
            0 => None,
            1 => self.first.map(Resolution::File),
            n => {
                if let (Some(list), Some(all)) = (list, self.all) {
                    *list = all;
                }
                Some(Resolution::Ambiguous(n))
            }
        }
    }
}
