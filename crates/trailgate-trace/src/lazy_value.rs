//! A call's arguments or result: the JSON text as the trace wrote it, parsed into a
//! [`Value`] the first time something looks at it, or a `Value` built by a format adapter.
//!
//! Most calls' arguments are never looked at (a grader reads them only for calls whose tool
//! it is about), so trailgate's own shape keeps them as text and the parse of a trace costs
//! little more than checking its syntax. What the text holds is checked when it is kept, so
//! that the later parse cannot fail: see [`Kept::of`].

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::error::MAX_NESTING_DEPTH;
use crate::json_scan::skip_string;
use crate::value_ref::{Member, ValueRef};

/// How deep a value kept as text may nest: 123 levels.
///
/// Trailgate's own shapes put a call's values at most four levels down (the document, its
/// `tool_calls` or `events` list, the entry, and an event's `data`), so a value within this
/// depth is one the document parser would have accepted as a [`Value`] too, and it is
/// within [`MAX_VALUE_DEPTH`](crate::MAX_VALUE_DEPTH). Deeper text is not kept: the document
/// is parsed again into `Value`s, which gives the error, or the value, exactly as before.
pub(crate) const MAX_TEXT_DEPTH: usize = MAX_NESTING_DEPTH - 4;

/// The longest number kept as text, in bytes, and the most digits of its exponent: a number
/// within both is far from the range of an `f64`, which is the only way a number the
/// syntax allows can fail to parse. Longer ones are parsed when kept.
const MAX_TEXT_NUMBER: usize = 64;
const MAX_TEXT_EXPONENT_DIGITS: usize = 2;

/// A call's arguments or result, parsed on first use.
///
/// Built from a [`Value`] (`LazyValue::from(value)`), or, by trailgate's own trace shape,
/// from the JSON text as read, which [`LazyValue::get`] parses once and keeps. Equality is
/// that of the parsed values, and `Debug` shows the parsed value. It is `Send` and `Sync`:
/// a run can be scored on another thread than the one that read it.
#[derive(Clone)]
pub struct LazyValue(Repr);

#[derive(Clone)]
enum Repr {
    /// JSON text that [`Kept::of`] found plain, its value once parsed, and the index of
    /// its members once looked into.
    Text {
        text: SharedText,
        value: OnceLock<Value>,
        index: MemberIndex,
        /// Whether the reader found the text written as [`ValueRef::equality_key`] writes
        /// it, so that the text is its own key; `false` when it did not look.
        canonical: bool,
    },
    /// A value built already.
    Value(Value),
}

/// The index of an object's members: gathered by the reader as it read the text, or found
/// on the first look. The reader's is held as is rather than set into a `OnceLock`, whose
/// setting is a synchronised step the reader would take for every call's arguments.
#[derive(Clone)]
enum MemberIndex {
    /// Gathered as the text was read.
    Read(Box<[Member]>),
    /// Found on the first look: `None` inside when the text is not an object.
    Found(OnceLock<Option<Box<[Member]>>>),
}

impl MemberIndex {
    /// The index, finding it in `text` if it was not yet.
    fn get_or_find(&self, text: &str) -> Option<&[Member]> {
        match self {
            Self::Read(members) => Some(members),
            Self::Found(found) => found.get_or_init(|| Member::index(text)).as_deref(),
        }
    }

    /// The index, when it is known already.
    fn get(&self) -> Option<&[Member]> {
        match self {
            Self::Read(members) => Some(members),
            Self::Found(found) => found.get().and_then(Option::as_deref),
        }
    }
}

impl LazyValue {
    /// A value built already.
    pub fn new(value: Value) -> Self {
        Self(Repr::Value(value))
    }

    /// Keeps a copy of JSON text as [`Kept::of`] says: as text, to be parsed on first use,
    /// or parsed; `None` when it is refused.
    #[cfg(test)]
    pub(crate) fn from_text(text: &serde_json::value::RawValue) -> Option<Self> {
        let text = text.get();
        match Kept::of(text) {
            Kept::Text => {
                Self::from_plain_shared(&Arc::new(text.to_owned()), 0..text.len(), None, false)
            }
            Kept::Parsed(value) => Some(Self::new(value)),
            Kept::Refused => None,
        }
    }

