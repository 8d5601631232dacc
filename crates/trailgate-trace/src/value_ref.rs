//! A borrowed view of a call's arguments or result that answers what the graders ask
//! (a member of an object, a string, canonical JSON, equality with an expected value)
//! straight from the JSON text when the value was kept as text, without building a
//! [`Value`]. Building one costs an allocation per string, array and object; reading the
//! text costs one pass, as fast as skipping it.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Number, Value};

use crate::decimal::{Decimal, number_texts_equal};
use crate::equality::{args_equal, numbers_equal};
use crate::json_scan::{skip_string, string_stop};

/// A JSON value, parsed or as text: what [`LazyValue::view`](crate::LazyValue::view) gives.
///
/// Every answer is the one the parsed [`Value`] gives; text is only ever a value that
/// parses (see [`LazyValue`](crate::LazyValue)), so reading it cannot fail. Should it
/// anyway, the view parses the text and answers from the parse.
#[derive(Clone, Copy)]
pub struct ValueRef<'a>(Repr<'a>);

#[derive(Clone, Copy)]
enum Repr<'a> {
    Parsed(&'a Value),
    /// JSON text of one value that parses into a [`Value`].
    Text(&'a str),
    /// The JSON text of an object, and where its members are in it.
    Indexed(&'a str, &'a [Member]),
}

/// Where one member of an object is in the object's text: its key (which has no escapes,
/// and no other member has) and its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Member {
    key: (u32, u32),
    value: (u32, u32),
}

impl Member {
    /// The members of the object that `text` holds, in text order; `None` when it holds
    /// something else, when a key has an escape, or when a key is written twice (then the
    /// text is read as it comes, [`Repr::Text`]). `text` is valid JSON.
    pub(crate) fn index(text: &str) -> Option<Box<[Self]>> {
        let bytes = text.as_bytes();
        let mut at = skip_space(bytes, 0);
        if bytes.get(at) != Some(&b'{') {
            return None;
        }
        at = skip_space(bytes, at + 1);
        // Most objects have a few members: they are gathered here, and copied once.
        let mut members = Gathered::default();
        while bytes.get(at) == Some(&b'"') {
            let key_start = at + 1;
            let key_end = string_stop(bytes, key_start, false);
            if bytes.get(key_end) != Some(&b'"') {
                return None;
            }
            at = skip_space(bytes, key_end + 1);
            // The `:`.
            at = skip_space(bytes, at + 1);
            let value_start = at;
            at = skip_value(bytes, at);
            members.push(Self::new(key_start..key_end, value_start..at)?);
            at = skip_space(bytes, at);
            if bytes.get(at) == Some(&b',') {
                at = skip_space(bytes, at + 1);
            }
        }
        Self::distinct(members.as_slice(), text)
    }

    /// A member whose key (without its quotes) and value are at these ranges of the
    /// object's text; `None` past 4 GiB.
    pub(crate) fn new(key: Range<usize>, value: Range<usize>) -> Option<Self> {
        let offset = |at: usize| u32::try_from(at).ok();
        Some(Self {
            key: (offset(key.start)?, offset(key.end)?),
            value: (offset(value.start)?, offset(value.end)?),
        })
    }

    /// The index of an object of `text` with these members, whose keys have no escapes;
    /// `None` when a key is written twice.
    pub(crate) fn distinct(members: &[Self], text: &str) -> Option<Box<[Self]>> {
        let key = |member: &Self| member.key(text);
        // Keys of different lengths differ: most pairs are told apart without reading them.
        let len = |member: &Self| member.key.1 - member.key.0;
        let twice = if members.len() <= FEW_MEMBERS {
            members.iter().enumerate().any(|(index, member)| {
                members[..index]
                    .iter()
                    .any(|before| len(before) == len(member) && key(before) == key(member))
            })
        } else {
            let mut keys: Vec<_> = members.iter().map(key).collect();
            keys.sort_unstable();
            keys.windows(2).any(|pair| pair[0] == pair[1])
        };
        if twice {
            return None;
        }
        Some(Box::from(members))
    }

