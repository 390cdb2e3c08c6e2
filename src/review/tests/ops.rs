//! Moves and the link hunks that follow them, decided in any order: a link
//! update never counts while its move does not, a decision on either is
//! never refused, and undo gives back the statuses before.

use proptest::prelude::*;

use super::*;
use crate::edits::{FileOp, FileOpProposal};
use crate::review::Settle;

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

/// Stages, in `k.md` by a later job, one line per move of [`moved`] that
/// links to where it takes its note, each tied to the move as needing it.
/// Returns those hunks.
fn needing(review: &mut Review, moves: usize) -> Vec<String> {
    let proposed: String = (0..moves).map(|i| format!("See [[n{i}]].\n\n")).collect();
    let base: String = (0..moves).map(|i| format!("See it {i}.\n\n")).collect();
    let files = [proposal("k.md", &base, &proposed)];
    let bundle = bundle_from(&files, &HunkLimits::default(), 2 * moves as u64 + 1);
    review.stage("job_2", &files, &bundle).unwrap();
    let needs: Vec<String> = bundle.hunk_ids().map(str::to_owned).collect();
    assert_eq!(needs.len(), moves);
    for (i, need) in needs.iter().enumerate() {
        review.follow(&format!("h_{}", i + 1), std::slice::from_ref(need), TieKind::Needs);
    }
    needs
}

fn status_of(review: &Review, hunk: &str) -> Status {
    let (path, i) = review.find_hunk(hunk).unwrap();
    review.file(&path).unwrap().entries()[i].status
}

fn statuses(review: &Review, hunks: &[String]) -> Vec<Status> {
    hunks.iter().map(|h| status_of(review, h)).collect()
}

/// One action of the reviewer: on a move, its link update or a hunk that
/// needs it (0, 1, 2), accept, reject or undo, one at a time or as a batch.
#[derive(Clone, Debug)]
enum Action {
    One(u8, usize, Status),
    Many(Vec<(u8, usize)>, Status),
    Undo(u8, usize),
    /// One decision as the workspace makes it ([`Review::decide`], or
    /// [`Review::undo`] for pending).
    Routed(u8, usize, Status),
}

fn arb_actions(moves: usize) -> impl Strategy<Value = Vec<Action>> {
    let status = prop_oneof![
        Just(Status::Accepted),
        Just(Status::Rejected),
        Just(Status::Pending)
    ];
    let target = (0u8..3, 0..moves);
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

    /// Whatever the order: a link update, and a hunk that needs a move,
    /// counts only while its move does (never accepted while the move is
    /// rejected, never pending while it is rejected), every decision is
    /// taken, and undoing the last one puts every status back, by hunk and
    /// as the decision history does (its step's moves put back).
    #[test]
    fn a_link_update_never_counts_without_its_move(
        moves in 1usize..4,
        actions in arb_actions(3),
    ) {
        decide_in_order(moves, actions)?;
    }
}

/// The moves property found this on the closure before it was one
/// worklist: undoing a step that rejected a move's own link update and a
/// hunk that needs the other move brought the move back accepted but left
/// its update pending (the one change split); accepting the move then took
/// the update with it, and undoing that set the move back to pending.
#[test]
fn undoing_a_decision_after_a_need_is_undone_puts_back_every_status() {
    use Action::{Many, One};
    let actions = vec![
        One(0, 0, Status::Accepted),
        Many(vec![(0, 0)], Status::Rejected),
        One(0, 0, Status::Accepted),
        Many(vec![(2, 1), (1, 0)], Status::Rejected),
        One(2, 0, Status::Pending),
        Many(vec![(2, 1)], Status::Pending),
        One(0, 0, Status::Accepted),
    ];
    decide_in_order(2, actions).unwrap();
}

/// Runs `actions` on [`moved`]`(moves)` with hunks that need the moves
/// ([`needing`]), checking after each that no follower counts without its
/// move, and that undoing a decision puts back every status before it, by
/// hunk ([`Review::undo_many`]) and as the history does ([`Review::restore`]
/// of its moves, then [`Review::settle`]).
fn decide_in_order(moves: usize, actions: Vec<Action>) -> Result<(), TestCaseError> {
    let (mut review, ops, links) = moved(moves);
    let needs = needing(&mut review, moves);
    let pick = |kind: u8, i: usize| -> String {
        [&ops, &links, &needs][usize::from(kind)][i % moves].clone()
    };
    for action in actions {
        let all: Vec<String> = ops.iter().chain(&links).chain(&needs).cloned().collect();
        let before = statuses(&review, &all);
        let undoable = match action {
            Action::One(m, i, s) => {
                let hunk = pick(m, i);
                if s == Status::Pending {
                    review.undo_many(&[hunk]).unwrap();
                    None
                } else {
                    let decided = review.decide_many(std::slice::from_ref(&hunk), s).unwrap();
                    prop_assert_eq!(status_of(&review, &hunk), s);
                    Some((hunk, decided))
                }
            }
            Action::Many(targets, s) => {
                let hunks: Vec<String> = targets.into_iter().map(|(m, i)| pick(m, i)).collect();
                if s == Status::Pending {
                    review.undo_many(&hunks).unwrap();
                    None
                } else {
                    let decided = review.decide_many(&hunks, s).unwrap();
                    Some((hunks[0].clone(), decided))
                }
            }
            Action::Undo(m, i) => {
                review.undo_many(&[pick(m, i)]).unwrap();
                None
            }
            Action::Routed(m, i, s) => {
                let hunk = pick(m, i);
                match s {
                    Status::Pending => drop(review.undo(&hunk).unwrap()),
                    _ => drop(review.decide(&hunk, s, None).unwrap()),
                }
                None
            }
        };
        let followers = links.iter().zip(&ops).chain(needs.iter().zip(&ops));
        for (link, op) in followers {
            let (o, l) = (status_of(&review, op), status_of(&review, link));
            prop_assert!(
                !(o == Status::Rejected && l != Status::Rejected),
                "the move {op} is rejected but {link}, which follows it, is {l:?}"
            );
            prop_assert!(
                !(l == Status::Accepted && o != Status::Accepted),
                "{link} is accepted but the move {op} it follows is {o:?}"
            );
        }
        if let Some((hunk, decided)) = undoable {
            let mut again = review.clone();
            again.undo_many(&[hunk]).unwrap();
            prop_assert_eq!(&statuses(&again, &all), &before);
            // The decision history's undo: the step's moves put back.
            let mut again = review.clone();
            let moves: Vec<(String, Status, Status)> = decided
                .iter()
                .flat_map(|d| &d.moves)
                .map(|m| (m.hunk_id.clone(), m.to, m.from))
                .collect();
            let (mut undone, left) = again.restore(&moves, false, &Default::default());
            prop_assert!(left.is_empty(), "the undo left {left:?}");
            let named: Vec<String> = moves.iter().map(|(h, _, _)| h.clone()).collect();
            again.settle(Settle::Decision { named: &named }, &mut undone).unwrap();
            prop_assert_eq!(statuses(&again, &all), before, "the history's undo");
        }
    }
    Ok(())
}

