//! Unit tests of the suite language: parsing, diagnostics, spans and evaluation, one
//! `check` per feature and a row per case.

use crate::metric_value::MetricValue;
use rstest::rstest;
use trailgate_core::{ClassName, Counts};
use trailgate_trace::{Call, Run, parse_run};

use crate::{
    Baseline, PathSeg, RunSource, Suite, SuiteFile, Test, TestEvaluator, TestOutcome, slug,
};

// ---------------------------------------------------------------------------------------
// Helpers.

/// The lines of a file, each ending with a newline, so that rows can be read by line.
fn yaml<S: AsRef<str>>(lines: &[S]) -> String {
    lines.iter().fold(String::new(), |mut text, line| {
        text.push_str(line.as_ref());
        text.push('\n');
        text
    })
}

#[track_caller]
fn parse(text: &str) -> Suite {
    match SuiteFile::new("suite.yaml", text.to_owned()).parse() {
        Ok(suite) => suite,
        Err(error) => {
            let problems: Vec<_> = error.problems().map(|p| &p.message).collect();
            panic!("the suite should parse, got {problems:?}\n{text}")
        }
    }
}

#[track_caller]
fn parse_one(text: &str) -> Test {
    let mut suite = parse(text);
    assert_eq!(suite.tests.len(), 1, "one test");
    suite.tests.remove(0)
}

/// A one-test suite: `keys` at the test's level (indented here), a class `c` with
/// `members` (flow YAML), and `expect:` when given.
fn suite_with(keys: &[&str], members: &str, expect: Option<&str>) -> String {
    let mut lines = vec!["tests:".to_owned(), "  - name: t".to_owned()];
    lines.extend(keys.iter().map(|key| format!("    {key}")));
    lines.push("    equal_function_sets:".to_owned());
    lines.push("      classes:".to_owned());
    lines.push("        - name: c".to_owned());
    lines.push(format!("          members: {members}"));
    if let Some(expect) = expect {
        lines.push(format!("      expect: {expect}"));
    }
    yaml(&lines)
}

/// A test as one line: name, agent, runs, classes and gates.
fn summary(test: &Test) -> String {
    let mut parts = vec![test.name.clone()];
    if let Some(agent) = &test.agent {
        parts.push(format!("agent {agent}"));
    }
    if let Some(runs) = test.runs {
        parts.push(format!("runs {runs}"));
    }
    if let Some(efs) = &test.graders.equal_function_sets {
        let classes: Vec<String> = efs
            .classes
            .classes()
            .iter()
            .map(|class| {
                let members: Vec<String> = class.members.iter().map(ToString::to_string).collect();
                format!("{}: {}", class.name, members.join(" "))
            })
            .collect();
        parts.push(classes.join("; "));
        let gates: Vec<String> = efs.gates.iter().map(ToString::to_string).collect();
        parts.push(gates.join(", "));
    }
    parts.join(" | ")
}

// ---------------------------------------------------------------------------------------
// Suites that load.

const SEED: &[&str] = &[
    "tests:",
    "  - name: research-agent picks search then fetch",
    "    type: agent",
    "    agent: researcher",
    "    runs: 1",
    "    equal_function_sets:",
    "      classes:",
    "        - name: search",
    "          members: [brave.web_search, google.search]",
    "        - name: fetch",
    "          members: [http.get]",
    "      expect:",
    "        - tool_selection.f1: { \">=\": 80 }",
];

#[track_caller]
fn check_tests(text: &str, expected: &[&str]) {
    let suite = parse(text);
    let got: Vec<String> = suite.tests.iter().map(summary).collect();
    assert_eq!(got, expected);
    let indices: Vec<usize> = suite.tests.iter().map(|t| t.index).collect();
    assert_eq!(
        indices,
        (0..expected.len()).collect::<Vec<_>>(),
        "test indices"
    );
}

#[rstest]
#[case::seed_as_written(&yaml(SEED), &[
    "research-agent picks search then fetch | agent researcher | runs 1 | search: brave.web_search google.search; fetch: http.get | tool_selection.f1 >= 80",
])]
#[case::optional_keys_omitted(&yaml(&[
    "tests:",
    "  - name: minimal",
    "    equal_function_sets:",
    "      classes:",
    "        - name: search",
    "          members: [web_search]",
]), &["minimal | search: web_search | tool_selection.f1 >= 50"])]
#[case::tests_keep_file_order(&yaml(&[
    "tests:",
    "  - name: b",
    "    equal_function_sets: {classes: [{name: x, members: [x]}]}",
    "  - name: a",
    "    equal_function_sets: {classes: [{name: x, members: [x]}]}",
]), &["b | x: x | tool_selection.f1 >= 50", "a | x: x | tool_selection.f1 >= 50"])]
#[case::classes_keep_declaration_order(&yaml(&[
    "tests:",
    "  - name: t",
    "    equal_function_sets:",
    "      classes:",
    "        - {name: zeta, members: [z]}",
    "        - {name: alpha, members: [a, b]}",
]), &["t | zeta: z; alpha: a b | tool_selection.f1 >= 50"])]
#[case::same_class_name_in_two_tests(&yaml(&[
    "tests:",
    "  - name: one",
    "    equal_function_sets: {classes: [{name: x, members: [x]}]}",
    "  - name: two",
    "    equal_function_sets: {classes: [{name: x, members: [y]}]}",
]), &["one | x: x | tool_selection.f1 >= 50", "two | x: y | tool_selection.f1 >= 50"])]
#[case::non_ascii_names(&yaml(&[
    "tests:",
    "  - name: recherche café ☕",
    "    agent: 研究者",
    "    equal_function_sets:",
    "      classes:",
    "        - name: süche",
    "          members: [brave.wéb]",
]), &["recherche café ☕ | agent 研究者 | süche: brave.wéb | tool_selection.f1 >= 50"])]
fn suites_load(#[case] text: &str, #[case] expected: &[&str]) {
    check_tests(text, expected);
}

#[track_caller]
fn check_gates(expect: Option<&str>, expected: &[&str]) {
    let test = parse_one(&suite_with(&[], "[x]", expect));
    let efs = test.graders.equal_function_sets.expect("the block");
    let got: Vec<String> = efs.gates.iter().map(ToString::to_string).collect();
    assert_eq!(got, expected);
}

#[rstest]
#[case::ge(Some(r#"[{tool_selection.f1: {">=": 80}}]"#), &["tool_selection.f1 >= 80"])]
#[case::gt(Some(r#"[{tool_selection.f1: {">": 80}}]"#), &["tool_selection.f1 > 80"])]
#[case::le(Some(r#"[{tool_selection.precision: {"<=": 80}}]"#), &["tool_selection.precision <= 80"])]
#[case::lt(Some(r#"[{tool_selection.recall: {"<": 80}}]"#), &["tool_selection.recall < 80"])]
#[case::eq(Some(r#"[{tool_selection.f1: {"==": 100}}]"#), &["tool_selection.f1 == 100"])]
#[case::ne(Some(r#"[{tool_selection.f1: {"!=": 0}}]"#), &["tool_selection.f1 != 0"])]
#[case::two_operators_in_operator_order(Some(r#"[{tool_selection.f1: {"<": 90, ">=": 50}}]"#), &["tool_selection.f1 >= 50", "tool_selection.f1 < 90"])]
#[case::six_operators_in_operator_order(
    Some(r#"[{tool_selection.f1: {"!=": 1, "==": 2, "<": 3, "<=": 4, ">": 5, ">=": 6}}]"#),
    &["tool_selection.f1 >= 6", "tool_selection.f1 > 5", "tool_selection.f1 <= 4", "tool_selection.f1 < 3", "tool_selection.f1 == 2", "tool_selection.f1 != 1"],
)]
#[case::entries_keep_list_order(
    Some(r#"[{tool_selection.recall: {">=": 1}}, {tool_selection.f1: {">=": 2}}, {tool_selection.precision: {">=": 3}}]"#),
    &["tool_selection.recall >= 1", "tool_selection.f1 >= 2", "tool_selection.precision >= 3"],
)]
#[case::same_target_twice(Some(r#"[{tool_selection.f1: {">=": 50}}, {tool_selection.f1: {"<": 90}}]"#), &["tool_selection.f1 >= 50", "tool_selection.f1 < 90"])]
#[case::bounds(Some(r#"[{tool_selection.f1: {">=": 0, "<=": 100}}]"#), &["tool_selection.f1 >= 0", "tool_selection.f1 <= 100"])]
#[case::baseline(Some(r#"[{tool_selection.f1: {">=": "baseline"}}]"#), &["tool_selection.f1 >= baseline"])]
#[case::baseline_minus(Some(r#"[{tool_selection.f1: {">=": "baseline-2"}}]"#), &["tool_selection.f1 >= baseline - 2"])]
#[case::baseline_plus_beside_a_percent(
    Some(r#"[{tool_selection.recall: {"<": "baseline + 10", ">": 5}}]"#),
    &["tool_selection.recall > 5", "tool_selection.recall < baseline + 10"],
)]
#[case::omitted_is_the_default(None, &["tool_selection.f1 >= 50"])]
#[case::empty_is_the_default(Some("[]"), &["tool_selection.f1 >= 50"])]
#[case::null_is_the_default(Some("null"), &["tool_selection.f1 >= 50"])]
fn expectations(#[case] expect: Option<&str>, #[case] expected: &[&str]) {
    check_gates(expect, expected);
}

/// Each member as `(server, tool)`.
#[track_caller]
fn check_members(members: &str, expected: &[(Option<&str>, &str)]) {
    let test = parse_one(&suite_with(&[], members, None));
    let efs = test.graders.equal_function_sets.expect("the block");
    let got: Vec<(Option<&str>, &str)> = efs.classes.classes()[0]
        .members
        .iter()
        .map(|m| (m.server(), m.tool()))
        .collect();
    assert_eq!(got, expected);
}

#[rstest]
#[case::qualified("[brave.web_search]", &[(Some("brave"), "web_search")])]
#[case::split_at_the_first_dot("[github.repos.list]", &[(Some("github"), "repos.list")])]
#[case::bare("[web_search]", &[(None, "web_search")])]
#[case::quoted(r#"["brave.web_search", 'web_search']"#, &[(Some("brave"), "web_search"), (None, "web_search")])]
#[case::object("[{server: brave, tool: web_search}]", &[(Some("brave"), "web_search")])]
#[case::object_tool_with_a_dot("[{tool: repos.list}]", &[(None, "repos.list")])]
#[case::object_server_and_dotted_tool("[{server: github, tool: repos.list}]", &[(Some("github"), "repos.list")])]
#[case::forms_mixed_in_order("[b, a.c, {tool: d.e}]", &[(None, "b"), (Some("a"), "c"), (None, "d.e")])]
fn member_forms(#[case] members: &str, #[case] expected: &[(Option<&str>, &str)]) {
    check_members(members, expected);
}

/// Each pattern as `(pattern, index in the list, is a glob)`.
#[track_caller]
fn check_traces(keys: &[&str], expected: Option<&[(&str, Option<usize>, bool)]>) {
    let test = parse_one(&suite_with(keys, "[x]", None));
    let got: Option<Vec<(&str, Option<usize>, bool)>> = test.traces.as_ref().map(|traces| {
        traces
            .iter()
            .map(|t| (t.pattern.as_str(), t.index, t.is_glob()))
            .collect()
    });
    assert_eq!(got.as_deref(), expected);
}

