//! A hash-checked move of a whole file, with the guarantees of a write: the
//! file is at its old path or at its new one, never at both and never at
//! neither, and another program's file is never replaced or taken.
//!
//! The file is renamed to its new path with `RENAME_NOREPLACE` (so a file
//! that appeared there meanwhile is not replaced), then hashed where it
//! landed: if it is not the file Redline expected (another program saved
//! over it just before), it is renamed back and the move is a conflict.
//! Both folders are flushed, so the move is durable once this returns.

use std::io;

use super::{Project, WriteError, hash_at, rename_new, sync_dir};

impl Project {
    /// Moves the file at `from` to `to` if it hashes to `expected`; missing
    /// folders of `to` are created. Refused with [`WriteError::Conflict`]
    /// when the file at `from` is not the expected one (or is gone), and
    /// when a file is already at `to`. A rename that changes only the case
    /// of the name works on file systems that ignore case, through a hidden
    /// name beside it. The index learns both paths.
    pub fn rename_checked(&self, from: &str, to: &str, expected: &str) -> Result<(), WriteError> {
        let moved = self.rename_on_disk(from, to, expected);
        self.reindex_raw(from);
        self.reindex_raw(to);
        moved
    }

    fn rename_on_disk(&self, from: &str, to: &str, expected: &str) -> Result<(), WriteError> {
        let source = self.resolve(from)?;
        let target = self.resolve(to)?;
        let found = self.disk_hash(from)?;
        if found.as_deref() != Some(expected) {
            return Err(self.conflict(from, Some(expected), found, None));
        }
        let io = |path: &str| {
            let path = path.to_owned();
            move |source| WriteError::Io { path, source }
        };
        let (src, dst) = (source.abs(), target.abs());
        let src_dir = src.parent().unwrap_or(self.root()).to_owned();
        let dst_dir = dst.parent().unwrap_or(self.root()).to_owned();
        std::fs::create_dir_all(&dst_dir).map_err(io(to))?;
        let same_file_by_case = source.rel() != target.rel()
            && source.rel().eq_ignore_ascii_case(target.rel())
            && same_file(src, dst);
        let renamed = if same_file_by_case {
            // Where case is ignored, `to` names the file itself: it goes
            // through a hidden name so that no rename sees the other taken.
            let aside = tempfile::Builder::new()
                .prefix(".redline-")
                .suffix(".tmp")
                .make_in(&src_dir, |aside| rename_new(src, aside))
                .map_err(io(from))?;
            let mut aside = aside;
            aside.disable_cleanup(true);
            rename_new(aside.path(), dst).inspect_err(|_| {
                // Put it back; if even that fails it is kept, hidden, beside it.
                let _ = rename_new(aside.path(), src);
            })
        } else {
            rename_new(src, dst)
        };
        match renamed {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                let there = self.disk_hash(to)?;
                return Err(self.conflict(to, None, there, None));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(self.conflict(from, Some(expected), None, None));
            }
            Err(e) => return Err(io(from)(e)),
        }
        let landed = hash_at(dst).map_err(io(to))?;
        if landed.as_deref() != Some(expected) {
            // Another program saved over it between the check and the move:
            // that file goes back where it was, as it was.
            let kept = rename_new(dst, src).err().map(|_| dst.to_owned());
            sync_dir(&src_dir);
            sync_dir(&dst_dir);
            return Err(self.conflict(from, Some(expected), landed, kept));
        }
        sync_dir(&dst_dir);
        if dst_dir != src_dir {
            sync_dir(&src_dir);
        }
        Ok(())
    }
}

/// Whether `a` and `b` name the same file (a name that differs only in case
/// on a file system that ignores it).
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        std::fs::metadata(b).is_ok() && std::fs::metadata(a).is_ok()
    }
}
