//! What `merge` reads of one test, and the check that its numbers add up.
//!
//! A test may list tens of thousands of runs, so its runs are never collected: each block's
//! `runs` list is read one run at a time and folded into what the checks need (how many runs
//! it lists, the sums of their counts, and the first run whose numbers are wrong), so
//! reading a test holds one run's entry at a time. The checks and their messages are the
//! ones a report held whole would give, in the same order.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{DeserializeOwned, IgnoredAny, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use toolgate_core::{AccuracyCounts, Counts, Percent};
use toolgate_expect::{ArgumentCounts, Op, ToolCorrectnessOutcome};

/// What merging needs of a test: its verdict, its gates, and the counts they come from.
#[derive(Debug, Deserialize)]
pub(super) struct TestView {
    name: String,
    agent: Option<String>,
    passed: bool,
    runs: usize,
    sources: Listed,
    metrics: BTreeMap<String, u8>,
    gates: Vec<GateView>,
    equal_function_sets: Option<SelectionView>,
    tool_calls: Option<ToolCallsView>,
    tool_correctness: Option<CorrectnessView>,
    call_accuracy: Option<AccuracyView>,
}

/// What the merged report keeps of a test once its numbers are checked.
#[derive(Debug)]
pub(super) struct Kept {
    pub(super) name: String,
    pub(super) agent: Option<String>,
    pub(super) passed: bool,
    pub(super) runs: usize,
    pub(super) gates: Vec<GateView>,
}

impl TestView {
    /// The test's name.
    pub(super) fn name(&self) -> &str {
        &self.name
    }

    /// Drops what was only read to be checked.
    pub(super) fn keep(self) -> Kept {
        Kept {
            name: self.name,
            agent: self.agent,
            passed: self.passed,
            runs: self.runs,
            gates: self.gates,
        }
    }
}

#[derive(Debug, Deserialize)]
pub(super) struct GateView {
    pub(super) target: String,
    pub(super) op: String,
    pub(super) value: u8,
    pub(super) actual: u8,
    pub(super) passed: bool,
}

/// How many values a list holds; the values are skipped.
#[derive(Debug, Default)]
struct Listed(u64);

impl<'de> Deserialize<'de> for Listed {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Count;
        impl<'de> Visitor<'de> for Count {
            type Value = Listed;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Listed, A::Error> {
                let mut listed = 0_u64;
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    listed += 1;
                }
                Ok(Listed(listed))
            }
        }
        deserializer.deserialize_seq(Count)
    }
}

/// What a block keeps of its runs while they are read one by one.
trait Fold: Default {
    /// A run's entry, as read.
    type Run: DeserializeOwned;

    /// Folds the run at `index` in; an error names what about it is wrong.
    fn add(&mut self, index: u64, run: Self::Run) -> Result<(), String>;
}

/// A block's `runs` list, folded: how many it lists, their fold, and the first problem one
/// of them has (the runs after it are read, so that the report is still read whole, but not
/// folded).
#[derive(Debug, Default)]
struct Runs<F> {
    listed: u64,
    fold: F,
    wrong: Option<String>,
}

impl<F: Fold> Runs<F> {
    fn first_problem(&self) -> Result<(), String> {
        self.wrong.clone().map_or(Ok(()), Err)
    }
}

impl<'de, F: Fold> Deserialize<'de> for Runs<F> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Each<F>(PhantomData<F>);
        impl<'de, F: Fold> Visitor<'de> for Each<F> {
            type Value = Runs<F>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of runs")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Runs<F>, A::Error> {
                let mut runs = Runs::<F>::default();
                while let Some(run) = seq.next_element::<F::Run>()? {
                    if runs.wrong.is_none()
                        && let Err(message) = runs.fold.add(runs.listed, run)
                    {
                        runs.wrong = Some(message);
                    }
                    runs.listed += 1;
                }
                Ok(runs)
            }
        }
        deserializer.deserialize_seq(Each(PhantomData))
    }
}

