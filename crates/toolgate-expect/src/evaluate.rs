//! Evaluating a test: score its runs one at a time, then gate the aggregate.

use toolgate_core::Percent;
use toolgate_trace::Run;

use crate::gate::{GateOutcome, Target, gate_outcome};
use crate::graders::Grader;
use crate::graders::budget::{BudgetGrader, BudgetOutcome, RunBudget};
use crate::graders::call_accuracy::{CallAccuracyGrader, CallAccuracyOutcome, RunAccuracy};
use crate::graders::dependencies::{DependenciesGrader, DependenciesOutcome, RunDependencies};
use crate::graders::errors::{ErrorsGrader, ErrorsOutcome, RunErrors};
use crate::graders::selection::{EqualFunctionSets, RunSelectionOutcome, SelectionOutcome};
use crate::graders::tool_calls::{
    MissingArgument, MissingArguments, RunToolCalls, ToolCallsGrader, ToolCallsOutcome,
};
use crate::graders::tool_correctness::{
    RunCorrectness, ToolCorrectnessGrader, ToolCorrectnessOutcome,
};
use crate::graders::trajectory::{RunTrajectory, TrajectoryGrader, TrajectoryOutcome};
use crate::model::Test;
use crate::run::{Detail, LISTED_RUNS, RunInfo, RunSource};
use crate::section::Section;

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
    /// The listed runs, in run order.
    pub runs: Vec<RunInfo>,
    /// The equal-function-set block's findings, when the test has the block.
    pub selection: Option<SelectionOutcome>,
    /// The `tool-calls` grader's findings, when the test has the grader.
    pub tool_calls: Option<ToolCallsOutcome>,
    /// The `tool-correctness` grader's findings, when the test has the grader.
    pub tool_correctness: Option<ToolCorrectnessOutcome>,
    /// The `call-accuracy` grader's findings, when the test has the grader.
    pub call_accuracy: Option<CallAccuracyOutcome>,
    /// The `trajectory` grader's findings, when the test has the grader.
    pub trajectory: Option<TrajectoryOutcome>,
    /// The `budget` grader's findings, when the test has the grader.
    pub budget: Option<BudgetOutcome>,
    /// The `errors` grader's findings, when the test has the grader.
    pub errors: Option<ErrorsOutcome>,
    /// The `dependencies` grader's findings, when the test has the grader.
    pub dependencies: Option<DependenciesOutcome>,
    /// Every metric the test produced, in report order.
    pub metrics: Vec<(Target, Percent)>,
    /// Every gate, in suite order.
    pub gates: Vec<GateOutcome>,
    /// Whether every gate passed.
    pub passed: bool,
}

impl TestOutcome {
    /// Whether every run is listed.
    pub fn lists_every_run(&self) -> bool {
        self.runs.len() == self.run_count
    }

    /// What each of the test's graders says about it, in report order (the registry's):
    /// the shape every report renders.
    pub fn sections(&self) -> Vec<Section> {
        let (runs, count) = (self.runs.as_slice(), self.run_count);
        let mut sections = Vec::new();
        sections.extend(self.selection.as_ref().map(|s| s.section(runs, count)));
        sections.extend(self.tool_calls.as_ref().map(|t| t.section(runs, count)));
        sections.extend(
            self.tool_correctness
                .as_ref()
                .map(|t| t.section(runs, count)),
        );
        sections.extend(self.call_accuracy.as_ref().map(|a| a.section(runs, count)));
        sections.extend(self.trajectory.as_ref().map(|t| t.section(runs, count)));
        sections.extend(self.budget.as_ref().map(|b| b.section(runs, count)));
        sections.extend(self.errors.as_ref().map(|e| e.section(runs, count)));
        sections.extend(self.dependencies.as_ref().map(|d| d.section(runs, count)));
        sections
    }
}

/// The results of a whole suite, in suite order.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteOutcome {
    /// One per test.
    pub tests: Vec<TestOutcome>,
    /// Notes on the input the reports carry, in the order found: a trace file that gave no
    /// call (SPEC 17).
    pub notes: Vec<String>,
}

impl SuiteOutcome {
    /// Whether every test passed.
    pub fn passed(&self) -> bool {
        self.tests.iter().all(|t| t.passed)
    }
}

/// One run's results under every grader of its test.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RunOutcome {
    /// The run.
    pub info: RunInfo,
    /// The equal-function-set block's findings.
    pub selection: Option<RunSelectionOutcome>,
    /// The `tool-calls` grader's verdict.
    pub tool_calls: Option<RunToolCalls>,
    /// The `tool-correctness` grader's verdict.
    pub tool_correctness: Option<RunCorrectness>,
    /// The `call-accuracy` grader's verdict.
    pub call_accuracy: Option<RunAccuracy>,
    /// The `trajectory` grader's verdict.
    pub trajectory: Option<RunTrajectory>,
    /// The `budget` grader's verdict.
    pub budget: Option<RunBudget>,
    /// The `errors` grader's verdict.
    pub errors: Option<RunErrors>,
    /// The `dependencies` grader's verdict.
    pub dependencies: Option<RunDependencies>,
    /// Calls that a `command` or `path` matcher could not judge (a configuration error).
    pub missing: Vec<MissingArgument>,
}

