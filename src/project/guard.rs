//! The path guard: the one gate every path from the agent or the UI passes.
//!
//! A path is accepted only when it is relative, stays inside the root after
//! `.`/`..` are resolved and symlinks are followed, names nothing hidden or
//! inside `.git/`, and is not excluded by the project's ignore rules. The rules
//! are checked on the path as written and again on the path a symlink leads to.

use std::path::{Component, Path, PathBuf};

/// The longest path the guard accepts, in bytes.
pub const MAX_PATH_BYTES: usize = 4096;

/// A path inside the project that passed the guard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectPath {
    rel: String,
    abs: PathBuf,
}

impl ProjectPath {
    /// The normalised relative path, `/`-separated; empty for the root.
    pub fn rel(&self) -> &str {
        &self.rel
    }

    /// The absolute path on disk with every symlink resolved.
    pub fn abs(&self) -> &Path {
        &self.abs
    }
}

/// A path refused by the guard, or a file refused as text. Each variant is one
/// rule; [`PathError::rule`] names it in a stable, machine-readable way.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// The path is empty.
    #[error("the path is empty; name a file relative to the project root")]
    Empty,
    /// The path is too long to be a real path.
    #[error("the path is {0} bytes long, over the {MAX_PATH_BYTES}-byte limit")]
    TooLong(usize),
    /// The path holds a NUL byte.
    #[error("the path contains a NUL byte")]
    NulByte,
    /// The path is absolute.
    #[error("`{0}` is absolute; name it relative to the project root")]
    Absolute(String),
    /// The path uses `\` as a separator.
    #[error("`{0}` contains `\\`; separate folders with `/`")]
    Backslash(String),
    /// `..` climbs above the root.
    #[error("`{0}` leaves the project root")]
    EscapesRoot(String),
    /// The path names `.git` or something inside it.
    #[error("`{0}` is inside `.git/`, which Redline never reads or writes")]
    GitDir(String),
    /// A component of the path starts with a dot.
    #[error("`{path}` is hidden (`{component}` starts with a dot)")]
    Hidden {
        /// The refused path.
        path: String,
        /// The hidden component.
        component: String,
    },
    /// The project's `.gitignore`, `.ignore` or `.git/info/exclude` excludes the path.
    #[error("`{0}` is excluded by the project's ignore rules (.gitignore, .ignore)")]
    Ignored(String),
    /// A symlink in the path resolves outside the root, or nowhere.
    #[error("`{0}` is a symlink that resolves outside the project root")]
    SymlinkEscape(String),
    /// A symlink in the path leads to a path that a rule refuses.
    #[error("`{path}` is a symlink to `{target}`, which is refused: {reason}")]
    SymlinkTarget {
        /// The path as given.
        path: String,
        /// Where it leads, relative to the root.
        target: String,
        /// Why the target is refused.
        reason: Box<PathError>,
    },
    /// Nothing exists at the path.
    #[error("`{0}` does not exist")]
    NotFound(String),
    /// The path names a directory where a file is needed.
    #[error("`{0}` is a directory, not a file")]
    IsDirectory(String),
    /// The path names something that is neither a file nor a directory.
    #[error("`{0}` is not a regular file (a pipe, socket or device)")]
    NotAFile(String),
    /// The path names a file where a directory is needed.
    #[error("`{0}` is a file, not a directory")]
    NotADirectory(String),
    /// The file holds binary data.
    #[error("`{0}` is a binary file; only UTF-8 text files can be read or edited")]
    Binary(String),
    /// The file is not valid UTF-8.
    #[error(
        "`{path}` is not UTF-8 text (first invalid byte at offset {offset}); it cannot be read or edited"
    )]
    NotUtf8 {
        /// The refused file.
        path: String,
        /// Offset of the first invalid byte.
        offset: usize,
    },
    /// The file is larger than the text size limit.
    #[error("`{path}` is {size} bytes, over the {limit}-byte limit for text files")]
    TooLarge {
        /// The refused file.
        path: String,
        /// Its size.
        size: u64,
        /// The limit in force.
        limit: u64,
    },
    /// A file that is not text is larger than Redline keeps a copy of to
    /// move or delete it under review.
    #[error(
        "`{path}` is {size} bytes, over the {limit}-byte limit for moving or deleting a file that is not text"
    )]
    AttachmentTooLarge {
        /// The refused file.
        path: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The file system failed.
    #[error("cannot access `{path}`: {source}")]
    Io {
        /// The path being accessed.
        path: String,
        /// The underlying failure.
        #[source]
        source: std::io::Error,
    },
}