/// A sum of counts that remembers whether it ever passed `u64::MAX`: a sum that wrapped could
/// be made to look like any count.
#[derive(Debug, Clone, Copy)]
struct Sum(Option<u64>);

impl Default for Sum {
    fn default() -> Self {
        Self(Some(0))
    }
}

impl Sum {
    fn add(&mut self, value: u64) {
        self.0 = self.0.and_then(|sum| sum.checked_add(value));
    }

    /// The sum, or an error naming `what` when it passed `u64::MAX`.
    fn get(self, what: &str) -> Result<u64, String> {
        self.0
            .ok_or_else(|| format!("`{what}` add up past {}, the largest count", u64::MAX))
    }
}

#[derive(Debug, Deserialize)]
struct SelectionView {
    true_positives: u64,
    false_positives: u64,
    false_negatives: u64,
    precision: u8,
    recall: u8,
    f1: u8,
    runs: Runs<SelectionFold>,
}

/// A run's entry of `equal_function_sets`: its counts, the metrics they give, and a line
/// per class.
#[derive(Debug, Deserialize)]
struct SelectionRunView {
    true_positives: u64,
    false_positives: u64,
    false_negatives: u64,
    precision: u8,
    recall: u8,
    f1: u8,
    classes: Listed,
}

#[derive(Debug, Default)]
struct SelectionFold {
    true_positives: Sum,
    false_positives: Sum,
    false_negatives: Sum,
}

impl Fold for SelectionFold {
    type Run = SelectionRunView;

    fn add(&mut self, index: u64, run: SelectionRunView) -> Result<(), String> {
        let m = Counts::new(run.true_positives, run.false_positives, run.false_negatives).metrics();
        for (metric, stated, derived) in [
            ("precision", run.precision, m.precision),
            ("recall", run.recall, m.recall),
            ("f1", run.f1, m.f1),
        ] {
            same_percent(
                &format!("`equal_function_sets.runs[{index}].{metric}`"),
                stated,
                derived,
            )?;
        }
        // Each class is satisfied by the run or missed by it.
        let classes = run.true_positives.checked_add(run.false_negatives);
        if classes != Some(run.classes.0) {
            return Err(format!(
                "`equal_function_sets.runs[{index}]` has {} classes but counts {} true \
                 positives and {} false negatives",
                run.classes.0, run.true_positives, run.false_negatives
            ));
        }
        self.true_positives.add(run.true_positives);
        self.false_positives.add(run.false_positives);
        self.false_negatives.add(run.false_negatives);
        Ok(())
    }
}

#[derive(Debug, Deserialize)]
struct ToolCallsView {
    passed_runs: u64,
    pass_rate: u8,
    runs: Runs<PassedFold>,
}

#[derive(Debug, Deserialize)]
struct PassedView {
    passed: bool,
}

#[derive(Debug, Default)]
struct PassedFold {
    passed: u64,
}

impl Fold for PassedFold {
    type Run = PassedView;

    fn add(&mut self, _: u64, run: PassedView) -> Result<(), String> {
        self.passed += u64::from(run.passed);
        Ok(())
    }
}

#[derive(Debug, Deserialize)]
struct CorrectnessView {
    expected_tools: Listed,
    matched: u64,
    expected_total: u64,
    exact_runs: Option<u64>,
    score: u8,
    runs: Runs<CorrectnessFold>,
}

#[derive(Debug, Deserialize)]
struct CorrectnessRunView {
    score: u8,
    exact: Option<bool>,
    expected: Vec<ExpectedView>,
}

#[derive(Debug, Deserialize)]
struct ExpectedView {
    matched_by: Option<IgnoredAny>,
}

/// A run's score that its entry does not give: where, what it states, what it gives.
type WrongScore = (u64, u8, Percent);

/// The runs of `tool_correctness`, folded. A run's checks depend on the block's
/// `expected_tools` and `exact_runs`, which may come after `runs` in the block, so the fold
/// keeps what either answer needs: the first run whose list of expected tools differs in
/// length from the first run's, and the first wrong score with exact runs counted and
/// without.
#[derive(Debug, Default)]
struct CorrectnessFold {
    first_tools: Option<u64>,
    other_tools: Option<(u64, u64)>,
    wrong_exact: Option<WrongScore>,
    wrong_plain: Option<WrongScore>,
    matched: u64,
    exact: u64,
}

