//! A gate value written as a string: `baseline`, `baseline - N` or `baseline + N`
//! (docs/baselines.md#gates-on-the-baseline-check---baseline), read into a [`BaselineOffset`],
//! or the words of what is wrong with it.

use crate::gate::BaselineOffset;

/// What is wrong with a gate value written as a string: the message, the label at the
/// value, and the help line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BadExpression {
    pub(crate) message: String,
    pub(crate) label: &'static str,
    pub(crate) help: String,
}

/// The forms a string gate value may take, for help lines.
const FORMS: &str = "a gate value is a whole percent like `80`, or `baseline`, `baseline - N` \
                     or `baseline + N` with N a whole number of points";

/// The word every expression starts with.
const BASELINE: &str = "baseline";

/// Reads `text` (`baseline`, `baseline - 2`, `baseline+3`; spaces are optional) into the
/// offset it adds to the baseline's value.
pub(crate) fn parse_expression(text: &str) -> Result<BaselineOffset, BadExpression> {
    let written = text.trim();
    let bad = |message: String, label: &'static str, help: String| BadExpression {
        message,
        label,
        help,
    };
    if !written.is_empty() && written.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad(
            format!("gate value `{written}` is a string, not a number"),
            "a string",
            format!("write the percent without quotes: `{written}`"),
        ));
    }
    let word_end = written
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(written.len());
    let (word, rest) = written.split_at(word_end);
    if word != BASELINE {
        let help = if near_miss(word) {
            format!("did you mean `{BASELINE}`? {FORMS}")
        } else {
            FORMS.to_owned()
        };
        return Err(bad(
            format!("invalid gate value `{written}`"),
            "not a percent or a baseline expression",
            help,
        ));
    }
    let rest = rest.trim_start();
    let Some(sign) = rest.chars().next() else {
        return Ok(BaselineOffset::new(0));
    };
    let negative = match sign {
        '-' => true,
        '+' => false,
        _ => {
            return Err(bad(
                format!("invalid gate value `{written}`: only `+` and `-` move the baseline"),
                "not `baseline`, `baseline - N` or `baseline + N`",
                FORMS.to_owned(),
            ));
        }
    };
    let number = rest[sign.len_utf8()..].trim_start();
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        let help = if number.contains('.') || number.contains(',') {
            format!(
                "gates compare whole percents: write a whole number of points, like \
                 `{BASELINE} {sign} 2`"
            )
        } else {
            FORMS.to_owned()
        };
        return Err(bad(
            format!("invalid gate value `{written}`: `{number}` is not a whole number of points"),
            "not a whole number",
            help,
        ));
    }
    // Any offset past 100 points clamps alike, so a number too long for `i64` is read as
    // its largest value.
    let points = number.parse::<i64>().unwrap_or(i64::MAX);
    Ok(BaselineOffset::new(if negative { -points } else { points }))
}

/// Whether `word` looks like a slip for `baseline`.
fn near_miss(word: &str) -> bool {
    let word = word.to_ascii_lowercase();
    word == BASELINE
        || strsim::osa_distance(&word, BASELINE) <= 2
        || strsim::jaro_winkler(&word, BASELINE) > 0.85
}

#[cfg(test)]
mod tests;
