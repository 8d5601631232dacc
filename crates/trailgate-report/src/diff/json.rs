//! The diff as JSON: a versioned document built from structs in declaration order, every
//! list in a defined order (the head report's test order, metrics by name, the head's gates
//! then the base's unpaired ones, changed runs that now fail first).

use std::collections::BTreeMap;
use std::io::{self, Write};
use trailgate_expect::{MetricChange, MetricValue};

use serde::Serialize;

use super::read::{GateRead, TestRead};
use super::{
    Diff, GateDiff, GateSide, MetricDiff, PassRateInterval, PassRates, RunChange, RunTally,
    TestDiff,
};

/// The version of the diff's JSON layout. It changes only when a field changes meaning or
/// disappears; new fields may be added within a version.
pub const DIFF_JSON_VERSION: u32 = 1;

#[derive(Serialize)]
struct DiffJson<'a> {
    version: u32,
    regressed: bool,
    summary: Summary,
    tests: Vec<TestJson<'a>>,
    added: Vec<OneSide<'a>>,
    removed: Vec<OneSide<'a>>,
}

#[derive(Serialize)]
struct Summary {
    base: Counts,
    head: Counts,
    /// Tests in both reports, and of those: regressed, improved (and not regressed), changed
    /// otherwise, unchanged.
    in_both: usize,
    regressed: usize,
    improved: usize,
    changed: usize,
    unchanged: usize,
    added: usize,
    removed: usize,
}

#[derive(Serialize)]
struct Counts {
    tests: usize,
    passed: usize,
}

#[derive(Serialize)]
struct TestJson<'a> {
    name: &'a str,
    regressed: bool,
    improved: bool,
    base: Verdict,
    head: Verdict,
    metrics: Vec<MetricJson<'a>>,
    gates: Vec<GateJson<'a>>,
    runs: RunsJson<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pass_rate: Option<PassRateJson>,
}

#[derive(Serialize)]
struct Verdict {
    passed: bool,
    runs: usize,
}

#[derive(Serialize)]
struct MetricJson<'a> {
    name: &'a str,
    base: Option<MetricValue>,
    head: Option<MetricValue>,
    change: Option<MetricChange>,
}

#[derive(Serialize)]
struct GateJson<'a> {
    target: &'a str,
    op: &'a str,
    /// For a gate on the baseline: its expression (`baseline - 2`).
    #[serde(skip_serializing_if = "Option::is_none")]
    expression: Option<&'a str>,
    change: &'static str,
    base: Option<GateSideJson>,
    head: Option<GateSideJson>,
}

#[derive(Serialize)]
struct GateSideJson {
    value: Option<MetricValue>,
    actual: MetricValue,
    passed: Option<bool>,
}

#[derive(Serialize)]
struct RunsJson<'a> {
    lined_up: usize,
    judged: usize,
    base_only: usize,
    head_only: usize,
    changed: Vec<RunJson<'a>>,
}

#[derive(Serialize)]
struct RunJson<'a> {
    source: &'a str,
    line: Option<u64>,
    base_run: usize,
    head_run: usize,
    base: bool,
    head: bool,
}

#[derive(Serialize)]
struct PassRateJson {
    base: RunTally,
    head: RunTally,
    #[serde(skip_serializing_if = "Option::is_none")]
    interval: Option<PassRateInterval>,
}

/// A test of one report only: its verdict and its numbers.
#[derive(Serialize)]
struct OneSide<'a> {
    name: &'a str,
    passed: bool,
    runs: usize,
    metrics: &'a BTreeMap<String, MetricValue>,
    gates: Vec<OneGate<'a>>,
}

#[derive(Serialize)]
struct OneGate<'a> {
    target: &'a str,
    op: &'a str,
    value: Option<MetricValue>,
    actual: MetricValue,
    passed: Option<bool>,
}

/// Writes the diff as JSON, pretty-printed, with a trailing newline.
pub fn render_diff_json(diff: &Diff, out: &mut dyn Write) -> io::Result<()> {
    let regressed = diff.count(TestDiff::regressed);
    let improved = diff.count(|t| !t.regressed() && t.improved());
    let changed = diff.count(|t| !t.regressed() && !t.improved() && t.moved());
    let document = DiffJson {
        version: DIFF_JSON_VERSION,
        regressed: diff.regressed(),
        summary: Summary {
            base: Counts {
                tests: diff.base.tests,
                passed: diff.base.passed,
            },
            head: Counts {
                tests: diff.head.tests,
                passed: diff.head.passed,
            },
            in_both: diff.tests.len(),
            regressed,
            improved,
            changed,
            unchanged: diff.tests.len() - regressed - improved - changed,
            added: diff.added.len(),
            removed: diff.removed.len(),
        },
        tests: diff.tests.iter().map(test).collect(),
        added: diff.added.iter().map(one_side).collect(),
        removed: diff.removed.iter().map(one_side).collect(),
    };
    serde_json::to_writer_pretty(&mut *out, &document)?;
    writeln!(out)
}

fn test(test: &TestDiff) -> TestJson<'_> {
    TestJson {
        name: &test.name,
        regressed: test.regressed(),
        improved: test.improved(),
        base: Verdict {
            passed: test.base.passed,
            runs: test.base.runs,
        },
        head: Verdict {
            passed: test.head.passed,
            runs: test.head.runs,
        },
        metrics: test.metrics.iter().map(metric).collect(),
        gates: test.gates.iter().map(gate).collect(),
        runs: RunsJson {
            lined_up: test.runs.lined_up,
            judged: test.runs.judged,
            base_only: test.runs.base_only,
            head_only: test.runs.head_only,
            changed: test.runs.changed.iter().map(run).collect(),
        },
        pass_rate: test.pass_rate.map(pass_rate),
    }
}

fn metric(metric: &MetricDiff) -> MetricJson<'_> {
    MetricJson {
        name: &metric.name,
        base: metric.base,
        head: metric.head,
        change: metric.change(),
    }
}

fn gate(gate: &GateDiff) -> GateJson<'_> {
    let side = |side: GateSide| GateSideJson {
        value: side.value,
        actual: side.actual,
        passed: side.passed,
    };
    GateJson {
        target: &gate.target,
        op: &gate.op,
        expression: gate.expression.as_deref(),
        change: gate.change().as_str(),
        base: gate.base.map(side),
        head: gate.head.map(side),
    }
}

fn run(run: &RunChange) -> RunJson<'_> {
    RunJson {
        source: &run.source,
        line: run.line,
        base_run: run.base_run,
        head_run: run.head_run,
        base: !run.passes_now,
        head: run.passes_now,
    }
}

fn pass_rate(rates: PassRates) -> PassRateJson {
    PassRateJson {
        base: rates.base,
        head: rates.head,
        interval: rates.interval,
    }
}

fn one_side(test: &TestRead) -> OneSide<'_> {
    OneSide {
        name: &test.name,
        passed: test.passed,
        runs: test.runs,
        metrics: &test.metrics,
        gates: test
            .gates
            .iter()
            .map(|g: &GateRead| OneGate {
                target: &g.target,
                op: &g.op,
                value: g.value,
                actual: g.actual,
                passed: g.passed,
            })
            .collect(),
    }
}
