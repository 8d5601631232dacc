//! The limits on a suite as a whole, measured by what its reading holds: the distinct
//! regexes it compiled and their memory, and the value-matcher nodes it counted.

use rstest::rstest;
use trailgate_trace::compile_meta_regex;

use super::{Limits, matcher_nodes, regex_totals, within};
use crate::SuiteFile;

/// A one-test suite whose `call-accuracy` grader expects a call of `f` with `args`, written
/// after `args:` (flow YAML), and whose `tool-calls` grader requires each of `names`.
fn suite(args: &str, names: &[&str]) -> String {
    let mut text = format!(
        "tests:\n  - name: t\n    graders:\n      - type: call-accuracy\n        config:\n          \
         expected:\n            - tool: f\n              args: {args}\n"
    );
    if !names.is_empty() {
        text.push_str("      - type: tool-calls\n        config:\n          required:\n");
        for name in names {
            text.push_str("            - name: '");
            text.push_str(name);
            text.push_str("'\n");
        }
    }
    text
}

/// The memory `patterns` hold once compiled, each once.
fn memory_of(patterns: &[&str]) -> usize {
    patterns
        .iter()
        .map(|pattern| compile_meta_regex(pattern).unwrap().memory_usage())
        .sum()
}

/// The distinct regexes a reading of `text` compiled and their memory, or the code and line
/// of the suite's first problem, with `limit` on the regexes' memory.
fn read(text: &str, limit: usize) -> Result<(usize, usize), (&'static str, usize)> {
    let limits = Limits {
        regex_bytes: limit,
        ..Limits::of_suite(text.len())
    };
    within(limits, || {
        let file = SuiteFile::new("suite.yaml", text.to_owned());
        match file.parse() {
            Ok(_) => Ok(regex_totals()),
            Err(error) => {
                let problem = error.problems().next().unwrap();
                Err((problem.code, problem.span.map_or(0, |s| file.line_of(s))))
            }
        }
    })
}

#[test]
fn aliased_and_repeated_regexes_are_compiled_once() {
    // 300 aliases of one `$regex` (the suite of issue 40, item 5, with a smaller count in
    // its class so the test stays quick in a debug build), the same pattern again as a
    // tool-name regex, and another tool-name regex written twice.
    let aliases = vec!["*w"; 299].join(", ");
    let text = suite(
        &format!("{{q: {{$any_of: [&w {{$regex: '\\w{{16}}'}}, {aliases}]}}}}"),
        &[r"\w{16}", "^f$", "^f$"],
    );
    assert_eq!(
        read(&text, super::MAX_SUITE_REGEX_BYTES),
        Ok((2, memory_of(&[r"\w{16}", "^f$"])))
    );
}

#[test]
fn a_naming_pattern_aliased_by_every_test_is_compiled_once() {
    let entry = |index: usize, naming: &str| {
        format!(
            "  - name: t{index}\n    naming: {naming}\n    graders:\n      - type: tool-calls\n        \
             config:\n          required: [{{name: x}}]\n"
        )
    };
    let pattern = r"^(?P<server>\w{8})_(?P<tool>.+)$";
    let mut text = "tests:\n".to_owned();
    text.push_str(&entry(
        0,
        &format!("&n {{scheme: regex, pattern: '{pattern}'}}"),
    ));
    for index in 1..100 {
        text.push_str(&entry(index, "*n"));
    }
    // The naming pattern, and the tool-name regex `x` (one for the 100 tests).
    assert_eq!(
        read(&text, super::MAX_SUITE_REGEX_BYTES),
        Ok((2, memory_of(&[pattern, "x"])))
    );
}

/// Distinct patterns of 49 KB each (`[a-z]{1000}` and a digit), under a limit of two and a
/// half of them: the third distinct one passes it, wherever it is written, and repeats of
/// the first two never do.
#[rstest]
#[case::two_distinct(suite("{q: {$regex: '[a-z]{1000}0'}}", &["[a-z]{1000}1"]), Ok(2))]
#[case::repeats_are_free(
    suite("{a: &r {$regex: '[a-z]{1000}0'}, b: *r, c: *r}", &["[a-z]{1000}1", "[a-z]{1000}0", "[a-z]{1000}1"]),
    Ok(2)
)]
#[case::the_third_distinct_passes(
    suite("{a: {$regex: '[a-z]{1000}0'}, b: {$regex: '[a-z]{1000}1'}}", &["[a-z]{1000}0", "[a-z]{1000}2"]),
    Err(("trailgate::suite::regexes_too_big", 13))
)]
#[case::in_a_server_regex(
    suite("{a: {$regex: '[a-z]{1000}0'}}", &["[a-z]{1000}1"]).replace("name: '[a-z]{1000}1'", "{name: '[a-z]{1000}1', server: '[a-z]{1000}2'}"),
    Err(("trailgate::suite::regexes_too_big", 12))
)]
fn the_suites_regexes_are_held_to_a_total(
    #[case] text: String,
    #[case] expected: Result<usize, (&str, usize)>,
) {
    let one = memory_of(&["[a-z]{1000}0"]);
    let got = read(&text, one * 5 / 2).map(|(count, bytes)| {
        assert_eq!(bytes, 2 * one, "{text}");
        count
    });
    assert_eq!(got, expected, "{text}");
}