#[rstest]
#[case::omitted(&[], None)]
#[case::one_path(&["traces: traces/run.json"], Some(vec![("traces/run.json", None, false)]))]
#[case::one_glob(&["traces: \"runs/**/*.jsonl\""], Some(vec![("runs/**/*.jsonl", None, true)]))]
#[case::flow_list(&["traces: [a.json, \"b/*.json\"]"], Some(vec![("a.json", Some(0), false), ("b/*.json", Some(1), true)]))]
#[case::block_list(&["traces:", "  - b.json", "  - a?.json"], Some(vec![("b.json", Some(0), false), ("a?.json", Some(1), true)]))]
fn traces(#[case] keys: &[&str], #[case] expected: Option<Vec<(&str, Option<usize>, bool)>>) {
    check_traces(keys, expected.as_deref());
}

#[track_caller]
fn check_runs(keys: &[&str], expected: Option<u64>) {
    assert_eq!(parse_one(&suite_with(keys, "[x]", None)).runs, expected);
}

#[rstest]
#[case::omitted(&[], None)]
#[case::one(&["runs: 1"], Some(1))]
#[case::several(&["runs: 12"], Some(12))]
fn runs(#[case] keys: &[&str], #[case] expected: Option<u64>) {
    check_runs(keys, expected);
}

// ---------------------------------------------------------------------------------------
// Suites that do not load: the code and the line of every problem, in file order.

const SYNTAX: &str = "trailgate::suite::syntax";
const EMPTY: &str = "trailgate::suite::empty";
const UNKNOWN_KEY: &str = "trailgate::suite::unknown_key";
const MISSING_KEY: &str = "trailgate::suite::missing_key";
const DUPLICATE_KEY: &str = "trailgate::suite::duplicate_key";
const INVALID_VALUE: &str = "trailgate::suite::invalid_value";
const OUT_OF_RANGE: &str = "trailgate::suite::out_of_range";
const UNKNOWN_OPERATOR: &str = "trailgate::suite::unknown_operator";
const UNKNOWN_TARGET: &str = "trailgate::suite::unknown_target";
const DUPLICATE_NAME: &str = "trailgate::suite::duplicate_name";
const INVALID_MEMBER: &str = "trailgate::suite::invalid_member";

/// The lines of a one-test suite whose class `search` has `members` (flow YAML) on line 6,
/// followed by `rest`.
fn class_lines(members: &str, rest: &[&str]) -> String {
    let mut lines = vec![
        "tests:".to_owned(),
        "  - name: t".to_owned(),
        "    equal_function_sets:".to_owned(),
        "      classes:".to_owned(),
        "        - name: search".to_owned(),
        format!("          members: {members}"),
    ];
    lines.extend(rest.iter().map(|&line| line.to_owned()));
    yaml(&lines)
}

/// A suite whose only expectation entry, on line 8, is `entry`.
fn expect_line(entry: &str) -> String {
    class_lines("[x]", &["      expect:", &format!("        - {entry}")])
}

#[track_caller]
fn check_problems(text: &str, expected: &[(&str, Option<usize>)]) {
    let file = SuiteFile::new("suite.yaml", text.to_owned());
    let Err(error) = file.parse() else {
        panic!("the suite should be rejected:\n{text}")
    };
    let got: Vec<(&str, Option<usize>)> = error
        .problems()
        .map(|p| (p.code, p.span.map(|span| file.line_of(span))))
        .collect();
    let messages: Vec<&str> = error.problems().map(|p| p.message.as_str()).collect();
    assert_eq!(got, expected, "{messages:?}\n{text}");
    for problem in error.problems() {
        assert!(
            !problem.message.is_empty() && !problem.label.is_empty(),
            "{problem:?}"
        );
        if let Some(span) = problem.span {
            assert!(span.offset() + span.len() <= text.len(), "{problem:?}");
            assert!(text.is_char_boundary(span.offset()), "{problem:?}");
        }
    }
}

#[rstest]
// The file as a whole.
#[case::empty_file("", &[(EMPTY, None)])]
#[case::blank_lines_only("\n  \n\n", &[(EMPTY, None)])]
#[case::comments_only(&yaml(&["# a suite", "  # still nothing"]), &[(EMPTY, None)])]
#[case::no_tests(&yaml(&["tests: []"]), &[(EMPTY, Some(1))])]
#[case::no_tests_after_a_comment(&yaml(&["# nothing yet", "tests: []"]), &[(EMPTY, Some(2))])]
#[case::unclosed_flow_list(&yaml(&["tests:", "  - name: t", "    equal_function_sets:", "      classes: [{name: x, members: [x]}"]), &[(SYNTAX, Some(4))])]
#[case::bad_indentation(&yaml(&["tests:", "  - name: t", "   agent: a", "    equal_function_sets: {classes: [{name: x, members: [x]}]}"]), &[(SYNTAX, Some(3))])]
#[case::tab_indentation(&yaml(&["tests:", "  - name: t", "\tequal_function_sets: {}"]), &[(SYNTAX, Some(3))])]
#[case::top_level_not_a_map(&yaml(&["- name: t"]), &[(INVALID_VALUE, Some(1))])]
#[case::unknown_top_level_key(&yaml(&["test:", "  - name: t"]), &[(UNKNOWN_KEY, Some(1))])]
// Keys of a test.
#[case::missing_name(&yaml(&["tests:", "  - agent: a", "    equal_function_sets: {classes: [{name: x, members: [x]}]}"]), &[(MISSING_KEY, Some(2))])]
#[case::duplicate_test_name(&yaml(&[
    "tests:",
    "  - name: t",
    "    equal_function_sets: {classes: [{name: x, members: [x]}]}",
    "  - name: u",
    "    equal_function_sets: {classes: [{name: x, members: [x]}]}",
    "  - name: t",
    "    equal_function_sets: {classes: [{name: x, members: [x]}]}",
]), &[(DUPLICATE_NAME, Some(6))])]
#[case::empty_test_name(&yaml(&["tests:", "  - name: \"\"", "    equal_function_sets: {classes: [{name: x, members: [x]}]}"]), &[(INVALID_VALUE, Some(2))])]
#[case::key_given_twice(&yaml(&["tests:", "  - name: t", "    agent: a", "    agent: b", "    equal_function_sets: {classes: [{name: x, members: [x]}]}"]), &[(DUPLICATE_KEY, Some(4))])]
#[case::unknown_test_key(&yaml(&["tests:", "  - name: t", "    agnet: a", "    equal_function_sets: {classes: [{name: x, members: [x]}]}"]), &[(UNKNOWN_KEY, Some(3))])]
#[case::unknown_type(&yaml(&["tests:", "  - name: t", "    type: robot", "    equal_function_sets: {classes: [{name: x, members: [x]}]}"]), &[(INVALID_VALUE, Some(3))])]
#[case::no_block(&yaml(&["tests:", "  - name: t", "    agent: a"]), &[(MISSING_KEY, Some(2))])]
#[case::runs_zero(&yaml(&["tests:", "  - name: t", "    runs: 0", "    equal_function_sets: {classes: [{name: x, members: [x]}]}"]), &[(OUT_OF_RANGE, Some(3))])]
#[case::runs_negative(&yaml(&["tests:", "  - name: t", "    runs: -2", "    equal_function_sets: {classes: [{name: x, members: [x]}]}"]), &[(INVALID_VALUE, Some(3))])]
#[case::runs_wrong_type(&yaml(&["tests:", "  - name: t", "    runs: two", "    equal_function_sets: {classes: [{name: x, members: [x]}]}"]), &[(INVALID_VALUE, Some(3))])]
#[case::traces_wrong_type(&yaml(&["tests:", "  - name: t", "    traces: {path: a.json}", "    equal_function_sets: {classes: [{name: x, members: [x]}]}"]), &[(INVALID_VALUE, Some(3))])]
#[case::grader_without_its_required_key(&yaml(&["tests:", "  - name: t", "    graders:", "      - type: call-accuracy", "        config: {}"]), &[(MISSING_KEY, Some(5))])]
#[case::unknown_grader_kind(&yaml(&["tests:", "  - name: t", "    graders:", "      - type: tool-call"]), &[(INVALID_VALUE, Some(4))])]
// Classes.
#[case::classes_wrong_type(&yaml(&["tests:", "  - name: t", "    equal_function_sets:", "      classes: search"]), &[(INVALID_VALUE, Some(4))])]
#[case::missing_classes(&yaml(&["tests:", "  - name: t", "    equal_function_sets:", "      expect: []"]), &[(MISSING_KEY, Some(4))])]
#[case::empty_classes(&yaml(&["tests:", "  - name: t", "    equal_function_sets:", "      classes: []"]), &[(EMPTY, Some(4))])]
#[case::empty_members(&class_lines("[]", &[]), &[(EMPTY, Some(6))])]
#[case::class_without_members_key(&yaml(&["tests:", "  - name: t", "    equal_function_sets:", "      classes:", "        - name: search"]), &[(MISSING_KEY, Some(5))])]
#[case::unknown_class_key(&class_lines("[x]", &["          membres: [y]"]), &[(UNKNOWN_KEY, Some(7))])]
#[case::duplicate_class_name(&class_lines("[x]", &["        - name: fetch", "          members: [y]", "        - name: search", "          members: [z]"]), &[(DUPLICATE_NAME, Some(9))])]
#[case::empty_class_name(&yaml(&["tests:", "  - name: t", "    equal_function_sets:", "      classes:", "        - name: ''", "          members: [x]"]), &[(INVALID_VALUE, Some(5))])]
// Members.
#[case::member_without_tool(&class_lines("[brave.]", &[]), &[(INVALID_MEMBER, Some(6))])]
#[case::member_without_server(&class_lines("[.x]", &[]), &[(INVALID_MEMBER, Some(6))])]
#[case::member_empty(&class_lines("[a, '']", &[]), &[(INVALID_MEMBER, Some(6))])]
#[case::member_on_its_own_line(&class_lines("", &["            - a.b", "            - brave."]), &[(INVALID_MEMBER, Some(8))])]
#[case::member_object_empty_server(&class_lines("[{server: '', tool: x}]", &[]), &[(INVALID_MEMBER, Some(6))])]
#[case::member_object_empty_tool(&class_lines("[{server: a, tool: ''}]", &[]), &[(INVALID_MEMBER, Some(6))])]
#[case::member_object_without_tool(&class_lines("[{server: a}]", &[]), &[(MISSING_KEY, Some(6))])]
#[case::member_object_unknown_key(&class_lines("[{server: a, name: b}]", &[]), &[(UNKNOWN_KEY, Some(6))])]
#[case::member_wrong_type(&class_lines("[[a]]", &[]), &[(INVALID_VALUE, Some(6))])]
// Expectations.
#[case::value_above_100(&expect_line(r#"tool_selection.f1: { ">=": 101 }"#), &[(OUT_OF_RANGE, Some(8))])]
#[case::value_negative(&expect_line(r#"tool_selection.f1: { ">=": -1 }"#), &[(OUT_OF_RANGE, Some(8))])]
#[case::value_huge(&expect_line(r#"tool_selection.f1: { ">=": 99999999999999999999 }"#), &[(OUT_OF_RANGE, Some(8))])]
#[case::value_float(&expect_line(r#"tool_selection.f1: { ">=": 80.5 }"#), &[(INVALID_VALUE, Some(8))])]
#[case::value_fraction(&expect_line(r#"tool_selection.f1: { ">=": 0.8 }"#), &[(INVALID_VALUE, Some(8))])]
#[case::value_string(&expect_line(r#"tool_selection.f1: { ">=": high }"#), &[(INVALID_VALUE, Some(8))])]
#[case::unknown_operator(&expect_line(r#"tool_selection.f1: { "=>": 80 }"#), &[(UNKNOWN_OPERATOR, Some(8))])]
#[case::unknown_target(&expect_line(r#"tool_selection.f2: { ">=": 80 }"#), &[(UNKNOWN_TARGET, Some(8))])]
#[case::target_of_another_block(&expect_line(r#"call_accuracy.f1: { ">=": 80 }"#), &[(UNKNOWN_TARGET, Some(8))])]
#[case::no_operator(&expect_line("tool_selection.f1: {}"), &[(EMPTY, Some(8))])]
#[case::empty_entry(&expect_line("{}"), &[(EMPTY, Some(8))])]
#[case::entry_not_a_map(&expect_line("tool_selection.f1"), &[(INVALID_VALUE, Some(8))])]
#[case::two_targets_in_one_entry(&class_lines("[x]", &[
    "      expect:",
    "        - tool_selection.f1: { \">=\": 80 }",
    "          tool_selection.recall: { \">=\": 80 }",
]), &[(INVALID_VALUE, Some(9))])]
#[case::unknown_efs_key(&class_lines("[x]", &["      expcet: []"]), &[(UNKNOWN_KEY, Some(7))])]
// Several problems at once, in file order.
#[case::duplicate_class_and_empty_members(&class_lines("[x]", &["        - name: search", "          members: []"]), &[(DUPLICATE_NAME, Some(7)), (EMPTY, Some(8))])]
#[case::problems_in_two_tests(&yaml(&[
    "tests:",
    "  - name: t",
    "    equal_function_sets:",
    "      classes: []",
    "  - name: t",
    "    equal_function_sets:",
    "      classes: [{name: a, members: [a]}]",
    "      expect: [{tool_selection.f2: {\">=\": 1}}]",
]), &[(EMPTY, Some(4)), (DUPLICATE_NAME, Some(5)), (UNKNOWN_TARGET, Some(8))])]
#[case::empty_members_and_grader(&yaml(&[
    "tests:",
    "  - name: t",
    "    graders:",
    "      - type: call-accuracy",
    "        config: {}",
    "    equal_function_sets:",
    "      classes: [{name: a, members: []}]",
]), &[(MISSING_KEY, Some(5)), (EMPTY, Some(7))])]
// Non-ASCII text before the error must not shift the line.
#[case::non_ascii_before_an_unknown_key(&yaml(&[
    "# 検索エージェントのテスト: ツールの選択を確かめる。検索エージェントのテスト: ツールの選択を確かめる。",
    "tests:",
    "  - name: recherche café ☕ 検索エージェント 検索エージェント 検索エージェント 検索エージェント",
    "    agent: 研究者 研究者 研究者 研究者 研究者 研究者 研究者 研究者 研究者 研究者 研究者 研究者",
    "    equal_function_sets:",
    "      classes:",
    "        - name: süche",
    "          membres: [brave.wéb]",
]), &[(UNKNOWN_KEY, Some(8))])]
#[case::non_ascii_before_a_duplicate(&yaml(&[
    "tests:",
    "  - name: 検索エージェント 検索エージェント 検索エージェント 検索エージェント 検索エージェント",
    "    equal_function_sets:",
    "      classes:",
    "        - {name: 検索, members: [検索.検索, 検索.検索, 検索.検索, 検索.検索, 検索.検索]}",
    "        - {name: 検索, members: [x]}",
]), &[(DUPLICATE_NAME, Some(6))])]
// Every problem in one run: a test or grader with a shape error is skipped, the rest read on.
#[case::shape_errors_in_two_tests(&yaml(&[
    "tests:",
    "  - name: a",
    "    runs: two",
    "    equal_function_sets: {classes: [{name: x, members: [x]}]}",
    "  - name: b",
    "    equal_function_sets: {clases: []}",
]), &[(INVALID_VALUE, Some(3)), (UNKNOWN_KEY, Some(6))])]
#[case::shape_errors_in_two_graders_of_a_test(&yaml(&[
    "tests:",
    "  - name: a",
    "    graders:",
    "      - {type: tool-calls, config: {requird: [x]}}",
    "      - {type: trajectory, config: {mode: sideways, expected: [x]}}",
    "      - {type: budget, config: {max_calls: 3}}",
]), &[(UNKNOWN_KEY, Some(4)), (INVALID_VALUE, Some(5))])]
#[case::shape_errors_and_rules_in_file_order(&yaml(&[
    "tests:",
    "  - name: a",
    "    equal_function_sets: {classes: [{name: x, members: [x]}]}",
    "  - name: a",
    "    equal_function_sets: {classes: [{name: x, members: [x]}]}",
    "  - name: c",
    "    runs: 0",
    "    equal_function_sets: {classes: [{name: x, members: [x]}]}",
]), &[(DUPLICATE_NAME, Some(4)), (OUT_OF_RANGE, Some(7))])]
#[case::shape_error_outside_every_test_ends_the_reading(&yaml(&[
    "tset: []",
    "tests:",
    "  - name: a",
    "    runs: two",
]), &[(UNKNOWN_KEY, Some(1))])]
#[case::non_ascii_on_the_line_of_the_error(&class_lines("[ünïcödé.tööl, 検索.]", &[]), &[(INVALID_MEMBER, Some(6))])]
fn bad_suites(#[case] text: &str, #[case] expected: &[(&str, Option<usize>)]) {
    check_problems(text, expected);
}

