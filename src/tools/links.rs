//! `links`: a note's links, both ways — what it links to, each resolved by
//! Obsidian's rules, and every link in another file that resolves to it —
//! read with the link engine ([`crate::links`]) from the project as the view
//! shows it (pending hunks included).
//!
//! Backlinks are found without a link index: a case-insensitive search for
//! the note's name (as written or percent-encoded) narrows the files, and
//! only those are parsed and resolved.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::search::{Query, find_matches};
use super::{Page, Tool, ToolError};
use crate::links::{self, Link, Resolution, Vault};
use crate::project::{PathError, View};

/// Arguments of `links`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinksArgs {
    /// The note (or attachment) whose links to list, relative to the project root, e.g. `Projects/Atlas.md`.
    pub file_path: String,
    /// Most backlinks to return. Default 50, at most 200.
    #[schemars(range(min = 1))]
    pub limit: Option<usize>,
    /// Backlinks to skip, to page through many. Default 0.
    pub offset: Option<usize>,
}

/// How a link resolves.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LinkStatus {
    /// To one file, named in `target`.
    Resolves,
    /// To no file.
    Dangling,
    /// To several files: Obsidian would pick one, Redline does not guess.
    Ambiguous,
    /// Outside the project.
    Outside,
}

/// A link the note makes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct OutgoingLink {
    /// Its line, 1-based.
    pub line: usize,
    /// The link as written, e.g. `[[Atlas#Goals|the plan]]`.
    pub text: String,
    /// How it resolves.
    pub status: LinkStatus,
    /// The file it resolves to, when it resolves to one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

/// A link to the note from another file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Backlink {
    /// The file it is in.
    pub file_path: String,
    /// Its line, 1-based.
    pub line: usize,
    /// The link as written.
    pub text: String,
}

/// The result of `links`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct LinksOutput {
    /// The note asked about.
    pub file_path: String,
    /// Its links, in order (empty for a file that is not text).
    pub outgoing: Vec<OutgoingLink>,
    /// Links to it from other files, by path then line: one page.
    pub backlinks: Vec<Backlink>,
    /// Backlinks in all.
    pub total_backlinks: usize,
    /// Backlinks skipped before this page.
    pub offset: usize,
    /// The page size in force.
    pub limit: usize,
    /// Where the next page of backlinks starts; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
}

/// Backlinks per page by default, and at most.
const DEFAULT_LIMIT: usize = 50;
const MAX_LIMIT: usize = 200;

/// The `links` tool.
pub struct Links;

impl Tool for Links {
    const NAME: &'static str = "links";
    const DESCRIPTION: &'static str = "List a note's links both ways: the links it makes, each \
        resolved by Obsidian's rules (`resolves` with its target, `dangling` when no file has that \
        name, `ambiguous` when several do), and its backlinks: every link in another file that \
        resolves to it (wikilinks with aliases and headings, embeds, Markdown links, front \
        matter), with file and line. Links in code are not links. Use it before renaming a note \
        or a heading, or deleting a note, to find every link that would change.";
    type Args = LinksArgs;
    type Output = LinksOutput;

    fn run(view: &View<'_>, args: LinksArgs) -> Result<LinksOutput, ToolError> {
        let path = view.project().resolve(&args.file_path)?;
        let target = path.rel().to_owned();
        let vault = view.with_paths(|paths| Vault::new(paths.iter().copied()));
        if !vault.contains(&target) {
            return Err(PathError::NotFound(args.file_path).into());
        }
        let page = Page::new(args.offset, args.limit, DEFAULT_LIMIT, MAX_LIMIT);
        let outgoing = match view.read_text(&target) {
            Ok(file) => outgoing(&vault, &target, &file.text),
            // An attachment links nowhere; it can still be linked to.
            Err(e) if e.is_not_text() => Vec::new(),
            Err(e) => return Err(e.into()),
        };
        let backlinks = backlinks(view, &vault, &target)?;
        let total = backlinks.len();
        Ok(LinksOutput {
            file_path: target,
            outgoing,
            backlinks: backlinks
                .into_iter()
                .skip(page.offset)
                .take(page.limit)
                .collect(),
            total_backlinks: total,
            offset: page.offset,
            limit: page.limit,
            next_offset: page.next_offset(total),
        })
    }
}

fn outgoing(vault: &Vault, source: &str, text: &str) -> Vec<OutgoingLink> {
    links::parse(text)
        .into_iter()
        .map(|link| {
            let resolution = vault.resolve(&link, source);
            let status = match &resolution {
                Resolution::File(_) => LinkStatus::Resolves,
                Resolution::Dangling => LinkStatus::Dangling,
                Resolution::Ambiguous(_) => LinkStatus::Ambiguous,
                Resolution::OutsideVault => LinkStatus::Outside,
            };
            OutgoingLink {
                line: line_of(text, &link),
                text: link.render(),
                status,
                target: resolution.file().map(ToOwned::to_owned),
            }
        })
        .collect()
}

/// A file's name without its folder or `.md`: what a wikilink names it by.
pub(crate) fn stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_suffix(".md").unwrap_or(name)
}

/// The files of the view whose text names any of `stems`, as written or
/// percent-encoded, in any case: every file that may hold a link to a file
/// of one of those names (a link names it by its name, path or path end).
pub(crate) fn naming<'s>(
    view: &View<'_>,
    stems: impl IntoIterator<Item = &'s str>,
) -> Result<Vec<String>, ToolError> {
    let mut forms = std::collections::BTreeSet::new();
    for stem in stems {
        forms.insert(regex_syntax::escape(stem));
        forms.insert(regex_syntax::escape(&stem.replace(' ', "%20")));
    }
    let pattern = forms.into_iter().collect::<Vec<_>>().join("|");
    let found = find_matches(
        *view,
        &Query {
            pattern: &pattern,
            regex: true,
            case_sensitive: Some(false),
            glob: None,
        },
    )?;
    Ok(found.into_iter().map(|m| m.path).collect())
}

/// The other files of the view with a link that resolves to `target`.
pub(crate) fn linking_to(
    view: &View<'_>,
    target: &str,
) -> Result<std::collections::BTreeSet<String>, ToolError> {
    let vault = view.with_paths(|paths| Vault::new(paths.iter().copied()));
    Ok(backlinks(view, &vault, target)?
        .into_iter()
        .map(|b| b.file_path)
        .collect())
}

/// Every link in another file of the view that resolves to `target`.
fn backlinks(view: &View<'_>, vault: &Vault, target: &str) -> Result<Vec<Backlink>, ToolError> {
    let mut out = Vec::new();
    for candidate in naming(view, [stem(target)])? {
        if candidate == target {
            continue;
        }
        let Ok(file) = view.read_text(&candidate) else {
            continue;
        };
        for link in links::parse(&file.text) {
            if vault.resolve(&link, &candidate).file() == Some(target) {
                out.push(Backlink {
                    file_path: candidate.clone(),
                    line: line_of(&file.text, &link),
                    text: link.render(),
                });
            }
        }
    }
    Ok(out)
}

/// The 1-based line `link` starts on.
fn line_of(text: &str, link: &Link) -> usize {
    text[..link.span.start].matches('\n').count() + 1
}
