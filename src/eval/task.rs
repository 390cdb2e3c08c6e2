//! An eval task as it is written (`fixtures/evals/<id>/`): `task.toml` (the
//! instruction, follow-ups, scripted answers, another program's changes
//! mid-run, the checks, notes generated on top of its folder), `files/`
//! (the folder it starts from) and `golden.json` (the turns of a model that
//! solves it, in the scripted model's format).

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
    /// Notes generated into the folder after `files/` is copied: a vault
    /// of thousands of notes without thousands of files in the repository.
    #[serde(default)]
    pub generate: Vec<Generate>,
    /// Notes no proposal may change during the task (the configuration's
    /// `[protected]`).
    #[serde(default)]
    pub protected: Option<crate::config::Protected>,
}

/// The note in other scripts laid into every task's folder: front matter,
/// heading and prose in Japanese, Arabic, Hebrew, Bengali and accented
/// Latin, with words no task's instruction names.
pub const COMPANION: (&str, &str) = (
    "Multilingue/会議メモ.md",
    "---\ntitle: 会議メモ — “Réunion” du 3\u{a0}mars\naliases: [اجتماع, ישיבה]\ntags: [日本語, বাংলা]\n---\n\
     # 会議メモ\n\n議題：予算と日程。اجتماع الفريق. סיכום הישיבה. সভার সারাংশ. Café crème 🚀.\n",
);

/// `[[generate]]`: `count` notes made from one template. In `path` and
/// `text`, `{n}` is the note's number from 0, zero-padded to the width of
/// the last; `{i}` the same unpadded; `{day}` (01–28), `{month}` (01–12)
/// and `{year}` (2020–2026) vary with it; `{pick:a|b|c}` takes the
/// alternatives in turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Generate {
    /// How many notes.
    pub count: usize,
    /// Each note's path from the folder's root.
    pub path: String,
    /// Each note's text.
    pub text: String,
}

impl Generate {
    /// Writes the notes under `root`.
    pub fn write(&self, root: &Path) -> std::io::Result<()> {
        let width = self.count.saturating_sub(1).to_string().len();
        for i in 0..self.count {
            let path = root.join(fill(&self.path, i, width));
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(path, fill(&self.text, i, width))?;
        }
        Ok(())
    }
}

/// `template` with the placeholders of [`Generate`] filled for note `i`.
fn fill(template: &str, i: usize, width: usize) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let name = &after[..close];
        match name {
            "n" => out.push_str(&format!("{i:0width$}")),
            "i" => out.push_str(&i.to_string()),
            "day" => out.push_str(&format!("{:02}", i % 28 + 1)),
            "month" => out.push_str(&format!("{:02}", i % 12 + 1)),
            "year" => out.push_str(&(2020 + i % 7).to_string()),
            _ => match name.strip_prefix("pick:") {
                Some(list) => {
                    let choices: Vec<&str> = list.split('|').collect();
                    out.push_str(choices[i % choices.len()]);
                }
                // Not a placeholder (YAML's `{}`, a regex's `{2}`): as written.
                None => out.push_str(&rest[open..open + close + 2]),
            },
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
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

/// `[[check]]`: conditions on one file after the review, or on every file
/// a glob matches.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// The file, relative to the task's folder.
    #[serde(default)]
    pub file: String,
    /// Instead of `file`: every file, at the start or at the end, whose
    /// path matches (`Meetings/*.md`; `*` stays within a folder).
    #[serde(default)]
    pub glob: Option<PathGlob>,
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

impl Check {
    /// Whether it is about the file at `path`.
    pub fn names(&self, path: &str) -> bool {
        match &self.glob {
            Some(glob) => glob.0.is_match(path),
            None => self.file == path,
        }
    }
}

/// A glob over paths from the task's folder, compiled as it is read.
#[derive(Clone, Debug)]
pub struct PathGlob(globset::GlobMatcher);

impl PartialEq for PathGlob {
    fn eq(&self, other: &PathGlob) -> bool {
        self.0.glob() == other.0.glob()
    }
}

impl Serialize for PathGlob {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.glob().glob())
    }
}

impl<'de> Deserialize<'de> for PathGlob {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<PathGlob, D::Error> {
        let text = String::deserialize(d)?;
        globset::GlobBuilder::new(&text)
            .literal_separator(true)
            .build()
            .map(|g| PathGlob(g.compile_matcher()))
            .map_err(serde::de::Error::custom)
    }
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
        if let Some(c) = spec
            .checks
            .iter()
            .find(|c| c.file.is_empty() == c.glob.is_none())
        {
            return Err(EvalError::Task(
                id,
                format!("a check names one of `file` and `glob`: {c:?}"),
            ));
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

    /// The folder it starts from, without its generated notes.
    pub fn files(&self) -> PathBuf {
        self.dir.join("files")
    }

    /// Makes the folder it starts from at `root`: `files/` copied, then the
    /// generated notes, then [`COMPANION`]: every vault holds a note in
    /// other scripts, as real vaults do.
    pub fn lay_out(&self, root: &Path) -> std::io::Result<()> {
        copy_dir(&self.files(), root)?;
        for generate in &self.spec.generate {
            generate.write(root)?;
        }
        let (path, text) = COMPANION;
        std::fs::create_dir_all(root.join(path).parent().expect("a folder"))?;
        std::fs::write(root.join(path), text)
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

/// Copies the folder `from` into `to`, recursively.
fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_fill_per_note_and_the_rest_stays_as_written() {
        let text =
            "# Meeting {n}\ndate: {month}/{day}/{year}\ntype: {pick:a|b|c}\n{ \"x\": 1 } \\d{2}\n";
        assert_eq!(
            fill(text, 7, 3),
            "# Meeting 007\ndate: 08/08/2020\ntype: b\n{ \"x\": 1 } \\d{2}\n"
        );
        assert_eq!(fill("{i} {n}", 42, 4), "42 0042");
    }
}
