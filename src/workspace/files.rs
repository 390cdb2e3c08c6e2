//! The editor's side of the workspace: a file as the editor shows it, the
//! tree, the review list's pending hunks, and the user's edits to a working
//! buffer. What another program's changes do is [`super::outside`]'s.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{Workspace, WorkspaceError};
use crate::edits::FileOp;
use crate::project::{PathError, Project, ProjectPath, order, text};
use crate::review::preview::{HunkPreview, preview};
use crate::review::{FileReview, Review, ReviewError, Status};

/// Where a file stands with Redline.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct FileState {
    /// It has a working buffer (an agent run staged hunks in it, or the user
    /// edited it through Redline).
    pub under_review: bool,
    /// The buffer holds what the disk does not (unsaved edits or accepted,
    /// unsaved hunks).
    pub dirty: bool,
    /// Its agent hunks still pending, in document order.
    pub pending_hunks: Vec<String>,
    /// Another program changed the file on disk since Redline last read or
    /// wrote it, while Redline held edits for it.
    pub conflict: bool,
    /// A move or deletion of the whole file under review.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub op: Option<OpState>,
}

/// A move or deletion of a whole file, where it stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct OpState {
    /// Its hunk.
    pub hunk_id: String,
    /// The job that proposed it.
    pub job_id: Option<String>,
    /// What it does.
    pub op: FileOp,
    /// The path the file had (the one it is under review by).
    pub from: String,
    /// Where it stands.
    pub status: Status,
    /// Whether the disk has it: a save carried it out (the file is at the
    /// move's target, or gone).
    pub done: bool,
}

/// One file of the project, as the editor shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct FileContent {
    /// The file, relative to the project root.
    pub path: String,
    /// What the editor shows: the working buffer, or the disk's text.
    pub text: String,
    /// `sha256:` of `text`; an edit names it to say which text it changes.
    pub hash: String,
    /// `sha256:` of the file on disk now; `null` when there is none.
    pub disk_hash: Option<String>,
    /// The disk's text, only while it conflicts with the buffer.
    pub disk_text: Option<String>,
    /// Its review state.
    pub state: FileState,
    /// Its agent hunks where they stand in `text` now, in document order
    /// (decided ones too, so that a decision can be shown and undone).
    pub hunks: Vec<HunkSpan>,
    /// Whether it is not text (an attachment): nothing to show or edit;
    /// it can be moved or deleted whole.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[ts(as = "Option<bool>", optional)]
    pub binary: bool,
}

/// An agent hunk as the editor draws it: where its lines are in the buffer,
/// and the lines they replaced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct HunkSpan {
    /// The engine's id (the same as in the job's diff bundle).
    pub hunk_id: String,
    /// The job that proposed it.
    pub job_id: Option<String>,
    /// Where it stands.
    pub status: Status,
    /// Its first line in the buffer (0-based).
    pub line: usize,
    /// How many buffer lines it covers now: the lines its words are on
    /// (its new words while pending or accepted, the old ones once rejected);
    /// 0 for lines it only took out.
    pub lines: usize,
    /// Those lines as they would be without it (and the hunks that build
    /// on it), terminators included: what rejecting it leaves.
    pub old_text: String,
    /// Those lines as they were before it, terminators included: what it
    /// replaced (the changes made earlier as decided now, none of the later
    /// ones). Differs from `old_text` when a later change touched the same
    /// lines.
    pub before_text: String,
    /// The hunks it stands on: it rewrote text they put there, so accepting
    /// it accepts them.
    pub depends_on: Vec<String>,
    /// The hunks that build on it: rejecting it rejects them.
    pub dependents: Vec<String>,
    /// The user typed inside its text: rejecting it takes that out too.
    pub typed_inside: bool,
    /// Its lines now without what the user typed inside agent changes'
    /// text there: the words that are the agent's, so that a view marks
    /// the user's own typing as theirs. Absent when the user typed none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub agent_text: Option<String>,
    /// The moves it follows (a link rewritten because its note moves): its
    /// decisions go with theirs, and rejecting it may leave a link naming a
    /// note's old path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<_>", optional)]
    pub follows: Vec<String>,
}

