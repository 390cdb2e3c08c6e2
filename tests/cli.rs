//! The `redline` binary: tool calls, errors as JSON, configuration from the
//! environment, and the vault generator.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn redline(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_redline"));
    cmd.args(args)
        // A config file of the developer's must not change what the tests see.
        .env("REDLINE_CONFIG", "/nonexistent/redline.toml")
        .env_remove("REDLINE_DATA_DIR");
    cmd
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

fn demo() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/vaults/demo")
        .display()
        .to_string()
}

#[test]
fn tool_prints_the_result_as_json() {
    let out = redline(&[
        "tool",
        "read_file",
        &demo(),
        r#"{"file_path": "Welcome.md", "end_line": 2}"#,
    ])
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let value = json(&out);
    assert_eq!(value["content"], "1\t---\n2\ttitle: Welcome\n");
    assert!(value["file_hash"].as_str().unwrap().starts_with("sha256:"));
}

#[test]
fn tool_errors_are_json_with_a_failing_status() {
    for (args, code) in [
        (r#"{"file_path": "../Cargo.toml"}"#, "escapes_root"),
        (r#"{"file_path": "attachments/diagram.png"}"#, "binary_file"),
        (r#"{"file_path": "#, "invalid_arguments"),
    ] {
        let out = redline(&["tool", "read_file", &demo(), args])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args}");
        let value = json(&out);
        assert_eq!(value["error"]["code"], code, "{args}: {value}");
        assert!(!value["error"]["message"].as_str().unwrap().is_empty());
    }
    let out = redline(&["tool", "read_file", "/nonexistent/folder", "{}"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot open project folder"));
}

#[test]
fn limits_come_from_the_environment() {
    let args = r#"{"query": "a", "limit": 50, "context_lines": 0}"#;
    let out = redline(&["tool", "search_project", &demo(), args])
        .env("REDLINE_MAX_SEARCH_RESULTS_CAP", "3")
        .output()
        .unwrap();
    let value = json(&out);
    assert_eq!(value["limit"], 3);
    assert_eq!(value["next_offset"], 3);

    let config = redline(&["config"])
        .env("REDLINE_MAX_READ_LINES_DEFAULT", "9")
        .output()
        .unwrap();
    let text = String::from_utf8(config.stdout).unwrap();
    assert!(text.contains("max_read_lines_default = 9"), "{text}");
    assert!(text.contains("max_tool_calls_per_job = 12"), "{text}");

    let bad = redline(&["config"])
        .env("REDLINE_MAX_READ_LINES_DEFAULT", "many")
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("invalid configuration"));

    // A typo in the file is refused, not ignored: the key and its line.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("config.toml");
    std::fs::write(
        &file,
        "[limits]\nmax_search_results_cap = 30\nmax_tool_calls_per_jobb = 3\n",
    )
    .unwrap();
    let typo = redline(&["config"])
        .env("REDLINE_CONFIG", &file)
        .output()
        .unwrap();
    assert_eq!(typo.status.code(), Some(2));
    let said = String::from_utf8_lossy(&typo.stderr);
    assert!(
        said.contains("max_tool_calls_per_jobb") && said.contains("(line 3)"),
        "{said}"
    );
    assert!(typo.stdout.is_empty(), "nothing half-applied is printed");
}

#[test]
fn tools_lists_every_schema() {
    let out = redline(&["tools"]).output().unwrap();
    let specs = json(&out);
    let names: Vec<&str> = specs
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "search_project",
            "read_file",
            "list_files",
            "links",
            "clarify_user",
            "propose_edits",
            "edit_each_note"
        ],
        "every tool a job's model may be offered, named as everywhere"
    );
    assert!(specs[0]["parameters"]["properties"]["query"].is_object());
}

#[test]
fn gen_vault_is_deterministic() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for dir in [&a, &b] {
        let out = redline(&[
            "gen-vault",
            dir.path().to_str().unwrap(),
            "--notes",
            "250",
            "--seed",
            "9",
        ])
        .output()
        .unwrap();
        assert!(out.status.success());
        assert!(String::from_utf8_lossy(&out.stdout).starts_with("250 notes"));
    }
    let listing = tree_digest(a.path().to_str().unwrap());
    assert_eq!(listing, tree_digest(b.path().to_str().unwrap()));
    assert!(listing.contains("./attachments/image-199.png"));
    assert!(listing.contains("./.gitignore"));
}

