//! Unit tests of the `tool-calls` grader: one `check` over a config and a run, a row per
//! rule of docs/graders/tool-calls.md.

use proptest::prelude::*;
use rstest::rstest;
use serde_json::{Value, json};
use trailgate_trace::{Call, Run, Status, ValueRef, parse_run, result_text};

use super::{
    MatchList, Miss, MissingArgument, NearMiss, Pattern, RequiredMatch, RunToolCalls,
    ToolCallsGrader, ToolMatch, ValueTest, Violation,
};
use crate::SuiteFile;
use crate::matchers::ArgsMode;
use crate::run::{RunSource, TestRun};

/// The grader of a one-test suite whose grader `config` is `config` (YAML flow style).
fn grader(config: &str) -> ToolCallsGrader {
    let text = format!(
        "tests:\n  - name: t\n    graders:\n      - type: tool-calls\n        config: {config}\n"
    );
    let suite = SuiteFile::new("suite.yaml", text)
        .parse()
        .unwrap_or_else(|error| panic!("{error:?}"));
    suite.tests[0]
        .graders
        .tool_calls
        .clone()
        .expect("a tool-calls grader")
}

fn run(trace: &str) -> Run {
    parse_run("run.json", trace, 1).expect("a valid trace")
}

/// `grader` grading `run` as run `number` of its test, read from `run.json`.
fn grade_run(grader: &ToolCallsGrader, run: &Run, number: usize) -> RunToolCalls {
    let source = RunSource {
        file: "run.json".to_owned(),
        line: None,
        trace: None,
    };
    grader.grade(&TestRun {
        calls: run,
        number,
        source: &source,
    })
}

/// The verdict of the grader written `config` on the run written `trace`, and the calls
/// it could not judge.
fn grade(config: &str, trace: &str) -> (RunToolCalls, Vec<MissingArgument>) {
    let verdict = grade_run(&grader(config), &run(trace), 1);
    let missing = verdict.missing_arguments.clone();
    (verdict, missing)
}

/// Whether the run passes.
#[track_caller]
fn check(config: &str, trace: &str, passes: bool) {
    let (verdict, missing) = grade(config, trace);
    assert!(missing.is_empty(), "{missing:?}");
    assert_eq!(verdict.passed, passes, "{verdict:?}");
}

const BASH_NPM_TEST: &str =
    r#"{"tool_calls": [{"name": "bash", "args": {"command": "npm test"}}]}"#;

#[rstest]
#[case::shorthand_is_a_name_regex(
    "{required: [create]}",
    r#"{"tool_calls": [{"name": "create_file"}]}"#,
    true
)]
#[case::name_is_unanchored(
    "{required: [bash]}",
    r#"{"tool_calls": [{"name": "read_bash"}]}"#,
    true
)]
#[case::anchored_name(
    "{required: ['^bash$']}",
    r#"{"tool_calls": [{"name": "read_bash"}]}"#,
    false
)]
#[case::case_insensitive_flag("{required: ['(?i)^BASH$']}", BASH_NPM_TEST, true)]
#[case::command("{required: [{name: bash, command: 'npm test'}]}", BASH_NPM_TEST, true)]
#[case::command_mismatch("{required: [{name: bash, command: 'npm run'}]}", BASH_NPM_TEST, false)]
#[case::command_not_a_string(
    "{required: [{name: bash, command: 'npm'}]}",
    r#"{"tool_calls": [{"name": "bash", "args": {"command": ["npm", "test"]}}]}"#,
    false
)]
#[case::args_missing_is_a_non_match(
    "{required: [{name: bash, args: {cwd: src}}]}",
    BASH_NPM_TEST,
    false
)]
#[case::args_all_must_match(
    "{required: [{name: q, args: {a: x, b: y}}]}",
    r#"{"tool_calls": [{"name": "q", "args": {"a": "x", "b": "y"}}]}"#,
    true
)]
#[case::args_number_is_a_non_match(
    "{required: [{name: q, args: {n: '1'}}]}",
    r#"{"tool_calls": [{"name": "q", "args": {"n": 1}}]}"#,
    false
)]
#[case::result_string(
    "{required: [{name: b, result: OK}]}",
    r#"{"tool_calls": [{"name": "b", "result": "all OK"}]}"#,
    true
)]
#[case::result_object_sorted(
    "{required: [{name: b, result: '^\\{\"a\":1,\"b\":\\[true,null\\]\\}$'}]}",
    r#"{"tool_calls": [{"name": "b", "result": {"b": [true, null], "a": 1}}]}"#,
    true
)]
#[case::no_result_is_a_non_match(
    "{required: [{name: b, result: '.*'}]}",
    r#"{"tool_calls": [{"name": "b"}]}"#,
    false
)]
#[case::min_count_met(
    "{required: [{name: up, min_count: 2}]}",
    r#"{"tool_calls": [{"name": "up"}, {"name": "x"}, {"name": "up"}]}"#,
    true
)]
#[case::min_count_unmet(
    "{required: [{name: up, min_count: 2}]}",
    r#"{"tool_calls": [{"name": "up"}]}"#,
    false
)]
#[case::at_step(
    "{required: [{name: v, at_step: 1}]}",
    r#"{"tool_calls": [{"name": "v", "step": 1}]}"#,
    true
)]
#[case::at_step_other(
    "{required: [{name: v, at_step: 1}]}",
    r#"{"tool_calls": [{"name": "v", "step": 0}]}"#,
    false
)]
#[case::before_step(
    "{required: [{name: v, before_step: 2}]}",
    r#"{"tool_calls": [{"name": "v", "step": 1}]}"#,
    true
)]
#[case::before_step_is_exclusive(
    "{required: [{name: v, before_step: 2}]}",
    r#"{"tool_calls": [{"name": "v", "step": 2}]}"#,
    false
)]
#[case::final_call(
    "{required: [{name: report, final: true}]}",
    r#"{"tool_calls": [{"name": "x"}, {"name": "report"}]}"#,
    true
)]
#[case::final_counts_an_unfinished_call("{required: [{name: report, final: true}]}", r#"{"events": [{"type": "tool_call", "toolName": "report", "toolCallId": "1"}, {"type": "tool_result", "toolCallId": "1"}, {"type": "tool_call", "toolName": "x", "toolCallId": "2"}]}"#, false)]
#[case::unfinished_calls_do_not_count(
    "{required: [create]}",
    r#"{"events": [{"type": "tool_call", "toolName": "create", "toolCallId": "1"}]}"#,
    false
)]
#[case::one_call_satisfies_several_entries(
    "{required: [bash, '^bash$', {name: bash, command: npm}]}",
    BASH_NPM_TEST,
    true
)]
#[case::disallowed_absent(
    "{disallowed: [{name: view, path: 'env$'}]}",
    r#"{"tool_calls": [{"name": "view", "args": {"path": "README"}}]}"#,
    true
)]
#[case::disallowed_found(
    "{disallowed: [{name: view, path: 'env$'}]}",
    r#"{"tool_calls": [{"name": "view", "args": {"path": ".env"}}]}"#,
    false
)]
#[case::disallowed_only_completed(
    "{disallowed: [rm]}",
    r#"{"events": [{"type": "tool_call", "toolName": "rm"}]}"#,
    true
)]
#[case::patch_path_matches_a_file_it_names(
    "{required: [{name: apply_patch, path: '^src/b\\.rs$'}]}",
    r#"{"tool_calls": [{"name": "apply_patch", "args_raw": "*** Begin Patch\n*** Update File: src/a.rs\n*** Add File: src/b.rs\n+x\n*** End Patch"}]}"#,
    true
)]
#[case::patch_path_matches_no_file_it_names(
    "{required: [{name: apply_patch, path: '^docs/'}]}",
    r#"{"tool_calls": [{"name": "apply_patch", "args_raw": "*** Begin Patch\n*** Update File: src/a.rs\n*** End Patch"}]}"#,
    false
)]
#[case::patch_path_in_a_unified_diff(
    "{disallowed: [{name: '.', path: '\\.env$'}]}",
    r#"{"tool_calls": [{"name": "edit", "args_raw": "--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-A=1\n+A=2\n"}]}"#,
    false
)]
#[case::path_on_text_that_is_no_patch(
    "{required: [{name: apply_patch, path: '.'}]}",
    r#"{"tool_calls": [{"name": "apply_patch", "args_raw": "just words"}]}"#,
    false
)]
#[case::args_raw_on_text(
    "{required: [{name: apply_patch, args_raw: 'Add File: tests/'}]}",
    r#"{"tool_calls": [{"name": "apply_patch", "args_raw": "*** Begin Patch\n*** Add File: tests/t.py\n+x\n*** End Patch"}]}"#,
    true
)]
#[case::args_raw_on_json_reads_sorted_compact_json(
    "{required: [{name: bash, args_raw: '^\\{\"a\":1,\"cmd\":\"ls\"\\}$'}]}",
    r#"{"tool_calls": [{"name": "bash", "args": {"cmd": "ls", "a": 1}}]}"#,
    true
)]
#[case::sequence_in_order_with_gaps(
    "{sequence: [a, b, c]}",
    r#"{"tool_calls": [{"name": "a"}, {"name": "x"}, {"name": "b"}, {"name": "c"}]}"#,
    true
)]
#[case::sequence_out_of_order(
    "{sequence: [a, b]}",
    r#"{"tool_calls": [{"name": "b"}, {"name": "a"}]}"#,
    false
)]
#[case::sequence_needs_distinct_calls(
    "{sequence: ['^poll$', '^poll$']}",
    r#"{"tool_calls": [{"name": "poll"}]}"#,
    false
)]
#[case::sequence_repeated_entries(
    "{sequence: ['^poll$', '^poll$']}",
    r#"{"tool_calls": [{"name": "poll"}, {"name": "poll"}]}"#,
    true
)]
#[case::empty_run_fails_required("{required: [a]}", r#"{"tool_calls": []}"#, false)]
#[case::empty_run_passes_disallowed("{disallowed: [a]}", r#"{"tool_calls": []}"#, true)]
fn runs(#[case] config: &str, #[case] trace: &str, #[case] passes: bool) {
    check(config, trace, passes);
}

