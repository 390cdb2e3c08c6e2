//! The file watcher: other programs' changes to the folder,
//! taken in as they happen.
//!
//! `notify` reports paths; each one the path guard accepts goes to
//! [`Runtime::external_change`], which compares the disk with what Redline
//! last read or wrote, so Redline's own writes, repeated events and
//! temporary files cost a hash and nothing more. A clean buffer reloads; a
//! buffer holding edits reports a conflict and keeps both versions. Missed
//! events (an overflowing kernel queue) are found again: every file whose
//! size or modification time is not what the index read is taken in as if
//! its event had come, so a burst too large for the queue is still reviewed.
//! Apply and save check the disk hash themselves, so a change the watcher
//! has not seen yet is still caught.
//!
//! A watched project keeps its index ([`crate::project::Index`]): filled in
//! the background when watching starts and told of every path that changed.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher as _};

use crate::jobs::Runtime;
use crate::jobs::events::{FeedEvent, TreeChanged};
use crate::project::PathError;
use crate::workspace::{NotReviewable, NotReviewableReason, OutsideChange};

/// The watcher could not start.
#[derive(Debug, thiserror::Error)]
#[error("cannot watch `{path}`: {source}")]
pub struct WatchError {
    /// The folder.
    pub path: PathBuf,
    /// Why.
    #[source]
    pub source: notify::Error,
}