/// The agent hunks of `file`, in document order.
fn spans_of(file: &FileReview) -> Vec<HunkSpan> {
    let entries = file.entries();
    let hunk = |i: usize| entries[i].hunk_id.clone();
    let typed = file.typed_inside();
    file.spans()
        .into_iter()
        .filter_map(|s| {
            let e = &entries[s.entry];
            Some(HunkSpan {
                hunk_id: e.hunk_id.clone()?,
                job_id: e.job_id.clone(),
                status: e.status,
                line: s.line,
                lines: s.lines,
                old_text: s.old,
                before_text: s.before,
                depends_on: file.depends_on(s.entry).filter_map(hunk).collect(),
                dependents: file.dependents(s.entry).filter_map(hunk).collect(),
                typed_inside: typed.contains(&s.entry),
                agent_text: s.untyped,
                follows: e.leaders().cloned().collect(),
            })
        })
        .collect()
}

/// A pending agent hunk, for the review list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct PendingHunk {
    /// The engine's id.
    pub hunk_id: String,
    /// The job that proposed it.
    pub job_id: Option<String>,
    /// Its file.
    pub path: String,
    /// Its first line in the buffer (1-based).
    pub line: usize,
    /// Its change, cut to what a list shows.
    pub preview: HunkPreview,
    /// The pattern of its job it belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub pattern: Option<String>,
    /// Why it deserves a look; empty when nothing does.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<_>", optional)]
    pub flags: Vec<crate::hunks::triage::RiskFlag>,
    /// For a move or deletion of the whole file, which (`line` is then 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub op: Option<FileOp>,
    /// For a move, the hunks that follow it (the links it rewrote), to be
    /// listed under it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<_>", optional)]
    pub followers: Vec<String>,
}

/// One file of the tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct TreeEntry {
    /// The file, relative to the project root.
    pub path: String,
    /// Its size on disk in bytes (0 when only its buffer exists).
    pub size: u64,
    /// Its review state.
    pub state: FileState,
}

/// A folder's direct children (`GET /api/files/children`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Listing {
    /// Its folders, sorted as a person reads them (`project::order`).
    pub folders: Vec<FolderEntry>,
    /// Its files, sorted the same way, with their review state.
    pub files: Vec<TreeEntry>,
    /// Files under it at any depth (for the root, the whole project).
    pub files_under: usize,
}

/// A folder in a [`Listing`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct FolderEntry {
    /// The folder, relative to the project root.
    pub path: String,
    /// Files it holds at any depth.
    pub files: usize,
}

/// What a change on disk did to Redline's view of a file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum FileChange {
    /// A file Redline holds nothing for changed, appeared or went away.
    Changed {
        /// The file.
        path: String,
        /// Its hash now; `null` when it is gone.
        disk_hash: Option<String>,
    },
    /// A clean buffer took the disk's new text (as a `user` entry of its log).
    Reloaded {
        /// The file.
        path: String,
        /// Its hash now; `null` when it is gone.
        disk_hash: Option<String>,
    },
    /// Redline holds edits for the file: nothing was reloaded or written;
    /// both versions stay until the user resolves it.
    Conflict {
        /// The file.
        path: String,
        /// Its hash on disk now; `null` when it is gone.
        disk_hash: Option<String>,
        /// What Redline last read or wrote there.
        known_hash: Option<String>,
        /// Its review state.
        state: FileState,
    },
}

/// Which version wins a conflict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Keep {
    /// The working buffer: the next save writes it over the disk's version.
    Mine,
    /// The disk's version: the buffer (its pending hunks and unsaved edits
    /// included) is dropped.
    Theirs,
}

