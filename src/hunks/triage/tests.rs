//! The risk rules, one by one: each flags the damage it is named for and
//! stays quiet on the ordinary change beside it.

use std::collections::BTreeSet;

use super::{JobContext, Rule, assess};
use crate::edits::FileProposal;
use crate::hunks::{DiffBundle, HunkLimits, bundle_from};

/// A file of a proposal: its path, its text before (`None`: created) and after.
type Change<'a> = (&'a str, Option<&'a str>, &'a str);

/// Stages `changes` for a job asked `instruction` that saw `seen`, in a
/// project that also holds `others`; returns the bundle.
fn triaged(
    instruction: &str,
    seen: Option<&[&str]>,
    changes: &[Change<'_>],
    others: &[&str],
) -> DiffBundle {
    answered((instruction, &[]), seen, changes, others)
}

/// [`triaged`], the user having answered the job's questions with `answers`.
fn answered(
    (instruction, answers): (&str, &[String]),
    seen: Option<&[&str]>,
    changes: &[Change<'_>],
    others: &[&str],
) -> DiffBundle {
    let proposals: Vec<FileProposal> = changes
        .iter()
        .map(|(path, base, proposed)| FileProposal {
            file_path: (*path).to_owned(),
            created: base.is_none(),
            base: base.unwrap_or_default().to_owned(),
            base_file_hash: None,
            proposed: (*proposed).to_owned(),
            edits: Vec::new(),
        })
        .collect();
    let mut bundle = bundle_from(&proposals, &HunkLimits::default(), 1);
    let seen: Option<BTreeSet<String>> = seen.map(|s| s.iter().map(|p| (*p).to_owned()).collect());
    let job = JobContext {
        instruction,
        answers,
        seen: seen.as_ref(),
    };
    let notes = || {
        let mut all: Vec<String> = others.iter().map(|p| (*p).to_owned()).collect();
        all.extend(changes.iter().map(|c| c.0.to_owned()));
        all
    };
    assess(&proposals, &bundle, &job, notes).mark(&mut bundle);
    bundle
}

/// The rules that flagged each hunk, in order.
fn rules(bundle: &DiffBundle) -> Vec<Vec<Rule>> {
    bundle
        .files
        .iter()
        .flat_map(|f| &f.hunks)
        .map(|h| h.flags.iter().map(|f| f.rule).collect())
        .collect()
}

fn note(title: &str, body_lines: usize) -> String {
    let mut text = format!("# {title}\n\n");
    for i in 0..body_lines {
        text.push_str(&format!(
            "Line {i} of {title}: the plan is still on track for the spring.\n"
        ));
    }
    text
}

#[test]
fn an_ordinary_rename_is_not_flagged() {
    let base = note("Atlas", 12);
    let proposed = base.replacen("Line 3 of Atlas", "Line 3 of Meridian", 1);
    let bundle = triaged(
        "Rename Atlas to Meridian",
        Some(&["a.md"]),
        &[("a.md", Some(&base), &proposed)],
        &[],
    );
    assert_eq!(rules(&bundle), vec![Vec::<Rule>::new()]);
}

#[test]
fn deletes_section_flags_a_dropped_section_unless_asked() {
    let base = "# Plan\n\nIntro.\n\n## Risks\n\nBudget.\nPeople.\n\n## Next\n\nShip.\n";
    let proposed = "# Plan\n\nIntro.\n\n## Next\n\nShip.\n";
    let flagged = triaged(
        "Tidy the plan",
        None,
        &[("p.md", Some(base), proposed)],
        &[],
    );
    assert_eq!(rules(&flagged), vec![vec![Rule::DeletesSection]]);
    assert!(
        flagged.files[0].hunks[0].flags[0]
            .reason
            .contains("“Risks”")
    );
    let asked = triaged(
        "Remove the Risks section",
        None,
        &[("p.md", Some(base), proposed)],
        &[],
    );
    assert_eq!(rules(&asked), vec![Vec::<Rule>::new()]);
    // Asked for in the answer to the agent's question, it is asked for.
    let answer = ["Supprimez-la. Remove it".to_owned()];
    let answered_so = answered(
        ("Tidy the plan", &answer),
        None,
        &[("p.md", Some(base), proposed)],
        &[],
    );
    assert_eq!(rules(&answered_so), vec![Vec::<Rule>::new()]);
    // A long paragraph on one line counts by its characters.
    let long = format!("# A\n\n{}\n\nEnd.\n", "word ".repeat(80));
    let flagged = triaged(
        "Fix typos",
        None,
        &[("a.md", Some(&long), "# A\n\n\nEnd.\n")],
        &[],
    );
    assert!(rules(&flagged)[0].contains(&Rule::DeletesSection));
}

#[test]
fn shrinks_note_flags_a_truncated_or_emptied_note() {
    let base = note("Long", 10);
    let cut: String = base.lines().take(5).map(|l| format!("{l}\n")).collect();
    let flagged = triaged("Edit it", None, &[("l.md", Some(&base), &cut)], &[]);
    assert!(
        rules(&flagged)[0].contains(&Rule::ShrinksNote),
        "{:?}",
        rules(&flagged)
    );
    let emptied = triaged("Edit it", None, &[("l.md", Some(&base), "")], &[]);
    assert!(
        emptied.files[0].hunks[0]
            .flags
            .iter()
            .any(|f| f.reason == "empties the note")
    );
}

#[test]
fn front_matter_flags_yaml_that_no_longer_parses_or_a_dropped_key() {
    let base = "---\ntitle: Atlas\ntags: [project]\nstatus: draft\n---\nBody.\n";
    let broken = "---\ntitle: \"Atlas\ntags: [project]\nstatus: draft\n---\nBody.\n";
    let dropped = "---\ntitle: Atlas\nstatus: draft\n---\nBody.\n";
    let added = "---\ntitle: Atlas\ntags: [project]\nstatus: draft\nowner: Ana\n---\nBody.\n";
    let of = |proposed| {
        rules(&triaged(
            "Retitle",
            None,
            &[("a.md", Some(base), proposed)],
            &[],
        ))
    };
    assert_eq!(of(broken), vec![vec![Rule::FrontMatter]]);
    assert_eq!(of(dropped), vec![vec![Rule::FrontMatter]]);
    assert_eq!(of(added), vec![Vec::<Rule>::new()]);
}

#[test]
fn dead_link_flags_a_link_to_no_note() {
    let base = "See the plan.\n";
    let of = |proposed: &str| {
        rules(&triaged(
            "Link it",
            None,
            &[("Notes/a.md", Some(base), proposed)],
            &["Projects/Atlas.md", "img/chart.png"],
        ))
    };
    assert_eq!(
        of("See [[Atlas|the plan]] and ![[chart.png]].\n"),
        vec![Vec::<Rule>::new()]
    );
    assert_eq!(
        of("See [[Projects/Atlas#Goals]].\n"),
        vec![Vec::<Rule>::new()]
    );
    assert_eq!(
        of("See [the plan](../Projects/Atlas.md).\n"),
        vec![Vec::<Rule>::new()]
    );
    assert_eq!(of("See [[Meridian]].\n"), vec![vec![Rule::DeadLink]]);
    assert_eq!(
        of("See [the plan](Atlas%20Plan.md).\n"),
        vec![vec![Rule::DeadLink]]
    );
    // Links in inline code are not links, a link to a heading of the note
    // itself names no file, and a name two notes share is ambiguous, not
    // dead (the link engine's rules).
    assert_eq!(
        of("Write `[[Meridian]]` to link; see [[#The plan]].\n"),
        vec![Vec::<Rule>::new()]
    );
    let shared = rules(&triaged(
        "Link it",
        None,
        &[("Notes/a.md", Some(base), "See [[Plan]].\n")],
        &["Projects/Plan.md", "Archive/Plan.md"],
    ));
    assert_eq!(shared, vec![Vec::<Rule>::new()]);
    // A note the same proposal creates is there.
    let created = triaged(
        "Link it",
        None,
        &[
            ("Meridian.md", None, "# M\n"),
            ("Notes/a.md", Some(base), "See [[Meridian]].\n"),
        ],
        &[],
    );
    assert_eq!(rules(&created), vec![vec![], vec![]]);
}

#[test]
fn code_block_flags_changed_fenced_lines() {
    let base = "Run:\n\n```sh\nmake atlas\n```\n\nAtlas is ready.\n";
    let inside = base.replace("make atlas", "make meridian");
    let outside = base.replace("Atlas is", "Meridian is");
    assert_eq!(
        rules(&triaged(
            "Rename",
            None,
            &[("a.md", Some(base), &inside)],
            &[]
        )),
        vec![vec![Rule::CodeBlock]]
    );
    assert_eq!(
        rules(&triaged(
            "Rename",
            None,
            &[("a.md", Some(base), &outside)],
            &[]
        )),
        vec![Vec::<Rule>::new()]
    );
}

#[test]
fn table_shape_flags_a_row_that_lost_a_cell_or_a_dropped_column() {
    let base =
        "| Name | Role | Team |\n|---|---|---|\n| Ana | Lead | Atlas |\n| Bo | Dev | Atlas |\n";
    let renamed = base.replace("| Ana | Lead | Atlas |", "| Ana | Lead | Meridian |");
    let lost_cell = base.replace("| Ana | Lead | Atlas |", "| Ana | Meridian |");
    let of = |proposed: &str| {
        rules(&triaged(
            "Rename",
            None,
            &[("t.md", Some(base), proposed)],
            &[],
        ))
    };
    assert_eq!(of(&renamed), vec![Vec::<Rule>::new()]);
    assert_eq!(of(&lost_cell), vec![vec![Rule::TableShape]]);
    let two_columns = "| Name | Role |\n|---|---|\n| Ana | Lead |\n| Bo | Dev |\n";
    assert_eq!(of(two_columns), vec![vec![Rule::TableShape]]);
}

#[test]
fn unread_file_flags_a_file_the_job_never_saw() {
    let changes = [
        ("a.md", Some("Atlas\n"), "Meridian\n"),
        ("b.md", Some("Atlas\n"), "Meridian\n"),
    ];
    assert_eq!(
        rules(&triaged("Rename", Some(&["a.md"]), &changes, &[])),
        vec![vec![], vec![Rule::UnreadFile]]
    );
    assert_eq!(
        rules(&triaged("Rename", None, &changes, &[])),
        vec![vec![], vec![]]
    );
}

#[test]
fn whole_file_flags_a_rewrite() {
    let base = note("Atlas", 10);
    let rewritten: String = base
        .lines()
        .map(|l| format!("{} (revised)\n", l.to_uppercase()))
        .collect();
    let flagged = rules(&triaged(
        "Polish",
        None,
        &[("a.md", Some(&base), &rewritten)],
        &[],
    ));
    assert_eq!(flagged, vec![vec![Rule::WholeFile]]);
}

#[test]
fn breaks_pattern_flags_the_one_hunk_that_differs() {
    let bases: Vec<String> = (0..12)
        .map(|i| format!("# Note {i}\n\nSee [[Atlas]] soon.\n"))
        .collect();
    let mut proposed: Vec<String> = bases
        .iter()
        .map(|b| b.replace("[[Atlas]]", "[[Meridian]]"))
        .collect();
    proposed[7] = bases[7].replace("[[Atlas]]", "[[Atlas]] and [[Meridian]]");
    let paths: Vec<String> = (0..12).map(|i| format!("n{i:02}.md")).collect();
    let changes: Vec<Change<'_>> = (0..12)
        .map(|i| {
            (
                paths[i].as_str(),
                Some(bases[i].as_str()),
                proposed[i].as_str(),
            )
        })
        .collect();
    let bundle = triaged(
        "Rename Atlas to Meridian",
        None,
        &changes,
        &["Meridian.md", "Atlas.md"],
    );
    let flagged: Vec<usize> = rules(&bundle)
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.is_empty())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(flagged, vec![7]);
    assert_eq!(rules(&bundle)[7], vec![Rule::BreaksPattern]);
    assert_eq!(bundle.patterns.len(), 1);
    assert_eq!(
        (bundle.patterns[0].hunks, bundle.patterns[0].files),
        (11, 11)
    );
    assert_eq!(bundle.files[0].hunks[0].pattern.as_deref(), Some("p1"));
    assert_eq!(bundle.files[7].hunks[0].pattern, None);
}

#[test]
fn a_risk_every_hunk_of_a_pattern_has_is_raised_once_on_the_pattern() {
    // Five notes renamed to a link that does not exist, and one to a typo:
    // every hunk is a dead link, but the pattern's is said once.
    let before: Vec<String> = (0..6).map(|i| format!("Note {i}: see [[Atlas]].\n")).collect();
    let after: Vec<String> = (0..6)
        .map(|i| format!("Note {i}: see [[{}]].\n", if i == 5 { "Meridain" } else { "Meridian" }))
        .collect();
    let paths: Vec<String> = (0..6).map(|i| format!("n{i}.md")).collect();
    let changes: Vec<Change<'_>> = (0..6)
        .map(|i| (paths[i].as_str(), Some(before[i].as_str()), after[i].as_str()))
        .collect();
    let bundle = triaged("Rename Atlas to Meridian", None, &changes, &["Atlas.md"]);
    let pattern = &bundle.patterns[0];
    assert_eq!(pattern.hunks, 5);
    assert_eq!(pattern.flags.len(), 1, "{:?}", pattern.flags);
    assert_eq!(pattern.flags[0].rule, Rule::DeadLink);
    assert!(pattern.flags[0].reason.starts_with("all 5: "), "{}", pattern.flags[0].reason);
    // The pattern's hunks carry it no more; the one that differs keeps its own.
    let flagged = rules(&bundle);
    assert_eq!(flagged[..5], vec![Vec::<Rule>::new(); 5]);
    assert!(flagged[5].contains(&Rule::DeadLink), "{flagged:?}");
}

#[test]
fn a_flag_says_its_severity_and_whether_it_is_a_risk_also_when_read_back() {
    use super::RiskFlag;
    let dead = RiskFlag::new(Rule::DeadLink, "links nowhere".into());
    let unread = RiskFlag::new(Rule::UnreadFile, "never read".into());
    assert_eq!((dead.severity, dead.risk), (0, true));
    assert!(unread.severity > RiskFlag::new(Rule::BreaksPattern, String::new()).severity);
    assert!(!unread.risk, "an unread file is said once per run");
    // A flag stored before severity was said reads back with it.
    let stored: RiskFlag =
        serde_json::from_str(r#"{"rule":"table_shape","reason":"a column less"}"#).unwrap();
    assert_eq!(stored, RiskFlag::new(Rule::TableShape, "a column less".into()));
    let sent = serde_json::to_value(&stored).unwrap();
    assert_eq!((sent["severity"].as_u64(), sent["risk"].as_bool()), (Some(Rule::TableShape as u64), Some(true)));
}