impl Fold for CorrectnessFold {
    type Run = CorrectnessRunView;

    fn add(&mut self, index: u64, run: CorrectnessRunView) -> Result<(), String> {
        let tools = run.expected.len() as u64;
        let first = *self.first_tools.get_or_insert(tools);
        if tools != first && self.other_tools.is_none() {
            self.other_tools = Some((index, tools));
        }
        let matched = run
            .expected
            .iter()
            .filter(|e| e.matched_by.is_some())
            .count() as u64;
        let exact = u64::from(run.exact == Some(true));
        // Until the first run of another length, `tools` is the grader's count; after it,
        // that run's error comes first.
        for (wrong, exact) in [
            (&mut self.wrong_exact, Some(exact)),
            (&mut self.wrong_plain, None),
        ] {
            let score = ToolCorrectnessOutcome::score_of(matched, tools, exact, 1);
            if wrong.is_none() && score.value() != run.score {
                *wrong = Some((index, run.score, score));
            }
        }
        self.matched = self.matched.saturating_add(matched);
        self.exact += exact;
        Ok(())
    }
}

impl CorrectnessFold {
    /// The first run that the grader's `tools` expected tools and exact-run count say is
    /// wrong.
    fn first_wrong_run(&self, tools: u64, exact_counted: bool) -> Result<(), String> {
        let wrong_length = match self.first_tools {
            Some(first) if first != tools => Some((0, first)),
            _ => self.other_tools,
        };
        let wrong_score = if exact_counted {
            self.wrong_exact
        } else {
            self.wrong_plain
        };
        match (wrong_length, wrong_score) {
            (Some((index, listed)), score) if score.is_none_or(|(at, ..)| index <= at) => {
                Err(format!(
                    "`tool_correctness.runs[{index}]` lists {listed} expected tools but the \
                     grader expects {tools}"
                ))
            }
            (_, Some((index, stated, derived))) => same_percent(
                &format!("`tool_correctness.runs[{index}].score`"),
                stated,
                derived,
            ),
            _ => Ok(()),
        }
    }
}

#[derive(Debug, Deserialize)]
struct AccuracyView {
    correct: u64,
    expected: u64,
    actual: u64,
    arguments_matched: u64,
    arguments_expected: u64,
    precision: u8,
    recall: u8,
    f1: u8,
    arguments: u8,
    runs: Runs<AccuracyFold>,
}

/// A run's entry of `call_accuracy`: its counts and the metrics they give.
#[derive(Debug, Deserialize)]
struct AccuracyRunView {
    correct: u64,
    expected: u64,
    actual: u64,
    arguments_matched: u64,
    arguments_expected: u64,
    precision: u8,
    recall: u8,
    f1: u8,
    arguments: u8,
}

#[derive(Debug, Default)]
struct AccuracyFold {
    correct: Sum,
    expected: Sum,
    actual: Sum,
    arguments_matched: Sum,
    arguments_expected: Sum,
}

impl Fold for AccuracyFold {
    type Run = AccuracyRunView;

    /// A run's call-accuracy counts are possible and give the metrics it states.
    fn add(&mut self, index: u64, run: AccuracyRunView) -> Result<(), String> {
        if run.correct > run.expected.min(run.actual) {
            return Err(format!(
                "`call_accuracy.runs[{index}]` counts {} correct calls of {} expected and {} made",
                run.correct, run.expected, run.actual
            ));
        }
        let m = AccuracyCounts {
            correct: run.correct,
            expected: run.expected,
            actual: run.actual,
        }
        .metrics();
        if run.arguments_matched > run.arguments_expected {
            return Err(format!(
                "`call_accuracy.runs[{index}]` counts {} matched arguments of {} expected",
                run.arguments_matched, run.arguments_expected
            ));
        }
        let arguments = ArgumentCounts {
            matched: run.arguments_matched,
            expected: run.arguments_expected,
        };
        for (metric, stated, derived) in [
            ("precision", run.precision, m.precision),
            ("recall", run.recall, m.recall),
            ("f1", run.f1, m.f1),
            ("arguments", run.arguments, arguments.percent()),
        ] {
            same_percent(
                &format!("`call_accuracy.runs[{index}].{metric}`"),
                stated,
                derived,
            )?;
        }
        self.correct.add(run.correct);
        self.expected.add(run.expected);
        self.actual.add(run.actual);
        self.arguments_matched.add(run.arguments_matched);
        self.arguments_expected.add(run.arguments_expected);
        Ok(())
    }
}

