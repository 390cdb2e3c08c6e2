//! Tool schemas in the strict subset that OpenAI's strict mode, Anthropic's
//! strict tools and llama.cpp's grammars all accept.
//!
//! The schemas Redline generates from its Rust types say what is optional by
//! leaving it out of `required`. Strict mode wants every property required,
//! the optional ones nullable, `additionalProperties: false` on every object,
//! `anyOf` rather than `oneOf`, and none of the validation keywords some
//! providers refuse (`default`, `format`, numeric and length bounds). The
//! model then sends `null` for what it leaves out; [`strip_nulls`] turns those
//! back into absent fields before the original schema validates the call, so
//! the bounds dropped here are still enforced.

use serde_json::{Map, Value, json};

/// Keywords removed from strict schemas (some provider refuses each of them).
const DROPPED: &[&str] = &[
    "$schema",
    "title",
    "default",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "pattern",
    "examples",
    CONTENT,
];

/// Marks a string that is content, not a name (an edit's text): kept by
/// [`bounded`] so that a constraining decoder's caps leave it unbounded
/// (`providers::caps`); dropped from the strict form.
pub const CONTENT: &str = "x-content";

/// The bounds a constraining decoder enforces (llama.cpp's JSON-schema
/// grammars, vLLM's guided decoding), and the content mark: [`bounded`]
/// keeps them.
const BOUNDS: &[&str] = &[
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    CONTENT,
];

/// The strict form of `schema`.
pub fn strict(schema: &Value) -> Value {
    let mut schema = schema.clone();
    rewrite(&mut schema, &[]);
    schema
}

/// The strict form of `schema` with its length, item and number bounds and
/// its content marks kept: for a server that constrains decoding to the
/// schema, where a minimum keeps a call valid (`start_line: 0` cannot be
/// written) and a maximum keeps it finite.
pub fn bounded(schema: &Value) -> Value {
    let mut schema = schema.clone();
    rewrite(&mut schema, BOUNDS);
    schema
}

fn rewrite(schema: &mut Value, keep: &[&str]) {
    let Value::Object(map) = schema else { return };
    for key in DROPPED.iter().filter(|k| !keep.contains(k)) {
        map.remove(*key);
    }
    if let Some(one_of) = map.remove("oneOf") {
        map.insert("anyOf".into(), one_of);
    }
    for key in ["anyOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(list)) = map.get_mut(key) {
            list.iter_mut().for_each(|s| rewrite(s, keep));
        }
    }
    for key in ["items", "not"] {
        if let Some(sub) = map.get_mut(key) {
            rewrite(sub, keep);
        }
    }
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = map.get_mut(key) {
            defs.values_mut().for_each(|s| rewrite(s, keep));
        }
    }
    if !matches!(map.get("properties"), Some(Value::Object(_))) {
        return;
    }
    let required: Vec<Value> = match map.get("required") {
        Some(Value::Array(r)) => r.clone(),
        _ => Vec::new(),
    };
    let Some(Value::Object(properties)) = map.get_mut("properties") else {
        unreachable!("checked above")
    };
    for (name, property) in properties.iter_mut() {
        rewrite(property, keep);
        if !required.contains(&Value::String(name.clone())) {
            nullable(property);
        }
    }
    let all: Vec<Value> = properties.keys().map(|k| json!(k)).collect();
    map.insert("required".into(), Value::Array(all));
    map.insert("additionalProperties".into(), Value::Bool(false));
}

/// Lets `schema` also accept `null`.
fn nullable(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    let null = json!("null");
    match map.get_mut("type") {
        Some(Value::String(t)) => {
            let t = std::mem::take(t);
            if t != "null" {
                map.insert("type".into(), json!([t, "null"]));
            }
        }
        Some(Value::Array(types)) => {
            if !types.contains(&null) {
                types.push(null);
            }
        }
        _ => {
            let accepts_null = match map.get("anyOf") {
                Some(Value::Array(list)) => list.iter().any(|s| s.get("type") == Some(&null)),
                _ => false,
            };
            if !accepts_null {
                let description = map.remove("description");
                let inner = Value::Object(std::mem::take(map));
                let mut outer = Map::new();
                if let Some(d) = description {
                    outer.insert("description".into(), d);
                }
                outer.insert("anyOf".into(), json!([inner, { "type": "null" }]));
                *map = outer;
                return;
            }
        }
    }
    if let Some(Value::Array(values)) = map.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
}

