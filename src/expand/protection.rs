//! Protected notes (the configuration's `[protected]`): no proposal may
//! change them, whatever the prompt said. Staging refuses an edit of one,
//! with the reason, before anything changes; an operation leaves them out
//! and reports them.

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::config::Protected;
use crate::links;

/// The configured protection, compiled.
#[derive(Clone, Debug, Default)]
pub struct Protection {
    globs: Vec<String>,
    set: GlobSet,
    property: Option<String>,
}

impl Protection {
    /// Compiles `protected`; a glob that does not parse is refused.
    pub fn new(protected: &Protected) -> Result<Protection, globset::Error> {
        let mut set = GlobSetBuilder::new();
        for glob in &protected.globs {
            set.add(Glob::new(glob)?);
        }
        Ok(Protection {
            globs: protected.globs.clone(),
            set: set.build()?,
            property: protected.property.clone(),
        })
    }

    /// Whether it protects nothing (the default).
    pub fn is_empty(&self) -> bool {
        self.globs.is_empty() && self.property.is_none()
    }

    /// Whether a note's text matters to it (a property is configured).
    pub fn reads_text(&self) -> bool {
        self.property.is_some()
    }

    /// Why the note at `path`, reading `text` (when it is text), is
    /// protected; `None` when it is not.
    pub fn why(&self, path: &str, text: Option<&str>) -> Option<String> {
        if let Some(i) = self.set.matches(path).first() {
            return Some(format!("it matches `{}`", self.globs[*i]));
        }
        let key = self.property.as_deref()?;
        let (inner, _) = links::front_matter(text?)?;
        text?[inner].lines().any(|line| {
            line.split_once(':').is_some_and(|(k, v)| {
                k.trim().trim_matches(['"', '\'']) == key && v.trim().eq_ignore_ascii_case("true")
            })
        })
        .then(|| format!("its front matter says `{key}: true`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_glob_or_the_property_protects_a_note() {
        let p = Protection::new(&Protected {
            globs: vec!["Journal/**".into()],
            property: Some("locked".into()),
        })
        .unwrap();
        assert!(p.why("Journal/2026/11-27.md", None).unwrap().contains("Journal/**"));
        assert!(p.why("Notes/a.md", Some("---\nlocked: true\n---\nText\n")).unwrap().contains("locked"));
        assert_eq!(p.why("Notes/a.md", Some("---\nlocked: false\n---\nText\n")), None);
        assert_eq!(p.why("Notes/a.md", Some("locked: true\n")), None, "only in front matter");
        assert!(Protection::new(&Protected { globs: vec!["[".into()], property: None }).is_err());
    }
}
