//! Each limit as the settings screen shows it: its name in words and the
//! range it may take. A value outside it is refused with a message that
//! names the limit as a person reads it ("Tool calls a job may make must be
//! a whole number from 1 to 10,000; -5 is not"), never as serde does.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One limit of [`Limits`](super::Limits), as the settings show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct LimitField {
    /// Its key in `[limits]` (`max_tool_calls_per_job`).
    pub key: String,
    /// Its name in words ("Tool calls a job may make").
    pub label: String,
    /// The smallest value it takes.
    pub min: u64,
    /// The largest value it takes.
    pub max: u64,
    /// The limit it may not be more than (a default, at most its cap).
    pub at_most: Option<String>,
}

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// Every limit: key, words, smallest and largest value. Bounds are what a
/// working setup could want, not what the types hold: a trillion tool
/// calls is a typo.
const FIELDS: &[(&str, &str, u64, u64)] = &[
    (
        "max_tool_calls_per_job",
        "Tool calls a job may make",
        1,
        10_000,
    ),
    (
        "max_search_results_default",
        "Search results by default",
        1,
        10_000,
    ),
    (
        "max_search_results_cap",
        "Most search results one search may ask for",
        1,
        10_000,
    ),
    (
        "max_search_snippet_lines",
        "Lines in a search snippet",
        0,
        1_000,
    ),
    (
        "max_snippet_line_bytes",
        "Bytes of a snippet line",
        16,
        64 * KIB,
    ),
    (
        "max_regex_bytes",
        "Bytes a compiled search pattern may take",
        KIB,
        64 * MIB,
    ),
    (
        "max_read_bytes_default",
        "Bytes a read returns by default",
        KIB,
        16 * MIB,
    ),
    (
        "max_read_bytes_cap",
        "Most bytes one read may ask for",
        KIB,
        16 * MIB,
    ),
    (
        "max_read_lines_default",
        "Lines a read returns by default",
        1,
        1_000_000,
    ),
    (
        "max_text_file_bytes",
        "Largest text file, in bytes",
        KIB,
        GIB,
    ),
    (
        "max_index_text_bytes",
        "Bytes of text the index keeps in memory",
        0,
        64 * GIB,
    ),
    (
        "max_list_results_default",
        "Paths a listing returns by default",
        1,
        100_000,
    ),
    (
        "max_list_results_cap",
        "Most paths one listing may ask for",
        1,
        100_000,
    ),
    (
        "poll_interval_ms",
        "How often a polling client asks, in milliseconds",
        100,
        600_000,
    ),
    (
        "edit_relocation_window",
        "Lines searched around an edit for its text",
        0,
        100_000,
    ),
    (
        "max_token_budget",
        "Tokens a job may use",
        1_000,
        100_000_000,
    ),
    (
        "max_schema_retries",
        "Invalid calls a job may make before it fails",
        0,
        100,
    ),
    (
        "max_output_tokens",
        "Tokens the model may write in one step",
        16,
        1_000_000,
    ),
    ("max_sessions", "Sessions kept", 1, 10_000),
    ("max_jobs_per_session", "Jobs kept per session", 1, 10_000),
    ("max_events_per_job", "Events kept per job", 100, 1_000_000),
    (
        "completed_ttl_hours",
        "Hours a finished job is kept",
        1,
        87_600,
    ),
    (
        "max_mcp_calls_per_job",
        "Tool calls an MCP client's job may make",
        1,
        100_000,
    ),
    (
        "max_mcp_calls_per_session",
        "Tool calls one MCP session may make",
        1,
        1_000_000,
    ),
    (
        "max_mcp_proposals_per_session",
        "Proposals one MCP session may stage",
        1,
        100_000,
    ),
    (
        "fan_out_concurrency",
        "Model calls at once in a run over many notes",
        1,
        64,
    ),
    (
        "fan_out_max_notes",
        "Notes one run over many notes may take",
        1,
        1_000_000,
    ),
    (
        "fan_out_confirm_notes",
        "Notes past which such a run asks first",
        0,
        1_000_000,
    ),
    (
        "fan_out_confirm_cents",
        "Cost past which such a run asks first, in US cents",
        0,
        10_000_000,
    ),
    (
        "fan_out_output_tokens",
        "Tokens the model may write for one note",
        16,
        100_000,
    ),
];

