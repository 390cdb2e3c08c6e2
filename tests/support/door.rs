//! `redline serve`'s HTTP door for tests: a served API and a client with its token.

#![allow(dead_code)]

use std::time::{Duration, Instant};

use redline::api::Api;
use redline::api::http::{Served, serve};
use redline::jobs::Runtime;
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};

/// A response's JSON body (`null` when it has none).
pub async fn json_of(res: reqwest::Response) -> Value {
    serde_json::from_slice(&res.bytes().await.unwrap()).unwrap_or(Value::Null)
}

/// `redline serve`'s HTTP door over a runtime, and a client that carries its token.
pub struct Door {
    pub served: Served,
    pub client: Client,
}

impl Door {
    pub async fn open(runtime: Runtime) -> Door {
        Door {
            served: serve(Api::new(runtime), 0, None).await.unwrap(),
            client: redline::providers::http::client_builder().build().unwrap(),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.served.addr)
    }

    pub async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut req = self
            .client
            .request(method, self.url(path))
            .bearer_auth(&self.served.token);
        if let Some(body) = body {
            req = req
                .header("content-type", "application/json")
                .body(body.to_string());
        }
        let res = req.send().await.unwrap();
        let status = res.status();
        (status, json_of(res).await)
    }

    pub async fn get(&self, path: &str) -> Value {
        let (status, body) = self.call(Method::GET, path, None).await;
        assert_eq!(status, StatusCode::OK, "GET {path}: {body}");
        body
    }

    pub async fn post(&self, path: &str, body: Value) -> Value {
        let (status, reply) = self.call(Method::POST, path, Some(body)).await;
        assert_eq!(status, StatusCode::OK, "POST {path}: {reply}");
        reply
    }

    /// Long-polls a job's events until its status is `until`.
    pub async fn until(&self, job: &str, until: &str) -> Vec<Value> {
        let mut cursor = 0;
        let mut events = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let page = self
                .get(&format!(
                    "/api/agent/jobs/{job}/events?cursor={cursor}&wait_ms=2000"
                ))
                .await;
            cursor = page["next_cursor"].as_u64().unwrap();
            events.extend(page["events"].as_array().unwrap().iter().cloned());
            let ended = events
                .iter()
                .any(|e| e["type"] == "job.status" && e["data"]["status"] == until);
            if ended {
                return events;
            }
            assert!(
                Instant::now() < deadline,
                "never reached {until}: {events:?}"
            );
        }
    }
}

impl Door {
    /// A new session and a job in it: their ids.
    pub async fn start(&self, instruction: &str) -> (String, String) {
        let id = |v: Value, key: &str| v[key].as_str().unwrap().to_owned();
        let sid = id(
            self.post("/api/agent/sessions", json!({})).await,
            "session_id",
        );
        let run = json!({ "session_id": sid, "instruction": instruction });
        let job = id(self.post("/api/agent/run", run).await, "job_id");
        (sid, job)
    }

    pub async fn put(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.call(Method::PUT, path, Some(body)).await
    }

    /// The project feed's events from `cursor` (long poll), until one of
    /// `kind` (about `path`, when given: the watcher may report other files first).
    pub async fn feed_until(&self, cursor: &mut u64, kind: &str, path: Option<&str>) -> Vec<Value> {
        let mut seen = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            let page = self
                .get(&format!("/api/events?cursor={cursor}&wait_ms=2000"))
                .await;
            *cursor = page["next_cursor"].as_u64().unwrap();
            seen.extend(page["events"].as_array().unwrap().iter().cloned());
            let about = |e: &Value| path.is_none_or(|p| e["data"]["path"] == p);
            if seen.iter().any(|e| e["type"] == kind && about(e)) {
                return seen;
            }
        }
        panic!("no {kind} event; saw {seen:?}");
    }
}