#[test]
fn the_total_counts_what_a_compiled_regex_holds() {
    // The pattern of the issue holds megabytes; a tool name a few kilobytes; the limit is
    // many times the largest single regex's.
    let large = memory_of(&[r"\w{64}"]);
    assert!((3 << 20..4 << 20).contains(&large), "{large}");
    assert!(memory_of(&["^search$"]) < 4 << 10);
    assert_eq!(super::MAX_SUITE_REGEX_BYTES / large, 37);
}

#[test]
fn outside_a_reading_nothing_is_counted() {
    within(Limits::of_suite(0), || assert_eq!(regex_totals(), (0, 0)));
    assert_eq!(regex_totals(), (0, 0));
}

#[test]
fn a_naming_pattern_past_the_total_is_placed_at_the_pattern() {
    let naming = "^(?P<server>[a-z]{1000})_(?P<tool>.+)$";
    let text = suite("{q: {$regex: '[a-z]{1000}0'}}", &[]).replace(
        "    graders:",
        &format!("    naming: {{scheme: regex, pattern: '{naming}'}}\n    graders:"),
    );
    let both = memory_of(&["[a-z]{1000}0", naming]);
    assert_eq!(
        read(&text, both - 1),
        Err(("trailgate::suite::regexes_too_big", 3))
    );
    assert_eq!(read(&text, both), Ok((2, both)));
}

#[test]
fn a_schema_and_its_patterns_are_compiled_once_for_the_suite() {
    // 100 aliases of one `$schema`, and another schema with the same pattern under
    // `patternProperties`: one compiled schema each, one pattern counted, by the memory
    // of its translation into the `regex` crate's dialect.
    let aliases = vec!["*s"; 99].join(", ");
    let pattern = r"^\d{3}-\w+$";
    let text = suite(
        &format!(
            "{{a: {{$any_of: [&s {{$schema: {{type: string, pattern: '{pattern}'}}}}, {aliases}]}}, \
             b: {{$schema: {{patternProperties: {{'{pattern}': {{type: integer}}}}}}}}}}"
        ),
        &[],
    );
    let translated = jsonschema_regex::to_rust_regex(pattern).unwrap();
    assert_ne!(
        translated, pattern,
        "ECMA-262's `\\d` and `\\w` are ASCII classes"
    );
    let expected = (1, memory_of(&[&translated]));
    within(Limits::of_suite(0), || {
        assert_eq!(read(&text, super::MAX_SUITE_REGEX_BYTES), Ok(expected));
        assert_eq!(super::compiled_schemas(), 2);
    });
}

#[test]
fn schema_patterns_count_in_the_suites_total() {
    let one = memory_of(&["[a-z]{1000}0"]);
    let text = suite(
        "{a: {$regex: '[a-z]{1000}0'}, b: {$schema: {items: {pattern: '[a-z]{1000}1'}}}}",
        &[],
    );
    assert_eq!(
        read(&text, one * 3 / 2),
        Err(("trailgate::suite::regexes_too_big", 8))
    );
    assert_eq!(read(&text, one * 5 / 2).map(|(count, _)| count), Ok(2));
}

/// The matcher nodes a reading of `text` counted with `limit` on them, or the codes and
/// lines of the suite's problems.
fn nodes(text: &str, limit: usize) -> Result<usize, Vec<(&'static str, usize)>> {
    let limits = Limits {
        matcher_nodes: limit,
        ..Limits::of_suite(text.len())
    };
    within(limits, || {
        let file = SuiteFile::new("suite.yaml", text.to_owned());
        match file.parse() {
            Ok(_) => Ok(matcher_nodes()),
            Err(error) => Err(error
                .problems()
                .map(|problem| (problem.code, problem.span.map_or(0, |s| file.line_of(s))))
                .collect()),
        }
    })
}

