//! Whole-file operations as hunks: a move or a deletion is reviewed as one
//! hunk of its file, with a patch `git apply` accepts (a rename, or the
//! deletion of every line).

use serde::{Deserialize, Serialize};

use super::patch;
use super::triage::RiskFlag;
use crate::edits::{FileOp, FileOpProposal};

/// A whole-file operation of a proposal (a move or a deletion), reviewed
/// as one hunk of its file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct FileOpHunk {
    /// Stable id, numbered with the proposal's other hunks.
    pub hunk_id: String,
    /// The file, relative to the project root, where it was.
    pub file_path: String,
    /// What happens to it.
    pub op: FileOp,
    /// `sha256:` of the file when the proposal was made.
    pub base_file_hash: String,
    /// The review decision: `null` while pending.
    pub accepted: Option<bool>,
    /// The edit it came from.
    pub edit_ids: Vec<String>,
    /// A patch `git apply` accepts: a rename, or a deletion of every line
    /// (of a binary file, git's `Binary files … differ`).
    pub patch: String,
    /// Whether the file is not text (an attachment): it has no lines to
    /// show, and the editor cannot open it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[ts(as = "Option<bool>", optional)]
    pub binary: bool,
    /// The hunks of other files that follow it: the links the engine
    /// rewrote because the note moved. Rejecting it rejects them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<_>", optional)]
    pub followers: Vec<String>,
    /// Links left alone because several notes answer to them, one of them
    /// this one (`file:line`), to be checked by hand.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<_>", optional)]
    pub ambiguous_links: Vec<String>,
    /// Why it deserves a look (a deleted note others link to).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<_>", optional)]
    pub flags: Vec<RiskFlag>,
}

/// The hunks of `ops`, numbered `h_<first>` on, in order.
pub fn file_op_hunks(ops: &[FileOpProposal], first: u64) -> Vec<FileOpHunk> {
    ops.iter()
        .enumerate()
        .map(|(i, op)| FileOpHunk {
            hunk_id: format!("h_{}", first + i as u64),
            file_path: op.file_path.clone(),
            op: op.op.clone(),
            base_file_hash: op.base_file_hash.clone(),
            accepted: None,
            edit_ids: vec![op.edit_id.clone()],
            patch: op_patch(&op.file_path, &op.op, &op.base, op.bytes.is_some()),
            binary: op.bytes.is_some(),
            followers: Vec::new(),
            ambiguous_links: Vec::new(),
            flags: Vec::new(),
        })
        .collect()
}

/// The git patch of `op` on the file `path` holding `text` (or bytes that
/// are not text: `binary`).
fn op_patch(path: &str, op: &FileOp, text: &str, binary: bool) -> String {
    match op {
        FileOp::Move { to } => format!(
            "diff --git a/{path} b/{to}\nsimilarity index 100%\nrename from {path}\nrename to {to}\n"
        ),
        FileOp::Delete => {
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            let mut out = format!("diff --git a/{path} b/{path}\ndeleted file mode 100644\n");
            if binary {
                out.push_str(&format!("Binary files a/{path} and /dev/null differ\n"));
                return out;
            }
            if lines.is_empty() {
                return out;
            }
            let body = patch::render(path, false, &lines, 0, lines.len(), &[], 0);
            // The new side of a deleted file is /dev/null.
            let body = body.replacen(&format!("+++ b/{path}"), "+++ /dev/null", 1);
            out.push_str(&body);
            out
        }
    }
}