    fn key(self, text: &str) -> &str {
        text.get(self.key.0 as usize..self.key.1 as usize)
            .unwrap_or_default()
    }

    fn value(self, text: &str) -> &str {
        text.get(self.value.0 as usize..self.value.1 as usize)
            .unwrap_or_default()
    }
}

/// How many members an object may have to be gathered on the stack and checked for a key
/// written twice pair by pair.
const FEW_MEMBERS: usize = 16;

/// The members of an object as they are found: on the stack while they are few.
struct Gathered {
    few: [Member; FEW_MEMBERS],
    count: usize,
    many: Vec<Member>,
}

impl Default for Gathered {
    fn default() -> Self {
        let none = Member {
            key: (0, 0),
            value: (0, 0),
        };
        Self {
            few: [none; FEW_MEMBERS],
            count: 0,
            many: Vec::new(),
        }
    }
}

impl Gathered {
    fn push(&mut self, member: Member) {
        if let Some(slot) = self.few.get_mut(self.count) {
            *slot = member;
        } else {
            if self.many.is_empty() {
                self.many.extend_from_slice(&self.few);
            }
            self.many.push(member);
        }
        self.count += 1;
    }

    fn as_slice(&self) -> &[Member] {
        self.few.get(..self.count).unwrap_or(&self.many)
    }
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// The end of the value that starts at `at` in valid JSON text.
fn skip_value(bytes: &[u8], mut at: usize) -> usize {
    let mut unsure = false;
    match bytes.get(at) {
        Some(b'"') => skip_string(bytes, at + 1, &mut unsure),
        Some(b'{' | b'[') => {
            let mut depth = 0_usize;
            while let Some(&byte) = bytes.get(at) {
                at += 1;
                match byte {
                    b'"' => at = skip_string(bytes, at, &mut unsure),
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
            at
        }
        _ => {
            while bytes.get(at).is_some_and(|byte| {
                !matches!(byte, b',' | b'}' | b']') && !byte.is_ascii_whitespace()
            }) {
                at += 1;
            }
            at
        }
    }
}

impl<'a> ValueRef<'a> {
    /// A view of a parsed value.
    pub fn parsed(value: &'a Value) -> Self {
        Self(Repr::Parsed(value))
    }

    /// A view of JSON text that parses into a [`Value`]: a value kept by `LazyValue`, or
    /// part of one.
    pub(crate) fn text(text: &'a str) -> Self {
        Self(Repr::Text(text))
    }

    /// A view of the JSON text of an object whose members [`Member::index`] found.
    pub(crate) fn indexed(text: &'a str, members: &'a [Member]) -> Self {
        Self(Repr::Indexed(text, members))
    }

    /// The value of member `key`, when this is an object that has it (the last one, when
    /// the text names it twice, as the parse keeps).
    pub fn get(self, key: &str) -> Option<Self> {
        match self.0 {
            Repr::Parsed(value) => value.as_object()?.get(key).map(Self::parsed),
            Repr::Indexed(text, members) => members
                .iter()
                .find(|member| member.key(text) == key)
                .map(|member| Self::text(member.value(text))),
            Repr::Text(text) => {
                if first_byte(text) != Some(b'{') {
                    return None;
                }
                let mut de = serde_json::Deserializer::from_str(text);
                match de.deserialize_map(FindMember(key)) {
                    Ok(found) => found.map(|raw| Self::text(raw.get())),
                    Err(_) => None,
                }
            }
        }
    }

    /// The members of an object, sorted by key, each key once (with its last value, as
    /// the parse keeps); `None` when this is not an object.
    pub fn members(self) -> Option<Vec<(Cow<'a, str>, Self)>> {
        match self.0 {
            Repr::Parsed(value) => Some(
                value
                    .as_object()?
                    .iter()
                    .map(|(key, value)| (Cow::Borrowed(key.as_str()), Self::parsed(value)))
                    .collect(),
            ),
            Repr::Indexed(text, members) => {
                let mut members: Vec<(Cow<'a, str>, Self)> = members
                    .iter()
                    .map(|member| {
                        (
                            Cow::Borrowed(member.key(text)),
                            Self::text(member.value(text)),
                        )
                    })
                    .collect();
                members.sort_unstable_by(|(a, _), (b, _)| a.cmp(b));
                Some(members)
            }
            Repr::Text(text) => {
                if first_byte(text) != Some(b'{') {
                    return None;
                }
                let mut de = serde_json::Deserializer::from_str(text);
                let mut members = de.deserialize_map(Members).ok()?;
                // A stable sort keeps a key's values in text order: the last one wins.
                members.sort_by(|(a, _), (b, _)| a.cmp(b));
                let mut kept: Vec<(Cow<'a, str>, Self)> = Vec::with_capacity(members.len());
                for (key, value) in members {
                    match kept.last_mut() {
                        Some(last) if last.0 == key => last.1 = Self::text(value.get()),
                        _ => kept.push((key, Self::text(value.get()))),
                    }
                }
                Some(kept)
            }
        }
    }

    /// The text of the number, when this is a number: as the trace wrote it when it is read
    /// from text, so that it compares by its exact value ([`Decimal`](crate::Decimal)).
    pub fn number_text(self) -> Option<Cow<'a, str>> {
        match self.0 {
            Repr::Parsed(Value::Number(number)) => Some(Cow::Owned(number.to_string())),
            Repr::Parsed(_) | Repr::Indexed(..) => None,
            Repr::Text(text) => {
                let text = text.trim_matches(|c: char| c.is_ascii_whitespace());
                matches!(text.as_bytes().first(), Some(b'-' | b'0'..=b'9'))
                    .then_some(Cow::Borrowed(text))
            }
        }
    }

    /// Whether this is an object.
    pub fn is_object(self) -> bool {
        match self.0 {
            Repr::Parsed(value) => value.is_object(),
            Repr::Indexed(..) => true,
            Repr::Text(text) => first_byte(text) == Some(b'{'),
        }
    }

    /// The string, when this is a string; borrowed from the text unless it has escapes.
    pub fn as_str(self) -> Option<Cow<'a, str>> {
        match self.0 {
            Repr::Parsed(value) => value.as_str().map(Cow::Borrowed),
            Repr::Indexed(..) => None,
            Repr::Text(text) => {
                if let Some(inner) = unescaped_string(text) {
                    return Some(Cow::Borrowed(inner));
                }
                if first_byte(text) != Some(b'"') {
                    return None;
                }
                let mut de = serde_json::Deserializer::from_str(text);
                de.deserialize_str(CowStr).ok().map(|CowText(text)| text)
            }
        }
    }

    /// Compact JSON with object keys sorted (`{"a":1,"b":[true,null]}`), whatever order
    /// and spacing the trace wrote: `serde_json`'s compact form of the parsed value. Text
    /// already in that form is returned as it is.
    pub fn canonical_json(self) -> Cow<'a, str> {
        match self.0 {
            Repr::Parsed(value) => Cow::Owned(canonical_json(value)),
            Repr::Text(text) | Repr::Indexed(text, _)
                if is_canonical(text.as_bytes(), Numbers::AsWritten) =>
            {
                Cow::Borrowed(text)
            }
            Repr::Text(text) | Repr::Indexed(text, _) => Cow::Owned(canonical_json(&parse(text))),
        }
    }

    /// A text that two values share exactly when they are equal as call arguments
    /// ([`args_equal`]): the [canonical JSON](Self::canonical_json), with each number
    /// written by its value (`1`, `1.0` and `1e0` all as `1`; `-0` as `0`). Text already
    /// canonical is returned as it is: its numbers are plain integers of at most 18
    /// digits, which is how this writes every integer of that size.
    ///
    /// It lets a grader find equal arguments by a map lookup instead of comparing each
    /// call with every earlier one.
    pub fn equality_key(self) -> Cow<'a, str> {
        match self.0 {
            Repr::Parsed(value) => Cow::Owned(equality_key(value)),
            Repr::Text(text) | Repr::Indexed(text, _)
                if is_canonical(text.as_bytes(), Numbers::Key) =>
            {
                Cow::Borrowed(text)
            }
            Repr::Text(text) | Repr::Indexed(text, _) => Cow::Owned(equality_key(&parse(text))),
        }
    }

    /// A string as it is, anything else as [canonical JSON](Self::canonical_json): what a
    /// `result` pattern is searched in.
    pub fn match_text(self) -> Cow<'a, str> {
        self.as_str().unwrap_or_else(|| self.canonical_json())
    }

