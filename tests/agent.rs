//! The agent runtime end to end, with a scripted model served over real HTTP
//! in both wire formats: tool-call chains, parallel calls, malformed calls
//! and retries, truncation, clarification, budgets, cancel, provider errors,
//! hybrid fallback, restarts, sessions and lifecycle GC.

#[path = "support/agent.rs"]
mod support;

use std::time::Duration;

use redline::config::AgentMode;
use redline::jobs::{JobStatus, Runtime};
use redline::providers::Protocol;
use redline::review::Status;
use redline::testkit::scripted::{ScriptedCall, ScriptedModel, ScriptedStop, Turn};
use serde_json::json;
use support::*;

fn malformed(arguments: &str) -> Turn {
    Turn::Reply {
        text: Vec::new(),
        calls: vec![ScriptedCall {
            id: None,
            name: "read_file".into(),
            arguments: arguments.into(),
        }],
        stop: None,
        usage: None,
        chunk_delay_ms: 0,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_chain_ends_in_review_and_apply_writes_the_accepted_hunk() {
    for protocol in PROTOCOLS {
        let h = harness(
            protocol,
            vec![
                Turn::call("search_project", json!({ "query": "Status: draft" })),
                Turn::call(
                    "read_file",
                    json!({ "file_path": "notes/alpha.md", "start_line": null }),
                ),
                propose_alpha(),
            ],
            |_| {},
        )
        .await;
        let (job, events) = h.run_to_end("Mark Alpha final", None).await;
        assert_eq!(
            job.status,
            JobStatus::AwaitingReview,
            "{protocol:?}: {:?}",
            kinds(&events)
        );
        let cursors: Vec<u64> = events.iter().map(|e| e.cursor).collect();
        assert_eq!(
            cursors,
            (0..events.len() as u64).collect::<Vec<_>>(),
            "cursors have no gaps"
        );
        let k = kinds(&events);
        let pos = |kind: &str| {
            k.iter()
                .position(|x| *x == kind)
                .unwrap_or_else(|| panic!("no {kind} in {k:?}"))
        };
        assert!(pos("job.queued") < pos("job.started"));
        assert!(pos("job.started") < pos("provider.selected"));
        assert!(pos("tool.call.requested") < pos("tool.call.completed"));
        assert!(pos("edits.proposed") < pos("checkpoint.created"));
        assert!(pos("checkpoint.created") < pos("diff.generated"));
        assert_eq!(k[k.len() - 2..], ["job.awaiting_review", "job.status"]);
        let completed = of_kind(&events, "tool.call.completed");
        assert_eq!(completed[0]["tool"], "search_project");
        assert_eq!(completed[0]["result_count"], 2, "alpha and beta say draft");
        assert_eq!(of_kind(&events, "model.step").len(), 3);

        // What went over the wire.
        let bodies = h.bodies();
        assert_eq!(bodies.len(), 3);
        assert_eq!(
            tool_names(&bodies[0]),
            [
                "search_project",
                "read_file",
                "list_files",
                "links",
                "clarify_user",
                "propose_edits",
                "edit_each_note"
            ]
        );
        match protocol {
            Protocol::OpenAiChat => {
                assert_eq!(bodies[0]["tool_choice"], "auto");
                assert_eq!(bodies[0]["tools"][0]["function"]["strict"], true);
                assert_eq!(bodies[0]["messages"][0]["role"], "system");
            }
            Protocol::AnthropicMessages => {
                assert_eq!(bodies[0]["tool_choice"]["type"], "auto");
                assert!(
                    bodies[0]["system"]
                        .as_str()
                        .unwrap()
                        .contains("propose_edits")
                );
            }
        }
        let results = tool_results(&bodies[2]);
        assert_eq!(results.len(), 2);
        assert_eq!(results[1].0, "call_2_1");
        assert!(
            results[1].1.contains("3\\tStatus: draft"),
            "{}",
            results[1].1
        );

        // The engine pinned the edit to what the model read; nothing is on disk yet.
        assert!(job.proposed_edits[0].expected_hash.is_some());
        let bundle = job.diff_bundle.clone().unwrap();
        assert_eq!(bundle.files.len(), 1);
        let hunk = bundle.files[0].hunks[0].hunk_id.clone();
        assert_eq!(h.read("notes/alpha.md"), ALPHA);
        assert_eq!(
            job.checkpoint_id.as_deref(),
            Some(bundle_checkpoint(&events).as_str())
        );

        // Decisions are recorded in the job's log, and can be undone. Its
        // only hunk rejected, the review is finished (nothing to write);
        // undone, the job awaits review again.
        h.runtime
            .decide(&hunk, Status::Rejected, None, false)
            .unwrap();
        let status = |h: &Harness| h.runtime.job(&job.job_id).unwrap().status;
        assert_eq!(status(&h), JobStatus::Completed);
        h.runtime
            .decide(&hunk, Status::Pending, None, false)
            .unwrap();
        assert_eq!(status(&h), JobStatus::AwaitingReview);
        let page = h
            .runtime
            .events(&job.job_id, events.len() as u64, 0)
            .await
            .unwrap();
        let updates = strings(&page.events, "review.updated", "status");
        assert_eq!(updates, ["rejected", "pending"]);

        let applied = h
            .runtime
            .apply(&h.runtime.job(&job.job_id).unwrap(), &[hunk])
            .unwrap();
        assert_eq!(applied[0].status, "applied");
        assert_eq!(h.read("notes/alpha.md"), ALPHA.replace("draft", "final"));
        assert_eq!(
            h.runtime.job(&job.job_id).unwrap().status,
            JobStatus::Completed
        );
        let session = h.runtime.session(&job.session_id).unwrap();
        assert_eq!(session.chat.len(), 2);
        assert_eq!(session.chat[1].content, "Marked Alpha final.");
    }
}

fn bundle_checkpoint(events: &[redline::jobs::Event]) -> String {
    of_kind(events, "checkpoint.created")[0]["checkpoint_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_calls_are_all_answered_and_bad_calls_go_back_as_errors() {
    for protocol in PROTOCOLS {
        let h = harness(
            protocol,
            vec![
                Turn::calls(&[
                    ("read_file", json!({ "file_path": "notes/alpha.md" })),
                    ("read_file", json!({ "file_path": "notes/beta.md" })),
                ]),
                malformed("{\"file_path\": \"notes/alpha.md\""),
                Turn::call("delete_everything", json!({})),
                Turn::call("read_file", json!({ "file_path": 5 })),
                Turn::call(
                    "functions.Read-File",
                    json!({ "file_path": "../outside.md" }),
                ),
                propose_alpha(),
            ],
            |_| {},
        )
        .await;
        let (job, events) = h.run_to_end("Mark Alpha final", None).await;
        assert_eq!(
            job.status,
            JobStatus::AwaitingReview,
            "{protocol:?}: {:?}",
            kinds(&events)
        );
        let failed = strings(&events, "tool.call.failed", "code");
        assert_eq!(failed, ["invalid_json", "unknown_tool"]);
        let completed = of_kind(&events, "tool.call.completed");
        let codes: Vec<&str> = completed
            .iter()
            .map(|e| e["error"]["code"].as_str().unwrap_or("ok"))
            .collect();
        // Both parallel reads, the schema failure, and the guard's refusal
        // (the garbled name was understood).
        assert_eq!(codes, ["ok", "ok", "invalid_arguments", "escapes_root"]);
        let bodies = h.bodies();
        assert_eq!(
            tool_results(&bodies[1]).len(),
            2,
            "both parallel calls answered"
        );
        let last = tool_results(&bodies[5]);
        assert!(
            last.iter()
                .any(|(_, c, _)| c.contains("there is no tool named `delete_everything`"))
        );
        assert!(last.iter().any(|(_, c, _)| c.contains("not valid JSON")));
        if protocol == Protocol::AnthropicMessages {
            assert!(
                last.iter().filter(|r| r.2).count() >= 4,
                "errors are marked is_error"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_invalid_calls_end_the_job_after_five_retries() {
    for protocol in PROTOCOLS {
        let h = harness(
            protocol,
            (0..8).map(|_| malformed("{oops")).collect(),
            |_| {},
        )
        .await;
        let (job, _) = h.run_to_end("Anything", None).await;
        assert_eq!(job.status, JobStatus::Failed);
        assert_eq!(job.error.unwrap().code, "schema_retries_exhausted");
        assert_eq!(h.bodies().len(), 6, "the first try and five retries");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_cut_off_by_the_length_limit_is_never_run() {
    for protocol in PROTOCOLS {
        let h = harness(
            protocol,
            vec![
                Turn::Reply {
                    text: vec!["Reading both.".into()],
                    calls: vec![
                        ScriptedCall {
                            id: None,
                            name: "read_file".into(),
                            arguments: json!({ "file_path": "notes/alpha.md" }).to_string(),
                        },
                        ScriptedCall {
                            id: None,
                            name: "read_file".into(),
                            arguments: "{\"file_path\": \"notes/be".into(),
                        },
                    ],
                    stop: Some(ScriptedStop::MaxTokens),
                    usage: None,
                    chunk_delay_ms: 0,
                },
                propose_alpha(),
            ],
            |_| {},
        )
        .await;
        let (job, events) = h.run_to_end("Mark Alpha final", None).await;
        assert_eq!(job.status, JobStatus::AwaitingReview);
        assert_eq!(
            of_kind(&events, "tool.call.requested").len(),
            2,
            "the first read and the proposal"
        );
        assert_eq!(
            of_kind(&events, "tool.call.failed")[0]["code"],
            "truncated_call"
        );
        let streamed: String = strings(&events, "assistant.delta", "text").concat();
        assert_eq!(streamed, "Reading both.");
    }
}

/// A local server asked for a call on every step (`require_tools`, what
/// llama.cpp and vLLM constrain to the schemas) gets one call a step and
/// schemas whose short strings and integers end within the step; a reply
/// that runs on past the one call (a small model repeating it until the
/// limit cuts it off) is taken at its first call, and nothing fails.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_constrained_server_gets_bounded_schemas_and_one_call_a_step() {
    let read = |arguments: String| ScriptedCall {
        id: None,
        name: "read_file".into(),
        arguments,
    };
    let alpha = json!({ "file_path": "notes/alpha.md" }).to_string();
    let h = harness(
        Protocol::OpenAiChat,
        vec![
            Turn::Reply {
                text: Vec::new(),
                calls: vec![
                    read(alpha.clone()),
                    read(alpha),
                    read("{\"file_path\": \"notes/al".into()),
                ],
                stop: Some(ScriptedStop::MaxTokens),
                usage: None,
                chunk_delay_ms: 0,
            },
            propose_alpha(),
        ],
        |config| {
            config.remote.require_tools = true;
            config.remote.max_output_tokens = Some(256);
        },
    )
    .await;
    let (job, events) = h.run_to_end("Mark Alpha final", None).await;
    assert_eq!(job.status, JobStatus::AwaitingReview);
    assert_eq!(
        strings(&events, "tool.call.requested", "tool"),
        ["read_file", "propose_edits"]
    );
    assert!(
        of_kind(&events, "tool.call.failed").is_empty(),
        "{:?}",
        kinds(&events)
    );

    let body = &h.bodies()[0];
    assert_eq!(
        (
            &body["tool_choice"],
            &body["parallel_tool_calls"],
            &body["max_tokens"]
        ),
        (&json!("required"), &json!(false), &json!(256))
    );
    let params = |tool: &str| {
        body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["function"]["name"] == tool)
            .map(|t| t["function"]["parameters"].clone())
            .unwrap()
    };
    let read_file = params("read_file");
    // A path: its own bound (1,000) scaled to the step, its minimum kept.
    assert_eq!(
        (
            &read_file["properties"]["file_path"]["maxLength"],
            &read_file["properties"]["file_path"]["minLength"]
        ),
        (&json!(128), &json!(1))
    );
    assert_eq!(read_file["properties"]["start_line"]["maximum"], 99_999_999);
    assert_eq!(read_file["properties"]["start_line"]["minimum"], 1);
    // An edit's text is never cut short by the decoder, nor the list of edits.
    let propose = params("propose_edits");
    let edit = &propose["$defs"]["ModelEdit"]["properties"];
    assert_eq!(edit["file_path"]["maxLength"], 128);
    assert_eq!(edit["new_text"].get("maxLength"), None);
    assert_eq!(propose["properties"]["edits"].get("maxItems"), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clarification_waits_then_resumes_on_an_answer_or_a_skip() {
    for protocol in PROTOCOLS {
        let h = harness(
            protocol,
            vec![
                Turn::call(
                    "clarify_user",
                    json!({ "question": "Which status?", "suggested_answers": ["final", "done"] }),
                ),
                Turn::call(
                    "clarify_user",
                    json!({ "question": "Who owns it?", "suggested_answers": null }),
                ),
                propose_alpha(),
            ],
            |_| {},
        )
        .await;
        let job = h.start("Update Alpha's status", None);
        let waiting = |s| s == JobStatus::WaitingForUser;
        let events = h.events_until(&job.job_id, 0, waiting).await;
        let asked = of_kind(&events, "clarification.requested");
        assert_eq!(asked[0]["question"], "Which status?");
        let snapshot = h.runtime.job(&job.job_id).unwrap();
        let question = snapshot.pending_question.unwrap();
        assert_eq!(
            (
                question.question_id.as_str(),
                question.suggested_answers.len()
            ),
            ("q_1", 2)
        );
        assert!(
            h.runtime
                .clarify(&job.job_id, "q_9", Some("x".into()))
                .is_err(),
            "wrong question id"
        );
        h.runtime
            .clarify(&job.job_id, "q_1", Some("final".into()))
            .unwrap();

        let cursor = snapshot.cursor;
        let events = h
            .events_until(&job.job_id, cursor, |s| s == JobStatus::WaitingForUser)
            .await;
        assert!(kinds(&events).contains(&"clarification.received"));
        h.runtime.clarify(&job.job_id, "q_2", None).unwrap();
        let events = h.events_until(&job.job_id, 0, JobStatus::is_terminal).await;
        assert_eq!(
            h.runtime.job(&job.job_id).unwrap().status,
            JobStatus::AwaitingReview
        );
        let received = of_kind(&events, "clarification.received");
        assert_eq!(received[1]["skipped"], true);

        let bodies = h.bodies();
        assert_eq!(tool_results(&bodies[1])[0].1, "final");
        assert_eq!(tool_results(&bodies[2]).last().unwrap().1, "no_user_answer");
        assert!(
            h.runtime
                .clarify(&job.job_id, "q_2", Some("late".into()))
                .is_err()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tool_budget_warns_at_80_percent_and_forces_the_final_call_at_100() {
    for protocol in PROTOCOLS {
        let read = || Turn::call("read_file", json!({ "file_path": "notes/alpha.md" }));
        let h = harness(
            protocol,
            vec![read(), read(), read(), read(), read(), propose_alpha()],
            |_| {},
        )
        .await;
        let (job, events) = h.run_to_end("Mark Alpha final", Some(5)).await;
        assert_eq!(
            job.status,
            JobStatus::BudgetExceeded,
            "{:?}",
            kinds(&events)
        );
        assert!(
            job.diff_bundle.is_some(),
            "the forced proposal is staged for review"
        );
        let k = kinds(&events);
        let warning = k.iter().position(|x| *x == "budget.warning").unwrap();
        let exhausted = k.iter().position(|x| *x == "budget.exhausted").unwrap();
        assert_eq!(of_kind(&events, "budget.warning")[0]["tool_calls"], 4);
        assert!(warning < exhausted);
        let bodies = h.bodies();
        assert_eq!(bodies.len(), 6);
        assert_eq!(tool_names(&bodies[4]).len(), 7);
        assert_eq!(tool_names(&bodies[5]), ["propose_edits"]);
        match protocol {
            Protocol::OpenAiChat => {
                assert_eq!(bodies[5]["tool_choice"], "required");
                assert_eq!(bodies[5]["parallel_tool_calls"], false);
            }
            Protocol::AnthropicMessages => {
                assert_eq!(
                    bodies[5]["tool_choice"],
                    json!({ "type": "any", "disable_parallel_tool_use": true })
                );
            }
        }
        // The repeated identical read was pointed out to the model.
        assert!(
            tool_results(&bodies[3])
                .last()
                .unwrap()
                .1
                .contains("exact call 3 times")
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_budget_ends_a_job_that_will_not_propose() {
    for protocol in PROTOCOLS {
        let with_usage = |input, output| Turn::Reply {
            text: Vec::new(),
            calls: vec![ScriptedCall {
                id: None,
                name: "list_files".into(),
                arguments: "{}".into(),
            }],
            stop: None,
            usage: Some((input, output)),
            chunk_delay_ms: 0,
        };
        let h = harness(
            protocol,
            vec![
                with_usage(850, 10),
                with_usage(300, 10),
                Turn::text(&["I would rather not."]),
            ],
            |c| c.limits.max_token_budget = 1_000,
        )
        .await;
        let (job, events) = h.run_to_end("Tidy up", None).await;
        assert_eq!(job.status, JobStatus::BudgetExceeded);
        assert!(job.diff_bundle.is_none());
        assert_eq!(of_kind(&events, "budget.warning")[0]["tokens"], 860);
        assert_eq!(of_kind(&events, "budget.exhausted").len(), 1);
        // The forced third step reports no usage: it is estimated, never zero.
        assert!(job.usage.input_tokens > 1150, "{:?}", job.usage);
        assert_eq!(job.usage.steps, 3);
    }
}

/// The last, forced step offers only `propose_edits`; a search made there
/// is refused for the spent budget, never as a tool that does not exist.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_in_the_forced_step_is_refused_for_the_budget() {
    let search = Turn::call("search_project", json!({ "query": "Alpha" }));
    let h = harness(
        Protocol::OpenAiChat,
        vec![
            Turn::call("list_files", json!({})),
            Turn::call("list_files", json!({ "prefix": "notes" })),
            search,
        ],
        |_| {},
    )
    .await;
    let (job, events) = h.run_to_end("Find Alpha", Some(2)).await;
    assert_eq!(job.status, JobStatus::BudgetExceeded);
    let failed = of_kind(&events, "tool.call.failed");
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["tool"], "search_project");
    assert_eq!(failed[0]["code"], "budget_exhausted");
    let message = failed[0]["message"].as_str().unwrap();
    assert!(message.contains("budget is spent"), "{message}");
    assert!(!message.contains("no tool named"), "{message}");
    assert!(of_kind(&events, "tool.call.completed").len() == 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_stops_a_job_mid_step_and_while_it_waits() {
    for protocol in PROTOCOLS {
        let slow = Turn::Reply {
            text: (0..200).map(|i| format!("word {i}\n")).collect(),
            calls: Vec::new(),
            stop: None,
            usage: None,
            chunk_delay_ms: 50,
        };
        let h = harness(
            protocol,
            vec![
                slow,
                Turn::call("clarify_user", json!({ "question": "Sure?" })),
            ],
            |_| {},
        )
        .await;
        let job = h.start("Write a lot", None);
        // Wait until text streams, then cancel inside the step.
        let mut cursor = 0;
        loop {
            let page = h.runtime.events(&job.job_id, cursor, 2_000).await.unwrap();
            cursor = page.next_cursor;
            if page.events.iter().any(|e| e.kind() == "assistant.delta") {
                break;
            }
        }
        h.runtime.cancel(&job.job_id).unwrap();
        let events = h.events_until(&job.job_id, 0, JobStatus::is_terminal).await;
        assert_eq!(
            h.runtime.job(&job.job_id).unwrap().status,
            JobStatus::Cancelled
        );
        assert_eq!(kinds(&events)[events.len() - 2], "job.cancelled");
        let streamed = of_kind(&events, "assistant.delta").len();
        assert!(
            streamed < 200,
            "cancelled before the stream ended ({streamed} deltas)"
        );
        assert!(
            h.runtime.cancel(&job.job_id).is_err(),
            "a finished job cannot be cancelled"
        );

        let job = h.start("Ask first", None);
        h.events_until(&job.job_id, 0, |s| s == JobStatus::WaitingForUser)
            .await;
        h.runtime.cancel(&job.job_id).unwrap();
        h.events_until(&job.job_id, 0, JobStatus::is_terminal).await;
        assert_eq!(
            h.runtime.job(&job.job_id).unwrap().status,
            JobStatus::Cancelled
        );
    }
}

fn error(status: u16, headers: &[(&str, &str)], body: &str) -> Turn {
    Turn::Error {
        status,
        headers: headers
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect(),
        body: body.into(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_errors_are_retried_by_class() {
    for protocol in PROTOCOLS {
        // Rate limit (retry-after honoured), overload, a broken stream: retried.
        let h = harness(
            protocol,
            vec![
                error(429, &[("retry-after", "1")], r#"{"error":{"type":"rate_limit_error","message":"slow down"}}"#),
                error(529, &[], r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#),
                Turn::StreamError {
                    message: "upstream overloaded".into(),
                },
                nothing("Nothing to change."),
            ],
            |_| {},
        )
        .await;
        let (job, events) = h.run_to_end("Check", None).await;
        assert_eq!(job.status, JobStatus::Completed, "{:?}", kinds(&events));
        let retries = of_kind(&events, "provider.retry");
        let classes: Vec<&str> = retries
            .iter()
            .map(|r| r["error"]["code"].as_str().unwrap())
            .collect();
        assert_eq!(classes, ["rate_limited", "overloaded", "overloaded"]);
        assert_eq!(retries[0]["delay_ms"], 1000, "retry-after: 1");
        assert_eq!(h.bodies().len(), 4);

        // Authentication and invalid requests: never retried.
        for (status, code) in [(401, "auth"), (400, "invalid_request")] {
            let h = harness(
                protocol,
                vec![error(status, &[], r#"{"error":{"message":"no"}}"#)],
                |_| {},
            )
            .await;
            let (job, events) = h.run_to_end("Check", None).await;
            assert_eq!(job.status, JobStatus::Failed);
            assert_eq!(job.error.unwrap().code, code);
            assert!(of_kind(&events, "provider.retry").is_empty());
            assert_eq!(h.bodies().len(), 1);
        }

        // Server errors: a few times, then the job fails.
        let h = harness(
            protocol,
            (0..6).map(|_| error(500, &[], "boom")).collect(),
            |_| {},
        )
        .await;
        let (job, _) = h.run_to_end("Check", None).await;
        assert_eq!(job.error.unwrap().code, "server");
        assert_eq!(h.bodies().len(), 4, "one try and three retries");

        // The server's own word wins: x-should-retry: false.
        let h = harness(
            protocol,
            vec![error(503, &[("x-should-retry", "false")], "")],
            |_| {},
        )
        .await;
        let (job, _) = h.run_to_end("Check", None).await;
        assert_eq!(job.status, JobStatus::Failed);
        assert_eq!(h.bodies().len(), 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hybrid_mode_falls_back_to_remote_and_says_why() {
    for protocol in PROTOCOLS {
        let local = ScriptedModel::start((0..6).map(|_| malformed("{oops")).collect())
            .await
            .unwrap();
        let h = harness(protocol, vec![propose_alpha()], |c| {
            c.agent_mode = AgentMode::HybridAuto;
            c.local = settings(&local, Protocol::OpenAiChat);
        })
        .await;
        let (job, events) = h.run_to_end("Mark Alpha final", None).await;
        assert_eq!(
            job.status,
            JobStatus::AwaitingReview,
            "{:?}",
            kinds(&events)
        );
        let selected = strings(&events, "provider.selected", "provider");
        let remote = match protocol {
            Protocol::OpenAiChat => "openai",
            Protocol::AnthropicMessages => "anthropic",
        };
        assert_eq!(selected, ["local", remote]);
        let fallback = of_kind(&events, "provider.fallback");
        assert_eq!(fallback[0]["reason"], "schema_failures");
        assert_eq!(job.provider.as_deref(), Some(remote));
        assert_eq!(local.requests().len(), 6);
        assert!(job.usage.steps >= 7, "usage counts both providers");

        // A local server that is not there at all.
        let closed = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let h = harness(protocol, vec![propose_alpha()], |c| {
            c.agent_mode = AgentMode::HybridAuto;
            c.local.base_url = Some(format!("http://{closed}/v1"));
        })
        .await;
        let (job, events) = h.run_to_end("Mark Alpha final", None).await;
        assert_eq!(job.status, JobStatus::AwaitingReview);
        assert_eq!(
            of_kind(&events, "provider.fallback")[0]["reason"],
            "provider_error"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_survives_a_restart_and_the_job_resumes() {
    let h = harness(
        Protocol::AnthropicMessages,
        vec![
            Turn::call("clarify_user", json!({ "question": "Which status?" })),
            propose_alpha(),
        ],
        |_| {},
    )
    .await;
    let job = h.start("Update Alpha", None);
    h.events_until(&job.job_id, 0, |s| s == JobStatus::WaitingForUser)
        .await;
    h.runtime.shutdown();

    let reopened = Runtime::open(h.vault.path(), h.config.clone()).unwrap();
    let snapshot = reopened.job(&job.job_id).unwrap();
    assert_eq!(snapshot.status, JobStatus::WaitingForUser);
    assert_eq!(snapshot.pending_question.unwrap().question, "Which status?");
    reopened
        .clarify(&job.job_id, "q_1", Some("final".into()))
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !reopened.job(&job.job_id).unwrap().status.is_terminal() {
        assert!(std::time::Instant::now() < deadline);
        reopened
            .events(&job.job_id, snapshot.cursor, 500)
            .await
            .unwrap();
    }
    assert_eq!(
        reopened.job(&job.job_id).unwrap().status,
        JobStatus::AwaitingReview
    );
    assert_eq!(tool_results(&h.bodies()[1])[0].1, "final");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_running_at_a_restart_is_marked_interrupted() {
    let slow = Turn::Reply {
        text: (0..100).map(|i| format!("{i} ")).collect(),
        calls: Vec::new(),
        stop: None,
        usage: None,
        chunk_delay_ms: 50,
    };
    let h = harness(Protocol::OpenAiChat, vec![slow], |_| {}).await;
    let job = h.start("Write", None);
    let mut cursor = 0;
    while cursor == 0 || h.runtime.job(&job.job_id).unwrap().status != JobStatus::Running {
        cursor = h
            .runtime
            .events(&job.job_id, cursor, 2_000)
            .await
            .unwrap()
            .next_cursor;
    }
    h.runtime.shutdown();
    let reopened = Runtime::open(h.vault.path(), h.config.clone()).unwrap();
    let job = reopened.job(&job.job_id).unwrap();
    assert_eq!(job.status, JobStatus::Failed);
    assert_eq!(job.error.unwrap().code, "interrupted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_keep_chat_and_context_and_gc_purges_only_finished_jobs() {
    let h = harness(
        Protocol::OpenAiChat,
        vec![
            nothing("First answer."),
            nothing("Second answer."),
            Turn::call("clarify_user", json!({ "question": "Hm?" })),
        ],
        |c| c.limits.max_jobs_per_session = 1,
    )
    .await;
    let session = h.runtime.create_session(None).unwrap();
    let run = |instruction: &str| {
        h.runtime
            .run(redline::jobs::RunRequest {
                session_id: session.session_id.clone(),
                instruction: instruction.into(),
                context_rows: vec![redline::jobs::ContextRow {
                    id: "ctx_1".into(),
                    kind: "selection".into(),
                    file_path: Some("notes/alpha.md".into()),
                    start_line: Some(3),
                    end_line: Some(3),
                    content: "Status: draft".into(),
                    pinned: instruction == "One",
                }],
                tool_config: Default::default(),
            })
            .unwrap()
    };
    let first = run("One");
    h.events_until(&first.job_id, 0, JobStatus::is_terminal)
        .await;
    let second = run("Two");
    h.events_until(&second.job_id, 0, JobStatus::is_terminal)
        .await;
    // The second request carried the chat so far and the pinned row once.
    let body = &h.bodies()[1];
    let text = body["messages"].to_string();
    assert!(text.contains("First answer.") && text.contains("\"One\""));
    assert_eq!(
        text.matches("[ctx_1]").count(),
        2,
        "the pinned row and this run's row"
    );
    let third = run("Three");
    h.events_until(&third.job_id, 0, |s| s == JobStatus::WaitingForUser)
        .await;

    // One job per session is kept; the waiting one is never purged.
    h.runtime.gc().unwrap();
    assert!(h.runtime.job(&first.job_id).is_err());
    assert!(h.runtime.job(&second.job_id).is_err());
    assert_eq!(
        h.runtime.job(&third.job_id).unwrap().status,
        JobStatus::WaitingForUser
    );

    let renamed = h
        .runtime
        .rename_session(&session.session_id, "Status work")
        .unwrap();
    assert_eq!(renamed.name.as_deref(), Some("Status work"));
    assert_eq!(renamed.chat.len(), 5);
    let cleared = h.runtime.clear_session(&session.session_id).unwrap();
    assert!(cleared.chat.is_empty() && cleared.context_rows.is_empty());
    assert_eq!(cleared.name.as_deref(), Some("Status work"));
    h.runtime.delete_session(&session.session_id).unwrap();
    assert!(h.runtime.session(&session.session_id).is_err());
    assert!(h.runtime.job(&third.job_id).is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gc_keeps_a_finished_job_while_its_hunks_are_in_the_review() {
    let h = harness(
        Protocol::OpenAiChat,
        vec![propose_alpha(), nothing("Nothing to do.")],
        |c| c.limits.max_jobs_per_session = 1,
    )
    .await;
    let session = h.runtime.create_session(None).unwrap();
    let run = |instruction: &str| h.start_in(&session.session_id, instruction, None);
    let first = run("Mark Alpha final");
    let events = h
        .events_until(&first.job_id, 0, |s| s == JobStatus::AwaitingReview)
        .await;
    let hunk = h
        .runtime
        .job(&first.job_id)
        .unwrap()
        .diff_bundle
        .unwrap()
        .files[0]
        .hunks[0]
        .hunk_id
        .clone();
    // Rejected, the job is finished; a later job in the session runs gc.
    h.runtime
        .decide(&hunk, Status::Rejected, None, false)
        .unwrap();
    let second = run("Anything else?");
    h.events_until(&second.job_id, 0, JobStatus::is_terminal)
        .await;
    h.runtime.gc().unwrap();

    // Its decision can still be undone, so the job stays, and the undo is
    // in its log.
    assert_eq!(
        h.runtime.job(&first.job_id).unwrap().status,
        JobStatus::Completed
    );
    h.runtime
        .decide(&hunk, Status::Pending, None, false)
        .unwrap();
    assert_eq!(
        h.runtime.job(&first.job_id).unwrap().status,
        JobStatus::AwaitingReview
    );
    let page = h
        .runtime
        .events(&first.job_id, events.len() as u64, 0)
        .await
        .unwrap();
    assert_eq!(
        strings(&page.events, "review.updated", "status"),
        ["rejected", "pending"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conflict_on_apply_writes_nothing_and_a_rerun_is_linked_to_the_job() {
    let h = harness(
        Protocol::OpenAiChat,
        vec![
            Turn::call("read_file", json!({ "file_path": "notes/alpha.md" })),
            propose_alpha(),
            nothing("The status is already settled."),
        ],
        |_| {},
    )
    .await;
    let (job, _) = h.run_to_end("Mark Alpha final", None).await;
    let hunk = job.diff_bundle.as_ref().unwrap().files[0].hunks[0]
        .hunk_id
        .clone();
    assert!(
        h.runtime
            .apply(&h.runtime.job(&job.job_id).unwrap(), &["h_999".into()])
            .is_err(),
        "a hunk of no job of this one"
    );

    // Another editor changes the file after the agent read it.
    let theirs = "# Alpha\n\nStatus: archived\nOwner: Ann\n";
    std::fs::write(h.vault.path().join("notes/alpha.md"), theirs).unwrap();
    let report = h
        .runtime
        .apply(&h.runtime.job(&job.job_id).unwrap(), &[hunk])
        .unwrap();
    assert_eq!(report[0].status, "conflict");
    assert_eq!(
        h.read("notes/alpha.md"),
        theirs,
        "their edit is not overwritten"
    );
    let failed = h.runtime.job(&job.job_id).unwrap();
    assert_eq!(
        (failed.status, failed.error.unwrap().code.as_str()),
        (JobStatus::Failed, "conflict")
    );

    let rerun = h.runtime.rerun(&job.job_id).unwrap();
    assert_eq!(rerun.rerun_of.as_deref(), Some(job.job_id.as_str()));
    let events = h
        .events_until(&rerun.job_id, 0, JobStatus::is_terminal)
        .await;
    assert_eq!(
        of_kind(&events, "job.queued")[0]["rerun_of"],
        json!(job.job_id)
    );
    assert_eq!(
        h.runtime.job(&rerun.job_id).unwrap().status,
        JobStatus::Completed
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_definition_filters_the_tools_on_the_server() {
    let h = harness(
        Protocol::AnthropicMessages,
        vec![
            Turn::call("read_file", json!({ "file_path": "notes/alpha.md" })),
            Turn::text(&["Alpha is a draft owned by Ann."]),
        ],
        |c| {
            c.agents = vec![redline::agent::AgentDefinition {
                agent_id: "searcher".into(),
                display_name: "Search only".into(),
                description: String::new(),
                system_prompt: "You only search.".into(),
                tool_allowlist: Some(vec!["search_*".into(), "clarify_*".into()]),
                tool_denylist: None,
                model: Some("scripted-model-small".into()),
            }]
        },
    )
    .await;
    let session = h.runtime.create_session(Some("searcher")).unwrap();
    assert!(h.runtime.create_session(Some("nobody")).is_err());
    let job = h
        .runtime
        .run(redline::jobs::RunRequest {
            session_id: session.session_id,
            instruction: "What is Alpha's status?".into(),
            ..Default::default()
        })
        .unwrap();
    let events = h.events_until(&job.job_id, 0, JobStatus::is_terminal).await;
    let bodies = h.bodies();
    assert_eq!(tool_names(&bodies[0]), ["search_project", "clarify_user"]);
    assert_eq!(bodies[0]["model"], "scripted-model-small");
    assert!(
        bodies[0]["system"]
            .as_str()
            .unwrap()
            .starts_with("You only search.")
    );
    // A call to a tool the agent may not use is refused, not run.
    assert_eq!(
        of_kind(&events, "tool.call.failed")[0]["code"],
        "unknown_tool"
    );
    assert!(of_kind(&events, "tool.call.completed").is_empty());
    assert_eq!(
        h.runtime.job(&job.job_id).unwrap().status,
        JobStatus::Completed
    );
}

/// A proposal on a file whose buffer holds the user's unsaved edits stacks
/// on them: the agent reads the buffer, its hunk is staged on top, and the
/// user's text stays (in the buffer, not on disk) beside it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proposal_over_unsaved_user_edits_stacks_on_them() {
    let h = harness(
        Protocol::OpenAiChat,
        vec![
            Turn::call("read_file", json!({ "file_path": "notes/alpha.md" })),
            propose_alpha(),
        ],
        |_| {},
    )
    .await;
    let mine = format!("{ALPHA}Mine, unsaved.\n");
    h.runtime.edit("notes/alpha.md", &mine, None).unwrap();
    let (job, events) = h.run_to_end("Mark Alpha final", None).await;
    assert_eq!(
        job.status,
        JobStatus::AwaitingReview,
        "{:?}",
        kinds(&events)
    );
    assert!(of_kind(&events, "edits.refused").is_empty());
    // The model read the buffer, the user's line included.
    let read = &tool_results(&h.bodies()[1])[0].1;
    assert!(read.contains("Mine, unsaved."), "{read}");
    let buffer = h.runtime.file_content("notes/alpha.md").unwrap();
    assert_eq!(buffer.text, mine.replace("Status: draft", "Status: final"));
    assert_eq!(buffer.state.pending_hunks.len(), 1);
    assert_eq!(h.read("notes/alpha.md"), ALPHA, "nothing reached the disk");
    // Rejecting the hunk gives back exactly the user's text.
    let hunk = &buffer.state.pending_hunks[0];
    h.runtime
        .decide(hunk, Status::Rejected, None, false)
        .unwrap();
    assert_eq!(h.runtime.file_content("notes/alpha.md").unwrap().text, mine);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_the_server_cannot_parse_is_a_malformed_step_not_a_retry() {
    let h = harness(
        Protocol::OpenAiChat,
        vec![unparseable(), unparseable(), propose_alpha()],
        |_| {},
    )
    .await;
    let (job, events) = h.run_to_end("Mark Alpha final", None).await;
    assert_eq!(
        job.status,
        JobStatus::AwaitingReview,
        "{:?}",
        kinds(&events)
    );
    assert_eq!(of_kind(&events, "model.unreadable").len(), 2);
    assert!(
        of_kind(&events, "provider.retry").is_empty(),
        "never retried as it was"
    );
    let bodies = h.bodies();
    assert_eq!(bodies.len(), 3, "one request per step");
    assert!(
        bodies[1]["messages"]
            .to_string()
            .contains("could not be read as a tool call")
    );

    // In hybrid_auto it counts toward the schema-retry limit, and that
    // limit sends the job to the remote model.
    let local = ScriptedModel::start((0..6).map(|_| unparseable()).collect())
        .await
        .unwrap();
    let h = harness(Protocol::AnthropicMessages, vec![propose_alpha()], |c| {
        c.agent_mode = AgentMode::HybridAuto;
        c.local = settings(&local, Protocol::OpenAiChat);
    })
    .await;
    let (job, events) = h.run_to_end("Mark Alpha final", None).await;
    assert_eq!(
        job.status,
        JobStatus::AwaitingReview,
        "{:?}",
        kinds(&events)
    );
    assert_eq!(
        of_kind(&events, "provider.fallback")[0]["reason"],
        "schema_failures"
    );
    assert_eq!(local.requests().len(), 6, "five retries, then the limit");
    assert!(of_kind(&events, "provider.retry").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeated_failing_call_is_cut_short() {
    let missing = || Turn::call("read_file", json!({ "file_path": "notes/missing.md" }));
    let h = harness(
        Protocol::OpenAiChat,
        (0..8).map(|_| missing()).collect(),
        |_| {},
    )
    .await;
    let (job, events) = h.run_to_end("Read the missing note", Some(20)).await;
    assert_eq!(job.status, JobStatus::Failed, "{:?}", kinds(&events));
    assert_eq!(job.error.as_ref().unwrap().code, "repeated_calls");
    let ran = of_kind(&events, "tool.call.completed");
    assert_eq!(ran.len(), 2, "run twice");
    assert!(ran.iter().all(|r| r["ok"] == false));
    assert_eq!(
        strings(&events, "tool.call.failed", "code"),
        ["repeated_call"; 3]
    );
    assert_eq!(h.bodies().len(), 5, "ended after the third repeat not run");
    let told = h.bodies()[3]["messages"].to_string();
    assert!(
        told.contains("not run: you made this exact call 3 times"),
        "{told}"
    );
}
