//! The agent's tools, exactly as the agent calls them: JSON arguments in, JSON
//! results out.
//!
//! Each tool has a typed argument struct whose JSON schema is generated from
//! the Rust type; arguments are validated against that schema before they are
//! decoded, so the model gets a precise message for each problem. Every
//! failure is a [`ToolError`] with a stable `code`, returned to the model as a
//! tool result, never a crash.

pub(crate) mod links;
mod list;
mod read;
pub mod search;
pub(crate) mod strict;

use std::sync::LazyLock;

use schemars::JsonSchema;
use serde::{Serialize, de::DeserializeOwned};
use serde_json::{Value, json};

use crate::project::{PathError, View};

/// One tool: its name, what the model is told about it, and what it does.
pub trait Tool {
    /// The name the model calls it by.
    const NAME: &'static str;
    /// What the model is told it does.
    const DESCRIPTION: &'static str;
    /// Its arguments; the schema is generated from this type.
    type Args: DeserializeOwned + JsonSchema;
    /// Its result.
    type Output: Serialize;
    /// Runs it on the project as `view` shows it.
    fn run(view: &View<'_>, args: Self::Args) -> Result<Self::Output, ToolError>;
}

/// A failed tool call, as the model sees it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// No tool has this name.
    #[error("there is no tool named `{name}`; the tools are: {known}")]
    UnknownTool {
        /// The name asked for.
        name: String,
        /// The names there are.
        known: String,
    },
    /// The arguments do not fit the tool's schema.
    #[error("invalid arguments for {tool}: {}", problems.join("; "))]
    InvalidArguments {
        /// The tool called.
        tool: &'static str,
        /// Each problem, with the JSON pointer of the argument it concerns.
        problems: Vec<String>,
    },
    /// A search pattern or glob that does not compile.
    #[error("invalid pattern: {0}")]
    InvalidPattern(String),
    /// A line range outside the file.
    #[error("{0}")]
    OutOfRange(String),
    /// The path guard or the text rules refused a path.
    #[error(transparent)]
    Path(#[from] PathError),
}

impl ToolError {
    /// The stable, machine-readable error code. Path refusals use the name of
    /// the rule that refused them.
    pub fn code(&self) -> &'static str {
        match self {
            ToolError::UnknownTool { .. } => "unknown_tool",
            ToolError::InvalidArguments { .. } => "invalid_arguments",
            ToolError::InvalidPattern(_) => "invalid_pattern",
            ToolError::OutOfRange(_) => "out_of_range",
            ToolError::Path(e) => e.rule(),
        }
    }

    /// The error as the JSON tools return: `{"error": {"code", "message"}}`.
    pub fn to_json(&self) -> Value {
        json!({ "error": { "code": self.code(), "message": self.to_string() } })
    }
}

/// What a model is told about one tool.
#[derive(Clone, Debug, Serialize)]
pub struct ToolSpec {
    /// The tool's name.
    pub name: &'static str,
    /// What it does.
    pub description: &'static str,
    /// JSON schema of its arguments.
    pub input_schema: Value,
}

type Runner = fn(&View<'_>, Value) -> Result<Value, ToolError>;

struct Entry {
    spec: ToolSpec,
    validator: jsonschema::Validator,
    run: Runner,
}

/// The project tools, in the order they are offered to a model.
static TOOLS: LazyLock<Vec<Entry>> = LazyLock::new(|| {
    vec![
        entry::<search::SearchProject>(),
        entry::<read::ReadFile>(),
        entry::<list::ListFiles>(),
        entry::<links::Links>(),
    ]
});

fn entry<T: Tool>() -> Entry {
    let mut schema = schemars::schema_for!(T::Args).to_value();
    if let Value::Object(map) = &mut schema {
        // The type's name means nothing to a model; the tool's name does.
        map.remove("title");
    }
    let validator = jsonschema::validator_for(&schema).expect("generated schemas are valid");
    Entry {
        spec: ToolSpec {
            name: T::NAME,
            description: T::DESCRIPTION,
            input_schema: schema,
        },
        validator,
        run: run_typed::<T>,
    }
}

fn run_typed<T: Tool>(view: &View<'_>, args: Value) -> Result<Value, ToolError> {
    let args: T::Args = serde_json::from_value(args).map_err(|e| ToolError::InvalidArguments {
        tool: T::NAME,
        problems: vec![e.to_string()],
    })?;
    let output = T::run(view, args)?;
    Ok(serde_json::to_value(output).expect("tool outputs serialize"))
}

/// The specs of every tool, for a provider's tool list.
pub fn specs() -> Vec<ToolSpec> {
    TOOLS.iter().map(|e| e.spec.clone()).collect()
}

/// Runs the tool `name` with JSON `args` on the project as `view` shows it
/// (a `&Project` reads the disk alone), exactly as the agent would: the
/// arguments are validated against the tool's schema first, `null` members
/// counting as absent.
pub fn run<'a>(view: impl Into<View<'a>>, name: &str, args: Value) -> Result<Value, ToolError> {
    let view = view.into();
    // A strict-mode model sends `null` for every argument it leaves out.
    let args = strict::strip_nulls(args);
    let Some(entry) = TOOLS.iter().find(|e| e.spec.name == name) else {
        let known = TOOLS
            .iter()
            .map(|e| e.spec.name)
            .collect::<Vec<_>>()
            .join(", ");
        return Err(ToolError::UnknownTool {
            name: name.to_owned(),
            known,
        });
    };
    let problems: Vec<String> = entry
        .validator
        .iter_errors(&args)
        .map(|e| {
            let at = e.instance_path().to_string();
            if at.is_empty() {
                e.to_string()
            } else {
                format!("{at}: {e}")
            }
        })
        .collect();
    if !problems.is_empty() {
        return Err(ToolError::InvalidArguments {
            tool: entry.spec.name,
            problems,
        });
    }
    crate::faults::check(crate::faults::Site::Tool);
    (entry.run)(&view, args)
}

