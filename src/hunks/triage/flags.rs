//! Risk flags: the reasons a hunk deserves a look, by rules a reviewer can
//! read. Most of what an agent damages over a long edit comes from rare,
//! large mistakes hidden among good edits — a dropped section, a truncated
//! note — so these rules look for exactly those, and stay quiet on the
//! ordinary one-line change:
//!
//! | rule | a hunk is flagged when |
//! |---|---|
//! | [`DeletesSection`](Rule::DeletesSection) | it takes out a heading with its section, more than [`MAX_LINES`] lines or more than [`MAX_CHARS`] characters (net), and the request asks for no deletion |
//! | [`ShrinksNote`](Rule::ShrinksNote) | its file ends up empty, or a third smaller (a note of at least [`MIN_SHRINK_BYTES`]), and this hunk takes text out |
//! | [`FrontMatter`](Rule::FrontMatter) | it leaves front matter that no longer parses, or drops a key (unless the request asks for a deletion) |
//! | [`DeadLink`](Rule::DeadLink) | it adds a link to a note or file that does not exist, or takes out a heading links point at (`workspace::headings`) |
//! | [`CodeBlock`](Rule::CodeBlock) | it changes lines of a fenced code block |
//! | [`TableShape`](Rule::TableShape) | it leaves a table whose rows differ in their number of cells, or changes a table's number of columns |
//! | [`UnreadFile`](Rule::UnreadFile) | its file is one the job never read or found by searching |
//! | [`WholeFile`](Rule::WholeFile) | the job's hunks in its file, together, replace nine tenths of the non-blank lines of a file of at least [`WHOLE_FILE_LINES`] lines |
//! | [`BreaksPattern`](Rule::BreaksPattern) | the job's largest pattern holds nine tenths of its hunks (at least [`PATTERN_MIN`]) and this hunk is not in it |
//! | [`DeletesLinkedNote`](Rule::DeletesLinkedNote) | it deletes a whole note that links elsewhere resolve to (the count in its reason); set when the deletion is staged |

use std::collections::{BTreeSet, HashSet};

use serde::{Deserialize, Serialize};

use super::markdown;
use super::patterns::Pattern;
use super::{JobContext, slice};
use crate::edits::FileProposal;
use crate::hunks::Hunk;
use crate::hunks::words::line_starts;
use crate::links::{self, Link, Vault};

/// Lines a hunk may take out before it is flagged as an unasked deletion.
pub const MAX_LINES: usize = 5;
/// Characters (net) a hunk may take out before it is flagged.
pub const MAX_CHARS: usize = 300;
/// The smallest note whose shrinking by a third is flagged (bytes).
pub const MIN_SHRINK_BYTES: usize = 120;
/// The smallest file whose rewrite as a whole is flagged (lines).
pub const WHOLE_FILE_LINES: usize = 8;
/// The fewest hunks of a pattern whose outliers are flagged.
pub const PATTERN_MIN: usize = 10;

/// Words in a request that ask for text to go; with one, deletions are not
/// flagged as unasked.
const DELETION_WORDS: &[&str] = &[
    "delete",
    "remove",
    "drop",
    "cut",
    "trim",
    "strip",
    "prune",
    "clear",
    "erase",
    "shorten",
    "condense",
    "shrink",
    "merge",
    "consolidate",
    "rewrite",
    "empty",
];

/// Why a hunk deserves a look, declared from the most severe: what breaks
/// the vault or loses text (a link, a note, a section, front matter), then
/// a change of shape, then a file the job never read. A hunk lists its
/// flags in this order, and the review lists the worst first.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS,
)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// It links to a note that does not exist, or takes out a heading that
    /// links point at.
    DeadLink,
    /// It deletes a note other notes link to.
    DeletesLinkedNote,
    /// It deletes a section or many lines the request did not ask to delete.
    DeletesSection,
    /// It empties its note or cuts it by more than a third.
    ShrinksNote,
    /// It breaks the front matter or drops one of its keys.
    FrontMatter,
    /// It rewrites the whole file.
    WholeFile,
    /// It changes a table's shape.
    TableShape,
    /// It changes a fenced code block.
    CodeBlock,
    /// It breaks the pattern the rest of the job follows.
    BreaksPattern,
    /// It touches a file the job never read or searched: worth knowing, and
    /// said once per run rather than on every hunk's row.
    UnreadFile,
}

