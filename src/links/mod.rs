//! The link engine: the links of a vault's notes found ([`parse`]),
//! resolved by Obsidian's rules ([`Vault::resolve`]), kept in an index
//! ([`LinkIndex`]), and rewritten when files move or headings are renamed
//! ([`LinkIndex::plan_moves`], [`LinkIndex::plan_heading_rename`]) so that
//! notes move and links follow; a note's links pointed at another file or
//! written in the other syntax ([`retarget_links`], [`convert_links`]).
//!
//! A link is kept as written, with its exact span, and writes itself back
//! byte for byte ([`Link::render`]); a rewrite changes its path (or
//! heading) and nothing else, and is checked to resolve to the intended
//! file before it is proposed. Links several files answer to are never
//! guessed at: they are left alone and reported.
//!
//! ```
//! use redline::links::{LinkIndex, LinkSettings, apply_edits};
//!
//! let notes = [
//!     ("Projects/Atlas.md", "# Atlas\n"),
//!     ("Daily/Monday.md", "See [[Atlas#Goals|the plan]] and [notes](../Projects/Atlas.md).\n"),
//! ];
//! let index = LinkIndex::build(["Projects/Atlas.md", "Daily/Monday.md"], notes);
//! let plan = index
//!     .plan_moves(&[("Projects/Atlas.md", "Archive/Atlas 2024.md")], &LinkSettings::default())
//!     .unwrap();
//! let edits = &plan.edits["Daily/Monday.md"];
//! assert_eq!(
//!     apply_edits(notes[1].1, edits),
//!     "See [[Atlas 2024#Goals|the plan]] and [notes](../Archive/Atlas%202024.md).\n"
//! );
//! ```

mod convert;
mod index;
mod parse;
mod paths;
mod resolve;
mod rewrite;
mod settings;

pub use convert::{LeftLink, NoteEdits, convert_links, name_of, retarget_links, written_forms};
pub use index::{LinkAt, LinkIndex, Resolved};
pub use parse::{Link, Quote, Syntax, parse};
pub(crate) use parse::{fenced_blocks, front_matter, past_code_span};
pub(crate) use paths::key as name_key;
pub(crate) use paths::lower as fold;
pub use resolve::{Resolution, Vault};
pub use rewrite::{MoveError, Plan, SkipReason, Skipped, TextEdit, apply_edits};
pub(crate) use rewrite::{names_heading, same_heading};
pub use settings::{LinkSettings, NewLinkFormat};

#[cfg(test)]
mod props;
#[cfg(test)]
mod tests;
