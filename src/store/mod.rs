//! The store: one SQLite database per project, in Redline's data directory
//! (never in the user's folder), holding the content store, review state,
//! the change log and checkpoints.
//!
//! File contents live in a content-addressed table (`sha256` → LZ4-compressed
//! bytes), so a text stored twice costs nothing the second time and a
//! checkpoint costs the bytes it touches. The schema is versioned with
//! `PRAGMA user_version`; [`MIGRATIONS`] run in order on open.

mod checkpoint_state;
pub(crate) use checkpoint_state::{Header, NewCheckpointFile};
mod history_state;
mod job_state;
pub use job_state::{EventRow, JobColumns};
mod review_state;
mod staging_state;

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};

use crate::project::text::content_hash;

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// SQLite failed.
    #[error("the review database failed: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The data directory could not be made.
    #[error("cannot create the data directory `{path}`: {source}")]
    Io {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Stored data does not decode.
    #[error("the review database is damaged: {0}")]
    Corrupt(String),
    /// A write was given up before it was committed, because what it was
    /// to store could not be worked out; nothing of it was stored.
    #[error("a write was given up before it was committed")]
    Abandoned,
}

/// Schema migrations; the database's `user_version` counts those applied.
pub const MIGRATIONS: &[&str] = &[
    // 1: content store, review state, change log, checkpoints.
    "CREATE TABLE blobs (
        hash TEXT PRIMARY KEY,
        size INTEGER NOT NULL,
        data BLOB NOT NULL
    );
    CREATE TABLE counters (name TEXT PRIMARY KEY, next INTEGER NOT NULL);
    CREATE TABLE review_files (
        path TEXT PRIMARY KEY,
        base_hash TEXT NOT NULL REFERENCES blobs(hash),
        disk_hash TEXT,
        created INTEGER NOT NULL,
        buffer_hash TEXT NOT NULL REFERENCES blobs(hash),
        doc_order TEXT NOT NULL,
        intended_disk_hash TEXT
    );
    CREATE TABLE entries (
        id TEXT PRIMARY KEY,
        path TEXT NOT NULL REFERENCES review_files(path) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        origin TEXT NOT NULL,
        job_id TEXT,
        hunk_id TEXT,
        status TEXT NOT NULL,
        snap_status TEXT NOT NULL,
        old_hash TEXT NOT NULL REFERENCES blobs(hash),
        new_hash TEXT NOT NULL REFERENCES blobs(hash),
        file_hash_before TEXT NOT NULL,
        snap_at INTEGER NOT NULL,
        snap_len INTEGER NOT NULL
    );
    CREATE INDEX entries_by_path ON entries(path, seq);
    CREATE UNIQUE INDEX entries_by_hunk ON entries(hunk_id) WHERE hunk_id IS NOT NULL;
    CREATE TABLE checkpoints (
        id TEXT PRIMARY KEY,
        seq INTEGER NOT NULL,
        session_id TEXT,
        job_id TEXT,
        kind TEXT NOT NULL,
        created_at TEXT NOT NULL,
        instruction TEXT NOT NULL DEFAULT ''
    );
    CREATE TABLE checkpoint_files (
        checkpoint_id TEXT NOT NULL REFERENCES checkpoints(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        text_hash TEXT REFERENCES blobs(hash),
        proposed_hash TEXT REFERENCES blobs(hash),
        state TEXT NOT NULL,
        PRIMARY KEY (checkpoint_id, path)
    );",
    // 2: sessions, jobs and their event logs.
    "CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        updated_at TEXT NOT NULL,
        doc TEXT NOT NULL
    );
    CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        finished_at TEXT,
        doc TEXT NOT NULL,
        loop_state TEXT
    );
    CREATE INDEX jobs_by_session ON jobs(session_id, created_at);
    CREATE TABLE events (
        job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
        cursor INTEGER NOT NULL,
        type TEXT NOT NULL,
        ts TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (job_id, cursor)
    ) WITHOUT ROWID;",
    // 3: the earlier entries a change widened (stacked proposals).
    "ALTER TABLE entries ADD COLUMN covers TEXT NOT NULL DEFAULT '[]';",
    // 4: the piece log (review::pieces). A file whose `pieces` is NULL was
    // written by version 3 and is moved to pieces when it is loaded.
    "ALTER TABLE review_files ADD COLUMN pieces TEXT;
    ALTER TABLE review_files ADD COLUMN pieces_hash TEXT REFERENCES blobs(hash);
    ALTER TABLE entries ADD COLUMN reason TEXT;",
    // 5: references to the content store are no longer foreign keys (every
    // writer puts a blob before naming it, in the same transaction, and a
    // missing blob reads as corrupt): checking them cost six index lookups
    // per file of a proposal. And a file's piece text is kept in its row
    // (compressed), not as a blob: it is that file's alone. A row with
    // `pieces_hash` set and no `pieces_text` was written by 4. The tables
    // are rebuilt as SQLite's documentation prescribes, foreign keys off.
    "CREATE TABLE review_files_5 (
        path TEXT PRIMARY KEY,
        base_hash TEXT NOT NULL,
        disk_hash TEXT,
        created INTEGER NOT NULL,
        buffer_hash TEXT NOT NULL,
        doc_order TEXT NOT NULL,
        intended_disk_hash TEXT,
        pieces TEXT,
        pieces_hash TEXT,
        pieces_text BLOB
    );
    INSERT INTO review_files_5 (path, base_hash, disk_hash, created, buffer_hash, doc_order,
                                intended_disk_hash, pieces, pieces_hash)
        SELECT path, base_hash, disk_hash, created, buffer_hash, doc_order,
               intended_disk_hash, pieces, pieces_hash FROM review_files;
    DROP TABLE review_files;
    ALTER TABLE review_files_5 RENAME TO review_files;
    CREATE TABLE entries_5 (
        id TEXT PRIMARY KEY,
        path TEXT NOT NULL REFERENCES review_files(path) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        origin TEXT NOT NULL,
        job_id TEXT,
        hunk_id TEXT,
        status TEXT NOT NULL,
        snap_status TEXT NOT NULL,
        old_hash TEXT NOT NULL,
        new_hash TEXT NOT NULL,
        file_hash_before TEXT NOT NULL,
        snap_at INTEGER NOT NULL,
        snap_len INTEGER NOT NULL,
        covers TEXT NOT NULL DEFAULT '[]',
        reason TEXT
    );
    INSERT INTO entries_5 SELECT id, path, seq, origin, job_id, hunk_id, status, snap_status,
        old_hash, new_hash, file_hash_before, snap_at, snap_len, covers, reason FROM entries;
    DROP TABLE entries;
    ALTER TABLE entries_5 RENAME TO entries;
    CREATE INDEX entries_by_path ON entries(path, seq);
    CREATE UNIQUE INDEX entries_by_hunk ON entries(hunk_id) WHERE hunk_id IS NOT NULL;
    CREATE TABLE checkpoint_files_5 (
        checkpoint_id TEXT NOT NULL REFERENCES checkpoints(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        text_hash TEXT,
        proposed_hash TEXT,
        state TEXT NOT NULL,
        PRIMARY KEY (checkpoint_id, path)
    );
    INSERT INTO checkpoint_files_5 SELECT checkpoint_id, path, text_hash, proposed_hash, state
        FROM checkpoint_files;
    DROP TABLE checkpoint_files;
    ALTER TABLE checkpoint_files_5 RENAME TO checkpoint_files;",
    // 6: moves and deletions of whole files (review::op): a file's staged
    // operation (JSON), and the moves a link hunk follows (a JSON list).
    "ALTER TABLE review_files ADD COLUMN op TEXT;
    ALTER TABLE entries ADD COLUMN follows TEXT;",
    // 7: the change log's entries by job, for lifecycle GC, which keeps a
    // job while the review holds its hunks.
    "CREATE INDEX entries_by_job ON entries(job_id) WHERE job_id IS NOT NULL;",
    // 8: the decision history (workspace::history): a step per row, by its
    // number, as JSON, and whether it is undone.
    "CREATE TABLE history (
        seq INTEGER PRIMARY KEY,
        step TEXT NOT NULL,
        undone INTEGER NOT NULL DEFAULT 0
    );",
    // 9: the stagings of a run that stages as it goes, each written with
    // its review and checkpoint (store::staging_state).
    "CREATE TABLE stagings (
        job_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        checkpoint_id TEXT NOT NULL,
        doc TEXT NOT NULL,
        PRIMARY KEY (job_id, seq)
    );",
    // 10: the paths a file's retired moves took it from (review::PastPath),
    // as a JSON list.
    "ALTER TABLE review_files ADD COLUMN moved_from TEXT;",
    // 11: whether a rejected link update is the user's choice to leave its
    // link (review::Entry::leaves_link).
    "ALTER TABLE entries ADD COLUMN leaves_link INTEGER NOT NULL DEFAULT 0;",
];

