//! The project feed: what happened to the folder's files and their review
//! (a buffer reloaded, a conflict with another program, a save, a decision,
//! a rollback), as one event log with a cursor and a long poll, like a job's.
//!
//! It lives in memory: after a restart the UI reads the state afresh, and
//! what the feed announced (conflicts included) is derived from the disk and
//! the stored review, not from the feed. It keeps the last
//! [`Feed::CAPACITY`] events; a reader whose cursor fell behind that gets the
//! oldest kept ones and `first_cursor` tells it that it missed some.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use super::events::FeedEvent;
use super::shapes::now;

/// One event of the project feed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct FeedEntry {
    /// Its place in the feed, from 0.
    pub cursor: u64,
    /// When (RFC 3339).
    pub ts: String,
    /// What happened: its `type` and `data`.
    #[serde(flatten)]
    pub event: FeedEvent,
}

/// A page of the project feed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct FeedPage {
    /// The oldest cursor still kept; a reader that asked below it missed events
    /// and should read the state afresh.
    pub first_cursor: u64,
    /// The cursor to ask with next.
    pub next_cursor: u64,
    /// The events from the cursor asked for.
    pub events: Vec<FeedEntry>,
}

/// The in-memory event log of the project.
#[derive(Debug)]
pub struct Feed {
    log: Mutex<Log>,
    changed: watch::Sender<u64>,
}

#[derive(Debug, Default)]
struct Log {
    first: u64,
    events: VecDeque<FeedEntry>,
}

impl Default for Feed {
    fn default() -> Self {
        Feed {
            log: Mutex::default(),
            changed: watch::channel(0).0,
        }
    }
}

impl Feed {
    /// How many events it keeps.
    pub const CAPACITY: usize = 2000;

    /// Appends an event and wakes every waiting reader. Returns its cursor.
    pub fn push(&self, event: FeedEvent) -> u64 {
        let cursor = {
            let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
            let cursor = log.first + log.events.len() as u64;
            log.events.push_back(FeedEntry {
                cursor,
                ts: now(),
                event,
            });
            if log.events.len() > Feed::CAPACITY {
                log.events.pop_front();
                log.first += 1;
            }
            cursor
        };
        tracing::debug!(cursor, "project event");
        self.changed.send_modify(|n| *n += 1);
        cursor
    }

    /// The cursor the next event will have: a listing taken after reading
    /// it is followed from it, so that nothing after the listing is missed.
    pub fn next_cursor(&self) -> u64 {
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.first + log.events.len() as u64
    }

    /// The events from `cursor` on (at most 500); with `wait_ms` (at most a
    /// minute), waits for one to exist, answering the moment it does.
    pub async fn page(&self, cursor: u64, wait_ms: u64) -> FeedPage {
        let deadline = tokio::time::Instant::now() + Duration::from_millis(wait_ms.min(60_000));
        let mut changed = self.changed.subscribe();
        loop {
            // Subscribed before reading: an event pushed after the read still wakes us.
            changed.borrow_and_update();
            let page = self.read(cursor);
            if !page.events.is_empty() || tokio::time::Instant::now() >= deadline {
                return page;
            }
            let _ = tokio::time::timeout_at(deadline, changed.changed()).await;
        }
    }

    fn read(&self, cursor: u64) -> FeedPage {
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        let from = cursor.saturating_sub(log.first) as usize;
        let events: Vec<FeedEntry> = log.events.iter().skip(from).take(500).cloned().collect();
        let end = log.first + log.events.len() as u64;
        FeedPage {
            first_cursor: log.first,
            next_cursor: events.last().map_or(cursor.min(end), |e| e.cursor + 1),
            events,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::{FileChange, FileState};

    fn saved(path: &str) -> FeedEvent {
        FeedEvent::Saved(super::super::events::FileSaved {
            path: path.into(),
            disk_hash: None,
            state: FileState::default(),
        })
    }

    #[tokio::test]
    async fn a_waiting_reader_wakes_on_the_next_event() {
        let feed = std::sync::Arc::new(Feed::default());
        let reader = tokio::spawn({
            let feed = feed.clone();
            async move { feed.page(0, 5_000).await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        feed.push(saved("a.md"));
        let page = reader.await.unwrap();
        assert_eq!(page.events.len(), 1);
        assert_eq!(page.events[0].event.kind(), "file.saved");
        assert_eq!(page.next_cursor, 1);
        // Nothing new: answers empty at the deadline with the same cursor.
        let empty = feed.page(1, 10).await;
        assert!(empty.events.is_empty());
        assert_eq!(empty.next_cursor, 1);
    }

    #[tokio::test]
    async fn a_reader_left_behind_sees_where_the_kept_log_starts() {
        let feed = Feed::default();
        for i in 0..Feed::CAPACITY + 5 {
            feed.push(FeedEvent::Changed(FileChange::Changed {
                path: format!("{i}.md"),
                disk_hash: None,
            }));
        }
        let page = feed.page(0, 0).await;
        assert_eq!(page.first_cursor, 5);
        assert_eq!(page.events[0].cursor, 5);
        assert_eq!(
            page.events[0].event,
            FeedEvent::Changed(FileChange::Changed {
                path: "5.md".into(),
                disk_hash: None
            })
        );
        // A cursor past the end does not run ahead of the log.
        let ahead = feed.page(10_000, 0).await;
        assert_eq!(ahead.next_cursor, (Feed::CAPACITY + 5) as u64);
    }
}
