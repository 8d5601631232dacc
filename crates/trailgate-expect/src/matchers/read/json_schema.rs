//! Reading the JSON Schema of a `$schema` from the suite: the value as written, with each
//! regex in it (a `pattern`, a key of `patternProperties`) checked at its own node as the
//! `jsonschema` crate will compile it: translated from JSON Schema's dialect (ECMA-262) for
//! the linear `regex` engine, within the limits of every suite regex. A pattern that engine
//! cannot take (a back-reference, a look-around) is refused at the pattern, not at the
//! schema (docs/matchers.md#mistakes).

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use trailgate_trace::compile_meta_regex;

use super::operands::{quoted, regex_problem};
use crate::error::custom;
use crate::reading::{RegexRefusal, total_problem};

/// What a value inside a schema is, by the keyword that holds it: the parts that hold
/// schemas are read by their keywords; every other value is data (`const`, `enum`,
/// `default`, an annotation) and read as it is, whatever keys it has.
#[derive(Clone, Copy)]
pub(super) enum Part {
    /// A schema: a map's keys are keywords.
    Schema,
    /// A schema or a list of schemas (`items`, `allOf`, `prefixItems`).
    Schemas,
    /// A map of names to schemas (`properties`, `$defs`; `dependencies` may also map a name
    /// to a list of names, which is read as data).
    Named,
    /// A map of patterns to schemas (`patternProperties`).
    PatternNamed,
    /// A regex (`pattern`).
    Pattern,
}

impl Part {
    /// The part a keyword of a schema holds; `None` for data.
    fn of_keyword(keyword: &str) -> Option<Self> {
        Some(match keyword {
            "pattern" => Self::Pattern,
            "patternProperties" => Self::PatternNamed,
            "properties" | "$defs" | "definitions" | "dependentSchemas" | "dependencies" => {
                Self::Named
            }
            "items"
            | "prefixItems"
            | "additionalItems"
            | "contains"
            | "allOf"
            | "anyOf"
            | "oneOf"
            | "not"
            | "if"
            | "then"
            | "else"
            | "additionalProperties"
            | "unevaluatedProperties"
            | "unevaluatedItems"
            | "propertyNames"
            | "contentSchema" => Self::Schemas,
            _ => return None,
        })
    }
}

impl<'de> DeserializeSeed<'de> for Part {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// Reads the value of a map entry: by its part, or as data.
fn next_value<'de, A: MapAccess<'de>>(map: &mut A, part: Option<Part>) -> Result<Value, A::Error> {
    match part {
        Some(part) => map.next_value_seed(part),
        None => map.next_value(),
    }
}

impl<'de> Visitor<'de> for Part {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON Schema")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_i128<E: de::Error>(self, value: i128) -> Result<Value, E> {
        serde_json::to_value(value).map_err(E::custom)
    }

    fn visit_u128<E: de::Error>(self, value: u128) -> Result<Value, E> {
        serde_json::to_value(value).map_err(E::custom)
    }

    /// As `serde_json::Value` reads a float: a number that is not finite is `null`.
    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Value, E> {
        Ok(Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Value, E> {
        if let Self::Pattern = self {
            check_pattern(text)?;
        }
        Ok(Value::String(text.to_owned()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        if let Self::Schemas = self {
            while let Some(item) = seq.next_element_seed(Self::Schema)? {
                items.push(item);
            }
        } else {
            while let Some(item) = seq.next_element::<Value>()? {
                items.push(item);
            }
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        match self {
            Self::Schema | Self::Schemas => {
                while let Some(key) = map.next_key::<String>()? {
                    let value = next_value(&mut map, Self::of_keyword(&key))?;
                    object.insert(key, value);
                }
            }
            Self::Named => {
                while let Some(key) = map.next_key::<String>()? {
                    let value = next_value(&mut map, Some(Self::Schema))?;
                    object.insert(key, value);
                }
            }
            Self::PatternNamed => {
                while let Some(key) = map.next_key_seed(PatternKey)? {
                    let value = next_value(&mut map, Some(Self::Schema))?;
                    object.insert(key, value);
                }
            }
            Self::Pattern => {
                while let Some(key) = map.next_key::<String>()? {
                    let value = next_value(&mut map, None)?;
                    object.insert(key, value);
                }
            }
        }
        Ok(Value::Object(object))
    }
}

/// A key of `patternProperties`: a pattern, checked at the key.
struct PatternKey;

impl<'de> DeserializeSeed<'de> for PatternKey {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_string(self)
    }
}

impl Visitor<'_> for PatternKey {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a pattern")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<String, E> {
        check_pattern(text)?;
        Ok(text.to_owned())
    }
}

const PATTERN_HELP: &str = "a `$schema` pattern is matched by the `regex` crate, in time linear \
    in the text, as `$regex` is: no back-references (`\\1`) or look-around (`(?=`, `(?!`, \
    `(?<=`); escape `(`, `[`, `.` and `\\` with `\\` to match them literally";

/// Checks a pattern of a schema as the `jsonschema` crate will compile it, and counts it in
/// the suite's regexes.
fn check_pattern<E: de::Error>(pattern: &str) -> Result<(), E> {
    const WHAT: &str = "`$schema` pattern";
    let Ok(translated) = jsonschema_regex::to_rust_regex(pattern) else {
        // The translation says only that it failed; the regex crate, reading the pattern as
        // written, usually says why.
        if let Err(error @ regex::Error::Syntax(_)) = compile_meta_regex(pattern) {
            return Err(regex_problem(pattern, &error, WHAT, PATTERN_HELP));
        }
        return Err(custom(
            "trailgate::suite::invalid_regex",
            &format!(
                "invalid `$schema` pattern {}: not a regular expression of JSON Schema \
                 (ECMA-262)",
                quoted(pattern)
            ),
            "invalid pattern",
            PATTERN_HELP,
        ));
    };
    crate::reading::schema_pattern(&translated).map_err(|refusal| match refusal {
        RegexRefusal::Invalid(error) => regex_problem(pattern, &error, WHAT, PATTERN_HELP),
        RegexRefusal::SuiteTotal => total_problem(pattern),
    })
}
