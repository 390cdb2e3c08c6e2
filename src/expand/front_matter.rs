//! Front matter properties set, renamed and removed, and values added to or
//! removed from a list property, line by line: every other line of the
//! block keeps its bytes (order, comments, quoting). A note whose front
//! matter does not parse is left alone, and so is one an edit would leave
//! unparsable.

use std::ops::Range;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use yaml_rust2::YamlLoader;

use super::scope::Scope;
use crate::links;

/// Set a property (`status: done`) in every note of a scope.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct SetProperty {
    /// The key.
    pub key: String,
    /// The value as YAML reads it: `done`, `3`, `2026-11-27`; quoted when
    /// it needs to be.
    pub value: String,
    /// Only where the note has no such key yet. Default false.
    #[serde(default)]
    pub only_if_missing: bool,
    /// The notes it reaches; default every Markdown note.
    #[serde(default)]
    pub scope: Scope,
}

/// Rename a property's key, keeping its value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct RenameProperty {
    /// The key now.
    pub from: String,
    /// Its new name; a note that already has it is left alone and reported.
    pub to: String,
    /// The notes it reaches; default every Markdown note.
    #[serde(default)]
    pub scope: Scope,
}

/// Remove a property, value and all.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct RemoveProperty {
    /// The key.
    pub key: String,
    /// The notes it reaches; default every Markdown note.
    #[serde(default)]
    pub scope: Scope,
}

/// A value added to or removed from a list property (`tags`, `aliases`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct ListValue {
    /// The list's key.
    pub key: String,
    /// The value.
    pub value: String,
    /// The notes it reaches; default every Markdown note.
    #[serde(default)]
    pub scope: Scope,
}

/// A note's front matter, as lines: where it is and where each top-level
/// key's lines are.
struct Block<'a> {
    text: &'a str,
    /// The lines between the fences, each with its end of line, and where
    /// each starts in `text`.
    lines: Vec<(usize, &'a str)>,
    /// Where the closing fence starts.
    close: usize,
}

