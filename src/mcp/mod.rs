//! The MCP server other agents review through (`redline mcp FOLDER`).
//!
//! Claude Code, Codex, opencode or Zed's agent call Redline's tools over the
//! Model Context Protocol; what they propose is staged for per-hunk review
//! like Redline's own agent's work, with the same checks, checkpoints and
//! rollback. Each call goes through Redline's own loop as the next step of a
//! job driven by the client ([`providers::driven`](crate::providers::driven)):
//! one job at a time per client, in a session named after it; a proposal
//! ends the job, and the next call starts another. Beside the loop's tools,
//! `review_status` reads back what the user decided, and `review_undo` takes a
//! step of the review's history back.
//!
//! Three doors onto it: stdio over a project opened here ([`serve_stdio`]),
//! stdio bridged to the Redline that has the folder open ([`serve_bridge`]),
//! and streamable HTTP at `/mcp` on that Redline's server ([`http_service`]).

mod bridge;
mod server;

pub use bridge::{Bridge, serve as serve_bridge};
pub use server::RedlineMcp;

use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use crate::jobs::Runtime;

/// Why the server stopped serving.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The client's first messages did not make a session.
    #[error("the MCP session could not start: {0}")]
    Start(String),
    /// The session ended in an error.
    #[error("the MCP session ended in an error: {0}")]
    Serve(String),
}

/// Serves `runtime`'s project over standard input and output until the
/// client closes it.
pub async fn serve_stdio(runtime: Runtime) -> Result<(), McpError> {
    let service = RedlineMcp::new(runtime)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| McpError::Start(e.to_string()))?;
    service
        .waiting()
        .await
        .map_err(|e| McpError::Serve(e.to_string()))?;
    Ok(())
}

/// The MCP server over streamable HTTP, one [`RedlineMcp`] per client
/// session, for `redline serve` to mount at `/mcp` behind its guard.
pub fn http_service(runtime: Runtime) -> StreamableHttpService<RedlineMcp, LocalSessionManager> {
    StreamableHttpService::new(
        move || Ok(RedlineMcp::new(runtime.clone())),
        Arc::new(LocalSessionManager::default()),
        Default::default(),
    )
}