/// A running watcher; dropping it stops it.
pub struct Watcher {
    watcher: Option<notify::RecommendedWatcher>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        // Dropping the watcher closes the channel, which ends the thread.
        self.watcher.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Watches the folder of `runtime` until the returned [`Watcher`] is dropped.
pub fn start(runtime: Runtime) -> Result<Watcher, WatchError> {
    let root = runtime.project().root().to_path_buf();
    let (tx, rx) = mpsc::channel();
    let fail = |source| WatchError {
        path: root.clone(),
        source,
    };
    let mut watcher = notify::recommended_watcher(tx).map_err(fail)?;
    watcher
        .watch(&root, RecursiveMode::Recursive)
        .map_err(fail)?;
    if runtime.project().index().is_some() {
        let runtime = runtime.clone();
        std::thread::Builder::new()
            .name("redline-index".into())
            .spawn(move || fill_index(&runtime))
            .expect("a thread can be spawned");
    }
    let thread = std::thread::Builder::new()
        .name("redline-watch".into())
        .spawn(move || take_in(&runtime, &root, &rx))
        .expect("a thread can be spawned");
    Ok(Watcher {
        watcher: Some(watcher),
        thread: Some(thread),
    })
}

/// Takes in events until the watcher goes away. Each wake-up drains what has
/// queued, so a burst (an editor's save is several events) is one pass over
/// distinct paths.
fn take_in(runtime: &Runtime, root: &Path, rx: &mpsc::Receiver<notify::Result<notify::Event>>) {
    // Folders made in the last moments: a file moved into one may come
    // with no paired rename.
    let mut recent_dirs: Vec<(PathBuf, Instant)> = Vec::new();
    // Files under review that went away, and since when: held a moment in
    // case the rename that moved them is reported after their going.
    let mut held: HashMap<PathBuf, Instant> = HashMap::new();
    let mut burst = Burst::default();
    loop {
        if burst.quiet(Instant::now()) {
            burst.take(runtime);
        }
        let first = if held.is_empty() && burst.is_empty() {
            match rx.recv() {
                Ok(event) => Some(event),
                Err(_) => return,
            }
        } else {
            match rx.recv_timeout(QUIET / 2) {
                Ok(event) => Some(event),
                Err(mpsc::RecvTimeoutError::Timeout) => None,
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            }
        };
        let mut paths: BTreeSet<PathBuf> = held.keys().cloned().collect();
        let mut moves = Vec::new();
        let mut rescan = false;
        for event in first.into_iter().chain(rx.try_iter()) {
            match event {
                // Reads are events too (inotify's open and close-nowrite), and
                // taking a change in reads the file: following them would loop.
                Ok(event) if matches!(event.kind, notify::EventKind::Access(_)) => {}
                Ok(event)
                    if matches!(
                        event.kind,
                        notify::EventKind::Modify(notify::event::ModifyKind::Name(
                            notify::event::RenameMode::Both
                        ))
                    ) && event.paths.len() == 2 =>
                {
                    moves.push((event.paths[0].clone(), event.paths[1].clone(), true));
                }
                Ok(event) => {
                    rescan |= event.need_rescan();
                    paths.extend(event.paths);
                }
                Err(e) => {
                    tracing::warn!(error = %e, "file watcher");
                    rescan = true;
                }
            }
        }
        // Events were lost (the kernel's queue overflowed while this thread
        // was starved): the files whose metadata the index did not read are
        // taken in as if heard, so another program's write is still
        // reviewed. Without a filled index, everything is read again below.
        let stale = rescan
            .then(|| runtime.project().index()?.stale(runtime.project()))
            .flatten();
        if let Some(stale) = &stale {
            tracing::warn!(
                files = stale.len(),
                "file events lost: changed files found again"
            );
            paths.extend(stale.iter().map(|rel| root.join(rel)));
        }
        // A file moved into a folder made in the same moment has no paired
        // rename (the folder was not watched yet): it is looked for by its
        // name in the new folders.
        let now = Instant::now();
        recent_dirs.retain(|(_, at)| now.duration_since(*at) < RECENT);
        recent_dirs.extend(
            paths
                .iter()
                .filter(|p| p.is_dir())
                .map(|p| (p.clone(), now)),
        );
        let paired: BTreeSet<&PathBuf> = moves.iter().map(|(from, _, _)| from).collect();
        let mut found = Vec::new();
        for from in paths.iter().filter(|p| !paired.contains(p) && !p.exists()) {
            if let Some(to) = recent_dirs
                .iter()
                .find_map(|(dir, _)| named_within(dir, from))
            {
                found.push((from.clone(), to, false));
            }
        }
        moves.extend(found);
        // A rename another program made: a file under review moves with its
        // review; any other is announced, and both paths are changes too.
        for (from, to, paired) in moves {
            let (Some(rel_from), Some(rel_to)) = (relative(root, &from), relative(root, &to))
            else {
                paths.extend([from, to]);
                continue;
            };
            // A rename over a file that was there is a save (an editor's
            // temporary file put in place), not a move; a file found in a
            // new folder was not there before.
            let replaced = paired
                && runtime
                    .project()
                    .index()
                    .and_then(|index| index.with_files(|files| files.contains_key(&rel_to)))
                    .unwrap_or(true);
            // Another program's move of a file not under review, or a file
            // it put in place over one Redline knew (an atomic save), is
            // taken in with the burst, as a change to review.
            let taken = if replaced {
                burst.remember(runtime, &rel_to)
            } else if burst.renamed(&rel_from, &rel_to) {
                true
            } else if !runtime.under_review(&rel_from) && burst.remember(runtime, &rel_from) {
                // The new path is not in the index yet: it is noted as
                // appeared, where the move is looked for.
                burst.remember(runtime, &rel_to);
                true
            } else {
                // A file Redline did not know (noted as appeared just now) that
                // took its name: made by the rename.
                burst.renamed(&rel_from, &rel_to)
            };
            runtime.project().reindex(&rel_from);
            runtime.project().reindex(&rel_to);
            if taken {
                paths.remove(&from);
                paths.remove(&to);
                burst.heard(now);
                continue;
            }
            match runtime.external_move(&rel_from, &rel_to, replaced) {
                Ok(true) => {
                    paths.remove(&from);
                    paths.remove(&to);
                    held.remove(&from);
                }
                _ => paths.extend([from, to]),
            }
        }
        // A file under review that went away with no move found is held a
        // moment, then taken as gone.
        let gone: Vec<PathBuf> = paths
            .iter()
            .filter(|p| !p.exists())
            .filter(|p| relative(root, p).is_some_and(|rel| runtime.under_review(&rel)))
            .cloned()
            .collect();
        for path in gone {
            let since = *held.entry(path.clone()).or_insert(now);
            if now.duration_since(since) < HOLD {
                paths.remove(&path);
            } else {
                held.remove(&path);
            }
        }
        held.retain(|path, _| !path.exists());
        if !paths.is_empty() {
            burst.heard(now);
        }
        for path in paths {
            let Some(rel) = relative(root, &path) else {
                continue;
            };
            let taken = !path.is_dir() && burst.remember(runtime, &rel);
            runtime.project().reindex(&rel);
            if taken {
                // Taken in with its burst, once the folder is quiet.
                continue;
            }
            if path.is_dir() {
                runtime
                    .feed()
                    .push(FeedEvent::TreeChanged(TreeChanged { path: rel }));
                continue;
            }
            // The guard refuses hidden, ignored and temporary files: not ours to follow.
            if let Err(e) = runtime.external_change(&rel) {
                tracing::debug!(path = %rel, error = %e, "change not taken in");
            }
        }
        if rescan {
            if stale.is_none() {
                fill_index(runtime);
                for rel in runtime.files_under_review() {
                    if let Err(e) = runtime.external_change(&rel) {
                        tracing::debug!(path = %rel, error = %e, "change not taken in");
                    }
                }
            }
            runtime.feed().push(FeedEvent::TreeChanged(TreeChanged {
                path: String::new(),
            }));
        }
    }
}

/// How long a new folder is looked in for a file that left without a
/// paired rename.
const RECENT: Duration = Duration::from_secs(2);

/// How long a file under review that went away waits for the rename that
/// may have moved it before it is taken as gone.
const HOLD: Duration = Duration::from_millis(300);

/// How long the folder stays quiet before a burst of other programs' writes
/// is taken in as one group: an agent's step writes its files within a few
/// milliseconds of each other.
const QUIET: Duration = Duration::from_millis(150);

/// Other programs' writes of one burst, each file with the text Redline
/// knew before its first write in it (the index's, read before the index
/// learns the new one). A file the index held no text of cannot be
/// reviewed: it is only announced as changed.
#[derive(Default)]
struct Burst {
    before: BTreeMap<String, String>,
    /// Files changed that cannot be reviewed, and why: listed with the burst.
    unreviewable: BTreeMap<String, NotReviewableReason>,
    /// Files that appeared in the burst: where a file that went away may
    /// have moved to.
    appeared: BTreeSet<String>,
    last: Option<Instant>,
}

impl Burst {
    fn is_empty(&self) -> bool {
        self.before.is_empty() && self.appeared.is_empty() && self.unreviewable.is_empty()
    }

