//! The peer: the real `rg`, run with the flags that give it the project's file
//! rules, for the agreement tests and the search benchmark.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use redline::tools::search;

/// Whether `rg` is installed. When it is not, a note is printed, and with
/// `REDLINE_REQUIRE_RG=1` (set by the test command) this panics instead.
pub fn available() -> bool {
    let found = Command::new("rg")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("REDLINE_REQUIRE_RG").is_none(),
            "rg is required but not installed"
        );
        eprintln!("note: rg is not installed; skipping the comparison with it");
    }
    found
}

/// `rg` with the project's file rules (see `Project::walk_builder`): ignore
/// files apply without a repository, and nothing from above the root or the
/// user's global configuration does.
pub fn command(root: &Path, query: &search::Query<'_>) -> Command {
    let mut cmd = Command::new("rg");
    cmd.current_dir(root).args([
        "--no-config",
        "--no-require-git",
        "--no-ignore-parent",
        "--no-ignore-global",
        "--color",
        "never",
    ]);
    if !query.regex {
        cmd.arg("--fixed-strings");
    }
    cmd.arg(match query.case_sensitive {
        None => "--smart-case",
        Some(true) => "--case-sensitive",
        Some(false) => "--ignore-case",
    });
    if let Some(glob) = query.glob {
        cmd.args(["--glob", glob]);
    }
    cmd
}

/// Every matching line rg reports, as (path, line number).
pub fn lines(root: &Path, query: &search::Query<'_>) -> BTreeSet<(String, u64)> {
    let out = command(root, query)
        .args([
            "--line-number",
            "--with-filename",
            "--no-heading",
            "--null",
            "-e",
            query.pattern,
            ".",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.code().unwrap() <= 1,
        "rg failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|line| {
            let nul = line.iter().position(|&b| b == 0).unwrap();
            let path = std::str::from_utf8(&line[..nul]).unwrap();
            let rest = &line[nul + 1..];
            let colon = rest.iter().position(|&b| b == b':').unwrap();
            let n = std::str::from_utf8(&rest[..colon])
                .unwrap()
                .parse()
                .unwrap();
            (path.trim_start_matches("./").to_owned(), n)
        })
        .collect()
}

/// The number of matching lines, summed over `rg --count`.
pub fn count(root: &Path, query: &search::Query<'_>) -> u64 {
    let out = command(root, query)
        .args(["--count", "--null", "-e", query.pattern, "."])
        .output()
        .unwrap();
    out.stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            let nul = l.iter().position(|&b| b == 0).unwrap();
            std::str::from_utf8(&l[nul + 1..])
                .unwrap()
                .parse::<u64>()
                .unwrap()
        })
        .sum()
}

/// Redline's matching lines, in the same shape as [`lines`].
pub fn ours(
    project: &redline::project::Project,
    query: &search::Query<'_>,
) -> BTreeSet<(String, u64)> {
    search::find_matches(project, query)
        .unwrap()
        .into_iter()
        .flat_map(|f| f.lines.into_iter().map(move |n| (f.path.clone(), n)))
        .collect()
}

/// Queries of every kind: literal, smart case, forced case, regex, non-ASCII, glob.
pub fn queries() -> Vec<search::Query<'static>> {
    let q = |pattern, regex, case_sensitive, glob| search::Query {
        pattern,
        regex,
        case_sensitive,
        glob,
    };
    vec![
        q("project", false, None, None),
        q("zanzibar", false, None, None),
        q("Project", false, None, None),
        q("REVIEW", false, Some(false), None),
        q("review", false, Some(true), None),
        q("[[", false, None, None),
        q("Straße", false, None, None),
        q("مرحبا", false, None, None),
        q("日本語", false, None, None),
        q(r"\[\[[A-Z][a-z]+ [A-Z][a-z]+ \d+\]\]", true, None, None),
        q(r"^- \[x\] ", true, None, None),
        q(r"(budget|invoice)\s+\w+ing\b", true, Some(false), None),
        q(r"^tags: \[.*launch", true, None, None),
        q("meeting", false, None, Some("*.md")),
        // Not `Projects/**`: for rg a `-g` glob overrides ignore rules and would
        // search the ignored `*.tmp` files there; Redline's globs only narrow.
        q("meeting", false, None, Some("Projects/**/*.md")),
    ]
}

/// Asserts both sides found the same lines, showing a few differences if not.
pub fn assert_same(
    ours: &BTreeSet<(String, u64)>,
    theirs: &BTreeSet<(String, u64)>,
    query: &search::Query<'_>,
) {
    if ours != theirs {
        let only_ours: Vec<_> = ours.difference(theirs).take(5).collect();
        let only_rg: Vec<_> = theirs.difference(ours).take(5).collect();
        panic!(
            "{query:?}: redline found {} lines, rg {}; only redline: {only_ours:?}; only rg: {only_rg:?}",
            ours.len(),
            theirs.len()
        );
    }
}
