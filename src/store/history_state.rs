//! The decision history in the store: a row per step, its JSON and whether
//! it is undone, so that undo and redo survive a reload and a restart
//! (see [`crate::workspace::History`]).

use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError};
use crate::workspace::{History, Step, StepKind};

impl Store {
    /// Records a new step of `kind` said as `label`, in one transaction:
    /// its id reserved, the undone steps dropped (a new step ends redo), the
    /// oldest done ones beyond [`History::LIMIT`] dropped. Returns it.
    pub fn push_step(&mut self, label: &str, kind: StepKind) -> Result<Step, StoreError> {
        self.transaction(|tx| {
            let next: i64 = tx
                .query_row("SELECT next FROM counters WHERE name = 'step'", [], |r| r.get(0))
                .optional()?
                .unwrap_or(1);
            tx.execute(
                "INSERT INTO counters (name, next) VALUES ('step', ?1)
                 ON CONFLICT(name) DO UPDATE SET next = ?1",
                [next + 1],
            )?;
            let step = Step {
                id: format!("s_{next}"),
                label: label.to_owned(),
                kind,
            };
            tx.execute("DELETE FROM history WHERE undone = 1", [])?;
            tx.execute(
                "INSERT INTO history (seq, step, undone) VALUES (?1, ?2, 0)",
                params![next, encode(&step)?],
            )?;
            tx.execute(
                "DELETE FROM history WHERE seq NOT IN
                 (SELECT seq FROM history ORDER BY seq DESC LIMIT ?1)",
                [History::LIMIT as i64],
            )?;
            Ok(step)
        })
    }

    /// Stores `step` (an existing step, as undo or redo left it) as undone
    /// or done.
    pub fn mark_step(&mut self, step: &Step, undone: bool) -> Result<(), StoreError> {
        let changed = self.conn.execute(
            "UPDATE history SET step = ?2, undone = ?3 WHERE seq = ?1",
            params![number(&step.id)?, encode(step)?, undone],
        )?;
        if changed != 1 {
            return Err(StoreError::Corrupt(format!("step {} is not stored", step.id)));
        }
        Ok(())
    }

    /// The stored history: the done steps oldest first, the undone ones
    /// with the next to redo last.
    pub fn load_history(&self) -> Result<History, StoreError> {
        let mut query = self
            .conn
            .prepare("SELECT step, undone FROM history ORDER BY seq")?;
        let rows = query.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, bool>(1)?)))?;
        let (mut done, mut undone) = (Vec::new(), Vec::new());
        for row in rows {
            let (json, is_undone) = row?;
            let step: Step = serde_json::from_str(&json)
                .map_err(|e| StoreError::Corrupt(format!("a stored step does not decode: {e}")))?;
            if is_undone { undone.push(step) } else { done.push(step) }
        }
        // Undone steps are redone oldest first: the oldest goes last.
        undone.reverse();
        Ok(History::from_parts(done, undone))
    }
}

fn encode(step: &Step) -> Result<String, StoreError> {
    serde_json::to_string(step).map_err(|e| StoreError::Corrupt(format!("a step does not encode: {e}")))
}

/// The number of the step `id` (`s_12` → 12).
fn number(id: &str) -> Result<i64, StoreError> {
    id.strip_prefix("s_")
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| StoreError::Corrupt(format!("`{id}` is not a step id")))
}
