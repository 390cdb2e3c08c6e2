//! Quick open and project search for people, over what the agent sees: the
//! project with its working buffers.

use super::Runtime;
use crate::find::{lines, paths};
use crate::jobs::error::RuntimeError;
use crate::project::View;

impl Runtime {
    /// The `limit` paths that best match `query` (quick open).
    pub fn quick_open(&self, query: &str, limit: usize) -> paths::FoundPaths {
        let overlay = self.ws().overlay();
        paths::quick_open(&View::with(self.project(), &overlay), query, limit)
    }

    /// A page of the lines matching `request`, grouped by file.
    pub fn search(
        &self,
        request: &lines::SearchRequest,
    ) -> Result<lines::SearchResults, RuntimeError> {
        let overlay = self.ws().overlay();
        lines::search(&View::with(self.project(), &overlay), request)
            .map_err(|e| RuntimeError::Invalid(e.to_string()))
    }
}
