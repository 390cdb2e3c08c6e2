//! What a folder holds on disk, for tests that compare it before and after.

use std::collections::BTreeMap;
use std::path::Path;

/// Every file under `root` (its path relative to `root`, `/`-separated)
/// and its bytes.
pub fn files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            // The entry's own type: no second look-up by path.
            if entry.file_type().unwrap().is_dir() {
                todo.push(path);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                files.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// Every file under `root` and its text.
#[allow(dead_code)]
pub fn texts(root: &Path) -> BTreeMap<String, String> {
    files(root)
        .into_iter()
        .map(|(path, bytes)| (path, String::from_utf8(bytes).unwrap()))
        .collect()
}

/// Copies every file under `from` to the same path under `to`.
#[allow(dead_code)]
pub fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in files(from) {
        let path = to.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}
