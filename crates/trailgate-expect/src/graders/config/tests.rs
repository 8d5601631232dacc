//! Tests of the reading of a grader's `config:`, which takes every kind's keys before the
//! grader's `type:` is known: it accepts and refuses what serde's derived reader of one
//! struct with all the keys did, with the same messages, but for an unknown key's help,
//! which lists the kind's keys alone when its `type:`, before or after, names one.

use rstest::rstest;

use crate::SuiteFile;

/// A one-test suite with a class `search` and one grader, written `grader` (flow YAML).
fn suite(grader: &str) -> String {
    format!(
        "tests:\n  - name: t\n    equal_function_sets:\n      classes:\n        - name: search\n          members: [brave.web_search]\n    graders:\n      - {grader}\n"
    )
}

#[track_caller]
fn check(grader: &str, expected: &[(&str, Option<&str>)]) {
    let text = suite(grader);
    let Err(error) = SuiteFile::new("suite.yaml", text.clone()).parse() else {
        panic!("the suite should be rejected:\n{text}")
    };
    let got: Vec<(&str, Option<&str>)> = error
        .problems()
        .map(|p| (p.message.as_str(), p.help.as_deref()))
        .collect();
    assert_eq!(got, expected, "{text}");
}

/// The help's list of the keys of a config whose `type:` comes after it and names no kind:
/// every kind's (in this crate's tests, the test-only `toy` kind's `tool` too:
/// `graders/toy.rs`).
macro_rules! every_key {
    () => {
        "valid keys here: `required`, `disallowed`, `sequence`, `expected_tools`, \
         `exact_match`, `check_ordering`, `threshold`, `expected`, `args_mode`, \
         `ignore_args`, `mode`, `max_calls`, `max_steps`, `max_errors`, `max_repeats`, \
         `max_loop`, `max_calls_per_tool`, `optimal_calls`, `max_input_tokens`, \
         `max_output_tokens`, `max_tokens`, `max_duration_ms`, `max_call_duration_ms`, \
         `max_cost`, `edges`, `tool`, `expect`"
    };
}

#[rstest]
#[case::unknown_key(
    "{type: tool-calls, config: {requird: [a]}}",
    &[("unknown key `requird` in `tests[0].graders[0].config`", Some("did you mean `required`? valid keys here: `required`, `disallowed`, `sequence`, `expect`"))]
)]
#[case::unknown_key_of_another_kind(
    "{type: trajectory, config: {expected: [a], mdoe: strict}}",
    &[("unknown key `mdoe` in `tests[0].graders[0].config`", Some("did you mean `mode`? valid keys here: `mode`, `expected`, `expect`"))]
)]
#[case::unknown_key_before_the_type(
    "{config: {requird: [a]}, type: tool-calls}",
    &[("unknown key `requird` in `tests[0].graders[0].config`", Some("did you mean `required`? valid keys here: `required`, `disallowed`, `sequence`, `expect`"))]
)]
#[case::unknown_key_before_an_unknown_type(
    "{config: {requird: [a]}, type: tool-cals}",
    &[("unknown key `requird` in `tests[0].graders[0].config`", Some(concat!("did you mean `required`? ", every_key!())))]
)]
#[case::key_of_another_kind(
    "{type: tool-calls, config: {required: [a], threshold: 0.5, args_mode: subset}}",
    &[
        ("`threshold` is not a key of the `tool-calls` grader", Some("the `tool-calls` grader takes `required`, `disallowed`, `sequence`, `expect`")),
        ("`args_mode` is not a key of the `tool-calls` grader", Some("the `tool-calls` grader takes `required`, `disallowed`, `sequence`, `expect`")),
    ]
)]
#[case::type_after_config(
    "{config: {expected: [{tool: a}], exact_match: true}, type: call-accuracy}",
    &[("`exact_match` is not a key of the `call-accuracy` grader", Some("the `call-accuracy` grader takes `expected`, `args_mode`, `ignore_args`, `expect`"))]
)]
#[case::key_given_twice(
    "{type: tool-calls, config: {required: [a], required: [b]}}",
    &[("key `required` is given twice in `tests[0].graders[0].config`", Some("keep one of the two"))]
)]
#[case::null_then_given(
    "{type: tool-calls, config: {required: ~, required: [b]}}",
    &[("key `required` is given twice in `tests[0].graders[0].config`", Some("keep one of the two"))]
)]
#[case::number_as_key(
    "{type: tool-calls, config: {0: [a]}}",
    &[("unknown key `0` in `tests[0].graders[0].config`", Some("valid keys here: `required`, `disallowed`, `sequence`, `expect`"))]
)]
#[case::not_a_map(
    "{type: tool-calls, config: hello}",
    &[("invalid value for `tests[0].graders[0].config`: expected struct RawGraderConfig, found string \"hello\"", None)]
)]
#[case::a_list(
    "{type: tool-calls, config: []}",
    &[("invalid value for `tests[0].graders[0].config`: expected struct RawGraderConfig, found sequence", None)]
)]
#[case::empty_is_an_empty_map(
    "{type: tool-calls, config: }",
    &[("a `tool-calls` grader needs `required`, `disallowed` or `sequence`", Some("list calls that must happen under `required:`, calls that must not under `disallowed:`, or an order under `sequence:`; see docs/graders/tool-calls.md"))]
)]
#[case::a_list_as_key(
    "{type: tool-calls, config: {[a]: 1}}",
    &[("invalid value for `tests[0].graders[0].config`: expected field identifier, found sequence", None)]
)]
fn config_is_read_as_one_struct_of_every_key(
    #[case] grader: &str,
    #[case] expected: &[(&str, Option<&str>)],
) {
    check(grader, expected);
}
