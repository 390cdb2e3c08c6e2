//! Review state in the store.
//!
//! A file's state is stored whole (its pieces, their text, and every entry
//! with its status) whenever its text changes through a staging, an edit, a
//! save or a rollback. A decision only updates the status rows of the hunks
//! it moved, so accepting or rejecting costs a few small writes whatever the
//! size of the file. The buffer is a function of the pieces and the
//! statuses, so loading needs no replay.
//!
//! Files written by schema version 3 (the line-region log) are moved to the
//! piece log as they are loaded ([`crate::review::legacy`]) and stored again
//! in the new form.

use rusqlite::{OptionalExtension, params};

use rayon::prelude::*;

use super::{Blobs, Packed, Store, StoreError, text_blob};
use crate::review::legacy::{LegacyEntry, LegacyFile};
use crate::review::{Entry, FileReview, Origin, Review, Status, StoredLog};

/// One stored entry row: its id, origin, job, hunk, status, hash before,
/// reason, the moves it follows, whether it leaves its link by choice.
type EntryRow = (
    String,
    String,
    Option<String>,
    Option<String>,
    String,
    String,
    Option<String>,
    Option<String>,
    bool,
);

impl Store {
    /// Stores `file`'s whole review state.
    pub fn save_file(&mut self, file: &FileReview) -> Result<(), StoreError> {
        let packed = pack_file(file);
        self.transaction(|tx| save_files(&mut Blobs::new(tx), std::slice::from_ref(&packed)))
    }

