//! The value matcher language (docs/matchers.md): what an expected argument or result may
//! say besides a literal value (`{$gte: 1}`, `{$any_of: [fast, safe]}`, `{$present: false}`),
//! at any depth, compiled once while the suite is read. Every grader that compares values
//! matches through [`ValueMatcher`]; none matches by hand.
//!
//! A value is judged from a [`ValueRef`], so a trace value kept as text is read, not
//! parsed, wherever the matcher allows it. A matcher with no operator anywhere is a literal
//! ([`ValueMatcher::as_literal`]): a grader compares it as it compared values before the
//! language existed, so a suite that does not use the language pays nothing for it.

use std::cmp::Ordering;
use std::fmt;
use std::sync::{Arc, OnceLock};

use regex::Regex;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use trailgate_trace::{Decimal, LazyValue, ValueRef, compile_regex};

use crate::error::{custom, suggest};
use crate::section::Piece;

/// An expected value: a literal, or an operator (`$eq`, `$regex`, `$contains`,
/// `$icontains`, `$any_of`, `$all_of`, `$not`, `$gte`, `$gt`, `$lte`, `$lt`, `$near`,
/// `$type`, `$present`, `$schema`), at any depth, compiled once (regexes and schemas
/// included).
///
/// An operator is a map with exactly one key, which starts with `$`; every other value is a
/// literal. Read from YAML by its `Deserialize`, which reports every mistake as a
/// diagnostic at its position; `Display` writes it back as compact JSON.
#[derive(Debug, Clone)]
pub struct ValueMatcher {
    node: Node,
    /// The whole value, when no operator appears at any depth.
    literal: Option<Value>,
    /// The literal's [equality key](ValueRef::equality_key), written on first use.
    literal_key: OnceLock<String>,
}

/// How literal objects compare with an actual object, at every depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ArgsMode {
    /// The same set of keys (today's behaviour).
    #[default]
    Exact,
    /// The expected keys and any others.
    Subset,
}

/// Where a value did not match, and how: what [`ValueMatcher::explain`] finds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueMismatch {
    /// The place in the value: `query`, `filters[0].min`; empty for the value itself.
    pub path: String,
    /// The matcher at that place as written, compact JSON (`{"$gte":1}`); for a key that
    /// the expected object does not name (in `exact` mode), `{"$present":false}`.
    pub expected: String,
    /// The actual value there, compact JSON cut to about [`SHOWN_CHARS`] characters;
    /// `None` when it is absent.
    pub actual: Option<String>,
}

impl ValueMismatch {
    /// The `$regex` matcher to write when the expected value is a string that reads like a
    /// regex (`^npm test`, `\.env$`, `.*`) and was compared as the literal it is: a plain
    /// string in `args` is a regex in `tool-calls` only (docs/matchers.md#literals-and-operators).
    pub fn regex_hint(&self) -> Option<String> {
        let text: String = serde_json::from_str(&self.expected).ok()?;
        let reads_as_regex = text.starts_with('^')
            || text.ends_with('$')
            || [".*", ".+", "\\d", "\\w", "\\s", "\\."]
                .iter()
                .any(|part| text.contains(part));
        reads_as_regex.then(|| format!("{{ $regex: {} }}", self.expected))
    }

    /// The words a finding adds after the mismatch when [`regex_hint`](Self::regex_hint)
    /// has a matcher to suggest; none otherwise.
    pub(crate) fn regex_note(&self) -> Vec<Piece> {
        self.regex_hint().map_or_else(Vec::new, |regex| {
            vec![
                Piece::text(" (compared literally, not as a regex; for a regex write "),
                Piece::Name(regex),
                Piece::text(")"),
            ]
        })
    }
}

/// How many characters of an actual value a [`ValueMismatch`] shows.
pub const SHOWN_CHARS: usize = 80;

