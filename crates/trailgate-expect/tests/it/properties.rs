//! A test with every block (equal-function sets and every grader), evaluated over
//! generated runs: what it reports over several runs does not depend on their order, and
//! call accuracy does not depend on the order of the expected list.

use proptest::prelude::*;
use serde_json::{Value, json};
use trailgate_expect::{RunSource, SuiteFile, Test, TestEvaluator, TestOutcome};
use trailgate_trace::{Call, Run, Status};

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
      - type: trajectory
        config:
          mode: in_order
          expected: [search, { parallel: [get, rm] }]
      - type: budget
        config:
          max_calls: 4
          max_repeats: 1
          max_calls_per_tool: [{ tool: search, max: 2 }]
          optimal_calls: 3
      - type: errors
        config:
          expect: [errors.recovery: { ">=": 50 }]
      - type: dependencies
        config:
          edges:
            - { before: search, after: get }
            - { feeds: search, into: get, arg: q }
            - { before: get, after: search }
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
        any::<bool>(),
    )
        .prop_map(|(server, name, q, completed, step, failed)| Call {
            server: server.map(str::to_owned),
            name: name.to_owned(),
            args: json!({ "q": q }).into(),
            args_raw: None,
            result: completed.then(|| Value::String("done".to_owned()).into()),
            status: if completed && failed {
                Status::Error
            } else if completed {
                Status::Ok
            } else {
                Status::Unknown
            },
            step,
            completed,
            agent: None,
            time: None,
        })
}