    /// Stores the state of several files in one transaction.
    pub fn save_files<'a>(
        &mut self,
        files: impl IntoIterator<Item = &'a FileReview>,
    ) -> Result<(), StoreError> {
        let files: Vec<&FileReview> = files.into_iter().collect();
        let packed: Vec<PackedFile> = files.par_iter().map(|f| pack_file(f)).collect();
        self.transaction(|tx| save_files(&mut Blobs::new(tx), &packed))
    }

    /// Records a decision: a row per entry it moved (its id, status, and
    /// whether it leaves its link by choice), whatever the size of the
    /// file; `reason` goes with the first.
    pub fn save_statuses(
        &mut self,
        moves: &[(String, Status, bool)],
        reason: Option<&str>,
    ) -> Result<(), StoreError> {
        let save = |conn: &rusqlite::Connection, k: usize, (entry_id, status, leaves): &(String, Status, bool)| {
            let changed = if k == 0 {
                conn.prepare_cached(
                    "UPDATE entries SET status = ?2, leaves_link = ?3, reason = ?4 WHERE id = ?1",
                )?
                .execute(params![entry_id, status.as_str(), leaves, reason])?
            } else {
                conn.prepare_cached("UPDATE entries SET status = ?2, leaves_link = ?3 WHERE id = ?1")?
                    .execute(params![entry_id, status.as_str(), leaves])?
            };
            if changed != 1 {
                return Err(StoreError::Corrupt(format!("entry {entry_id} is not stored")));
            }
            Ok(())
        };
        if let [one] = moves {
            // The common decision: one row, no transaction to open.
            return save(&self.conn, 0, one);
        }
        self.transaction(|tx| {
            for (k, row) in moves.iter().enumerate() {
                save(tx, k, row)?;
            }
            Ok(())
        })
    }

    /// Records the hashes of many writes about to happen, in one transaction.
    pub fn intend_writes(&mut self, writes: &[(String, String)]) -> Result<(), StoreError> {
        self.transaction(|tx| {
            let mut update = tx.prepare_cached(
                "UPDATE review_files SET intended_disk_hash = ?2 WHERE path = ?1",
            )?;
            for (path, hash) in writes {
                update.execute(params![path, hash])?;
            }
            Ok(())
        })
    }

    /// Settles a batch of writes in one transaction: each file's new disk
    /// hash (`None`: unchanged, the write did not happen), its intent cleared.
    pub fn settle_writes(&mut self, writes: &[(String, Option<String>)]) -> Result<(), StoreError> {
        self.transaction(|tx| {
            let mut written = tx.prepare_cached(
                "UPDATE review_files SET disk_hash = ?2, intended_disk_hash = NULL WHERE path = ?1",
            )?;
            let mut not = tx.prepare_cached(
                "UPDATE review_files SET intended_disk_hash = NULL WHERE path = ?1",
            )?;
            for (path, hash) in writes {
                match hash {
                    Some(hash) => written.execute(params![path, hash])?,
                    None => not.execute([path])?,
                };
            }
            Ok(())
        })
    }

    /// Writes that were intended and not confirmed: `(path, hash)`.
    pub fn intended_writes(&self) -> Result<Vec<(String, String)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT path, intended_disk_hash FROM review_files WHERE intended_disk_hash IS NOT NULL")?;
        let rows = stmt
            .query_map([], |r| r.try_into())?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Takes a file's review state out of the store.
    pub fn remove_file(&mut self, path: &str) -> Result<(), StoreError> {
        self.conn
            .execute("DELETE FROM review_files WHERE path = ?1", [path])?;
        Ok(())
    }

    /// Loads every file under review; files of schema version 3 are moved to
    /// the piece log and stored again.
    pub fn load_review(&mut self) -> Result<Review, StoreError> {
        let mut review = Review::new();
        type Row = (
            String,
            String,
            Option<String>,
            bool,
            String,
            String,
            Option<String>,
            Option<Vec<u8>>,
            Option<String>,
            Option<String>,
            Option<String>,
        );
        let rows: Vec<Row> = self
            .conn
            .prepare(
                "SELECT path, base_hash, disk_hash, created, buffer_hash, doc_order, pieces, pieces_text,
                        pieces_hash, op, moved_from
                 FROM review_files ORDER BY path",
            )?
            .query_map([], |r| r.try_into())?
            .collect::<Result<_, _>>()?;
        let mut migrated = Vec::new();
        for (
            path,
            base_hash,
            disk_hash,
            created,
            buffer_hash,
            doc_order,
            pieces,
            pieces_text,
            pieces_hash,
            op,
            moved_from,
        ) in rows
        {
            let base = text_blob(&self.conn, &base_hash)?;
            let corrupt = |what: String| StoreError::Corrupt(format!("{path}: {what}"));
            // Schema 5 keeps the piece text in the row; 4 kept it as a blob.
            let text = match (pieces_text, pieces_hash) {
                (Some(packed), _) => Some(
                    lz4_flex::decompress_size_prepended(&packed)
                        .ok()
                        .and_then(|bytes| String::from_utf8(bytes).ok())
                        .ok_or_else(|| corrupt("its piece text does not unpack".into()))?,
                ),
                (None, Some(hash)) => Some(text_blob(&self.conn, &hash)?),
                (None, None) => None,
            };
            let op = match op {
                Some(op) => {
                    Some(serde_json::from_str(&op).map_err(|e| corrupt(format!("op: {e}")))?)
                }
                None => None,
            };
            let mut file = match (pieces, text) {
                (Some(pieces), Some(text)) => {
                    let log = StoredLog {
                        entries: self.load_entries(&path)?,
                        text,
                        pieces: serde_json::from_str(&pieces)
                            .map_err(|e| corrupt(format!("pieces: {e}")))?,
                    };
                    FileReview::from_stored(path.clone(), base, disk_hash, created, log)
                        .ok_or_else(|| corrupt("its pieces do not fit together".into()))?
                }
                _ => {
                    let (entries, current) = self.load_legacy_entries(&path)?;
                    let ids: Vec<String> = serde_json::from_str(&doc_order)
                        .map_err(|e| corrupt(format!("order: {e}")))?;
                    let order = ids
                        .iter()
                        .map(|id| entries.iter().position(|e| &e.id == id))
                        .collect::<Option<Vec<usize>>>()
                        .ok_or_else(|| corrupt("order does not match the entries".into()))?;
                    let mut old = LegacyFile {
                        buffer: ropey::Rope::from_str(&text_blob(&self.conn, &buffer_hash)?),
                        entries,
                        order,
                    };
                    old.replay(&current)
                        .map_err(|_| corrupt("replaying a decision was refused".into()))?;
                    let file = old
                        .migrate(path.clone(), base, disk_hash, created)
                        .map_err(|e| corrupt(format!("moving it to the piece log: {e}")))?;
                    tracing::info!(path = %path, "review state moved to the piece log");
                    migrated.push(path.clone());
                    file
                }
            };
            if op
                .as_ref()
                .is_some_and(|op: &crate::review::StagedOp| op.entry >= file.entries().len())
            {
                return Err(corrupt("its move or deletion names no entry".into()));
            }
            file.set_op(op);
            if let Some(moved_from) = moved_from {
                file.set_moved_from(
                    serde_json::from_str(&moved_from)
                        .map_err(|e| corrupt(format!("moved_from: {e}")))?,
                );
            }
            review.insert_file(file);
        }
        if !migrated.is_empty() {
            self.save_files(migrated.iter().filter_map(|p| review.file(p)))?;
        }
        // Entries a rollback dropped may come back from a checkpoint: their
        // ids are never issued again.
        let issued: Option<i64> = self
            .conn
            .query_row("SELECT next FROM counters WHERE name = 'entry'", [], |r| {
                r.get(0)
            })
            .optional()?;
        review.skip_ids_below(issued.unwrap_or(0).max(1) as u64);
        Ok(review)
    }

    /// A file's entries as stored, in the order they were recorded.
    fn load_entries(&self, path: &str) -> Result<Vec<Entry>, StoreError> {
        let rows: Vec<EntryRow> = self
            .conn
            .prepare_cached(
                "SELECT id, origin, job_id, hunk_id, status, file_hash_before, reason, follows,
                        leaves_link
                 FROM entries WHERE path = ?1 ORDER BY seq",
            )?
            .query_map([path], |r| r.try_into())?
            .collect::<Result<_, _>>()?;
        rows.into_iter()
            .map(
                |(id, origin, job_id, hunk_id, status, file_hash_before, reason, follows, leaves_link)| {
                    let follows = match follows {
                        Some(list) => serde_json::from_str(&list)
                            .map_err(|e| StoreError::Corrupt(format!("{path}: follows: {e}")))?,
                        None => Vec::new(),
                    };
                    Ok(Entry {
                        id,
                        origin: origin_of(path, &origin)?,
                        job_id,
                        hunk_id,
                        status: status_of(path, &status)?,
                        file_hash_before,
                        reason,
                        follows,
                        leaves_link,
                    })
                },
            )
            .collect()
    }

    /// A version 3 file's entries as of its snapshot, and each one's
    /// current status.
    fn load_legacy_entries(
        &self,
        path: &str,
    ) -> Result<(Vec<LegacyEntry>, Vec<Status>), StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT id, origin, job_id, hunk_id, status, snap_status, old_hash, new_hash, file_hash_before, snap_at, snap_len, covers
             FROM entries WHERE path = ?1 ORDER BY seq",
        )?;
        type Row = (
            String,
            String,
            Option<String>,
            Option<String>,
            String,
            String,
            String,
            String,
            String,
            i64,
            i64,
            String,
        );
        let rows: Vec<Row> = stmt
            .query_map([path], |r| r.try_into())?
            .collect::<Result<_, _>>()?;
        let lines = |hash: &str| -> Result<Vec<String>, StoreError> {
            Ok(text_blob(&self.conn, hash)?
                .split_inclusive('\n')
                .map(ToOwned::to_owned)
                .collect())
        };
        let mut entries = Vec::with_capacity(rows.len());
        let mut current = Vec::with_capacity(rows.len());
        for (id, origin, job_id, hunk_id, now, snap, old, new, before, at, len, covers) in rows {
            current.push(status_of(path, &now)?);
            entries.push(LegacyEntry {
                id,
                origin: origin_of(path, &origin)?,
                job_id,
                hunk_id,
                status: status_of(path, &snap)?,
                old: lines(&old)?,
                new: lines(&new)?,
                file_hash_before: before,
                at: at as usize,
                len: len as usize,
                covers: serde_json::from_str(&covers)
                    .map_err(|e| StoreError::Corrupt(format!("{path}: covers: {e}")))?,
            });
        }
        Ok((entries, current))
    }
}

