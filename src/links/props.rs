//! Properties of the link engine over random notes and vaults: links write
//! back what they read; a planned move keeps every link on its file and
//! changes nothing but links; the index kept by changes is the index built
//! from scratch.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::paths::{file_name, folder, percent_encode, relative, strip_md};
use super::*;
use crate::explore::config;

// Text people write: names, folders and the text between links in several
// scripts, with a decomposed accent, an emoji sequence and a no-break space.
const FOLDERS: [&str; 5] = ["", "A", "B", "A/C", "Été/日記"];
const NAMES: [&str; 10] = [
    "x", "y", "X", "z w", "O'Neil", "Atlas", "p.png", "Café", "שלום עולם", "নোট 🚀",
];

/// Every path a random vault may hold.
fn universe() -> Vec<String> {
    FOLDERS
        .iter()
        .flat_map(|folder| {
            NAMES.iter().map(move |name| {
                let file = if name.ends_with(".png") {
                    (*name).to_owned()
                } else {
                    format!("{name}.md")
                };
                if folder.is_empty() {
                    file
                } else {
                    format!("{folder}/{file}")
                }
            })
        })
        .collect()
}

/// One link to write: at which path (beyond the universe: a missing
/// note), in which form, dressed how, and where in the note.
#[derive(Clone, Debug)]
struct Spec {
    target: usize,
    form: u8,
    dress: u8,
    place: u8,
    filler: usize,
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        0usize..56,
        0u8..14,
        any::<u8>(),
        0u8..8,
        0usize..FILLERS.len(),
    )
        .prop_map(|(target, form, dress, place, filler)| Spec {
            target,
            form,
            dress,
            place,
            filler,
        })
}

/// What stands between links: prose in several scripts, and the characters
/// links are made of.
const FILLERS: [&str; 25] = [
    "a",
    "é",
    " déjà “vu” ",
    "日本語",
    " مرحبا ",
    "e\u{301}",
    "\u{a0}👩\u{200d}👩\u{200d}👧 ",
    "ক্ষ",
    " words here ",
    "\n",
    "\n\n",
    "[",
    "]",
    "(",
    ")",
    "!",
    "#",
    "|",
    "\\",
    "`",
    "<",
    "> ",
    "\"",
    "- ",
    "~~~\n",
];

/// The text of a note at `source` holding the links of `specs`.
fn note_text(source: &str, specs: &[Spec], universe: &[String]) -> String {
    let mut yaml = String::new();
    let mut body = String::new();
    for spec in specs {
        let target = universe
            .get(spec.target)
            .map_or("Missing/Nope.md", String::as_str);
        let link = written(source, target, spec);
        let wiki = link.starts_with("[[") || link.starts_with("![[");
        match spec.place {
            0 if wiki => yaml.push_str(&format!("  - \"{link}\"\n")),
            1 if wiki => yaml.push_str(&format!("  - '{}'\n", link.replace('\'', "''"))),
            2 => body.push_str(&format!("`{link}`")),
            3 => body.push_str(&format!("\n```\n{link}\n```\n")),
            _ => body.push_str(&link),
        }
        body.push_str(FILLERS[spec.filler]);
    }
    if yaml.is_empty() {
        body
    } else {
        format!("---\ndescription: café — «x»\u{a0}日本\nlinks:\n{yaml}---\n{body}")
    }
}

/// The link of `spec` to `target` from `source`, in the spec's form.
fn written(source: &str, target: &str, spec: &Spec) -> String {
    let name_md = file_name(target);
    let name = strip_md(name_md);
    let full = strip_md(target);
    let rel = relative(folder(source), target);
    let dotted = if rel.starts_with("../") {
        rel.clone()
    } else {
        format!("./{rel}")
    };
    let suffix = full
        .rsplitn(3, '/')
        .take(2)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect::<Vec<_>>()
        .join("/");
    let encode = |s: &str| percent_encode(s, false).into_owned();
    let wiki = |path: &str| {
        let mut link = format!("[[{path}");
        if spec.dress & 1 != 0 {
            link.push_str("#H");
        } else if spec.dress & 2 != 0 {
            link.push_str("#^b1");
        }
        if spec.dress & 4 != 0 {
            link.push_str("|al");
        }
        link.push_str("]]");
        link
    };
    let md = |dest: &str| {
        let heading = if spec.dress & 1 != 0 { "#H" } else { "" };
        let title = if spec.dress & 4 != 0 { " \"T\"" } else { "" };
        format!("[t]({dest}{heading}{title})")
    };
    let link = match spec.form {
        0 => wiki(name),
        1 => wiki(name_md),
        2 => wiki(full),
        3 => wiki(&suffix),
        4 => wiki(&format!("/{full}")),
        5 => wiki(strip_md(&dotted)),
        6 => md(&encode(&rel)),
        7 => md(&encode(&dotted)),
        8 => md(&format!("/{}", encode(target))),
        9 => md(&format!("<{rel}>")),
        10 => md(&encode(name_md)),
        11 => md(&encode(target)),
        12 => "[[#H]]".to_owned(),
        _ => md(&encode(strip_md(&rel))),
    };
    if spec.dress & 8 != 0 {
        format!("!{link}")
    } else {
        link
    }
}

