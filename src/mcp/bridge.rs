//! `redline mcp` when a Redline already has the folder open: the stdio
//! server passes each request on to that instance's `/mcp` (streamable HTTP,
//! with the token from its lock file), so proposals land in the review the
//! user has open and questions show on its card. The upstream session is
//! opened at the first request, under the client's own name, so the work is
//! grouped under it there as it would be here.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, ListToolsResult,
    PaginatedRequestParams, ServerConfig,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ErrorData, RoleClient, RoleServer, ServerHandler, ServiceExt};
use std::sync::Arc;

use tokio::sync::OnceCell;

use super::McpError;
use crate::instance::Instance;

/// The session with the running instance, once opened.
type Upstream = Arc<OnceCell<RunningService<RoleClient, ClientConfig>>>;

/// The stdio side of a bridge to a running instance.
pub struct Bridge {
    instance: Instance,
    upstream: Upstream,
}

impl Bridge {
    /// A bridge to `instance`; it connects at the first request.
    pub fn new(instance: Instance) -> Bridge {
        Bridge {
            instance,
            upstream: Upstream::default(),
        }
    }

    /// The session with the running instance, opened as the client that
    /// `context` came from.
    async fn upstream(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<&RunningService<RoleClient, ClientConfig>, ErrorData> {
        self.upstream
            .get_or_try_init(|| async {
                let client = context
                    .peer
                    .peer_info()
                    .map(|info| info.client_info.clone())
                    .unwrap_or_default();
                let http = crate::providers::http::client_builder()
                    .build()
                    .map_err(|e| unreachable_instance(&self.instance, &e.to_string()))?;
                let transport = StreamableHttpClientTransport::with_client(
                    http,
                    StreamableHttpClientTransportConfig::with_uri(self.instance.mcp_url())
                        .auth_header(self.instance.token.clone()),
                );
                ClientConfig::new(ClientCapabilities::default(), client)
                    .serve(transport)
                    .await
                    .map_err(|e| unreachable_instance(&self.instance, &e.to_string()))
            })
            .await
    }
}

/// Serves `instance`'s project over standard input and output, passing
/// every request on to it, until the client closes the session; then
/// closes the session upstream so the instance lets go of it at once.
pub async fn serve(instance: Instance) -> Result<(), McpError> {
    let bridge = Bridge::new(instance);
    let upstream = bridge.upstream.clone();
    let service = bridge
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| McpError::Start(e.to_string()))?;
    let ended = service.waiting().await;
    if let Some(session) = Arc::try_unwrap(upstream)
        .ok()
        .and_then(OnceCell::into_inner)
    {
        let _ = session.cancel().await;
    }
    ended.map_err(|e| McpError::Serve(e.to_string()))?;
    Ok(())
}

fn unreachable_instance(instance: &Instance, why: &str) -> ErrorData {
    ErrorData::internal_error(
        format!(
            "the Redline serving this folder (port {}, process {}) did not answer: {why}",
            instance.port, instance.pid
        ),
        None,
    )
}

impl ServerHandler for Bridge {
    fn get_info(&self) -> ServerConfig {
        super::server::server_config()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let upstream = self.upstream(&context).await?;
        upstream
            .list_tools(request)
            .await
            .map_err(|e| unreachable_instance(&self.instance, &e.to_string()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let upstream = self.upstream(&context).await?;
        // A call the client cancels is cancelled upstream too: the future
        // sends `notifications/cancelled` when dropped before its answer.
        upstream
            .call_tool_once(request)
            .await
            .map_err(|e| unreachable_instance(&self.instance, &e.to_string()))
    }
}
