//! What `merge` reads of one test of a shard report, and the check that its numbers add
//! up: each grader's block checked by the grader's own module (`graders/<kind>/recheck.rs`),
//! the gates and the verdict here.
//!
//! A test may list tens of thousands of runs, so its runs are never collected (see
//! `recheck.rs`). The checks and their messages are the ones a report held whole would
//! give, in the same order.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::expect::parse_expression;
use crate::gate::{Op, names_percent};
use crate::graders::contract::GraderRecheck;
use crate::graders::registry;
use crate::metric_value::MetricValue;
use crate::recheck::{Fold, Metrics, Runs, same};
use crate::reliability::{ReliabilityView, inconclusive_note};
use crate::stability::Stability;
use crate::verdict::Verdict;
use trailgate_core::reliability::Reliability;

/// A run's entry in a test's `sources`: its verdict (docs/reports.md#each-runs-verdict).
#[derive(Debug, Deserialize)]
struct SourceView {
    passed: Option<bool>,
    calls: Option<u64>,
}

/// A row of a test's per-agent table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AgentView {
    agent: String,
    calls: u64,
    errors: u64,
    tools: Vec<String>,
}

/// The sources of a test, folded: how many runs passed.
#[derive(Debug, Default)]
struct SourceFold {
    passed: u64,
    /// The runs' calls, summed.
    calls: u64,
}

impl Fold for SourceFold {
    type Run = SourceView;

    fn add(&mut self, _index: u64, run: SourceView) -> Result<(), String> {
        self.passed += u64::from(run.passed == Some(true));
        self.calls = self.calls.saturating_add(run.calls.unwrap_or(0));
        Ok(())
    }
}

/// Builds, from the registry, the test as `merge` reads it (each kind's object read by its
/// kind's view) and the check of each kind's object.
macro_rules! shard_kinds {
    ($($field:ident: $variant:ident = $grader:ty, $key:literal;)*) => {
        /// What merging needs of a test: its verdict, its gates, and the counts they come
        /// from.
        #[derive(Debug, Deserialize)]
        pub struct ShardTest {
            name: String,
            agent: Option<String>,
            passed: bool,
            runs: usize,
            passed_runs: Option<u64>,
            stability: Option<String>,
            xfail: Option<String>,
            verdict: Option<String>,
            sources: Runs<SourceFold>,
            metrics: BTreeMap<String, MetricValue>,
            gates: Vec<ShardGate>,
            $($field: Option<<$grader as GraderRecheck>::View>,)*
            reliability: Option<ReliabilityView>,
            agents: Option<Vec<AgentView>>,
        }

        impl ShardTest {
            /// Each kind's object's run list and the kind's check of its numbers, in
            /// registry order: a list as long as `runs` first (a shard report lists every
            /// run of every block), then the sums.
            fn add_up_kinds(&self, metrics: &Metrics<'_>) -> Result<(), String> {
                $(
                    if let Some(view) = &self.$field {
                        let listed = <$grader as GraderRecheck>::listed_runs(view);
                        self.same_runs(concat!(stringify!($field), ".runs"), listed)?;
                    }
                )*
                $(
                    if let Some(view) = &self.$field {
                        <$grader as GraderRecheck>::add_up(view, metrics)?;
                    }
                )*
                Ok(())
            }
        }
    };
}

registry!(shard_kinds);

/// What the merged report keeps of a test once its numbers are checked.
#[derive(Debug)]
pub struct KeptTest {
    /// The test's name.
    pub name: String,
    /// Its agent label, when it has one.
    pub agent: Option<String>,
    /// Its verdict.
    pub passed: bool,
    /// How many runs it scored.
    pub runs: usize,
    /// Its gates, in suite order.
    pub gates: Vec<ShardGate>,
    /// Its stability, when it has two runs or more.
    pub stability: Option<Stability>,
    /// Why it is expected to fail, when it is marked.
    pub xfail: Option<String>,
}

impl KeptTest {
    /// Its verdict with its mark counted.
    pub fn verdict(&self) -> Verdict {
        Verdict::of(self.passed, self.xfail.is_some())
    }
}

impl ShardTest {
    /// The test's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Drops what was only read to be checked.
    pub fn keep(self) -> KeptTest {
        KeptTest {
            stability: self.runs_stability(),
            name: self.name,
            agent: self.agent,
            passed: self.passed,
            runs: self.runs,
            gates: self.gates,
            xfail: self.xfail,
        }
    }
}