/// Placing a problem walks the document again: a suite with hundreds of problems reports
/// the first 50 and counts the rest, and its gates are not placed, rather than walking the
/// document once per problem and per gate (found while fuzzing the loader, though by hand:
/// the fuzzer's inputs are too short to show it; 85 KB of broken tests took minutes).
#[test]
fn many_problems_are_capped() {
    let tests: Vec<String> = (0..200)
        .flat_map(|_| {
            [
                "  - name: t".to_owned(),
                "    equal_function_sets: {classes: []}".to_owned(),
            ]
        })
        .collect();
    let text = yaml(&[vec!["tests:".to_owned()], tests].concat());
    let file = SuiteFile::new("suite.yaml", text);
    let Err(error) = file.parse() else {
        panic!("the suite should be rejected")
    };
    let problems: Vec<_> = error.problems().collect();
    assert_eq!(problems.len(), 51);
    assert!(problems[..50].iter().all(|p| p.span.is_some()));
    let last = problems[50];
    assert_eq!(last.code, "trailgate::suite::more_problems");
    // 200 empty class lists and 199 repeated names, less the 50 shown.
    assert_eq!(last.message, "and 349 more problems");
    assert_eq!(last.span, None);
}

/// A generated suite of 2,000 tests, in the block and flow styles a suite is written in,
/// loads with the line of every gate, default gates included (the loader once walked the
/// document again for each gate; see `docs/robustness.md`).
#[test]
fn a_suite_of_thousands_of_tests_places_every_gate() {
    let mut lines: Vec<String> = vec!["tests:".to_owned()];
    // For each test, the line of each gate, in the order the test lists its blocks.
    let mut expected: Vec<Vec<usize>> = Vec::new();
    let push = |lines: &mut Vec<String>, line: &str| {
        lines.push(line.to_owned());
        lines.len()
    };
    for index in 0..2_000 {
        let mut gates = Vec::new();
        push(&mut lines, &format!("  - name: test {index}"));
        if index % 4 != 2 {
            let block = push(&mut lines, "    equal_function_sets:");
            push(&mut lines, "      classes:");
            push(&mut lines, "        - name: search");
            push(
                &mut lines,
                "          members: [brave.web_search, google.search]",
            );
            match index % 4 {
                0 => {
                    push(&mut lines, "      expect:");
                    gates.push(push(
                        &mut lines,
                        "        - tool_selection.f1: { \">=\": 50 }",
                    ));
                    let both = push(
                        &mut lines,
                        "        - tool_selection.recall: { \">=\": 10, \"<=\": 100 }",
                    );
                    gates.extend([both, both]);
                }
                1 => gates.push(block),
                _ => gates.push(push(
                    &mut lines,
                    "      expect: [{tool_selection.precision: {\">\": 0}}]",
                )),
            }
        }
        if index % 4 == 1 {
            push(&mut lines, "    graders:");
            push(&mut lines, "      - type: tool-calls");
            push(&mut lines, "        config:");
            push(&mut lines, "          required: [\"^search$\"]");
            push(&mut lines, "          expect:");
            gates.push(push(
                &mut lines,
                "            - {tool_calls.pass_rate: {\">=\": 100}}",
            ));
        }
        if index % 4 == 2 {
            push(&mut lines, "    graders:");
            push(&mut lines, "      - type: tool-correctness");
            gates.push(push(&mut lines, "        config:"));
            push(&mut lines, "          expected_tools: [search]");
            push(&mut lines, "      - type: call-accuracy");
            push(&mut lines, "        config:");
            push(&mut lines, "          expected: [{tool: search}]");
            push(&mut lines, "          expect:");
            gates.push(push(
                &mut lines,
                "            - call_accuracy.f1: { \">=\": 40 }",
            ));
        }
        expected.push(gates);
    }
    let suite = parse(&yaml(&lines));
    let got: Vec<Vec<usize>> = suite
        .tests
        .iter()
        .map(|test| {
            let efs = test
                .graders
                .equal_function_sets
                .iter()
                .flat_map(|b| &b.gates);
            let tool_calls = test.graders.tool_calls.iter().flat_map(|g| &g.gates);
            let correctness = test.graders.tool_correctness.iter().flat_map(|g| &g.gates);
            let accuracy = test.graders.call_accuracy.iter().flat_map(|g| &g.gates);
            efs.chain(tool_calls)
                .chain(correctness)
                .chain(accuracy)
                .map(|gate| gate.line.expect("every gate of a suite file has a line"))
                .collect()
        })
        .collect();
    assert_eq!(got.len(), 2_000);
    for (index, (got, expected)) in got.iter().zip(&expected).enumerate() {
        assert_eq!(got, expected, "test {index}");
    }
}

/// The first problem's underlined text.
#[track_caller]
fn check_underline(text: &str, expected: &str) {
    let file = SuiteFile::new("suite.yaml", text.to_owned());
    let Err(error) = file.parse() else {
        panic!("the suite should be rejected:\n{text}")
    };
    let problem = error.problems().next().expect("a problem");
    let span = problem.span.expect("a span");
    let got = text.get(span.offset()..span.offset() + span.len());
    assert_eq!(got, Some(expected), "{problem:?}");
}

