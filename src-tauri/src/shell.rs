//! The open project, if any: one folder at a time, opened the way
//! `redline serve` opens it, and reached through [`Local`] — the HTTP
//! server's routes, in-process. It is also served on loopback, behind a
//! per-launch token, and recorded in the folder's lock file, so that other
//! agents' `redline mcp` bridge into the review open here.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use redline::api::local::{Local, LocalReply, LocalRequest};
use redline::api::{Api, ProjectInfo};
use redline::config::{Config, ConfigError};
use redline::jobs::{Runtime, RuntimeError};
use redline::watch::{WatchError, Watcher};

use crate::recent::RecentFolders;

/// Why a folder could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The path is not an existing folder.
    #[error("`{0}` is not a folder")]
    NotAFolder(String),
    /// The configuration file is malformed.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The engine refused the project (its store, its providers).
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    /// The folder cannot be watched for other editors' changes.
    #[error(transparent)]
    Watch(#[from] WatchError),
}

/// One open project: the engine, its door, and the watcher that must live
/// as long as it does.
struct Project {
    api: Api,
    local: Local,
    root: PathBuf,
    watcher: Option<Watcher>,
    door: tauri::async_runtime::JoinHandle<()>,
}

impl Project {
    /// Stops serving other agents, following the folder and the project's
    /// running jobs.
    fn close(mut self) {
        self.door.abort();
        drop(self.watcher.take());
        self.api.runtime().shutdown();
    }
}

/// Serves `api` on loopback for other agents (`/mcp`, the API) and records
/// it in the folder's lock file under `data_dir`, until the task is aborted
/// (which stops the server and removes the lock file). A door that cannot
/// open is logged: the window works without it, and `redline mcp` then
/// opens the folder itself.
fn open_door(api: Api, data_dir: PathBuf, root: PathBuf) -> tauri::async_runtime::JoinHandle<()> {
    tauri::async_runtime::spawn(async move {
        let served = match redline::api::http::serve(api, 0, None).await {
            Ok(served) => served,
            Err(e) => return tracing::warn!(error = %e, "cannot serve the folder to other agents"),
        };
        let claim = redline::instance::claim(&data_dir, &root, served.addr.port(), &served.token);
        if let Err(e) = &claim {
            tracing::warn!(error = %e, "cannot record the folder's lock file");
        }
        std::future::pending::<()>().await;
        drop((served, claim));
    })
}

/// The shell's state: the open project and the recent folders.
pub struct Shell {
    project: Mutex<Option<Project>>,
    recent: RecentFolders,
}

impl Shell {
    /// No project open yet; recent folders kept in `recent`.
    pub fn new(recent: RecentFolders) -> Shell {
        Shell {
            project: Mutex::new(None),
            recent,
        }
    }

    /// Opens `folder`, closing the project open before (unless it is the
    /// same folder, which stays open as it is), and puts it first among the
    /// recent folders. Must run inside the Tokio runtime: the engine resumes
    /// the project's waiting jobs as tasks.
    pub fn open(&self, folder: &Path) -> Result<ProjectInfo, OpenError> {
        let not_a_folder = || OpenError::NotAFolder(folder.display().to_string());
        let root = std::fs::canonicalize(folder).map_err(|_| not_a_folder())?;
        if !root.is_dir() {
            return Err(not_a_folder());
        }
        let mut open = self.lock();
        if let Some(project) = open.as_ref().filter(|p| p.root == root) {
            return Ok(project.api.project());
        }
        // One engine per folder at a time: the old one lets go of its store
        // before the next one opens (a failed open leaves none open).
        if let Some(previous) = open.take() {
            previous.close();
        }
        let config = Config::load()?;
        let data_dir = config.data_dir();
        let runtime = Runtime::open(&root, config)?;
        let watcher = match redline::watch::start(runtime.clone()) {
            Ok(watcher) => watcher,
            Err(e) => {
                runtime.shutdown();
                return Err(e.into());
            }
        };
        let api = Api::new(runtime).with_config_file(redline::config::config_file());
        let info = api.project();
        *open = Some(Project {
            local: Local::new(api.clone()),
            door: open_door(api.clone(), data_dir, root.clone()),
            api,
            root,
            watcher: Some(watcher),
        });
        drop(open);
        if let Err(e) = self.recent.remember(&info.root) {
            tracing::warn!(error = %e, "cannot save the recent folders");
        }
        Ok(info)
    }