/// Sets each of `hunks` to the status `pick` names (0 pending, 1 accepted,
/// 2 rejected), as a rollback puts back a note's log, deciding nothing.
fn put_back(review: &mut Review, hunks: &[String], pick: &[u8]) {
    for (hunk, n) in hunks.iter().zip(pick) {
        let (path, i) = review.find_hunk(hunk).unwrap();
        let status = [Status::Pending, Status::Accepted, Status::Rejected][*n as usize % 3];
        review.file_mut(&path).unwrap().set_statuses(&[(i, status)]);
    }
}

proptest! {
    #![proptest_config(config(500))]

    /// Whatever statuses a rollback puts back, settling leaves no tie
    /// apart: a link update counts only while its move does, a move counts
    /// only with its link updates, and never accepted while the other side
    /// is pending. Undoing a rollback (as they were) only takes the link
    /// updates of rejected moves.
    #[test]
    fn settling_a_rollback_leaves_no_tie_apart(
        moves in 1usize..4,
        pick in proptest::collection::vec(0u8..3, 8),
        as_they_were in any::<bool>(),
    ) {
        let (mut review, ops, links) = moved(moves);
        let all: Vec<String> = ops.iter().chain(&links).cloned().collect();
        put_back(&mut review, &all, &pick);
        let before = statuses(&review, &all);
        let restored: Vec<String> = review.files().map(|f| f.path.clone()).collect();
        let mut decisions = Vec::new();
        review
            .settle(Settle::Rollback { restored: &restored, as_they_were }, &mut decisions)
            .unwrap();
        for (k, (op, link)) in ops.iter().zip(&links).enumerate() {
            let (o, l) = (status_of(&review, op), status_of(&review, link));
            prop_assert!(
                !(o == Status::Rejected && l != Status::Rejected),
                "the move {op} is rejected but its link {link} is {l:?}"
            );
            let split = matches!(
                (o, l),
                (Status::Accepted, Status::Pending) | (Status::Pending, Status::Accepted)
            );
            prop_assert!(!split, "the move {op} is {o:?} and its link {link} {l:?}");
            if as_they_were {
                // A move stays as it was put back, beside a rejected link
                // update of its own too, but for one side of a split.
                let o0 = before[k];
                prop_assert!(o == o0 || (o0 == Status::Accepted && o == Status::Pending));
            } else {
                prop_assert!(
                    !(l == Status::Rejected && o != Status::Rejected),
                    "the link {link} is rejected but its move {op} is {o:?}"
                );
            }
        }
        // Every hunk it moved is listed: the rollback persists and keeps
        // for its undo the notes its decisions name.
        for (k, hunk) in all.iter().enumerate() {
            let listed = decisions.iter().flat_map(|d| &d.moves).any(|m| m.hunk_id == *hunk);
            prop_assert!(listed || status_of(&review, hunk) == before[k], "{} moved unlisted", hunk);
        }
    }
}

/// A link update rejected as a consequence of a decision takes its move;
/// one the user named is their choice to leave the link, and does not.
#[test]
fn a_link_update_rejected_as_a_consequence_takes_its_move() {
    for named in [false, true] {
        let (mut review, ops, links) = moved(1);
        review.decide_many(&ops, Status::Accepted).unwrap();
        let (path, i) = review.find_hunk(&links[0]).unwrap();
        let file = review.file_mut(&path).unwrap();
        let mut decisions = vec![crate::review::decide::decision(file, &[(i, Status::Rejected)])];
        file.set_statuses(&[(i, Status::Rejected)]);
        let named_ids = if named { links.clone() } else { Vec::new() };
        review
            .settle(Settle::Decision { named: &named_ids }, &mut decisions)
            .unwrap();
        let expected = if named { Status::Accepted } else { Status::Rejected };
        assert_eq!(status_of(&review, &ops[0]), expected, "named: {named}");
    }
}
