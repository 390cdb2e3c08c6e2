use proptest::prelude::*;

use super::*;
use crate::hunks::{DiffBundle, HunkLimits, bundle, bundle_from};

/// A proposal made in memory: hunks need only the two texts.
fn proposal(path: &str, base: &str, proposed: &str) -> FileProposal {
    FileProposal {
        file_path: path.into(),
        created: false,
        base: base.into(),
        base_file_hash: Some(text::content_hash(base.as_bytes())),
        proposed: proposed.into(),
        edits: Vec::new(),
    }
}

fn staged(base: &str, proposed: &str, limits: &HunkLimits) -> (Review, Vec<crate::hunks::Hunk>) {
    let files = [proposal("f.md", base, proposed)];
    let bundle = bundle(&files, limits);
    let hunks = bundle.files[0].hunks.clone();
    let mut review = Review::new();
    review.stage("job_1", &files, &bundle).unwrap();
    (review, hunks)
}

/// The base with the hunks `keep` says to keep, applied bottom-up: the
/// reference the review must agree with.
fn oracle(
    base: &str,
    proposed: &str,
    hunks: &[crate::hunks::Hunk],
    keep: impl Fn(usize) -> bool,
) -> String {
    let mut lines: Vec<&str> = base.split_inclusive('\n').collect();
    let new: Vec<&str> = proposed.split_inclusive('\n').collect();
    for (i, h) in hunks.iter().enumerate().rev() {
        if keep(i) {
            lines.splice(
                h.old_start..h.old_start + h.old_lines,
                new[h.new_start..h.new_start + h.new_lines].iter().copied(),
            );
        }
    }
    lines.concat()
}

fn buffer(review: &Review) -> String {
    review.file("f.md").unwrap().buffer()
}

const BASE: &str = "title\n\none\ntwo\nthree\n\nfour\nfive\nsix\n";
const PROPOSED: &str = "title\n\nONE\ntwo\nthree\n\nfour\nFIVE\nfive and a half\nsix\n";

#[test]
fn staging_shows_the_proposal_and_decisions_move_the_buffer() {
    let (mut review, hunks) = staged(BASE, PROPOSED, &HunkLimits::default());
    assert_eq!(hunks.len(), 2);
    assert_eq!(buffer(&review), PROPOSED);
    assert_eq!(
        review.file("f.md").unwrap().disk_view().unwrap(),
        BASE,
        "pending hunks never reach the disk"
    );

    review.decide("h_2", Status::Rejected).unwrap();
    assert_eq!(
        buffer(&review),
        "title\n\nONE\ntwo\nthree\n\nfour\nfive\nsix\n"
    );
    review.decide("h_1", Status::Accepted).unwrap();
    assert_eq!(
        review.file("f.md").unwrap().disk_view().unwrap(),
        "title\n\nONE\ntwo\nthree\n\nfour\nfive\nsix\n"
    );
    // Undo: rejected -> pending puts the text back.
    review.decide("h_2", Status::Pending).unwrap();
    assert_eq!(buffer(&review), PROPOSED);
    assert!(matches!(
        review.decide("h_9", Status::Accepted),
        Err(ReviewError::UnknownHunk(_))
    ));

    let log = review.file("f.md").unwrap().entries();
    assert_eq!(log.len(), 2);
    assert!(
        log.iter()
            .all(|e| e.origin == Origin::Agent && e.job_id.as_deref() == Some("job_1"))
    );
    assert_eq!(log[0].file_hash_before, text::content_hash(BASE.as_bytes()));
    assert!(
        log.iter()
            .any(|e| e.forward_patch("f.md").contains("-one\n+ONE\n"))
    );
    assert!(
        log.iter()
            .any(|e| e.reverse_patch("f.md").contains("-ONE\n+one\n"))
    );
}

