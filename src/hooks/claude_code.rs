//! Claude Code's PreToolUse hook: the call it sends on standard input and
//! the answer it reads back on standard output. The tools that write a
//! note are `Edit` (`old_string` → `new_string`, or every occurrence with
//! `replace_all`), `MultiEdit` (a list of those, in order; older versions)
//! and `Write` (the whole file, written as given). Gemini CLI's BeforeTool
//! hook gets the same input, its `replace` and `write_file` made as
//! [`gemini`](super::gemini) says.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Value, json};

use super::replace::{self, Replacement};
use super::{HookError, gemini};

/// What Claude Code sends a PreToolUse hook (Codex sends the same shape,
/// its `apply_patch` with the patch as `tool_input.command`; Gemini CLI
/// too, its event named `BeforeTool`).
#[derive(Clone, Debug, Deserialize)]
pub struct HookInput {
    /// Claude Code's session.
    pub session_id: String,
    /// The folder it runs in.
    pub cwd: PathBuf,
    /// `PreToolUse` (`BeforeTool` from Gemini CLI).
    pub hook_event_name: String,
    /// The tool it is about to call.
    pub tool_name: String,
    /// The call's arguments.
    pub tool_input: Value,
}

/// A call that writes one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Write {
    /// `Edit` or `MultiEdit`: replacements made in order.
    Edit {
        /// The file (absolute).
        path: PathBuf,
        /// The replacements.
        edits: Vec<Replacement>,
        /// Whether the call was a `MultiEdit` (its arguments are a list).
        multi: bool,
    },
    /// `Write`: the whole file.
    Whole {
        /// The file (absolute).
        path: PathBuf,
        /// Its new text.
        content: String,
    },
    /// Gemini CLI's `replace`: one replacement.
    Replace {
        /// The file (absolute).
        path: PathBuf,
        /// The replacement (`all`: `allow_multiple`).
        edit: Replacement,
        /// The call's arguments, which a rewrite keeps but for the text.
        args: Value,
    },
    /// Gemini CLI's `write_file`: the whole file.
    WriteFile {
        /// The file (absolute).
        path: PathBuf,
        /// Its new text, as the model gave it.
        content: String,
        /// The call's arguments.
        args: Value,
    },
}

#[derive(Deserialize)]
struct EditArgs {
    file_path: PathBuf,
    #[serde(flatten)]
    edit: OneEdit,
}

#[derive(Deserialize)]
struct MultiEditArgs {
    file_path: PathBuf,
    edits: Vec<OneEdit>,
}

#[derive(Deserialize)]
struct OneEdit {
    old_string: String,
    new_string: String,
    #[serde(default)]
    replace_all: bool,
}

impl From<OneEdit> for Replacement {
    fn from(e: OneEdit) -> Replacement {
        Replacement {
            old: e.old_string,
            new: e.new_string,
            all: e.replace_all,
        }
    }
}

#[derive(Deserialize)]
struct WriteArgs {
    file_path: PathBuf,
    content: String,
}

#[derive(Deserialize)]
struct ReplaceArgs {
    file_path: PathBuf,
    old_string: String,
    new_string: String,
    #[serde(default)]
    allow_multiple: bool,
}

impl HookInput {
    /// Reads the hook's input.
    pub fn parse(json: &str) -> Result<HookInput, HookError> {
        serde_json::from_str(json).map_err(|e| HookError::Input(e.to_string()))
    }

    /// The write the call asks for; `None` for a call that writes no file
    /// (a read, a search, a shell command) or an event other than
    /// PreToolUse (Gemini CLI's BeforeTool).
    pub fn write(&self) -> Result<Option<Write>, HookError> {
        let args = |what| HookError::Input(format!("{} arguments: {what}", self.tool_name));
        let input = self.tool_input.clone();
        if self.hook_event_name == gemini::EVENT {
            let write = match self.tool_name.as_str() {
                "replace" => {
                    let a: ReplaceArgs =
                        serde_json::from_value(input).map_err(|e| args(e.to_string()))?;
                    Write::Replace {
                        path: self.absolute(a.file_path),
                        edit: Replacement {
                            old: a.old_string,
                            new: a.new_string,
                            all: a.allow_multiple,
                        },
                        args: self.tool_input.clone(),
                    }
                }
                "write_file" => {
                    let a: WriteArgs =
                        serde_json::from_value(input).map_err(|e| args(e.to_string()))?;
                    Write::WriteFile {
                        path: self.absolute(a.file_path),
                        content: a.content,
                        args: self.tool_input.clone(),
                    }
                }
                _ => return Ok(None),
            };
            return Ok(Some(write));
        }
        if self.hook_event_name != "PreToolUse" {
            return Ok(None);
        }
        let write = match self.tool_name.as_str() {
            "Edit" => {
                let a: EditArgs = serde_json::from_value(input).map_err(|e| args(e.to_string()))?;
                Write::Edit {
                    path: self.absolute(a.file_path),
                    edits: vec![a.edit.into()],
                    multi: false,
                }
            }
            "MultiEdit" => {
                let a: MultiEditArgs =
                    serde_json::from_value(input).map_err(|e| args(e.to_string()))?;
                Write::Edit {
                    path: self.absolute(a.file_path),
                    edits: a.edits.into_iter().map(Replacement::from).collect(),
                    multi: true,
                }
            }
            "Write" => {
                let a: WriteArgs =
                    serde_json::from_value(input).map_err(|e| args(e.to_string()))?;
                Write::Whole {
                    path: self.absolute(a.file_path),
                    content: a.content,
                }
            }
            _ => return Ok(None),
        };
        Ok(Some(write))
    }

