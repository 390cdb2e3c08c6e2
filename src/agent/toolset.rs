//! The tools a job offers its model: the project tools, `clarify_user`, and
//! `propose_edits`, the final structured output. Every schema is generated
//! from a Rust type and sent in the strict subset; calls are validated
//! against the original schema.

use std::sync::LazyLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::AgentDefinition;
use super::fan_out::{EDIT_EACH_NOTE, EditEachNoteArgs};
use crate::edits::{Operation, ProposedEdit};
use crate::expand::VaultOp;
use crate::providers::conversation::ToolSpec;
use crate::tools::{self, strict};

/// The name of the final tool.
pub const PROPOSE_EDITS: &str = "propose_edits";
/// The name of the question tool.
pub const CLARIFY_USER: &str = "clarify_user";

/// What the model sends to finish: every edit it proposes, at once.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeEditsArgs {
    /// All the edits, across all files. Empty if nothing needs to change.
    pub edits: Vec<ModelEdit>,
    /// Changes across many notes, stated once: the engine finds every
    /// occurrence and stages the edits itself. `replace_text` (a text or a
    /// regex replaced in prose, never in code, URLs, link targets, tags or
    /// front matter unless `include` names them), `set_property`,
    /// `rename_property`, `remove_property`, `add_to_list`,
    /// `remove_from_list` (front matter, other lines kept), `rename_tag`
    /// (nested tags and the `tags` property too), `retarget_links` (every
    /// link to one note pointed at another), `convert_links` (wikilinks or
    /// Markdown links); each over a `scope`.
    #[serde(default)]
    pub operations: Option<Vec<VaultOp>>,
    /// Only report what `operations` would change (counts, samples, what
    /// they leave alone and why), staging nothing; then call again without it.
    #[serde(default)]
    pub dry_run: Option<bool>,
    /// One or two sentences for the user: what was changed and why.
    #[serde(default)]
    pub summary: Option<String>,
}

/// One edit as the model writes it (the engine adds ids and hashes).
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelEdit {
    /// The file, relative to the project root, as the tools name it.
    pub file_path: String,
    /// `replace`, `insert` (before `start_line`), `delete` (lines), `create` (a new file),
    /// `move` (the whole file to `new_path`: a rename; every link to it is updated by
    /// itself), or `delete_file` (the whole file).
    pub operation: Operation,
    /// First target line, 1-based, as `read_file` numbers lines.
    #[serde(default)]
    pub start_line: Option<usize>,
    /// Last target line, inclusive. Defaults to `start_line`.
    #[serde(default)]
    pub end_line: Option<usize>,
    /// The new text of those lines (the whole file for `create`).
    #[serde(default)]
    #[schemars(extend("x-content" = true))]
    pub new_text: Option<String>,
    /// The exact current text of the target lines, to find them if the numbers are off.
    #[serde(default)]
    #[schemars(extend("x-content" = true))]
    pub old_text: Option<String>,
    /// Why, in a sentence.
    #[serde(default)]
    pub rationale: Option<String>,
    /// For `move`: the file's new path, relative to the project root.
    #[serde(default)]
    pub new_path: Option<String>,
}

impl ModelEdit {
    /// The engine's edit, numbered `e_<n>`.
    pub fn into_edit(self, n: usize) -> ProposedEdit {
        ProposedEdit {
            edit_id: format!("e_{n}"),
            file_path: self.file_path,
            operation: self.operation,
            start_line: self.start_line.unwrap_or(1).max(1),
            end_line: self.end_line,
            new_text: self.new_text.unwrap_or_default(),
            old_text: self.old_text,
            expected_hash: None,
            rationale: self.rationale.unwrap_or_default(),
            new_path: self.new_path,
        }
    }
}

/// What one note's call of a run over many notes sends: the edits of that
/// note only (no operations, no other file), so its schema, sent with
/// every note, stays small.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoteEditsArgs {
    /// The edits of this note. Empty if it needs none.
    pub edits: Vec<ModelEdit>,
}

