//! What the MCP tests share: the Python with the official MCP SDK, and
//! `redline serve` run as the user runs it.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The Python with the `mcp` package (`REDLINE_MCP_PYTHON`, which
/// `scripts/test` makes); `None` skips, unless `REDLINE_REQUIRE_MCP` is set.
pub fn python() -> Option<PathBuf> {
    let found = std::env::var_os("REDLINE_MCP_PYTHON").map(PathBuf::from);
    if found.is_none() && std::env::var_os("REDLINE_REQUIRE_MCP").is_some() {
        panic!("REDLINE_REQUIRE_MCP is set but REDLINE_MCP_PYTHON is not");
    }
    if found.is_none() {
        eprintln!("skipped: no REDLINE_MCP_PYTHON (a Python with the mcp package)");
    }
    found
}

/// The environment a Redline process of these tests runs in: data (and no
/// config file) in `data`, no keychain.
pub fn redline_env(command: &mut Command, data: &Path) {
    command
        .env("REDLINE_DATA_DIR", data)
        .env("REDLINE_CONFIG", data.join("config.toml"))
        .env("REDLINE_NO_KEYCHAIN", "1")
        .env("REDLINE_LOG", "warn");
}

/// A `redline serve FOLDER` process, stopped when dropped.
pub struct Serve {
    child: Child,
    /// Its address, `http://127.0.0.1:<port>`.
    pub base: String,
    /// Its token.
    pub token: String,
}

impl Serve {
    /// Starts `redline serve folder` with its data in `data`; returns once
    /// it has printed its URL.
    pub fn start(folder: &Path, data: &Path) -> Serve {
        Serve::start_with(folder, data, &[])
    }

    /// Starts `redline serve folder` as [`Serve::start`] does, with `env`
    /// set too (a provider's key, say).
    pub fn start_with(folder: &Path, data: &Path, env: &[(&str, &str)]) -> Serve {
        let mut command = Command::new(env!("CARGO_BIN_EXE_redline"));
        command.arg("serve").arg(folder).stdout(Stdio::piped());
        redline_env(&mut command, data);
        command.envs(env.iter().copied());
        let mut child = command.spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let (base, token) = line
            .trim()
            .split_once("/?token=")
            .unwrap_or_else(|| panic!("serve printed {line:?}"));
        Serve {
            base: base.to_owned(),
            token: token.to_owned(),
            child,
        }
    }

    /// `GET path` with the token, as JSON.
    pub async fn get(&self, path: &str) -> serde_json::Value {
        let reply = redline::providers::http::client_builder()
            .build()
            .unwrap()
            .get(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .send()
            .await
            .unwrap();
        assert!(reply.status().is_success(), "{path}: {}", reply.status());
        serde_json::from_slice(&reply.bytes().await.unwrap()).unwrap()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `tests/mcp/<script>` with `python` and `args`; fails the test with
/// its output unless it succeeds, and returns the JSON of its last line.
pub fn run_client(python: &Path, script: &str, args: &[&std::ffi::OsStr]) -> serde_json::Value {
    let out = Command::new(python)
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/mcp")
                .join(script),
        )
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the MCP client failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let last = out.stdout.split(|b| *b == b'\n').rfind(|l| !l.is_empty());
    serde_json::from_slice(last.unwrap_or_default()).unwrap()
}
