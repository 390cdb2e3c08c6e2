//! Which notes a vault-wide operation reaches: every filter given holds;
//! none given, every Markdown note.

use globset::{Glob, GlobMatcher};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use yaml_rust2::{Yaml, YamlLoader};

use super::ExpandError;
use crate::links;
use crate::project::View;
use crate::tools::search::{Query, find_matches};

/// The notes an operation reaches. Every filter given must hold; with none,
/// every Markdown (`.md`) note of the vault.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
#[serde(default, deny_unknown_fields)]
pub struct Scope {
    /// Folders, each with everything under it (`Projects`, `Daily/2026`).
    pub folders: Vec<String>,
    /// A glob over paths from the vault's root (`Meetings/*.md`, `Journal/**`);
    /// default: every `.md` note.
    pub glob: Option<String>,
    /// Only notes with a line containing this text (literal, any case): the
    /// notes a search finds.
    pub containing: Option<String>,
    /// Only notes whose front matter has this property (with this value,
    /// when given: the value itself or one item of its list).
    pub property: Option<PropertyFilter>,
    /// Only these notes.
    pub files: Vec<String>,
}

/// A front matter property a note must have.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct PropertyFilter {
    /// The key (`type`, `tags`).
    pub key: String,
    /// The value it must have (a scalar's text, or one item of a list);
    /// absent: any value.
    #[serde(default)]
    pub value: Option<String>,
}

impl Scope {
    /// The notes of `view` this scope reaches, sorted: the candidates every
    /// path filter admits, narrowed by `containing` through the index's
    /// search. The property filter is [`Scope::admits_text`]'s, once a
    /// note's text is read.
    pub fn notes(&self, view: &View<'_>) -> Result<Vec<String>, ExpandError> {
        let glob = match &self.glob {
            Some(glob) => Some(compile(glob)?),
            None => None,
        };
        let folders: Vec<String> = self
            .folders
            .iter()
            .map(|f| f.trim_matches('/').to_owned())
            .collect();
        let in_folders = |path: &str| {
            folders.is_empty()
                || folders
                    .iter()
                    .any(|f| f.is_empty() || f == "." || path.strip_prefix(f.as_str()).is_some_and(|rest| rest.starts_with('/')))
        };
        let admits = |path: &str| {
            in_folders(path)
                && match &glob {
                    Some(glob) => glob.is_match(path),
                    None => path.ends_with(".md"),
                }
                && (self.files.is_empty() || self.files.iter().any(|f| f == path))
        };
        let mut notes: Vec<String> = match &self.containing {
            Some(text) if !text.is_empty() => {
                let query = Query {
                    pattern: text,
                    regex: false,
                    case_sensitive: Some(false),
                    glob: None,
                };
                find_matches(*view, &query)
                    .map_err(|e| ExpandError::Invalid(format!("scope.containing: {e}")))?
                    .into_iter()
                    .map(|f| f.path)
                    .filter(|p| admits(p))
                    .collect()
            }
            _ => view.with_paths(|paths| {
                paths
                    .iter()
                    .filter(|p| admits(p))
                    .map(|p| (*p).to_owned())
                    .collect()
            }),
        };
        notes.sort_unstable();
        Ok(notes)
    }

    /// Whether a note with `text` passes the property filter: `Ok(false)`
    /// when it does not, `Err` with why when its front matter does not
    /// parse (then the note is left alone and reported).
    pub fn admits_text(&self, text: &str) -> Result<bool, String> {
        let Some(filter) = &self.property else {
            return Ok(true);
        };
        let Some(yaml) = front_matter_yaml(text)? else {
            return Ok(false);
        };
        let Some(value) = yaml.as_hash().and_then(|m| m.get(&Yaml::String(filter.key.clone()))) else {
            return Ok(false);
        };
        Ok(match &filter.value {
            None => true,
            Some(wanted) => match value {
                Yaml::Array(items) => items.iter().any(|v| scalar(v).as_deref() == Some(wanted)),
                v => scalar(v).as_deref() == Some(wanted),
            },
        })
    }
}

/// The YAML document of `text`'s front matter: `None` when it has none,
/// `Err` when it does not parse.
pub(crate) fn front_matter_yaml(text: &str) -> Result<Option<Yaml>, String> {
    let Some((inner, _)) = links::front_matter(text) else {
        return Ok(None);
    };
    let docs = YamlLoader::load_from_str(&text[inner]).map_err(|e| format!("its front matter is not YAML: {e}"))?;
    Ok(docs.into_iter().next())
}

/// A YAML scalar's text.
fn scalar(value: &Yaml) -> Option<String> {
    match value {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

fn compile(glob: &str) -> Result<GlobMatcher, ExpandError> {
    Glob::new(glob)
        .map(|g| g.compile_matcher())
        .map_err(|e| ExpandError::Invalid(format!("scope.glob `{glob}`: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scoped(key: &str, value: Option<&str>) -> Scope {
        Scope {
            property: Some(PropertyFilter {
                key: key.into(),
                value: value.map(Into::into),
            }),
            ..Scope::default()
        }
    }

    #[test]
    fn a_property_filter_reads_scalars_and_lists() {
        let note = "---\ntype: meeting\ntags: [work, atlas]\n---\nBody\n";
        assert_eq!(scoped("type", Some("meeting")).admits_text(note), Ok(true));
        assert_eq!(scoped("type", Some("project")).admits_text(note), Ok(false));
        assert_eq!(scoped("tags", Some("atlas")).admits_text(note), Ok(true));
        assert_eq!(scoped("status", None).admits_text(note), Ok(false));
        assert_eq!(scoped("type", None).admits_text("No front matter\n"), Ok(false));
        assert!(scoped("type", None).admits_text("---\ntype: [unclosed\n---\n").is_err());
    }
}
