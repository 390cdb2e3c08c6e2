//! The messages a job starts from: the agent's system prompt with Redline's
//! rules, the pinned context rows, the session's chat, and the instruction.

use serde::{Deserialize, Serialize};

use super::AgentDefinition;
use crate::providers::conversation::Message;

/// A block of context the user pinned for the agent (a run's `context_rows`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ContextRow {
    /// Its id, e.g. `ctx_1`.
    pub id: String,
    /// `selection`, `file` or `note`.
    pub kind: String,
    /// The file it comes from, if any.
    #[serde(default)]
    pub file_path: Option<String>,
    /// Its first line in that file.
    #[serde(default)]
    pub start_line: Option<usize>,
    /// Its last line in that file.
    #[serde(default)]
    pub end_line: Option<usize>,
    /// The text.
    #[serde(default)]
    pub content: String,
    /// Whether it stays in the session for later runs. Default true.
    #[serde(default = "yes")]
    pub pinned: bool,
}

fn yes() -> bool {
    true
}

/// One line of a session's chat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ChatMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// What was said.
    pub content: String,
    /// The job it belongs to.
    #[serde(default)]
    pub job_id: Option<String>,
    /// When.
    pub ts: String,
}

/// Redline's own rules, after the agent's prompt.
const RULES: &str = "\
You work inside one project folder through tools. Paths are relative to the folder.
- Find what the instruction concerns with search_project and list_files; read the parts \
you will change with read_file. Its lines are numbered `<n>\\t<text>`; use those numbers.
- Finish by calling propose_edits once with every edit. Nothing is written until the user \
reviews each change, so propose exactly what the instruction asks, no more.
- For replace and delete, set old_text to the exact current text of the target lines \
(without the numbers). For create, give the whole file as new_text.
- To rename or move a file, use move with new_path; every link to it is rewritten by \
Redline, so do not edit those links yourself. To delete a whole file, use delete_file.
- For the same change across many notes (rename a term or a tag everywhere, set a property \
across a folder, reformat dates by regex), do not read and edit each note: state it once in \
propose_edits' operations (replace_text, set_property, rename_tag, retarget_links, ...), with dry_run first \
to see what it would change. When each of many notes needs its own judgement (a summary \
under each title, a property set from what the note says), call edit_each_note with the \
instruction for one note and the scope: each note gets one small call of its own. Use line \
edits for changes to a few notes.
- If the instruction is ambiguous in a way that changes the edits, ask with clarify_user \
(one question); otherwise do not ask.
- If nothing needs to change, call propose_edits with an empty list and say why in the summary.";

/// What became of one hunk an earlier job of the session proposed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReviewNote {
    /// Its file.
    pub path: String,
    /// Its first line now (1-based).
    pub line: usize,
    /// Its id.
    pub hunk_id: String,
    /// What the user did with it.
    pub fate: Fate,
}

/// What the user did with a proposed hunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Accepted as proposed.
    Accepted,
    /// Rejected: the change was not made; the lines are still `old`.
    Rejected {
        /// The lines as they stayed.
        old: String,
        /// Why, in the user's words, when they said.
        reason: Option<String>,
    },
    /// Changed by the user: the lines now read `now`.
    Edited {
        /// The lines now.
        now: String,
    },
    /// Rolled back: not made.
    RolledBack,
}

/// Most notes a prompt carries; the rest are counted.
const MAX_NOTES: usize = 30;
/// Longest text quoted from a note's lines; longer ones are not quoted.
const MAX_QUOTE: usize = 160;

/// The user's decisions on earlier proposals, as the model is told them,
/// or `None` when there is nothing new. A rejected or rolled-back change is
/// said not to have been made.
fn review_summary(notes: &[ReviewNote]) -> Option<String> {
    if notes.is_empty() {
        return None;
    }
    let quote = |text: &str| {
        let text = text.trim_end_matches(['\n', '\r']);
        if text.chars().count() <= MAX_QUOTE {
            format!("{text:?}")
        } else {
            "(too long to quote; read the file)".to_owned()
        }
    };
    let mut out = String::from(
        "What the user did with your earlier proposals in this session since you last saw \
         them (the files as you read them now already show it):\n",
    );
    for note in notes.iter().take(MAX_NOTES) {
        let what = match &note.fate {
            Fate::Accepted => "accepted.".to_owned(),
            Fate::Rejected { old, reason } => format!(
                "rejected — this change was NOT made; the lines are still {}.{}",
                quote(old),
                reason
                    .as_deref()
                    .map(|r| format!(" The user's reason: {}.", quote(r)))
                    .unwrap_or_default()
            ),
            Fate::Edited { now } => {
                format!("changed by the user; the lines now read {}.", quote(now))
            }
            Fate::RolledBack => "rolled back — this change was NOT made.".to_owned(),
        };
        out.push_str(&format!(
            "- {} line {} ({}): {what}\n",
            note.path, note.line, note.hunk_id
        ));
    }
    if notes.len() > MAX_NOTES {
        out.push_str(&format!("- …and {} more.\n", notes.len() - MAX_NOTES));
    }
    out.push_str("Do not propose a rejected change again unless the user asks for it.");
    Some(out)
}

