//! A block's `expect:` as the suite writes it (a list of gates, each a target and a map of
//! comparisons), checked into [`Gate`]s against the block's targets, and the `threshold`
//! fraction that moves a default gate. Every grader reads its `expect:` here.

use std::fmt;

use schemars::{JsonSchema, json_schema};
use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use trailgate_core::Percent;

use crate::decimal::{NotAnAmount, scaled};
use crate::error::{Problem, custom, suggest};
use crate::gate::{BaselineOffset, Gate, GateValue, Op, Target};
use crate::matchers::float_as_written_in_suite;
use crate::metric_value::{METRIC_DIGITS, MetricValue};
use crate::schema::described;
use crate::suite_file::{PathSeg, SuiteFile, join};

mod baseline;

pub(crate) use self::baseline::parse_expression;

/// The gates of an `expect:` list at `path`, or the block's `default` gate when it is
/// empty; `block_key` and `targets` are the block's.
pub(crate) fn gates(
    file: &SuiteFile,
    expect: Option<Expectations>,
    block_key: &str,
    targets: &[Target],
    default: Gate,
    path: &[PathSeg<'_>],
    problems: &mut Vec<Problem>,
) -> Vec<Gate> {
    gates_or(
        file,
        expect,
        block_key,
        targets,
        Some(default),
        path,
        problems,
    )
}

/// [`gates`], for a block whose default, when its list is empty, may be no gate at all.
pub(crate) fn gates_or(
    file: &SuiteFile,
    expect: Option<Expectations>,
    block_key: &str,
    targets: &[Target],
    default: Option<Gate>,
    path: &[PathSeg<'_>],
    problems: &mut Vec<Problem>,
) -> Vec<Gate> {
    let block = Block {
        key: block_key,
        targets,
        needs: |_| None,
    };
    gates_of(file, expect, &block, default, path, problems)
}

/// The block whose `expect:` is read: its key, the targets it produces with its settings,
/// and what it needs to produce a target it produces only with some of them (`budget`'s
/// `usage.cost` needs `max_cost`), for the help of an unknown target.
pub(crate) struct Block<'b> {
    pub(crate) key: &'b str,
    pub(crate) targets: &'b [Target],
    pub(crate) needs: fn(&str) -> Option<&'static str>,
}

/// [`gates`] of `block`.
pub(crate) fn gates_of(
    file: &SuiteFile,
    expect: Option<Expectations>,
    block: &Block<'_>,
    default: Option<Gate>,
    path: &[PathSeg<'_>],
    problems: &mut Vec<Problem>,
) -> Vec<Gate> {
    let (block_key, targets) = (block.key, block.targets);
    let entries = expect.map(|e| e.0).unwrap_or_default();
    if entries.is_empty() {
        let Some(default) = default else {
            return Vec::new();
        };
        // A default gate is written nowhere; it points at its block's key
        // (`equal_function_sets:`, or a grader's `config:`).
        let mut block_path = path[..path.len().saturating_sub(1)].to_vec();
        if let Some(PathSeg::Key(key)) = block_path.last().copied() {
            block_path.pop();
            block_path.push(PathSeg::KeyName(key));
        }
        let line = file.gate_line(&block_path, problems);
        return vec![Gate { line, ..default }];
    }
    let mut gates = Vec::new();
    for (index, entry) in entries.into_iter().enumerate() {
        let entry_path = join(path, &[PathSeg::Index(index)]);
        let Some(&target) = targets.iter().find(|t| t.as_str() == entry.target) else {
            let valid: Vec<String> = targets.iter().map(|t| t.as_str().to_owned()).collect();
            problems.push(
                file.located(
                    Problem::new(
                        "trailgate::suite::unknown_target",
                        format!("unknown target `{}` for `{}`", entry.target, block_key),
                        "unknown target",
                    )
                    .with_help(match (block.needs)(&entry.target) {
                        Some(need) => format!(
                            "`{}` {need}; valid targets here: {}",
                            entry.target,
                            valid
                                .iter()
                                .map(|t| format!("`{t}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        None => suggest(&entry.target, &valid, "valid targets"),
                    }),
                    &join(&entry_path, &[PathSeg::KeyName(&entry.target)]),
                ),
            );
            continue;
        };
        let ops = entry.comparison.gates();
        if ops.is_empty() {
            problems.push(
                file.located(
                    Problem::new(
                        "trailgate::suite::empty",
                        format!("the comparison for `{target}` has no operator"),
                        "no operator",
                    )
                    .with_help(format!("write for example `- {target}: {{ \">=\": 80 }}`")),
                    &join(&entry_path, &[PathSeg::Key(&entry.target)]),
                ),
            );
        }
        let line = file.gate_line(&entry_path, problems);
        for (op, raw) in ops {
            match raw.value(target) {
                Ok(value) => gates.push(Gate {
                    target,
                    op,
                    value,
                    line,
                }),
                Err(problem) => problems.push(file.located(
                    problem,
                    &join(
                        &entry_path,
                        &[PathSeg::Key(&entry.target), PathSeg::Key(op.as_str())],
                    ),
                )),
            }
        }
    }
    gates
}

/// The operators of one comparison map; all must hold.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Comparison {
    #[serde(rename = ">=")]
    ge: Option<RawGateValue>,
    #[serde(rename = ">")]
    gt: Option<RawGateValue>,
    #[serde(rename = "<=")]
    le: Option<RawGateValue>,
    #[serde(rename = "<")]
    lt: Option<RawGateValue>,
    #[serde(rename = "==")]
    eq: Option<RawGateValue>,
    #[serde(rename = "!=")]
    ne: Option<RawGateValue>,
}

impl Comparison {
    /// The operators given, in [`Op::ALL`] order.
    fn gates(self) -> Vec<(Op, RawGateValue)> {
        [
            (Op::Ge, self.ge),
            (Op::Gt, self.gt),
            (Op::Le, self.le),
            (Op::Lt, self.lt),
            (Op::Eq, self.eq),
            (Op::Ne, self.ne),
        ]
        .into_iter()
        .filter_map(|(op, value)| value.map(|v| (op, v)))
        .collect()
    }
}

/// A block's `expect:`: a list of gates. Written as a map, which is the common slip, it is
/// an error that shows the list form.
pub(crate) struct Expectations(Vec<RawExpectation>);

impl Expectations {
    /// Whether the list holds no gate.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'de> Deserialize<'de> for Expectations {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ExpectationsVisitor;
        impl<'de> Visitor<'de> for ExpectationsVisitor {
            type Value = Expectations;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of gates, like `- tool_selection.f1: { \">=\": 80 }`")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Expectations, A::Error> {
                let mut gates = Vec::new();
                while let Some(gate) = seq.next_element()? {
                    gates.push(gate);
                }
                Ok(Expectations(gates))
            }
            fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Expectations, A::Error> {
                Err(custom(
                    "trailgate::suite::invalid_value",
                    "`expect:` is a list of gates, not a map",
                    "a map",
                    "write each gate as an item of a list, starting with `- `: \
                     `expect: [{tool_selection.f1: {\">=\": 80}}]`, or on its own line \
                     `- tool_selection.f1: { \">=\": 80 }`",
                ))
            }
        }
        deserializer.deserialize_any(ExpectationsVisitor)
    }
}

/// The comparison of a gate: a map of operators. A string like `">= 80"` or a bare number
/// is the common slip, and its error shows the map form.
struct ComparisonValue(Comparison);

impl<'de> Deserialize<'de> for ComparisonValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ComparisonVisitor;
        impl<'de> Visitor<'de> for ComparisonVisitor {
            type Value = ComparisonValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map of operators to percents, like `{ \">=\": 80 }`")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ComparisonValue, A::Error> {
                Comparison::deserialize(MapAccessDeserializer::new(map)).map(ComparisonValue)
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<ComparisonValue, E> {
                let written = text.trim();
                let op = Op::ALL
                    .iter()
                    .filter(|op| written.starts_with(op.as_str()))
                    .max_by_key(|op| op.as_str().len());
                let help = match op {
                    Some(op) => format!(
                        "write the operator and the value as a map: `{{ \"{op}\": {} }}`",
                        written[op.as_str().len()..].trim()
                    ),
                    None => {
                        "write the operator and the value as a map: `{ \">=\": 80 }`".to_owned()
                    }
                };
                Err(custom(
                    "trailgate::suite::invalid_value",
                    &format!("a comparison is a map of operators, not the string `{written}`"),
                    "a string",
                    &help,
                ))
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<ComparisonValue, E> {
                Err(custom(
                    "trailgate::suite::invalid_value",
                    &format!("a comparison needs an operator, not only the value `{value}`"),
                    "no operator",
                    &format!("write for example `{{ \">=\": {value} }}`"),
                ))
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<ComparisonValue, E> {
                Err(custom(
                    "trailgate::suite::invalid_value",
                    &format!("a comparison needs an operator, not only the value `{value}`"),
                    "no operator",
                    "write for example `{ \">=\": 80 }`",
                ))
            }
        }
        deserializer.deserialize_any(ComparisonVisitor)
    }
}

/// `- target: { op: value, ... }`: a map with exactly one key.
struct RawExpectation {
    target: String,
    comparison: Comparison,
}

impl<'de> Deserialize<'de> for RawExpectation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ExpectationVisitor;
        impl<'de> Visitor<'de> for ExpectationVisitor {
            type Value = RawExpectation;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map from one target to a comparison, like `tool_selection.f1: { \">=\": 80 }`")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let Some(target) = map.next_key::<String>()? else {
                    return Err(custom(
                        "trailgate::suite::empty",
                        "an expectation is empty",
                        "empty",
                        "write a target and a comparison, like `- tool_selection.f1: { \">=\": 80 }`",
                    ));
                };
                let comparison = map.next_value::<ComparisonValue>()?.0;
                // `RejectKey` fails on any key, so a second target stops here, at its key.
                let _: Option<()> = map.next_key_seed(RejectKey)?;
                Ok(RawExpectation { target, comparison })
            }
        }
        deserializer.deserialize_map(ExpectationVisitor)
    }
}