/// A random vault: some paths of the universe, with the links of each note.
#[derive(Clone, Debug)]
struct VaultCase {
    files: Vec<String>,
    notes: BTreeMap<String, String>,
}

fn vault_case() -> impl Strategy<Value = VaultCase> {
    let universe = universe();
    let n = universe.len();
    (
        proptest::sample::subsequence((0..n).collect::<Vec<_>>(), 2..10),
        proptest::collection::vec(proptest::collection::vec(spec(), 0..7), 10),
    )
        .prop_map(move |(picked, specs)| {
            let files: Vec<String> = picked.iter().map(|&i| universe[i].clone()).collect();
            let notes = files
                .iter()
                .filter(|f| f.ends_with(".md"))
                .zip(specs)
                .map(|(path, specs)| (path.clone(), note_text(path, &specs, &universe)))
                .collect();
            VaultCase { files, notes }
        })
}

fn settings() -> impl Strategy<Value = LinkSettings> {
    (0u8..3, any::<bool>()).prop_map(|(format, use_markdown_links)| LinkSettings {
        new_link_format: [
            NewLinkFormat::Shortest,
            NewLinkFormat::Relative,
            NewLinkFormat::Absolute,
        ][usize::from(format)],
        use_markdown_links,
    })
}

/// The text between `links` (and before the first and after the last).
fn gaps<'t>(text: &'t str, links: &[Link]) -> Vec<&'t str> {
    let mut at = 0;
    let mut out = Vec::with_capacity(links.len() + 1);
    for link in links {
        out.push(&text[at..link.span.start]);
        at = link.span.end;
    }
    out.push(&text[at..]);
    out
}

/// One file moved, or every file of one folder.
fn moves_of(
    case: &VaultCase,
    pick: usize,
    to_folder: usize,
    to_name: usize,
    whole_folder: bool,
) -> Vec<(String, String)> {
    let from = &case.files[pick % case.files.len()];
    let to_folder = ["", "A", "B", "A/C", "D", "A/E"][to_folder % 6];
    if whole_folder {
        let old = folder(from);
        let index = LinkIndex::build(case.files.iter().cloned(), Vec::<(String, String)>::new());
        return index
            .folder_moves(old, to_folder)
            .into_iter()
            .filter(|_| !old.is_empty() && !to_folder.is_empty())
            .collect();
    }
    let name = ["x", "y", "Atlas", "New one", "O'Neil"][to_name % 5];
    let ext = if from.ends_with(".png") { "png" } else { "md" };
    let to = if to_folder.is_empty() {
        format!("{name}.{ext}")
    } else {
        format!("{to_folder}/{name}.{ext}")
    };
    vec![(from.clone(), to)]
}

