//! The server's tools: the loop's own (driven through a job of the client),
//! `review_status` and `review_undo`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::Mutex;

use crate::agent::NO_USER_ANSWER;
use crate::agent::toolset::{self, CLARIFY_USER, PROPOSE_EDITS};
use crate::jobs::{JobStatus, McpConnection, OUTSIDE, RunRequest, Runtime, ToolConfig};
use crate::providers::driven::{DriveError, Driver, driven};

/// The MCP name of `clarify_user`.
/// Reads back the user's decisions on a proposal.
const REVIEW_STATUS: &str = "review_status";
/// Takes back (or does again) a step of the review's history.
const REVIEW_UNDO: &str = "review_undo";
/// Longest wait `review_status` takes.
const MAX_WAIT_MS: u64 = 120_000;

/// The job a client's calls drive now.
struct Active {
    job_id: String,
    driver: Driver,
}

/// What one MCP session has spent of its limits.
#[derive(Default)]
struct Spent {
    calls: AtomicUsize,
    proposals: AtomicUsize,
}

/// One MCP session's server.
#[derive(Clone)]
pub struct RedlineMcp {
    runtime: Runtime,
    active: Arc<Mutex<Option<Active>>>,
    spent: Arc<Spent>,
    /// The client counts as connected from its `initialized` until the
    /// session's server is dropped.
    connection: Arc<OnceLock<McpConnection>>,
}

/// `review_status`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct ReviewStatusArgs {
    /// The job `propose_edits` answered with; `outside` (the default) for
    /// the newest group of changes written straight to disk rather than
    /// proposed (through a shell, say), which the user reviews too and may
    /// have reverted.
    #[serde(default = "outside")]
    job_id: String,
    /// Only these hunks (default: all of the job's).
    #[serde(default)]
    hunk_ids: Vec<String>,
    /// Wait up to this long (at most 120,000 ms) until every hunk asked
    /// about is decided. Default 0: answer at once.
    #[serde(default)]
    wait_ms: u64,
}

/// `review_undo`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct ReviewUndoArgs {
    /// Do again the step undone last, rather than undo the newest.
    #[serde(default)]
    redo: bool,
    /// The step meant (`s_N`, as an earlier answer named it): refused
    /// unless it is the one to take next. Default: whichever that is.
    #[serde(default)]
    step_id: Option<String>,
}

impl RedlineMcp {
    /// A server over `runtime`'s project.
    pub fn new(runtime: Runtime) -> RedlineMcp {
        RedlineMcp {
            runtime,
            active: Arc::default(),
            spent: Arc::default(),
            connection: Arc::default(),
        }
    }