/// An open store.
pub struct Store {
    conn: Connection,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.conn.path())
            .finish()
    }
}

impl Store {
    /// Opens (creating if needed) the store of the project at `root` under
    /// `data_dir`: `<data_dir>/projects/<first 16 hex of sha256(root)>/redline.db`.
    pub fn open(data_dir: &Path, root: &Path) -> Result<Store, StoreError> {
        let dir = Store::project_dir(data_dir, root);
        std::fs::create_dir_all(&dir).map_err(|source| StoreError::Io {
            path: dir.clone(),
            source,
        })?;
        std::fs::write(
            dir.join("project-root.txt"),
            root.as_os_str().as_encoded_bytes(),
        )
        .map_err(|source| StoreError::Io {
            path: dir.clone(),
            source,
        })?;
        Store::open_at(&dir.join("redline.db"))
    }

    /// The folder of the project at `root`'s data under `data_dir`:
    /// `<data_dir>/projects/<first 16 hex of sha256(root)>`.
    pub fn project_dir(data_dir: &Path, root: &Path) -> PathBuf {
        let key = content_hash(root.as_os_str().as_encoded_bytes());
        data_dir
            .join("projects")
            .join(&key["sha256:".len().."sha256:".len() + 16])
    }

    /// Opens (creating if needed) the database at `path` and migrates it.
    pub fn open_at(path: &Path) -> Result<Store, StoreError> {
        let mut conn = Connection::open(path)?;
        // WAL with NORMAL sync: a crash loses at most the last transactions,
        // never the database, and commits do not wait for an fsync each.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        // A run's proposal over thousands of files is one transaction: with
        // SQLite's 2 MB default its pages spill to the log before the commit.
        conn.pragma_update(None, "cache_size", -32_768)?;
        // The log is copied into the database by a thread of the store's
        // own once it holds CHECKPOINT_PAGES, never by the commit that
        // filled it: SQLite's automatic checkpoint made a vault-wide
        // proposal's commit wait for two fsyncs.
        let checkpointer = checkpointer(path);
        conn.wal_hook(Some(
            move |_: &mut rusqlite::hooks::Wal, pages: std::ffi::c_int| {
                if pages >= CHECKPOINT_PAGES {
                    // Full: a checkpoint is already asked for.
                    let _ = checkpointer.try_send(());
                }
                Ok(())
            },
        ))?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        let mut store = Store { conn };
        store.migrate()?;
        store.conn.pragma_update(None, "foreign_keys", "ON")?;
        Ok(store)
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let version = self.schema_version()?;
        if version > MIGRATIONS.len() {
            return Err(StoreError::Corrupt(format!(
                "schema version {version} is newer than this Redline ({})",
                MIGRATIONS.len()
            )));
        }
        // Foreign keys are off while tables are rebuilt (a dropped table
        // would take its children with it), and checked before each commit.
        // (SQLite as built here turns them on by default.)
        self.conn.pragma_update(None, "foreign_keys", "OFF")?;
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(version) {
            let tx = self.conn.transaction()?;
            tx.execute_batch(sql)?;
            let broken: Option<String> = tx
                .query_row("PRAGMA foreign_key_check", [], |r| r.get(0))
                .optional()?;
            if let Some(table) = broken {
                return Err(StoreError::Corrupt(format!(
                    "migration {} left a broken reference in `{table}`",
                    i + 1
                )));
            }
            tx.pragma_update(None, "user_version", (i + 1) as i64)?;
            tx.commit()?;
        }
        Ok(())
    }

