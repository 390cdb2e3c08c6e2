//! Codex's `apply_patch` calls: the patch its hook receives (as
//! `tool_input.command`), the text each file it updates or adds would hold
//! after it, and the patch that leaves decided texts instead.
//!
//! The format, as Codex writes and applies it:
//!
//! ```text
//! *** Begin Patch
//! *** Add File: notes/new.md
//! +a line
//! *** Update File: notes/a.md
//! @@ an optional line the chunk comes after
//!  context
//! -removed
//! +added
//! *** End of File            (optional: the chunk ends the file)
//! *** Delete File: notes/old.md
//! *** End Patch
//! ```
//!
//! An update may move its file (`*** Move to: <path>` after its first line).
//! Chunks are found in order, each after the last, matching lines exactly,
//! then without trailing spaces, then trimmed. The file is written with a
//! final newline, and a CRLF file keeps CRLF.

use super::HookError;
use super::replace::Endings;

/// One file a patch touches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FilePatch {
    /// `*** Add File`: a new file with these lines.
    Add {
        /// The path as the patch gives it (relative to the agent's folder).
        path: String,
        /// Its lines.
        lines: Vec<String>,
    },
    /// `*** Delete File`.
    Delete {
        /// The path.
        path: String,
    },
    /// `*** Update File`: chunks of changed lines, the file maybe moved.
    Update {
        /// The path.
        path: String,
        /// Where it moves, if it does.
        move_to: Option<String>,
        /// The changes, in file order.
        chunks: Vec<Chunk>,
    },
}

/// One `@@` chunk of an update.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chunk {
    /// The line given after `@@`, which the chunk comes after.
    pub after: Option<String>,
    /// The lines it replaces (context and removed).
    pub old: Vec<String>,
    /// The lines it puts there (context and added).
    pub new: Vec<String>,
    /// Whether it ends the file.
    pub at_end: bool,
}

impl FilePatch {
    /// The path it names first.
    pub fn path(&self) -> &str {
        match self {
            FilePatch::Add { path, .. }
            | FilePatch::Delete { path }
            | FilePatch::Update { path, .. } => path,
        }
    }
}

/// Reads a patch.
pub fn parse(patch: &str) -> Result<Vec<FilePatch>, HookError> {
    let bad = |why: String| HookError::Input(format!("apply_patch: {why}"));
    let lines: Vec<&str> = patch
        .trim()
        .lines()
        .map(|l| l.trim_end_matches('\r'))
        .collect();
    let (Some(&first), Some(&last)) = (lines.first(), lines.last()) else {
        return Err(bad("the patch is empty".into()));
    };
    if first.trim() != "*** Begin Patch" || last.trim() != "*** End Patch" {
        return Err(bad(
            "a patch starts with `*** Begin Patch` and ends with `*** End Patch`".into(),
        ));
    }
    let body = &lines[1..lines.len() - 1];
    let mut files = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let line = body[i];
        i += 1;
        if let Some(path) = line.strip_prefix("*** Add File: ") {
            let mut added = Vec::new();
            while i < body.len() && !body[i].starts_with("*** ") {
                let Some(text) = body[i].strip_prefix('+') else {
                    return Err(bad(format!(
                        "a line of added `{path}` without `+`: {:?}",
                        body[i]
                    )));
                };
                added.push(text.to_owned());
                i += 1;
            }
            files.push(FilePatch::Add {
                path: path.trim().to_owned(),
                lines: added,
            });
        } else if let Some(path) = line.strip_prefix("*** Delete File: ") {
            files.push(FilePatch::Delete {
                path: path.trim().to_owned(),
            });
        } else if let Some(path) = line.strip_prefix("*** Update File: ") {
            let move_to = body
                .get(i)
                .and_then(|l| l.strip_prefix("*** Move to: "))
                .map(|p| p.trim().to_owned());
            if move_to.is_some() {
                i += 1;
            }
            let mut chunks: Vec<Chunk> = Vec::new();
            while i < body.len() && (!body[i].starts_with("*** ") || body[i] == "*** End of File") {
                let line = body[i];
                i += 1;
                if line == "*** End of File" {
                    if let Some(chunk) = chunks.last_mut() {
                        chunk.at_end = true;
                    }
                    continue;
                }
                if let Some(header) = line.strip_prefix("@@") {
                    let header = header.trim();
                    chunks.push(Chunk {
                        after: (!header.is_empty()).then(|| header.to_owned()),
                        ..Chunk::default()
                    });
                    continue;
                }
                // The first chunk may leave out its `@@`.
                if chunks.is_empty() {
                    chunks.push(Chunk::default());
                }
                let chunk = chunks.last_mut().expect("pushed above");
                match line.chars().next() {
                    Some('+') => chunk.new.push(line[1..].to_owned()),
                    Some('-') => chunk.old.push(line[1..].to_owned()),
                    Some(' ') => {
                        chunk.old.push(line[1..].to_owned());
                        chunk.new.push(line[1..].to_owned());
                    }
                    // An empty context line whose space was trimmed away.
                    None => {
                        chunk.old.push(String::new());
                        chunk.new.push(String::new());
                    }
                    Some(_) => {
                        return Err(bad(format!(
                            "a line of `{path}`'s update that is not context, `-` or `+`: {line:?}"
                        )));
                    }
                }
            }
            if chunks.iter().all(|c| c.old.is_empty() && c.new.is_empty()) && move_to.is_none() {
                return Err(bad(format!("the update of `{path}` changes nothing")));
            }
            files.push(FilePatch::Update {
                path: path.trim().to_owned(),
                move_to,
                chunks,
            });
        } else if !line.trim().is_empty() {
            return Err(bad(format!("expected a file header, found {line:?}")));
        }
    }
    if files.is_empty() {
        return Err(bad("the patch names no file".into()));
    }
    Ok(files)
}

