//! A panic is contained where it happens: injected (`REDLINE_TEST_PANIC`)
//! in a running `redline serve` at a request handler, at the staging of a
//! proposal and in a tool, it answers 500 with JSON and keeps serving, ends
//! its job `failed` with a plain message (never leaves it `running`), and
//! is logged once however often it is hit.

#[path = "support/mcp.rs"]
mod mcp;

use std::path::{Path, PathBuf};

use mcp::Serve;
use redline::testkit::scripted::{ScriptedModel, Turn};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// A vault whose notes have text in several scripts, in front matter too.
fn vault(dir: &Path) {
    std::fs::write(
        dir.join("Target.md"),
        "---\ndescription: café — “déjà vu”\naliases: [Ziel, 目標]\n---\n# Target\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("Index.md"),
        "Voir [[Target]] et [[Target|la cible]].\n",
    )
    .unwrap();
}

async fn send(
    serve: &Serve,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = redline::providers::http::client_builder()
        .build()
        .unwrap()
        .request(method, format!("{}{path}", serve.base))
        .bearer_auth(&serve.token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let reply = request
        .send()
        .await
        .expect("an answer, not a dropped connection");
    let status = reply.status();
    (status, reply.json().await.expect("a JSON body"))
}

/// A `redline serve` on [`vault`] that panics at `site`, its log kept;
/// with a scripted model as its provider when given one.
struct Panicking {
    folder: tempfile::TempDir,
    _data: tempfile::TempDir,
    log: PathBuf,
    serve: Serve,
}

impl Panicking {
    fn start(site: &str, model: Option<&ScriptedModel>) -> Panicking {
        let (folder, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        vault(folder.path());
        let mut env = vec![("REDLINE_TEST_PANIC", site)];
        if let Some(model) = model {
            mcp::use_scripted(data.path(), model);
            env.extend(mcp::SCRIPTED_ENV);
        }
        let log = data.path().join("serve.log");
        let serve = Serve::start_logged(folder.path(), data.path(), &env, &log);
        Panicking {
            folder,
            _data: data,
            log,
            serve,
        }
    }

    /// The lines of the server's log that report a panic.
    fn panics_logged(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap()
            .lines()
            .filter(|l| l.contains("Redline hit a bug at"))
            .map(str::to_owned)
            .collect()
    }
}

/// Each session's last job, as (status, error message).
async fn statuses(serve: &Serve) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for session in serve.get("/api/agent/sessions").await.as_array().unwrap() {
        let Some(id) = session["last_job_id"].as_str() else {
            continue;
        };
        let job = serve.get(&format!("/api/agent/jobs/{id}")).await;
        out.push((
            job["status"].as_str().unwrap().to_owned(),
            job["error"]["message"].as_str().unwrap_or("").to_owned(),
        ));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_that_panics_answers_500_with_json_and_is_logged_once() {
    let rig = Panicking::start("request", None);
    let serve = &rig.serve;
    for _ in 0..3 {
        let (status, body) = send(serve, Method::GET, "/api/files?prefix=", None).await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{body}");
        assert_eq!(body["error"]["code"], "internal", "{body}");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("hit a bug"),
            "{body}"
        );
    }
    // The server goes on serving.
    let children = serve.get("/api/files/children?prefix=").await;
    assert_eq!(children["files"].as_array().unwrap().len(), 2, "{children}");
    let logged = rig.panics_logged();
    assert_eq!(
        logged.len(),
        1,
        "one line for three panics at one place: {logged:?}"
    );
    assert!(
        logged[0].contains("src/api/") || logged[0].contains("src/faults.rs"),
        "{logged:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rename_whose_staging_panics_fails_its_job_and_says_so() {
    let rig = Panicking::start("stage", None);
    let serve = &rig.serve;
    let op = json!({ "path": "Target.md", "op": { "kind": "move", "to": "Archive/Cible.md" } });
    let (status, body) = send(serve, Method::POST, "/api/files/op", Some(op)).await;
    assert!(
        status.is_client_error() || status.is_server_error(),
        "{status} {body}"
    );
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("ended failed") && message.contains("hit a bug"),
        "{message}"
    );
    let jobs = statuses(serve).await;
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    assert_eq!(jobs[0].0, "failed", "never left running: {jobs:?}");
    assert!(
        jobs[0].1.contains("Move Target.md to Archive/Cible.md"),
        "{jobs:?}"
    );
    // Nothing moved, nothing staged.
    assert!(rig.folder.path().join("Target.md").exists());
    assert!(
        serve.get("/api/review").await["jobs"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert_eq!(rig.panics_logged().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_panics_fails_its_job_naming_the_note() {
    let model = ScriptedModel::start(vec![
        Turn::call("links", json!({ "file_path": "Target.md" })),
        Turn::text(&["Done."]),
    ])
    .await
    .unwrap();
    let rig = Panicking::start("tool", Some(&model));
    let serve = &rig.serve;
    let session = serve
        .call(Method::POST, "/api/agent/sessions", Some(json!({})))
        .await;
    let job = serve
        .call(
            Method::POST,
            "/api/agent/run",
            Some(json!({ "session_id": session["session_id"], "instruction": "Which notes link to Target?" })),
        )
        .await;
    let job_id = job["job_id"].as_str().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let ended = loop {
        let job = serve.get(&format!("/api/agent/jobs/{job_id}")).await;
        if !matches!(job["status"].as_str(), Some("queued" | "running")) {
            break job;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the job never ended: {job}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert_eq!(ended["status"], "failed", "{ended}");
    assert_eq!(ended["error"]["code"], "internal", "{ended}");
    let message = ended["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("`links` on `Target.md`") && message.contains("no note was changed"),
        "{message}"
    );
    assert_eq!(rig.panics_logged().len(), 1);
}