    /// The parsed value: borrowed when it is parsed already.
    pub fn to_value(self) -> Cow<'a, Value> {
        match self.0 {
            Repr::Parsed(value) => Cow::Borrowed(value),
            Repr::Text(text) | Repr::Indexed(text, _) => Cow::Owned(parse(text)),
        }
    }

    /// Whether the value equals `expected` as call arguments do ([`args_equal`]), read
    /// from the text in one pass that stops comparing at the first difference.
    pub fn equals(self, expected: &Value) -> bool {
        match self.0 {
            Repr::Parsed(value) => args_equal(expected, value),
            Repr::Indexed(text, members) => {
                let Some(expected) = expected.as_object() else {
                    return false;
                };
                let equal = |member: &Member| {
                    expected
                        .get(member.key(text))
                        .is_some_and(|expected| Self::text(member.value(text)).equals(expected))
                };
                let nested = |member: &&Member| {
                    matches!(member.value(text).as_bytes().first(), Some(b'{' | b'['))
                };
                // Members that compare in place first: a difference there is found without
                // reading a nested value.
                members.len() == expected.len()
                    && members.iter().filter(|member| !nested(member)).all(equal)
                    && members.iter().filter(nested).all(equal)
            }
            Repr::Text(text) => {
                // A string without escapes, as most are, compares as it is.
                if let (Some(inner), Value::String(expected)) = (unescaped_string(text), expected) {
                    return inner == expected;
                }
                // So does a number, by its text.
                if let Value::Number(expected) = expected {
                    return number_equals_text(expected, text.trim());
                }
                let mut de = serde_json::Deserializer::from_str(text);
                match EqualTo(expected).deserialize(&mut de) {
                    Ok(Verdict::Equal) => true,
                    Ok(Verdict::Unequal) => false,
                    // A key written twice: the parse keeps the last, so compare the parse.
                    Ok(Verdict::Undecided) | Err(_) => args_equal(expected, &parse(text)),
                }
            }
        }
    }
}

