//! A test with every block (equal-function sets and the three graders), evaluated over
//! generated runs: what it reports over several runs does not depend on their order, and
//! call accuracy does not depend on the order of the expected list.

use proptest::prelude::*;
use serde_json::{Value, json};
use toolgate_expect::{RunSource, SuiteFile, Test, TestEvaluator, TestOutcome};
use toolgate_trace::{Call, Run, Status};

const SUITE: &str = r#"
tests:
  - name: every block
    equal_function_sets:
      classes:
        - name: search
          members: [brave.search, search]
        - name: fetch
          members: [http.get]
    graders:
      - type: tool-calls
        config:
          required: [{ name: search }]
          disallowed: [{ name: "^rm$" }]
          sequence: [search, get]
      - type: tool-correctness
        config:
          expected_tools: [search, http.get]
      - type: call-accuracy
        config:
          expected:
            - tool: search
              args: { q: a }
            - tool: brave.search
              args: { q: a }
            - tool: http.get
              args: { q: b }
"#;

fn test_of(suite: &str) -> Test {
    let mut suite = SuiteFile::new("suite.yaml", suite.to_owned())
        .parse()
        .expect("the suite parses");
    suite.tests.remove(0)
}

/// A call of a small alphabet: `brave.search`, `search`, `http.get`, `get`, `rm`, ...
fn call() -> impl Strategy<Value = Call> {
    (
        prop::option::of(prop::sample::select(&["brave", "http"][..])),
        prop::sample::select(&["search", "get", "rm", "other"][..]),
        prop::sample::select(&["a", "b"][..]),
        any::<bool>(),
        0_u32..3,
    )
        .prop_map(|(server, name, q, completed, step)| Call {
            server: server.map(str::to_owned),
            name: name.to_owned(),
            args: json!({ "q": q }).into(),
            args_raw: None,
            result: completed.then(|| Value::String("done".to_owned()).into()),
            status: if completed {
                Status::Ok
            } else {
                Status::Unknown
            },
            step,
            completed,
        })
}

fn run() -> impl Strategy<Value = Run> {
    prop::collection::vec(call(), 0..=6).prop_map(|calls| Run {
        calls,
        format: "toolgate",
        line: None,
    })
}

fn evaluate(test: &Test, runs: &[Run]) -> TestOutcome {
    let mut evaluator = TestEvaluator::new(test);
    for (index, run) in runs.iter().enumerate() {
        let source = RunSource {
            file: format!("run-{index}.json"),
            line: None,
        };
        evaluator.add_run(source, run);
    }
    evaluator.finish().expect("no command or path matchers")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Every block's metrics over several runs are micro-averaged (or, for the pass rate
    /// and exact tool correctness, shares of runs): reading the runs in another order
    /// changes no metric, no gate and no verdict.
    #[test]
    fn metrics_do_not_depend_on_the_order_of_runs(
        (runs, shuffled) in prop::collection::vec(run(), 1..=5)
            .prop_flat_map(|runs| (Just(runs.clone()), Just(runs).prop_shuffle())),
    ) {
        let test = test_of(SUITE);
        let (a, b) = (evaluate(&test, &runs), evaluate(&test, &shuffled));
        prop_assert_eq!(&a.metrics, &b.metrics);
        prop_assert_eq!(&a.gates, &b.gates);
        prop_assert_eq!(a.passed, b.passed);
        prop_assert_eq!(a.passed_runs, b.passed_runs);
        for (target, percent) in &a.metrics {
            prop_assert!(percent.value() <= 100, "{target:?} = {percent}");
        }
    }

    /// Call accuracy does not depend on the order of the expected list (the order of the
    /// run's calls is the core property `call_accuracy_does_not_depend_on_the_order_of_either_list`):
    /// the counts and metrics of every run are the same with the entries reversed.
    #[test]
    fn call_accuracy_does_not_depend_on_the_order_of_the_expected_list(
        runs in prop::collection::vec(run(), 1..=3),
    ) {
        let reversed = SUITE.replace(
            "            - tool: search\n              args: { q: a }\n            - tool: brave.search\n              args: { q: a }\n            - tool: http.get\n              args: { q: b }\n",
            "            - tool: http.get\n              args: { q: b }\n            - tool: brave.search\n              args: { q: a }\n            - tool: search\n              args: { q: a }\n",
        );
        prop_assert_ne!(&reversed, SUITE);
        let (a, b) = (evaluate(&test_of(SUITE), &runs), evaluate(&test_of(&reversed), &runs));
        let (a, b) = (a.graders.call_accuracy.unwrap(), b.graders.call_accuracy.unwrap());
        prop_assert_eq!(a.metrics, b.metrics);
        for (x, y) in a.runs.iter().zip(&b.runs) {
            let tally = |run: &toolgate_expect::RunAccuracy| {
                (run.correct.len(), run.incorrect.len(), run.missed.len(), run.extra.len())
            };
            prop_assert_eq!(tally(x), tally(y));
        }
    }

    /// A run's verdict is the test's verdict over that run alone (SPEC section 14): each
    /// run of a test passes exactly when the test of that one run passes, and the test
    /// counts the runs that pass.
    #[test]
    fn a_run_passes_when_the_test_of_it_alone_passes(
        runs in prop::collection::vec(run(), 1..=5),
    ) {
        let test = test_of(SUITE);
        let outcome = evaluate(&test, &runs);
        let mut passed = 0;
        for (run, info) in runs.iter().zip(&outcome.runs) {
            let alone = evaluate(&test, std::slice::from_ref(run));
            prop_assert_eq!(info.passed, alone.passed);
            prop_assert_eq!(alone.passed_runs, usize::from(alone.passed));
            passed += usize::from(alone.passed);
        }
        prop_assert_eq!(outcome.passed_runs, passed);
    }
}