#[derive(Debug, Clone)]
enum Node {
    /// A literal `null`, boolean, number or string.
    Scalar(Value),
    /// A literal integer beyond 64 bits, which a JSON value of this build cannot hold: its
    /// decimal text.
    BigInteger(String),
    /// A literal array: elements match position by position.
    Array(Vec<ValueMatcher>),
    /// A literal object, sorted by key, each key once.
    Object(Vec<(String, ValueMatcher)>),
    /// `$eq`: its value read as a literal, `$` keys and all.
    Eq(Box<ValueMatcher>),
    Regex(Regex),
    Contains(Box<ValueMatcher>),
    IContains {
        written: String,
        lower: String,
    },
    AnyOf(Vec<ValueMatcher>),
    AllOf(Vec<ValueMatcher>),
    Not(Box<ValueMatcher>),
    /// A comparison with a number, as decimal text.
    Compare(Comparison, String),
    /// `$near`: its numbers, and the bounds `value - within` and `value + within`, as exact
    /// decimal text.
    Near {
        value: String,
        within: String,
        low: String,
        high: String,
    },
    Type(JsonType),
    Present(bool),
    Schema(Arc<CompiledSchema>),
}

/// The comparison operators on numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Comparison {
    Gte,
    Gt,
    Lte,
    Lt,
}

impl Comparison {
    fn holds(self, actual: Ordering) -> bool {
        match self {
            Self::Gte => actual.is_ge(),
            Self::Gt => actual.is_gt(),
            Self::Lte => actual.is_le(),
            Self::Lt => actual.is_lt(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Gte => "$gte",
            Self::Gt => "$gt",
            Self::Lte => "$lte",
            Self::Lt => "$lt",
        }
    }
}

/// The kinds `$type` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JsonType {
    String,
    Number,
    Integer,
    Boolean,
    Null,
    Array,
    Object,
}

impl JsonType {
    const ALL: [Self; 7] = [
        Self::String,
        Self::Number,
        Self::Integer,
        Self::Boolean,
        Self::Null,
        Self::Array,
        Self::Object,
    ];

    fn name(self) -> &'static str {
        match self {
            Self::String => "string",
            Self::Number => "number",
            Self::Integer => "integer",
            Self::Boolean => "boolean",
            Self::Null => "null",
            Self::Array => "array",
            Self::Object => "object",
        }
    }

    fn holds(self, actual: ValueRef<'_>) -> bool {
        match self {
            Self::String => actual.as_str().is_some(),
            Self::Number => actual.number_text().is_some(),
            Self::Integer => actual
                .number_text()
                .is_some_and(|text| Decimal::parse(&text).is_some_and(|n| n.is_integer())),
            Self::Object => actual.is_object(),
            Self::Boolean => actual.to_value().is_boolean(),
            Self::Null => actual.to_value().is_null(),
            Self::Array => actual.to_value().is_array(),
        }
    }
}

/// A `$schema`, as written and compiled.
struct CompiledSchema {
    written: Value,
    validator: jsonschema::Validator,
}

impl fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.written, f)
    }
}

/// The operators, as written.
const OPERATORS: [&str; 15] = [
    "$eq",
    "$regex",
    "$contains",
    "$icontains",
    "$any_of",
    "$all_of",
    "$not",
    "$gte",
    "$gt",
    "$lte",
    "$lt",
    "$near",
    "$type",
    "$present",
    "$schema",
];

impl ValueMatcher {
    /// A literal: `value` as it is, maps included (no key is read as an operator).
    pub fn literal(value: Value) -> Self {
        let node = match &value {
            Value::Array(items) => Node::Array(items.iter().cloned().map(Self::literal).collect()),
            Value::Object(map) => Node::Object(
                map.iter()
                    .map(|(key, value)| (key.clone(), Self::literal(value.clone())))
                    .collect(),
            ),
            scalar => Node::Scalar(scalar.clone()),
        };
        Self {
            node,
            literal: Some(value),
            literal_key: OnceLock::new(),
        }
    }

    /// A matcher of `node`, literal when every part of it is.
    fn of(node: Node) -> Self {
        let literal = match &node {
            Node::Scalar(value) => Some(value.clone()),
            Node::Array(items) => items
                .iter()
                .map(|item| item.literal.clone())
                .collect::<Option<Vec<_>>>()
                .map(Value::Array),
            Node::Object(entries) => entries
                .iter()
                .map(|(key, value)| Some((key.clone(), value.literal.clone()?)))
                .collect::<Option<Map<_, _>>>()
                .map(Value::Object),
            _ => None,
        };
        Self {
            node,
            literal,
            literal_key: OnceLock::new(),
        }
    }

    /// The value, when no operator appears at any depth: a grader then compares it as a
    /// plain value ([`ValueRef::equals`]), as fast as before the language existed.
    pub fn as_literal(&self) -> Option<&Value> {
        self.literal.as_ref()
    }