    /// Notes that events came at `now`: the burst stays open.
    fn heard(&mut self, now: Instant) {
        self.last = Some(now);
    }

    /// Whether a burst is waiting and nothing was heard for [`QUIET`].
    fn quiet(&self, now: Instant) -> bool {
        !self.is_empty() && self.last.is_none_or(|at| now.duration_since(at) >= QUIET)
    }

    /// Keeps the text the index holds of `rel` as its text before (unless
    /// the burst has it already), when its change can be taken in as an
    /// outside change ([`Runtime::takes_outside`]). Returns whether the
    /// burst holds it.
    fn remember(&mut self, runtime: &Runtime, rel: &str) -> bool {
        if self.before.contains_key(rel) {
            return true;
        }
        // A file that appeared in this burst and changed or went again (a
        // program's temporary file): nothing Redline knew.
        if self.appeared.contains(rel)
            || self.unreviewable.contains_key(rel)
            || !runtime.takes_outside(rel)
        {
            return false;
        }
        let Some(index) = runtime.project().index() else {
            return false;
        };
        let held = index.with_files(|files| files.get(rel).map(|e| e.text.clone()));
        // Why a file Redline held no text of is listed: `text` when it is
        // text now, `gone` when it is gone, else why it is not text; `None`
        // for a file the guard refuses (hidden, ignored, temporary).
        let why = |text, gone| match runtime.project().read_text(rel) {
            Ok(_) => Some(text),
            Err(PathError::NotFound(_)) => gone,
            Err(e) => unreadable(&e),
        };
        let reason = match held {
            // The index is not filled yet: nothing to compare with.
            None => why(NotReviewableReason::NotIndexedYet, None),
            // Only a file whose disk differs from what the index holds: the
            // index may have learnt the new text already (Redline's own
            // write, a folder indexed as it arrived), and then there is
            // nothing to compare with.
            Some(Some(Some(text))) => {
                return match String::from_utf8(text.to_vec()) {
                    Ok(text) if !on_disk_is(runtime, rel, &text) => {
                        self.before.insert(rel.to_owned(), text);
                        true
                    }
                    _ => false,
                };
            }
            // Gone or not: Redline held nothing to compare with.
            Some(Some(None)) => why(
                NotReviewableReason::NotHeld,
                Some(NotReviewableReason::NotHeld),
            ),
            // Not in the index: a file that appeared.
            Some(None) => {
                self.appeared.insert(rel.to_owned());
                return false;
            }
        };
        // Redline's own writes are to files under review: never listed.
        if let Some(reason) = reason
            && !runtime.under_review(rel)
        {
            self.unreviewable.insert(rel.to_owned(), reason);
        }
        false
    }

