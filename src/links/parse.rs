//! Finding a note's links, with their exact byte spans, and writing a link
//! back. The grammar is Obsidian's: wikilinks and embeds on one line,
//! CommonMark inline links, wikilinks in front matter values; nothing in
//! fenced code, in code spans, or behind a backslash.

use std::borrow::Cow;
use std::ops::Range;

use super::paths;

/// A link as written in a note: where it is and every part needed to write
/// it back. Targets and subpaths are kept as written (still
/// percent-encoded, still YAML-escaped); [`Link::path`] and
/// [`Link::heading`] decode them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// Its bytes in the note's text, the embed's `!` included.
    pub span: Range<usize>,
    /// Whether a `!` before it makes it an embed (`![[chart.png]]`, `![a](x.png)`).
    pub embed: bool,
    /// The path it points at, as written: `Projects/Atlas`, `Atlas.md`,
    /// `../x/Note%20Name.md`; empty for a same-note wikilink (`[[#Heading]]`).
    pub target: String,
    /// What follows the first `#` of the target, as written and without
    /// that `#`: a heading (`Goals`, nested `Goals#Q1`) or a block (`^id`).
    pub subpath: Option<String>,
    /// The syntax it uses, and that syntax's own parts.
    pub syntax: Syntax,
    /// `Some` when the link stands in the note's front matter, with the
    /// YAML quoting around it, which a rewrite must keep valid.
    pub front_matter: Option<Quote>,
}

/// The two link syntaxes of a vault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// `[[target#subpath|alias]]`.
    Wiki {
        /// What follows the first `|`, as written.
        alias: Option<String>,
        /// Whether the `|` was written `\|`, as it must be inside a table.
        escaped_pipe: bool,
    },
    /// `[text](target#subpath "title")`.
    Markdown {
        /// The text between the brackets (the alt text of an image).
        text: String,
        /// Whether the destination is in angle brackets (`<a b.md>`).
        angle: bool,
        /// Whitespace between `(` and the destination.
        lead: String,
        /// Everything between the destination and `)`: the whitespace and
        /// the title with its quotes, if any (` "Title"`).
        trail: String,
    },
}

/// The YAML quoting of a front matter value holding a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quote {
    /// An unquoted (plain) scalar.
    Plain,
    /// `'…'`: a `'` is written `''`.
    Single,
    /// `"…"`: `"` and `\` are written `\"` and `\\`.
    Double,
}

impl Quote {
    /// `s` as it must be written inside this quoting.
    fn escape(self, s: &str) -> Cow<'_, str> {
        match self {
            Quote::Single if s.contains('\'') => Cow::Owned(s.replace('\'', "''")),
            Quote::Double if s.contains(['"', '\\']) => {
                Cow::Owned(s.replace('\\', "\\\\").replace('"', "\\\""))
            }
            _ => Cow::Borrowed(s),
        }
    }

    /// `s` as written inside this quoting, unescaped.
    fn unescape(self, s: &str) -> Cow<'_, str> {
        match self {
            Quote::Single if s.contains("''") => Cow::Owned(s.replace("''", "'")),
            Quote::Double if s.contains('\\') => {
                let mut out = String::with_capacity(s.len());
                let mut chars = s.chars();
                while let Some(c) = chars.next() {
                    match (c, chars.clone().next()) {
                        ('\\', Some(n @ ('"' | '\\'))) => {
                            out.push(n);
                            chars.next();
                        }
                        _ => out.push(c),
                    }
                }
                Cow::Owned(out)
            }
            _ => Cow::Borrowed(s),
        }
    }
}

impl Link {
    /// Whether it is a wikilink (`[[…]]`) rather than a Markdown link.
    pub fn is_wiki(&self) -> bool {
        matches!(self.syntax, Syntax::Wiki { .. })
    }

