//! Hunks: the reviewable pieces of a proposal.
//!
//! Hunks come from a line diff (`similar`, with a deadline) between a file's
//! base and its proposed content, never from the edit list; the edits only
//! say which hunk came from which edit. A hunk over the size limits is split
//! at edit boundaries, then after blank lines, then after sentence ends; one
//! that still cannot be split is marked `oversized_hunk`.

mod file_ops;
pub mod patch;
pub mod triage;
pub(crate) mod words;

use std::collections::HashMap;
use std::time::Duration;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use similar::{Algorithm, DiffOp, TextDiff};

use crate::edits::lines::content;
use crate::edits::{FileProposal, PlacedEdit};
pub use file_ops::{FileOpHunk, file_op_hunks};
use triage::{Pattern, RiskFlag};

/// Size limits of one hunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HunkLimits {
    /// Most changed lines (removed plus added) in a hunk. Default 80.
    pub max_lines: usize,
    /// Most changed bytes in a hunk. Default 8192.
    pub max_bytes: usize,
    /// How long one file's diff may take before it settles for a coarser one. Default 500 ms.
    pub deadline: Duration,
}

impl Default for HunkLimits {
    fn default() -> Self {
        HunkLimits {
            max_lines: 80,
            max_bytes: 8192,
            deadline: Duration::from_millis(500),
        }
    }
}

/// Lines of unchanged text shown around a hunk in its patch.
pub const CONTEXT_LINES: usize = 3;

/// One reviewable change in one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Hunk {
    /// Stable id within a bundle: `h_1`, `h_2`, ...
    pub hunk_id: String,
    /// A unified diff of this hunk alone against the base; `git apply` and
    /// GNU `patch` accept it.
    pub patch: String,
    /// The review decision: `null` while pending.
    pub accepted: Option<bool>,
    /// The edits this hunk came from.
    pub edit_ids: Vec<String>,
    /// First base line it replaces (0-based).
    pub old_start: usize,
    /// Base lines it replaces.
    pub old_lines: usize,
    /// First line of its text in the proposed content (0-based).
    pub new_start: usize,
    /// Lines of its text.
    pub new_lines: usize,
    /// Still over the size limits after splitting; review it as one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub oversized_hunk: bool,
    /// The pattern of its job it belongs to (see [`triage`]), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub pattern: Option<String>,
    /// Why it deserves a look (see [`triage::flags`]); empty when nothing does.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<_>", optional)]
    pub flags: Vec<RiskFlag>,
    /// The hunks of other files that follow it: the links the engine
    /// rewrote because it renamed a heading. Rejecting it rejects them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<_>", optional)]
    pub followers: Vec<String>,
}

/// The hunks of one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct FileDiff {
    /// The file, relative to the project root.
    pub file_path: String,
    /// `sha256:` of the file on disk when the proposal was made; `null` for a new file.
    pub base_file_hash: Option<String>,
    /// Whether the proposal creates the file.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub created: bool,
    /// Its hunks, in file order.
    pub hunks: Vec<Hunk>,
    /// Edits whose `old_text` was found away from the lines they named.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relocations: Vec<Relocation>,
}

/// An edit moved to where its `old_text` is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Relocation {
    /// The edit.
    pub edit_id: String,
    /// The first line it named (1-based).
    pub from_line: usize,
    /// The first line it was applied to (1-based).
    pub to_line: usize,
}

/// Everything a proposal changes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct DiffBundle {
    /// The job that proposed it, once there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub job_id: Option<String>,
    /// The files, sorted by path.
    pub files: Vec<FileDiff>,
    /// Its patterns, largest first: hunks that make the same change.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<_>", optional)]
    pub patterns: Vec<Pattern>,
    /// Its moves and deletions of whole files, by path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<_>", optional)]
    pub file_ops: Vec<FileOpHunk>,
}

impl DiffBundle {
    /// Every hunk's id, in order.
    pub fn hunk_ids(&self) -> impl Iterator<Item = &str> {
        self.file_ops.iter().map(|op| op.hunk_id.as_str()).chain(
            self.files
                .iter()
                .flat_map(|f| f.hunks.iter().map(|h| h.hunk_id.as_str())),
        )
    }

    /// How many hunks it has, whole-file operations included.
    pub fn hunk_count(&self) -> usize {
        self.file_ops.len() + self.files.iter().map(|f| f.hunks.len()).sum::<usize>()
    }

