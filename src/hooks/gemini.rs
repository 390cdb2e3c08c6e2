//! Gemini CLI's BeforeTool hook: the same round trip as Claude Code's, in
//! Gemini's words. It writes with `replace` (`old_string` → `new_string`,
//! every occurrence with `allow_multiple`) and `write_file` (the whole
//! file); a hook refuses with `{"decision": "deny", "reason"}` (the model
//! reads "Tool execution blocked: <reason>") and rewrites the call with
//! `hookSpecificOutput.tool_input`, merged over the model's arguments.
//!
//! Both tools read a file with any `\r\n` in it as LF throughout and write it
//! back CRLF throughout; `replace` also keeps the file's final newline as
//! it was, whatever the replacement says. [`replaced`] and [`written`] make
//! the call as Gemini does; [`rewritten`] names the decided text so that
//! Gemini writes exactly it, and marks the arguments `modified_by_user`,
//! which Gemini tells the model ("The confirmation step modified the
//! `new_string` content to be: …").

use serde_json::{Value, json};

use super::replace::{self, Replacement};
use super::{HookError, excerpt};

/// The tools whose calls the hook is asked about.
pub const MATCHER: &str = "write_file|replace";

/// The event Gemini CLI fires before a tool call.
pub const EVENT: &str = "BeforeTool";

/// `text` as Gemini reads it: LF throughout when it holds any `\r\n`.
fn as_read(text: &str) -> (String, bool) {
    let crlf = text.contains("\r\n");
    (
        if crlf {
            text.replace("\r\n", "\n")
        } else {
            text.to_owned()
        },
        crlf,
    )
}

/// `text` (LF) as Gemini writes it into a file read with `crlf`.
fn as_written(text: &str, crlf: bool) -> String {
    if crlf {
        text.replace("\r\n", "\n").replace('\n', "\r\n")
    } else {
        text.to_owned()
    }
}

/// The file after `replace` makes `edit` on `disk` (`None`: no file yet),
/// as Gemini makes it when `old_string` is there exactly: once, or every
/// time with `allow_multiple`. Gemini would go on to guess at an
/// `old_string` that is not there exactly (ignoring indentation, then
/// asking a model to correct it), and write what it guessed unreviewed;
/// [`HookError::NotFound`] and [`HookError::NotUnique`] say it is not.
pub fn replaced(disk: Option<&str>, edit: &Replacement) -> Result<String, HookError> {
    let (old, new) = (
        edit.old.replace("\r\n", "\n"),
        edit.new.replace("\r\n", "\n"),
    );
    let Some(disk) = disk else {
        // An empty `old_string` creates the file; any other fails in Gemini.
        return if old.is_empty() {
            Ok(new)
        } else {
            Err(HookError::NotFound(excerpt(&old)))
        };
    };
    if old.is_empty() {
        return Err(HookError::NotFound(String::new()));
    }
    let (text, crlf) = as_read(disk);
    let after = match text.matches(old.as_str()).count() {
        0 => return Err(HookError::NotFound(excerpt(&old))),
        n if n > 1 && !edit.all => return Err(HookError::NotUnique(excerpt(&old), n)),
        _ => text.replace(old.as_str(), &new),
    };
    // The final newline stays as the file had it.
    let after = match (text.ends_with('\n'), after.ends_with('\n')) {
        (true, false) => after + "\n",
        (false, true) => after[..after.len() - 1].to_owned(),
        _ => after,
    };
    Ok(as_written(&after, crlf))
}

/// The file after `write_file` writes `content` over `disk` (`None`: no
/// file yet): CRLF throughout where the file had any.
pub fn written(disk: Option<&str>, content: &str) -> String {
    let crlf = disk.is_some_and(|d| d.contains("\r\n"));
    as_written(content, crlf)
}

/// `args`, a `replace` or `write_file` call over `disk`, rewritten to
/// leave `decided`; `args` as they are when they already do.
pub fn rewritten(tool: &str, args: &Value, disk: Option<&str>, decided: &str) -> Value {
    let mut args = args.clone();
    let proposed;
    if tool == "write_file" {
        proposed = args["content"].clone();
        args["content"] = json!(decided);
    } else {
        let text = disk.map(|d| as_read(d).0).unwrap_or_default();
        let decided = as_read(decided).0;
        let one = replace::replacement(&text, &decided).unwrap_or_else(|| Replacement {
            // Nothing in the file names a place: the file is new.
            old: String::new(),
            new: decided.clone(),
            all: false,
        });
        proposed = args["new_string"].clone();
        args["old_string"] = json!(one.old);
        args["new_string"] = json!(one.new);
        args["allow_multiple"] = json!(false);
    }
    args["modified_by_user"] = json!(true);
    args["ai_proposed_content"] = proposed;
    args
}

/// Lets the call through, with `input` in place of its arguments when
/// given; `message` is shown to the user (Gemini tells a BeforeTool
/// hook's words to nobody else).
pub fn allow(input: Option<Value>, message: &str) -> Value {
    let mut out = json!({ "decision": "allow", "systemMessage": message });
    if let Some(input) = input {
        out["hookSpecificOutput"] = json!({ "hookEventName": EVENT, "tool_input": input });
    }
    out
}

