//! Argument equality: JSON equality where object keys are unordered, arrays are ordered,
//! numbers are equal by their exact decimal value (`1` equals `1.0` and `1e0`;
//! `9007199254740993` does not equal `9007199254740992.0`), and an array never equals an
//! object.

use serde_json::{Number, Value};

use crate::decimal::number_texts_equal;

/// Whether two argument values are equal for call accuracy (docs/graders/call-accuracy.md).
pub fn args_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => numbers_equal(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| args_equal(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, x)| y.get(key).is_some_and(|y| args_equal(x, y)))
        }
        _ => false,
    }
}

/// Numbers compare by their exact decimal value, never through a float: integers that fit
/// in 64 bits directly, anything else by its text ([`Decimal`](crate::Decimal)).
pub(crate) fn numbers_equal(x: &Number, y: &Number) -> bool {
    if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
        return x == y;
    }
    number_texts_equal(&x.to_string(), &y.to_string())
}
