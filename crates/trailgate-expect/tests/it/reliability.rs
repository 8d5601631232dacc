//! The `reliability:` block evaluated over generated runs (docs/reliability.md): its figures are
//! `trailgate_core::reliability` of the test's own n and c, the order of the runs changes
//! none of them, and at a fixed pass rate more runs narrow the interval.

use proptest::prelude::*;
use serde_json::{Value, json};
use trailgate_core::reliability::{Confidence, reliability};
use trailgate_expect::{RunSource, SuiteFile, Test, TestEvaluator, TestOutcome};
use trailgate_trace::{Call, Run, Status};

/// A test whose runs pass on their own exactly when they call `book`: a run's own
/// `tool_calls.pass_rate` is 0 or 100, so the gate `>= 50` holds on it exactly when the run
/// passes the rule. The reliability block's own gates take no part in a run's verdict.
fn test_of(k: u64, confidence: Confidence, gate: u8) -> Test {
    let suite = format!(
        r#"
tests:
  - name: books
    graders:
      - type: tool-calls
        config:
          required: [{{ name: "^book$" }}]
          expect:
            - tool_calls.pass_rate: {{ ">=": 50 }}
    reliability:
      k: {k}
      confidence: {}
      expect:
        - reliability.pass_rate: {{ ">=": {gate} }}
        - reliability.pass_rate.lower: {{ ">=": {gate} }}
"#,
        confidence.percent()
    );
    let mut suite = SuiteFile::new("suite.yaml", suite)
        .parse()
        .expect("the suite parses");
    suite.tests.remove(0)
}

fn call(name: &str, step: u32) -> Call {
    Call {
        server: None,
        name: name.to_owned(),
        args: json!({}).into(),
        args_raw: None,
        result: Some(Value::String("done".to_owned()).into()),
        status: Status::Ok,
        step,
        completed: true,
        agent: None,
        time: None,
    }
}

/// A run of a few calls from `search`, `get` and `book`, in any order.
fn run() -> impl Strategy<Value = Run> {
    prop::collection::vec(prop::sample::select(&["search", "get", "book"][..]), 0..=4).prop_map(
        |names| Run {
            calls: names
                .iter()
                .zip(0..)
                .map(|(name, step)| call(name, step))
                .collect(),
            format: "trailgate",
            line: None,
            ..Default::default()
        },
    )
}

/// Whether a run passes on its own, by the test's rule, without trailgate.
fn passes(run: &Run) -> bool {
    run.calls.iter().any(|call| call.name == "book")
}

fn confidence() -> impl Strategy<Value = Confidence> {
    prop::sample::select(Confidence::ALL.to_vec())
}

/// Runs (1 to `max`), a k in 1..=n, a confidence and a gate value.
fn setup(max: usize) -> impl Strategy<Value = (Vec<Run>, u64, Confidence, u8)> {
    prop::collection::vec(run(), 1..=max).prop_flat_map(|runs| {
        let n = runs.len() as u64;
        (Just(runs), 1..=n, confidence(), 0_u8..=100)
    })
}

fn evaluate(test: &Test, runs: &[Run]) -> TestOutcome {
    let mut evaluator = TestEvaluator::new(test);
    for (index, run) in runs.iter().enumerate() {
        let source = RunSource {
            file: format!("run-{index}.json"),
            line: None,
            trace: None,
        };
        evaluator.add_run(source, run);
    }
    evaluator.finish().expect("k is at most the runs")
}

