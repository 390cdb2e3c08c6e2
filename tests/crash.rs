//! Crash safety: a child process saving a file under review over and over is
//! killed with SIGKILL at random moments, hundreds of times. After each kill
//! the file holds one whole version (never a mix or a truncation), the store
//! opens cleanly, and the next save is not mistaken for a conflict.
//!
//! A second child applies a job over thousands of notes in one batch and is
//! killed in the middle, dozens of times: every note is whole, no temporary
//! file outlives the next open, and that open completes the apply.
//!
//! A third child moves hundreds of notes between two folders (the links to
//! them in index notes rewritten as hunks that follow the moves) and is
//! killed in the middle: every note is in exactly one place, whole, and the
//! next open and save put every note and link where the decisions say.
//!
//! A fourth child runs an instruction over 120 notes, one model call each
//! (`edit_each_note`, against the scripted model), and is killed midway:
//! the next open resumes the run with the notes not yet staged, and in the
//! end every note is staged exactly once, under the run's one checkpoint.
//!
//! The child is this test binary run again with `REDLINE_CRASH_CHILD` set.

#[path = "support/agent.rs"]
mod support;

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
                new_path: None,
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

/// This test binary run again as the child `mode` (`write`, `workspace`,
/// `batch`) of trial `trial`, its stdout piped.
fn spawn_child(root: &Path, data: &Path, mode: &str, trial: usize) -> std::process::Child {
    child_command(root, data, mode, trial).spawn().unwrap()
}

/// The command [`spawn_child`] runs.
fn child_command(root: &Path, data: &Path, mode: &str, trial: usize) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "crash_child_entry",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(
            "REDLINE_CRASH_CHILD",
            format!("{}\n{}", root.display(), data.display()),
        )
        .env("REDLINE_CRASH_MODE", mode)
        .env("REDLINE_CRASH_TRIAL", trial.to_string())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(data.join("child.stderr")).unwrap());
    command
}