/// A gate of a shard report's test, as written.
#[derive(Debug, Deserialize)]
pub struct ShardGate {
    /// The metric compared.
    pub target: String,
    /// The operator.
    pub op: String,
    /// The value it is compared with; `None` for a skipped gate.
    pub value: Option<MetricValue>,
    /// The metric's value.
    pub actual: MetricValue,
    /// The gate's verdict; `None` for a skipped gate.
    pub passed: Option<bool>,
    /// A remark on the verdict: an inconclusive reliability gate.
    pub note: Option<String>,
    /// For a gate on the baseline: its expression and the baseline's value.
    #[serde(default)]
    pub baseline: Option<ShardBaseline>,
    /// Why the gate was skipped, when it was.
    #[serde(default)]
    pub skipped: Option<String>,
}

/// A gate on the baseline in a shard report: the expression as written and the baseline's
/// value of the metric (`None` when skipped).
#[derive(Debug, Deserialize)]
pub struct ShardBaseline {
    /// `baseline`, `baseline - N` or `baseline + N`.
    pub expression: String,
    /// The metric's value in the baseline report.
    pub base: Option<MetricValue>,
}

impl ShardGate {
    /// The gate as the text report shows it: `target op value`, and for a gate on the
    /// baseline its expression and what it resolved to (`GateOutcome::written`).
    pub fn written(&self) -> String {
        match (&self.baseline, self.value) {
            (Some(baseline), Some(value)) => match baseline.base {
                Some(base) => format!(
                    "{} {} {} (baseline {base}, so {value})",
                    self.target, self.op, baseline.expression
                ),
                None => format!("{} {} {}", self.target, self.op, baseline.expression),
            },
            (Some(baseline), None) => {
                format!("{} {} {}", self.target, self.op, baseline.expression)
            }
            (None, Some(value)) => format!("{} {} {value}", self.target, self.op),
            (None, None) => format!("{} {}", self.target, self.op),
        }
    }

    /// Whether the gate failed (a skipped gate does not).
    pub fn failed(&self) -> bool {
        self.passed == Some(false)
    }
}

impl ShardTest {
    /// Checks that a test's numbers add up: each aggregate is what its runs' counts give, each
    /// metric what its aggregate gives, each gate's verdict what its operator says of the
    /// metric, and the test's verdict what its gates say.
    pub fn add_up(&self) -> Result<(), String> {
        let metrics = Metrics(&self.metrics);
        self.sources.first_problem()?;
        self.same_runs("sources", self.sources.listed)?;
        if let Some(passed_runs) = self.passed_runs {
            same("passed_runs", passed_runs, self.sources.fold.passed)?;
        }
        self.add_up_kinds(&metrics)?;
        let figures = self
            .reliability
            .as_ref()
            .map(|reliability| reliability.add_up(self.runs as u64, self.passed_runs, &metrics))
            .transpose()?;
        self.same_stability()?;
        self.same_agents()?;
        self.same_verdict()?;
        apply_gates(self, figures.as_ref())
    }

    /// The per-agent table (docs/reports.md#agents) is a table a run could give: its rows in
    /// name order, each agent once, no more errors than calls, tools in byte order, and no
    /// more calls than the runs' `sources` count.
    fn same_agents(&self) -> Result<(), String> {
        let Some(rows) = &self.agents else {
            return Ok(());
        };
        if rows.is_empty() {
            return Err("`agents` is an empty list".to_owned());
        }
        if rows.windows(2).any(|pair| pair[0].agent >= pair[1].agent) {
            return Err("`agents` is not in agent-name order, each agent once".to_owned());
        }
        let mut calls: u64 = 0;
        for row in rows {
            if row.errors > row.calls || row.calls == 0 {
                return Err(format!(
                    "`agents` gives `{}` {} errors of {} calls",
                    row.agent, row.errors, row.calls
                ));
            }
            if row.tools.is_empty() || row.tools.windows(2).any(|pair| pair[0] >= pair[1]) {
                return Err(format!(
                    "the tools of `{}` in `agents` are not distinct names in order",
                    row.agent
                ));
            }
            calls = calls.saturating_add(row.calls);
        }
        if calls > self.sources.fold.calls {
            return Err(format!(
                "`agents` counts {calls} calls but the runs' `sources` have {}",
                self.sources.fold.calls
            ));
        }
        Ok(())
    }