    /// The tools offered, with the schemas Redline's own agent gets (built once).
    fn tools() -> &'static [Tool] {
        static TOOLS: std::sync::LazyLock<Vec<Tool>> =
            std::sync::LazyLock::new(RedlineMcp::build_tools);
        &TOOLS
    }

    fn build_tools() -> Vec<Tool> {
        let object = |schema: Value| match schema {
            Value::Object(map) => Arc::new(map),
            _ => Arc::default(),
        };
        let mut tools: Vec<Tool> = toolset::plain_specs()
            .into_iter()
            .map(|spec| Tool::new(spec.name, spec.description, object(spec.parameters)))
            .collect();
        let schema_of = |mut schema: Value| {
            if let Value::Object(map) = &mut schema {
                map.remove("title");
            }
            object(schema)
        };
        tools.push(Tool::new(
            REVIEW_STATUS,
            "What the user decided on the hunks of a proposal: pending, accepted, rejected, \
             changed (with the user's text when short) or rolled_back, each with its pattern \
             (hunks making the same change, listed under patterns) and the review's risk \
             flags; with wait_ms, waits until every hunk asked about is decided; for a group \
             of changes written straight to disk, also the files it could not review \
             (not_reviewable).",
            schema_of(schemars::schema_for!(ReviewStatusArgs).to_value()),
        ));
        tools.push(Tool::new(
            REVIEW_UNDO,
            "Takes back the newest step of the review's history (a decision, a batch or \
             pattern decision, an apply, a rollback) exactly, as Alt+U does in the window, or \
             with redo does again the step undone last; answers the hunks it moved and those \
             it left as they are. Name the step meant with step_id (refused unless it is the \
             one next).",
            schema_of(schemars::schema_for!(ReviewUndoArgs).to_value()),
        ));
        tools
    }

    /// Hands `name(arguments)` to the client's job (starting one when none
    /// runs) and turns the loop's answer into the tool's result.
    async fn drive(&self, client: &str, name: &str, arguments: Value) -> CallToolResult {
        let mut active = self.active.lock().await;
        let open = active.as_ref().is_some_and(|a| a.driver.is_open());
        if !open {
            match self.start(client) {
                Ok(started) => *active = Some(started),
                Err(message) => return failure("not_started", &message),
            }
        }
        let Active { job_id, driver } = active.as_ref().expect("a job was started");
        let job_id = job_id.clone();
        match driver.call(name, arguments).await {
            Ok(value) => CallToolResult::structured(shaped(name, value)),
            Err(DriveError::Refused(message)) => refused(&message),
            Err(DriveError::Ended) => {
                *active = None;
                drop(active);
                self.ended(&job_id).await
            }
        }
    }

    /// A new job for `client`, in its session.
    fn start(&self, client: &str) -> Result<Active, String> {
        let session = self
            .runtime
            .external_session(client)
            .map_err(|e| e.to_string())?;
        let (provider, driver) = driven(&format!("mcp:{client}"));
        let calls = self.runtime.config().limits.max_mcp_calls_per_job;
        let job = self
            .runtime
            .run_driven(
                RunRequest {
                    session_id: session.session_id,
                    instruction: format!("Proposed by {client}"),
                    context_rows: Vec::new(),
                    tool_config: ToolConfig {
                        max_tool_calls: Some(calls),
                    },
                },
                Arc::new(provider),
            )
            .map_err(|e| e.to_string())?;
        Ok(Active {
            job_id: job.job_id,
            driver,
        })
    }

    /// The result of a call that ended its job: the proposal staged for
    /// review, or why the job ended without one.
    async fn ended(&self, job_id: &str) -> CallToolResult {
        // The loop records the end right after it stops taking calls.
        let mut cursor = 0;
        for _ in 0..10 {
            match self.runtime.events(job_id, cursor, 500).await {
                Ok(page) if !page.status.is_terminal() => cursor = page.next_cursor,
                _ => break,
            }
        }
        let job = match self.runtime.job(job_id) {
            Ok(job) => job,
            Err(e) => return failure(e.code(), &e.to_string()),
        };
        match (&job.status, &job.diff_bundle) {
            (JobStatus::AwaitingReview | JobStatus::BudgetExceeded, Some(bundle)) => {
                let previews = self.runtime.review_queue().ok();
                let preview = |hunk_id: &str| {
                    previews
                        .iter()
                        .flat_map(|q| &q.jobs)
                        .flat_map(|g| &g.hunks)
                        .find(|h| h.hunk_id == hunk_id)
                        .map(|h| json!({ "line": h.line, "preview": h.preview }))
                        .unwrap_or(Value::Null)
                };
                let files: Vec<Value> = bundle
                    .files
                    .iter()
                    .map(|f| {
                        json!({
                            "file_path": f.file_path,
                            "hunks": f.hunks.iter().map(|h| {
                                json!({ "hunk_id": h.hunk_id, "shown": preview(&h.hunk_id) })
                            }).collect::<Vec<_>>(),
                        })
                    })
                    .collect();
                self.spent.proposals.fetch_add(1, Ordering::Relaxed);
                CallToolResult::structured(json!({
                    "job_id": job.job_id,
                    "status": "pending_review",
                    "files": files,
                    "summary": job.summary,
                }))
            }
            _ => {
                let (code, message) = job.error.map_or_else(
                    || (job.status.as_str().to_owned(), "the job ended".to_owned()),
                    |e| (e.code, e.message),
                );
                failure(&code, &message)
            }
        }
    }

    /// The refusal of a call past the session's limits, counting it if not.
    fn over_limit(&self, name: &str) -> Option<CallToolResult> {
        let limits = &self.runtime.config().limits;
        let calls = self.spent.calls.fetch_add(1, Ordering::Relaxed);
        if calls >= limits.max_mcp_calls_per_session {
            return Some(failure(
                "limit_reached",
                &format!(
                    "this MCP session has made its {} tool calls \
                     (limits.max_mcp_calls_per_session); start a new session",
                    limits.max_mcp_calls_per_session
                ),
            ));
        }
        let proposals = self.spent.proposals.load(Ordering::Relaxed);
        (name == PROPOSE_EDITS && proposals >= limits.max_mcp_proposals_per_session).then(|| {
            failure(
                "limit_reached",
                &format!(
                    "this MCP session has staged its {proposals} proposals \
                     (limits.max_mcp_proposals_per_session); start a new session"
                ),
            )
        })
    }

    fn review_undo(&self, arguments: Value) -> CallToolResult {
        let args: ReviewUndoArgs = match serde_json::from_value(arguments) {
            Ok(args) => args,
            Err(e) => return failure("invalid_arguments", &e.to_string()),
        };
        let step = args.step_id.as_deref();
        let done = match args.redo {
            false => self.runtime.undo_step(step),
            true => self.runtime.redo_step(step),
        };
        match done.map(|stepped| serde_json::to_value(stepped).expect("a step serializes")) {
            Ok(stepped) => CallToolResult::structured(stepped),
            Err(e) => failure(e.code(), &e.to_string()),
        }
    }

    async fn review_status(&self, arguments: Value) -> CallToolResult {
        let mut args: ReviewStatusArgs = match serde_json::from_value(arguments) {
            Ok(args) => args,
            Err(e) => return failure("invalid_arguments", &e.to_string()),
        };
        if args.job_id == OUTSIDE {
            match self.runtime.latest_outside_job() {
                Some(job_id) => args.job_id = job_id,
                None => {
                    return failure(
                        "not_found",
                        "no change was written to the folder outside Redline since it opened it",
                    );
                }
            }
        }
        let wait = Duration::from_millis(args.wait_ms.min(MAX_WAIT_MS));
        match self
            .runtime
            .hunk_states_decided(&args.job_id, &args.hunk_ids, wait)
            .await
        {
            Ok(states) => {
                let job = self.runtime.job(&args.job_id).ok();
                let not_reviewable = job
                    .as_ref()
                    .map(|j| j.not_reviewable.clone())
                    .unwrap_or_default();
                let patterns = job
                    .and_then(|j| j.diff_bundle)
                    .map(|b| b.patterns)
                    .unwrap_or_default();
                CallToolResult::structured(json!({
                    "job_id": args.job_id,
                    "hunks": states,
                    "patterns": patterns,
                    "not_reviewable": not_reviewable,
                }))
            }
            Err(e) => failure(e.code(), &e.to_string()),
        }
    }
}

