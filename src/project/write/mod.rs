//! Hash-checked, atomic writes.
//!
//! A write lands only if the file on disk still hashes to what Redline last
//! read or wrote there, so a change another program made is not overwritten.
//! The bytes first go to a temporary file in the same folder, with the
//! target's permissions, and are flushed to disk before they can reach the
//! target: a crash leaves the old file or the new one, never a mix.
//!
//! Checking the hash and then renaming would leave a gap in which another
//! program's save lands and is overwritten unseen. On Linux the move into
//! place is itself the check, so the gap is gone:
//! - a new file is renamed with `RENAME_NOREPLACE`, which fails if a file
//!   appeared meanwhile;
//! - an existing file is swapped with the temporary one (`RENAME_EXCHANGE`)
//!   and the file swapped out is hashed; if it is not the expected one it is
//!   swapped back, or, where a third save has replaced ours in the meantime
//!   (swapping back would displace that one), kept beside the target as
//!   `name.conflict-<hash>.ext`. No version is deleted unseen.
//!
//! Where the kernel or file system refuses those flags, and off Linux, the
//! hash is checked after the flush, just before a plain rename: the gap is
//! that of one rename rather than of a write and an fsync, but it is there.
//!
//! Still not guaranteed: a program that writes in place through a descriptor
//! it opened on the old file can write into it after it was swapped out and
//! hashed, and that write goes with the old file. A swap that turns out to be
//! a conflict shows our bytes at the target for a moment. A crash between a
//! swap and its undo leaves the other program's version in the hidden
//! temporary file, which [`Project::remove_stale_writes`] deletes.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use super::{PathError, Project, ProjectPath, text};

/// Why a write did not happen.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The file on disk is not the one Redline expected.
    #[error("`{path}` changed on disk since Redline last read it (expected {}, found {}); nothing was written{}", expected.as_deref().unwrap_or("no file"), found.as_deref().unwrap_or("no file"), kept.as_ref().map(|k| format!("; a version another program saved meanwhile is kept as `{k}`")).unwrap_or_default())]
    Conflict {
        /// The file.
        path: String,
        /// The hash Redline expected (`None`: no file).
        expected: Option<String>,
        /// The hash on disk (`None`: no file).
        found: Option<String>,
        /// Where a version that could not be put back at `path` was kept
        /// (relative to the root when it is inside it); almost always `None`.
        kept: Option<String>,
    },
    /// The guard refused the path.
    #[error(transparent)]
    Path(#[from] PathError),
    /// The file system failed; the target is unchanged.
    #[error("cannot write `{path}`: {source}")]
    Io {
        /// The file.
        path: String,
        /// The failure.
        #[source]
        source: std::io::Error,
    },
}

impl Project {
    /// The `sha256:` of the file at `raw` on disk now, or `None` if there is none.
    pub fn disk_hash(&self, raw: &str) -> Result<Option<String>, PathError> {
        let path = self.resolve(raw)?;
        hash_at(path.abs()).map_err(|source| PathError::Io {
            path: raw.to_owned(),
            source,
        })
    }

    /// Writes `bytes` to `raw` if the file on disk hashes to `expected`
    /// (`None`: if there is no file), atomically, keeping its permissions.
    /// Missing parent folders are created. Returns the new hash.
    ///
    /// On Linux file systems with `renameat2` flags (ext4, XFS, Btrfs, tmpfs
    /// ...), another program's save that lands at any moment before the
    /// move into place is never overwritten: the call returns
    /// [`WriteError::Conflict`] and the other program's file is at `raw` again
    /// (or, if a third save replaced ours meanwhile, kept beside it under the
    /// name given in `kept`). A file deleted meanwhile is not recreated.
    /// Elsewhere the check comes just before a plain rename, and a save in
    /// that short gap is lost. Not guaranteed anywhere: writes made in place
    /// through a descriptor opened on the old file after it was hashed, and
    /// that nobody reads our bytes at `raw` during a swap that is then undone.
    /// See the module documentation.
    pub fn write_checked(
        &self,
        raw: &str,
        bytes: &[u8],
        expected: Option<&str>,
    ) -> Result<String, WriteError> {
        let written = self.write_on_disk(raw, bytes, expected);
        self.reindex_raw(raw);
        written
    }

