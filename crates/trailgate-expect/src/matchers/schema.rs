//! The JSON Schema of a value matcher, for editors: it mirrors the visitors of `read.rs`.

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde_json::Value;

use super::{JsonType, ValueMatcher};

impl JsonSchema for ValueMatcher {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ValueMatcher".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let matcher = generator.subschema_for::<Self>();
        let operator = |name: &str, description: &str, value: Value| {
            json_schema!({
                "type": "object",
                "description": description,
                "properties": { name: value },
                "required": [name],
                "additionalProperties": false
            })
        };
        let matcher_value = matcher.to_value();
        let list = json_schema!({ "type": "array", "items": matcher_value.clone() }).to_value();
        let number = json_schema!({ "type": "number" }).to_value();
        let string = json_schema!({ "type": "string" }).to_value();
        let types: Vec<&str> = JsonType::ALL.iter().map(|kind| kind.name()).collect();
        let alternatives = vec![
            json_schema!({
                "description": "a literal value: equal by JSON equality, numbers by exact value",
                "type": ["string", "number", "boolean", "null"]
            }),
            json_schema!({
                "description": "a literal array: the same length, element by element",
                "type": "array",
                "items": matcher_value.clone()
            }),
            json_schema!({
                "description": "a literal object: the same keys (a superset with `args_mode: subset`), each value matching",
                "type": "object",
                "propertyNames": { "not": { "pattern": "^\\$" } },
                "additionalProperties": matcher_value.clone()
            }),
            operator("$eq", "the value as a literal, even with `$` keys", json_schema!({}).to_value()),
            operator("$regex", "a string in which the regex is found (Rust regex dialect)", json_schema!({ "type": "string", "format": "regex" }).to_value()),
            operator("$contains", "a string containing the string, or an array with an element that matches", matcher_value.clone()),
            operator("$icontains", "a string containing the string, ignoring case", string),
            operator("$any_of", "matches when any listed matcher does", list.clone()),
            operator("$all_of", "matches when every listed matcher does", list),
            operator("$not", "matches when the matcher does not", matcher_value),
            operator("$gte", "a number at least this, by exact value", number.clone()),
            operator("$gt", "a number above this, by exact value", number.clone()),
            operator("$lte", "a number at most this, by exact value", number.clone()),
            operator("$lt", "a number below this, by exact value", number.clone()),
            operator(
                "$near",
                "a number within `within` of `value`, exactly",
                json_schema!({
                    "type": "object",
                    "properties": { "value": number.clone(), "within": { "type": "number", "minimum": 0 } },
                    "required": ["value", "within"],
                    "additionalProperties": false
                })
                .to_value(),
            ),
            operator("$type", "a value of this type (`integer`: a number with no fractional part)", json_schema!({ "enum": types }).to_value()),
            operator("$present", "inside an object: the key must be there (`true`) or absent (`false`)", json_schema!({ "type": "boolean" }).to_value()),
            operator("$schema", "a value valid against this JSON Schema (draft 2020-12, no remote references)", json_schema!({ "type": ["object", "boolean"] }).to_value()),
        ];
        json_schema!({
            "description": "an expected value: a literal, or an operator map with one `$` key (docs/matchers.md)",
            "anyOf": alternatives
        })
    }
}
