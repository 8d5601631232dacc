//! Reading token usage and times out of the formats' records: token counts checked as whole
//! numbers of 64 bits, usage added per model, RFC 3339 and epoch timestamps as nanoseconds
//! (docs/formats.md#usage-and-time).

use serde_json::Value;

use crate::formats::RecordError;
use crate::model::{Interval, Tokens, Usage};

/// The model a response's usage is counted under when the record does not name its model.
/// An empty name sorts first and no real model has it; a `prices:` table can still name it
/// as `""` (docs/formats.md#usage-and-time).
pub(crate) const UNNAMED_MODEL: &str = "";

/// The token count at `key` of `usage`: `None` when absent or `null`; an error naming the
/// field when it is not a whole number from 0 to 2^64 - 1.
pub(crate) fn count(usage: &Value, key: &str) -> Result<Option<u64>, RecordError> {
    count_of(key, usage.get(key))
}

/// The token count `value`, found at `key`: [`count`] of a value already looked up.
pub(crate) fn count_of(key: &str, value: Option<&Value>) -> Result<Option<u64>, RecordError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(number)) => number
            .as_u64()
            .map(Some)
            .ok_or_else(|| RecordError::Shape(bad_count(key, number))),
        Some(other) => Err(RecordError::Shape(bad_count(key, other))),
    }
}

/// The message for a token count `key` that is `shown`, which is not a whole number from 0
/// to 2^64 - 1.
pub(crate) fn bad_count(key: &str, shown: impl std::fmt::Display) -> String {
    format!(
        "the token count `{key}` is {shown}: a token count is a whole number from 0 to \
         18446744073709551615"
    )
}

/// The first of the counts at `keys` that `usage` records.
pub(crate) fn first_count(usage: &Value, keys: &[&str]) -> Result<Option<u64>, RecordError> {
    for key in keys {
        if let Some(found) = count(usage, key)? {
            return Ok(Some(found));
        }
    }
    Ok(None)
}

/// Tokens read from a usage object: input (counting cached ones) from `input`, plus, when
/// `cached_apart`, the cached tokens that the format counts apart from its input (Anthropic's
/// `cache_read_input_tokens` and `cache_creation_input_tokens`); output from `output`;
/// cached input from `cached`. `None` when the object records neither input nor output.
pub(crate) fn tokens(
    usage: &Value,
    input: &[&str],
    output: &[&str],
    cached: Option<&Value>,
    cached_keys: &[&str],
) -> Result<Option<Tokens>, RecordError> {
    let read_input = first_count(usage, input)?;
    let read_output = first_count(usage, output)?;
    let cached_input = match cached {
        Some(cached) => first_count(cached, cached_keys)?,
        None => None,
    };
    Ok(tokens_of(read_input, read_output, cached_input))
}

/// The tokens of counts already read: `None` when neither input nor output is recorded (a
/// total alone does not say which is which).
pub(crate) fn tokens_of(
    input: Option<u64>,
    output: Option<u64>,
    cached_input: Option<u64>,
) -> Option<Tokens> {
    if input.is_none() && output.is_none() {
        return None;
    }
    Some(Tokens {
        input: input.unwrap_or(0),
        output: output.unwrap_or(0),
        cached_input,
    })
}

/// The tokens of a usage record of Gemini's kind, the keys of each count given: input
/// counting the cached ones (recorded beside it), and output with the thinking tokens, which
/// Gemini bills as output but counts apart (`thoughtsTokenCount`). `None` when it records
/// neither input nor output.
pub(crate) fn thinking_tokens(
    usage: &Value,
    input: &[&str],
    output: &[&str],
    cached: &[&str],
    thoughts: &[&str],
) -> Result<Option<Tokens>, RecordError> {
    let Some(mut tokens) = self::tokens(usage, input, output, Some(usage), cached)? else {
        return Ok(None);
    };
    let thoughts = first_count(usage, thoughts)?;
    tokens.output = tokens.output.saturating_add(thoughts.unwrap_or(0));
    Ok(Some(tokens))
}

/// Adds one response's tokens to `usage` under `model` (or [`UNNAMED_MODEL`]); sums saturate
/// at 2^64 - 1, which no real run reaches.
pub(crate) fn add(usage: &mut Usage, model: Option<&str>, tokens: Tokens) {
    let entry = usage
        .models
        .entry(model.unwrap_or(UNNAMED_MODEL).to_owned())
        .or_default();
    add_tokens(entry, tokens);
}

/// Adds `more` to `sum`, saturating; cached input stays unknown until a response records it.
pub(crate) fn add_tokens(sum: &mut Tokens, more: Tokens) {
    sum.input = sum.input.saturating_add(more.input);
    sum.output = sum.output.saturating_add(more.output);
    sum.cached_input = match (sum.cached_input, more.cached_input) {
        (None, None) => None,
        (sum, more) => Some(sum.unwrap_or(0).saturating_add(more.unwrap_or(0))),
    };
}

/// An RFC 3339 timestamp (`2025-06-02T10:00:01.250Z`) as nanoseconds since the Unix epoch.
pub(crate) fn rfc3339_ns(text: &str) -> Option<i64> {
    let stamp: jiff::Timestamp = text.parse().ok()?;
    i64::try_from(stamp.as_nanosecond()).ok()
}

/// A timestamp field: RFC 3339 text, or a number of seconds since the epoch (a fraction
/// allowed, read to the microsecond), as nanoseconds.
pub(crate) fn time_field(value: &Value, key: &str) -> Option<i64> {
    match value.get(key)? {
        Value::String(text) => rfc3339_ns(text),
        Value::Number(number) => seconds_ns(&number.to_string()),
        _ => None,
    }
}

/// A decimal number of seconds since the epoch, read from its text (never through a binary
/// float), as nanoseconds: digits past the ninth after the point are dropped.
pub(crate) fn seconds_ns(text: &str) -> Option<i64> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let seconds: i64 = whole.parse().ok()?;
    let mut nanos: i64 = 0;
    for digit in fraction.bytes().chain(std::iter::repeat(b'0')).take(9) {
        nanos = nanos * 10 + i64::from(digit - b'0');
    }
    seconds.checked_mul(1_000_000_000)?.checked_add(nanos)
}

/// Widens `span` to cover `start..end` (a single instant when `end` is `start`).
pub(crate) fn widen(span: &mut Option<Interval>, start: i64, end: i64) {
    let (start, end) = (start.min(end), start.max(end));
    *span = Some(match *span {
        None => Interval {
            start_ns: start,
            end_ns: end,
        },
        Some(known) => Interval {
            start_ns: known.start_ns.min(start),
            end_ns: known.end_ns.max(end),
        },
    });
}

/// The interval from `start` to `end`, when both are known and `end` is not before `start`.
pub(crate) fn interval(start: Option<i64>, end: Option<i64>) -> Option<Interval> {
    let (start_ns, end_ns) = (start?, end?);
    (end_ns >= start_ns).then_some(Interval { start_ns, end_ns })
}
