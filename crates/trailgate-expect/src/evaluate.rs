//! Evaluating a test: score its runs one at a time, then gate the aggregate.

use crate::metric_value::MetricValue;
use trailgate_core::reliability::ReliabilityError;
use trailgate_trace::Run;

use crate::agents::AgentTable;
use crate::error::Problem;
use crate::gate::{Baseline, GateOutcome, Target, gate_outcome};
use crate::graders::contract::{Grader, GraderReport, ToolMarks, Unjudged, Verdicts};
use crate::graders::{Block, registry};
use crate::model::Test;
use crate::reliability::ReliabilityOutcome;
use crate::run::{Detail, LISTED_RUNS, RunInfo, RunSource, RunTools, TestRun};
use crate::section::Section;
use crate::suite_file::{PathSeg, SuiteFile, join};

/// The result of one test.
///
/// The aggregates cover every run; the per-run details (`runs` here and the `runs` of each
/// grader's outcome, index for index) cover only the runs listed: every run when there are
/// at most [`LISTED_RUNS`], otherwise the first [`LISTED_RUNS`] runs with findings
/// ([`RunOutcome::has_findings`]). A report that lists every run receives each one as it is
/// scored, through [`TestEvaluator::grade`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TestOutcome {
    /// The test's name.
    pub name: String,
    /// The agent label, when the suite gave one.
    pub agent: Option<String>,
    /// How many runs were scored.
    pub run_count: usize,
    /// How many of them have findings.
    pub runs_with_findings: usize,
    /// How many of them passed: every gate held on the run's own metrics
    /// (docs/reports.md#each-runs-verdict).
    pub passed_runs: usize,
    /// The listed runs, in run order.
    pub runs: Vec<RunInfo>,
    /// Each grader's findings, for the graders the test has.
    pub graders: Outcomes,
    /// The `reliability:` block's figures, when the test has the block.
    pub reliability: Option<ReliabilityOutcome>,
    /// Every metric the test produced, in report order.
    pub metrics: Vec<(Target, MetricValue)>,
    /// Every gate, in suite order.
    pub gates: Vec<GateOutcome>,
    /// Whether every gate passed.
    pub passed: bool,
    /// The calls of every run per agent; empty when no call has an agent
    /// (docs/reports.md#agents).
    pub agents: AgentTable,
    /// Why the test is expected to fail, when it is marked (its [`verdict`](Self::verdict)).
    pub xfail: Option<String>,
}

impl TestOutcome {
    /// Whether every run is listed.
    pub fn lists_every_run(&self) -> bool {
        self.runs.len() == self.run_count
    }

    /// What each of the test's graders says about it, in report order (the registry's):
    /// the shape every report renders.
    pub fn sections(&self) -> Vec<Section> {
        let mut sections = self.graders.sections(&self.runs, self.run_count);
        sections.extend(self.reliability.as_ref().map(ReliabilityOutcome::section));
        sections
    }
}

/// Why a test's runs give no outcome: a configuration error that only its runs reveal.
#[derive(Debug)]
#[non_exhaustive]
pub enum Unscorable {
    /// Calls a grader could not judge (a `command` or `path` matcher meeting calls without
    /// that argument).
    Unjudged(UnjudgedCalls),
    /// The `reliability:` block's figures cannot be computed from the runs: its `k` is above
    /// their number (see [`run_count_problems`](crate::run_count_problems)).
    Reliability(ReliabilityError),
}

impl std::fmt::Display for Unscorable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unjudged(_) => f.write_str("a grader met calls it could not judge"),
            Self::Reliability(error) => write!(f, "the `reliability` block: {error}"),
        }
    }
}

impl std::error::Error for Unscorable {}

/// The calls a test's graders could not judge, as problems to place in its suite.
#[derive(Debug, Clone)]
pub struct UnjudgedCalls {
    /// The test's position in the suite.
    test: usize,
    found: Vec<Unjudged>,
}

impl UnjudgedCalls {
    /// The problems, placed in `file`, the test's suite, in registry order.
    pub fn problems(&self, file: &SuiteFile) -> Vec<Problem> {
        let test = [PathSeg::Key("tests"), PathSeg::Index(self.test)];
        self.found
            .iter()
            .map(|found| {
                let span = file.span(&join(&test, &found.at));
                found.problem.clone().at(span)
            })
            .collect()
    }
}

