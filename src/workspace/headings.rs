//! A hunk that takes a heading out of a note breaks the links that point
//! at it, there (`[[#Goals]]`) and in other notes (`[[Plan#Goals]]`): the
//! risk rules flag it (`dead_link`) with how many, as they flag a link a
//! hunk adds to a missing note. A heading renamed in place is not taken
//! out: its links are rewritten to follow it (see [`super::relink`]).

use super::relink::renamed_headings;
use crate::edits::FileProposal;
use crate::hunks::DiffBundle;
use crate::hunks::triage::{RiskFlag, Rule, markdown};
use crate::links::{self, Vault};
use crate::project::View;
use crate::tools::links::{naming, stem};

/// A heading a proposal takes out, with the links to it it leaves.
#[derive(Debug)]
pub(super) struct Broken {
    /// The note.
    file: String,
    /// The heading's line in the note before the proposal (0-based).
    line: usize,
    /// Its text.
    heading: String,
    /// The links that point at it, in the note and elsewhere.
    links: usize,
}

/// The headings `proposals` take out that links point at. Other notes are
/// read as `view` shows them.
pub(super) fn broken_headings(view: &View<'_>, proposals: &[FileProposal]) -> Vec<Broken> {
    let mut broken = Vec::new();
    for p in proposals
        .iter()
        .filter(|p| !p.created && p.file_path.to_ascii_lowercase().ends_with(".md"))
    {
        let removed = removed(&p.base, &p.proposed);
        if removed.is_empty() {
            continue;
        }
        let own = links::parse(&p.proposed);
        let others: Vec<(String, Vec<links::Link>)> = naming(view, [stem(&p.file_path)])
            .unwrap_or_default()
            .into_iter()
            .filter(|c| *c != p.file_path)
            .filter_map(|c| {
                let text = view.read_text(&c).ok()?.text;
                Some((c, links::parse(&text)))
            })
            .collect();
        let vault = view.with_paths(|paths| Vault::new(paths.iter().copied()));
        for (heading, line) in removed {
            let here = own
                .iter()
                .filter(|l| l.target.is_empty() && links::names_heading(l, &heading))
                .count();
            let elsewhere = others
                .iter()
                .flat_map(|(source, found)| found.iter().map(move |l| (source, l)))
                .filter(|(source, l)| {
                    links::names_heading(l, &heading)
                        && vault.resolve(l, source).file() == Some(p.file_path.as_str())
                })
                .count();
            if here + elsewhere > 0 {
                broken.push(Broken {
                    file: p.file_path.clone(),
                    line,
                    heading,
                    links: here + elsewhere,
                });
            }
        }
    }
    broken
}

/// Flags, in `bundle`, the hunk that takes out each of `broken`.
pub(super) fn flag(bundle: &mut DiffBundle, broken: &[Broken]) {
    for b in broken {
        let Some(diff) = bundle.files.iter_mut().find(|d| d.file_path == b.file) else {
            continue;
        };
        let Some(hunk) = diff
            .hunks
            .iter_mut()
            .find(|h| h.old_start <= b.line && b.line < h.old_start + h.old_lines)
        else {
            continue;
        };
        // The worst first: a link that leads nowhere leads.
        hunk.flags.insert(
            0,
            RiskFlag::new(
                Rule::DeadLink,
                format!(
                    "takes out the heading “{}”, which {} link{} point{} to; {} will lead nowhere",
                    b.heading,
                    b.links,
                    if b.links == 1 { "" } else { "s" },
                    if b.links == 1 { "s" } else { "" },
                    if b.links == 1 { "it" } else { "they" },
                ),
            ),
        );
    }
}

/// The headings of `base` (text, 0-based line) that `proposed` no longer
/// has, outside code blocks, a heading renamed in place aside.
fn removed(base: &str, proposed: &str) -> Vec<(String, usize)> {
    fn headings(text: &str) -> Vec<(String, usize)> {
        let code = markdown::code_blocks(text);
        text.split_inclusive('\n')
            .enumerate()
            .filter(|(i, _)| !code.iter().any(|block| block.contains(i)))
            .filter_map(|(i, line)| Some((markdown::heading(line)?.to_owned(), i)))
            .collect()
    }
    if !base.contains('#') {
        return Vec::new();
    }
    let after = headings(proposed);
    let renamed = renamed_headings(base, proposed);
    headings(base)
        .into_iter()
        .filter(|(h, _)| !after.iter().any(|(a, _)| links::same_heading(a, h)))
        .filter(|(h, _)| !renamed.iter().any(|(old, _, _)| old == h))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::removed;

    #[test]
    fn a_heading_taken_out_is_removed_one_renamed_in_place_is_not() {
        let base = "# Plan\n\n## Objectifs\n\nA.\n\n## Étapes\n\nB.\n";
        assert_eq!(
            removed(base, "# Plan\n\n## Objectifs\n\nA.\n"),
            vec![("Étapes".to_owned(), 6)]
        );
        assert!(removed(base, "# Plan\n\n## Buts\n\nA.\n\n## Étapes\n\nB.\n").is_empty());
        assert!(removed("```\n# not a heading\n```\n", "").is_empty());
    }
}
