//! The requests and answers of the operations (docs/http-api.md#routes),
//! as the HTTP routes and the desktop shell carry them; the UI's TypeScript
//! is generated from them.

use serde::{Deserialize, Serialize};

use crate::checkpoints::RollbackMode;
use crate::jobs::JobStatus;
use crate::review::{HunkMove, Status};
use crate::workspace::{AppliedFile, FileContent, Keep, TreeEntry};

/// `GET /api/project`: the open folder.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct ProjectInfo {
    /// Its absolute path.
    pub root: String,
    /// Its name (the folder's last component).
    pub name: String,
    /// What its project index holds, and whether it is filled yet (searches
    /// and quick open read the disk until it is); none where no index is kept.
    #[ts(optional = nullable)]
    pub index: Option<crate::project::IndexStats>,
    /// The mode other programs' changes are taken in with here (the
    /// folder's own, else the top-level one).
    pub outside_changes: crate::config::OutsideMode,
    /// The MCP clients connected now, by name.
    pub mcp_clients: Vec<String>,
}

/// `POST /api/agent/sessions`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, ts_rs::TS)]
pub struct CreateSession {
    /// The agent definition (default `default`).
    #[serde(default)]
    #[ts(optional = nullable)]
    pub agent_id: Option<String>,
}

/// A new session.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct SessionCreated {
    /// Its id.
    pub session_id: String,
    /// `active`.
    pub status: String,
    /// When.
    pub created_at: String,
}

/// A started job.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct JobStarted {
    /// Its id.
    pub job_id: String,
    /// `queued`.
    pub status: JobStatus,
}

/// `POST /api/agent/jobs/<id>/clarify`. A missing or empty answer,
/// or `skip: true`, skips the question.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct Clarify {
    /// The question answered.
    pub question_id: String,
    /// The answer.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub answer: Option<String>,
    /// Skip it instead.
    #[serde(default)]
    #[ts(as = "Option<_>", optional)]
    pub skip: bool,
}

/// `POST /api/agent/apply`.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct Apply {
    /// The session.
    pub session_id: String,
    /// The job whose review is applied.
    pub job_id: String,
    /// The hunks to accept; the job's others are rejected.
    pub accepted_hunk_ids: Vec<String>,
    /// Which other hunks of the job it accepts (default: none), so that a
    /// client need not fetch a vault-wide job's hunks to list them.
    #[serde(default)]
    #[ts(as = "Option<_>", optional)]
    pub also_accept: AlsoAccept,
    /// Answer with only the files not written in `applied_files` (the
    /// others counted in `written`): a vault-wide apply's list is
    /// megabytes. Default false.
    #[serde(default)]
    #[ts(as = "Option<_>", optional)]
    pub brief: bool,
}

/// The hunks an apply accepts besides those it lists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum AlsoAccept {
    /// None.
    #[default]
    None,
    /// Those the user accepted already (what "Apply" means: keep what was
    /// decided, reject what is still pending).
    Accepted,
    /// Every hunk not rejected ("Accept all").
    NotRejected,
}

/// What apply did.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct Applied {
    /// `completed`, or `conflict` when a file changed on disk.
    pub status: String,
    /// Per file (with `brief`, only those not written).
    pub applied_files: Vec<AppliedFile>,
    /// Files written.
    pub written: usize,
}

/// `POST /api/agent/checkpoints/<id>/rollback`.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct Rollback {
    /// `hard_all` or `scoped_selected`.
    pub mode: RollbackMode,
    /// The hunks, for `scoped_selected`.
    #[serde(default)]
    #[ts(as = "Option<_>", optional)]
    pub hunk_ids: Vec<String>,
}

/// `PATCH /api/agent/sessions/<id>`: a new name (empty: no name).
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct RenameSession {
    /// The name.
    pub name: String,
}

/// `POST /api/agent/hunks/<id>/decide`: accept, reject, or undo (`pending`:
/// every hunk the hunk's latest decision moved goes back, as one step).
/// Accepting a hunk accepts the hunks it stands on; rejecting one rejects
/// the hunks that build on it.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct Decide {
    /// The new status.
    pub status: Status,
    /// A short note with the decision (why it was rejected); the session's
    /// next job is told it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reason: Option<String>,
    /// Only say what the decision would move; change nothing. Default false.
    #[serde(default)]
    #[ts(optional)]
    pub dry_run: Option<bool>,
}

