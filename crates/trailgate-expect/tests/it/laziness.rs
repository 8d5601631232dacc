//! Arguments and results kept as text by the trace reader are read by the graders from
//! their text, members, strings and equality alike, and never parsed into `Value`s.

use trailgate_expect::{RunSource, SuiteFile, TestEvaluator};
use trailgate_trace::{LazyValue, parse_run};

const SUITE: &str = r#"
tests:
  - name: lazy
    equal_function_sets:
      classes:
        - name: search
          members: [search]
    graders:
      - type: tool-calls
        config:
          required: [{ name: "^search$", args: { q: "news" } }]
          disallowed: [{ name: "^rm$", result: "." }]
          sequence: [search, get]
      - type: tool-correctness
        config:
          expected_tools: [search, get]
      - type: call-accuracy
        config:
          expected:
            - tool: fetch
              args: { url: "a" }
"#;

const TRACE: &str = r#"{"tool_calls": [
    {"name": "search", "args": {"q": "news"}, "result": "ok"},
    {"name": "get", "args": {"url": "b"}, "result": {"status": 200}},
    {"name": "fetch", "args": {"url": "a"}, "result": "page"},
    {"name": "rm", "args": {"path": "/"}, "result": "done"}
]}"#;

#[test]
fn graders_read_values_without_parsing_them() {
    let mut suite = SuiteFile::new("suite.yaml", SUITE.to_owned())
        .parse()
        .expect("the suite parses");
    let test = suite.tests.remove(0);
    let run = parse_run("run.json", TRACE, 1).expect("the trace parses");
    assert!(run.calls.iter().all(|call| !call.args.is_parsed()));
    let mut evaluator = TestEvaluator::new(&test);
    let source = RunSource {
        file: "run.json".to_owned(),
        line: None,
        trace: None,
    };
    evaluator.add_run(source, &run);
    let outcome = evaluator.finish().expect("no command or path matchers");
    // The answers read from the text: `q` matched, `rm`'s result matched, `fetch`'s
    // arguments are equal to the expected ones.
    let tool_calls = outcome.graders.tool_calls.expect("the grader ran");
    assert_eq!(tool_calls.totals.unmet_entries, 0);
    assert_eq!(tool_calls.totals.disallowed_calls, 1);
    let accuracy = outcome.graders.call_accuracy.expect("the grader ran");
    assert_eq!(accuracy.counts.correct, 1);
    let parsed: Vec<(&str, bool, bool)> = run
        .calls
        .iter()
        .map(|call| {
            let result = call.result.as_ref().is_some_and(LazyValue::is_parsed);
            (call.name.as_str(), call.args.is_parsed(), result)
        })
        .collect();
    assert_eq!(
        parsed,
        [
            ("search", false, false),
            ("get", false, false),
            ("fetch", false, false),
            ("rm", false, false),
        ]
    );
}
