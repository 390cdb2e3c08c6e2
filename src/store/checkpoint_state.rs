//! Checkpoints in the store: one row per checkpoint, one per file, with the
//! file's text and the run's proposal in the content store.

use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use rayon::prelude::*;

use super::review_state::{PackedFile, pack_file, save_files};
use super::{Blobs, Packed, Store, StoreError, blob, text_blob};
use crate::checkpoints::{Checkpoint, CheckpointFile, CheckpointKind, FileSnapshot};
use crate::project::text::content_hash;
use crate::review::FileReview;

/// A file of a checkpoint as stored: its snapshot (text apart) and what the
/// API shows of it.
#[derive(Serialize, Deserialize)]
struct StoredFile {
    snapshot: FileSnapshot,
    hunk_ids: Vec<String>,
    reverse_patches: Vec<String>,
}

/// A checkpoint file made ready to store: its blobs packed, its state
/// serialised.
struct PackedCheckpointFile {
    path: String,
    text: Option<Packed>,
    proposed: Option<Packed>,
    stored: StoredFile,
    state: String,
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
        let files = pack_checkpoint_files(files);
        let what = Header::new(kind, session_id, job_id, instruction);
        self.transaction(|tx| write_checkpoint(&mut Blobs::new(tx), &what, files, &[]))
    }

    /// Records a run's proposal: a checkpoint, then the whole review state
    /// of the files it staged, in one transaction (a proposal is either
    /// checkpointed and staged, or neither). `texts` (the texts the files
    /// had and are proposed to have) go into the content store on a thread
    /// of their own while `compute` works out the rest on this one: the
    /// checkpoint's files and the staged review, from which `staged` picks
    /// the files to store. An error from `compute` stores nothing.
    ///
    /// `journal`, when it gives a document, records it in the same
    /// transaction as a staging of the header's job (see
    /// [`Store::stagings`]): a run that stages as it goes knows after a
    /// crash exactly what it staged.
    pub(crate) fn add_proposal<R, E: From<StoreError>>(
        &mut self,
        what: &Header<'_>,
        texts: &[&[u8]],
        compute: impl FnOnce() -> Result<(R, Vec<NewCheckpointFile>), E>,
        staged: impl Fn(&R) -> Vec<&FileReview>,
        journal: impl FnOnce(&R) -> Option<String>,
    ) -> Result<(Checkpoint, R), E> {
        let texts: Vec<Packed> = texts.par_iter().map(|t| Packed::new(t)).collect();
        std::thread::scope(|scope| {
            let (send, rows) = std::sync::mpsc::sync_channel::<Rows>(1);
            let writer = scope.spawn(move || {
                self.transaction(|tx| {
                    let mut blobs = Blobs::new(tx);
                    for text in &texts {
                        blobs.put(text)?;
                    }
                    // A closed channel: `compute` failed; the transaction
                    // is rolled back.
                    let (files, review, journal) =
                        rows.recv().map_err(|_| StoreError::Abandoned)?;
                    let checkpoint = write_checkpoint(&mut blobs, what, files, &review)?;
                    if let (Some(doc), Some(job)) = (journal, what.job_id) {
                        tx.execute(
                            "INSERT INTO stagings (job_id, seq, checkpoint_id, doc)
                             SELECT ?1, COALESCE(MAX(seq), 0) + 1, ?2, ?3 FROM stagings WHERE job_id = ?1",
                            params![job, checkpoint.checkpoint_id, doc],
                        )?;
                    }
                    Ok(checkpoint)
                })
            });
            let computed = compute();
            let (out, files) = match computed {
                Ok(computed) => computed,
                Err(e) => {
                    drop(send);
                    let _ = writer.join().expect("the store's writer does not panic");
                    return Err(e);
                }
            };
            let review: Vec<PackedFile> = staged(&out).par_iter().map(|f| pack_file(f)).collect();
            let journal = journal(&out);
            // The writer only hangs up by failing, which `join` reports.
            let _ = send.send((pack_checkpoint_files(files), review, journal));
            let checkpoint = writer.join().expect("the store's writer does not panic")?;
            Ok((checkpoint, out))
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
        let kind = kind_of(id, &kind)?;
        let affected_files = self
            .checkpoint_files(id)?
            .into_iter()
            .map(|(path, stored, text_hash, _)| file_of(path, stored, text_hash))
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

    /// Up to `limit` checkpoints, newest first, from the one after `before`
    /// (`None`: the newest), and whether older ones remain. One query.
    pub fn checkpoints_page(
        &self,
        before: Option<&str>,
        limit: usize,
    ) -> Result<(Vec<Checkpoint>, bool), StoreError> {
        type Row = (
            String,
            Option<String>,
            Option<String>,
            String,
            String,
            String,
            Option<String>,
            Option<String>,
            Option<String>,
        );
        let mut stmt = self.conn.prepare_cached(
            "WITH page AS (
                SELECT * FROM checkpoints
                WHERE ?1 IS NULL OR seq < (SELECT seq FROM checkpoints WHERE id = ?1)
                ORDER BY seq DESC LIMIT ?2)
             SELECT page.id, page.session_id, page.job_id, page.kind, page.created_at,
                    page.instruction, f.path, f.state, f.text_hash
             FROM page LEFT JOIN checkpoint_files f ON f.checkpoint_id = page.id
             ORDER BY page.seq DESC, f.path",
        )?;
        // One more than asked: whether older ones remain.
        let rows: Vec<Row> = stmt
            .query_map(params![before, limit as i64 + 1], |r| r.try_into())?
            .collect::<Result<_, _>>()?;
        let mut page: Vec<Checkpoint> = Vec::new();
        for (id, session_id, job_id, kind, created_at, instruction, path, state, text_hash) in rows
        {
            if page.last().is_none_or(|c| c.checkpoint_id != id) {
                page.push(Checkpoint {
                    kind: kind_of(&id, &kind)?,
                    checkpoint_id: id.clone(),
                    session_id,
                    job_id,
                    created_at,
                    instruction,
                    affected_files: Vec::new(),
                });
            }
            if let (Some(path), Some(state)) = (path, state) {
                let stored = stored_of(&id, &path, &state)?;
                let file = file_of(path, stored, text_hash);
                page.last_mut()
                    .expect("pushed above")
                    .affected_files
                    .push(file);
            }
        }
        let more = page.len() > limit;
        page.truncate(limit);
        Ok((page, more))
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
                if stored.snapshot.binary {
                    let bytes = text_hash
                        .as_deref()
                        .map(|h| blob(&self.conn, h))
                        .transpose()?;
                    return Ok((
                        path,
                        FileSnapshot {
                            bytes,
                            ..stored.snapshot
                        },
                        None,
                    ));
                }
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
                let stored = stored_of(id, &path, &state)?;
                Ok((path, stored, text_hash, proposed_hash))
            })
            .collect()
    }
}

