//! Conformance of the stream decoders with real recorded streams: the
//! llama-server captures in `fixtures/provider-streams/`, and the third-party
//! recordings of the official SDKs' test suites and vercel/ai read from
//! `../shared/fixtures/provider-streams/` (skipped, with a note, when that
//! folder is absent; never copied into the project).
//!
//! Every stream is decoded whole and again in random 1–7 byte chunks (split
//! inside UTF-8 sequences and inside line endings); both must give the same
//! step, and the tool calls must be the ones the SDKs' own tests expect.

use std::path::{Path, PathBuf};

use futures_util::stream;
use rand::{RngExt, SeedableRng};
use redline::providers::{Protocol, Step, StopReason, read_step};
use serde_json::{Value, json};

fn ours() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/provider-streams")
}

fn shared() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/provider-streams");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "note: ../shared/fixtures/provider-streams is absent; skipping the third-party recordings"
        );
        None
    }
}

/// Decodes `bytes` whole, then in random small chunks, and checks both agree.
fn decode(protocol: Protocol, bytes: &[u8], name: &str) -> Step {
    let whole = futures_executor::block_on(read_step(
        protocol,
        stream::iter([Ok::<_, std::io::Error>(bytes.to_vec())]),
    ))
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    for seed in 0..3 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut chunks = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let n = rng.random_range(1..=7).min(bytes.len() - at);
            chunks.push(Ok::<_, std::io::Error>(bytes[at..at + n].to_vec()));
            at += n;
        }
        let chunked =
            futures_executor::block_on(read_step(protocol, stream::iter(chunks))).unwrap();
        assert_eq!(
            chunked, whole,
            "{name}: chunked decoding differs (seed {seed})"
        );
    }
    whole
}

fn file(path: &Path) -> Step {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let protocol = if name.starts_with("ant_") || path.to_string_lossy().contains("anthropic") {
        Protocol::AnthropicMessages
    } else {
        Protocol::OpenAiChat
    };
    let mut bytes = std::fs::read(path).unwrap();
    if name.ends_with(".chunks.txt") {
        // vercel/ai: one data payload per line, without SSE framing.
        bytes = String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(|l| format!("data: {l}\n\n"))
            .collect::<String>()
            .into_bytes();
    }
    decode(protocol, &bytes, &name)
}

fn args(step: &Step, i: usize) -> Value {
    serde_json::from_str(&step.tool_calls[i].arguments).unwrap()
}

#[test]
fn llama_server_captures() {
    let mut seen = 0;
    for dir in [
        "llama-server-functionary-template",
        "llama-server-default-template",
    ] {
        for entry in std::fs::read_dir(ours().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            // The Responses API is not one of our adapters.
            if !name.ends_with(".response.sse") || name.starts_with("oai_responses") {
                continue;
            }
            let step = file(&path);
            seen += 1;
            assert!(
                step.stop.is_some() || step.error.is_some(),
                "{dir}/{name}: no stop reason: {step:?}"
            );
            for call in step.tool_calls.iter().filter(|c| c.complete) {
                assert!(!call.name.is_empty(), "{name}");
                serde_json::from_str::<Value>(&call.arguments).unwrap();
            }
        }
    }
    assert!(seen >= 10, "{seen} captures");
    let dir = ours().join("llama-server-functionary-template");
    // A real streamed tool call from a 135M model, forced by tool_choice: required.
    let required = file(&dir.join("oai_chat_stream_required.response.sse"));
    assert_eq!(required.tool_calls.len(), 1, "{required:?}");
    assert_eq!(required.tool_calls[0].name, "read_file");
    assert!(required.tool_calls[0].complete);
    assert_eq!(required.stop, Some(StopReason::ToolUse));
    // Parallel calls until the length limit: the last one is cut and never complete.
    let parallel = file(&dir.join("oai_chat_stream_parallel.response.sse"));
    assert_eq!(parallel.stop, Some(StopReason::MaxTokens));
    assert!(parallel.tool_calls.len() >= 2, "{parallel:?}");
    let (last, before) = parallel.tool_calls.split_last().unwrap();
    assert!(
        !last.complete,
        "the call cut off by the length limit never runs"
    );
    assert!(
        before.iter().all(|c| c.complete),
        "the calls written before the limit are whole: {before:?}"
    );
    // The server's own mid-stream error is surfaced.
    let broken = file(&dir.join("oai_chat_stream_named.response.sse"));
    assert!(
        broken.error.as_deref().unwrap().contains("does not match"),
        "{broken:?}"
    );
    let anthropic = file(&dir.join("ant_messages_stream_any.response.sse"));
    assert!(!anthropic.tool_calls.is_empty(), "{anthropic:?}");
    assert_eq!(anthropic.stop, Some(StopReason::ToolUse));
}

