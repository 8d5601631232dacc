//! Exact decimal arithmetic for `$near`: its bounds are computed once, when the suite is
//! read.

use std::cmp::Ordering;

use trailgate_trace::Decimal;

/// `value - within` and `value + within`, as decimal text; `None` when the two are too far
/// apart in scale to be written out (more than [`MAX_SCALE_GAP`] places), or one's decimal
/// point is past 64 bits.
pub(super) fn near_bounds(value: &Decimal<'_>, within: &Decimal<'_>) -> Option<(String, String)> {
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
            exponent: number.point()?.checked_sub(count)?,
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