fn run() -> impl Strategy<Value = Run> {
    prop::collection::vec(call(), 0..=6).prop_map(|calls| Run {
        calls,
        format: "trailgate",
        line: None,
        ..Default::default()
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
            prop_assert!(percent.percent().is_some(), "{target:?} = {percent}");
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
            let tally = |run: &trailgate_expect::RunAccuracy| {
                (run.correct.len(), run.incorrect.len(), run.missed.len(), run.extra.len())
            };
            prop_assert_eq!(tally(x), tally(y));
        }
    }

    /// A run's verdict is the test's verdict over that run alone
    /// (docs/reports.md#each-runs-verdict): each
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

/// A step of an expected path: a tool, and the argument `q` when the step names it.
type PathStep = (&'static str, Option<&'static str>);

/// An entry of an expected path, one step or a parallel group of two or three, and whether
/// a run that follows the path makes it in the same turn as the entry before.
type PathEntry = (Vec<PathStep>, bool);

/// An expected path of the `trajectory` grader.
fn path() -> impl Strategy<Value = Vec<PathEntry>> {
    let step = (
        prop::sample::select(&["search", "get", "rm", "brave.search"][..]),
        prop::option::of(prop::sample::select(&["a", "b"][..])),
    );
    let entry = prop_oneof![
        3 => step.clone().prop_map(|s| vec![s]),
        1 => prop::collection::vec(step, 2..=3),
    ];
    prop::collection::vec((entry, any::<bool>()), 1..=4)
}

/// The suite of a `trajectory` grader in `mode` over `path`.
fn trajectory_suite(mode: &str, path: &[PathEntry]) -> String {
    let step = |(tool, q): &PathStep| match q {
        Some(q) => format!("{{tool: {tool}, args: {{q: {q}}}}}"),
        None => (*tool).to_owned(),
    };
    let entries: Vec<String> = path
        .iter()
        .map(|(entry, _)| match entry.as_slice() {
            [one] => step(one),
            group => format!(
                "{{parallel: [{}]}}",
                group.iter().map(step).collect::<Vec<_>>().join(", ")
            ),
        })
        .collect();
    format!(
        "tests:\n  - name: path\n    graders:\n      - type: trajectory\n        config:\n          mode: {mode}\n          expected: [{}]\n",
        entries.join(", ")
    )
}

/// A call of `tool` (`server.name` or `name`) with argument `q`, in turn `step`.
fn call_of(tool: &str, q: &str, step: u32) -> Call {
    let (server, name) = match tool.split_once('.') {
        Some((server, name)) => (Some(server.to_owned()), name.to_owned()),
        None => (None, tool.to_owned()),
    };
    Call {
        server,
        name,
        args: json!({ "q": q }).into(),
        args_raw: None,
        result: None,
        status: Status::Ok,
        step,
        completed: true,
        agent: None,
        time: None,
    }
}

/// A run that follows `path` (a group's calls in one turn, in the order given; a step
/// without `q` called with `q: a`), then has `edits` applied: each an index to swap with
/// the next call, drop, or duplicate.
fn run_along(path: &[PathEntry], edits: &[(u8, usize)]) -> Run {
    let mut calls: Vec<Call> = Vec::new();
    let mut turn = 0_u32;
    for (index, (entry, same_turn)) in path.iter().enumerate() {
        if index > 0 && !same_turn {
            turn += 1;
        }
        for (tool, q) in entry {
            calls.push(call_of(tool, q.unwrap_or("a"), turn));
        }
    }
    for &(kind, at) in edits {
        if calls.is_empty() {
            break;
        }
        let at = at % calls.len();
        match kind % 3 {
            0 if at + 1 < calls.len() => calls.swap(at, at + 1),
            1 => {
                calls.remove(at);
            }
            _ => {
                let copy = calls[at].clone();
                calls.insert(at, copy);
            }
        }
    }
    Run {
        calls,
        format: "trailgate",
        line: None,
        ..Default::default()
    }
}

/// A path and runs near it: some follow it exactly, others with a few edits, others are
/// random.
fn path_and_runs() -> impl Strategy<Value = (Vec<PathEntry>, Vec<Run>)> {
    path().prop_flat_map(|path| {
        let edits = prop::collection::vec((any::<u8>(), any::<usize>()), 0..=2);
        let near = edits.prop_map({
            let path = path.clone();
            move |edits| run_along(&path, &edits)
        });
        let runs = prop::collection::vec(prop_oneof![2 => near, 1 => run()], 1..=4);
        (Just(path), runs)
    })
}

/// Whether each run matches in `mode`, and the grader's outcome.
fn trajectory_of(
    mode: &str,
    path: &[PathEntry],
    runs: &[Run],
) -> trailgate_expect::TrajectoryOutcome {
    let test = test_of(&trajectory_suite(mode, path));
    evaluate(&test, runs)
        .graders
        .trajectory
        .expect("a trajectory grader")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A run that matches `strict` matches every other mode; a run matches `any_order`
    /// exactly when it matches `superset` and `subset`.
    #[test]
    fn trajectory_modes_imply_one_another((path, runs) in path_and_runs()) {
        let verdicts = |mode: &str| -> Vec<bool> {
            trajectory_of(mode, &path, &runs).runs.iter().map(|run| run.matches).collect()
        };
        let strict = verdicts("strict");
        let in_order = verdicts("in_order");
        let any_order = verdicts("any_order");
        let superset = verdicts("superset");
        let subset = verdicts("subset");
        for index in 0..runs.len() {
            if strict[index] {
                prop_assert!(in_order[index], "run {index}: strict but not in_order");
                prop_assert!(any_order[index], "run {index}: strict but not any_order");
                prop_assert!(superset[index], "run {index}: strict but not superset");
                prop_assert!(subset[index], "run {index}: strict but not subset");
            }
            prop_assert_eq!(
                any_order[index],
                superset[index] && subset[index],
                "run {}: any_order is superset and subset", index
            );
        }
    }

    /// In `superset` and `in_order`, `trajectory.score` is 100 exactly when every run
    /// matches, that is when `trajectory.match_rate` is 100.
    #[test]
    fn trajectory_score_is_full_exactly_when_every_run_matches((path, runs) in path_and_runs()) {
        for mode in ["superset", "in_order"] {
            let outcome = trajectory_of(mode, &path, &runs);
            let every = outcome.runs.iter().all(|run| run.matches);
            prop_assert_eq!(outcome.score.value() == 100, every, "{}", mode);
            prop_assert_eq!(outcome.match_rate.value() == 100, every, "{}", mode);
        }
    }

    /// Every mode's metrics do not depend on the order of the runs.
    #[test]
    fn trajectory_does_not_depend_on_the_order_of_runs(
        ((path, runs), seed) in (path_and_runs(), any::<u64>()),
    ) {
        let mut shuffled = runs.clone();
        // A rotation by the seed: another order of the same runs.
        let turn = usize::try_from(seed % runs.len() as u64).unwrap_or(0);
        shuffled.rotate_left(turn);
        shuffled.reverse();
        for mode in ["strict", "in_order", "any_order", "superset", "subset"] {
            let a = trajectory_of(mode, &path, &runs);
            let b = trajectory_of(mode, &path, &shuffled);
            prop_assert_eq!((a.matching_runs, a.matched, a.total), (b.matching_runs, b.matched, b.total));
            prop_assert_eq!((a.match_rate, a.score), (b.match_rate, b.score));
        }
    }
}
