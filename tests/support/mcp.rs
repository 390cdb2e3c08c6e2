//! What the tests of other programs share: the Python with the official
//! MCP SDK, the agents' CLIs, and `redline serve` run as the user runs it,
//! decided on over its API as the window does.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The Python with the `mcp` package (`REDLINE_MCP_PYTHON`, which
/// `scripts/test` makes); `None` skips, unless `REDLINE_REQUIRE_MCP` is set.
pub fn python() -> Option<PathBuf> {
    program(
        "REDLINE_MCP_PYTHON",
        "REDLINE_REQUIRE_MCP",
        "a Python with the mcp package",
    )
}

/// The program `var` names (which `scripts/test` installs); `None` skips
/// the test, saying so, unless `require` is set.
pub fn program(var: &str, require: &str, what: &str) -> Option<PathBuf> {
    let found = std::env::var_os(var).map(PathBuf::from);
    if found.is_none() {
        assert!(
            std::env::var_os(require).is_none(),
            "{require} is set but {var} is not"
        );
        eprintln!("skipped: no {var} ({what})");
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

/// Makes `model` (in OpenAI's wire format) the only provider of the Redline
/// whose data is in `data`; it is started with [`SCRIPTED_ENV`] set too.
pub fn use_scripted(data: &Path, model: &redline::testkit::scripted::ScriptedModel) {
    std::fs::write(
        data.join("config.toml"),
        format!(
            "agent_mode = \"remote\"\n[remote]\nprovider = \"openai\"\nmodel = \"scripted-model\"\nbase_url = \"{}\"\n",
            model.base_url(redline::providers::Protocol::OpenAiChat)
        ),
    )
    .unwrap();
}

/// The environment of a Redline whose provider is a scripted model: a key,
/// and no local model server looked for.
pub const SCRIPTED_ENV: [(&str, &str); 3] = [
    ("OPENAI_API_KEY", "sk-scripted-test"),
    ("REDLINE_LOCAL_SERVERS", ""),
    ("REDLINE_BUNDLED_MODEL_URL", ""),
];

/// A `redline serve FOLDER` process, stopped when dropped.
pub struct Serve {
    child: Child,
    /// Its address, `http://127.0.0.1:<port>`.
    pub base: String,
    /// Its token.
    pub token: String,
    /// The hunks [`Serve::decide`] decided, for [`Serve::carried_out`].
    decided: std::sync::Mutex<Vec<String>>,
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
        Serve::spawn(folder, data, env, Stdio::inherit())
    }

    /// Starts `redline serve folder` as [`Serve::start_with`] does, its
    /// log (standard error) written to `log`.
    pub fn start_logged(folder: &Path, data: &Path, env: &[(&str, &str)], log: &Path) -> Serve {
        let log = std::fs::File::create(log).unwrap();
        Serve::spawn(folder, data, env, Stdio::from(log))
    }

    fn spawn(folder: &Path, data: &Path, env: &[(&str, &str)], stderr: Stdio) -> Serve {
        let mut command = Command::new(env!("CARGO_BIN_EXE_redline"));
        command
            .arg("serve")
            .arg(folder)
            .stdout(Stdio::piped())
            .stderr(stderr);
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
            decided: Default::default(),
        }
    }

    /// `GET path` with the token, as JSON.
    pub async fn get(&self, path: &str) -> serde_json::Value {
        self.call(reqwest::Method::GET, path, None).await
    }

    /// `method path` with the token and `body`, as JSON; fails the test
    /// unless it succeeds.
    pub async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<serde_json::Value>,
    ) -> serde_json::Value {
        let mut request = redline::providers::http::client_builder()
            .build()
            .unwrap()
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.token);
        if let Some(body) = body {
            request = request
                .header("content-type", "application/json")
                .body(body.to_string());
        }
        let reply = request.send().await.unwrap();
        let status = reply.status();
        let body = reply.bytes().await.unwrap();
        assert!(
            status.is_success(),
            "{path}: {status} {}",
            String::from_utf8_lossy(&body)
        );
        serde_json::from_slice(&body).unwrap()
    }

    /// Decides hunk `hunk` as the window does.
    pub async fn decide(&self, hunk: &str, status: &str, reason: Option<&str>) {
        let body = serde_json::json!({ "status": status, "reason": reason });
        let path = format!("/api/agent/hunks/{hunk}/decide");
        self.call(reqwest::Method::POST, &path, Some(body)).await;
        self.decided.lock().unwrap().push(hunk.to_owned());
    }

    /// The pending hunks of the jobs whose instruction starts with
    /// `agent`, as (job, path, hunk), once every path of `paths` has some
    /// (any path when `paths` is empty), within 60 s.
    pub async fn pending_of(&self, agent: &str, paths: &[&str]) -> Vec<(String, String, String)> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let review = self.get("/api/review").await;
            let found: Vec<(String, String, String)> = review["jobs"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|g| g["instruction"].as_str().unwrap_or("").starts_with(agent))
                .flat_map(|g| {
                    g["hunks"].as_array().unwrap().iter().map(|h| {
                        let s = |v: &serde_json::Value| v.as_str().unwrap().to_owned();
                        (s(&g["job_id"]), s(&h["path"]), s(&h["hunk_id"]))
                    })
                })
                .collect();
            let there = |p: &&str| found.iter().any(|(_, f, _)| f == p);
            if !found.is_empty() && paths.iter().all(there) {
                return found;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no write of {agent}'s to {paths:?} came up for review: {review}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }

    /// Checks that `agent`'s writes came in as Redline's own saves: a
    /// session named after the agent and none for outside changes, no file
    /// in conflict or left to save, and nothing left to review.
    pub async fn saved_by(&self, agent: &str) {
        let sessions = self.get("/api/agent/sessions").await;
        let names: Vec<&str> = sessions
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| s["name"].as_str())
            .collect();
        let named = format!("{agent} · ");
        assert!(names.iter().any(|n| n.starts_with(&named)), "{names:?}");
        assert!(!names.contains(&"outside"), "no outside change: {names:?}");
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let changed = self.get("/api/files/changed").await;
        for file in changed["files"].as_array().unwrap() {
            assert_eq!(file["state"]["conflict"], false, "{file}");
            assert_eq!(
                file["state"]["dirty"], false,
                "saved by {agent}'s write: {file}"
            );
        }
        self.settled().await;
    }

    /// Waits until every job whose hunks were all decided here has left
    /// the review (within 30 s): the agent's write is carried out. A job
    /// staged since, with hunks not decided yet, does not hold it up (an
    /// agent may send its next write the moment the last one is answered).
    pub async fn carried_out(&self) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let review = self.get("/api/review").await;
            let decided = self.decided.lock().unwrap().clone();
            let waiting = review["jobs"].as_array().unwrap().iter().any(|job| {
                job["hunks"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|h| decided.iter().any(|d| h["hunk_id"] == d.as_str()))
            });
            if !waiting {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "a decided write was not carried out: {review}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    /// Waits until nothing is left to review (within 30 s).
    pub async fn settled(&self) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let review = self.get("/api/review").await;
            if review["jobs"].as_array().unwrap().is_empty() {
                return;
            }
            // What stayed, to tell a slow machine from a hunk left behind.
            assert!(
                std::time::Instant::now() < deadline,
                "the review did not empty: {review}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
}

/// Runs an agent CLI to its end, as `Command::output` does, but kills it
/// (and what it started: it runs in a process group of its own) after
/// five minutes. A test that fails while the agent waits on it (a
/// decision it never gets, a model server gone) then reports the failure
/// rather than hanging on the agent, which retries forever.
pub fn run_agent(command: &mut Command) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    let logs = tempfile::tempdir().unwrap();
    let (out, err) = (logs.path().join("out"), logs.path().join("err"));
    let mut child = command
        .process_group(0)
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = Command::new("kill")
                .args(["-KILL", &format!("-{}", child.id())])
                .status();
            break child.wait().unwrap();
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    std::process::Output {
        status,
        stdout: std::fs::read(&out).unwrap(),
        stderr: std::fs::read(&err).unwrap(),
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
