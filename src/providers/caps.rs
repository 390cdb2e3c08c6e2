//! Tool schemas capped for a constraining decoder.
//!
//! A server that constrains decoding to the tools' schemas (llama.cpp's
//! grammars, vLLM's guided decoding) makes every call the right shape, but
//! not finite: a small model under a grammar can run on inside one string
//! (`"prefix": "notes/team/assistant/assistant/…"`) until the output limit
//! cuts the call off, and the call is lost. [`capped`] scales the bounds a
//! schema gives its short strings (paths, globs, queries, questions) to the
//! step's output limit and bounds every integer, so the decoder closes them
//! in time. Strings without a bound are content (an edit's new text) and
//! stay unbounded, as do lists: a decoder that closed those early would
//! propose a cut note or drop edits, where a cut-off call is refused and
//! said so.

use serde_json::{Map, Value};

/// Tokens of the step's limit per character a bounded string may have: a
/// runaway string runs at about three characters a token, so a call with
/// three strings at the cap stays within half the limit.
const TOKENS_PER_CHAR: u64 = 2;

/// The shortest cap a bounded string gets, however small the limit.
const MIN_CHARS: u64 = 16;

/// The largest integer where a schema sets none: eight digits, more than
/// any line number, count or size a tool takes.
const MAX_INTEGER: u64 = 99_999_999;

/// `schema` (a tool's strict schema with its bounds kept) for a step of at
/// most `max_tokens` output tokens: each `maxLength` at most `max_tokens / 2`
/// characters (16 at least), each integer at most 99,999,999. A bound the
/// schema has stays when it is tighter.
pub fn capped(schema: &Value, max_tokens: u32) -> Value {
    let chars = (u64::from(max_tokens) / TOKENS_PER_CHAR).max(MIN_CHARS);
    let mut schema = schema.clone();
    cap(&mut schema, chars);
    schema
}

fn cap(schema: &mut Value, chars: u64) {
    let Value::Object(map) = schema else { return };
    if map.contains_key("maxLength") {
        tighten(map, "maxLength", chars);
    }
    let integer = match map.get("type") {
        Some(Value::String(t)) => t == "integer",
        Some(Value::Array(types)) => types.iter().any(|t| t == "integer"),
        _ => false,
    };
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
    fn short_strings_and_integers_are_capped_to_the_step() {
        let schema = json!({
            "type": "object",
            "properties": {
                "prefix": { "type": ["string", "null"], "maxLength": 1000 },
                "query": { "type": "string", "minLength": 1, "maxLength": 40 },
                "limit": { "type": ["integer", "null"], "minimum": 1 },
                "edits": { "type": "array", "items": { "$ref": "#/$defs/Edit" } },
            },
            "$defs": { "Edit": { "type": "object", "properties": {
                "file_path": { "type": "string", "maxLength": 1000 },
                "new_text": { "type": "string" },
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
        assert_eq!(
            (&p["limit"]["maximum"], &p["limit"]["minimum"]),
            (&json!(MAX_INTEGER), &json!(1))
        );
        let edit = &capped["$defs"]["Edit"]["properties"];
        assert_eq!(edit["file_path"]["maxLength"], 128);
        // Content and lists are never cut short by the decoder.
        assert_eq!(edit["new_text"].get("maxLength"), None);
        assert_eq!(p["edits"].get("maxItems"), None);
        assert_eq!(capped.get("maxLength"), None);
    }

    #[test]
    fn a_tiny_limit_still_leaves_room_for_a_path() {
        let capped = capped(&json!({ "type": "string", "maxLength": 1000 }), 4);
        assert_eq!(capped["maxLength"], 16);
    }
}
