//! Another program's change under review, decided in any order: the disk
//! holds every hunk not rejected (pending ones too: they are there already),
//! rejecting all gives back the text before byte for byte, and the order of
//! the decisions does not matter.

use proptest::prelude::*;

use super::*;

/// `base` changed to `proposed` by another program, staged as its hunks.
fn written(base: &str, proposed: &str, limits: &HunkLimits) -> (Review, Vec<crate::hunks::Hunk>) {
    let (mut review, hunks) = staged(base, proposed, limits);
    let ids: Vec<String> = hunks.iter().map(|h| h.hunk_id.clone()).collect();
    review.mark_outside(&ids);
    (review, hunks)
}

proptest! {
    #![proptest_config(config(1000))]

    /// Staged, the disk view is what the program wrote; any decisions in
    /// any order leave it holding every hunk not rejected, so reject all is
    /// the text before and accept all (or nothing decided) what was written.
    #[test]
    fn an_outside_change_stays_on_disk_until_rejected(
        (base, proposed) in arb_pair(), limits in small_hunks(),
        targets in proptest::collection::vec(0u8..3, 64), seed in any::<u64>(),
    ) {
        let (mut review, hunks) = written(&base, &proposed, &limits);
        prop_assert_eq!(disk(&review), proposed.clone());
        prop_assert_eq!(buffer(&review), proposed.clone());
        let target = |i: usize| status_of(targets[i % targets.len()]);
        let decisions: Vec<(String, Status)> =
            hunks.iter().enumerate().map(|(i, h)| (h.hunk_id.clone(), target(i))).collect();
        decide_all(&mut review, &decisions, seed);
        let kept = oracle(&base, &proposed, &hunks, |i| target(i) != Status::Rejected);
        prop_assert_eq!(disk(&review), kept.clone());
        prop_assert_eq!(buffer(&review), kept);
        let all = |s: Status| hunks.iter().map(|h| (h.hunk_id.clone(), s)).collect::<Vec<_>>();
        decide_all(&mut review, &all(Status::Rejected), seed ^ 0x5bd1);
        prop_assert_eq!(disk(&review), base);
        decide_all(&mut review, &all(Status::Pending), seed ^ 0x1f3);
        prop_assert_eq!(disk(&review), proposed);
    }
}
