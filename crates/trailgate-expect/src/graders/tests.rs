//! Each kind's metrics of one run are those of a test of that one run.

use crate::metric_value::MetricValue;
use proptest::prelude::*;
use serde_json::{Value, json};
use trailgate_trace::{Call, Run, Status};

use super::contract::{Grader, metrics_alone};
use crate::gate::Target;
use crate::run::{Detail, RunSource, TestRun};
use crate::{SuiteFile, Test};

/// Every kind, `tool-correctness` in both of its exact modes and `budget` with and without
/// `optimal_calls` (one test each).
const SUITE: &str = r#"
tests:
  - name: every kind
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
      - type: tool-correctness
        config:
          expected_tools: [search, http.get]
          check_ordering: true
      - type: call-accuracy
        config:
          expected:
            - tool: search
              args: { q: a }
            - tool: http.get
              args: { q: b, page: 1 }
      - type: trajectory
        config:
          mode: in_order
          expected:
            - search
            - parallel: [http.get, search]
      - type: budget
        config:
          max_calls: 3
          max_repeats: 0
          optimal_calls: 2
      - type: errors
        config:
          expect:
            - errors.recovery: { ">=": 50 }
      - type: dependencies
        config:
          edges:
            - { before: search, after: http.get }
  - name: exact correctness
    graders:
      - type: tool-correctness
        config:
          expected_tools: [search, http.get]
          exact_match: true
      - type: budget
        config:
          max_calls: 2
"#;

fn tests() -> Vec<Test> {
    SuiteFile::new("suite.yaml", SUITE.to_owned())
        .parse()
        .expect("the suite parses")
        .tests
}

fn call() -> impl Strategy<Value = Call> {
    (
        prop::option::of(prop::sample::select(&["brave", "http"][..])),
        prop::sample::select(&["search", "get", "rm"][..]),
        prop::sample::select(&["a", "b"][..]),
        prop::sample::select(&[Status::Ok, Status::Error, Status::Unknown][..]),
        0_u32..3,
    )
        .prop_map(|(server, name, q, status, step)| {
            let completed = status != Status::Unknown;
            Call {
                server: server.map(str::to_owned),
                name: name.to_owned(),
                args: json!({ "q": q }).into(),
                args_raw: None,
                result: completed.then(|| Value::String("done".to_owned()).into()),
                status,
                step,
                completed,
                agent: None,
                time: None,
            }
        })
}

type Metrics = Vec<(Target, MetricValue)>;

/// The grader's own metrics of the run, and those of a test of that one run.
fn both<G: Grader>(grader: &G, run: &Run) -> (Metrics, Metrics) {
    let source = RunSource {
        file: "run.json".to_owned(),
        line: None,
        trace: None,
    };
    let run = TestRun {
        calls: run,
        number: 1,
        source: &source,
    };
    let verdict = grader.grade(&run, Detail::Counts);
    (
        grader.run_metrics(&verdict),
        metrics_alone(grader, &verdict),
    )
}

/// Each kind of the registry that `test` has: its own metrics of `run` are those of the run
/// alone.
macro_rules! every_kind {
    ($($field:ident: $variant:ident = $grader:ty, $key:literal;)*) => {
        fn check_every_kind(test: &Test, run: &Run) -> Result<(), TestCaseError> {
            $(
                if let Some(grader) = &test.graders.$field {
                    let (own, alone) = both(grader, run);
                    prop_assert_eq!(own, alone, "{}", $key);
                }
            )*
            Ok(())
        }
    };
}

registry!(every_kind);

proptest! {
    #[test]
    fn a_kind_s_run_metrics_are_those_of_its_run_alone(
        calls in prop::collection::vec(call(), 0..=5),
    ) {
        let run = Run { calls, format: "trailgate", ..Run::default() };
        for test in tests() {
            check_every_kind(&test, &run)?;
        }
    }
}
