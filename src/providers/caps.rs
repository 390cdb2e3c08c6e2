//! Tool schemas capped for a constraining decoder.
//!
//! A server that constrains decoding to the tools' schemas (llama.cpp's
//! grammars, vLLM's guided decoding) makes every call the right shape, but
//! not finite: a small model under a grammar can run on inside one string
//! (`"prefix": "notes/team/assistant/assistant/…"`) until the output limit
//! cuts the call off, and the call is lost. [`capped`] bounds every string
//! that names something (paths, globs, queries, questions) to the step's
//! output limit and every integer, so the decoder closes them in time.
//! Content (an edit's text, marked `x-content` in its schema) and lists stay
//! unbounded: a decoder that closed those early would propose a cut note
//! or drop edits, where a cut-off call is refused and said so.

use serde_json::{Map, Value};

/// The mark of a content string (`tools::strict::CONTENT`).
const CONTENT: &str = "x-content";

/// Tokens of the step's limit per character a string may have: a runaway
/// string runs at about three characters a token, so a call with three
/// strings at the cap stays within half the limit.
const TOKENS_PER_CHAR: u64 = 2;

/// The shortest cap a string gets, however small the limit.
const MIN_CHARS: u64 = 16;

/// The largest integer where a schema sets none: eight digits, more than
/// any line number, count or size a tool takes.
const MAX_INTEGER: u64 = 99_999_999;

/// `schema` (a tool's strict schema with its bounds and content marks kept)
/// for a step of at most `max_tokens` output tokens: every string but
/// content at most `max_tokens / 2` characters (16 at least), every integer
/// at most 99,999,999; the content marks removed. A bound the schema has
/// stays when it is tighter.
pub fn capped(schema: &Value, max_tokens: u32) -> Value {
    let chars = (u64::from(max_tokens) / TOKENS_PER_CHAR).max(MIN_CHARS);
    let mut schema = schema.clone();
    cap(&mut schema, chars);
    schema
}

fn cap(schema: &mut Value, chars: u64) {
    let Value::Object(map) = schema else { return };
    let is = |t: &str| match map.get("type") {
        Some(Value::String(s)) => s == t,
        Some(Value::Array(types)) => types.iter().any(|s| s == t),
        _ => false,
    };
    let (string, integer) = (is("string"), is("integer"));
    let content = map.remove(CONTENT).is_some();
    if string && !content && !map.contains_key("enum") && !map.contains_key("const") {
        tighten(map, "maxLength", chars);
    }
    if integer {
        tighten(map, "maximum", MAX_INTEGER);
    }
    for value in map.values_mut() {
        match value {
            Value::Object(_) => cap(value, chars),
            Value::Array(list) => list.iter_mut().for_each(|s| cap(s, chars)),
            _ => {}
        }
    }
}

/// Sets `key` to `bound` unless it is already at most that.
fn tighten(map: &mut Map<String, Value>, key: &str, bound: u64) {
    if map
        .get(key)
        .and_then(Value::as_u64)
        .is_none_or(|b| b > bound)
    {
        map.insert(key.to_owned(), bound.into());
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn names_and_integers_are_capped_to_the_step_and_content_is_not() {
        let schema = json!({
            "type": "object",
            "properties": {
                "prefix": { "type": ["string", "null"] },
                "query": { "type": "string", "minLength": 1, "maxLength": 40 },
                "mode": { "type": "string", "enum": ["a", "b"] },
                "limit": { "type": ["integer", "null"], "minimum": 1 },
                "edits": { "type": "array", "items": { "$ref": "#/$defs/Edit" } },
            },
            "$defs": { "Edit": { "type": "object", "properties": {
                "file_path": { "type": "string" },
                "new_text": { "type": ["string", "null"], "x-content": true },
            } } },
        });
        let capped = capped(&schema, 256);
        let p = &capped["properties"];
        assert_eq!(p["prefix"]["maxLength"], 128);
        // A tighter bound of the schema's own stays, and its minimum with it.
        assert_eq!(
            (&p["query"]["maxLength"], &p["query"]["minLength"]),
            (&json!(40), &json!(1))
        );
        assert_eq!(p["mode"].get("maxLength"), None);
        assert_eq!(
            (&p["limit"]["maximum"], &p["limit"]["minimum"]),
            (&json!(MAX_INTEGER), &json!(1))
        );
        let edit = &capped["$defs"]["Edit"]["properties"];
        assert_eq!(edit["file_path"]["maxLength"], 128);
        // Content and lists are never cut short by the decoder; the mark is not sent.
        assert_eq!(edit["new_text"], json!({ "type": ["string", "null"] }));
        assert_eq!(p["edits"].get("maxItems"), None);
        assert_eq!(capped.get("maxLength"), None);
    }

    #[test]
    fn a_tiny_limit_still_leaves_room_for_a_path() {
        let capped = capped(&json!({ "type": "string" }), 4);
        assert_eq!(capped["maxLength"], 16);
    }
}