/// The results of a whole suite, in suite order.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteOutcome {
    /// One per test.
    pub tests: Vec<TestOutcome>,
    /// Notes on the input the reports carry, in the order found: a trace file that gave no
    /// call (docs/formats.md#a-file-that-says-nothing).
    pub notes: Vec<String>,
}

impl SuiteOutcome {
    /// Whether the check passes: no unmarked test failed and no marked test passed
    /// (docs/reliability.md#expected-failures).
    pub fn passed(&self) -> bool {
        self.tests.iter().all(|t| !t.verdict().fails_check())
    }
}

/// One run's results under every grader of its test.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RunOutcome {
    /// The run.
    pub info: RunInfo,
    /// Each grader's verdict, for the graders the test has.
    pub graders: RunGrades,
    /// The run's calls per agent; empty when no call has an agent.
    pub agents: AgentTable,
}

impl RunOutcome {
    /// Whether any grader found something short of perfect in the run: a missed class or
    /// an unexpected call, a failed `tool-calls` verdict, a tool-correctness score below
    /// 100 or an inexact run, or a call-accuracy count short of every call correct.
    pub fn has_findings(&self) -> bool {
        self.graders.has_findings()
    }

    /// The metrics of this run alone, as if it were its test's only run
    /// (docs/reports.md#each-runs-verdict),
    /// for the graders of `test`, the test it was graded for, in report order.
    pub fn metrics(&self, test: &Test) -> Vec<(Target, MetricValue)> {
        self.graders.metrics(test)
    }

    /// The graders whose findings make [`has_findings`](Self::has_findings) true, in
    /// report order.
    pub fn blocks_with_findings(&self) -> Vec<Block> {
        self.graders.with_findings()
    }
}