/// A resolved conflict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Resolved {
    /// The file.
    pub path: String,
    /// The version kept.
    pub kept: Keep,
    /// The checkpoint holding the other version: rolling back to it brings
    /// that one back.
    pub checkpoint_id: String,
    /// The file now.
    pub file: FileContent,
}

/// Whether a save of `file` has something to write: text, or where it is.
pub(super) fn unsaved(review: &Review, file: &FileReview) -> bool {
    let placed = file.disk_hash.as_ref().and(file.disk_path()) == file.saved_path();
    // An attachment has no text of its own, and a deletion accepted none
    // to write: only where it is can differ.
    let rewritten = file.binary().is_none()
        && file.saved_path().is_some()
        && Some(text::content_hash(review.disk_view(file).as_bytes())) != file.disk_hash;
    rewritten || !placed
}

/// The review state of `file`, whose disk copy hashes to `on_disk` now.
pub(super) fn state_of(review: &Review, file: &FileReview, on_disk: &Option<String>) -> FileState {
    let entries = file.entries();
    let op = file.op().map(|op| OpState {
        hunk_id: entries[op.entry].hunk_id.clone().unwrap_or_default(),
        job_id: entries[op.entry].job_id.clone(),
        op: op.op.clone(),
        from: file.path.clone(),
        status: entries[op.entry].status,
        done: op.done,
    });
    let dirty = unsaved(review, file);
    // The whole-file change first: it is what the reviewer sees first.
    let pending: Vec<String> = file
        .op()
        .map(|op| op.entry)
        .into_iter()
        .chain(file.hunk_order())
        .map(|i| &entries[i])
        .filter(|e| e.status == Status::Pending)
        .filter_map(|e| e.hunk_id.clone())
        .collect();
    FileState {
        under_review: true,
        dirty,
        conflict: *on_disk != file.disk_hash && (dirty || !pending.is_empty()),
        pending_hunks: pending,
        op,
    }
}

/// The hash of the file on disk where Redline keeps `file` now.
fn disk_hash_of(project: &Project, file: &FileReview) -> Result<Option<String>, PathError> {
    match file.disk_path() {
        Some(at) => project.disk_hash(at),
        None => Ok(None),
    }
}

/// The files the redline view draws as images, by extension, with their
/// media type.
const IMAGES: [(&str, &str); 8] = [
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
    ("svg", "image/svg+xml"),
    ("bmp", "image/bmp"),
    ("avif", "image/avif"),
];

/// The largest image the redline view is sent (16 MiB): a note's picture,
/// not an archive.
pub const MAX_IMAGE_BYTES: usize = 16 << 20;

impl Workspace {
    /// The image at `path` as the working view holds it (moved with its
    /// note, if a move is under review), with its media type: for the
    /// redline view to draw an embed. Refused when `path` is no image (by
    /// its extension), the guard refuses it, or it is over
    /// [`MAX_IMAGE_BYTES`].
    pub fn image(&self, path: &str) -> Result<(&'static str, Vec<u8>), WorkspaceError> {
        let ext = path
            .rsplit_once('.')
            .map(|(_, e)| e.to_ascii_lowercase())
            .unwrap_or_default();
        let refused = |why: String| WorkspaceError::NotAnImage {
            path: path.to_owned(),
            why,
        };
        let Some(&(_, mime)) = IMAGES.iter().find(|(e, _)| *e == ext) else {
            return Err(refused(
                "only png, jpg, gif, webp, svg, bmp and avif are".into(),
            ));
        };
        let overlay = self.overlay();
        let (_, bytes, _) = crate::project::View::with(&self.project, &overlay).read_bytes(path)?;
        if bytes.len() > MAX_IMAGE_BYTES {
            return Err(refused(format!(
                "it is {} MiB, over the {} MiB an image is sent at",
                bytes.len() >> 20,
                MAX_IMAGE_BYTES >> 20
            )));
        }
        Ok((mime, bytes))
    }

