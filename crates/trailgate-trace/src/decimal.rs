//! Numbers by their exact decimal value, read from their text: `1`, `1.0`, `1e0` and
//! `10e-1` are one number, and `9007199254740993` is not `9007199254740992`, which a
//! comparison through a 64-bit float would say it is.
//!
//! A number is read as written (sign, digits, decimal point, exponent) and compared digit
//! by digit, without a big-number type: two numbers are equal when their signs, their
//! significant digits and the position of their decimal point are. Every number JSON can
//! write is read, whatever its exponent: the position of the point is kept exactly
//! (`decimal/point.rs`), so `1e1000000000000000000` compares above `1000` as it should
//! (docs/matchers.md#numbers).

mod point;

use std::cmp::Ordering;
use std::fmt::Write as _;

use self::point::{Exponent, Point};

/// A number by its exact decimal value, borrowed from its text.
///
/// The value is `±0.d₁d₂…dₙ × 10^point`, where `d₁…dₙ` are the significant digits (no
/// leading or trailing zero; none for zero).
#[derive(Debug, Clone, Copy)]
pub struct Decimal<'a> {
    negative: bool,
    /// The digits before and after the decimal point, as written.
    int: &'a [u8],
    frac: &'a [u8],
    /// Where the significant digits start in `int` followed by `frac`, and how many.
    first: usize,
    len: usize,
    point: Point<'a>,
}

impl<'a> Decimal<'a> {
    /// Reads a number written as JSON writes one (`-12.5e-3`), also with `E`, an exponent
    /// sign `+`, or leading zeros, whatever the exponent's size; `None` for anything else.
    pub fn parse(text: &'a str) -> Option<Self> {
        let bytes = text.as_bytes();
        let (negative, rest) = match bytes.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, bytes),
        };
        let (mantissa, exponent) = match rest.iter().position(|&b| b == b'e' || b == b'E') {
            Some(at) => (&rest[..at], Some(&rest[at + 1..])),
            None => (rest, None),
        };
        let (int, frac) = match mantissa.iter().position(|&b| b == b'.') {
            Some(at) => (&mantissa[..at], &mantissa[at + 1..]),
            None => (mantissa, &[][..]),
        };
        let all_digits = |part: &[u8]| part.iter().all(u8::is_ascii_digit);
        if int.is_empty() || !all_digits(int) || !all_digits(frac) {
            return None;
        }
        if mantissa.len() > int.len() && frac.is_empty() {
            return None;
        }
        let exponent = match exponent {
            None => None,
            Some(text) => Some(Exponent::parse(text)?),
        };
        let digit = |at: usize| {
            if at < int.len() {
                int[at]
            } else {
                frac[at - int.len()]
            }
        };
        let total = int.len() + frac.len();
        let first = (0..total).find(|&at| digit(at) != b'0').unwrap_or(total);
        let end = (first..total)
            .rev()
            .find(|&at| digit(at) != b'0')
            .map_or(first, |at| at + 1);
        let point = if first == total {
            Point::Small(0)
        } else {
            // Where the first significant digit is, before the exponent: a count of bytes
            // of the text, which 64 bits hold.
            let before = i64::try_from(int.len()).ok()?;
            let zeros = i64::try_from(first).ok()?;
            Point::new(before.checked_sub(zeros)?, exponent)
        };
        Some(Self {
            negative,
            int,
            frac,
            first,
            len: end - first,
            point,
        })
    }

    /// Whether the number is zero (`0`, `-0.0`, `0e5`).
    pub fn is_zero(&self) -> bool {
        self.len == 0
    }

    /// Whether the number is below zero.
    pub fn is_negative(&self) -> bool {
        self.negative && !self.is_zero()
    }

    /// Whether the number has no fractional part, by its exact value: `1.0` and `1e2` are
    /// integers, `1.5` and `1e-1` are not.
    pub fn is_integer(&self) -> bool {
        self.is_zero() || i64::try_from(self.len).is_ok_and(|len| Point::Small(len) <= self.point)
    }

    /// The significant digits, as ASCII bytes.
    pub fn digits(&self) -> impl Iterator<Item = u8> + 'a {
        self.int
            .iter()
            .chain(self.frac)
            .skip(self.first)
            .take(self.len)
            .copied()
    }

    /// The power of ten of the decimal point: the value is `±0.digits × 10^point`; `None`
    /// when it does not fit in 64 bits (an exponent such as `1e1000000000000000000`).
    pub fn point(&self) -> Option<i64> {
        self.point.small()
    }

    /// Writes the power of ten of the decimal point, exactly, as a decimal integer.
    pub(crate) fn write_point(&self, out: &mut String) {
        // Writing to a `String` cannot fail.
        let _ = write!(out, "{}", self.point);
    }

    /// How the absolute values compare.
    fn cmp_magnitude(&self, other: &Self) -> Ordering {
        match (self.is_zero(), other.is_zero()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            (false, false) => {}
        }
        // No leading zeros: the one with the decimal point further right is larger.
        self.point
            .cmp(&other.point)
            .then_with(|| self.digits().cmp(other.digits()))
    }
}

impl PartialEq for Decimal<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Decimal<'_> {}

impl PartialOrd for Decimal<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Decimal<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.is_negative(), other.is_negative()) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.cmp_magnitude(other),
            (true, true) => other.cmp_magnitude(self),
        }
    }
}

/// Whether two number texts are the same number; texts that [`Decimal::parse`] does not
/// read are equal only when they are the same text.
pub(crate) fn number_texts_equal(x: &str, y: &str) -> bool {
    match (Decimal::parse(x), Decimal::parse(y)) {
        (Some(x), Some(y)) => x == y,
        _ => x == y,
    }
}

#[cfg(test)]
mod tests;
