//! Unit tests of the link engine, one module per part of it, and the
//! helpers they share.

mod index;
mod parse;
mod resolve;
mod rewrite;
mod settings;

use std::collections::BTreeMap;

use super::*;

/// The one link of `text`.
fn one(text: &str) -> Link {
    let links = parse(text);
    assert_eq!(links.len(), 1, "{text:?}: {links:#?}");
    links.into_iter().next().unwrap()
}

fn file(path: &str) -> Resolution {
    Resolution::File(path.into())
}

/// Every note's text once `moves` are made and the plan applied, by path
/// after the moves; and the plan.
fn moved(
    notes: &[(&str, &str)],
    attachments: &[&str],
    moves: &[(&str, &str)],
    settings: &LinkSettings,
) -> (BTreeMap<String, String>, Plan) {
    let files = notes
        .iter()
        .map(|(p, _)| *p)
        .chain(attachments.iter().copied());
    let index = LinkIndex::build(files, notes.iter().copied());
    let plan = index.plan_moves(moves, settings).unwrap();
    let texts = notes
        .iter()
        .map(|&(path, text)| {
            let now = moves
                .iter()
                .find(|(from, _)| *from == path)
                .map_or(path, |(_, to)| *to);
            let text = plan
                .edits
                .get(path)
                .map_or(text.to_owned(), |edits| apply_edits(text, edits));
            (now.to_owned(), text)
        })
        .collect();
    (texts, plan)
}

fn shortest() -> LinkSettings {
    LinkSettings::default()
}