/// A value as a pattern sees it: a string as it is, anything else as compact JSON with
/// sorted keys (`{"a":1,"b":[true,null]}`). What `tool-calls` searches a `result` in.
pub fn result_text(value: &Value) -> String {
    ValueRef::parsed(value).match_text().into_owned()
}

impl fmt::Debug for ValueRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.to_value(), f)
    }
}

impl PartialEq for ValueRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.to_value() == other.to_value()
    }
}

/// Compact JSON with sorted keys: `serde_json`'s own compact form, since its `Map` is a
/// `BTreeMap` as long as nothing in the build enables its `preserve_order` feature (the
/// tests of this module would catch that).
pub(crate) fn canonical_json(value: &Value) -> String {
    // Writing a `Value` cannot fail: its keys are strings.
    serde_json::to_string(value).unwrap_or_default()
}

/// Text kept as a value always parses; `Null` is never reached.
/// [`ValueRef::equality_key`] of a parsed value: compact, keys sorted (`serde_json`'s `Map`
/// is a `BTreeMap`), strings as `serde_json` writes them, numbers by [`number_key`].
fn equality_key(value: &Value) -> String {
    fn write(value: &Value, out: &mut String) {
        match value {
            Value::Number(number) => number_key(&number.to_string(), out),
            Value::Array(items) => {
                out.push('[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    write(item, out);
                }
                out.push(']');
            }
            Value::Object(members) => {
                out.push('{');
                for (index, (key, item)) in members.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    out.push_str(&canonical_json(&Value::String(key.clone())));
                    out.push(':');
                    write(item, out);
                }
                out.push('}');
            }
            Value::Null | Value::Bool(_) | Value::String(_) => out.push_str(&canonical_json(value)),
        }
    }
    let mut out = String::new();
    write(value, &mut out);
    out
}

