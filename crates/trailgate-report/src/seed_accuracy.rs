//! The output object of seed 004's tool-call accuracy package, for `trailgate accuracy`:
//! the same keys and summary line, computed with integers so that the bytes are stable.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::{Number, Value};
use trailgate_core::pair_calls;
use trailgate_trace::{AccuracyInput, PlainCall, args_equal};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Output<'a> {
    score: Value,
    total_expected: usize,
    total_actual: usize,
    correct_calls: Vec<Paired<'a>>,
    incorrect_calls: Vec<Paired<'a>>,
    missed_calls: Vec<Missed<'a>>,
    extra_calls: Vec<&'a PlainCall>,
    summary: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Paired<'a> {
    expected: &'a PlainCall,
    actual: &'a PlainCall,
    status: &'static str,
    args_match: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Missed<'a> {
    expected: &'a PlainCall,
    status: &'static str,
    args_match: bool,
    details: String,
}

/// Scores seed 004's input and writes its output object, pretty-printed, with a trailing
/// newline.
///
/// Tool names are compared whole. `score` is F1 = 2·correct / (expected + actual), rounded
/// half up to three decimals with trailing zeros dropped (2/3 gives `0.667`); the summary's
/// percent has one decimal from the same rounding (`66.7%`). Both lists empty score 1.
///
/// Pairing grows faster than the lists: `trailgate accuracy` refuses an input past
/// `trailgate_core::check_pairing_size` before calling this.
pub fn render_seed_accuracy(input: &AccuracyInput, out: &mut dyn Write) -> io::Result<()> {
    let (expected, actual) = (&input.expected, &input.actual);
    let pairing = pair_calls(
        expected.len(),
        actual.len(),
        |e, a| expected[e].tool == actual[a].tool,
        |e, a| args_equal(&expected[e].args, &actual[a].args),
    );
    let total = expected.len() + actual.len();
    let permille = if total == 0 {
        1000
    } else {
        // round(1000 · 2c / total), half up, in integers.
        (pairing.correct.len() * 2000 * 2 + total) / (2 * total)
    };
    let summary = format!(
        "Accuracy Score: {}.{}% | Correct: {}/{} | Incorrect: {} | Missed: {} | Extra: {}",
        permille / 10,
        permille % 10,
        pairing.correct.len(),
        expected.len(),
        pairing.incorrect.len(),
        pairing.missed.len(),
        pairing.extra.len(),
    );
    let output = Output {
        score: score_value(permille),
        total_expected: expected.len(),
        total_actual: actual.len(),
        correct_calls: pairing
            .correct
            .iter()
            .map(|&(e, a)| Paired {
                expected: &expected[e],
                actual: &actual[a],
                status: "correct",
                args_match: true,
                details: None,
            })
            .collect(),
        incorrect_calls: pairing
            .incorrect
            .iter()
            .map(|&(e, a)| Paired {
                expected: &expected[e],
                actual: &actual[a],
                status: "incorrect",
                args_match: false,
                details: Some(mismatch_details(&expected[e].args, &actual[a].args)),
            })
            .collect(),
        missed_calls: pairing
            .missed
            .iter()
            .map(|&e| Missed {
                expected: &expected[e],
                status: "missed",
                args_match: false,
                details: format!("Expected call to {} was not made", expected[e].tool),
            })
            .collect(),
        extra_calls: pairing.extra.iter().map(|&a| &actual[a]).collect(),
        summary,
    };
    serde_json::to_writer_pretty(&mut *out, &output)?;
    writeln!(out)
}

/// `0`, `1`, or the shortest decimal of permille / 1000 (`0.4`, `0.667`).
fn score_value(permille: usize) -> Value {
    if permille.is_multiple_of(1000) {
        return Value::Number(Number::from(permille / 1000));
    }
    #[expect(
        clippy::cast_precision_loss,
        reason = "permille is at most 1000, exact in a float"
    )]
    let fraction = permille as f64 / 1000.0;
    // The shortest representation of the nearest double to n/1000 prints as n/1000.
    Number::from_f64(fraction).map_or(Value::Null, Value::Number)
}

fn mismatch_details(expected: &Value, actual: &Value) -> String {
    let keys = trailgate_expect::differing_keys(expected, actual);
    if keys.is_empty() {
        "Arguments differ".to_owned()
    } else {
        format!("Arguments differ: {}", keys.join(", "))
    }
}