/// Fails on any key, at the key: an expectation holds one target.
struct RejectKey;

impl<'de> DeserializeSeed<'de> for RejectKey {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(RejectKey)
    }
}

impl Visitor<'_> for RejectKey {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("no second target")
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<(), E> {
        Err(custom(
            "trailgate::suite::invalid_value",
            &format!("a second target `{key}` in one expectation"),
            "second target",
            "write one target per list entry: start a new entry with `- `",
        ))
    }
    fn visit_u64<E: de::Error>(self, key: u64) -> Result<(), E> {
        self.visit_str(&key.to_string())
    }
    fn visit_i64<E: de::Error>(self, key: i64) -> Result<(), E> {
        self.visit_str(&key.to_string())
    }
    fn visit_bool<E: de::Error>(self, key: bool) -> Result<(), E> {
        self.visit_str(&key.to_string())
    }
}

/// A gate's value as the suite writes it: a number, kept as its text until the gate's
/// target says what it may be (a whole percent from 0 to 100, or for a `usage.*` metric any
/// non-negative number with at most six decimals), or a string `baseline`, `baseline - N`
/// or `baseline + N`.
#[derive(Clone)]
enum RawGateValue {
    Number(String),
    Baseline(BaselineOffset),
}

impl RawGateValue {
    /// The value for a gate on `target`, or the problem with it (placed by the caller).
    fn value(self, target: Target) -> Result<GateValue, Problem> {
        let text = match self {
            Self::Baseline(offset) => return Ok(GateValue::Baseline(offset)),
            Self::Number(text) => text,
        };
        if target.is_percent() {
            return match MetricValue::parse(&text) {
                Some(value) if value.percent().is_some() => Ok(GateValue::Value(value)),
                Some(value) if value > MetricValue::whole(100) => Err(out_of_range(&text)),
                None if text.starts_with('-') => Err(out_of_range(&text)),
                _ => Err(Problem::new(
                    "trailgate::suite::invalid_value",
                    format!("gate value `{text}` is not a whole percent"),
                    "not an integer",
                )
                .with_help("gates compare integer percents from 0 to 100, like `80`")),
            };
        }
        match scaled(&text, METRIC_DIGITS) {
            Ok(millionths) => Ok(GateValue::Value(MetricValue::from_millionths(millionths))),
            Err(NotAnAmount::Negative) => Err(Problem::new(
                "trailgate::suite::out_of_range",
                format!("gate value `{text}` is negative"),
                "negative",
            )
            .with_help(format!(
                "`{target}` counts from 0; compare it with a value of 0 or more"
            ))),
            Err(NotAnAmount::TooPrecise) => Err(Problem::new(
                "trailgate::suite::invalid_value",
                format!("gate value `{text}` has more than six digits after the point"),
                "too precise",
            )
            .with_help(format!(
                "`{target}` is reported to six decimals (docs/graders/budget.md#usage-metrics)"
            ))),
            Err(NotAnAmount::TooLarge) => Err(Problem::new(
                "trailgate::suite::out_of_range",
                format!("gate value `{text}` is too large"),
                "too large",
            )
            .with_help(format!(
                "`{target}` holds at most 2^64 tokens; write a smaller value"
            ))),
        }
    }
}

