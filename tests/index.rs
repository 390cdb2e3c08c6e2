//! The project index of a watched project: filled in the background when
//! watching starts, and kept current by the watcher (another program's new
//! file, edit, rename, folder rename and delete are seen by the next search)
//! and by Redline's own writes (seen at once); its answers stay `rg`'s.

#[path = "support/rg.rs"]
mod rg;
#[path = "support/agent.rs"]
mod support;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use redline::providers::Protocol;
use redline::tools::search::{Query, find_matches};
use support::*;

fn query(pattern: &str) -> Query<'_> {
    Query {
        pattern,
        regex: false,
        case_sensitive: None,
        glob: None,
    }
}

/// Polls until `check` holds, for at most 10 s.
async fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !check() {
        assert!(Instant::now() < deadline, "timed out: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_watcher_and_redline_s_own_writes_keep_the_index_current() {
    let h = harness(Protocol::OpenAiChat, vec![], |_| {}).await;
    let project = h.runtime.project().clone();
    let index = project.index().expect("a runtime's project keeps an index");
    assert!(!index.ready(), "nothing fills it before the watcher starts");
    let _watching = redline::watch::start(h.runtime.clone()).unwrap();
    eventually("the index is filled", || index.ready()).await;
    assert_eq!(index.stats().files, 3, "{:?}", index.stats());

    let root = h.vault.path();
    let paths = |word: &str| -> Vec<String> {
        find_matches(&project, &query(word))
            .unwrap()
            .into_iter()
            .map(|f| f.path)
            .collect()
    };
    // Another program: a new file, an edit, a rename, a folder renamed, a delete.
    std::fs::write(root.join("notes/new.md"), "# New\n\nzebracorn sighting\n").unwrap();
    eventually("a new file", || paths("zebracorn") == ["notes/new.md"]).await;
    std::fs::write(root.join("notes/gamma.md"), "# Gamma\n\nzebracorn too\n").unwrap();
    eventually("an edit", || paths("zebracorn").len() == 2).await;
    std::fs::rename(root.join("notes/new.md"), root.join("notes/renamed.md")).unwrap();
    eventually("a rename", || {
        paths("zebracorn") == ["notes/gamma.md", "notes/renamed.md"]
    })
    .await;
    std::fs::rename(root.join("notes"), root.join("archive")).unwrap();
    eventually("a folder renamed", || {
        paths("zebracorn") == ["archive/gamma.md", "archive/renamed.md"]
            && paths("Owner") == ["archive/alpha.md", "archive/beta.md"]
    })
    .await;
    std::fs::remove_file(root.join("archive/renamed.md")).unwrap();
    eventually("a delete", || paths("zebracorn") == ["archive/gamma.md"]).await;
    // A hidden file is not the project's, as for the walk.
    std::fs::write(root.join(".secret.md"), "zebracorn hidden\n").unwrap();

    // Redline's own write: seen by the very next search.
    let text = format!("{ALPHA}quokka\n");
    h.runtime.edit("archive/alpha.md", &text, None).unwrap();
    h.runtime.save("archive/alpha.md").unwrap();
    assert_eq!(paths("quokka"), ["archive/alpha.md"]);

    // And after all that, the same lines as rg.
    tokio::time::sleep(Duration::from_millis(300)).await;
    for word in ["zebracorn", "quokka", "Status", "Owner"] {
        let ours: BTreeSet<_> = find_matches(&project, &query(word))
            .unwrap()
            .into_iter()
            .flat_map(|f| f.lines.into_iter().map(move |n| (f.path.clone(), n)))
            .collect();
        if rg::available() {
            rg::assert_same(&ours, &rg::lines(root, &query(word)), &query(word));
        }
    }
    let stats = index.stats();
    assert_eq!((stats.files, stats.text_files), (3, 3), "{stats:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tree_and_its_folders_read_from_the_index_as_from_the_walk() {
    let h = harness(Protocol::OpenAiChat, vec![], |_| {}).await;
    let root = h.vault.path();
    for (path, text) in [
        ("notes/deep/a.md", "a\n"),
        ("notes/deep/er/b.md", "b\n"),
        ("zeta/c.md", "c\n"),
        ("top.md", "top\n"),
    ] {
        std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
        std::fs::write(root.join(path), text).unwrap();
    }
    let paths = |entries: Vec<redline::workspace::TreeEntry>| -> Vec<String> {
        entries.into_iter().map(|e| e.path).collect()
    };
    let folders = |prefix: &str| {
        let listing = h.runtime.children(prefix).unwrap();
        let folders: Vec<(String, usize)> = listing
            .folders
            .into_iter()
            .map(|f| (f.path, f.files))
            .collect();
        (folders, paths(listing.files), listing.files_under)
    };
    // Walked (nothing fills the index before the watcher starts).
    let walked = paths(h.runtime.tree("", false).unwrap());
    let walked_children = ["", "notes", "notes/deep"].map(folders);
    assert_eq!(
        walked_children[0],
        (
            vec![("notes".to_owned(), 5), ("zeta".to_owned(), 1)],
            vec!["top.md".to_owned()],
            7
        )
    );
    assert_eq!(
        walked_children[2],
        (
            vec![("notes/deep/er".to_owned(), 1)],
            vec!["notes/deep/a.md".to_owned()],
            2
        )
    );

    let _watching = redline::watch::start(h.runtime.clone()).unwrap();
    let index = h.runtime.project().index().unwrap();
    eventually("the index is filled", || index.ready()).await;
    assert_eq!(paths(h.runtime.tree("", false).unwrap()), walked);
    assert_eq!(
        paths(h.runtime.tree("notes/deep", false).unwrap()),
        ["notes/deep/a.md", "notes/deep/er/b.md"]
    );
    assert_eq!(["", "notes", "notes/deep"].map(folders), walked_children);

    // Another program's new folder shows in its parent's listing.
    std::fs::create_dir_all(root.join("new/inner")).unwrap();
    std::fs::write(root.join("new/inner/d.md"), "d\n").unwrap();
    eventually("a new folder listed", || {
        folders("").0.contains(&("new".to_owned(), 1))
    })
    .await;
    // Only the files with a working buffer, when that is all that is asked.
    h.runtime.edit("zeta/c.md", "c, edited\n", None).unwrap();
    assert_eq!(paths(h.runtime.tree("", true).unwrap()), ["zeta/c.md"]);
    let zeta = h.runtime.children("zeta").unwrap();
    assert!(zeta.files[0].state.dirty, "{zeta:?}");
    // A file that is only a buffer is listed in its folder, between the
    // files on disk, and counted in every folder above it.
    h.runtime
        .edit("notes/deep/b.md", "only a buffer\n", None)
        .unwrap();
    let deep = h.runtime.children("notes/deep").unwrap();
    assert_eq!(
        paths(deep.files.clone()),
        ["notes/deep/a.md", "notes/deep/b.md"]
    );
    assert_eq!(
        (deep.files[1].size, deep.files[1].state.under_review),
        (0, true)
    );
    assert_eq!(deep.files_under, 3);
    assert_eq!(folders("").0[0], ("new".to_owned(), 1));
    assert_eq!(folders("").0[1], ("notes".to_owned(), 6));
    // A folder outside the project is refused, as for every path.
    assert!(h.runtime.children("../").is_err());
}