/// Checks that a test's numbers add up: each aggregate is what its runs' counts give, each
/// metric what its aggregate gives, each gate's verdict what its operator says of the
/// metric, and the test's verdict what its gates say.
pub(super) fn add_up(view: &TestView) -> Result<(), String> {
    let metrics = Metrics(&view.metrics);
    // A shard report lists every run of every block: each list is as long as `runs`.
    for (block, listed) in [
        ("sources", Some(view.sources.0)),
        (
            "equal_function_sets.runs",
            view.equal_function_sets.as_ref().map(|b| b.runs.listed),
        ),
        (
            "tool_calls.runs",
            view.tool_calls.as_ref().map(|b| b.runs.listed),
        ),
        (
            "tool_correctness.runs",
            view.tool_correctness.as_ref().map(|b| b.runs.listed),
        ),
        (
            "call_accuracy.runs",
            view.call_accuracy.as_ref().map(|b| b.runs.listed),
        ),
    ] {
        if let Some(listed) = listed
            && listed != view.runs as u64
        {
            return Err(format!(
                "`{block}` lists {listed} runs but `runs` says {}",
                view.runs
            ));
        }
    }
    if let Some(efs) = &view.equal_function_sets {
        add_up_selection(efs, &metrics)?;
    }
    if let Some(calls) = &view.tool_calls {
        let passed = calls.runs.fold.passed;
        same("tool_calls.passed_runs", calls.passed_runs, passed)?;
        let rate = Percent::floor_of(passed, calls.runs.listed);
        same_percent("tool_calls.pass_rate", calls.pass_rate, rate)?;
        metrics.check("tool_calls.pass_rate", rate)?;
    }
    if let Some(correctness) = &view.tool_correctness {
        add_up_correctness(correctness, &metrics)?;
    }
    if let Some(accuracy) = &view.call_accuracy {
        add_up_accuracy(accuracy, &metrics)?;
    }
    apply_gates(view)
}

/// The `metrics` a test states.
struct Metrics<'a>(&'a BTreeMap<String, u8>);

impl Metrics<'_> {
    fn check(&self, target: &str, derived: Percent) -> Result<(), String> {
        match self.0.get(target) {
            Some(&stated) if stated == derived.value() => Ok(()),
            Some(&stated) => Err(format!(
                "`metrics` says `{target}` is {stated} but the runs give {derived}"
            )),
            None => Err(format!("`{target}` is missing from `metrics`")),
        }
    }
}

fn same(what: &str, stated: u64, derived: u64) -> Result<(), String> {
    if stated == derived {
        Ok(())
    } else {
        Err(format!("{what} is {stated} but its runs give {derived}"))
    }
}

fn same_percent(what: &str, stated: u8, derived: Percent) -> Result<(), String> {
    same(what, u64::from(stated), u64::from(derived.value()))
}

fn add_up_selection(efs: &SelectionView, metrics: &Metrics<'_>) -> Result<(), String> {
    efs.runs.first_problem()?;
    let sums = &efs.runs.fold;
    let counts = Counts::new(
        sums.true_positives
            .get("equal_function_sets.runs[].true_positives")?,
        sums.false_positives
            .get("equal_function_sets.runs[].false_positives")?,
        sums.false_negatives
            .get("equal_function_sets.runs[].false_negatives")?,
    );
    same("true_positives", efs.true_positives, counts.true_positives)?;
    same(
        "false_positives",
        efs.false_positives,
        counts.false_positives,
    )?;
    same(
        "false_negatives",
        efs.false_negatives,
        counts.false_negatives,
    )?;
    let m = counts.metrics();
    for (target, stated, derived) in [
        ("tool_selection.precision", efs.precision, m.precision),
        ("tool_selection.recall", efs.recall, m.recall),
        ("tool_selection.f1", efs.f1, m.f1),
    ] {
        same_percent(target, stated, derived)?;
        metrics.check(target, derived)?;
    }
    Ok(())
}