/// `value` without the object members that are `null`, at every depth: what a
/// strict-mode model sends for an argument it leaves out.
pub fn strip_nulls(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, strip_nulls(v)))
                .collect(),
        ),
        Value::Array(list) => Value::Array(list.into_iter().map(strip_nulls).collect()),
        other => other,
    }
}

/// Where `schema` breaks the strict subset, for tests: each object that does
/// not require all its properties or allows others, and each dropped keyword.
#[cfg(test)]
pub(crate) fn violations(schema: &Value) -> Vec<String> {
    let mut found = Vec::new();
    walk(schema, "#", &mut found);
    found
}

#[cfg(test)]
fn walk(value: &Value, at: &str, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get("properties") {
                let required: Vec<&str> = map
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                for name in props.keys() {
                    if !required.contains(&name.as_str()) {
                        found.push(format!("{at}: `{name}` is not required"));
                    }
                }
                if map.get("additionalProperties") != Some(&Value::Bool(false)) {
                    found.push(format!("{at}: additionalProperties is not false"));
                }
            }
            for (k, v) in map {
                // Inside `properties` the keys are names, not keywords.
                if at.ends_with("/properties") {
                    walk(v, &format!("{at}/{k}"), found);
                    continue;
                }
                if DROPPED.contains(&k.as_str()) || k == "oneOf" {
                    found.push(format!("{at}: keyword `{k}`"));
                }
                walk(v, &format!("{at}/{k}"), found);
            }
        }
        Value::Array(list) => {
            for (i, v) in list.iter().enumerate() {
                walk(v, &format!("{at}/{i}"), found);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_properties_become_required_and_nullable() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "type": "object",
            "properties": {
                "query": { "type": "string", "minLength": 1 },
                "limit": { "type": ["integer", "null"], "format": "uint", "minimum": 0 },
                "mode": { "type": "string", "enum": ["a", "b"], "default": "a" },
                "inner": { "$ref": "#/$defs/Inner", "description": "x" },
            },
            "required": ["query"],
            "$defs": { "Inner": { "type": "object", "properties": { "n": { "type": "integer" } } } },
        });
        let strict = strict(&schema);
        assert_eq!(violations(&strict), Vec::<String>::new());
        assert!(!violations(&schema).is_empty());
        assert_eq!(strict["properties"]["query"], json!({ "type": "string" }));
        assert_eq!(
            strict["properties"]["limit"]["type"],
            json!(["integer", "null"])
        );
        assert_eq!(
            strict["properties"]["mode"]["enum"],
            json!(["a", "b", null])
        );
        assert_eq!(
            strict["properties"]["inner"]["anyOf"][1],
            json!({ "type": "null" })
        );
        assert_eq!(strict["properties"]["inner"]["description"], "x");
        assert_eq!(strict["$defs"]["Inner"]["required"], json!(["n"]));
        // What the model sends for the strict schema validates, nulls removed,
        // against the original.
        let sent = json!({ "query": "q", "limit": null, "mode": null, "inner": { "n": 1 } });
        assert!(jsonschema::is_valid(&strict, &sent));
        assert!(jsonschema::is_valid(&schema, &strip_nulls(sent)));
    }

    #[test]
    fn the_bounded_form_is_strict_with_its_bounds() {
        let schema = json!({
            "type": "object",
            "properties": {
                "path": { "type": "string", "minLength": 1, "maxLength": 1000, "format": "path" },
                "text": { "type": "string", "x-content": true },
                "line": { "type": "integer", "minimum": 1 },
                "answers": { "type": "array", "maxItems": 8, "items": { "type": "string", "maxLength": 200 } },
            },
            "required": ["path"],
        });
        let bounded = bounded(&schema);
        let p = &bounded["properties"];
        assert_eq!(
            p["path"],
            json!({ "type": "string", "minLength": 1, "maxLength": 1000 })
        );
        assert_eq!(
            p["text"],
            json!({ "type": ["string", "null"], "x-content": true })
        );
        assert_eq!(
            p["line"],
            json!({ "type": ["integer", "null"], "minimum": 1 })
        );
        assert_eq!(
            (
                &p["answers"]["maxItems"],
                &p["answers"]["items"]["maxLength"]
            ),
            (&json!(8), &json!(200))
        );
        // Strict but for the bounds: every property required, nothing else allowed.
        let left: Vec<String> = violations(&bounded);
        assert!(
            left.iter()
                .all(|v| BOUNDS.iter().any(|b| v.ends_with(&format!("`{b}`")))),
            "{left:?}"
        );
        assert_eq!(strict(&bounded), strict(&schema));
    }
}