    /// Answers one UI call through the open project's routes; `409
    /// no_project` when no folder is open.
    pub async fn call(&self, request: LocalRequest) -> LocalReply {
        // The door is cloned out so that no lock is held across the call
        // (a long poll waits there for seconds).
        let local = self.lock().as_ref().map(|p| p.local.clone());
        match local {
            Some(local) => local.call(request).await,
            None => LocalReply {
                status: 409,
                body: serde_json::json!({
                    "error": { "code": "no_project", "message": "no folder is open" }
                }),
            },
        }
    }

    /// The recently opened folders that still exist, most recent first.
    pub fn recent_folders(&self) -> Vec<String> {
        self.recent.list()
    }

    /// The files of the open project whose working buffer holds unsaved work.
    pub fn unsaved_files(&self) -> Vec<String> {
        let open = self.lock();
        let Some(project) = open.as_ref() else {
            return Vec::new();
        };
        project
            .api
            .runtime()
            .files_under_review()
            .into_iter()
            .filter(|path| project.api.file(path).is_ok_and(|f| f.state.dirty))
            .collect()
    }

    /// Closes the open project, if any.
    pub fn close(&self) {
        if let Some(project) = self.lock().take() {
            project.close();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Project>> {
        self.project.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The question asked before `doing` something (closing the window,
/// opening another folder) with unsaved work: "… `doing` anyway?".
pub fn unsaved_question(count: usize, doing: &str) -> String {
    if count == 1 {
        format!("1 file has unsaved changes. {doing} anyway?")
    } else {
        format!("{count} files have unsaved changes. {doing} anyway?")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str, path: &str, body: Option<serde_json::Value>) -> LocalRequest {
        LocalRequest {
            method: method.into(),
            path: path.into(),
            body,
        }
    }

    #[test]
    fn the_question_counts_the_files() {
        assert_eq!(
            unsaved_question(1, "Close"),
            "1 file has unsaved changes. Close anyway?"
        );
        assert_eq!(
            unsaved_question(3, "Close"),
            "3 files have unsaved changes. Close anyway?"
        );
    }

    // One test for everything that reads the process environment
    // (REDLINE_DATA_DIR, REDLINE_CONFIG), so that no two tests race on it.
    #[tokio::test(flavor = "multi_thread")]
    async fn opens_forwards_switches_and_reports_unsaved_work() {
        let dir = tempfile::tempdir().unwrap();
        // SAFETY: the only test of this binary that touches the environment.
        unsafe {
            std::env::set_var("REDLINE_DATA_DIR", dir.path().join("data"));
            std::env::set_var("REDLINE_CONFIG", dir.path().join("none.toml"));
            std::env::set_var("REDLINE_NO_KEYCHAIN", "1");
        }
        let one = dir.path().join("one");
        let two = dir.path().join("two");
        for folder in [&one, &two] {
            std::fs::create_dir(folder).unwrap();
            std::fs::write(folder.join("a.md"), "alpha\n").unwrap();
        }
        let shell = Shell::new(RecentFolders::new(dir.path().join("recent.json")));

        let closed = shell.call(request("GET", "/api/project", None)).await;
        assert_eq!(closed.status, 409);
        assert_eq!(closed.body["error"]["code"], "no_project");
        assert!(matches!(
            shell.open(&dir.path().join("missing")),
            Err(OpenError::NotAFolder(_))
        ));

        let info = shell.open(&one).unwrap();
        assert_eq!(info.name, "one");
        let project = shell.call(request("GET", "/api/project", None)).await;
        assert_eq!(project.status, 200);
        assert_eq!(project.body["name"], "one");
        assert!(shell.unsaved_files().is_empty());

        // An edit through the editor's route leaves unsaved work.
        let file = shell
            .call(request("GET", "/api/files/content?path=a.md", None))
            .await;
        let edited = shell
            .call(request(
                "PUT",
                "/api/files/buffer",
                Some(serde_json::json!({
                    "path": "a.md",
                    "base_hash": file.body["hash"],
                    "text": "alpha, edited\n",
                })),
            ))
            .await;
        assert_eq!(edited.status, 200, "{}", edited.body);
        assert_eq!(shell.unsaved_files(), vec!["a.md".to_owned()]);

        let info = shell.open(&two).unwrap();
        assert_eq!(info.name, "two");
        assert!(shell.unsaved_files().is_empty());
        let project = shell.call(request("GET", "/api/project", None)).await;
        assert_eq!(project.body["name"], "two");

        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap().display().to_string();
        assert_eq!(
            shell.recent_folders(),
            vec![canonical(&two), canonical(&one)]
        );

        shell.close();
        let closed = shell.call(request("GET", "/api/project", None)).await;
        assert_eq!(closed.status, 409);
    }
}