#[rstest]
#[case::a_literal("{q: [1, {a: b}]}", 0)]
#[case::an_operator("{q: {$gte: 1}}", 2)]
#[case::literal_parts_count_one_each("{q: [1, [2, 3], {$gt: 0}]}", 5)]
#[case::operators_in_operators("{q: {$any_of: [a, b, {$not: {$regex: x}}]}}", 6)]
#[case::aliases_are_counted_as_copies("{a: &m {$any_of: [x, y]}, b: *m, c: *m}", 10)]
#[case::a_schema_counts_its_nodes("{q: {$schema: {type: string, enum: [a, b]}}}", 7)]
#[case::a_big_literal_counts_one("{q: {$contains: [1, 2, 3, 4, 5, 6, 7, 8, 9]}}", 3)]
fn matcher_nodes_are_counted_as_expanded(#[case] args: &str, #[case] expected: usize) {
    assert_eq!(nodes(&suite(args, &[]), usize::MAX), Ok(expected), "{args}");
}

/// The suite of issue 40, item 6, as far as its count: an `$any_of` of 20 aliases of an
/// `$any_of` of 20 aliases of an `$any_of` of 100 `$contains` (40,000 of them, each matched
/// against every element of the value it meets), from 2 KB of YAML.
fn contains_tree(top: usize) -> String {
    let level = |anchor: &str, part: &str, alias: &str, count: usize| {
        let mut parts = vec![alias; count];
        parts[0] = part;
        format!("&{anchor} {{$any_of: [{}]}}", parts.join(", "))
    };
    // Written out, as the issue's were: an alias of each would make the YAML reader's own
    // limit on following aliases (100 times the document's size) stop it first.
    let inner = level("a0", "{$contains: x}", "{$contains: x}", 100);
    let middle = level("a1", &inner, "*a0", 20);
    level("a2", &middle, "*a1", top)
}

#[rstest]
// Each `$contains` counts 2 (itself and its literal), each inner `$any_of` 1 + 100 × 2, each
// middle one 1 + 20 × 201, the top one 1 + its parts, and the `args` object 1.
#[case::within_the_limit(1, Ok(1 + (1 + 20 * 201) + 1))]
#[case::the_issue(20, Err(vec![("trailgate::suite::matchers_too_large", 8)]))]
fn an_aliased_tree_of_matchers_is_refused_past_the_limit(
    #[case] top: usize,
    #[case] expected: Result<usize, Vec<(&str, usize)>>,
) {
    let text = suite(&format!("{{q: {}}}", contains_tree(top)), &[]);
    assert!(text.len() < 2200, "{}", text.len());
    let limit = Limits::of_suite(text.len()).matcher_nodes;
    assert_eq!(limit, super::MAX_MATCHER_NODES);
    assert_eq!(nodes(&text, limit), expected);
}

#[test]
fn the_limit_is_met_by_the_matcher_that_passes_it_and_reported_once() {
    // Two tests whose matchers hold 10 nodes each (`{q: {$any_of: [...8 literals]}}`). At
    // a limit of 19 the second test's matcher passes it; at 9 the first's does, and the
    // reading that then reads on past that error (without the first test's grader) would
    // count the second's 10 past it again: the limit is reported once, at the first.
    let args = "{q: {$any_of: [a, b, c, d, e, f, g, h]}}";
    let one = suite(args, &[]);
    let two = format!(
        "{one}{}",
        one.replace("tests:\n", "").replace("name: t", "name: u")
    );
    assert_eq!(nodes(&two, 20), Ok(20));
    assert_eq!(
        nodes(&two, 19),
        Err(vec![("trailgate::suite::matchers_too_large", 15)])
    );
    assert_eq!(
        nodes(&two, 9),
        Err(vec![("trailgate::suite::matchers_too_large", 8)])
    );
}

/// A suite without aliases holds fewer matcher nodes than bytes, so the limit (at least one
/// per byte) never refuses one: the densest forms, at a limit of their own length.
#[rstest]
#[case::literal_parts(format!("{{q: {{$any_of: [{}]}}}}", vec!["a"; 5000].join(",")))]
#[case::empty_literal_parts(format!("{{q: {{$any_of: [{}]}}}}", vec!["[]"; 5000].join(",")))]
#[case::schema_nodes(format!("{{q: {{$schema: {{enum: [{}]}}}}}}", vec!["1"; 5000].join(",")))]
#[case::operators(format!("{{q: [{}]}}", vec!["{$not: a}"; 2000].join(",")))]
fn no_suite_without_aliases_passes_the_limit(#[case] args: String) {
    let text = suite(&args, &[]);
    let counted = nodes(&text, text.len()).unwrap();
    assert!(
        counted > 2000 && counted < text.len(),
        "{counted} of {}",
        text.len()
    );
    assert_eq!(Limits::of_suite(20 << 10).matcher_nodes, 20 << 10);
}
