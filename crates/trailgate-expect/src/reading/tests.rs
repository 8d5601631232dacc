//! The limits on a suite as a whole, measured by what its reading holds: the distinct
//! regexes it compiled and their memory.

use rstest::rstest;
use trailgate_trace::compile_meta_regex;

use super::{regex_totals, within, within_limit};
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
/// of the suite's first problem.
fn read(text: &str, limit: usize) -> Result<(usize, usize), (&'static str, usize)> {
    within_limit(limit, || {
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
    within(|| assert_eq!(regex_totals(), (0, 0)));
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
    within(|| {
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