    /// The path it points at, decoded: YAML escapes undone in front matter,
    /// percent escapes and backslash escapes undone in a Markdown link;
    /// surrounding whitespace trimmed. Empty for a same-note link.
    pub fn path(&self) -> Cow<'_, str> {
        then(self.decoded(&self.target), |s| Cow::Borrowed(s.trim()))
    }

    /// `raw`, the target or the subpath, decoded as [`Link::path`] says.
    fn decoded<'a>(&self, raw: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(raw);
        if let Some(quote) = self.front_matter {
            out = then(out, |s| quote.unescape(s));
        }
        if !self.is_wiki() {
            out = then(
                then(out, paths::unescape_backslashes),
                paths::percent_decode,
            );
        }
        out
    }

    /// Whether the target was written with its `.md` extension.
    pub fn has_md_extension(&self) -> bool {
        paths::ends_with_md(&self.path())
    }

    /// The heading it points at (the last of a nested `A#B`), decoded;
    /// `None` for a block reference or no subpath.
    pub fn heading(&self) -> Option<String> {
        let subpath = self.decoded_subpath()?;
        (!subpath.starts_with('^')).then(|| subpath.rsplit('#').next().unwrap_or("").to_owned())
    }

    /// The block id of a `#^id` subpath.
    pub fn block(&self) -> Option<&str> {
        self.subpath.as_deref()?.strip_prefix('^')
    }

    /// The alias of a wikilink, or the text of a Markdown link, as written.
    pub fn display(&self) -> Option<&str> {
        match &self.syntax {
            Syntax::Wiki { alias, .. } => alias.as_deref(),
            Syntax::Markdown { text, .. } => Some(text),
        }
    }

    /// The title of a Markdown link, without its quotes.
    pub fn title(&self) -> Option<&str> {
        let Syntax::Markdown { trail, .. } = &self.syntax else {
            return None;
        };
        let t = trail.trim();
        (t.len() >= 2).then(|| &t[1..t.len() - 1])
    }

    /// Whether a Markdown link's target uses `%XX` escapes.
    pub fn is_encoded(&self) -> bool {
        !self.is_wiki() && paths::is_encoded(&self.target)
    }

    /// The subpath decoded as [`Link::path`] decodes the target.
    pub(crate) fn decoded_subpath(&self) -> Option<Cow<'_, str>> {
        Some(self.decoded(self.subpath.as_deref()?))
    }

    /// The link written back: exactly its source text when unchanged.
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(self.span.len() + 8);
        if self.embed {
            out.push('!');
        }
        let subpath = |out: &mut String| {
            if let Some(s) = &self.subpath {
                out.push('#');
                out.push_str(s);
            }
        };
        match &self.syntax {
            Syntax::Wiki {
                alias,
                escaped_pipe,
            } => {
                out.push_str("[[");
                out.push_str(&self.target);
                subpath(&mut out);
                if let Some(alias) = alias {
                    out.push_str(if *escaped_pipe { "\\|" } else { "|" });
                    out.push_str(alias);
                }
                out.push_str("]]");
            }
            Syntax::Markdown {
                text,
                angle,
                lead,
                trail,
            } => {
                out.push('[');
                out.push_str(text);
                out.push_str("](");
                out.push_str(lead);
                if *angle {
                    out.push('<');
                }
                out.push_str(&self.target);
                subpath(&mut out);
                if *angle {
                    out.push('>');
                }
                out.push_str(trail);
                out.push(')');
            }
        }
        out
    }

    /// A copy pointing at `path` (unencoded; a vault path or one relative
    /// to the note), written as this link writes paths: percent-encoded in
    /// a Markdown link (bytes outside ASCII too when the original encoded
    /// them), raw in angle brackets, YAML-escaped in front matter.
    pub fn with_path(&self, path: &str) -> Link {
        Link {
            target: self.written(path),
            ..self.clone()
        }
    }

    /// A copy with `subpath` (unencoded, without its first `#`; a `#`
    /// in it separates nested headings), written as [`Link::with_path`]
    /// writes paths.
    pub fn with_subpath(&self, subpath: Option<&str>) -> Link {
        let written = |s: &str| {
            let parts: Vec<String> = s.split('#').map(|part| self.written(part)).collect();
            parts.join("#")
        };
        Link {
            subpath: subpath.map(written),
            ..self.clone()
        }
    }

    fn written(&self, s: &str) -> String {
        let encoded = match &self.syntax {
            Syntax::Wiki { .. } => Cow::Borrowed(s),
            Syntax::Markdown { angle: true, .. } => {
                Cow::Owned(s.replace('<', "%3C").replace('>', "%3E"))
            }
            Syntax::Markdown { angle: false, .. } => {
                let non_ascii = paths::encodes_non_ascii(&self.target)
                    || self
                        .subpath
                        .as_deref()
                        .is_some_and(paths::encodes_non_ascii);
                paths::percent_encode(s, non_ascii)
            }
        };
        match self.front_matter {
            Some(quote) => quote.escape(&encoded).into_owned(),
            None => encoded.into_owned(),
        }
    }
}

