//! A test's `reliability:` block (docs/reliability.md): `k`, `confidence` and `expect:`, checked;
//! its figures over a test's runs (n runs, c of which passed on their own), computed by
//! `trailgate_core::reliability`; what the reports say of them; and what `merge` checks of
//! them.
//!
//! The block is not a grader: it grades no run, it counts the runs' verdicts, which every
//! grader's gates make. It works the same whatever graders the test has.

use crate::metric_value::MetricValue;
use std::fmt;

use schemars::{JsonSchema, json_schema};
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use trailgate_core::reliability::{self as stats, Confidence, Reliability, ReliabilityError};
use trailgate_trace::Decimal;

use crate::error::{Problem, custom};
use crate::expect::{self, Expectations};
use crate::gate::{Baseline, Gate, GateOutcome, Op, Target, gate_outcome};
use crate::json_part::JsonPart;
use crate::recheck::{Metrics, same, same_percent};
use crate::schema::described;
use crate::section::{Line, Piece, Section};
use crate::suite_file::{PathSeg, SuiteFile, join, plain_number};

/// The block's key in a test.
const KEY: &str = "reliability";

/// `reliability.pass_rate`.
const PASS_RATE: Target = Target::new("reliability.pass_rate");
/// `reliability.pass_at_k`.
const PASS_AT_K: Target = Target::new("reliability.pass_at_k");
/// `reliability.pass_hat_k`.
const PASS_HAT_K: Target = Target::new("reliability.pass_hat_k");
/// `reliability.pass_rate.lower`.
const LOWER: Target = Target::new("reliability.pass_rate.lower");
/// `reliability.pass_rate.upper`.
const UPPER: Target = Target::new("reliability.pass_rate.upper");

/// The block's metrics, in report order.
pub(crate) const TARGETS: &[Target] = &[PASS_RATE, PASS_AT_K, PASS_HAT_K, LOWER, UPPER];

/// A test's `reliability:` block, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReliabilityBlock {
    /// The k of pass@k and pass^k (default 1).
    pub k: u64,
    /// The confidence of the pass rate's interval (default 95).
    pub confidence: Confidence,
    /// Its gates, in suite order; none when `expect:` is omitted (the block reports).
    pub gates: Vec<Gate>,
}

/// The block's figures over a test's runs, and its gates' verdicts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReliabilityOutcome {
    /// Every figure: n, c, k, the confidence, the metrics, the interval, pass^k's decay and
    /// the runs that would resolve an inconclusive gate.
    pub figures: Reliability,
}

impl ReliabilityBlock {
    /// The figures of `runs` runs of which `passed` passed, or why they cannot be computed
    /// (`k` above the number of runs).
    pub(crate) fn outcome(
        &self,
        runs: u64,
        passed: u64,
    ) -> Result<ReliabilityOutcome, ReliabilityError> {
        let figures = stats::reliability(runs, passed, self.k, self.confidence)?;
        Ok(ReliabilityOutcome { figures })
    }

    /// The block's problem when the test found `runs` runs: a `k` above them.
    pub(crate) fn run_count_problem(
        &self,
        test_index: usize,
        runs: usize,
        file: &SuiteFile,
    ) -> Option<Problem> {
        (self.k > runs as u64).then(|| {
            let path = [
                PathSeg::Key("tests"),
                PathSeg::Index(test_index),
                PathSeg::Key(KEY),
                PathSeg::Key("k"),
            ];
            file.located(k_above_runs(self.k, runs as u64), &path)
        })
    }
}

/// The problem of a `k` above the number of runs.
fn k_above_runs(k: u64, runs: u64) -> Problem {
    Problem::new(
        "trailgate::suite::out_of_range",
        format!("`k` is {k} but the test has {runs} runs"),
        "more than the runs",
    )
    .with_help(format!(
        "pass@k and pass^k draw k of the runs: write a `k` of at most {runs}, or record more runs"
    ))
}