#[rstest]
#[case::unknown_key(&class_lines("[x]", &["          membres: [y]"]), "membres")]
#[case::member(&class_lines("[a, brave., b]", &[]), "brave.")]
#[case::member_after_non_ascii(&class_lines("[ünïcödé.tööl, 検索.]", &[]), "検索.")]
#[case::value(&expect_line(r#"tool_selection.f1: { ">=": 101 }"#), "101")]
#[case::target(&expect_line(r#"tool_selection.f2: { ">=": 80 }"#), "tool_selection.f2")]
#[case::duplicate_name_after_non_ascii(&class_lines("[検索.検索]", &["        - name: search", "          members: [y]"]), "search")]
#[case::repeated_key_second_occurrence(&yaml(&["tests:", "  - name: t", "    agent: a", "    agent: b", "    equal_function_sets: {classes: [{name: x, members: [x]}]}"]), "agent")]
#[case::unclosed_flow_list_at_its_bracket(&yaml(&["tests:", "  - name: t", "    equal_function_sets:", "      classes: [{name: x, members: [x]}", "    runs: 1"]), "[")]
#[case::unclosed_bracket_after_non_ascii(&yaml(&["tests:", "  - name: été 検索", "    agent: 研究者", "    equal_function_sets:", "      classes: [{name: 検索, members: [x]}"]), "[")]
#[case::unclosed_quote_at_its_quote(&yaml(&["tests:", "  - name: \"t", "    agent: a"]), "\"t")]
fn underlines(#[case] text: &str, #[case] expected: &str) {
    check_underline(text, expected);
}

/// The help of the first problem names `suggestion` before any other key.
#[track_caller]
fn check_suggestion(text: &str, code: &str, suggestion: &str) {
    let Err(error) = SuiteFile::new("suite.yaml", text.to_owned()).parse() else {
        panic!("the suite should be rejected:\n{text}")
    };
    let problem = error.problems().next().expect("a problem");
    assert_eq!(problem.code, code, "{problem:?}");
    let help = problem.help.as_deref().expect("a help line");
    let first = help.split('`').nth(1);
    assert_eq!(first, Some(suggestion), "help: {help}");
}

#[rstest]
#[case::top_level(&yaml(&["test:", "  - name: t"]), UNKNOWN_KEY, "tests")]
#[case::test_key(&yaml(&["tests:", "  - name: t", "    equal_function_set: {classes: [{name: x, members: [x]}]}"]), UNKNOWN_KEY, "equal_function_sets")]
#[case::class_key(&class_lines("[x]", &["          membres: [y]"]), UNKNOWN_KEY, "members")]
#[case::efs_key(&class_lines("[x]", &["      expcet: []"]), UNKNOWN_KEY, "expect")]
#[case::operator(&expect_line(r#"tool_selection.f1: { "=>": 80 }"#), UNKNOWN_OPERATOR, ">=")]
#[case::target(&expect_line(r#"tool_selection.f2: { ">=": 80 }"#), UNKNOWN_TARGET, "tool_selection.f1")]
#[case::target_misspelt(&expect_line(r#"tool_selection.recal: { ">=": 80 }"#), UNKNOWN_TARGET, "tool_selection.recall")]
fn suggestions(#[case] text: &str, #[case] code: &str, #[case] suggestion: &str) {
    check_suggestion(text, code, suggestion);
}

// ---------------------------------------------------------------------------------------
// Finding nodes by path.

#[track_caller]
fn check_span(path: &[PathSeg<'_>], expected: Option<(&str, usize)>) {
    let text = yaml(SEED);
    let file = SuiteFile::new("suite.yaml", text.clone());
    let got = file.span(path).map(|span| {
        let under = &text[span.offset()..span.offset() + span.len()];
        (under, file.line_of(span))
    });
    assert_eq!(got, expected);
}

use PathSeg::{Index, Key, KeyName};

#[rstest]
#[case::test_name(&[Key("tests"), Index(0), Key("name")], Some(("research-agent picks search then fetch", 2)))]
#[case::runs(&[Key("tests"), Index(0), Key("runs")], Some(("1", 5)))]
#[case::key_name(&[Key("tests"), Index(0), KeyName("agent")], Some(("agent", 4)))]
#[case::flow_list(&[Key("tests"), Index(0), Key("equal_function_sets"), Key("classes"), Index(0), Key("members")], Some(("[", 9)))]
#[case::list_element(&[Key("tests"), Index(0), Key("equal_function_sets"), Key("classes"), Index(0), Key("members"), Index(1)], Some(("google.search", 9)))]
#[case::second_class(&[Key("tests"), Index(0), Key("equal_function_sets"), Key("classes"), Index(1), Key("members"), Index(0)], Some(("http.get", 11)))]
#[case::target_key(&[Key("tests"), Index(0), Key("equal_function_sets"), Key("expect"), Index(0), KeyName("tool_selection.f1")], Some(("tool_selection.f1", 13)))]
#[case::gate_value(&[Key("tests"), Index(0), Key("equal_function_sets"), Key("expect"), Index(0), Key("tool_selection.f1"), Key(">=")], Some(("80", 13)))]
#[case::missing_key(&[Key("tests"), Index(0), Key("graders")], None)]
#[case::missing_key_name(&[Key("tests"), Index(0), KeyName("graders")], None)]
#[case::missing_index(&[Key("tests"), Index(1)], None)]
#[case::missing_member(&[Key("tests"), Index(0), Key("equal_function_sets"), Key("classes"), Index(1), Key("members"), Index(1)], None)]
#[case::index_into_a_map(&[Key("tests"), Index(0), Index(0)], None)]
#[case::key_into_a_list(&[Key("tests"), Key("name")], None)]
#[case::below_a_scalar(&[Key("tests"), Index(0), Key("name"), Index(0)], None)]
fn spans(#[case] path: &[PathSeg<'_>], #[case] expected: Option<(&str, usize)>) {
    check_span(path, expected);
}

/// The line of a span: one more than the `\n` before it, and 1 where the offset is not a
/// character boundary of the text.
#[rstest]
#[case::start(0, 1)]
#[case::on_the_first_newline(2, 1)]
#[case::after_it(3, 2)]
#[case::after_a_carriage_return_alone(9, 2)]
#[case::inside_a_character(12, 1)]
#[case::between_two_newlines(14, 3)]
#[case::after_the_last_newline(15, 4)]
#[case::end(16, 4)]
#[case::past_the_end(17, 1)]
fn lines_of_spans(#[case] offset: usize, #[case] line: usize) {
    let file = SuiteFile::new("suite.yaml", "a:\n  b\r c: é\n\nx".to_owned());
    assert_eq!(file.line_of(offset.into()), line);
}

/// Every node of `text` that a path from the keys `a`, `b`, `é` and indices 0 to 3 reaches
/// (and one step past each, where there is no node) is placed by the table of positions
/// exactly where a walk to that one node places it.
#[track_caller]
fn check_positions_agree_with_walks(text: &str) {
    const KEYS: [&str; 3] = ["a", "b", "é"];
    let file = SuiteFile::new("suite.yaml", text.to_owned());
    let mut nodes: Vec<Vec<PathSeg<'static>>> = vec![vec![]];
    while let Some(node) = nodes.pop() {
        let steps = KEYS
            .iter()
            .flat_map(|&key| [Key(key), KeyName(key), PathSeg::RepeatedKey(key)])
            .chain((0..4).map(Index));
        for step in steps {
            let path = [node.as_slice(), &[step]].concat();
            let placed = file.span(&path);
            assert_eq!(placed, file.span_by_walk(&path), "{path:?} in {text:?}");
            if placed.is_some() && matches!(step, Key(_) | Index(_)) && path.len() < 6 {
                nodes.push(path);
            }
        }
    }
}

/// A generator of small random numbers, so that the generated documents are the same on
/// every run.
struct Draw(u64);

impl Draw {
    fn below(&mut self, n: usize) -> usize {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let value = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33;
        usize::try_from(value).unwrap() % n
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Writes a random YAML document: lists and maps in block and flow style, keys from `a`,
/// `b` and `é` (repeated keys included) and others, anchors and aliases, tags, comments,
/// quoted, numeric, empty and block scalars, and YAML's rarer line breaks.
struct RandomYaml {
    draw: Draw,
    text: String,
    /// Anchors written so far, and those whose node is complete, which aliases may name.
    anchors: usize,
    complete: Vec<usize>,
}

const RANDOM_KEYS: &[&str] = &["a", "b", "é", "a", "\"a\"", "'b'", "1", "~", "?"];
const RANDOM_SCALARS: &[&str] = &[
    "x",
    "検索 ü",
    "12",
    "1.5",
    "true",
    "~",
    "\"q # : [\"",
    "'it''s'",
    "340282366920938463463374607431768211456",
    "!t x",
    "!!str 5",
    "\"two\n  lines\"",
    "x\ty",
];

impl RandomYaml {
    fn put(&mut self, piece: &str) {
        self.text.push_str(piece);
    }

    fn document(seed: u64) -> String {
        let mut yaml = Self {
            draw: Draw(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1),
            text: String::new(),
            anchors: 0,
            complete: Vec::new(),
        };
        if yaml.draw.chance(5) {
            yaml.text.push('\u{feff}');
        }
        if yaml.draw.chance(85) {
            yaml.map(0, 0);
        } else {
            yaml.block(0, 0);
        }
        let newline = yaml
            .draw
            .pick(&["\n", "\n", "\n", "\r\n", "\r", "\u{85}", "\u{2028}"]);
        yaml.text.replace('\n', newline)
    }

    /// A new anchor's number, `percent` times in a hundred.
    fn anchor(&mut self, percent: usize) -> Option<usize> {
        self.draw.chance(percent).then(|| {
            self.anchors += 1;
            self.anchors - 1
        })
    }

    /// A block node at `indent`, after a key's `:` or a `-`.
    fn block(&mut self, indent: usize, depth: usize) {
        let pad = " ".repeat(indent);
        if !self.complete.is_empty() && self.draw.chance(8) {
            let name = self.complete[self.draw.below(self.complete.len())];
            self.put(&format!(" *n{name}\n"));
            return;
        }
        let anchor = self.anchor(10);
        if let Some(name) = anchor {
            self.put(&format!(" &n{name}"));
        }
        if self.draw.chance(5) {
            self.text.push_str(" !t");
        }
        match if depth > 3 { 2 } else { self.draw.below(4) } {
            0 => {
                if self.draw.chance(20) {
                    self.text.push_str(" # c: [");
                }
                self.text.push('\n');
                self.map(indent, depth);
            }
            1 => {
                self.text.push('\n');
                for _ in 0..=self.draw.below(4) {
                    self.put(&format!("{pad}-"));
                    self.block(indent + 2, depth + 1);
                }
            }
            2 => {
                self.text.push(' ');
                self.flow(indent, depth, anchor.is_none());
                self.text.push('\n');
            }
            _ if self.draw.chance(15) => {
                self.put(&format!(" |\n{pad}  line one\n{pad}  line: two\n"));
            }
            _ if self.draw.chance(10) => {
                // An empty value.
                self.text.push('\n');
            }
            _ => {
                let scalar = self
                    .draw
                    .pick(RANDOM_SCALARS)
                    .replace('\n', &format!("\n{pad}"));
                let comment = if self.draw.chance(15) { " # c" } else { "" };
                self.put(&format!(" {scalar}{comment}\n"));
            }
        }
        self.complete.extend(anchor);
    }

    /// The entries of a block map at `indent`, each on a line of its own.
    fn map(&mut self, indent: usize, depth: usize) {
        let pad = " ".repeat(indent);
        for _ in 0..=self.draw.below(4) {
            match self.draw.pick(RANDOM_KEYS) {
                "?" => self.put(&format!("{pad}? a\n{pad}:")),
                key => self.put(&format!("{pad}{key}:")),
            }
            self.block(indent + 2, depth + 1);
        }
    }

    /// A flow node in a block at `indent`, anchored at random when `anchored` allows.
    fn flow(&mut self, indent: usize, depth: usize, anchored: bool) {
        let anchor = if anchored { self.anchor(10) } else { None };
        if let Some(name) = anchor {
            self.put(&format!("&n{name} "));
        }
        let (open, close) = match if depth > 4 { 2 } else { self.draw.below(3) } {
            0 => ("[", "]"),
            1 => ("{", "}"),
            _ => {
                let pad = format!("\n{}", " ".repeat(indent + 2));
                let scalar = self.draw.pick(RANDOM_SCALARS).replace('\n', &pad);
                self.text.push_str(&scalar);
                self.complete.extend(anchor);
                return;
            }
        };
        self.text.push_str(open);
        for i in 0..self.draw.below(4) {
            if i > 0 {
                let pad = " ".repeat(indent + 2);
                let separator = if self.draw.chance(10) {
                    format!(",\n{pad}")
                } else {
                    ", ".to_owned()
                };
                self.text.push_str(&separator);
            }
            if open == "{" {
                let key = self.draw.pick(&["a", "b", "é", "\"a\"", "1"]);
                self.put(&format!("{key}: "));
            }
            self.flow(indent, depth + 1, true);
        }
        self.text.push_str(close);
        self.complete.extend(anchor);
    }
}

#[rstest]
#[case::seed(&yaml(SEED))]
#[case::block_list_of_maps("a:\n  - a: 1\n    b: [x, {a: 2}]\n  - b: 3\n    a: {}\n")]
#[case::flow_map_over_lines("a: [\n  {\n    a: 1 }, {b: 2}]\n")]
#[case::empty_collections("a: []\nb: {}\né: [[], {}]\n")]
#[case::anchors_and_aliases("a: &x\n  a: [1, 2]\nb: *x\né: [*x, &y {a: 1}, *y]\n")]
#[case::anchored_collection_on_its_own_line("a: &x\n  - 1\nb:\n  &y\n  a: 2\n")]
#[case::tags("a: !t [1]\nb: !!map {a: 1}\né: !t x\n")]
#[case::repeated_keys("a: 1\nb: 2\na: 3\nb: {a: 1, a: 2}\n")]
#[case::keys_that_are_not_strings("1: x\n~: y\n[a]: z\n{a: 1}: w\na: v\n")]
#[case::huge_integer_key("340282366920938463463374607431768211456: x\na: 1\n")]
#[case::huge_integer_value(
    "a: 340282366920938463463374607431768211456\nb: [340282366920938463463374607431768211456]\n"
)]
#[case::explicit_keys("? a\n: [1]\n? b\n: x\n")]
#[case::first_key_at_line_one_column_one("a: 1\n")]
#[case::comments_everywhere("# c\na: # c\n  # c\n  - # c\n    1 # c\nb: [ # c\n  2]\n")]
#[case::crlf_line_breaks("a:\r\n  - b: 1\r\n    é: [x]\r\n")]
#[case::cr_line_breaks("a:\r  - b: 1\r    é: [x]\r")]
#[case::unicode_line_breaks("a:\u{85}  - b: 1\u{2028}    é: [x]\u{2029}b: 2\n")]
#[case::byte_order_mark("\u{feff}a:\n  b: 1\n")]
#[case::tabs_and_non_ascii("é:\t検索\na:\n  - ü: [ö,\tä]\n")]
#[case::block_scalars("a: |\n  x: [\n  y\nb: >-\n  z\né: 1\n")]
#[case::multi_line_scalars("a: \"x\n  y\"\nb: plain\n  more\né: 'q\n\n  r'\n")]
#[case::two_documents("a: 1\n---\nb: 2\n")]
#[case::syntax_error_after_nodes("a: [1, 2]\nb: 'x\n")]
#[case::syntax_error_before_nodes("a: ]\nb: 1\n")]
#[case::scalar_document("x\n")]
#[case::list_document("- a: 1\n- [b]\n")]
#[case::empty_document("")]
fn positions_agree_with_walks(#[case] text: &str) {
    check_positions_agree_with_walks(text);
}

#[test]
fn positions_agree_with_walks_on_random_documents() {
    for seed in 0..40 {
        check_positions_agree_with_walks(&RandomYaml::document(seed));
    }
}

#[track_caller]
fn check_slug(name: &str, expected: &str) {
    assert_eq!(slug(name), expected);
}

#[rstest]
#[case::seed(
    "research-agent picks search then fetch",
    "research-agent-picks-search-then-fetch"
)]
#[case::trailing_punctuation_kept("Fetch (v2)", "fetch-v2-")]
#[case::leading_punctuation_kept("  (draft) search", "-draft-search")]
#[case::runs_collapse("a -- b__c", "a-b-c")]
#[case::upper_case("ABC", "abc")]
#[case::digits("v2.1", "v2-1")]
#[case::non_ascii("Recherche café ☕", "recherche-caf-")]
#[case::only_non_ascii("検索", "-")]
#[case::already_a_slug("a-b", "a-b")]
fn slugs(#[case] name: &str, #[case] expected: &str) {
    check_slug(name, expected);
}