/// `s` passed through `f`, borrowing as long as neither allocates.
fn then<'a>(s: Cow<'a, str>, f: impl for<'b> Fn(&'b str) -> Cow<'b, str>) -> Cow<'a, str> {
    match s {
        Cow::Borrowed(s) => f(s),
        Cow::Owned(s) => Cow::Owned(f(&s).into_owned()),
    }
}

/// Every link of `text` that points into the vault, in document order: the
/// wikilinks of its front matter, then those and the Markdown links of its
/// body. URLs (`scheme:`), same-note `#anchor` Markdown links and empty
/// destinations are not vault links; neither is anything in fenced code,
/// in a code span or after a backslash.
pub fn parse(text: &str) -> Vec<Link> {
    let mut out = Vec::new();
    let body = match front_matter(text) {
        Some((inner, end)) => {
            scan_yaml(text, inner, &mut out);
            end
        }
        None => 0,
    };
    let mut from = body;
    for fence in fenced_blocks(text, body) {
        scan_markdown(text, from..fence.start, &mut out);
        from = fence.end;
    }
    scan_markdown(text, from..text.len(), &mut out);
    out
}

/// The front matter of `text`: the bytes between its fences, and where the
/// body starts. A front matter never closed is none: Obsidian reads the
/// note as body then.
pub(crate) fn front_matter(text: &str) -> Option<(Range<usize>, usize)> {
    let mut lines = lines(text, 0);
    let first = lines.next()?;
    if text[first.clone()].trim_end() != "---" {
        return None;
    }
    for line in lines {
        let bare = text[line.clone()].trim_end();
        if bare == "---" || bare == "..." {
            return Some((first.end..line.start, line.end));
        }
    }
    None
}

/// The fence that `line` is, if any: its character, its length, and what
/// follows it.
fn fence(line: &str) -> Option<(u8, usize, &str)> {
    let bare = line.trim_start_matches([' ', '\t', '>']);
    let c = *bare.as_bytes().first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let len = bare.bytes().take_while(|&b| b == c).count();
    (len >= 3).then(|| (c, len, &bare[len..]))
}

/// The lines of `text` from `from`, each with its `\n`.
fn lines(text: &str, from: usize) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut at = from;
    std::iter::from_fn(move || {
        if at >= text.len() {
            return None;
        }
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
        let line = at..end;
        at = end;
        Some(line)
    })
}

/// The fenced code blocks of `text` after `from`, fences included, as byte
/// ranges; one never closed runs to the end. A fence may be indented or
/// quoted (`> ```), as in a list item or a callout.
pub(crate) fn fenced_blocks(text: &str, from: usize) -> Vec<Range<usize>> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, u8, usize)> = None;
    for line in lines(text, from) {
        let Some((c, len, rest)) = fence(&text[line.clone()]) else {
            continue;
        };
        match open {
            None if c == b'~' || !rest.contains('`') => open = Some((line.start, c, len)),
            Some((start, o, olen)) if c == o && len >= olen && rest.trim().is_empty() => {
                blocks.push(start..line.end);
                open = None;
            }
            _ => {}
        }
    }
    if let Some((start, ..)) = open {
        blocks.push(start..text.len());
    }
    blocks
}

/// The links of the Markdown in `range`: wikilinks and inline links,
/// stepping over code spans and backslash escapes.
fn scan_markdown(text: &str, range: Range<usize>, out: &mut Vec<Link>) {
    let b = text.as_bytes();
    let end = range.end;
    let mut i = range.start;
    while i < end {
        match b[i] {
            b'\\' => {
                i += if b.get(i + 1).is_some_and(u8::is_ascii_punctuation) && i + 1 < end {
                    2
                } else {
                    1
                }
            }
            b'`' => i = past_code_span(text, i, end),
            b'!' if b.get(i + 1) == Some(&b'[') && i + 1 < end => {
                match link_at(text, i + 1, end, true) {
                    Some((link, next)) => {
                        out.extend(link);
                        i = next;
                    }
                    None => i += 1,
                }
            }
            b'[' => match link_at(text, i, end, false) {
                Some((link, next)) => {
                    out.extend(link);
                    i = next;
                }
                None => i += 1,
            },
            _ => i += 1,
        }
    }
}

