//! The HTTP adapter: one [`HttpProvider`] per configured endpoint, speaking
//! either wire format over `reqwest`, with retries by error class.
//!
//! Rate limits and overload are retried with exponential backoff and jitter,
//! honouring `retry-after` / `retry-after-ms` and Anthropic's `x-should-retry`;
//! server errors, timeouts and dropped connections a few times; authentication
//! and invalid requests never. An error the server reports inside a 200 stream
//! counts as a failed attempt. Every model call is read-only for the project,
//! so retrying one is always safe.

use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use reqwest::header::{self, HeaderMap, HeaderValue};
use serde_json::Value;

use super::conversation::{StepRequest, ToolChoice};
use super::keys::ApiKey;
use super::{
    Notice, Protocol, Provider, ProviderError, ProviderErrorKind, Step, StopReason, read_step_with,
};
pub use crate::config::HttpSettings;

/// A client builder whose TLS is rustls over ring's crypto (installed as the
/// process's default provider the first time), with the platform's roots.
pub fn client_builder() -> reqwest::ClientBuilder {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        // Another part of the process may have installed one first: fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    reqwest::Client::builder()
}

/// A provider endpoint reached over HTTP.
#[derive(Clone, Debug)]
pub struct HttpProvider {
    name: String,
    protocol: Protocol,
    model: String,
    url: String,
    key: Option<ApiKey>,
    client: reqwest::Client,
    settings: HttpSettings,
    temperature: Option<f32>,
    require_tools: bool,
    max_output_tokens: Option<u32>,
}

impl HttpProvider {
    /// An endpoint named `name` (for events: `openai`, `anthropic`, `local`),
    /// speaking `protocol` at `base_url` — for OpenAI-compatible servers the
    /// URL up to and including `/v1`, for Anthropic the host (`/v1/messages`
    /// is appended).
    pub fn new(
        name: impl Into<String>,
        protocol: Protocol,
        base_url: &str,
        model: impl Into<String>,
        key: Option<ApiKey>,
        settings: HttpSettings,
    ) -> Result<HttpProvider, ProviderError> {
        let base = base_url.trim_end_matches('/');
        let url = match protocol {
            Protocol::OpenAiChat => format!("{base}/chat/completions"),
            Protocol::AnthropicMessages => format!("{base}/v1/messages"),
        };
        let client = client_builder()
            .connect_timeout(Duration::from_millis(settings.connect_timeout_ms))
            .read_timeout(Duration::from_millis(settings.idle_timeout_ms))
            .timeout(Duration::from_millis(settings.request_timeout_ms))
            .build()
            .map_err(|e| ProviderError::new(ProviderErrorKind::Transport, None, e.to_string()))?;
        Ok(HttpProvider {
            name: name.into(),
            protocol,
            model: model.into(),
            url,
            key,
            client,
            settings,
            temperature: None,
            require_tools: false,
            max_output_tokens: None,
        })
    }

    /// Sends `temperature` with every request (unless the request sets one).
    pub fn with_temperature(mut self, temperature: Option<f32>) -> HttpProvider {
        self.temperature = temperature;
        self
    }

    /// Turns every free tool choice into a required one and, over Chat
    /// Completions, sends the tools' schemas capped to the step's output
    /// limit (see `ProviderSettings::require_tools`).
    pub fn with_required_tools(mut self, require: bool) -> HttpProvider {
        self.require_tools = require;
        self
    }

    /// Caps every request's `max_tokens` at `cap` (see
    /// `ProviderSettings::max_output_tokens`).
    pub fn with_max_output_tokens(mut self, cap: Option<u32>) -> HttpProvider {
        self.max_output_tokens = cap;
        self
    }

