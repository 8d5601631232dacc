//! Helpers shared by the renderers' unit tests: calls written as short specs, and the
//! outcome of a suite evaluated over such runs.

use serde_json::json;
use trailgate_expect::{RunSource, SuiteFile, SuiteOutcome, TestEvaluator};
use trailgate_trace::{Call, Run, Status};

/// A call from `server.name` or `name`, optionally followed by its JSON arguments
/// (`bash{"command":"ls"}`); a leading `~` marks a call with no recorded result.
pub(crate) fn call(spec: &str) -> Call {
    let (completed, spec) = match spec.strip_prefix('~') {
        Some(rest) => (false, rest),
        None => (true, spec),
    };
    let (id, args): (_, serde_json::Value) = match spec.find('{') {
        Some(at) => (
            &spec[..at],
            serde_json::from_str(&spec[at..]).expect("the arguments are JSON"),
        ),
        None => (spec, json!({})),
    };
    let (server, name) = match id.split_once('.') {
        Some((server, name)) => (Some(server.to_owned()), name),
        None => (None, id),
    };
    Call {
        server,
        name: name.to_owned(),
        args: args.into(),
        args_raw: None,
        result: None,
        status: Status::Unknown,
        step: 0,
        completed,
        agent: None,
        time: None,
    }
}

/// The outcome of `suite` (read as `suite_name`), each test scored over the runs that
/// `runs_of(test index)` gives, read from `traces/run<N>.json`.
pub(crate) fn evaluate(
    suite_name: &str,
    suite: &str,
    runs_of: impl Fn(usize) -> Vec<Vec<Call>>,
) -> SuiteOutcome {
    let suite = SuiteFile::new(suite_name, suite.to_owned())
        .parse()
        .expect("the suite parses");
    let tests = suite
        .tests
        .iter()
        .enumerate()
        .map(|(index, test)| {
            let mut evaluator = TestEvaluator::new(test);
            for (number, calls) in (1..).zip(runs_of(index)) {
                let run = Run {
                    calls,
                    ..Run::default()
                };
                let source = RunSource {
                    file: format!("traces/run{number}.json"),
                    line: None,
                    trace: None,
                };
                evaluator.add_run(source, &run);
            }
            evaluator
                .finish()
                .expect("every matched call has its argument")
        })
        .collect();
    SuiteOutcome {
        tests,
        notes: Vec::new(),
    }
}
