//! Writing a link anew: for a file that moved, for a heading renamed, or
//! for a new link. A rewritten link keeps everything but its path (alias,
//! subpath, embed, title, syntax) and writes the path in the form it had;
//! every form tried is checked to resolve to the intended file before it
//! is used, so a rewrite never sends a link elsewhere.

use std::collections::BTreeMap;
use std::ops::Range;

use super::parse::{Link, Syntax};
use super::paths;
use super::resolve::{FileSet, Via, resolve};
use super::settings::{LinkSettings, NewLinkFormat};

/// Replace the bytes `range` of a note's text with `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    /// The bytes replaced: a link's span.
    pub range: Range<usize>,
    /// What replaces them: the link rewritten.
    pub text: String,
}

/// The edits a change needs: the links to rewrite, and those left alone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// Each note's edits, keyed by its path before the change (the text the
    /// ranges are in), in order and never overlapping.
    pub edits: BTreeMap<String, Vec<TextEdit>>,
    /// The links the change concerns that are left as they are, and why.
    pub skipped: Vec<Skipped>,
}

/// A link a change concerns but leaves alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The note it is in (its path before the change).
    pub source: String,
    /// Its bytes in that note.
    pub span: Range<usize>,
    /// Why it is left alone.
    pub reason: SkipReason,
}

/// Why a link is left alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// Several files answer to it, one of them changing: which one it
    /// meant is not known. These are the candidates.
    Ambiguous(Vec<String>),
    /// No way of writing it reaches its file (not expected: a path from the
    /// root always does, but a link in code could not be checked).
    Unwritable,
}

/// Why moves were refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The file to move is not in the vault.
    #[error("`{0}` is not in the vault")]
    Missing(String),
    /// The destination is a file that stays.
    #[error("`{0}` is already a file of the vault")]
    Taken(String),
    /// A file moves twice, or two files move to one place.
    #[error("`{0}` is in two moves")]
    Twice(String),
    /// The destination is not a vault path (empty, absolute, with `.` or
    /// `..` or an empty component).
    #[error("`{0}` is not a path inside the vault")]
    Invalid(String),
}

/// `text` with `edits` (in order, not overlapping) applied.
pub fn apply_edits(text: &str, edits: &[TextEdit]) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    for edit in edits {
        out.push_str(&text[at..edit.range.start]);
        out.push_str(&edit.text);
        at = edit.range.end;
    }
    out.push_str(&text[at..]);
    out
}

/// The ways of writing the path of `file` from the note at `source`.
struct Forms<'a> {
    /// From the root.
    full: &'a str,
    /// From the note's folder, without `./`.
    relative: String,
}

impl<'a> Forms<'a> {
    fn new(file: &'a str, source: &str) -> Forms<'a> {
        Forms {
            full: file,
            relative: paths::relative(paths::folder(source), file),
        }
    }

    fn name(&self) -> String {
        paths::file_name(self.full).to_owned()
    }

    fn rooted(&self) -> String {
        format!("/{}", self.full)
    }

    /// Relative, marked so (`./` when it does not climb).
    fn dotted(&self) -> String {
        if self.relative.starts_with("../") {
            self.relative.clone()
        } else {
            format!("./{}", self.relative)
        }
    }

    /// The ends of the full path with two components or more, shortest first.
    fn ends(&self) -> impl Iterator<Item = String> + '_ {
        let cuts: Vec<usize> = self.full.match_indices('/').map(|(i, _)| i).collect();
        cuts.into_iter()
            .rev()
            .skip(1)
            .map(|i| self.full[i + 1..].to_owned())
            .chain(self.full.contains('/').then(|| self.full.to_owned()))
    }

    /// A path that must be qualified, as `settings` qualify one.
    fn qualified(&self, settings: &LinkSettings, wiki: bool, out: &mut Vec<String>) {
        match settings.new_link_format {
            NewLinkFormat::Shortest => out.extend(self.ends()),
            NewLinkFormat::Relative if wiki => out.push(self.dotted()),
            NewLinkFormat::Relative => out.push(self.relative.clone()),
            NewLinkFormat::Absolute => out.push(self.full.to_owned()),
        }
    }
}

/// `link`, found `via` pointing at `old` from its note, rewritten to point
/// at `new` from the note now at `source` in `files`; `None` when no form
/// reaches it.
///
/// The path keeps its form: a bare name stays bare while it resolves, else
/// is qualified as `settings` say; a path from the root stays one; a
/// relative path is worked out again; `.md` stays left off when it was.
pub(crate) fn retarget<F: FileSet + ?Sized>(
    link: &Link,
    via: Via,
    old: &str,
    new: &str,
    source: &str,
    files: &F,
    settings: &LinkSettings,
) -> Option<Link> {
    if via == Via::SameNote {
        return None;
    }
    let written = link.path();
    let forms = Forms::new(new, source);
    let explicit = written.starts_with("./") || written.starts_with("../");
    let rooted = written.starts_with('/');
    let qualified = written.trim_start_matches('/').contains('/');
    let wiki = link.is_wiki();
    let mut tries = Vec::with_capacity(8);
    if rooted {
        tries.push(forms.rooted());
    } else if explicit {
        tries.push(forms.dotted());
    } else if !wiki && via == Via::Relative {
        tries.push(forms.relative.clone());
    } else if qualified {
        tries.push(forms.full.to_owned());
    } else {
        tries.push(forms.name());
        forms.qualified(settings, wiki, &mut tries);
    }
    // Last resorts, which always resolve: a path from the root for a
    // wikilink, a relative one for a Markdown link.
    if wiki {
        tries.push(forms.full.to_owned());
    } else {
        tries.extend([forms.relative.clone(), forms.dotted(), forms.rooted()]);
    }
    let omit_md = !paths::ends_with_md(&written) && paths::ends_with_md(old);
    first_resolving(link, tries, omit_md, new, source, files)
}

