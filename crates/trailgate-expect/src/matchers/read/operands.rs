//! The value each operator takes, read and compiled (`$regex`'s pattern, `$near`'s bounds,
//! `$schema`'s validator): one seed per kind of value, which names every other kind in its
//! error.

use std::fmt;
use std::sync::Arc;

use jsonschema::PatternOptions;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use trailgate_trace::{Decimal, MAX_REGEX_BYTES, REGEX_DFA_CACHE_BYTES};

use super::json_schema::Part;
use super::{MatcherSeed, finite, float_as_written_in_suite, invalid};
use crate::error::{custom, suggest};
use crate::matchers::decimal::near_bounds;
use crate::matchers::{Comparison, JsonType, Node, ValueMatcher};
use crate::pattern::Pattern;
use crate::reading::{CompiledSchema, RegexRefusal, total_problem};
use crate::suite_file::plain_number;

/// Reads the value of `operator` and compiles it.
pub(super) fn operator_value<'de, A: MapAccess<'de>>(
    operator: &'static str,
    map: &mut A,
) -> Result<Node, A::Error> {
    let matcher = MatcherSeed::part(false);
    Ok(match operator {
        "$eq" => Node::Eq(Box::new(map.next_value_seed(MatcherSeed::part(true))?)),
        "$regex" => Node::Regex(map.next_value_seed(RegexSeed)?),
        "$contains" => Node::Contains(Box::new(map.next_value_seed(matcher)?)),
        "$icontains" => {
            let written = map.next_value_seed(StringSeed(operator))?;
            Node::IContains {
                lower: written.to_lowercase(),
                written,
            }
        }
        "$any_of" => Node::AnyOf(map.next_value_seed(ListSeed(operator))?),
        "$all_of" => Node::AllOf(map.next_value_seed(ListSeed(operator))?),
        "$not" => Node::Not(Box::new(map.next_value_seed(matcher)?)),
        "$gte" => Node::Compare(Comparison::Gte, map.next_value_seed(NumberSeed(operator))?),
        "$gt" => Node::Compare(Comparison::Gt, map.next_value_seed(NumberSeed(operator))?),
        "$lte" => Node::Compare(Comparison::Lte, map.next_value_seed(NumberSeed(operator))?),
        "$lt" => Node::Compare(Comparison::Lt, map.next_value_seed(NumberSeed(operator))?),
        "$near" => map.next_value_seed(NearSeed)?,
        "$type" => Node::Type(map.next_value_seed(TypeSeed)?),
        "$present" => Node::Present(map.next_value_seed(PresentSeed)?),
        _ => Node::Schema(map.next_value_seed(SchemaSeed)?),
    })
}

/// Implements `DeserializeSeed` by `deserialize_any` with the seed as its own visitor.
macro_rules! seed_by_any {
    ($seed:ty, $value:ty) => {
        impl<'de> DeserializeSeed<'de> for $seed {
            type Value = $value;

            fn deserialize<D: Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> Result<$value, D::Error> {
                deserializer.deserialize_any(self)
            }
        }
    };
}

/// What a YAML value is, for a message: `a string`, `a list`.
fn kind_of(unexpected: &de::Unexpected<'_>) -> &'static str {
    match unexpected {
        de::Unexpected::Bool(_) => "a boolean",
        de::Unexpected::Unsigned(_) | de::Unexpected::Signed(_) | de::Unexpected::Float(_) => {
            "a number"
        }
        de::Unexpected::Str(_) | de::Unexpected::Char(_) => "a string",
        de::Unexpected::Unit | de::Unexpected::Option => "null",
        de::Unexpected::Seq => "a list",
        de::Unexpected::Map => "a map",
        _ => "something else",
    }
}

/// Implements the visits of every kind of value that a seed refuses, each by `$refuse`.
macro_rules! refuse_others {
    ($($method:ident($($arg:ident: $type:ty)?) => $unexpected:expr;)*) => {
        $(
            fn $method<E: de::Error>(self, $($arg: $type)?) -> Result<Self::Value, E> {
                $(let _ = $arg;)?
                Err(self.refuse(&$unexpected))
            }
        )*
    };
}

/// A visitor method that refuses a list, for a [`Refuse`] visitor that takes none.
macro_rules! refuse_seq {
    ($de:lifetime) => {
        fn visit_seq<A: SeqAccess<$de>>(self, _: A) -> Result<Self::Value, A::Error> {
            Err(self.refuse(&de::Unexpected::Seq))
        }
    };
}

/// A visitor method that refuses a map, for a [`Refuse`] visitor that takes none.
macro_rules! refuse_map {
    ($de:lifetime) => {
        fn visit_map<A: MapAccess<$de>>(self, _: A) -> Result<Self::Value, A::Error> {
            Err(self.refuse(&de::Unexpected::Map))
        }
    };
}

/// A visitor method that refuses a string, for a [`Refuse`] visitor that takes none.
macro_rules! refuse_str {
    () => {
        fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
            Err(self.refuse(&de::Unexpected::Str(text)))
        }
    };
}

