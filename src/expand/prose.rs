//! Which bytes of a note are prose: what a vault-wide replacement may change
//! by default. Everything else (front matter, fenced and inline code, URLs,
//! link targets, tags) is left alone unless the operation asks for it, and
//! an occurrence found there is counted under the reason it was left.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::links::{self, Syntax};

/// A part of a note that is not prose, which a replacement leaves alone
/// unless asked to go there.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema, ts_rs::TS,
)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// The YAML block between the `---` fences at the top (the fences
    /// themselves are never changed).
    FrontMatter,
    /// Fenced code blocks and inline code spans.
    Code,
    /// Web addresses: `https://…`, `<mailto:…>`.
    Url,
    /// What a link points at: `[[target#heading` before its `|alias]]`, a
    /// Markdown link's `(destination)`. Its alias or text is prose.
    LinkTarget,
    /// Inline tags: `#project/atlas`.
    Tag,
}

impl Part {
    /// How a report names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Part::FrontMatter => "front matter",
            Part::Code => "code",
            Part::Url => "a URL",
            Part::LinkTarget => "a link target",
            Part::Tag => "a tag",
        }
    }
}

/// The parts of a note that are not prose, each with its byte range, sorted
/// by start. Ranges of different parts may overlap (a URL inside code).
#[derive(Debug, Default)]
pub struct Mask {
    parts: Vec<(Range<usize>, Part)>,
    /// The front matter's `---` lines.
    fences: Vec<Range<usize>>,
}

/// Bare web addresses and autolinks: a scheme, then everything up to a
/// space or a closing bracket or quote.
static URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\b(?:https?|ftp|file|mailto|obsidian):[^\s<>()\[\]"'`]+"#).expect("a valid regex")
});

/// Inline tags as Obsidian reads them: `#` after a space or the line's
/// start, then letters (with their combining marks: a decomposed `é`),
/// digits, `_`, `-` and `/`, at least one of them not a digit.
static TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)(?:^|[\s(\[,;])(#[\p{L}\p{M}\p{N}_/-]*[\p{L}_/-][\p{L}\p{M}\p{N}_/-]*)").expect("a valid regex")
});

impl Mask {
    /// The parts of `text` that are not prose.
    pub fn of(text: &str) -> Mask {
        let mut parts = Vec::new();
        let mut fences = Vec::new();
        let body = match links::front_matter(text) {
            Some((inner, body)) => {
                fences.extend([0..inner.start, inner.end..body]);
                parts.push((inner, Part::FrontMatter));
                body
            }
            None => 0,
        };
        let mut from = body;
        for fence in links::fenced_blocks(text, body) {
            code_spans(text, from..fence.start, &mut parts);
            parts.push((fence.clone(), Part::Code));
            from = fence.end;
        }
        code_spans(text, from..text.len(), &mut parts);
        for url in URL.find_iter(&text[body..]) {
            // A sentence's last full stop or comma is not part of it.
            let end = body + url.end() - url.as_str().len() + url.as_str().trim_end_matches(['.', ',', ';', ':', '!', '?']).len();
            parts.push((body + url.start()..end, Part::Url));
        }
        for tag in TAG.captures_iter(&text[body..]) {
            let tag = tag.get(1).expect("the tag group");
            parts.push((body + tag.start()..body + tag.end(), Part::Tag));
        }
        for link in links::parse(text) {
            if link.front_matter.is_some() {
                continue;
            }
            let span = link.span.clone();
            let open = span.start + usize::from(link.embed);
            match &link.syntax {
                Syntax::Wiki { alias, .. } => match alias {
                    // `[[target|` and `]]` point; the alias between reads.
                    Some(alias) => {
                        let alias_end = span.end - 2;
                        let alias_start = alias_end - alias.len();
                        parts.push((span.start..alias_start, Part::LinkTarget));
                        parts.push((alias_end..span.end, Part::LinkTarget));
                    }
                    None => parts.push((span, Part::LinkTarget)),
                },
                Syntax::Markdown { text: shown, .. } => {
                    // `[text]` reads; `(destination "title")` points.
                    let text_end = open + 1 + shown.len();
                    parts.push((span.start..open + 1, Part::LinkTarget));
                    parts.push((text_end..span.end, Part::LinkTarget));
                }
            }
        }
        parts.sort_by_key(|(range, _)| (range.start, range.end));
        Mask { parts, fences }
    }

    /// The ranges of the parts of kind `part`.
    pub fn parts(&self, part: Part) -> impl Iterator<Item = &Range<usize>> + '_ {
        self.parts.iter().filter(move |(_, p)| *p == part).map(|(r, _)| r)
    }

    /// Why the bytes `range` are not prose, if they are not: the first (by
    /// the order of [`Part`]) of the parts it overlaps that `include` does
    /// not open up; `None` when every byte is prose or included. The front
    /// matter's fences are never opened up.
    pub fn blocks(&self, range: &Range<usize>, include: &[Part]) -> Option<Part> {
        let overlaps = |r: &Range<usize>| r.start < range.end.max(range.start + 1) && r.end > range.start;
        if self.fences.iter().any(overlaps) {
            return Some(Part::FrontMatter);
        }
        self.parts
            .iter()
            .take_while(|(r, _)| r.start < range.end.max(range.start + 1))
            .filter(|(r, part)| overlaps(r) && !include.contains(part))
            .map(|(_, part)| *part)
            .min()
    }
}