    /// `path` as the editor shows it: its working buffer, or the disk.
    pub fn file_content(&self, path: &str) -> Result<FileContent, WorkspaceError> {
        let rel = self.project.resolve(path)?.rel().to_owned();
        if let Some(file) = self.review.file_at(&rel).or_else(|| self.review.file(&rel)) {
            let on_disk = disk_hash_of(&self.project, file)?;
            let state = state_of(&self.review, file, &on_disk);
            let text = file.buffer();
            let disk = if state.conflict {
                match self.project.read_text(file.disk_path().unwrap_or(&rel)) {
                    Ok(f) => Some(f),
                    Err(PathError::NotFound(_)) => None,
                    Err(e) => return Err(e.into()),
                }
            } else {
                None
            };
            return Ok(FileContent {
                // Where the working state shows it: a decided move's
                // target, named by either path.
                path: file.view_path().map_or(rel, str::to_owned),
                hash: text::content_hash(text.as_bytes()),
                text,
                disk_hash: disk.as_ref().map_or(on_disk, |f| Some(f.hash.clone())),
                disk_text: disk.map(|f| f.text),
                state,
                hunks: spans_of(file),
                binary: file.binary().is_some(),
            });
        }
        let (text, disk_hash, binary) = match self.project.read_text(&rel) {
            Ok(file) => (file.text, Some(file.hash), false),
            // An attachment: shown as one, so that it can be moved or deleted.
            Err(e) if e.is_not_text() => (String::new(), self.project.disk_hash(&rel)?, true),
            Err(e) => return Err(e.into()),
        };
        Ok(FileContent {
            path: rel,
            hash: text::content_hash(text.as_bytes()),
            text,
            disk_hash,
            disk_text: None,
            state: FileState::default(),
            hunks: Vec::new(),
            binary,
        })
    }

    /// Every pending agent hunk, by path, in document order within a file.
    pub fn pending_hunks(&self) -> Vec<PendingHunk> {
        let files: Vec<&FileReview> = self.review.files().filter(|f| f.has_pending()).collect();
        // Placing and previewing the hunks of tens of thousands of files:
        // on both cores.
        files
            .into_par_iter()
            .flat_map_iter(|file| {
                let entries = file.entries();
                let op = file
                    .op()
                    .filter(|op| entries[op.entry].status == Status::Pending)
                    .map(|op| PendingHunk {
                        hunk_id: entries[op.entry].hunk_id.clone().unwrap_or_default(),
                        job_id: entries[op.entry].job_id.clone(),
                        path: file.path.clone(),
                        line: 0,
                        preview: preview(
                            &format!("{}\n", file.path),
                            &op.op
                                .target()
                                .map_or_else(String::new, |to| format!("{to}\n")),
                        ),
                        pattern: None,
                        flags: Vec::new(),
                        op: Some(op.op.clone()),
                        followers: Vec::new(),
                    });
                op.into_iter()
                    .chain(file.spans().into_iter().filter_map(move |span| {
                        let e = &entries[span.entry];
                        let hunk_id = e.hunk_id.clone().filter(|_| e.status == Status::Pending)?;
                        Some(PendingHunk {
                            hunk_id,
                            job_id: e.job_id.clone(),
                            path: file.path.clone(),
                            line: span.line + 1,
                            preview: preview(&span.old, &span.now),
                            pattern: None,
                            flags: Vec::new(),
                            op: None,
                            followers: Vec::new(),
                        })
                    }))
            })
            .collect()
    }

    /// The project's files under `prefix` (the whole project for `""`),
    /// sorted as a person reads them, with the files that only have a buffer (created by a run and
    /// not saved yet). From the project index when it is filled, else a walk.
    /// With `changed`, only the files with a working buffer, and no listing
    /// at all: what a tree that loads its folders as they open needs to keep
    /// its badges and the review current.
    pub fn tree(&self, prefix: &str, changed: bool) -> Result<Vec<TreeEntry>, WorkspaceError> {
        let scope = self.project.resolve_dir(prefix)?;
        let mut entries = Vec::new();
        self.each_file(
            &scope,
            !changed,
            |_| true,
            |path, size, state| {
                entries.push(TreeEntry {
                    path: path.to_owned(),
                    size,
                    state,
                });
            },
        )?;
        entries.sort_by(|a, b| order::paths(&a.path, &b.path));
        Ok(entries)
    }