    /// Every file it touches, once each: those of its line hunks and of
    /// its whole-file operations.
    pub fn paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = self.files.iter().map(|f| f.file_path.clone()).collect();
        for op in &self.file_ops {
            if !paths.contains(&op.file_path) {
                paths.push(op.file_path.clone());
            }
        }
        paths
    }

    /// Whether `hunk_id` is one of its hunks.
    pub fn contains(&self, hunk_id: &str) -> bool {
        self.hunk_ids().any(|h| h == hunk_id)
    }

    /// Takes in `more`, a later staging of the same job (a run over many
    /// notes stages as they come back): its files in path order among
    /// these, a pattern making the same change as one of these counted in
    /// it (a risk it raised kept only where both raised it), the others
    /// numbered after these, so that no pattern id already shown changes.
    pub fn absorb(&mut self, more: DiffBundle) {
        let mut renamed: HashMap<String, String> = HashMap::new();
        let mut next = self.patterns.len();
        for pattern in more.patterns {
            let same = self
                .patterns
                .iter_mut()
                .find(|p| p.removed == pattern.removed && p.inserted == pattern.inserted);
            match same {
                Some(known) => {
                    known.hunks += pattern.hunks;
                    known.files += pattern.files;
                    known.flags.retain(|f| pattern.flags.contains(f));
                    renamed.insert(pattern.pattern_id, known.pattern_id.clone());
                }
                None => {
                    next += 1;
                    let id = format!("p{next}");
                    renamed.insert(pattern.pattern_id.clone(), id.clone());
                    self.patterns.push(Pattern {
                        pattern_id: id,
                        ..pattern
                    });
                }
            }
        }
        self.patterns.sort_by_key(|p| std::cmp::Reverse(p.hunks));
        for mut file in more.files {
            for hunk in &mut file.hunks {
                hunk.pattern = hunk.pattern.take().and_then(|p| renamed.get(&p).cloned());
            }
            let at = self
                .files
                .partition_point(|f| f.file_path < file.file_path);
            self.files.insert(at, file);
        }
        self.file_ops.extend(more.file_ops);
    }
}

/// Builds the bundle for `files`, numbering hunks from `h_1` in path order.
pub fn bundle(files: &[FileProposal], limits: &HunkLimits) -> DiffBundle {
    bundle_from(files, limits, 1)
}

/// [`bundle`], numbering hunks from `h_<first>`, so ids stay unique across runs.
pub fn bundle_from(files: &[FileProposal], limits: &HunkLimits, first: u64) -> DiffBundle {
    // Files are diffed on every core, then their hunks numbered in order.
    let mut files: Vec<FileDiff> = files
        .par_iter()
        .with_min_len(64)
        .map(|file| file_diff(file, limits))
        .collect();
    for (i, hunk) in files.iter_mut().flat_map(|f| &mut f.hunks).enumerate() {
        hunk.hunk_id = format!("h_{}", first + i as u64);
    }
    DiffBundle {
        job_id: None,
        files,
        patterns: Vec::new(),
        file_ops: Vec::new(),
    }
}

/// A change block: base lines `old` replaced by proposed lines `new`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Block {
    old_start: usize,
    old_len: usize,
    new_start: usize,
    new_len: usize,
}

/// A file's diff; its hunks are numbered by the caller.
fn file_diff(file: &FileProposal, limits: &HunkLimits) -> FileDiff {
    // Raw lines: a BOM stays on line 1, so patches carry it as the file does.
    // Edits keep the BOM, so the numbering matches `Lines`.
    let base: Vec<&str> = file.base.split_inclusive('\n').collect();
    let new: Vec<&str> = file.proposed.split_inclusive('\n').collect();
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .timeout(limits.deadline)
        .diff_slices(&base, &new);

    let mut hunks = Vec::new();
    for block in blocks(diff.ops()) {
        for piece in split(block, &base, &new, &file.edits, limits) {
            let new_text = &new[piece.new_start..piece.new_start + piece.new_len];
            let oversized = !fits(piece, &base, &new, limits);
            hunks.push(Hunk {
                hunk_id: String::new(),
                patch: patch::render(
                    &file.file_path,
                    file.created,
                    &base,
                    piece.old_start,
                    piece.old_len,
                    new_text,
                    CONTEXT_LINES,
                ),
                accepted: None,
                edit_ids: edits_of(piece, &file.edits),
                old_start: piece.old_start,
                old_lines: piece.old_len,
                new_start: piece.new_start,
                new_lines: piece.new_len,
                oversized_hunk: oversized,
                pattern: None,
                flags: Vec::new(),
                followers: Vec::new(),
            });
        }
    }
    FileDiff {
        file_path: file.file_path.clone(),
        base_file_hash: file.base_file_hash.clone(),
        created: file.created,
        hunks,
        relocations: file
            .edits
            .iter()
            .filter_map(|e| {
                e.relocated_from.map(|from_line| Relocation {
                    edit_id: e.edit_id.clone(),
                    from_line,
                    to_line: e.old_start + 1,
                })
            })
            .collect(),
    }
}