fn origin_of(path: &str, text: &str) -> Result<Origin, StoreError> {
    match text {
        "agent" => Ok(Origin::Agent),
        "user" => Ok(Origin::User),
        "outside" => Ok(Origin::Outside),
        other => Err(StoreError::Corrupt(format!("{path}: origin `{other}`"))),
    }
}

fn status_of(path: &str, text: &str) -> Result<Status, StoreError> {
    Status::parse(text).ok_or_else(|| StoreError::Corrupt(format!("{path}: status `{text}`")))
}

/// A file's review state made ready to store (see [`Packed`]); owned, so
/// that it can be handed to the thread that writes it.
pub(super) struct PackedFile {
    path: String,
    disk_hash: Option<String>,
    created: bool,
    base: Packed,
    buffer: Packed,
    /// The piece text, compressed.
    pieces_text: Vec<u8>,
    pieces_json: String,
    entries: Vec<Entry>,
    /// The staged whole-file operation, as JSON.
    op: Option<String>,
    /// The paths its retired moves left, as JSON (`None`: none).
    moved_from: Option<String>,
}

/// Packs `file` for [`save_files`]; pure, so many files pack on every core.
pub(super) fn pack_file(file: &FileReview) -> PackedFile {
    let log = file.to_stored();
    PackedFile {
        path: file.path.clone(),
        disk_hash: file.disk_hash.clone(),
        created: file.created,
        base: Packed::new(file.base.as_bytes()),
        buffer: Packed::new(file.buffer().as_bytes()),
        pieces_text: lz4_flex::compress_prepend_size(log.text.as_bytes()),
        pieces_json: serde_json::to_string(&log.pieces).expect("pieces serialize"),
        entries: log.entries,
        op: file
            .op()
            .map(|op| serde_json::to_string(op).expect("an op serializes")),
        moved_from: (!file.stored_moved_from().is_empty()).then(|| {
            serde_json::to_string(file.stored_moved_from()).expect("paths serialize")
        }),
    }
}

