//! A deterministic generator of realistic note folders, for tests and benchmarks.
//!
//! The same `notes` and `seed` always give the same bytes. A vault looks like
//! an Obsidian vault that has been lived in: Markdown notes in nested folders
//! with front matter, headings, wikilinks, task lists, quotes and code blocks;
//! about 5% of notes with CRLF line endings; a third of the notes written
//! in the text people write ([`super::text`]): names, folders, front matter
//! values, aliases, tags, headings and prose in many scripts; a few
//! binary attachments; an `.obsidian/` settings folder and a `.trash/` folder
//! (hidden); and an `exports/` folder and `*.tmp` files excluded by
//! `.gitignore`. The word `zanzibar` appears in about 1% of notes, for
//! searches with few hits.

use std::io;
use std::path::Path;

use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::text;

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VaultSpec {
    /// Notes to write (Markdown files that search sees). Default 500.
    pub notes: usize,
    /// Seed of the generator. Default 1.
    pub seed: u64,
}

impl Default for VaultSpec {
    fn default() -> Self {
        VaultSpec {
            notes: 500,
            seed: 1,
        }
    }
}

/// What was written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VaultSummary {
    /// Visible Markdown notes.
    pub notes: usize,
    /// Notes with CRLF line endings.
    pub crlf: usize,
    /// Notes with non-ASCII text (their name, front matter and prose).
    pub non_ascii: usize,
    /// Binary attachments.
    pub binaries: usize,
    /// Files excluded by ignore rules or hidden.
    pub excluded: usize,
    /// Bytes written in all.
    pub bytes: u64,
}

const FOLDERS: &[&str] = &[
    "Projects/Apollo",
    "Projects/Borealis",
    "Projects/Cascade",
    "Areas/Health",
    "Areas/Finance",
    "Areas/Home",
    "Journal/2024",
    "Journal/2025",
    "People",
    "Meetings",
    "Reference/Books",
    "Reference/Articles",
    "Inbox",
    "Ideas",
    "Projets/Été",
    "日記/2025",
    "مشاريع",
];

const WORDS: &[&str] = &[
    "project",
    "meeting",
    "review",
    "draft",
    "plan",
    "budget",
    "timeline",
    "release",
    "design",
    "research",
    "customer",
    "feedback",
    "roadmap",
    "quarter",
    "metrics",
    "team",
    "hiring",
    "onboarding",
    "checklist",
    "summary",
    "decision",
    "risk",
    "scope",
    "launch",
    "partner",
    "contract",
    "invoice",
    "travel",
    "garden",
    "recipe",
    "workout",
    "sleep",
    "reading",
    "notes",
    "outline",
    "chapter",
    "argument",
    "evidence",
    "source",
    "question",
    "answer",
    "idea",
    "prototype",
    "sketch",
    "experiment",
    "result",
    "analysis",
    "report",
    "update",
    "status",
    "blocker",
    "owner",
    "deadline",
    "milestone",
    "priority",
    "estimate",
    "follow",
    "sync",
    "retro",
    "goal",
    "habit",
    "journal",
    "weekly",
    "monthly",
    "archive",
    "template",
    "inbox",
    "context",
    "pattern",
    "system",
    "process",
    "workflow",
    "handoff",
    "support",
    "ticket",
    "incident",
    "postmortem",
    "migration",
    "database",
    "server",
    "client",
    "interface",
    "memo",
    "proposal",
    "vendor",
    "pricing",
    "renewal",
    "account",
    "contact",
    "call",
    "email",
    "agenda",
    "minutes",
    "action",
    "item",
    "topic",
    "theme",
    "insight",
    "lesson",
    "mistake",
    "win",
];

/// Writes a vault into `dir` (created if missing). Existing files with the
/// same names are overwritten; nothing else in `dir` is touched.
pub fn generate(dir: &Path, spec: &VaultSpec) -> io::Result<VaultSummary> {
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let mut summary = VaultSummary::default();
    let write = |rel: &str, bytes: &[u8], summary: &mut VaultSummary| -> io::Result<()> {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, bytes)?;
        summary.bytes += bytes.len() as u64;
        Ok(())
    };

    write(".gitignore", b"exports/\n*.tmp\n", &mut summary)?;
    write(
        ".obsidian/app.json",
        b"{\"vimMode\": false, \"theme\": \"obsidian\"}\n",
        &mut summary,
    )?;
    summary.excluded += 2;

    // A third of the notes are named, tagged and written in other scripts.
    let non_ascii: Vec<bool> = (0..spec.notes).map(|_| rng.random_bool(0.33)).collect();
    let titles: Vec<String> = non_ascii
        .iter()
        .enumerate()
        .map(|(i, &other)| match other {
            true => format!(
                "{} {} {i}",
                text::NAMES.choose(&mut rng).expect("names"),
                title_word(&mut rng)
            ),
            false => format!("{} {} {i}", title_word(&mut rng), title_word(&mut rng)),
        })
        .collect();
    for (i, title) in titles.iter().enumerate() {
        let folder = FOLDERS.choose(&mut rng).expect("folders");
        let non_ascii = non_ascii[i];
        let crlf = rng.random_bool(0.05);
        let mut note = note_body(&mut rng, title, &titles, non_ascii);
        if crlf {
            note = note.replace('\n', "\r\n");
            summary.crlf += 1;
        }
        summary.non_ascii += usize::from(non_ascii);
        let rel = format!("{folder}/{title}.md");
        write(&rel, note.as_bytes(), &mut summary)?;
        summary.notes += 1;

        if i % 200 == 199 {
            let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
            png.extend((0..2048).map(|_| rng.random::<u8>()));
            png.extend_from_slice(b"project meeting review");
            write(&format!("attachments/image-{i}.png"), &png, &mut summary)?;
            summary.binaries += 1;
        }
        if i % 100 == 50 {
            write(
                &format!("exports/{title}.md"),
                note.as_bytes(),
                &mut summary,
            )?;
            write(
                &format!("{folder}/{title}.tmp"),
                note.as_bytes(),
                &mut summary,
            )?;
            write(&format!(".trash/{title}.md"), note.as_bytes(), &mut summary)?;
            summary.excluded += 3;
        }
    }
    Ok(summary)
}

