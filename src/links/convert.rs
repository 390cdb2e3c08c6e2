//! One note's links changed in place: every link to a file pointed at
//! another ([`retarget_links`]), or every link written in the other syntax
//! ([`convert_links`]). A rewritten link keeps its alias or text, its
//! subpath and whether it embeds, and is checked to reach the file it
//! should; a link that cannot be rewritten so is left alone, with why.

use std::ops::Range;

use super::parse::{Link, Syntax, parse};
use super::paths;
use super::resolve::{Resolution, Vault, Via, candidates, resolve};
use super::rewrite::{TextEdit, retarget, written_anew};
use super::settings::LinkSettings;

/// The name links find the file at `path` by: its file name, `.md` left off.
pub fn name_of(path: &str) -> &str {
    paths::strip_md(paths::file_name(path))
}

/// The ways a link may write `name`: as it is, and percent-encoded as
/// Markdown links encode it (spaces only, or bytes outside ASCII too).
pub fn written_forms(name: &str) -> Vec<String> {
    let mut forms = vec![name.to_owned()];
    for non_ascii in [false, true] {
        let encoded = paths::percent_encode(name, non_ascii).into_owned();
        if !forms.contains(&encoded) {
            forms.push(encoded);
        }
    }
    forms
}

/// What changing one note's links comes to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NoteEdits {
    /// The links rewritten, in order and never overlapping.
    pub edits: Vec<TextEdit>,
    /// The links the change concerns that are left as they are.
    pub left: Vec<LeftLink>,
}

/// A link a change concerns but leaves alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeftLink {
    /// Its bytes in the note.
    pub span: Range<usize>,
    /// Why, in words.
    pub reason: String,
}

impl NoteEdits {
    fn leave(&mut self, link: &Link, reason: String) {
        self.left.push(LeftLink {
            span: link.span.clone(),
            reason,
        });
    }
}

/// Points every link of the note at `source` (its `text`) that reaches
/// `from` at `to` instead, keeping the path's form where it still resolves
/// (see the module's rewrite rules). When `from` is not a file of `vault`,
/// the dangling links naming it are the ones pointed at `to`. Links that
/// `from` is only one of several answers to are left alone.
pub fn retarget_links(
    text: &str,
    source: &str,
    from: &str,
    to: &str,
    vault: &Vault,
    settings: &LinkSettings,
) -> NoteEdits {
    let mut out = NoteEdits::default();
    let known = vault.contains(from);
    let from_key = paths::key(from);
    for link in parse(text) {
        let (resolution, via) = resolve(vault, &link, source);
        let via = match resolution {
            Resolution::File(file) if file == from && via != Via::SameNote => via,
            Resolution::Dangling if !known && paths::key(&link.path()) == from_key => Via::Vault,
            Resolution::Ambiguous(_) => {
                let among = candidates(vault, &link, source);
                if among.iter().any(|c| c == from) {
                    out.leave(&link, format!("ambiguous between {}", among.join(", ")));
                }
                continue;
            }
            _ => continue,
        };
        match retarget(&link, via, from, to, source, vault, settings) {
            Some(new) => out.edits.push(TextEdit {
                range: link.span.clone(),
                text: new.render(),
            }),
            None => out.leave(&link, format!("no way of writing it reaches {to}")),
        }
    }
    out
}