    /// Whether `actual` equals the literal as call arguments do ([`ValueRef::equals`]);
    /// `None` when the matcher is not a literal. Arguments the reader found written as
    /// their own equality key (compact, keys in order, plain integers, no escape) are
    /// compared as text with the literal's key, written once: two values are equal exactly
    /// when their keys are.
    pub fn literal_equals(&self, actual: &LazyValue) -> Option<bool> {
        let literal = self.literal.as_ref()?;
        Some(match actual.canonical_text() {
            Some(text) => {
                text == self
                    .literal_key
                    .get_or_init(|| ValueRef::parsed(literal).equality_key().into_owned())
            }
            None => actual.view().equals(literal),
        })
    }

    /// The members of a literal object (one that is not an operator, whatever its
    /// members are), sorted by key; `None` for anything else.
    pub fn object_entries(&self) -> Option<&[(String, ValueMatcher)]> {
        match &self.node {
            Node::Object(entries) => Some(entries),
            _ => None,
        }
    }

    /// Whether `actual` matches; `None` is a value that is absent (a key the actual object
    /// does not have).
    ///
    /// An absent value matches `$present: false` only: every other matcher is undecided on
    /// it, and `$not`, `$any_of` and `$all_of` combine undecided parts as three-valued logic
    /// does (`$not` of undecided is undecided; `$any_of` is true when a part is true;
    /// `$all_of` is true when every part is). Undecided is no match.
    pub fn matches(&self, actual: Option<ValueRef<'_>>, mode: ArgsMode) -> bool {
        match actual {
            None => self.on_absent() == Some(true),
            Some(actual) => self.matches_value(actual, mode),
        }
    }