/// Where the code span opening at `at` ends, or just past its backticks
/// when no run of as many closes it in the same paragraph.
pub(crate) fn past_code_span(text: &str, at: usize, end: usize) -> usize {
    let b = text.as_bytes();
    let run = b[at..end].iter().take_while(|&&c| c == b'`').count();
    let mut i = at + run;
    while i < end {
        match b[i] {
            b'`' => {
                let close = b[i..end].iter().take_while(|&&c| c == b'`').count();
                if close == run {
                    return i + close;
                }
                i += close;
            }
            b'\n'
                if text[i + 1..end]
                    .trim_start_matches([' ', '\t'])
                    .starts_with('\n') =>
            {
                break;
            }
            _ => i += 1,
        }
    }
    at + run
}

/// The link opening with the `[` at `open` (a `!` before it when `embed`):
/// `Some((link, end))` when a link is there, the link being `None` when it
/// is not a vault link (a URL, an anchor) but still to be stepped over.
fn link_at(text: &str, open: usize, end: usize, embed: bool) -> Option<(Option<Link>, usize)> {
    let start = open - usize::from(embed);
    if text.as_bytes()[open..end].starts_with(b"[[")
        && let Some(link) = wikilink_at(text, open, end, start, embed)
    {
        let next = link.span.end;
        return Some((Some(link), next));
    }
    markdown_at(text, open, end, start, embed)
}

/// The wikilink `[[…]]` at `open`, on one line, with no bracket inside.
fn wikilink_at(text: &str, open: usize, end: usize, start: usize, embed: bool) -> Option<Link> {
    let from = open + 2;
    let rest = &text[from..end];
    // No bracket inside, so the first `]` must be the close, on this line.
    let close = rest.find([']', '\n'])?;
    if !rest[close..].starts_with("]]") {
        return None;
    }
    let inner = &rest[..close];
    if inner.contains('[') {
        return None;
    }
    let (reference, alias, escaped_pipe) = match inner.find('|') {
        Some(p) if inner[..p].ends_with('\\') => (&inner[..p - 1], Some(&inner[p + 1..]), true),
        Some(p) => (&inner[..p], Some(&inner[p + 1..]), false),
        None => (inner, None, false),
    };
    let (target, subpath) = match reference.find('#') {
        Some(h) => (&reference[..h], Some(&reference[h + 1..])),
        None => (reference, None),
    };
    if target.trim().is_empty() && subpath.is_none() {
        return None;
    }
    Some(Link {
        span: start..from + close + 2,
        embed,
        target: target.to_owned(),
        subpath: subpath.map(str::to_owned),
        syntax: Syntax::Wiki {
            alias: alias.map(str::to_owned),
            escaped_pipe,
        },
        front_matter: None,
    })
}

/// The inline Markdown link `[text](destination "title")` at `open`.
fn markdown_at(
    text: &str,
    open: usize,
    end: usize,
    start: usize,
    embed: bool,
) -> Option<(Option<Link>, usize)> {
    let b = text.as_bytes();
    // The text: balanced brackets, escapes stepped over, no blank line.
    let mut depth = 0usize;
    let mut i = open;
    let text_end = loop {
        match *b[..end].get(i)? {
            b'\\' => i += 1,
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    break i;
                }
            }
            b'\n'
                if text[i + 1..end]
                    .trim_start_matches([' ', '\t'])
                    .starts_with('\n') =>
            {
                return None;
            }
            _ => {}
        }
        i += 1;
    };
    if b[..end].get(text_end + 1) != Some(&b'(') {
        return None;
    }
    let lead_start = text_end + 2;
    let dest_start = lead_start + blanks(&text[lead_start..end]);
    let (dest, angle, dest_end) = destination(text, dest_start, end)?;
    let title_end = dest_end + title_len(&text[dest_end..end])?;
    let trail_end = title_end + blanks(&text[title_end..end]);
    if b[..end].get(trail_end) != Some(&b')') {
        return None;
    }
    let next = trail_end + 1;
    let (target, subpath) = match dest.find('#') {
        Some(h) => (&dest[..h], Some(&dest[h + 1..])),
        None => (dest, None),
    };
    let url = {
        let scheme = target.split(':').next().unwrap_or("");
        target.contains(':')
            && scheme.len() >= 2
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
    };
    if url || target.trim().is_empty() {
        return Some((None, next));
    }
    let link = Link {
        span: start..next,
        embed,
        target: target.to_owned(),
        subpath: subpath.map(str::to_owned),
        syntax: Syntax::Markdown {
            text: text[open + 1..text_end].to_owned(),
            angle,
            lead: text[lead_start..dest_start].to_owned(),
            trail: text[dest_end..trail_end].to_owned(),
        },
        front_matter: None,
    };
    Some((Some(link), next))
}

