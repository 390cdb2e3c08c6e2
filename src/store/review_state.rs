//! Review state in the store.
//!
//! A file's state is stored as a snapshot (its buffer and every entry with its
//! region and status at that moment) whenever its text changes through a
//! staging, an edit, a save or a rollback. A decision only updates its entry's
//! `status` row, so accepting or rejecting costs one small write whatever the
//! size of the file. On load, each entry whose status moved in or out of
//! `rejected` since the snapshot is replayed; decisions commute, so the buffer
//! comes back exactly as it was.

use rusqlite::{Transaction, params};

use super::{Store, StoreError, put_blob, text_blob};
use crate::review::{Entry, FileReview, Origin, Review, Status};

fn lines(text: &str) -> Vec<String> {
    text.split_inclusive('\n').map(ToOwned::to_owned).collect()
}

impl Store {
    /// Stores a snapshot of `file`'s whole review state.
    pub fn save_file(&mut self, file: &FileReview) -> Result<(), StoreError> {
        self.transaction(|tx| save_file(tx, file))
    }

    /// Stores the snapshots of several files in one transaction.
    pub fn save_files<'a>(
        &mut self,
        files: impl IntoIterator<Item = &'a FileReview>,
    ) -> Result<(), StoreError> {
        self.transaction(|tx| {
            for file in files {
                save_file(tx, file)?;
            }
            Ok(())
        })
    }

    /// Records a decision: one row, whatever the size of the file.
    pub fn save_status(&self, entry_id: &str, status: Status) -> Result<(), StoreError> {
        let changed = self.conn.execute(
            "UPDATE entries SET status = ?2 WHERE id = ?1",
            params![entry_id, status.as_str()],
        )?;
        if changed != 1 {
            return Err(StoreError::Corrupt(format!(
                "entry {entry_id} is not stored"
            )));
        }
        Ok(())
    }

    /// Records (or clears) the hash of a write about to happen to `path`.
    pub fn intend_write(&self, path: &str, hash: Option<&str>) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE review_files SET intended_disk_hash = ?2 WHERE path = ?1",
            params![path, hash],
        )?;
        Ok(())
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

    /// Loads every file under review.
    pub fn load_review(&self) -> Result<Review, StoreError> {
        let mut review = Review::new();
        let mut stmt = self
            .conn
            .prepare("SELECT path, base_hash, disk_hash, created, buffer_hash, doc_order FROM review_files ORDER BY path")?;
        let rows: Vec<(String, String, Option<String>, bool, String, String)> = stmt
            .query_map([], |r| r.try_into())?
            .collect::<Result<_, _>>()?;
        for (path, base_hash, disk_hash, created, buffer_hash, doc_order) in rows {
            let (entries, current) = self.load_entries(&path)?;
            let ids: Vec<String> = serde_json::from_str(&doc_order)
                .map_err(|e| StoreError::Corrupt(format!("{path}: order: {e}")))?;
            let order = ids
                .iter()
                .map(|id| entries.iter().position(|e| &e.id == id))
                .collect::<Option<Vec<usize>>>()
                .filter(|o| o.len() == entries.len())
                .ok_or_else(|| {
                    StoreError::Corrupt(format!("{path}: order does not match the entries"))
                })?;
            let mut file = FileReview::from_parts(
                path.clone(),
                text_blob(&self.conn, &base_hash)?,
                disk_hash,
                created,
                &text_blob(&self.conn, &buffer_hash)?,
                entries,
                order,
            );
            // Replayed as they could have happened: changes taken out latest
            // first (one made on top of another comes out before it), then
            // changes put back earliest first, then the other status changes.
            let snapshot: Vec<Status> = file.entries().iter().map(|e| e.status).collect();
            let rejected = |s: Status| s == Status::Rejected;
            let mut replay: Vec<usize> = (0..current.len())
                .rev()
                .filter(|&i| rejected(current[i]) && !rejected(snapshot[i]))
                .collect();
            replay.extend(
                (0..current.len()).filter(|&i| !rejected(current[i]) && rejected(snapshot[i])),
            );
            replay.extend(
                (0..current.len()).filter(|&i| rejected(current[i]) == rejected(snapshot[i])),
            );
            for i in replay {
                file.set_status(i, current[i]).map_err(|e| {
                    StoreError::Corrupt(format!("{path}: replaying a decision: {e}"))
                })?;
            }
            review.insert_file(file);
        }
        Ok(review)
    }

    /// A file's entries as of its snapshot, and each one's current status.
    fn load_entries(&self, path: &str) -> Result<(Vec<Entry>, Vec<Status>), StoreError> {
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
        let status = |s: &str| {
            Status::parse(s).ok_or_else(|| StoreError::Corrupt(format!("{path}: status `{s}`")))
        };
        let mut entries = Vec::with_capacity(rows.len());
        let mut current = Vec::with_capacity(rows.len());
        for (
            id,
            origin,
            job_id,
            hunk_id,
            now,
            snap,
            old_hash,
            new_hash,
            file_hash_before,
            at,
            len,
            covers,
        ) in rows
        {
            let origin = match origin.as_str() {
                "agent" => Origin::Agent,
                "user" => Origin::User,
                other => return Err(StoreError::Corrupt(format!("{path}: origin `{other}`"))),
            };
            current.push(status(&now)?);
            entries.push(Entry {
                id,
                origin,
                job_id,
                hunk_id,
                status: status(&snap)?,
                old: lines(&text_blob(&self.conn, &old_hash)?),
                new: lines(&text_blob(&self.conn, &new_hash)?),
                file_hash_before,
                at: at as usize,
                len: len as usize,
                covers: serde_json::from_str(&covers)
                    .map_err(|e| StoreError::Corrupt(format!("{path}: covers: {e}")))?,
            });
        }
        Ok((entries, current))
    }
}

fn save_file(tx: &Transaction<'_>, file: &FileReview) -> Result<(), StoreError> {
    let base_hash = put_blob(tx, file.base.as_bytes())?;
    let buffer_hash = put_blob(tx, file.buffer().as_bytes())?;
    let entries = file.entries();
    let order: Vec<&str> = file
        .order()
        .iter()
        .map(|&i| entries[i].id.as_str())
        .collect();
    tx.execute(
        "INSERT INTO review_files (path, base_hash, disk_hash, created, buffer_hash, doc_order)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT(path) DO UPDATE SET base_hash = ?2, disk_hash = ?3, created = ?4, buffer_hash = ?5, doc_order = ?6",
        params![
            file.path,
            base_hash,
            file.disk_hash,
            file.created,
            buffer_hash,
            serde_json::to_string(&order).expect("ids serialize")
        ],
    )?;
    tx.execute("DELETE FROM entries WHERE path = ?1", [&file.path])?;
    let mut insert = tx.prepare_cached(
        "INSERT INTO entries (id, path, seq, origin, job_id, hunk_id, status, snap_status, old_hash, new_hash,
                              file_hash_before, snap_at, snap_len, covers)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    )?;
    for (seq, e) in entries.iter().enumerate() {
        let old_hash = put_blob(tx, e.old.concat().as_bytes())?;
        let new_hash = put_blob(tx, e.new.concat().as_bytes())?;
        insert.execute(params![
            e.id,
            file.path,
            seq as i64,
            e.origin.as_str(),
            e.job_id,
            e.hunk_id,
            e.status.as_str(),
            old_hash,
            new_hash,
            e.file_hash_before,
            e.at as i64,
            e.len as i64,
            serde_json::to_string(&e.covers).expect("covers serialize")
        ])?;
    }
    Ok(())
}