    /// The schema version in force.
    pub fn schema_version(&self) -> Result<usize, StoreError> {
        let version: i64 = self
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))?;
        Ok(version as usize)
    }

    /// Stores `bytes` in the content store and returns their `sha256:` hash.
    pub fn put_blob(&self, bytes: &[u8]) -> Result<String, StoreError> {
        put_blob(&self.conn, bytes)
    }

    /// The bytes stored under `hash`.
    pub fn blob(&self, hash: &str) -> Result<Vec<u8>, StoreError> {
        blob(&self.conn, hash)
    }

    /// Runs `f` in one transaction: all of it is stored, or none.
    pub(crate) fn transaction<T>(
        &mut self,
        f: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        // IMMEDIATE: the runtime and the workspace each hold a connection, and
        // a deferred transaction that reads before it writes cannot wait for
        // the other's write lock (SQLite fails the upgrade at once, busy
        // timeout or not); taking the lock up front makes it wait instead.
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let out = f(&tx)?;
        tx.commit()?;
        Ok(out)
    }

    /// Reserves `count` consecutive numbers of the counter `name` (hunk ids,
    /// say) and returns the first; numbers start at 1 and are never reused.
    pub fn reserve(&mut self, name: &str, count: u64) -> Result<u64, StoreError> {
        self.transaction(|tx| {
            let next: i64 = tx
                .query_row("SELECT next FROM counters WHERE name = ?1", [name], |r| r.get(0))
                .optional()?
                .unwrap_or(1);
            tx.execute(
                "INSERT INTO counters (name, next) VALUES (?1, ?2) ON CONFLICT(name) DO UPDATE SET next = ?2",
                params![name, next + count as i64],
            )?;
            Ok(next as u64)
        })
    }

    /// The number [`Store::reserve`] would give `name` next, reserving
    /// nothing (a plan's, which must name what the act will).
    pub fn peek(&self, name: &str) -> Result<u64, StoreError> {
        let next: Option<i64> = self
            .conn
            .query_row("SELECT next FROM counters WHERE name = ?1", [name], |r| r.get(0))
            .optional()?;
        Ok(next.unwrap_or(1) as u64)
    }

    /// The bytes the content store keeps under `hash` (an attachment's,
    /// which a save brings back after its deletion was undone).
    pub fn bytes(&self, hash: &str) -> Result<Vec<u8>, StoreError> {
        blob(&self.conn, hash)
    }

    /// Counts every row of the content store, for tests and figures.
    pub fn blob_count(&self) -> Result<usize, StoreError> {
        let count: i64 = self
            .conn
            .query_row("SELECT COUNT(*) FROM blobs", [], |r| r.get(0))?;
        Ok(count as usize)
    }
}