    /// A marked test's `verdict` is the one its `passed` and mark give, and an unmarked test
    /// has none (docs/reliability.md#expected-failures).
    fn same_verdict(&self) -> Result<(), String> {
        if self
            .xfail
            .as_deref()
            .is_some_and(|reason| reason.trim().is_empty())
        {
            return Err("`xfail` has an empty reason".to_owned());
        }
        let verdict = Verdict::of(self.passed, self.xfail.is_some()).marked_word();
        if self.verdict.as_deref() == verdict {
            return Ok(());
        }
        Err(format!(
            "`verdict` is {} but a test {} whose gates {} gives {}",
            self.verdict.as_deref().unwrap_or("missing"),
            if self.xfail.is_some() {
                "marked `xfail`"
            } else {
                "not marked `xfail`"
            },
            if self.passed { "held" } else { "failed" },
            verdict.unwrap_or("none")
        ))
    }

    /// The stability the runs' verdicts give (none for one run).
    fn runs_stability(&self) -> Option<Stability> {
        self.passed_runs
            .and_then(|passed| Stability::of(passed, self.runs as u64))
    }

    /// The stated `stability` is the one its runs' verdicts give (none for one run).
    fn same_stability(&self) -> Result<(), String> {
        let stability = self.runs_stability().map(Stability::as_str);
        if self.stability.as_deref() == stability {
            return Ok(());
        }
        Err(format!(
            "`stability` is {} but {} of {} runs passed on their own give {}",
            self.stability.as_deref().unwrap_or("missing"),
            self.passed_runs.unwrap_or(0),
            self.runs,
            stability.unwrap_or("none")
        ))
    }

    /// A list of `block` holds `listed` runs: as many as `runs` says.
    fn same_runs(&self, block: &str, listed: u64) -> Result<(), String> {
        if listed != self.runs as u64 {
            return Err(format!(
                "`{block}` lists {listed} runs but `runs` says {}",
                self.runs
            ));
        }
        Ok(())
    }
}

/// Applies each gate again to its metric, and the test's verdict to its gates.
fn apply_gates(view: &ShardTest, figures: Option<&Reliability>) -> Result<(), String> {
    let mut all = true;
    for gate in &view.gates {
        let label = format!("gate `{}`", gate.written());
        // A gate on the baseline carries the value it resolved to: `merge` rechecks the
        // comparison with that value, and that the value is the baseline's moved by the
        // offset; a skipped gate stays skipped, with no value and no verdict.
        if let Some(baseline) = &gate.baseline {
            let offset = parse_expression(&baseline.expression)
                .map_err(|bad| format!("{label}: {}", bad.message))?;
            match (&gate.skipped, baseline.base, gate.value, gate.passed) {
                (Some(_), None, None, None) => {
                    let metric = view.metrics.get(&gate.target).copied();
                    if metric != Some(gate.actual) {
                        return Err(format!(
                            "{label} compared {} but the metric is {}",
                            gate.actual,
                            metric.map_or_else(|| "missing".to_owned(), |m| m.to_string())
                        ));
                    }
                    continue;
                }
                (None, Some(base), Some(value), Some(_)) => {
                    let resolved = offset.resolve(names_percent(&gate.target), base);
                    if resolved != value {
                        return Err(format!(
                            "{label} compared with {value} but the baseline's {base} gives \
                             {resolved}"
                        ));
                    }
                }
                _ => {
                    return Err(format!(
                        "{label} is neither skipped (no value, no verdict) nor resolved (a \
                         value, a verdict and the baseline's value)"
                    ));
                }
            }
        }
        let (Some(op), Some(value), Some(expected), Some(actual)) = (
            Op::from_symbol(&gate.op),
            gate.value,
            gate.passed,
            view.metrics.get(&gate.target).copied(),
        ) else {
            return Err(format!("{label} does not name a metric of this test"));
        };
        if actual != gate.actual {
            return Err(format!(
                "{label} compared {} but the metric is {actual}",
                gate.actual
            ));
        }
        let passed = op.holds(actual, value);
        if passed != expected {
            return Err(format!(
                "{label} says {} but {actual} {} {value} is {passed}",
                verdict(expected),
                gate.op
            ));
        }
        let note = figures.and_then(|figures| inconclusive_note(figures, &gate.target, op, value));
        if note != gate.note {
            return Err(format!(
                "{label} is noted {:?} but its runs give {:?}",
                gate.note.as_deref().unwrap_or("nothing"),
                note.as_deref().unwrap_or("nothing")
            ));
        }
        all &= passed;
    }
    if all != view.passed {
        return Err(format!(
            "the test says {} but its gates say {}",
            verdict(view.passed),
            verdict(all)
        ));
    }
    Ok(())
}

fn verdict(passed: bool) -> &'static str {
    if passed { "passed" } else { "failed" }
}