#[test]
fn unmet_entry_names_the_call_that_came_closest() {
    let (verdict, _) = grade(
        "{required: [{name: '^bash$', command: build, result: SUCCEEDED}]}",
        r#"{"tool_calls": [{"name": "bash", "args": {"command": "npm ci"}}, {"name": "bash", "args": {"command": "npm run build"}, "result": "FAILED"}]}"#,
    );
    let near = verdict.unmet[0].near_miss.as_ref().expect("a near miss");
    assert_eq!(near.call, 2);
    assert_eq!(
        near.miss,
        Miss::Field {
            field: "result".to_owned(),
            found: Some("FAILED".to_owned())
        }
    );
}

#[test]
fn violations_and_sequence_progress_are_reported() {
    let (verdict, _) = grade(
        "{disallowed: [rm], sequence: [a, b, c]}",
        r#"{"tool_calls": [{"name": "a"}, {"name": "rm"}, {"name": "c"}, {"name": "rm"}]}"#,
    );
    let calls: Vec<usize> = verdict.violations.iter().map(|v| v.call).collect();
    assert_eq!(calls, vec![2, 4]);
    assert_eq!(verdict.sequence_stopped_at, Some(1));
}

#[rstest]
#[case::command_absent(r#"{"tool_calls": [{"name": "bash", "args": {"script": "x"}}]}"#, 1)]
#[case::no_argument_object(r#"{"tool_calls": [{"name": "bash", "args": "x"}]}"#, 1)]
#[case::unfinished_call_is_not_judged(
    r#"{"events": [{"type": "tool_call", "toolName": "bash"}]}"#,
    0
)]
#[case::other_names_are_not_judged(r#"{"tool_calls": [{"name": "view"}]}"#, 0)]
#[case::every_call_is_listed(r#"{"tool_calls": [{"name": "bash"}, {"name": "bash"}]}"#, 2)]
fn command_and_path_need_their_argument(#[case] trace: &str, #[case] listed: usize) {
    let (_, missing) = grade("{required: [{name: bash, command: x}]}", trace);
    assert_eq!(missing.len(), listed, "{missing:?}");
}

#[test]
fn arguments_that_are_not_json_are_a_non_match_not_an_error() {
    let (verdict, missing) = grade(
        "{required: [{name: bash, command: test}]}",
        r#"{"tool_calls": [{"name": "bash", "args_raw": "{\"command\": npm test"}]}"#,
    );
    assert!(missing.is_empty(), "{missing:?}");
    assert!(!verdict.passed);
    let near = verdict.unmet[0].near_miss.as_ref().expect("a near miss");
    assert!(matches!(&near.miss, Miss::Field { field, .. } if field.contains("not valid JSON")));
}

