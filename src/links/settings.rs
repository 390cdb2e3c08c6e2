//! The vault's link settings, read from Obsidian's `.obsidian/app.json`.

use std::path::Path;

use serde::Deserialize;

/// How Obsidian writes the path of a new link (`newLinkFormat`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NewLinkFormat {
    /// The name alone when it is unique, else the shortest end of the path
    /// that is (`"shortest"`, Obsidian's default).
    #[default]
    Shortest,
    /// The path from the linking note's folder (`"relative"`).
    Relative,
    /// The path from the vault's root (`"absolute"`).
    Absolute,
}

/// The link settings of a vault. The default is Obsidian's: shortest
/// paths, wikilinks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkSettings {
    /// How to qualify a path that must be qualified, and how new links
    /// write theirs.
    pub new_link_format: NewLinkFormat,
    /// Whether new links are Markdown links (`useMarkdownLinks`); existing
    /// links keep their syntax whatever this says.
    pub use_markdown_links: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AppJson {
    new_link_format: Option<serde_json::Value>,
    use_markdown_links: Option<serde_json::Value>,
}

impl LinkSettings {
    /// The settings in the text of an `app.json`; each one missing, of the
    /// wrong type or unknown keeps its default, and so does everything when
    /// the text is not a JSON object.
    pub fn from_app_json(text: &str) -> LinkSettings {
        let Ok(app) = serde_json::from_str::<AppJson>(text) else {
            return LinkSettings::default();
        };
        let new_link_format = match app.new_link_format.as_ref().and_then(|v| v.as_str()) {
            Some("relative") => NewLinkFormat::Relative,
            Some("absolute") => NewLinkFormat::Absolute,
            _ => NewLinkFormat::Shortest,
        };
        LinkSettings {
            new_link_format,
            use_markdown_links: app
                .use_markdown_links
                .and_then(|v| v.as_bool())
                .unwrap_or(false),
        }
    }

    /// The settings of the vault at `root` (its `.obsidian/app.json`); the
    /// defaults when the file is missing or unreadable.
    pub fn read(root: &Path) -> LinkSettings {
        std::fs::read_to_string(root.join(".obsidian").join("app.json"))
            .map(|text| LinkSettings::from_app_json(&text))
            .unwrap_or_default()
    }
}
