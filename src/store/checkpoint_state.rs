//! Checkpoints in the store: one row per checkpoint, one per file, with the
//! file's text and the run's proposal in the content store.

use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::{Store, StoreError, put_blob, text_blob};
use crate::checkpoints::{Checkpoint, CheckpointFile, CheckpointKind, FileSnapshot};
use crate::project::text::content_hash;

/// A file of a checkpoint as stored: its snapshot (text apart) and what the
/// API shows of it.
#[derive(Serialize, Deserialize)]
struct StoredFile {
    snapshot: FileSnapshot,
    hunk_ids: Vec<String>,
    reverse_patches: Vec<String>,
}

/// A file to record in a checkpoint.
pub(crate) struct NewCheckpointFile {
    pub path: String,
    pub snapshot: FileSnapshot,
    pub proposed: Option<String>,
    pub hunk_ids: Vec<String>,
    pub reverse_patches: Vec<String>,
}

impl Store {
    /// Records a checkpoint and returns it; its id is `cp_<n>`.
    pub(crate) fn add_checkpoint(
        &mut self,
        kind: CheckpointKind,
        session_id: Option<&str>,
        job_id: Option<&str>,
        instruction: &str,
        files: Vec<NewCheckpointFile>,
    ) -> Result<Checkpoint, StoreError> {
        let created_at = humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string();
        self.transaction(|tx| {
            let seq: i64 = tx.query_row("SELECT COALESCE(MAX(seq), 0) + 1 FROM checkpoints", [], |r| r.get(0))?;
            let id = format!("cp_{seq}");
            let kind_text = match kind {
                CheckpointKind::Run => "run",
                CheckpointKind::Rollback => "rollback",
                CheckpointKind::Resolve => "resolve",
            };
            tx.execute(
                "INSERT INTO checkpoints (id, seq, session_id, job_id, kind, created_at, instruction)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![id, seq, session_id, job_id, kind_text, created_at, instruction],
            )?;
            let mut affected = Vec::new();
            for file in files {
                let text_hash = file.snapshot.text.as_deref().map(|t| put_blob(tx, t.as_bytes())).transpose()?;
                let proposed_hash = file.proposed.as_deref().map(|t| put_blob(tx, t.as_bytes())).transpose()?;
                let stored = StoredFile {
                    snapshot: FileSnapshot { text: None, ..file.snapshot },
                    hunk_ids: file.hunk_ids,
                    reverse_patches: file.reverse_patches,
                };
                tx.execute(
                    "INSERT INTO checkpoint_files (checkpoint_id, path, text_hash, proposed_hash, state)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![id, file.path, text_hash, proposed_hash, serde_json::to_string(&stored).expect("serializes")],
                )?;
                affected.push(CheckpointFile {
                    file_path: file.path,
                    base_snapshot_hash: text_hash,
                    hunk_ids: stored.hunk_ids,
                    reverse_patches: stored.reverse_patches,
                });
            }
            Ok(Checkpoint {
                checkpoint_id: id,
                session_id: session_id.map(ToOwned::to_owned),
                job_id: job_id.map(ToOwned::to_owned),
                kind,
                created_at: created_at.clone(),
                instruction: instruction.to_owned(),
                affected_files: affected,
            })
        })
    }

    /// The checkpoint `id`, if it exists.
    pub fn checkpoint(&self, id: &str) -> Result<Option<Checkpoint>, StoreError> {
        type Row = (Option<String>, Option<String>, String, String, String);
        let row: Option<Row> = self
            .conn
            .query_row(
                "SELECT session_id, job_id, kind, created_at, instruction FROM checkpoints WHERE id = ?1",
                [id],
                |r| r.try_into(),
            )
            .optional()?;
        let Some((session_id, job_id, kind, created_at, instruction)) = row else {
            return Ok(None);
        };
        let kind = match kind.as_str() {
            "run" => CheckpointKind::Run,
            "rollback" => CheckpointKind::Rollback,
            "resolve" => CheckpointKind::Resolve,
            other => {
                return Err(StoreError::Corrupt(format!(
                    "checkpoint {id}: kind `{other}`"
                )));
            }
        };
        let affected_files = self
            .checkpoint_files(id)?
            .into_iter()
            .map(|(path, stored, text_hash, _)| CheckpointFile {
                file_path: path,
                base_snapshot_hash: text_hash,
                hunk_ids: stored.hunk_ids,
                reverse_patches: stored.reverse_patches,
            })
            .collect();
        Ok(Some(Checkpoint {
            checkpoint_id: id.to_owned(),
            session_id,
            job_id,
            kind,
            created_at,
            instruction,
            affected_files,
        }))
    }

    /// Every checkpoint, newest first.
    pub fn checkpoints(&self) -> Result<Vec<Checkpoint>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id FROM checkpoints ORDER BY seq DESC")?;
        let ids: Vec<String> = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        ids.iter()
            .map(|id| self.checkpoint(id).map(|c| c.expect("listed just now")))
            .collect()
    }

    /// Each file of checkpoint `id`: its snapshot (with its text) and the
    /// run's proposed text, if any.
    pub(crate) fn checkpoint_snapshots(
        &self,
        id: &str,
    ) -> Result<Vec<(String, FileSnapshot, Option<String>)>, StoreError> {
        self.checkpoint_files(id)?
            .into_iter()
            .map(|(path, stored, text_hash, proposed_hash)| {
                let text = text_hash
                    .as_deref()
                    .map(|h| text_blob(&self.conn, h))
                    .transpose()?;
                let proposed = proposed_hash
                    .as_deref()
                    .map(|h| text_blob(&self.conn, h))
                    .transpose()?;
                if let Some(text) = &text
                    && text_hash.as_deref() != Some(content_hash(text.as_bytes()).as_str())
                {
                    return Err(StoreError::Corrupt(format!("checkpoint {id}: {path}")));
                }
                Ok((
                    path,
                    FileSnapshot {
                        text,
                        ..stored.snapshot
                    },
                    proposed,
                ))
            })
            .collect()
    }

    #[allow(clippy::type_complexity)]
    fn checkpoint_files(
        &self,
        id: &str,
    ) -> Result<Vec<(String, StoredFile, Option<String>, Option<String>)>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT path, state, text_hash, proposed_hash FROM checkpoint_files WHERE checkpoint_id = ?1 ORDER BY path",
        )?;
        let rows: Vec<(String, String, Option<String>, Option<String>)> = stmt
            .query_map([id], |r| r.try_into())?
            .collect::<Result<_, _>>()?;
        rows.into_iter()
            .map(|(path, state, text_hash, proposed_hash)| {
                let stored: StoredFile = serde_json::from_str(&state)
                    .map_err(|e| StoreError::Corrupt(format!("checkpoint {id}: {path}: {e}")))?;
                Ok((path, stored, text_hash, proposed_hash))
            })
            .collect()
    }
}
