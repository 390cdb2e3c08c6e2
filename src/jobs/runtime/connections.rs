//! The MCP clients connected to this folder. An agent that proposes through
//! Redline often writes through its shell too, so while one is connected the
//! window offers to hold every change other programs write for review
//! (`mcp.connected` in the feed, and [`Runtime::mcp_clients`]).

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::Runtime;
use crate::jobs::events::{FeedEvent, McpConnected};

/// The clients connected, by connection.
#[derive(Debug, Default)]
pub(super) struct Connections {
    next: AtomicU64,
    clients: Mutex<BTreeMap<u64, String>>,
}

/// One client's connection: it counts as connected until this is dropped.
pub struct McpConnection {
    runtime: Runtime,
    id: u64,
}

impl Drop for McpConnection {
    fn drop(&mut self) {
        self.runtime.connections().remove(&self.id);
    }
}

impl Runtime {
    fn connections(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, String>> {
        self.inner
            .connections
            .clients
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Notes that the MCP client `client` connected, and announces it
    /// with the mode other programs' changes are taken in with here.
    pub fn mcp_connected(&self, client: &str) -> McpConnection {
        let id = self.inner.connections.next.fetch_add(1, Ordering::Relaxed);
        self.connections().insert(id, client.to_owned());
        self.inner.feed.push(FeedEvent::McpConnected(McpConnected {
            client: client.to_owned(),
            outside_changes: self.outside_mode(),
        }));
        McpConnection {
            runtime: self.clone(),
            id,
        }
    }

    /// The names of the MCP clients connected now, each once, sorted.
    pub fn mcp_clients(&self) -> Vec<String> {
        let mut names: Vec<String> = self.connections().values().cloned().collect();
        names.sort();
        names.dedup();
        names
    }
}
