//! The workspace: one project, its review, and its store, kept in step.
//!
//! Every operation that changes review state goes through here, so what is
//! in memory is also in the store: a staged proposal (with the checkpoint
//! taken before it), decisions, the user's edits, saves, apply, and
//! rollbacks. Opening a workspace loads the review back, so after a restart
//! every pending hunk is still pending and every checkpoint can be rolled back.

mod files;

pub use files::{FileChange, FileContent, FileState, HunkSpan, Keep, Resolved, TreeEntry};

use serde::{Deserialize, Serialize};

use crate::checkpoints::{
    Checkpoint, CheckpointKind, FileSnapshot, RollbackMode, RollbackReport, RolledBackFile,
    edited_since_created,
};
use crate::edits::{EditError, ProposedEdit, prepare};
use crate::hunks::{DiffBundle, HunkLimits, bundle_from};
use crate::project::{PathError, Project, text};
use crate::review::{AppliedFile, Review, ReviewError, Status};
use crate::store::{NewCheckpointFile, Store, StoreError};

/// Why a workspace operation failed; the state is as it was before it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorkspaceError {
    /// The proposal's edits were refused.
    #[error("{} edits were refused: {}", .0.len(), .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Edits(Vec<EditError>),
    /// A review operation was refused.
    #[error(transparent)]
    Review(#[from] ReviewError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A path was refused.
    #[error(transparent)]
    Path(#[from] PathError),
    /// No checkpoint has this id.
    #[error("there is no checkpoint `{0}`")]
    UnknownCheckpoint(String),
    /// A scoped rollback named a hunk of another run.
    #[error("hunk `{hunk_id}` is not part of checkpoint `{checkpoint_id}`")]
    NotInCheckpoint {
        /// The hunk.
        hunk_id: String,
        /// The checkpoint.
        checkpoint_id: String,
    },
}

/// Who asked for a run, for its checkpoint.
#[derive(Clone, Debug, Default)]
pub struct RunInfo {
    /// The session.
    pub session_id: Option<String>,
    /// The job.
    pub job_id: String,
    /// The instruction.
    pub instruction: String,
}

/// The three texts of a file at a checkpoint (seed §27).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ThreeWay {
    /// The file.
    pub file_path: String,
    /// What the editor shows now (the working buffer, or the disk).
    pub current_file: Option<String>,
    /// The file before the run.
    pub checkpoint_base: Option<String>,
    /// The file as the run proposed it.
    pub agent_proposed: Option<String>,
}

/// A project with its review and store.
#[derive(Debug)]
pub struct Workspace {
    project: Project,
    review: Review,
    store: Store,
}

impl Workspace {
    /// Opens the workspace, loading the review state from `store`. A save
    /// that a crash cut off between the disk write and the store is settled
    /// by what the disk holds.
    pub fn open(project: Project, mut store: Store) -> Result<Workspace, StoreError> {
        let mut review = store.load_review()?;
        for (path, intended) in store.intended_writes()? {
            if let Some(file) = review.file_mut(&path) {
                if project.disk_hash(&path).ok().flatten().as_deref() == Some(intended.as_str()) {
                    file.disk_hash = Some(intended);
                }
                store.save_file(file)?;
            }
            store.intend_write(&path, None)?;
        }
        for file in review.files() {
            // Best effort: a folder that cannot be listed has nothing to clear.
            let _ = project.remove_stale_writes(&file.path);
        }
        Ok(Workspace {
            project,
            review,
            store,
        })
    }

    /// The project.
    pub fn project(&self) -> &Project {
        &self.project
    }