#[test]
fn a_reject_keeps_later_user_edits_elsewhere_and_refuses_to_overwrite_overlapping_ones() {
    let (mut review, _) = staged(BASE, PROPOSED, &HunkLimits::default());
    // The user edits line `title` and adds a line after `two`.
    let edited = PROPOSED
        .replace("title\n", "My title\n")
        .replace("two\n", "two\nmine\n");
    let ids = review.user_edit("f.md", &edited).unwrap();
    assert_eq!(ids.len(), 2);
    review.decide("h_1", Status::Rejected).unwrap();
    review.decide("h_2", Status::Rejected).unwrap();
    assert_eq!(
        buffer(&review),
        BASE.replace("title\n", "My title\n")
            .replace("two\n", "two\nmine\n")
    );

    // Editing inside a hunk's text makes its reject a conflict, and nothing moves.
    let (mut review, _) = staged(BASE, PROPOSED, &HunkLimits::default());
    review
        .user_edit("f.md", &PROPOSED.replace("FIVE", "FIVE!"))
        .unwrap();
    let before = buffer(&review);
    let err = review.decide("h_2", Status::Rejected).unwrap_err();
    assert!(matches!(err, ReviewError::Conflict { .. }), "{err}");
    assert_eq!(buffer(&review), before);
    // It cannot be left out of a save either, until it is accepted.
    assert!(matches!(
        review.file("f.md").unwrap().disk_view(),
        Err(ReviewError::PendingEdited { .. })
    ));
    review.decide("h_2", Status::Accepted).unwrap();
    assert!(
        review
            .file("f.md")
            .unwrap()
            .disk_view()
            .unwrap()
            .contains("FIVE!")
    );
}

#[test]
fn a_stale_proposal_is_refused() {
    let (mut review, _) = staged(BASE, PROPOSED, &HunkLimits::default());
    let files = [proposal("f.md", BASE, "other\n")];
    let again = bundle(&files, &HunkLimits::default());
    assert!(matches!(
        review.stage("job_2", &files, &again),
        Err(ReviewError::StaleProposal(_))
    ));
    // A proposal against the buffer as it is now is staged on top.
    let files = [proposal("f.md", PROPOSED, &PROPOSED.replace("six", "SIX"))];
    let next = bundle(&files, &HunkLimits::default());
    review.stage("job_2", &files, &next).unwrap();
    assert!(buffer(&review).ends_with("SIX\n"));
}

// ---------------------------------------------------------------------------
// The invariants of DESIGN §3.5, over random files, proposals and decisions.

/// A random base and a random proposal made from it, with mixed endings.
fn arb_pair() -> impl Strategy<Value = (String, String)> {
    let line = prop_oneof!["[ab]", "[a-e]{1,3}", Just(String::new())];
    let eol = prop_oneof![4 => Just("\n"), 1 => Just("\r\n")];
    let base = proptest::collection::vec((line.clone(), eol.clone()), 0..30);
    // Per base line: 0 keep, 1 delete, 2 replace, 3 insert before.
    let ops = proptest::collection::vec((0u8..6, proptest::collection::vec((line, eol), 1..4)), 30);
    (base, ops, any::<bool>()).prop_map(|(base, ops, final_newline)| {
        let mut b = String::new();
        let mut p = String::new();
        for (i, (text, eol)) in base.iter().enumerate() {
            let line = format!("{text}{eol}");
            let (op, new) = &ops[i];
            let new: String = new.iter().map(|(t, e)| format!("{t}{e}")).collect();
            match op {
                1 => {}
                2 => p.push_str(&new),
                3 => {
                    p.push_str(&new);
                    p.push_str(&line);
                }
                _ => p.push_str(&line),
            }
            b.push_str(&line);
        }
        if !final_newline {
            b = b.trim_end_matches(['\n', '\r']).to_owned();
            p = p.trim_end_matches(['\n', '\r']).to_owned();
        }
        (b, p)
    })
}

/// Per line of a text: 0–2 keep, 3 delete, 4 replace, 5 insert before.
type LineOps = Vec<(u8, Vec<String>)>;

fn arb_ops() -> impl Strategy<Value = LineOps> {
    let line = prop_oneof!["[ab]\n", "[a-e]{1,3}\n", Just("\n".to_owned()), "[cd]\r\n"];
    proptest::collection::vec((0u8..6, proptest::collection::vec(line, 1..3)), 1..30)
}

/// A proposal made from any `text` by `ops` (taken cyclically per line).
fn derive(text: &str, ops: &LineOps) -> String {
    let mut out = String::new();
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let (op, new) = &ops[i % ops.len()];
        match op {
            3 => {}
            4 => out.push_str(&new.concat()),
            5 => {
                out.push_str(&new.concat());
                out.push_str(line);
            }
            _ => out.push_str(line),
        }
    }
    out
}

fn ids(bundle: &DiffBundle) -> Vec<String> {
    bundle.hunk_ids().map(str::to_owned).collect()
}

/// Makes `decisions` in an order fixed by `seed`, retrying the refused ones
/// while any succeeds. Returns the buffer and the decisions that held.
fn settle(
    mut review: Review,
    decisions: &[(String, Status)],
    seed: u64,
) -> (String, Vec<(String, Status)>) {
    let mut left: Vec<usize> = (0..decisions.len()).collect();
    shuffle(&mut left, seed);
    loop {
        let before = left.len();
        left.retain(|&i| review.decide(&decisions[i].0, decisions[i].1).is_err());
        if left.is_empty() || left.len() == before {
            break;
        }
    }
    let held = (0..decisions.len())
        .filter(|i| !left.contains(i))
        .map(|i| decisions[i].clone())
        .collect();
    (buffer(&review), held)
}