/// The note on a gate `target op value` that the runs behind `figures` do not settle: a
/// gate on `reliability.pass_rate` whose claim the interval neither supports nor refutes.
///
/// The bounds are rounded outwards (lower down, upper up), so with L and U the exact bounds:
/// `>= v` is settled true when v <= L (v <= lower) and settled false when U < v
/// (upper < v); it is inconclusive when lower < v <= upper. Likewise `> v` when
/// lower <= v < upper, `<= v` when lower <= v < upper, `< v` when lower < v <= upper, and
/// `==` and `!=` when lower <= v <= upper. So 20 runs out of 20 (interval 83 to 100) do not
/// settle `>= 100`: the rate may be as low as 83.
pub(crate) fn inconclusive_note(
    figures: &Reliability,
    target: &str,
    op: Op,
    value: MetricValue,
) -> Option<String> {
    let (lower, upper) = (
        MetricValue::from(figures.interval.lower),
        MetricValue::from(figures.interval.upper),
    );
    let open = match op {
        Op::Ge | Op::Lt => lower < value && value <= upper,
        Op::Gt | Op::Le => lower <= value && value < upper,
        Op::Eq | Op::Ne => lower <= value && value <= upper,
    };
    (target == PASS_RATE.as_str() && open).then(|| {
        format!(
            "inconclusive: {value} lies inside the {}% interval {lower} to {upper}; about {} \
             runs would settle it",
            figures.confidence.percent(),
            figures.runs_to_resolve
        )
    })
}

impl ReliabilityOutcome {
    /// The block's metrics, in report order.
    pub(crate) fn metrics(&self) -> Vec<(Target, MetricValue)> {
        let f = &self.figures;
        vec![
            (PASS_RATE, f.pass_rate.into()),
            (PASS_AT_K, f.pass_at_k.into()),
            (PASS_HAT_K, f.pass_hat_k.into()),
            (LOWER, f.interval.lower.into()),
            (UPPER, f.interval.upper.into()),
        ]
    }

    /// A gate's verdict, with the inconclusive mark on a gate on `reliability.pass_rate`
    /// that its runs do not settle (its verdict stands; see [`inconclusive_note`]).
    /// A gate on the baseline is judged on the value it resolves to, and has no note when
    /// it is skipped.
    pub(crate) fn judge(
        &self,
        gate: Gate,
        metrics: &[(Target, MetricValue)],
        test: &str,
        baseline: Option<&Baseline>,
    ) -> GateOutcome {
        let mut outcome = gate_outcome(gate, metrics, test, baseline);
        outcome.note = outcome.value().and_then(|value| {
            inconclusive_note(&self.figures, gate.target.as_str(), gate.op, value)
        });
        outcome
    }

    /// What the block says about the test, for the reports.
    pub(crate) fn section(&self) -> Section {
        let f = &self.figures;
        let decay = f
            .decay
            .iter()
            .map(|p| p.value().to_string())
            .collect::<Vec<_>>()
            .join(" ");
        let heading: Line = vec![Piece::text(format!(
            "reliability: {} of {} runs passed on their own (k {}, {}% confidence)",
            f.passed,
            f.runs,
            f.k,
            f.confidence.percent()
        ))];
        let summary: Line = vec![Piece::text(format!(
            "pass_rate {} ({} to {})  pass_at_k {}  pass_hat_k {}  pass^k for k = 1..{}: {decay}",
            f.pass_rate,
            f.interval.lower,
            f.interval.upper,
            f.pass_at_k,
            f.pass_hat_k,
            f.decay.len()
        ))];
        Section {
            key: KEY,
            title: "Reliability",
            targets: TARGETS,
            heading: Some(heading),
            key_width: 0,
            runs: Vec::new(),
            summary,
            facts: Vec::new(),
            gate_note: None,
            explained: &[],
        }
    }

    /// The block's object in the test's JSON.
    pub(crate) fn json_part(&self) -> JsonPart {
        let f = &self.figures;
        let decay: Vec<u8> = f.decay.iter().map(|p| p.value()).collect();
        JsonPart::new(KEY)
            .value("runs", &f.runs)
            .value("passed", &f.passed)
            .value("k", &f.k)
            .value("confidence", &f.confidence.percent())
            .value("pass_rate", &f.pass_rate.value())
            .value("pass_at_k", &f.pass_at_k.value())
            .value("pass_hat_k", &f.pass_hat_k.value())
            .value("lower", &f.interval.lower.value())
            .value("upper", &f.interval.upper.value())
            .value("pass_hat_k_decay", &decay)
            .value("runs_to_resolve", &f.runs_to_resolve)
    }
}

