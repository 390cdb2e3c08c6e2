//! An eval task as it is written (`fixtures/evals/<id>/`): `task.toml` (the
//! instruction, follow-ups, scripted answers, another program's changes
//! mid-run, the checks), `files/` (the folder it starts from) and
//! `golden.json` (the turns of a model that solves it, in the scripted
//! model's format).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::EvalError;
use crate::testkit::scripted::Turn;

/// One task.
#[derive(Clone, Debug)]
pub struct Task {
    /// Its id: the folder's name.
    pub id: String,
    /// Its folder.
    pub dir: PathBuf,
    /// What `task.toml` says.
    pub spec: TaskSpec,
}

/// `task.toml`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskSpec {
    /// The request.
    pub instruction: String,
    /// Later requests in the same session, each run after the oracle's
    /// review of the one before.
    #[serde(default)]
    pub followups: Vec<String>,
    /// Labels, for filtering and reading results.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Whether a question is expected, and the answers given.
    #[serde(default)]
    pub clarify: Clarify,
    /// Changes another program makes while the job runs.
    #[serde(default)]
    pub during: Vec<During>,
    /// What must hold on disk after the review; all of them.
    #[serde(default, rename = "check")]
    pub checks: Vec<Check>,
    /// Damaging edits the golden trace hides among good ones: the review's
    /// risk flags should mark each.
    #[serde(default, rename = "damage")]
    pub damage: Vec<Damage>,
}

/// `[[damage]]`: one damaging hunk a task's trace proposes, for measuring
/// whether the review flags it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Damage {
    /// Its file.
    pub file: String,
    /// Text the damaging hunk takes out or puts in: which hunk it is.
    pub text: String,
    /// What kind of damage, for reading results (`dropped_paragraph`, `dead_link`, …).
    pub kind: String,
}

/// `[clarify]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clarify {
    /// The task needs a question; a question in a task without is counted
    /// as unnecessary.
    #[serde(default)]
    pub expect: bool,
    /// Answers, in order; once they run out, questions are skipped.
    #[serde(default)]
    pub answers: Vec<String>,
}

/// `[[during]]`: another program changes a file once the first job's
/// model has had `after_tool_calls` tool results back (`propose_edits`'s and
/// `clarify_user`'s included), before its next step; a change due after more
/// calls than the job made lands when the job ends, before the review.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct During {
    /// Tool results the model has had back before the change.
    pub after_tool_calls: usize,
    /// The file.
    pub file: String,
    /// The first occurrence of `[0]` becomes `[1]`.
    #[serde(default)]
    pub replace: Option<(String, String)>,
    /// Text appended.
    #[serde(default)]
    pub append: Option<String>,
}

/// `[[check]]`: conditions on one file after the review.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// The file, relative to the task's folder.
    pub file: String,
    /// Substrings it must contain, byte exact.
    #[serde(default)]
    pub contains: Vec<String>,
    /// Substrings it must not contain.
    #[serde(default)]
    pub not_contains: Vec<String>,
    /// A regex it must match (Rust syntax).
    #[serde(default)]
    pub matches: Option<String>,
    /// A file under the task's folder it must equal byte for byte.
    #[serde(default)]
    pub equals: Option<String>,
    /// It must be byte-identical to the start.
    #[serde(default)]
    pub unchanged: bool,
    /// Whether it must exist (default: it must, unless `false`).
    #[serde(default)]
    pub exists: Option<bool>,
}

impl Task {
    /// Reads the task in `dir`.
    pub fn load(dir: &Path) -> Result<Task, EvalError> {
        let id = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(dir.join("task.toml"))
            .map_err(|e| EvalError::Task(id.clone(), format!("task.toml: {e}")))?;
        let spec: TaskSpec = toml::from_str(&text)
            .map_err(|e| EvalError::Task(id.clone(), format!("task.toml: {e}")))?;
        if spec.instruction.trim().is_empty() {
            return Err(EvalError::Task(id, "the instruction is empty".into()));
        }
        if !dir.join("files").is_dir() {
            return Err(EvalError::Task(id, "it has no files/ folder".into()));
        }
        Ok(Task {
            id,
            dir: dir.to_path_buf(),
            spec,
        })
    }

    /// The folder it starts from.
    pub fn files(&self) -> PathBuf {
        self.dir.join("files")
    }

    /// Its golden trace.
    pub fn golden(&self) -> Result<Vec<Turn>, EvalError> {
        let text = std::fs::read_to_string(self.dir.join("golden.json"))
            .map_err(|e| EvalError::Task(self.id.clone(), format!("golden.json: {e}")))?;
        serde_json::from_str(&text)
            .map_err(|e| EvalError::Task(self.id.clone(), format!("golden.json: {e}")))
    }

    /// Whether nothing should change: the task is tagged `no-change`, and
    /// its checks hold on the untouched folder.
    pub fn expects_no_change(&self) -> bool {
        self.spec.tags.iter().any(|t| t == "no-change")
    }
}

/// Every task under `dir` (its subfolders holding a `task.toml`), by id,
/// those whose id matches `filter` (a glob) when given.
pub fn load_all(dir: &Path, filter: Option<&str>) -> Result<Vec<Task>, EvalError> {
    let matcher = filter
        .map(|f| {
            globset::Glob::new(f)
                .map(|g| g.compile_matcher())
                .map_err(|e| EvalError::Usage(format!("--filter `{f}`: {e}")))
        })
        .transpose()?;
    let entries = std::fs::read_dir(dir).map_err(|e| {
        EvalError::Usage(format!(
            "cannot read the tasks folder `{}`: {e}",
            dir.display()
        ))
    })?;
    let mut tasks = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if !path.join("task.toml").is_file() {
            continue;
        }
        let task = Task::load(&path)?;
        if matcher.as_ref().is_none_or(|m| m.is_match(&task.id)) {
            tasks.push(task);
        }
    }
    tasks.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(tasks)
}