/// Builds, from the registry, what a run and a test hold per grader kind, and the steps of
/// the evaluation that go through every kind.
macro_rules! per_kind {
    ($($field:ident: $variant:ident = $grader:ty, $key:literal;)*) => {
        /// Each grader's verdict on one run, for the graders the test has.
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub struct RunGrades {
            $(
                #[doc = concat!("The `", $key, "` grader's verdict.")]
                pub $field: Option<<$grader as Verdicts>::Run>,
            )*
        }

        impl RunGrades {
            /// Whether any grader found something short of perfect in the run.
            fn has_findings(&self) -> bool {
                false $(|| findings::<$grader>(self.$field.as_ref()))*
            }

            /// Grades the run under every grader of `test`.
            fn grade(test: &Test, run: &TestRun<'_>, detail: Detail) -> Self {
                Self {
                    $($field: test
                        .graders
                        .$field
                        .as_ref()
                        .map(|grader| Grader::grade(grader, run, detail)),)*
                }
            }

            /// The calls the first kind that judges tools one by one marked, in registry
            /// order; none when no grader of the test does.
            fn tool_marks(&self) -> ToolMarks<'_> {
                $(
                    if let Some(marks) = self.$field.as_ref().and_then(<$grader as Grader>::tool_marks) {
                        return marks;
                    }
                )*
                ToolMarks::default()
            }

            /// Whether every gate of every grader of `test` holds on this run alone.
            fn passes(&self, test: &Test) -> bool {
                true $(&& passes(test.graders.$field.as_ref(), self.$field.as_ref()))*
            }

            /// The metrics of this run alone under every grader of `test`, in report order.
            fn metrics(&self, test: &Test) -> Vec<(Target, MetricValue)> {
                let mut metrics = Vec::new();
                $(metrics.extend(run_metrics(test.graders.$field.as_ref(), self.$field.as_ref()));)*
                metrics
            }

            /// The graders that found something short of perfect in the run, in report order.
            fn with_findings(&self) -> Vec<Block> {
                let mut blocks = Vec::new();
                $(
                    if findings::<$grader>(self.$field.as_ref()) {
                        blocks.push(Block::$variant);
                    }
                )*
                blocks
            }
        }

        /// Each grader's findings over a test's runs, for the graders the test has.
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub struct Outcomes {
            $(
                #[doc = concat!("The `", $key, "` grader's findings.")]
                pub $field: Option<<$grader as Verdicts>::Outcome>,
            )*
        }

        impl Outcomes {
            /// The classes of the graders that have them, in registry order, with how many
            /// runs missed each.
            fn class_misses(&self) -> Vec<(&str, u64)> {
                let mut misses = Vec::new();
                $(
                    if let Some(outcome) = &self.$field {
                        misses.extend(<$grader as Grader>::class_misses(outcome));
                    }
                )*
                misses
            }

            /// Each grader's section, in registry order.
            fn sections(&self, runs: &[RunInfo], run_count: usize) -> Vec<Section> {
                let mut sections = Vec::new();
                $(
                    sections.extend(self.$field.as_ref().map(|outcome| {
                        <$grader as GraderReport>::section(outcome, runs, run_count)
                    }));
                )*
                sections
            }
        }

        /// The test's graders being evaluated, each with its sums so far.
        #[derive(Debug)]
        struct Slots<'t> {
            $($field: Option<Slot<'t, $grader>>,)*
        }

        impl<'t> Slots<'t> {
            fn new(test: &'t Test) -> Self {
                Self {
                    $($field: test.graders.$field.as_ref().map(Slot::new),)*
                }
            }

            fn add(&mut self, run: &RunGrades) {
                $(
                    if let Some(slot) = &mut self.$field {
                        slot.add(run.$field.as_ref());
                    }
                )*
            }

            /// The calls the graders could not judge in the runs added, in registry order.
            fn unjudged(&self) -> Vec<Unjudged> {
                let mut found = Vec::new();
                $(
                    if let Some(slot) = &self.$field {
                        found.extend(slot.grader.unjudged(&slot.sums));
                    }
                )*
                found
            }

            /// Each grader's outcome over `runs` runs, listing `listed`; the metrics and
            /// gate verdicts are appended to `metrics` and `gates`, in registry order.
            fn finish(
                self,
                listed: Vec<RunGrades>,
                runs: u64,
                base: Base<'_>,
                metrics: &mut Vec<(Target, MetricValue)>,
                gates: &mut Vec<GateOutcome>,
            ) -> Outcomes {
                $(let mut $field = Vec::new();)*
                for run in listed {
                    $($field.extend(run.$field);)*
                }
                Outcomes {
                    $($field: self
                        .$field
                        .map(|slot| slot.finish($field, runs, base, metrics, gates)),)*
                }
            }
        }
    };
}

registry!(per_kind);

fn findings<G: Grader>(run: Option<&G::Run>) -> bool {
    run.is_some_and(G::has_findings)
}

/// The metrics of `run` alone under `grader`, when the test has the grader.
fn run_metrics<G: Grader>(grader: Option<&G>, run: Option<&G::Run>) -> Vec<(Target, MetricValue)> {
    match (grader, run) {
        (Some(grader), Some(run)) => grader.run_metrics(run),
        _ => Vec::new(),
    }
}

/// Whether `grader`'s gates hold on `run` alone, when the test has the grader.
fn passes<G: Grader>(grader: Option<&G>, run: Option<&G::Run>) -> bool {
    match (grader, run) {
        (Some(grader), Some(run)) => grader.run_passes(run),
        _ => true,
    }
}

/// A grader of the test being evaluated, with its sums so far.
#[derive(Debug)]
struct Slot<'t, G: Grader> {
    grader: &'t G,
    sums: G::Sums,
}

impl<'t, G: Grader> Slot<'t, G> {
    fn new(grader: &'t G) -> Self {
        Self {
            grader,
            sums: grader.sums(),
        }
    }

    fn add(&mut self, run: Option<&G::Run>) {
        if let Some(run) = run {
            G::add(&mut self.sums, run);
        }
    }

    /// The grader's outcome over `runs` runs, listing `listed`; its metrics and gate
    /// verdicts are appended to `metrics` and `gates`.
    fn finish(
        self,
        listed: Vec<G::Run>,
        runs: u64,
        base: Base<'_>,
        metrics: &mut Vec<(Target, MetricValue)>,
        gates: &mut Vec<GateOutcome>,
    ) -> G::Outcome {
        let outcome = self.grader.outcome(listed, self.sums, runs);
        let values = G::metrics(&outcome);
        gates.extend(
            self.grader
                .gates()
                .iter()
                .map(|gate| gate_outcome(*gate, &values, base.test, base.baseline)),
        );
        metrics.extend(values);
        outcome
    }
}

