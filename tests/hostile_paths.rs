//! Hostile paths: every refusal of the path guard and the text rules, through
//! the tools exactly as the agent calls them.
//!
//! Each case asserts the refusal code, that no secret text reached the output,
//! and (where the file system keeps access times) that no secret file was read
//! at all: every secret's access time is reset to the epoch before the call
//! and must still be the epoch after it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use filetime::FileTime;
use redline::config::Limits;
use redline::project::Project;
use redline::tools;
use serde_json::{Value, json};

const SECRET: &str = "SECRET";

struct Fixture {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    root: PathBuf,
    outside: PathBuf,
    /// Files whose content must never be read.
    secrets: Vec<PathBuf>,
    atime_tracked: bool,
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn fixture() -> Fixture {
    let (root_dir, outside_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = root_dir.path().canonicalize().unwrap();
    let outside = outside_dir.path().canonicalize().unwrap();
    let mut secrets = Vec::new();
    let mut secret = |path: PathBuf, extra: &[u8]| {
        let mut bytes = format!("{SECRET} {}\n", path.display()).into_bytes();
        bytes.extend_from_slice(extra);
        write(&path, &bytes);
        secrets.push(path);
    };

    write(&root.join("notes/ok.md"), b"an ordinary note\n");
    write(&root.join(".gitignore"), b"*.log\nbuild/\n");
    write(&root.join(".ignore"), b"private/\n");
    write(&root.join("notes/drafts/.gitignore"), b"tmp.md\n");
    write(&root.join(".git/info/exclude"), b"excluded-by-git.md\n");
    write(&root.join("notes/latin1.txt"), b"caf\xe9 cr\xe8me\n");
    write(
        &root.join("notes/big.md"),
        &b"long line of text\n".repeat(200),
    );
    secret(root.join(".git/config"), b"");
    secret(root.join(".env"), b"");
    secret(root.join(".obsidian/workspace.json"), b"");
    secret(root.join("notes/.secret.md"), b"");
    secret(root.join("notes/debug.log"), b"");
    secret(root.join("build/out.md"), b"");
    secret(root.join("private/diary.md"), b"");
    secret(root.join("notes/drafts/tmp.md"), b"");
    secret(root.join("excluded-by-git.md"), b"");
    secret(outside.join("secret.txt"), b"");
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0".to_vec();
    png.extend_from_slice(SECRET.as_bytes());
    write(&root.join("assets/image.png"), &png);

    let link = |target: &Path, at: &str| std::os::unix::fs::symlink(target, root.join(at)).unwrap();
    link(&outside.join("secret.txt"), "notes/escape.md");
    link(&outside, "linkdir");
    link(Path::new("../.git/config"), "notes/gitcfg.md");
    link(Path::new(".secret.md"), "notes/hidden-link.md");
    link(
        Path::new("/nonexistent/redline/target"),
        "notes/dangling.md",
    );
    link(Path::new("loop.md"), "notes/loop.md");
    link(Path::new("escape.md"), "notes/chain.md");
    link(Path::new("/dev/zero"), "notes/dev.md");
    link(Path::new("/etc/passwd"), "notes/passwd.md");
    let fifo = Command::new("mkfifo")
        .arg(root.join("notes/pipe.md"))
        .status()
        .unwrap();
    assert!(fifo.success(), "mkfifo");

    // Does this file system record reads? Reset a control file and read it.
    let control = root.join("notes/ok.md");
    filetime::set_file_atime(&control, FileTime::zero()).unwrap();
    std::fs::read(&control).unwrap();
    let atime_tracked = atime(&control) != FileTime::zero();
    if !atime_tracked {
        eprintln!("note: this file system does not record access times; checking outputs only");
    }
    Fixture {
        _dirs: (root_dir, outside_dir),
        root,
        outside,
        secrets,
        atime_tracked,
    }
}

fn atime(path: &Path) -> FileTime {
    FileTime::from_last_access_time(&std::fs::metadata(path).unwrap())
}

impl Fixture {
    fn project(&self) -> Project {
        let limits = Limits {
            max_text_file_bytes: 1024,
            ..Limits::default()
        };
        Project::open(&self.root, limits).unwrap()
    }

    /// Runs a tool on a thread, so a call that blocks (on a FIFO, say) fails
    /// the test instead of hanging it.
    fn call(&self, tool: &'static str, args: Value) -> Result<Value, (String, String)> {
        let project = self.project();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let out =
                tools::run(&project, tool, args).map_err(|e| (e.code().to_owned(), e.to_string()));
            let _ = tx.send(out);
        });
        rx.recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("{tool} did not return within 20 s"))
    }

    fn reset_atimes(&self) {
        for secret in &self.secrets {
            filetime::set_file_atime(secret, FileTime::zero()).unwrap();
        }
    }

    fn assert_nothing_read(&self, case: &str) {
        if !self.atime_tracked {
            return;
        }
        for secret in &self.secrets {
            assert_eq!(
                atime(secret),
                FileTime::zero(),
                "{case}: {} was read",
                secret.display()
            );
        }
    }

    /// Asserts `tool(args)` is refused with `code`, leaks nothing, reads nothing.
    fn refuses(&self, tool: &'static str, args: Value, code: &str) {
        let case = format!("{tool} {args}");
        self.reset_atimes();
        let out = self.call(tool, args);
        self.assert_nothing_read(&case);
        match out {
            Ok(value) => panic!("{case}: expected `{code}`, got {value}"),
            Err((got, message)) => {
                assert_eq!(got, code, "{case}: {message}");
                assert!(
                    !message.contains(SECRET),
                    "{case}: message leaks: {message}"
                );
                assert!(!message.is_empty());
            }
        }
    }

    fn read_refused(&self, path: &str, code: &str) {
        self.refuses("read_file", json!({ "file_path": path }), code);
    }
}