impl Rule {
    /// Whether a hunk it flags is one to look at first: every rule but an
    /// unread file, which is worth knowing and said once per run rather
    /// than counted among a run's flagged hunks (or kept out of its
    /// unflagged ones).
    pub fn is_risk(self) -> bool {
        self != Rule::UnreadFile
    }
}

/// Whether `flags` hold a risk (see [`Rule::is_risk`]).
pub fn at_risk(flags: &[RiskFlag]) -> bool {
    flags.iter().any(|f| f.rule.is_risk())
}

/// One reason a hunk deserves a look.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(from = "StoredFlag")]
pub struct RiskFlag {
    /// The rule that flagged it.
    pub rule: Rule,
    /// What it found, in words for the reviewer.
    pub reason: String,
    /// How severe its rule is: 0 for the worst, counting up (the order
    /// [`Rule`] is declared in), so that a client lists the worst first
    /// without knowing the rules.
    pub severity: u8,
    /// Whether it is a risk (see [`Rule::is_risk`]): a hunk to look at
    /// first, rather than something said once per run.
    pub risk: bool,
}

impl RiskFlag {
    /// A flag of `rule`, saying `reason`.
    pub fn new(rule: Rule, reason: String) -> RiskFlag {
        RiskFlag {
            rule,
            reason,
            severity: rule as u8,
            risk: rule.is_risk(),
        }
    }
}

/// A flag as stored and read back: its severity and risk follow from its
/// rule, so flags recorded before they were said read the same.
#[derive(Deserialize)]
struct StoredFlag {
    rule: Rule,
    reason: String,
}

impl From<StoredFlag> for RiskFlag {
    fn from(flag: StoredFlag) -> RiskFlag {
        RiskFlag::new(flag.rule, flag.reason)
    }
}

/// One file of a proposal, with what the rules read of it.
pub(super) struct FileTexts<'a> {
    proposal: &'a FileProposal,
    old_starts: Vec<usize>,
    new_starts: Vec<usize>,
    /// Non-blank lines of the base, and how many of them the hunks replace.
    written: (usize, usize),
}

impl<'a> FileTexts<'a> {
    pub(super) fn new(proposal: &'a FileProposal, hunks: &[Hunk]) -> FileTexts<'a> {
        let old_starts = line_starts(&proposal.base);
        let filled = |from: usize, to: usize| {
            (from..to)
                .filter(|&l| !slice(&proposal.base, &old_starts, l, 1).trim().is_empty())
                .count()
        };
        let lines = old_starts.len() - 1;
        let replaced = hunks
            .iter()
            .map(|h| filled(h.old_start, (h.old_start + h.old_lines).min(lines)))
            .sum();
        FileTexts {
            written: (filled(0, lines), replaced),
            new_starts: line_starts(&proposal.proposed),
            old_starts,
            proposal,
        }
    }

    fn before(&self, hunk: &Hunk) -> &'a str {
        slice(
            &self.proposal.base,
            &self.old_starts,
            hunk.old_start,
            hunk.old_lines,
        )
    }

    fn after(&self, hunk: &Hunk) -> &'a str {
        slice(
            &self.proposal.proposed,
            &self.new_starts,
            hunk.new_start,
            hunk.new_lines,
        )
    }

    fn base_lines(&self) -> usize {
        self.old_starts.len() - 1
    }

    /// The base with only `hunk` applied.
    fn alone(&self, hunk: &Hunk) -> String {
        let base = &self.proposal.base;
        let at = |line: usize| self.old_starts.get(line).copied().unwrap_or(base.len());
        let (from, to) = (at(hunk.old_start), at(hunk.old_start + hunk.old_lines));
        format!("{}{}{}", &base[..from], self.after(hunk), &base[to..])
    }
}

/// The rules, with what they know of the whole job.
pub(super) struct Rules<'a, N> {
    job: &'a JobContext<'a>,
    /// Each hunk's pattern, by index.
    member: &'a [Option<usize>],
    /// The pattern the job follows: its largest, when that holds nine
    /// tenths of its hunks (pattern 0).
    dominant: Option<&'a Pattern>,
    deletion_asked: bool,
    notes: Option<N>,
    vault: Option<Vault>,
}