/// What the child of the last trial wrote to stderr: why it ended, when it
/// ended before it was killed.
fn child_stderr(data: &Path) -> String {
    std::fs::read_to_string(data.join("child.stderr")).unwrap_or_default()
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
            Ok("batch") => batch_child(Path::new(root), Path::new(data), false),
            Ok("save_all") => batch_child(Path::new(root), Path::new(data), true),
            Ok("moves") => moves_child(Path::new(root), Path::new(data)),
            Ok("fan_out") => fan_out_child(Path::new(root), Path::new(data)),
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
        // Odd kills hit bare writes; even ones the whole save path with its store.
        let mode = if kill % 2 == 1 { "write" } else { "workspace" };
        let mut child = spawn_child(&root, data.path(), mode, 0);
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

/// Notes of the batch trials (`REDLINE_CRASH_NOTES`, default 1,000: a
/// batch of many files all the same; docs/testing.md gives the longer run).
fn batch_notes() -> usize {
    std::env::var("REDLINE_CRASH_NOTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000)
}

fn batch_note(i: usize) -> String {
    format!("Notes {:02}/note-{i:05}.md", i % 10)
}

/// The batch child: opens the workspace (which finishes what an earlier
/// kill cut off), stages trial `k`'s rename of every note, says it is
/// ready, and applies it; or (`save_all`) accepts it as one step first and
/// then saves every file with unsaved work in one batch, as Save all does.
fn batch_child(root: &Path, data: &Path, save_all: bool) -> ! {
    let k: usize = std::env::var("REDLINE_CRASH_TRIAL")
        .unwrap()
        .parse()
        .unwrap();
    let mut ws = open(root, data);
    let edits: Vec<ProposedEdit> = (0..batch_notes())
        .map(|i| ProposedEdit {
            edit_id: format!("e_{i}"),
            file_path: batch_note(i),
            operation: Operation::Replace,
            start_line: 3,
            end_line: None,
            new_text: format!("See [[Name {k}]] for more."),
            old_text: None,
            expected_hash: None,
            rationale: String::new(),
            new_path: None,
        })
        .collect();
    let run = RunInfo {
        job_id: format!("job_{k}"),
        ..RunInfo::default()
    };
    let (_, bundle) = ws.propose(&run, &edits, &HunkLimits::default()).unwrap();
    let accepted: Vec<String> = bundle.hunk_ids().map(str::to_owned).collect();
    if save_all {
        ws.decide_many(&accepted, Status::Accepted).unwrap();
        ready();
        let paths = ws.unsaved();
        let saved = ws.save_many(&paths, &mut |_| {}).unwrap();
        assert!(saved.iter().all(Result::is_ok));
    } else {
        ready();
        let report = ws.apply(&bundle, &accepted, &mut |_| {}).unwrap();
        assert!(report.iter().all(|f| f.status == "applied"));
    }
    println!("applied");
    std::process::exit(0)
}

#[test]
fn sigkill_during_a_batch_apply_leaves_whole_notes_and_the_next_open_completes_it() {
    // 16 by default (three seconds each in a debug build); docs/testing.md
    // gives the longer run.
    batch_trials("batch", 16);
}

#[test]
fn sigkill_during_save_all_leaves_whole_notes_and_the_next_open_completes_it() {
    // 8 by default; docs/testing.md gives the run of 100 over 2,000 notes.
    batch_trials("save_all", 8);
}

/// `REDLINE_CRASH_TRIALS` (default `default`) kills of the `mode` child
/// (an apply, or a Save all) in the middle of its batch: after each, every
/// note is whole, and the next open finishes the batch or it never began.
fn batch_trials(mode: &str, default: usize) {
    let trials: usize = std::env::var("REDLINE_CRASH_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root: PathBuf = vault.path().canonicalize().unwrap();
    let notes = batch_notes();
    for f in 0..10 {
        std::fs::create_dir_all(root.join(format!("Notes {f:02}"))).unwrap();
    }
    for i in 0..notes {
        std::fs::write(
            root.join(batch_note(i)),
            format!("# Note {i}\n\nSee [[Atlas]] for more.\n"),
        )
        .unwrap();
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let (mut cut, mut finished_on_open, mut before_batch) = (0, 0, 0);
    for trial in 0..trials {
        let mut child = spawn_child(&root, data.path(), mode, trial);
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let ready = lines.any(|line| line.unwrap().ends_with("ready"));
        assert!(
            ready,
            "trial {trial}: the child ended before its apply: {}",
            child_stderr(data.path())
        );
        // A batch takes about 0.3 ms a note in a debug build: land anywhere in it.
        let batch_ms = (notes as u64 * 3).div_ceil(10);
        std::thread::sleep(Duration::from_millis(rng.random_range(0..batch_ms)));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let mut written = 0;
        for i in 0..notes {
            let text = std::fs::read_to_string(root.join(batch_note(i))).unwrap();
            let k = version_of(i, &text)
                .unwrap_or_else(|| panic!("trial {trial}: note {i} is torn: {text:?}"));
            written += usize::from(k == Some(trial));
        }
        cut += usize::from(written < notes);
        // Opening clears the temporary files and finishes the apply, once
        // its batch was recorded; a kill before that leaves every note as it
        // was and the job's hunks decided or not, as the store last had them.
        let mut ws = open(&root, data.path());
        for f in 0..10 {
            assert_eq!(
                leftovers(&root.join(format!("Notes {f:02}"))),
                0,
                "trial {trial}: a temporary file was left behind"
            );
        }
        let versions: Vec<Option<usize>> = (0..notes)
            .map(|i| {
                version_of(
                    i,
                    &std::fs::read_to_string(root.join(batch_note(i))).unwrap(),
                )
                .unwrap()
            })
            .collect();
        let done = versions.iter().filter(|v| **v == Some(trial)).count();
        if done == notes {
            finished_on_open += usize::from(written < notes);
        } else {
            assert_eq!(
                (done, written),
                (0, 0),
                "trial {trial}: the open finished only part of the apply"
            );
            let job = format!("job_{trial}");
            let hunks: Vec<String> = ws
                .review()
                .files()
                .flat_map(|f| {
                    f.entries()
                        .iter()
                        .filter(|e| e.job_id.as_deref() == Some(job.as_str()))
                })
                .filter_map(|e| e.hunk_id.clone())
                .collect();
            assert_eq!(
                hunks.len(),
                notes,
                "trial {trial}: the proposal was not kept"
            );
            ws.decide_many(&hunks, Status::Accepted).unwrap();
            let paths: Vec<String> = (0..notes).map(batch_note).collect();
            assert!(
                ws.save_many(&paths, &mut |_| {})
                    .unwrap()
                    .iter()
                    .all(Result::is_ok)
            );
            before_batch += 1;
        }
        drop(ws);
    }
    eprintln!(
        "{trials} kills during a {notes}-note {mode}: {cut} cut it off; {finished_on_open} finished by the next open, \
         {before_batch} came before its batch was recorded (nothing written); every note whole, no temporary file left"
    );
    assert!(
        finished_on_open > 0,
        "no kill landed inside a batch: the trials tested nothing"
    );
}

/// Which whole version of note `i` `text` is: `Some(None)` the first,
/// `Some(Some(k))` trial `k`'s; `None` for anything else (a torn write).
fn version_of(i: usize, text: &str) -> Option<Option<usize>> {
    let rest = text.strip_prefix(&format!("# Note {i}\n\nSee [["))?;
    let name = rest.strip_suffix("]] for more.\n")?;
    if name == "Atlas" {
        return Some(None);
    }
    name.strip_prefix("Name ")?.parse().ok().map(Some)
}

/// Notes of the move trials (every tenth an image).
const MOVED_NOTES: usize = 300;

/// Note `i` in folder `side` (`A` or `B`); every tenth is an image.
fn moved_note(side: char, i: usize) -> String {
    format!("{side}/{}", moved_name(i))
}

/// Note `i`'s name, as a link names it.
fn moved_name(i: usize) -> String {
    if i.is_multiple_of(10) {
        format!("note-{i:04}.png")
    } else {
        format!("note-{i:04}")
    }
}

/// Note `i`'s bytes: its text, or an image's bytes (not UTF-8, with NULs).
fn moved_bytes(i: usize) -> Vec<u8> {
    if i.is_multiple_of(10) {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\xff".to_vec();
        png.extend((0..64).map(|k| (i + k) as u8));
        return png;
    }
    format!("# Note {i}\n\nThe text of note {i}, which moves whole.\n").into_bytes()
}

/// Where note `i` is on disk: `Some(side)` in exactly one folder.
fn side_of(root: &Path, i: usize) -> Option<char> {
    let here: Vec<char> = ['A', 'B']
        .into_iter()
        .filter(|&side| root.join(moved_note(side, i)).exists())
        .collect();
    match here[..] {
        [side] => Some(side),
        _ => None,
    }
}

/// The moves child: opens the workspace, saves every file under review (a
/// cut-off apply's decided moves land), proposes moving every note to the
/// other folder, accepts it all (the link hunks with it), says it is
/// ready, and applies it.
fn moves_child(root: &Path, data: &Path) -> ! {
    let k: usize = std::env::var("REDLINE_CRASH_TRIAL")
        .unwrap()
        .parse()
        .unwrap();
    let mut ws = open(root, data);
    // A job killed before its decisions were stored is still pending, its
    // moves staged in the working state (where the notes are not on disk):
    // rejected, the working state is the disk again.
    let pending: Vec<String> = ws
        .review()
        .files()
        .flat_map(|f| f.entries().iter())
        .filter(|e| e.status == Status::Pending)
        .filter_map(|e| e.hunk_id.clone())
        .collect();
    if !pending.is_empty() {
        ws.decide_many(&pending, Status::Rejected).unwrap();
    }
    let under_review: Vec<String> = ws.review().files().map(|f| f.path.clone()).collect();
    for outcome in ws.save_many(&under_review, &mut |_| {}).unwrap() {
        outcome.unwrap();
    }
    let edits: Vec<ProposedEdit> = (0..MOVED_NOTES)
        .map(|i| {
            let side = side_of(root, i).expect("in one place");
            let other = if side == 'A' { 'B' } else { 'A' };
            ProposedEdit {
                edit_id: format!("e_{i}"),
                file_path: moved_note(side, i),
                operation: Operation::Move,
                start_line: 1,
                end_line: None,
                new_text: String::new(),
                old_text: None,
                expected_hash: None,
                rationale: String::new(),
                new_path: Some(moved_note(other, i)),
            }
        })
        .collect();
    let run = RunInfo {
        job_id: format!("job_{k}"),
        ..RunInfo::default()
    };
    let (_, bundle) = ws.propose(&run, &edits, &HunkLimits::default()).unwrap();
    let accepted: Vec<String> = bundle.hunk_ids().map(str::to_owned).collect();
    ready();
    let report = ws.apply(&bundle, &accepted, &mut |_| {}).unwrap();
    assert!(report.iter().all(|f| f.status == "applied"));
    println!("applied");
    std::process::exit(0)
}

#[test]
fn sigkill_while_notes_move_leaves_each_in_one_place_whole_and_its_links_right() {
    let trials: usize = std::env::var("REDLINE_CRASH_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root: PathBuf = vault.path().canonicalize().unwrap();
    for side in ["A", "B", "Index"] {
        std::fs::create_dir_all(root.join(side)).unwrap();
    }
    for i in 0..MOVED_NOTES {
        std::fs::write(root.join(moved_note('A', i)), moved_bytes(i)).unwrap();
    }
    // Ten index notes, each linking thirty notes (three images) by path.
    for x in 0..10 {
        let links: String = (x * 30..x * 30 + 30)
            .map(|i| format!("- [[A/{}]]\n", moved_name(i)))
            .collect();
        std::fs::write(root.join(format!("Index/{x}.md")), links).unwrap();
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(13);
    let mut split = 0;
    for trial in 0..trials {
        let mut child = spawn_child(&root, data.path(), "moves", trial);
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let ready = lines.any(|line| line.unwrap().ends_with("ready"));
        assert!(
            ready,
            "trial {trial}: the child ended before its apply: {}",
            child_stderr(data.path())
        );
        std::thread::sleep(Duration::from_millis(rng.random_range(0..400)));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let sides: Vec<char> = (0..MOVED_NOTES)
            .map(|i| {
                let side = side_of(&root, i)
                    .unwrap_or_else(|| panic!("trial {trial}: note {i} is in two places or none"));
                let bytes = std::fs::read(root.join(moved_note(side, i))).unwrap();
                assert!(
                    bytes == moved_bytes(i),
                    "trial {trial}: note {i} is not whole"
                );
                side
            })
            .collect();
        split += usize::from(sides.iter().any(|&s| s != sides[0]));
        // Opened and saved, every note and every link is where the
        // decisions put them, and no temporary file is left.
        let mut ws = open(&root, data.path());
        let under_review: Vec<String> = ws.review().files().map(|f| f.path.clone()).collect();
        for outcome in ws.save_many(&under_review, &mut |_| {}).unwrap() {
            outcome.unwrap_or_else(|e| panic!("trial {trial}: {e}"));
        }
        drop(ws);
        for side in ["A", "B", "Index"] {
            assert_eq!(
                leftovers(&root.join(side)),
                0,
                "trial {trial}: a temporary file was left"
            );
        }
        for x in 0..10 {
            let index = std::fs::read_to_string(root.join(format!("Index/{x}.md"))).unwrap();
            for i in x * 30..x * 30 + 30 {
                let side = side_of(&root, i).expect("in one place");
                assert!(
                    index.contains(&format!("[[{side}/{}]]", moved_name(i))),
                    "trial {trial}: the link to note {i} does not follow it to {side}: {index}"
                );
            }
        }
    }
    eprintln!(
        "{trials} kills while {MOVED_NOTES} notes (a tenth of them images) moved: {split} left the notes split between the folders; \
         every note in one place and whole, every link following its note after the next open"
    );
}

/// Notes the fan-out child runs its instruction over.
const FAN_NOTES: usize = 120;

fn fan_note(i: usize) -> String {
    format!("Meetings/m{i:03}.md")
}

/// The scripted model's answer for note `i`, sent a piece every 10 ms.
fn fan_answer(i: usize) -> redline::testkit::scripted::Turn {
    let mut turn = redline::testkit::scripted::Turn::call(
        "propose_edits",
        serde_json::json!({ "edits": [{ "file_path": fan_note(i), "operation": "insert",
                                        "start_line": 2, "new_text": format!("Summary: item {i}.\n") }] }),
    );
    if let redline::testkit::scripted::Turn::Reply { chunk_delay_ms, .. } = &mut turn {
        *chunk_delay_ms = 10;
    }
    turn
}

/// A scripted model answering every note, and a configuration pointing at it.
async fn fan_model(
    data: &Path,
) -> (
    redline::testkit::scripted::ScriptedModel,
    redline::config::Config,
) {
    let start = redline::testkit::scripted::Turn::call(
        "edit_each_note",
        serde_json::json!({ "instruction": "Add a summary", "scope": { "folders": ["Meetings"] } }),
    );
    let model = redline::testkit::scripted::ScriptedModel::start(vec![start])
        .await
        .unwrap();
    for i in 0..FAN_NOTES {
        model.push_when(&format!("The note `{}`:", fan_note(i)), fan_answer(i));
    }
    let mut config = support::config(data);
    config.remote = support::settings(&model, redline::providers::Protocol::OpenAiChat);
    config.limits.fan_out_confirm_notes = usize::MAX;
    (model, config)
}

/// The fan-out child: starts the run, says so, and runs until killed.
fn fan_out_child(root: &Path, data: &Path) -> ! {
    // SAFETY: set before any thread of this child reads the environment.
    unsafe { std::env::set_var("REDLINE_NO_KEYCHAIN", "1") };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (_model, config) = fan_model(data).await;
        let runtime = redline::jobs::Runtime::open(root, config).unwrap();
        let session = runtime.create_session(None).unwrap();
        runtime
            .run(redline::jobs::RunRequest {
                session_id: session.session_id,
                instruction: "Summarise every meeting".into(),
                context_rows: Vec::new(),
                tool_config: redline::jobs::ToolConfig::default(),
            })
            .unwrap();
        ready();
        std::future::pending::<()>().await;
    });
    unreachable!()
}

/// A vault of [`FAN_NOTES`] meetings for a run over many notes.
fn fan_vault() -> (tempfile::TempDir, tempfile::TempDir, PathBuf) {
    let (vault, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root: PathBuf = vault.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("Meetings")).unwrap();
    for i in 0..FAN_NOTES {
        std::fs::write(
            root.join(fan_note(i)),
            format!("# Meeting {i}\n\nAgreed on {i}.\n"),
        )
        .unwrap();
    }
    (vault, data, root)
}

/// Reopens the project after the fan-out child died and waits for the run
/// to end: resumed, it staged every note once, in one checkpoint. Returns
/// whether it was resumed (a child killed before the run staged anything
/// leaves a failed job with nothing staged).
fn fan_out_resumed(rt: &tokio::runtime::Runtime, root: &Path, data: &Path, trial: usize) -> bool {
    rt.block_on(async {
        // SAFETY: tests only ever set this variable, to the same value.
        unsafe { std::env::set_var("REDLINE_NO_KEYCHAIN", "1") };
        let (_model, config) = fan_model(data).await;
        let runtime = redline::jobs::Runtime::open(root, config).unwrap();
        let mut job = runtime.job("job_1").unwrap();
        for _ in 0..1500 {
            if job.status.is_terminal() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            job = runtime.job("job_1").unwrap();
        }
        if job.status == redline::jobs::JobStatus::Failed {
            // Killed before the run had staged anything: nothing to resume.
            assert_eq!(
                job.error.as_ref().unwrap().code,
                "interrupted",
                "trial {trial}"
            );
            assert!(job.diff_bundle.is_none(), "trial {trial}");
            return false;
        }
        assert_eq!(
            job.status,
            redline::jobs::JobStatus::AwaitingReview,
            "trial {trial}: {:?}",
            job.error
        );
        let bundle = job.diff_bundle.unwrap();
        let mut files: Vec<&str> = bundle.files.iter().map(|f| f.file_path.as_str()).collect();
        files.sort_unstable();
        files.dedup();
        assert_eq!(
            files.len(),
            FAN_NOTES,
            "trial {trial}: every note staged, none twice"
        );
        runtime.read_workspace(|ws| {
            for i in 0..FAN_NOTES {
                let file = ws.review().file(&fan_note(i)).unwrap();
                let hunks = file
                    .entries()
                    .iter()
                    .filter(|e| e.hunk_id.is_some())
                    .count();
                assert_eq!(hunks, 1, "trial {trial}: {} has {hunks} hunks", fan_note(i));
            }
            let checkpoints = ws.checkpoints(None, 50).unwrap().checkpoints;
            let run: Vec<_> = checkpoints
                .iter()
                .filter(|c| c.job_id.as_deref() == Some("job_1"))
                .collect();
            assert_eq!(run.len(), 1, "trial {trial}: one checkpoint for the run");
            assert_eq!(run[0].affected_files.len(), FAN_NOTES, "trial {trial}");
        });
        true
    })
}

fn two_core_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn sigkill_during_a_run_over_many_notes_resumes_it_with_no_note_twice() {
    let trials: usize = std::env::var("REDLINE_CRASH_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
    let rt = two_core_runtime();
    let mut resumed = 0;
    for trial in 0..trials {
        let (_vault, data, root) = fan_vault();
        let mut child = spawn_child(&root, data.path(), "fan_out", trial);
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let ready = lines.any(|line| line.unwrap().ends_with("ready"));
        assert!(
            ready,
            "trial {trial}: the child ended early: {}",
            child_stderr(data.path())
        );
        std::thread::sleep(Duration::from_millis(rng.random_range(300..2500)));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        if fan_out_resumed(&rt, &root, data.path(), trial) {
            resumed += 1;
        }
    }
    eprintln!(
        "{resumed} of {trials} kills landed after the run had staged notes, and were resumed"
    );
    assert!(
        resumed > 0,
        "no kill landed midway: the trial proved nothing"
    );
}

/// The narrowest window: the process ends right after a part's hunks are
/// staged and before the job's record says so. The part journaled with
/// the hunks tells the resumed run those notes are done.
#[test]
fn a_crash_between_staging_a_part_and_recording_it_stages_no_note_twice() {
    let rt = two_core_runtime();
    let (_vault, data, root) = fan_vault();
    // At the second part: the first is in the job's record and the run's
    // saved state, so the run resumes.
    let mut child = child_command(&root, data.path(), "fan_out", 0)
        .env("REDLINE_TEST_CRASH", "staged:2")
        .spawn()
        .unwrap();
    // Read to the end: the child's stdout closes when it crashes.
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    lines.for_each(drop);
    let status = child.wait().unwrap();
    assert!(
        !status.success(),
        "the child crashed: {}",
        child_stderr(data.path())
    );
    assert!(
        fan_out_resumed(&rt, &root, data.path(), 0),
        "resumed after the crash"
    );
}
