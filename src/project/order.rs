//! The order a person reads a folder in, as Obsidian's file tree sorts it:
//! names compared by their letters, case and accents aside, numbers by their value (`Note 2`
//! before `Note 10`), a name before the longer names it starts (`pt` before
//! `pt-br`, `zh` before `zh-TW`), a path one folder at a time (so `pt/` is
//! not taken apart by `pt-br/` between its files). Byte order decides only
//! between names that are otherwise equal, so the order is total.
//!
//! Written here rather than taken from a crate: the natural-order crates
//! compare ASCII digits but not case across scripts, and a full collator
//! (ICU's) would bring its data tables for one sort.

use std::cmp::Ordering;
use std::iter::Peekable;

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// `a` against `b`, two `/`-separated paths, folder by folder.
pub fn paths(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.split('/'), b.split('/'));
    loop {
        match (x.next(), y.next()) {
            (Some(p), Some(q)) => match names(p, q) {
                Ordering::Equal => {}
                other => return other,
            },
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
        }
    }
}

/// `a` against `b`, two names: natural order of their letters (accents
/// and case aside, so `Écrire` sorts with the `e`s), then byte order.
pub fn names(a: &str, b: &str) -> Ordering {
    natural(letters(a).peekable(), letters(b).peekable()).then_with(|| a.cmp(b))
}

/// The letters of `s` as an order compares them: decomposed, accents
/// dropped, lower-cased.
fn letters(s: &str) -> impl Iterator<Item = char> + '_ {
    s.nfd()
        .filter(|&c| !is_combining_mark(c))
        .flat_map(char::to_lowercase)
}

fn natural<I: Iterator<Item = char>>(mut a: Peekable<I>, mut b: Peekable<I>) -> Ordering {
    loop {
        let (x, y) = match (a.peek(), b.peek()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(&x), Some(&y)) => (x, y),
        };
        let step = if x.is_ascii_digit() && y.is_ascii_digit() {
            let (n, m) = (digits(&mut a), digits(&mut b));
            let (n, m) = (n.trim_start_matches('0'), m.trim_start_matches('0'));
            n.len().cmp(&m.len()).then_with(|| n.cmp(m))
        } else {
            a.next();
            b.next();
            x.cmp(&y)
        };
        if step != Ordering::Equal {
            return step;
        }
    }
}

/// The run of ASCII digits at the start of `chars`, taken.
fn digits(chars: &mut Peekable<impl Iterator<Item = char>>) -> String {
    let mut out = String::new();
    while let Some(c) = chars.next_if(char::is_ascii_digit) {
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(mut v: Vec<&str>) -> Vec<&str> {
        v.sort_by(|a, b| paths(a, b));
        v
    }

    #[test]
    fn folders_and_names_sort_as_people_read() {
        assert_eq!(
            sorted(vec!["pt-br/a.md", "pt/b.md", "pt/a.md", "zh-TW/x.md", "zh/x.md"]),
            ["pt/a.md", "pt/b.md", "pt-br/a.md", "zh/x.md", "zh-TW/x.md"]
        );
        assert_eq!(
            sorted(vec!["Note 10.md", "note 2.md", "Note 1.md", "Note 02.md"]),
            ["Note 1.md", "Note 02.md", "note 2.md", "Note 10.md"]
        );
        assert_eq!(
            sorted(vec!["Écrire.md", "zèbre.md", "apple.md", "Banana.md", "été.md"]),
            ["apple.md", "Banana.md", "Écrire.md", "été.md", "zèbre.md"]
        );
        // Equal but for case or bytes: still a total order.
        assert_eq!(names("a", "A"), "a".cmp("A"));
        assert_eq!(names("日本", "日本"), Ordering::Equal);
    }
}