/// What `merge` reads of the block's object in a shard report's test.
#[derive(Debug, Deserialize)]
pub(crate) struct ReliabilityView {
    runs: u64,
    passed: u64,
    k: u64,
    confidence: u64,
    pass_rate: u8,
    pass_at_k: u8,
    pass_hat_k: u8,
    lower: u8,
    upper: u8,
    pass_hat_k_decay: Vec<u8>,
    runs_to_resolve: u64,
}

impl ReliabilityView {
    /// Checks that the object's figures are what its counts give, for a test of `runs`
    /// runs of which `passed` passed, and that the test's metrics state them.
    pub(crate) fn add_up(
        &self,
        runs: u64,
        passed: Option<u64>,
        metrics: &Metrics<'_>,
    ) -> Result<Reliability, String> {
        same("reliability.runs", self.runs, runs)?;
        if let Some(passed) = passed {
            same("reliability.passed", self.passed, passed)?;
        }
        let confidence = Confidence::from_percent(self.confidence).map_err(|e| e.to_string())?;
        let f = stats::reliability(self.runs, self.passed, self.k, confidence)
            .map_err(|e| format!("`reliability`: {e}"))?;
        for (what, stated, derived) in [
            ("reliability.pass_rate", self.pass_rate, f.pass_rate),
            ("reliability.pass_at_k", self.pass_at_k, f.pass_at_k),
            ("reliability.pass_hat_k", self.pass_hat_k, f.pass_hat_k),
            ("reliability.lower", self.lower, f.interval.lower),
            ("reliability.upper", self.upper, f.interval.upper),
        ] {
            same_percent(what, stated, derived)?;
        }
        let decay: Vec<u8> = f.decay.iter().map(|p| p.value()).collect();
        if self.pass_hat_k_decay != decay {
            return Err(format!(
                "`reliability.pass_hat_k_decay` is {:?} but its counts give {decay:?}",
                self.pass_hat_k_decay
            ));
        }
        same(
            "reliability.runs_to_resolve",
            self.runs_to_resolve,
            f.runs_to_resolve,
        )?;
        let outcome = ReliabilityOutcome { figures: f };
        for (target, value) in outcome.metrics() {
            metrics.check(target.as_str(), value)?;
        }
        Ok(outcome.figures)
    }
}

// ---------------------------------------------------------------------------------------
// The block as the suite writes it. (Plain comments on the derived types: schemars would
// put a doc comment into `trailgate schema`.)

#[derive(Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawReliability {
    k: Option<RawK>,
    confidence: Option<RawConfidence>,
    expect: Option<Expectations>,
}

impl RawReliability {
    /// The block of a test that writes `reliability:`, with nothing after it too (the
    /// defaults: k 1, 95 %, no gate).
    pub(crate) fn present<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Self>, D::Error> {
        Ok(Some(
            Option::<Self>::deserialize(deserializer)?.unwrap_or_default(),
        ))
    }

