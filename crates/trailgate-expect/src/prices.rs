//! Exact money: the suite's `prices:` and `budget.max_cost` read as the
//! decimals their YAML text spells, never through a binary float, and a run's cost summed in
//! whole units of 10^-18 (docs/graders/budget.md#cost).

use std::collections::BTreeMap;
use std::fmt;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use trailgate_trace::{Tokens, Usage};

pub(crate) use crate::decimal::{NotAnAmount, scaled};
use crate::matchers::float_as_written_in_suite;
use crate::suite_file::plain_number;

/// The digits after the point a price may have: a price per million tokens is kept in
/// units of 10^-12, so that a token's share of it, in units of 10^-18, is whole.
pub(crate) const PRICE_DIGITS: u32 = 12;
/// The digits after the point a cost may have: costs are kept in units of 10^-18.
pub(crate) const COST_DIGITS: u32 = 18;

/// A number as the suite writes it, as JSON text (`0.1`, `3`, `1e-3`, `-2`); anything that is
/// not a number is refused at its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WrittenNumber(pub(crate) String);

impl JsonSchema for WrittenNumber {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Number".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "number" })
    }
}

impl<'de> Deserialize<'de> for WrittenNumber {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NumberVisitor;
        impl Visitor<'_> for NumberVisitor {
            type Value = WrittenNumber;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number such as `0.25`")
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<WrittenNumber, E> {
                Ok(WrittenNumber(value.to_string()))
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<WrittenNumber, E> {
                Ok(WrittenNumber(value.to_string()))
            }
            fn visit_i128<E: de::Error>(self, value: i128) -> Result<WrittenNumber, E> {
                Ok(WrittenNumber(value.to_string()))
            }
            fn visit_u128<E: de::Error>(self, value: u128) -> Result<WrittenNumber, E> {
                Ok(WrittenNumber(value.to_string()))
            }
            fn visit_f64<E: de::Error>(self, value: f64) -> Result<WrittenNumber, E> {
                // The float is the YAML reader's; the text the suite writes is the number.
                if let Some(number) = float_as_written_in_suite(value)? {
                    return Ok(WrittenNumber(number));
                }
                serde_json::Number::from_f64(value)
                    .map(|number| WrittenNumber(number.to_string()))
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Float(value), &self))
            }
            fn visit_str<E: de::Error>(self, value: &str) -> Result<WrittenNumber, E> {
                plain_number(value)
                    .map(WrittenNumber)
                    .ok_or_else(|| E::invalid_type(de::Unexpected::Str(value), &self))
            }
        }
        deserializer.deserialize_any(NumberVisitor)
    }
}

/// An amount of money in units of 10^-18 of the suite's currency: exact, and written as a
/// decimal without trailing zeros.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cost(pub u128);

impl Cost {
    /// The amount as a JSON number, written exactly.
    pub(crate) fn json(self) -> serde_json::Number {
        // Digits and at most one point: always a JSON number.
        self.to_string()
            .parse()
            .unwrap_or_else(|_| serde_json::Number::from(0))
    }
}

impl fmt::Display for Cost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = 10_u128.pow(COST_DIGITS);
        let whole = self.0 / unit;
        let fraction = self.0 % unit;
        if fraction == 0 {
            return write!(f, "{whole}");
        }
        let digits = format!("{fraction:018}");
        write!(f, "{whole}.{}", digits.trim_end_matches('0'))
    }
}

/// One model's price, per million tokens, in units of 10^-12 (so a token costs the price's
/// number in units of 10^-18).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Price {
    /// Per million input tokens.
    pub input: u128,
    /// Per million output tokens.
    pub output: u128,
    /// Per million cached input tokens, when the suite prices them apart; cached tokens
    /// are input tokens at the input price otherwise.
    pub cached_input: Option<u128>,
}

/// The suite's `prices:`: each model's price, by its exact name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prices(pub BTreeMap<String, Price>);

impl Price {
    /// What `tokens` cost at this price; sums saturate, past any limit a suite can write.
    pub fn cost(&self, tokens: &Tokens) -> u128 {
        let (cached, cached_price) = match (self.cached_input, tokens.cached_input) {
            (Some(price), Some(cached)) => (cached.min(tokens.input), price),
            _ => (0, 0),
        };
        let fresh = tokens.input - cached;
        u128::from(fresh)
            .saturating_mul(self.input)
            .saturating_add(u128::from(cached).saturating_mul(cached_price))
            .saturating_add(u128::from(tokens.output).saturating_mul(self.output))
    }
}

impl Prices {
    /// The cost of a run's usage, or the first model (in name order) without a price.
    pub fn cost<'u>(&self, usage: &'u Usage) -> Result<Cost, &'u str> {
        let mut total: u128 = 0;
        for (model, tokens) in &usage.models {
            let price = self.0.get(model).ok_or(model.as_str())?;
            total = total.saturating_add(price.cost(tokens));
        }
        Ok(Cost(total))
    }
}