    /// Follows a file that appeared in the burst to where it was renamed
    /// (a new note named after it was made): returns whether it had
    /// appeared.
    fn renamed(&mut self, from: &str, to: &str) -> bool {
        let appeared = self.appeared.remove(from);
        if appeared {
            self.appeared.insert(to.to_owned());
        }
        appeared
    }

    /// Takes the burst in as one group (see [`Runtime::take_outside`]).
    fn take(&mut self, runtime: &Runtime) {
        let mut appeared = std::mem::take(&mut self.appeared);
        let mut unreviewable = std::mem::take(&mut self.unreviewable);
        let mut changes: Vec<OutsideChange> = std::mem::take(&mut self.before)
            .into_iter()
            .filter_map(|(path, before)| {
                let after = match runtime.project().read_text(&path) {
                    Ok(file) => Some(file.text),
                    Err(PathError::NotFound(_)) => None,
                    // Binary or too large now: not reviewable as text.
                    Err(e) => {
                        let _ = runtime.external_change(&path);
                        unreviewable.insert(path, unreadable(&e)?);
                        return None;
                    }
                };
                // A file gone while one with its text appeared: a move.
                let moved_to = match after {
                    Some(_) => None,
                    None => appeared
                        .iter()
                        .find(|p| {
                            runtime
                                .project()
                                .read_text(p)
                                .is_ok_and(|f| f.text == before)
                        })
                        .cloned(),
                };
                if let Some(to) = &moved_to {
                    appeared.remove(to);
                }
                Some(OutsideChange {
                    after: match moved_to {
                        Some(_) => Some(before.clone()),
                        None => after,
                    },
                    path,
                    before,
                    created: false,
                    moved_to,
                })
            })
            .collect();
        // What appeared and is still there, no move's new path: created. The
        // guard refuses hidden, ignored and temporary files.
        for path in appeared {
            match runtime.project().read_text(&path) {
                Ok(file) => changes.push(OutsideChange {
                    path,
                    before: String::new(),
                    created: true,
                    after: Some(file.text),
                    moved_to: None,
                }),
                Err(e) => {
                    if let Some(reason) = unreadable(&e) {
                        unreviewable.insert(path, reason);
                    }
                }
            }
        }
        let unreviewable: Vec<NotReviewable> = unreviewable
            .into_iter()
            .map(|(path, reason)| NotReviewable { path, reason })
            .collect();
        if let Err(e) = runtime.take_outside(&changes, &unreviewable) {
            tracing::warn!(error = %e, "other programs' changes not taken in");
        }
    }
}

/// Why a file that is there cannot be reviewed as text; `None` for a file
/// the guard refuses (hidden, ignored, temporary) or that is gone.
fn unreadable(error: &PathError) -> Option<NotReviewableReason> {
    match error {
        PathError::TooLarge { .. } => Some(NotReviewableReason::TooLarge),
        e if e.is_not_text() => Some(NotReviewableReason::NotText),
        _ => None,
    }
}

/// Whether the disk holds `text` at `rel`.
fn on_disk_is(runtime: &Runtime, rel: &str, text: &str) -> bool {
    runtime
        .project()
        .read_text(rel)
        .is_ok_and(|file| file.text == text)
}

/// A file under the new folder `dir` (a few levels, a bounded number of
/// entries) with the name `from` had.
fn named_within(dir: &Path, from: &Path) -> Option<PathBuf> {
    let name = from.file_name()?;
    let mut folders = vec![(dir.to_path_buf(), 0)];
    let mut seen = 0;
    while let Some((folder, depth)) = folders.pop() {
        for entry in std::fs::read_dir(&folder).ok()?.flatten() {
            seen += 1;
            if seen > 1_000 {
                return None;
            }
            let path = entry.path();
            if path.is_dir() && depth < 4 {
                folders.push((path, depth + 1));
            } else if path.file_name() == Some(name) {
                return Some(path);
            }
        }
    }
    None
}

fn fill_index(runtime: &Runtime) {
    let project = runtime.project();
    if let Some(index) = project.index() {
        let fill_time = index.fill(project);
        let stats = index.stats();
        tracing::info!(
            files = stats.files,
            text_files = stats.text_files,
            text_mb = stats.text_bytes as f64 / 1e6,
            ms = fill_time.as_millis() as u64,
            "project index filled"
        );
    }
}

/// `path` relative to `root`, with `/` separators; `None` for the root itself
/// or a path outside it.
fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let parts: Vec<&str> = rel.iter().map(|c| c.to_str()).collect::<Option<_>>()?;
    (!parts.is_empty()).then(|| parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, OutsideMode};

