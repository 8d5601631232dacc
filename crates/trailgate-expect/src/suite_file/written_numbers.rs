//! The numbers a suite writes, read as written (docs/matchers.md#numbers). The YAML reader
//! turns a plain number into an integer of up to 128 bits or a float: a number past a
//! float's range (`1e400`) it hands over as a string, as it hands over `"1e400"` in quotes;
//! a number a float cannot hold (`1e-400`, `0.10000000000000000001`) it rounds to the
//! nearest float. Both are read here from the suite's text instead.
//!
//! serde tells a visitor a value and not how it was written, so the text is found another
//! way for each:
//!
//! - The reader hands over the text of a scalar without escapes as a slice of the document
//!   itself, so a string is found in the suite's text by its address, and the bytes before
//!   it say whether it was quoted (a quote just before it) or given a tag (`!!str 1e400`)
//!   ([`plain_number`]).
//! - A float carries no address. A walk of the document finds every float scalar and its
//!   text (`floats.rs`), once, the first time a float is asked for; a float then stands for
//!   the number that the texts read as that float write ([`float_as_written`]), unless they
//!   write different numbers, which is refused: trailgate cannot tell which one a float is.

use std::cell::{OnceCell, RefCell};
use std::collections::BTreeMap;
use std::sync::Arc;

use miette::NamedSource;
use serde_json::Number;
use trailgate_trace::Decimal;

use super::floats::floats_of;

thread_local! {
    /// The suite being read on this thread ([`reading`]).
    static READING: RefCell<Option<Reading>> = const { RefCell::new(None) };
}

/// A suite being read: its text, and what its floats write, found on first use.
struct Reading {
    source: Arc<NamedSource<String>>,
    floats: OnceCell<Floats>,
}

/// The texts of the float scalars of a document, by the float's bits, each once; `None`
/// when the walk could not read the whole document, and so cannot say which texts a float
/// stands for.
type Floats = Option<BTreeMap<u64, Vec<Text>>>;

/// The text of a float scalar: as written, and the number it writes as JSON text (`None`
/// for a text that is no number trailgate reads).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Text {
    written: String,
    number: Option<String>,
}

/// Runs `read`, a reading of `source`'s text, with [`plain_number`] and [`float_as_written`]
/// looking in that text.
pub(super) fn reading<T>(source: &Arc<NamedSource<String>>, read: impl FnOnce() -> T) -> T {
    /// Puts back the reading an outer one had, even when `read` unwinds.
    struct Restore(Option<Reading>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            READING.with(|reading| *reading.borrow_mut() = outer);
        }
    }
    let outer = READING.with(|reading| {
        reading.replace(Some(Reading {
            source: Arc::clone(source),
            floats: OnceCell::new(),
        }))
    });
    let _restore = Restore(outer);
    read()
}

/// The number `value` is, as JSON text (`1e400`; `+1e400` and `01e400` as `1e400`), when it
/// is a scalar of the suite being read, written plain (no quotes, no tag such as `!!str`),
/// that reads as a number; `None` for any other string.
///
/// The YAML reader turns every other plain number into an integer or a float, so this is a
/// number no such type holds, and the caller takes its text.
pub(crate) fn plain_number(value: &str) -> Option<String> {
    let number = json_number(value)?;
    let plain = READING.with(|reading| {
        let reading = reading.borrow();
        let text = reading.as_ref()?.source.inner().as_str();
        let offset = value.as_ptr().addr().checked_sub(text.as_ptr().addr())?;
        // The value must be the text's own bytes there, not a copy elsewhere in memory.
        let end = offset.checked_add(value.len())?;
        (end <= text.len()).then(|| written_plain(text.as_bytes(), offset))
    });
    plain.unwrap_or(false).then_some(number)
}

/// A float the YAML reader read from the suite being read, which two of the suite's numbers
/// round to: trailgate cannot tell which one the float is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AmbiguousFloat {
    /// Two texts that read as the float.
    pub(crate) texts: (String, String),
}

/// The number that the float `value` stands for in the suite being read, as JSON text, when
/// the float does not hold it (`1e-400`, read as 0; `0.10000000000000000001`, read as 0.1);
/// `None` when the float is the number written (or outside a suite's reading).
pub(crate) fn float_as_written(value: f64) -> Result<Option<String>, AmbiguousFloat> {
    let texts = READING.with(|reading| {
        let reading = reading.borrow();
        let reading = reading.as_ref()?;
        let floats = reading.floats.get_or_init(|| {
            let text = reading.source.inner().as_str();
            floats_of(serde_yaml::Deserializer::from_str(text), text)
                .map(|found| texts_by_float(text, &found))
        });
        floats.as_ref()?.get(&value.to_bits()).cloned()
    });
    let Some(texts) = texts else {
        return Ok(None);
    };
    let float = Number::from_f64(value).map(|number| number.to_string());
    let float = float.as_deref().and_then(Decimal::parse);
    // A text that writes another number than the float: the float stands for it, unless
    // another text reads as the same float.
    let Some(exact) = texts
        .iter()
        .filter_map(|text| text.number.as_deref())
        .find(|number| float.is_none() || Decimal::parse(number) != float)
    else {
        return Ok(None);
    };
    let exact_value = Decimal::parse(exact);
    match texts.iter().find(|text| {
        text.number
            .as_deref()
            .is_none_or(|number| Decimal::parse(number) != exact_value)
    }) {
        Some(other) => Err(AmbiguousFloat {
            texts: (exact.to_owned(), other.written.clone()),
        }),
        None => Ok(Some(exact.to_owned())),
    }
}

