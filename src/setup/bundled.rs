//! The bundled offline model as `scripts/llama-server` caches it: llama.cpp's
//! server, SmolLM2-135M and the functionary template. Found in that cache
//! and started on one fixed port, so the local provider saved when it is
//! picked still points at it next time.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::SetupError;
use crate::providers::detect;

/// The port the bundled server listens on: `REDLINE_BUNDLED_PORT`, else 18181
/// (the port `scripts/run` starts it on).
pub fn port() -> u16 {
    std::env::var("REDLINE_BUNDLED_PORT")
        .ok()
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or(18181)
}

/// The files of a complete cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cache {
    /// `bin/llama-server`.
    pub bin: PathBuf,
    /// The model, `models/SmolLM2-135M-Instruct.Q4_1.gguf`.
    pub model: PathBuf,
    /// The chat template, `templates/functionary-medium-v3.2.jinja`.
    pub template: PathBuf,
}

/// The cache `scripts/llama-server` builds, when complete: under
/// `REDLINE_LLAMA_DIR`, else `$XDG_CACHE_HOME/redline/llama-server`, else
/// `~/.cache/redline/llama-server`.
pub fn cache() -> Option<Cache> {
    let dir = std::env::var_os("REDLINE_LLAMA_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))?;
            Some(cache.join("redline/llama-server"))
        })?;
    cache_in(&dir)
}

/// The cache in `dir`, when complete (the script writes its stamp last).
fn cache_in(dir: &Path) -> Option<Cache> {
    let cache = Cache {
        bin: dir.join("bin/llama-server"),
        model: dir.join("models/SmolLM2-135M-Instruct.Q4_1.gguf"),
        template: dir.join("templates/functionary-medium-v3.2.jinja"),
    };
    let complete = [
        &dir.join("stamp"),
        &cache.bin,
        &cache.model,
        &cache.template,
    ]
    .iter()
    .all(|p| p.is_file());
    complete.then_some(cache)
}

/// How long a start may take: loading a 100 MB model.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// Starts the server from `cache` on loopback `port`, on its own (it
/// outlives Redline, as `scripts/run`'s does), and waits until it answers.
/// Returns its process id.
pub async fn start(cache: &Cache, port: u16) -> Result<u32, SetupError> {
    let mut command = Command::new(&cache.bin);
    command
        .arg("-m")
        .arg(&cache.model)
        .args([
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "--jinja",
        ])
        .arg("--chat-template-file")
        .arg(&cache.template)
        // 8k tokens hold the agent's instructions and tools.
        .args(["-c", "8192", "--temp", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let fail = |message: String| SetupError::Start(message);
    let mut child = command
        .spawn()
        .map_err(|e| fail(format!("{}: {e}", cache.bin.display())))?;
    let pid = child.id();
    let url = format!("http://127.0.0.1:{port}/v1");
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().map_err(|e| fail(e.to_string()))? {
            return Err(fail(format!(
                "llama-server exited ({status}) before it answered: is port {port} taken?"
            )));
        }
        if detect::models(&url).await.is_ok() {
            break;
        }
        if started.elapsed() > START_TIMEOUT {
            let _ = child.kill();
            return Err(fail(format!(
                "llama-server did not answer within {} s",
                START_TIMEOUT.as_secs()
            )));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Reaped when it ends, whenever that is.
    std::thread::spawn(move || child.wait());
    Ok(pid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cache_counts_only_when_complete() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for (path, text) in [
            ("bin/llama-server", "x"),
            ("models/SmolLM2-135M-Instruct.Q4_1.gguf", "x"),
            ("templates/functionary-medium-v3.2.jinja", "x"),
        ] {
            std::fs::create_dir_all(d.join(path).parent().unwrap()).unwrap();
            std::fs::write(d.join(path), text).unwrap();
        }
        assert_eq!(cache_in(d), None, "no stamp: a build was interrupted");
        std::fs::write(d.join("stamp"), "recipe").unwrap();
        let cache = cache_in(d).unwrap();
        assert_eq!(cache.bin, d.join("bin/llama-server"));
        std::fs::remove_file(&cache.template).unwrap();
        assert_eq!(cache_in(d), None);
    }

    #[tokio::test]
    async fn a_server_that_cannot_start_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache {
            bin: dir.path().join("missing-llama-server"),
            model: dir.path().join("m.gguf"),
            template: dir.path().join("t.jinja"),
        };
        let err = start(&cache, 9).await.unwrap_err().to_string();
        assert!(err.contains("missing-llama-server"), "{err}");
    }
}