    fn write_on_disk(
        &self,
        raw: &str,
        bytes: &[u8],
        expected: Option<&str>,
    ) -> Result<String, WriteError> {
        let staged = self.stage_write(raw, self.resolve(raw)?, bytes, expected)?;
        // Flushed before the move, so that nothing slow sits between the
        // last look at the target and the moment it changes.
        staged
            .tmp
            .as_file()
            .sync_all()
            .map_err(|source| staged.io(source))?;
        let parent = staged.parent.clone();
        let landed = self.land(staged);
        // A move, or the undoing of a swap, must be durable.
        sync_dir(&parent);
        landed
    }

    /// The first half of a checked write: the hash checked up front (a
    /// conflict already on disk then costs no temporary file, and no swap
    /// that shows our bytes at the target), missing folders created, and
    /// the bytes in a temporary file beside the target with its
    /// permissions, not yet flushed.
    pub(super) fn stage_write(
        &self,
        raw: &str,
        path: ProjectPath,
        bytes: &[u8],
        expected: Option<&str>,
    ) -> Result<StagedWrite, WriteError> {
        let found = hash_at(path.abs()).map_err(|source| PathError::Io {
            path: raw.to_owned(),
            source,
        })?;
        if found.as_deref() != expected {
            return Err(self.conflict(raw, expected, found, None));
        }
        let io = |source| WriteError::Io {
            path: raw.to_owned(),
            source,
        };
        let target = path.abs().to_owned();
        let parent = target.parent().unwrap_or(self.root()).to_owned();
        std::fs::create_dir_all(&parent).map_err(io)?;
        let mut tmp = tempfile::Builder::new()
            .prefix(".redline-")
            .suffix(".tmp")
            .tempfile_in(&parent)
            .map_err(io)?;
        tmp.write_all(bytes).map_err(io)?;
        if let Ok(meta) = std::fs::metadata(&target) {
            tmp.as_file()
                .set_permissions(meta.permissions())
                .map_err(io)?;
        }
        Ok(StagedWrite {
            raw: raw.to_owned(),
            rel: path.rel().to_owned(),
            target,
            parent,
            tmp,
            expected: expected.map(ToOwned::to_owned),
            hash: text::content_hash(bytes),
        })
    }

    /// The second half, once the temporary file is flushed: the move into
    /// place, which is itself the hash check where the kernel allows (see
    /// the module documentation). The folder is not synced here.
    pub(super) fn land(&self, staged: StagedWrite) -> Result<String, WriteError> {
        let expected = staged.expected.as_deref();
        let conflict = |found, kept| self.conflict(&staged.raw, expected, found, kept);
        let io = |source| WriteError::Io {
            path: staged.raw.clone(),
            source,
        };
        let tmp = match move_checked(staged.tmp, &staged.target, expected).map_err(io)? {
            Moved::Done => return Ok(staged.hash),
            Moved::Conflict { found, kept } => return Err(conflict(found, kept)),
            Moved::Unsupported(tmp) => tmp,
        };
        let found = hash_at(&staged.target).map_err(io)?;
        if found.as_deref() != expected {
            return Err(conflict(found, None));
        }
        tmp.persist(&staged.target).map_err(|e| io(e.error))?;
        Ok(staged.hash)
    }
}

/// A write half done: its bytes in a temporary file beside the target.
pub(super) struct StagedWrite {
    raw: String,
    /// The file's normalised relative path.
    pub(super) rel: String,
    target: PathBuf,
    pub(super) parent: PathBuf,
    pub(super) tmp: NamedTempFile,
    expected: Option<String>,
    hash: String,
}

impl StagedWrite {
    pub(super) fn io(&self, source: io::Error) -> WriteError {
        WriteError::Io {
            path: self.raw.clone(),
            source,
        }
    }
}

impl Project {
    /// Deletes the file at `raw` if it hashes to `expected`, the way
    /// [`Project::write_checked`] writes: the file is first moved aside to a
    /// hidden name in its folder (one atomic rename), and only the file moved
    /// aside is hashed and deleted. If it is not the expected one (another
    /// program saved it meanwhile) it is put back, or, where a save has
    /// already put a new file at `raw`, kept beside it as
    /// `name.conflict-<hash>.ext`, and the call returns
    /// [`WriteError::Conflict`]. A file already gone is a conflict too.
    pub fn remove_checked(&self, raw: &str, expected: &str) -> Result<(), WriteError> {
        let removed = self.remove_on_disk(raw, expected);
        self.reindex_raw(raw);
        removed
    }