    /// The block at `path` (the test's `reliability:`), checked, for a test that says it
    /// has `runs` runs; `None` when it has problems.
    pub(crate) fn check(
        self,
        file: &SuiteFile,
        path: &[PathSeg<'_>],
        runs: Option<u64>,
        problems: &mut Vec<Problem>,
    ) -> Option<ReliabilityBlock> {
        let before = problems.len();
        let k = self.k.map_or(1, |k| k.0);
        if let Some(runs) = runs
            && k > runs
        {
            problems.push(file.located(k_above_runs(k, runs), &join(path, &[PathSeg::Key("k")])));
        }
        let gates = expect::gates_or(
            file,
            self.expect,
            KEY,
            TARGETS,
            None,
            &join(path, &[PathSeg::Key("expect")]),
            problems,
        );
        (problems.len() == before).then(|| ReliabilityBlock {
            k,
            confidence: self.confidence.map_or_else(Confidence::default, |c| c.0),
            gates,
        })
    }
}

/// `k:`, a positive integer.
struct RawK(u64);

impl<'de> Deserialize<'de> for RawK {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KVisitor;
        impl Visitor<'_> for KVisitor {
            type Value = RawK;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a positive integer")
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<RawK, E> {
                if value == 0 {
                    return Err(custom(
                        "trailgate::suite::out_of_range",
                        "`k` is 0",
                        "must be at least 1",
                        "k is how many runs pass@k and pass^k draw: write 1 (the default) or more",
                    ));
                }
                Ok(RawK(value))
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<RawK, E> {
                u64::try_from(value)
                    .map_err(|_| below_one(&value.to_string()))
                    .and_then(|v| self.visit_u64(v))
            }
            fn visit_u128<E: de::Error>(self, value: u128) -> Result<RawK, E> {
                Err(too_large(&value.to_string()))
            }
            fn visit_i128<E: de::Error>(self, value: i128) -> Result<RawK, E> {
                Err(if value < 0 {
                    below_one(&value.to_string())
                } else {
                    too_large(&value.to_string())
                })
            }
            /// An integer the YAML reader read as a float, past 128 bits: too large; any
            /// other float is no integer.
            fn visit_f64<E: de::Error>(self, value: f64) -> Result<RawK, E> {
                // 2^64: no float at or past it is a `u64`.
                const PAST_U64: f64 = 18_446_744_073_709_551_616.0;
                if value.is_finite() && value.fract() == 0.0 && value.abs() >= PAST_U64 {
                    let written = format!("{value:e}");
                    return Err(if value < 0.0 {
                        below_one(&written)
                    } else {
                        too_large(&written)
                    });
                }
                Err(E::invalid_type(de::Unexpected::Float(value), &self))
            }
            /// A plain number past a float's range, which the YAML reader hands over as a
            /// string.
            fn visit_str<E: de::Error>(self, text: &str) -> Result<RawK, E> {
                match plain_number(text) {
                    Some(number) if number.starts_with('-') => Err(below_one(&number)),
                    Some(number) if Decimal::parse(&number).is_some_and(|n| n.is_integer()) => {
                        Err(too_large(&number))
                    }
                    _ => Err(E::invalid_type(de::Unexpected::Str(text), &self)),
                }
            }
        }
        /// `k` below 1.
        fn below_one<E: de::Error>(value: &str) -> E {
            custom(
                "trailgate::suite::out_of_range",
                &format!("`k` is {value}"),
                "must be at least 1",
                "k is how many runs pass@k and pass^k draw: write 1 (the default) or more",
            )
        }
        /// `k` past what 64 bits hold.
        fn too_large<E: de::Error>(value: &str) -> E {
            custom(
                "trailgate::suite::out_of_range",
                &format!("`k` is {value}, more than the largest k, {}", u64::MAX),
                "too large",
                "k is how many runs pass@k and pass^k draw: at least 1 and at most the number \
                 of runs",
            )
        }
        deserializer.deserialize_any(KVisitor)
    }
}

/// `confidence:`, 90, 95 or 99.
struct RawConfidence(Confidence);

impl<'de> Deserialize<'de> for RawConfidence {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ConfidenceVisitor;
        impl Visitor<'_> for ConfidenceVisitor {
            type Value = RawConfidence;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("90, 95 or 99")
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<RawConfidence, E> {
                Confidence::from_percent(value).map(RawConfidence).map_err(|_| {
                    custom(
                        "trailgate::suite::invalid_value",
                        &format!("`confidence` is {value}"),
                        "not 90, 95 or 99",
                        "write 90, 95 or 99: the percent confidence of the pass rate's interval",
                    )
                })
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<RawConfidence, E> {
                self.visit_u64(u64::try_from(value).unwrap_or(u64::MAX))
            }
            fn visit_f64<E: de::Error>(self, value: f64) -> Result<RawConfidence, E> {
                Err(custom(
                    "trailgate::suite::invalid_value",
                    &format!("`confidence` is {value}"),
                    "not 90, 95 or 99",
                    "write 90, 95 or 99 as a whole percent (95, not 0.95)",
                ))
            }
        }
        deserializer.deserialize_any(ConfidenceVisitor)
    }
}

described!(RawK, "ReliabilityK", |_| json_schema!({
    "type": "integer", "minimum": 1,
    "description": "how many runs pass@k and pass^k draw; at most the number of runs (default 1)"
}));
described!(RawConfidence, "Confidence", |_| json_schema!({
    "enum": [90, 95, 99],
    "description": "the percent confidence of the pass rate's Wilson interval (default 95)"
}));
