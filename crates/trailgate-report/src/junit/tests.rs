//! Unit tests of the JUnit XML report, over the outcome of a small suite with every kind of
//! block: the XML is read back with `roxmltree` and checked for content, for the absence of
//! clock values, for stable bytes, and against the rules of the JUnit schema.

use roxmltree::{Document, Node};
use rstest::rstest;
use trailgate_expect::SuiteOutcome;

use crate::render_junit;
use crate::testing::{call, evaluate};

/// The suite file's path as a user would give it.
const SUITE_NAME: &str = "suites/agent.yaml";

/// One test per kind of block, each failing over [`MIXED`], then one that always passes.
const SUITE: &str = r#"tests:
  - name: picks search then fetch
    equal_function_sets:
      classes:
        - name: search
          members: [brave.web_search]
        - name: fetch
          members: [fetch_page]
      expect:
        - tool_selection.f1: { ">=": 80 }
  - name: runs the tests
    graders:
      - type: tool-calls
        config:
          required:
            - name: "^bash$"
              command: "npm test"
          disallowed:
            - "^exec$"
          sequence:
            - "web_search$"
            - "^fetch_page$"
  - name: uses the expected tools
    graders:
      - type: tool-correctness
        config:
          expected_tools: [brave.web_search, fetch_page]
          threshold: 1
  - name: books with the right arguments
    graders:
      - type: call-accuracy
        config:
          expected:
            - tool: http.get
              args: { url: "https://a.example" }
            - tool: book
              args: { id: 17 }
  - name: searches
    equal_function_sets:
      classes:
        - name: search
          members: [brave.web_search]
      expect:
        - tool_selection.recall: { ">=": 100 }
"#;

/// The names of [`SUITE`]'s tests, in suite order.
const TEST_NAMES: &[&str] = &[
    "picks search then fetch",
    "runs the tests",
    "uses the expected tools",
    "books with the right arguments",
    "searches",
];

/// Run 1 misses `fetch_page`, calls `shell.exec`, lints instead of testing and fetches the
/// wrong URL; run 2 does everything but `book`. Only the last test passes.
const MIXED: &[&[&str]] = &[
    &[
        "brave.web_search",
        "shell.exec",
        r#"bash{"command":"npm run lint"}"#,
        r#"http.get{"url":"https://b.example"}"#,
    ],
    &[
        "brave.web_search",
        "fetch_page",
        r#"http.get{"url":"https://a.example"}"#,
        r#"bash{"command":"npm test"}"#,
    ],
];

/// Every gate holds but call-accuracy's.
/// One run that only searches.
const SEARCH_ONLY: &[&[&str]] = &[&["brave.web_search"]];

const CLEAN: &[&[&str]] = &[&[
    "brave.web_search",
    "fetch_page",
    r#"bash{"command":"npm test"}"#,
]];

/// The outcome of [`SUITE`] with every test scored over `runs`.
fn outcome(runs: &[&[&str]]) -> SuiteOutcome {
    evaluate(SUITE_NAME, SUITE, |_| {
        runs.iter()
            .map(|run| run.iter().map(|spec| call(spec)).collect())
            .collect()
    })
}

fn render(outcome: &SuiteOutcome, suite_name: &str) -> String {
    let mut out = Vec::new();
    render_junit(outcome, suite_name, &mut out).expect("writing to a Vec");
    String::from_utf8(out).expect("UTF-8")
}

fn xml(runs: &[&[&str]]) -> String {
    render(&outcome(runs), SUITE_NAME)
}

fn parse(xml: &str) -> Document<'_> {
    Document::parse(xml).unwrap_or_else(|e| panic!("the XML does not parse: {e}\n{xml}"))
}

fn elements<'a, 'input>(node: Node<'a, 'input>, tag: &str) -> Vec<Node<'a, 'input>> {
    node.children()
        .filter(|n| n.is_element() && n.tag_name().name() == tag)
        .collect()
}

#[track_caller]
fn testcase<'a, 'input>(doc: &'a Document<'input>, name: &str) -> Node<'a, 'input> {
    doc.descendants()
        .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some(name))
        .unwrap_or_else(|| panic!("no testcase `{name}`"))
}

