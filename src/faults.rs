//! Panics and crashes on request, for the tests that check a panic is
//! contained where it happens (a tool's, a staging step's, a request
//! handler's) and that a crash between two writes loses nothing. With the
//! `testkit` feature, `REDLINE_TEST_PANIC=<site>` makes [`check`] at that
//! site panic, and `REDLINE_TEST_CRASH=<site>:<n>` makes the `n`th
//! [`crash`] there end the process at once; without it (the desktop shell),
//! both are nothing.

/// The places a test can make panic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// A tool running for a job (`tools::run`).
    Tool,
    /// A proposal being staged into review (`Workspace::propose`).
    Stage,
    /// An API request being answered (the file tree's listing).
    Request,
    /// A part of a run over many notes staged, its job not yet told.
    Staged,
}

impl Site {
    #[cfg_attr(not(feature = "testkit"), allow(dead_code))]
    fn name(self) -> &'static str {
        match self {
            Site::Tool => "tool",
            Site::Stage => "stage",
            Site::Request => "request",
            Site::Staged => "staged",
        }
    }
}

/// Panics when `REDLINE_TEST_PANIC` names `site` (read once a process).
#[cfg(feature = "testkit")]
pub fn check(site: Site) {
    static ASKED: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    let asked = ASKED.get_or_init(|| std::env::var("REDLINE_TEST_PANIC").ok());
    if asked.as_deref() == Some(site.name()) {
        panic!("a panic injected at `{}` (REDLINE_TEST_PANIC)", site.name());
    }
}

/// Nothing: panics are injected only in test builds.
#[cfg(not(feature = "testkit"))]
#[inline(always)]
pub fn check(_site: Site) {}

/// Ends the process at once, as a power cut would, at the `n`th call for
/// `site` when `REDLINE_TEST_CRASH` is `<site>:<n>`.
#[cfg(feature = "testkit")]
pub fn crash(site: Site) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static ASKED: std::sync::OnceLock<Option<(String, usize)>> = std::sync::OnceLock::new();
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let asked = ASKED.get_or_init(|| {
        let value = std::env::var("REDLINE_TEST_CRASH").ok()?;
        let (name, n) = value.split_once(':')?;
        Some((name.to_owned(), n.parse().ok()?))
    });
    if let Some((name, n)) = asked
        && name == site.name()
        && CALLS.fetch_add(1, Ordering::SeqCst) + 1 == *n
    {
        std::process::abort();
    }
}

/// Nothing: crashes are injected only in test builds.
#[cfg(not(feature = "testkit"))]
#[inline(always)]
pub fn crash(_site: Site) {}