/// `POST /api/review/decide`: accept, reject or undo (`pending`) many hunks
/// at once — a pattern, every unflagged hunk of a job, or a list — as one
/// step that one undo brings back.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct DecideMany {
    /// Which hunks.
    pub selection: crate::jobs::Selection,
    /// The new status.
    pub status: Status,
    /// What the window calls the selection ("pattern “colour → color”"),
    /// for the step of the history; default: the selection described.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub label: Option<String>,
}

/// Undo or redo one step of the decision history
/// (`POST /api/review/undo`, `POST /api/review/redo`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, ts_rs::TS)]
pub struct TakeStep {
    /// The step the caller means to take back (or do again): refused when
    /// it is not the next one. Default: the next one, whichever it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub step_id: Option<String>,
}

/// A decided hunk, every hunk the decision moved, and its file as it is now.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct Decided {
    /// The hunk.
    pub hunk_id: String,
    /// Its status now (or, for a dry run, after the decision).
    pub status: Status,
    /// Every hunk the decision moved (or would move): the hunk first, then
    /// those carried with it.
    pub moved: Vec<HunkMove>,
    /// Text the user typed inside the moved hunks that the decision takes
    /// out of the buffer (kept in a checkpoint; an undo brings it back).
    pub hidden_user_text: Vec<String>,
    /// The links it leaves (or would leave) naming a note's old path: a
    /// move's link update rejected while the move counts.
    pub links_left: Vec<crate::review::LinkLeft>,
    /// Whether this only says what would happen.
    pub dry_run: bool,
    /// Its file (as it is now; unchanged by a dry run).
    pub file: FileContent,
}

/// A request naming one file (save, accept all in a file).
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct FileRequest {
    /// The file, relative to the project root.
    pub path: String,
}

/// `PUT /api/files/buffer`: the user's edit of a working buffer.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct EditBuffer {
    /// The file, relative to the project root.
    pub path: String,
    /// The buffer's whole new text.
    pub text: String,
    /// The `hash` of the buffer text the edit was made on; when given, an
    /// edit of a buffer that changed meanwhile is refused (`conflict`).
    #[serde(default)]
    #[ts(optional = nullable)]
    pub base_hash: Option<String>,
}

/// The query of a long poll (a job's events, the project feed).
#[derive(Clone, Debug, Default, Serialize, Deserialize, ts_rs::TS)]
pub struct EventsQuery {
    /// The first event wanted. Default 0.
    #[serde(default)]
    #[ts(as = "Option<_>", optional)]
    pub cursor: u64,
    /// How long to wait for one when there is none yet, at most a minute.
    /// Default 0 (answer at once).
    #[serde(default)]
    #[ts(as = "Option<_>", optional)]
    pub wait_ms: u64,
}

/// The query of `GET /api/files` and of `GET /api/files/children` (which reads only `prefix`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, ts_rs::TS)]
pub struct TreeQuery {
    /// The folder to list (default: the whole project).
    #[serde(default)]
    #[ts(as = "Option<_>", optional)]
    pub prefix: String,
}

/// The query of `GET /api/agent/jobs/<id>`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, ts_rs::TS)]
pub struct JobQuery {
    /// Leave out `proposed_edits` (empty) and `diff_bundle` (null): a
    /// vault-wide job's are megabytes, and a status line needs neither.
    /// Default false.
    #[serde(default)]
    #[ts(as = "Option<_>", optional)]
    pub brief: bool,
}

/// The query of a listing served a page at a time (`GET /api/review`,
/// `GET /api/files/changed`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct PageQuery {
    /// The first row wanted. Default 0.
    #[serde(default)]
    pub offset: Option<usize>,
    /// Rows wanted. Default: every row from `offset` on.
    #[serde(default)]
    pub limit: Option<usize>,
    /// The listing an earlier page came from (its answer's `snapshot`), so
    /// that this page is cut from the same moment; a listing no longer kept
    /// is made anew, under a new number. The review and the changed files
    /// are one listing: a page of either may name the other's number.
    #[serde(default)]
    pub snapshot: Option<u64>,
}

