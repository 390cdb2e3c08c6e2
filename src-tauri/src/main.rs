//! Redline's desktop shell: one window hosting the UI (`ui/dist`), which
//! reaches the engine through four commands and nothing else.
//!
//! - `api`: one call through the HTTP server's routes, in-process
//!   ([`redline::api::local`]) — everything about the open project;
//! - `open_folder`, `pick_folder` (the native dialog, shown from Rust),
//!   `recent_folders`.
//!
//! `redline-desktop [FOLDER]` opens FOLDER at start; launched again while it
//! runs, it hands FOLDER to the window already open and ends
//! ([`single_instance`]). Closing the window while files hold unsaved work
//! asks first. The webview is granted no other
//! permission (`capabilities/main.json`, `build.rs`).

mod recent;
mod shell;
mod single_instance;

use std::path::PathBuf;

use redline::api::ProjectInfo;
use redline::api::local::{LocalReply, LocalRequest};
use tauri::{AppHandle, Manager, RunEvent, State, WindowEvent};
use tauri_plugin_dialog::{DialogExt, MessageDialogButtons, MessageDialogKind};

use crate::recent::RecentFolders;
use crate::shell::Shell;

/// One UI call through the open project's routes (`409 no_project` when no
/// folder is open). Never fails: errors are replies (an async command that
/// borrows state must still return a `Result`).
#[tauri::command]
async fn api(shell: State<'_, Shell>, request: LocalRequest) -> Result<LocalReply, ()> {
    Ok(shell.call(request).await)
}

/// Opens `path` (closing the folder open before) and remembers it.
#[tauri::command]
async fn open_folder(shell: State<'_, Shell>, path: String) -> Result<ProjectInfo, String> {
    shell.open(&PathBuf::from(path)).map_err(|e| e.to_string())
}

/// Asks for a folder with the native dialog; `None` when cancelled.
#[tauri::command]
async fn pick_folder(app: AppHandle) -> Option<String> {
    let mut dialog = app.dialog().file().set_title("Open a folder");
    if let Some(window) = app.get_webview_window("main") {
        dialog = dialog.set_parent(&window);
    }
    let picked = dialog.blocking_pick_folder()?;
    Some(picked.into_path().ok()?.display().to_string())
}

/// The recently opened folders that still exist, most recent first (at most 10).
#[tauri::command]
fn recent_folders(shell: State<'_, Shell>) -> Vec<String> {
    shell.recent_folders()
}

/// The folder given on the command line: the first argument that is not an
/// option (WebKitWebDriver adds `--automation` when it starts the app).
fn folder_argument() -> Option<PathBuf> {
    std::env::args_os()
        .skip(1)
        .find(|arg| !arg.to_string_lossy().starts_with('-'))
        .map(PathBuf::from)
}

/// Redline's data directory (`$REDLINE_DATA_DIR`, else the platform's):
/// where the recent folders are kept and the running app listens.
fn data_dir() -> PathBuf {
    let config = redline::config::Config::load().unwrap_or_else(|e| {
        tracing::warn!(error = %e, "configuration not loaded; using the defaults");
        redline::config::Config::default()
    });
    config.data_dir()
}

/// Opens `folder`, handed over by a later launch, in the window (asking
/// first when the folder open now has unsaved work), and brings the
/// window forward; a launch that named no folder only brings it forward.
fn open_handed(app: &AppHandle, folder: Option<PathBuf>) {
    let Some(window) = app.get_webview_window("main") else {
        return;
    };
    let _ = window.unminimize();
    let _ = window.show();
    let _ = window.set_focus();
    let Some(folder) = folder else { return };
    let open = {
        let window = window.clone();
        move || {
            // Inside the async runtime, as at start (see `Shell::open`).
            let shell = window.state::<Shell>();
            let opened = tauri::async_runtime::block_on(async { shell.open(&folder) });
            match opened {
                // The page lists the project it is given at load.
                Ok(_) => {
                    let _ = window.eval("window.location.reload()");
                }
                Err(e) => {
                    tracing::warn!(folder = %folder.display(), error = %e, "cannot open the folder");
                    window
                        .dialog()
                        .message(e.to_string())
                        .title("Cannot open the folder")
                        .kind(MessageDialogKind::Error)
                        .parent(&window)
                        .show(|_| {});
                }
            }
        }
    };
    let unsaved = window.state::<Shell>().unsaved_files();
    if unsaved.is_empty() {
        return open();
    }
    window
        .dialog()
        .message(shell::unsaved_question(
            unsaved.len(),
            "Open the other folder",
        ))
        .title("Unsaved changes")
        .kind(MessageDialogKind::Warning)
        .buttons(MessageDialogButtons::OkCancelCustom(
            "Open".into(),
            "Cancel".into(),
        ))
        .parent(&window)
        .show(move |yes| {
            if yes {
                open();
            }
        });
}

/// Prevents closing `window` while files hold unsaved work, and closes it
/// once the user confirms with the native dialog.
fn confirm_close(window: &tauri::Window, api: &tauri::CloseRequestApi) {
    let unsaved = window.state::<Shell>().unsaved_files();
    if unsaved.is_empty() {
        return;
    }
    api.prevent_close();
    let closing = window.clone();
    window
        .dialog()
        .message(shell::unsaved_question(unsaved.len(), "Close"))
        .title("Unsaved changes")
        .kind(MessageDialogKind::Warning)
        .buttons(MessageDialogButtons::OkCancelCustom(
            "Close anyway".into(),
            "Cancel".into(),
        ))
        .parent(window)
        .show(move |close| {
            if close && let Err(e) = closing.destroy() {
                tracing::warn!(error = %e, "cannot close the window");
            }
        });
}

fn main() -> Result<(), tauri::Error> {
    redline::logging::init();
    let data_dir = data_dir();
    let socket = single_instance::socket_path(&data_dir);
    let listener = match single_instance::claim(&socket, folder_argument().as_deref()) {
        Ok(single_instance::Launch::Handed) => return Ok(()),
        Ok(single_instance::Launch::First(listener)) => Some(listener),
        Err(e) => {
            tracing::warn!(socket = %socket.display(), error = %e, "a later launch will open a second window");
            None
        }
    };
    let app = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .manage(Shell::new(RecentFolders::new(
            data_dir.join("desktop-recent-folders.json"),
        )))
        .invoke_handler(tauri::generate_handler![
            api,
            open_folder,
            pick_folder,
            recent_folders
        ])
        .setup(move |app| {
            if let Some(listener) = listener {
                let handle = app.handle().clone();
                single_instance::serve(listener, move |folder| {
                    let on_main = handle.clone();
                    let _ = handle.run_on_main_thread(move || open_handed(&on_main, folder));
                });
            }
            if let Some(folder) = folder_argument() {
                let shell = app.state::<Shell>();
                // Opened before the page loads, inside the async runtime (the
                // engine resumes waiting jobs as tasks); a folder that cannot
                // be opened leaves the open-folder screen.
                let opened = tauri::async_runtime::block_on(async { shell.open(&folder) });
                if let Err(e) = opened {
                    tracing::warn!(folder = %folder.display(), error = %e, "cannot open the folder");
                    eprintln!("redline-desktop: {e}");
                }
            }
            Ok(())
        })
        .on_window_event(|window, event| {
            if let WindowEvent::CloseRequested { api, .. } = event {
                confirm_close(window, api);
            }
        })
        .build(tauri::generate_context!())?;
    app.run(move |app, event| {
        if let RunEvent::Exit = event {
            app.state::<Shell>().close();
            let _ = std::fs::remove_file(&socket);
        }
    });
    Ok(())
}
