//! Quick open: the project's paths ranked by a fuzzy match with nucleo's
//! matcher (the one helix uses), path separators and word starts scoring
//! higher, smart case.

use unicode_segmentation::UnicodeSegmentation;
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use serde::{Deserialize, Serialize};

use crate::project::View;

/// One path found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct FoundPath {
    /// Root-relative path.
    pub path: String,
    /// The match's score (higher is better; 0 with an empty query).
    pub score: u32,
    /// Positions of the matched characters in `path`, in UTF-16 code
    /// units (what the UI's strings index).
    pub positions: Vec<u32>,
}

/// The best paths for a query.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct FoundPaths {
    /// Best first; at most the limit asked for.
    pub paths: Vec<FoundPath>,
    /// How many paths matched in all.
    pub total: usize,
    /// How many paths were looked at.
    pub searched: usize,
}

/// The `limit` paths of `view` that best match `query` (every path, in
/// order, when it is blank). Ties go to the shorter path, then the first.
pub fn quick_open(view: &View<'_>, query: &str, limit: usize) -> FoundPaths {
    view.with_paths(|paths| rank(paths, query, limit))
}

/// [`quick_open`] over a list of paths.
pub fn rank(paths: &[&str], query: &str, limit: usize) -> FoundPaths {
    if query.trim().is_empty() {
        return FoundPaths {
            paths: paths
                .iter()
                .take(limit)
                .map(|p| FoundPath {
                    path: (*p).to_owned(),
                    score: 0,
                    positions: Vec::new(),
                })
                .collect(),
            total: paths.len(),
            searched: paths.len(),
        };
    }
    let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
    let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
    let mut buf = Vec::new();
    let mut scored: Vec<(u32, &str)> = paths
        .iter()
        .filter_map(|p| Some((pattern.score(Utf32Str::new(p, &mut buf), &mut matcher)?, *p)))
        .collect();
    let total = scored.len();
    let best = |a: &(u32, &str), b: &(u32, &str)| {
        b.0.cmp(&a.0)
            .then(a.1.len().cmp(&b.1.len()))
            .then(a.1.cmp(b.1))
    };
    if scored.len() > limit && limit > 0 {
        scored.select_nth_unstable_by(limit - 1, best);
        scored.truncate(limit);
    }
    scored.sort_unstable_by(best);
    scored.truncate(limit);
    let found = scored
        .into_iter()
        .map(|(score, path)| {
            let mut indices = Vec::new();
            pattern.indices(Utf32Str::new(path, &mut buf), &mut matcher, &mut indices);
            indices.sort_unstable();
            indices.dedup();
            FoundPath {
                path: path.to_owned(),
                score,
                positions: utf16_positions(path, &indices),
            }
        })
        .collect();
    FoundPaths {
        paths: found,
        total,
        searched: paths.len(),
    }
}

/// The UTF-16 offsets of the units the matcher counted at `indices`.
/// nucleo's `Utf32Str` counts a path's grapheme clusters (a decomposed `é`
/// or an emoji with its joiners is one), but its bytes when every cluster
/// starts with an ASCII character (an ASCII path, or one whose only other
/// characters are marks on ASCII letters); an index inside a character
/// stands for that character.
fn utf16_positions(text: &str, indices: &[u32]) -> Vec<u32> {
    let starts: Vec<usize> = if text.graphemes(true).all(|g| g.as_bytes()[0].is_ascii()) {
        (0..text.len()).collect()
    } else {
        text.grapheme_indices(true).map(|(at, _)| at).collect()
    };
    indices
        .iter()
        .filter_map(|&i| starts.get(i as usize).copied())
        .map(|mut at| {
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            text[..at].encode_utf16().count() as u32
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_likely_file_comes_first_with_its_matched_letters() {
        let paths = [
            "Meetings/2026-11-02 Weekly Sync.md",
            "Projects/Q3 Launch Plan.md",
            "Projects/Website Redesign.md",
            "Reference/Style Guide.md",
            "Welcome.md",
        ];
        let found = rank(&paths, "launch", 10);
        assert_eq!(found.paths[0].path, "Projects/Q3 Launch Plan.md");
        assert_eq!(found.total, 1);
        let p = &found.paths[0];
        let picked: String = p
            .positions
            .iter()
            .map(|&i| p.path.chars().nth(i as usize).unwrap())
            .collect();
        assert_eq!(picked, "Launch");
        // Fuzzy across folders, smart case, and the limit.
        let found = rank(&paths, "prjweb", 10);
        assert_eq!(found.paths[0].path, "Projects/Website Redesign.md");
        assert!(
            rank(&paths, "LAUNCH", 10).paths.is_empty(),
            "capitals ask for exact case"
        );
        assert_eq!(rank(&paths, "e", 2).paths.len(), 2);
        assert_eq!(rank(&paths, "", 3).paths.len(), 3);
        assert_eq!(rank(&paths, "", 3).total, 5);
    }

    #[test]
    fn positions_count_utf16_units() {
        // `😀` is two UTF-16 units: the `b` after it is at 3, not 2.
        assert_eq!(utf16_positions("a😀b", &[0, 2]), [0, 3]);
    }

    #[test]
    fn positions_in_a_decomposed_name_fall_on_its_letters() {
        // `Cafe\u{301}` (counted in bytes by the matcher) and `日本\u{301}`
        // (in clusters): `Noir` is highlighted where it is either way.
        for path in ["Cafe\u{301} Noir.md", "日本\u{301} Noir.md"] {
            let found = rank(&[path], "noir", 10);
            let utf16: Vec<u16> = path.encode_utf16().collect();
            let picked: String = found.paths[0]
                .positions
                .iter()
                .map(|&at| char::from_u32(u32::from(utf16[at as usize])).unwrap())
                .collect();
            assert_eq!(picked, "Noir", "{path}");
        }
    }
}