/// The `<failure>` of a test, if it has one; more than one fails the test.
#[track_caller]
fn failure<'a, 'input>(doc: &'a Document<'input>, name: &str) -> Option<Node<'a, 'input>> {
    let failures = elements(testcase(doc, name), "failure");
    assert!(
        failures.len() <= 1,
        "`{name}` has {} failures",
        failures.len()
    );
    failures.into_iter().next()
}

// ---------------------------------------------------------------------------------------
// The document's shape and content.

#[track_caller]
fn check_testcases(runs: &[&[&str]]) {
    let xml = xml(runs);
    let doc = parse(&xml);
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    assert_eq!(root.attribute("name"), Some("trailgate"));
    let suites = elements(root, "testsuite");
    assert_eq!(suites.len(), 1, "one testsuite");
    assert_eq!(suites[0].attribute("name"), Some(SUITE_NAME));
    let cases = elements(suites[0], "testcase");
    let names: Vec<_> = cases.iter().filter_map(|c| c.attribute("name")).collect();
    assert_eq!(names, TEST_NAMES, "one testcase per test, in suite order");
    for case in cases {
        assert_eq!(case.attribute("classname"), Some(SUITE_NAME));
    }
}

#[rstest]
#[case::mixed(MIXED)]
#[case::clean(CLEAN)]
fn testcases(#[case] runs: &[&[&str]]) {
    check_testcases(runs);
}

/// The counts on `<testsuites>` and `<testsuite>`: tests, failures, errors.
#[track_caller]
fn check_counts(runs: &[&[&str]], expected: [&str; 3]) {
    let xml = xml(runs);
    let doc = parse(&xml);
    let root = doc.root_element();
    for element in [root, elements(root, "testsuite")[0]] {
        let found = ["tests", "failures", "errors"].map(|a| element.attribute(a).unwrap_or(""));
        assert_eq!(found, expected, "on <{}>", element.tag_name().name());
    }
}

#[rstest]
#[case::mixed(MIXED, ["5", "4", "0"])]
#[case::clean(CLEAN, ["5", "1", "0"])]
fn counts(#[case] runs: &[&[&str]], #[case] expected: [&str; 3]) {
    check_counts(runs, expected);
}

/// A failed test has one `<failure>` with this message; a passed test has none.
#[track_caller]
fn check_failure_message(runs: &[&[&str]], test: &str, expected: Option<&str>) {
    let xml = xml(runs);
    let doc = parse(&xml);
    let found = failure(&doc, test).map(|f| f.attribute("message").unwrap_or(""));
    assert_eq!(found, expected, "{xml}");
}

#[rstest]
#[case::selection(
    MIXED,
    "picks search then fetch",
    Some("tool_selection.f1 >= 80 (actual 50)")
)]
#[case::tool_calls(
    MIXED,
    "runs the tests",
    Some("tool_calls.pass_rate >= 100 (actual 50)")
)]
#[case::tool_correctness(
    MIXED,
    "uses the expected tools",
    Some("tool_correctness.score >= 100 (actual 75)")
)]
#[case::call_accuracy(
    MIXED,
    "books with the right arguments",
    Some("call_accuracy.f1 >= 50 (actual 16)")
)]
#[case::passed(MIXED, "searches", None)]
#[case::clean_selection(CLEAN, "picks search then fetch", None)]
#[case::clean_tool_calls(CLEAN, "runs the tests", None)]
#[case::clean_tool_correctness(CLEAN, "uses the expected tools", None)]
#[case::clean_call_accuracy(
    CLEAN,
    "books with the right arguments",
    Some("call_accuracy.f1 >= 50 (actual 0)")
)]
fn failure_messages(#[case] runs: &[&[&str]], #[case] test: &str, #[case] expected: Option<&str>) {
    check_failure_message(runs, test, expected);
}

/// The failure text of a test holds each of `expected` as a whole line.
#[track_caller]
fn check_failure_text(runs: &[&[&str]], test: &str, expected: &[&str]) {
    let xml = xml(runs);
    let doc = parse(&xml);
    let explanation = failure(&doc, test)
        .and_then(|f| f.text())
        .unwrap_or_else(|| panic!("`{test}` has no failure text"));
    for line in expected {
        assert!(
            explanation.lines().any(|l| l == *line),
            "no line `{line}` in:\n{explanation}"
        );
    }
}