/// Pushes the inline code spans of the Markdown in `range` (backslash
/// escapes stepped over) as [`Part::Code`].
fn code_spans(text: &str, range: Range<usize>, parts: &mut Vec<(Range<usize>, Part)>) {
    let b = text.as_bytes();
    let mut i = range.start;
    while i < range.end {
        match b[i] {
            b'\\' => i += if b.get(i + 1).is_some_and(u8::is_ascii_punctuation) { 2 } else { 1 },
            b'`' => {
                let run = b[i..range.end].iter().take_while(|&&c| c == b'`').count();
                let end = links::past_code_span(text, i, range.end);
                if end > i + run {
                    parts.push((i..end, Part::Code));
                }
                i = end;
            }
            _ => i += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What of `text` the mask leaves as prose, each non-prose byte shown as `·`.
    fn prose(text: &str) -> String {
        let mask = Mask::of(text);
        text.char_indices()
            .map(|(i, c)| match mask.blocks(&(i..i + c.len_utf8()), &[]) {
                Some(_) if c != '\n' => '·',
                _ => c,
            })
            .collect()
    }

    #[test]
    fn code_urls_link_targets_tags_and_front_matter_are_not_prose() {
        let text = "---\ntitle: Atlas\n---\nAtlas `Atlas` [[Atlas|the Atlas]] [Atlas](Atlas.md) https://atlas.example/Atlas. #atlas\n```\nAtlas\n```\n";
        assert_eq!(
            prose(text),
            "···\n············\n···\nAtlas ······· ········the Atlas·· ·Atlas··········· ···························. ······\n···\n·····\n···\n"
        );
    }

    #[test]
    fn an_unclosed_backtick_and_a_heading_are_prose() {
        assert_eq!(prose("# Atlas `Atlas\n"), "# Atlas `Atlas\n");
        assert_eq!(prose("a \\`Atlas\\` b\n"), "a \\`Atlas\\` b\n");
    }

    #[test]
    fn an_included_part_is_opened_up() {
        let text = "`Atlas` and [[Atlas]]\n";
        let mask = Mask::of(text);
        let code = 1..6;
        let target = 14..19;
        assert_eq!(mask.blocks(&code, &[]), Some(Part::Code));
        assert_eq!(mask.blocks(&code, &[Part::Code]), None);
        assert_eq!(mask.blocks(&target, &[Part::Code]), Some(Part::LinkTarget));
        assert_eq!(mask.blocks(&target, &[Part::LinkTarget]), None);
    }
}
