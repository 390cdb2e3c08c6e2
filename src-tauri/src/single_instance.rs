//! One app per user: a second `redline-desktop [FOLDER]` hands its folder
//! to the app already running and ends, as a file manager's "Open folder in
//! Redline" expects.
//!
//! The running app listens on a Unix socket in Redline's data directory
//! (`desktop.sock`, the user's own), so two data directories (tests, a
//! second profile) are two apps. A launch connects first: when an app
//! answers, it sends one line, the folder's path (empty for none), waits
//! for the app's `ok` and ends; when none answers, it takes the socket.
//! Written here rather than taken from Tauri's single-instance plugin,
//! which on Linux needs a D-Bus session bus (it panics without one, as
//! under Xvfb in CI) and makes one app of every data directory.

use std::io::{self, BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The longest socket path Linux takes (`sun_path` is 108 bytes, with its NUL).
const MAX_SOCKET_PATH: usize = 107;

/// How long a launch waits for the running app to take its folder.
const HAND_OVER_TIMEOUT: Duration = Duration::from_secs(5);

/// What a launch is.
pub enum Launch {
    /// The first: it listens for the launches after it.
    First(UnixListener),
    /// A later one: the running app took its folder.
    Handed,
}

/// The socket of the app using `data_dir`: `desktop.sock` there, or, when
/// that path is too long for a socket, one named for it in the runtime
/// directory.
pub fn socket_path(data_dir: &Path) -> PathBuf {
    let path = data_dir.join("desktop.sock");
    if path.as_os_str().len() <= MAX_SOCKET_PATH {
        return path;
    }
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    data_dir.hash(&mut hasher);
    let dir = std::env::var_os("XDG_RUNTIME_DIR").map_or_else(std::env::temp_dir, PathBuf::from);
    dir.join(format!("redline-desktop-{:016x}.sock", hasher.finish()))
}

/// Hands `folder` to the app listening on `socket`, or, when none does,
/// listens there.
pub fn claim(socket: &Path, folder: Option<&Path>) -> io::Result<Launch> {
    match hand_over(socket, folder) {
        Ok(()) => return Ok(Launch::Handed),
        // Nobody listens: a socket file left by an app that crashed, or none.
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused
            ) => {}
        Err(e) => return Err(e),
    }
    if let Some(dir) = socket.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let _ = std::fs::remove_file(socket);
    match UnixListener::bind(socket) {
        Ok(listener) => Ok(Launch::First(listener)),
        // Another launch took it a moment ago: hand over to that one.
        Err(e) if e.kind() == io::ErrorKind::AddrInUse => {
            hand_over(socket, folder)?;
            Ok(Launch::Handed)
        }
        Err(e) => Err(e),
    }
}

/// Sends `folder` to the app on `socket` and waits for its `ok`.
fn hand_over(socket: &Path, folder: Option<&Path>) -> io::Result<()> {
    let mut stream = UnixStream::connect(socket)?;
    stream.set_read_timeout(Some(HAND_OVER_TIMEOUT))?;
    let line = folder.map_or_else(String::new, |f| {
        std::path::absolute(f)
            .unwrap_or_else(|_| f.to_owned())
            .display()
            .to_string()
    });
    writeln!(stream, "{line}")?;
    let mut answer = String::new();
    BufReader::new(stream).read_line(&mut answer)?;
    if answer.trim() == "ok" {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "the running app did not take the folder: {answer:?}"
        )))
    }
}

/// Answers the launches after the first, on a thread of its own: each
/// one's folder (`None` when it named none) goes to `opened`, then it is
/// told `ok`.
pub fn serve(listener: UnixListener, opened: impl Fn(Option<PathBuf>) + Send + 'static) {
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let mut line = String::new();
            let mut reader = BufReader::new(&stream);
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            let line = line.trim_end_matches(['\n', '\r']);
            opened((!line.is_empty()).then(|| PathBuf::from(line)));
            let _ = (&stream).write_all(b"ok\n");
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn a_second_launch_hands_its_folder_to_the_first_and_a_stale_socket_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let socket = socket_path(dir.path());
        // A socket file left by an app that crashed.
        drop(UnixListener::bind(&socket).unwrap());
        let Launch::First(listener) = claim(&socket, None).unwrap() else {
            panic!("the first launch listens");
        };
        let (sent, received) = mpsc::channel();
        serve(listener, move |folder| sent.send(folder).unwrap());

        let notes = dir.path().join("Notes — été");
        assert!(matches!(
            claim(&socket, Some(&notes)).unwrap(),
            Launch::Handed
        ));
        assert_eq!(received.recv().unwrap(), Some(notes));
        assert!(matches!(claim(&socket, None).unwrap(), Launch::Handed));
        assert_eq!(received.recv().unwrap(), None);
    }

    #[test]
    fn a_data_directory_too_deep_for_a_socket_uses_the_runtime_directory() {
        let deep = PathBuf::from("/").join("d".repeat(120));
        let socket = socket_path(&deep);
        assert!(
            socket.as_os_str().len() <= MAX_SOCKET_PATH,
            "{}",
            socket.display()
        );
        assert_eq!(socket, socket_path(&deep), "the same every launch");
        assert_eq!(
            socket_path(Path::new("/home/a/.local/share/redline")),
            Path::new("/home/a/.local/share/redline/desktop.sock")
        );
    }
}
