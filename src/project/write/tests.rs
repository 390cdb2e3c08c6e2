//! Writes: atomic, hash-checked, and never over another program's save.

use std::os::unix::fs::PermissionsExt;

use super::*;
use crate::config::Limits;

#[test]
fn writes_only_over_the_expected_content() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.md"), "old\n").unwrap();
    std::fs::set_permissions(
        dir.path().join("a.md"),
        std::fs::Permissions::from_mode(0o640),
    )
    .unwrap();
    let project = Project::open(dir.path(), Limits::default()).unwrap();
    let old = text::content_hash(b"old\n");

    let err = project
        .write_checked("a.md", b"new\n", Some("sha256:other"))
        .unwrap_err();
    assert!(matches!(err, WriteError::Conflict { .. }), "{err}");
    assert_eq!(std::fs::read(dir.path().join("a.md")).unwrap(), b"old\n");

    let new = project.write_checked("a.md", b"new\n", Some(&old)).unwrap();
    assert_eq!(new, text::content_hash(b"new\n"));
    assert_eq!(std::fs::read(dir.path().join("a.md")).unwrap(), b"new\n");
    let mode = std::fs::metadata(dir.path().join("a.md"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o640);

    assert!(matches!(
        project.write_checked("a.md", b"x", None),
        Err(WriteError::Conflict { .. })
    ));
    project.write_checked("new/b.md", b"b\n", None).unwrap();
    assert_eq!(std::fs::read(dir.path().join("new/b.md")).unwrap(), b"b\n");
    assert!(matches!(
        project.write_checked("../x.md", b"x", None),
        Err(WriteError::Path(_))
    ));
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".redline-"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn removes_only_the_expected_content() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.md"), "mine\n").unwrap();
    let project = Project::open(dir.path(), Limits::default()).unwrap();
    let mine = text::content_hash(b"mine\n");

    // Another program's version is never deleted.
    std::fs::write(dir.path().join("a.md"), "theirs\n").unwrap();
    let err = project.remove_checked("a.md", &mine).unwrap_err();
    assert!(matches!(err, WriteError::Conflict { .. }), "{err}");
    assert_eq!(std::fs::read(dir.path().join("a.md")).unwrap(), b"theirs\n");

    std::fs::write(dir.path().join("a.md"), "mine\n").unwrap();
    project.remove_checked("a.md", &mine).unwrap();
    assert!(!dir.path().join("a.md").exists());
    // Gone already: a conflict, not a success.
    assert!(matches!(
        project.remove_checked("a.md", &mine),
        Err(WriteError::Conflict { found: None, .. })
    ));
    assert!(matches!(
        project.remove_checked("../a.md", &mine),
        Err(WriteError::Path(_))
    ));
    assert_eq!(names(dir.path()), Vec::<String>::new());
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A temporary file holding `bytes`, as `write_checked` makes it.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn temp_holding(dir: &Path, bytes: &[u8]) -> NamedTempFile {
    let mut tmp = tempfile::Builder::new()
        .prefix(".redline-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .unwrap();
    tmp.write_all(bytes).unwrap();
    tmp
}

#[test]
fn never_creates_over_a_file_that_appeared() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("a.md");
    std::fs::write(&target, "theirs\n").unwrap();
    let project = Project::open(dir.path(), Limits::default()).unwrap();
    let theirs = Some(text::content_hash(b"theirs\n"));

    let err = project.write_checked("a.md", b"mine\n", None).unwrap_err();
    assert!(
        matches!(&err, WriteError::Conflict { found, .. } if *found == theirs),
        "{err}"
    );

    // The file appears after the check, at the move itself.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    match move_checked(temp_holding(dir.path(), b"mine\n"), &target, None).unwrap() {
        Moved::Conflict { found, kept } => assert!(found == theirs && kept.is_none()),
        _ => panic!("a file that appeared was replaced"),
    }
    assert_eq!(std::fs::read(&target).unwrap(), b"theirs\n");
    assert_eq!(names(dir.path()), ["a.md"]);
}

#[cfg(any(target_os = "linux", target_os = "android"))]
#[test]
fn a_save_that_lands_after_the_check_is_put_back() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("a.md");
    std::fs::write(&target, "theirs\n").unwrap();
    let old = text::content_hash(b"old\n");

    let moved = move_checked(temp_holding(dir.path(), b"mine\n"), &target, Some(&old));
    match moved.unwrap() {
        Moved::Conflict { found, kept } => {
            assert_eq!(found, Some(text::content_hash(b"theirs\n")));
            assert_eq!(kept, None);
        }
        _ => panic!("a save after the check was overwritten"),
    }
    assert_eq!(std::fs::read(&target).unwrap(), b"theirs\n");
    assert_eq!(names(dir.path()), ["a.md"]);

    // Deleted after the check: not recreated.
    std::fs::remove_file(&target).unwrap();
    let moved = move_checked(temp_holding(dir.path(), b"mine\n"), &target, Some(&old));
    assert!(matches!(
        moved.unwrap(),
        Moved::Conflict {
            found: None,
            kept: None
        }
    ));
    assert!(names(dir.path()).is_empty());
}