/// The name a client gave itself, or `mcp-client` when it gave none.
fn client_name(given: Option<String>) -> String {
    given
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| "mcp-client".into())
}

fn outside() -> String {
    OUTSIDE.to_owned()
}

/// The loop's answer to `name` as an MCP result object: the question card's
/// answer says whether the user answered; anything else not an object (MCP
/// structured content is one) is wrapped as `result`.
fn shaped(name: &str, value: Value) -> Value {
    match (name, value) {
        (CLARIFY_USER, Value::String(answer)) if answer == NO_USER_ANSWER => {
            json!({ "status": NO_USER_ANSWER, "answer": null })
        }
        (CLARIFY_USER, Value::String(answer)) => json!({ "status": "answered", "answer": answer }),
        (_, value @ Value::Object(_)) => value,
        (_, value) => json!({ "result": value }),
    }
}

/// A tool error with the API's code.
fn failure(code: &str, message: &str) -> CallToolResult {
    let mut result =
        CallToolResult::structured_error(json!({ "error": { "code": code, "message": message } }));
    result.content = vec![ContentBlock::text(format!("{code}: {message}"))];
    result
}

/// The loop's refusal (`code: message`, as the tools word it) as a tool error.
fn refused(message: &str) -> CallToolResult {
    match message.split_once(": ") {
        Some((code, rest)) if code.chars().all(|c| c.is_ascii_lowercase() || c == '_') => {
            failure(code, rest)
        }
        _ => failure("refused", message),
    }
}

/// What Redline says of itself to a client, directly or through a bridge.
pub(super) fn server_config() -> ServerConfig {
    ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
        .with_server_info(Implementation::new("redline", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "Redline stages your edits to this folder for the user's per-hunk review: read \
             with read_file, then propose_edits (nothing is written until the user accepts \
             and saves); review_status tells what the user decided, review_undo takes a \
             step of the review back; clarify_user asks them.",
        )
}

impl ServerHandler for RedlineMcp {
    fn get_info(&self) -> ServerConfig {
        server_config()
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let client = client_name(context.peer.peer_info().map(|i| i.client_info.name.clone()));
        let _ = self.connection.set(self.runtime.mcp_connected(&client));
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(Self::tools().to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let client = client_name(context.client_info().map(|i| i.name));
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        if let Some(refusal) = self.over_limit(&request.name) {
            return Ok(refusal.into());
        }
        let result = match request.name.as_ref() {
            REVIEW_STATUS => self.review_status(arguments).await,
            REVIEW_UNDO => self.review_undo(arguments),
            CLARIFY_USER => self.drive(&client, CLARIFY_USER, arguments).await,
            name if name != REVIEW_STATUS
                && name != REVIEW_UNDO
                && Self::tools().iter().any(|t| t.name == name) =>
            {
                self.drive(&client, name, arguments).await
            }
            other => failure("unknown_tool", &format!("there is no tool `{other}`")),
        };
        Ok(result.into())
    }
}
