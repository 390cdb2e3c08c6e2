//! Whole-file operations of a proposal (`move` and `delete_file`), checked
//! against the project as the view shows it. A move's target must be free
//! in the working state, so a pending move elsewhere is a file in its way
//! and a pending deletion is not.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{EditError, EditErrorKind, Operation, ProposedEdit};
use crate::project::View;

/// A change to a whole file.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FileOp {
    /// The file moves to `to`, relative to the root (a rename is a move);
    /// missing folders are created.
    Move {
        /// Its new path.
        to: String,
    },
    /// The file is deleted.
    Delete,
}

impl FileOp {
    /// Where the file is once the operation is done: `None` once deleted.
    pub fn target(&self) -> Option<&str> {
        match self {
            FileOp::Move { to } => Some(to),
            FileOp::Delete => None,
        }
    }
}

/// A checked whole-file operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileOpProposal {
    /// The edit that asked for it.
    pub edit_id: String,
    /// The file, relative to the root (normalised).
    pub file_path: String,
    /// What happens to it; a move's target is normalised.
    pub op: FileOp,
    /// Its text now, as the view shows it; empty for a file that is not
    /// text.
    pub base: String,
    /// `sha256:` of the file's bytes (of `base`, for text).
    pub base_file_hash: String,
    /// The bytes of a file that is not text (an attachment): it moves or
    /// goes as a whole, with no text to review.
    pub bytes: Option<Vec<u8>>,
}

/// Checks the `move` and `delete_file` edits of `edits` against the project
/// as `view` shows it (other edits are left to [`super::prepare`]): the file
/// exists (text, or an attachment moved or deleted whole), a move's `new_path` passes the guard and nothing is
/// there, and no file has two of them. Every refused edit is reported.
pub fn prepare_file_ops<'a>(
    view: impl Into<View<'a>>,
    edits: &[ProposedEdit],
) -> Result<Vec<FileOpProposal>, Vec<EditError>> {
    let view = view.into();
    let mut errors = Vec::new();
    let mut ops: Vec<FileOpProposal> = Vec::new();
    let mut by_file: HashMap<String, String> = HashMap::new();
    let mut by_target: HashMap<String, String> = HashMap::new();
    for (k, edit) in edits.iter().enumerate() {
        let fail = |kind| EditError {
            edit_id: edit.edit_id.clone(),
            file_path: edit.file_path.clone(),
            kind,
        };
        let invalid = |text: String| fail(EditErrorKind::Invalid(text));
        if !edit.operation.is_file_op() {
            if edit.new_path.is_some() {
                errors.push(invalid("new_path is only for the move operation".into()));
            }
            continue;
        }
        if edits[..k].iter().any(|e| e.edit_id == edit.edit_id) {
            errors.push(invalid("its edit_id is used twice".into()));
            continue;
        }
        let file = match view.read_text(&edit.file_path) {
            Ok(file) => Ok((file.path, file.text, file.hash, None)),
            Err(e) if e.is_not_text() => view
                .read_bytes(&edit.file_path)
                .map(|(path, bytes, hash)| (path, String::new(), hash, Some(bytes))),
            Err(e) => Err(e),
        };
        let (path, base, base_file_hash, bytes) = match file {
            Ok(file) => file,
            Err(e) => {
                errors.push(fail(e.into()));
                continue;
            }
        };
        let path = path.rel().to_owned();
        if let Some(other) = by_file.get(&path) {
            errors.push(fail(EditErrorKind::Overlap {
                other: other.clone(),
            }));
            continue;
        }
        let op = match (edit.operation, &edit.new_path) {
            (Operation::DeleteFile, None) => FileOp::Delete,
            (Operation::DeleteFile, Some(_)) => {
                errors.push(invalid(
                    "delete_file takes no new_path; to rename, use move".into(),
                ));
                continue;
            }
            (_, None) => {
                errors.push(invalid("move needs new_path, the file's new path".into()));
                continue;
            }
            (_, Some(raw)) => match target(&view, raw, &path) {
                Ok(to) => {
                    if let Some(other) = by_target.insert(to.clone(), edit.edit_id.clone()) {
                        errors.push(invalid(format!(
                            "edit {other} moves another file to `{to}` too"
                        )));
                        continue;
                    }
                    FileOp::Move { to }
                }
                Err(kind) => {
                    errors.push(fail(kind));
                    continue;
                }
            },
        };
        by_file.insert(path.clone(), edit.edit_id.clone());
        ops.push(FileOpProposal {
            edit_id: edit.edit_id.clone(),
            file_path: path,
            op,
            base,
            base_file_hash,
            bytes,
        });
    }
    if errors.is_empty() {
        Ok(ops)
    } else {
        Err(errors)
    }
}

/// The normalised target `raw` of a move of `from`, if it is free.
fn target(view: &View<'_>, raw: &str, from: &str) -> Result<String, EditErrorKind> {
    let to = view.project().resolve(raw)?.rel().to_owned();
    if to.is_empty() {
        return Err(EditErrorKind::Invalid(
            "new_path names the project folder, not a file".into(),
        ));
    }
    if to == from {
        return Err(EditErrorKind::Invalid(
            "new_path is the file's own path; nothing would move".into(),
        ));
    }
    // A name that differs only in case is the same file where case is
    // ignored: that rename is allowed.
    let same_by_case = to.eq_ignore_ascii_case(from);
    if !same_by_case && view.exists(&to) {
        return Err(EditErrorKind::Invalid(format!(
            "a file is already at `{to}`; choose another new_path, or delete that file first"
        )));
    }
    Ok(to)
}