    /// The verdict on an absent value: `None` when undecided.
    fn on_absent(&self) -> Option<bool> {
        match &self.node {
            Node::Present(present) => Some(!present),
            Node::Not(inner) => inner.on_absent().map(|verdict| !verdict),
            Node::AnyOf(parts) => {
                let verdicts: Vec<Option<bool>> = parts.iter().map(Self::on_absent).collect();
                if verdicts.contains(&Some(true)) {
                    Some(true)
                } else if verdicts.iter().all(|verdict| *verdict == Some(false)) {
                    Some(false)
                } else {
                    None
                }
            }
            Node::AllOf(parts) => {
                let verdicts: Vec<Option<bool>> = parts.iter().map(Self::on_absent).collect();
                if verdicts.contains(&Some(false)) {
                    Some(false)
                } else if verdicts.iter().all(|verdict| *verdict == Some(true)) {
                    Some(true)
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    fn matches_value(&self, actual: ValueRef<'_>, mode: ArgsMode) -> bool {
        if let Some(literal) = &self.literal
            && (mode == ArgsMode::Exact || !(literal.is_object() || literal.is_array()))
        {
            return actual.equals(literal);
        }
        match &self.node {
            Node::Scalar(value) => actual.equals(value),
            Node::Array(items) => {
                let value = actual.to_value();
                value.as_array().is_some_and(|elements| {
                    elements.len() == items.len()
                        && items.iter().zip(elements).all(|(item, element)| {
                            item.matches_value(ValueRef::parsed(element), mode)
                        })
                })
            }
            Node::Object(entries) => object_matches(entries, actual, mode),
            Node::Eq(inner) => inner.matches_value(actual, mode),
            Node::Regex(regex) => actual.as_str().is_some_and(|text| regex.is_match(&text)),
            Node::Contains(inner) => contains(inner, actual, mode),
            Node::IContains { lower, .. } => actual
                .as_str()
                .is_some_and(|text| text.to_lowercase().contains(lower.as_str())),
            Node::AnyOf(parts) => parts.iter().any(|part| part.matches_value(actual, mode)),
            Node::AllOf(parts) => parts.iter().all(|part| part.matches_value(actual, mode)),
            Node::Not(inner) => !inner.matches_value(actual, mode),
            Node::BigInteger(text) => compare_number(actual, text) == Some(Ordering::Equal),
            Node::Compare(comparison, bound) => {
                compare_number(actual, bound).is_some_and(|order| comparison.holds(order))
            }
            Node::Near { low, high, .. } => {
                compare_number(actual, low).is_some_and(Ordering::is_ge)
                    && compare_number(actual, high).is_some_and(Ordering::is_le)
            }
            Node::Type(kind) => kind.holds(actual),
            Node::Present(present) => *present,
            Node::Schema(schema) => schema.validator.is_valid(&actual.to_value()),
        }
    }

    /// Where `actual` first fails to match, depth-first in key order (and element order):
    /// the innermost literal object or array member that fails, or the operator that does;
    /// `None` when it matches.
    pub fn explain(&self, actual: Option<ValueRef<'_>>, mode: ArgsMode) -> Option<ValueMismatch> {
        let mut path = String::new();
        self.explain_at(actual, mode, &mut path)
    }

    fn explain_at(
        &self,
        actual: Option<ValueRef<'_>>,
        mode: ArgsMode,
        path: &mut String,
    ) -> Option<ValueMismatch> {
        if self.matches(actual, mode) {
            return None;
        }
        let here = |path: &str| ValueMismatch {
            path: path.to_owned(),
            expected: self.to_string(),
            actual: actual.map(shown),
        };
        let Some(value) = actual else {
            return Some(here(path));
        };
        match &self.node {
            Node::Object(entries) if value.is_object() => {
                let extra: Vec<(String, String)> = match mode {
                    ArgsMode::Subset => Vec::new(),
                    ArgsMode::Exact => value
                        .members()
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|(key, _)| find(entries, key).is_none())
                        .map(|(key, member)| (key.into_owned(), shown(member)))
                        .collect(),
                };
                let mut expected = entries.iter().peekable();
                let mut extra = extra.into_iter().peekable();
                loop {
                    let take_expected = match (expected.peek(), extra.peek()) {
                        (None, None) => break,
                        (Some(_), None) => true,
                        (None, Some(_)) => false,
                        (Some((key, _)), Some((other, _))) => key < other,
                    };
                    let start = path.len();
                    if take_expected {
                        let Some((key, matcher)) = expected.next() else {
                            break;
                        };
                        push_key(path, key);
                        if let Some(found) = matcher.explain_at(value.get(key), mode, path) {
                            return Some(found);
                        }
                        path.truncate(start);
                    } else if let Some((key, member)) = extra.next() {
                        push_key(path, &key);
                        return Some(ValueMismatch {
                            path: path.clone(),
                            expected: r#"{"$present":false}"#.to_owned(),
                            actual: Some(member),
                        });
                    }
                }
                Some(here(path))
            }
            Node::Array(items) => {
                let parsed = value.to_value();
                if let Some(elements) = parsed.as_array()
                    && elements.len() == items.len()
                {
                    for (index, (item, element)) in items.iter().zip(elements).enumerate() {
                        let start = path.len();
                        path.push('[');
                        path.push_str(&index.to_string());
                        path.push(']');
                        let element = Some(ValueRef::parsed(element));
                        if let Some(found) = item.explain_at(element, mode, path) {
                            return Some(found);
                        }
                        path.truncate(start);
                    }
                }
                Some(here(path))
            }
            _ => Some(here(path)),
        }
    }

    /// Writes the matcher as written, as compact JSON (object keys sorted).
    fn write_json(&self, out: &mut String) {
        if let Some(literal) = &self.literal {
            out.push_str(&json_text(literal));
            return;
        }
        let open = |out: &mut String, name: &str| {
            out.push_str("{\"");
            out.push_str(name);
            out.push_str("\":");
        };
        let list = |out: &mut String, parts: &[Self]| {
            out.push('[');
            for (index, part) in parts.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                part.write_json(out);
            }
            out.push(']');
        };
        match &self.node {
            Node::Scalar(value) => out.push_str(&json_text(value)),
            Node::BigInteger(text) => out.push_str(text),
            Node::Array(items) => list(out, items),
            Node::Object(entries) => {
                out.push('{');
                for (index, (key, matcher)) in entries.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    out.push_str(&json_text(&Value::String(key.clone())));
                    out.push(':');
                    matcher.write_json(out);
                }
                out.push('}');
                return;
            }
            Node::Eq(inner) | Node::Contains(inner) | Node::Not(inner) => {
                let name = match &self.node {
                    Node::Eq(_) => "$eq",
                    Node::Contains(_) => "$contains",
                    _ => "$not",
                };
                open(out, name);
                inner.write_json(out);
            }
            Node::Regex(regex) => {
                open(out, "$regex");
                out.push_str(&json_text(&Value::String(regex.as_str().to_owned())));
            }
            Node::IContains { written, .. } => {
                open(out, "$icontains");
                out.push_str(&json_text(&Value::String(written.clone())));
            }
            Node::AnyOf(parts) => {
                open(out, "$any_of");
                list(out, parts);
            }
            Node::AllOf(parts) => {
                open(out, "$all_of");
                list(out, parts);
            }
            Node::Compare(comparison, bound) => {
                open(out, comparison.name());
                out.push_str(bound);
            }
            Node::Near { value, within, .. } => {
                open(out, "$near");
                for part in ["{\"value\":", value, ",\"within\":", within, "}"] {
                    out.push_str(part);
                }
            }
            Node::Type(kind) => {
                open(out, "$type");
                out.push('"');
                out.push_str(kind.name());
                out.push('"');
            }
            Node::Present(present) => {
                open(out, "$present");
                out.push_str(if *present { "true" } else { "false" });
            }
            Node::Schema(schema) => {
                open(out, "$schema");
                out.push_str(&json_text(&schema.written));
            }
        }
        if !matches!(
            self.node,
            Node::Scalar(_) | Node::BigInteger(_) | Node::Array(_)
        ) {
            out.push('}');
        }
    }
}

/// Compact JSON of a value; writing a `Value` cannot fail.
fn json_text(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

impl fmt::Display for ValueMatcher {
    /// Compact JSON as written, object keys sorted: `{"$gte":1}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        self.write_json(&mut out);
        f.write_str(&out)
    }
}

/// A literal object against an actual one: each expected key's matcher on the actual
/// member (absent or not), and in `exact` mode no key the expected object does not name.
fn object_matches(
    entries: &[(String, ValueMatcher)],
    actual: ValueRef<'_>,
    mode: ArgsMode,
) -> bool {
    if !actual.is_object() {
        return false;
    }
    if !entries
        .iter()
        .all(|(key, matcher)| matcher.matches(actual.get(key), mode))
    {
        return false;
    }
    match mode {
        ArgsMode::Subset => true,
        ArgsMode::Exact => actual
            .members()
            .is_some_and(|members| members.iter().all(|(key, _)| find(entries, key).is_some())),
    }
}

/// The matcher of `key` in entries sorted by key.
fn find<'e>(entries: &'e [(String, ValueMatcher)], key: &str) -> Option<&'e ValueMatcher> {
    entries
        .binary_search_by(|(name, _)| name.as_str().cmp(key))
        .ok()
        .and_then(|at| entries.get(at))
        .map(|(_, matcher)| matcher)
}