fn title_word(rng: &mut ChaCha8Rng) -> String {
    let word = WORDS.choose(rng).expect("words");
    let mut chars = word.chars();
    let first = chars.next().expect("non-empty").to_ascii_uppercase();
    std::iter::once(first).chain(chars).collect()
}

fn sentence(rng: &mut ChaCha8Rng, titles: &[String]) -> String {
    let len = rng.random_range(6..16);
    let mut words: Vec<String> = Vec::with_capacity(len);
    for _ in 0..len {
        let roll = rng.random_range(0..100);
        let word = match roll {
            0..=3 => format!("[[{}]]", titles.choose(rng).expect("titles")),
            4..=5 => format!("**{}**", WORDS.choose(rng).expect("words")),
            6 => format!("`{}`", WORDS.choose(rng).expect("words")),
            _ => (*WORDS.choose(rng).expect("words")).to_owned(),
        };
        words.push(word);
    }
    if rng.random_range(0..700) == 0 {
        words.push("zanzibar".to_owned());
    }
    let mut s = words.join(" ");
    if let Some(first) = s.get(0..1) {
        let upper = first.to_ascii_uppercase();
        s.replace_range(0..1, &upper);
    }
    s.push('.');
    s
}

fn note_body(rng: &mut ChaCha8Rng, title: &str, titles: &[String], non_ascii: bool) -> String {
    let mut out = String::with_capacity(2048);
    let tags: Vec<&str> = (0..rng.random_range(1..4))
        .map(|_| *WORDS.choose(rng).expect("words"))
        .collect();
    let mut tags = tags.join(", ");
    let mut extra = String::new();
    if non_ascii {
        // Where real vaults have other scripts: a description with quotes
        // and dashes, aliases, a tag, a link in a property.
        let name = text::NAMES.choose(rng).expect("names");
        tags.push_str(&format!(
            ", {}",
            name.replace([' ', '\u{a0}', '“', '”', '’'], "_")
        ));
        extra = format!(
            "description: \"{}\"\naliases: [{name}]\nrelated: \"[[{}]]\"\n",
            text::PHRASES.choose(rng).expect("phrases"),
            titles.choose(rng).expect("titles"),
        );
    }
    out.push_str(&format!(
        "---\ntitle: {title}\ntags: [{tags}]\n{extra}created: 2024-{:02}-{:02}\n---\n\n# {title}\n\n",
        rng.random_range(1..13),
        rng.random_range(1..29)
    ));
    for section in 0..rng.random_range(1..5) {
        if section > 0 && non_ascii {
            out.push_str(&format!(
                "## {}\n\n",
                text::NAMES.choose(rng).expect("names")
            ));
        } else if section > 0 {
            out.push_str(&format!("## {}\n\n", title_word(rng)));
        }
        let sentences: Vec<String> = (0..rng.random_range(2..6))
            .map(|_| sentence(rng, titles))
            .collect();
        out.push_str(&sentences.join(" "));
        if non_ascii && section == 0 {
            out.push(' ');
            out.push_str(text::PHRASES.choose(rng).expect("phrases"));
            out.push('.');
        }
        out.push_str("\n\n");
        match rng.random_range(0..5) {
            0 => {
                for _ in 0..rng.random_range(2..6) {
                    let done = if rng.random_bool(0.4) { 'x' } else { ' ' };
                    out.push_str(&format!("- [{done}] {}\n", sentence(rng, titles)));
                }
                out.push('\n');
            }
            1 => {
                for n in 1..rng.random_range(3..6) {
                    out.push_str(&format!("{n}. {}\n", sentence(rng, titles)));
                }
                out.push('\n');
            }
            2 => out.push_str(&format!("> {}\n\n", sentence(rng, titles))),
            3 => out.push_str(&format!(
                "```\n{} = \"{}\"\n```\n\n",
                WORDS.choose(rng).expect("words"),
                WORDS.choose(rng).expect("words")
            )),
            _ => {}
        }
    }
    if rng.random_bool(0.2) {
        // Some notes end without a final newline.
        while out.ends_with('\n') {
            out.pop();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<(String, Vec<u8>)> = walk(dir)
            .into_iter()
            .map(|p| {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                (rel, std::fs::read(&p).unwrap())
            })
            .collect();
        files.sort();
        files
    }

    fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else {
                out.push(path);
            }
        }
        out
    }

    #[test]
    fn same_seed_same_bytes_other_seed_other_bytes() {
        let spec = VaultSpec {
            notes: 120,
            seed: 7,
        };
        let (a, b, c) = (
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
        );
        let summary = generate(a.path(), &spec).unwrap();
        generate(b.path(), &spec).unwrap();
        generate(c.path(), &VaultSpec { seed: 8, ..spec }).unwrap();
        assert_eq!(digest(a.path()), digest(b.path()));
        assert_ne!(digest(a.path()), digest(c.path()));
        assert_eq!(summary.notes, 120);
        assert!(summary.crlf > 0 && summary.non_ascii > 0, "{summary:?}");
    }
}
