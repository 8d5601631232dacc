//! Exact decimals from the text of a number: a price, a cost, a gate's value or a metric,
//! as a whole number of the units it is kept in, never through a binary float.

/// Why a written number is no amount.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotAnAmount {
    /// It is below zero.
    Negative,
    /// It has more digits after the point than the amount keeps.
    TooPrecise,
    /// It is past what the amount holds.
    TooLarge,
}

/// `text`, a JSON number, times 10^`digits`, as a whole number: exact, or why not.
pub(crate) fn scaled(text: &str, digits: u32) -> Result<u128, NotAnAmount> {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (
            &text[..at],
            text[at + 1..]
                .parse::<i64>()
                .map_err(|_| NotAnAmount::TooLarge)?,
        ),
        None => (text, 0),
    };
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, mantissa),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits: String = whole.chars().chain(fraction.chars()).collect();
    if all_digits.is_empty() || !all_digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(NotAnAmount::TooLarge);
    }
    let is_zero = all_digits.bytes().all(|b| b == b'0');
    if negative && !is_zero {
        return Err(NotAnAmount::Negative);
    }
    if is_zero {
        return Ok(0);
    }
    // The value is all_digits × 10^(exponent - fraction digits); times 10^digits.
    let fraction_len = i64::try_from(fraction.len()).map_err(|_| NotAnAmount::TooLarge)?;
    let shift = exponent
        .saturating_sub(fraction_len)
        .saturating_add(i64::from(digits));
    let digits_text = all_digits.trim_start_matches('0');
    let (kept, dropped) = if shift >= 0 {
        (digits_text, "")
    } else {
        let cut = usize::try_from(shift.unsigned_abs()).unwrap_or(usize::MAX);
        if cut >= digits_text.len() {
            ("", digits_text)
        } else {
            digits_text.split_at(digits_text.len() - cut)
        }
    };
    if dropped.bytes().any(|b| b != b'0') {
        return Err(NotAnAmount::TooPrecise);
    }
    let mut value: u128 = 0;
    for digit in kept.bytes() {
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u128::from(digit - b'0')))
            .ok_or(NotAnAmount::TooLarge)?;
    }
    for _ in 0..shift.max(0) {
        value = value.checked_mul(10).ok_or(NotAnAmount::TooLarge)?;
    }
    Ok(value)
}
