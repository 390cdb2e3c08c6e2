//! The agent's hook settings for a folder: Claude Code reads project
//! settings from `.claude/settings.json` in the folder it runs in, Codex
//! its project hooks from `.codex/hooks.json` (in the same shape), Gemini
//! CLI from `.gemini/settings.json` (the same shape, its event named
//! `BeforeTool` and its timeout in milliseconds); the hook is one entry of
//! the event's list, for the tools that write. Installing again replaces
//! Redline's entry and keeps everything else.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{HookError, gemini};

/// The tools whose calls the hook is asked about.
pub const MATCHER: &str = "Edit|MultiEdit|Write";

/// Codex's tool that writes files.
pub const CODEX_MATCHER: &str = "apply_patch";

/// What [`claude_code`] or [`codex`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Installed {
    /// The settings file.
    pub path: PathBuf,
    /// The command Claude Code runs before each write.
    pub command: String,
    /// The settings file as written.
    pub text: String,
}

/// Writes Redline's PreToolUse hook into `folder`'s Claude Code project
/// settings: `command` run before each Edit, MultiEdit and Write, given
/// `timeout_secs` (Claude Code's own limit on the hook) to answer.
pub fn claude_code(
    folder: &Path,
    command: &str,
    timeout_secs: u64,
) -> Result<Installed, HookError> {
    let path = folder.join(".claude").join("settings.json");
    write_hook(path, "PreToolUse", MATCHER, command, timeout_secs)
}

/// Writes Redline's PreToolUse hook into `folder`'s Codex project hooks:
/// `command` run before each `apply_patch`, given `timeout_secs` to answer.
/// Codex runs a project's hooks once the project and the hooks are trusted.
pub fn codex(folder: &Path, command: &str, timeout_secs: u64) -> Result<Installed, HookError> {
    let path = folder.join(".codex").join("hooks.json");
    write_hook(path, "PreToolUse", CODEX_MATCHER, command, timeout_secs)
}

/// Writes Redline's BeforeTool hook into `folder`'s Gemini CLI project
/// settings: `command` run before each `write_file` and `replace`, given
/// `timeout_secs` to answer. Gemini reads a folder's settings once the
/// folder is trusted.
pub fn gemini(folder: &Path, command: &str, timeout_secs: u64) -> Result<Installed, HookError> {
    let path = folder.join(".gemini").join("settings.json");
    let millis = timeout_secs.saturating_mul(1000);
    write_hook(path, gemini::EVENT, gemini::MATCHER, command, millis)
}

/// Merges Redline's `matcher` entry into the `event` list of the hooks
/// file at `path`; `timeout` is in the agent's unit.
fn write_hook(
    path: PathBuf,
    event: &str,
    matcher: &str,
    command: &str,
    timeout: u64,
) -> Result<Installed, HookError> {
    let fail = |message: String| HookError::Settings {
        path: path.clone(),
        message,
    };
    let mut settings: Value = match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|e| fail(format!("not valid JSON ({e}); fix or move it first")))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => json!({}),
        Err(e) => return Err(fail(e.to_string())),
    };
    let list = settings
        .as_object_mut()
        .ok_or_else(|| fail("not a JSON object".into()))?
        .entry("hooks")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| fail("`hooks` is not an object".into()))?
        .entry(event)
        .or_insert_with(|| json!([]))
        .as_array_mut()
        .ok_or_else(|| fail(format!("`hooks.{event}` is not a list")))?;
    list.retain(|entry| !is_redlines(entry));
    list.push(json!({
        "matcher": matcher,
        "hooks": [{ "type": "command", "command": command, "timeout": timeout }],
    }));
    let text = serde_json::to_string_pretty(&settings).expect("JSON") + "\n";
    std::fs::create_dir_all(path.parent().expect("a folder")).map_err(|e| fail(e.to_string()))?;
    std::fs::write(&path, &text).map_err(|e| fail(e.to_string()))?;
    Ok(Installed {
        path,
        command: command.to_owned(),
        text,
    })
}

/// Whether a `PreToolUse` entry is one Redline installed.
fn is_redlines(entry: &Value) -> bool {
    entry["hooks"].as_array().is_some_and(|hooks| {
        hooks.iter().any(|h| {
            h["command"]
                .as_str()
                .is_some_and(|c| c.contains("redline") && c.contains(" hook"))
        })
    })
}

/// `arg` quoted for the shell Claude Code runs a hook's command in.
pub fn quoted(arg: &str) -> String {
    if !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-=:,+@".contains(c))
    {
        arg.to_owned()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn installing_keeps_other_settings_and_replaces_its_own_entry() {
        let dir = tempfile::tempdir().unwrap();
        let settings = dir.path().join(".claude/settings.json");
        std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
        std::fs::write(
            &settings,
            r#"{"model": "opus", "hooks": {"PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint"}]}
            ]}}"#,
        )
        .unwrap();
        claude_code(dir.path(), "/bin/redline hook --folder /n", 1860).unwrap();
        let again =
            claude_code(dir.path(), "/bin/redline hook --folder /n --wait 60", 120).unwrap();
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
        assert_eq!(written["model"], "opus");
        let list = written["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(
            list.len(),
            2,
            "the other hook kept, Redline's once: {list:?}"
        );
        assert_eq!(list[0]["matcher"], "Bash");
        assert_eq!(list[1]["matcher"], MATCHER);
        assert_eq!(list[1]["hooks"][0]["command"], again.command);
        assert_eq!(list[1]["hooks"][0]["timeout"], 120);
    }

    #[test]
    fn codex_and_gemini_get_their_own_files_for_their_tools() {
        let dir = tempfile::tempdir().unwrap();
        let installed = codex(dir.path(), "/bin/redline hook --folder /n", 1860).unwrap();
        assert_eq!(installed.path, dir.path().join(".codex/hooks.json"));
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&installed.path).unwrap()).unwrap();
        let entry = &written["hooks"]["PreToolUse"][0];
        assert_eq!(entry["matcher"], "apply_patch");
        assert_eq!(entry["hooks"][0]["type"], "command");
        assert_eq!(
            entry["hooks"][0]["command"],
            "/bin/redline hook --folder /n"
        );
        let installed = gemini(dir.path(), "/bin/redline hook --folder /n", 1860).unwrap();
        assert_eq!(installed.path, dir.path().join(".gemini/settings.json"));
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&installed.path).unwrap()).unwrap();
        let entry = &written["hooks"]["BeforeTool"][0];
        assert_eq!(entry["matcher"], "write_file|replace");
        assert_eq!(entry["hooks"][0]["timeout"], 1_860_000, "milliseconds");
    }

    #[test]
    fn broken_settings_are_left_alone_and_said_so() {
        let dir = tempfile::tempdir().unwrap();
        let settings = dir.path().join(".claude/settings.json");
        std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
        std::fs::write(&settings, "{ not json").unwrap();
        let err = claude_code(dir.path(), "redline hook", 60).unwrap_err();
        assert!(err.to_string().contains("not valid JSON"), "{err}");
        assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{ not json");
    }

    #[test]
    fn arguments_are_quoted_for_the_shell() {
        assert_eq!(quoted("/usr/bin/redline"), "/usr/bin/redline");
        assert_eq!(quoted("/My Notes"), "'/My Notes'");
        assert_eq!(quoted("it's"), r"'it'\''s'");
    }
}
