//! Which running Redline has a folder open: a lock file in the project's
//! data folder (`<data_dir>/projects/<key>/instance.json`, readable by the
//! user only) holding the loopback port and token of the Redline serving it.
//! `redline serve` and the app write it while they serve the folder;
//! `redline mcp` reads it to bridge another agent into the open review
//! rather than open the project a second time.

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::store::Store;

/// The lock file's name in the project's data folder.
const FILE: &str = "instance.json";
/// How long [`find`] waits for a listed instance to answer.
const CONNECT_TIMEOUT: Duration = Duration::from_millis(500);

/// A running Redline serving a folder, as its lock file says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instance {
    /// The folder it serves (canonical).
    pub root: PathBuf,
    /// Its loopback port.
    pub port: u16,
    /// The token its API and `/mcp` require.
    pub token: String,
    /// Its process.
    pub pid: u32,
}

impl Instance {
    /// Its MCP endpoint (streamable HTTP).
    pub fn mcp_url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

/// Holds the lock file of a served folder; dropping it removes the file
/// (unless another instance has claimed the folder since).
#[derive(Debug)]
pub struct Claim {
    path: PathBuf,
    token: String,
}

impl Drop for Claim {
    fn drop(&mut self) {
        if read(&self.path).is_some_and(|i| i.token == self.token) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Records that this process serves `root` on `port` with `token`, for as
/// long as the returned claim lives. A later claim on the same folder
/// replaces it: the newest instance is the one bridged to.
pub fn claim(data_dir: &Path, root: &Path, port: u16, token: &str) -> std::io::Result<Claim> {
    let dir = Store::project_dir(data_dir, root);
    std::fs::create_dir_all(&dir)?;
    let instance = Instance {
        root: root.to_owned(),
        port,
        token: token.to_owned(),
        pid: std::process::id(),
    };
    // A temporary file is created readable by its owner only (0600) and
    // renamed into place: no reader ever sees half a file or a wider mode.
    let mut file = tempfile::NamedTempFile::new_in(&dir)?;
    file.write_all(&serde_json::to_vec_pretty(&instance).map_err(std::io::Error::other)?)?;
    let path = dir.join(FILE);
    file.persist(&path).map_err(|e| e.error)?;
    Ok(Claim {
        path,
        token: instance.token,
    })
}

/// The running Redline serving `root`, if its lock file names one that
/// answers on its port. A lock file left by a process that died is ignored.
pub fn find(data_dir: &Path, root: &Path) -> Option<Instance> {
    let instance = read(&Store::project_dir(data_dir, root).join(FILE))?;
    let addr = SocketAddr::from(([127, 0, 0, 1], instance.port));
    TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT).ok()?;
    (instance.root == root).then_some(instance)
}

fn read(path: &Path) -> Option<Instance> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_is_found_while_it_lives_and_answers() {
        let data = tempfile::tempdir().unwrap();
        let root = Path::new("/notes");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let claim = claim(data.path(), root, port, "secret").unwrap();
        let found = find(data.path(), root).expect("found");
        assert_eq!((found.port, found.token.as_str()), (port, "secret"));
        assert_eq!(found.mcp_url(), format!("http://127.0.0.1:{port}/mcp"));
        assert_eq!(find(data.path(), Path::new("/other")), None);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&claim.path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "the token is the user's only");
        }
        drop(listener);
        // The port just freed may be taken at once by another test's server
        // (tests run side by side); port 1 (tcpmux, served by nothing here)
        // is one where surely nothing answers.
        let dead = super::claim(data.path(), root, 1, "secret").unwrap();
        assert_eq!(find(data.path(), root), None, "nothing answers there");
        drop(dead);
        drop(claim);
        assert!(!Store::project_dir(data.path(), root).join(FILE).exists());
    }

    #[test]
    fn the_newest_claim_wins_and_an_older_one_leaves_it_alone() {
        let data = tempfile::tempdir().unwrap();
        let root = Path::new("/notes");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let old = claim(data.path(), root, 1, "old").unwrap();
        let new = claim(data.path(), root, port, "new").unwrap();
        drop(old);
        assert_eq!(find(data.path(), root).unwrap().token, "new");
        drop(new);
        assert_eq!(find(data.path(), root), None);
    }
}
