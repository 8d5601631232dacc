//! Micro-benchmarks of the suite's matchers at growing sizes (issue 8,
//! docs/performance.md): a `Pattern` searched in texts of growing length, the `tool-calls`
//! grader over runs of growing length (of a few tools, and of a new tool at every call),
//! and a whole test with all four grader kinds (the benchmark suite's shape) adding one
//! run. Run with `cargo bench -p trailgate-expect`; nothing here asserts a time.

use std::hint::black_box;

use divan::Bencher;
use serde_json::{Value, json};
use trailgate_expect::{Pattern, RunSource, SuiteFile, Test, TestEvaluator, TestRun};
use trailgate_trace::{Call, Run, Status};

fn main() {
    divan::main();
}

/// Calls in a run.
const SIZES: &[usize] = &[10, 100, 1_000, 10_000];

/// A test with all four grader kinds, as `cargo xtask bench-data` writes them.
const SUITE: &str = r#"tests:
  - name: bench
    equal_function_sets:
      classes:
        - name: search
          members: [brave.search, google.search]
        - name: shell
          members: [bash]
        - name: read
          members: [read_file]
        - name: fetch
          members: [http.fetch]
        - name: notify
          members: [slack.notify]
    graders:
      - type: tool-calls
        config:
          required:
            - name: "^search$"
              args: { query: "(?i)trailgate|rust" }
            - name: "^bash$"
              command: "^(cargo|npm|make) (test|build)"
            - name: "^read_file$"
              path: "\\.(rs|md|toml)$"
              before_step: 8
          disallowed:
            - name: "^bash$"
              command: "rm -rf /"
            - name: "^(read|write)_file$"
              path: "(^|/)\\.env$"
            - name: "^fetch$"
              result: "\"status\":5[0-9][0-9]"
          sequence:
            - name: "search"
            - name: "^(fetch|get|download)$"
            - name: "^bash$"
              command: "test"
      - type: tool-correctness
        config:
          expected_tools: [brave.search, fetch, read_file, bash]
          check_ordering: true
      - type: call-accuracy
        config:
          expected:
            - tool: brave.search
              args: { query: "trailgate release notes", options: { limit: 10 } }
            - tool: bash
              args: { command: "cargo test", cwd: "/work" }
            - tool: read_file
              args: { path: "README.md" }
            - tool: http.fetch
              args: { url: "https://example.com/", retry: { count: 3 } }
"#;

fn test() -> Test {
    let suite = SuiteFile::new("trailgate.yaml", SUITE.to_owned())
        .parse()
        .unwrap_or_else(|_| unreachable!("the benchmark suite is valid"));
    suite
        .tests
        .into_iter()
        .next()
        .unwrap_or_else(|| unreachable!("the benchmark suite has a test"))
}

/// A run of `n` completed calls cycling through eight tools, none of which matches a
/// `disallowed` entry, so every matcher is tried on every call.
fn run(n: usize) -> Run {
    let shapes: [(&str, &str, Value, Value); 8] = [
        (
            "brave",
            "search",
            json!({"query": "weather in paris", "options": {"limit": 5}}),
            json!({"hits": [], "total": 0}),
        ),
        (
            "google",
            "search",
            json!({"query": "trailgate release notes", "options": {"limit": 10}}),
            json!({"hits": [{"title": "x"}]}),
        ),
        (
            "shell",
            "bash",
            json!({"command": "ls -la", "cwd": "/work"}),
            json!({"exit_code": 0, "stdout": "a b c"}),
        ),
        (
            "shell",
            "bash",
            json!({"command": "cargo test", "cwd": "/work"}),
            json!({"exit_code": 0, "stdout": "ok"}),
        ),
        (
            "fs",
            "read_file",
            json!({"path": "notes.txt", "range": {"start": 1}}),
            json!("text"),
        ),
        (
            "http",
            "fetch",
            json!({"url": "https://example.com/", "retry": {"count": 2}}),
            json!({"status": 200, "body": "ok"}),
        ),
        (
            "slack",
            "notify",
            json!({"channel": "#ci", "text": "done"}),
            json!({"ok": true}),
        ),
        (
            "db",
            "query",
            json!({"table": "issues", "filter": {"state": "open"}}),
            json!({"rows": [], "count": 0}),
        ),
    ];
    let calls = (0..n)
        .map(|index| {
            let (server, name, args, result) = &shapes[index % shapes.len()];
            Call {
                server: Some((*server).to_owned()),
                name: (*name).to_owned(),
                args: args.clone().into(),
                args_raw: None,
                result: Some(result.clone().into()),
                status: Status::Ok,
                step: u32::try_from(index / 4).unwrap_or(u32::MAX),
                completed: true,
                agent: None,
                time: None,
            }
        })
        .collect();
    Run {
        calls,
        format: "trailgate",
        line: None,
        ..Default::default()
    }
}

