//! The JSON Schemas the tools declare: inputs from the argument types, and one output
//! schema that describes both an answer and an error.
//!
//! Clients validate against these. The official TypeScript SDK checks `structuredContent`
//! even when `isError` is true, so the output schema must accept `{"error": {…}}` as well
//! as the envelope; and it warns about any `format` it does not know, so only standard
//! formats are kept (schemars writes `uint64`, `double`…). Every agent pays for the whole
//! `tools/list` answer in tokens before its first call, so schemas are also stripped of
//! what says nothing (`default: null`, a `null` alternative to every optional field).

use std::sync::{Arc, OnceLock};

use rmcp::model::JsonObject;
use serde_json::{Value, json};

/// Formats defined by JSON Schema 2020-12; any other is dropped.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// A tool's input schema, from its argument type, compacted.
pub fn input_schema<T: schemars::JsonSchema + std::any::Any>() -> Arc<JsonObject> {
    let schema = rmcp::handler::server::common::schema_for_input::<T>()
        .unwrap_or_else(|_| rmcp::handler::server::common::schema_for_type::<T>());
    let mut value = Value::Object((*schema).clone());
    // A definition is described where it is used (each property says what it holds); its
    // own description stays only when it shows its form (`{iri}`, an example).
    if let Some(Value::Object(definitions)) = value.get_mut("$defs") {
        for definition in definitions.values_mut().filter_map(Value::as_object_mut) {
            if definition
                .get("description")
                .and_then(Value::as_str)
                .is_some_and(|d| !d.contains('`'))
            {
                definition.remove("description");
            }
        }
    }
    compact(&mut value);
    match value {
        Value::Object(object) => Arc::new(object),
        _ => schema,
    }
}

/// What every tool returns in `structuredContent`: the envelope of an answer, or, with
/// `isError: true`, `{"error": {type, code, message, param?, hint?, report?}}`.
pub fn output_schema() -> Arc<JsonObject> {
    static SCHEMA: OnceLock<Arc<JsonObject>> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let value = json!({
                "type": "object",
                "properties": {
                    "summary": {"type": "string"},
                    "data": {},
                    "served_at_seq": {"type": "integer"},
                    "error": {
                        "type": "object",
                        "required": ["type", "code", "message"],
                        "properties": {"param": {"type": "string"}, "hint": {"type": "string"}}
                    }
                },
                "anyOf": [
                    {"required": ["summary", "data", "served_at_seq"]},
                    {"required": ["error"]}
                ]
            });
            let Value::Object(object) = value else {
                return Arc::default();
            };
            Arc::new(object)
        })
        .clone()
}

/// Removes what a schema says without meaning anything to a client, recursively.
fn compact(value: &mut Value) {
    match value {
        Value::Object(object) => {
            object.remove("$schema");
            // Unknown fields are refused by the tool itself, with an error naming them.
            if object.get("additionalProperties") == Some(&Value::Bool(false)) {
                object.remove("additionalProperties");
            }
            // Doc comments keep their line breaks; a description reads the same without.
            if let Some(Value::String(description)) = object.get_mut("description") {
                *description = description.replace('\n', " ");
            }
            // Defaults that say "absent": null, false, an empty list.
            if object.get("default").is_some_and(|d| {
                d.is_null() || *d == Value::Bool(false) || d.as_array().is_some_and(Vec::is_empty)
            }) {
                object.remove("default");
            }
            // A closed set of strings written as `oneOf` constants, each with a
            // description: the tool's description already says what each one does.
            if let Some(Value::Array(options)) = object.get("oneOf")
                && let Some(names) = options
                    .iter()
                    .map(|o| o.get("const").filter(|_| o["type"] == "string").cloned())
                    .collect::<Option<Vec<Value>>>()
            {
                object.remove("oneOf");
                object.insert("type".into(), "string".into());
                object.insert("enum".into(), Value::Array(names));
            }
            if let Some(format) = object.get("format").and_then(Value::as_str)
                && !STANDARD_FORMATS.contains(&format)
            {
                object.remove("format");
            }
            // A count's `minimum: 0`: the tool refuses a negative number, naming it.
            if object.get("minimum") == Some(&Value::from(0)) {
                object.remove("minimum");
            }
            // `["string", "null"]` → `"string"`: an optional field is simply left out.
            if let Some(Value::Array(types)) = object.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.pop().unwrap_or_default();
                    object.insert("type".into(), only);
                }
            }
            // `anyOf: [X, {type: null}]` → X.
            if let Some(Value::Array(options)) = object.get("anyOf") {
                let kept: Vec<&Value> = options
                    .iter()
                    .filter(|o| o.get("type").and_then(Value::as_str) != Some("null"))
                    .collect();
                if kept.len() == 1
                    && let Value::Object(only) = kept[0].clone()
                {
                    object.remove("anyOf");
                    for (key, value) in only {
                        object.entry(key).or_insert(value);
                    }
                }
            }
            for child in object.values_mut() {
                compact(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(compact),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_drops_nulls_and_unknown_formats() {
        let mut schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "properties": {
                "n": {"type": ["integer", "null"], "format": "uint64", "default": null, "minimum": 0},
                "flag": {"type": "boolean", "default": false},
                "list": {"type": "array", "default": [], "items": {"type": "string"}},
                "kept": {"type": "integer", "default": 5},
                "mode": {"oneOf": [{"const": "a", "type": "string", "description": "A."}, {"const": "b", "type": "string"}]},
                "when": {"type": "string", "format": "date-time"},
                "node": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}], "description": "d"},
                "either": {"type": ["string", "integer"]}
            }
        });
        compact(&mut schema);
        assert_eq!(
            schema,
            json!({
                "properties": {
                    "n": {"type": "integer"},
                    "flag": {"type": "boolean"},
                    "list": {"type": "array", "items": {"type": "string"}},
                    "kept": {"type": "integer", "default": 5},
                    "mode": {"type": "string", "enum": ["a", "b"]},
                    "when": {"type": "string", "format": "date-time"},
                    "node": {"$ref": "#/$defs/Node", "description": "d"},
                    "either": {"type": ["string", "integer"]}
                }
            })
        );
    }

    #[test]
    fn output_schema_accepts_answers_and_errors_only() {
        let schema = output_schema();
        assert_eq!(schema["type"], "object");
        let branches = schema["anyOf"].as_array().unwrap();
        assert_eq!(
            branches[0]["required"],
            json!(["summary", "data", "served_at_seq"])
        );
        assert_eq!(branches[1]["required"], json!(["error"]));
        let error = &schema["properties"]["error"];
        assert_eq!(error["required"], json!(["type", "code", "message"]));
        assert_eq!(error["properties"]["param"]["type"], "string");
    }
}