#[test]
fn args_treat_a_missing_argument_as_a_non_match_not_an_error() {
    let (verdict, missing) = grade(
        "{required: [{name: bash, args: {command: x}}]}",
        r#"{"tool_calls": [{"name": "bash"}]}"#,
    );
    assert!(missing.is_empty());
    assert!(!verdict.passed);
}

#[test]
fn result_text_is_compact_with_sorted_keys() {
    assert_eq!(
        result_text(&json!({"b": [true, null], "a": 1})),
        r#"{"a":1,"b":[true,null]}"#
    );
    assert_eq!(result_text(&json!("as is")), "as is");
    assert_eq!(
        result_text(&json!({"z": {"y": 1, "x": "q\""}})),
        r#"{"z":{"x":"q\"","y":1}}"#
    );
}

/// The near miss of each unmet entry, as `(call, field or kind, found)`.
fn near_misses(config: &str, trace: &str) -> Vec<Option<(usize, String, String)>> {
    let (verdict, missing) = grade(config, trace);
    assert!(missing.is_empty(), "{missing:?}");
    verdict
        .unmet
        .iter()
        .map(|unmet| unmet.near_miss.as_ref().map(described))
        .collect()
}

/// A near miss as `(call, tool and field or kind, found)`.
fn described(near: &NearMiss) -> (usize, String, String) {
    let (what, found) = match &near.miss {
        Miss::Field { field, found } => (field.clone(), format!("{found:?}")),
        Miss::Step { step } => ("step".to_owned(), step.to_string()),
        Miss::NotFinal => ("final".to_owned(), String::new()),
        Miss::NoResult => ("no result".to_owned(), String::new()),
        Miss::Order { previous } => ("order".to_owned(), previous.to_string()),
    };
    (near.call, format!("{} {what}", near.tool), found)
}

/// A failed `sequence` names the call closest to the entry it stopped at.
#[rstest]
#[case::a_field_after_the_entry_before(
    "{sequence: [a, {name: bash, command: '^npm test'}]}",
    r#"{"tool_calls": [{"name": "bash", "args": {"command": "ls"}}, {"name": "a"}, {"name": "bash", "args": {"command": "npm run build"}}, {"name": "bash", "args": {"command": "ls"}}]}"#,
    Some((3, "bash command", r#"Some("npm run build")"#))
)]
#[case::the_call_that_got_furthest(
    "{sequence: [{name: q, command: x, args: {a: x}}]}",
    r#"{"tool_calls": [{"name": "q", "args": {"command": "y", "a": "x"}}, {"name": "q", "args": {"command": "x", "a": "y"}}, {"name": "q", "args": {"command": "z"}}]}"#,
    Some((2, "q args.a", r#"Some("y")"#))
)]
#[case::out_of_order(
    "{sequence: [a, b]}",
    r#"{"tool_calls": [{"name": "b"}, {"name": "a"}]}"#,
    Some((1, "b order", "2"))
)]
#[case::the_last_early_match(
    "{sequence: [a, b, c]}",
    r#"{"tool_calls": [{"name": "c"}, {"name": "a"}, {"name": "c"}, {"name": "b"}]}"#,
    Some((3, "c order", "4"))
)]
#[case::a_call_without_a_result(
    "{sequence: [b]}",
    r#"{"events": [{"type": "tool_call", "toolName": "b"}]}"#,
    Some((1, "b no result", ""))
)]
#[case::no_call_of_the_tool(
    "{sequence: [a, b]}",
    r#"{"tool_calls": [{"name": "a"}, {"name": "c"}]}"#,
    None
)]
#[case::the_match_of_the_entry_before_is_not_early(
    "{sequence: [a, a, a]}",
    r#"{"tool_calls": [{"name": "a"}, {"name": "a"}]}"#,
    None
)]
fn a_stopped_sequence_names_the_call_that_came_closest(
    #[case] config: &str,
    #[case] trace: &str,
    #[case] expected: Option<(usize, &str, &str)>,
) {
    let (verdict, missing) = grade(config, trace);
    assert!(missing.is_empty(), "{missing:?}");
    assert!(verdict.sequence_stopped_at.is_some(), "{verdict:?}");
    assert_eq!(
        verdict.sequence_near_miss.as_ref().map(described),
        expected.map(|(call, what, found)| (call, what.to_owned(), found.to_owned()))
    );
}

#[rstest]
#[case::the_first_of_equals(
    "{required: [{name: '^bash$', command: build}]}",
    r#"{"tool_calls": [{"name": "bash", "args": {"command": "ls"}}, {"name": "bash", "args": {"command": "rm"}}]}"#,
    (1, "bash command", r#"Some("ls")"#)
)]
#[case::a_later_call_that_got_further(
    "{required: [{name: '^bash$', command: build, path: src}]}",
    r#"{"tool_calls": [{"name": "bash", "args": {"command": "ls", "path": "src"}}, {"name": "bash", "args": {"command": "build", "path": "doc"}}, {"name": "bash", "args": {"command": "x"}}]}"#,
    (2, "bash path", r#"Some("doc")"#)
)]
#[case::an_argument_before_the_result(
    "{required: [{name: q, args: {a: x}, result: ok}]}",
    r#"{"tool_calls": [{"name": "q", "args": {"a": "x"}, "result": {"b": 1, "a": [1.0, "é"]}}, {"name": "q", "args": {}, "result": "ok"}]}"#,
    (1, "q result", r#"Some("{\"a\":[1.0,\"é\"],\"b\":1}")"#)
)]
#[case::a_missing_argument_has_nothing_found(
    "{required: [{name: q, args: {a: x}}]}",
    r#"{"tool_calls": [{"name": "q", "args": {"b": "x"}}, {"name": "q", "args": {"b": "y"}}]}"#,
    (1, "q args.a", "None")
)]
#[case::a_value_that_is_not_a_string_as_json(
    "{required: [{name: q, args: {a: x}}]}",
    r#"{"tool_calls": [{"name": "q", "args": {"a": {"z": null, "y": -0}}}]}"#,
    (1, "q args.a", r#"Some("{\"y\":-0,\"z\":null}")"#)
)]
#[case::arguments_that_are_not_json_rank_with_an_argument(
    "{required: [{name: q, args: {a: x}}]}",
    r#"{"tool_calls": [{"name": "q", "args_raw": "{a"}, {"name": "q", "args": {"a": "y"}}]}"#,
    (1, "q arguments that are not valid JSON", r#"Some("{a")"#)
)]
#[case::a_step_after_every_field(
    "{required: [{name: '^v$', result: ok, at_step: 2}]}",
    r#"{"tool_calls": [{"name": "v", "result": "no"}, {"name": "v", "step": 1, "result": "ok"}, {"name": "v", "result": "no"}]}"#,
    (2, "v step", "1")
)]
#[case::not_final_after_the_step(
    "{required: [{name: '^v$', before_step: 2, final: true}]}",
    r#"{"tool_calls": [{"name": "v", "step": 3}, {"server": "s", "name": "v", "step": 1}, {"name": "x"}]}"#,
    (2, "s.v final", "")
)]
#[case::among_other_tools_of_the_same_pattern(
    "{required: [{name: 'file', path: '\\.rs$'}]}",
    r#"{"tool_calls": [{"name": "read_file", "args": {"path": "a.md"}}, {"server": "fs", "name": "write_file", "args": {"path": "b.md"}}, {"name": "read_file", "args": {"path": "c.md"}}]}"#,
    (1, "read_file path", r#"Some("a.md")"#)
)]
fn unmet_entries_name_the_call_that_came_closest(
    #[case] config: &str,
    #[case] trace: &str,
    #[case] expected: (usize, &str, &str),
) {
    let (call, what, found) = expected;
    assert_eq!(
        near_misses(config, trace),
        [Some((call, what.to_owned(), found.to_owned()))]
    );
}

