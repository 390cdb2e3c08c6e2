//! Patterns: the hunks of one job that make the same change at word level
//! (the same words taken out and put in, whatever surrounds them), so a
//! reviewer decides `[[Atlas]]` → `[[Meridian]]` once instead of in 5,000
//! files.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::hunks::words;

/// Hunks of one job with the same word-level change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Pattern {
    /// Its id within the job: `p1` is the largest, then `p2`, ….
    pub pattern_id: String,
    /// The words its hunks take out (` … ` between separate changes of one
    /// hunk); empty for an insertion.
    pub removed: String,
    /// The words they put in; empty for a deletion.
    pub inserted: String,
    /// How many hunks make it.
    pub hunks: usize,
    /// How many files they are in.
    pub files: usize,
    /// The risks every one of its hunks has, raised once here (and not on
    /// each hunk): "all 5,000: links to [[Meridian]], …". The flags left on
    /// its hunks single out the ones that differ.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<_>")]
    pub flags: Vec<super::RiskFlag>,
}

/// What one hunk changes, word by word: each (removed, inserted) pair.
pub(crate) type Change = Vec<(String, String)>;

/// The word-level change from `old` to `new` (a hunk's lines before and
/// after), each distinct change once, in the order they first come. A
/// link's opening both sides share is left out: a rename of a link's
/// target reads `Atlas → Meridian`, as one in prose does. A line that
/// names the word twice makes the same change as a line that names it
/// once: one replacement is one pattern, whatever its lines hold.
pub(crate) fn change_of(old: &str, new: &str) -> Change {
    let mut change: Change = Vec::new();
    for e in words::diff(old, new) {
        let (mut old, mut new) = (&old[e.old], &new[e.new]);
        for open in ["[[", "]("] {
            if let (Some(o), Some(n)) = (old.strip_prefix(open), new.strip_prefix(open)) {
                (old, new) = (o, n);
            }
        }
        let pair = (old.to_owned(), new.to_owned());
        if !change.contains(&pair) {
            change.push(pair);
        }
    }
    change
}

/// Groups hunks by their change: `changes[i]` is hunk `i`'s change and
/// `files[i]` its file. Returns the patterns (two hunks or more, largest
/// first) and, per hunk, the index of its pattern.
pub(crate) fn group(changes: &[Change], files: &[usize]) -> (Vec<Pattern>, Vec<Option<usize>>) {
    let mut by_change: HashMap<&Change, Vec<usize>> = HashMap::new();
    for (i, change) in changes.iter().enumerate() {
        if !change.is_empty() {
            by_change.entry(change).or_default().push(i);
        }
    }
    let mut groups: Vec<(&Change, Vec<usize>)> = by_change
        .into_iter()
        .filter(|(_, hunks)| hunks.len() > 1)
        .collect();
    // Largest first; ties in the order their first hunk came.
    groups.sort_by_key(|(_, hunks)| (std::cmp::Reverse(hunks.len()), hunks[0]));
    let mut member = vec![None; changes.len()];
    let patterns = groups
        .into_iter()
        .enumerate()
        .map(|(p, (change, hunks))| {
            let mut in_files: Vec<usize> = hunks.iter().map(|&h| files[h]).collect();
            in_files.dedup();
            for &h in &hunks {
                member[h] = Some(p);
            }
            let side = |pick: fn(&(String, String)) -> &str| {
                change
                    .iter()
                    .map(|c| pick(c).trim_end_matches(['\n', '\r']))
                    .collect::<Vec<_>>()
                    .join(" … ")
            };
            Pattern {
                pattern_id: format!("p{}", p + 1),
                removed: side(|c| &c.0),
                inserted: side(|c| &c.1),
                hunks: hunks.len(),
                files: in_files.len(),
                flags: Vec::new(),
            }
        })
        .collect();
    (patterns, member)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_words_changed_amid_different_lines_are_one_pattern() {
        let changes = vec![
            change_of("See [[Atlas]] for more.\n", "See [[Meridian]] for more.\n"),
            change_of(
                "Ask about [[Atlas]] today.\n",
                "Ask about [[Meridian]] today.\n",
            ),
            change_of("[[Atlas]] ships\n", "[[Meridian]] ships\n"),
            change_of("[[Atlas]] ships\n", "[[Meridain]] ships\n"),
            change_of("same\n", "same\n"),
        ];
        let (patterns, member) = group(&changes, &[0, 1, 1, 2, 3]);
        assert_eq!(
            patterns,
            vec![Pattern {
                pattern_id: "p1".into(),
                removed: "Atlas".into(),
                inserted: "Meridian".into(),
                hunks: 3,
                files: 2,
                flags: Vec::new(),
            }]
        );
        assert_eq!(member, vec![Some(0), Some(0), Some(0), None, None]);
    }

    #[test]
    fn a_line_that_names_the_word_twice_makes_the_same_change() {
        let changes = vec![
            change_of("Intlayer is fast.\n", "Meridian is fast.\n"),
            change_of(
                "Intlayer, and Intlayer again: Intlayer.\n",
                "Meridian, and Meridian again: Meridian.\n",
            ),
            change_of("Café Intlayer\n", "Café Meridian\n"),
        ];
        let (patterns, member) = group(&changes, &[0, 1, 2]);
        assert_eq!(patterns.len(), 1, "{patterns:?}");
        assert_eq!(
            (patterns[0].removed.as_str(), patterns[0].hunks),
            ("Intlayer", 3)
        );
        assert_eq!(member, vec![Some(0); 3]);
    }

    #[test]
    fn a_hunk_with_two_changes_matches_only_the_same_two() {
        let two = change_of("a 1 b 2\n", "a x b y\n");
        assert_eq!(two.len(), 2);
        let (patterns, _) = group(&[two.clone(), two, change_of("a 1\n", "a x\n")], &[0, 1, 2]);
        assert_eq!(patterns.len(), 1);
        assert_eq!(
            (patterns[0].removed.as_str(), patterns[0].inserted.as_str()),
            ("1 … 2", "x … y")
        );
    }
}
