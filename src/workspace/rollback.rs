//! Rollback to a checkpoint: hard (every file back as it was) or
//! scoped (only the listed hunks), each first checkpointed itself so it can
//! be undone.

use super::{Workspace, WorkspaceError};
use crate::checkpoints::{
    CheckpointKind, FileSnapshot, RollbackMode, RollbackReport, RolledBackFile,
    edited_since_created,
};
use crate::project::PathError;
use crate::review::{Decision, Status};
use crate::store::NewCheckpointFile;

impl Workspace {
    /// Rolls back to checkpoint `id`. A checkpoint of the files it
    /// touches is taken first; its id in the report undoes the rollback.
    pub fn rollback(
        &mut self,
        id: &str,
        mode: RollbackMode,
        hunk_ids: &[String],
    ) -> Result<RollbackReport, WorkspaceError> {
        let checkpoint = self.checkpoint(id)?;
        let paths: Vec<String> = match mode {
            RollbackMode::HardAll => checkpoint
                .affected_files
                .iter()
                .map(|f| f.file_path.clone())
                .collect(),
            RollbackMode::ScopedSelected => {
                let mut paths = Vec::new();
                for hunk in hunk_ids {
                    let file = checkpoint
                        .affected_files
                        .iter()
                        .find(|f| f.hunk_ids.contains(hunk))
                        .ok_or_else(|| WorkspaceError::NotInCheckpoint {
                            hunk_id: hunk.clone(),
                            checkpoint_id: id.to_owned(),
                        })?;
                    if !paths.contains(&file.file_path) {
                        paths.push(file.file_path.clone());
                    }
                }
                paths
            }
        };
        let undo_files = paths
            .iter()
            .map(|path| {
                Ok(NewCheckpointFile {
                    path: path.clone(),
                    snapshot: FileSnapshot::take(&self.project, &self.review, path)?,
                    proposed: None,
                    hunk_ids: Vec::new(),
                    reverse_patches: Vec::new(),
                })
            })
            .collect::<Result<Vec<_>, PathError>>()?;
        let what = match mode {
            RollbackMode::HardAll => format!("before rolling back to {id}"),
            RollbackMode::ScopedSelected => {
                format!("before rolling back {} of {id}", hunk_ids.join(", "))
            }
        };
        let undo = self.store.add_checkpoint(
            CheckpointKind::Rollback,
            checkpoint.session_id.as_deref(),
            checkpoint.job_id.as_deref(),
            &what,
            undo_files,
        )?;

        let mut files = Vec::new();
        let mut touched: Vec<String> = Vec::new();
        match mode {
            RollbackMode::HardAll => {
                for (path, snapshot, _) in self.store.checkpoint_snapshots(id)? {
                    files.push(self.restore(&path, &snapshot)?);
                }
            }
            RollbackMode::ScopedSelected => {
                for hunk in hunk_ids {
                    let (path, _) = self.review.find_hunk(hunk)?;
                    // A move takes the links that follow it, in other files.
                    let decisions = self
                        .review
                        .decide_many(std::slice::from_ref(hunk), Status::Rejected)?;
                    touched.extend(decisions.iter().map(|d| d.path.clone()));
                    let decision = Decision::merged(path.clone(), decisions);
                    let carried: Vec<&str> = decision.moves[1..]
                        .iter()
                        .filter(|m| m.from != m.to)
                        .map(|m| m.hunk_id.as_str())
                        .collect();
                    files.push(RolledBackFile {
                        file_path: path,
                        status: "reverted".to_owned(),
                        message: (!carried.is_empty())
                            .then(|| format!("with {}, which built on it", carried.join(", "))),
                    });
                }
            }
        }
        for path in paths.iter().chain(&touched) {
            self.persist(path)?;
        }
        Ok(RollbackReport {
            undo_checkpoint_id: undo.checkpoint_id,
            files,
        })
    }

    /// Puts one file back as `snapshot` has it.
    fn restore(
        &mut self,
        path: &str,
        snapshot: &FileSnapshot,
    ) -> Result<RolledBackFile, WorkspaceError> {
        let done = |status: &str, message| RolledBackFile::new(path, status, message);
        if snapshot.text.is_none()
            && let Some(moved) = self.review.file_of(path)
            && moved.path != path
        {
            // Where a move of the run took a file: the file goes back to
            // where it was with its own path's snapshot.
            return Ok(done("removed", None));
        }
        if let Some(file) = self.review.file(path)
            && let (Some(at), Some(known)) = (file.disk_path(), file.disk_hash.clone())
            && at != path
        {
            // A move the run made is on disk: the file goes back first.
            let at = at.to_owned();
            if let Err(e) = self.project.rename_checked(&at, path, &known) {
                return Ok(done(
                    "kept",
                    Some(format!("it stays at `{at}`, where it was moved: {e}")),
                ));
            }
            self.review
                .file_mut(path)
                .expect("under review")
                .set_op_done(false);
        }
        if snapshot.binary {
            return self.restore_attachment(path, snapshot);
        }
        let current = self.review.file(path);
        let disk_hash = current.and_then(|f| f.disk_hash.clone());
        if snapshot.text.is_some() {
            let restored = snapshot.restore(path, disk_hash).expect("has text");
            self.review.insert_file(restored);
            return Ok(done("restored", None));
        }
        // The run created the file: remove it only if nobody edited it since.
        if current.is_some_and(edited_since_created) {
            return Ok(done(
                "kept",
                Some("created by the run and edited since; both versions are kept".into()),
            ));
        }
        let on_disk = self.project.disk_hash(path)?;
        if on_disk.is_some() && on_disk != disk_hash {
            return Ok(done(
                "kept",
                Some(
                    "created by the run and changed on disk by another program; it is kept".into(),
                ),
            ));
        }
        if let Some(hash) = &on_disk
            && let Err(e) = self.project.remove_checked(path, hash)
        {
            return Ok(done("kept", Some(format!("it could not be removed: {e}"))));
        }
        self.review.remove_file(path);
        Ok(done("removed", None))
    }
}