fn kind_of(id: &str, kind: &str) -> Result<CheckpointKind, StoreError> {
    match kind {
        "run" => Ok(CheckpointKind::Run),
        "rollback" => Ok(CheckpointKind::Rollback),
        "resolve" => Ok(CheckpointKind::Resolve),
        "decision" => Ok(CheckpointKind::Decision),
        other => Err(StoreError::Corrupt(format!(
            "checkpoint {id}: kind `{other}`"
        ))),
    }
}

fn stored_of(id: &str, path: &str, state: &str) -> Result<StoredFile, StoreError> {
    serde_json::from_str(state)
        .map_err(|e| StoreError::Corrupt(format!("checkpoint {id}: {path}: {e}")))
}

fn file_of(path: String, stored: StoredFile, text_hash: Option<String>) -> CheckpointFile {
    CheckpointFile {
        file_path: path,
        base_snapshot_hash: text_hash.or_else(|| {
            // An attachment under review: its bytes are stored by their hash.
            stored
                .snapshot
                .disk_hash
                .clone()
                .filter(|_| stored.snapshot.binary)
        }),
        hunk_ids: stored.hunk_ids,
        reverse_patches: stored.reverse_patches,
        hunks_now: Vec::new(),
    }
}

/// A checkpoint's files and the review state stored with it, packed, and
/// the staging to journal with them.
type Rows = (Vec<PackedCheckpointFile>, Vec<PackedFile>, Option<String>);

