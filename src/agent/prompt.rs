//! The messages a job starts from: the agent's system prompt with Redline's
//! rules, the pinned context rows, the session's chat, and the instruction.

use crate::jobs::{ChatMessage, ContextRow};
use crate::providers::conversation::Message;

use super::AgentDefinition;

/// Redline's own rules, after the agent's prompt.
const RULES: &str = "\
You work inside one project folder through tools. Paths are relative to the folder.
- Find what the instruction concerns with search_project and list_files; read the parts \
you will change with read_file. Its lines are numbered `<n>\\t<text>`; use those numbers.
- Finish by calling propose_edits once with every edit. Nothing is written until the user \
reviews each change, so propose exactly what the instruction asks, no more.
- For replace and delete, set old_text to the exact current text of the target lines \
(without the numbers). For create, give the whole file as new_text.
- If the instruction is ambiguous in a way that changes the edits, ask with clarify_user \
(one question); otherwise do not ask.
- If nothing needs to change, call propose_edits with an empty list and say why in the summary.";

/// The opening messages of a job.
pub fn messages(
    agent: &AgentDefinition,
    context_rows: &[ContextRow],
    chat: &[ChatMessage],
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
        let m = messages(&AgentDefinition::builtin(), &rows, &[], "Fix it");
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
}