    /// The direct children of the folder `prefix` (the root for `""`): its
    /// folders, each with how many files it holds at any depth, and its
    /// files with their review state, both sorted; for a tree that loads a
    /// folder when it opens. Files in subfolders are only counted.
    pub fn children(&self, prefix: &str) -> Result<Listing, WorkspaceError> {
        let mut listing = Listing {
            folders: Vec::new(),
            files: Vec::new(),
            files_under: 0,
        };
        // A folder that only files under review are in (a move's or a
        // run's new folder) lists them.
        let (scope, listed) = match self.project.resolve_dir(prefix) {
            Ok(scope) => (scope, true),
            Err(PathError::NotFound(_)) => (self.project.resolve(prefix)?, false),
            Err(e) => return Err(e.into()),
        };
        let skip = if scope.rel().is_empty() {
            0
        } else {
            scope.rel().len() + 1
        };
        // Files in subfolders are only counted: their states are not
        // worked out (a root over 5,000 files under review took 0.4 s).
        let direct = |path: &str| !path[skip.min(path.len())..].contains('/');
        self.each_file(&scope, listed, direct, |path, size, state| {
            listing.files_under += 1;
            match path[skip..].split_once('/') {
                // Sorted paths keep a folder's files together.
                Some((name, _)) => match listing.folders.last_mut() {
                    Some(last) if last.path[skip..] == *name => last.files += 1,
                    _ => listing.folders.push(FolderEntry {
                        path: path[..skip + name.len()].to_owned(),
                        files: 1,
                    }),
                },
                None => listing.files.push(TreeEntry {
                    path: path.to_owned(),
                    size,
                    state,
                }),
            }
        })?;
        listing
            .folders
            .sort_by(|a, b| order::paths(&a.path, &b.path));
        listing.files.sort_by(|a, b| order::paths(&a.path, &b.path));
        Ok(listing)
    }

