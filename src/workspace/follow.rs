//! Which hunks follow which moves, worked out when a proposal is staged: a
//! move's own link updates, and later hunks that link to where it goes.

use std::collections::HashMap;

use super::relink;
use crate::edits::{FileOp, FileProposal};
use crate::hunks::DiffBundle;
use crate::hunks::triage::{RiskFlag, Rule};
use crate::links;
use crate::project::View;
use crate::review::Review;

/// Makes each hunk of `bundle` whose new text writes a link to a note at a
/// path only a move gives it (one of the proposal's, or one that counts in
/// `review`) follow that move, as its link updates do: rejecting the move
/// would leave the link dangling, so it rejects the hunk too. `view` is
/// the working state the proposal was made against. Returns every (move,
/// hunk) pair, to be tied as a hunk that needs the move (the proposal's
/// own moves list theirs for the window too).
pub(super) fn follow_link_targets(
    review: &Review,
    view: &View<'_>,
    proposals: &[FileProposal],
    bundle: &mut DiffBundle,
) -> Vec<(String, String)> {
    // Each path a counting move shows a note at, with the move's hunk, or
    // the index of the proposal's own move.
    let mut targets: HashMap<String, Result<String, usize>> = HashMap::new();
    for file in review.files() {
        if let Some(op) = file.op()
            && let FileOp::Move { to } = &op.op
            && file.entries()[op.entry].in_buffer()
            && let Some(hunk) = &file.entries()[op.entry].hunk_id
        {
            targets.insert(to.clone(), Ok(hunk.clone()));
        }
    }
    for (k, op) in bundle.file_ops.iter().enumerate() {
        if let FileOp::Move { to } = &op.op {
            targets.insert(to.clone(), Err(k));
        }
    }
    if targets.is_empty() {
        return Vec::new();
    }
    let vault = view.with_paths(|paths| {
        links::Vault::new(
            paths
                .iter()
                .copied()
                .chain(targets.keys().map(String::as_str)),
        )
    });
    let mut earlier = Vec::new();
    for proposal in proposals
        .iter()
        .filter(|p| p.file_path.to_ascii_lowercase().ends_with(".md"))
    {
        let Some(f) = bundle
            .files
            .iter()
            .position(|d| d.file_path == proposal.file_path)
        else {
            continue;
        };
        let source = review
            .file(&proposal.file_path)
            .and_then(|file| file.view_path())
            .unwrap_or(&proposal.file_path);
        for link in links::parse(&proposal.proposed) {
            let Some(Some(leader)) = vault.resolve(&link, source).file().map(|t| targets.get(t))
            else {
                continue;
            };
            let line = proposal.proposed[..link.span.start].matches('\n').count();
            let Some(hunk) = bundle.files[f]
                .hunks
                .iter()
                .find(|h| h.new_start <= line && line < h.new_start + h.new_lines.max(1))
            else {
                continue;
            };
            // A link the lines had as often before is not one this hunk
            // wrote (a later move's link update keeps an earlier one's).
            let written = &proposal.proposed[link.span.clone()];
            let lines = |text: &str, from: usize, n: usize| -> String {
                text.split_inclusive('\n').skip(from).take(n).collect()
            };
            let after = lines(&proposal.proposed, hunk.new_start, hunk.new_lines);
            let before = lines(&proposal.base, hunk.old_start, hunk.old_lines);
            if after.matches(written).count() <= before.matches(written).count() {
                continue;
            }
            let follower = hunk.hunk_id.clone();
            match leader {
                Ok(leader) => {
                    let pair = (leader.clone(), follower);
                    if !earlier.contains(&pair) {
                        earlier.push(pair);
                    }
                }
                Err(k) => {
                    // Listed with the move for the window, and tied to it
                    // as a hunk that needs it, unless it is one of the
                    // move's own link updates (listed already).
                    let op = &mut bundle.file_ops[*k];
                    if !op.followers.contains(&follower) {
                        earlier.push((op.hunk_id.clone(), follower.clone()));
                        op.followers.push(follower);
                    }
                }
            }
        }
    }
    earlier
}

/// Puts on each move of `bundle` the hunks of the links it rewrote (and on
/// each deletion its note's backlinks, as a flag), from `relinked`.
pub(super) fn follow_moves(bundle: &mut DiffBundle, relinked: &relink::Relinked) {
    /// The hunk of `bundle` whose new lines hold line `line` of `path`.
    fn hunk_at(bundle: &DiffBundle, path: &str, line: usize) -> Option<(usize, usize)> {
        let f = bundle.files.iter().position(|d| d.file_path == path)?;
        let h = bundle.files[f]
            .hunks
            .iter()
            .position(|h| h.new_start <= line && line < h.new_start + h.new_lines.max(1))?;
        Some((f, h))
    }
    for (path, line, leader) in &relinked.links {
        let Some((f, h)) = hunk_at(bundle, path, *line) else {
            continue;
        };
        let follower = bundle.files[f].hunks[h].hunk_id.clone();
        let followers = match leader {
            relink::Leader::Op(k) => &mut bundle.file_ops[*k].followers,
            relink::Leader::Heading(note, at) => {
                let Some((lf, lh)) = hunk_at(bundle, note, *at) else {
                    continue;
                };
                if (lf, lh) == (f, h) {
                    // A link in the same lines as the heading it follows.
                    continue;
                }
                &mut bundle.files[lf].hunks[lh].followers
            }
        };
        if !followers.contains(&follower) {
            followers.push(follower);
        }
    }
    for (k, op) in bundle.file_ops.iter_mut().enumerate() {
        op.ambiguous_links = relinked.ambiguous[k].clone();
        let links = relinked.backlinks[k];
        if op.op == FileOp::Delete && links > 0 {
            op.flags.push(RiskFlag::new(
                Rule::DeletesLinkedNote,
                format!(
                    "deletes a note that {links} link{} elsewhere point{} to; they will be broken",
                    if links == 1 { "" } else { "s" },
                    if links == 1 { "s" } else { "" },
                ),
            ));
        }
        if !op.ambiguous_links.is_empty() {
            op.flags.push(RiskFlag::new(
                Rule::DeadLink,
                format!(
                    "{} link{} that several notes answer to {} left as written: check {}",
                    op.ambiguous_links.len(),
                    if op.ambiguous_links.len() == 1 {
                        ""
                    } else {
                        "s"
                    },
                    if op.ambiguous_links.len() == 1 {
                        "is"
                    } else {
                        "are"
                    },
                    op.ambiguous_links.join(", "),
                ),
            ));
        }
    }
}