impl<'a> Block<'a> {
    /// The front matter of `text`, if it has one; `Err` when it does not
    /// parse.
    fn of(text: &'a str) -> Result<Option<Block<'a>>, String> {
        let Some((inner, _)) = links::front_matter(text) else {
            return Ok(None);
        };
        parses(&text[inner.clone()])?;
        let mut at = inner.start;
        let lines = text[inner.clone()]
            .split_inclusive('\n')
            .map(|line| {
                let start = at;
                at += line.len();
                (start, line)
            })
            .collect();
        Ok(Some(Block {
            text,
            lines,
            close: inner.end,
        }))
    }

    /// The byte range of `key`'s lines: its own and those that continue
    /// its value (indented, or `- ` items), and the line of the key.
    fn key(&self, key: &str) -> Option<(Range<usize>, &'a str)> {
        let i = self.lines.iter().position(|(_, line)| key_of(line) == Some(key))?;
        let mut end = i + 1;
        while end < self.lines.len() && continues(self.lines[end].1) {
            end += 1;
        }
        let start = self.lines[i].0;
        let stop = self.lines.get(end).map_or(self.close, |(at, _)| *at);
        Some((start..stop, self.lines[i].1))
    }

    /// `text` with `range` replaced by `with`.
    fn splice(&self, range: Range<usize>, with: &str) -> String {
        let mut out = String::with_capacity(self.text.len() + with.len());
        out.push_str(&self.text[..range.start]);
        out.push_str(with);
        out.push_str(&self.text[range.end..]);
        out
    }
}

/// The top-level key a front matter line starts, if it does.
fn key_of(line: &str) -> Option<&str> {
    let first = line.chars().next()?;
    if first.is_whitespace() || matches!(first, '#' | '-') {
        return None;
    }
    let (key, rest) = line.split_once(':')?;
    (rest.is_empty() || rest.starts_with([' ', '\t', '\n', '\r'])).then(|| key.trim().trim_matches(['"', '\'']))
}

/// Whether a line continues the value of the key above it.
fn continues(line: &str) -> bool {
    line.starts_with([' ', '\t']) || line.starts_with("- ") || line.trim_end() == "-"
}

/// Whether `yaml` parses; why not, if it does not.
fn parses(yaml: &str) -> Result<(), String> {
    YamlLoader::load_from_str(yaml)
        .map(|_| ())
        .map_err(|e| format!("its front matter is not YAML: {e}"))
}

/// `value` as a YAML scalar: as written when YAML reads it so, else in
/// double quotes.
pub(crate) fn scalar(value: &str) -> String {
    let plain = !value.is_empty()
        && value.trim() == value
        && !value.starts_with(['-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`'])
        && !value.contains(": ")
        && !value.contains(" #")
        && !value.ends_with(':')
        && !value.contains(['\n', '\r', '\t']);
    if plain {
        value.to_owned()
    } else {
        format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// The end of line `line` uses (`\n` when it has none, at the end).
fn eol(line: &str) -> &'static str {
    if line.ends_with("\r\n") { "\r\n" } else { "\n" }
}

/// A list value's items as written, each with its byte range in `text`:
/// a flow list's (`[a, "b"]`), or a block list's `- item` lines.
enum Items {
    /// `key: [a, b]`: the range between the brackets.
    Flow(Range<usize>),
    /// `key:` then `- a` lines: each item line's range.
    Lines(Vec<Range<usize>>),
    /// `key: a`: the value's range.
    Scalar(Range<usize>),
    /// `key:` with nothing.
    Empty,
}

fn items(text: &str, range: &Range<usize>, key_line: &str) -> Items {
    let colon = range.start + key_line.find(':').expect("a key line") + 1;
    let line_end = range.start + key_line.trim_end().len();
    let value = text[colon..line_end].trim();
    if value.starts_with('[') && value.ends_with(']') {
        let open = colon + text[colon..].find('[').expect("an open bracket") + 1;
        let close = range.start + key_line.trim_end().rfind(']').expect("a close bracket");
        return Items::Flow(open..close);
    }
    if !value.is_empty() {
        let start = colon + (text[colon..line_end].len() - text[colon..line_end].trim_start().len());
        return Items::Scalar(start..line_end);
    }
    let mut at = range.start + key_line.len();
    let mut lines = Vec::new();
    for line in text[at..range.end].split_inclusive('\n') {
        if line.trim_start().starts_with("- ") || line.trim() == "-" {
            lines.push(at..at + line.len());
        }
        at += line.len();
    }
    if lines.is_empty() { Items::Empty } else { Items::Lines(lines) }
}

/// An item's text, unquoted.
fn unquoted(item: &str) -> &str {
    let item = item.trim();
    let item = item.strip_prefix("- ").map_or(item, str::trim);
    item.trim_matches(['"', '\''])
}

/// The flow list's items between its brackets, each with its range.
fn flow_items(text: &str, inside: &Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut at = inside.start;
    for part in text[inside.clone()].split(',') {
        if !part.trim().is_empty() {
            let lead = part.len() - part.trim_start().len();
            out.push(at + lead..at + lead + part.trim().len());
        }
        at += part.len() + 1;
    }
    out
}

/// The byte ranges of the items of the list property `key` of `text`,
/// quotes and `- ` left out: what a rename of one item rewrites. Empty when
/// there is no such key; `Err` when the front matter does not parse.
pub(crate) fn list_items(text: &str, key: &str) -> Result<Vec<Range<usize>>, String> {
    let Some(block) = Block::of(text)? else {
        return Ok(Vec::new());
    };
    let Some((range, key_line)) = block.key(key) else {
        return Ok(Vec::new());
    };
    let bare = |r: Range<usize>| {
        let item = &text[r.clone()];
        let rest = item.trim_start_matches(['-', ' ', '\t', '"', '\'']);
        let lead = item.len() - rest.len();
        // Trimmed from what the lead left: an empty quoted item (`""`) would
        // else be trimmed from both sides into a reversed range.
        let trail = rest.len() - rest.trim_end_matches(['\n', '\r', ' ', '\t', '"', '\'']).len();
        r.start + lead..r.end - trail
    };
    Ok(match items(text, &range, key_line) {
        Items::Flow(inside) => flow_items(text, &inside).into_iter().map(bare).collect(),
        Items::Lines(lines) => lines.into_iter().map(bare).collect(),
        Items::Scalar(value) => vec![bare(value)],
        Items::Empty => Vec::new(),
    })
}

/// What an edit made of a note: its new text, or `None` when it had
/// nothing to do there.
pub(crate) type Edited = Result<Option<String>, String>;

/// The new text after the edit, checked: the front matter must still parse.
fn checked(new: String) -> Edited {
    if let Some((inner, _)) = links::front_matter(&new) {
        parses(&new[inner]).map_err(|e| format!("the change would leave {e}"))?;
    }
    Ok(Some(new))
}

impl SetProperty {
    /// Sets the property in `text`.
    pub(crate) fn edit(&self, text: &str) -> Edited {
        let line = format!("{}: {}", self.key, scalar(&self.value));
        let Some(block) = Block::of(text)? else {
            return checked(format!("---\n{line}\n---\n{text}"));
        };
        match block.key(&self.key) {
            Some(_) if self.only_if_missing => Ok(None),
            Some((range, key_line)) => {
                let with = format!("{line}{}", eol(key_line));
                if text[range.clone()] == with {
                    return Ok(None);
                }
                checked(block.splice(range, &with))
            }
            None => {
                let nl = block.lines.first().map_or("\n", |(_, l)| eol(l));
                checked(block.splice(block.close..block.close, &format!("{line}{nl}")))
            }
        }
    }
}

impl RenameProperty {
    /// Renames the key in `text`.
    pub(crate) fn edit(&self, text: &str) -> Edited {
        let Some(block) = Block::of(text)? else {
            return Ok(None);
        };
        let Some((range, key_line)) = block.key(&self.from) else {
            return Ok(None);
        };
        if block.key(&self.to).is_some() {
            return Err(format!("it has both `{}` and `{}`", self.from, self.to));
        }
        let colon = key_line.find(':').expect("a key line");
        checked(block.splice(range.start..range.start + colon, &self.to))
    }
}

impl RemoveProperty {
    /// Removes the key and its value from `text`.
    pub(crate) fn edit(&self, text: &str) -> Edited {
        let Some(block) = Block::of(text)? else {
            return Ok(None);
        };
        match block.key(&self.key) {
            Some((range, _)) => checked(block.splice(range, "")),
            None => Ok(None),
        }
    }
}

impl ListValue {
    /// Whether a listed item (as written, maybe quoted) is this value: the
    /// same text, or for tags and aliases, which Obsidian reads without
    /// regard to case, the same folded (`#` aside on a tag).
    fn is(&self, item: &str) -> bool {
        let item = unquoted(item);
        if item == self.value {
            return true;
        }
        let tag = |s: &str| links::fold(s.strip_prefix('#').unwrap_or(s));
        match self.key.as_str() {
            "tags" | "tag" => tag(item) == tag(&self.value),
            "aliases" | "alias" => links::fold(item) == links::fold(&self.value),
            _ => false,
        }
    }

    /// Adds the value to the list in `text` (making the list when there is
    /// none), unless it is there.
    pub(crate) fn add(&self, text: &str) -> Edited {
        let item = scalar(&self.value);
        let Some(block) = Block::of(text)? else {
            return checked(format!("---\n{}:\n  - {item}\n---\n{text}", self.key));
        };
        let Some((range, key_line)) = block.key(&self.key) else {
            let nl = block.lines.first().map_or("\n", |(_, l)| eol(l));
            return checked(block.splice(block.close..block.close, &format!("{}:{nl}  - {item}{nl}", self.key)));
        };
        let nl = eol(key_line);
        match items(text, &range, key_line) {
            Items::Flow(inside) => {
                let listed = flow_items(text, &inside);
                if listed.iter().any(|r| self.is(&text[r.clone()])) {
                    return Ok(None);
                }
                match listed.last() {
                    Some(last) => checked(block.splice(last.end..last.end, &format!(", {item}"))),
                    None => checked(block.splice(inside, &item)),
                }
            }
            Items::Lines(lines) => {
                if lines.iter().any(|r| self.is(&text[r.clone()])) {
                    return Ok(None);
                }
                let last = lines.last().expect("an item").clone();
                let indent = &text[last.start..last.start + text[last.clone()].find('-').unwrap_or(0)];
                let line_nl = eol(&text[last.clone()]);
                let lead = if text[last.clone()].ends_with('\n') { "" } else { line_nl };
                checked(block.splice(last.end..last.end, &format!("{lead}{indent}- {item}{line_nl}")))
            }
            Items::Scalar(value) => {
                if self.is(&text[value.clone()]) {
                    return Ok(None);
                }
                let with = format!("[{}, {item}]", &text[value.clone()]);
                checked(block.splice(value, &with))
            }
            Items::Empty => {
                let end = range.start + key_line.len();
                checked(block.splice(range.start..end, &format!("{}:{nl}  - {item}{nl}", self.key)))
            }
        }
    }

    /// Removes the value from the list in `text`, if it is there.
    pub(crate) fn remove(&self, text: &str) -> Edited {
        let Some(block) = Block::of(text)? else {
            return Ok(None);
        };
        let Some((range, key_line)) = block.key(&self.key) else {
            return Ok(None);
        };
        match items(text, &range, key_line) {
            Items::Flow(inside) => {
                let listed = flow_items(text, &inside);
                let Some(i) = listed.iter().position(|r| self.is(&text[r.clone()])) else {
                    return Ok(None);
                };
                // The item with the comma that joins it to its neighbour.
                let cut = match (i.checked_sub(1).map(|p| &listed[p]), listed.get(i + 1)) {
                    (_, Some(next)) => listed[i].start..next.start,
                    (Some(prev), None) => prev.end..listed[i].end,
                    (None, None) => listed[i].clone(),
                };
                checked(block.splice(cut, ""))
            }
            Items::Lines(lines) => match lines.iter().find(|r| self.is(&text[(*r).clone()])) {
                Some(line) => checked(block.splice(line.clone(), "")),
                None => Ok(None),
            },
            Items::Scalar(value) if self.is(&text[value.clone()]) => {
                checked(block.splice(value, "[]"))
            }
            Items::Scalar(_) | Items::Empty => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTE: &str = "---\n# kept comment\ntitle: \"Atlas: the plan\"\ntags:\n  - work\n  - atlas\naliases: [Atlas, 'The Atlas']\nstatus: draft\n---\nBody\n";

    fn set(key: &str, value: &str) -> SetProperty {
        SetProperty {
            key: key.into(),
            value: value.into(),
            only_if_missing: false,
            scope: Scope::default(),
        }
    }

    fn list(key: &str, value: &str) -> ListValue {
        ListValue {
            key: key.into(),
            value: value.into(),
            scope: Scope::default(),
        }
    }

    #[test]
    fn tags_and_aliases_are_the_same_value_whatever_their_case() {
        let note = "---\ntags: [Café, \"#日本語\"]\naliases:\n  - Ünïcode\nkeywords: [Café]\n---\nBody\n";
        assert_eq!(list("tags", "#CAFÉ").add(note).unwrap(), None);
        assert_eq!(list("aliases", "ünïcode").add(note).unwrap(), None);
        let gone = list("tags", "日本語").remove(note).unwrap().unwrap();
        assert!(gone.starts_with("---\ntags: [Café]\n"), "{gone}");
        // Other lists are exact, as their values may differ only in case.
        assert!(list("keywords", "café").add(note).unwrap().is_some());
    }

    #[test]
    fn setting_changes_one_line_and_keeps_the_rest() {
        let done = set("status", "done").edit(NOTE).unwrap().unwrap();
        assert_eq!(done, NOTE.replace("status: draft", "status: done"));
        let added = set("due", "2026-12-01").edit(NOTE).unwrap().unwrap();
        assert_eq!(added, NOTE.replace("status: draft\n", "status: draft\ndue: 2026-12-01\n"));
        let quoted = set("summary", "a: b").edit(NOTE).unwrap().unwrap();
        assert!(quoted.contains("summary: \"a: b\"\n"), "{quoted}");
        assert_eq!(set("status", "draft").edit(NOTE).unwrap(), None, "already so");
        let only = SetProperty { only_if_missing: true, ..set("status", "done") };
        assert_eq!(only.edit(NOTE).unwrap(), None);
        assert_eq!(set("type", "note").edit("Body\n").unwrap().unwrap(), "---\ntype: note\n---\nBody\n");
    }

    #[test]
    fn a_block_list_value_is_replaced_whole() {
        let done = set("tags", "none").edit(NOTE).unwrap().unwrap();
        assert_eq!(done, NOTE.replace("tags:\n  - work\n  - atlas\n", "tags: none\n"));
    }

    #[test]
    fn renaming_and_removing_keys() {
        let renamed = RenameProperty { from: "status".into(), to: "state".into(), scope: Scope::default() };
        assert_eq!(renamed.edit(NOTE).unwrap().unwrap(), NOTE.replace("status: draft", "state: draft"));
        let clash = RenameProperty { from: "status".into(), to: "title".into(), scope: Scope::default() };
        assert!(clash.edit(NOTE).is_err());
        let removed = RemoveProperty { key: "tags".into(), scope: Scope::default() };
        assert_eq!(removed.edit(NOTE).unwrap().unwrap(), NOTE.replace("tags:\n  - work\n  - atlas\n", ""));
    }

    #[test]
    fn list_values_are_added_and_removed_in_the_list_s_own_style() {
        let added = list("tags", "meridian").add(NOTE).unwrap().unwrap();
        assert_eq!(added, NOTE.replace("  - atlas\n", "  - atlas\n  - meridian\n"));
        assert_eq!(list("tags", "atlas").add(NOTE).unwrap(), None, "already listed");
        let flow = list("aliases", "Meridian").add(NOTE).unwrap().unwrap();
        assert_eq!(flow, NOTE.replace("[Atlas, 'The Atlas']", "[Atlas, 'The Atlas', Meridian]"));
        let gone = list("aliases", "The Atlas").remove(NOTE).unwrap().unwrap();
        assert_eq!(gone, NOTE.replace("[Atlas, 'The Atlas']", "[Atlas]"));
        let first = list("aliases", "Atlas").remove(NOTE).unwrap().unwrap();
        assert_eq!(first, NOTE.replace("[Atlas, 'The Atlas']", "['The Atlas']"));
        let line = list("tags", "work").remove(NOTE).unwrap().unwrap();
        assert_eq!(line, NOTE.replace("  - work\n", ""));
        let new = list("topics", "maps").add(NOTE).unwrap().unwrap();
        assert_eq!(new, NOTE.replace("status: draft\n", "status: draft\ntopics:\n  - maps\n"));
    }

    #[test]
    fn unparsable_front_matter_is_left_alone() {
        let broken = "---\ntitle: [unclosed\n---\nBody\n";
        assert!(set("status", "done").edit(broken).unwrap_err().contains("not YAML"));
    }

    #[test]
    fn crlf_lines_stay_crlf() {
        let note = "---\r\nstatus: draft\r\n---\r\nBody\r\n";
        assert_eq!(set("status", "done").edit(note).unwrap().unwrap(), "---\r\nstatus: done\r\n---\r\nBody\r\n");
        assert_eq!(
            set("due", "x").edit(note).unwrap().unwrap(),
            "---\r\nstatus: draft\r\ndue: x\r\n---\r\nBody\r\n"
        );
    }
}