/// `$contains`: a string holding the literal string, or an array with a matching element.
fn contains(inner: &ValueMatcher, actual: ValueRef<'_>, mode: ArgsMode) -> bool {
    if let Some(text) = actual.as_str() {
        return inner
            .as_literal()
            .and_then(Value::as_str)
            .is_some_and(|needle| text.contains(needle));
    }
    let value = actual.to_value();
    value.as_array().is_some_and(|elements| {
        elements
            .iter()
            .any(|element| inner.matches_value(ValueRef::parsed(element), mode))
    })
}

/// How the number `actual` compares with the number written `bound`, by exact value;
/// `None` when `actual` is not a number.
fn compare_number(actual: ValueRef<'_>, bound: &str) -> Option<Ordering> {
    let text = actual.number_text()?;
    let actual = Decimal::parse(&text)?;
    Some(actual.cmp(&Decimal::parse(bound)?))
}

/// A path segment: `.key`, or `["key"]` for a key that is not a plain name.
pub(crate) fn push_key(path: &mut String, key: &str) {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-');
    if plain {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
    } else {
        path.push('[');
        path.push_str(&serde_json::to_string(key).unwrap_or_default());
        path.push(']');
    }
}

/// Compact JSON of an actual value, cut to about [`SHOWN_CHARS`] characters.
pub(crate) fn shown(actual: ValueRef<'_>) -> String {
    let text = actual.canonical_json();
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.into_owned(),
    }
}

// ---------------------------------------------------------------------------------------
// Exact decimal arithmetic for `$near`: its bounds are computed once, when the suite is
// read.

