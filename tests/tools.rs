//! The tools on the demo vault, and search agreement with the real `rg`.

#[path = "support/rg.rs"]
mod rg;

use std::path::{Path, PathBuf};
use std::process::Command;

use redline::config::Limits;
use redline::project::Project;
use redline::testkit::vaultgen::{self, VaultSpec};
use redline::tools;
use serde_json::{Value, json};

fn demo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vaults/demo")
}

fn demo() -> Project {
    Project::open(demo_root(), Limits::default()).unwrap()
}

fn ok(project: &Project, tool: &str, args: Value) -> Value {
    tools::run(project, tool, args.clone()).unwrap_or_else(|e| panic!("{tool} {args}: {e}"))
}

fn err_code(project: &Project, tool: &str, args: Value) -> (String, String) {
    match tools::run(project, tool, args.clone()) {
        Ok(v) => panic!("{tool} {args} should fail, got {v}"),
        Err(e) => (e.code().to_owned(), e.to_string()),
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn list_files_is_sorted_and_skips_hidden_and_ignored() {
    let project = demo();
    let out = ok(&project, "list_files", json!({}));
    assert_eq!(
        strings(&out["files"]),
        [
            "Journal/2026-11-20.md",
            "Meetings/2026-11-02 Weekly Sync.md",
            "Meetings/2026-11-09 Weekly Sync.md",
            "People/Ana Souza.md",
            "Projects/Q3 Launch Plan.md",
            "Projects/Website Redesign.md",
            "Reference/Style Guide.md",
            "Welcome.md",
            "attachments/diagram.png",
        ]
    );
    assert_eq!(out["total"], 9);
    assert!(out.get("next_offset").is_none());

    let page = ok(
        &project,
        "list_files",
        json!({"prefix": "Meetings/", "glob": "*.md", "limit": 1, "offset": 1}),
    );
    assert_eq!(
        strings(&page["files"]),
        ["Meetings/2026-11-09 Weekly Sync.md"]
    );
    assert_eq!(page["total"], 2);
    assert!(page.get("next_offset").is_none());
    let first = ok(
        &project,
        "list_files",
        json!({"glob": "**/*.md", "limit": 3}),
    );
    assert_eq!(first["total"], 8);
    assert_eq!(first["next_offset"], 3);
    let under = ok(
        &project,
        "list_files",
        json!({"prefix": "./Projects/../Projects"}),
    );
    assert_eq!(under["total"], 2);
    assert_eq!(
        err_code(&project, "list_files", json!({"prefix": "Welcome.md"})).0,
        "not_a_directory"
    );
    assert_eq!(
        err_code(&project, "list_files", json!({"prefix": "Nope"})).0,
        "not_found"
    );
}

fn sha256sum(path: &Path) -> String {
    let out = Command::new("sha256sum")
        .arg(path)
        .output()
        .expect("sha256sum runs");
    format!(
        "sha256:{}",
        String::from_utf8(out.stdout)
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
    )
}

#[test]
fn read_file_numbers_lines_and_hashes_the_whole_file() {
    let project = demo();
    let out = ok(
        &project,
        "read_file",
        json!({"file_path": "Welcome.md", "start_line": 6, "end_line": 7}),
    );
    assert_eq!(out["file_hash"], sha256sum(&demo_root().join("Welcome.md")));
    assert_eq!(out["content"], "6\t# Welcome to the demo vault\n7\t\n");
    assert_eq!(
        (out["start_line"].as_u64(), out["end_line"].as_u64()),
        (Some(6), Some(7))
    );
    assert_eq!(out["total_lines"], 15);
    assert_eq!(out["truncated"], false);
    assert!(out.get("next_start_line").is_none());

    // CRLF: terminators are not part of the lines, and the hash covers the raw bytes.
    let crlf = "Meetings/2026-11-09 Weekly Sync.md";
    let out = ok(&project, "read_file", json!({"file_path": crlf}));
    assert!(!out["content"].as_str().unwrap().contains('\r'));
    assert_eq!(out["file_hash"], sha256sum(&demo_root().join(crlf)));
    assert_eq!(out["total_lines"], 16);

    // No final newline: the last line still counts once.
    let out = ok(
        &project,
        "read_file",
        json!({"file_path": "Journal/2026-11-20.md"}),
    );
    assert_eq!(out["total_lines"], 4);
    assert!(
        out["content"]
            .as_str()
            .unwrap()
            .ends_with("4\tabout the page weight numbers before the sync.\n")
    );
}

#[test]
fn read_file_pages_reassemble_the_file() {
    let project = demo();
    let path = demo_root().join("Projects/Website Redesign.md");
    let original = std::fs::read_to_string(&path).unwrap();
    let mut lines = Vec::new();
    let mut start = 1;
    let mut calls = 0;
    loop {
        let out = ok(
            &project,
            "read_file",
            json!({"file_path": "Projects/Website Redesign.md", "start_line": start, "max_bytes": 80}),
        );
        calls += 1;
        for line in out["content"].as_str().unwrap().lines() {
            let (n, text) = line.split_once('\t').unwrap();
            assert_eq!(n.trim().parse::<usize>().unwrap(), lines.len() + 1);
            lines.push(text.to_owned());
        }
        match out.get("next_start_line") {
            Some(next) => {
                assert_eq!(out["truncated"], true);
                assert!(
                    out["notice"]
                        .as_str()
                        .unwrap()
                        .contains(&format!("start_line={next}"))
                );
                start = next.as_u64().unwrap() as usize;
            }
            None => break,
        }
    }
    assert!(calls > 3, "an 80-byte budget takes several pages");
    assert_eq!(lines, original.lines().collect::<Vec<_>>());
}

#[test]
fn read_file_limits_and_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (1..=1000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(dir.path().join("long.md"), &body).unwrap();
    std::fs::write(
        dir.path().join("wide.md"),
        format!("{}\nshort\n", "é".repeat(100)),
    )
    .unwrap();
    std::fs::write(dir.path().join("empty.md"), "").unwrap();
    let project = Project::open(dir.path(), Limits::default()).unwrap();

    let out = ok(&project, "read_file", json!({"file_path": "long.md"}));
    assert_eq!(
        (out["end_line"].as_u64(), out["next_start_line"].as_u64()),
        (Some(800), Some(801))
    );
    assert_eq!(out["truncated"], true);
    let out = ok(
        &project,
        "read_file",
        json!({"file_path": "long.md", "start_line": 990, "end_line": 5000}),
    );
    assert_eq!(
        (out["end_line"].as_u64(), out["truncated"].as_bool()),
        (Some(1000), Some(false))
    );

    // A line longer than the budget is shown cut, on a character boundary.
    let out = ok(
        &project,
        "read_file",
        json!({"file_path": "wide.md", "max_bytes": 11}),
    );
    assert_eq!(out["end_line"], 1);
    assert!(out["content"].as_str().unwrap().starts_with("1\tééééé…"));
    assert_eq!(out["next_start_line"], 2);

    let out = ok(&project, "read_file", json!({"file_path": "empty.md"}));
    assert_eq!(
        (out["total_lines"].as_u64(), out["end_line"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(out["content"], "");

    let (code, msg) = err_code(
        &project,
        "read_file",
        json!({"file_path": "long.md", "start_line": 1001}),
    );
    assert_eq!(code, "out_of_range");
    assert!(msg.contains("1000 lines"), "{msg}");
    assert_eq!(
        err_code(
            &project,
            "read_file",
            json!({"file_path": "long.md", "start_line": 5, "end_line": 4})
        )
        .0,
        "out_of_range"
    );
}

#[test]
fn arguments_are_validated_against_the_schema() {
    let project = demo();
    let cases = [
        ("read_file", json!({"file_path": 3}), "/file_path"),
        ("read_file", json!({}), "file_path"),
        (
            "read_file",
            json!({"file_path": "Welcome.md", "start_line": 0}),
            "/start_line",
        ),
        (
            "read_file",
            json!({"file_path": "Welcome.md", "bogus": true}),
            "bogus",
        ),
        ("search_project", json!({"query": ""}), "/query"),
        (
            "search_project",
            json!({"query": "x", "limit": 0}),
            "/limit",
        ),
        (
            "search_project",
            json!({"query": "x", "regex": "yes"}),
            "/regex",
        ),
        ("list_files", json!({"offset": -1}), "/offset"),
        ("list_files", json!([]), "object"),
    ];
    for (tool, args, mention) in cases {
        let (code, message) = err_code(&project, tool, args.clone());
        assert_eq!(code, "invalid_arguments", "{tool} {args}");
        assert!(message.contains(mention), "{tool} {args}: {message}");
    }
    let (code, message) = err_code(&project, "delete_everything", json!({}));
    assert_eq!(code, "unknown_tool");
    assert!(
        message.contains("search_project, read_file, list_files"),
        "{message}"
    );
}

#[test]
fn search_is_literal_smart_case_and_paged() {
    let project = demo();
    let lower = ok(&project, "search_project", json!({"query": "atlas"}));
    let upper = ok(&project, "search_project", json!({"query": "ATLAS"}));
    let forced = ok(
        &project,
        "search_project",
        json!({"query": "ATLAS", "case_sensitive": false}),
    );
    assert_eq!(upper["total"], 1, "capitals make the search exact: {upper}");
    assert_eq!(upper["results"][0]["file_path"], "Reference/Style Guide.md");
    assert_eq!(lower["total"], forced["total"]);
    assert_eq!(
        (lower["total"].as_u64(), lower["total_files"].as_u64()),
        (Some(7), Some(7))
    );

    // Literal by default: regex metacharacters are text.
    let literal = ok(
        &project,
        "search_project",
        json!({"query": "[[Style Guide]]"}),
    );
    assert_eq!(literal["total"], 2);
    let regex = ok(
        &project,
        "search_project",
        json!({"query": "^- [A-Z][a-z]+: ", "regex": true}),
    );
    assert_eq!(regex["total"], 5, "`Chloé` is not [a-z]+: {regex}");

    // Paging walks every match exactly once, in path then line order.
    let mut seen = Vec::new();
    let mut offset = 0;
    loop {
        let page = ok(
            &project,
            "search_project",
            json!({"query": "a", "limit": 7, "offset": offset, "context_lines": 0}),
        );
        for snippet in page["results"].as_array().unwrap() {
            for line in snippet["match_lines"].as_array().unwrap() {
                seen.push((
                    snippet["file_path"].as_str().unwrap().to_owned(),
                    line.as_u64().unwrap(),
                ));
            }
        }
        match page.get("next_offset") {
            Some(next) => offset = next.as_u64().unwrap(),
            None => break,
        }
    }
    let total = ok(&project, "search_project", json!({"query": "a"}))["total"]
        .as_u64()
        .unwrap();
    assert_eq!(seen.len() as u64, total);
    let mut sorted = seen.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(seen, sorted);

    let globbed = ok(
        &project,
        "search_project",
        json!({"query": "Atlas", "glob": "Meetings/*.md"}),
    );
    assert!(
        globbed["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["file_path"].as_str().unwrap().starts_with("Meetings/"))
    );
    assert_eq!(globbed["total"], 2);
    // A glob narrows the search; unlike `rg -g`, it never reaches ignored files.
    let ignored = ok(
        &project,
        "search_project",
        json!({"query": "Atlas", "glob": "exports/*.md"}),
    );
    assert_eq!(ignored["total"], 0);
    let none = ok(
        &project,
        "search_project",
        json!({"query": "never appears anywhere"}),
    );
    assert_eq!(
        (none["total"].as_u64(), none["notice"].as_str()),
        (Some(0), Some("No matches."))
    );
}

#[test]
fn search_agrees_with_rg_on_generated_vaults() {
    if !rg::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let summary = vaultgen::generate(
        dir.path(),
        &VaultSpec {
            notes: 600,
            seed: 3,
        },
    )
    .unwrap();
    assert!(
        summary.binaries > 0 && summary.crlf > 0 && summary.excluded > 0,
        "{summary:?}"
    );
    // Walking the folder, and through a filled index; and through an index
    // whose budget holds only part of the text (the rest read from disk).
    let walked = Project::open(dir.path(), Limits::default()).unwrap();
    let indexed = walked.clone().with_index();
    indexed.index().unwrap().fill(&indexed);
    let tight = Project::open(
        dir.path(),
        Limits {
            max_index_text_bytes: summary.bytes / 3,
            ..Limits::default()
        },
    )
    .unwrap()
    .with_index();
    tight.index().unwrap().fill(&tight);
    let stats = tight.index().unwrap().stats();
    assert!(
        stats.ready && stats.text_bytes <= summary.bytes / 3,
        "{stats:?}"
    );
    assert!(
        stats.text_files > 0 && stats.text_files < stats.files,
        "{stats:?}"
    );
    for (project, query) in [&walked, &indexed, &tight]
        .into_iter()
        .flat_map(|p| rg::queries().into_iter().map(move |q| (p, q)))
    {
        let ours = rg::ours(project, &query);
        let theirs = rg::lines(dir.path(), &query);
        rg::assert_same(&ours, &theirs, &query);
        // The tool's total is rg's count of matching lines.
        let args = json!({
            "query": query.pattern, "regex": query.regex,
            "case_sensitive": query.case_sensitive, "glob": query.glob,
        });
        let tool = ok(project, "search_project", args);
        assert_eq!(
            tool["total"].as_u64().unwrap(),
            rg::count(dir.path(), &query),
            "{query:?}"
        );
        assert_eq!(tool["total"].as_u64().unwrap(), ours.len() as u64);
        if query.pattern != "zanzibar" {
            assert!(
                !ours.is_empty(),
                "{query:?} should match something in a 600-note vault"
            );
        }
    }
}

#[test]
fn matches_in_a_file_that_is_not_utf8_say_so_instead_of_showing_mojibake() {
    let dir = tempfile::tempdir().unwrap();
    // Latin-1: `é` is the single byte 0xE9.
    std::fs::write(dir.path().join("latin1.txt"), b"caf\xe9 budget\nline two\n").unwrap();
    std::fs::write(dir.path().join("utf8.md"), "café budget\n").unwrap();
    let project = Project::open(dir.path(), Limits::default()).unwrap();
    let found = ok(&project, "search_project", json!({ "query": "budget" }));
    let results = found["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{found}");
    let latin = &results[0];
    assert_eq!(latin["file_path"], "latin1.txt");
    assert_eq!(latin["readable"], false);
    assert_eq!(latin["match_lines"], json!([1]));
    let shown = latin["snippet"].as_str().unwrap();
    assert!(
        shown.contains("not UTF-8") && !shown.contains('\u{fffd}'),
        "{shown}"
    );
    let utf8 = &results[1];
    assert!(
        utf8.get("readable").is_none(),
        "readable files say nothing: {utf8}"
    );
    assert_eq!(utf8["snippet"], "1:café budget");
}

#[test]
fn links_lists_a_notes_links_both_ways_as_the_working_state_has_them() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "Projects/Website Redesign.md",
            "# Website Redesign\n\nSee [[Atlas]], [[Plan]] and [[Nowhere]].\n",
        ),
        ("Projects/Atlas.md", "# Atlas\n"),
        ("A/Plan.md", "# Plan A\n"),
        ("B/Plan.md", "# Plan B\n"),
        (
            "Daily/Monday.md",
            "Worked on [[Website Redesign#Goals|the site]].\n\
             Also ![[Website Redesign]] and [notes](../Projects/Website%20Redesign.md).\n\
             Not a link: `[[Website Redesign]]`.\n",
        ),
        (
            "Daily/Tuesday.md",
            "---\nrelated: \"[[Projects/Website Redesign]]\"\n---\nNothing else.\n",
        ),
        ("Daily/Wednesday.md", "The website redesign is done.\n"),
    ];
    for (path, text) in files {
        std::fs::create_dir_all(dir.path().join(path).parent().unwrap()).unwrap();
        std::fs::write(dir.path().join(path), text).unwrap();
    }
    let project = Project::open(dir.path(), Limits::default()).unwrap();
    let out = ok(
        &project,
        "links",
        json!({ "file_path": "Projects/Website Redesign.md" }),
    );
    let outgoing: Vec<(u64, &str, &str, Option<&str>)> = out["outgoing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["line"].as_u64().unwrap(),
                l["text"].as_str().unwrap(),
                l["status"].as_str().unwrap(),
                l["target"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        outgoing,
        [
            (3, "[[Atlas]]", "resolves", Some("Projects/Atlas.md")),
            (3, "[[Plan]]", "ambiguous", None),
            (3, "[[Nowhere]]", "dangling", None),
        ]
    );
    let backlinks: Vec<(&str, u64, &str)> = out["backlinks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["file_path"].as_str().unwrap(),
                l["line"].as_u64().unwrap(),
                l["text"].as_str().unwrap(),
            )
        })
        .collect();
    // The link in inline code and the mention in prose are not links.
    assert_eq!(
        backlinks,
        [
            ("Daily/Monday.md", 1, "[[Website Redesign#Goals|the site]]"),
            ("Daily/Monday.md", 2, "![[Website Redesign]]"),
            (
                "Daily/Monday.md",
                2,
                "[notes](../Projects/Website%20Redesign.md)"
            ),
            ("Daily/Tuesday.md", 2, "[[Projects/Website Redesign]]"),
        ]
    );
    assert_eq!(out["total_backlinks"], 4);

    // Paged; and a pending change (the working state) is what counts.
    let page = ok(
        &project,
        "links",
        json!({ "file_path": "Projects/Website Redesign.md", "limit": 3, "offset": 3 }),
    );
    assert_eq!(page["backlinks"].as_array().unwrap().len(), 1);
    assert!(page.get("next_offset").is_none());
    let mut overlay = redline::project::Overlay::new();
    overlay.insert(
        "Daily/Wednesday.md",
        Some("The [[website redesign]] is done.\n".into()),
    );
    let view = redline::project::View::with(&project, &overlay);
    let pending = tools::run(
        view,
        "links",
        json!({ "file_path": "Projects/Website Redesign.md" }),
    )
    .unwrap();
    assert_eq!(pending["total_backlinks"], 5);
    assert_eq!(pending["backlinks"][4]["file_path"], "Daily/Wednesday.md");

    // An attachment has backlinks and no links; a missing note is refused.
    assert_eq!(
        err_code(
            &project,
            "links",
            json!({ "file_path": "Projects/Gone.md" })
        )
        .0,
        "not_found"
    );
    assert_eq!(
        err_code(&project, "links", json!({ "file_path": "../x.md" })).0,
        "escapes_root"
    );
}