#[test]
fn openai_python_recordings() {
    let Some(shared) = shared() else { return };
    let dir = shared.join("openai-python");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        file(&entry.unwrap().path());
        seen += 1;
    }
    assert_eq!(seen, 12);
    // test_parse_multiple_pydantic_tools: two parallel calls with fragmented arguments and a usage chunk.
    let step = file(&dir.join("test_parse_multiple_pydantic_tools__f82268f2fefd.sse"));
    let calls: Vec<(&str, Value)> = step
        .tool_calls
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name.as_str(), args(&step, i)))
        .collect();
    assert_eq!(
        calls,
        [
            (
                "GetWeatherArgs",
                json!({"city": "Edinburgh", "country": "GB", "units": "c"})
            ),
            (
                "get_stock_price",
                json!({"ticker": "AAPL", "exchange": "NASDAQ"})
            ),
        ]
    );
    assert!(
        step.tool_calls
            .iter()
            .all(|c| c.complete && c.tool_call_id.starts_with("call_"))
    );
    assert_eq!(step.stop, Some(StopReason::ToolUse));
    assert_eq!(
        (step.usage.input_tokens, step.usage.output_tokens),
        (Some(149), Some(60))
    );
    // The length limit cut the answer: reported, never mistaken for a finished turn.
    let cut = file(&dir.join("test_parse_max_tokens_reached__4cc50a6135d2.sse"));
    assert_eq!(cut.stop, Some(StopReason::MaxTokens));
    let plain = file(&dir.join("test_parse_nothing__e2aad469b71d.sse"));
    assert!(!plain.text.is_empty() && plain.tool_calls.is_empty());
    assert_eq!(plain.stop, Some(StopReason::EndTurn));
    let refusal = file(&dir.join("test_parse_pydantic_model_refusal__173417d55340.sse"));
    assert!(!refusal.text.is_empty(), "the refusal text is shown");
}

#[test]
fn anthropic_sdk_recordings() {
    let Some(shared) = shared() else { return };
    let dir = shared.join("anthropic-sdk-python");
    let tool = file(&dir.join("tool_use_response.sse"));
    assert_eq!(tool.tool_calls.len(), 1);
    assert!(tool.tool_calls[0].complete, "{tool:?}");
    assert!(!tool.text.is_empty(), "text before the tool call");
    assert_eq!(tool.stop, Some(StopReason::ToolUse));
    let cut = file(&dir.join("incomplete_partial_json_response.sse"));
    assert!(
        cut.tool_calls.iter().any(|c| !c.complete),
        "a tool input cut by max_tokens is never complete: {cut:?}"
    );
    let basic = file(&dir.join("basic_response.sse"));
    assert!(basic.tool_calls.is_empty() && !basic.text.is_empty());
    file(&dir.join("refusal_response.sse"));
    let mut cassettes = 0;
    for entry in std::fs::read_dir(dir.join("cassettes")).unwrap() {
        let path = entry.unwrap().path();
        if path.to_string_lossy().ends_with(".response.sse") {
            let step = file(&path);
            assert!(step.stop.is_some(), "{}", path.display());
            cassettes += 1;
        }
    }
    assert_eq!(cassettes, 6);
    // The streaming two-turn tool loop: turn 0 asks for a tool with real arguments.
    let turn0 = file(&dir.join("cassettes/test_runners__TestSyncRunTools__555fb399-a54c-455b-9ac5-2c9673f18e12__0.response.sse"));
    assert_eq!(turn0.stop, Some(StopReason::ToolUse));
    assert!(
        turn0
            .tool_calls
            .iter()
            .all(|c| c.complete && c.tool_call_id.starts_with("toolu_"))
    );
}