#[cfg(any(target_os = "linux", target_os = "android"))]
#[test]
fn a_displaced_save_that_cannot_go_back_is_kept_visibly() {
    use rustix::fs::RenameFlags;

    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("a.md");
    std::fs::write(&target, "second\n").unwrap();
    let tmp = temp_holding(dir.path(), b"mine\n");
    assert!(rename2(tmp.path(), &target, RenameFlags::EXCHANGE).unwrap());
    // A third save replaces ours before the swap back.
    std::fs::write(dir.path().join("side"), "third\n").unwrap();
    std::fs::rename(dir.path().join("side"), &target).unwrap();

    let kept = put_back(tmp, &target).unwrap();
    let hex = &text::content_hash(b"second\n")["sha256:".len()..];
    assert_eq!(
        kept,
        dir.path().join(format!("a.conflict-{}.md", &hex[..12]))
    );
    assert_eq!(std::fs::read(&kept).unwrap(), b"second\n");
    assert_eq!(std::fs::read(&target).unwrap(), b"third\n");
    assert_eq!(names(dir.path()).len(), 2, "{:?}", names(dir.path()));
}

/// An editor saves the way editors do (a file under another name renamed
/// over the note) while Redline saves as fast as it can, reloading after
/// each conflict. The editor saves version `n + 1` only once Redline has
/// read `n`, or once `n` is lost: two saves of Redline's have completed
/// after it landed without Redline reading it. (The first may have been
/// under way when it landed; the second began after, and had to meet it.)
#[test]
fn no_concurrent_save_is_overwritten_unseen() {
    use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering::SeqCst};
    use std::time::{Duration, Instant};

    const SAVES: i64 = 300;
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("a.md");
    std::fs::write(&target, "start\n").unwrap();
    let project = Project::open(dir.path(), Limits::default()).unwrap();
    let seen = AtomicI64::new(-1);
    let saved = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let reload = || {
        let bytes = std::fs::read(&target).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        if let Some(n) = text.strip_prefix("ext ") {
            seen.fetch_max(n.trim_end().parse().unwrap(), SeqCst);
        }
        text::content_hash(&bytes)
    };
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    let started = Instant::now();

    let (lost, failure) = std::thread::scope(|s| {
        let editor = s.spawn(|| {
            let mut x = seed;
            let mut lost = Vec::new();
            for n in 0..SAVES {
                if stop.load(SeqCst) {
                    break;
                }
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                std::thread::sleep(Duration::from_micros(x % 400));
                let side = dir.path().join(".editor-save");
                std::fs::write(&side, format!("ext {n}\n")).unwrap();
                std::fs::rename(&side, &target).unwrap();
                let base = saved.load(SeqCst);
                let deadline = Instant::now() + Duration::from_secs(20);
                loop {
                    // `saved` before `seen`: a read of `n` precedes the
                    // saves that follow it, so it cannot be missed here.
                    let after = saved.load(SeqCst);
                    if seen.load(SeqCst) >= n || stop.load(SeqCst) {
                        break;
                    }
                    if after >= base + 2 || Instant::now() > deadline {
                        lost.push(n);
                        break;
                    }
                    std::thread::sleep(Duration::from_micros(20));
                }
            }
            stop.store(true, SeqCst);
            lost
        });
        let mut hash = reload();
        let mut failure = None;
        // Each of Redline's saves: its hash, and the hash it was based on.
        let mut based_on = std::collections::HashMap::new();
        for k in 0.. {
            if stop.load(SeqCst) {
                break;
            }
            let mine = format!("mine {k} based on {hash}\n");
            match project.write_checked("a.md", mine.as_bytes(), Some(&hash)) {
                Ok(new) => {
                    based_on.insert(new.clone(), hash.clone());
                    hash = new;
                    saved.fetch_add(1, SeqCst);
                }
                Err(WriteError::Conflict { .. }) => hash = reload(),
                Err(e) => {
                    failure = Some(e.to_string());
                    stop.store(true, SeqCst);
                }
            }
        }
        (editor.join().unwrap(), (failure, based_on))
    });
    let (failure, based_on) = failure;

    assert_eq!(failure, None);
    assert!(
        lost.is_empty(),
        "{} of {SAVES} saves overwritten unseen (seed {seed}): {lost:?}",
        lost.len()
    );
    // The file ends as the editor's last save, or as a chain of
    // Redline's saves that goes back to it (Redline may save again on
    // top of its own save before it sees the editor stop).
    let last = text::content_hash(format!("ext {}\n", SAVES - 1).as_bytes());
    let end = std::fs::read_to_string(&target).unwrap();
    let mut at = text::content_hash(end.as_bytes());
    while at != last {
        at = based_on
            .get(&at)
            .unwrap_or_else(|| panic!("the file ends with {end:?}, not on the editor's last save"))
            .clone();
    }
    assert_eq!(names(dir.path()), ["a.md"]);
    eprintln!("{SAVES} concurrent saves in {:?}", started.elapsed());
}