impl<'a, N: FnOnce() -> Vec<String>> Rules<'a, N> {
    pub(super) fn new(
        job: &'a JobContext<'a>,
        patterns: &'a [Pattern],
        member: &'a [Option<usize>],
        notes: N,
    ) -> Rules<'a, N> {
        let total = member.len();
        let dominant = patterns
            .first()
            .filter(|p| p.hunks >= PATTERN_MIN && p.hunks * 10 >= total * 9);
        let deletion_asked = std::iter::once(job.instruction)
            .chain(job.answers.iter().map(String::as_str))
            .flat_map(|text| text.split(|c: char| !c.is_alphanumeric()))
            .any(|w| {
                let w = w.to_lowercase();
                DELETION_WORDS.iter().any(|d| w.starts_with(d))
            });
        Rules {
            job,
            member,
            dominant,
            deletion_asked,
            notes: Some(notes),
            vault: None,
        }
    }

    /// The flags of `hunk`, the `index`th hunk of the job, in `file`.
    pub(super) fn flags(
        &mut self,
        file: &FileTexts<'_>,
        hunk: &Hunk,
        index: usize,
    ) -> Vec<RiskFlag> {
        let (old, new) = (file.before(hunk), file.after(hunk));
        let created = file.proposal.created;
        let mut out = Vec::new();
        let mut flag = |rule, reason: String| out.push(RiskFlag::new(rule, reason));
        if !created
            && !self.deletion_asked
            && let Some(reason) = deletion(old, new)
        {
            flag(Rule::DeletesSection, reason);
        }
        if !created
            && old.len() > new.len()
            && let Some(reason) = shrink(&file.proposal.base, &file.proposal.proposed)
        {
            flag(Rule::ShrinksNote, reason);
        }
        if let Some(reason) = self.front_matter(file, hunk) {
            flag(Rule::FrontMatter, reason);
        }
        for reason in self.dead_links(&file.proposal.file_path, old, new) {
            flag(Rule::DeadLink, reason);
        }
        if let Some(reason) = code_block(&file.proposal.base, hunk) {
            flag(Rule::CodeBlock, reason);
        }
        if let Some(reason) = table_shape(file, hunk, old, new) {
            flag(Rule::TableShape, reason);
        }
        if let Some(seen) = self.job.seen
            && !created
            && !seen.contains(&file.proposal.file_path)
        {
            flag(
                Rule::UnreadFile,
                "the job never read this file or found it by searching".into(),
            );
        }
        let (filled, replaced) = file.written;
        if !created
            && file.base_lines() >= WHOLE_FILE_LINES
            && hunk.old_lines > 0
            && replaced * 10 >= filled * 9
        {
            flag(
                Rule::WholeFile,
                format!(
                    "is part of a rewrite of the whole file ({replaced} of its {filled} lines with text)"
                ),
            );
        }
        if let Some(p) = self.dominant
            && self.member[index] != Some(0)
        {
            flag(
                Rule::BreaksPattern,
                format!(
                    "breaks the pattern the rest of the job follows: “{}” → “{}” in {} hunks",
                    p.removed, p.inserted, p.hunks
                ),
            );
        }
        out.sort_by_key(|f| f.rule);
        out
    }

    fn front_matter(&self, file: &FileTexts<'_>, hunk: &Hunk) -> Option<String> {
        let before = markdown::front_matter(&file.proposal.base);
        // Only a hunk in (or just after) the front matter can change it.
        let reach = before.as_ref().map_or(1, |fm| fm.lines.end);
        if hunk.old_start > reach {
            return None;
        }
        let alone = file.alone(hunk);
        let after = markdown::front_matter(&alone);
        let had: Vec<String> = match before.map(|fm| fm.keys) {
            Some(Ok(keys)) => keys,
            Some(_) => return None, // It was broken before: not this hunk's doing.
            None => Vec::new(),
        };
        match after.map(|fm| fm.keys) {
            Some(Err(why)) => Some(format!("leaves front matter that no longer parses: {why}")),
            after if !self.deletion_asked => {
                let kept: BTreeSet<String> = after
                    .and_then(Result::ok)
                    .unwrap_or_default()
                    .into_iter()
                    .collect();
                let dropped: Vec<String> = had.into_iter().filter(|k| !kept.contains(k)).collect();
                (!dropped.is_empty()).then(|| {
                    format!(
                        "drops the front-matter key{} `{}`",
                        if dropped.len() > 1 { "s" } else { "" },
                        dropped.join("`, `")
                    )
                })
            }
            _ => None,
        }
    }

    fn dead_links(&mut self, path: &str, old: &str, new: &str) -> Vec<String> {
        // A link is known by its kind and the path it names; one the hunk
        // only kept (it was in the old text too) is not the hunk's doing.
        let key = |l: &Link| (l.is_wiki(), l.path().into_owned());
        let added = links::parse(new);
        if added.is_empty() {
            return Vec::new();
        }
        let had: BTreeSet<(bool, String)> = links::parse(old).iter().map(key).collect();
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for link in &added {
            let k = key(link);
            // A link to a heading of this very note names no file.
            if k.1.is_empty() || had.contains(&k) || !seen.insert(k) {
                continue;
            }
            let vault = self.vault.get_or_insert_with(|| {
                Vault::new(self.notes.take().map(|n| n()).unwrap_or_default())
            });
            if vault.resolve(link, path).is_dangling() {
                out.push(if link.is_wiki() {
                    format!("links to [[{}]], but no note is called that", link.path())
                } else {
                    format!("links to `{}`, which does not exist", link.path())
                });
            }
        }
        out
    }
}

