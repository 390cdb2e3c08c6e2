//! `redline doctor`: what this machine needs to run Redline, checked one
//! thing at a time, each miss with the one line that fixes it.
//!
//! The checks read the machine as it is and change nothing (the data
//! directory check writes one file and removes it).

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::Config;

/// How one check came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// What Redline needs is there.
    Ok,
    /// Redline runs, with less: the fix says what is missing.
    Warn,
    /// Redline cannot do this part: the fix says how to get it.
    Miss,
}

/// One thing checked.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    /// What was checked, in a few words.
    pub name: &'static str,
    /// How it came out.
    pub outcome: Outcome,
    /// What was found.
    pub found: String,
    /// The one line that fixes a warning or a miss; `None` when it is fine.
    pub fix: Option<String>,
}

impl Check {
    fn new(name: &'static str, outcome: Outcome, found: String, fix: Option<String>) -> Check {
        Check {
            name,
            outcome,
            found,
            fix,
        }
    }
}

/// Every check, in the order they are printed: the desktop window's
/// runtime, the keychain, the file watch limit against `folder`'s folders
/// (when given), the data directory, a local model server.
pub async fn checks(config: &Config, folder: Option<&Path>) -> Vec<Check> {
    let mut checks = vec![webkit(), keychain()];
    if let Some(folder) = folder {
        checks.push(watches(folder));
    }
    checks.push(data_dir(&config.data_dir()));
    checks.push(model_server().await);
    checks
}

/// The shared library the desktop window is drawn with.
const WEBKIT_LIBRARY: &str = "libwebkit2gtk-4.1.so.0";

/// Where a distribution keeps shared libraries.
const LIBRARY_DIRS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/lib/x86_64-linux-gnu",
    "/lib64",
    "/lib",
];

fn webkit() -> Check {
    let name = "WebKitGTK (the desktop window)";
    match LIBRARY_DIRS
        .iter()
        .map(|dir| Path::new(dir).join(WEBKIT_LIBRARY))
        .find(|path| path.exists())
    {
        Some(path) => Check::new(name, Outcome::Ok, path.display().to_string(), None),
        None => Check::new(
            name,
            Outcome::Miss,
            format!(
                "{WEBKIT_LIBRARY} not found: the desktop app cannot start (the command line can)"
            ),
            Some(
                "sudo apt install libwebkit2gtk-4.1-0   (Fedora: sudo dnf install webkit2gtk4.1)"
                    .into(),
            ),
        ),
    }
}

fn keychain() -> Check {
    let name = "Keychain (provider keys)";
    match crate::providers::keys::keychain_reachable() {
        Ok(()) => Check::new(
            name,
            Outcome::Ok,
            "the Secret Service answers: keys are kept across restarts".into(),
            None,
        ),
        Err(why) => Check::new(
            name,
            Outcome::Warn,
            format!("no keychain ({why}): a key entered in Redline is kept for the session only"),
            Some(
                "install and unlock a Secret Service keyring (sudo apt install gnome-keyring), or set OPENAI_API_KEY / ANTHROPIC_API_KEY"
                    .into(),
            ),
        ),
    }
}

/// Where Linux says how many folders one user may watch.
const WATCH_LIMIT: &str = "/proc/sys/fs/inotify/max_user_watches";

fn watches(folder: &Path) -> Check {
    let name = "File watch limit (inotify)";
    let folders = count_folders(folder);
    let Some(limit) = std::fs::read_to_string(WATCH_LIMIT)
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
    else {
        return Check::new(
            name,
            Outcome::Ok,
            format!(
                "{folders} folders in {}; no inotify limit to read",
                folder.display()
            ),
            None,
        );
    };
    watch_check(folder, folders, limit)
}

/// The watch check for a vault of `folders` folders under a limit of
/// `limit` watches: every folder takes one, and other programs (editors,
/// sync clients) take theirs from the same allowance, so a vault needs
/// room to spare.
fn watch_check(folder: &Path, folders: u64, limit: u64) -> Check {
    let name = "File watch limit (inotify)";
    let found = format!(
        "{folders} folders in {} against a limit of {limit} watches",
        folder.display()
    );
    if folders * 2 <= limit {
        return Check::new(name, Outcome::Ok, found, None);
    }
    let wanted = (folders * 4).max(524_288).next_power_of_two();
    Check::new(
        name,
        if folders >= limit {
            Outcome::Miss
        } else {
            Outcome::Warn
        },
        format!("{found}: changes made by other programs may go unnoticed"),
        Some(format!(
            "echo fs.inotify.max_user_watches={wanted} | sudo tee /etc/sysctl.d/60-redline.conf && sudo sysctl --system"
        )),
    )
}