#[test]
fn spelling_refusals() {
    let f = fixture();
    f.read_refused("/etc/passwd", "absolute_path");
    f.read_refused(
        &f.outside.join("secret.txt").display().to_string(),
        "absolute_path",
    );
    f.read_refused("//etc/passwd", "absolute_path");
    f.read_refused("C:\\Windows\\win.ini", "absolute_path");
    f.read_refused("C:/Windows/win.ini", "absolute_path");
    // Found by the fuzzer (fuzz/corpus/paths): a drive reached through `.` or `..`.
    f.read_refused("./C:/Windows/win.ini", "absolute_path");
    f.read_refused("notes/../C:x.md", "absolute_path");
    f.read_refused("notes\\..\\..\\outside\\secret.txt", "backslash");
    f.read_refused("notes/ok.md\0", "nul_byte");
    f.read_refused("\0/etc/passwd", "nul_byte");
    f.read_refused(&"a/".repeat(3000), "path_too_long");
    f.refuses("read_file", json!({ "file_path": "" }), "invalid_arguments");
}

#[test]
fn escapes_of_the_root_are_refused() {
    let f = fixture();
    let outside = f.outside.file_name().unwrap().to_str().unwrap().to_owned();
    f.read_refused(&format!("../{outside}/secret.txt"), "escapes_root");
    f.read_refused(&format!("notes/../../{outside}/secret.txt"), "escapes_root");
    f.read_refused(&format!("./../{outside}/secret.txt"), "escapes_root");
    f.read_refused(
        &format!("notes/ok.md/../../../{outside}/secret.txt"),
        "escapes_root",
    );
    f.read_refused("..", "escapes_root");
    f.refuses("list_files", json!({ "prefix": "../" }), "escapes_root");
    f.refuses("list_files", json!({ "prefix": "/" }), "absolute_path");
}

#[test]
fn git_and_hidden_names_are_refused() {
    let f = fixture();
    f.read_refused(".git/config", "git_dir");
    f.read_refused("notes/../.git/config", "git_dir");
    f.read_refused(".git", "git_dir");
    f.refuses("list_files", json!({ "prefix": ".git" }), "git_dir");
    f.read_refused(".env", "hidden");
    f.read_refused(".obsidian/workspace.json", "hidden");
    f.read_refused("notes/.secret.md", "hidden");
    f.read_refused("notes/.../x.md", "hidden");
    f.read_refused("~/.ssh/id_rsa", "hidden");
    f.read_refused(".gitignore", "hidden");
}

#[test]
fn ignore_rules_apply_without_a_repository() {
    let f = fixture();
    f.read_refused("build/out.md", "ignored");
    f.read_refused("notes/debug.log", "ignored");
    f.read_refused("private/diary.md", "ignored");
    f.read_refused("notes/drafts/tmp.md", "ignored");
    f.read_refused("excluded-by-git.md", "ignored");
    f.refuses("list_files", json!({ "prefix": "build" }), "ignored");
}

#[test]
fn symlinks_are_followed_only_inside_and_rechecked() {
    let f = fixture();
    f.read_refused("notes/escape.md", "symlink_escape");
    f.read_refused("notes/chain.md", "symlink_escape");
    f.read_refused("linkdir/secret.txt", "symlink_escape");
    f.read_refused("notes/dangling.md", "symlink_escape");
    f.read_refused("notes/dev.md", "symlink_escape");
    f.read_refused("notes/passwd.md", "symlink_escape");
    f.read_refused("notes/gitcfg.md", "symlink_target");
    f.read_refused("notes/hidden-link.md", "symlink_target");
    f.read_refused("notes/loop.md", "io_error");
    f.refuses(
        "list_files",
        json!({ "prefix": "linkdir" }),
        "symlink_escape",
    );
}

#[test]
fn only_regular_utf8_text_is_read() {
    let f = fixture();
    f.read_refused("notes/pipe.md", "not_a_file");
    f.read_refused("notes", "is_directory");
    f.read_refused("notes/big.md", "file_too_large");
    f.read_refused("notes/missing.md", "not_found");
    // These two are read to be classified, and refused with nothing returned.
    f.read_refused("assets/image.png", "binary_file");
    f.read_refused("notes/latin1.txt", "not_utf8");
}

#[test]
fn search_and_list_never_see_refused_files() {
    let f = fixture();
    for args in [
        json!({ "query": SECRET }),
        json!({ "query": SECRET, "glob": "**" }),
        json!({ "query": SECRET, "glob": ".git/*" }),
        json!({ "query": SECRET, "glob": "**/.*" }),
        json!({ "query": SECRET, "glob": "../**" }),
        json!({ "query": "S.CR.T", "regex": true, "case_sensitive": false }),
    ] {
        f.reset_atimes();
        let out = f.call("search_project", args.clone()).unwrap();
        f.assert_nothing_read(&format!("search_project {args}"));
        assert_eq!(out["total"], 0, "search_project {args}: {out}");
        assert!(
            !out.to_string().contains(SECRET),
            "search_project {args}: {out}"
        );
    }
    f.reset_atimes();
    let listing = f.call("list_files", json!({})).unwrap();
    f.assert_nothing_read("list_files");
    let files: Vec<&str> = listing["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        [
            "assets/image.png",
            "notes/big.md",
            "notes/latin1.txt",
            "notes/ok.md"
        ],
        "symlinks, FIFOs, hidden and ignored files are not listed"
    );
}