    /// Keeps the JSON text at `range` in `source`, which [`Kept::of`] found plain, to be
    /// parsed on first use: it shares `source` with the other values read from it rather
    /// than copying the text. `index` is the index of its members when the reader gathered
    /// it as it read the text (what [`Member::index`] gives of it); it is found on the first
    /// look otherwise. `None` when `range` is not within `source`.
    pub(crate) fn from_plain_shared(
        source: &Arc<String>,
        range: Range<usize>,
        index: Option<Box<[Member]>>,
        canonical: bool,
    ) -> Option<Self> {
        Some(Self(Repr::Text {
            text: SharedText::new(source, range)?,
            value: OnceLock::new(),
            index: index.map_or_else(|| MemberIndex::Found(OnceLock::new()), MemberIndex::Read),
            canonical,
        }))
    }

    /// The value's [equality key](ValueRef::equality_key): the text itself, without looking
    /// at it again, when the reader found it canonical as it read it.
    pub fn equality_key(&self) -> Cow<'_, str> {
        match self.canonical_text() {
            Some(text) => Cow::Borrowed(text),
            None => self.view().equality_key(),
        }
    }

    /// The text, when the reader found it written as its own [equality
    /// key](ValueRef::equality_key) as it read it: two such values are equal as call
    /// arguments exactly when their texts are.
    pub fn canonical_text(&self) -> Option<&str> {
        match &self.0 {
            Repr::Text {
                text,
                canonical: true,
                ..
            } => Some(text.get()),
            _ => None,
        }
    }

    /// Whether the reader found the text canonical as it read it.
    #[cfg(test)]
    pub(crate) fn read_as_canonical(&self) -> bool {
        self.canonical_text().is_some()
    }

    /// The value, parsed on the first call.
    pub fn get(&self) -> &Value {
        match &self.0 {
            Repr::Value(value) => value,
            Repr::Text { text, value, .. } => value.get_or_init(|| {
                // Only text that `Kept::of` found plain is kept; `Null` is never reached.
                serde_json::from_str(text.get()).unwrap_or(Value::Null)
            }),
        }
    }

    /// A view that answers from the parsed value when there is one, and reads the text
    /// otherwise, without parsing it: looking up a member, reading a string or comparing
    /// with an expected value then costs one pass over the text and no allocation.
    pub fn view(&self) -> ValueRef<'_> {
        match &self.0 {
            Repr::Value(value) => ValueRef::parsed(value),
            Repr::Text {
                text, value, index, ..
            } => {
                if let Some(value) = value.get() {
                    return ValueRef::parsed(value);
                }
                let text = text.get();
                match index.get_or_find(text) {
                    Some(members) => ValueRef::indexed(text, members),
                    None => ValueRef::text(text),
                }
            }
        }
    }

    /// [`view`](Self::view), without indexing an object's members first: for a value read
    /// whole, as [`ValueRef::match_text`] reads it, where the index would go unused. An
    /// index made already, or the parsed value, is used.
    pub fn whole_view(&self) -> ValueRef<'_> {
        match &self.0 {
            Repr::Value(value) => ValueRef::parsed(value),
            Repr::Text {
                text, value, index, ..
            } => match (value.get(), index.get()) {
                (Some(value), _) => ValueRef::parsed(value),
                (None, Some(members)) => ValueRef::indexed(text.get(), members),
                (None, _) => ValueRef::text(text.get()),
            },
        }
    }

    /// The value, parsed if it was not yet.
    pub fn into_value(self) -> Value {
        match self.0 {
            Repr::Value(value) => value,
            Repr::Text { text, value, .. } => match value.into_inner() {
                Some(value) => value,
                None => serde_json::from_str(text.get()).unwrap_or(Value::Null),
            },
        }
    }

    /// Whether the index of members held, if any, is the one [`Member::index`] finds in the
    /// text: for tests of readers that gather it as they read.
    #[cfg(test)]
    pub(crate) fn index_is_the_texts(&self) -> bool {
        match &self.0 {
            Repr::Value(_) => true,
            Repr::Text { text, index, .. } => match index {
                MemberIndex::Read(members) => Some(members.clone()) == Member::index(text.get()),
                MemberIndex::Found(found) => found
                    .get()
                    .is_none_or(|found| *found == Member::index(text.get())),
            },
        }
    }

    /// Whether the value has been parsed (or was built already): for tests and benchmarks
    /// that check what reading and scoring parse.
    pub fn is_parsed(&self) -> bool {
        match &self.0 {
            Repr::Value(_) => true,
            Repr::Text { value, .. } => value.get().is_some(),
        }
    }

    /// Whether the value nests more than `limit` arrays and objects. Text is scanned, not
    /// parsed; text kept as text ([`Kept::Text`]) is known to be within
    /// [`MAX_TEXT_DEPTH`].
    pub(crate) fn nests_deeper_than(&self, limit: usize) -> bool {
        match &self.0 {
            Repr::Value(value) => value_depth(value) > limit,
            Repr::Text { .. } if limit >= MAX_TEXT_DEPTH => false,
            Repr::Text { text, .. } => text_depth(text.get().as_bytes()) > limit,
        }
    }
}