/// Merges runs of non-equal diff ops into blocks.
fn blocks(ops: &[DiffOp]) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    let mut open = false;
    for op in ops {
        let (_, old, new) = op.as_tag_tuple();
        if matches!(op, DiffOp::Equal { .. }) {
            open = false;
            continue;
        }
        match out.last_mut() {
            Some(b) if open => {
                b.old_len = old.end - b.old_start;
                b.new_len = new.end - b.new_start;
            }
            _ => out.push(Block {
                old_start: old.start,
                old_len: old.len(),
                new_start: new.start,
                new_len: new.len(),
            }),
        }
        open = true;
    }
    out
}

fn fits(b: Block, base: &[&str], new: &[&str], limits: &HunkLimits) -> bool {
    let bytes: usize = base[b.old_start..b.old_start + b.old_len]
        .iter()
        .chain(&new[b.new_start..b.new_start + b.new_len])
        .map(|l| l.len())
        .sum();
    b.old_len + b.new_len <= limits.max_lines && bytes <= limits.max_bytes
}

/// Splits an oversized block; each kind of cut is tried in turn on the pieces
/// the previous kind left oversized.
fn split(
    block: Block,
    base: &[&str],
    new: &[&str],
    edits: &[PlacedEdit],
    limits: &HunkLimits,
) -> Vec<Block> {
    let mut pieces = vec![block];
    let blank = |l: &str| content(l).trim().is_empty();
    let sentence = |l: &str| content(l).trim_end().ends_with(['.', '!', '?', ':', ';']);
    for kind in 0..3 {
        let mut next = Vec::new();
        for piece in pieces {
            if fits(piece, base, new, limits) {
                next.push(piece);
                continue;
            }
            let mut cuts = match kind {
                0 => edit_cuts(piece, edits),
                1 => line_cuts(piece, base, new, blank),
                _ => line_cuts(piece, base, new, sentence),
            };
            cuts.retain(|&at| keeps_last_line_last(at, base, new));
            next.extend(cut(piece, &cuts, base, new, limits));
        }
        pieces = next;
    }
    pieces
}

/// Whether cutting at `(o, n)` leaves every piece a patch of its own: a line
/// without a terminator can only be a file's last line, so a piece that ends
/// with the proposal's unterminated last line must also end the base, and a
/// piece that ends with the base's unterminated last line must also end the
/// proposal (otherwise the next piece would append after it).
fn keeps_last_line_last((o, n): (usize, usize), base: &[&str], new: &[&str]) -> bool {
    let open = |lines: &[&str]| lines.last().is_some_and(|l| !l.ends_with('\n'));
    !(n == new.len() && open(new) && o < base.len()
        || o == base.len() && open(base) && n < new.len())
}

