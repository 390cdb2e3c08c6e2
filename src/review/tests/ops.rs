//! Moves and the link hunks that follow them, decided in any order: a link
//! update never counts while its move does not, a decision on either is
//! never refused, and undo gives back the statuses before.

use proptest::prelude::*;

use super::*;
use crate::edits::{FileOp, FileOpProposal};

/// A review with `moves` notes moved (`m0.md` → `n0.md`, …) and, in
/// `l.md`, one line per move whose hunk follows it. Returns the review, the
/// moves' hunks and the links' hunks.
fn moved(moves: usize) -> (Review, Vec<String>, Vec<String>) {
    let mut review = Review::new();
    let ops: Vec<FileOpProposal> = (0..moves)
        .map(|i| FileOpProposal {
            edit_id: format!("e_{i}"),
            file_path: format!("m{i}.md"),
            op: FileOp::Move {
                to: format!("n{i}.md"),
            },
            base: format!("# Note {i}\n"),
            base_file_hash: text::content_hash(format!("# Note {i}\n").as_bytes()),
            bytes: None,
        })
        .collect();
    let op_ids: Vec<String> = (0..moves).map(|i| format!("h_{}", i + 1)).collect();
    review.stage_ops("job_1", &ops, &op_ids).unwrap();
    // A blank line between links: each is a hunk of its own.
    let base: String = (0..moves).map(|i| format!("[[m{i}]]\n\n")).collect();
    let proposed: String = (0..moves).map(|i| format!("[[n{i}]]\n\n")).collect();
    let files = [proposal("l.md", &base, &proposed)];
    let bundle = bundle_from(&files, &HunkLimits::default(), moves as u64 + 1);
    review.stage("job_1", &files, &bundle).unwrap();
    let links: Vec<String> = bundle.hunk_ids().map(str::to_owned).collect();
    assert_eq!(links.len(), moves);
    for (op, link) in op_ids.iter().zip(&links) {
        review.follow(op, std::slice::from_ref(link), TieKind::Update);
    }
    (review, op_ids, links)
}

fn status_of(review: &Review, hunk: &str) -> Status {
    let (path, i) = review.find_hunk(hunk).unwrap();
    review.file(&path).unwrap().entries()[i].status
}

fn statuses(review: &Review, hunks: &[String]) -> Vec<Status> {
    hunks.iter().map(|h| status_of(review, h)).collect()
}

/// One action of the reviewer: on a move or a link, accept, reject or undo,
/// one at a time or as a batch.
#[derive(Clone, Debug)]
enum Action {
    One(bool, usize, Status),
    Many(Vec<(bool, usize)>, Status),
    Undo(bool, usize),
    /// One decision routed as the workspace routes it: across files when
    /// [`Review::crosses_files`] says so, else on its file alone.
    Routed(bool, usize, Status),
}

fn arb_actions(moves: usize) -> impl Strategy<Value = Vec<Action>> {
    let status = prop_oneof![
        Just(Status::Accepted),
        Just(Status::Rejected),
        Just(Status::Pending)
    ];
    let target = (any::<bool>(), 0..moves);
    let action = prop_oneof![
        (target.clone(), status.clone()).prop_map(|((m, i), s)| Action::One(m, i, s)),
        (proptest::collection::vec(target.clone(), 1..4), status)
            .prop_map(|(t, s)| Action::Many(t, s)),
        target.clone().prop_map(|(m, i)| Action::Undo(m, i)),
        (
            target,
            prop_oneof![
                Just(Status::Accepted),
                Just(Status::Rejected),
                Just(Status::Pending)
            ]
        )
            .prop_map(|((m, i), s)| Action::Routed(m, i, s)),
    ];
    proptest::collection::vec(action, 1..24)
}

proptest! {
    #![proptest_config(config(500))]

    /// Whatever the order: a link update counts only while its move does
    /// (never accepted while the move is rejected, never pending while it
    /// is rejected), every decision is taken, and undoing the last one puts
    /// every status back.
    #[test]
    fn a_link_update_never_counts_without_its_move(
        moves in 1usize..4,
        actions in arb_actions(3),
    ) {
        let (mut review, ops, links) = moved(moves);
        let pick = |m: bool, i: usize| -> String {
            let i = i % moves;
            if m { ops[i].clone() } else { links[i].clone() }
        };
        for action in actions {
            let all: Vec<String> = ops.iter().chain(&links).cloned().collect();
            let before = statuses(&review, &all);
            let undoable = match action {
                Action::One(m, i, s) => {
                    let hunk = pick(m, i);
                    if s == Status::Pending {
                        review.undo_many(&[hunk]).unwrap();
                        None
                    } else {
                        review.decide_many(std::slice::from_ref(&hunk), s).unwrap();
                        prop_assert_eq!(status_of(&review, &hunk), s);
                        Some(hunk)
                    }
                }
                Action::Many(targets, s) => {
                    let hunks: Vec<String> = targets.into_iter().map(|(m, i)| pick(m, i)).collect();
                    if s == Status::Pending {
                        review.undo_many(&hunks).unwrap();
                        None
                    } else {
                        review.decide_many(&hunks, s).unwrap();
                        Some(hunks[0].clone())
                    }
                }
                Action::Undo(m, i) => {
                    review.undo_many(&[pick(m, i)]).unwrap();
                    None
                }
                Action::Routed(m, i, s) => {
                    let hunk = pick(m, i);
                    match (review.crosses_files(&hunk, s), s) {
                        (true, Status::Pending) => drop(review.undo_many(&[hunk]).unwrap()),
                        (true, _) => drop(review.decide_many(&[hunk], s).unwrap()),
                        (false, Status::Pending) => drop(review.undo(&hunk).unwrap()),
                        (false, _) => drop(review.decide(&hunk, s, None).unwrap()),
                    }
                    None
                }
            };
            for (op, link) in ops.iter().zip(&links) {
                let (o, l) = (status_of(&review, op), status_of(&review, link));
                prop_assert!(
                    !(o == Status::Rejected && l != Status::Rejected),
                    "the move {op} is rejected but its link {link} is {l:?}"
                );
                prop_assert!(
                    !(l == Status::Accepted && o != Status::Accepted),
                    "the link {link} is accepted but its move {op} is {o:?}"
                );
            }
            if let Some(hunk) = undoable {
                let mut again = review.clone();
                again.undo_many(&[hunk]).unwrap();
                prop_assert_eq!(statuses(&again, &all), before);
            }
        }
    }
}