/// A seed that takes one kind of value and names the others in its error.
trait Refuse {
    fn refuse<E: de::Error>(&self, found: &de::Unexpected<'_>) -> E;
}

/// `$regex`: a string, compiled as the other regexes of a suite are.
struct RegexSeed;
seed_by_any!(RegexSeed, Pattern);

impl Refuse for RegexSeed {
    fn refuse<E: de::Error>(&self, found: &de::Unexpected<'_>) -> E {
        invalid(
            &format!("`$regex` takes a string, not {}", kind_of(found)),
            "not a string",
            "write the pattern as a string: `{$regex: \"^a\"}`",
        )
    }
}

impl<'de> Visitor<'de> for RegexSeed {
    type Value = Pattern;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a regex")
    }

    fn visit_str<E: de::Error>(self, pattern: &str) -> Result<Pattern, E> {
        Pattern::read(pattern).map_err(|refusal| match refusal {
            RegexRefusal::Invalid(error) => regex_problem(pattern, &error, "regex", REGEX_HELP),
            RegexRefusal::SuiteTotal => total_problem(pattern),
        })
    }

    refuse_others! {
        visit_bool(v: bool) => de::Unexpected::Bool(v);
        visit_i64(v: i64) => de::Unexpected::Signed(v);
        visit_u64(v: u64) => de::Unexpected::Unsigned(v);
        visit_f64(v: f64) => de::Unexpected::Float(v);
        visit_unit() => de::Unexpected::Unit;
    }

