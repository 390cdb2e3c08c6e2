//! The checks of a task, on a folder or on one file's text, and the bytes
//! changed where no check allows a change.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Mutex, OnceLock};

use grep_matcher::Matcher;
use similar::{ChangeTag, TextDiff};

use super::task::{Check, Task};

/// A folder's files: path (relative, `/`-separated) → bytes, hidden ones
/// included (the agent must leave them alone too).
pub type Snapshot = BTreeMap<String, Vec<u8>>;

/// Reads every file under `root`.
pub fn snapshot(root: &Path) -> Snapshot {
    fn walk(root: &Path, dir: &Path, out: &mut Snapshot) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, out);
            } else if let Ok(bytes) = std::fs::read(&path) {
                let rel = path.strip_prefix(root).unwrap_or(&path);
                let rel: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.insert(rel.join("/"), bytes);
            }
        }
    }
    let mut out = Snapshot::new();
    walk(root, root, &mut out);
    out
}

/// Each condition of `check` that does not hold for the file at `file`
/// whose bytes are `now` (`None`: no file) and were `start` at the start,
/// said as a reason; empty when the check holds.
pub fn failing(
    task: &Task,
    check: &Check,
    file: &str,
    start: Option<&[u8]>,
    now: Option<&[u8]>,
) -> Vec<String> {
    let wants_file = check.exists.unwrap_or(true);
    let Some(now) = now else {
        return if wants_file {
            vec![format!("{file}: missing")]
        } else {
            Vec::new()
        };
    };
    if !wants_file {
        return vec![format!("{file}: exists, and must not")];
    }
    let text = String::from_utf8_lossy(now);
    let mut out = Vec::new();
    for needle in check.contains.iter().filter(|n| !text.contains(n.as_str())) {
        out.push(format!("{file}: does not contain {needle:?}"));
    }
    for needle in check
        .not_contains
        .iter()
        .filter(|n| text.contains(n.as_str()))
    {
        out.push(format!("{file}: contains {needle:?}"));
    }
    if let Some(pattern) = &check.matches {
        match compiled(pattern).map(|re| re.is_match(now)) {
            Ok(Ok(true)) => {}
            Ok(_) => out.push(format!("{file}: does not match /{pattern}/")),
            Err(e) => out.push(format!("{file}: bad pattern /{pattern}/: {e}")),
        }
    }
    if let Some(expected) = &check.equals {
        match std::fs::read(task.dir.join(expected)) {
            Ok(bytes) if bytes != now => out.push(format!("{file}: differs from {expected}")),
            Err(e) => out.push(format!("{file}: cannot read {expected}: {e}")),
            Ok(_) => {}
        }
    }
    if check.unchanged && start != Some(now) {
        out.push(format!("{file}: changed, and must not"));
    }
    out
}

/// `pattern` compiled once: the oracle checks it against every hunk of a
/// 5,000-note job.
fn compiled(pattern: &str) -> Result<grep_regex::RegexMatcher, grep_regex::Error> {
    static CACHE: OnceLock<Mutex<HashMap<String, grep_regex::RegexMatcher>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Mutex::default);
    if let Some(re) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(pattern) {
        return Ok(re.clone());
    }
    let re = grep_regex::RegexMatcherBuilder::new()
        .multi_line(true)
        .build(pattern)?;
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(pattern.to_owned(), re.clone());
    Ok(re)
}

/// Every check's failure on the folder `now`, which started as `start`;
/// files no check names must be as they started. A check with a glob is
/// checked on every file it matches at the start or at the end; one that
/// matches none fails.
pub fn failures(task: &Task, start: &Snapshot, now: &Snapshot) -> Vec<String> {
    let mut out = Vec::new();
    for check in &task.spec.checks {
        let files: Vec<&str> = match &check.glob {
            None => vec![check.file.as_str()],
            Some(glob) => {
                let mut files: Vec<&str> = start
                    .keys()
                    .chain(now.keys())
                    .map(String::as_str)
                    .filter(|p| check.names(p))
                    .collect();
                files.sort_unstable();
                files.dedup();
                if files.is_empty() {
                    out.push(format!("{glob:?}: no file matches"));
                }
                files
            }
        };
        for file in files {
            let was = start.get(file).map(Vec::as_slice);
            out.extend(failing(
                task,
                check,
                file,
                was,
                now.get(file).map(Vec::as_slice),
            ));
        }
    }
    let named = |p: &str| task.spec.checks.iter().any(|c| c.names(p));
    for path in changed_paths(start, now).filter(|p| !named(p)) {
        out.push(format!("{path}: changed, and no check names it"));
    }
    // A glob over 5,000 notes fails 5,000 times alike: the first few say it.
    if out.len() > LISTED {
        let more = out.len() - LISTED;
        out.truncate(LISTED);
        out.push(format!("and {more} more"));
    }
    out
}

/// Failures a task lists before it counts the rest.
const LISTED: usize = 20;

/// Whether a change to `path` is allowed: some check names it and none
/// says it must stay as it was.
pub fn may_change(task: &Task, path: &str) -> bool {
    let named: Vec<&Check> = task.spec.checks.iter().filter(|c| c.names(path)).collect();
    !named.is_empty() && !named.iter().any(|c| c.unchanged)
}

/// The files that differ between `start` and `now`, sorted.
fn changed_paths<'a>(start: &'a Snapshot, now: &'a Snapshot) -> impl Iterator<Item = &'a str> {
    let mut paths: Vec<&str> = start.keys().chain(now.keys()).map(String::as_str).collect();
    paths.sort_unstable();
    paths.dedup();
    paths.into_iter().filter(|p| start.get(*p) != now.get(*p))
}

/// Bytes changed (taken out plus put in, by lines) between `start` and `now`
/// in files no check allows to change.
pub fn unintended_bytes(task: &Task, start: &Snapshot, now: &Snapshot) -> usize {
    let bytes = |s: &Snapshot, p: &str| s.get(p).map_or(&[][..], Vec::as_slice).to_vec();
    changed_paths(start, now)
        .filter(|p| !may_change(task, p))
        .map(|p| changed_bytes(&bytes(start, p), &bytes(now, p)))
        .sum()
}

/// Bytes of the lines a line diff takes out and puts in.
pub fn changed_bytes(a: &[u8], b: &[u8]) -> usize {
    let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    TextDiff::from_lines(a.as_ref(), b.as_ref())
        .iter_all_changes()
        .filter(|c| c.tag() != ChangeTag::Equal)
        .map(|c| c.value().len())
        .sum()
}
