//! The user's own vault-wide changes (find and replace across the vault,
//! a property or a tag renamed from the window) go the agent's way: a job
//! of their own in a session named `operations`, whose one step is a
//! `propose_edits` call with the operations, reviewed like any proposal.

use serde_json::json;

use super::Runtime;
use crate::expand::{self, Report, VaultOp};
use crate::jobs::Job;
use crate::jobs::error::RuntimeError;
use crate::project::View;

/// A preview: the edits, a report an operation, and the notes outside
/// their scope whose links follow (with how many).
pub type Previewed = (usize, Vec<Report>, Vec<(String, usize)>);

/// The session of the user's operations.
pub(super) const OPERATIONS: &str = "operations";

impl Runtime {
    /// What `ops` would change, staging nothing: the number of edits, a
    /// report for each (see [`expand::expand`]), and the notes outside
    /// their scope whose links would follow what they change (a heading
    /// renamed), with how many links each.
    pub fn preview_operations(&self, ops: &[VaultOp]) -> Result<Previewed, RuntimeError> {
        self.read_workspace(|ws| {
            let overlay = ws.overlay();
            let view = View::with(ws.project(), &overlay);
            let expansion = expand::expand(&view, ops, ws.protection())
                .map_err(|e| RuntimeError::Invalid(e.to_string()))?;
            let follow = ws.links_that_follow(&expansion.edits)?;
            Ok((expansion.edits.len(), expansion.reports, follow))
        })
    }

    /// Stages `ops` as the user's job, named `instruction`: returns it once
    /// it awaits review. Operations that change nothing, or are invalid,
    /// are an `invalid` error saying why, with nothing staged.
    pub async fn propose_operations(
        &self,
        instruction: &str,
        ops: &[VaultOp],
    ) -> Result<Job, RuntimeError> {
        let args = json!({ "edits": [], "operations": ops, "summary": instruction });
        self.propose_as_user(OPERATIONS, instruction, args, "change")
            .await
    }
}