    /// The index learns what a write or removal left at `raw` (whatever
    /// its outcome: a conflict may have put another program's bytes back).
    pub(super) fn reindex_raw(&self, raw: &str) {
        if let Ok(path) = self.resolve(raw) {
            self.reindex(path.rel());
        }
    }

    fn remove_on_disk(&self, raw: &str, expected: &str) -> Result<(), WriteError> {
        let path = self.resolve(raw)?;
        let conflict = |found, kept| self.conflict(raw, Some(expected), found, kept);
        let found = self.disk_hash(raw)?;
        if found.as_deref() != Some(expected) {
            return Err(conflict(found, None));
        }
        let io = |source| WriteError::Io {
            path: raw.to_owned(),
            source,
        };
        let target = path.abs();
        let parent = target.parent().unwrap_or(self.root());
        let aside = tempfile::Builder::new()
            .prefix(".redline-")
            .suffix(".tmp")
            .make_in(parent, |aside| rename_new(target, aside));
        let aside = match aside {
            Ok(aside) => aside,
            // Deleted since the check: a deletion is a change like any other.
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(conflict(None, None)),
            Err(e) => return Err(io(e)),
        };
        let moved = hash_at(aside.path()).map_err(io)?;
        if moved.as_deref() == Some(expected) {
            // Dropping the moved-aside file deletes it.
            drop(aside);
            sync_dir(parent);
            return Ok(());
        }
        let mut aside = aside;
        aside.disable_cleanup(true);
        let kept = match rename_new(aside.path(), target) {
            Ok(()) => None,
            Err(_) => {
                let visible = moved.as_deref().map(|hash| conflict_path(target, hash));
                match visible {
                    Some(visible) if rename_new(aside.path(), &visible).is_ok() => Some(visible),
                    _ => Some(aside.path().to_owned()),
                }
            }
        };
        sync_dir(parent);
        Err(conflict(moved, kept))
    }
}

impl Project {
    /// The conflict of a checked write or delete at `raw`: `found` where
    /// `expected` was, another program's version kept at `kept` (shown
    /// relative to the root when it is inside it).
    fn conflict(
        &self,
        raw: &str,
        expected: Option<&str>,
        found: Option<String>,
        kept: Option<PathBuf>,
    ) -> WriteError {
        WriteError::Conflict {
            path: raw.to_owned(),
            expected: expected.map(ToOwned::to_owned),
            found,
            kept: kept.map(|k| {
                let k = k.strip_prefix(self.root()).unwrap_or(&k);
                k.to_string_lossy().into_owned()
            }),
        }
    }
}

/// Renames `from` to `to` unless something is at `to` (then `AlreadyExists`).
/// Atomic on Linux; elsewhere a check just before a plain rename.
fn rename_new(from: &Path, to: &Path) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if rename2(from, to, rustix::fs::RenameFlags::NOREPLACE)? {
        return Ok(());
    }
    if std::fs::symlink_metadata(to).is_ok() {
        return Err(io::Error::from(io::ErrorKind::AlreadyExists));
    }
    std::fs::rename(from, to)
}

/// Where [`move_checked`] left the new bytes.
#[cfg_attr(not(any(target_os = "linux", target_os = "android")), allow(dead_code))]
enum Moved {
    /// At the target.
    Done,
    /// Not written: the target was not the expected file.
    Conflict {
        found: Option<String>,
        kept: Option<PathBuf>,
    },
    /// No atomic rename with flags here; the temporary file, untouched.
    Unsupported(NamedTempFile),
}

