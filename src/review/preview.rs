//! A hunk in a line: what it takes out and puts in, with a little of the
//! text around the change, so a review list can show a date or a link that
//! changed inside a long line instead of the line's start.

use serde::{Deserialize, Serialize};

/// Characters of unchanged text shown on each side of a change.
const CONTEXT: usize = 24;
/// Longest removed or added text shown; longer ones end in `…`.
const SHOWN: usize = 80;

/// The change of a hunk, cut to what a list shows. Line breaks are `↵`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct HunkPreview {
    /// Unchanged text just before the change (from the start of its line).
    pub before: String,
    /// The text taken out.
    pub removed: String,
    /// The text put in.
    pub added: String,
    /// Unchanged text just after the change (to the end of its line).
    pub after: String,
}

/// The preview of `old` → `new`: their common prefix and suffix set aside,
/// what remains on each side is the change.
pub fn preview(old: &str, new: &str) -> HunkPreview {
    let old: Vec<char> = old.trim_end_matches(['\n', '\r']).chars().collect();
    let new: Vec<char> = new.trim_end_matches(['\n', '\r']).chars().collect();
    let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let line_start = old[..prefix]
        .iter()
        .rposition(|&c| c == '\n')
        .map_or(0, |i| i + 1);
    let before_from = line_start.max(prefix.saturating_sub(CONTEXT));
    let after_from = old.len() - suffix;
    let after_to = old[after_from..]
        .iter()
        .position(|&c| c == '\n' || c == '\r')
        .map_or(old.len(), |i| after_from + i)
        .min(after_from + CONTEXT);
    let show = |chars: &[char], limit: usize| {
        let text: String = chars
            .iter()
            .take(limit)
            .map(|&c| match c {
                '\n' => '↵',
                '\r' => ' ',
                c => c,
            })
            .collect();
        if chars.len() > limit {
            format!("{}…", text.trim_end_matches('↵'))
        } else {
            text
        }
    };
    HunkPreview {
        before: show(&old[before_from..prefix], CONTEXT),
        removed: show(&old[prefix..after_from], SHOWN),
        added: show(&new[prefix..new.len() - suffix], SHOWN),
        after: show(&old[after_from..after_to], CONTEXT),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_changed_inside_a_long_line_is_what_shows() {
        let old = format!(
            "{} see [[Atlas]] for the rest of {}\n",
            "x".repeat(200),
            "y".repeat(200)
        );
        let new = old.replace("[[Atlas]]", "[[Meridian]]");
        let p = preview(&old, &new);
        assert_eq!(
            (p.removed.as_str(), p.added.as_str()),
            ("Atlas", "Meridian")
        );
        assert_eq!(p.before, format!("{} see [[", "x".repeat(17)));
        assert_eq!(p.after, format!("]] for the rest of {}", "y".repeat(5)));
    }

    #[test]
    fn lines_added_or_removed_show_their_text() {
        let p = preview("", "- Ana: review the launch post.\n");
        assert_eq!(p.added, "- Ana: review the launch post.");
        assert_eq!((p.before.as_str(), p.removed.as_str()), ("", ""));
        let p = preview("a\nb\n", "a\n");
        assert_eq!(p.removed, "↵b");
        let long = "z".repeat(200);
        assert!(preview("", &long).added.ends_with('…'));
        assert_eq!(
            preview("same\n", "same\n"),
            HunkPreview {
                before: "same".into(),
                ..HunkPreview::default()
            }
        );
    }
}