/// The empty text, which every entry of a file stored with its pieces
/// names for its old and new text: hashed once, not once per file.
static EMPTY: std::sync::LazyLock<Packed> = std::sync::LazyLock::new(|| Packed::new(b""));

/// Stores the state of `files` (their rows replace what was stored of
/// them), in the caller's transaction.
pub(super) fn save_files(blobs: &mut Blobs<'_>, files: &[PackedFile]) -> Result<(), StoreError> {
    // Every file's old rows go first: a hunk a rollback took from one file
    // into another (a note put back under the path it had before a move)
    // is stored once, whichever path comes first.
    for file in files {
        blobs
            .conn()
            .prepare_cached("DELETE FROM entries WHERE path = ?1")?
            .execute([&file.path])?;
    }
    let mut issued = 0;
    for file in files {
        issued = issued.max(save_file(blobs, file)?);
    }
    // The high-water mark of entry ids (see `Store::load_review`), once
    // for them all.
    blobs
        .conn()
        .prepare_cached(
            "INSERT INTO counters (name, next) VALUES ('entry', ?1)
             ON CONFLICT(name) DO UPDATE SET next = max(next, ?1)",
        )?
        .execute([issued])?;
    Ok(())
}

/// Stores one file's rows, its old entries already deleted; returns the
/// number after its highest entry id.
fn save_file(blobs: &mut Blobs<'_>, file: &PackedFile) -> Result<i64, StoreError> {
    let base_hash = blobs.put(&file.base)?;
    let buffer_hash = blobs.put(&file.buffer)?;
    let empty = blobs.put(&EMPTY)?;
    let tx = blobs.conn();
    tx.prepare_cached(
        "INSERT INTO review_files (path, base_hash, disk_hash, created, buffer_hash, doc_order, pieces, pieces_text, op, moved_from)
         VALUES (?1, ?2, ?3, ?4, ?5, '[]', ?6, ?7, ?8, ?9)
         ON CONFLICT(path) DO UPDATE SET base_hash = ?2, disk_hash = ?3, created = ?4, buffer_hash = ?5,
                                         doc_order = '[]', pieces = ?6, pieces_text = ?7, pieces_hash = NULL,
                                         op = ?8, moved_from = ?9",
    )?
    .execute(params![
            file.path,
            base_hash,
            file.disk_hash,
            file.created,
            buffer_hash,
            file.pieces_json,
            file.pieces_text,
            file.op,
            file.moved_from,
        ],
    )?;
    // The columns of the line-region log (old and new text, region) are
    // left empty: nothing reads them for a file stored with its pieces.
    let mut insert = tx.prepare_cached(
        "INSERT INTO entries (id, path, seq, origin, job_id, hunk_id, status, snap_status, old_hash, new_hash,
                              file_hash_before, snap_at, snap_len, reason, follows, leaves_link)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8, ?8, ?9, 0, 0, ?10, ?11, ?12)",
    )?;
    let mut issued = 0;
    for (seq, e) in file.entries.iter().enumerate() {
        if let Some(n) = e.id.strip_prefix("c_").and_then(|n| n.parse::<i64>().ok()) {
            issued = issued.max(n + 1);
        }
        insert.execute(params![
            e.id,
            file.path,
            seq as i64,
            e.origin.as_str(),
            e.job_id,
            e.hunk_id,
            e.status.as_str(),
            empty,
            e.file_hash_before,
            e.reason,
            (!e.follows.is_empty())
                .then(|| serde_json::to_string(&e.follows).expect("ids serialize")),
            e.leaves_link,
        ])?;
    }
    Ok(issued)
}
