//! Reading a value matcher from the suite: literals, operator maps and their keys. Each
//! mistake is raised inside the visitor of the node it is about, so the YAML reader places
//! it there. The value each operator takes is read in `operands.rs`.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

use self::operands::operator_value;
use super::{Node, OPERATORS, ValueMatcher};
use crate::error::{custom, suggest};
use crate::reading::{MAX_MATCHER_NODES, count_matcher_nodes, matcher_limit_passed};
use crate::suite_file::{AmbiguousFloat, float_as_written, plain_number};

const INVALID: &str = "trailgate::suite::invalid_matcher";

fn invalid<E: de::Error>(message: &str, label: &str, help: &str) -> E {
    custom(INVALID, message, label, help)
}

impl<'de> Deserialize<'de> for ValueMatcher {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        MatcherSeed {
            literal: false,
            outermost: true,
        }
        .deserialize(deserializer)
    }
}

/// Reads a matcher; with `literal`, every map is a literal object (inside `$eq`).
#[derive(Clone, Copy)]
struct MatcherSeed {
    literal: bool,
    /// Whether the matcher is a whole one (an `args:`, a `result:`), not a part of another:
    /// the suite's count of matcher nodes is checked once it is read ([`counted`]).
    outermost: bool,
}

impl MatcherSeed {
    /// Reads a part of a matcher.
    fn part(literal: bool) -> Self {
        Self {
            literal,
            outermost: false,
        }
    }
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
        // `1e-400` is read as the float 0: the number written is taken instead.
        if let Some(number) = float_as_written_in_suite(value)? {
            return Ok(ValueMatcher::of(Node::BigNumber(number)));
        }
        Ok(ValueMatcher::literal(Value::Number(finite(value)?)))
    }

    fn visit_i128<E: de::Error>(self, value: i128) -> Result<ValueMatcher, E> {
        Ok(ValueMatcher::of(Node::BigNumber(value.to_string())))
    }

    fn visit_u128<E: de::Error>(self, value: u128) -> Result<ValueMatcher, E> {
        Ok(ValueMatcher::of(Node::BigNumber(value.to_string())))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<ValueMatcher, E> {
        // `1e400` written plain is a number, which the YAML reader hands over as a string.
        if let Some(number) = plain_number(value) {
            return Ok(ValueMatcher::of(Node::BigNumber(number)));
        }
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
        while let Some(item) = seq.next_element_seed(Self::part(self.literal))? {
            items.push(item);
        }
        counted(ValueMatcher::of(Node::Array(items)), self.outermost)
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
                return counted(ValueMatcher::of(node), self.outermost);
            }
            Key::Name(name) => name,
        };
        let part = Self::part(self.literal);
        entries.push((key, map.next_value_seed(part)?));
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
            entries.push((key, map.next_value_seed(part)?));
        }
        entries.sort_by(|(a, _), (b, _)| a.cmp(b));
        if let Some(pair) = entries.windows(2).find(|pair| pair[0].0 == pair[1].0) {
            return Err(invalid(
                &format!("key `{}` written twice", pair[0].0),
                "key written twice",
                "write each key once",
            ));
        }
        counted(ValueMatcher::of(Node::Object(entries)), self.outermost)
    }
}

/// The number the suite writes where the YAML reader read the float `value`, as JSON text,
/// when the float does not hold it (`1e-400`, `0.10000000000000000001`); `None` when the
/// float is the number written. Two numbers of the suite that read as the same float are
/// refused: which one this is cannot be told.
pub(crate) fn float_as_written_in_suite<E: de::Error>(value: f64) -> Result<Option<String>, E> {
    float_as_written(value).map_err(|AmbiguousFloat { texts: (a, b) }| {
        invalid(
            &format!(
                "`{a}` and `{b}` in this suite are one float to the YAML reader, and which of \
                 them this is cannot be told"
            ),
            "one of two numbers",
            "the YAML reader rounds a number with a fraction or an exponent to the nearest \
             float (15 significant digits; below 1e-308 fewer, below 5e-324 none, so 1e-400 \
             is 0): write the two so that they differ as floats, or write a whole number \
             without a fraction (`0`, not `0.0`)",
        )
    })
}

/// `matcher`, just read, counted in the suite's reading ([`ValueMatcher::own_nodes`]); a
/// whole matcher (`outermost`) that takes the suite past its limit is refused, at its place:
/// the nodes that pass it are often in a copy an alias made, whose place is the anchor's.
fn counted<E: de::Error>(matcher: ValueMatcher, outermost: bool) -> Result<ValueMatcher, E> {
    count_matcher_nodes(matcher.own_nodes());
    if let Some(limit) = outermost.then(matcher_limit_passed).flatten() {
        return Err(custom(
            "trailgate::suite::matchers_too_large",
            &format!(
                "the suite's value matchers hold more than {limit} nodes once its YAML aliases \
                 are expanded"
            ),
            "this matcher passes the limit",
            &format!(
                "an alias (`*name`) of a matcher is a copy of it, matched on its own against \
                 every value it meets: write the matcher once (`$any_of` of plain values, one \
                 `$regex` with alternatives) or alias it fewer times; the limit is \
                 {MAX_MATCHER_NODES} matcher nodes, or one per byte of a larger suite"
            ),
        ));
    }
    Ok(matcher)
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

mod json_schema;
mod operands;