/// The test being gated and the baseline its gates on the baseline compare with.
#[derive(Debug, Clone, Copy)]
struct Base<'b> {
    test: &'b str,
    baseline: Option<&'b Baseline>,
}

/// Scores a test's runs as they are read, folds each into the test's sums, keeps the runs
/// the outcome lists, then gates the aggregate. Memory does not grow with the number of
/// runs.
#[derive(Debug)]
pub struct TestEvaluator<'t> {
    test: &'t Test,
    run_count: usize,
    runs_with_findings: usize,
    passed_runs: usize,
    /// The calls of the runs added so far, per agent.
    agents: AgentTable,
    /// The first [`LISTED_RUNS`] runs.
    first: Vec<RunOutcome>,
    /// Later runs with findings, while fewer than [`LISTED_RUNS`] runs with findings are kept.
    flagged: Vec<RunOutcome>,
    slots: Slots<'t>,
    /// The baseline report's metrics (`check --baseline`), when one was given.
    baseline: Option<&'t Baseline>,
}

impl<'t> TestEvaluator<'t> {
    /// An evaluator with no runs yet.
    pub fn new(test: &'t Test) -> Self {
        Self {
            test,
            run_count: 0,
            runs_with_findings: 0,
            passed_runs: 0,
            agents: AgentTable::default(),
            first: Vec::new(),
            flagged: Vec::new(),
            slots: Slots::new(test),
            baseline: None,
        }
    }

    /// The evaluator, with the gates on the baseline compared with `baseline` (`None`: no
    /// baseline was given, and those gates are skipped). The runs' verdicts do not depend
    /// on it.
    #[must_use]
    pub fn with_baseline(self, baseline: Option<&'t Baseline>) -> Self {
        Self { baseline, ..self }
    }

    /// Scores the next run and adds it.
    pub fn add_run(&mut self, source: RunSource, run: &Run) {
        let outcome = self.grade(source, run);
        self.add(outcome);
    }

    /// Scores the next run without adding it: its number is one more than the runs added
    /// so far. Hand it to [`add`](Self::add) next.
    pub fn grade(&self, source: RunSource, run: &Run) -> RunOutcome {
        let number = self.run_count + 1;
        let detail = Detail::for_run(number, self.runs_with_findings);
        grade_run_as(self.test, number, source, run, detail)
    }

    /// How many of the runs added so far have findings: what [`Detail::for_run`] takes.
    pub fn runs_with_findings(&self) -> usize {
        self.runs_with_findings
    }

    /// Folds a run scored by [`grade`](Self::grade) into the sums, and keeps it when the
    /// outcome may list it.
    pub fn add(&mut self, outcome: RunOutcome) {
        let _ = self.add_giving_back(outcome);
    }

    /// [`add`](Self::add), giving the run back when the outcome does not keep it: a caller
    /// that scored it on another thread can free it there, where its memory is reused
    /// (freed on this thread, every block would go back to the other thread's allocator
    /// through a cache line of this core).
    pub fn add_giving_back(&mut self, mut outcome: RunOutcome) -> Option<RunOutcome> {
        self.run_count += 1;
        self.agents.add(std::mem::take(&mut outcome.agents));
        // The rule that chose the detail the run was graded to: a run a report may list.
        let listable = Detail::for_run(self.run_count, self.runs_with_findings) == Detail::Full;
        self.slots.add(&outcome.graders);
        self.passed_runs += usize::from(outcome.info.passed);
        let findings = outcome.has_findings();
        self.runs_with_findings += usize::from(findings);
        if self.run_count <= LISTED_RUNS {
            self.first.push(outcome);
        } else if findings && listable {
            self.flagged.push(outcome);
        } else {
            return Some(outcome);
        }
        None
    }

    /// How many runs' details are kept for the outcome's listing.
    #[cfg(test)]
    pub(crate) fn kept_runs(&self) -> usize {
        self.first.len() + self.flagged.len()
    }

    /// How many runs were added so far.
    pub fn run_count(&self) -> usize {
        self.run_count
    }