/// How a value's JSON text is kept. Text is kept only when it surely parses into a
/// [`Value`] (what the syntax check of [`RawValue`](serde_json::value::RawValue) lets
/// through may not: a lone UTF-16 surrogate in a `\u` escape, a number out of range), so
/// that reading it later cannot fail.
pub(crate) enum Kept {
    /// As text: it parses, within [`MAX_TEXT_DEPTH`].
    Text,
    /// Parsed already: a number that might be out of range was in it, and it parsed.
    Parsed(Value),
    /// Not at all: it nests deeper than [`MAX_TEXT_DEPTH`], or it does not parse.
    Refused,
}

impl Kept {
    /// How the JSON text of one value, whose syntax is valid, is kept.
    pub(crate) fn of(text: &str) -> Self {
        let bytes = text.as_bytes();
        let found = if surely_plain(bytes) {
            Scan::Plain
        } else {
            scan(bytes)
        };
        match found {
            Scan::Plain => Self::Text,
            Scan::Unsure => serde_json::from_str(text).map_or(Self::Refused, Self::Parsed),
            Scan::TooDeep => Self::Refused,
        }
    }
}

/// JSON text shared with the other values read from the same text: where it is in that
/// text.
#[derive(Clone)]
struct SharedText {
    source: Arc<String>,
    start: usize,
    end: usize,
}

impl SharedText {
    fn new(source: &Arc<String>, range: Range<usize>) -> Option<Self> {
        source.get(range.clone())?;
        Some(Self {
            source: Arc::clone(source),
            start: range.start,
            end: range.end,
        })
    }

    fn get(&self) -> &str {
        self.source.get(self.start..self.end).unwrap_or_default()
    }
}

impl From<Value> for LazyValue {
    fn from(value: Value) -> Self {
        Self::new(value)
    }
}

impl PartialEq for LazyValue {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl PartialEq<Value> for LazyValue {
    fn eq(&self, other: &Value) -> bool {
        self.get() == other
    }
}

impl fmt::Debug for LazyValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.get(), f)
    }
}

/// How many arrays and objects nest in `value` (0 for a scalar), without recursion.
pub(crate) fn value_depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0)];
    while let Some((value, level)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        deepest = deepest.max(level + 1);
        stack.extend(children.map(|child| (child, level + 1)));
    }
    deepest
}

/// What [`scan`] found in JSON text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scan {
    /// Within [`MAX_TEXT_DEPTH`], and it parses into a [`Value`].
    Plain,
    /// Within the depth, but it may not parse: a surrogate escape that is not a pair, or a
    /// number long enough to be out of range.
    Unsure,
    /// Deeper than [`MAX_TEXT_DEPTH`].
    TooDeep,
}

/// The digits a text may hold, with no exponent, to be surely within the range of an `f64`
/// (a number out of range has at least 309 digits before its decimal point).
const MAX_PLAIN_DIGITS: usize = 300;

