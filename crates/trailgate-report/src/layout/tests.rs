//! The report's layout: the skeleton pretty-printed, each entry of a test's lists on one line.

use serde_json::{Value, json};

use super::{RawJson, write_report};

/// `value`'s keys are sorted (a `Value`'s map), so `expected` writes them in that order.
#[track_caller]
fn check(value: &Value, expected: &str) {
    let mut out = Vec::new();
    write_report(&mut out, value).expect("writing to a Vec");
    let text = String::from_utf8(out).expect("UTF-8");
    assert_eq!(text, expected);
    assert_eq!(
        serde_json::from_str::<Value>(&text).ok().as_ref(),
        Some(value)
    );
}

#[test]
fn the_skeleton_is_pretty_and_the_entries_of_a_tests_lists_are_one_line_each() {
    check(
        &json!({
            "version": 2,
            "tests": [{
                "name": "t",
                "sources": [{"run": 1, "line": null}, {"run": 2, "line": 7}],
                "metrics": {"m": 1},
                "block": {"expected": ["a", "b"], "runs": [{"run": 1, "calls": [{"call": 1}]}], "empty": []},
            }],
            "notes": [],
        }),
        r#"{
  "notes": [],
  "tests": [
    {
      "block": {
        "empty": [],
        "expected": [
          "a",
          "b"
        ],
        "runs": [
          {"calls":[{"call":1}],"run":1}
        ]
      },
      "metrics": {
        "m": 1
      },
      "name": "t",
      "sources": [
        {"line":null,"run":1},
        {"line":7,"run":2}
      ]
    }
  ],
  "version": 2
}
"#,
    );
}

/// A spilled entry is copied as its text, where the formatter would have written it on one
/// line: the same bytes, numbers as written.
#[test]
fn raw_text_goes_where_a_compact_entry_goes() {
    // A `Value` keeps its keys sorted: the entry is written in that order, to compare.
    let entry = r#"{"n":12345678901234567890123,"run":1}"#;
    let mut out = Vec::new();
    write_report(&mut out, &[[[RawJson(entry)]]]).expect("writing to a Vec");
    let mut parsed = Vec::new();
    let value: Value = serde_json::from_str(entry).expect("an entry");
    write_report(&mut parsed, &[[[value]]]).expect("writing to a Vec");
    let expected = format!("[\n  [\n    [\n      {entry}\n    ]\n  ]\n]\n");
    assert_eq!(String::from_utf8(out).expect("UTF-8"), expected);
    assert_eq!(String::from_utf8(parsed).expect("UTF-8"), expected);
}

/// Entries copied a block at a time, one per line of the block, give the bytes of the same
/// entries copied one by one: in a list of a test, each on its own line, and inside a
/// compact entry, separated by commas alone.
#[test]
fn a_block_of_entries_is_written_as_those_entries_one_by_one() {
    let entries = [r#"{"run":1}"#, r#"{"run":2,"s":"a\nb"}"#, "3", "[]"];
    let block = entries.join("\n");
    let (first, rest) = block.split_at(entries[0].len());
    let one_by_one: Vec<RawJson<'_>> = entries.iter().map(|entry| RawJson(entry)).collect();
    let two_blocks = [RawJson(first), RawJson(&rest[1..])];
    let one_block = [RawJson(&block)];

    let write = |list: &[RawJson<'_>], compact: bool| {
        let mut out = Vec::new();
        if compact {
            write_report(&mut out, &[[[list]]]).expect("writing to a Vec");
        } else {
            write_report(&mut out, &[[list]]).expect("writing to a Vec");
        }
        String::from_utf8(out).expect("UTF-8")
    };
    let expected = "[\n  [\n    [\n      {\"run\":1},\n      {\"run\":2,\"s\":\"a\\nb\"},\n      3,\n      []\n    ]\n  ]\n]\n";
    assert_eq!(write(&one_by_one, false), expected);
    assert_eq!(write(&two_blocks, false), expected);
    assert_eq!(write(&one_block, false), expected);

    let expected =
        "[\n  [\n    [\n      [{\"run\":1},{\"run\":2,\"s\":\"a\\nb\"},3,[]]\n    ]\n  ]\n]\n";
    assert_eq!(write(&one_by_one, true), expected);
    assert_eq!(write(&one_block, true), expected);
}