    /// The kernel's queue overflows: notify says only "rescan". Every
    /// change made meanwhile is still taken in, as one group to review.
    #[test]
    fn changes_whose_events_were_lost_are_still_reviewed() {
        let vault = tempfile::tempdir().unwrap();
        let data = tempfile::tempdir().unwrap();
        let root = vault.path();
        for name in ["same", "edited", "gone", "moved"] {
            std::fs::write(
                root.join(format!("{name}.md")),
                format!("# {name}\n\nText.\n"),
            )
            .unwrap();
        }
        let config = Config {
            data_dir: Some(data.path().to_path_buf()),
            outside_changes: OutsideMode::Review,
            ..Default::default()
        };
        let runtime = Runtime::open(root, config).unwrap();
        runtime.project().index().unwrap().fill(runtime.project());
        let (tx, rx) = mpsc::channel();
        let watching = {
            let (runtime, root) = (runtime.clone(), root.to_path_buf());
            std::thread::spawn(move || take_in(&runtime, &root, &rx))
        };

        std::fs::write(root.join("edited.md"), "# edited\n\nText, edited.\n").unwrap();
        std::fs::remove_file(root.join("gone.md")).unwrap();
        std::fs::rename(root.join("moved.md"), root.join("away.md")).unwrap();
        std::fs::write(root.join("new.md"), "# new\n").unwrap();
        tx.send(Ok(
            notify::Event::new(notify::EventKind::Other).set_flag(notify::event::Flag::Rescan)
        ))
        .unwrap();

        let deadline = Instant::now() + Duration::from_secs(10);
        let hunks = loop {
            let queue = runtime.review_queue().unwrap();
            let hunks: Vec<String> = queue
                .jobs
                .iter()
                .flat_map(|g| &g.hunks)
                .map(|h| h.path.clone())
                .collect();
            if hunks.len() >= 4 || Instant::now() > deadline {
                break hunks;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        drop(tx);
        watching.join().unwrap();
        let mut hunks = hunks;
        hunks.sort();
        // The move is one hunk, under the path it left.
        assert_eq!(hunks, ["edited.md", "gone.md", "moved.md", "new.md"]);
        let queue = runtime.review_queue().unwrap();
        assert_eq!(queue.jobs.len(), 1, "one group: {queue:?}");
    }
}