/// What the model sends to ask the person something.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClarifyArgs {
    /// One question, answerable in a line.
    pub question: String,
    /// Up to a few likely answers to offer; the person may write their own.
    #[serde(default)]
    pub suggested_answers: Option<Vec<String>>,
}

struct Entry {
    spec: ToolSpec,
    /// The schema as generated, optional fields optional.
    plain: Value,
    validator: jsonschema::Validator,
}

fn entry<T: JsonSchema>(name: &str, description: &str) -> Entry {
    let mut schema = schemars::schema_for!(T).to_value();
    if let Value::Object(map) = &mut schema {
        map.remove("title");
    }
    Entry {
        validator: jsonschema::validator_for(&schema).expect("generated schemas are valid"),
        spec: ToolSpec {
            name: name.to_owned(),
            description: description.to_owned(),
            parameters: strict::strict(&schema),
            bounded: strict::bounded(&schema),
        },
        plain: schema,
    }
}

static AGENT_TOOLS: LazyLock<Vec<Entry>> = LazyLock::new(|| {
    vec![
        entry::<ClarifyArgs>(
            CLARIFY_USER,
            "Ask the user one question when the instruction is ambiguous and guessing could \
             produce the wrong edits. The job waits for the answer; `no_user_answer` means the \
             user skipped it: then use your best judgement.",
        ),
        entry::<ProposeEditsArgs>(
            PROPOSE_EDITS,
            "Finish: propose every edit at once. Line numbers are those read_file shows; give \
             old_text (the exact current lines) for replace and delete so the edit can be found \
             if the file moved. For a change across many notes (rename a term everywhere, \
             reformat dates by regex), state it once in `operations` instead of one edit per \
             line: the engine finds and edits every occurrence; `dry_run` shows what it would \
             change first. Refused edits come back with the reason; fix and call again.",
        ),
        entry::<EditEachNoteArgs>(
            EDIT_EACH_NOTE,
            "Finish by running an instruction over many notes when each needs judgement of its \
             own (add a summary under each meeting note's title, set `type:` from what a note is \
             about): every note in `scope` gets one small model call that sees only that note \
             and may edit only it, and the edits are staged for review as they come back. Use \
             propose_edits' operations instead for a change stated once (a rename, a property \
             set everywhere), and line edits for a few notes. The user may be asked to confirm \
             the projected cost first.",
        ),
    ]
});

/// `propose_edits` as one note's call of a run over many notes has it.
static NOTE_TOOL: LazyLock<Entry> = LazyLock::new(|| {
    entry::<NoteEditsArgs>(
        PROPOSE_EDITS,
        "Propose the edits this note needs, every one of this note, at once; an empty list if \
         it needs none. Line numbers are those shown; give old_text (the exact current lines) \
         for replace and delete.",
    )
});

/// The tool one note's call offers (see [`NoteEditsArgs`]).
pub fn note_spec() -> ToolSpec {
    NOTE_TOOL.spec.clone()
}

/// Decodes one note's answer (see [`NoteEditsArgs`]), validated against
/// its schema, nulls meaning absent.
pub fn decode_note(args: Value) -> Result<NoteEditsArgs, String> {
    validated(&NOTE_TOOL, args)
}

/// Every tool in the order offered, schemas already in the strict subset
/// (built once: the loop asks for the tool set on every step and call).
static ALL_SPECS: LazyLock<Vec<ToolSpec>> = LazyLock::new(|| {
    tools::specs()
        .into_iter()
        .map(|t| ToolSpec {
            name: t.name.to_owned(),
            description: t.description.to_owned(),
            parameters: strict::strict(&t.input_schema),
            bounded: strict::bounded(&t.input_schema),
        })
        .chain(AGENT_TOOLS.iter().map(|e| e.spec.clone()))
        .collect()
});