#[test]
fn each_entry_keeps_its_own_near_miss() {
    let near = near_misses(
        "{required: ['^none$', {name: '^q$', args: {a: x}}, {name: q, result: ok}, {name: '^q$', min_count: 3}]}",
        r#"{"tool_calls": [{"name": "q", "args": {"a": "y"}, "result": "no"}, {"name": "q2", "args": {"a": "x"}, "result": "no"}]}"#,
    );
    assert_eq!(
        near,
        [
            None,
            Some((1, "q args.a".to_owned(), r#"Some("y")"#.to_owned())),
            Some((1, "q result".to_owned(), r#"Some("no")"#.to_owned())),
            None,
        ]
    );
}

#[test]
fn repeated_tools_are_judged_call_by_call() {
    let (verdict, missing) = grade(
        "{required: [{name: '^bash$', command: test, min_count: 2}], disallowed: [{name: '^bash$', command: rm}, bash], sequence: [{name: bash, command: a}, {name: bash, command: b}]}",
        r#"{"tool_calls": [{"name": "bash", "args": {"command": "b"}}, {"name": "bash", "args": {"command": "a test"}}, {"name": "bash", "args": {"path": "x"}}, {"name": "bash", "args": {"command": "rm b test"}}]}"#,
    );
    assert!(verdict.unmet.is_empty(), "{verdict:?}");
    let violations: Vec<(usize, usize)> = verdict
        .violations
        .iter()
        .map(|violation| (violation.call, violation.entry))
        .collect();
    assert_eq!(violations, [(1, 1), (2, 1), (3, 1), (4, 0), (4, 1)]);
    assert_eq!(verdict.sequence_stopped_at, None);
    let missing: Vec<(MatchList, usize, usize)> = missing
        .iter()
        .map(|missing| (missing.list, missing.entry, missing.call))
        .collect();
    assert_eq!(
        missing,
        [
            (MatchList::Required, 0, 3),
            (MatchList::Disallowed, 0, 3),
            (MatchList::Sequence, 0, 3),
            (MatchList::Sequence, 1, 3),
        ]
    );
}

/// The canonical form as it was first written: keys sorted by hand, each written as a JSON
/// string, scalars as `serde_json` writes them.
fn canonical_by_hand(value: &Value, out: &mut String) {
    match value {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical_by_hand(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                canonical_by_hand(&map[key], out);
            }
            out.push('}');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[track_caller]
fn check_canonical(value: &Value) {
    let mut by_hand = String::new();
    canonical_by_hand(value, &mut by_hand);
    assert_eq!(
        result_text(&Value::Array(vec![value.clone()])),
        format!("[{by_hand}]")
    );
    if !value.is_string() {
        assert_eq!(result_text(value), by_hand);
    }
}

#[rstest]
#[case::keys_in_byte_order(
    r#"{"b": 1, "a": 2, "B": 3, "é": 4, "aa": 5, "": 6}"#,
    r#"{"":6,"B":3,"a":2,"aa":5,"b":1,"é":4}"#
)]
#[case::escapes(
    r#"{"q\"k\\": "line\nbreak\ttab\u0001\u001f\u007f/", "\u2028": "\ud83d\ude00"}"#,
    "{\"q\\\"k\\\\\":\"line\\nbreak\\ttab\\u0001\\u001f\u{7f}/\",\"\u{2028}\":\"\u{1f600}\"}"
)]
#[case::numbers(
    "[1.0, -0, -0.0, 1e5, 1E-7, 12345678901234567890, -9223372036854775808, 0.1, 1.5e300]",
    "[1.0,-0,-0.0,1e+5,1e-7,12345678901234567890,-9223372036854775808,0.1,1.5e+300]"
)]
#[case::nested(
    r#"{"z": [[], {}, [{"y": [null, true, false], "x": {"w": {}}}]], "a": {"c": [1], "b": "s"}}"#,
    r#"{"a":{"b":"s","c":[1]},"z":[[],{},[{"x":{"w":{}},"y":[null,true,false]}]]}"#
)]
#[case::unicode(
    "[\"日本語\", {\"ключ\": \"значение\", \"κ\": \"🦀\"}]",
    "[\"日本語\",{\"κ\":\"🦀\",\"ключ\":\"значение\"}]"
)]
fn results_that_are_not_strings_are_canonical_json(#[case] trace_json: &str, #[case] text: &str) {
    let value: Value = serde_json::from_str(trace_json).expect("valid JSON");
    assert_eq!(result_text(&value), text);
    check_canonical(&value);
}

