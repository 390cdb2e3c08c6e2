//! The recently opened folders, kept as a JSON list in Redline's data
//! directory (`desktop-recent-folders.json`), most recent first.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// How many folders the list keeps.
pub const MAX_RECENT: usize = 10;

/// The list of recently opened folders, in one file.
pub struct RecentFolders {
    file: PathBuf,
    /// Serializes read-modify-write of the file within this process.
    lock: Mutex<()>,
}

impl RecentFolders {
    /// The list kept in `file` (which need not exist yet).
    pub fn new(file: PathBuf) -> RecentFolders {
        RecentFolders {
            file,
            lock: Mutex::new(()),
        }
    }

    /// The folders, most recent first, at most [`MAX_RECENT`], leaving out
    /// those that no longer exist. A missing or unreadable file is an empty list.
    pub fn list(&self) -> Vec<String> {
        let _held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.read()
            .into_iter()
            .filter(|folder| Path::new(folder).is_dir())
            .take(MAX_RECENT)
            .collect()
    }

    /// Puts `folder` first (once), keeping at most [`MAX_RECENT`].
    pub fn remember(&self, folder: &str) -> io::Result<()> {
        let _held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let mut folders = self.read();
        folders.retain(|f| f != folder);
        folders.insert(0, folder.to_owned());
        folders.truncate(MAX_RECENT);
        self.write(&folders)
    }

    fn read(&self) -> Vec<String> {
        std::fs::read(&self.file)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// Writes a temporary file beside the list and renames it over it, so a
    /// crash never leaves half a list.
    fn write(&self, folders: &[String]) -> io::Result<()> {
        let dir = self.file.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let temporary = self.file.with_extension("json.tmp");
        let json = serde_json::to_vec_pretty(folders).expect("strings serialize");
        std::fs::write(&temporary, json)?;
        std::fs::rename(&temporary, &self.file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_recent_first_once_and_at_most_ten_existing() {
        let dir = tempfile::tempdir().unwrap();
        let recent = RecentFolders::new(dir.path().join("data/recent.json"));
        assert!(recent.list().is_empty(), "no file yet is an empty list");

        let folders: Vec<String> = (0..12)
            .map(|i| {
                let folder = dir.path().join(format!("f{i}"));
                std::fs::create_dir(&folder).unwrap();
                folder.display().to_string()
            })
            .collect();
        for folder in &folders {
            recent.remember(folder).unwrap();
        }
        recent.remember(&folders[5]).unwrap();
        let listed = recent.list();
        assert_eq!(listed.len(), MAX_RECENT);
        assert_eq!(listed[0], folders[5]);
        assert_eq!(listed[1], folders[11]);
        assert_eq!(listed.iter().filter(|f| **f == folders[5]).count(), 1);
        assert!(!listed.contains(&folders[0]), "the oldest fell off");

        std::fs::remove_dir(&folders[11]).unwrap();
        assert!(
            !recent.list().contains(&folders[11]),
            "gone folders are left out"
        );
    }

    #[test]
    fn a_corrupt_file_is_an_empty_list() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("recent.json");
        std::fs::write(&file, "not json").unwrap();
        let recent = RecentFolders::new(file);
        assert!(recent.list().is_empty());
        recent.remember(&dir.path().display().to_string()).unwrap();
        assert_eq!(recent.list(), vec![dir.path().display().to_string()]);
    }
}