/// Whether text is plain for certain, by counting bytes without branches, which the
/// compiler vectorizes: at most [`MAX_TEXT_DEPTH`] opening brackets (in strings or not), no
/// backslash (so no `\u` escape), no exponent (an `e` or `E` followed by a digit or a
/// sign, in strings or not), and at most [`MAX_PLAIN_DIGITS`] digits. Most arguments are;
/// the others are [`scan`]ned.
fn surely_plain(bytes: &[u8]) -> bool {
    // Counted in blocks short enough for the counts of a block to fit in a byte each.
    const BLOCK: usize = 128;
    let Some((&first, rest)) = bytes.split_first() else {
        return true;
    };
    let is_open = |byte: u8| u8::from(byte == b'[' || byte == b'{');
    let is_digit = |byte: u8| u8::from(byte.wrapping_sub(b'0') < 10);
    let mut refused = u8::from(first == b'\\');
    if bytes.len() < 2 * (MAX_TEXT_DEPTH + 1) && bytes.len() <= MAX_PLAIN_DIGITS {
        // Too short to nest too deep (each level takes two brackets) or to hold too many
        // digits, as most arguments are: only escapes and exponents are looked for.
        for (&before, &byte) in bytes.iter().zip(rest) {
            let signed = is_digit(byte) | u8::from(byte == b'+') | u8::from(byte == b'-');
            refused |= u8::from(byte == b'\\') | (u8::from((before | 0x20) == b'e') & signed);
        }
        return refused == 0;
    }
    let (mut opens, mut digits) = (usize::from(is_open(first)), usize::from(is_digit(first)));
    for (before, block) in bytes.chunks(BLOCK).zip(rest.chunks(BLOCK)) {
        let (mut block_opens, mut block_digits) = (0_u8, 0_u8);
        for (&before, &byte) in before.iter().zip(block) {
            block_opens += is_open(byte);
            block_digits += is_digit(byte);
            let signed = is_digit(byte) | u8::from(byte == b'+') | u8::from(byte == b'-');
            refused |= u8::from(byte == b'\\') | (u8::from((before | 0x20) == b'e') & signed);
        }
        opens += usize::from(block_opens);
        digits += usize::from(block_digits);
    }
    opens <= MAX_TEXT_DEPTH && digits <= MAX_PLAIN_DIGITS && refused == 0
}

/// One linear pass over JSON text whose syntax is valid (as a [`RawValue`](serde_json::value::RawValue) is): the nesting
/// of brackets outside strings, and what a [`Value`] parse could refuse.
fn scan(bytes: &[u8]) -> Scan {
    let mut depth = 0_usize;
    let mut unsure = false;
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        at += 1;
        match byte {
            b'"' => at = skip_string(bytes, at, &mut unsure),
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_TEXT_DEPTH {
                    return Scan::TooDeep;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'-' | b'0'..=b'9' => {
                let start = at - 1;
                while let Some(b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') = bytes.get(at) {
                    at += 1;
                }
                unsure |= !plain_number(bytes.get(start..at).unwrap_or_default());
            }
            _ => {}
        }
    }
    if unsure { Scan::Unsure } else { Scan::Plain }
}

/// How deep JSON text nests, by the same pass as [`scan`] without its limit.
fn text_depth(bytes: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0_usize, 0);
    let mut unsure = false;
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        at += 1;
        match byte {
            b'"' => at = skip_string(bytes, at, &mut unsure),
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Whether a number token is short enough, with a short enough exponent, to be within the
/// range of an `f64` for certain.
pub(crate) fn plain_number(token: &[u8]) -> bool {
    if token.len() > MAX_TEXT_NUMBER {
        return false;
    }
    match token.iter().position(|&byte| matches!(byte, b'e' | b'E')) {
        None => true,
        Some(e) => {
            let digits = token
                .get(e + 1..)
                .unwrap_or_default()
                .iter()
                .filter(|byte| byte.is_ascii_digit())
                .count();
            digits <= MAX_TEXT_EXPONENT_DIGITS
        }
    }
}

#[cfg(test)]
mod tests;