/// The folders under `root` (itself included), as the watcher watches them.
fn count_folders(root: &Path) -> u64 {
    walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_dir())
        .count() as u64
}

fn data_dir(dir: &Path) -> Check {
    let name = "Data directory (reviews, checkpoints, settings)";
    match writable(dir) {
        Ok(()) => Check::new(name, Outcome::Ok, dir.display().to_string(), None),
        Err(e) => Check::new(
            name,
            Outcome::Miss,
            format!("{} is not writable: {e}", dir.display()),
            Some(format!(
                "mkdir -p '{0}' && chown \"$USER\" '{0}'   (or set REDLINE_DATA_DIR to a writable folder)",
                dir.display()
            )),
        ),
    }
}

/// Whether a file can be made (and removed) in `dir`, creating it first.
fn writable(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let probe: PathBuf = dir.join(format!(".redline-doctor-{}", std::process::id()));
    std::fs::write(&probe, b"probe")?;
    std::fs::remove_file(&probe)
}

async fn model_server() -> Check {
    let name = "Local model server";
    let servers =
        crate::providers::detect::local_servers(&crate::providers::detect::candidates()).await;
    if let Some(server) = servers.first() {
        let models = if server.models.is_empty() {
            "no model pulled yet".to_owned()
        } else {
            server.models.join(", ")
        };
        return Check::new(
            name,
            Outcome::Ok,
            format!("{} at {} ({models})", server.label, server.base_url),
            None,
        );
    }
    if let Some(bundled) = crate::setup::bundled().await {
        return Check::new(
            name,
            Outcome::Ok,
            format!(
                "the bundled model at {} ({})",
                bundled.base_url,
                if bundled.running {
                    "running"
                } else {
                    "built, started on first use"
                }
            ),
            None,
        );
    }
    Check::new(
        name,
        Outcome::Warn,
        "none answers (Ollama, LM Studio, llama.cpp, vLLM on their usual ports): runs need a hosted provider's key".into(),
        Some("start one (e.g. `ollama serve`), or set a provider key in Redline's setup card".into()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vault_with_more_folders_than_the_limit_is_told_the_sysctl_line() {
        let vault = Path::new("/notes");
        let fine = watch_check(vault, 1_000, 65_536);
        assert_eq!((fine.outcome, fine.fix), (Outcome::Ok, None));
        let tight = watch_check(vault, 40_000, 65_536);
        assert_eq!(tight.outcome, Outcome::Warn);
        let over = watch_check(vault, 100_000, 65_536);
        assert_eq!(over.outcome, Outcome::Miss);
        let fix = over.fix.unwrap();
        assert!(
            fix.contains("fs.inotify.max_user_watches=524288") && fix.contains("sysctl"),
            "{fix}"
        );
        assert!(over.found.contains("100000 folders"), "{}", over.found);
    }

    #[test]
    fn the_folders_of_a_vault_are_counted_with_its_root() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("Notes/Réunions")).unwrap();
        std::fs::create_dir_all(dir.path().join("日記")).unwrap();
        std::fs::write(dir.path().join("Notes/a.md"), "a").unwrap();
        assert_eq!(count_folders(dir.path()), 4);
    }

    #[test]
    fn a_data_directory_that_cannot_be_written_is_a_miss_with_its_fix() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a-file");
        std::fs::write(&file, "not a folder").unwrap();
        let check = data_dir(&file.join("data"));
        assert_eq!(check.outcome, Outcome::Miss);
        assert!(check.fix.unwrap().contains("REDLINE_DATA_DIR"));
        let fine = data_dir(&dir.path().join("data"));
        assert_eq!(fine.outcome, Outcome::Ok);
        assert_eq!(
            std::fs::read_dir(dir.path().join("data")).unwrap().count(),
            0,
            "the probe is gone"
        );
    }
}