/// The five reliability metrics of an outcome, in report order.
fn reliability_metrics(outcome: &TestOutcome) -> Vec<(String, u8)> {
    outcome
        .metrics
        .iter()
        .filter(|(target, _)| target.as_str().starts_with("reliability."))
        .map(|(target, percent)| {
            let percent = percent
                .percent()
                .expect("a reliability metric is a percent");
            (target.as_str().to_owned(), percent.value())
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The block's figures are the core's for the test's own n and c, where c is counted
    /// here by the test's rule; its metrics state them, and the inconclusive note sits on the
    /// pass rate's gate exactly when its runs neither settle it true nor false.
    #[test]
    fn the_block_s_figures_are_the_core_s_for_the_test_s_counts(
        (runs, k, confidence, gate) in setup(40),
    ) {
        let outcome = evaluate(&test_of(k, confidence, gate), &runs);
        let n = runs.len() as u64;
        let c = runs.iter().filter(|run| passes(run)).count() as u64;
        prop_assert_eq!(outcome.passed_runs as u64, c);
        let expected = reliability(n, c, k, confidence).unwrap();
        let block = outcome.reliability.as_ref().expect("the block's outcome");
        prop_assert_eq!(&block.figures, &expected);
        let f = &expected;
        prop_assert_eq!(
            reliability_metrics(&outcome),
            vec![
                ("reliability.pass_rate".to_owned(), f.pass_rate.value()),
                ("reliability.pass_at_k".to_owned(), f.pass_at_k.value()),
                ("reliability.pass_hat_k".to_owned(), f.pass_hat_k.value()),
                ("reliability.pass_rate.lower".to_owned(), f.interval.lower.value()),
                ("reliability.pass_rate.upper".to_owned(), f.interval.upper.value()),
            ]
        );
        let rate_gate = outcome
            .gates
            .iter()
            .find(|g| g.gate.target.as_str() == "reliability.pass_rate")
            .expect("the pass rate's gate");
        let value = trailgate_core::Percent::new(gate).unwrap();
        // A `>=` gate is unsettled when lower < v <= upper: its runs neither support it
        // (v <= lower) nor refute it (upper < v); docs/reliability.md.
        let unsettled = f.interval.lower < value && value <= f.interval.upper;
        prop_assert_eq!(rate_gate.note.is_some(), unsettled);
        // Only a gate on the pass rate itself is marked.
        for other in outcome.gates.iter().filter(|g| g.gate.target.as_str() != "reliability.pass_rate") {
            prop_assert!(other.note.is_none(), "{other:?}");
        }
    }

    /// Reading the runs in another order changes no figure, metric, gate, note or verdict.
    #[test]
    fn the_order_of_the_runs_changes_no_figure(
        ((runs, k, confidence, gate), shuffled) in setup(40).prop_flat_map(|setup| {
            let runs = setup.0.clone();
            (Just(setup), Just(runs).prop_shuffle())
        }),
    ) {
        let test = test_of(k, confidence, gate);
        let (a, b) = (evaluate(&test, &runs), evaluate(&test, &shuffled));
        prop_assert_eq!(&a.reliability, &b.reliability);
        prop_assert_eq!(&a.metrics, &b.metrics);
        prop_assert_eq!(&a.gates, &b.gates);
        prop_assert_eq!(a.passed_runs, b.passed_runs);
        prop_assert_eq!(a.passed, b.passed);
    }

    /// The same runs recorded `times` times over (n and c both multiplied) keep the pass
    /// rate and narrow the interval (weakly: the whole percents may stay put), so a gate
    /// value that the few runs settle stays settled.
    #[test]
    fn the_interval_narrows_as_runs_grow_at_a_fixed_rate(
        (runs, k, confidence, gate) in setup(12),
        times in 2_usize..=12,
    ) {
        let test = test_of(k, confidence, gate);
        let many: Vec<Run> = std::iter::repeat_n(runs.iter(), times).flatten().cloned().collect();
        let (few, many) = (evaluate(&test, &runs), evaluate(&test, &many));
        let few = &few.reliability.expect("the block's outcome").figures;
        let many = &many.reliability.expect("the block's outcome").figures;
        prop_assert_eq!(many.runs, few.runs * times as u64);
        prop_assert_eq!(many.passed, few.passed * times as u64);
        prop_assert_eq!(many.pass_rate, few.pass_rate);
        prop_assert!(few.interval.lower <= many.interval.lower, "{few:?} {many:?}");
        prop_assert!(many.interval.upper <= few.interval.upper, "{few:?} {many:?}");
        let value = trailgate_core::Percent::new(gate).unwrap();
        if !few.interval.is_inconclusive(value) {
            prop_assert!(!many.interval.is_inconclusive(value), "{few:?} {many:?}");
        }
    }
}