impl<'de> Deserialize<'de> for RawGateValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ValueVisitor;
        impl Visitor<'_> for ValueVisitor {
            type Value = RawGateValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an integer from 0 to 100, or `baseline - N`")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<RawGateValue, E> {
                parse_expression(text)
                    .map(RawGateValue::Baseline)
                    .map_err(|bad| {
                        custom(
                            "trailgate::suite::invalid_value",
                            &bad.message,
                            bad.label,
                            &bad.help,
                        )
                    })
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<RawGateValue, E> {
                Ok(RawGateValue::Number(value.to_string()))
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<RawGateValue, E> {
                Ok(RawGateValue::Number(value.to_string()))
            }
            fn visit_u128<E: de::Error>(self, value: u128) -> Result<RawGateValue, E> {
                Ok(RawGateValue::Number(value.to_string()))
            }
            fn visit_i128<E: de::Error>(self, value: i128) -> Result<RawGateValue, E> {
                Ok(RawGateValue::Number(value.to_string()))
            }
            fn visit_f64<E: de::Error>(self, value: f64) -> Result<RawGateValue, E> {
                // The float is the YAML reader's; the text the suite writes is the number.
                if let Some(text) = float_as_written_in_suite(value)? {
                    return Ok(RawGateValue::Number(text));
                }
                serde_json::Number::from_f64(value)
                    .map(|number| RawGateValue::Number(number.to_string()))
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Float(value), &self))
            }
        }
        deserializer.deserialize_any(ValueVisitor)
    }
}