/// A number written by its exact value ([`Decimal`]), so that equal numbers get one text:
/// an integer of at most 18 digits plainly (`-120`, and `0` for any zero), as canonical
/// JSON writes it; any other value as `±0.<significant digits>e<point>`, which no plain
/// integer looks like, the point exactly whatever its size (`0.1e1000000000000000001`).
/// Text [`Decimal`] does not read, which is no JSON number, is written as it is.
fn number_key(text: &str, out: &mut String) {
    let Some(decimal) = Decimal::parse(text) else {
        out.push_str(text);
        return;
    };
    if decimal.is_zero() {
        out.push('0');
        return;
    }
    if decimal.is_negative() {
        out.push('-');
    }
    let digits = decimal.digits().count();
    match decimal.point() {
        Some(point) if decimal.is_integer() && point <= 18 => {
            out.extend(decimal.digits().map(char::from));
            // `point` is at most 18 and at least the digits' count here.
            let zeros = usize::try_from(point).unwrap_or(0).saturating_sub(digits);
            out.extend(std::iter::repeat_n('0', zeros));
        }
        _ => {
            out.push_str("0.");
            out.extend(decimal.digits().map(char::from));
            out.push('e');
            decimal.write_point(out);
        }
    }
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// The contents of JSON text that is a string without escapes, as most are: read as they
/// stand. The quote and backslash are searched a word at a time.
fn unescaped_string(text: &str) -> Option<&str> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    (string_stop(inner.as_bytes(), 0, false) == inner.len()).then_some(inner)
}

fn first_byte(text: &str) -> Option<u8> {
    text.bytes().find(|byte| !byte.is_ascii_whitespace())
}

/// How [`is_canonical`] takes the numbers of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Numbers {
    /// As [`ValueRef::equality_key`] writes them: integers of at most 18 digits (which
    /// parse and print back as they are; `-0` does not).
    Key,
    /// As [`canonical_json`] writes them: `serde_json` keeps each number's text
    /// (`arbitrary_precision`), but writes an exponent as `e` and a sign, `1E5` as `1e+5`.
    AsWritten,
}

/// Whether JSON text is already what [`canonical_json`] writes for it (and, with
/// [`Numbers::Key`], what [`ValueRef::equality_key`] does): no space outside strings,
/// strings without escapes, numbers as `numbers` takes them, and the keys of every object
/// in strictly increasing byte order (so none twice). Anything else, which may or may not
/// be canonical, answers `false`, and the caller writes the parse.
fn is_canonical(bytes: &[u8], numbers: Numbers) -> bool {
    /// How deep the text may nest to be looked at; deeper text answers `false`.
    const DEPTH: usize = 32;
    // For each open array or object: whether it is an object, and where the last key read
    // in it is.
    let mut open: [(bool, Option<(usize, usize)>); DEPTH] = [(false, None); DEPTH];
    let mut depth = 0_usize;
    // Whether the next string is a key: just after `{` or after a `,` in an object.
    let mut expect_key = false;
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'"' => {
                let start = at + 1;
                let end = string_stop(bytes, start, false);
                if bytes.get(end) != Some(&b'"') {
                    return false;
                }
                if expect_key {
                    let Some((_, last)) = depth.checked_sub(1).and_then(|top| open.get_mut(top))
                    else {
                        return false;
                    };
                    // Keys in strictly increasing order, so none twice.
                    if let Some((from, to)) = *last
                        && bytes[from..to] >= bytes[start..end]
                    {
                        return false;
                    }
                    *last = Some((start, end));
                    expect_key = false;
                }
                at = end + 1;
            }
            b'{' | b'[' => {
                let Some(slot) = open.get_mut(depth) else {
                    return false;
                };
                *slot = (byte == b'{', None);
                depth += 1;
                expect_key = byte == b'{';
                at += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                at += 1;
            }
            b',' => {
                expect_key = depth
                    .checked_sub(1)
                    .and_then(|top| open.get(top))
                    .is_some_and(|&(object, _)| object);
                at += 1;
            }
            b':' => at += 1,
            b'-' | b'0'..=b'9' => match number_as_written(bytes, at, numbers) {
                Some(end) => at = end,
                None => return false,
            },
            b't' | b'f' | b'n' => {
                at += bytes[at..]
                    .iter()
                    .take_while(|b| b.is_ascii_lowercase())
                    .count();
            }
            // Space between tokens, which the compact form has none of.
            _ => return false,
        }
    }
    true
}