impl PathError {
    /// Whether the file exists but cannot be read as text (binary, not
    /// UTF-8, or over the text size limit): an attachment, to the link
    /// engine and to whole-file moves.
    pub fn is_not_text(&self) -> bool {
        matches!(
            self,
            PathError::Binary(_) | PathError::NotUtf8 { .. } | PathError::TooLarge { .. }
        )
    }

    /// The stable name of the rule that refused the path, for machines.
    pub fn rule(&self) -> &'static str {
        match self {
            PathError::Empty => "empty_path",
            PathError::TooLong(_) => "path_too_long",
            PathError::NulByte => "nul_byte",
            PathError::Absolute(_) => "absolute_path",
            PathError::Backslash(_) => "backslash",
            PathError::EscapesRoot(_) => "escapes_root",
            PathError::GitDir(_) => "git_dir",
            PathError::Hidden { .. } => "hidden",
            PathError::Ignored(_) => "ignored",
            PathError::SymlinkEscape(_) => "symlink_escape",
            PathError::SymlinkTarget { .. } => "symlink_target",
            PathError::NotFound(_) => "not_found",
            PathError::IsDirectory(_) => "is_directory",
            PathError::NotAFile(_) => "not_a_file",
            PathError::NotADirectory(_) => "not_a_directory",
            PathError::Binary(_) => "binary_file",
            PathError::NotUtf8 { .. } => "not_utf8",
            PathError::TooLarge { .. } => "file_too_large",
            PathError::AttachmentTooLarge { .. } => "attachment_too_large",
            PathError::Io { .. } => "io_error",
        }
    }
}

/// Checks the spelling of `raw` and returns its normalised components: no
/// empty, `.` or `..` parts remain. Touches no file.
pub(crate) fn normalize(raw: &str) -> Result<Vec<&str>, PathError> {
    if raw.is_empty() {
        return Err(PathError::Empty);
    }
    if raw.len() > MAX_PATH_BYTES {
        return Err(PathError::TooLong(raw.len()));
    }
    if raw.contains('\0') {
        return Err(PathError::NulByte);
    }
    if raw.starts_with('/') || raw.starts_with('\\') || has_drive_prefix(raw) {
        return Err(PathError::Absolute(raw.to_owned()));
    }
    if raw.contains('\\') {
        return Err(PathError::Backslash(raw.to_owned()));
    }
    let mut parts = Vec::new();
    for part in raw.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(PathError::EscapesRoot(raw.to_owned()));
                }
            }
            part => parts.push(part),
        }
    }
    // `./C:x` names what `C:x` does: a drive, however the spelling reaches it.
    if parts.first().is_some_and(|p| has_drive_prefix(p)) {
        return Err(PathError::Absolute(raw.to_owned()));
    }
    Ok(parts)
}

fn has_drive_prefix(raw: &str) -> bool {
    let bytes = raw.as_bytes();
    bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'
}

/// Refuses `.git` and dot-names among normalised components.
pub(crate) fn check_names(raw: &str, parts: &[&str]) -> Result<(), PathError> {
    if parts.contains(&".git") {
        return Err(PathError::GitDir(raw.to_owned()));
    }
    if let Some(hidden) = parts.iter().find(|p| p.starts_with('.')) {
        return Err(PathError::Hidden {
            path: raw.to_owned(),
            component: (*hidden).to_owned(),
        });
    }
    Ok(())
}

/// What a path with no symlink on it names: see [`unlinked`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Found {
    /// Nothing, from some component on.
    Missing,
    /// A file (or anything else that is not a folder).
    File,
    /// A folder.
    Dir,
}