    /// The agent that sent it, as the user knows it: Codex for its
    /// `apply_patch`, Gemini CLI for a BeforeTool event, Claude Code for
    /// the rest.
    pub fn agent(&self) -> &'static str {
        if self.tool_name == "apply_patch" {
            "Codex"
        } else if self.hook_event_name == gemini::EVENT {
            "Gemini CLI"
        } else {
            "Claude Code"
        }
    }

    /// `path` (as a tool call names it) against the agent's folder.
    pub fn absolute(&self, path: PathBuf) -> PathBuf {
        if path.is_absolute() {
            path
        } else {
            self.cwd.join(path)
        }
    }
}

impl Write {
    /// The file it writes.
    pub fn path(&self) -> &Path {
        match self {
            Write::Edit { path, .. }
            | Write::Whole { path, .. }
            | Write::Replace { path, .. }
            | Write::WriteFile { path, .. } => path,
        }
    }

    /// The tool's name.
    pub fn tool(&self) -> &'static str {
        match self {
            Write::Edit { multi: false, .. } => "Edit",
            Write::Edit { multi: true, .. } => "MultiEdit",
            Write::Whole { .. } => "Write",
            Write::Replace { .. } => "replace",
            Write::WriteFile { .. } => "write_file",
        }
    }

    /// The file's text after the call, from `disk` (`None`: no file yet).
    pub fn after(&self, disk: Option<&str>) -> Result<String, HookError> {
        match self {
            Write::Edit { edits, .. } => replace::apply(disk.unwrap_or_default(), edits),
            Write::Whole { content, .. } => Ok(content.clone()),
            Write::Replace { edit, .. } => gemini::replaced(disk, edit),
            Write::WriteFile { content, .. } => Ok(gemini::written(disk, content)),
        }
    }

    /// The call's arguments rewritten so that it leaves `decided` where
    /// the file holds `disk` now (`None`: no file yet). Gemini's are kept
    /// as the model gave them when they already leave it.
    pub fn rewritten(&self, disk: Option<&str>, decided: &str) -> Value {
        let file_path = self.path().to_string_lossy();
        match self {
            Write::Replace { args, .. } | Write::WriteFile { args, .. } => {
                if self.after(disk).is_ok_and(|after| after == decided) {
                    args.clone()
                } else {
                    gemini::rewritten(self.tool(), args, disk, decided)
                }
            }
            Write::Whole { .. } => json!({ "file_path": file_path, "content": decided }),
            Write::Edit { multi, .. } => {
                let text = disk.unwrap_or_default();
                let one = replace::replacement(text, decided).unwrap_or_else(|| Replacement {
                    // Nothing in the file names a place: it is empty or new.
                    old: String::new(),
                    new: decided.to_owned(),
                    all: false,
                });
                if *multi {
                    json!({ "file_path": file_path, "edits": [
                        { "old_string": one.old, "new_string": one.new, "replace_all": false }
                    ] })
                } else {
                    json!({ "file_path": file_path, "old_string": one.old,
                            "new_string": one.new, "replace_all": false })
                }
            }
        }
    }
}

/// Lets the call through, with `input` in place of its arguments when
/// given; `context` is told to the model beside the call's result.
pub fn allow(input: Option<Value>, reason: &str, context: Option<&str>) -> Value {
    let mut out = json!({
        "hookEventName": "PreToolUse",
        "permissionDecision": "allow",
        "permissionDecisionReason": reason,
    });
    if let Some(input) = input {
        out["updatedInput"] = input;
    }
    if let Some(context) = context {
        out["additionalContext"] = json!(context);
    }
    json!({ "hookSpecificOutput": out })
}