/// Cut points (old, new) at the boundaries of edits strictly inside `b`.
fn edit_cuts(b: Block, edits: &[PlacedEdit]) -> Vec<(usize, usize)> {
    let mut cuts: Vec<(usize, usize)> = edits
        .iter()
        .flat_map(|e| {
            [
                (e.old_start, e.new_start),
                (e.old_start + e.old_len, e.new_start + e.new_len),
            ]
        })
        .filter(|&(o, n)| inside(b, o, n))
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

fn inside(b: Block, o: usize, n: usize) -> bool {
    let within = o >= b.old_start
        && o <= b.old_start + b.old_len
        && n >= b.new_start
        && n <= b.new_start + b.new_len;
    let at_ends = (o, n) == (b.old_start, b.new_start)
        || (o, n) == (b.old_start + b.old_len, b.new_start + b.new_len);
    within && !at_ends
}

/// Cut points after lines that satisfy `is_cut`, on the longer side of the
/// block, each paired with the nearest such line on the other side (or the
/// proportional position when there is none), keeping both sides in order.
fn line_cuts(
    b: Block,
    base: &[&str],
    new: &[&str],
    is_cut: impl Fn(&str) -> bool,
) -> Vec<(usize, usize)> {
    let old_side: Vec<usize> = (b.old_start..b.old_start + b.old_len)
        .filter(|&i| is_cut(base[i]))
        .map(|i| i + 1)
        .collect();
    let new_side: Vec<usize> = (b.new_start..b.new_start + b.new_len)
        .filter(|&i| is_cut(new[i]))
        .map(|i| i + 1)
        .collect();
    // The side with places to cut leads; the longer one when both have them.
    let new_leads = !new_side.is_empty() && (old_side.is_empty() || b.new_len >= b.old_len);
    let (lead, other, lead_start, lead_len, other_start, other_len) = if new_leads {
        (
            &new_side,
            &old_side,
            b.new_start,
            b.new_len,
            b.old_start,
            b.old_len,
        )
    } else {
        (
            &old_side,
            &new_side,
            b.old_start,
            b.old_len,
            b.new_start,
            b.new_len,
        )
    };
    let mut cuts = Vec::new();
    let mut floor = other_start;
    for &at in lead {
        let proportional = other_start + (at - lead_start) * other_len / lead_len.max(1);
        let snapped = other
            .iter()
            .copied()
            .filter(|&o| o >= floor)
            .min_by_key(|&o| o.abs_diff(proportional))
            .filter(|&o| o.abs_diff(proportional) <= 3)
            .unwrap_or(proportional.max(floor));
        floor = snapped;
        let (o, n) = if new_leads {
            (snapped, at)
        } else {
            (at, snapped)
        };
        if inside(b, o, n) {
            cuts.push((o, n));
        }
    }
    cuts
}

/// Cuts `b` greedily at `cuts`: each piece runs to the furthest cut that keeps
/// it within the limits, or to the next cut when even that one is too big.
fn cut(
    b: Block,
    cuts: &[(usize, usize)],
    base: &[&str],
    new: &[&str],
    limits: &HunkLimits,
) -> Vec<Block> {
    let piece = |(o0, n0): (usize, usize), (o1, n1): (usize, usize)| Block {
        old_start: o0,
        old_len: o1 - o0,
        new_start: n0,
        new_len: n1 - n0,
    };
    let end = (b.old_start + b.old_len, b.new_start + b.new_len);
    let points: Vec<(usize, usize)> = cuts.iter().copied().chain(std::iter::once(end)).collect();
    let mut out = Vec::new();
    let mut start = (b.old_start, b.new_start);
    while start != end {
        let mut ahead = points
            .iter()
            .copied()
            .filter(|&p| p.0 >= start.0 && p.1 >= start.1 && p != start);
        let first = ahead.next().unwrap_or(end);
        let mut chosen = first;
        if fits(piece(start, first), base, new, limits) {
            for p in ahead {
                if !fits(piece(start, p), base, new, limits) {
                    break;
                }
                chosen = p;
            }
        }
        out.push(piece(start, chosen));
        start = chosen;
    }
    out
}

/// The edits a piece came from: those whose text overlaps it on either side.
/// A change no edit covers (a line that gained a terminator because text was
/// appended after it) belongs to the nearest edit.
fn edits_of(p: Block, edits: &[PlacedEdit]) -> Vec<String> {
    let touches = |a: usize, a_len: usize, b: usize, b_len: usize| {
        if a_len == 0 || b_len == 0 {
            a >= b && a <= b + b_len || b >= a && b <= a + a_len
        } else {
            a < b + b_len && b < a + a_len
        }
    };
    let ids: Vec<String> = edits
        .iter()
        .filter(|e| {
            touches(e.new_start, e.new_len, p.new_start, p.new_len)
                && (e.new_len > 0 && p.new_len > 0
                    || touches(e.old_start, e.old_len, p.old_start, p.old_len))
        })
        .map(|e| e.edit_id.clone())
        .collect();
    if !ids.is_empty() {
        return ids;
    }
    edits
        .iter()
        .min_by_key(|e| e.old_start.abs_diff(p.old_start))
        .map(|e| vec![e.edit_id.clone()])
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