/// `Pattern::is_match` of an alternation with `(?i)`, searched in a text of `n` words that
/// does not contain it: the whole text is scanned.
#[divan::bench(args = SIZES, max_time = 2)]
fn pattern_no_match(bencher: Bencher<'_, '_>, n: usize) {
    let pattern =
        Pattern::new("(?i)trailgate|rust").unwrap_or_else(|_| unreachable!("the pattern is valid"));
    let text = ["weather", "in", "paris", "tomorrow"]
        .iter()
        .cycle()
        .take(n)
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    bencher.bench_local(|| black_box(pattern.is_match(black_box(&text))));
}

/// `Pattern::is_match` of an anchored name pattern on a short tool name, once per call of a
/// run of `n` calls: what `name:` costs.
#[divan::bench(args = SIZES, max_time = 2)]
fn pattern_names(bencher: Bencher<'_, '_>, n: usize) {
    let pattern = Pattern::new("^(fetch|get|download)$").unwrap_or_else(|_| unreachable!("valid"));
    let run = run(n);
    bencher.bench_local(|| {
        run.calls
            .iter()
            .filter(|call| pattern.is_match(&call.name))
            .count()
    });
}

/// The `tool-calls` grader (three required, three disallowed and three sequence entries,
/// with regexes on names, arguments and results) grading one run of `n` calls.
#[divan::bench(args = SIZES, max_time = 2)]
fn tool_calls_grade(bencher: Bencher<'_, '_>, n: usize) {
    let test = test();
    let Some(grader) = &test.graders.tool_calls else {
        unreachable!("the benchmark suite has a tool-calls grader")
    };
    let run = run(n);
    let source = RunSource {
        file: "bench.jsonl".to_owned(),
        line: Some(1),
        trace: None,
    };
    bencher.bench_local(|| {
        black_box(grader.grade(&TestRun {
            calls: &run,
            number: 1,
            source: &source,
        }))
    });
}

/// The same grader on a run of `n` calls that each call a tool of their own (`search0`,
/// `bash1`, ...): no name repeats, so every call pays for matching its name against every
/// entry, as in a run where each tool is called once.
#[divan::bench(args = SIZES, max_time = 2)]
fn tool_calls_grade_distinct_tools(bencher: Bencher<'_, '_>, n: usize) {
    let test = test();
    let Some(grader) = &test.graders.tool_calls else {
        unreachable!("the benchmark suite has a tool-calls grader")
    };
    let mut run = run(n);
    for (index, call) in run.calls.iter_mut().enumerate() {
        call.name = format!("{}{index}", call.name);
    }
    let source = RunSource {
        file: "bench.jsonl".to_owned(),
        line: Some(1),
        trace: None,
    };
    bencher.bench_local(|| {
        black_box(grader.grade(&TestRun {
            calls: &run,
            number: 1,
            source: &source,
        }))
    });
}

/// A test with all four grader kinds scoring one run of `n` calls: the work
/// `trailgate check` does per run of the benchmark corpus, after parsing.
#[divan::bench(args = SIZES, max_time = 2)]
fn evaluate_all_four(bencher: Bencher<'_, '_>, n: usize) {
    let test = test();
    let run = run(n);
    bencher.bench_local(|| {
        let mut evaluator = TestEvaluator::new(&test);
        evaluator.add_run(
            RunSource {
                file: "bench.jsonl".to_owned(),
                line: Some(1),
                trace: None,
            },
            &run,
        );
        black_box(evaluator)
    });
}