    fn headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        let secret = |value: String| {
            // A key that is not a valid header value is sent as nothing at all;
            // the server's 401 then says what is wrong without echoing it.
            let mut v = HeaderValue::from_str(&value).unwrap_or(HeaderValue::from_static(""));
            v.set_sensitive(true);
            v
        };
        match self.protocol {
            Protocol::OpenAiChat => {
                if let Some(key) = &self.key {
                    headers.insert(
                        header::AUTHORIZATION,
                        secret(format!("Bearer {}", key.expose())),
                    );
                }
            }
            Protocol::AnthropicMessages => {
                headers.insert("anthropic-version", HeaderValue::from_static("2023-06-01"));
                if let Some(key) = &self.key {
                    headers.insert("x-api-key", secret(key.expose().to_owned()));
                }
            }
        }
        headers
    }

    async fn attempt(
        &self,
        body: &[u8],
        notices: &mut (dyn FnMut(Notice) + Send),
    ) -> Result<Step, Failure> {
        let response = self
            .client
            .post(&self.url)
            .headers(self.headers())
            .body(body.to_vec())
            .send()
            .await
            .map_err(Failure::transport)?;
        let status = response.status();
        let headers = response.headers().clone();
        if !status.is_success() {
            let text = response.text().await.unwrap_or_default();
            return Err(Failure::status(status.as_u16(), &headers, &text));
        }
        let json = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        let step = if json {
            // Some servers answer a streaming request with one JSON body.
            let text = response.text().await.map_err(Failure::transport)?;
            self.decode_whole(&text, notices)
        } else {
            read_step_with(self.protocol, response.bytes_stream(), &mut |e| {
                if let super::StreamEvent::Text(t) = e {
                    notices(Notice::Text(t.clone()));
                }
            })
            .await
            .map_err(|e| Failure {
                error: ProviderError::new(ProviderErrorKind::Transport, None, e.to_string()),
                retry: true,
                retry_after: None,
            })?
        };
        if let Some(message) = &step.error {
            let kind = classify_message(message);
            return Err(Failure {
                error: ProviderError::new(kind, Some(status.as_u16()), message.clone()),
                retry: kind.retryable(),
                retry_after: None,
            });
        }
        Ok(step)
    }

    fn decode_whole(&self, text: &str, notices: &mut (dyn FnMut(Notice) + Send)) -> Step {
        let mut builder = super::StepBuilder::default();
        let events = match (self.protocol, serde_json::from_str::<Value>(text)) {
            (Protocol::OpenAiChat, _) => super::openai::Decoder::default().decode(text),
            (Protocol::AnthropicMessages, Ok(v)) if v.get("error").is_none() => {
                super::anthropic::decode_message(&v)
            }
            (Protocol::AnthropicMessages, _) => super::anthropic::decode("error", text),
        };
        for event in events {
            if let super::StreamEvent::Text(t) = &event {
                notices(Notice::Text(t.clone()));
            }
            builder.push(event);
        }
        builder.finish()
    }

    fn backoff(&self, attempt: u32) -> Duration {
        let base = self
            .settings
            .backoff_ms
            .saturating_mul(1 << attempt.min(16));
        // Jitter spreads clients that failed together: 75–100% of the step.
        let jitter = 0.75 + 0.25 * rand::random::<f64>();
        Duration::from_millis((base as f64 * jitter) as u64)
    }
}

impl Provider for HttpProvider {
    fn name(&self) -> &str {
        &self.name
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn step<'a>(
        &'a self,
        request: &'a StepRequest,
        notices: &'a mut (dyn FnMut(Notice) + Send),
    ) -> BoxFuture<'a, Result<Step, ProviderError>> {
        Box::pin(async move {
            let mut request = std::borrow::Cow::Borrowed(request);
            if self.require_tools && request.tool_choice == ToolChoice::Auto {
                request.to_mut().tool_choice = ToolChoice::Required;
            }
            if request.temperature.is_none() && self.temperature.is_some() {
                request.to_mut().temperature = self.temperature;
            }
            if let Some(cap) = self.max_output_tokens
                && request.max_tokens > cap
            {
                request.to_mut().max_tokens = cap;
            }
            // A call asked for on every step is what llama.cpp and vLLM
            // constrain to the tools' schemas: one call a step (a grammar
            // for several lets a small model repeat one call until the
            // limit cuts it off), its schema bounded so that it ends within
            // the step. (Chat Completions only, the wire of llama.cpp and
            // vLLM: bounds are not in the subset Anthropic's strict tools take.)
            let one_call = self.require_tools && self.protocol == Protocol::OpenAiChat;
            if one_call {
                let request = request.to_mut();
                request.parallel_tool_calls = false;
                for tool in &mut request.tools {
                    let source = if tool.bounded.is_null() {
                        &tool.parameters
                    } else {
                        &tool.bounded
                    };
                    tool.parameters = super::caps::capped(source, request.max_tokens);
                }
            }
            let body = match self.protocol {
                Protocol::OpenAiChat => super::openai::request_body(&request),
                Protocol::AnthropicMessages => super::anthropic::request_body(&request),
            };
            let body = serde_json::to_vec(&body).expect("request bodies serialize");
            let mut attempt = 0;
            loop {
                let started = Instant::now();
                match self.attempt(&body, notices).await {
                    Ok(mut step) => {
                        step.latency_ms = started.elapsed().as_millis() as u64;
                        step.model = self.model.clone();
                        // A server that wrote more calls than asked (llama.cpp's
                        // template grammars allow several whatever the request
                        // says): the first is the answer; the rest, often the
                        // same call again until one is cut off, were not asked for.
                        if one_call && step.tool_calls.len() > 1 && step.tool_calls[0].complete {
                            tracing::debug!(
                                dropped = step.tool_calls.len() - 1,
                                "calls beyond the one asked for"
                            );
                            step.tool_calls.truncate(1);
                            step.stop = Some(StopReason::ToolUse);
                        }
                        return Ok(step);
                    }
                    Err(failure) if failure.retry && attempt < self.settings.max_retries => {
                        let delay = failure
                            .retry_after
                            .unwrap_or_else(|| self.backoff(attempt))
                            .min(Duration::from_millis(self.settings.max_backoff_ms));
                        attempt += 1;
                        notices(Notice::Retry {
                            attempt,
                            delay_ms: delay.as_millis() as u64,
                            error: failure.error,
                        });
                        tokio::time::sleep(delay).await;
                    }
                    Err(failure) => return Err(failure.error),
                }
            }
        })
    }
}

