//! The stagings of a run that stages as it goes: each one's document,
//! written in the transaction that stages its hunks (see
//! [`Store::add_proposal`]), so that a run resumed after a crash knows
//! exactly which notes it staged, whatever its job record missed.

use super::{Store, StoreError};

impl Store {
    /// The stagings journaled for `job_id`, oldest first: each one's
    /// checkpoint and document.
    pub fn stagings(&self, job_id: &str) -> Result<Vec<(String, String)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT checkpoint_id, doc FROM stagings WHERE job_id = ?1 ORDER BY seq")?;
        let rows = stmt.query_map([job_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Drops the stagings journaled for `job_id` (its run ended: its job
    /// record holds them all).
    pub fn forget_stagings(&self, job_id: &str) -> Result<(), StoreError> {
        self.conn
            .execute("DELETE FROM stagings WHERE job_id = ?1", [job_id])?;
        Ok(())
    }
}