/// A blob made ready to store away from the transaction (hashed and
/// compressed on any thread), so that the transaction only runs statements.
pub(crate) struct Packed {
    hash: String,
    size: usize,
    data: Vec<u8>,
}

impl Packed {
    /// `bytes`, hashed and compressed.
    pub(crate) fn new(bytes: &[u8]) -> Packed {
        Packed {
            hash: content_hash(bytes),
            size: bytes.len(),
            data: lz4_flex::compress_prepend_size(bytes),
        }
    }
}

/// The blobs put by one transaction: a text it stores twice (a file's base
/// is its checkpoint's text, its buffer the proposal) costs one statement.
pub(crate) struct Blobs<'c> {
    conn: &'c Connection,
    put: std::collections::HashSet<String>,
}

impl<'c> Blobs<'c> {
    /// Puts blobs through `conn`.
    pub(crate) fn new(conn: &'c Connection) -> Blobs<'c> {
        Blobs {
            conn,
            put: std::collections::HashSet::new(),
        }
    }

    /// The connection the blobs go through.
    pub(crate) fn conn(&self) -> &'c Connection {
        self.conn
    }

    /// Stores `blob` (once per transaction) and returns its hash.
    pub(crate) fn put(&mut self, blob: &Packed) -> Result<String, StoreError> {
        if !self.put.contains(&blob.hash) {
            self.conn
                .prepare_cached(
                    "INSERT OR IGNORE INTO blobs (hash, size, data) VALUES (?1, ?2, ?3)",
                )?
                .execute(params![blob.hash, blob.size as i64, blob.data])?;
            self.put.insert(blob.hash.clone());
        }
        Ok(blob.hash.clone())
    }
}