/// Writes every link of the note at `source` (its `text`) that is not in
/// the wanted syntax in it: a wikilink when `to_wiki`, else a Markdown link.
/// The path is written as `settings` write a new link's; a wikilink's alias
/// becomes the Markdown text and back (an alias that says what the link
/// shows anyway is left off), an embed's size (`|300`) moves as Obsidian
/// writes it. Left alone, with why: links that reach no single file, links
/// within the note, front matter links (wikilinks only there), a Markdown
/// title (a wikilink has none), and text that the other syntax cannot hold.
pub fn convert_links(
    text: &str,
    source: &str,
    to_wiki: bool,
    vault: &Vault,
    settings: &LinkSettings,
) -> NoteEdits {
    let mut out = NoteEdits::default();
    for link in parse(text) {
        if link.is_wiki() == to_wiki {
            continue;
        }
        if link.front_matter.is_some() {
            out.leave(&link, "front matter holds wikilinks only".into());
            continue;
        }
        let file = match resolve(vault, &link, source) {
            (Resolution::File(_), Via::SameNote) => {
                out.leave(&link, "a link within the note".into());
                continue;
            }
            (Resolution::File(file), _) => file,
            (Resolution::Ambiguous(_), _) => {
                let among = candidates(vault, &link, source);
                out.leave(&link, format!("ambiguous between {}", among.join(", ")));
                continue;
            }
            _ => {
                out.leave(&link, "it points at no file of the vault".into());
                continue;
            }
        };
        let in_table = line_at(text, link.span.start).trim_start().starts_with('|');
        let syntax = match other_syntax(&link, in_table) {
            Ok(syntax) => syntax,
            Err(reason) => {
                out.leave(&link, reason.into());
                continue;
            }
        };
        let template = Link {
            span: 0..0,
            embed: link.embed,
            target: String::new(),
            subpath: None,
            syntax,
            front_matter: None,
        };
        let written = written_anew(&template, &file, source, settings, vault).map(|new| {
            let mut new = new.with_subpath(link.decoded_subpath().as_deref());
            let shown = shown(&new);
            if let Syntax::Wiki { alias, .. } = &mut new.syntax
                && alias.as_deref() == Some(shown.as_str())
            {
                *alias = None;
            }
            new.render()
        });
        // Read back alone, it must be one link, whole, reaching the file.
        let checked = written.filter(|rendered| {
            let back = parse(rendered);
            back.len() == 1
                && back[0].span == (0..rendered.len())
                && resolve(vault, &back[0], source).0.file() == Some(file.as_str())
        });
        match checked {
            Some(text) => out.edits.push(TextEdit {
                range: link.span.clone(),
                text,
            }),
            None => out.leave(&link, format!("no way of writing it reaches {file}")),
        }
    }
    out
}

/// The syntax `link` is written in once converted, its path still to be
/// written; `Err` with why it cannot be.
fn other_syntax(link: &Link, in_table: bool) -> Result<Syntax, &'static str> {
    match &link.syntax {
        Syntax::Markdown { text, trail, .. } => {
            if !trail.trim().is_empty() {
                return Err("its title has no wikilink form");
            }
            // An embed's size is written `![|300](…)` and `![[…|300]]`.
            let text = match link.embed {
                true => text.strip_prefix('|').unwrap_or(text),
                false => text,
            };
            if text.contains("]]") || text.contains('\n') || in_table && text.contains('|') {
                return Err("its text cannot be a wikilink's alias");
            }
            Ok(Syntax::Wiki {
                alias: (!text.is_empty()).then(|| text.to_owned()),
                escaped_pipe: in_table,
            })
        }
        Syntax::Wiki { alias, .. } => {
            let text = match alias {
                Some(alias) if link.embed && is_size(alias) => format!("|{alias}"),
                Some(alias) => alias.clone(),
                None if link.embed => String::new(),
                None => shown(link),
            };
            if text.contains(['[', ']', '\n']) {
                return Err("its alias cannot be a Markdown link's text");
            }
            Ok(Syntax::Markdown {
                text,
                angle: false,
                lead: String::new(),
                trail: String::new(),
            })
        }
    }
}

/// What a wikilink with no alias shows: its target as written, and each
/// heading of its subpath after a `>`.
fn shown(link: &Link) -> String {
    let mut out = link.path().into_owned();
    if let Some(subpath) = link.decoded_subpath() {
        for part in subpath.split('#') {
            out.push_str(" > ");
            out.push_str(part);
        }
    }
    out
}

/// Whether an embed's alias is its size (`300`, `300x200`).
fn is_size(alias: &str) -> bool {
    let mut parts = alias.splitn(2, 'x');
    let digits = |s: Option<&str>| s.is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
    let width = parts.next();
    digits(width) && parts.next().is_none_or(|h| digits(Some(h)))
}