/// The text a file holding `text` holds after `chunks`, as Codex writes
/// it (a final newline; CRLF kept in a CRLF file). A chunk whose lines are
/// not in the file is an error: Codex refuses the patch too.
pub fn apply(text: &str, chunks: &[Chunk]) -> Result<String, HookError> {
    let endings = Endings::of(text);
    let mut lines = lines_of(text);
    let mut cursor = 0;
    // Found in order against the text before the patch, made from the last.
    let mut found: Vec<(usize, usize, &[String])> = Vec::new();
    for chunk in chunks {
        if let Some(after) = &chunk.after {
            let Some(at) = seek(&lines, std::slice::from_ref(after), cursor, false) else {
                return Err(HookError::NotFound(after.clone()));
            };
            cursor = at + 1;
        }
        if chunk.old.is_empty() {
            // Pure addition: at the end of the file.
            found.push((lines.len(), 0, &chunk.new));
            continue;
        }
        let mut old: &[String] = &chunk.old;
        let mut new: &[String] = &chunk.new;
        let mut at = seek(&lines, old, cursor, chunk.at_end);
        // Lines a model ends a chunk with that the file does not have.
        if at.is_none() && old.last().is_some_and(String::is_empty) {
            old = &old[..old.len() - 1];
            if new.last().is_some_and(String::is_empty) {
                new = &new[..new.len() - 1];
            }
            at = seek(&lines, old, cursor, chunk.at_end);
        }
        let Some(at) = at else {
            return Err(HookError::NotFound(chunk.old.join("\n")));
        };
        found.push((at, old.len(), new));
        cursor = at + old.len();
    }
    found.sort_by_key(|(at, _, _)| *at);
    for (at, len, new) in found.into_iter().rev() {
        lines.splice(at..at + len, new.iter().cloned());
    }
    let mut out = lines.join("\n");
    out.push('\n');
    Ok(endings.write(&out).into_owned())
}