fn out_of_range(value: &str) -> Problem {
    Problem::new(
        "trailgate::suite::out_of_range",
        format!("gate value `{value}` is outside 0..100"),
        "not a percent",
    )
    .with_help("metrics are integer percents; use a value from 0 to 100")
}

/// `threshold`: a number from 0 to 1 with at most two decimals, kept as a whole percent.
#[derive(Clone, Copy)]
pub(crate) struct Threshold(pub(crate) Percent);

impl<'de> Deserialize<'de> for Threshold {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ThresholdVisitor;
        impl Visitor<'_> for ThresholdVisitor {
            type Value = Threshold;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number from 0 to 1 with at most two decimals")
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<Threshold, E> {
                match value {
                    0 => Ok(Threshold(Percent::ZERO)),
                    1 => Ok(Threshold(Percent::FULL)),
                    _ => Err(threshold_range(&value.to_string())),
                }
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<Threshold, E> {
                u64::try_from(value)
                    .map_err(|_| threshold_range(&value.to_string()))
                    .and_then(|v| self.visit_u64(v))
            }
            fn visit_f64<E: de::Error>(self, value: f64) -> Result<Threshold, E> {
                if !(0.0..=1.0).contains(&value) {
                    return Err(threshold_range(&value.to_string()));
                }
                // The YAML number is read as a float; a whole percent is within rounding
                // noise of an integer once scaled.
                let scaled = value * 100.0;
                let whole = scaled.round();
                if (scaled - whole).abs() > 1e-6 {
                    return Err(custom(
                        "trailgate::suite::invalid_value",
                        &format!("threshold `{value}` is not a whole percent"),
                        "more than two decimals",
                        "write the threshold with at most two decimals, like `0.75`",
                    ));
                }
                #[expect(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "`whole` is an integer from 0 to 100"
                )]
                let percent = Percent::new(whole as u8).unwrap_or(Percent::ZERO);
                Ok(Threshold(percent))
            }
        }
        deserializer.deserialize_any(ThresholdVisitor)
    }
}

fn threshold_range<E: de::Error>(value: &str) -> E {
    custom(
        "trailgate::suite::out_of_range",
        &format!("threshold `{value}` is outside 0..1"),
        "not between 0 and 1",
        "the threshold is a fraction: `0.5` gates `tool_correctness.score >= 50`",
    )
}

described!(RawGateValue, "GateValue", |_| json_schema!({
    "oneOf": [
        {"type": "number", "minimum": 0, "description": "a whole percent from 0 to 100; for a `usage.*` metric, tokens or a cost with at most six decimals"},
        {
            "type": "string",
            "pattern": "^\\s*baseline\\s*([+-]\\s*[0-9]+\\s*)?$",
            "description": "the baseline report's value of the metric, moved by N of its units (points; tokens or currency units for `usage.*`): `baseline`, `baseline - N`, `baseline + N` (check --baseline)"
        }
    ]
}));
described!(Threshold, "Threshold", |_| json_schema!({
    "type": "number", "minimum": 0, "maximum": 1, "multipleOf": 0.01,
    "description": "a fraction with at most two decimals; the default gate is score >= threshold * 100"
}));
described!(Expectations, "Expectations", |generator| {
    let item = generator.subschema_for::<RawExpectation>();
    json_schema!({
        "description": "a list of gates; an empty list applies the block's default gate",
        "type": "array",
        "items": item
    })
});
described!(RawExpectation, "Expectation", |generator| {
    let comparison = generator.subschema_for::<Comparison>();
    // The target names come from the registry of graders: `suite_schema` lists them under
    // `propertyNames`.
    json_schema!({
        "description": "one target mapped to a comparison, like `tool_selection.f1: { \">=\": 80 }`",
        "type": "object",
        "minProperties": 1,
        "maxProperties": 1,
        "additionalProperties": comparison
    })
});
