//! Values as OTLP JSON writes them (the protobuf JSON mapping, in lowerCamelCase or with
//! the protobuf field names): attributes and their `AnyValue`s (strings, numbers, arrays,
//! kvlists), trace and span ids in hex or base64, times as Unix nanoseconds or ISO 8601
//! text, and the span kind and status code enums.

use std::collections::BTreeMap;

use serde_json::{Map, Number, Value};

use crate::formats::str_field;

/// Attributes as a map from key to JSON: the OTLP list of `{key, value: AnyValue}`, or (as
/// some exporters write it) an object of plain values. The first of a repeated key wins.
pub(super) fn attributes(value: Option<&Value>) -> BTreeMap<String, Value> {
    let mut map = BTreeMap::new();
    match value {
        Some(Value::Array(entries)) => {
            for entry in entries {
                if let Some(key) = str_field(entry, "key") {
                    let value = entry.get("value").map_or(Value::Null, any_value);
                    map.entry(key.to_owned()).or_insert(value);
                }
            }
        }
        Some(Value::Object(entries)) => {
            for (key, value) in entries {
                map.insert(key.clone(), any_value(value));
            }
        }
        _ => {}
    }
    map
}

/// An OTLP `AnyValue` as plain JSON. A value that is not an `AnyValue` is kept as it is.
fn any_value(value: &Value) -> Value {
    let Value::Object(map) = value else {
        return value.clone();
    };
    if map.is_empty() {
        return Value::Null;
    }
    let mut entries = map.iter();
    let (Some((key, inner)), None) = (entries.next(), entries.next()) else {
        return value.clone();
    };
    match key.as_str() {
        "stringValue" | "string_value" | "boolValue" | "bool_value" | "bytesValue"
        | "bytes_value" => inner.clone(),
        // 64-bit integers are decimal strings in the protobuf JSON mapping.
        "intValue" | "int_value" => match inner {
            Value::String(text) => text
                .trim()
                .parse::<i64>()
                .map(Value::from)
                .or_else(|_| text.trim().parse::<u64>().map(Value::from))
                .unwrap_or_else(|_| inner.clone()),
            other => other.clone(),
        },
        // `NaN` and `Infinity` arrive as strings and stay strings.
        "doubleValue" | "double_value" => match inner {
            Value::String(text) => text
                .trim()
                .parse::<f64>()
                .ok()
                .and_then(Number::from_f64)
                .map_or_else(|| inner.clone(), Value::Number),
            other => other.clone(),
        },
        "arrayValue" | "array_value" => Value::Array(
            inner
                .get("values")
                .and_then(Value::as_array)
                .map(|values| values.iter().map(any_value).collect())
                .unwrap_or_default(),
        ),
        "kvlistValue" | "kvlist_value" => {
            let mut object = Map::new();
            for entry in inner
                .get("values")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(key) = str_field(entry, "key") {
                    let value = entry.get("value").map_or(Value::Null, any_value);
                    object.insert(key.to_owned(), value);
                }
            }
            Value::Object(object)
        }
        _ => value.clone(),
    }
}

/// A trace or span id as lower-case hex. OTLP JSON writes hex; the plain protobuf JSON
/// mapping writes bytes as base64. An all-zero id is the empty parent of a root span.
pub(super) fn span_id(value: &Value) -> Option<String> {
    let text = match value {
        Value::String(text) => text.trim().to_owned(),
        Value::Number(number) => number.to_string(),
        _ => return None,
    };
    let is_hex = !text.is_empty() && text.bytes().all(|b| b.is_ascii_hexdigit());
    let id = if is_hex && matches!(text.len(), 16 | 32) {
        text.to_ascii_lowercase()
    } else if let Some(bytes) = base64(&text).filter(|bytes| matches!(bytes.len(), 8 | 16)) {
        bytes.iter().fold(String::new(), |mut hex, b| {
            hex.push(char::from(HEX[usize::from(b >> 4)]));
            hex.push(char::from(HEX[usize::from(b & 0xf)]));
            hex
        })
    } else if is_hex {
        text.to_ascii_lowercase()
    } else {
        text
    };
    (!id.is_empty() && !id.bytes().all(|b| b == b'0')).then_some(id)
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Standard or URL-safe base64, padded or not; `None` when `text` is not base64.
fn base64(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut bits: u32 = 0;
    let mut count = 0;
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for c in text.bytes() {
        let sextet = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(sextet);
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push(u8::try_from((bits >> count) & 0xff).ok()?);
            bits &= (1 << count) - 1;
        }
    }
    Some(out)
}

/// A time in Unix nanoseconds, a decimal string or a number; 0 (the protobuf default)
/// means none.
pub(super) fn nanos(value: &Value) -> Option<u64> {
    match value {
        Value::String(text) => text.trim().parse().ok(),
        Value::Number(number) => number.as_u64(),
        _ => None,
    }
    .filter(|&nanos| nanos > 0)
}

/// A time written as ISO 8601 UTC text (`2024-05-01T12:00:00.123456Z`), in nanoseconds
/// since the epoch: the Python SDK writes span times so.
pub(crate) fn iso_nanos(text: &str) -> Option<u64> {
    let text = text.trim().strip_suffix('Z').unwrap_or(text.trim());
    let (date, time) = text.split_once('T')?;
    let mut date = date.splitn(3, '-').map(str::parse::<i64>);
    let (year, month, day) = (date.next()?.ok()?, date.next()?.ok()?, date.next()?.ok()?);
    let (clock, fraction) = time.split_once('.').unwrap_or((time, ""));
    let mut clock = clock.splitn(3, ':').map(str::parse::<i64>);
    let (hour, minute, second) = (
        clock.next()?.ok()?,
        clock.next()?.ok()?,
        clock.next()?.ok()?,
    );
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || fraction.len() > 9 {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let shifted = if month <= 2 { year - 1 } else { year };
    let era = shifted.div_euclid(400);
    let year_of_era = shifted - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second;
    let fraction: u64 = if fraction.is_empty() {
        0
    } else {
        format!("{fraction:0<9}").parse().ok()?
    };
    u64::try_from(seconds)
        .ok()?
        .checked_mul(1_000_000_000)?
        .checked_add(fraction)
        .filter(|&nanos| nanos > 0)
}

/// `kind` 2, `SPAN_KIND_SERVER`.
pub(super) fn is_server_kind(value: &Value) -> bool {
    match value {
        Value::Number(number) => number.as_u64() == Some(2),
        Value::String(text) => matches!(
            text.trim().to_ascii_uppercase().as_str(),
            "SPAN_KIND_SERVER" | "SERVER" | "2"
        ),
        _ => false,
    }
}

/// `status.code` 2, `STATUS_CODE_ERROR`.
pub(super) fn is_error_code(value: &Value) -> bool {
    match value {
        Value::Number(number) => number.as_u64() == Some(2),
        Value::String(text) => matches!(
            text.trim().to_ascii_uppercase().as_str(),
            "STATUS_CODE_ERROR" | "ERROR" | "2"
        ),
        _ => false,
    }
}