#[rstest]
#[case::failed_gate_with_its_line(MIXED, "picks search then fetch", &[
    "line 10: tool_selection.f1 >= 80 (actual 50)",
])]
#[case::missed_class_and_unexpected_call(MIXED, "picks search then fetch", &[
    "equal_function_sets:",
    "  run 1 (traces/run1.json): missed fetch; unexpected shell.exec (call 2), bash (call 3), http.get (call 4)",
    "  run 2 (traces/run2.json): unexpected http.get (call 3), bash (call 4)",
])]
#[case::default_gate_at_its_block(MIXED, "runs the tests", &[
    "line 14: tool_calls.pass_rate >= 100 (actual 50)",
])]
#[case::tool_calls_run(MIXED, "runs the tests", &[
    "tool-calls:",
    "  run 1 (traces/run1.json): unmet required `^bash$` with command `npm test`: no matching call \
     (call 3 `bash` has command `npm run lint`); broken disallowed `^exec$`: call 2 `shell.exec`; \
     sequence stopped at entry 2 `^fetch_page$`: no call after the match of entry 1 matches it",
])]
#[case::tool_correctness_run(MIXED, "uses the expected tools", &[
    "tool-correctness:",
    "  run 1 (traces/run1.json): missed fetch_page",
])]
#[case::call_accuracy_runs(MIXED, "books with the right arguments", &[
    "call-accuracy:",
    r#"  run 1 (traces/run1.json): incorrect http.get {"url":"https://a.example"}: call 4 has {"url":"https://b.example"} (differs in url; url: expected "https://a.example", found "https://b.example"); missed book {"id":17}; extra brave.web_search (call 1), shell.exec (call 2), bash (call 3)"#,
    r#"  run 2 (traces/run2.json): missed book {"id":17}; extra brave.web_search (call 1), fetch_page (call 2), bash (call 4)"#,
])]
#[case::missed_calls_in_one_fact_as_the_other_graders_list_theirs(SEARCH_ONLY, "books with the right arguments", &[
    r#"  run 1 (traces/run1.json): missed http.get {"url":"https://a.example"}, book {"id":17}; extra brave.web_search (call 1)"#,
])]
fn failure_texts(#[case] runs: &[&[&str]], #[case] test: &str, #[case] expected: &[&str]) {
    check_failure_text(runs, test, expected);
}

/// Only a block with a failed gate explains itself, and only its runs with something wrong.
#[track_caller]
fn check_failure_text_lacks(runs: &[&[&str]], test: &str, absent: &str) {
    let xml = xml(runs);
    let doc = parse(&xml);
    let explanation = failure(&doc, test).and_then(|f| f.text()).unwrap_or("");
    assert!(
        !explanation.contains(absent),
        "`{absent}` in:\n{explanation}"
    );
}

#[rstest]
#[case::passed_run_of_tool_calls(MIXED, "runs the tests", "run 2")]
#[case::passed_run_of_tool_correctness(MIXED, "uses the expected tools", "run 2")]
#[case::passed_gates(MIXED, "picks search then fetch", "tool_selection.recall")]
fn failure_text_omits(#[case] runs: &[&[&str]], #[case] test: &str, #[case] absent: &str) {
    check_failure_text_lacks(runs, test, absent);
}

