//! Two hunks over the same words (a replacement beside a link update, a
//! link update set aside by one written over it): which counts in the
//! buffer, and what a save writes.

use super::*;

/// A replacement beside a hunk that replaced the next words (a link
/// update: `[[Alpha]]` → `[[Alpha 1]]`) sits beside the text it took out,
/// not inside the other's old words: rejecting the link update brings
/// `[[Alpha]]` back whole, after the replacement.
#[test]
fn a_replacement_beside_a_rejected_replacement_keeps_its_place() {
    let base = "# Gamma\n\nLinks: [[Delta]] and [[Alpha]].\n\nline one\n";
    let updated = base.replace("[[Alpha]]", "[[Alpha 1]]");
    let replaced = updated.replace(" and ", "   ");
    let limits = HunkLimits::default();
    let mut review = Review::new();
    let one = stage(&mut review, "job_1", base, &updated, &limits, 1);
    stage(&mut review, "job_2", &updated, &replaced, &limits, 2);
    review.decide(&one[0], Status::Rejected, None).unwrap();
    assert_eq!(buffer(&review), base.replace(" and ", "   "));
    review.decide(&one[0], Status::Accepted, None).unwrap();
    assert_eq!(buffer(&review), replaced);
}

#[test]
fn a_save_leaves_out_a_hunk_accepted_over_a_pending_ones_words() {
    let limits = HunkLimits::default();
    let mut review = Review::new();
    let base = "Links: [[Alpha 1]] and [[Beta]].\n";
    stage(&mut review, "job_1", base, "Links: [[Gamma]] and [[Beta]].\n", &limits, 1);
    let over = "Links: [[Gamma 4]] and [[Beta]].\n";
    let first = buffer(&review);
    stage(&mut review, "job_2", &first, over, &limits, 2);
    let file = review.file("f.md").unwrap();
    let (under, top) = (0, file.entries().len() - 1);
    assert!(file.depends_on(top).any(|d| d == under), "written on the first");
    // Accepted over words still pending (a link update a move staged over
    // a pending retarget): the buffer shows both, the disk neither.
    let file = review.file_mut("f.md").unwrap();
    file.set_statuses(&[(top, Status::Accepted)]);
    assert_eq!(buffer(&review), over);
    assert_eq!(disk(&review), base);
    let file = review.file_mut("f.md").unwrap();
    file.set_statuses(&[(under, Status::Accepted)]);
    assert_eq!(disk(&review), over);
}

#[test]
fn a_link_update_set_aside_stays_on_disk_until_its_replacement_counts_there() {
    let limits = HunkLimits::default();
    let mut review = Review::new();
    // The move the updates follow, in another note: accepted, so on disk.
    let moved = [proposal("g.md", "Delta\n", "Delta, moved\n")];
    let bundle = bundle_from(&moved, &limits, 100);
    review.stage("job_0", &moved, &bundle).unwrap();
    let leader = "h_100".to_owned();
    // The move's status alone, as a rollback may leave it: deciding it
    // would carry its updates too.
    let set_move = |review: &mut Review, status: Status| {
        review.file_mut("g.md").unwrap().set_statuses(&[(0, status)]);
    };
    set_move(&mut review, Status::Accepted);

    let base = "Links: [[Delta]].\n";
    let converted = "Links: [Delta](Delta.md).\n";
    let convert = stage(&mut review, "job_1", base, converted, &limits, 1);
    review.decide(&convert[0], Status::Rejected, None).unwrap();
    let saved = "Links: [[Delta 2]].\n";
    let first = stage(&mut review, "job_2", base, saved, &limits, 2);
    review.follow(&leader, &first, TieKind::Update);
    review.decide(&first[0], Status::Accepted, None).unwrap();
    assert_eq!(disk(&review), saved);

    // The conversion comes back (an undo): it sets the update aside, and
    // the link follows the move in an update written on it.
    review.decide(&convert[0], Status::Pending, None).unwrap();
    assert_eq!(statuses(&review)[1], Status::Rejected, "set aside");
    let followed = "Links: [Delta](Delta%202.md).\n";
    let second = stage(&mut review, "job_2", converted, followed, &limits, 3);
    review.follow(&leader, &second, TieKind::Update);
    // Counting as its move counts, as the link rule stages it.
    let set = |review: &mut Review, status: Status| {
        let file = review.file_mut("f.md").unwrap();
        let top = file.entries().len() - 1;
        file.set_statuses(&[(top, status)]);
    };
    set(&mut review, Status::Accepted);
    assert_eq!(buffer(&review), followed);
    assert_eq!(disk(&review), saved, "the update set aside stays on disk");

    // Rejecting the replacement by name leaves the link, on disk too.
    review.decide(&second[0], Status::Rejected, None).unwrap();
    assert_eq!(disk(&review), base);
    set(&mut review, Status::Accepted);
    assert_eq!(disk(&review), saved);
    // With the move off the disk, no update of it is.
    set_move(&mut review, Status::Pending);
    set(&mut review, Status::Pending);
    assert_eq!(buffer(&review), followed);
    assert_eq!(disk(&review), base);
    set_move(&mut review, Status::Accepted);
    set(&mut review, Status::Accepted);
    assert_eq!(disk(&review), saved);
    // The replacement reaches the disk with the conversion: it replaces
    // the update set aside there.
    review.decide(&convert[0], Status::Accepted, None).unwrap();
    assert_eq!(disk(&review), followed);
}