// ---------------------------------------------------------------------------------------
// Evaluation.

const SEED_CLASSES: &str = "[{name: search, members: [brave.web_search, google.search]}, {name: fetch, members: [http.get]}]";

/// A run from its calls, separated by spaces, each written `server.name` or `name`; a
/// leading `~` marks a call with no recorded result.
///
/// The calls are loaded from the call-list shape so that every other field has the value a
/// trace gives it.
fn run(calls: &str) -> Run {
    let calls: Vec<&str> = calls.split_whitespace().collect();
    let entries: Vec<String> = calls
        .iter()
        .map(|text| {
            let id = text.trim_start_matches('~');
            match id.split_once('.') {
                Some((server, name)) => format!(r#"{{"server": "{server}", "name": "{name}"}}"#),
                None => format!(r#"{{"name": "{id}"}}"#),
            }
        })
        .collect();
    let text = format!(r#"{{"tool_calls": [{}]}}"#, entries.join(", "));
    let loaded = parse_run("run.json", &text, 1).expect("a valid trace");
    let calls = loaded
        .calls
        .into_iter()
        .zip(calls)
        .map(|(call, text)| Call {
            completed: !text.starts_with('~'),
            ..call
        })
        .collect();
    Run {
        calls,
        ..Run::default()
    }
}

/// Parses a one-test suite with `classes` and `expect` (flow YAML) and evaluates `runs`
/// (see [`run`]).
#[track_caller]
fn evaluate(classes: &str, expect: &str, runs: &[&str]) -> TestOutcome {
    let suite = yaml(&[
        "tests:",
        "  - name: t",
        "    equal_function_sets:",
        &format!("      classes: {classes}"),
        &format!("      expect: {expect}"),
    ]);
    let test = parse_one(&suite);
    let mut evaluator = TestEvaluator::new(&test);
    for (number, calls) in (1..).zip(runs) {
        let source = RunSource {
            file: format!("traces/run{number}.json"),
            line: None,
            trace: None,
        };
        evaluator.add_run(source, &run(calls));
    }
    assert_eq!(evaluator.run_count(), runs.len());
    evaluator
        .finish()
        .expect("no tool-calls grader, so nothing to refuse")
}

/// A baseline of one test `t` with `metrics`.
fn baseline_of(name: &str, metrics: &[(&str, u8)]) -> Baseline {
    let metrics = metrics
        .iter()
        .map(|(m, v)| ((*m).to_owned(), MetricValue::whole(u128::from(*v))))
        .collect();
    Baseline::new(std::iter::once((name.to_owned(), metrics)).collect())
}

/// Each gate of `outcome`: as the reports write it, then `pass`, `fail` or `skipped: why`.
fn gate_verdicts(outcome: &TestOutcome) -> Vec<String> {
    outcome
        .gates
        .iter()
        .map(|gate| match (gate.skipped(), gate.passed) {
            (Some(reason), _) => format!("{} skipped: {reason}", gate.written()),
            (None, true) => format!("{} pass", gate.written()),
            (None, false) => format!("{} fail", gate.written()),
        })
        .collect()
}

/// Gates on the baseline resolve against the baseline's test of the same name and its
/// metric of the same name, or are skipped with the reason; the runs' verdicts and the
/// test's count of passed runs never depend on the baseline (docs/reports.md#each-runs-verdict).
#[rstest]
#[case::no_baseline(None, &[
    "tool_selection.f1 >= 50 pass",
    "tool_selection.f1 >= baseline - 5 skipped: no --baseline given",
    "tool_selection.recall == baseline skipped: no --baseline given",
], true)]
#[case::resolved(Some(baseline_of("t", &[("tool_selection.f1", 80), ("tool_selection.recall", 60)])), &[
    "tool_selection.f1 >= 50 pass",
    "tool_selection.f1 >= baseline - 5 (baseline 80, so 75) fail",
    "tool_selection.recall == baseline (baseline 60, so 60) fail",
], false)]
#[case::clamped(Some(baseline_of("t", &[("tool_selection.f1", 3), ("tool_selection.recall", 50)])), &[
    "tool_selection.f1 >= 50 pass",
    "tool_selection.f1 >= baseline - 5 (baseline 3, so 0) pass",
    "tool_selection.recall == baseline (baseline 50, so 50) pass",
], true)]
#[case::no_such_test(Some(baseline_of("other", &[("tool_selection.f1", 100)])), &[
    "tool_selection.f1 >= 50 pass",
    "tool_selection.f1 >= baseline - 5 skipped: the baseline has no test named `t`",
    "tool_selection.recall == baseline skipped: the baseline has no test named `t`",
], true)]
#[case::no_such_metric(Some(baseline_of("t", &[("tool_selection.f1", 60)])), &[
    "tool_selection.f1 >= 50 pass",
    "tool_selection.f1 >= baseline - 5 (baseline 60, so 55) pass",
    "tool_selection.recall == baseline skipped: the baseline's test has no metric `tool_selection.recall`",
], true)]
fn gates_on_the_baseline(
    #[case] baseline: Option<Baseline>,
    #[case] expected: &[&str],
    #[case] passed: bool,
) {
    let suite = yaml(&[
        "tests:",
        "  - name: t",
        "    equal_function_sets:",
        "      classes: [{name: a, members: [a]}, {name: b, members: [b]}]",
        r#"      expect: [{tool_selection.f1: {">=": 50}}, {tool_selection.f1: {">=": "baseline - 5"}}, {tool_selection.recall: {"==": "baseline"}}]"#,
    ]);
    let test = parse_one(&suite);
    let runs = ["a b", "a", "b x", ""];
    let evaluate_with = |baseline: Option<&Baseline>| {
        let mut evaluator = TestEvaluator::new(&test).with_baseline(baseline);
        for (number, calls) in (1..).zip(runs) {
            let source = RunSource {
                file: format!("traces/run{number}.json"),
                line: None,
                trace: None,
            };
            evaluator.add_run(source, &run(calls));
        }
        evaluator.finish().expect("nothing to refuse")
    };
    let outcome = evaluate_with(baseline.as_ref());
    // Over the four runs: TP 4, FP 1 (`x`), FN 4: recall 50, f1 61.
    assert_eq!(gate_verdicts(&outcome), expected);
    assert_eq!(outcome.passed, passed);
    let without = evaluate_with(None);
    let verdicts = |o: &TestOutcome| o.runs.iter().map(|r| r.passed).collect::<Vec<_>>();
    // Run 1 (f1 100) and run 2 (f1 66) pass the one gate that is not on the baseline; run
    // 3 (f1 50) passes at the bound; run 4 calls nothing.
    assert_eq!(verdicts(&outcome), [true, true, true, false]);
    assert_eq!(verdicts(&outcome), verdicts(&without));
    assert_eq!(outcome.passed_runs, 3);
    assert_eq!(outcome.metrics, without.metrics);
}