/// Every metric of a test is a property of its testcase, passed or failed.
#[track_caller]
fn check_properties(runs: &[&[&str]], test: &str, expected: &[(&str, &str)]) {
    let xml = xml(runs);
    let doc = parse(&xml);
    let properties = elements(testcase(&doc, test), "properties");
    assert_eq!(properties.len(), 1, "one <properties>");
    let found: Vec<(&str, &str)> = elements(properties[0], "property")
        .iter()
        .map(|p| {
            (
                p.attribute("name").unwrap_or(""),
                p.attribute("value").unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(found, expected);
}

#[rstest]
#[case::selection(MIXED, "picks search then fetch", &[
    ("tool_selection.precision", "37"),
    ("tool_selection.recall", "75"),
    ("tool_selection.f1", "50"),
    ("runs", "2"),
    ("runs.passed", "0"),
    ("stability", "failing"),
])]
#[case::tool_calls(MIXED, "runs the tests", &[
    ("tool_calls.pass_rate", "50"),
    ("runs", "2"),
    ("runs.passed", "1"),
    ("stability", "flaky"),
])]
#[case::tool_correctness(MIXED, "uses the expected tools", &[
    ("tool_correctness.score", "75"),
    ("runs", "2"),
    ("runs.passed", "1"),
    ("stability", "flaky"),
])]
#[case::call_accuracy(MIXED, "books with the right arguments", &[
    ("call_accuracy.precision", "12"),
    ("call_accuracy.recall", "25"),
    ("call_accuracy.f1", "16"),
    ("call_accuracy.arguments", "25"),
    ("runs", "2"),
    ("runs.passed", "0"),
    ("stability", "failing"),
])]
#[case::passed(CLEAN, "searches", &[
    ("tool_selection.precision", "33"),
    ("tool_selection.recall", "100"),
    ("tool_selection.f1", "50"),
])]
fn properties(#[case] runs: &[&[&str]], #[case] test: &str, #[case] expected: &[(&str, &str)]) {
    check_properties(runs, test, expected);
}

/// Names with XML's special characters come back as they went in.
#[track_caller]
fn check_escaped(suite_name: &str) {
    let xml = render(&outcome(MIXED), suite_name);
    let doc = parse(&xml);
    let suite = elements(doc.root_element(), "testsuite")[0];
    assert_eq!(suite.attribute("name"), Some(suite_name));
    for case in elements(suite, "testcase") {
        assert_eq!(case.attribute("classname"), Some(suite_name));
    }
}

#[rstest]
#[case::markup(r#"suites/<a> & "b".yaml"#)]
#[case::apostrophe("suites/agent's.yaml")]
#[case::non_ascii("suites/エージェント.yaml")]
fn escaped(#[case] suite_name: &str) {
    check_escaped(suite_name);
}

// ---------------------------------------------------------------------------------------
// Determinism.

/// No element carries a time or a timestamp.
#[track_caller]
fn check_no_clock(runs: &[&[&str]]) {
    let xml = xml(runs);
    let doc = parse(&xml);
    for node in doc.descendants().filter(Node::is_element) {
        for attribute in node.attributes() {
            assert!(
                !matches!(attribute.name(), "time" | "timestamp"),
                "<{}> has `{}`",
                node.tag_name().name(),
                attribute.name()
            );
        }
    }
    assert!(!xml.contains("time="), "{xml}");
}

#[rstest]
#[case::mixed(MIXED)]
#[case::clean(CLEAN)]
fn no_clock(#[case] runs: &[&[&str]]) {
    check_no_clock(runs);
}

/// The same outcome gives the same bytes, whether rendered twice or rebuilt from scratch.
#[track_caller]
fn check_stable(runs: &[&[&str]]) {
    let first = outcome(runs);
    let bytes = render(&first, SUITE_NAME);
    assert_eq!(render(&first, SUITE_NAME), bytes, "rendered twice");
    assert_eq!(render(&outcome(runs), SUITE_NAME), bytes, "rebuilt");
}

#[rstest]
#[case::mixed(MIXED)]
#[case::clean(CLEAN)]
fn stable(#[case] runs: &[&[&str]]) {
    check_stable(runs);
}

#[test]
fn declaration_and_trailing_newline() {
    let xml = xml(MIXED);
    assert!(
        xml.starts_with(r#"<?xml version="1.0" encoding="UTF-8"?>"#),
        "{xml}"
    );
    assert!(xml.ends_with('\n'), "ends with a newline");
    assert!(!xml.ends_with("\n\n"), "ends with one newline");
}

// ---------------------------------------------------------------------------------------
// The JUnit schema.
//
// JUnit XML has no official schema. The one that readers hold files to is Jenkins' (the
// xunit plugin's `junit-10.xsd`, which GitLab's and GitHub's reporters also accept), and no
// well-kept pure-Rust crate validates XSD: `libxml` binds the C library through bindgen.
// So its rules are written out here, as a table, and checked element by element. The table
// is stricter than the schema where trailgate promises more (`classname`, a failure's
// `message`, the counts), and departs from it in two places, each marked below.

/// What one element may hold.
struct Rule {
    element: &'static str,
    required: &'static [&'static str],
    optional: &'static [&'static str],
    children: &'static [&'static str],
    text: bool,
}