fn small_hunks() -> impl Strategy<Value = HunkLimits> {
    prop_oneof![
        Just(HunkLimits::default()),
        Just(HunkLimits {
            max_lines: 3,
            max_bytes: 12,
            ..HunkLimits::default()
        }),
    ]
}

fn status_of(n: u8) -> Status {
    match n % 3 {
        0 => Status::Pending,
        1 => Status::Accepted,
        _ => Status::Rejected,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Accept all = the proposal; reject all = the base, byte for byte.
    #[test]
    fn accept_all_is_the_proposal_and_reject_all_is_the_base(
        (base, proposed) in arb_pair(), limits in small_hunks(), seed in any::<u64>(),
    ) {
        let (mut review, hunks) = staged(&base, &proposed, &limits);
        let mut order: Vec<usize> = (0..hunks.len()).collect();
        shuffle(&mut order, seed);
        for &i in &order {
            review.decide(&hunks[i].hunk_id, Status::Accepted).unwrap();
        }
        prop_assert_eq!(buffer(&review), proposed.clone());
        prop_assert_eq!(review.file("f.md").unwrap().disk_view().unwrap(), proposed.clone());
        shuffle(&mut order, seed ^ 0x9e37);
        for &i in &order {
            review.decide(&hunks[i].hunk_id, Status::Rejected).unwrap();
        }
        prop_assert_eq!(buffer(&review), base.clone());
        prop_assert_eq!(review.file("f.md").unwrap().disk_view().unwrap(), base);
    }

    /// Any set of decisions gives the same bytes whatever order and detours
    /// led to it: the buffer keeps every hunk not rejected, the disk view
    /// every accepted one.
    #[test]
    fn decisions_commute(
        (base, proposed) in arb_pair(), limits in small_hunks(),
        detours in proptest::collection::vec((any::<proptest::sample::Index>(), 0u8..3), 0..20),
        targets in proptest::collection::vec(0u8..3, 64), seed in any::<u64>(),
    ) {
        let (mut review, hunks) = staged(&base, &proposed, &limits);
        prop_assume!(!hunks.is_empty());
        for (index, status) in detours {
            review.decide(&hunks[index.index(hunks.len())].hunk_id, status_of(status)).unwrap();
        }
        let mut order: Vec<usize> = (0..hunks.len()).collect();
        shuffle(&mut order, seed);
        for &i in &order {
            review.decide(&hunks[i].hunk_id, status_of(targets[i % targets.len()])).unwrap();
        }
        let target = |i: usize| status_of(targets[i % targets.len()]);
        prop_assert_eq!(buffer(&review), oracle(&base, &proposed, &hunks, |i| target(i) != Status::Rejected));
        prop_assert_eq!(
            review.file("f.md").unwrap().disk_view().unwrap(),
            oracle(&base, &proposed, &hunks, |i| target(i) == Status::Accepted)
        );
    }

    /// Two jobs stacked in one file, the second proposed on the first's
    /// pending text (and a line the user typed in between): accept all is
    /// the last proposal, reject all (latest job first) the base byte for
    /// byte with the user's line kept, undoing the rejects gives the last
    /// proposal back, and any decisions give the same bytes whatever order
    /// they are made in.
    #[test]
    fn stacked_jobs_keep_the_invariants(
        (base, first) in arb_pair(), ops in arb_ops(), limits in small_hunks(),
        user in any::<bool>(), targets in proptest::collection::vec(0u8..3, 64),
        seeds in any::<(u64, u64, u64)>(),
    ) {
        let mut review = Review::new();
        let files = [proposal("f.md", &base, &first)];
        let one = bundle_from(&files, &limits, 1);
        review.stage("job_1", &files, &one).unwrap();
        let mut base_kept = base.clone();
        if user {
            let now = buffer(&review);
            review.user_edit("f.md", &format!("@user@\n{now}")).unwrap();
            base_kept = format!("@user@\n{base}");
        }
        let now = buffer(&review);
        let second = derive(&now, &ops);
        let files = [proposal("f.md", &now, &second)];
        let two = bundle_from(&files, &limits, 1 + ids(&one).len() as u64);
        review.stage("job_2", &files, &two).unwrap();
        prop_assert_eq!(buffer(&review), second.clone());
        let (one, two) = (ids(&one), ids(&two));
        let all: Vec<String> = one.iter().chain(&two).cloned().collect();

        let mut accepted = review.clone();
        let mut order: Vec<usize> = (0..all.len()).collect();
        shuffle(&mut order, seeds.0);
        for &i in &order {
            accepted.decide(&all[i], Status::Accepted).unwrap();
        }
        prop_assert_eq!(buffer(&accepted), second.clone());
        prop_assert_eq!(accepted.file("f.md").unwrap().disk_view().unwrap(), second.clone());

        let mut rejected = review.clone();
        for job in [&two, &one] {
            let mut order: Vec<usize> = (0..job.len()).collect();
            shuffle(&mut order, seeds.1);
            for &i in &order {
                rejected.decide(&job[i], Status::Rejected).unwrap();
            }
        }
        prop_assert_eq!(buffer(&rejected), base_kept.clone());
        prop_assert_eq!(rejected.file("f.md").unwrap().disk_view().unwrap(), base_kept);
        for id in one.iter().chain(&two) {
            rejected.decide(id, Status::Pending).unwrap();
        }
        prop_assert_eq!(buffer(&rejected), second);

        let decisions: Vec<(String, Status)> = all
            .iter()
            .enumerate()
            .map(|(i, id)| (id.clone(), status_of(targets[i % targets.len()])))
            .collect();
        let (a, held_a) = settle(review.clone(), &decisions, seeds.1);
        let (b, held_b) = settle(review, &decisions, seeds.2);
        // Decisions that every order can make give the same bytes.
        if held_a.len() == decisions.len() && held_b.len() == decisions.len() {
            prop_assert_eq!(a, b);
        }
    }

    /// Rejecting agent hunks never changes a user edit that does not overlap them.
    #[test]
    fn rejects_keep_non_overlapping_user_edits(
        (base, proposed) in arb_pair(), limits in small_hunks(),
        marks in proptest::collection::vec(any::<proptest::sample::Index>(), 1..5),
        rejects in proptest::collection::vec(any::<bool>(), 64), seed in any::<u64>(),
    ) {
        let (mut review, hunks) = staged(&base, &proposed, &limits);
        let lines: Vec<&str> = proposed.split_inclusive('\n').collect();
        // Places between lines that are not strictly inside a hunk's text.
        let free: Vec<usize> = (0..=lines.len())
            .filter(|&p| !hunks.iter().any(|h| h.new_start < p && p < h.new_start + h.new_lines))
            .filter(|&p| p == lines.len() || p == 0 || lines[p - 1].ends_with('\n'))
            .collect();
        let mut points: Vec<usize> = marks.iter().map(|m| free[m.index(free.len())]).collect();
        points.sort_unstable();
        let marker = |k: usize| format!("@user {k}@\n");
        let with_marks = |lines: &[&str], at: &dyn Fn(usize) -> usize| {
            let mut out = String::new();
            let mut k = 0;
            for p in 0..=lines.len() {
                while k < points.len() && at(points[k]) == p {
                    out.push_str(&marker(k));
                    k += 1;
                }
                if p < lines.len() {
                    out.push_str(lines[p]);
                }
            }
            out
        };
        prop_assume!(proposed.is_empty() || proposed.ends_with('\n') || points.iter().all(|&p| p < lines.len()));
        review.user_edit("f.md", &with_marks(&lines, &|p| p)).unwrap();

        let rejected = |i: usize| rejects[i % rejects.len()];
        let mut order: Vec<usize> = (0..hunks.len()).collect();
        shuffle(&mut order, seed);
        for &i in &order {
            if rejected(i) {
                review.decide(&hunks[i].hunk_id, Status::Rejected).unwrap();
            }
        }
        // Where each mark lands: moved by the rejected hunks before it. A hunk
        // whose text is empty and sits at the mark is after it.
        let expected_text = oracle(&base, &proposed, &hunks, |i| !rejected(i));
        let expected_lines: Vec<&str> = expected_text.split_inclusive('\n').collect();
        let moved = |p: usize| {
            let shift: isize = hunks.iter().enumerate()
                .filter(|&(i, h)| rejected(i) && (if h.new_lines > 0 { h.new_start + h.new_lines <= p } else { h.new_start < p }))
                .map(|(_, h)| h.old_lines as isize - h.new_lines as isize)
                .sum();
            p.saturating_add_signed(shift)
        };
        prop_assert_eq!(buffer(&review), with_marks(&expected_lines, &moved));
    }
}

/// Shuffles `items` in an order fixed by `seed`.
fn shuffle(items: &mut [usize], seed: u64) {
    use rand::SeedableRng;
    use rand::seq::SliceRandom;
    items.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
}