/// The tools offered to an agent, in a stable order, filtered by its
/// definition.
pub fn specs(agent: &AgentDefinition) -> Vec<ToolSpec> {
    ALL_SPECS
        .iter()
        .filter(|t| agent.allows(&t.name))
        .cloned()
        .collect()
}

/// Every tool with its schema as generated (optional fields optional, not
/// the strict subset the model providers need): what an external agent is
/// offered over MCP, whose clients take any JSON schema. A run over many
/// notes asks a model of Redline's own, which an external agent's job has
/// not: it is left out (see [`every_spec`]).
pub fn plain_specs() -> Vec<ToolSpec> {
    every_spec()
        .into_iter()
        .filter(|s| s.name != EDIT_EACH_NOTE)
        .collect()
}

/// Every tool a job's model may be offered, schemas as generated: what
/// `redline tools` lists.
pub fn every_spec() -> Vec<ToolSpec> {
    tools::specs()
        .into_iter()
        .map(|t| ToolSpec {
            name: t.name.to_owned(),
            description: t.description.to_owned(),
            parameters: t.input_schema,
            bounded: Value::Null,
        })
        .chain(AGENT_TOOLS.iter().map(|e| ToolSpec {
            parameters: e.plain.clone(),
            bounded: Value::Null,
            ..e.spec.clone()
        }))
        .collect()
}

/// The one spec named `name`, if the agent has it.
pub fn spec(agent: &AgentDefinition, name: &str) -> Option<ToolSpec> {
    specs(agent).into_iter().find(|t| t.name == name)
}

/// Decodes the arguments of an agent tool (`clarify_user`,
/// `propose_edits`), validated against its schema, nulls meaning absent.
pub fn decode<T: serde::de::DeserializeOwned>(name: &str, args: Value) -> Result<T, String> {
    let entry = AGENT_TOOLS
        .iter()
        .find(|e| e.spec.name == name)
        .expect("an agent tool");
    validated(entry, args)
}

/// `args` checked against `entry`'s schema and decoded.
fn validated<T: serde::de::DeserializeOwned>(entry: &Entry, args: Value) -> Result<T, String> {
    let args = strict::strip_nulls(args);
    let problems: Vec<String> = entry
        .validator
        .iter_errors(&args)
        .map(|e| match e.instance_path().to_string() {
            at if at.is_empty() => e.to_string(),
            at => format!("{at}: {e}"),
        })
        .collect();
    if !problems.is_empty() {
        return Err(problems.join("; "));
    }
    serde_json::from_value(args).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_offered_schema_is_in_the_strict_subset() {
        let specs = specs(&AgentDefinition::builtin());
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "search_project",
                "read_file",
                "list_files",
                "links",
                "clarify_user",
                "propose_edits",
                "edit_each_note"
            ]
        );
        for spec in &specs {
            assert_eq!(
                strict::violations(&spec.parameters),
                Vec::<String>::new(),
                "{}",
                spec.name
            );
        }
    }

    #[test]
    fn a_strict_mode_call_decodes() {
        let args = serde_json::json!({
            "edits": [{ "file_path": "a.md", "operation": "replace", "start_line": 2, "end_line": null,
                        "new_text": "x", "old_text": null, "rationale": null }],
            "summary": null,
        });
        let parsed: ProposeEditsArgs = decode(PROPOSE_EDITS, args).unwrap();
        let edit = parsed.edits.into_iter().next().unwrap().into_edit(1);
        assert_eq!(
            (edit.edit_id.as_str(), edit.start_line, edit.end_line),
            ("e_1", 2, None)
        );
        let err = decode::<ProposeEditsArgs>(
            PROPOSE_EDITS,
            serde_json::json!({ "edits": [{ "file_path": 3 }] }),
        )
        .unwrap_err();
        assert!(err.contains("/edits/0"), "{err}");
    }
}