/// A `reliability:` gate on the baseline resolves like any other, and its inconclusive note
/// is computed on the value it resolved to; skipped, it has none.
#[rstest]
#[case::resolved(Some(baseline_of("t", &[("reliability.pass_rate", 80)])), "reliability.pass_rate >= baseline - 10 (baseline 80, so 70) pass", true)]
#[case::skipped(
    None,
    "reliability.pass_rate >= baseline - 10 skipped: no --baseline given",
    false
)]
fn a_reliability_gate_on_the_baseline(
    #[case] baseline: Option<Baseline>,
    #[case] expected: &str,
    #[case] noted: bool,
) {
    let suite = yaml(&[
        "tests:",
        "  - name: t",
        "    equal_function_sets:",
        "      classes: [{name: a, members: [a]}, {name: b, members: [b]}]",
        r#"    reliability: {expect: [{reliability.pass_rate: {">=": "baseline - 10"}}]}"#,
    ]);
    let test = parse_one(&suite);
    let mut evaluator = TestEvaluator::new(&test).with_baseline(baseline.as_ref());
    for (number, calls) in (1..).zip(["a b", "a", "b x", ""]) {
        let source = RunSource {
            file: format!("traces/run{number}.json"),
            line: None,
            trace: None,
        };
        evaluator.add_run(source, &run(calls));
    }
    let outcome = evaluator.finish().expect("nothing to refuse");
    // 3 of 4 runs pass `tool_selection.f1 >= 50` on their own: a pass rate of 75, whose
    // interval (from 30 up) holds 70.
    let gate = outcome.gates.last().expect("the reliability gate");
    assert_eq!(
        gate_verdicts(&outcome).last().map(String::as_str),
        Some(expected)
    );
    assert_eq!(gate.note.is_some(), noted, "{:?}", gate.note);
    assert_eq!(outcome.passed_runs, 3);
}

/// What one run of a test counted: each class with the call that satisfied it, the
/// unexpected calls and the repeats.
fn run_summary(outcome: &TestOutcome, run: usize) -> String {
    let selection = outcome
        .graders
        .equal_function_sets
        .as_ref()
        .expect("the block");
    let found = &selection.runs[run];
    let classes: Vec<String> = selection
        .classes
        .iter()
        .zip(&found.satisfied_by)
        .map(|(class, call)| match call {
            Some(call) => format!("{class}={}@{}", call.tool, call.call),
            None => format!("{class}=missed"),
        })
        .collect();
    let unexpected: Vec<String> = found
        .unexpected
        .iter()
        .map(|c| format!("{}@{}", c.tool, c.call))
        .collect();
    let repeats: Vec<String> = found
        .repeats
        .iter()
        .map(|(c, class)| format!("{}@{}>{}", c.tool, c.call, selection.classes[*class]))
        .collect();
    format!(
        "{}; unexpected: {}; repeats: {}",
        classes.join(" "),
        unexpected.join(" "),
        repeats.join(" ")
    )
}

fn metrics(outcome: &TestOutcome) -> (u8, u8, u8) {
    let m = outcome
        .graders
        .equal_function_sets
        .as_ref()
        .expect("the block")
        .metrics;
    (m.precision.value(), m.recall.value(), m.f1.value())
}

#[track_caller]
fn check_run(
    classes: &str,
    calls: &str,
    counts: (u64, u64, u64),
    percents: (u8, u8, u8),
    expected: &str,
) {
    let outcome = evaluate(classes, "[]", &[calls]);
    let selection = outcome
        .graders
        .equal_function_sets
        .as_ref()
        .expect("the block");
    assert_eq!(
        selection.counts,
        Counts::new(counts.0, counts.1, counts.2),
        "counts"
    );
    assert_eq!(
        selection.runs[0].counts, selection.counts,
        "one run's counts"
    );
    assert_eq!(metrics(&outcome), percents, "precision, recall, f1");
    assert_eq!(run_summary(&outcome, 0), expected);
    assert_eq!(
        outcome.runs[0].calls,
        calls.split_whitespace().count(),
        "calls of the run"
    );
    let reported: Vec<(&str, u8)> = outcome
        .metrics
        .iter()
        .map(|(target, value)| (target.as_str(), percent_of(*value)))
        .collect();
    assert_eq!(
        reported,
        [
            ("tool_selection.precision", percents.0),
            ("tool_selection.recall", percents.1),
            ("tool_selection.f1", percents.2),
        ],
        "metrics in report order"
    );
}

#[rstest]
#[case::seed_all_found(SEED_CLASSES, "brave.web_search http.get", (2, 0, 0), (100, 100, 100), "search=brave.web_search@1 fetch=http.get@2; unexpected: ; repeats: ")]
#[case::seed_one_missed(SEED_CLASSES, "google.search shell.exec", (1, 1, 1), (50, 50, 50), "search=google.search@1 fetch=missed; unexpected: shell.exec@2; repeats: ")]
#[case::f1_from_the_counts(SEED_CLASSES, "brave.web_search http.get shell.exec", (2, 1, 0), (66, 100, 80), "search=brave.web_search@1 fetch=http.get@2; unexpected: shell.exec@3; repeats: ")]
#[case::repeats_neither_count_nor_penalise(SEED_CLASSES, "brave.web_search google.search http.get brave.web_search", (2, 0, 0), (100, 100, 100), "search=brave.web_search@1 fetch=http.get@3; unexpected: ; repeats: google.search@2>search brave.web_search@4>search")]
#[case::no_calls(SEED_CLASSES, "", (0, 0, 2), (0, 0, 0), "search=missed fetch=missed; unexpected: ; repeats: ")]
#[case::not_completed_calls_count(SEED_CLASSES, "~brave.web_search ~http.get ~shell.exec", (2, 1, 0), (66, 100, 80), "search=brave.web_search@1 fetch=http.get@2; unexpected: shell.exec@3; repeats: ")]
#[case::qualified_member_never_matches_a_bare_call(SEED_CLASSES, "web_search get", (0, 2, 2), (0, 0, 0), "search=missed fetch=missed; unexpected: web_search@1 get@2; repeats: ")]
#[case::bare_member_matches_any_server(
    "[{name: search, members: [web_search]}]",
    "brave.web_search web_search google.web_search",
    (1, 0, 0),
    (100, 100, 100),
    "search=brave.web_search@1; unexpected: ; repeats: web_search@2>search google.web_search@3>search",
)]
#[case::bare_member_matches_a_call_without_server("[{name: search, members: [web_search]}]", "web_search", (1, 0, 0), (100, 100, 100), "search=web_search@1; unexpected: ; repeats: ")]
#[case::server_must_match(SEED_CLASSES, "google.web_search brave.search", (0, 2, 2), (0, 0, 0), "search=missed fetch=missed; unexpected: google.web_search@1 brave.search@2; repeats: ")]
#[case::dotted_tool_object_member(
    "[{name: list, members: [{server: github, tool: repos.list}]}]",
    "github.repos.list",
    (1, 0, 0),
    (100, 100, 100),
    "list=github.repos.list@1; unexpected: ; repeats: ",
)]
#[case::maximum_assignment_over_overlapping_classes(
    "[{name: a, members: [x, y]}, {name: b, members: [x]}]",
    "x y",
    (2, 0, 0),
    (100, 100, 100),
    "a=y@2 b=x@1; unexpected: ; repeats: ",
)]
fn runs_score(
    #[case] classes: &str,
    #[case] calls: &str,
    #[case] counts: (u64, u64, u64),
    #[case] percents: (u8, u8, u8),
    #[case] expected: &str,
) {
    check_run(classes, calls, counts, percents, expected);
}

/// Several runs are scored by summing their counts, whatever their order.
#[track_caller]
fn check_micro_average(runs: &[&str], counts: (u64, u64, u64), percents: (u8, u8, u8)) {
    let outcome = evaluate(SEED_CLASSES, "[]", runs);
    let selection = outcome
        .graders
        .equal_function_sets
        .as_ref()
        .expect("the block");
    let summed: Counts = selection.runs.iter().map(|r| r.counts).sum();
    assert_eq!(selection.counts, summed, "summed counts");
    assert_eq!(
        selection.counts,
        Counts::new(counts.0, counts.1, counts.2),
        "counts"
    );
    assert_eq!(
        selection.metrics,
        summed.metrics(),
        "metrics of the summed counts"
    );
    assert_eq!(metrics(&outcome), percents, "precision, recall, f1");
    assert_eq!(selection.runs.len(), runs.len(), "one outcome per run");

    let reversed: Vec<&str> = runs.iter().rev().copied().collect();
    let other = evaluate(SEED_CLASSES, "[]", &reversed);
    assert_eq!(metrics(&other), percents, "run order does not matter");
}

#[rstest]
#[case::one_run(&["brave.web_search shell.exec"], (1, 1, 1), (50, 50, 50))]
#[case::two_runs(&["brave.web_search http.get", "google.search shell.exec"], (3, 1, 1), (75, 75, 75))]
#[case::not_the_mean_of_the_runs(&["brave.web_search http.get", "shell.exec"], (2, 1, 2), (66, 50, 57))]
#[case::three_runs(&["http.get", "", "google.search http.get fs.read fs.write"], (3, 2, 3), (60, 50, 54))]
fn micro_average(
    #[case] runs: &[&str],
    #[case] counts: (u64, u64, u64),
    #[case] percents: (u8, u8, u8),
) {
    check_micro_average(runs, counts, percents);
}

/// Each gate as `(gate, actual, passed)`, and the test's verdict.
#[track_caller]
fn check_verdicts(expect: &str, calls: &str, expected: &[(&str, u8, bool)], passed: bool) {
    let outcome = evaluate(SEED_CLASSES, expect, &[calls]);
    let got: Vec<(String, u8, bool)> = outcome
        .gates
        .iter()
        .map(|g| (g.gate.to_string(), percent_of(g.actual), g.passed))
        .collect();
    let expected: Vec<(String, u8, bool)> = expected
        .iter()
        .map(|(gate, actual, passed)| ((*gate).to_owned(), *actual, *passed))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(outcome.passed, passed, "the test's verdict");
}

const HALF: &str = "google.search shell.exec";