/// Elements the schema defines and trailgate does not write (`rerunFailure`, `flakyError`,
/// ...) are absent, so that one showing up is a problem.
const RULES: &[Rule] = &[
    Rule {
        element: "testsuites",
        required: &["name", "tests", "failures", "errors"],
        // `skipped` is not in `junit-10.xsd`, but quick-junit always writes it, as Maven
        // Surefire and pytest do; Jenkins' junit plugin reads the testsuites and ignores it.
        optional: &["time", "disabled", "skipped"],
        children: &["testsuite"],
        text: false,
    },
    Rule {
        element: "testsuite",
        required: &["name", "tests", "failures", "errors"],
        optional: &[
            "assertions",
            "disabled",
            "file",
            "group",
            "hostname",
            "id",
            "log",
            "package",
            "skip",
            "skipped",
            "skips",
            "time",
            "timestamp",
            "url",
        ],
        children: &[
            "testsuite",
            "properties",
            "testcase",
            "system-out",
            "system-err",
        ],
        text: false,
    },
    Rule {
        element: "properties",
        required: &[],
        optional: &[],
        children: &["property"],
        text: false,
    },
    Rule {
        element: "property",
        required: &["name", "value"],
        optional: &[],
        children: &[],
        text: false,
    },
    Rule {
        element: "testcase",
        required: &["name", "classname"],
        optional: &[
            "assertions",
            "class",
            "file",
            "group",
            "line",
            "log",
            "status",
            "time",
            "timestamp",
            "url",
        ],
        // `properties` in a testcase is not in `junit-10.xsd`; Jenkins' junit plugin reads
        // it (and shows it beside the output), as do pytest, Playwright and jest-junit.
        children: &[
            "properties",
            "skipped",
            "error",
            "failure",
            "system-out",
            "system-err",
        ],
        text: false,
    },
    Rule {
        element: "failure",
        required: &["message"],
        optional: &["type"],
        children: &[],
        text: true,
    },
    Rule {
        element: "error",
        required: &["message"],
        optional: &["type"],
        children: &[],
        text: true,
    },
    Rule {
        element: "skipped",
        required: &[],
        optional: &["message", "type"],
        children: &[],
        text: true,
    },
    Rule {
        element: "system-out",
        required: &[],
        optional: &[],
        children: &[],
        text: true,
    },
    Rule {
        element: "system-err",
        required: &[],
        optional: &[],
        children: &[],
        text: true,
    },
];

/// Every way `xml` breaks the rules, in document order.
fn schema_problems(xml: &str) -> Vec<String> {
    let doc = match Document::parse(xml) {
        Ok(doc) => doc,
        Err(e) => return vec![format!("not XML: {e}")],
    };
    let mut problems = Vec::new();
    let root = doc.root_element();
    if root.tag_name().name() != "testsuites" {
        problems.push(format!("root is <{}>", root.tag_name().name()));
    }
    for node in doc.descendants().filter(Node::is_element) {
        let name = node.tag_name().name();
        let Some(rule) = RULES.iter().find(|r| r.element == name) else {
            problems.push(format!("<{name}> is not a JUnit element"));
            continue;
        };
        if node.tag_name().namespace().is_some() {
            problems.push(format!("<{name}> has a namespace"));
        }
        for required in rule.required {
            if node.attribute(*required).is_none() {
                problems.push(format!("<{name}> lacks `{required}`"));
            }
        }
        for attribute in node.attributes() {
            let key = attribute.name();
            if !rule.required.contains(&key) && !rule.optional.contains(&key) {
                problems.push(format!("<{name}> has `{key}`"));
            }
        }
        for child in node.children() {
            if child.is_element() {
                let child_name = child.tag_name().name();
                if !rule.children.contains(&child_name) {
                    problems.push(format!("<{name}> holds <{child_name}>"));
                }
            } else if child.is_text() && !rule.text && !child.text().unwrap_or("").trim().is_empty()
            {
                problems.push(format!("<{name}> holds text"));
            }
        }
        if name == "testcase" {
            let statuses = ["failure", "error", "skipped"]
                .iter()
                .map(|status| elements(node, status).len())
                .sum::<usize>();
            if statuses > 1 {
                problems.push(format!("<testcase> has {statuses} statuses"));
            }
            if elements(node, "properties").len() > 1 {
                problems.push("<testcase> has more than one <properties>".to_owned());
            }
        }
        if matches!(name, "testsuites" | "testsuite") {
            count_problems(node, &mut problems);
        }
    }
    problems
}