fn put_blob(conn: &Connection, bytes: &[u8]) -> Result<String, StoreError> {
    let hash = content_hash(bytes);
    // Cached statements: a checkpoint of thousands of files puts thousands
    // of blobs, and parsing the SQL each time would cost more than the work.
    // A small blob is compressed and offered at once (one statement); a big
    // one is looked for first, so that text already stored is not
    // compressed again.
    if bytes.len() > SMALL_BLOB {
        let exists: bool = conn
            .prepare_cached("SELECT EXISTS(SELECT 1 FROM blobs WHERE hash = ?1)")?
            .query_row([&hash], |r| r.get(0))?;
        if exists {
            return Ok(hash);
        }
    }
    let data = lz4_flex::compress_prepend_size(bytes);
    conn.prepare_cached("INSERT OR IGNORE INTO blobs (hash, size, data) VALUES (?1, ?2, ?3)")?
        .execute(params![hash, bytes.len() as i64, data])?;
    Ok(hash)
}

/// Log pages after which a commit asks for a checkpoint (SQLite's
/// automatic checkpoint's default).
const CHECKPOINT_PAGES: std::ffi::c_int = 1000;

/// A thread that checkpoints the database at `path` (passively: readers
/// and the writer go on meanwhile) each time it is asked; it ends with the
/// returned sender.
fn checkpointer(path: &Path) -> std::sync::mpsc::SyncSender<()> {
    let (asks, asked) = std::sync::mpsc::sync_channel::<()>(1);
    let path = path.to_owned();
    std::thread::Builder::new()
        .name("redline-checkpoint".into())
        .spawn(move || {
            let Ok(conn) = Connection::open(&path) else {
                return;
            };
            for () in asked {
                if let Err(e) = conn.execute_batch("PRAGMA wal_checkpoint(PASSIVE)") {
                    tracing::debug!(error = %e, "checkpoint of the review database put off");
                }
            }
        })
        .expect("a thread starts");
    asks
}

/// Blobs up to this size are compressed before looking whether they are stored.
const SMALL_BLOB: usize = 4096;

pub(crate) fn blob(conn: &Connection, hash: &str) -> Result<Vec<u8>, StoreError> {
    let data: Vec<u8> = conn
        .query_row("SELECT data FROM blobs WHERE hash = ?1", [hash], |r| {
            r.get(0)
        })
        .optional()?
        .ok_or_else(|| StoreError::Corrupt(format!("blob {hash} is missing")))?;
    let bytes = lz4_flex::decompress_size_prepended(&data)
        .map_err(|e| StoreError::Corrupt(format!("blob {hash}: {e}")))?;
    if content_hash(&bytes) != hash {
        return Err(StoreError::Corrupt(format!(
            "blob {hash} does not match its hash"
        )));
    }
    Ok(bytes)
}