/// Each default with the cap it may not exceed: a default above its cap
/// would be cut to the cap on every call, so the settings refuse it.
const CAPS: &[(&str, &str)] = &[
    ("max_search_results_default", "max_search_results_cap"),
    ("max_read_bytes_default", "max_read_bytes_cap"),
    ("max_list_results_default", "max_list_results_cap"),
];

/// Checks that no default in `limits` (the limits as JSON, by key) is above
/// its cap; the message names both in words.
pub fn check_caps(limits: &Value) -> Result<(), String> {
    let label = |key: &'static str| FIELDS.iter().find(|f| f.0 == key).map_or(key, |f| f.1);
    for &(default, cap) in CAPS {
        let (Some(d), Some(c)) = (limits[default].as_u64(), limits[cap].as_u64()) else {
            continue;
        };
        if d > c {
            return Err(format!(
                "{} ({}) may not be more than {} ({})",
                label(default),
                thousands(d),
                label(cap).to_lowercase(),
                thousands(c)
            ));
        }
    }
    Ok(())
}

/// Every limit, in the order the settings list them.
pub fn limit_fields() -> Vec<LimitField> {
    FIELDS
        .iter()
        .map(|&(key, label, min, max)| LimitField {
            key: key.to_owned(),
            label: label.to_owned(),
            min,
            max,
            at_most: CAPS
                .iter()
                .find(|(default, _)| *default == key)
                .map(|(_, cap)| (*cap).to_owned()),
        })
        .collect()
}

/// Checks `value` for the limit `key`: a whole number within its range.
/// The message names the limit in words and says the range.
pub fn check_limit(key: &str, value: &Value) -> Result<u64, String> {
    let Some(&(_, label, min, max)) = FIELDS.iter().find(|f| f.0 == key) else {
        return Err(format!("there is no limit `{key}`"));
    };
    let shown = match value {
        Value::String(s) => format!("“{s}”"),
        other => other.to_string(),
    };
    value
        .as_u64()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| {
            format!(
                "{label} must be a whole number from {} to {}; {shown} is not",
                thousands(min),
                thousands(max)
            )
        })
}

/// `n` with a comma every three digits.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Limits;
    use serde_json::json;
    use std::collections::BTreeSet;

    #[test]
    fn every_limit_has_words_and_a_range_its_default_is_in() {
        let defaults = serde_json::to_value(Limits::default()).unwrap();
        let keys: BTreeSet<&String> = defaults.as_object().unwrap().keys().collect();
        let fields = limit_fields();
        let named: BTreeSet<&String> = fields.iter().map(|f| &f.key).collect();
        assert_eq!(keys, named);
        for field in &fields {
            assert!(field.min <= field.max, "{field:?}");
            assert_eq!(
                check_limit(&field.key, &defaults[&field.key]),
                Ok(defaults[&field.key].as_u64().unwrap()),
                "{field:?}"
            );
        }
    }

    #[test]
    fn a_bad_value_is_refused_in_words_with_the_range() {
        let said = check_limit("max_tool_calls_per_job", &json!(-5)).unwrap_err();
        assert_eq!(
            said,
            "Tool calls a job may make must be a whole number from 1 to 10,000; -5 is not"
        );
        for bad in [
            json!(1e23),
            json!(0),
            json!(1_000_000_000_000u64),
            json!(2.5),
            json!("12"),
            json!(null),
        ] {
            let said = check_limit("max_tool_calls_per_job", &bad).unwrap_err();
            assert!(said.starts_with("Tool calls a job may make"), "{said}");
        }
        assert_eq!(check_limit("max_tool_calls_per_job", &json!(20)), Ok(20));
        assert!(
            check_limit("max_bananas", &json!(1))
                .unwrap_err()
                .contains("max_bananas")
        );
        assert_eq!(thousands(67_108_864), "67,108,864");
    }

    #[test]
    fn a_default_above_its_cap_is_refused_and_every_default_is_within_its_cap() {
        let mut limits = serde_json::to_value(Limits::default()).unwrap();
        assert_eq!(check_caps(&limits), Ok(()));
        for field in limit_fields() {
            if let Some(cap) = &field.at_most {
                assert!(
                    limits[&field.key].as_u64() <= limits[cap].as_u64(),
                    "{field:?}"
                );
            }
        }
        limits["max_search_results_default"] = json!(80);
        limits["max_search_results_cap"] = json!(50);
        assert_eq!(
            check_caps(&limits),
            Err("Search results by default (80) may not be more than most search results one search may ask for (50)".into())
        );
        limits["max_search_results_cap"] = json!(80);
        assert_eq!(check_caps(&limits), Ok(()));
    }
}