/// `text`'s lines as a patch speaks of them: `\r\n` read as `\n`, and
/// no empty last line for the final newline.
fn lines_of(text: &str) -> Vec<String> {
    let read = Endings::of(text).read(text);
    let mut lines: Vec<String> = read.split('\n').map(str::to_owned).collect();
    if lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

/// Where `old` starts in `lines`, at `from` or after: exactly, then
/// without trailing spaces, then trimmed, as Codex seeks it.
fn seek(lines: &[String], old: &[String], from: usize, at_end: bool) -> Option<usize> {
    let last = lines.len().checked_sub(old.len())?;
    let starts = if at_end { last..=last } else { from..=last };
    let norms: [fn(&str) -> &str; 3] = [|s| s, str::trim_end, str::trim];
    norms.into_iter().find_map(|norm| {
        starts
            .clone()
            .find(|&s| old.iter().zip(&lines[s..]).all(|(a, b)| norm(a) == norm(b)))
    })
}

/// The patch that leaves each file at its decided text: `(path, before,
/// decided)`, `before` `None` for a file the patch adds. Each update
/// replaces the whole file, so it applies exactly whatever else the file
/// holds twice.
pub fn rewritten(files: &[(&str, Option<&str>, &str)]) -> String {
    let mut out = String::from("*** Begin Patch\n");
    for (path, before, decided) in files {
        match before {
            None => {
                out.push_str(&format!("*** Add File: {path}\n"));
                for line in lines_of(decided) {
                    out.push_str(&format!("+{line}\n"));
                }
            }
            Some(before) => {
                out.push_str(&format!("*** Update File: {path}\n@@\n"));
                for line in lines_of(before) {
                    out.push_str(&format!("-{line}\n"));
                }
                for line in lines_of(decided) {
                    out.push_str(&format!("+{line}\n"));
                }
                out.push_str("*** End of File\n");
            }
        }
    }
    out.push_str("*** End Patch\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "# A\n\nStatus: draft\nOwner: Ann\n\n## Notes\n\nStatus: draft\n";

    fn update(patch: &str) -> Vec<Chunk> {
        match parse(patch).unwrap().remove(0) {
            FilePatch::Update { chunks, .. } => chunks,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_patch_is_read_file_by_file() {
        let files = parse(
            "*** Begin Patch\n*** Add File: n.md\n+# New\n+\n+text\n*** Update File: a.md\n\
             *** Move to: b.md\n@@ ## Notes\n-Status: draft\n+Status: final\n*** End of File\n\
             *** Delete File: old.md\n*** End Patch\n",
        )
        .unwrap();
        assert_eq!(
            files,
            vec![
                FilePatch::Add {
                    path: "n.md".into(),
                    lines: vec!["# New".into(), String::new(), "text".into()]
                },
                FilePatch::Update {
                    path: "a.md".into(),
                    move_to: Some("b.md".into()),
                    chunks: vec![Chunk {
                        after: Some("## Notes".into()),
                        old: vec!["Status: draft".into()],
                        new: vec!["Status: final".into()],
                        at_end: true,
                    }]
                },
                FilePatch::Delete {
                    path: "old.md".into()
                },
            ]
        );
        for bad in [
            "",
            "*** Update File: a.md\n-x\n",
            "*** Begin Patch\n*** End Patch",
            "*** Begin Patch\n*** Add File: n.md\nno plus\n*** End Patch",
            "*** Begin Patch\n*** Update File: a.md\n*x\n*** End Patch",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn chunks_are_found_in_order_after_their_header() {
        // The second "Status: draft", under its header.
        let chunks = update(
            "*** Begin Patch\n*** Update File: a.md\n@@ ## Notes\n-Status: draft\n+Status: final\n*** End Patch",
        );
        assert_eq!(
            apply(A, &chunks).unwrap(),
            "# A\n\nStatus: draft\nOwner: Ann\n\n## Notes\n\nStatus: final\n"
        );
        // Two chunks, each after the last; context kept.
        let chunks = update(
            "*** Begin Patch\n*** Update File: a.md\n@@\n Status: draft\n-Owner: Ann\n+Owner: Bo\n@@\n-Status: draft\n+Status: done\n*** End Patch",
        );
        assert_eq!(
            apply(A, &chunks).unwrap(),
            "# A\n\nStatus: draft\nOwner: Bo\n\n## Notes\n\nStatus: done\n"
        );
        // Trailing spaces in the model's context are forgiven.
        let chunks = update(
            "*** Begin Patch\n*** Update File: a.md\n@@\n-Owner: Ann   \n+Owner: Cy\n*** End Patch",
        );
        assert!(apply(A, &chunks).unwrap().contains("Owner: Cy\n"));
        // Lines not in the file: refused, as Codex refuses them.
        let chunks =
            update("*** Begin Patch\n*** Update File: a.md\n@@\n-Nope\n+Yes\n*** End Patch");
        assert!(matches!(apply(A, &chunks), Err(HookError::NotFound(_))));
    }

    #[test]
    fn the_file_keeps_crlf_and_gains_a_final_newline() {
        let chunks = update("*** Begin Patch\n*** Update File: a.md\n@@\n-b\n+B\n*** End Patch");
        assert_eq!(
            apply("a\r\nb\r\nc\r\n", &chunks).unwrap(),
            "a\r\nB\r\nc\r\n"
        );
        assert_eq!(apply("a\nb\nc", &chunks).unwrap(), "a\nB\nc\n");
        // A pure addition goes at the end.
        let chunks = update("*** Begin Patch\n*** Update File: a.md\n@@\n+d\n*** End Patch");
        assert_eq!(apply("a\nb\n", &chunks).unwrap(), "a\nb\nd\n");
        // `*** End of File`: the last occurrence, at the end.
        let chunks = update(
            "*** Begin Patch\n*** Update File: a.md\n@@\n-x\n+y\n*** End of File\n*** End Patch",
        );
        assert_eq!(apply("x\nmid\nx\n", &chunks).unwrap(), "x\nmid\ny\n");
    }

    #[test]
    fn the_rewritten_patch_leaves_exactly_the_decided_texts() {
        let decided = "# A\n\nStatus: final (checked)\nOwner: Ann\n\n## Notes\n\nStatus: draft\n";
        let patch = rewritten(&[("a.md", Some(A), decided), ("n.md", None, "# N\n\nnew\n")]);
        let files = parse(&patch).unwrap();
        let FilePatch::Update { chunks, .. } = &files[0] else {
            panic!("{files:?}")
        };
        assert_eq!(apply(A, chunks).unwrap(), decided);
        let FilePatch::Add { lines, .. } = &files[1] else {
            panic!("{files:?}")
        };
        assert_eq!(lines.join("\n") + "\n", "# N\n\nnew\n");
        // A CRLF file: the patch speaks in lines, the file keeps CRLF.
        let crlf = "a\r\nb\r\n";
        let patch = rewritten(&[("c.md", Some(crlf), "a\r\nB\r\n")]);
        assert!(!patch.contains('\r'), "{patch:?}");
        let FilePatch::Update { chunks, .. } = &parse(&patch).unwrap()[0] else {
            panic!()
        };
        assert_eq!(apply(crlf, chunks).unwrap(), "a\r\nB\r\n");
    }
}