#[test]
fn open_summarises_the_folder() {
    let out = redline(&["open", &demo()]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Files    9 visible to the agent"), "{text}");
    assert!(text.contains("Welcome.md"));
    assert!(!text.contains("exports/old.md"));
}

/// sha256 of every file under `dir`, to prove a command wrote nothing.
fn tree_digest(dir: &str) -> String {
    let out = Command::new("sh")
        .arg("-c")
        .arg("find . -type f -print0 | sort -z | xargs -0 sha256sum")
        .current_dir(dir)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn propose_prints_a_bundle_and_writes_nothing() {
    let before = tree_digest(&demo());
    let edits = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        edits.path(),
        r#"{"edits": [
            {"edit_id": "e_1", "file_path": "Reference/Style Guide.md", "operation": "replace",
             "start_line": 9, "new_text": "- Product name: **Meridian**.",
             "old_text": "- Product name: **Atlas**, never \"ATLAS\" or \"the Atlas app\"."},
            {"edit_id": "e_2", "file_path": "Inbox/idea.md", "operation": "create", "new_text": "An idea.\n"}
        ]}"#,
    )
    .unwrap();
    let out = redline(&["propose", &demo(), edits.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let bundle = json(&out);
    let files = bundle["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    assert_eq!(files[0]["file_path"], "Inbox/idea.md");
    assert_eq!(files[0]["created"], true);
    assert_eq!(files[1]["hunks"][0]["hunk_id"], "h_2");
    assert_eq!(files[1]["relocations"][0]["to_line"], 10);
    assert_eq!(tree_digest(&demo()), before, "propose must not write");

    std::fs::write(
        edits.path(),
        r#"[{"edit_id": "e_1", "file_path": "Welcome.md", "operation": "replace", "start_line": 99, "new_text": "x"},
            {"edit_id": "e_2", "file_path": ".obsidian/app.json", "operation": "delete", "start_line": 1}]"#,
    )
    .unwrap();
    let out = redline(&["propose", &demo(), edits.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let error = json(&out);
    assert_eq!(error["error"]["code"], "invalid_edits");
    let codes: Vec<&str> = error["error"]["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["out_of_range", "hidden"]);
    assert_eq!(tree_digest(&demo()), before);
}

#[test]
fn version_says_which_build_this_is() {
    let out = redline(&["--version"]).output().unwrap();
    assert!(out.status.success());
    let line = String::from_utf8(out.stdout).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    match option_env!("REDLINE_COMMIT") {
        // A build scripts/test or scripts/package made: its commit and day.
        Some(commit) if !commit.is_empty() => assert!(
            line.starts_with(&format!("redline {version} (commit {commit}, built ")),
            "{line}"
        ),
        _ => assert_eq!(
            line.trim(),
            format!("redline {version} (development build)")
        ),
    }
}

#[test]
fn generate_prints_a_man_page_and_completions_from_the_parser() {
    let run = |what: &str| {
        let out = redline(&["generate", what]).output().unwrap();
        assert!(out.status.success(), "generate {what}");
        String::from_utf8(out.stdout).unwrap()
    };
    let man = run("man");
    assert!(
        man.contains(".TH redline 1"),
        "{}",
        &man[..200.min(man.len())]
    );
    // Every subcommand is in the page and in each shell's completions.
    for command in ["serve", "mcp", "hook", "doctor", "generate"] {
        assert!(man.contains(command), "the man page lacks {command}");
        assert!(run("bash").contains(command), "bash lacks {command}");
        assert!(run("zsh").contains(command), "zsh lacks {command}");
        assert!(run("fish").contains(command), "fish lacks {command}");
    }
    assert!(run("bash").contains("complete -F _redline"));
    assert!(run("zsh").starts_with("#compdef redline"));
}

#[test]
fn doctor_checks_the_machine_and_the_vault_and_says_each_fix() {
    let vault = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(vault.path().join("Réunions/2026")).unwrap();
    let data = tempfile::tempdir().unwrap();
    let out = redline(&["doctor", "--json", &vault.path().display().to_string()])
        .env("REDLINE_DATA_DIR", data.path().join("ünïcode data"))
        .env("REDLINE_NO_KEYCHAIN", "1")
        .env("REDLINE_LOCAL_SERVERS", "")
        .env_remove("REDLINE_BUNDLED_MODEL_URL")
        .output()
        .unwrap();
    let checks = json(&out);
    let by_name = |prefix: &str| {
        checks
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"].as_str().unwrap().starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix} check: {checks}"))
            .clone()
    };
    let watches = by_name("File watch limit");
    assert!(
        watches["found"]
            .as_str()
            .unwrap()
            .starts_with("3 folders in"),
        "{watches}"
    );
    let data_dir = by_name("Data directory");
    assert_eq!(data_dir["outcome"], "ok", "{data_dir}");
    assert!(
        data.path().join("ünïcode data").is_dir(),
        "made when missing"
    );
    let keychain = by_name("Keychain");
    assert_eq!(keychain["outcome"], "warn");
    assert!(keychain["fix"].as_str().unwrap().contains("OPENAI_API_KEY"));
    // WebKitGTK decides the exit status here: a miss is status 1.
    let webkit = by_name("WebKitGTK");
    let missing = webkit["outcome"] == "miss";
    assert_eq!(out.status.code(), Some(i32::from(missing)), "{checks}");
}
