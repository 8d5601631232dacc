//! The value matcher language (docs/matchers.md): what an expected argument or result may
//! say besides a literal value (`{$gte: 1}`, `{$any_of: [fast, safe]}`, `{$present: false}`),
//! at any depth, compiled once while the suite is read. Every grader that compares values
//! matches through [`ValueMatcher`]; none matches by hand.
//!
//! A value is judged from a [`ValueRef`], so a trace value kept as text is read, not
//! parsed, wherever the matcher allows it. A matcher with no operator anywhere is a literal
//! ([`ValueMatcher::as_literal`]): a grader compares it as it compared values before the
//! language existed, so a suite that does not use the language pays nothing for it.
//!
//! This file holds the matcher types, matching, [`ValueMatcher::explain`] and writing a
//! matcher back as JSON. Beside it: `read.rs` reads a matcher from YAML (the visitors, each
//! mistake raised at its position), with `read/operands.rs` for the value each operator
//! takes; `decimal.rs` is the exact arithmetic of `$near`'s bounds; `schema.rs` is the JSON
//! Schema of a matcher, for editors.

use std::cmp::Ordering;
use std::fmt;
use std::sync::{Arc, OnceLock};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use trailgate_trace::{Decimal, LazyValue, ValueRef};

use crate::pattern::Pattern;
use crate::reading::CompiledSchema;
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
    /// A literal number that the YAML reader's number types do not hold: an integer beyond
    /// 64 bits, or a number past a float's range (`1e400`): its decimal text, as JSON
    /// writes it.
    BigNumber(String),
    /// A literal array: elements match position by position.
    Array(Vec<ValueMatcher>),
    /// A literal object, sorted by key, each key once.
    Object(Vec<(String, ValueMatcher)>),
    /// `$eq`: its value read as a literal, `$` keys and all.
    Eq(Box<ValueMatcher>),
    /// Searched as a tool-name pattern is, its compiled regex shared by every `$regex` of
    /// the suite written the same (`reading.rs`).
    Regex(Pattern),
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

    /// The nodes this matcher adds to its suite's count (`MAX_MATCHER_NODES`,
    /// docs/robustness.md#limits): none for a literal, which the matcher it is a part of
    /// counts as one (it is compared in one pass over the value); otherwise one, one for
    /// each of its parts that is a literal, and the nodes of a `$schema`. Its other parts
    /// counted themselves when they were read.
    pub(crate) fn own_nodes(&self) -> usize {
        if self.literal.is_some() {
            return 0;
        }
        let literals = |parts: &[Self]| parts.iter().filter(|part| part.literal.is_some()).count();
        1 + match &self.node {
            Node::Array(parts) | Node::AnyOf(parts) | Node::AllOf(parts) => literals(parts),
            Node::Object(entries) => entries
                .iter()
                .filter(|(_, part)| part.literal.is_some())
                .count(),
            Node::Eq(part) | Node::Contains(part) | Node::Not(part) => {
                usize::from(part.literal.is_some())
            }
            Node::Schema(schema) => schema.nodes,
            Node::Scalar(_)
            | Node::BigNumber(_)
            | Node::Regex(_)
            | Node::IContains { .. }
            | Node::Compare(..)
            | Node::Near { .. }
            | Node::Type(_)
            | Node::Present(_) => 0,
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
            Node::Regex(pattern) => actual.as_str().is_some_and(|text| pattern.is_match(&text)),
            Node::Contains(inner) => contains(inner, actual, mode),
            Node::IContains { lower, .. } => actual
                .as_str()
                .is_some_and(|text| text.to_lowercase().contains(lower.as_str())),
            Node::AnyOf(parts) => parts.iter().any(|part| part.matches_value(actual, mode)),
            Node::AllOf(parts) => parts.iter().all(|part| part.matches_value(actual, mode)),
            Node::Not(inner) => !inner.matches_value(actual, mode),
            Node::BigNumber(text) => compare_number(actual, text) == Some(Ordering::Equal),
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
            Node::BigNumber(text) => out.push_str(text),
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
            Node::Scalar(_) | Node::BigNumber(_) | Node::Array(_)
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

mod decimal;
mod read;
pub(crate) use read::float_as_written_in_suite;
mod schema;

#[cfg(test)]
mod tests;