/// What `rel` (already normalised, not empty) names under the canonical
/// `root`, when none of its components is a symlink; `None` when one is, or
/// when a component cannot be looked at (the caller then follows links, and
/// reports what it finds).
pub(crate) fn unlinked(root: &Path, rel: &str) -> Option<Found> {
    let mut path = root.to_path_buf();
    let mut found = Found::Missing;
    for name in rel.split('/') {
        path.push(name);
        match path.symlink_metadata() {
            Ok(meta) if meta.file_type().is_symlink() => return None,
            Ok(meta) if meta.is_dir() => found = Found::Dir,
            Ok(_) => found = Found::File,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(Found::Missing),
            Err(_) => return None,
        }
    }
    Some(found)
}

/// Resolves `rel` (already normalised) under the canonical `root`, following
/// symlinks as far as the path exists. Returns the canonical path, which may
/// not exist yet. A dangling symlink anywhere is refused, since writing
/// through it would create a file wherever it points.
pub(crate) fn resolve_links(raw: &str, root: &Path, rel: &Path) -> Result<PathBuf, PathError> {
    let io_err = |source| PathError::Io {
        path: raw.to_owned(),
        source,
    };
    let mut existing = root.join(rel);
    let mut missing = Vec::new();
    let canonical = loop {
        match existing.canonicalize() {
            Ok(path) => break path,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if existing.symlink_metadata().is_ok() {
                    // It exists as a link, but what it points to does not.
                    return Err(PathError::SymlinkEscape(raw.to_owned()));
                }
                let name = existing.file_name().map(ToOwned::to_owned);
                match (name, existing.parent()) {
                    (Some(name), Some(parent)) => {
                        missing.push(name);
                        existing = parent.to_path_buf();
                    }
                    _ => return Err(io_err(e)),
                }
            }
            Err(e) => return Err(io_err(e)),
        }
    };
    if !canonical.starts_with(root) {
        return Err(PathError::SymlinkEscape(raw.to_owned()));
    }
    Ok(missing
        .into_iter()
        .rev()
        .fold(canonical, |p, name| p.join(name)))
}

/// The root-relative, `/`-separated form of an absolute path under `root`.
pub(crate) fn relative_to(root: &Path, abs: &Path) -> Option<String> {
    let rel = abs.strip_prefix(root).ok()?;
    let mut out = String::new();
    for component in rel.components() {
        let Component::Normal(name) = component else {
            return None;
        };
        if !out.is_empty() {
            out.push('/');
        }
        out.push_str(name.to_str()?);
    }
    Some(out)
}

impl ProjectPath {
    pub(crate) fn new(rel: String, abs: PathBuf) -> ProjectPath {
        ProjectPath { rel, abs }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_resolves_dots_without_touching_disk() {
        assert_eq!(normalize("a/./b//c").unwrap(), ["a", "b", "c"]);
        assert_eq!(normalize("a/../b").unwrap(), ["b"]);
        assert_eq!(normalize(".").unwrap(), Vec::<&str>::new());
        assert_eq!(normalize("a/../..").unwrap_err().rule(), "escapes_root");
        assert_eq!(normalize("C:/x").unwrap_err().rule(), "absolute_path");
        assert_eq!(normalize("a\\b").unwrap_err().rule(), "backslash");
        assert_eq!(normalize("a\0").unwrap_err().rule(), "nul_byte");
    }

    #[test]
    fn git_is_named_before_hidden() {
        assert_eq!(
            check_names("x", &["a", ".git", "config"])
                .unwrap_err()
                .rule(),
            "git_dir"
        );
        assert_eq!(
            check_names("x", &["a", ".env"]).unwrap_err().rule(),
            "hidden"
        );
        assert!(check_names("x", &["a", "b.md"]).is_ok());
    }

    proptest::proptest! {
        /// Whatever the input, an accepted spelling has only plain, visible parts.
        #[test]
        fn accepted_spellings_stay_plain(raw in "[a-z./\\\\:\0]{0,24}") {
            if let Ok(parts) = normalize(&raw)
                && check_names(&raw, &parts).is_ok()
            {
                for part in parts {
                    proptest::prop_assert!(!part.is_empty());
                    proptest::prop_assert!(!part.starts_with('.'));
                    proptest::prop_assert!(!part.contains(['/', '\\', '\0']));
                }
            }
        }
    }
}
