//! Listings served a page at a time from one moment: the first page of a
//! listing makes it and keeps it under a number, the later pages name that
//! number and are cut from the same listing, so that pages fetched while
//! the project changes never skip or repeat a row. At 20,000 hunks one
//! answer is megabytes, and a page is what a client can take in one frame.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// How many listings are kept: a few clients paging at once each find
/// theirs.
const KEPT: usize = 4;

/// The listings kept, newest last, each with its number and the revision
/// of the state it was made from.
pub(crate) struct Snapshots<T> {
    next: AtomicU64,
    kept: Mutex<VecDeque<(u64, u64, Arc<T>)>>,
}

impl<T> Default for Snapshots<T> {
    fn default() -> Self {
        Snapshots {
            next: AtomicU64::new(1),
            kept: Mutex::new(VecDeque::new()),
        }
    }
}

impl<T> Snapshots<T> {
    /// The listing numbered `id` while it is kept; with no number, the
    /// newest listing if it was made at `revision` (nothing changed since:
    /// a page reloaded does not list 5,000 hunks again); otherwise a new one
    /// from `make`, kept under a new number with `revision`.
    pub(crate) fn get_or_make<E>(
        &self,
        id: Option<u64>,
        revision: u64,
        make: impl FnOnce() -> Result<T, E>,
    ) -> Result<(u64, Arc<T>), E> {
        {
            let kept = self.lock();
            let found = match id {
                Some(id) => kept.iter().find(|(k, _, _)| *k == id),
                None => kept.back().filter(|(_, r, _)| *r == revision),
            };
            if let Some((id, _, listing)) = found {
                return Ok((*id, Arc::clone(listing)));
            }
        }
        let made = Arc::new(make()?);
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let mut kept = self.lock();
        if kept.len() == KEPT {
            kept.pop_front();
        }
        kept.push_back((id, revision, Arc::clone(&made)));
        Ok((id, made))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<(u64, u64, Arc<T>)>> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The rows `offset..offset + limit` of `len` (`limit` `None`: to the end),
/// clamped to what exists.
pub(crate) fn window(len: usize, offset: usize, limit: Option<usize>) -> std::ops::Range<usize> {
    let start = offset.min(len);
    start..limit.map_or(len, |n| start.saturating_add(n).min(len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_listing_is_served_again_and_a_new_one_made_otherwise() {
        let snapshots = Snapshots::default();
        let made = std::cell::Cell::new(0);
        let make = || {
            made.set(made.get() + 1);
            Ok::<_, ()>(made.get())
        };
        let (first, value) = snapshots.get_or_make(None, 1, make).unwrap();
        assert_eq!(*value, 1);
        assert_eq!(
            *snapshots.get_or_make(Some(first), 1, make).unwrap().1,
            1,
            "kept"
        );
        assert_eq!(made.get(), 1);
        let (second, value) = snapshots.get_or_make(Some(999), 1, make).unwrap();
        assert_ne!(second, first);
        assert_eq!(*value, 2, "an unknown number makes a new one");
        for revision in 2..KEPT as u64 + 2 {
            snapshots.get_or_make(None, revision, make).unwrap();
        }
        let (again, value) = snapshots.get_or_make(Some(first), 9, make).unwrap();
        assert_ne!(
            again, first,
            "the oldest is dropped once {KEPT} newer exist"
        );
        assert_eq!(*value, made.get());
    }

    #[test]
    fn a_first_page_reuses_the_newest_listing_only_while_nothing_changed() {
        let snapshots = Snapshots::default();
        let made = std::cell::Cell::new(0);
        let make = || {
            made.set(made.get() + 1);
            Ok::<_, ()>(made.get())
        };
        let (first, _) = snapshots.get_or_make(None, 7, make).unwrap();
        let (again, value) = snapshots.get_or_make(None, 7, make).unwrap();
        assert_eq!(
            (again, *value, made.get()),
            (first, 1, 1),
            "nothing changed: the same listing"
        );
        let (newer, value) = snapshots.get_or_make(None, 8, make).unwrap();
        assert_ne!(newer, first);
        assert_eq!(*value, 2, "a change since: listed again");
        // An older listing is not taken for a first page, even at its revision.
        let (latest, _) = snapshots.get_or_make(None, 7, make).unwrap();
        assert_eq!(made.get(), 3);
        assert_ne!(latest, first);
    }

    #[test]
    fn a_window_is_clamped_to_the_rows() {
        assert_eq!(window(10, 0, None), 0..10);
        assert_eq!(window(10, 4, Some(3)), 4..7);
        assert_eq!(window(10, 8, Some(5)), 8..10);
        assert_eq!(window(10, 20, Some(5)), 10..10);
        assert_eq!(window(10, 2, Some(usize::MAX)), 2..10);
    }
}