proptest! {
    #![proptest_config(config(400))]

    /// Every link found writes back exactly its source text, in order and
    /// without overlaps.
    #[test]
    fn render_gives_back_the_source(
        specs in proptest::collection::vec(spec(), 0..12),
        noise in proptest::collection::vec(0usize..FILLERS.len(), 0..30),
    ) {
        let universe = universe();
        let mut text = note_text("A/n.md", &specs, &universe);
        for (i, filler) in noise.into_iter().enumerate() {
            let at = (i * 7919) % (text.len() + 1);
            if text.is_char_boundary(at) {
                text.insert_str(at, FILLERS[filler]);
            }
        }
        let links = parse(&text);
        let mut end = 0;
        for link in &links {
            prop_assert!(link.span.start >= end, "{:?} overlaps in {:?}", link, text);
            prop_assert_eq!(link.render(), &text[link.span.clone()]);
            end = link.span.end;
        }
    }

    /// After the planned edits of a random move, every link that pointed at
    /// a file (and only one) points at where that file went, every other
    /// link is as written, and no byte outside a link changed.
    #[test]
    fn a_planned_move_keeps_every_link_on_its_file(
        case in vault_case(),
        (pick, to_folder, to_name, whole_folder) in (any::<usize>(), any::<usize>(), any::<usize>(), proptest::bool::weighted(0.2)),
        settings in settings(),
    ) {
        let moves = moves_of(&case, pick, to_folder, to_name, whole_folder);
        let index = LinkIndex::build(case.files.iter().cloned(), case.notes.iter().map(|(p, t)| (p.clone(), t.clone())));
        let plan = match index.plan_moves(&moves, &settings) {
            Ok(plan) => plan,
            Err(MoveError::Taken(_)) => return Ok(()),
            Err(e) => return Err(TestCaseError::fail(format!("{e}"))),
        };
        let moved = |path: &str| {
            moves.iter().find(|(from, _)| from == path).map_or(path.to_owned(), |(_, to)| to.clone())
        };
        let after = Vault::new(case.files.iter().map(|f| moved(f)));
        // Exactly the ambiguous links that may mean a moved file are reported.
        let mut reported: Vec<(String, std::ops::Range<usize>)> = Vec::new();
        for skipped in &plan.skipped {
            prop_assert!(matches!(skipped.reason, SkipReason::Ambiguous(_)), "{:?}", skipped);
            reported.push((skipped.source.clone(), skipped.span.clone()));
        }
        let mut expected = Vec::new();
        for (path, text) in &case.notes {
            for link in parse(text) {
                let among = index.candidates(&link, path);
                if among.len() > 1 && among.iter().any(|c| moves.iter().any(|(from, to)| from == c && from != to)) {
                    expected.push((path.clone(), link.span.clone()));
                }
            }
        }
        reported.sort_by_key(|(p, r)| (p.clone(), r.start));
        prop_assert_eq!(reported, expected);
        for (path, text) in &case.notes {
            let new_text = plan.edits.get(path).map_or(text.clone(), |edits| apply_edits(text, edits));
            let (old_links, new_links) = (parse(text), parse(&new_text));
            prop_assert_eq!(old_links.len(), new_links.len(), "{:?} became {:?}", text, new_text);
            prop_assert_eq!(gaps(text, &old_links), gaps(&new_text, &new_links));
            // Front matter that was YAML still is, its list as long.
            let yaml = |text: &str| {
                let body = text.strip_prefix("---\n")?.split("---\n").next()?.to_owned();
                let docs = yaml_rust2::YamlLoader::load_from_str(&body).ok()?;
                docs.first()?["links"].as_vec().map(Vec::len)
            };
            if let Some(docs) = yaml(text) {
                prop_assert_eq!(yaml(&new_text), Some(docs), "{:?}", new_text);
            }
            let now = moved(path);
            for (old, new) in old_links.iter().zip(&new_links) {
                match index.vault().resolve(old, path) {
                    Resolution::File(target) => prop_assert_eq!(
                        after.resolve(new, &now),
                        Resolution::File(moved(&target)),
                        "{} in {} ({:?} after {:?})", old.render(), path, new.render(), moves
                    ),
                    _ => prop_assert_eq!(old.render(), new.render()),
                }
            }
        }
    }

    /// The index told of each change equals the index built from scratch.
    #[test]
    fn the_index_kept_by_changes_is_the_index_built_from_scratch(
        case in vault_case(),
        ops in proptest::collection::vec(
            (0u8..4, any::<usize>(), any::<usize>(), proptest::collection::vec(spec(), 0..5)),
            1..12,
        ),
    ) {
        let universe = universe();
        let mut model: BTreeMap<String, Option<String>> = case
            .files
            .iter()
            .map(|f| (f.clone(), case.notes.get(f).cloned()))
            .collect();
        let build = |model: &BTreeMap<String, Option<String>>| {
            LinkIndex::build(
                model.keys().cloned(),
                model.iter().filter_map(|(p, t)| Some((p.clone(), t.clone()?))),
            )
        };
        let mut index = build(&model);
        for (op, a, b, specs) in ops {
            let any_path = universe[a % universe.len()].clone();
            let existing = model.keys().nth(a % model.len().max(1)).cloned();
            match (op, existing) {
                (0, _) => {
                    let text = note_text(&any_path, &specs, &universe);
                    index.upsert(&any_path, &text);
                    model.insert(any_path, Some(text));
                }
                (1, Some(path)) => {
                    prop_assert!(index.remove(&path));
                    model.remove(&path);
                }
                (2, Some(path)) => {
                    let to = universe[b % universe.len()].clone();
                    let result = index.move_files(&[(path.clone(), to.clone())]);
                    if model.contains_key(&to) && to != path {
                        prop_assert!(result.is_err());
                    } else {
                        prop_assert!(result.is_ok());
                        let text = model.remove(&path).flatten();
                        model.insert(to, text);
                    }
                }
                (3, _) => {
                    let arrived = index.add_file(&any_path);
                    prop_assert_eq!(arrived, !model.contains_key(&any_path));
                    model.entry(any_path).or_insert(None);
                }
                _ => {}
            }
            prop_assert_eq!(&index, &build(&model));
        }
    }
}