/// The texts of the floats found at their offsets of `text`, by the float's bits, each once.
fn texts_by_float(text: &str, found: &[(f64, usize)]) -> BTreeMap<u64, Vec<Text>> {
    let mut by_float: BTreeMap<u64, Vec<Text>> = BTreeMap::new();
    for &(value, offset) in found {
        let written = token_at(text, offset);
        let text = Text {
            written: written.to_owned(),
            number: json_number(written),
        };
        let texts = by_float.entry(value.to_bits()).or_default();
        if !texts.contains(&text) {
            texts.push(text);
        }
    }
    by_float
}

/// The characters a number is written with, from `offset` of `text` on, past the node's
/// properties (a tag such as `!!float`, an anchor) and an opening quote (`!!float "1.5"`).
fn token_at(text: &str, offset: usize) -> &str {
    let mut rest = text.get(offset..).unwrap_or_default();
    while rest.starts_with(['!', '&']) {
        let end = rest.find(|c: char| c.is_whitespace()).unwrap_or(rest.len());
        rest = rest[end..].trim_start();
    }
    let rest = rest.strip_prefix(['"', '\'']).unwrap_or(rest);
    let end = rest
        .find(|c: char| !matches!(c, '0'..='9' | '+' | '-' | '.' | 'e' | 'E'))
        .unwrap_or(rest.len());
    &rest[..end]
}

/// `value` as a JSON number, when YAML's core schema reads it as a number: an optional sign,
/// digits with an optional fraction and exponent (`.5` and `5.` as `0.5` and `5`). Digits
/// alone with a leading zero (`0123`) are a string to YAML 1.2, and stay one.
fn json_number(value: &str) -> Option<String> {
    let (sign, unsigned) = match value.as_bytes().first() {
        Some(b'-') => ("-", &value[1..]),
        Some(b'+') => ("", &value[1..]),
        _ => ("", value),
    };
    // YAML writes a fraction without digits before or after its point; JSON does not.
    let mantissa_end = unsigned.find(['e', 'E']).unwrap_or(unsigned.len());
    let (mantissa, exponent) = unsigned.split_at(mantissa_end);
    let mantissa = mantissa.strip_suffix('.').unwrap_or(mantissa);
    let unsigned = &if mantissa.starts_with('.') {
        format!("0{mantissa}{exponent}")
    } else {
        format!("{mantissa}{exponent}")
    };
    if unsigned.len() > 1
        && unsigned.starts_with('0')
        && unsigned.bytes().all(|byte| byte.is_ascii_digit())
    {
        return None;
    }
    // `Decimal` reads a sign, digits, a fraction and an exponent, with leading zeros.
    if unsigned.starts_with('-') || Decimal::parse(unsigned).is_none() {
        return None;
    }
    let int_end = unsigned
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(unsigned.len());
    // JSON writes no leading zero before another digit.
    let zeros = unsigned[..int_end.saturating_sub(1)]
        .bytes()
        .take_while(|&byte| byte == b'0')
        .count();
    Some(format!("{sign}{}", &unsigned[zeros..]))
}

/// Whether the scalar at `offset` of `text` is written plain: not quoted, and without a tag
/// (`!!str` makes it a string whatever it reads as). An anchor (`&a`) between the tag and
/// the scalar is passed over. The words before the scalar are not parsed as YAML: a comment
/// right before it whose last word starts with `!` reads as a tag, and the number stays a
/// string (refused where a number is needed, never a different number).
fn written_plain(text: &[u8], offset: usize) -> bool {
    let mut before = &text[..offset];
    if matches!(before.last(), Some(b'"' | b'\'')) {
        return false;
    }
    loop {
        // A node's properties (tag, anchor) come before it, separated by white space.
        let trimmed = before.trim_ascii_end();
        if trimmed.len() == before.len() {
            return true;
        }
        let start = trimmed
            .iter()
            .rposition(u8::is_ascii_whitespace)
            .map_or(0, |at| at + 1);
        // In a flow collection a property may follow `[`, `{` or `,` directly.
        let indicators = trimmed[start..]
            .iter()
            .take_while(|byte| matches!(byte, b'[' | b'{' | b','))
            .count();
        let token = &trimmed[start + indicators..];
        match token {
            [b'&', ..] => before = &trimmed[..start + indicators],
            [b'!', ..] => return false,
            _ => return true,
        }
    }
}