/// Why `old` → `new` is a deletion worth a look, if it is.
fn deletion(old: &str, new: &str) -> Option<String> {
    let lines = |t: &str| {
        t.split_inclusive('\n')
            .filter(|l| !l.trim().is_empty())
            .count()
    };
    let removed = lines(old).saturating_sub(lines(new));
    let kept: HashSet<&str> = new.lines().filter_map(markdown::heading).collect();
    if removed > 0
        && let Some(title) = old
            .lines()
            .filter_map(markdown::heading)
            .find(|h| !kept.contains(h))
    {
        return Some(format!(
            "deletes the section “{title}” ({removed} lines) though the request asks for no deletion"
        ));
    }
    if removed > MAX_LINES {
        return Some(format!(
            "deletes {removed} lines though the request asks for no deletion"
        ));
    }
    let chars = old.chars().count().saturating_sub(new.chars().count());
    (chars > MAX_CHARS)
        .then(|| format!("deletes {chars} characters though the request asks for no deletion"))
}

/// Why a note going from `base` to `proposed` is cut too much, if it is.
fn shrink(base: &str, proposed: &str) -> Option<String> {
    if base.trim().is_empty() {
        return None;
    }
    if proposed.trim().is_empty() {
        return Some("empties the note".into());
    }
    (base.len() >= MIN_SHRINK_BYTES && proposed.len() * 3 < base.len() * 2).then(|| {
        format!(
            "cuts the note from {} to {} bytes (−{}%)",
            base.len(),
            proposed.len(),
            100 - proposed.len() * 100 / base.len()
        )
    })
}

/// Why `hunk` touches a fenced code block of `base`, if it does.
fn code_block(base: &str, hunk: &Hunk) -> Option<String> {
    let (from, to) = (hunk.old_start, hunk.old_start + hunk.old_lines);
    markdown::code_blocks(base)
        .into_iter()
        .find(|b| {
            if from == to {
                b.start < from && from < b.end
            } else {
                b.start < to && from < b.end
            }
        })
        .map(|b| {
            format!(
                "changes the fenced code block of lines {}–{}",
                b.start + 1,
                b.end
            )
        })
}

/// Why `hunk` changes a table's shape, if it does.
fn table_shape(file: &FileTexts<'_>, hunk: &Hunk, old: &str, new: &str) -> Option<String> {
    if !old.contains('|') && !new.contains('|') {
        return None;
    }
    let near = |text: &str, from: usize, len: usize| {
        markdown::tables(text)
            .into_iter()
            .find(|t| t.start <= from + len && from <= t.end)
            .map(|t| {
                text.lines()
                    .skip(t.start)
                    .take(t.len())
                    .map(markdown::columns)
                    .collect::<Vec<_>>()
            })
    };
    let after = near(&file.proposal.proposed, hunk.new_start, hunk.new_lines)?;
    let (least, most) = (after.iter().min()?, after.iter().max()?);
    if least != most {
        return Some(format!(
            "leaves a table whose rows have {least} and {most} cells"
        ));
    }
    let before = near(&file.proposal.base, hunk.old_start, hunk.old_lines)?;
    let was = before.first()?;
    (was != most).then(|| format!("changes a table from {was} to {most} columns"))
}