fn add_up_correctness(correctness: &CorrectnessView, metrics: &Metrics<'_>) -> Result<(), String> {
    let runs = correctness.runs.listed;
    let tools = correctness.expected_tools.0;
    let fold = &correctness.runs.fold;
    fold.first_wrong_run(tools, correctness.exact_runs.is_some())?;
    same(
        "tool_correctness.matched",
        correctness.matched,
        fold.matched,
    )?;
    let expected_total = tools.saturating_mul(runs);
    same(
        "tool_correctness.expected_total",
        correctness.expected_total,
        expected_total,
    )?;
    let exact = correctness.exact_runs.map(|_| fold.exact);
    if let (Some(stated), Some(derived)) = (correctness.exact_runs, exact) {
        same("tool_correctness.exact_runs", stated, derived)?;
    }
    let score = ToolCorrectnessOutcome::score_of(fold.matched, expected_total, exact, runs);
    same_percent("tool_correctness.score", correctness.score, score)?;
    metrics.check("tool_correctness.score", score)
}

fn add_up_accuracy(accuracy: &AccuracyView, metrics: &Metrics<'_>) -> Result<(), String> {
    accuracy.runs.first_problem()?;
    let sums = &accuracy.runs.fold;
    // Each sum is checked for overflow, then against the block's stated one.
    let sum = |field: &str, stated: u64, sum: Sum| {
        let derived = sum.get(&format!("call_accuracy.runs[].{field}"))?;
        same(&format!("call_accuracy.{field}"), stated, derived).map(|()| derived)
    };
    let counts = AccuracyCounts {
        correct: sum("correct", accuracy.correct, sums.correct)?,
        expected: sum("expected", accuracy.expected, sums.expected)?,
        actual: sum("actual", accuracy.actual, sums.actual)?,
    };
    let arguments = ArgumentCounts {
        matched: sum(
            "arguments_matched",
            accuracy.arguments_matched,
            sums.arguments_matched,
        )?,
        expected: sum(
            "arguments_expected",
            accuracy.arguments_expected,
            sums.arguments_expected,
        )?,
    };
    let m = counts.metrics();
    for (target, stated, derived) in [
        ("call_accuracy.precision", accuracy.precision, m.precision),
        ("call_accuracy.recall", accuracy.recall, m.recall),
        ("call_accuracy.f1", accuracy.f1, m.f1),
        (
            "call_accuracy.arguments",
            accuracy.arguments,
            arguments.percent(),
        ),
    ] {
        same_percent(target, stated, derived)?;
        metrics.check(target, derived)?;
    }
    Ok(())
}

/// Applies each gate again to its metric, and the test's verdict to its gates.
fn apply_gates(view: &TestView) -> Result<(), String> {
    let mut all = true;
    for gate in &view.gates {
        let label = format!("gate `{} {} {}`", gate.target, gate.op, gate.value);
        let (Some(op), Some(value), Some(actual)) = (
            Op::from_symbol(&gate.op),
            Percent::new(gate.value),
            view.metrics
                .get(&gate.target)
                .copied()
                .and_then(Percent::new),
        ) else {
            return Err(format!("{label} does not name a metric of this test"));
        };
        if actual.value() != gate.actual {
            return Err(format!(
                "{label} compared {} but the metric is {actual}",
                gate.actual
            ));
        }
        let passed = op.holds(actual, value);
        if passed != gate.passed {
            return Err(format!(
                "{label} says {} but {actual} {} {value} is {passed}",
                verdict(gate.passed),
                gate.op
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