    /// The first runs added, at most [`LISTED_RUNS`], in order.
    pub fn first_runs(&self) -> impl Iterator<Item = &RunInfo> {
        self.first.iter().map(|run| &run.info)
    }

    /// The test's outcome; or, when a grader met calls it could not judge (a `command` or
    /// `path` matcher meeting calls without that argument), those calls: a configuration
    /// error, and nothing is scored.
    pub fn finish(self) -> Result<TestOutcome, Unscorable> {
        let found = self.slots.unjudged();
        if !found.is_empty() {
            return Err(Unscorable::Unjudged(UnjudgedCalls {
                test: self.test.index,
                found,
            }));
        }
        let runs = self.run_count as u64;
        let mut metrics = Vec::new();
        let mut gates = Vec::new();
        let mut infos = Vec::new();
        let mut listed_grades = Vec::new();
        for run in listed(self.first, self.flagged, self.run_count) {
            infos.push(run.info);
            listed_grades.push(run.graders);
        }
        let base = Base {
            test: &self.test.name,
            baseline: self.baseline,
        };
        let graders = self
            .slots
            .finish(listed_grades, runs, base, &mut metrics, &mut gates);
        let reliability = match &self.test.reliability {
            Some(block) => {
                let outcome = block
                    .outcome(runs, self.passed_runs as u64)
                    .map_err(Unscorable::Reliability)?;
                let values = outcome.metrics();
                gates.extend(
                    block
                        .gates
                        .iter()
                        .map(|gate| outcome.judge(*gate, &values, &self.test.name, self.baseline)),
                );
                metrics.extend(values);
                Some(outcome)
            }
            None => None,
        };
        let passed = gates.iter().all(|g| g.passed);
        Ok(TestOutcome {
            name: self.test.name.clone(),
            agent: self.test.agent.clone(),
            run_count: self.run_count,
            runs_with_findings: self.runs_with_findings,
            passed_runs: self.passed_runs,
            runs: infos,
            graders,
            reliability,
            metrics,
            gates,
            passed,
            agents: self.agents,
            xfail: self.test.xfail.clone(),
        })
    }
}

/// Scores one run of `test` under every grader of the test, as run `number` (1-based) of
/// the test: what [`TestEvaluator::grade`] does, without an evaluator, so that runs can be
/// scored on several threads and added in order afterwards.
pub fn grade_run(test: &Test, number: usize, source: RunSource, run: &Run) -> RunOutcome {
    grade_run_as(test, number, source, run, Detail::Full)
}

/// [`grade_run`], building the outcome to the `detail` given.
pub fn grade_run_as(
    test: &Test,
    number: usize,
    source: RunSource,
    run: &Run,
    detail: Detail,
) -> RunOutcome {
    let graders = RunGrades::grade(
        test,
        &TestRun {
            calls: run,
            number,
            source: &source,
        },
        detail,
    );
    RunOutcome {
        info: RunInfo {
            number,
            source,
            calls: run.calls.len(),
            format: run.format,
            passed: graders.passes(test),
            tools: match detail {
                Detail::Full => RunTools::of(run),
                Detail::Counts => RunTools::default(),
            },
        },
        graders,
        agents: AgentTable::of_run(run),
    }
}

/// The runs an outcome lists: all of them when there are at most [`LISTED_RUNS`], otherwise
/// the first [`LISTED_RUNS`] with findings.
fn listed(first: Vec<RunOutcome>, flagged: Vec<RunOutcome>, count: usize) -> Vec<RunOutcome> {
    if count <= LISTED_RUNS {
        return first;
    }
    let first_flagged = first.into_iter().filter(RunOutcome::has_findings);
    first_flagged.chain(flagged).take(LISTED_RUNS).collect()
}

impl RunOutcome {
    /// What the test's equal-function sets made of the run's calls; empty when the test has
    /// none.
    pub fn tool_marks(&self) -> ToolMarks<'_> {
        self.graders.tool_marks()
    }
}

impl TestOutcome {
    /// Each class of the test's equal-function sets, in declaration order, with how many
    /// runs missed it; empty when the test has none.
    pub fn class_misses(&self) -> Vec<(&str, u64)> {
        self.graders.class_misses()
    }
}