#[rstest]
#[case::default_gate_holds_at_50("[]", HALF, &[("tool_selection.f1 >= 50", 50, true)], true)]
#[case::default_gate_fails_below_50("[]", "shell.exec", &[("tool_selection.f1 >= 50", 0, false)], false)]
#[case::ge_holds_when_equal(r#"[{tool_selection.f1: {">=": 50}}]"#, HALF, &[("tool_selection.f1 >= 50", 50, true)], true)]
#[case::gt_fails_when_equal(r#"[{tool_selection.f1: {">": 50}}]"#, HALF, &[("tool_selection.f1 > 50", 50, false)], false)]
#[case::le_holds_when_equal(r#"[{tool_selection.f1: {"<=": 50}}]"#, HALF, &[("tool_selection.f1 <= 50", 50, true)], true)]
#[case::lt_fails_when_equal(r#"[{tool_selection.f1: {"<": 50}}]"#, HALF, &[("tool_selection.f1 < 50", 50, false)], false)]
#[case::eq(r#"[{tool_selection.f1: {"==": 50}}]"#, HALF, &[("tool_selection.f1 == 50", 50, true)], true)]
#[case::ne(r#"[{tool_selection.f1: {"!=": 50}}]"#, HALF, &[("tool_selection.f1 != 50", 50, false)], false)]
#[case::seed_gate_on_f1_80(r#"[{tool_selection.f1: {">=": 80}}]"#, "brave.web_search http.get shell.exec", &[("tool_selection.f1 >= 80", 80, true)], true)]
#[case::each_target_its_metric(
    r#"[{tool_selection.precision: {"==": 66}}, {tool_selection.recall: {"==": 100}}, {tool_selection.f1: {"==": 80}}]"#,
    "brave.web_search http.get shell.exec",
    &[("tool_selection.precision == 66", 66, true), ("tool_selection.recall == 100", 100, true), ("tool_selection.f1 == 80", 80, true)],
    true,
)]
#[case::range_holds(r#"[{tool_selection.f1: {"<": 90, ">=": 50}}]"#, HALF, &[("tool_selection.f1 >= 50", 50, true), ("tool_selection.f1 < 90", 50, true)], true)]
#[case::one_failed_gate_fails_the_test(
    r#"[{tool_selection.f1: {">=": 50}}, {tool_selection.recall: {"==": 100}}]"#,
    HALF,
    &[("tool_selection.f1 >= 50", 50, true), ("tool_selection.recall == 100", 50, false)],
    false,
)]
#[case::one_failed_operator_fails_the_test(r#"[{tool_selection.f1: {">=": 0, "<": 50}}]"#, HALF, &[("tool_selection.f1 >= 0", 50, true), ("tool_selection.f1 < 50", 50, false)], false)]
fn verdicts(
    #[case] expect: &str,
    #[case] calls: &str,
    #[case] expected: &[(&str, u8, bool)],
    #[case] passed: bool,
) {
    check_verdicts(expect, calls, expected, passed);
}

#[test]
fn the_outcome_names_the_test_and_its_runs_in_order() {
    let test = parse_one(&yaml(SEED));
    let mut evaluator = TestEvaluator::new(&test);
    let sources = [
        RunSource {
            file: "traces/b.jsonl".to_owned(),
            line: Some(3),
            trace: None,
        },
        RunSource {
            file: "traces/a.json".to_owned(),
            line: None,
            trace: None,
        },
    ];
    evaluator.add_run(sources[0].clone(), &run("brave.web_search"));
    evaluator.add_run(sources[1].clone(), &run("http.get shell.exec"));
    let outcome = evaluator
        .finish()
        .expect("no tool-calls grader, so nothing to refuse");
    assert_eq!(outcome.name, "research-agent picks search then fetch");
    assert_eq!(outcome.agent.as_deref(), Some("researcher"));
    let runs: Vec<(String, usize)> = outcome
        .runs
        .iter()
        .map(|r| (r.source.to_string(), r.calls))
        .collect();
    assert_eq!(
        runs,
        [
            ("traces/b.jsonl:3".to_owned(), 1),
            ("traces/a.json".to_owned(), 2)
        ]
    );
    let classes: Vec<&str> = outcome
        .graders
        .equal_function_sets
        .as_ref()
        .expect("the block")
        .classes
        .iter()
        .map(ClassName::as_str)
        .collect();
    assert_eq!(classes, ["search", "fetch"]);
}

#[rstest]
#[case("1/1", 1, 1)]
#[case("2/3", 2, 3)]
#[case("10/10", 10, 10)]
fn shard_parses_k_of_n(#[case] text: &str, #[case] index: usize, #[case] count: usize) {
    let shard: crate::Shard = text.parse().expect("a shard");
    assert_eq!((shard.index(), shard.count()), (index, count));
    assert_eq!(shard.to_string(), text);
}

#[rstest]
#[case("0/3")]
#[case("4/3")]
#[case("1/0")]
#[case("3")]
#[case("1/2/3")]
#[case(" 1/2")]
#[case("+1/2")]
#[case("")]
fn shard_refuses_what_is_not_k_of_n(#[case] text: &str) {
    let error = text.parse::<crate::Shard>().expect_err("not a shard");
    assert!(error.to_string().contains("is not a shard"));
}

#[test]
fn shards_deal_every_test_to_exactly_one_shard() {
    for tests in 0..12 {
        for count in 1..6 {
            let shards: Vec<crate::Shard> = (1..=count)
                .map(|index| crate::Shard::new(index, count).expect("a shard"))
                .collect();
            for position in 0..tests {
                let holders: Vec<usize> = shards
                    .iter()
                    .filter(|s| s.holds(position))
                    .map(|s| s.index())
                    .collect();
                // Round robin: test 1 to shard 1, test 2 to shard 2, ...
                assert_eq!(holders, [position % count + 1]);
            }
            for shard in &shards {
                let held = (0..tests).filter(|p| shard.holds(*p)).count();
                assert_eq!(shard.len_of(tests), held, "{tests} tests, shard {shard}");
            }
        }
    }
}

/// A list of `n` aliases of a list of `n` scalars: `n * n` nodes once expanded.
fn square_bomb(n: usize) -> String {
    let scalars = vec!["a"; n].join(", ");
    let aliases = vec!["*a"; n].join(", ");
    format!("tests:\n  - name: t\n    x: &a [{scalars}]\n    y: [{aliases}]\n")
}

#[rstest]
#[case::square_within(30, 1_000, false)]
#[case::square_past(40, 1_000, true)]
#[case::square_far_past(3_000, 1_000, true)]
fn alias_expansion_is_counted_and_stopped(
    #[case] n: usize,
    #[case] limit: usize,
    #[case] past: bool,
) {
    assert_eq!(
        crate::suite_file::expands_past(&square_bomb(n), limit),
        past
    );
}

#[test]
fn alias_bombs_are_refused_with_their_own_error() {
    // Nine levels of nine aliases: billions of nodes, stopped by the reader's repetition
    // limit before MAX_YAML_NODES (a square past a million nodes takes seconds to count in
    // a debug build; `alias_expansion_is_counted_and_stopped` checks that path).
    let levels: Vec<String> = (1..10)
        .map(|level| {
            let aliases = vec![format!("*a{}", level - 1); 9].join(", ");
            format!("      l{level}: &a{level} [{aliases}]\n")
        })
        .collect();
    let laughs = format!(
        "tests:\n  - name: t\n    x:\n      l0: &a0 [lol, lol]\n{}",
        levels.concat()
    );
    let error = SuiteFile::new("s.yaml", laughs).parse().unwrap_err();
    let problem = error.problems().next().unwrap();
    assert_eq!(
        problem.code, "trailgate::suite::alias_expansion",
        "{problem:?}"
    );
    assert_eq!(
        problem.message,
        "the suite's YAML aliases expand it past 1000000 nodes"
    );
}

/// The node budget grows with the file (`node_budget`), on the ground that no document
/// holds more nodes than bytes without aliases: the densest forms, checked here at a
/// budget of their own length, never pass it, so a suite within the size limit that uses
/// no alias always loads (an 80,000-test suite of 10 MB was refused as an alias bomb).
#[rstest]
#[case::flow_list(format!("[{}]", vec!["a"; 5000].join(",")))]
#[case::empty_flow_items(format!("[{}]", vec![""; 5000].join(",")))]
#[case::block_list("- \n".repeat(5000))]
#[case::flow_maps(format!("[{}]", vec!["{a: }"; 5000].join(",")))]
#[case::nested_lists(format!("{}{}", "[".repeat(100), "]".repeat(100)))]
fn no_document_without_aliases_has_more_nodes_than_bytes(#[case] text: String) {
    assert!(!crate::suite_file::expands_past(&text, text.len()));
    assert_eq!(
        crate::suite_file::node_budget(text.len()),
        crate::MAX_YAML_NODES
    );
    assert_eq!(crate::suite_file::node_budget(16 << 20), 16 << 20);
}

#[test]
fn aliases_within_the_limit_are_read() {
    let test = parse_one(
        "tests:\n  - name: t\n    equal_function_sets:\n      classes:\n        - name: a\n          members: &m [x, y]\n        - name: b\n          members: *m\n",
    );
    let classes = &test.graders.equal_function_sets.unwrap().classes;
    assert_eq!(classes.classes()[1].members, classes.classes()[0].members);
}

#[rstest]
#[case::huge_repetition(r"\w{1000}", Some("trailgate::suite::regex_too_big"))]
#[case::nested_repetition(r"((a{1000}){1000}){1000}", Some("trailgate::suite::regex_too_big"))]
#[case::bounded_unicode_word(r"^\w{1,64}$", None)]
#[case::ascii_repetition(r"[a-z]{1000}", None)]
#[case::deep_groups(&format!("{}a{}", "(".repeat(300), ")".repeat(300)), Some("trailgate::suite::invalid_regex"))]
#[case::longer_than_a_pattern_may_be(&"a".repeat(trailgate_trace::MAX_REGEX_PATTERN_BYTES + 1), Some("trailgate::suite::invalid_regex"))]
fn suite_regexes_compile_within_the_limit(#[case] pattern: &str, #[case] code: Option<&str>) {
    let text = format!(
        "tests:\n  - name: t\n    graders:\n      - type: tool-calls\n        config:\n          required:\n            - name: '{pattern}'\n"
    );
    let result = SuiteFile::new("suite.yaml", text).parse();
    let got = result.err().map(|error| {
        let problem = error.problems().next().unwrap();
        assert!(problem.message.len() < 200, "{}", problem.message);
        problem.code
    });
    assert_eq!(got, code);
}

fn brackets(n: usize) -> String {
    "[".repeat(n)
}

#[rstest]
#[case::flow_past_the_limit(format!("x: {}", brackets(129)), Some(3 + 128))]
#[case::flow_at_the_limit(format!("x: {}{}", brackets(128), "]".repeat(128)), None)]
#[case::closed_and_reopened(format!("x: [{}]\ny: [{}]", brackets(100).replace('[', "[]"), brackets(100).replace('[', "[]")), None)]
#[case::across_lines(format!("x:\n{}", "  [\n".repeat(129)), Some(3 + 128 * 4 + 2))]
#[case::anchored(format!("x: &a !!seq {}", brackets(129)), Some(12 + 128))]
#[case::sequence_item(format!("- - {}", brackets(129)), Some(4 + 128))]
#[case::double_quoted(format!("x: \"{}\\\"\"", brackets(200)), None)]
#[case::single_quoted(format!("x: 'it''s {}'", brackets(200)), None)]
#[case::multi_line_quoted(format!("x: \"a\n  {}\"", brackets(200)), None)]
#[case::comment(format!("x: 1 # {}", brackets(200)), None)]
#[case::plain_scalar(format!("name: a{}", brackets(200)), None)]
#[case::quote_inside_flow_plain(format!("x: [it's, {}", brackets(200)), Some(10 + 127))]
#[case::block_scalar(format!("help: |\n  {}\nnext: 1", brackets(200)), None)]
#[case::sequence_block_scalar(format!("- |\n  {}\n- 1", brackets(200)), None)]
#[case::after_block_scalar(format!("- help: >-\n    {}\n  b: {}", brackets(200), brackets(129)), Some(221 + 128))]
fn flow_nesting_is_found_before_the_parser_runs(
    #[case] text: String,
    #[case] offset: Option<usize>,
) {
    assert_eq!(crate::yaml_depth::too_deep(&text, 128), offset, "{text}");
}