    /// The review state.
    pub fn review(&self) -> &Review {
        &self.review
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Checks `edits`, takes a checkpoint of every file they touch, and stages
    /// the hunks for review. Returns the checkpoint and the diff bundle.
    pub fn propose(
        &mut self,
        run: &RunInfo,
        edits: &[ProposedEdit],
        limits: &HunkLimits,
    ) -> Result<(Checkpoint, DiffBundle), WorkspaceError> {
        let proposals = prepare(&self.project, edits).map_err(WorkspaceError::Edits)?;
        let mut bundle = bundle_from(&proposals, limits, 1);
        let count = bundle.files.iter().map(|f| f.hunks.len() as u64).sum();
        let first = self.store.reserve("hunk", count)?;
        for (i, hunk) in bundle
            .files
            .iter_mut()
            .flat_map(|f| &mut f.hunks)
            .enumerate()
        {
            hunk.hunk_id = format!("h_{}", first + i as u64);
        }
        bundle.job_id = Some(run.job_id.clone());
        let snapshots = proposals
            .iter()
            .map(|p| FileSnapshot::take(&self.project, &self.review, &p.file_path))
            .collect::<Result<Vec<_>, _>>()?;

        let mut staged = self.review.clone();
        staged.stage(&run.job_id, &proposals, &bundle)?;
        let files = proposals
            .iter()
            .zip(snapshots)
            .zip(&bundle.files)
            .map(|((proposal, snapshot), diff)| {
                let file = staged.file(&proposal.file_path).expect("staged");
                let reverse_patches = diff
                    .hunks
                    .iter()
                    .filter_map(|h| {
                        file.entries()
                            .iter()
                            .find(|e| e.hunk_id.as_deref() == Some(&h.hunk_id))
                    })
                    .map(|e| e.reverse_patch(&proposal.file_path))
                    .collect();
                NewCheckpointFile {
                    path: proposal.file_path.clone(),
                    snapshot,
                    proposed: Some(proposal.proposed.clone()),
                    hunk_ids: diff.hunks.iter().map(|h| h.hunk_id.clone()).collect(),
                    reverse_patches,
                }
            })
            .collect();
        let checkpoint = self.store.add_checkpoint(
            CheckpointKind::Run,
            run.session_id.as_deref(),
            Some(&run.job_id),
            &run.instruction,
            files,
        )?;
        self.store.save_files(
            proposals
                .iter()
                .map(|p| staged.file(&p.file_path).expect("staged")),
        )?;
        self.review = staged;
        Ok((checkpoint, bundle))
    }

    /// Accepts, rejects, or sets back to pending one hunk.
    pub fn decide(&mut self, hunk_id: &str, status: Status) -> Result<(), WorkspaceError> {
        let entry_id = self.review.decide(hunk_id, status)?;
        self.store.save_status(&entry_id, status)?;
        Ok(())
    }

    /// Accepts every pending hunk of a file.
    pub fn accept_all_in_file(&mut self, path: &str) -> Result<usize, WorkspaceError> {
        let count = self.review.accept_all_in_file(path)?;
        self.persist(path)?;
        Ok(count)
    }

    /// Records the user's edit of a file under review.
    pub fn user_edit(&mut self, path: &str, new_text: &str) -> Result<Vec<String>, WorkspaceError> {
        let ids = self.review.user_edit(path, new_text)?;
        self.persist(path)?;
        Ok(ids)
    }

    /// Saves a file: its buffer without pending hunks, over the expected bytes.
    pub fn save(&mut self, path: &str) -> Result<(), WorkspaceError> {
        let Workspace {
            project,
            review,
            store,
        } = self;
        save_durably(project, review, store, path)
    }

    /// Accepts the listed pending hunks, rejects the others, and writes the
    /// files (seed §4 `apply`).
    pub fn apply(&mut self, accepted: &[String]) -> Result<Vec<AppliedFile>, WorkspaceError> {
        let Workspace {
            project,
            review,
            store,
        } = self;
        let report = review.apply_with(accepted, |review, path| {
            save_durably(project, review, store, path)
        });
        let paths: Vec<String> = report.iter().map(|f| f.file_path.clone()).collect();
        self.store
            .save_files(paths.iter().filter_map(|p| self.review.file(p)))?;
        Ok(report)
    }

    fn persist(&mut self, path: &str) -> Result<(), StoreError> {
        match self.review.file(path) {
            Some(file) => self.store.save_file(file),
            None => self.store.remove_file(path),
        }
    }

    /// Every checkpoint, newest first.
    pub fn checkpoints(&self) -> Result<Vec<Checkpoint>, WorkspaceError> {
        Ok(self.store.checkpoints()?)
    }

    /// The checkpoint `id`.
    pub fn checkpoint(&self, id: &str) -> Result<Checkpoint, WorkspaceError> {
        self.store
            .checkpoint(id)?
            .ok_or_else(|| WorkspaceError::UnknownCheckpoint(id.to_owned()))
    }

    /// The current, checkpoint and proposed texts of `path` at checkpoint `id`.
    pub fn diff3(&self, id: &str, path: &str) -> Result<ThreeWay, WorkspaceError> {
        let snapshots = self.store.checkpoint_snapshots(id)?;
        if snapshots.is_empty() {
            self.checkpoint(id)?;
        }
        let rel = self.project.resolve(path)?.rel().to_owned();
        let (_, snapshot, proposed) = snapshots
            .into_iter()
            .find(|(p, _, _)| *p == rel)
            .ok_or_else(|| ReviewError::UnknownFile(rel.clone()))?;
        let current = match self.review.file(&rel) {
            Some(file) => Some(file.buffer()),
            None => match self.project.read_text(&rel) {
                Ok(file) => Some(file.text),
                Err(PathError::NotFound(_)) => None,
                Err(e) => return Err(e.into()),
            },
        };
        Ok(ThreeWay {
            file_path: rel,
            current_file: current,
            checkpoint_base: snapshot.text,
            agent_proposed: proposed,
        })
    }

    /// Rolls back to checkpoint `id` (seed §27). A checkpoint of the files it
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
        match mode {
            RollbackMode::HardAll => {
                for (path, snapshot, _) in self.store.checkpoint_snapshots(id)? {
                    files.push(self.restore(&path, &snapshot)?);
                }
            }
            RollbackMode::ScopedSelected => {
                for hunk in hunk_ids {
                    let (path, _) = self.review.find_hunk(hunk)?;
                    let outcome = self.review.decide(hunk, Status::Rejected);
                    files.push(RolledBackFile {
                        file_path: path,
                        status: if outcome.is_ok() {
                            "reverted"
                        } else {
                            "conflict"
                        }
                        .to_owned(),
                        message: outcome.err().map(|e| e.to_string()),
                    });
                }
            }
        }
        for path in &paths {
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
        let current = self.review.file(path);
        let disk_hash = current.and_then(|f| f.disk_hash.clone());
        let done = |status: &str, message: Option<String>| RolledBackFile {
            file_path: path.to_owned(),
            status: status.to_owned(),
            message,
        };
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
        if on_disk.is_some() {
            let abs = self.project.resolve(path)?.abs().to_path_buf();
            std::fs::remove_file(&abs).map_err(|source| PathError::Io {
                path: path.to_owned(),
                source,
            })?;
        }
        self.review.remove_file(path);
        Ok(done("removed", None))
    }

    /// The `sha256:` of the working buffer of `path`, or of the disk when it
    /// is not under review; `None` when there is no file.
    pub fn current_hash(&self, path: &str) -> Result<Option<String>, WorkspaceError> {
        match self.review.file(path) {
            Some(file) => Ok(Some(text::content_hash(file.buffer().as_bytes()))),
            None => Ok(self.project.disk_hash(path)?),
        }
    }
}

/// Saves `path`, recording in the store the hash about to be written first,
/// so that a crash between the write and the store's update is recovered on
/// open instead of looking like another program's change.
fn save_durably(
    project: &Project,
    review: &mut Review,
    store: &mut Store,
    path: &str,
) -> Result<(), WorkspaceError> {
    let file = review
        .file(path)
        .ok_or_else(|| ReviewError::UnknownFile(path.to_owned()))?;
    let view = file.disk_view()?;
    store.intend_write(path, Some(&text::content_hash(view.as_bytes())))?;
    review.save(project, path)?;
    match review.file(path) {
        Some(file) => store.save_file(file)?,
        None => store.remove_file(path)?,
    }
    store.intend_write(path, None)?;
    Ok(())
}