/// The length of the spaces and tabs (and one line break) starting `s`.
fn blanks(s: &str) -> usize {
    let line = s.len() - s.trim_start_matches([' ', '\t']).len();
    match s[line..].strip_prefix('\n') {
        Some(rest) => line + 1 + rest.len() - rest.trim_start_matches([' ', '\t']).len(),
        None => line,
    }
}

/// The destination at `at`: `(written, angle, end)`, `written` without its
/// angle brackets, `end` past them.
fn destination(text: &str, at: usize, end: usize) -> Option<(&str, bool, usize)> {
    let b = &text.as_bytes()[..end];
    if b.get(at) == Some(&b'<') {
        let mut i = at + 1;
        loop {
            match *b.get(i)? {
                b'\\' => i += 2,
                b'>' => return Some((&text[at + 1..i], true, i + 1)),
                b'<' | b'\n' => return None,
                _ => i += 1,
            }
        }
    }
    let mut depth = 0usize;
    let mut i = at;
    while let Some(&c) = b.get(i) {
        match c {
            b'\\' if b.get(i + 1).is_some_and(u8::is_ascii_punctuation) => i += 1,
            b'(' => depth += 1,
            b')' if depth == 0 => break,
            b')' => depth -= 1,
            c if c == b' ' || c.is_ascii_control() => break,
            _ => {}
        }
        i += 1;
    }
    (depth == 0).then_some((&text[at..i], false, i))
}

/// The length of an optional title at the start of `s` with the blanks
/// before it: `Some(0)` when there is none, `None` when something else is.
fn title_len(s: &str) -> Option<usize> {
    let gap = blanks(s);
    let rest = &s[gap..];
    let close = match rest.as_bytes().first() {
        Some(b'"') => b'"',
        Some(b'\'') => b'\'',
        Some(b'(') => b')',
        _ => return Some(0),
    };
    if gap == 0 {
        return None;
    }
    let b = rest.as_bytes();
    let mut i = 1;
    while let Some(&c) = b.get(i) {
        match c {
            b'\\' => i += 1,
            c if c == close => return Some(gap + i + 1),
            b'\n'
                if rest[i + 1..]
                    .trim_start_matches([' ', '\t'])
                    .starts_with('\n') =>
            {
                return None;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The wikilinks of front matter `range`, each with the YAML quoting it
/// stands in; comments are skipped.
fn scan_yaml(text: &str, range: Range<usize>, out: &mut Vec<Link>) {
    let b = text.as_bytes();
    let end = range.end;
    let mut quote: Option<Quote> = None;
    // Whether a scalar may start here, so that a quote opens a string.
    let mut value_start = true;
    let mut i = range.start;
    while i < end {
        // Bytes, not text: `i` steps over the bytes of a character too.
        let embed = b[i] == b'!' && b[i + 1..end].starts_with(b"[[");
        if embed || b[i..end].starts_with(b"[[") {
            let open = i + usize::from(embed);
            if let Some(mut link) = wikilink_at(text, open, end, i, embed) {
                link.front_matter = Some(quote.unwrap_or(Quote::Plain));
                i = link.span.end;
                out.push(link);
                value_start = false;
                continue;
            }
        }
        let c = b[i];
        let next_blank = matches!(b.get(i + 1), None | Some(b' ' | b'\t' | b'\r' | b'\n'));
        match quote {
            Some(Quote::Double) => match c {
                b'\\' => i += 1,
                b'"' => quote = None,
                _ => {}
            },
            Some(Quote::Single) if c == b'\'' => {
                if b.get(i + 1) == Some(&b'\'') {
                    i += 1;
                } else {
                    quote = None;
                }
            }
            Some(_) => {}
            None => match c {
                b'"' if value_start => quote = Some(Quote::Double),
                b'\'' if value_start => quote = Some(Quote::Single),
                b'#' if i == range.start || matches!(b[i - 1], b' ' | b'\t' | b'\n') => {
                    i = text[i..end].find('\n').map_or(end, |n| i + n);
                    continue;
                }
                b'\n' | b'[' | b'{' | b',' => value_start = true,
                b':' | b'-' | b'?' if next_blank => value_start = true,
                b' ' | b'\t' | b'\r' => {}
                _ => value_start = false,
            },
        }
        i += 1;
    }
}
