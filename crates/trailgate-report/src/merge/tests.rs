//! Merging from in-memory shards: the layout of a shard's file does not change the merged
//! report, and a problem is placed at its real line and column in the file.

use std::io::Cursor;

use miette::Diagnostic;

use super::{ShardFile, merge_shards, render_merged_json};

fn shard(k: usize) -> String {
    let path = format!(
        "{}/../../fixtures/merge-shards/shards/{k}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path).expect("the fixture shard reads")
}

/// The JSON text with every space and line break outside strings removed.
fn compact(text: &str) -> String {
    let (mut out, mut in_string, mut escaped) = (String::new(), false, false);
    for c in text.chars() {
        if in_string {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
        } else if c.is_whitespace() {
            continue;
        } else {
            in_string = c == '"';
        }
        out.push(c);
    }
    out
}

fn files(texts: &[String]) -> Vec<ShardFile<Cursor<&[u8]>>> {
    texts
        .iter()
        .enumerate()
        .map(|(index, text)| ShardFile {
            name: format!("{}.json", index + 1),
            reader: Cursor::new(text.as_bytes()),
        })
        .collect()
}

fn merged_json(texts: &[String]) -> String {
    let mut merged = merge_shards(files(texts)).expect("the shards merge");
    let mut out = Vec::new();
    render_merged_json(&mut merged, &mut out).expect("the report renders");
    String::from_utf8(out).expect("the report is UTF-8")
}

#[test]
fn a_shard_written_on_one_line_merges_to_the_same_report() {
    let pretty = [shard(1), shard(2)];
    let one_line = [compact(&pretty[0]), compact(&pretty[1])];
    assert!(!one_line[0].contains('\n'));
    assert_eq!(merged_json(&one_line), merged_json(&pretty));
}

/// The line and column of the first label of the first problem, and the text there.
fn placed(texts: &[String]) -> (usize, usize, String) {
    let error = merge_shards(files(texts)).expect_err("the shards are refused");
    let problem = error.related().and_then(|mut r| r.next());
    let diagnostic: &dyn Diagnostic = problem.unwrap_or(&error);
    let label = diagnostic
        .labels()
        .and_then(|mut labels| labels.next())
        .expect("the problem is placed");
    let source = diagnostic
        .source_code()
        .expect("the problem shows its file");
    let there = source
        .read_span(label.inner(), 0, 0)
        .expect("the span is in the source");
    let text = String::from_utf8_lossy(there.data()).into_owned();
    (there.line() + 1, there.column() + 1, text)
}

#[test]
fn a_test_that_does_not_add_up_is_placed_in_its_file_after_non_ascii_text() {
    // Both shards name their suite with non-ASCII text, before the problem.
    let name = |text: String| text.replace("\"trailgate.yaml\"", "\"ツール.yaml\"");
    let edited = shard(2).replacen(
        "\"tool_calls.pass_rate\": 0",
        "\"tool_calls.pass_rate\": 1",
        1,
    );
    let texts = [name(shard(1)), name(edited)];
    let (line, column, text) = placed(&texts);
    assert_eq!((line, column), (17, 5), "{text}");
    assert!(text.starts_with('{'), "{text}");
}

#[test]
fn a_syntax_error_is_placed_at_its_line_and_column() {
    let broken = shard(2).replacen("\"runs\": 1", "\"runs\": ]", 1);
    let (line, column, text) = placed(&[shard(1), broken]);
    assert_eq!((line, column), (21, 15), "{text}");
    assert!(text.starts_with(']'), "{text}");
}

#[test]
fn a_test_not_of_a_tests_shape_is_placed_in_its_file() {
    // Not a syntax error: the file is read through again with its tests only placed, and
    // the test is read again from its place in its turn; `serde_json` places a string of the
    // wrong type at its closing quote.
    let texts = [
        shard(1),
        shard(2).replacen("\"runs\": 1", "\"runs\": \"one\"", 1),
    ];
    let error = merge_shards(files(&texts)).expect_err("the shards are refused");
    let message = error
        .related()
        .into_iter()
        .flatten()
        .map(ToString::to_string)
        .chain([error.to_string()])
        .collect::<String>();
    assert!(
        message.contains("a test in `2.json` is not a trailgate test report"),
        "{message}"
    );
    assert_eq!(placed(&texts), (21, 19, "\"".to_owned()));
}

/// A known limit (docs/robustness.md, `merge`): on a line that starts more than 1 MiB
/// before a problem, as in a shard written on one line, the diagnostic shows the problem's
/// line but counts its column from 1 MiB before the problem, not from the line's start.
#[test]
fn past_a_mebibyte_of_its_line_a_problem_s_column_counts_from_a_mebibyte_before_it() {
    let suite = format!("\"{}.yaml\"", "s".repeat(2 << 20));
    let name = |text: &str| compact(text).replace("\"trailgate.yaml\"", &suite);
    let broken = name(&shard(2)).replacen("\"runs\":1", "\"runs\":]", 1);
    assert!(broken.contains("\"runs\":]"));
    let (line, column, text) = placed(&[name(&shard(1)), broken]);
    assert_eq!((line, column), (1, (1 << 20) + 1));
    assert!(text.starts_with(']'), "{text}");
}
