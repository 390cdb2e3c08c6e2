//! Hash-checked, atomic writes.
//!
//! A write lands only if the file on disk still hashes to what Redline last
//! read or wrote there, so a change another editor made is never overwritten.
//! The bytes go to a temporary file in the same folder, which is flushed to
//! disk and renamed over the target: a crash leaves the old file or the new
//! one, never a mix. The file's permissions are kept.

use std::io::Write;
use std::path::Path;

use super::{PathError, Project, text};

/// Why a write did not happen.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The file on disk is not the one Redline expected.
    #[error("`{path}` changed on disk since Redline last read it (expected {}, found {}); nothing was written", expected.as_deref().unwrap_or("no file"), found.as_deref().unwrap_or("no file"))]
    Conflict {
        /// The file.
        path: String,
        /// The hash Redline expected (`None`: no file).
        expected: Option<String>,
        /// The hash on disk (`None`: no file).
        found: Option<String>,
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
        match std::fs::read(path.abs()) {
            Ok(bytes) => Ok(Some(text::content_hash(&bytes))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(PathError::Io {
                path: raw.to_owned(),
                source,
            }),
        }
    }

    /// Writes `bytes` to `raw` if the file on disk hashes to `expected`
    /// (`None`: if there is no file), atomically, keeping its permissions.
    /// Missing parent folders are created. Returns the new hash.
    pub fn write_checked(
        &self,
        raw: &str,
        bytes: &[u8],
        expected: Option<&str>,
    ) -> Result<String, WriteError> {
        let path = self.resolve(raw)?;
        let found = self.disk_hash(raw)?;
        if found.as_deref() != expected {
            return Err(WriteError::Conflict {
                path: raw.to_owned(),
                expected: expected.map(ToOwned::to_owned),
                found,
            });
        }
        let io = |source| WriteError::Io {
            path: raw.to_owned(),
            source,
        };
        let parent = path.abs().parent().unwrap_or(self.root());
        std::fs::create_dir_all(parent).map_err(io)?;
        let mut tmp = tempfile::Builder::new()
            .prefix(".redline-")
            .suffix(".tmp")
            .tempfile_in(parent)
            .map_err(io)?;
        tmp.write_all(bytes).map_err(io)?;
        tmp.as_file().sync_all().map_err(io)?;
        if let Ok(meta) = std::fs::metadata(path.abs()) {
            tmp.as_file()
                .set_permissions(meta.permissions())
                .map_err(io)?;
        }
        tmp.persist(path.abs()).map_err(|e| io(e.error))?;
        sync_dir(parent);
        Ok(text::content_hash(bytes))
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
fn sync_dir(dir: &Path) {
    if let Ok(dir) = std::fs::File::open(dir) {
        let _ = dir.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;
    use crate::config::Limits;

    #[test]
    fn writes_only_over_the_expected_content() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "old\n").unwrap();
        std::fs::set_permissions(
            dir.path().join("a.md"),
            std::fs::Permissions::from_mode(0o640),
        )
        .unwrap();
        let project = Project::open(dir.path(), Limits::default()).unwrap();
        let old = text::content_hash(b"old\n");

        let err = project
            .write_checked("a.md", b"new\n", Some("sha256:other"))
            .unwrap_err();
        assert!(matches!(err, WriteError::Conflict { .. }), "{err}");
        assert_eq!(std::fs::read(dir.path().join("a.md")).unwrap(), b"old\n");

        let new = project.write_checked("a.md", b"new\n", Some(&old)).unwrap();
        assert_eq!(new, text::content_hash(b"new\n"));
        assert_eq!(std::fs::read(dir.path().join("a.md")).unwrap(), b"new\n");
        let mode = std::fs::metadata(dir.path().join("a.md"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o640);

        assert!(matches!(
            project.write_checked("a.md", b"x", None),
            Err(WriteError::Conflict { .. })
        ));
        project.write_checked("new/b.md", b"b\n", None).unwrap();
        assert_eq!(std::fs::read(dir.path().join("new/b.md")).unwrap(), b"b\n");
        assert!(matches!(
            project.write_checked("../x.md", b"x", None),
            Err(WriteError::Path(_))
        ));
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(".redline-"))
            .collect();
        assert!(leftovers.is_empty());
    }
}