/// Where the number of JSON text that starts at `start` ends, when it is written as
/// `numbers` writes it; `None` otherwise.
fn number_as_written(bytes: &[u8], start: usize, numbers: Numbers) -> Option<usize> {
    let negative = bytes.get(start) == Some(&b'-');
    let at = start + usize::from(negative);
    let digits = bytes
        .get(at..)?
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 {
        return None;
    }
    let end = at + digits;
    match numbers {
        Numbers::Key => {
            let leading_zero = digits > 1 && bytes[at] == b'0';
            let negative_zero = negative && digits == 1 && bytes[at] == b'0';
            let fraction = matches!(bytes.get(end), Some(b'.' | b'e' | b'E'));
            (digits <= 18 && !leading_zero && !negative_zero && !fraction).then_some(end)
        }
        Numbers::AsWritten => {
            // The text is JSON: past the integer, a fraction's digits, then an exponent's
            // marker, sign and digits.
            let rest = bytes[end..]
                .iter()
                .take_while(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
                .count();
            let token = &bytes[end..end + rest];
            let exponent = memchr::memchr2(b'e', b'E', token).map(|marker| &token[marker..]);
            let kept = exponent.is_none_or(|e| e.starts_with(b"e+") || e.starts_with(b"e-"));
            kept.then_some(end + rest)
        }
    }
}

/// A string, borrowed from the text when it has no escapes.
pub(crate) struct CowText<'a>(pub(crate) Cow<'a, str>);

/// Reads a [`CowText`].
struct CowStr;

impl<'de> Visitor<'de> for CowStr {
    type Value = CowText<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(CowText(Cow::Borrowed(text)))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(CowText(Cow::Owned(text.to_owned())))
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<Self::Value, E> {
        Ok(CowText(Cow::Owned(text)))
    }
}

impl<'de> de::Deserialize<'de> for CowText<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(CowStr)
    }
}

/// Finds the text of one member of an object, skipping the others.
struct FindMember<'k>(&'k str);

impl<'de> Visitor<'de> for FindMember<'_> {
    type Value = Option<&'de RawValue>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(CowText(key)) = map.next_key()? {
            if key == self.0 {
                // The parse keeps the last of a key written twice.
                found = Some(map.next_value::<&RawValue>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// Reads every member of an object as text, in text order.
struct Members;

impl<'de> Visitor<'de> for Members {
    type Value = Vec<(Cow<'de, str>, &'de RawValue)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::new();
        while let Some(CowText(key)) = map.next_key()? {
            members.push((key, map.next_value::<&RawValue>()?));
        }
        Ok(members)
    }
}

/// What comparing text with an expected value found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Equal,
    Unequal,
    /// An object of the text names a key twice; only the parse can tell.
    Undecided,
}

impl Verdict {
    fn of(equal: bool) -> Self {
        if equal { Self::Equal } else { Self::Unequal }
    }
}

/// Compares the value read with an expected one, as [`args_equal`] does.
struct EqualTo<'e>(&'e Value);