#[test]
fn vercel_recordings() {
    let Some(shared) = shared() else { return };
    let dir = shared.join("vercel-ai");
    let none = file(&dir.join("anthropic__anthropic-tool-no-args.chunks.txt"));
    assert_eq!(none.tool_calls.len(), 1);
    assert_eq!(
        (
            none.tool_calls[0].arguments.as_str(),
            none.tool_calls[0].complete
        ),
        ("{}", true)
    );
    let xai = file(&dir.join("openai-compatible__xai-tool-call.chunks.txt"));
    assert_eq!(xai.tool_calls.len(), 1, "{xai:?}");
    assert!(xai.tool_calls[0].complete);
    let text = file(&dir.join("openai__openai-text.chunks.txt"));
    assert!(!text.text.is_empty());
    file(&dir.join("anthropic__anthropic-json-tool.1.chunks.txt"));
}

/// The HTTP adapter, served each llama-server capture over real HTTP, gives
/// the decoder's step — or, for a stream the server broke off with an error,
/// a server-class failure, never a step.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_http_adapter_reads_every_llama_server_capture_like_the_decoder() {
    use redline::providers::conversation::{Message, StepRequest, ToolChoice};
    use redline::providers::http::HttpProvider;
    use redline::providers::{Provider, ProviderErrorKind};
    use redline::testkit::scripted::{ScriptedModel, Turn};

    let mut served = 0;
    for dir in [
        "llama-server-default-template",
        "llama-server-functionary-template",
    ] {
        for entry in std::fs::read_dir(ours().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let protocol = match &name {
                n if n.starts_with("ant_") => Protocol::AnthropicMessages,
                n if n.starts_with("oai_chat_") => Protocol::OpenAiChat,
                _ => continue,
            };
            let content_type = if name.ends_with(".response.sse") {
                "text/event-stream"
            } else if name.ends_with(".response.json") {
                "application/json"
            } else {
                continue;
            };
            let body = std::fs::read_to_string(&path).unwrap();
            let expected = if content_type == "application/json" {
                // The whole body is one payload.
                let framed = format!("data: {}\n\n", body.replace('\n', ""));
                decode(protocol, framed.as_bytes(), &name)
            } else {
                file(&path)
            };
            let model = ScriptedModel::start(vec![Turn::Raw {
                content_type: content_type.into(),
                body,
            }])
            .await
            .unwrap();
            let settings = redline::config::HttpSettings {
                max_retries: 0,
                ..Default::default()
            };
            let provider = HttpProvider::new(
                "llama",
                protocol,
                &model.base_url(protocol),
                "m",
                None,
                settings,
            )
            .unwrap();
            let request = StepRequest {
                model: "m".into(),
                messages: vec![Message::User {
                    content: "Read src/main.rs".into(),
                }],
                tools: Vec::new(),
                tool_choice: ToolChoice::Auto,
                parallel_tool_calls: true,
                max_tokens: 64,
                temperature: None,
            };
            let mut text = String::new();
            let result = provider
                .step(&request, &mut |n| {
                    if let redline::providers::Notice::Text(t) = n {
                        text.push_str(&t)
                    }
                })
                .await;
            match (&expected.error, result) {
                // llama.cpp's in-stream errors in these captures all say the
                // model's output was not in its format: a malformed step for
                // the loop, never a server error to retry.
                (Some(message), Err(e)) => {
                    assert!(
                        message.contains("does not match the expected"),
                        "{name}: {message}"
                    );
                    assert_eq!(e.kind, ProviderErrorKind::MalformedOutput, "{name}");
                }
                (None, Ok(mut step)) => {
                    (step.latency_ms, step.model) = (0, String::new());
                    assert_eq!(step, expected, "{name}");
                    assert_eq!(text, step.text, "{name}: streamed text");
                }
                (e, r) => panic!("{name}: decoder error {e:?}, adapter {r:?}"),
            }
            served += 1;
        }
    }
    assert!(served >= 10, "only {served} captures served");
}