pub(crate) fn text_blob(conn: &Connection, hash: &str) -> Result<String, StoreError> {
    String::from_utf8(blob(conn, hash)?)
        .map_err(|_| StoreError::Corrupt(format!("blob {hash} is not text")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_newer_schema_is_refused_rather_than_misread() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("redline.db");
        drop(Store::open_at(&path).unwrap());
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", MIGRATIONS.len() as i64 + 1)
            .unwrap();
        drop(conn);
        let err = Store::open_at(&path).unwrap_err();
        assert!(err.to_string().contains("newer than this Redline"), "{err}");
    }

    #[test]
    fn rows_cascade_while_names_of_blobs_are_left_to_their_writers() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_at(&dir.path().join("redline.db")).unwrap();
        let on: i64 = store
            .conn
            .pragma_query_value(None, "foreign_keys", |r| r.get(0))
            .unwrap();
        assert_eq!(on, 1, "foreign keys are back on after migrating");
        // No blob of that name exists: the row is stored all the same.
        store
            .conn
            .execute(
                "INSERT INTO review_files (path, base_hash, created, buffer_hash, doc_order)
                 VALUES ('a.md', 'sha256:none', 0, 'sha256:none', '[]')",
                [],
            )
            .unwrap();
        store
            .conn
            .execute(
                "INSERT INTO entries (id, path, seq, origin, status, snap_status, old_hash, new_hash,
                                      file_hash_before, snap_at, snap_len)
                 VALUES ('u_1', 'a.md', 0, 'user', 'accepted', 'accepted', '', '', '', 0, 0)",
                [],
            )
            .unwrap();
        // An entry of a file that is not under review is refused...
        assert!(
            store
                .conn
                .execute(
                    "INSERT INTO entries (id, path, seq, origin, status, snap_status, old_hash,
                                          new_hash, file_hash_before, snap_at, snap_len)
                     VALUES ('u_2', 'b.md', 0, 'user', 'accepted', 'accepted', '', '', '', 0, 0)",
                    [],
                )
                .is_err()
        );
        // ...and a file's entries go with it.
        store
            .conn
            .execute("DELETE FROM review_files WHERE path = 'a.md'", [])
            .unwrap();
        let left: i64 = store
            .conn
            .query_row("SELECT COUNT(*) FROM entries", [], |r| r.get(0))
            .unwrap();
        assert_eq!(left, 0);
    }

    #[test]
    fn a_big_commit_is_checkpointed_by_the_store_thread_not_by_the_commit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("redline.db");
        let mut store = Store::open_at(&path).unwrap();
        let size = || std::fs::metadata(&path).unwrap().len();
        let before = size();
        // Incompressible bytes, so that the log outgrows CHECKPOINT_PAGES
        // (4 KiB pages): 64 blobs of 128 KiB.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut noise = |n: usize| -> Vec<u8> {
            (0..n)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state as u8
                })
                .collect()
        };
        let blobs: Vec<Packed> = (0..64).map(|_| Packed::new(&noise(128 << 10))).collect();
        store
            .transaction(|tx| {
                let mut put = Blobs::new(tx);
                for blob in &blobs {
                    put.put(blob)?;
                }
                Ok(())
            })
            .unwrap();
        // The commit left its pages in the log; the thread copies them
        // into the database file soon after.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while size() < before + (8 << 20) {
            assert!(
                std::time::Instant::now() < deadline,
                "the log was not checkpointed: the database file is {} bytes",
                size()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(store.blob_count().unwrap(), 64);
    }

    #[test]
    fn blobs_are_content_addressed_and_verified() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), Path::new("/some/project")).unwrap();
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len());
        let text = "hello\n".repeat(1000);
        let a = store.put_blob(text.as_bytes()).unwrap();
        let b = store.put_blob(text.as_bytes()).unwrap();
        assert_eq!(a, b);
        assert_eq!(store.blob_count().unwrap(), 1);
        assert_eq!(store.blob(&a).unwrap(), text.as_bytes());
        assert!(matches!(
            store.blob("sha256:nope"),
            Err(StoreError::Corrupt(_))
        ));
        let mut store = store;
        assert_eq!(store.reserve("hunk", 3).unwrap(), 1);
        assert_eq!(store.reserve("hunk", 1).unwrap(), 4);
        // The database lives under the data directory, keyed by the root.
        let dbs: Vec<_> = std::fs::read_dir(dir.path().join("projects"))
            .unwrap()
            .collect();
        assert_eq!(dbs.len(), 1);
        drop(store);
        let again = Store::open(dir.path(), Path::new("/some/project")).unwrap();
        assert_eq!(again.blob(&a).unwrap(), text.as_bytes());
    }
}
