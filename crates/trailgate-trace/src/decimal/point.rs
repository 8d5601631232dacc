//! Where a number's decimal point is, exactly, however long its exponent: `1e1000000000000000000`
//! has its point 10¹⁸ + 1 places to the right, past what 64 bits hold, and must still
//! compare above `1e999999999999999999` and equal `10e999999999999999999`.
//!
//! Nearly every point fits in 64 bits and is compared as an integer. A point past them is
//! the exponent as written (its sign and digits) plus a shift that fits, and is compared by
//! its exact value as a decimal integer, in time linear in the exponent's length.

use std::cmp::Ordering;
use std::fmt;

/// The largest exponent (in magnitude) read into 64 bits: far beyond any number a JSON
/// parser turns into a float, small enough that adding the shift of the decimal point
/// cannot overflow for any text that fits in memory. Longer exponents are kept as written.
pub(super) const MAX_EXPONENT: i64 = 1_000_000_000_000_000;

/// The power of ten of a number's decimal point.
#[derive(Debug, Clone, Copy)]
pub(super) enum Point<'a> {
    /// A point that fits in 64 bits.
    Small(i64),
    /// `shift` plus an exponent past [`MAX_EXPONENT`], `-digits` when `negative`; the
    /// digits are ASCII, without leading zeros.
    Large {
        shift: i64,
        negative: bool,
        digits: &'a [u8],
    },
}

/// An exponent as written: its sign and its digits, leading zeros left out.
#[derive(Debug, Clone, Copy)]
pub(super) struct Exponent<'a> {
    negative: bool,
    digits: &'a [u8],
}

impl<'a> Exponent<'a> {
    /// Reads an exponent (`+5`, `-12`, `7`, `0003`); `None` for anything else.
    pub(super) fn parse(text: &'a [u8]) -> Option<Self> {
        let (negative, digits) = match text.split_first() {
            Some((b'-', rest)) => (true, rest),
            Some((b'+', rest)) => (false, rest),
            _ => (false, text),
        };
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let zeros = digits.iter().take_while(|&&digit| digit == b'0').count();
        Some(Self {
            negative,
            digits: &digits[zeros..],
        })
    }

    /// The exponent as 64 bits, when it is at most [`MAX_EXPONENT`] in magnitude.
    fn small(self) -> Option<i64> {
        // 16 digits hold every value up to MAX_EXPONENT, and cannot overflow 64 bits.
        if self.digits.len() > 16 {
            return None;
        }
        let value = self
            .digits
            .iter()
            .fold(0_i64, |value, &digit| value * 10 + i64::from(digit - b'0'));
        (value <= MAX_EXPONENT).then_some(if self.negative { -value } else { value })
    }
}

impl<'a> Point<'a> {
    /// `shift + exponent`, exactly.
    pub(super) fn new(shift: i64, exponent: Option<Exponent<'a>>) -> Self {
        let Some(exponent) = exponent else {
            return Self::Small(shift);
        };
        match exponent.small().and_then(|small| shift.checked_add(small)) {
            Some(point) => Self::Small(point),
            None => Self::Large {
                shift,
                negative: exponent.negative,
                digits: exponent.digits,
            },
        }
    }

    /// The point, when it fits in 64 bits.
    pub(super) fn small(self) -> Option<i64> {
        match self {
            Self::Small(point) => Some(point),
            Self::Large { .. } => None,
        }
    }

    /// The exact value, as a sign and ASCII digits without leading zeros (none for zero).
    fn exact(self) -> (bool, Vec<u8>) {
        let (negative, digits, shift) = match self {
            Self::Small(point) => return (point < 0, ascii(point.unsigned_abs())),
            Self::Large {
                shift,
                negative,
                digits,
            } => (negative, digits, shift),
        };
        let shift_digits = ascii(shift.unsigned_abs());
        if shift == 0 || negative == (shift < 0) {
            return (negative, add(digits, &shift_digits));
        }
        // Opposite signs: the larger magnitude gives the sign.
        match compare_magnitudes(digits, &shift_digits) {
            Ordering::Equal => (false, Vec::new()),
            Ordering::Greater => (negative, subtract(digits, &shift_digits)),
            Ordering::Less => (shift < 0, subtract(&shift_digits, digits)),
        }
    }
}

impl PartialEq for Point<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Point<'_> {}

impl PartialOrd for Point<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Point<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        if let (Self::Small(x), Self::Small(y)) = (self, other) {
            return x.cmp(y);
        }
        let ((x_negative, x), (y_negative, y)) = (self.exact(), other.exact());
        match (x_negative, y_negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => compare_magnitudes(&x, &y),
            (true, true) => compare_magnitudes(&y, &x),
        }
    }
}

/// The point as a decimal integer: `-12`, `1000000000000000000000`.
impl fmt::Display for Point<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Self::Small(point) = self {
            return write!(f, "{point}");
        }
        let (negative, digits) = self.exact();
        if digits.is_empty() {
            return f.write_str("0");
        }
        if negative {
            f.write_str("-")?;
        }
        // `digits` holds ASCII digits only.
        f.write_str(&String::from_utf8_lossy(&digits))
    }
}

/// The ASCII digits of `value`, none for zero.
fn ascii(value: u64) -> Vec<u8> {
    if value == 0 {
        Vec::new()
    } else {
        value.to_string().into_bytes()
    }
}

/// How two magnitudes compare, as ASCII digits without leading zeros.
fn compare_magnitudes(x: &[u8], y: &[u8]) -> Ordering {
    x.len().cmp(&y.len()).then_with(|| x.cmp(y))
}

/// `x + y`, as ASCII digits without leading zeros.
fn add(x: &[u8], y: &[u8]) -> Vec<u8> {
    let mut sum = Vec::with_capacity(x.len().max(y.len()) + 1);
    let (mut x, mut y) = (x.iter().rev(), y.iter().rev());
    let mut carry = 0;
    loop {
        let (a, b) = (x.next(), y.next());
        if a.is_none() && b.is_none() {
            break;
        }
        let total = a.map_or(0, |a| a - b'0') + b.map_or(0, |b| b - b'0') + carry;
        sum.push(b'0' + total % 10);
        carry = total / 10;
    }
    if carry > 0 {
        sum.push(b'0' + carry);
    }
    sum.reverse();
    sum
}

/// `x - y` for `x > y`, as ASCII digits without leading zeros.
fn subtract(x: &[u8], y: &[u8]) -> Vec<u8> {
    let mut difference = Vec::with_capacity(x.len());
    let mut y = y.iter().rev();
    let mut borrow = 0;
    for &a in x.iter().rev() {
        let b = y.next().map_or(0, |b| b - b'0') + borrow;
        let a = a - b'0';
        if a >= b {
            difference.push(b'0' + a - b);
            borrow = 0;
        } else {
            difference.push(b'0' + a + 10 - b);
            borrow = 1;
        }
    }
    while difference.last() == Some(&b'0') {
        difference.pop();
    }
    difference.reverse();
    difference
}
