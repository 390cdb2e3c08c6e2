use proptest::prelude::*;

use super::*;
use crate::explore::config;
use crate::hunks::{HunkLimits, bundle, bundle_from};

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

/// Stages `proposed` over the buffer of `f.md` (or `base` for a new review)
/// as `job`, with hunk ids from `first`; returns the hunk ids.
fn stage(
    review: &mut Review,
    job: &str,
    base: &str,
    proposed: &str,
    limits: &HunkLimits,
    first: u64,
) -> Vec<String> {
    let files = [proposal("f.md", base, proposed)];
    let bundle = bundle_from(&files, limits, first);
    review.stage(job, &files, &bundle).unwrap();
    bundle.hunk_ids().map(str::to_owned).collect()
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
/// reference a one-job review must agree with.
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

fn disk(review: &Review) -> String {
    review.disk_view(review.file("f.md").unwrap())
}

fn statuses(review: &Review) -> Vec<Status> {
    let file = review.file("f.md").unwrap();
    file.entries().iter().map(|e| e.status).collect()
}

const BASE: &str = "title\n\none\ntwo\nthree\n\nfour\nfive\nsix\n";
const PROPOSED: &str = "title\n\nONE\ntwo\nthree\n\nfour\nFIVE\nfive and a half\nsix\n";

#[test]
fn staging_shows_the_proposal_and_decisions_move_the_buffer() {
    let (mut review, hunks) = staged(BASE, PROPOSED, &HunkLimits::default());
    assert_eq!(hunks.len(), 2);
    assert_eq!(buffer(&review), PROPOSED);
    assert_eq!(disk(&review), BASE, "pending hunks never reach the disk");

    review.decide("h_2", Status::Rejected, None).unwrap();
    assert_eq!(
        buffer(&review),
        "title\n\nONE\ntwo\nthree\n\nfour\nfive\nsix\n"
    );
    review.decide("h_1", Status::Accepted, None).unwrap();
    assert_eq!(
        disk(&review),
        "title\n\nONE\ntwo\nthree\n\nfour\nfive\nsix\n"
    );
    // Undo: the reject goes back, the hunk is pending again.
    review.undo("h_2").unwrap();
    assert_eq!(buffer(&review), PROPOSED);
    assert_eq!(statuses(&review), [Status::Accepted, Status::Pending]);
    assert!(matches!(
        review.decide("h_9", Status::Accepted, None),
        Err(ReviewError::UnknownHunk(_))
    ));

    let file = review.file("f.md").unwrap();
    let log = file.entries();
    assert_eq!(log.len(), 2);
    assert!(
        log.iter()
            .all(|e| e.origin == Origin::Agent && e.job_id.as_deref() == Some("job_1"))
    );
    assert_eq!(log[0].file_hash_before, text::content_hash(BASE.as_bytes()));
    assert!(file.patch(0, false).unwrap().contains("-one\n+ONE\n"));
    assert!(file.patch(0, true).unwrap().contains("-ONE\n+one\n"));
    let spans = file.spans();
    assert_eq!((spans[1].line, spans[1].lines), (7, 2));
    assert_eq!(spans[1].old, "five\n");
    assert_eq!(spans[1].now, "FIVE\nfive and a half\n");
}

/// The scenario of the issue: a rename, a follow-up that dates the same
/// line, and the rename rejected under it.
#[test]
fn a_rename_is_rejected_under_the_follow_up_that_dated_its_line() {
    let base = "# Plan\n\nAtlas 2.0 ships in the third quarter. The launch depends on the\nrest.\n";
    let renamed = base.replace("Atlas", "Meridian");
    let dated = renamed.replace("in the third quarter", "on 9 September");
    let limits = HunkLimits::default();
    let mut review = Review::new();
    let one = stage(&mut review, "job_1", base, &renamed, &limits, 1);
    let two = stage(&mut review, "job_2", &renamed, &dated, &limits, 2);
    assert_eq!(
        (one.as_slice(), two.as_slice()),
        (&["h_1".to_owned()][..], &["h_2".to_owned()][..])
    );
    let file = review.file("f.md").unwrap();
    assert_eq!(
        file.depends_on(1).count(),
        0,
        "the date does not stand on the name"
    );

    let d = review
        .decide("h_1", Status::Rejected, Some("keep Atlas"))
        .unwrap();
    assert_eq!(d.moves.len(), 1);
    assert_eq!(
        buffer(&review),
        "# Plan\n\nAtlas 2.0 ships on 9 September. The launch depends on the\nrest.\n"
    );
    review.decide("h_2", Status::Accepted, None).unwrap();
    assert_eq!(disk(&review), buffer(&review));
    assert_eq!(
        review.hunk_fate("h_1").unwrap().reason.as_deref(),
        Some("keep Atlas")
    );
    // Each hunk's lines show the other's decision.
    let spans = review.file("f.md").unwrap().spans();
    let rename = spans.iter().find(|s| s.entry == 0).unwrap();
    assert_eq!(
        rename.now,
        "Atlas 2.0 ships on 9 September. The launch depends on the\n"
    );
    assert_eq!(
        rename.old, rename.now,
        "a rejected hunk's lines are its old ones"
    );
}

/// A follow-up that rewrites the very word a hunk put there depends on it:
/// rejecting the first carries the second, accepting the second carries the
/// first, and undo puts both back as one step.
#[test]
fn a_dependent_pair_moves_together_and_undoes_as_one() {
    let base = "Atlas ships soon.\n";
    let one = "Meridian ships soon.\n";
    let two = "Meridiana ships soon.\n";
    let limits = HunkLimits::default();
    let mut review = Review::new();
    stage(&mut review, "job_1", base, one, &limits, 1);
    stage(&mut review, "job_2", one, two, &limits, 2);
    let file = review.file("f.md").unwrap();
    assert_eq!(file.depends_on(1).collect::<Vec<_>>(), [0]);
    assert_eq!(file.dependents(0).collect::<Vec<_>>(), [1]);

    let planned = review.clone().decide("h_1", Status::Rejected, None).unwrap();
    let d = review.decide("h_1", Status::Rejected, None).unwrap();
    assert_eq!(d, planned);
    let moved: Vec<(&str, Status)> = d.moves.iter().map(|m| (m.hunk_id.as_str(), m.to)).collect();
    assert_eq!(
        moved,
        [("h_1", Status::Rejected), ("h_2", Status::Rejected)]
    );
    assert_eq!(buffer(&review), base);
    review.undo("h_1").unwrap();
    assert_eq!(buffer(&review), two);
    assert_eq!(statuses(&review), [Status::Pending, Status::Pending]);

    let d = review.decide("h_2", Status::Accepted, None).unwrap();
    assert_eq!(
        d.moves.len(),
        2,
        "accepting the follow-up accepts what it stands on"
    );
    assert_eq!(disk(&review), two);
    // Back to pending: what stood on nothing moves alone.
    review.decide("h_1", Status::Pending, None).unwrap();
    assert_eq!(statuses(&review), [Status::Pending, Status::Pending]);
}

/// A rejected hunk and one written over the same words since are
/// alternatives: bringing the first back (an undo, or a decision) rejects
/// the second, never shows both replacements side by side.
#[test]
fn two_replacements_of_the_same_words_never_count_together() {
    let base = "Links: [[Beta]] here.\n";
    let one = "Links: [[Gamma 0]] here.\n";
    let two = "Links: [[Gamma]] here.\n";
    let limits = HunkLimits::default();
    let mut review = Review::new();
    stage(&mut review, "job_1", base, one, &limits, 1);
    review.decide("h_1", Status::Rejected, None).unwrap();
    stage(&mut review, "job_2", base, two, &limits, 2);
    assert_eq!(buffer(&review), two);
    review.undo("h_1").unwrap();
    assert_eq!(buffer(&review), one, "the first brought back, the second rejected");
    assert_eq!(statuses(&review), [Status::Pending, Status::Rejected]);
    // And the other way round: the second brought back rejects the first.
    let d = review.decide("h_2", Status::Pending, None).unwrap();
    let moved: Vec<(&str, Status)> = d.moves.iter().map(|m| (m.hunk_id.as_str(), m.to)).collect();
    assert_eq!(moved, [("h_2", Status::Pending), ("h_1", Status::Rejected)]);
    assert_eq!(buffer(&review), two);
}

/// Text typed inside a pending hunk goes with it when it is rejected (the
/// decision says so first), never to the disk while it is pending, and
/// comes back with an undo. Text typed beside it stays.
#[test]
fn typing_inside_a_hunk_goes_and_comes_with_it() {
    let (mut review, _) = staged(BASE, PROPOSED, &HunkLimits::default());
    let typed = PROPOSED
        .replace("FIVE\n", "FI-VE\n")
        .replace("title\n", "My title\n");
    review.user_edit("f.md", &typed).unwrap();
    assert_eq!(disk(&review), BASE.replace("title\n", "My title\n"));
    assert!(review.file("f.md").unwrap().typed_inside().contains(&1));
    assert!(!review.file("f.md").unwrap().typed_inside().contains(&0));
    // The hunk's lines say which words are the agent's: without the typing.
    let spans = review.file("f.md").unwrap().spans();
    assert_eq!(spans[1].now, "FI-VE\nfive and a half\n");
    assert_eq!(spans[1].untyped.as_deref(), Some("FIVE\nfive and a half\n"));
    assert_eq!(spans[0].untyped, None, "nothing typed in the first");
    let planned = review.clone().decide("h_2", Status::Rejected, None).unwrap();
    assert_eq!(planned.hidden_user_text, ["-"]);
    review.decide("h_2", Status::Rejected, None).unwrap();
    assert_eq!(
        buffer(&review),
        BASE.replace("title\n", "My title\n").replace("one", "ONE")
    );
    assert!(review.hunk_fate("h_2").unwrap().edited);
    review.undo("h_2").unwrap();
    assert_eq!(buffer(&review), typed);
    review.decide("h_2", Status::Accepted, None).unwrap();
    assert!(disk(&review).contains("FI-VE\n"));
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
// The review's invariants (docs/architecture.md#the-invariants), over random
// files, proposals and decisions.
// Every generator builds a valid case: none is filtered out.

/// A random base and a random proposal made from it, with mixed endings.
fn arb_pair() -> impl Strategy<Value = (String, String)> {
    // Text people write: an accent, CJK and Arabic among the letters.
    let line = prop_oneof!["[aé]", "[a-dé日]{1,3}", "[aé] [cب]", Just(String::new())];
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

/// Per line of a text: 0–1 keep, 2 delete, 3 replace, 4 insert before,
/// 5 change a word inside it.
type LineOps = Vec<(u8, Vec<String>)>;

fn arb_ops() -> impl Strategy<Value = LineOps> {
    let line = prop_oneof![
        "[aé]\n",
        "[a-dé日]{1,3}\n",
        Just("\n".to_owned()),
        "[cب]\r\n",
        "[aé] [c日]\n"
    ];
    proptest::collection::vec((0u8..6, proptest::collection::vec(line, 1..3)), 1..30)
}

/// A proposal made from any `text` by `ops` (taken cyclically per line).
fn derive(text: &str, ops: &LineOps) -> String {
    let mut out = String::new();
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let (op, new) = &ops[i % ops.len()];
        match op {
            2 => {}
            3 => out.push_str(&new.concat()),
            4 => {
                out.push_str(&new.concat());
                out.push_str(line);
            }
            // A word of the line changed, the rest kept.
            5 => match line.find(|c: char| c.is_ascii_alphabetic()) {
                Some(at) => {
                    out.push_str(&line[..at]);
                    out.push_str(new[0].trim_end_matches(['\n', '\r']));
                    out.push_str(&line[at + 1..]);
                }
                None => out.push_str(line),
            },
            _ => out.push_str(line),
        }
    }
    out
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

/// Three jobs stacked in one file, each proposed on the buffer the one
/// before left, with a line the user typed at the top between them.
#[derive(Clone, Debug)]
struct Stack {
    review: Review,
    /// Every hunk, in the order staged.
    hunks: Vec<String>,
    /// The base with the user's lines: what rejecting every hunk leaves.
    base_kept: String,
    /// The last proposal: what accepting every hunk leaves.
    last: String,
}

fn arb_stack() -> impl Strategy<Value = Stack> {
    (
        arb_pair(),
        arb_ops(),
        arb_ops(),
        small_hunks(),
        any::<(bool, bool)>(),
    )
        .prop_map(|((base, first), two, three, limits, (user_1, user_2))| {
            let mut review = Review::new();
            let mut hunks = stage(&mut review, "job_1", &base, &first, &limits, 1);
            let mut base_kept = base.clone();
            for (k, (user, ops)) in [(user_1, &two), (user_2, &three)].into_iter().enumerate() {
                if user {
                    let mark = format!("@user {k}@\n");
                    review
                        .user_edit("f.md", &format!("{mark}{}", buffer(&review)))
                        .unwrap();
                    base_kept = format!("{mark}{base_kept}");
                }
                let now = buffer(&review);
                let next = derive(&now, ops);
                let first = 1 + hunks.len() as u64;
                hunks.extend(stage(
                    &mut review,
                    &format!("job_{}", k + 2),
                    &now,
                    &next,
                    &limits,
                    first,
                ));
            }
            let last = buffer(&review);
            Stack {
                review,
                hunks,
                base_kept,
                last,
            }
        })
}

/// Makes `decisions` in an order fixed by `seed`; none is ever refused.
fn decide_all(review: &mut Review, decisions: &[(String, Status)], seed: u64) {
    let mut order: Vec<usize> = (0..decisions.len()).collect();
    shuffle(&mut order, seed);
    for i in order {
        review
            .decide(&decisions[i].0, decisions[i].1, None)
            .expect("every hunk can be decided at every moment");
    }
}

proptest! {
    #![proptest_config(config(2000))]

    /// Accept all = the proposal; reject all = the base, byte for byte.
    #[test]
    fn accept_all_is_the_proposal_and_reject_all_is_the_base(
        (base, proposed) in arb_pair(), limits in small_hunks(), seed in any::<u64>(),
    ) {
        let (mut review, hunks) = staged(&base, &proposed, &limits);
        let all = |s: Status| hunks.iter().map(|h| (h.hunk_id.clone(), s)).collect::<Vec<_>>();
        decide_all(&mut review, &all(Status::Accepted), seed);
        prop_assert_eq!(buffer(&review), proposed.clone());
        prop_assert_eq!(disk(&review), proposed);
        decide_all(&mut review, &all(Status::Rejected), seed ^ 0x9e37);
        prop_assert_eq!(buffer(&review), base.clone());
        prop_assert_eq!(disk(&review), base);
    }

    /// One job: any set of decisions gives the same bytes whatever order and
    /// detours led to it — the buffer keeps every hunk not rejected, the
    /// disk view every accepted one — and its hunks never carry each other.
    #[test]
    fn decisions_commute(
        (base, proposed) in arb_pair(), limits in small_hunks(),
        detours in proptest::collection::vec((any::<proptest::sample::Index>(), 0u8..3), 0..20),
        targets in proptest::collection::vec(0u8..3, 64), seed in any::<u64>(),
    ) {
        let (mut review, hunks) = staged(&base, &proposed, &limits);
        if !hunks.is_empty() {
            for (index, status) in detours {
                let d = review.decide(&hunks[index.index(hunks.len())].hunk_id, status_of(status), None).unwrap();
                prop_assert_eq!(d.moves.len(), 1);
            }
        }
        let target = |i: usize| status_of(targets[i % targets.len()]);
        let decisions: Vec<(String, Status)> =
            hunks.iter().enumerate().map(|(i, h)| (h.hunk_id.clone(), target(i))).collect();
        decide_all(&mut review, &decisions, seed);
        prop_assert_eq!(buffer(&review), oracle(&base, &proposed, &hunks, |i| target(i) != Status::Rejected));
        prop_assert_eq!(disk(&review), oracle(&base, &proposed, &hunks, |i| target(i) == Status::Accepted));
    }

    /// Three stacked jobs with the user's lines between them: accept all is
    /// the last proposal, reject all (in any order) the base with the user's
    /// lines; decisions reached in one order, made again in any other, give
    /// the same statuses and bytes; and no decision is ever refused.
    #[test]
    fn stacked_jobs_keep_the_invariants(
        stack in arb_stack(), targets in proptest::collection::vec(0u8..3, 64),
        seeds in any::<(u64, u64, u64)>(),
    ) {
        let Stack { review, hunks, base_kept, last } = stack;
        prop_assert_eq!(buffer(&review), last.clone());
        let all = |s: Status| hunks.iter().map(|h| (h.clone(), s)).collect::<Vec<_>>();

        let mut accepted = review.clone();
        decide_all(&mut accepted, &all(Status::Accepted), seeds.0);
        prop_assert_eq!(buffer(&accepted), last.clone());
        prop_assert_eq!(disk(&accepted), last.clone());

        let mut rejected = review.clone();
        decide_all(&mut rejected, &all(Status::Rejected), seeds.1);
        prop_assert_eq!(buffer(&rejected), base_kept.clone());
        prop_assert_eq!(disk(&rejected), base_kept.clone());
        decide_all(&mut rejected, &all(Status::Pending), seeds.2);
        prop_assert_eq!(buffer(&rejected), last.clone());

        // Random decisions in one order reach a set of statuses; that set,
        // decided again in any order from the start, comes out the same.
        let wanted: Vec<(String, Status)> = hunks
            .iter()
            .enumerate()
            .map(|(i, h)| (h.clone(), status_of(targets[i % targets.len()])))
            .collect();
        let mut a = review.clone();
        decide_all(&mut a, &wanted, seeds.1);
        let reached: Vec<(String, Status)> = hunks
            .iter()
            .map(|h| {
                let (_, i) = a.find_hunk(h).unwrap();
                (h.clone(), a.file("f.md").unwrap().entries()[i].status)
            })
            .collect();
        let mut b = review;
        decide_all(&mut b, &reached, seeds.2);
        prop_assert_eq!(statuses(&a), statuses(&b));
        prop_assert_eq!(buffer(&a), buffer(&b));
        prop_assert_eq!(disk(&a), disk(&b));
    }

    /// A decision and its undo give back the state before, statuses and
    /// bytes; and a plan says exactly what the decision then does.
    #[test]
    fn undo_gives_back_the_state_before(
        stack in arb_stack(), warmup in proptest::collection::vec((any::<proptest::sample::Index>(), 0u8..3), 0..6),
        pick in any::<proptest::sample::Index>(), status in 1u8..3,
    ) {
        let Stack { mut review, hunks, .. } = stack;
        if hunks.is_empty() {
            return Ok(());
        }
        for (i, s) in warmup {
            review.decide(&hunks[i.index(hunks.len())], status_of(s), None).unwrap();
        }
        let (before, before_disk, before_status) = (buffer(&review), disk(&review), statuses(&review));
        let hunk = &hunks[pick.index(hunks.len())];
        // A hunk's `old` lines are exactly what rejecting it leaves there.
        let (_, i) = review.find_hunk(hunk).unwrap();
        let file = review.file("f.md").unwrap();
        if file.entries()[i].status != Status::Rejected {
            let span = file.span_of(i).unwrap();
            let mut rejected = review.clone();
            rejected.decide(hunk, Status::Rejected, None).unwrap();
            let f = rejected.file("f.md").unwrap();
            let fresh = FileReview::from_stored("f.md".into(), String::new(), None, false, f.to_stored()).unwrap();
            prop_assert_eq!(fresh.buffer(), f.buffer(), "rope and pieces agree");
            let expected = format!("{}{}{}", &before[..span.bytes.start], span.old, &before[span.bytes.end..]);
            prop_assert_eq!(buffer(&rejected), expected);
        }
        let plan = review.clone().decide(hunk, status_of(status), None).unwrap();
        let done = review.decide(hunk, status_of(status), None).unwrap();
        prop_assert_eq!(plan, done);
        review.undo(hunk).unwrap();
        prop_assert_eq!(statuses(&review), before_status);
        prop_assert_eq!(buffer(&review), before);
        prop_assert_eq!(disk(&review), before_disk);
    }

    /// Many hunks decided at once (a pattern) end where deciding them one by
    /// one in that order ends, statuses and bytes; one undo then gives back
    /// the state before, whatever was decided before them.
    #[test]
    fn a_decision_on_many_is_the_decisions_on_each_and_undoes_as_one(
        stack in arb_stack(), warmup in proptest::collection::vec((any::<proptest::sample::Index>(), 0u8..3), 0..4),
        picks in proptest::collection::vec(any::<proptest::sample::Index>(), 1..6), status in 1u8..3,
    ) {
        let Stack { mut review, hunks, .. } = stack;
        if hunks.is_empty() {
            return Ok(());
        }
        for (i, s) in warmup {
            review.decide(&hunks[i.index(hunks.len())], status_of(s), None).unwrap();
        }
        let mut chosen: Vec<String> = picks.iter().map(|i| hunks[i.index(hunks.len())].clone()).collect();
        chosen.dedup();
        let (before, before_disk, before_status) = (buffer(&review), disk(&review), statuses(&review));
        let mut one_by_one = review.clone();
        for hunk in &chosen {
            one_by_one.decide(hunk, status_of(status), None).unwrap();
        }
        review.decide_many(&chosen, status_of(status)).unwrap();
        prop_assert_eq!(statuses(&review), statuses(&one_by_one));
        prop_assert_eq!(buffer(&review), buffer(&one_by_one));
        review.undo_many(&chosen[..1]).unwrap();
        prop_assert_eq!(statuses(&review), before_status);
        prop_assert_eq!(buffer(&review), before);
        prop_assert_eq!(disk(&review), before_disk);
    }

    /// A reject never changes the user's text outside what it says it takes
    /// out (text typed inside the hunks it moves): a line the user typed
    /// anywhere else stays, whatever is rejected, in any order.
    #[test]
    fn rejects_keep_the_users_other_text(
        stack in arb_stack(), at in any::<proptest::sample::Index>(),
        rejects in proptest::collection::vec(any::<bool>(), 64), seed in any::<u64>(),
    ) {
        let Stack { mut review, hunks, .. } = stack;
        let now = buffer(&review);
        let starts: Vec<usize> = std::iter::once(0)
            .chain(now.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let cut = starts[at.index(starts.len())];
        let mark = "@mine@\n";
        review.user_edit("f.md", &format!("{}{mark}{}", &now[..cut], &now[cut..])).unwrap();
        let mut order: Vec<usize> = (0..hunks.len()).filter(|&i| rejects[i % rejects.len()]).collect();
        shuffle(&mut order, seed);
        let mut hidden = false;
        for i in order {
            let d = review.decide(&hunks[i], Status::Rejected, None).unwrap();
            hidden |= d.hidden_user_text.iter().any(|t| t.contains("@mine@"));
        }
        prop_assert_eq!(buffer(&review).contains(mark), !hidden);
    }
}

/// Shuffles `items` in an order fixed by `seed`.
fn shuffle(items: &mut [usize], seed: u64) {
    use rand::SeedableRng;
    use rand::seq::SliceRandom;
    items.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
}

mod migration;
mod ops;
mod outside;
mod same_words;
