//! Triage: what the reviewer of a big change needs first. The hunks of a
//! job that make the same change form [patterns](patterns) decided at once,
//! and each hunk is marked with the [risks](flags) that deserve a look, so
//! a 5,000-note change is reviewed as a few patterns and a few flagged
//! hunks rather than accepted blind.
//!
//! Both are worked out once, when a proposal is staged, from the files as
//! the job found them and as it proposed them; they are kept with the job's
//! diff bundle.

mod flags;
pub(crate) mod markdown;
mod patterns;

use std::collections::BTreeSet;

pub use flags::{RiskFlag, Rule, at_risk};
pub use patterns::Pattern;

use crate::edits::FileProposal;
use crate::hunks::DiffBundle;
use crate::hunks::words::line_starts;

/// What the rules know of the job besides its proposal.
#[derive(Clone, Copy, Debug)]
pub struct JobContext<'a> {
    /// The request: deletions it asks for are not flagged as unasked.
    pub instruction: &'a str,
    /// The user's answers to the job's questions, part of the request too.
    pub answers: &'a [String],
    /// The files the job read or found by searching; `None` when unknown
    /// (then no hunk is flagged for touching a file it never saw).
    pub seen: Option<&'a BTreeSet<String>>,
}

/// Each hunk's pattern and risks, in the bundle's order, and the patterns.
#[derive(Clone, Debug)]
pub struct Assessment {
    marks: Vec<(Option<String>, Vec<RiskFlag>)>,
    patterns: Vec<Pattern>,
}

impl Assessment {
    /// Puts the marks on the hunks of `bundle` (the one assessed) and its
    /// patterns on the bundle.
    pub fn mark(self, bundle: &mut DiffBundle) {
        let hunks = bundle.files.iter_mut().flat_map(|f| &mut f.hunks);
        for (hunk, (pattern, flags)) in hunks.zip(self.marks) {
            hunk.pattern = pattern;
            hunk.flags = flags;
        }
        bundle.patterns = self.patterns;
    }
}

/// Works out the pattern and the risks of every hunk of `bundle` without
/// touching it (so that staging can read the bundle meanwhile).
/// `proposals` are the files of the bundle, in the same order; `notes`
/// lists every file of the project as it will be with the proposal (for
/// links to missing notes); it is called only when a hunk adds a link.
pub fn assess(
    proposals: &[FileProposal],
    bundle: &DiffBundle,
    job: &JobContext<'_>,
    notes: impl FnOnce() -> Vec<String>,
) -> Assessment {
    let mut changes = Vec::new();
    let mut files = Vec::new();
    for (f, (proposal, diff)) in proposals.iter().zip(&bundle.files).enumerate() {
        let (old, new) = (line_starts(&proposal.base), line_starts(&proposal.proposed));
        for hunk in &diff.hunks {
            let before = slice(&proposal.base, &old, hunk.old_start, hunk.old_lines);
            let after = slice(&proposal.proposed, &new, hunk.new_start, hunk.new_lines);
            changes.push(patterns::change_of(before, after));
            files.push(f);
        }
    }
    let (found, member) = patterns::group(&changes, &files);
    let mut rules = flags::Rules::new(job, &found, &member, notes);
    let mut marks = Vec::with_capacity(member.len());
    let mut i = 0;
    for (proposal, diff) in proposals.iter().zip(&bundle.files) {
        let file = flags::FileTexts::new(proposal, &diff.hunks);
        for hunk in &diff.hunks {
            let pattern = member[i].map(|p| found[p].pattern_id.clone());
            marks.push((pattern, rules.flags(&file, hunk, i)));
            i += 1;
        }
    }
    let mut found = found;
    lift_shared_flags(&mut found, &member, &mut marks);
    Assessment {
        marks,
        patterns: found,
    }
}

/// Raises a risk every hunk of a pattern has (the same rule, for the same
/// reason) once, on the pattern, and takes it off the hunks: flagged on
/// all 5,000 hunks of a rename, it would hide the two that differ.
fn lift_shared_flags(
    patterns: &mut [Pattern],
    member: &[Option<usize>],
    marks: &mut [(Option<String>, Vec<RiskFlag>)],
) {
    let mut of: Vec<Vec<usize>> = vec![Vec::new(); patterns.len()];
    for (i, p) in member.iter().enumerate() {
        if let Some(p) = p {
            of[*p].push(i);
        }
    }
    for (pattern, hunks) in patterns.iter_mut().zip(of) {
        let Some(&first) = hunks.first() else {
            continue;
        };
        if marks[first].1.is_empty() {
            continue;
        }
        let shared: Vec<RiskFlag> = marks[first]
            .1
            .iter()
            .filter(|flag| hunks.iter().all(|&h| marks[h].1.contains(flag)))
            .cloned()
            .collect();
        for flag in &shared {
            for &h in &hunks {
                marks[h].1.retain(|f| f != flag);
            }
        }
        pattern.flags = shared
            .into_iter()
            .map(|flag| {
                RiskFlag::new(
                    flag.rule,
                    format!("all {}: {}", pattern.hunks, flag.reason),
                )
            })
            .collect();
    }
}

/// Lines `start..start + len` of `text`, whose line starts are `starts`.
fn slice<'t>(text: &'t str, starts: &[usize], start: usize, len: usize) -> &'t str {
    let at = |line: usize| starts.get(line).copied().unwrap_or(text.len());
    &text[at(start)..at(start + len)]
}

#[cfg(test)]
mod tests;