/// Moves `tmp` to `target` only if, at the instant of the move, the target
/// is the expected file (`None`: no file).
#[cfg(any(target_os = "linux", target_os = "android"))]
fn move_checked(
    mut tmp: NamedTempFile,
    target: &Path,
    expected: Option<&str>,
) -> io::Result<Moved> {
    use rustix::fs::RenameFlags;

    let Some(expected) = expected else {
        return match rename2(tmp.path(), target, RenameFlags::NOREPLACE) {
            Ok(true) => {
                // Its name is gone; dropping it must not remove anything.
                tmp.disable_cleanup(true);
                Ok(Moved::Done)
            }
            Ok(false) => Ok(Moved::Unsupported(tmp)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(Moved::Conflict {
                found: hash_at(target)?,
                kept: None,
            }),
            Err(e) => Err(e),
        };
    };
    match rename2(tmp.path(), target, RenameFlags::EXCHANGE) {
        Ok(true) => {}
        Ok(false) => return Ok(Moved::Unsupported(tmp)),
        // Deleted since the check: a deletion is a change like any other.
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(Moved::Conflict {
                found: None,
                kept: None,
            });
        }
        Err(e) => return Err(e),
    }
    // The temporary name now holds the file that was at the target.
    let displaced = hash_at(tmp.path());
    if matches!(&displaced, Ok(Some(h)) if h == expected) {
        let _ = tmp.close();
        return Ok(Moved::Done);
    }
    let kept = put_back(tmp, target);
    Ok(Moved::Conflict {
        found: displaced?,
        kept,
    })
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn move_checked(tmp: NamedTempFile, _: &Path, _: Option<&str>) -> io::Result<Moved> {
    Ok(Moved::Unsupported(tmp))
}

/// Undoes an exchange that displaced another program's file into `tmp`.
/// Swapping back is only right while the target still holds our file: if a
/// third save replaced it, a swap would displace that one instead. Whatever
/// ends up at the temporary name and is not ours is someone's save, so it is
/// kept under a visible name beside the target. Returns that name, if any.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn put_back(mut tmp: NamedTempFile, target: &Path) -> Option<PathBuf> {
    use rustix::fs::RenameFlags;

    let ours = tmp.as_file();
    if is_same_file(target, ours)
        && rename2(tmp.path(), target, RenameFlags::EXCHANGE).unwrap_or(false)
        && is_same_file(tmp.path(), ours)
    {
        return None;
    }
    tmp.disable_cleanup(true);
    let hidden = tmp.path().to_owned();
    let visible = hash_at(&hidden)
        .ok()
        .flatten()
        .map(|hash| conflict_path(target, &hash));
    match visible {
        Some(visible) if rename2(&hidden, &visible, RenameFlags::NOREPLACE).unwrap_or(false) => {
            Some(visible)
        }
        // Left under its hidden name rather than risked: the error names it.
        _ => Some(hidden),
    }
}

/// `renameat2(from, to, flags)`; `Ok(false)` where the kernel or the file
/// system does not support `flags`.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn rename2(from: &Path, to: &Path, flags: rustix::fs::RenameFlags) -> io::Result<bool> {
    use rustix::fs::{CWD, renameat_with};
    use rustix::io::Errno;

    match renameat_with(CWD, from, CWD, to, flags) {
        Ok(()) => Ok(true),
        Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Whether `path` names the file open as `file` (identity, not content: a
/// third save of the same bytes is still someone else's file).
#[cfg(any(target_os = "linux", target_os = "android"))]
fn is_same_file(path: &Path, file: &std::fs::File) -> bool {
    use std::os::unix::fs::MetadataExt;

    match (std::fs::symlink_metadata(path), file.metadata()) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

/// `name.conflict-<hash>.ext` beside `target`: visible, so the user finds it
/// next to the note, and named by content, so one version is kept once.
fn conflict_path(target: &Path, hash: &str) -> PathBuf {
    let hex = hash.strip_prefix("sha256:").unwrap_or(hash);
    let mut name = target.file_stem().unwrap_or_default().to_owned();
    name.push(format!(".conflict-{}", hex.get(..12).unwrap_or(hex)));
    if let Some(ext) = target.extension() {
        name.push(".");
        name.push(ext);
    }
    target.with_file_name(name)
}

/// The `sha256:` of the file at `path`, or `None` if there is none.
fn hash_at(path: &Path) -> io::Result<Option<String>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(text::content_hash(&bytes))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

impl Project {
    /// Removes the temporary files of writes a crash cut off in the folder
    /// that holds `raw` (they are hidden, so nothing else would see them).
    /// Returns how many were removed.
    pub fn remove_stale_writes(&self, raw: &str) -> Result<usize, PathError> {
        let path = self.resolve(raw)?;
        let dir = path.abs().parent().unwrap_or(self.root());
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Ok(0);
        };
        let mut removed = 0;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with(".redline-")
                && name.ends_with(".tmp")
                && std::fs::remove_file(entry.path()).is_ok()
            {
                removed += 1;
            }
        }
        Ok(removed)
    }
}

/// Flushes a folder so a rename in it survives a power cut. Best effort: some
/// file systems refuse to open or sync folders, and the rename has happened.
pub(super) fn sync_dir(dir: &Path) {
    if let Ok(dir) = std::fs::File::open(dir) {
        let _ = dir.sync_all();
    }
}

mod rename;
#[cfg(test)]
mod tests;
