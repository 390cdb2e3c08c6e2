//! The eval suite (`fixtures/evals/`) against its own golden traces: every
//! task's golden trace, served by the scripted model over real HTTP through
//! the real runtime, reviewed by the oracle and applied, passes its checks;
//! and every task whose outcome needs a change fails its checks on the
//! untouched folder, so the checks can fail.

use std::path::Path;

use redline::config::{AgentMode, Config};
use redline::eval::{self, Runner, checks};

fn suite() -> Vec<eval::Task> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/evals");
    eval::load_all(&dir, None).unwrap()
}

#[test]
fn the_suite_is_big_enough_and_checks_can_fail() {
    let tasks = suite();
    assert!(tasks.len() >= 40, "{} tasks", tasks.len());
    for task in &tasks {
        assert!(!task.spec.checks.is_empty(), "{}: no check", task.id);
        let folder = tempfile::tempdir().unwrap();
        task.lay_out(folder.path()).unwrap();
        let start = checks::snapshot(folder.path());
        let failures = checks::failures(task, &start, &start);
        if task.expects_no_change() {
            assert!(
                failures.is_empty(),
                "{}: its checks fail on the untouched folder: {failures:?}",
                task.id
            );
        } else {
            assert!(
                !failures.is_empty(),
                "{}: its checks hold on the untouched folder",
                task.id
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_golden_trace_succeeds() {
    // SAFETY: tests only ever set this variable, to the same value.
    unsafe { std::env::set_var("REDLINE_NO_KEYCHAIN", "1") };
    let runner = Runner {
        config: Config {
            agent_mode: AgentMode::Remote,
            ..Config::default()
        },
        golden: true,
        record: None,
    };
    let mut failed = Vec::new();
    let mut results = Vec::new();
    for task in suite() {
        let result = runner.run(&task).await;
        if !result.success {
            failed.push(format!(
                "{}: {:?} {:?}",
                task.id, result.statuses, result.failures
            ));
        }
        results.push(result);
    }
    assert!(
        failed.is_empty(),
        "golden traces failed:\n{}",
        failed.join("\n")
    );
    let summary = eval::summarize(&results);
    assert_eq!(summary.success_rate, 1.0);
    assert_eq!(summary.unintended_bytes_written, 0);
    // The suite exercises what it claims to: questions, conflicts,
    // relocations, and hunks the oracle must reject (proposed where no
    // change is allowed, or breaking a check), none of them written.
    assert!(summary.clarification_rate > 0.0);
    assert!(summary.conflict_rate > 0.0);
    assert!(summary.relocations > 0);
    assert!(summary.accepted_hunk_ratio < 1.0);
    assert!(summary.unintended_bytes_proposed > 0);
    // Triage: every damaging hunk the tasks hide among good ones is flagged
    // (a task whose damage is not flagged fails above), and the clean
    // tasks' hunks are hardly ever flagged.
    assert!(
        summary.damaging >= 10,
        "{} damaging hunks",
        summary.damaging
    );
    assert_eq!(summary.damage_flagged_ratio, 1.0);
    assert!(
        summary.clean_flag_rate < 0.05,
        "{}",
        summary.clean_flag_rate
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_run_replays_as_a_golden_trace() {
    // SAFETY: tests only ever set this variable, to the same value.
    unsafe { std::env::set_var("REDLINE_NO_KEYCHAIN", "1") };
    let tasks = suite();
    let task = tasks
        .iter()
        .find(|t| t.id == "dates-ambiguous-ask")
        .unwrap();
    let record = tempfile::tempdir().unwrap();
    let mut runner = Runner {
        config: Config::default(),
        golden: true,
        record: Some(record.path().to_path_buf()),
    };
    assert!(runner.run(task).await.success);
    // The recording, put beside the task's own files, solves it again.
    let copy = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", task.dir.display()))
        .arg(copy.path())
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::copy(
        record.path().join(&task.id).join("golden.json"),
        copy.path().join("golden.json"),
    )
    .unwrap();
    let recorded = eval::Task::load(copy.path()).unwrap();
    assert_eq!(
        recorded.golden().unwrap().len(),
        task.golden().unwrap().len()
    );
    runner.record = None;
    let replay = runner.run(&recorded).await;
    assert!(replay.success, "{:?}", replay.failures);
    assert_eq!(replay.questions, 1);
}

#[test]
fn the_command_prints_the_table_writes_json_and_draws_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("golden.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_redline"))
        .args([
            "eval",
            "--golden",
            "--filter",
            "{bom-kept,overreach-*}",
            "--json",
        ])
        .arg(&json)
        .env("REDLINE_CONFIG", "/nonexistent/redline.toml")
        .env("REDLINE_NO_KEYCHAIN", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("bom-kept"), "{stdout}");
    assert!(
        stdout.contains("task success            3/3 (100%)"),
        "{stdout}"
    );
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(results["tasks"].as_array().unwrap().len(), 3);
    assert_eq!(results["summary"]["successes"], 3);

    let page = dir.path().join("report.html");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_redline"))
        .args(["eval", "report"])
        .arg(&json)
        .arg("--out")
        .arg(&page)
        .output()
        .unwrap();
    assert!(out.status.success());
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<svg") && html.contains("overreach-same-file"));
    // Self-contained: nothing loaded from anywhere, no script.
    assert!(!html.contains("src=") && !html.contains("<link") && !html.contains("<script"));
}
