//! The toy kind, added as a module and one registry line, goes everywhere a kind goes.

use crate::metric_value::MetricValue;
use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use trailgate_trace::{Call, Run, Status};

use super::ToyView;
use crate::graders::contract::GraderRecheck;
use crate::recheck::Metrics;
use crate::{
    Entries, EntrySink, JsonContext, JsonField, Piece, RunSource, SuiteFile, TestEvaluator,
    TestOutcome, suite_schema,
};

const SUITE: &str = r#"
tests:
  - name: mostly search
    graders:
      - type: toy
        config:
          tool: search
          expect:
            - toy.share: { ">=": 50 }
"#;

fn run(names: &[&str]) -> Run {
    Run {
        calls: names
            .iter()
            .map(|name| Call {
                server: None,
                name: (*name).to_owned(),
                args: json!({}).into(),
                args_raw: None,
                result: None,
                status: Status::Ok,
                step: 0,
                completed: true,
                agent: None,
                time: None,
            })
            .collect(),
        format: "trailgate",
        line: None,
        ..Default::default()
    }
}

/// The suite's one test, scored over two runs: 3 of 5 calls are `search`.
fn outcome() -> TestOutcome {
    let suite = SuiteFile::new("suite.yaml", SUITE.to_owned())
        .parse()
        .expect("a suite with a toy grader reads");
    let test = &suite.tests[0];
    assert_eq!(
        test.graders.toy.as_ref().map(|toy| toy.tool.as_str()),
        Some("search")
    );
    let mut evaluator = TestEvaluator::new(test);
    for (number, calls) in [&["search", "fetch"][..], &["search", "search", "list"]]
        .iter()
        .enumerate()
    {
        let source = RunSource {
            file: format!("traces/run{number}.json"),
            line: None,
            trace: None,
        };
        evaluator.add_run(source, &run(calls));
    }
    evaluator.finish().expect("the toy judges every call")
}

/// Collects the entries of the run-sized lists, by list number.
#[derive(Default)]
struct Lists(BTreeMap<usize, Vec<Value>>);

impl EntrySink for Lists {
    fn entry(&mut self, list: usize, json: &[u8]) -> std::io::Result<()> {
        let value = serde_json::from_slice(json).map_err(std::io::Error::other)?;
        self.0.entry(list).or_default().push(value);
        Ok(())
    }
}

/// The toy's object in the test of the JSON report, as the report assembles it: its fields,
/// with its run-sized list filled from the entries of the listed runs.
fn toy_json(outcome: &TestOutcome) -> Value {
    let mut lists = Lists::default();
    let context = JsonContext::of_outcome(outcome);
    for index in 0..outcome.runs.len() {
        outcome
            .write_listed_json_entries(index, &context, &mut Entries::new(&mut lists))
            .expect("entries are written");
    }
    let part = outcome
        .json_parts()
        .into_iter()
        .find(|part| part.key == "toy")
        .expect("the toy has an object in the JSON report");
    let mut object = Map::new();
    for (name, field) in part.fields {
        let value = match field {
            JsonField::Value(text) => serde_json::from_str(&text).expect("a field is JSON"),
            JsonField::List(list) => Value::Array(lists.0.remove(&list).unwrap_or_default()),
        };
        object.insert(name.to_owned(), value);
    }
    Value::Object(object)
}

#[test]
fn a_kind_added_as_one_module_and_one_registry_line_is_read_scored_reported_and_merged() {
    let outcome = outcome();

    // Scored and gated.
    let share: Vec<(&str, u8)> = outcome
        .metrics
        .iter()
        .map(|(target, value)| {
            (
                target.as_str(),
                value
                    .percent()
                    .map_or(u8::MAX, trailgate_core::Percent::value),
            )
        })
        .collect();
    assert_eq!(share, [("toy.share", 60)]);
    assert!(outcome.passed, "60 >= 50");

    // In the text report's sections.
    let section = outcome
        .sections()
        .into_iter()
        .find(|section| section.key == "toy")
        .expect("the toy has a section");
    assert_eq!(
        section.summary,
        [Piece::Text("toy: 3 of 5 calls".to_owned())]
    );
    assert_eq!(section.runs.len(), 2);

    // In the JSON report.
    let object = toy_json(&outcome);
    assert_eq!(
        object,
        json!({
            "calls": 5, "hits": 3, "share": 60,
            "runs": [
                { "run": 1, "calls": 2, "hits": 1 },
                { "run": 2, "calls": 3, "hits": 2 },
            ],
        })
    );

    // Read back and checked by `merge`; a share that its runs do not give is refused.
    let metrics = BTreeMap::from([("toy.share".to_owned(), MetricValue::whole(60))]);
    let view: ToyView = serde_json::from_value(object.clone()).expect("merge reads the object");
    assert_eq!(
        <super::ToyGrader as GraderRecheck>::add_up(&view, &Metrics(&metrics)),
        Ok(())
    );
    let mut wrong = object;
    wrong["share"] = json!(61);
    let view: ToyView = serde_json::from_value(wrong).expect("merge reads the object");
    assert!(<super::ToyGrader as GraderRecheck>::add_up(&view, &Metrics(&metrics)).is_err());
}

#[test]
fn a_kind_s_keys_and_metrics_are_in_the_schema() {
    let schema = suite_schema();
    let targets = schema
        .pointer("/$defs/Expectation/propertyNames/enum")
        .and_then(Value::as_array)
        .expect("the expectations' targets are listed");
    assert!(targets.contains(&json!("toy.share")), "{targets:?}");
    let text = schema.to_string();
    assert!(text.contains(r#""toy""#), "the kind's `type:`");
    assert!(
        text.contains("The tool whose calls are counted."),
        "its key, with its description"
    );
}

#[test]
fn a_kind_s_config_is_checked_by_the_kind_with_its_own_keys() {
    let suite = SUITE.replace("tool: search", "tol: search");
    let Err(error) = SuiteFile::new("suite.yaml", suite).parse() else {
        panic!("an unknown key is refused");
    };
    let problems: Vec<_> = error.problems().collect();
    assert_eq!(problems.len(), 1, "{problems:?}");
    let help = problems[0].help.as_deref().unwrap_or_default();
    assert!(
        help.contains("`tool`") && !help.contains("required"),
        "the help names the toy's keys, not every kind's: {help}"
    );

    let suite = SUITE.replace("          tool: search\n", "");
    let Err(error) = SuiteFile::new("suite.yaml", suite.clone()).parse() else {
        panic!("a toy grader without `tool:` is refused:\n{suite}");
    };
    let messages: Vec<&str> = error.problems().map(|p| p.message.as_str()).collect();
    assert_eq!(messages, ["a `toy` grader needs `tool:`"]);
}