/// What a checkpoint is: its kind, the session and job it belongs to, the
/// request it is named by, and when it was made.
pub(crate) struct Header<'a> {
    /// The checkpoint this one's files are added to (a later staging of
    /// the same job); `None`: a new checkpoint.
    into: Option<&'a str>,
    kind: CheckpointKind,
    session_id: Option<&'a str>,
    job_id: Option<&'a str>,
    instruction: &'a str,
    created_at: String,
}

impl<'a> Header<'a> {
    /// A checkpoint made now.
    pub(crate) fn new(
        kind: CheckpointKind,
        session_id: Option<&'a str>,
        job_id: Option<&'a str>,
        instruction: &'a str,
    ) -> Header<'a> {
        Header {
            into: None,
            kind,
            session_id,
            job_id,
            instruction,
            created_at: humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string(),
        }
    }

    /// The same, its files added to the checkpoint `id` when given.
    pub(crate) fn into_checkpoint(self, id: Option<&'a str>) -> Header<'a> {
        Header { into: id, ..self }
    }
}

/// Hashes, compresses and serialises `files` on every core, so that the
/// transaction only runs statements.
fn pack_checkpoint_files(files: Vec<NewCheckpointFile>) -> Vec<PackedCheckpointFile> {
    files
        .into_par_iter()
        .map(|mut file| {
            let text = match file.snapshot.bytes.take() {
                Some(bytes) => Some(Packed::new(&bytes)),
                None => file.snapshot.text.take().map(|t| Packed::new(t.as_bytes())),
            };
            let proposed = file.proposed.as_deref().map(|t| Packed::new(t.as_bytes()));
            let stored = StoredFile {
                snapshot: file.snapshot,
                hunk_ids: file.hunk_ids,
                reverse_patches: file.reverse_patches,
            };
            PackedCheckpointFile {
                state: serde_json::to_string(&stored).expect("serializes"),
                path: file.path,
                text,
                proposed,
                stored,
            }
        })
        .collect()
}

