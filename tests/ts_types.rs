//! The UI's TypeScript types, `ui/src/api/types/`, are generated from the
//! API's Rust types (ts-rs), and its client, `ui/src/api/client.ts`, from the
//! API's table of operations (`redline::api::operations`); both are checked
//! in. This test renders them afresh and fails when the checked-in files
//! differ; `REDLINE_WRITE_TS=1 cargo test --test ts_types` writes them instead.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use redline::api::local::{LocalReply, LocalRequest};
use redline::api::operations::{self, Operation};
use redline::api::{
    Applied, Apply, Clarify, CreateSession, Decide, Decided, Diff3Query, EditBuffer, ErrorResponse,
    EventsQuery, FileQuery, FileRequest, JobStarted, ModelList, ModelsQuery, ProjectInfo,
    RenameSession, Resolve, Rollback, SessionCreated, SessionDeleted, TreeQuery,
};
use redline::checkpoints::{Checkpoint, CheckpointPage, HunkNow, RollbackPlan, RollbackReport};
use redline::jobs::{EventPage, FeedPage, Job, ReviewQueue, RunRequest, Session};
use redline::settings::{Settings, SettingsSaved, SettingsUpdate};
use redline::setup::{Setup, SetupChoice};
use redline::workspace::{FileContent, Resolved, ThreeWay, TreeEntry};
use ts_rs::TS;

/// Where the files live, relative to the crate root.
const TYPES_DIR: &str = "ui/src/api/types";

/// The client, relative to the crate root.
const CLIENT: &str = "ui/src/api/client.ts";

/// The command that regenerates them.
const REGENERATE: &str = "REDLINE_WRITE_TS=1 cargo test --test ts_types";

/// Every request and response of the API; ts-rs adds what they refer to.
fn export_roots(cfg: &ts_rs::Config) -> Result<(), ts_rs::ExportError> {
    macro_rules! export {
        ($($t:ty),* $(,)?) => { $( <$t as TS>::export_all(cfg)?; )* };
    }
    export!(
        // Requests.
        CreateSession,
        RenameSession,
        RunRequest,
        Clarify,
        Decide,
        redline::api::DecideMany,
        redline::api::TakeStep,
        Apply,
        Rollback,
        EditBuffer,
        FileRequest,
        redline::api::FileOpRequest,
        redline::api::OperationsRequest,
        Resolve,
        SettingsUpdate,
        redline::jobs::AgentWrite,
        redline::jobs::OutcomeRequest,
        // Queries.
        EventsQuery,
        TreeQuery,
        redline::api::PageQuery,
        redline::api::JobQuery,
        FileQuery,
        redline::api::FilesRequest,
        Diff3Query,
        // The desktop shell's one command.
        LocalRequest,
        LocalReply,
        // Responses.
        ProjectInfo,
        redline::api::FileRead,
        SessionCreated,
        Session,
        SessionDeleted,
        JobStarted,
        Job,
        redline::jobs::WriteOutcome,
        redline::api::ChangedFiles,
        redline::api::Image,
        EventPage,
        Decided,
        redline::jobs::DecidedMany,
        redline::workspace::Stepped,
        redline::workspace::HistoryHeads,
        Applied,
        Checkpoint,
        CheckpointPage,
        redline::api::CheckpointsQuery,
        ThreeWay,
        RollbackReport,
        RollbackPlan,
        HunkNow,
        redline::api::OperationsPreview,
        TreeEntry,
        redline::workspace::Listing,
        redline::workspace::FolderEntry,
        ReviewQueue,
        FileContent,
        Resolved,
        FeedPage,
        Settings,
        SettingsSaved,
        Setup,
        redline::about::About,
        redline::api::QuickOpenQuery,
        redline::find::paths::FoundPaths,
        redline::find::lines::SearchRequest,
        redline::find::lines::SearchResults,
        SetupChoice,
        ModelList,
        ModelsQuery,
        redline::config::AgentDefinition,
        ErrorResponse,
    );
    Ok(())
}