/// A failed attempt, and whether and when to try again.
struct Failure {
    error: ProviderError,
    retry: bool,
    retry_after: Option<Duration>,
}

impl Failure {
    fn transport(e: reqwest::Error) -> Failure {
        let kind = if e.is_timeout() {
            ProviderErrorKind::Timeout
        } else {
            ProviderErrorKind::Transport
        };
        // reqwest's message names the URL, never the headers.
        let mut message = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            message = format!("{message}: {s}");
            source = s.source();
        }
        Failure {
            error: ProviderError::new(kind, None, message),
            retry: true,
            retry_after: None,
        }
    }

    fn status(status: u16, headers: &HeaderMap, body: &str) -> Failure {
        let message = error_message(body)
            .or_else(|| Some(super::clip(body)).filter(|m| !m.trim().is_empty()))
            .unwrap_or_else(|| said_nothing(status));
        let kind = match status {
            401 | 403 => ProviderErrorKind::Auth,
            429 => ProviderErrorKind::RateLimited,
            529 => ProviderErrorKind::Overloaded,
            408 => ProviderErrorKind::Timeout,
            409 | 500..=599 => match classify_message(&message) {
                kind @ (ProviderErrorKind::Overloaded
                | ProviderErrorKind::ContextOverflow
                | ProviderErrorKind::MalformedOutput) => kind,
                _ => ProviderErrorKind::Server,
            },
            _ => match classify_message(&message) {
                ProviderErrorKind::ContextOverflow => ProviderErrorKind::ContextOverflow,
                _ => ProviderErrorKind::InvalidRequest,
            },
        };
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let retry = match header("x-should-retry") {
            Some("true") => true,
            Some("false") => false,
            _ => kind.retryable(),
        };
        let retry_after = header("retry-after-ms")
            .and_then(|v| v.trim().parse::<f64>().ok())
            .map(|ms| Duration::from_secs_f64(ms.max(0.0) / 1000.0))
            .or_else(|| {
                let value = header("retry-after")?.trim();
                match value.parse::<f64>() {
                    Ok(secs) => Some(Duration::from_secs_f64(secs.max(0.0))),
                    Err(_) => humantime::parse_rfc3339_weak(value)
                        .ok()
                        .or_else(|| httpdate(value))
                        .map(|at| {
                            at.duration_since(std::time::SystemTime::now())
                                .unwrap_or_default()
                        }),
                }
            });
        Failure {
            error: ProviderError::new(kind, Some(status), message),
            retry,
            retry_after,
        }
    }
}

/// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form
/// `retry-after` dates take.
fn httpdate(value: &str) -> Option<std::time::SystemTime> {
    let rest = value.split_once(", ")?.1.strip_suffix(" GMT")?;
    let mut parts = rest.split(' ');
    let (day, month, year, time) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = months.iter().position(|m| *m == month)? + 1;
    humantime::parse_rfc3339(&format!("{year}-{month:02}-{day:0>2}T{time}Z")).ok()
}

/// The `message` of an OpenAI- or Anthropic-shaped error body.
fn error_message(body: &str) -> Option<String> {
    let value: Value = serde_json::from_str(body).ok()?;
    let error = value.get("error")?;
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| error.to_string());
    let kind = error
        .get("type")
        .or_else(|| error.get("code"))
        .and_then(Value::as_str);
    Some(match kind {
        Some(kind) if !message.contains(kind) => format!("{kind}: {message}"),
        _ => message,
    })
}

