//! Crash safety: a child process saving a file under review over and over is
//! killed with SIGKILL at random moments, hundreds of times. After each kill
//! the file holds one whole version (never a mix or a truncation), the store
//! opens cleanly, and the next save is not mistaken for a conflict.
//!
//! The child is this test binary run again with `REDLINE_CRASH_CHILD` set.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use rand::{RngExt, SeedableRng};
use redline::config::Limits;
use redline::edits::{Operation, ProposedEdit};
use redline::hunks::HunkLimits;
use redline::project::Project;
use redline::review::Status;
use redline::store::Store;
use redline::workspace::{RunInfo, Workspace};

const KILLS: usize = 300;

/// The versions the children write in turn: 2 MB that differ in one line, so
/// an edit is quick to diff and a write takes long enough to be cut.
fn version(k: usize) -> String {
    let body = "a line of the note, long enough that the file is big\n".repeat(40_000);
    format!("version {}\n{body}", k % 3)
}

fn open(root: &Path, data: &Path) -> Workspace {
    let project = Project::open(root, Limits::default()).unwrap();
    let store = Store::open(data, project.root()).unwrap();
    Workspace::open(project, store).unwrap()
}

/// The bare-write child: atomic, hash-checked writes of alternating versions
/// as fast as it can, so most kills land inside a write.
fn writer(root: &Path) -> ! {
    let project = Project::open(root, Limits::default()).unwrap();
    let mut expected = project.disk_hash("raw.md").unwrap();
    for k in 0.. {
        expected = Some(
            project
                .write_checked("raw.md", version(k).as_bytes(), expected.as_deref())
                .unwrap(),
        );
        if k == 0 {
            ready();
        }
    }
    unreachable!()
}

fn ready() {
    use std::io::Write;
    let mut out = std::io::stdout();
    out.write_all(b"ready\n").unwrap();
    out.flush().unwrap();
}

/// The workspace child: stage two stacked proposals once (the second on the
/// first's text), then save versions forever.
fn child(root: &Path, data: &Path) -> ! {
    let mut ws = open(root, data);
    if ws.review().file("note.md").is_none() {
        for (job, new_text) in [("job_1", "agent line"), ("job_2", "agent line, again")] {
            let edit = ProposedEdit {
                edit_id: "e_1".into(),
                file_path: "note.md".into(),
                operation: Operation::Replace,
                start_line: 1,
                end_line: None,
                new_text: new_text.into(),
                old_text: None,
                expected_hash: None,
                rationale: String::new(),
            };
            let run = RunInfo {
                job_id: job.into(),
                ..RunInfo::default()
            };
            let (_, bundle) = ws.propose(&run, &[edit], &HunkLimits::default()).unwrap();
            for hunk in bundle.hunk_ids() {
                ws.decide(hunk, Status::Accepted, None).unwrap();
            }
        }
    }
    let mut k = 0;
    loop {
        ws.user_edit("note.md", &version(k)).unwrap();
        ws.save("note.md").unwrap();
        if k == 0 {
            ready(); // the parent's kill should land in the save loop
        }
        k += 1;
    }
}

fn leftovers(root: &Path) -> usize {
    std::fs::read_dir(root)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(".redline-")
        })
        .count()
}

#[test]
fn crash_child_entry() {
    // Only does anything when run as the child of the test below.
    if let Ok(dirs) = std::env::var("REDLINE_CRASH_CHILD") {
        let (root, data) = dirs.split_once('\n').unwrap();
        match std::env::var("REDLINE_CRASH_MODE").as_deref() {
            Ok("write") => writer(Path::new(root)),
            _ => child(Path::new(root), Path::new(data)),
        }
    }
}

#[test]
fn sigkill_during_saves_leaves_a_whole_file_and_a_clean_store() {
    let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root: PathBuf = vault.path().canonicalize().unwrap();
    std::fs::write(root.join("note.md"), "first line\nsecond line\n").unwrap();
    std::fs::write(root.join("raw.md"), "first line\nsecond line\n").unwrap();
    let allowed: Vec<String> = (0..3)
        .map(version)
        .chain(["first line\nsecond line\n".into()])
        .collect();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut mid_write = 0;
    for kill in 0..KILLS {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "crash_child_entry",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(
                "REDLINE_CRASH_CHILD",
                format!("{}\n{}", root.display(), data.path().display()),
            )
            // Odd kills hit bare writes; even ones the whole save path with its store.
            .env(
                "REDLINE_CRASH_MODE",
                if kill % 2 == 1 { "write" } else { "workspace" },
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // The test harness prints its own lines first.
        let ready = BufReader::new(child.stdout.take().unwrap())
            .lines()
            .any(|line| line.unwrap().ends_with("ready"));
        assert!(ready, "kill {kill}: the child ended before its save loop");
        std::thread::sleep(Duration::from_micros(rng.random_range(0..6_000)));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();

        for name in ["note.md", "raw.md"] {
            let on_disk = std::fs::read_to_string(root.join(name)).unwrap();
            assert!(
                allowed.contains(&on_disk),
                "kill {kill}: {name} holds a torn write ({} bytes)",
                on_disk.len()
            );
        }
        mid_write += usize::from(leftovers(&root) > 0);
        if kill % 2 == 1 {
            // The bare writer keeps no store; its leftovers are cleared the way
            // opening a workspace clears them.
            Project::open(&root, Limits::default())
                .unwrap()
                .remove_stale_writes("raw.md")
                .unwrap();
            continue;
        }
        // The store opens, clears the cut-off write's temporary file, and the
        // file is not taken for another program's change.
        let mut ws = open(&root, data.path());
        assert_eq!(
            leftovers(&root),
            0,
            "kill {kill}: a temporary file was left behind"
        );
        if ws.review().file("note.md").is_some() {
            let text = ws.review().file("note.md").unwrap().buffer();
            ws.user_edit("note.md", &format!("{text}checked after kill {kill}\n"))
                .unwrap();
            ws.save("note.md")
                .unwrap_or_else(|e| panic!("kill {kill}: {e}"));
            ws.user_edit("note.md", &text).unwrap();
            ws.save("note.md").unwrap();
        }
    }
    eprintln!(
        "{KILLS} kills, {mid_write} of them left a temporary file behind (the write was cut off)"
    );
}
