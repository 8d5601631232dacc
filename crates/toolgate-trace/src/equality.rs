//! Argument equality: JSON equality where object keys are unordered, arrays are ordered,
//! numbers are equal by value (`1` equals `1.0`), and an array never equals an object.

use serde_json::{Number, Value};

/// Whether two argument values are equal for call accuracy (SPEC section 9).
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

/// Integers compare exactly; anything with a fraction or exponent compares as a float, so
/// `1` and `1.0` are equal.
pub(crate) fn numbers_equal(x: &Number, y: &Number) -> bool {
    if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
        return x == y;
    }
    #[expect(
        clippy::float_cmp,
        reason = "equality by value is exact: `1.5` equals `1.50`, and nothing else does"
    )]
    match (x.as_f64(), y.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}