/// What a status with an empty body means, in words: the server said
/// nothing, and a bare "(HTTP 404):" tells the user nothing either.
fn said_nothing(status: u16) -> String {
    let reason = reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("no reason given");
    match status {
        404 => format!(
            "{reason}, with no message: there is no such endpoint or model at this base URL; check the base URL (an OpenAI-compatible server's usually ends in /v1) and the model name"
        ),
        401 | 403 => format!("{reason}, with no message: check the API key"),
        _ => format!("{reason}, with no message"),
    }
}

/// The class of an error known only by its message (in-stream errors).
fn classify_message(message: &str) -> ProviderErrorKind {
    let m = message.to_ascii_lowercase();
    if m.contains("overloaded") {
        ProviderErrorKind::Overloaded
    } else if m.contains("rate_limit") || m.contains("rate limit") {
        ProviderErrorKind::RateLimited
    } else if m.contains("context_length")
        || m.contains("context length")
        || m.contains("context window")
        || m.contains("prompt is too long")
        || m.contains("exceeds the available context")
    {
        ProviderErrorKind::ContextOverflow
    } else if m.contains("model produced output")
        || m.contains("does not match the expected")
        || m.contains("failed to parse tool call")
        || m.contains("error parsing tool call")
    {
        ProviderErrorKind::MalformedOutput
    } else {
        ProviderErrorKind::Server
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn errors_are_classified_and_retried_by_class() {
        let f = Failure::status(
            401,
            &HeaderMap::new(),
            r#"{"error":{"message":"bad key","type":"authentication_error"}}"#,
        );
        assert_eq!((f.error.kind, f.retry), (ProviderErrorKind::Auth, false));
        assert_eq!(f.error.message, "authentication_error: bad key");
        let f = Failure::status(
            400,
            &HeaderMap::new(),
            r#"{"error":{"message":"This model's maximum context length is 8192 tokens","code":"context_length_exceeded"}}"#,
        );
        assert_eq!(
            (f.error.kind, f.retry),
            (ProviderErrorKind::ContextOverflow, false)
        );
        let f = Failure::status(429, &headers(&[("retry-after", "7")]), "slow down");
        assert_eq!(
            (f.error.kind, f.retry),
            (ProviderErrorKind::RateLimited, true)
        );
        assert_eq!(f.retry_after, Some(Duration::from_secs(7)));
        let f = Failure::status(
            429,
            &headers(&[("retry-after-ms", "250"), ("retry-after", "9")]),
            "",
        );
        assert_eq!(f.retry_after, Some(Duration::from_millis(250)));
        let f = Failure::status(
            529,
            &HeaderMap::new(),
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        );
        assert_eq!(
            (f.error.kind, f.retry),
            (ProviderErrorKind::Overloaded, true)
        );
        let f = Failure::status(503, &headers(&[("x-should-retry", "false")]), "");
        assert_eq!((f.error.kind, f.retry), (ProviderErrorKind::Server, false));
        assert_eq!(f.error.message, "Service Unavailable, with no message");
        // A server that says nothing is said in words, never as "(HTTP 404):".
        let f = Failure::status(404, &HeaderMap::new(), " \n");
        assert!(
            f.error.to_string().ends_with(
                "(HTTP 404): Not Found, with no message: there is no such endpoint or model at this base URL; check the base URL (an OpenAI-compatible server's usually ends in /v1) and the model name"
            ),
            "{}",
            f.error
        );
        let f = Failure::status(400, &headers(&[("x-should-retry", "true")]), "odd");
        assert_eq!(
            (f.error.kind, f.retry),
            (ProviderErrorKind::InvalidRequest, true)
        );
        let past = Failure::status(
            429,
            &headers(&[("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT")]),
            "",
        );
        assert_eq!(past.retry_after, Some(Duration::ZERO));
        assert!(httpdate("Sun, 06 Nov 1994 08:49:37 GMT").is_some());
        // llama.cpp, when a small model's output is no tool call it can parse.
        let recorded = r#"{"error":{"code":500,"message":"The model produced output that does not match the expected peg-native format","type":"server_error"}}"#;
        let f = Failure::status(500, &HeaderMap::new(), recorded);
        assert_eq!(
            (f.error.kind, f.retry),
            (ProviderErrorKind::MalformedOutput, false)
        );
        assert_eq!(
            classify_message(
                "The model produced output that does not match the expected peg-native format"
            ),
            ProviderErrorKind::MalformedOutput
        );
    }
}