impl RunOutcome {
    /// Whether any grader found something short of perfect in the run: a missed class or
    /// an unexpected call, a failed `tool-calls` verdict, a tool-correctness score below
    /// 100 or an inexact run, or a call-accuracy count short of every call correct.
    pub fn has_findings(&self) -> bool {
        findings::<EqualFunctionSets>(self.selection.as_ref())
            || findings::<ToolCallsGrader>(self.tool_calls.as_ref())
            || findings::<ToolCorrectnessGrader>(self.tool_correctness.as_ref())
            || findings::<CallAccuracyGrader>(self.call_accuracy.as_ref())
            || findings::<TrajectoryGrader>(self.trajectory.as_ref())
            || findings::<BudgetGrader>(self.budget.as_ref())
            || findings::<ErrorsGrader>(self.errors.as_ref())
            || findings::<DependenciesGrader>(self.dependencies.as_ref())
    }
}

fn findings<G: Grader>(run: Option<&G::Run>) -> bool {
    run.is_some_and(G::has_findings)
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
        metrics: &mut Vec<(Target, Percent)>,
        gates: &mut Vec<GateOutcome>,
    ) -> G::Outcome {
        let outcome = self.grader.outcome(listed, self.sums, runs);
        let values = G::metrics(&outcome);
        gates.extend(
            self.grader
                .gates()
                .iter()
                .map(|gate| gate_outcome(*gate, &values)),
        );
        metrics.extend(values);
        outcome
    }
}

/// Scores a test's runs as they are read, folds each into the test's sums, keeps the runs
/// the outcome lists, then gates the aggregate. Memory does not grow with the number of
/// runs.
#[derive(Debug)]
pub struct TestEvaluator<'t> {
    test: &'t Test,
    run_count: usize,
    runs_with_findings: usize,
    /// The first [`LISTED_RUNS`] runs.
    first: Vec<RunOutcome>,
    /// Later runs with findings, while fewer than [`LISTED_RUNS`] runs with findings are kept.
    flagged: Vec<RunOutcome>,
    selection: Option<Slot<'t, EqualFunctionSets>>,
    tool_calls: Option<Slot<'t, ToolCallsGrader>>,
    tool_correctness: Option<Slot<'t, ToolCorrectnessGrader>>,
    call_accuracy: Option<Slot<'t, CallAccuracyGrader>>,
    trajectory: Option<Slot<'t, TrajectoryGrader>>,
    budget: Option<Slot<'t, BudgetGrader>>,
    errors: Option<Slot<'t, ErrorsGrader>>,
    dependencies: Option<Slot<'t, DependenciesGrader>>,
    missing: MissingArguments,
}

