//! A hunk's place in the working buffer, as the review lists it.

/// Where a hunk stands in the working buffer, in lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// The entry's index in the log.
    pub entry: usize,
    /// Its first line (0-based). Its lines are those its words are on, and
    /// those of the hunks that build on it (rejecting it rejects them).
    pub line: usize,
    /// How many lines it covers now (0 for text it only took out).
    pub lines: usize,
    /// Those lines as they would be without it (and what builds on it):
    /// what rejecting it leaves.
    pub old: String,
    /// Those lines as they were before it: the changes recorded earlier, as
    /// decided now, and none of the later ones. What it replaced; differs
    /// from `old` when a later change touched the same lines.
    pub before: String,
    /// Those lines now.
    pub now: String,
    /// Those lines now without what the user typed inside agent changes'
    /// text: the agent's words as the changes make them. `None` when the
    /// user typed nothing there.
    pub untyped: Option<String>,
    /// The bytes of the buffer those lines are.
    pub bytes: std::ops::Range<usize>,
}