/// The files under `dir`, by `/`-separated path relative to it.
fn read_tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.expect("list the types folder").path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path.strip_prefix(root).unwrap();
                let rel = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                out.insert(rel, std::fs::read(&path).expect("read a types file"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// `index.ts`: every exported type, re-exported from one place.
fn index(files: &BTreeMap<String, Vec<u8>>) -> Vec<u8> {
    let mut exports = BTreeMap::new();
    for (path, text) in files {
        let module = format!("./{}", path.strip_suffix(".ts").expect("a .ts file"));
        for line in String::from_utf8_lossy(text).lines() {
            if let Some(rest) = line.strip_prefix("export type ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
                    .collect();
                let before = exports.insert(name.clone(), module.clone());
                assert!(before.is_none(), "two types named `{name}`");
            }
        }
    }
    let mut out =
        String::from("// Generated by tests/ts_types.rs. Do not edit this file manually.\n\n");
    for (name, module) in exports {
        writeln!(out, "export type {{ {name} }} from \"{module}\";").unwrap();
    }
    out.into_bytes()
}

/// The files as they should be.
fn generate() -> BTreeMap<String, Vec<u8>> {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    // JSON numbers are JavaScript numbers: `JSON.parse` never makes a bigint.
    let cfg = ts_rs::Config::new()
        .with_out_dir(tmp.path())
        .with_large_int("number");
    export_roots(&cfg).expect("export the TypeScript types");
    let mut files = read_tree(tmp.path());
    assert!(!files.is_empty(), "ts-rs wrote nothing");
    for (path, text) in files.iter_mut() {
        assert!(path.ends_with(".ts"), "unexpected file `{path}`");
        // ts-rs leaves a space at the end of many lines.
        let mut tidy = String::new();
        for line in String::from_utf8(std::mem::take(text))
            .expect("UTF-8")
            .lines()
        {
            tidy.push_str(line.trim_end());
            tidy.push('\n');
        }
        *text = tidy.into_bytes();
    }
    let index = index(&files);
    files.insert("index.ts".into(), index);
    files
}

/// `snake_case` as `camelCase`.
fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// `client.ts`: one typed function per operation, in the table's order. Its
/// arguments are the path id, then the query, then the body.
fn client(ops: &[Operation], exported: &BTreeMap<String, Vec<u8>>) -> Vec<u8> {
    let known: std::collections::BTreeSet<String> = exported
        .values()
        .flat_map(|text| {
            String::from_utf8_lossy(text)
                .lines()
                .filter_map(|l| l.strip_prefix("export type "))
                .map(|rest| {
                    rest.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect::<String>()
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let mut used = std::collections::BTreeSet::new();
    let mut body = String::new();
    for op in ops {
        for ty in [&op.query, &op.body, &Some(op.response.clone())]
            .into_iter()
            .flatten()
        {
            for word in ty.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                if word.is_empty() || word == "Array" {
                    continue;
                }
                assert!(
                    known.contains(word),
                    "operation `{}` names `{word}`, which is not an exported type",
                    op.name
                );
                used.insert(word.to_owned());
            }
        }
        let mut params = Vec::new();
        let mut path = String::new();
        for (i, part) in op.path.split('{').enumerate() {
            if i == 0 {
                path.push_str(part);
                continue;
            }
            let (name, rest) = part.split_once('}').expect("a closed path parameter");
            params.push(format!("{name}: string"));
            write!(path, "${{q({name})}}{rest}").unwrap();
        }
        if let Some(query) = &op.query {
            params.push(format!("query: {query}"));
            path.push_str("${search(query)}");
        }
        if let Some(b) = &op.body {
            params.push(format!("body: {b}"));
        }
        for line in op.doc.lines() {
            writeln!(body, "  /** {} */", line.trim()).unwrap();
        }
        writeln!(
            body,
            "  {}: ({}) => call<{}>(\"{}\", `{path}`{}),",
            camel(op.name),
            params.join(", "),
            op.response,
            op.method,
            if op.body.is_some() { ", body" } else { "" }
        )
        .unwrap();
    }
    let mut out = String::from(
        "// Generated by tests/ts_types.rs from redline::api::operations. Do not edit this file manually.\n\
         // Every route of the API, typed with the generated types.\n\n\
         import { call } from \"./transport\";\n",
    );
    writeln!(
        out,
        "import type {{ {} }} from \"./types\";\n",
        used.into_iter().collect::<Vec<_>>().join(", ")
    )
    .unwrap();
    out.push_str(
        "const q = encodeURIComponent;\n\n\
         /** A query string of the fields that are set. */\n\
         function search(query: object): string {\n  \
           const params = new URLSearchParams();\n  \
           for (const [key, value] of Object.entries(query)) {\n    \
             if (value !== undefined && value !== null) params.set(key, String(value));\n  \
           }\n  \
           const text = params.toString();\n  \
           return text ? `?${text}` : \"\";\n\
         }\n\n\
         export const api = {\n",
    );
    out.push_str(&body);
    out.push_str("};\n");
    out.into_bytes()
}

/// The first line where `a` and `b` differ, 1-based, with both versions.
fn first_difference(a: &[u8], b: &[u8]) -> String {
    let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    let (mut a, mut b) = (a.lines(), b.lines());
    for n in 1.. {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) if x == y => continue,
            (None, None) => return "line endings differ".into(),
            (x, y) => {
                return format!(
                    "line {n}: checked in {:?}, generated {:?}",
                    x.unwrap_or("<end>"),
                    y.unwrap_or("<end>")
                );
            }
        }
    }
    unreachable!()
}

fn write(dir: &Path, want: &BTreeMap<String, Vec<u8>>, have: &BTreeMap<String, Vec<u8>>) {
    for path in have.keys().filter(|p| !want.contains_key(*p)) {
        std::fs::remove_file(dir.join(path)).expect("remove a stale types file");
        eprintln!("removed {TYPES_DIR}/{path}");
    }
    remove_empty_dirs(dir);
    for (path, text) in want {
        if have.get(path) != Some(text) {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).expect("create the types folder");
            std::fs::write(&file, text).expect("write a types file");
            eprintln!("wrote {TYPES_DIR}/{path}");
        }
    }
}

fn remove_empty_dirs(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("list the types folder").path();
        if path.is_dir() {
            remove_empty_dirs(&path);
            // Fails, harmlessly, when the folder is not empty.
            let _ = std::fs::remove_dir(&path);
        }
    }
}

#[test]
fn typescript_types_are_up_to_date() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join(TYPES_DIR);
    let want = generate();
    let have = read_tree(&dir);
    let want_client = client(&operations::table(), &want);
    let have_client = std::fs::read(root.join(CLIENT)).unwrap_or_default();
    if std::env::var_os("REDLINE_WRITE_TS").is_some_and(|v| !v.is_empty() && v != "0") {
        write(&dir, &want, &have);
        if have_client != want_client {
            std::fs::write(root.join(CLIENT), &want_client).expect("write the client");
            eprintln!("wrote {CLIENT}");
        }
        return;
    }
    let mut problems = String::new();
    for (path, text) in &want {
        match have.get(path) {
            None => writeln!(problems, "  missing: {path}").unwrap(),
            Some(old) if old != text => writeln!(
                problems,
                "  stale:   {path} ({})",
                first_difference(old, text)
            )
            .unwrap(),
            Some(_) => {}
        }
    }
    for path in have.keys().filter(|p| !want.contains_key(*p)) {
        writeln!(problems, "  extra:   {path}").unwrap();
    }
    if have_client != want_client {
        writeln!(
            problems,
            "  stale:   {CLIENT} ({})",
            first_difference(&have_client, &want_client)
        )
        .unwrap();
    }
    assert!(
        problems.is_empty(),
        "the TypeScript types in {TYPES_DIR}/ or the client do not match the Rust API:\n{problems}\
         regenerate them with `{REGENERATE}` and check them in"
    );
}