/// Refuses the call; the model reads `reason`.
pub fn deny(reason: &str) -> Value {
    json!({ "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": reason,
    } })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(tool: &str, args: Value) -> HookInput {
        HookInput::parse(
            &json!({
                "session_id": "a0890ae0-e568-4806-869e-4ff7238bbf9d",
                "transcript_path": "/home/u/.claude/projects/x.jsonl",
                "cwd": "/notes",
                "permission_mode": "default",
                "hook_event_name": "PreToolUse",
                "tool_name": tool,
                "tool_input": args,
                "tool_use_id": "toolu_1",
            })
            .to_string(),
        )
        .unwrap()
    }

    #[test]
    fn edits_and_writes_are_writes_and_the_rest_passes() {
        let edit = input(
            "Edit",
            json!({ "file_path": "/notes/a.md", "old_string": "draft",
                                          "new_string": "final", "replace_all": false }),
        );
        let write = edit.write().unwrap().unwrap();
        assert_eq!(
            (write.path(), write.tool()),
            (Path::new("/notes/a.md"), "Edit")
        );
        assert_eq!(
            write.after(Some("Status: draft\n")).unwrap(),
            "Status: final\n"
        );
        let whole = input("Write", json!({ "file_path": "n.md", "content": "# N\n" }));
        let whole = whole.write().unwrap().unwrap();
        assert_eq!(whole.path(), Path::new("/notes/n.md"), "relative to cwd");
        assert_eq!(whole.after(None).unwrap(), "# N\n");
        for other in ["Read", "Bash", "Grep", "Glob"] {
            assert_eq!(
                input(other, json!({ "file_path": "/notes/a.md" }))
                    .write()
                    .unwrap(),
                None
            );
        }
        let broken = input("Edit", json!({ "file_path": "/notes/a.md" }));
        assert!(matches!(broken.write(), Err(HookError::Input(_))));
    }

    #[test]
    fn a_multi_edit_is_made_in_order_and_rewritten_as_one() {
        let call = input(
            "MultiEdit",
            json!({ "file_path": "/notes/a.md", "edits": [
            { "old_string": "one", "new_string": "1" },
            { "old_string": "three", "new_string": "3" },
        ] }),
        );
        let write = call.write().unwrap().unwrap();
        let disk = "one\ntwo\nthree\n";
        assert_eq!(write.after(Some(disk)).unwrap(), "1\ntwo\n3\n");
        // Only the second replacement kept.
        let args = write.rewritten(Some(disk), "one\ntwo\n3\n");
        assert_eq!(args["edits"][0]["old_string"], "three\n");
        assert_eq!(args["edits"][0]["new_string"], "3\n");
    }

    #[test]
    fn rewritten_arguments_leave_the_decided_text() {
        let call = input(
            "Edit",
            json!({ "file_path": "/notes/a.md", "old_string": "draft",
                                          "new_string": "final" }),
        );
        let write = call.write().unwrap().unwrap();
        let disk = "# A\r\n\r\nStatus: draft\r\n";
        let decided = "# A\r\n\r\nStatus: final (edited)\r\n";
        let args = write.rewritten(Some(disk), decided);
        let again = input("Edit", args).write().unwrap().unwrap();
        assert_eq!(again.after(Some(disk)).unwrap(), decided);
        // A Write gets the whole decided text; a new file's edit too.
        let whole = input(
            "Write",
            json!({ "file_path": "/notes/n.md", "content": "x" }),
        );
        let args = whole.write().unwrap().unwrap().rewritten(None, "y\n");
        assert_eq!(args["content"], "y\n");
        let args = write.rewritten(None, "new\n");
        assert_eq!(
            (args["old_string"].as_str(), args["new_string"].as_str()),
            (Some(""), Some("new\n"))
        );
    }

    #[test]
    fn answers_are_in_claude_codes_format() {
        let no = deny("the user rejected it");
        assert_eq!(no["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(
            no["hookSpecificOutput"]["permissionDecisionReason"],
            "the user rejected it"
        );
        let yes = allow(Some(json!({ "content": "x" })), "reviewed", Some("changed"));
        assert_eq!(yes["hookSpecificOutput"]["permissionDecision"], "allow");
        assert_eq!(yes["hookSpecificOutput"]["updatedInput"]["content"], "x");
        assert_eq!(yes["hookSpecificOutput"]["additionalContext"], "changed");
    }
}