impl<'t> TestEvaluator<'t> {
    /// An evaluator with no runs yet.
    pub fn new(test: &'t Test) -> Self {
        Self {
            test,
            run_count: 0,
            runs_with_findings: 0,
            first: Vec::new(),
            flagged: Vec::new(),
            selection: test.equal_function_sets.as_ref().map(Slot::new),
            tool_calls: test.tool_calls.as_ref().map(Slot::new),
            tool_correctness: test.tool_correctness.as_ref().map(Slot::new),
            call_accuracy: test.call_accuracy.as_ref().map(Slot::new),
            trajectory: test.trajectory.as_ref().map(Slot::new),
            budget: test.budget.as_ref().map(Slot::new),
            errors: test.errors.as_ref().map(Slot::new),
            dependencies: test.dependencies.as_ref().map(Slot::new),
            missing: MissingArguments::default(),
        }
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
    pub fn add(&mut self, mut outcome: RunOutcome) {
        self.run_count += 1;
        // The rule that chose the detail the run was graded to: a run a report may list.
        let listable = Detail::for_run(self.run_count, self.runs_with_findings) == Detail::Full;
        if let Some(slot) = &mut self.selection {
            slot.add(outcome.selection.as_ref());
        }
        if let Some(slot) = &mut self.tool_calls {
            slot.add(outcome.tool_calls.as_ref());
        }
        if let Some(slot) = &mut self.tool_correctness {
            slot.add(outcome.tool_correctness.as_ref());
        }
        if let Some(slot) = &mut self.call_accuracy {
            slot.add(outcome.call_accuracy.as_ref());
        }
        if let Some(slot) = &mut self.trajectory {
            slot.add(outcome.trajectory.as_ref());
        }
        if let Some(slot) = &mut self.budget {
            slot.add(outcome.budget.as_ref());
        }
        if let Some(slot) = &mut self.errors {
            slot.add(outcome.errors.as_ref());
        }
        if let Some(slot) = &mut self.dependencies {
            slot.add(outcome.dependencies.as_ref());
        }
        for missing in outcome.missing.drain(..) {
            self.missing.push(missing);
        }
        let findings = outcome.has_findings();
        self.runs_with_findings += usize::from(findings);
        if self.run_count <= LISTED_RUNS {
            self.first.push(outcome);
        } else if findings && listable {
            self.flagged.push(outcome);
        }
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

    /// The test's outcome; or, when a `command`/`path` matcher met calls without that
    /// argument, those calls (a configuration error: nothing is scored then).
    pub fn finish(self) -> Result<TestOutcome, MissingArguments> {
        if !self.missing.is_empty() {
            return Err(self.missing);
        }
        let runs = self.run_count as u64;
        let mut metrics = Vec::new();
        let mut gates = Vec::new();
        let mut infos = Vec::new();
        let mut selection_runs = Vec::new();
        let mut tool_calls_runs = Vec::new();
        let mut correctness_runs = Vec::new();
        let mut accuracy_runs = Vec::new();
        let mut trajectory_runs = Vec::new();
        let mut budget_runs = Vec::new();
        let mut errors_runs = Vec::new();
        let mut dependencies_runs = Vec::new();
        for run in listed(self.first, self.flagged, self.run_count) {
            infos.push(run.info);
            selection_runs.extend(run.selection);
            tool_calls_runs.extend(run.tool_calls);
            correctness_runs.extend(run.tool_correctness);
            accuracy_runs.extend(run.call_accuracy);
            trajectory_runs.extend(run.trajectory);
            budget_runs.extend(run.budget);
            errors_runs.extend(run.errors);
            dependencies_runs.extend(run.dependencies);
        }
        let (m, g) = (&mut metrics, &mut gates);
        let selection = self
            .selection
            .map(|slot| slot.finish(selection_runs, runs, m, g));
        let tool_calls = self
            .tool_calls
            .map(|slot| slot.finish(tool_calls_runs, runs, m, g));
        let tool_correctness = self
            .tool_correctness
            .map(|slot| slot.finish(correctness_runs, runs, m, g));
        let call_accuracy = self
            .call_accuracy
            .map(|slot| slot.finish(accuracy_runs, runs, m, g));
        let trajectory = self
            .trajectory
            .map(|slot| slot.finish(trajectory_runs, runs, m, g));
        let budget = self.budget.map(|slot| slot.finish(budget_runs, runs, m, g));
        let errors = self.errors.map(|slot| slot.finish(errors_runs, runs, m, g));
        let dependencies = self
            .dependencies
            .map(|slot| slot.finish(dependencies_runs, runs, m, g));
        let passed = gates.iter().all(|g| g.passed);
        Ok(TestOutcome {
            name: self.test.name.clone(),
            agent: self.test.agent.clone(),
            run_count: self.run_count,
            runs_with_findings: self.runs_with_findings,
            runs: infos,
            selection,
            tool_calls,
            tool_correctness,
            call_accuracy,
            trajectory,
            budget,
            errors,
            dependencies,
            metrics,
            gates,
            passed,
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
    let mut missing = Vec::new();
    let selection = graded(
        test.equal_function_sets.as_ref(),
        run,
        number,
        &source,
        &mut missing,
        detail,
    );
    let tool_calls = graded(
        test.tool_calls.as_ref(),
        run,
        number,
        &source,
        &mut missing,
        detail,
    );
    let tool_correctness = graded(
        test.tool_correctness.as_ref(),
        run,
        number,
        &source,
        &mut missing,
        detail,
    );
    let call_accuracy = graded(
        test.call_accuracy.as_ref(),
        run,
        number,
        &source,
        &mut missing,
        detail,
    );
    let trajectory = graded(
        test.trajectory.as_ref(),
        run,
        number,
        &source,
        &mut missing,
        detail,
    );
    let budget = graded(
        test.budget.as_ref(),
        run,
        number,
        &source,
        &mut missing,
        detail,
    );
    let errors = graded(
        test.errors.as_ref(),
        run,
        number,
        &source,
        &mut missing,
        detail,
    );
    let dependencies = graded(
        test.dependencies.as_ref(),
        run,
        number,
        &source,
        &mut missing,
        detail,
    );
    RunOutcome {
        info: RunInfo {
            number,
            source,
            calls: run.calls.len(),
            format: run.format,
        },
        selection,
        tool_calls,
        tool_correctness,
        call_accuracy,
        trajectory,
        budget,
        errors,
        dependencies,
        missing,
    }
}

/// The verdict of `grader`, when the test has it, on the run.
fn graded<G: Grader>(
    grader: Option<&G>,
    run: &Run,
    number: usize,
    source: &RunSource,
    missing: &mut Vec<MissingArgument>,
    detail: Detail,
) -> Option<G::Run> {
    grader.map(|grader| grader.grade(run, number, source, missing, detail))
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