/// `value - within` and `value + within`, as decimal text; `None` when the two are too far
/// apart in scale to be written out (more than [`MAX_SCALE_GAP`] places).
fn near_bounds(value: &Decimal<'_>, within: &Decimal<'_>) -> Option<(String, String)> {
    let value = Digits::of(value)?;
    let within = Digits::of(within)?;
    let low = value.add(&within.negated())?;
    let high = value.add(&within)?;
    Some((low.text(), high.text()))
}

/// How many decimal places apart two numbers of a `$near` may be.
const MAX_SCALE_GAP: i64 = 4096;

/// A decimal as an integer times a power of ten: `±digits × 10^exponent`, digits most
/// significant first.
#[derive(Debug, Clone)]
struct Digits {
    negative: bool,
    figures: Vec<u8>,
    exponent: i64,
}

impl Digits {
    fn of(number: &Decimal<'_>) -> Option<Self> {
        let figures: Vec<u8> = number.digits().map(|digit| digit - b'0').collect();
        let count = i64::try_from(figures.len()).ok()?;
        Some(Self {
            negative: number.is_negative(),
            exponent: number.point().checked_sub(count)?,
            figures,
        })
    }

    fn negated(&self) -> Self {
        Self {
            negative: !self.negative,
            ..self.clone()
        }
    }

    /// The digits with `zeros` zeros appended.
    fn scaled(&self, zeros: i64) -> Option<Vec<u8>> {
        let zeros = usize::try_from(zeros).ok()?;
        let mut figures = self.figures.clone();
        figures.resize(figures.len() + zeros, 0);
        Some(figures)
    }

    fn add(&self, other: &Self) -> Option<Self> {
        let exponent = self.exponent.min(other.exponent);
        let gap = self.exponent.max(other.exponent) - exponent;
        if gap > MAX_SCALE_GAP {
            return None;
        }
        let a = self.scaled(self.exponent - exponent)?;
        let b = other.scaled(other.exponent - exponent)?;
        let (negative, figures) = if self.negative == other.negative {
            (self.negative, add_magnitudes(&a, &b))
        } else {
            match compare_magnitudes(&a, &b) {
                Ordering::Less => (other.negative, subtract_magnitudes(&b, &a)),
                _ => (self.negative, subtract_magnitudes(&a, &b)),
            }
        };
        Some(Self {
            negative,
            figures,
            exponent,
        })
    }

    /// Decimal text that [`Decimal::parse`] reads: `-123e-4`.
    fn text(&self) -> String {
        let digits: String = self
            .figures
            .iter()
            .skip_while(|digit| **digit == 0)
            .map(|digit| char::from(b'0' + digit))
            .collect();
        if digits.is_empty() {
            return "0".to_owned();
        }
        let sign = if self.negative { "-" } else { "" };
        format!("{sign}{digits}e{}", self.exponent)
    }
}

fn compare_magnitudes(a: &[u8], b: &[u8]) -> Ordering {
    let a = &a[a.iter().take_while(|d| **d == 0).count()..];
    let b = &b[b.iter().take_while(|d| **d == 0).count()..];
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

fn add_magnitudes(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut sum = Vec::with_capacity(a.len().max(b.len()) + 1);
    let (mut a, mut b) = (a.iter().rev(), b.iter().rev());
    let mut carry = 0;
    loop {
        let (x, y) = (a.next(), b.next());
        if x.is_none() && y.is_none() {
            break;
        }
        let total = x.copied().unwrap_or(0) + y.copied().unwrap_or(0) + carry;
        sum.push(total % 10);
        carry = total / 10;
    }
    if carry > 0 {
        sum.push(carry);
    }
    sum.reverse();
    sum
}

/// `a - b` for `a >= b`.
fn subtract_magnitudes(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut difference = Vec::with_capacity(a.len());
    let mut b = b.iter().rev();
    let mut borrow = 0;
    for &x in a.iter().rev() {
        let y = b.next().copied().unwrap_or(0) + borrow;
        if x >= y {
            difference.push(x - y);
            borrow = 0;
        } else {
            difference.push(x + 10 - y);
            borrow = 1;
        }
    }
    difference.reverse();
    difference
}

// ---------------------------------------------------------------------------------------
// Reading from the suite. Each mistake is raised inside the visitor of the node it is
// about, so the YAML reader places it there.

const INVALID: &str = "trailgate::suite::invalid_matcher";

fn invalid<E: de::Error>(message: &str, label: &str, help: &str) -> E {
    custom(INVALID, message, label, help)
}

impl<'de> Deserialize<'de> for ValueMatcher {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        MatcherSeed { literal: false }.deserialize(deserializer)
    }
}