/// The first of `tries` (each with `.md` left off first when `omit_md`)
/// that, written into `link`, resolves to `file` from `source`.
fn first_resolving<F: FileSet + ?Sized>(
    link: &Link,
    tries: Vec<String>,
    omit_md: bool,
    file: &str,
    source: &str,
    files: &F,
) -> Option<Link> {
    let mut seen: Vec<String> = Vec::with_capacity(tries.len() * 2);
    for path in tries {
        let short =
            (omit_md && paths::ends_with_md(&path)).then(|| paths::strip_md(&path).to_owned());
        for path in short.into_iter().chain([path]) {
            if seen.contains(&path) {
                continue;
            }
            let candidate = link.with_path(&path);
            if resolve(files, &candidate, source).0.file() == Some(file) {
                return Some(candidate);
            }
            seen.push(path);
        }
    }
    None
}

/// A new link to `file` from the note at `source`, written as `settings`
/// say: a wikilink (`.md` left off a note) or a Markdown link, its path
/// the name, a path from the root or a relative one; `display` as its
/// alias or text. `None` when no form reaches it.
pub(crate) fn new_link<F: FileSet + ?Sized>(
    file: &str,
    source: &str,
    settings: &LinkSettings,
    display: Option<&str>,
    files: &F,
) -> Option<String> {
    let shown = display.map(str::to_owned);
    let syntax = if settings.use_markdown_links {
        Syntax::Markdown {
            text: shown.unwrap_or_else(|| paths::strip_md(paths::file_name(file)).to_owned()),
            angle: false,
            lead: String::new(),
            trail: String::new(),
        }
    } else {
        Syntax::Wiki {
            alias: shown,
            escaped_pipe: false,
        }
    };
    let template = Link {
        span: 0..0,
        embed: false,
        target: String::new(),
        subpath: None,
        syntax,
        front_matter: None,
    };
    written_anew(&template, file, source, settings, files).map(|link| link.render())
}

/// `template` (its syntax, text or alias, embed) pointing at `file` from
/// the note at `source`, its path written as `settings` write a new
/// link's: the name, a path from the root or a relative one, `.md` left
/// off a wikilink's note. `None` when no form reaches it.
pub(crate) fn written_anew<F: FileSet + ?Sized>(
    template: &Link,
    file: &str,
    source: &str,
    settings: &LinkSettings,
    files: &F,
) -> Option<Link> {
    let wiki = template.is_wiki();
    let forms = Forms::new(file, source);
    let mut tries = Vec::with_capacity(8);
    if settings.new_link_format == NewLinkFormat::Shortest {
        tries.push(forms.name());
    }
    forms.qualified(settings, wiki, &mut tries);
    tries.extend([
        forms.full.to_owned(),
        forms.relative.clone(),
        forms.dotted(),
    ]);
    first_resolving(template, tries, wiki, file, source, files)
}

/// `link` with each component of its heading subpath that names `old`
/// renamed `new`; `None` when it has none (or points at a block), or when
/// `old` and `new` match alike.
///
/// Headings compare as Obsidian matches them: case and runs of spaces
/// aside, and with the characters a link cannot hold (`#|^[]`) as spaces.
pub(crate) fn rename_heading(link: &Link, old: &str, new: &str) -> Option<Link> {
    let subpath = link.decoded_subpath()?;
    if subpath.starts_with('^') {
        return None;
    }
    let wanted = heading_key(old);
    if wanted == heading_key(new) {
        // Links still match a heading renamed in case or spacing only.
        return None;
    }
    let mut renamed = false;
    let parts: Vec<String> = subpath
        .split('#')
        .map(|part| {
            if heading_key(part) == wanted {
                renamed = true;
                link_heading(new)
            } else {
                part.to_owned()
            }
        })
        .collect();
    renamed.then(|| link.with_subpath(Some(&parts.join("#"))))
}

/// Whether `link` points at heading `heading` of its note (at any level
/// of a nested subpath), as Obsidian matches it: case and spacing aside.
pub(crate) fn names_heading(link: &Link, heading: &str) -> bool {
    let Some(subpath) = link.decoded_subpath() else {
        return false;
    };
    let wanted = heading_key(heading);
    !subpath.starts_with('^') && subpath.split('#').any(|part| heading_key(part) == wanted)
}

/// Whether two headings are one to a link (case and spacing aside).
pub(crate) fn same_heading(a: &str, b: &str) -> bool {
    heading_key(a) == heading_key(b)
}

/// A heading as a link can hold it.
fn link_heading(heading: &str) -> String {
    heading
        .split(['#', '|', '^', '[', ']'])
        .flat_map(str::split_whitespace)
        .collect::<Vec<_>>()
        .join(" ")
}

fn heading_key(heading: &str) -> String {
    paths::lower(&link_heading(heading))
}

/// Why a link that several files answer to is left alone: `None` when none
/// of those `candidates` is `changed`.
pub(crate) fn ambiguous_among(
    candidates: &[String],
    changed: impl Fn(&str) -> bool,
) -> Option<SkipReason> {
    candidates
        .iter()
        .any(|c| changed(c))
        .then(|| SkipReason::Ambiguous(candidates.to_vec()))
}