/// Paging shared by the tools that return lists: `offset` skips, `limit`
/// takes, and `next_offset` says where the next page starts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Page {
    pub offset: usize,
    pub limit: usize,
}

impl Page {
    /// The page asked for, with `limit` defaulted and capped.
    pub fn new(offset: Option<usize>, limit: Option<usize>, default: usize, cap: usize) -> Page {
        Page {
            offset: offset.unwrap_or(0),
            limit: limit.unwrap_or(default).min(cap).max(1),
        }
    }

    /// Where the next page starts, if anything is left after this one.
    pub fn next_offset(&self, total: usize) -> Option<usize> {
        let end = self.offset.saturating_add(self.limit);
        (end < total).then_some(end)
    }
}

/// A glob filter on root-relative paths, with `rg -g` semantics: a glob with
/// no `/` matches a file's name at any depth; one with a `/` matches the
/// whole path, and `*` never crosses a `/` (use `**`).
pub(crate) fn compile_glob(glob: Option<&str>) -> Result<Option<GlobFilter>, ToolError> {
    let Some(glob) = glob.filter(|g| !g.is_empty() && *g != "**/*" && *g != "**") else {
        return Ok(None);
    };
    let matcher = globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .build()
        .map_err(|e| ToolError::InvalidPattern(format!("glob `{glob}`: {e}")))?
        .compile_matcher();
    Ok(Some(GlobFilter {
        matcher,
        whole_path: glob.contains('/'),
    }))
}

/// A compiled glob; see [`compile_glob`].
pub(crate) struct GlobFilter {
    matcher: globset::GlobMatcher,
    whole_path: bool,
}

impl GlobFilter {
    /// Whether the root-relative path `rel` matches.
    pub fn is_match(&self, rel: &str) -> bool {
        if self.whole_path {
            self.matcher.is_match(rel)
        } else {
            self.matcher.is_match(rel.rsplit('/').next().unwrap_or(rel))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_a_closed_object() {
        for spec in specs() {
            assert_eq!(spec.input_schema["type"], "object", "{}", spec.name);
            assert_eq!(
                spec.input_schema["additionalProperties"], false,
                "{}",
                spec.name
            );
            assert!(spec.description.len() > 40, "{}", spec.name);
        }
    }

    #[test]
    fn globs_follow_rg_semantics() {
        let name = compile_glob(Some("*.md")).unwrap().unwrap();
        assert!(name.is_match("a/b/c.md"));
        assert!(!name.is_match("a/b/c.txt"));
        let path = compile_glob(Some("notes/*.md")).unwrap().unwrap();
        assert!(path.is_match("notes/a.md"));
        assert!(!path.is_match("notes/x/a.md"));
        let deep = compile_glob(Some("notes/**/*.md")).unwrap().unwrap();
        assert!(deep.is_match("notes/x/y/a.md"));
        assert!(compile_glob(Some("**/*")).unwrap().is_none());
        assert_eq!(
            compile_glob(Some("a[")).err().unwrap().code(),
            "invalid_pattern"
        );
    }

    #[test]
    fn pages_cap_and_continue() {
        let page = Page::new(Some(40), Some(500), 20, 50);
        assert_eq!(page.limit, 50);
        assert_eq!(page.next_offset(91), Some(90));
        assert_eq!(page.next_offset(90), None);
        assert_eq!(Page::new(None, None, 20, 50).limit, 20);
    }
}