#[test]
fn deep_flow_nesting_is_refused_with_its_own_error_at_once() {
    // 100,000 levels took the YAML reader half an hour to refuse.
    let text = format!("tests:\n  - name: t\n    x: {}\n", brackets(100_000));
    let error = SuiteFile::new("s.yaml", text).parse().unwrap_err();
    let problem = error.problems().next().unwrap();
    assert_eq!(problem.code, "trailgate::suite::too_deep");
    assert_eq!(problem.label, "level 129 starts here");
}

/// Nesting by indentation is left to the YAML reader, which reads it in linear time and
/// stops at its own recursion limit, at the node (docs/robustness.md, "Nesting of a suite").
#[test]
fn deep_nesting_by_indentation_meets_the_reader_s_recursion_limit() {
    let mut text = String::from(
        "tests:\n  - name: t\n    graders:\n      - type: tool-calls\n        config:\n          \
         required:\n            - name: f\n              args:\n",
    );
    for level in 0..200 {
        text.push_str(&" ".repeat(16 + 2 * level));
        text.push_str("a:\n");
    }
    let error = SuiteFile::new("s.yaml", text).parse().unwrap_err();
    let problem = error.problems().next().unwrap();
    assert!(
        problem.message.contains("recursion limit exceeded"),
        "{problem:?}"
    );
    assert!(problem.span.is_some(), "{problem:?}");
}

/// Runs of `brave.web_search http.get` (perfect) except at the 1-based positions in
/// `flawed`, which call `shell.exec` as well (an unexpected call: a finding).
fn runs_with_findings_at(count: usize, flawed: &[usize]) -> TestOutcome {
    let runs: Vec<&str> = (1..=count)
        .map(|n| {
            if flawed.contains(&n) {
                "brave.web_search http.get shell.exec"
            } else {
                "brave.web_search http.get"
            }
        })
        .collect();
    evaluate(
        "[{name: search, members: [brave.web_search]}, {name: fetch, members: [http.get]}]",
        "[]",
        &runs,
    )
}

fn listed_numbers(outcome: &TestOutcome) -> Vec<usize> {
    outcome.runs.iter().map(|run| run.number).collect()
}

#[rstest]
#[case::every_run_up_to_the_limit(crate::LISTED_RUNS, &[3], (1..=crate::LISTED_RUNS).collect())]
#[case::only_runs_with_findings_past_it(25, &[2, 5, 21, 24], vec![2, 5, 21, 24])]
#[case::none_when_every_run_is_perfect(25, &[], vec![])]
#[case::the_first_with_findings_up_to_the_limit(30, &(1..=30).collect::<Vec<_>>(), (1..=crate::LISTED_RUNS).collect())]
#[case::later_findings_fill_the_list(40, &(15..=40).collect::<Vec<_>>(), (15..15 + crate::LISTED_RUNS).collect())]
fn which_runs_are_listed(
    #[case] count: usize,
    #[case] flawed: &[usize],
    #[case] listed: Vec<usize>,
) {
    let outcome = runs_with_findings_at(count, flawed);
    assert_eq!(outcome.run_count, count);
    assert_eq!(outcome.runs_with_findings, flawed.len());
    assert_eq!(listed_numbers(&outcome), listed);
    let selection = outcome.graders.equal_function_sets.as_ref().unwrap();
    assert_eq!(
        selection.runs.len(),
        listed.len(),
        "one entry per listed run"
    );
    // The aggregate covers every run, listed or not.
    assert_eq!(selection.counts.false_positives, flawed.len() as u64);
    assert_eq!(selection.counts.true_positives, 2 * count as u64);
}

/// `add_giving_back` gives back exactly the runs the outcome does not keep, and folds
/// every run as `add` does.
#[rstest]
#[case::findings_past_the_first_runs(40, &[2, 5, 21, 24, 33])]
#[case::findings_past_the_limit(60, &(15..=60).collect::<Vec<_>>())]
#[case::no_findings(30, &[])]
fn runs_not_kept_are_given_back(#[case] count: usize, #[case] flawed: &[usize]) {
    let test = search_test();
    let mut adding = TestEvaluator::new(&test);
    let mut giving_back = TestEvaluator::new(&test);
    let mut given_back = Vec::new();
    for number in 1..=count {
        let (source, run) = search_run(number, flawed.contains(&number));
        adding.add_run(source.clone(), &run);
        let outcome = giving_back.grade(source, &run);
        if let Some(back) = giving_back.add_giving_back(outcome) {
            assert_eq!(back.info.number, number);
            given_back.push(number);
        }
    }
    let (added, folded) = (adding.finish().unwrap(), giving_back.finish().unwrap());
    let listed = listed_numbers(&folded);
    // A run given back is never listed; one kept is among the first runs (kept until the
    // list is known) or listed.
    for number in 1..=count {
        let back = given_back.contains(&number);
        let kept = number <= crate::LISTED_RUNS || listed.contains(&number);
        assert!(back != kept, "run {number}: given back {back}, kept {kept}");
    }
    assert_eq!(listed, listed_numbers(&added));
    assert_eq!(format!("{folded:?}"), format!("{added:?}"));
}

/// A test of one class, `search` (`brave.web_search`).
fn search_test() -> Test {
    parse_one(&yaml(&[
        "tests:",
        "  - name: t",
        "    equal_function_sets:",
        "      classes: [{name: search, members: [brave.web_search]}]",
    ]))
}

/// Line `number` of `traces/runs.jsonl` for [`search_test`]: a search, and with `finding`
/// an unexpected call as well.
fn search_run(number: usize, finding: bool) -> (RunSource, Run) {
    let calls = if finding {
        "brave.web_search shell.exec"
    } else {
        "brave.web_search"
    };
    let source = RunSource {
        file: "traces/runs.jsonl".to_owned(),
        line: Some(number),
        trace: None,
    };
    (source, run(calls))
}

#[test]
fn kept_runs_stay_bounded() {
    let test = search_test();
    let mut evaluator = TestEvaluator::new(&test);
    for number in 1..=10_000 {
        // Every third run has a finding (an unexpected call).
        let (source, run) = search_run(number, number % 3 == 0);
        evaluator.add_run(source, &run);
        assert!(evaluator.kept_runs() <= 2 * crate::LISTED_RUNS);
    }
    let outcome = evaluator.finish().unwrap();
    assert_eq!(outcome.run_count, 10_000);
    assert_eq!(outcome.runs_with_findings, 3_333);
    assert_eq!(outcome.runs.len(), crate::LISTED_RUNS);
    assert_eq!(outcome.runs[0].number, 3);
    assert_eq!(
        outcome
            .graders
            .equal_function_sets
            .unwrap()
            .counts
            .false_positives,
        3_333
    );
}

/// Runs of every flavour for a test with all four blocks: some perfect, most with findings.
fn flavoured_runs(count: usize) -> Vec<Run> {
    let flavours = [
        "brave.web_search http.get",
        "brave.web_search shell.exec http.get",
        "google.search google.search shell.exec",
        "http.get",
        "brave.web_search http.get brave.web_search shell.exec shell.exec",
    ];
    let text = |calls: &str| {
        let entries: Vec<String> = calls
            .split_whitespace()
            .enumerate()
            .map(|(index, id)| {
                let (server, name) = id.split_once('.').unwrap();
                format!(
                    r#"{{"server": "{server}", "name": "{name}", "args": {{"q": "{}"}}, "result": "r{index}"}}"#,
                    index % 2
                )
            })
            .collect();
        format!(r#"{{"tool_calls": [{}]}}"#, entries.join(", "))
    };
    (0..count)
        .map(|number| {
            let flavour = flavours[(number * 7 + number / 3) % flavours.len()];
            parse_run("run.json", &text(flavour), 1).unwrap()
        })
        .collect()
}

/// A run graded with only the counts adds up as the same run graded in full; the evaluator
/// asks for only the counts once no report can list the run, and a lower count of the runs
/// with findings before a run (another thread's view) only asks for more.
#[test]
fn runs_graded_for_their_counts_give_the_outcome_of_runs_graded_in_full() {
    let suite = yaml(&[
        "tests:",
        "  - name: t",
        "    equal_function_sets:",
        "      classes:",
        "        - {name: search, members: [brave.web_search, google.search]}",
        "        - {name: fetch, members: [http.get]}",
        "    graders:",
        "      - type: tool-calls",
        "        config:",
        "          required: [{name: \"^web_search$\", args: {q: \"1\"}}]",
        "          disallowed: [{name: \"^exec$\"}]",
        "          sequence: [{name: search}, {name: get}]",
        "      - type: tool-correctness",
        "        config:",
        "          expected_tools: [brave.web_search, http.get]",
        "      - type: call-accuracy",
        "        config:",
        "          expected:",
        "            - {tool: brave.web_search, args: {q: \"0\"}}",
        "            - {tool: http.get, args: {q: \"1\"}}",
    ]);
    let test = parse_one(&suite);
    let runs = flavoured_runs(200);
    let source = |number: usize| RunSource {
        file: "traces/runs.jsonl".to_owned(),
        line: Some(number),
        trace: None,
    };
    let mut full = TestEvaluator::new(&test);
    let mut by_evaluator = TestEvaluator::new(&test);
    let mut lagging = TestEvaluator::new(&test);
    let mut counts_only = 0;
    for (index, run) in runs.iter().enumerate() {
        let number = index + 1;
        full.add(crate::grade_run(&test, number, source(number), run));
        by_evaluator.add_run(source(number), run);
        // A thread that has seen only half of the runs with findings before this one.
        let seen = lagging.runs_with_findings() / 2;
        let detail = crate::Detail::for_run(number, seen);
        counts_only += usize::from(detail == crate::Detail::Counts);
        lagging.add(crate::grade_run_as(
            &test,
            number,
            source(number),
            run,
            detail,
        ));
    }
    assert!(counts_only > 100, "most runs were graded for their counts");
    let full = full.finish().unwrap();
    assert!(full.runs_with_findings > 2 * crate::LISTED_RUNS);
    assert_eq!(by_evaluator.finish().unwrap(), full);
    assert_eq!(lagging.finish().unwrap(), full);
}

/// The help for an unknown key in a grader's `config:` lists that kind's keys, the closest
/// first, whether its `type:` is written before `config:` or after it.
#[rstest]
#[case::type_first("{type: budget, config: {max_cals: 3}}")]
#[case::type_last("{config: {max_cals: 3}, type: budget}")]
#[case::type_last_quoted("{config: {max_cals: 3}, type: \"budget\"}")]
fn unknown_config_key_help_lists_its_kinds_keys(#[case] grader: &str) {
    let text = yaml(&[
        "tests:",
        "  - name: a",
        "    graders:",
        &format!("      - {grader}"),
    ]);
    let file = SuiteFile::new("suite.yaml", text);
    let Err(error) = file.parse() else {
        panic!("the suite should be rejected")
    };
    let problems: Vec<_> = error.problems().collect();
    assert_eq!(problems.len(), 1, "{problems:?}");
    let help = problems[0].help.as_deref().unwrap_or_default();
    assert!(
        help.starts_with("did you mean `max_calls`? valid keys here: `max_calls`, `max_steps`"),
        "{help}"
    );
    assert!(
        !help.contains("`required`") && !help.contains("`mode`"),
        "{help}"
    );
}

/// A metric that is a percent, as its number.
fn percent_of(value: MetricValue) -> u8 {
    value.percent().expect("a percent metric").value()
}
