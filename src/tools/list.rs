//! `list_files`: the project's files under a folder, sorted, with paging.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Page, Tool, ToolError, compile_glob};
use crate::project::View;

/// Arguments of `list_files`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// Folder to list, relative to the project root, e.g. `notes/team`. Default: the whole project.
    pub prefix: Option<String>,
    /// Only list files matching this glob, e.g. `*.md` (any depth) or `notes/**/*.md` (from the root). Default: all files.
    pub glob: Option<String>,
    /// Most paths to return. Default 200, at most 1000.
    #[schemars(range(min = 1))]
    pub limit: Option<usize>,
    /// Paths to skip, to page through a long listing. Default 0.
    pub offset: Option<usize>,
}

/// The result of `list_files`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ListOutput {
    /// Paths relative to the project root, sorted.
    pub files: Vec<String>,
    /// Files matching in all.
    pub total: usize,
    /// Paths skipped before this page.
    pub offset: usize,
    /// The page size in force.
    pub limit: usize,
    /// Where the next page starts; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
}

/// The `list_files` tool.
pub struct ListFiles;

impl Tool for ListFiles {
    const NAME: &'static str = "list_files";
    const DESCRIPTION: &'static str = "List the files of the project under a folder (`prefix`), \
        optionally filtered by a glob, sorted by path, skipping hidden and ignored files. \
        Binary files are listed too but cannot be read. Returns the total and `next_offset` \
        when more remain.";
    type Args = ListArgs;
    type Output = ListOutput;

    fn run(view: &View<'_>, args: ListArgs) -> Result<ListOutput, ToolError> {
        let project = view.project();
        let limits = project.limits();
        let page = Page::new(
            args.offset,
            args.limit,
            limits.max_list_results_default,
            limits.max_list_results_cap,
        );
        let scope = project.resolve_dir(args.prefix.as_deref().unwrap_or(""))?;
        let glob = compile_glob(args.glob.as_deref())?;
        let wanted = |rel: &str| glob.as_ref().is_none_or(|g| g.is_match(rel));
        let mut files = project.walk_files(&scope, || {
            move |rel: &str, _: &std::path::Path| {
                (wanted(rel) && !view.covers(rel)).then(|| rel.to_owned())
            }
        });
        // Files with a working buffer are listed as it has them: a created
        // one appears before it is saved, one whose creation was rejected does not.
        files.extend(
            view.overlaid_under(scope.rel())
                .map(|(rel, _)| rel)
                .chain(view.moved_under(scope.rel()))
                .filter(|rel| wanted(rel))
                .map(str::to_owned),
        );
        files.sort_unstable();
        let total = files.len();
        let files = files
            .into_iter()
            .skip(page.offset)
            .take(page.limit)
            .collect();
        Ok(ListOutput {
            files,
            total,
            offset: page.offset,
            limit: page.limit,
            next_offset: page.next_offset(total),
        })
    }
}
