//! Terminal agents reviewed before they write (`redline hook`): Claude
//! Code and Codex ask a PreToolUse hook before each tool call, Gemini CLI a
//! BeforeTool hook; for the calls that
//! write a note, the hook turns the write into the text it would leave,
//! hands it to the Redline that has the folder open, waits for the user's
//! decisions, and answers the agent: the write let through rewritten to the
//! decided text, or refused with the user's reason. Reads, searches and
//! shell commands pass untouched. docs/agents.md says how to set it up.
//!
//! Its parts: [`replace`] (an agent's string replacements, done and undone
//! as the agent does them), [`patch`] (Codex's `apply_patch`, read, applied
//! and rewritten), [`claude_code`] (the hook's input and answer, which
//! Codex shares), [`gemini`] (Gemini CLI's tools and answer),
//! [`review`] (the round trip with the running Redline) and [`install`]
//! (the agent's hook settings for a folder).

pub mod claude_code;
pub mod gemini;
pub mod install;
pub mod patch;
pub mod replace;
pub mod review;

/// Why a hook could not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    /// The agent's input is not what its hook format says.
    #[error("the hook's input is not valid: {0}")]
    Input(String),
    /// A replacement's `old_string` is not in the file.
    #[error("`{0}` is not in the file")]
    NotFound(String),
    /// A replacement's `old_string` is in the file more than once, and the
    /// call does not ask to replace every occurrence.
    #[error("`{0}` is in the file {1} times")]
    NotUnique(String, usize),
    /// The running Redline could not be reached, or did not answer.
    #[error("Redline did not answer: {0}")]
    Redline(String),
    /// The running Redline refused the request.
    #[error("{message}")]
    Refused {
        /// The API's error code (`conflict`, `invalid_request`, …).
        code: String,
        /// Why, for a person.
        message: String,
    },
    /// A settings file could not be read or written.
    #[error("{path}: {message}")]
    Settings {
        /// The file.
        path: std::path::PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// The first line of `text`, cut to 60 characters, for messages.
fn excerpt(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    match line.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None if line.len() < text.trim_end().len() => format!("{line}…"),
        None => line.to_owned(),
    }
}
