//! Logs of the line-region review (schema version 3) move to pieces with
//! their buffer, statuses and disk view intact.

use proptest::prelude::*;

use super::super::legacy::{LegacyEntry, LegacyFile};
use super::*;

fn entry(id: usize, origin: Origin, hunk: Option<String>) -> LegacyEntry {
    LegacyEntry {
        id: format!("c_{id}"),
        origin,
        job_id: hunk.as_ref().map(|_| "job".to_owned()),
        hunk_id: hunk,
        status: if origin == Origin::User {
            Status::Accepted
        } else {
            Status::Pending
        },
        old: Vec::new(),
        new: Vec::new(),
        file_hash_before: String::new(),
        at: 0,
        len: 0,
        covers: Vec::new(),
    }
}

/// Changes `old` into `new` in the old log as that log recorded them: one
/// entry per changed block, bottom-up.
fn record(file: &mut LegacyFile, new: &str, origin: Origin, next: &mut usize) {
    let current = file.buffer.to_string();
    let old: Vec<&str> = current.split_inclusive('\n').collect();
    let lines: Vec<&str> = new.split_inclusive('\n').collect();
    let ops = similar::capture_diff_slices(Algorithm::Myers, &old, &lines);
    let blocks: Vec<_> = ops
        .iter()
        .filter(|op| !matches!(op, DiffOp::Equal { .. }))
        .map(|op| {
            let (_, o, n) = op.as_tag_tuple();
            (o, n)
        })
        .collect();
    for (o, n) in blocks.into_iter().rev() {
        *next += 1;
        let hunk = (origin == Origin::Agent).then(|| format!("h_{next}"));
        let new_lines = lines[n].iter().map(|l| (*l).to_owned()).collect();
        file.record(o.start, o.len(), new_lines, entry(*next, origin, hunk));
    }
}

/// What the old log saved: its pending hunks taken out, latest first;
/// `None` where it refused.
fn old_disk_view(file: &LegacyFile) -> Option<String> {
    let mut copy = file.clone();
    for i in (0..copy.entries.len()).rev() {
        if copy.entries[i].origin == Origin::Agent && copy.entries[i].status == Status::Pending {
            copy.set_status(i, Status::Rejected).ok()?;
        }
    }
    Some(copy.buffer.to_string())
}

fn migrated(file: &LegacyFile) -> FileReview {
    file.clone()
        .migrate("f.md".into(), String::new(), None, false)
        .expect("moves to pieces")
}

#[test]
fn a_stacked_log_with_typing_inside_a_hunk_moves_whole() {
    let mut file = LegacyFile {
        buffer: ropey::Rope::from_str("a\nb\nc\n"),
        entries: Vec::new(),
        order: Vec::new(),
    };
    let mut next = 0;
    record(&mut file, "a\nBravo\nc\nd\n", Origin::Agent, &mut next);
    record(&mut file, "a\nBra-vo\nc\nd\n", Origin::User, &mut next);
    record(&mut file, "x\na\nBra-vo\nc\nD\n", Origin::Agent, &mut next);
    assert!(
        old_disk_view(&file).is_none(),
        "the old log refused to save it"
    );
    let mut review = Review::new();
    review.insert_file(migrated(&file));
    assert_eq!(buffer(&review), "x\na\nBra-vo\nc\nD\n");
    // Every hunk decidable; the one typed inside takes the typing along.
    for hunk in ["h_1", "h_2", "h_4", "h_5"] {
        review.decide(hunk, Status::Rejected, None).unwrap();
    }
    assert_eq!(buffer(&review), "a\nb\nc\n");
}

proptest! {
    #![proptest_config(config(500))]

    /// Any log the old review could make — stacked jobs, the user's edits,
    /// decisions it allowed — moves with its buffer, statuses and (where it
    /// had one) disk view unchanged.
    #[test]
    fn old_logs_move_with_nothing_changed(
        (base, first) in arb_pair(), two in arb_ops(), user in any::<bool>(),
        decisions in proptest::collection::vec((any::<proptest::sample::Index>(), 0u8..3), 0..12),
    ) {
        let mut file = LegacyFile { buffer: ropey::Rope::from_str(&base), entries: Vec::new(), order: Vec::new() };
        let mut next = 0;
        record(&mut file, &first, Origin::Agent, &mut next);
        if user {
            let now = file.buffer.to_string();
            record(&mut file, &format!("@user@\n{now}"), Origin::User, &mut next);
        }
        let now = file.buffer.to_string();
        record(&mut file, &derive(&now, &two), Origin::Agent, &mut next);
        if !file.entries.is_empty() {
            for (i, s) in decisions {
                let i = i.index(file.entries.len());
                if file.entries[i].origin == Origin::Agent {
                    let _ = file.set_status(i, status_of(s));
                }
            }
        }
        let moved = migrated(&file);
        prop_assert_eq!(moved.buffer(), file.buffer.to_string());
        let old: Vec<Status> = file.entries.iter().map(|e| e.status).collect();
        let new: Vec<Status> = moved.entries().iter().map(|e| e.status).collect();
        prop_assert_eq!(old, new);
        // Where the old log let a hunk be accepted over a pending one it
        // rewrote (or rejected under one built on it), the old disk view took
        // the later text out with the earlier; the piece log keeps such
        // decisions whole and never makes them, so only whole ones compare.
        let whole = (0..moved.entries().len()).all(|j| {
            let s = moved.entries()[j].status;
            moved.depends_on(j).all(|k| {
                let t = moved.entries()[k].status;
                (s != Status::Accepted || t == Status::Accepted) && (t != Status::Rejected || s == Status::Rejected)
            })
        });
        if let Some(view) = old_disk_view(&file).filter(|_| whole) {
            prop_assert_eq!(moved.disk_view_with(&|_| false), view);
        }
    }
}

/// A tie stored before ties had kinds (a bare hunk id) reads back with no
/// kind, so the leader's own updates are told by their job, as they were;
/// one stored with its kind keeps it.
#[test]
fn ties_stored_as_bare_ids_read_back_without_a_kind() {
    let old: Entry = serde_json::from_str(
        r#"{"id":"c_2","origin":"agent","job_id":"job_1","hunk_id":"h_2","status":"pending","file_hash_before":"","follows":["h_1"]}"#,
    )
    .unwrap();
    assert_eq!(
        old.follows,
        [Tie {
            leader: "h_1".into(),
            kind: None
        }]
    );
    let new = Entry {
        follows: vec![Tie {
            leader: "h_1".into(),
            kind: Some(TieKind::Needs),
        }],
        ..old
    };
    let text = serde_json::to_string(&new).unwrap();
    assert!(text.contains(r#""kind":"needs""#), "{text}");
    assert_eq!(serde_json::from_str::<Entry>(&text).unwrap(), new);
}
