//! Many checked writes at once, with the guarantees of one.
//!
//! Written one at a time, each file costs a flush of its own and a flush of
//! its folder: seconds for a few thousand small notes. Here every file's
//! bytes first go to its temporary file, then all of them are flushed
//! together (on Linux one `syncfs` of the file system; elsewhere each file),
//! then each is moved into place with its hash check (see the `write`
//! module), in chunks of [`CHUNK`] files; then each folder that changed is
//! flushed once. A crash before a
//! move leaves the old file (and a hidden temporary one that
//! [`Project::remove_stale_writes`] clears); after it, the new one.

use std::collections::BTreeSet;
use std::path::PathBuf;

use rayon::prelude::*;

use super::{Project, WriteError, write};

/// Writes staged (temporary files open) at a time.
const CHUNK: usize = 500;

/// One write of a batch.
#[derive(Clone, Copy, Debug)]
pub struct BatchWrite<'a> {
    /// The file, relative to the root.
    pub path: &'a str,
    /// Its new bytes.
    pub bytes: &'a [u8],
    /// The hash the file on disk must have (`None`: no file).
    pub expected: Option<&'a str>,
}

impl Project {
    /// Writes each of `writes` as [`Project::write_checked`] would, in one
    /// batch (see the module documentation). Returns, in order, each file's
    /// new hash or why it was not written; one failure stops no other.
    /// `progress` hears how many files have been moved into place so far.
    pub fn write_many(
        &self,
        writes: &[BatchWrite<'_>],
        progress: &mut dyn FnMut(usize),
    ) -> Vec<Result<String, WriteError>> {
        let mut folders: BTreeSet<PathBuf> = BTreeSet::new();
        let mut moved: Vec<String> = Vec::with_capacity(writes.len());
        let mut out = Vec::with_capacity(writes.len());
        // In chunks, so that the temporary files held open stay well under
        // the process's limit on open files. Each file is staged and moved
        // on every core (a guard per thread: it holds the ignore rules).
        for chunk in writes.chunks(CHUNK) {
            let staged: Vec<Result<write::StagedWrite, WriteError>> = chunk
                .par_iter()
                .map_init(
                    || self.guard(),
                    |guard, w| {
                        let path = guard.resolve(w.path)?;
                        let rel = path.rel().to_owned();
                        let staged = self.stage_write(w.path, path, w.bytes, w.expected);
                        if staged.is_err() {
                            // Whatever is there now (another program's
                            // version, say) is what the index must hold.
                            self.reindex_with(guard, &rel);
                        }
                        staged
                    },
                )
                .collect();
            if let Err(e) = self.flush_all(&staged) {
                // Nothing of this chunk has moved: each temporary file goes
                // with its write, and the targets are as they were.
                out.extend(staged.into_iter().map(|s| {
                    s.and_then(|s| Err(s.io(std::io::Error::new(e.kind(), e.to_string()))))
                }));
                continue;
            }
            for s in staged.iter().flatten() {
                folders.insert(s.parent.clone());
                moved.push(s.rel.clone());
            }
            let landed: Vec<Result<String, WriteError>> = staged
                .into_par_iter()
                .map(|s| s.and_then(|s| self.land(s)))
                .collect();
            out.extend(landed);
            progress(out.len());
        }
        for folder in &folders {
            write::sync_dir(folder);
        }
        moved
            .par_iter()
            .for_each_init(|| self.guard(), |guard, rel| self.reindex_with(guard, rel));
        out
    }

    /// Makes the staged writes' bytes durable before any of them moves.
    fn flush_all(&self, staged: &[Result<write::StagedWrite, WriteError>]) -> std::io::Result<()> {
        let files = staged.iter().filter_map(|s| s.as_ref().ok());
        #[cfg(any(target_os = "linux", target_os = "android"))]
        if staged.len() > 1 {
            let root = std::fs::File::open(self.root())?;
            return rustix::fs::syncfs(&root).map_err(std::io::Error::from);
        }
        for s in files {
            s.tmp.as_file().sync_all()?;
        }
        Ok(())
    }
}
