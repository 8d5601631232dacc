//! A metric's value: a whole percent for most metrics, a token count or a cost for the
//! `usage.*` metrics of `budget` (docs/graders/budget.md#usage-metrics). All are exact
//! non-negative decimals with at most six digits after the point, written as JSON numbers.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use trailgate_core::Percent;

use crate::decimal::scaled;

/// How many digits after the point a metric's value keeps.
pub const METRIC_DIGITS: u32 = 6;

/// One unit in millionths.
const UNIT: u128 = 1_000_000;

/// A metric's value, exact: a whole number of millionths. Percents and token counts are
/// whole; a cost keeps six decimals, floored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MetricValue(u128);

impl MetricValue {
    /// Zero.
    pub const ZERO: Self = Self(0);

    /// The whole number `value`.
    pub fn whole(value: u128) -> Self {
        Self(value.saturating_mul(UNIT))
    }

    /// The value of `millionths` millionths.
    pub fn from_millionths(millionths: u128) -> Self {
        Self(millionths)
    }

    /// The value in millionths.
    pub fn millionths(self) -> u128 {
        self.0
    }

    /// The value as a percent, when it is a whole number from 0 to 100.
    pub fn percent(self) -> Option<Percent> {
        if !self.0.is_multiple_of(UNIT) {
            return None;
        }
        u8::try_from(self.0 / UNIT).ok().and_then(Percent::new)
    }

    /// The value a JSON or YAML number's text spells (`80`, `0.25`, `1e3`), when it is
    /// non-negative with at most six digits after the point.
    pub fn parse(text: &str) -> Option<Self> {
        scaled(text, METRIC_DIGITS).ok().map(Self)
    }

    /// The value moved by `offset` whole units, never below zero; a percent never above 100.
    #[must_use]
    pub fn moved(self, offset: i64, percent: bool) -> Self {
        let by = u128::from(offset.unsigned_abs()).saturating_mul(UNIT);
        let moved = if offset < 0 {
            self.0.saturating_sub(by)
        } else {
            self.0.saturating_add(by)
        };
        if percent {
            Self(moved.min(100 * UNIT))
        } else {
            Self(moved)
        }
    }

    /// `to` minus `self`, signed.
    pub fn change_to(self, to: Self) -> MetricChange {
        let (from, to) = (
            i128::try_from(self.0).unwrap_or(i128::MAX),
            i128::try_from(to.0).unwrap_or(i128::MAX),
        );
        MetricChange(to.saturating_sub(from))
    }

    /// The value as a JSON number, written exactly.
    pub fn json(self) -> serde_json::Number {
        // Digits and at most one point: always a JSON number.
        self.to_string()
            .parse()
            .unwrap_or_else(|_| serde_json::Number::from(0))
    }
}

impl From<Percent> for MetricValue {
    fn from(percent: Percent) -> Self {
        Self::whole(u128::from(percent.value()))
    }
}

impl fmt::Display for MetricValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_millionths(f, self.0)
    }
}

/// `millionths` as a decimal without trailing zeros.
fn write_millionths(f: &mut fmt::Formatter<'_>, millionths: u128) -> fmt::Result {
    let (whole, fraction) = (millionths / UNIT, millionths % UNIT);
    if fraction == 0 {
        return write!(f, "{whole}");
    }
    let digits = format!("{fraction:06}");
    write!(f, "{whole}.{}", digits.trim_end_matches('0'))
}

impl Serialize for MetricValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.json().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for MetricValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ValueVisitor;
        impl<'v> Visitor<'v> for ValueVisitor {
            type Value = MetricValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a non-negative number with at most six digits after the point")
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<MetricValue, E> {
                Ok(MetricValue::whole(u128::from(value)))
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<MetricValue, E> {
                u64::try_from(value)
                    .map(|v| MetricValue::whole(u128::from(v)))
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(value), &self))
            }
            fn visit_u128<E: de::Error>(self, value: u128) -> Result<MetricValue, E> {
                Ok(MetricValue::whole(value))
            }
            fn visit_f64<E: de::Error>(self, value: f64) -> Result<MetricValue, E> {
                Err(E::invalid_value(de::Unexpected::Float(value), &self))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<MetricValue, E> {
                MetricValue::parse(text)
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Str(text), &self))
            }
            fn visit_map<A: de::MapAccess<'v>>(self, map: A) -> Result<MetricValue, A::Error> {
                // serde_json's exact numbers arrive as a one-entry map holding their text.
                let number =
                    serde_json::Number::deserialize(de::value::MapAccessDeserializer::new(map))?;
                self.visit_str(&number.to_string())
            }
        }
        deserializer.deserialize_any(ValueVisitor)
    }
}

/// The change from one value of a metric to another: a signed number of millionths,
/// written `+3`, `-0.5` or `0`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MetricChange(i128);

impl MetricChange {
    /// The change in millionths.
    pub fn millionths(self) -> i128 {
        self.0
    }

    /// Whether the change is at least `points` whole units, either way.
    pub fn at_least(self, points: u32) -> bool {
        self.0.unsigned_abs() >= u128::from(points) * UNIT
    }

    /// The change as a JSON number, written exactly (no `+`).
    pub fn json(self) -> serde_json::Number {
        let text = if self.0 < 0 {
            format!("-{}", MetricValue(self.0.unsigned_abs()))
        } else {
            MetricValue(self.0.unsigned_abs()).to_string()
        };
        text.parse().unwrap_or_else(|_| serde_json::Number::from(0))
    }
}

impl fmt::Display for MetricChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.cmp(&0) {
            std::cmp::Ordering::Less => f.write_str("-")?,
            std::cmp::Ordering::Greater => f.write_str("+")?,
            std::cmp::Ordering::Equal => {}
        }
        write_millionths(f, self.0.unsigned_abs())
    }
}

impl Serialize for MetricChange {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.json().serialize(serializer)
    }
}

#[cfg(test)]
mod tests;
