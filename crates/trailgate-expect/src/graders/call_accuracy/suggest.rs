//! The `call-accuracy` grader suggested from recorded runs (docs/init.md): the calls every
//! run made in order, each with the arguments every run passed, literal where they agree
//! and typed where they differ.

use serde_json::{Map, Value};
use trailgate_core::check_pairing_size;
use trailgate_trace::{Decimal, args_equal};

use crate::observed::{Observed, Suggested, literal, quote};

/// The expected calls, `args_mode: subset`, gated `call_accuracy.recall >= 100`; nothing
/// when the runs have no call in common or one is too long to pair.
pub(super) fn suggest(observed: &Observed<'_>) -> Option<Suggested> {
    if observed.common.is_empty()
        || observed
            .runs
            .iter()
            .any(|run| check_pairing_size(observed.common.len(), run.calls.len()).is_err())
    {
        return None;
    }
    let mut config = Suggested::default();
    config.noted(
        0,
        "args_mode: subset",
        "the arguments below, and any others",
    );
    config.line(0, "expected:");
    for (step, tool) in observed.common.iter().enumerate() {
        config.noted(
            1,
            format!("- tool: {}", tool.member()),
            if observed.n() == 1 {
                format!("call {} of the run", observed.matched[0][step] + 1)
            } else {
                format!("call {} of those every run made in order", step + 1)
            },
        );
        let args: Vec<&Value> = observed
            .runs
            .iter()
            .zip(&observed.matched)
            .map(|(run, matched)| run.calls[matched[step]].args())
            .collect();
        write_args(&mut config, &args, observed.n());
    }
    config.gate(
        0,
        "call_accuracy.recall",
        100,
        format!("every expected call made: {}", observed.holds()),
    );
    Some(config)
}

/// What the runs agree on of one argument.
enum Agreed {
    /// The same value in every run.
    Same(Value),
    /// Values of one type.
    Typed(&'static str),
}

/// The `args:` of an expected call from the arguments of its call in each run: each
/// argument every run passed, agreed on; nothing when no argument is.
fn write_args(config: &mut Suggested, args: &[&Value], runs: usize) {
    let objects: Option<Vec<&Map<String, Value>>> = args.iter().map(|a| a.as_object()).collect();
    let Some(objects) = objects else {
        return;
    };
    let Some(first) = objects.first() else {
        return;
    };
    let mut agreed: Vec<(&String, Agreed)> = Vec::new();
    for (key, value) in *first {
        let values: Option<Vec<&Value>> = objects.iter().map(|object| object.get(key)).collect();
        let Some(values) = values else {
            continue;
        };
        if values.iter().all(|v| args_equal(v, value)) {
            agreed.push((key, Agreed::Same(value.clone())));
        } else if let Some(kind) = shared_type(&values) {
            agreed.push((key, Agreed::Typed(kind)));
        }
    }
    if agreed.is_empty() {
        return;
    }
    let same = |count: usize| {
        if runs == 1 {
            "as recorded".to_owned()
        } else {
            format!("the same in {count} of {runs} runs")
        }
    };
    // An argument whose name starts with `$` cannot be named in `args:` (`{$schema: ...}`
    // reads as an operator): it is left out, and a comment says so.
    let dollar: Vec<String> = agreed
        .iter()
        .filter(|(key, _)| key.starts_with('$'))
        .map(|(key, _)| format!("`{}`", key.escape_debug()))
        .collect();
    agreed.retain(|(key, _)| !key.starts_with('$'));
    if !dollar.is_empty() {
        config.line(
            2,
            format!(
                "# left out, a name that starts with `$` reads as an operator: {}",
                dollar.join(", ")
            ),
        );
    }
    if agreed.is_empty() {
        return;
    }
    config.line(2, "args:");
    for (key, agreed) in agreed {
        let (value, why) = match agreed {
            Agreed::Same(value) => (literal(&value), same(runs)),
            Agreed::Typed(kind) => (
                format!("{{ \"$type\": {} }}", quote(kind)),
                format!("differs between runs, always of type {kind}"),
            ),
        };
        config.entry(3, key, &value, why);
    }
}

/// The JSON type every value has, by the names of `$type` (`integer` when every number is
/// integral by its exact value); `None` when they differ.
fn shared_type(values: &[&Value]) -> Option<&'static str> {
    let kind = |value: &Value| match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let first = kind(values.first()?);
    if values.iter().any(|value| kind(value) != first) {
        return None;
    }
    let integral = |value: &&Value| match value {
        Value::Number(number) => {
            Decimal::parse(&number.to_string()).is_some_and(|decimal| decimal.is_integer())
        }
        _ => false,
    };
    if first == "number" && values.iter().all(integral) {
        Some("integer")
    } else {
        Some(first)
    }
}