    refuse_seq!('de);

    refuse_map!('de);
}

/// Another crate's message, quoted: whole when short, its start otherwise.
fn cut(text: &str) -> String {
    const SHOWN: usize = 160;
    match text.char_indices().nth(SHOWN) {
        Some((end, _)) => format!("`{}...`", &text[..end]),
        None => format!("`{text}`"),
    }
}

/// A pattern as a message quotes it: whole when short, its start otherwise.
pub(super) fn quoted(text: &str) -> String {
    const SHOWN: usize = 40;
    match text.char_indices().nth(SHOWN) {
        Some((end, _)) => format!("`{}...` ({} bytes)", &text[..end], text.len()),
        None => format!("`{text}`"),
    }
}

/// How a `$regex` is written.
const REGEX_HELP: &str = "patterns use the Rust `regex` dialect: no look-around or \
    back-references; escape `(`, `[`, `.` and `\\` with `\\` to match them literally";

/// The problem of a pattern the `regex` crate refused; `what` the pattern is (`regex`), and
/// how to write one when it does not compile.
pub(super) fn regex_problem<E: de::Error>(
    pattern: &str,
    error: &regex::Error,
    what: &str,
    help: &str,
) -> E {
    if let regex::Error::CompiledTooBig(limit) = error {
        return custom(
            "trailgate::suite::regex_too_big",
            &format!(
                "{what} {} compiles to more than {} MiB, the limit for one regex",
                quoted(pattern),
                limit >> 20
            ),
            "compiles too big",
            "use a smaller repetition count, `+` or `*`, or an ASCII class such as `[a-z0-9_]`",
        );
    }
    // The regex crate draws the pattern with a caret; its last line says what is wrong.
    let detail = error.to_string();
    let reason = detail
        .lines()
        .last()
        .unwrap_or_default()
        .trim_start_matches("error: ")
        .to_owned();
    custom(
        "trailgate::suite::invalid_regex",
        &format!("invalid {what} {}: {reason}", quoted(pattern)),
        "invalid regex",
        help,
    )
}

/// A string, for the operator named.
struct StringSeed(&'static str);
seed_by_any!(StringSeed, String);

impl Refuse for StringSeed {
    fn refuse<E: de::Error>(&self, found: &de::Unexpected<'_>) -> E {
        invalid(
            &format!("`{}` takes a string, not {}", self.0, kind_of(found)),
            "not a string",
            &format!("write a string: `{{{}: error}}`", self.0),
        )
    }
}

impl<'de> Visitor<'de> for StringSeed {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<String, E> {
        Ok(text.to_owned())
    }

    refuse_others! {
        visit_bool(v: bool) => de::Unexpected::Bool(v);
        visit_i64(v: i64) => de::Unexpected::Signed(v);
        visit_u64(v: u64) => de::Unexpected::Unsigned(v);
        visit_f64(v: f64) => de::Unexpected::Float(v);
        visit_unit() => de::Unexpected::Unit;
    }

    refuse_seq!('de);

    refuse_map!('de);
}

/// A list of matchers, for `$any_of` and `$all_of`.
struct ListSeed(&'static str);
seed_by_any!(ListSeed, Vec<ValueMatcher>);

impl Refuse for ListSeed {
    fn refuse<E: de::Error>(&self, found: &de::Unexpected<'_>) -> E {
        invalid(
            &format!(
                "`{}` takes a list of matchers, not {}",
                self.0,
                kind_of(found)
            ),
            "not a list",
            &format!("write a list: `{{{}: [fast, safe]}}`", self.0),
        )
    }
}

impl<'de> Visitor<'de> for ListSeed {
    type Value = Vec<ValueMatcher>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of matchers")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut parts = Vec::new();
        while let Some(part) = seq.next_element_seed(MatcherSeed::part(false))? {
            parts.push(part);
        }
        Ok(parts)
    }

    refuse_others! {
        visit_bool(v: bool) => de::Unexpected::Bool(v);
        visit_i64(v: i64) => de::Unexpected::Signed(v);
        visit_u64(v: u64) => de::Unexpected::Unsigned(v);
        visit_f64(v: f64) => de::Unexpected::Float(v);
        visit_unit() => de::Unexpected::Unit;
    }

    refuse_str!();

    refuse_map!('de);
}

/// A number, for the operator named.
struct NumberSeed(&'static str);
seed_by_any!(NumberSeed, String);

impl Refuse for NumberSeed {
    fn refuse<E: de::Error>(&self, found: &de::Unexpected<'_>) -> E {
        let help = if matches!(found, de::Unexpected::Str(_)) {
            format!("write the number without quotes: `{{{}: 1}}`", self.0)
        } else {
            format!("write a number: `{{{}: 1}}`", self.0)
        };
        invalid(
            &format!("`{}` takes a number, not {}", self.0, kind_of(found)),
            "not a number",
            &help,
        )
    }
}

impl<'de> Visitor<'de> for NumberSeed {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number")
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<String, E> {
        Ok(value.to_string())
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<String, E> {
        Ok(value.to_string())
    }

    fn visit_i128<E: de::Error>(self, value: i128) -> Result<String, E> {
        Ok(value.to_string())
    }

    fn visit_u128<E: de::Error>(self, value: u128) -> Result<String, E> {
        Ok(value.to_string())
    }

    /// The number written, which the YAML reader read as this float.
    fn visit_f64<E: de::Error>(self, value: f64) -> Result<String, E> {
        match float_as_written_in_suite(value)? {
            Some(number) => Ok(number),
            // The float's shortest decimal: the number written.
            None => finite(value).map(|number| number.to_string()),
        }
    }

    /// A number written plain past a float's range (`1e400`), which the YAML reader hands
    /// over as a string, exactly as written; a string is refused.
    fn visit_str<E: de::Error>(self, text: &str) -> Result<String, E> {
        plain_number(text).ok_or_else(|| self.refuse(&de::Unexpected::Str(text)))
    }

    refuse_others! {
        visit_bool(v: bool) => de::Unexpected::Bool(v);
        visit_unit() => de::Unexpected::Unit;
    }

    refuse_seq!('de);

    refuse_map!('de);
}

/// `$near`: `{value: N, within: T}`, T at least 0.
struct NearSeed;
seed_by_any!(NearSeed, Node);

const NEAR_HELP: &str = "write `{$near: {value: 10, within: 0.5}}`: a number within 0.5 of 10";

impl Refuse for NearSeed {
    fn refuse<E: de::Error>(&self, found: &de::Unexpected<'_>) -> E {
        invalid(
            &format!(
                "`$near` takes a map with `value` and `within`, not {}",
                kind_of(found)
            ),
            "not a map",
            NEAR_HELP,
        )
    }
}

impl<'de> Visitor<'de> for NearSeed {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map with `value` and `within`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let (mut value, mut within) = (None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "value" if value.is_none() => {
                    value = Some(map.next_value_seed(NumberSeed("value"))?);
                }
                "within" if within.is_none() => {
                    within = Some(map.next_value_seed(NumberSeed("within"))?);
                }
                _ => {
                    return Err(invalid(
                        &format!("`$near` takes `value` and `within`, not `{key}`"),
                        "unknown or repeated key",
                        NEAR_HELP,
                    ));
                }
            }
        }
        let (Some(value), Some(within)) = (value, within) else {
            return Err(invalid(
                "`$near` needs both `value` and `within`",
                "incomplete `$near`",
                NEAR_HELP,
            ));
        };
        let (Some(center), Some(tolerance)) = (Decimal::parse(&value), Decimal::parse(&within))
        else {
            return Err(invalid("`$near` takes numbers", "not numbers", NEAR_HELP));
        };
        if tolerance.is_negative() {
            return Err(invalid(
                &format!("`within` of `$near` is negative: `{within}`"),
                "negative tolerance",
                "`within` is a distance: write a number at least 0",
            ));
        }
        let Some((low, high)) = near_bounds(&center, &tolerance) else {
            return Err(invalid(
                "`value` and `within` of `$near` are too far apart in scale",
                "too far apart",
                NEAR_HELP,
            ));
        };
        Ok(Node::Near {
            value,
            within,
            low,
            high,
        })
    }

    refuse_others! {
        visit_bool(v: bool) => de::Unexpected::Bool(v);
        visit_i64(v: i64) => de::Unexpected::Signed(v);
        visit_u64(v: u64) => de::Unexpected::Unsigned(v);
        visit_f64(v: f64) => de::Unexpected::Float(v);
        visit_unit() => de::Unexpected::Unit;
    }

    refuse_str!();

    refuse_seq!('de);
}

/// `$type`: one of the JSON kinds, or `integer`.
struct TypeSeed;
seed_by_any!(TypeSeed, JsonType);

fn type_names() -> Vec<String> {
    JsonType::ALL
        .iter()
        .map(|kind| kind.name().to_owned())
        .collect()
}

impl Refuse for TypeSeed {
    fn refuse<E: de::Error>(&self, found: &de::Unexpected<'_>) -> E {
        invalid(
            &format!("`$type` takes a type name, not {}", kind_of(found)),
            "not a type name",
            &suggest("", &type_names(), "types"),
        )
    }
}

impl<'de> Visitor<'de> for TypeSeed {
    type Value = JsonType;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a type name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<JsonType, E> {
        JsonType::ALL
            .into_iter()
            .find(|kind| kind.name() == name)
            .ok_or_else(|| {
                invalid(
                    &format!("unknown type `{name}`"),
                    "unknown type",
                    &suggest(name, &type_names(), "types"),
                )
            })
    }

    refuse_others! {
        visit_bool(v: bool) => de::Unexpected::Bool(v);
        visit_i64(v: i64) => de::Unexpected::Signed(v);
        visit_u64(v: u64) => de::Unexpected::Unsigned(v);
        visit_f64(v: f64) => de::Unexpected::Float(v);
        visit_unit() => de::Unexpected::Unit;
    }

    refuse_seq!('de);

    refuse_map!('de);
}

/// `$present`: `true` or `false`.
struct PresentSeed;
seed_by_any!(PresentSeed, bool);

impl Refuse for PresentSeed {
    fn refuse<E: de::Error>(&self, found: &de::Unexpected<'_>) -> E {
        invalid(
            &format!("`$present` takes `true` or `false`, not {}", kind_of(found)),
            "not a boolean",
            "write `{$present: false}` for an argument that must not be passed",
        )
    }
}

impl<'de> Visitor<'de> for PresentSeed {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`true` or `false`")
    }

    fn visit_bool<E: de::Error>(self, present: bool) -> Result<bool, E> {
        Ok(present)
    }

    refuse_others! {
        visit_i64(v: i64) => de::Unexpected::Signed(v);
        visit_u64(v: u64) => de::Unexpected::Unsigned(v);
        visit_f64(v: f64) => de::Unexpected::Float(v);
        visit_unit() => de::Unexpected::Unit;
    }

    refuse_str!();

    refuse_seq!('de);

    refuse_map!('de);
}

/// `$schema`: a JSON Schema (an object or a boolean), compiled for draft 2020-12.
struct SchemaSeed;
seed_by_any!(SchemaSeed, Arc<CompiledSchema>);

impl Refuse for SchemaSeed {
    fn refuse<E: de::Error>(&self, found: &de::Unexpected<'_>) -> E {
        invalid(
            &format!(
                "`$schema` takes a JSON Schema (a map), not {}",
                kind_of(found)
            ),
            "not a schema",
            "write a schema as a map: `{$schema: {type: string, maxLength: 80}}`",
        )
    }
}

/// Compiles a schema, once for the suite ([`crate::reading::schema`]); remote references
/// are off (the crate is built without them), so a `$ref` to a URL or a file is an error
/// here rather than a download. Its patterns are searched by the linear `regex` engine
/// within the limits of every suite regex (`json_schema.rs` has checked each), never by the
/// crate's default, `fancy-regex`, which backtracks: `(\w+)\s\1` took 54 s over one call's
/// 649 strings (docs/matchers.md).
fn compile_schema<E: de::Error>(written: Value) -> Result<Arc<CompiledSchema>, E> {
    crate::reading::schema(written, build_schema)
}

fn build_schema<E: de::Error>(written: Value) -> Result<Arc<CompiledSchema>, E> {
    let patterns = PatternOptions::regex()
        .size_limit(MAX_REGEX_BYTES)
        .dfa_size_limit(REGEX_DFA_CACHE_BYTES);
    let built = jsonschema::draft202012::options()
        .with_pattern_options(patterns)
        .with_pattern_cache(crate::reading::schema_pattern_cache())
        .build(&written);
    match built {
        Ok(validator) => Ok(Arc::new(CompiledSchema {
            nodes: json_nodes(&written),
            written,
            validator,
        })),
        Err(error) => {
            let reason = error.to_string();
            let reason = reason.lines().next().unwrap_or_default();
            Err(custom(
                "trailgate::suite::invalid_schema",
                &format!("invalid JSON Schema: {}", cut(reason)),
                "invalid schema",
                "the schema is read as draft 2020-12, without remote references: keep every \
                 `$ref` within the schema (`#/$defs/...`)",
            ))
        }
    }
}

/// The nodes of a JSON value: itself and every array element and object member, at every
/// depth.
fn json_nodes(value: &Value) -> usize {
    1 + match value {
        Value::Array(items) => items.iter().map(json_nodes).sum(),
        Value::Object(members) => members.values().map(json_nodes).sum(),
        _ => 0,
    }
}

impl<'de> Visitor<'de> for SchemaSeed {
    type Value = Arc<CompiledSchema>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON Schema")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        compile_schema(Part::Schema.visit_map(map)?)
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Self::Value, E> {
        compile_schema(Value::Bool(value))
    }

    refuse_others! {
        visit_i64(v: i64) => de::Unexpected::Signed(v);
        visit_u64(v: u64) => de::Unexpected::Unsigned(v);
        visit_f64(v: f64) => de::Unexpected::Float(v);
        visit_unit() => de::Unexpected::Unit;
    }

    refuse_str!();

    refuse_seq!('de);
}