/// The line of `text` holding byte `at`.
fn line_at(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    &text[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::links::apply_edits;

    fn vault() -> Vault {
        Vault::new([
            "People/Ann.md",
            "People/Ann Lee.md",
            "Projects/Atlas.md",
            "Archive/Atlas.md",
            "Daily/Monday.md",
            "img/chart.png",
        ])
    }

    fn retargeted(text: &str, from: &str, to: &str) -> (String, Vec<String>) {
        let plan = retarget_links(text, "Daily/Monday.md", from, to, &vault(), &LinkSettings::default());
        let left = plan.left.iter().map(|l| text[l.span.clone()].to_owned()).collect();
        (apply_edits(text, &plan.edits), left)
    }

    fn converted(text: &str, to_wiki: bool) -> (String, Vec<(String, String)>) {
        let plan = convert_links(text, "Daily/Monday.md", to_wiki, &vault(), &LinkSettings::default());
        let left = plan
            .left
            .iter()
            .map(|l| (text[l.span.clone()].to_owned(), l.reason.clone()))
            .collect();
        (apply_edits(text, &plan.edits), left)
    }

    #[test]
    fn a_retarget_keeps_alias_subpath_embed_and_syntax() {
        let text = "[[Ann]] met [[Ann#Work|her]] and ![[Ann]]; [see](../People/Ann.md#Work \"t\").\n\
                    `[[Ann]]` stays, as does [[Ann Lee]].\n";
        let (after, left) = retargeted(text, "People/Ann.md", "People/Ann Lee.md");
        assert_eq!(
            after,
            "[[Ann Lee]] met [[Ann Lee#Work|her]] and ![[Ann Lee]]; [see](../People/Ann%20Lee.md#Work \"t\").\n\
             `[[Ann]]` stays, as does [[Ann Lee]].\n"
        );
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn an_ambiguous_link_is_left_alone_and_a_dangling_name_can_be_retargeted() {
        // Two notes are named Atlas: a bare [[Atlas]] is ambiguous.
        let (after, left) = retargeted("[[Atlas]] and [[Projects/Atlas]].\n", "Projects/Atlas.md", "People/Ann.md");
        assert_eq!(after, "[[Atlas]] and [[People/Ann]].\n");
        assert_eq!(left, ["[[Atlas]]"]);
        // A note that is gone: links still naming it find the new one.
        let (after, _) = retargeted("[[Old plan]] and [[old plan|it]].\n", "Old plan.md", "Projects/Atlas.md");
        assert_eq!(after, "[[Projects/Atlas]] and [[Projects/Atlas|it]].\n");
    }

    #[test]
    fn wikilinks_become_markdown_links_and_back() {
        let wiki = "See [[Ann Lee]], [[Ann#Work|her work]] and ![[chart.png|300]].\n";
        let (markdown, left) = converted(wiki, false);
        assert_eq!(
            markdown,
            "See [Ann Lee](Ann%20Lee.md), [her work](Ann.md#Work) and ![|300](chart.png).\n"
        );
        assert!(left.is_empty(), "{left:?}");
        let (back, left) = converted(&markdown, true);
        assert_eq!(back, wiki);
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn what_the_other_syntax_cannot_say_is_left_alone_with_why() {
        let text = "---\nup: \"[[Ann]]\"\n---\n[[Atlas]], [[Nowhere]] and [[#Top]].\n";
        let (after, left) = converted(text, false);
        assert_eq!(after, text);
        let reasons: Vec<&str> = left.iter().map(|(_, r)| r.as_str()).collect();
        assert_eq!(
            reasons,
            [
                "front matter holds wikilinks only",
                "ambiguous between Archive/Atlas.md, Projects/Atlas.md",
                "it points at no file of the vault",
                "a link within the note",
            ]
        );
        let (after, left) = converted("[x](Ann.md \"A title\")\n", true);
        assert_eq!(after, "[x](Ann.md \"A title\")\n");
        assert_eq!(left[0].1, "its title has no wikilink form");
    }

    #[test]
    fn a_wikilink_in_a_table_escapes_its_pipe() {
        let (after, _) = converted("| who | [her](../People/Ann.md) |\n", true);
        assert_eq!(after, "| who | [[Ann\\|her]] |\n");
    }
}