/// The opening messages of a job: the system prompt, the session's chat,
/// the pinned context, what the user did with earlier proposals (`notes`),
/// and the instruction.
pub fn opening_messages(
    agent: &AgentDefinition,
    context_rows: &[ContextRow],
    chat: &[ChatMessage],
    notes: &[ReviewNote],
    instruction: &str,
) -> Vec<Message> {
    let mut system = agent.system_prompt.trim().to_owned();
    if !system.is_empty() {
        system.push_str("\n\n");
    }
    system.push_str(RULES);
    let mut messages = vec![Message::System { content: system }];
    for m in chat {
        messages.push(match m.role.as_str() {
            "assistant" => Message::Assistant {
                content: m.content.clone(),
                tool_calls: Vec::new(),
            },
            _ => Message::User {
                content: m.content.clone(),
            },
        });
    }
    if !context_rows.is_empty() {
        let mut text = String::from("Context the user pinned for this request:\n");
        for row in context_rows {
            let place = match (&row.file_path, row.start_line, row.end_line) {
                (Some(f), Some(a), Some(b)) => format!("{f}, lines {a}-{b}"),
                (Some(f), _, _) => f.clone(),
                _ => row.kind.clone(),
            };
            text.push_str(&format!(
                "\n[{}] {place}\n```\n{}\n```\n",
                row.id, row.content
            ));
        }
        messages.push(Message::User { content: text });
    }
    if let Some(summary) = review_summary(notes) {
        messages.push(Message::User { content: summary });
    }
    messages.push(Message::User {
        content: instruction.to_owned(),
    });
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_comes_before_the_instruction() {
        let rows = [ContextRow {
            id: "ctx_1".into(),
            kind: "selection".into(),
            file_path: Some("a.md".into()),
            start_line: Some(2),
            end_line: Some(3),
            content: "two\nthree".into(),
            pinned: true,
        }];
        let m = opening_messages(&AgentDefinition::builtin(), &rows, &[], &[], "Fix it");
        assert_eq!(m.len(), 3);
        let Message::User { content } = &m[1] else {
            panic!()
        };
        assert!(content.contains("[ctx_1] a.md, lines 2-3\n```\ntwo\nthree\n```"));
        assert_eq!(
            m[2],
            Message::User {
                content: "Fix it".into()
            }
        );
    }

    #[test]
    fn the_summary_never_says_a_rejected_change_happened() {
        let note = |hunk: &str, fate| ReviewNote {
            path: "a.md".into(),
            line: 3,
            hunk_id: hunk.into(),
            fate,
        };
        let notes = [
            note("h_1", Fate::Accepted),
            note(
                "h_2",
                Fate::Rejected {
                    old: "Atlas\n".into(),
                    reason: Some("keep the old name in this note".into()),
                },
            ),
            note(
                "h_3",
                Fate::Edited {
                    now: "Meridian (was Atlas)\n".into(),
                },
            ),
            note("h_4", Fate::RolledBack),
        ];
        let m = opening_messages(&AgentDefinition::builtin(), &[], &[], &notes, "Next");
        let Message::User { content } = &m[1] else {
            panic!()
        };
        assert!(content.contains("a.md line 3 (h_1): accepted."));
        assert!(content.contains(
            "(h_2): rejected — this change was NOT made; the lines are still \"Atlas\". \
             The user's reason: \"keep the old name in this note\"."
        ));
        assert!(
            content.contains(
                "(h_3): changed by the user; the lines now read \"Meridian (was Atlas)\"."
            )
        );
        assert!(content.contains("(h_4): rolled back — this change was NOT made."));
        assert_eq!(review_summary(&[]), None);
        let many: Vec<_> = (0..45)
            .map(|i| note(&format!("h_{i}"), Fate::Accepted))
            .collect();
        let text = review_summary(&many).unwrap();
        assert_eq!(text.matches("accepted.").count(), MAX_NOTES);
        assert!(text.contains("…and 15 more."));
    }
}
