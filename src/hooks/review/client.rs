//! The client of the running Redline's API, authorized by the token its
//! instance file gives.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::hooks::HookError;
use crate::instance::Instance;

/// The running Redline's API.
pub(super) struct Client {
    http: reqwest::Client,
    base: String,
    token: String,
}

impl Client {
    pub(super) fn new(open: &Instance) -> Result<Client, HookError> {
        Ok(Client {
            http: crate::providers::http::client_builder()
                .build()
                .map_err(|e| HookError::Redline(e.to_string()))?,
            base: format!("http://127.0.0.1:{}", open.port),
            token: open.token.clone(),
        })
    }

    pub(super) async fn post<T: DeserializeOwned>(
        &self,
        path: &str,
        body: &impl serde::Serialize,
    ) -> Result<T, HookError> {
        let failed = |e: &dyn std::fmt::Display| HookError::Redline(e.to_string());
        let body = serde_json::to_vec(body).map_err(|e| failed(&e))?;
        let response = self
            .http
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body)
            .send()
            .await
            .map_err(|e| failed(&e))?;
        let ok = response.status().is_success();
        let bytes = response.bytes().await.map_err(|e| failed(&e))?;
        if !ok {
            let error: Value = serde_json::from_slice(&bytes).unwrap_or_default();
            let field = |k: &str| error["error"][k].as_str().unwrap_or("internal").to_owned();
            return Err(HookError::Refused {
                code: field("code"),
                message: field("message"),
            });
        }
        serde_json::from_slice(&bytes).map_err(|e| failed(&e))
    }
}
