//! Panics on request, for the tests that check a panic is contained where
//! it happens (a tool's, a staging step's, a request handler's). With the
//! `testkit` feature, `REDLINE_TEST_PANIC=<site>` makes [`check`] at that
//! site panic; without it (the desktop shell), [`check`] is nothing.

/// The places a test can make panic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// A tool running for a job (`tools::run`).
    Tool,
    /// A proposal being staged into review (`Workspace::propose`).
    Stage,
    /// An API request being answered (the file tree's listing).
    Request,
}

impl Site {
    #[cfg_attr(not(feature = "testkit"), allow(dead_code))]
    fn name(self) -> &'static str {
        match self {
            Site::Tool => "tool",
            Site::Stage => "stage",
            Site::Request => "request",
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