/// The counts of a `<testsuites>` or `<testsuite>` must be whole numbers that match its
/// testcases.
fn count_problems(node: Node<'_, '_>, problems: &mut Vec<String>) {
    let name = node.tag_name().name();
    let cases: Vec<Node<'_, '_>> = node
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    let with = |status: &str| {
        cases
            .iter()
            .filter(|c| !elements(**c, status).is_empty())
            .count()
    };
    for (attribute, expected) in [
        ("tests", cases.len()),
        ("failures", with("failure")),
        ("errors", with("error")),
        ("skipped", with("skipped")),
    ] {
        let Some(value) = node.attribute(attribute) else {
            continue;
        };
        match value.parse::<usize>() {
            Ok(found) if found == expected => {}
            Ok(found) => problems.push(format!(
                "<{name}> says {attribute}=\"{found}\", holds {expected}"
            )),
            Err(_) => problems.push(format!("<{name}> has {attribute}=\"{value}\"")),
        }
    }
}

#[track_caller]
fn check_schema(xml: &str) {
    let problems = schema_problems(xml);
    assert!(problems.is_empty(), "{problems:#?}\n{xml}");
}

#[rstest]
#[case::mixed(MIXED)]
#[case::clean(CLEAN)]
#[case::no_runs(&[])]
fn schema(#[case] runs: &[&[&str]]) {
    check_schema(&xml(runs));
}

#[test]
fn schema_of_a_suite_without_tests() {
    check_schema(&render(
        &SuiteOutcome {
            tests: Vec::new(),
            notes: Vec::new(),
        },
        SUITE_NAME,
    ));
}

/// The checker itself: each broken document is caught, with this problem.
#[track_caller]
fn check_schema_rejects(body: &str, expected: &str) {
    let xml = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="trailgate" tests="1" failures="0" errors="0">
    <testsuite name="s" tests="1" failures="0" errors="0">
        {body}
    </testsuite>
</testsuites>
"#
    );
    let problems = schema_problems(&xml);
    assert!(
        problems.iter().any(|p| p == expected),
        "`{expected}` not in {problems:#?}"
    );
}

#[rstest]
#[case::unknown_element(
    r#"<testcase name="t" classname="s"><bogus/></testcase>"#,
    "<bogus> is not a JUnit element"
)]
#[case::misplaced_element(
    r#"<testcase name="t" classname="s"><property name="a" value="1"/></testcase>"#,
    "<testcase> holds <property>"
)]
#[case::unknown_attribute(
    r#"<testcase name="t" classname="s" duration="1"/>"#,
    "<testcase> has `duration`"
)]
#[case::no_classname(r#"<testcase name="t"/>"#, "<testcase> lacks `classname`")]
#[case::failure_without_message(
    r#"<testcase name="t" classname="s"><failure>why</failure></testcase>"#,
    "<failure> lacks `message`"
)]
#[case::two_failures(
    r#"<testcase name="t" classname="s"><failure message="a"/><failure message="b"/></testcase>"#,
    "<testcase> has 2 statuses"
)]
#[case::text_in_testcase(
    r#"<testcase name="t" classname="s">why</testcase>"#,
    "<testcase> holds text"
)]
#[case::wrong_count(
    r#"<testcase name="t" classname="s"/><testcase name="u" classname="s"/>"#,
    "<testsuite> says tests=\"1\", holds 2"
)]
fn schema_rejects(#[case] body: &str, #[case] expected: &str) {
    check_schema_rejects(body, expected);
}

#[test]
fn schema_rejects_another_root() {
    let problems = schema_problems(r#"<testsuite name="s" tests="0" failures="0" errors="0"/>"#);
    assert!(
        problems.iter().any(|p| p == "root is <testsuite>"),
        "{problems:#?}"
    );
}