/// Any JSON value of a few levels, with keys and strings that need escaping.
fn json_value() -> impl Strategy<Value = Value> {
    let text = prop::sample::select(
        &[
            "", "a", "b", "B", "aa", "é", "\"", "\\", "\n", "\u{1}", "\u{7f}", "\u{2028}", "🦀",
            "a b",
        ][..],
    )
    .prop_map(str::to_owned);
    let scalar = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        prop::sample::select(&[0.0, -0.0, 1.0, 1e5, 1e-7, 0.1, 1.5e300][..]).prop_map(Value::from),
        text.clone().prop_map(Value::String),
    ];
    scalar.prop_recursive(4, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((text.clone(), inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn canonical_json_is_what_sorting_by_hand_gives(value in json_value()) {
        check_canonical(&value);
    }
}

/// How a call fares against a match, as the grader was first written: every miss in full.
enum ReferenceCheck {
    Match,
    Miss(Miss),
    Missing(&'static str),
}

/// The value a miss shows, as first written: a string as is, anything else sorted by hand.
fn found_by_hand(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => {
            let mut out = String::new();
            canonical_by_hand(other, &mut out);
            out
        }
    }
}

fn check_by_reference(matcher: &ToolMatch, call: &Call) -> ReferenceCheck {
    let needs_args = matcher.command.is_some()
        || matcher.path.is_some()
        || !matcher.args.is_empty()
        || matcher.args_raw.is_some();
    if needs_args && let Some(raw) = &call.args_raw {
        return check_text_by_reference(matcher, call, raw);
    }
    let value_miss = |field: &str, pattern: &Pattern, value: &Value| match value {
        Value::String(text) if pattern.is_match(text) => None,
        other => Some(Miss::Field {
            field: field.to_owned(),
            found: Some(found_by_hand(other)),
        }),
    };
    // The shortcuts read the first of these arguments a call has (docs/graders/tool-calls.md).
    let shortcuts: [(&str, &[&str], _); 2] = [
        ("command", &["command", "cmd"], &matcher.command),
        (
            "path",
            &["path", "file_path", "absolute_path", "notebook_path"],
            &matcher.path,
        ),
    ];
    for (field, keys, pattern) in shortcuts {
        let Some(pattern) = pattern else { continue };
        let Some(value) = call
            .args()
            .as_object()
            .and_then(|args| keys.iter().find_map(|key| args.get(*key)))
        else {
            return ReferenceCheck::Missing(field);
        };
        if let Some(miss) = value_miss(field, pattern, value) {
            return ReferenceCheck::Miss(miss);
        }
    }
    for (name, test) in &matcher.args {
        let field = format!("args.{name}");
        let value = call.args().as_object().and_then(|args| args.get(name));
        let miss = match (test, value) {
            (ValueTest::Regex(_), None) => Some(Miss::Field { field, found: None }),
            (ValueTest::Regex(pattern), Some(value)) => value_miss(&field, pattern, value),
            (ValueTest::Matcher(m), value) => {
                (!m.matches(value.map(ValueRef::parsed), ArgsMode::Exact)).then(|| Miss::Field {
                    field,
                    found: value.map(found_by_hand),
                })
            }
        };
        if let Some(miss) = miss {
            return ReferenceCheck::Miss(miss);
        }
    }
    if let Some(pattern) = &matcher.args_raw {
        let mut text = String::new();
        canonical_by_hand(call.args(), &mut text);
        let text = call.args().as_str().map_or(text, str::to_owned);
        if !pattern.is_match(&text) {
            return ReferenceCheck::Miss(Miss::Field {
                field: "args_raw".to_owned(),
                found: Some(text),
            });
        }
    }
    if let Some(test) = &matcher.result {
        let text = call.result().map(found_by_hand);
        let holds = match test {
            ValueTest::Regex(pattern) => text.as_deref().is_some_and(|text| pattern.is_match(text)),
            ValueTest::Matcher(m) => call
                .result()
                .is_some_and(|r| m.matches(Some(ValueRef::parsed(r)), ArgsMode::Exact)),
        };
        if !holds {
            return ReferenceCheck::Miss(Miss::Field {
                field: "result".to_owned(),
                found: text,
            });
        }
    }
    ReferenceCheck::Match
}

/// [`check_by_reference`] for arguments recorded as `raw` text: a patch's files are its
/// `path`, the text is what `args_raw` searches, and nothing else matches.
fn check_text_by_reference(matcher: &ToolMatch, call: &Call, raw: &str) -> ReferenceCheck {
    let not_json = || {
        ReferenceCheck::Miss(Miss::Field {
            field: "arguments that are not valid JSON".to_owned(),
            found: Some(raw.to_owned()),
        })
    };
    if matcher.command.is_some() || !matcher.args.is_empty() {
        return not_json();
    }
    if let Some(pattern) = &matcher.path {
        let files: Vec<&str> = raw
            .lines()
            .filter_map(|line| {
                [
                    "*** Update File: ",
                    "*** Add File: ",
                    "*** Delete File: ",
                    "*** Move to: ",
                ]
                .iter()
                .find_map(|prefix| line.strip_prefix(prefix))
            })
            .collect();
        if files.is_empty() {
            return not_json();
        }
        if !files.iter().any(|file| pattern.is_match(file)) {
            return ReferenceCheck::Miss(Miss::Field {
                field: "path".to_owned(),
                found: Some(files.join(", ")),
            });
        }
    }
    if let Some(pattern) = &matcher.args_raw
        && !pattern.is_match(raw)
    {
        return ReferenceCheck::Miss(Miss::Field {
            field: "args_raw".to_owned(),
            found: Some(raw.to_owned()),
        });
    }
    if matcher.result.is_none() {
        return ReferenceCheck::Match;
    }
    let mut plain = matcher.clone();
    plain.command = None;
    plain.path = None;
    plain.args_raw = None;
    check_by_reference(&plain, call)
}

/// How far through an entry's conditions a miss got, read off the miss as first written.
fn depth_by_reference(miss: &Miss) -> u8 {
    match miss {
        Miss::Field { field, .. } => match field.as_str() {
            "command" => 1,
            "path" => 2,
            "result" => 4,
            _ => 3,
        },
        Miss::Step { .. } => 5,
        Miss::NotFinal => 6,
        Miss::NoResult => 7,
        Miss::Order { .. } => 0,
    }
}

/// Why a call that matched the fields of a `required` entry fails its position, if it does.
fn position_by_reference(
    required: &RequiredMatch,
    call: &Call,
    index: usize,
    last: Option<usize>,
) -> Option<Miss> {
    let wrong_step = required.at_step.is_some_and(|step| call.step != step)
        || required.before_step.is_some_and(|step| call.step >= step);
    if wrong_step {
        Some(Miss::Step { step: call.step })
    } else if required.final_call && Some(index) != last {
        Some(Miss::NotFinal)
    } else {
        None
    }
}

/// A call without a result that meets every other condition of an entry explains it.
fn no_result_by_reference(
    grader: &ToolCallsGrader,
    run: &Run,
    last: Option<usize>,
    near: &mut [Option<NearMiss>],
) {
    for (index, call) in run.calls.iter().enumerate().filter(|(_, c)| !c.completed) {
        for (entry, required) in grader.required.iter().enumerate() {
            if !required.matcher.name.is_match(&call.name) {
                continue;
            }
            let only_result = match check_by_reference(&required.matcher, call) {
                ReferenceCheck::Match => true,
                ReferenceCheck::Miss(Miss::Field { field, found }) => {
                    field == "result" && found.is_none()
                }
                _ => false,
            };
            if only_result
                && position_by_reference(required, call, index, last).is_none()
                && near[entry]
                    .as_ref()
                    .is_none_or(|near| depth_by_reference(&near.miss) < 7)
            {
                near[entry] = Some(NearMiss {
                    call: index + 1,
                    tool: tool_by_hand(call),
                    miss: Miss::NoResult,
                });
            }
        }
    }
}

/// A call's tool as the report names it, `server.name` or `name`.
fn tool_by_hand(call: &Call) -> String {
    match &call.server {
        Some(server) => format!("{server}.{}", call.name),
        None => call.name.clone(),
    }
}

/// A call's argument names, sorted, from its parsed arguments.
fn argument_names_by_hand(call: &Call) -> Vec<String> {
    call.args()
        .as_object()
        .map(|args| args.keys().cloned().collect())
        .unwrap_or_default()
}

/// The grader as first written: every entry's name pattern tried on every call, and every
/// miss built in full before it is compared with the near miss kept.
fn grade_by_reference(grader: &ToolCallsGrader, run: &Run) -> RunToolCalls {
    let last = run.calls.len().checked_sub(1);
    let mut counts = vec![0_u32; grader.required.len()];
    let mut near: Vec<Option<NearMiss>> = vec![None; grader.required.len()];
    let mut violations = Vec::new();
    let mut missing = Vec::new();
    let mut next_in_sequence = 0;
    let mut matched_at = Vec::new();
    let mut report_missing = |list, entry, field, index: usize, call: &Call| {
        missing.push(MissingArgument {
            grader: grader.index,
            list,
            entry,
            field,
            run: 1,
            source: "run.json".to_owned(),
            call: index + 1,
            tool: tool_by_hand(call),
            arguments: argument_names_by_hand(call),
        });
    };
    for (index, call) in run.calls.iter().enumerate().filter(|(_, c)| c.completed) {
        for (entry, required) in grader.required.iter().enumerate() {
            if !required.matcher.name.is_match(&call.name) {
                continue;
            }
            let miss = match check_by_reference(&required.matcher, call) {
                ReferenceCheck::Missing(field) => {
                    report_missing(MatchList::Required, entry, field, index, call);
                    continue;
                }
                ReferenceCheck::Miss(miss) => Some(miss),
                ReferenceCheck::Match => position_by_reference(required, call, index, last),
            };
            match miss {
                None => counts[entry] += 1,
                Some(miss)
                    if near[entry].as_ref().is_none_or(|near| {
                        depth_by_reference(&miss) > depth_by_reference(&near.miss)
                    }) =>
                {
                    near[entry] = Some(NearMiss {
                        call: index + 1,
                        tool: tool_by_hand(call),
                        miss,
                    });
                }
                Some(_) => {}
            }
        }
        for (entry, disallowed) in grader.disallowed.iter().enumerate() {
            if !disallowed.name.is_match(&call.name) {
                continue;
            }
            match check_by_reference(disallowed, call) {
                ReferenceCheck::Missing(field) => {
                    report_missing(MatchList::Disallowed, entry, field, index, call);
                }
                ReferenceCheck::Miss(_) => {}
                ReferenceCheck::Match => violations.push(Violation {
                    entry,
                    call: index + 1,
                    tool: tool_by_hand(call),
                }),
            }
        }
        let mut advanced = false;
        for (entry, step) in grader.sequence.iter().enumerate() {
            if !step.name.is_match(&call.name) {
                continue;
            }
            match check_by_reference(step, call) {
                ReferenceCheck::Missing(field) => {
                    report_missing(MatchList::Sequence, entry, field, index, call);
                }
                ReferenceCheck::Match if entry == next_in_sequence && !advanced => {
                    advanced = true;
                }
                _ => {}
            }
        }
        if advanced {
            next_in_sequence += 1;
            matched_at.push(index);
        }
    }
    no_result_by_reference(grader, run, last, &mut near);
    let unmet = grader.unmet(counts, near);
    let sequence_stopped_at =
        (next_in_sequence < grader.sequence.len()).then_some(next_in_sequence);
    RunToolCalls {
        passed: unmet.is_empty() && violations.is_empty() && sequence_stopped_at.is_none(),
        unmet,
        violations,
        missing_arguments: missing,
        sequence_near_miss: sequence_stopped_at
            .and_then(|stopped| sequence_near_by_reference(grader, run, stopped, &matched_at)),
        sequence_stopped_at,
    }
}

/// The call closest to the `sequence` entry a run stopped at, as the rule reads: among the
/// calls of its tool after the match of the entry before it (`matched_at` holds each matched
/// entry's call), the one that got furthest through its conditions, the first among equals,
/// a call without a result that meets every other condition furthest of all; failing
/// that, the last call before that match that satisfies the entry and matched no entry.
fn sequence_near_by_reference(
    grader: &ToolCallsGrader,
    run: &Run,
    stopped: usize,
    matched_at: &[usize],
) -> Option<NearMiss> {
    let entry = &grader.sequence[stopped];
    let previous = stopped.checked_sub(1).map(|before| matched_at[before]);
    let after = previous.map_or(0, |previous| previous + 1);
    let mut best: Option<NearMiss> = None;
    for (index, call) in run.calls.iter().enumerate().skip(after) {
        if !entry.name.is_match(&call.name) {
            continue;
        }
        let miss = match (call.completed, check_by_reference(entry, call)) {
            (true, ReferenceCheck::Miss(miss)) => miss,
            (false, ReferenceCheck::Match) => Miss::NoResult,
            (false, ReferenceCheck::Miss(Miss::Field { field, found: None }))
                if field == "result" =>
            {
                Miss::NoResult
            }
            _ => continue,
        };
        if best
            .as_ref()
            .is_none_or(|best| depth_by_reference(&miss) > depth_by_reference(&best.miss))
        {
            best = Some(NearMiss {
                call: index + 1,
                tool: tool_by_hand(call),
                miss,
            });
        }
    }
    if best.is_some() {
        return best;
    }
    let previous = previous?;
    (0..previous)
        .rev()
        .find(|&index| {
            let call = &run.calls[index];
            call.completed
                && entry.name.is_match(&call.name)
                && !matched_at.contains(&index)
                && matches!(check_by_reference(entry, call), ReferenceCheck::Match)
        })
        .map(|index| NearMiss {
            call: index + 1,
            tool: tool_by_hand(&run.calls[index]),
            miss: Miss::Order {
                previous: previous + 1,
            },
        })
}

/// Configurations whose entries share tools, with every kind of condition.
const MODEL_CONFIGS: &[&str] = &[
    "{required: [{name: '^bash$', command: test}, {name: file, path: '\\.rs$', before_step: 2}, \
     {name: q, args: {a: x}, result: ok, at_step: 1}, {name: '^v$', final: true, min_count: 2}], \
     disallowed: [{name: bash, command: rm}, {name: file, path: env}, '^rm$', \
     {name: q, result: '5[0-9]{2}'}, {name: '.', args_raw: 'Add File'}], \
     sequence: [q, {name: '^bash$', command: test}, file, q]}",
    "{required: [{name: '.', path: '\\.rs$', result: ok}, {name: '.', args_raw: '\"k\":\"v\"|rs'}], \
     disallowed: [{name: '.', path: env, args_raw: Add}], sequence: [{name: '.', args_raw: '.'}, {name: '.', path: rs}]}",
    "{required: [{name: '.', result: ok}, {name: '^(bash|q)$', args: {a: x, command: npm}}, \
     {name: s, min_count: 3}, {name: a, path: src, command: '.'}], \
     sequence: ['^bash', '^bash', {name: '.', args: {a: '.'}}]}",
];

/// A call of a small alphabet of tools, arguments and results.
fn model_call() -> impl Strategy<Value = Call> {
    let value = prop::sample::select(vec![
        json!("npm test"),
        json!("rm -rf /"),
        json!("src/a.rs"),
        json!(".env"),
        json!("x"),
        json!(1),
        json!({"k": "v", "a": [500]}),
    ]);
    let args = prop_oneof![
        prop::collection::btree_map(
            prop::sample::select(&["command", "path", "a"][..]),
            value,
            0..=3
        )
        .prop_map(|args| (json!(args), None)),
        Just((json!("not an object"), None)),
        Just((json!({}), Some("{\"command\": npm".to_owned()))),
        Just((
            json!({}),
            Some(
                "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** End Patch\n"
                    .to_owned()
            )
        )),
        Just((
            json!({}),
            Some("*** Begin Patch\n*** Add File: .env\n+KEY=1\n*** End Patch\n".to_owned())
        )),
    ];
    let result = prop::option::of(prop::sample::select(vec![
        json!("ok"),
        json!("FAILED"),
        json!({"status": 500, "b": [1.0, "é"]}),
        json!({"status": 200}),
    ]));
    (
        prop::option::of(Just("srv")),
        prop::sample::select(&["bash", "read_file", "env_file", "q", "v", "rm", "bash2"][..]),
        args,
        result,
        0_u32..4,
        prop::bool::weighted(0.9),
    )
        .prop_map(
            |(server, name, (args, raw), result, step, completed)| Call {
                server: server.map(str::to_owned),
                name: name.to_owned(),
                args: args.into(),
                args_raw: raw,
                result: result.map(Into::into),
                status: Status::Ok,
                step,
                completed,
                agent: None,
                time: None,
            },
        )
}

proptest! {
    #[test]
    fn the_grader_agrees_with_its_first_version(
        config in prop::sample::select(MODEL_CONFIGS),
        calls in prop::collection::vec(model_call(), 0..24),
    ) {
        let grader = grader(config);
        let run = Run { calls, format: "trailgate", ..Run::default() };
        prop_assert_eq!(grade_run(&grader, &run, 1), grade_by_reference(&grader, &run));
    }
}

#[rstest]
#[case::one_name("^bash$", Some(&["bash"][..]))]
#[case::alternatives("^(fetch|get|read_file|x-y)$", Some(&["fetch", "get", "read_file", "x-y"][..]))]
#[case::unanchored("bash", None)]
#[case::anchored_at_one_end("^bash", None)]
#[case::alternatives_without_a_group("^a|b$", None)]
#[case::two_groups("^(a)(b)$", None)]
#[case::an_empty_alternative("^(a|)$", None)]
#[case::a_dot("^read.file$", None)]
#[case::a_flag("(?i)^bash$", None)]
#[case::a_repetition("^bash+$", None)]
#[case::not_ascii("^é$", None)]
fn anchored_names_are_compared_as_text(#[case] pattern: &str, #[case] texts: Option<&[&str]>) {
    let texts = texts.map(|texts| texts.iter().map(|&text| text.to_owned()).collect());
    assert_eq!(crate::pattern::exact_texts(pattern), texts);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn patterns_match_what_their_regex_matches(
        plain in prop::collection::vec(prop::sample::select(&["a", "b", "_", "-"][..]), 1..4),
        special in prop::option::of(prop::sample::select(
            &["^", "$", "(", ")", "|", "a|", "|b", ".", "*", "\n", "é", "A"][..],
        )),
        at in 0..4_usize,
        anchored in prop::bool::weighted(0.8),
        grouped in any::<bool>(),
        haystack in prop::option::of(prop::collection::vec(
            prop::sample::select(&["a", "b", "_", "-", ".", "\n", "é"][..]),
            0..5,
        )),
    ) {
        // A name, perhaps with one special character, mostly within `^...$` or `^(...)$`
        // to reach the text comparison; searched in random text, or in the name itself
        // with the special character as `a`, which the regex may match and an exact
        // comparison would not.
        let mut tokens = plain;
        if let Some(special) = special {
            tokens.insert(at.min(tokens.len()), special);
        }
        let body = tokens.concat();
        let is_plain = |token: &str| {
            token.bytes().all(|byte| byte.is_ascii_lowercase() || byte == b'_' || byte == b'-')
        };
        let haystack: String = match haystack {
            Some(haystack) => haystack.concat(),
            None => tokens
                .iter()
                .map(|&token| if is_plain(token) { token } else { "a" })
                .collect(),
        };
        let body = if grouped { format!("({body})") } else { body };
        let pattern = if anchored { format!("^{body}$") } else { body };
        if let Ok(regex) = regex::Regex::new(&pattern) {
            let compiled = Pattern::new(&pattern).expect("the regex compiles");
            prop_assert_eq!(compiled.is_match(&haystack), regex.is_match(&haystack));
        }
    }
}

#[test]
fn a_run_of_more_tools_than_are_remembered_is_graded_call_by_call_alike() {
    // Each name's matching entries are remembered for the first `REMEMBERED_TOOLS` names
    // of a run; the calls of later names are matched one by one, with the same verdicts.
    let names = crate::memo::REMEMBERED_TOOLS + 40;
    let mut calls: Vec<String> = (0..names)
        .map(|n| format!(r#"{{"name": "t{n}"}}"#))
        .collect();
    // Late names, called again: once remembered, once not.
    calls.push(r#"{"name": "t3"}"#.to_owned());
    calls.push(format!(r#"{{"name": "t{}"}}"#, names - 1));
    let trace = format!(r#"{{"tool_calls": [{}]}}"#, calls.join(", "));
    let last = names - 1;
    let config = format!(
        "{{required: [{{name: '^t3$', min_count: 2}}, {{name: '^t{last}$', min_count: 2}}, \
         {{name: '^t{last}$', min_count: 3}}], disallowed: ['^t28[0-9]$', '^t1$'], \
         sequence: ['^t2$', '^t{last}$', '^t{last}$']}}"
    );
    let (verdict, missing) = grade(&config, &trace);
    assert!(missing.is_empty());
    let unmet: Vec<(usize, u32)> = verdict.unmet.iter().map(|u| (u.entry, u.found)).collect();
    assert_eq!(unmet, vec![(2, 2)]);
    let violations: Vec<(usize, usize)> = verdict
        .violations
        .iter()
        .map(|v| (v.entry, v.call))
        .collect();
    let mut expected: Vec<(usize, usize)> = vec![(1, 2)];
    expected.extend((280..290).map(|n| (0, n + 1)));
    assert_eq!(violations, expected);
    assert_eq!(verdict.sequence_stopped_at, None);
}

/// The names a grader matched are remembered from run to run: one grader grading runs in
/// turn, past as many names as it remembers, gives each run the verdict that a fresh copy
/// gives it alone.
#[test]
fn names_remembered_from_earlier_runs_give_the_same_verdicts() {
    let names = crate::memo::REMEMBERED_TOOLS + 40;
    let trace = |range: std::ops::Range<usize>| {
        let calls: Vec<String> = range.map(|n| format!(r#"{{"name": "t{n}"}}"#)).collect();
        format!(r#"{{"tool_calls": [{}]}}"#, calls.join(", "))
    };
    let last = names - 1;
    let config = format!(
        "{{required: [{{name: '^t3$', min_count: 2}}, '^t{last}$', '^t(7|2[0-9][0-9])$'], \
         disallowed: ['^t28[0-9]$', '^t1$'], sequence: ['^t2$', '^t{last}$']}}"
    );
    // The first run fills the memory; later ones meet remembered names, names past it, and
    // the same names in another order.
    let runs = [
        trace(0..names),
        trace(0..10),
        trace(250..names),
        format!(
            r#"{{"tool_calls": [{{"name": "t{last}"}}, {{"name": "t3"}}, {{"name": "t2"}}, {{"name": "t3"}}, {{"name": "t{last}"}}, {{"name": "t285"}}]}}"#
        ),
    ];
    let kept = grader(&config);
    let summary = |verdict: &RunToolCalls| {
        (
            verdict.passed,
            verdict
                .unmet
                .iter()
                .map(|u| (u.entry, u.found))
                .collect::<Vec<_>>(),
            verdict
                .violations
                .iter()
                .map(|v| (v.entry, v.call))
                .collect::<Vec<_>>(),
            verdict.sequence_stopped_at,
        )
    };
    for (number, text) in runs.iter().enumerate() {
        let remembered = grade_run(&kept, &run(text), number + 1);
        let fresh = grade_run(&grader(&config), &run(text), number + 1);
        assert!(remembered.missing_arguments.is_empty() && fresh.missing_arguments.is_empty());
        assert_eq!(summary(&remembered), summary(&fresh), "run {}", number + 1);
    }
}

/// The help of a `command`/`path` matcher that met calls without its argument suggests only
/// forms that can match the first such call (docs/graders/tool-calls.md#command-and-path-versus-args).
#[rstest]
#[case::anchored_with_arguments(
    "^bash$",
    &["code", "timeout"],
    "call 3 `bash` has the arguments `code`, `timeout`: match the one that holds the command with `args:`, as `args: {code: ...}`"
)]
#[case::anchored_with_one_argument("^bash$", &["script"], "call 3 `bash` has one argument, `script`: match it with `args: {script: ...}`")]
#[case::anchored_without_arguments(
    "^bash$",
    &[],
    "call 3 `bash` has no arguments, so no argument matcher can match it: narrow `name` or `server` to the tools that take a command"
)]
#[case::unanchored(
    "bash",
    &["script"],
    "`name: bash` is searched unanchored, so it also matches other tools; anchor it (`^bash$`); call 3 `bash` has one argument, `script`: match it with `args: {script: ...}`"
)]
fn a_missing_argument_help_suggests_what_can_match(
    #[case] name: &str,
    #[case] arguments: &[&str],
    #[case] help: &str,
) {
    let missing = MissingArgument {
        grader: 0,
        list: MatchList::Required,
        entry: 0,
        field: "command",
        run: 1,
        source: "run.json".to_owned(),
        call: 3,
        tool: "bash".to_owned(),
        arguments: arguments.iter().map(|a| (*a).to_owned()).collect(),
    };
    assert_eq!(
        super::config::missing_argument_help(name, "command", Some(&missing)),
        help
    );
    // Never the old hint's `args: {command: ...}`: the call has no `command`.
    assert!(!help.contains("args: {command"));
}