/// The files with a working buffer, a page of them (`GET /api/files/changed`).
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct ChangedFiles {
    /// The page's files, sorted, with their review state.
    pub files: Vec<TreeEntry>,
    /// Files in the whole listing.
    pub total: usize,
    /// The listing's number, for its next page.
    pub snapshot: u64,
    /// The project feed's cursor when the listing was taken (see
    /// `ReviewQueue::feed_cursor`).
    pub feed_cursor: u64,
}

/// An image of the vault, for the redline view to draw an embed
/// (`GET /api/files/image`): the JSON doors carry its bytes in base64, and
/// the window draws them as a `data:` address (nothing else loads).
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct Image {
    /// The file, relative to the project root.
    pub path: String,
    /// Its media type, from its extension (`image/png`, …).
    pub mime: String,
    /// Its bytes, in standard base64.
    pub base64: String,
}

/// The query naming one file.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct FileQuery {
    /// The file, relative to the project root.
    pub path: String,
}

/// The body of `POST /api/files/contents`: several files to read at once.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct FilesRequest {
    /// The files, relative to the project root (at most
    /// [`MAX_FILES_READ`](super::MAX_FILES_READ)).
    pub paths: Vec<String>,
}

/// One file of a batched read: its content, or why it could not be read
/// (one missing note does not fail the others).
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct FileRead {
    /// The file asked for.
    pub path: String,
    /// The file as the editor shows it; absent when it could not be read.
    pub file: Option<FileContent>,
    /// Why it could not be read; absent when it was.
    pub error: Option<String>,
}

/// The query of `GET /api/agent/checkpoints`: a page of them, newest first.
#[derive(Clone, Debug, Default, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct CheckpointsQuery {
    /// Start after this checkpoint (the previous page's `next_before`).
    #[serde(default)]
    pub before: Option<String>,
    /// Checkpoints per page. Default 50, at most 500.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// The query of `GET /api/agent/checkpoints/<id>/diff3`.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct Diff3Query {
    /// The file of the checkpoint.
    pub file_path: String,
}

/// `POST /api/files/op`: move (rename) or delete a file, as a proposal to
/// review.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct FileOpRequest {
    /// The file, relative to the project root.
    pub path: String,
    /// What to do with it.
    pub op: crate::edits::FileOp,
}

/// `POST /api/operations` and `/api/operations/preview`: changes across
/// the vault, stated once (see `docs/operations.md`).
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct OperationsRequest {
    /// The operations, carried out in order.
    pub operations: Vec<crate::expand::VaultOp>,
    /// What the job is called in the review (default: a description of
    /// the first operation).
    #[serde(default)]
    #[ts(as = "Option<_>", optional)]
    pub instruction: Option<String>,
}

/// What operations would change, staging nothing.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct OperationsPreview {
    /// Line edits they come to.
    pub edits: usize,
    /// One report an operation, in order.
    pub reports: Vec<crate::expand::Report>,
    /// The notes outside their scope that staging them would change too,
    /// because they link to what changes (a heading renamed): their links
    /// follow, as hunks tied to the change.
    pub links_follow: Vec<LinksFollow>,
}

/// A note outside an operation's scope whose links follow what it changes.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct LinksFollow {
    /// The note.
    pub file_path: String,
    /// Its links that follow.
    pub links: usize,
}

/// `POST /api/files/resolve`: which version of a conflicting file to keep.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct Resolve {
    /// The file.
    pub path: String,
    /// `mine` (the buffer) or `theirs` (the disk).
    pub keep: Keep,
}

/// `GET /api/files/find`: quick open's query.
#[derive(Clone, Debug, Default, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct QuickOpenQuery {
    /// What was typed (fuzzy; a blank query lists paths in order).
    #[serde(default)]
    pub query: String,
    /// Paths to return. Default 50, at most 500.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// `GET /api/settings/models`: where to ask for a model list.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelsQuery {
    /// An OpenAI-compatible base URL (`…/v1`).
    pub base_url: String,
}

/// The models a server lists.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelList {
    /// Their ids; empty when none could be listed.
    pub models: Vec<String>,
    /// Why none could be listed.
    pub error: Option<String>,
}