/// Reads a matcher; with `literal`, every map is a literal object (inside `$eq`).
#[derive(Clone, Copy)]
struct MatcherSeed {
    literal: bool,
}

impl<'de> DeserializeSeed<'de> for MatcherSeed {
    type Value = ValueMatcher;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<ValueMatcher, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MatcherSeed {
    type Value = ValueMatcher;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value or a matcher such as `{$gte: 1}`")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<ValueMatcher, E> {
        Ok(ValueMatcher::literal(Value::Bool(value)))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<ValueMatcher, E> {
        Ok(ValueMatcher::literal(Value::Number(value.into())))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<ValueMatcher, E> {
        Ok(ValueMatcher::literal(Value::Number(value.into())))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<ValueMatcher, E> {
        Ok(ValueMatcher::literal(Value::Number(finite(value)?)))
    }

    fn visit_i128<E: de::Error>(self, value: i128) -> Result<ValueMatcher, E> {
        Ok(ValueMatcher::of(Node::BigInteger(value.to_string())))
    }

    fn visit_u128<E: de::Error>(self, value: u128) -> Result<ValueMatcher, E> {
        Ok(ValueMatcher::of(Node::BigInteger(value.to_string())))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<ValueMatcher, E> {
        Ok(ValueMatcher::literal(Value::String(value.to_owned())))
    }

    fn visit_unit<E: de::Error>(self) -> Result<ValueMatcher, E> {
        Ok(ValueMatcher::literal(Value::Null))
    }

    fn visit_none<E: de::Error>(self) -> Result<ValueMatcher, E> {
        Ok(ValueMatcher::literal(Value::Null))
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<ValueMatcher, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ValueMatcher, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(ValueMatcher::of(Node::Array(items)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ValueMatcher, A::Error> {
        let mut entries: Vec<(String, ValueMatcher)> = Vec::new();
        let first = KeySeed {
            literal: self.literal,
            operator_allowed: true,
        };
        let Some(key) = map.next_key_seed(first)? else {
            return Ok(ValueMatcher::of(Node::Object(entries)));
        };
        let key = match key {
            Key::Operator(operator) => {
                let node = operator_value(operator, &mut map)?;
                if map.next_key_seed(SecondKey(operator))?.is_some() {
                    // `SecondKey` raises the error; a key that it let through is impossible.
                    return Err(invalid(
                        &format!("`{operator}` is an operator: its map has no other key"),
                        "operator map with another key",
                        "an operator is a map with exactly one key",
                    ));
                }
                return Ok(ValueMatcher::of(node));
            }
            Key::Name(name) => name,
        };
        entries.push((key, map.next_value_seed(self)?));
        let rest = KeySeed {
            literal: self.literal,
            operator_allowed: false,
        };
        while let Some(key) = map.next_key_seed(rest)? {
            let Key::Name(key) = key else {
                return Err(invalid(
                    "an operator next to other keys",
                    "operator next to other keys",
                    "an operator is a map with exactly one key",
                ));
            };
            entries.push((key, map.next_value_seed(self)?));
        }
        entries.sort_by(|(a, _), (b, _)| a.cmp(b));
        if let Some(pair) = entries.windows(2).find(|pair| pair[0].0 == pair[1].0) {
            return Err(invalid(
                &format!("key `{}` written twice", pair[0].0),
                "key written twice",
                "write each key once",
            ));
        }
        Ok(ValueMatcher::of(Node::Object(entries)))
    }
}

fn finite<E: de::Error>(value: f64) -> Result<Number, E> {
    Number::from_f64(value).ok_or_else(|| {
        invalid(
            "a number must be finite",
            "not a finite number",
            "write a number such as `1.5`; `.inf` and `.nan` are not JSON numbers",
        )
    })
}

/// A key of a matcher's map.
enum Key {
    Operator(&'static str),
    Name(String),
}

/// Reads a key of a matcher's map: an operator only as the first key (outside `$eq`).
#[derive(Clone, Copy)]
struct KeySeed {
    literal: bool,
    operator_allowed: bool,
}

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        if self.literal || !key.starts_with('$') {
            return Ok(Key::Name(key.to_owned()));
        }
        if !self.operator_allowed {
            return Err(invalid(
                &format!("operator `{key}` next to other keys"),
                "operator next to other keys",
                "an operator is a map with exactly one key: write `{$all_of: [...]}` to combine \
                 operators, or `{$eq: {...}}` for an object whose keys start with `$`",
            ));
        }
        if let Some(name) = OPERATORS.iter().find(|name| **name == key) {
            return Ok(Key::Operator(name));
        }
        let names: Vec<String> = OPERATORS.iter().map(|name| (*name).to_owned()).collect();
        Err(custom(
            "trailgate::suite::unknown_operator",
            &format!("unknown operator `{key}`"),
            "unknown operator",
            &format!(
                "{}; for an object whose keys start with `$`, write `{{$eq: {{...}}}}`",
                suggest(key, &names, "operators")
            ),
        ))
    }
}

/// The key after an operator's, which is always a mistake: raised at that key.
struct SecondKey(&'static str);

impl<'de> DeserializeSeed<'de> for SecondKey {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for SecondKey {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no other key next to `{}`", self.0)
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<(), E> {
        Err(invalid(
            &format!(
                "an operator map has exactly one key: `{key}` next to `{}`",
                self.0
            ),
            "second key",
            "an operator is a map with exactly one key: write `{$all_of: [...]}` to combine \
             operators, or `{$eq: {...}}` for an object whose keys start with `$`",
        ))
    }
}

/// Reads the value of `operator` and compiles it.
fn operator_value<'de, A: MapAccess<'de>>(
    operator: &'static str,
    map: &mut A,
) -> Result<Node, A::Error> {
    let matcher = MatcherSeed { literal: false };
    Ok(match operator {
        "$eq" => Node::Eq(Box::new(
            map.next_value_seed(MatcherSeed { literal: true })?,
        )),
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
seed_by_any!(RegexSeed, Regex);

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
    type Value = Regex;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a regex")
    }

    fn visit_str<E: de::Error>(self, pattern: &str) -> Result<Regex, E> {
        compile_regex(pattern).map_err(|error| regex_problem(pattern, &error))
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
fn quoted(text: &str) -> String {
    const SHOWN: usize = 40;
    match text.char_indices().nth(SHOWN) {
        Some((end, _)) => format!("`{}...` ({} bytes)", &text[..end], text.len()),
        None => format!("`{text}`"),
    }
}

fn regex_problem<E: de::Error>(pattern: &str, error: &regex::Error) -> E {
    if let regex::Error::CompiledTooBig(limit) = error {
        return custom(
            "trailgate::suite::regex_too_big",
            &format!(
                "regex {} compiles to more than {} MiB, the limit for one regex",
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
        &format!("invalid regex {}: {reason}", quoted(pattern)),
        "invalid regex",
        "patterns use the Rust `regex` dialect: no look-around or back-references; escape \
         `(`, `[`, `.` and `\\` with `\\` to match them literally",
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
        while let Some(part) = seq.next_element_seed(MatcherSeed { literal: false })? {
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

    /// The shortest decimal that reads back as the same float: what was written, for
    /// any number of up to 17 significant digits.
    fn visit_f64<E: de::Error>(self, value: f64) -> Result<String, E> {
        finite(value).map(|number| number.to_string())
    }

    refuse_others! {
        visit_bool(v: bool) => de::Unexpected::Bool(v);
        visit_unit() => de::Unexpected::Unit;
    }

    refuse_str!();

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

/// Compiles a schema; remote references are off (the crate is built without them), so a
/// `$ref` to a URL or a file is an error here rather than a download.
fn compile_schema<E: de::Error>(written: Value) -> Result<Arc<CompiledSchema>, E> {
    match jsonschema::draft202012::new(&written) {
        Ok(validator) => Ok(Arc::new(CompiledSchema { written, validator })),
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

impl<'de> Visitor<'de> for SchemaSeed {
    type Value = Arc<CompiledSchema>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON Schema")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let written = Value::deserialize(MapAccessDeserializer::new(map))?;
        compile_schema(written)
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

// ---------------------------------------------------------------------------------------
// The JSON Schema of a matcher, for editors: mirrors the visitors above.

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

#[cfg(test)]
mod tests;