    /// Calls `visit` with each file under the folder `scope`, in path
    /// order, with its size and review state: the project's files (when
    /// `listed`; from the index when it is filled, else a walk) merged with
    /// the files under review, which include those that only have a buffer.
    /// Only the files `stated` picks get their state worked out (reading
    /// and hashing them); the others get the default one.
    fn each_file(
        &self,
        scope: &ProjectPath,
        listed: bool,
        stated: impl Fn(&str) -> bool + Sync,
        mut visit: impl FnMut(&str, u64, FileState),
    ) -> Result<(), WorkspaceError> {
        let folder = format!("{}/", scope.rel());
        let under = |p: &str| scope.rel().is_empty() || p.starts_with(&folder);
        // Each state reads its file and hashes two texts: on both cores, as
        // a vault-wide review has tens of thousands.
        // A moved file is listed where its move puts it (its old path and
        // the disk's copy are not); a deleted one where it was, marked.
        let shown = |f: &'_ FileReview| f.view_path().unwrap_or(&f.path).to_owned();
        let hidden: std::collections::HashSet<&str> = self
            .review
            .files()
            .filter(|f| f.op().is_some())
            .flat_map(|f| f.paths())
            .collect();
        let files: Vec<&FileReview> = self.review.files().filter(|f| under(&shown(f))).collect();
        let (project, review) = (&self.project, &self.review);
        let mut reviewed = files
            .into_par_iter()
            .map(|f| {
                let at = shown(f);
                let state = match stated(&at) {
                    true => state_of(review, f, &disk_hash_of(project, f)?),
                    false => FileState::default(),
                };
                Ok((at, state))
            })
            .collect::<Result<Vec<_>, WorkspaceError>>()?;
        reviewed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut reviewed = reviewed.into_iter().peekable();
        let disk_size =
            |p: &str| std::fs::metadata(self.project.root().join(p)).map_or(0, |m| m.len());
        // One pass over both sorted lists; a reviewed file not listed is a
        // buffer only (or was not asked for).
        let mut merge = |files: &mut dyn Iterator<Item = (&str, u64)>| {
            for (path, size) in files {
                while let Some((only, state)) = reviewed.next_if(|(r, _)| r.as_str() < path) {
                    visit(&only, disk_size(&only), state);
                }
                let state = reviewed.next_if(|(r, _)| r == path).map(|(_, s)| s);
                if state.is_none() && hidden.contains(path) {
                    continue;
                }
                visit(path, size, state.unwrap_or_default());
            }
            for (only, state) in reviewed.by_ref() {
                visit(&only, disk_size(&only), state);
            }
        };
        if !listed {
            merge(&mut std::iter::empty());
            return Ok(());
        }
        let start = if scope.rel().is_empty() {
            ""
        } else {
            folder.as_str()
        };
        let from_index = self.project.index().and_then(|index| {
            index.with_files(|files| {
                let mut files = files
                    .range::<str, _>((std::ops::Bound::Included(start), std::ops::Bound::Unbounded))
                    .take_while(|(p, _)| under(p))
                    .map(|(p, e)| (p.as_str(), e.size));
                merge(&mut files);
            })
        });
        if from_index.is_none() {
            let mut walked = self.project.walk_files(scope, || {
                |rel: &str, abs: &std::path::Path| {
                    Some((
                        rel.to_owned(),
                        std::fs::metadata(abs).map_or(0, |m| m.len()),
                    ))
                }
            });
            walked.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            merge(&mut walked.iter().map(|(p, size)| (p.as_str(), *size)));
        }
        Ok(())
    }

    /// Replaces the working buffer of `path` with `new_text`, recording each
    /// changed block as a `user` entry of its log. A file not under
    /// review gets a buffer first (a new one if there is no file). With
    /// `base_hash`, the edit applies only to that buffer text: a buffer that
    /// changed meanwhile (a decision, a reload) refuses it. Returns the new
    /// entries' ids.
    pub fn edit(
        &mut self,
        path: &str,
        new_text: &str,
        base_hash: Option<&str>,
    ) -> Result<Vec<String>, WorkspaceError> {
        let mut rel = self.project.resolve(path)?.rel().to_owned();
        // A file shown at a pending move's target is edited by its own path.
        if let Some(file) = self.review.file_at(&rel) {
            if file.binary().is_some() {
                return Err(PathError::Binary(rel).into());
            }
            rel = file.path.clone();
        }
        if self.review.file(&rel).is_none() {
            let (text, hash) = match self.project.read_text(&rel) {
                Ok(f) => (f.text, Some(f.hash)),
                Err(PathError::NotFound(_)) => (String::new(), None),
                Err(e) => return Err(e.into()),
            };
            self.review
                .insert_file(FileReview::new(rel.clone(), text, hash, false));
        }
        let current = self
            .review
            .file(&rel)
            .expect("inserted above")
            .buffer_hash();
        if let Some(base) = base_hash
            && base != current
        {
            self.drop_if_untouched(&rel)?;
            return Err(ReviewError::StaleBuffer(rel).into());
        }
        let ids = self.review.user_edit(&rel, new_text)?;
        if ids.is_empty() {
            self.drop_if_untouched(&rel)?;
        } else {
            self.persist(&rel)?;
        }
        Ok(ids)
    }

    /// Takes a buffer with no log back out of review (an edit that changed nothing).
    fn drop_if_untouched(&mut self, path: &str) -> Result<(), WorkspaceError> {
        if self
            .review
            .file(path)
            .is_some_and(|f| f.entries().is_empty())
        {
            self.review.remove_file(path);
            self.persist(path)?;
        }
        Ok(())
    }
}
