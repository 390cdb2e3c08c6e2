//! Generates the Tauri context and the permissions of the shell's own
//! commands. Listing them in an app manifest turns off Tauri's default of
//! allowing every app command to every window: only what
//! `capabilities/main.json` grants can be invoked.

fn main() {
    tauri_build::try_build(tauri_build::Attributes::new().app_manifest(
        tauri_build::AppManifest::new().commands(&[
            "api",
            "open_folder",
            "pick_folder",
            "recent_folders",
        ]),
    ))
    .expect("tauri-build failed");
}