/// Writes a checkpoint's rows, then the review state of `staged`.
fn write_checkpoint(
    blobs: &mut Blobs<'_>,
    what: &Header<'_>,
    files: Vec<PackedCheckpointFile>,
    staged: &[PackedFile],
) -> Result<Checkpoint, StoreError> {
    let tx = blobs.conn();
    let id = match what.into {
        Some(id) => id.to_owned(),
        None => {
            let seq: i64 = tx.query_row(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM checkpoints",
                [],
                |r| r.get(0),
            )?;
            let id = format!("cp_{seq}");
            let kind_text = match what.kind {
                CheckpointKind::Run => "run",
                CheckpointKind::Rollback => "rollback",
                CheckpointKind::Resolve => "resolve",
                CheckpointKind::Decision => "decision",
            };
            tx.execute(
                "INSERT INTO checkpoints (id, seq, session_id, job_id, kind, created_at, instruction)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    id,
                    seq,
                    what.session_id,
                    what.job_id,
                    kind_text,
                    what.created_at,
                    what.instruction
                ],
            )?;
            id
        }
    };
    let mut affected = Vec::with_capacity(files.len());
    for file in files {
        let text_hash = file.text.as_ref().map(|b| blobs.put(b)).transpose()?;
        let proposed_hash = file.proposed.as_ref().map(|b| blobs.put(b)).transpose()?;
        // Added to an earlier checkpoint, a file it holds keeps the text
        // it had first: a rollback to it goes back to before the job.
        tx.prepare_cached(
            "INSERT OR IGNORE INTO checkpoint_files (checkpoint_id, path, text_hash, proposed_hash, state)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![id, file.path, text_hash, proposed_hash, file.state])?;
        affected.push(file_of(file.path, file.stored, text_hash));
    }
    save_files(blobs, staged)?;
    Ok(Checkpoint {
        checkpoint_id: id,
        session_id: what.session_id.map(ToOwned::to_owned),
        job_id: what.job_id.map(ToOwned::to_owned),
        kind: what.kind,
        created_at: what.created_at.clone(),
        instruction: what.instruction.to_owned(),
        affected_files: affected,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, text: &str) -> NewCheckpointFile {
        NewCheckpointFile {
            path: path.into(),
            snapshot: FileSnapshot::of_text(Some(text.into()), None),
            proposed: None,
            hunk_ids: vec![format!("h_{path}")],
            reverse_patches: Vec::new(),
        }
    }

    #[test]
    fn checkpoints_page_newest_first_with_their_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path(), std::path::Path::new("/p")).unwrap();
        for n in 0..5 {
            let files = (0..n % 3)
                .map(|i| file(&format!("f{n}_{i}.md"), "x\n"))
                .collect();
            store
                .add_checkpoint(CheckpointKind::Run, None, None, &format!("run {n}"), files)
                .unwrap();
        }
        let mut seen = Vec::new();
        let mut before = None;
        loop {
            let (page, more) = store.checkpoints_page(before.as_deref(), 2).unwrap();
            assert!(page.len() <= 2);
            for c in &page {
                // Each as the single-checkpoint read has it, files included.
                assert_eq!(
                    Some(c),
                    store.checkpoint(&c.checkpoint_id).unwrap().as_ref()
                );
            }
            seen.extend(page.iter().map(|c| c.instruction.clone()));
            if !more {
                break;
            }
            before = page.last().map(|c| c.checkpoint_id.clone());
        }
        assert_eq!(seen, ["run 4", "run 3", "run 2", "run 1", "run 0"]);
        let (all, more) = store.checkpoints_page(None, 10).unwrap();
        assert!(!more);
        let files: Vec<usize> = all.iter().map(|c| c.affected_files.len()).collect();
        assert_eq!(files, [1, 0, 2, 1, 0]);
        assert!(
            store
                .checkpoints_page(Some("cp_1"), 10)
                .unwrap()
                .0
                .is_empty()
        );
    }

    #[test]
    fn a_proposal_whose_rest_cannot_be_worked_out_stores_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path(), std::path::Path::new("/p")).unwrap();
        let what = Header::new(CheckpointKind::Run, None, Some("job_1"), "Rename");
        let texts = [b"before\n".as_slice(), b"after\n"];
        let failed = store.add_proposal(
            &what,
            &texts,
            || Err::<((), Vec<NewCheckpointFile>), _>(StoreError::Corrupt("no".into())),
            |()| Vec::new(),
            |()| None,
        );
        assert!(matches!(failed, Err(StoreError::Corrupt(_))));
        assert_eq!(store.blob_count().unwrap(), 0, "the texts went with it");
        assert!(store.checkpoints_page(None, 10).unwrap().0.is_empty());

        let (checkpoint, out) = store
            .add_proposal(
                &what,
                &texts,
                || Ok::<_, StoreError>((7, vec![file("a.md", "before\n")])),
                |_| Vec::new(),
                |_| Some("{\"staged\":7}".into()),
            )
            .unwrap();
        assert_eq!(out, 7);
        assert_eq!(checkpoint.affected_files.len(), 1);
        assert_eq!(store.blob_count().unwrap(), 2, "both texts, the first once");
        assert_eq!(
            Some(checkpoint),
            store.checkpoint("cp_1").unwrap(),
            "stored as returned"
        );
        assert_eq!(
            store.stagings("job_1").unwrap(),
            vec![("cp_1".to_owned(), "{\"staged\":7}".to_owned())],
            "the staging journaled with it"
        );
        store.forget_stagings("job_1").unwrap();
        assert!(store.stagings("job_1").unwrap().is_empty());
    }
}
