//! Links changed through the link engine, never as text: every link to one
//! note pointed at another without moving either, and links converted
//! between wikilinks and Markdown links as the vault's settings say
//! (`.obsidian/app.json`). Each rewritten link is checked to reach the file
//! it should; the links left alone are reported with why.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::scope::Scope;
use crate::links::{self, LinkSettings, NoteEdits, Vault, apply_edits};
use crate::project::View;

/// Point every link to one note at another, without moving either.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct RetargetLinks {
    /// The note the links reach now, as a path from the vault's root
    /// (`People/Ann.md`). A note that is gone: the links still naming it.
    pub from: String,
    /// The note they should reach: a file of the vault.
    pub to: String,
    /// The notes whose links change; default every Markdown note.
    #[serde(default)]
    pub scope: Scope,
}

/// Write every link in one syntax.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct ConvertLinks {
    /// The syntax to write; default the one the vault's settings choose
    /// for new links (`useMarkdownLinks` in `.obsidian/app.json`).
    #[serde(default)]
    pub to: Option<LinkStyle>,
    /// The notes whose links change; default every Markdown note.
    #[serde(default)]
    pub scope: Scope,
}

/// A link syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum LinkStyle {
    /// `[[Note|alias]]`.
    Wikilink,
    /// `[alias](Note.md)`.
    Markdown,
}

/// The vault's files and link settings, read once for every note.
pub(super) struct VaultLinks {
    vault: Vault,
    settings: LinkSettings,
}

impl VaultLinks {
    /// The files `view` shows (pending hunks' new files included) and the
    /// settings of its project.
    pub(super) fn of(view: &View<'_>) -> VaultLinks {
        VaultLinks {
            vault: view.with_paths(|paths| Vault::new(paths.iter().copied())),
            settings: LinkSettings::read(view.project().root()),
        }
    }
}

/// What changing one note's links made of it.
pub(super) struct Relinked {
    /// Its new text.
    pub text: String,
    /// Links rewritten.
    pub links: usize,
    /// Links left alone: `line N: link: why`.
    pub left: Vec<String>,
}

impl Relinked {
    fn of(text: &str, edits: NoteEdits) -> Relinked {
        let left = edits
            .left
            .iter()
            .map(|l| {
                let line = text[..l.span.start].matches('\n').count() + 1;
                format!("line {line}: {} left alone: {}", &text[l.span.clone()], l.reason)
            })
            .collect();
        Relinked {
            text: apply_edits(text, &edits.edits),
            links: edits.edits.len(),
            left,
        }
    }
}

impl RetargetLinks {
    /// Refuses a retarget to a file that is not there, or to itself.
    pub(super) fn check(&self, links: &VaultLinks) -> Result<(), String> {
        if !links.vault.contains(&self.to) {
            return Err(format!(
                "retarget_links: `to` ({}) is not a file of the vault; give its path from the root",
                self.to
            ));
        }
        if self.from == self.to {
            return Err("retarget_links: `from` and `to` are the same file".into());
        }
        Ok(())
    }

    /// A regex every note linking to `from` has a line matching: its name,
    /// as written or percent-encoded, any case.
    pub(super) fn narrows(&self) -> String {
        let name = links::name_of(&self.from);
        let forms: Vec<String> = links::written_forms(name)
            .into_iter()
            .map(|f| regex::escape(&f))
            .collect();
        forms.join("|")
    }

    /// Points the links of `text` (the note at `path`) at `to`.
    pub(super) fn edit(&self, links: &VaultLinks, path: &str, text: &str) -> Relinked {
        let edits = links::retarget_links(
            text,
            path,
            &self.from,
            &self.to,
            &links.vault,
            &links.settings,
        );
        Relinked::of(text, edits)
    }
}

impl ConvertLinks {
    /// Whether it writes wikilinks.
    fn to_wiki(&self, links: &VaultLinks) -> bool {
        match self.to {
            Some(style) => style == LinkStyle::Wikilink,
            None => !links.settings.use_markdown_links,
        }
    }

    /// A regex every note with a link to convert has a line matching.
    pub(super) fn narrows(&self, links: &VaultLinks) -> String {
        match self.to_wiki(links) {
            true => r"\]\(".into(),
            false => r"\[\[".into(),
        }
    }

    /// Writes the links of `text` (the note at `path`) in the wanted syntax.
    pub(super) fn edit(&self, links: &VaultLinks, path: &str, text: &str) -> Relinked {
        let edits = links::convert_links(text, path, self.to_wiki(links), &links.vault, &links.settings);
        Relinked::of(text, edits)
    }
}