impl<'de> DeserializeSeed<'de> for EqualTo<'_> {
    type Value = Verdict;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Verdict, D::Error> {
        // A number is compared by its text, exactly: the parser would hand over a float.
        if let Value::Number(expected) = self.0 {
            let read = <&RawValue>::deserialize(deserializer)?;
            return Ok(Verdict::of(number_equals_text(expected, read.get())));
        }
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for EqualTo<'_> {
    type Value = Verdict;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Verdict, E> {
        Ok(Verdict::of(self.0.is_null()))
    }

    fn visit_bool<E: de::Error>(self, read: bool) -> Result<Verdict, E> {
        Ok(Verdict::of(self.0.as_bool() == Some(read)))
    }

    fn visit_i64<E: de::Error>(self, read: i64) -> Result<Verdict, E> {
        Ok(self.number(&Number::from(read)))
    }

    fn visit_u64<E: de::Error>(self, read: u64) -> Result<Verdict, E> {
        Ok(self.number(&Number::from(read)))
    }

    fn visit_f64<E: de::Error>(self, read: f64) -> Result<Verdict, E> {
        Ok(Number::from_f64(read).map_or(Verdict::Unequal, |read| self.number(&read)))
    }

    fn visit_str<E: de::Error>(self, read: &str) -> Result<Verdict, E> {
        Ok(Verdict::of(self.0.as_str() == Some(read)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Verdict, A::Error> {
        let Some(expected) = self.0.as_array() else {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(Verdict::Unequal);
        };
        let mut verdict = Verdict::Equal;
        let mut count = 0;
        loop {
            let element = match expected.get(count) {
                Some(item) if verdict != Verdict::Unequal => {
                    seq.next_element_seed(EqualTo(item))?
                }
                _ => seq.next_element::<IgnoredAny>()?.map(|_| Verdict::Unequal),
            };
            let Some(element) = element else { break };
            verdict = verdict.and(element);
            count += 1;
        }
        Ok(if count == expected.len() {
            verdict
        } else {
            Verdict::Unequal
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Verdict, A::Error> {
        let Some(expected) = self.0.as_object() else {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            return Ok(Verdict::Unequal);
        };
        // Which expected keys were read, by their position in the expected object.
        let mut seen = vec![false; expected.len()];
        let mut twice = false;
        let mut verdict = Verdict::Equal;
        while let Some(CowText(key)) = map.next_key()? {
            let member = match expected.keys().position(|name| *name == key) {
                Some(position) if seen[position] => {
                    twice = true;
                    None
                }
                Some(position) => {
                    seen[position] = true;
                    expected.get(&*key)
                }
                None => None,
            };
            let read = match member {
                Some(member) if verdict != Verdict::Unequal => {
                    map.next_value_seed(EqualTo(member))?
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    Verdict::Unequal
                }
            };
            verdict = verdict.and(read);
        }
        // The parse keeps the last of a key written twice, which an earlier difference
        // may not be about.
        Ok(if twice {
            Verdict::Undecided
        } else if seen.iter().all(|&seen| seen) {
            verdict
        } else {
            Verdict::Unequal
        })
    }
}

/// Whether the JSON text `read` (any value) is the number `expected`, by exact value.
fn number_equals_text(expected: &Number, read: &str) -> bool {
    if let (Some(expected), Ok(read)) = (expected.as_i64(), read.parse::<i64>()) {
        return expected == read;
    }
    number_texts_equal(&expected.to_string(), read)
}

impl EqualTo<'_> {
    fn number(&self, read: &Number) -> Verdict {
        Verdict::of(matches!(self.0, Value::Number(expected) if numbers_equal(expected, read)))
    }
}

impl Verdict {
    /// Both parts: unequal if either is, undecided if either is and neither is unequal.
    fn and(self, other: Self) -> Self {
        match (self, other) {
            (Self::Unequal, _) | (_, Self::Unequal) => Self::Unequal,
            (Self::Undecided, _) | (_, Self::Undecided) => Self::Undecided,
            _ => Self::Equal,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