/// Refuses the call; the model reads `reason`.
pub fn deny(reason: &str) -> Value {
    json!({ "decision": "deny", "reason": reason })
}

/// What Gemini's `replace` says of a call it cannot make, in its words,
/// and that Redline reviews only an `old_string` found exactly.
pub fn not_made(error: &HookError, file_path: &str) -> String {
    let why = match error {
        HookError::NotUnique(_, n) => format!(
            "Failed to edit, Expected 1 occurrence but found {n} for old_string in file: \
             {file_path}. If you intended to replace multiple occurrences, set 'allow_multiple' \
             to true."
        ),
        _ => format!("Could not find an exact match for 'old_string' in '{file_path}'."),
    };
    format!(
        "{why} Redline reviews each edit before it is written, and only an old_string found \
         exactly as the file holds it: use ReadFile to inspect the target lines before retrying \
         with an exact 'old_string'."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(old: &str, new: &str, all: bool) -> Replacement {
        Replacement {
            old: old.into(),
            new: new.into(),
            all,
        }
    }

    #[test]
    fn replace_is_made_as_gemini_makes_it() {
        let disk = "# A\n\nStatus: draft\n";
        let after = replaced(Some(disk), &edit("draft", "final", false)).unwrap();
        assert_eq!(after, "# A\n\nStatus: final\n");
        // Every occurrence with allow_multiple; otherwise more than one fails.
        let twice = "a x\nb x\n";
        assert_eq!(
            replaced(Some(twice), &edit("x", "y", true)).unwrap(),
            "a y\nb y\n"
        );
        assert!(matches!(
            replaced(Some(twice), &edit("x", "y", false)),
            Err(HookError::NotUnique(_, 2))
        ));
        // Not there exactly (Gemini would guess): not made.
        assert!(matches!(
            replaced(Some(disk), &edit("  Status: draft", "x", false)),
            Err(HookError::NotFound(_))
        ));
        // A new file from an empty old_string; none over an existing one.
        assert_eq!(replaced(None, &edit("", "# N\n", false)).unwrap(), "# N\n");
        assert!(replaced(None, &edit("x", "y", false)).is_err());
        assert!(replaced(Some(disk), &edit("", "y", false)).is_err());
    }

    #[test]
    fn crlf_and_the_final_newline_stay_as_the_file_had_them() {
        let crlf = "# C\r\n\r\nOwner: Ann\r\n";
        let after = replaced(
            Some(crlf),
            &edit("Owner: Ann\n", "Owner: Bo\nSince: 2026", false),
        );
        assert_eq!(after.unwrap(), "# C\r\n\r\nOwner: Bo\r\nSince: 2026\r\n");
        // A file with one CRLF is written CRLF throughout.
        let mixed = "a\r\nb\nc\n";
        assert_eq!(
            replaced(Some(mixed), &edit("c", "d", false)).unwrap(),
            "a\r\nb\r\nd\r\n"
        );
        let bare = "no newline";
        assert_eq!(
            replaced(Some(bare), &edit("newline", "newline\n", false)).unwrap(),
            "no newline"
        );
        assert_eq!(written(Some(crlf), "x\ny\n"), "x\r\ny\r\n");
        assert_eq!(written(None, "x\ny"), "x\ny");
    }

    #[test]
    fn rewritten_calls_leave_the_decided_text() {
        let args = json!({ "file_path": "/n/c.md", "instruction": "rename the owner",
                           "old_string": "Ann", "new_string": "Bo" });
        let disk = "# C\r\n\r\nOwner: Ann\r\nEnd\r\n";
        let decided = "# C\r\n\r\nOwner: Bo and Cy\r\nEnd\r\n";
        let again = rewritten("replace", &args, Some(disk), decided);
        let edit = edit(
            again["old_string"].as_str().unwrap(),
            again["new_string"].as_str().unwrap(),
            again["allow_multiple"].as_bool().unwrap(),
        );
        assert_eq!(replaced(Some(disk), &edit).unwrap(), decided);
        assert_eq!(again["instruction"], "rename the owner", "the rest kept");
        assert_eq!(
            (&again["modified_by_user"], &again["ai_proposed_content"]),
            (&json!(true), &json!("Bo"))
        );
        let write = json!({ "file_path": "/n/n.md", "content": "# N\n" });
        let again = rewritten("write_file", &write, None, "# N, renamed\n");
        assert_eq!(again["content"], "# N, renamed\n");
        assert_eq!(again["ai_proposed_content"], "# N\n");
    }

    #[test]
    fn answers_are_in_geminis_format() {
        assert_eq!(
            deny("the user rejected it"),
            json!({ "decision": "deny", "reason": "the user rejected it" })
        );
        let yes = allow(Some(json!({ "content": "x" })), "reviewed");
        assert_eq!(yes["decision"], "allow");
        assert_eq!(yes["hookSpecificOutput"]["tool_input"]["content"], "x");
        assert_eq!(allow(None, "reviewed").get("hookSpecificOutput"), None);
        let said = not_made(&HookError::NotUnique("x".into(), 3), "a.md");
        assert!(
            said.contains("found 3") && said.contains("allow_multiple"),
            "{said}"
        );
    }
}
