//! Untrusted text in every field that reaches output, generated: test, class, agent and
//! tool names of the suite, tool names, servers, argument keys and values of a trace, and
//! the trace's file name. Every report format and every diagnostic must show it inert: no
//! control character but the line feed, no bidi control, no character XML forbids, no
//! line that a CI runner would read as a workflow command but trailgate's own, and JUnit
//! that parses.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use proptest::prelude::*;
use proptest::sample::select;

use crate::support::{Transcript, trailgate};

/// Characters that break terminals, CI logs, XML or Markdown, and some harmless ones.
const ALPHABET: &[char] = &[
    'a', 'b', ' ', ':', ',', '%', '\n', '\r', '\t', '\u{0}', '\u{7}', '\u{1b}', ']', '[', '\u{7f}',
    '\u{85}', '\u{9b}', '\u{202e}', '\u{2066}', '\u{fffe}', '\u{ffff}', '<', '&', '"', '\'', '`',
    '|', '#', '@', 'é', '東', '\\',
];

fn hostile() -> impl Strategy<Value = String> {
    prop::collection::vec(select(ALPHABET), 1..10).prop_map(|chars| {
        // A leading `::` line is the most direct attack; make it common.
        format!("\n::error::{}", chars.into_iter().collect::<String>())
    })
}

/// A YAML double-quoted scalar holding `value` exactly: everything but printable ASCII
/// is written as an escape, which YAML reads back as the character.
fn yaml(value: &str) -> String {
    let mut out = String::from('"');
    for c in value.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            c if u32::from(c) <= 0xffff => write!(out, "\\u{:04x}", u32::from(c)).unwrap(),
            c => write!(out, "\\U{:08x}", u32::from(c)).unwrap(),
        }
    }
    out.push('"');
    out
}

fn json(value: &str) -> String {
    serde_json::to_string(value).unwrap()
}

/// What no printed report or diagnostic may hold.
fn forbidden(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
                | '\u{fffe}' | '\u{ffff}'
        )
}

#[track_caller]
fn check_inert(what: &str, text: &str, github: bool) {
    let bad: Vec<char> = text.chars().filter(|&c| forbidden(c)).collect();
    assert!(bad.is_empty(), "{what} holds {bad:?}:\n{text}");
    for line in text.lines() {
        if line.starts_with("::") {
            assert!(
                github
                    && (line.starts_with("::error file=trailgate.yaml,line=")
                        || line.starts_with("::notice file=trailgate.yaml,line=")
                        || line.starts_with("::notice::")),
                "{what}: a workflow command that is not trailgate's: {line}"
            );
        }
    }
}

#[track_caller]
fn check_scored(run: &Transcript, format: &str) {
    assert!(run.code == 0 || run.code == 1, "{format}: {}", run.stderr);
    check_inert(format, &run.stdout, format == "github");
    check_inert("stderr", &run.stderr, false);
    if format == "junit" {
        roxmltree::Document::parse(&run.stdout).expect("JUnit is well-formed XML");
    }
}

#[track_caller]
fn check_refused(run: &Transcript) {
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert_eq!(run.stdout, "");
    check_inert("the diagnostic", &run.stderr, false);
}

#[derive(Debug)]
struct Fields {
    test: String,
    agent: String,
    class: String,
    tool: String,
    server: String,
    key: String,
    value: String,
    file: String,
}

fn fields() -> impl Strategy<Value = Fields> {
    (
        hostile(),
        hostile(),
        hostile(),
        hostile(),
        hostile(),
        hostile(),
        hostile(),
        hostile(),
    )
        .prop_map(
            |(test, agent, class, tool, server, key, value, file)| Fields {
                test,
                agent,
                class,
                tool,
                server,
                key,
                value,
                // A file name holds neither `/` nor NUL; glob characters would make the path
                // a pattern.
                file: file
                    .chars()
                    .filter(|c| !matches!(c, '/' | '\u{0}' | '*' | '?' | '[' | ']' | '\\'))
                    .collect(),
            },
        )
}

fn write_case(dir: &Path, f: &Fields) {
    let trace_name = format!("t{}.json", f.file);
    let suite = format!(
        "tests:\n  - name: {}\n    agent: {}\n    traces: [{}]\n    equal_function_sets:\n      \
         classes:\n        - name: {}\n          members: [{}]\n      expect:\n        - \
         tool_selection.f1: {{ \">=\": 80 }}\n        - tool_selection.precision: {{ \">=\": \"baseline\" }}\n    graders:\n      - type: tool-correctness\n        \
         config:\n          expected_tools: [{}]\n      - type: call-accuracy\n        config:\n          \
         expected:\n            - tool: {}\n              args: {{ {}: 1, a: {} }}\n",
        yaml(&f.test),
        yaml(&f.agent),
        yaml(&trace_name),
        yaml(&f.class),
        yaml(&f.tool),
        yaml(&f.tool),
        yaml(&f.tool),
        yaml(&f.key),
        yaml(&f.value),
    );
    fs::write(dir.join("trailgate.yaml"), suite).unwrap();
    let trace = format!(
        r#"{{"tool_calls":[{{"name":{tool},"args":{{{key}:2,"a":{value}}}}},{{"name":{other},"server":{server}}}]}}"#,
        tool = json(&f.tool),
        key = json(&f.key),
        value = json(&f.value),
        other = json(&format!("{}{}", f.tool, f.value)),
        server = json(&f.server),
    );
    fs::write(dir.join(trace_name), trace).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn untrusted_text_is_inert_in_every_report_and_diagnostic(f in fields()) {
        let temp = tempfile::tempdir().unwrap();
        write_case(temp.path(), &f);
        // A baseline without the test: the gate on the baseline is skipped with a reason
        // that names the test.
        let run = trailgate(temp.path(), &["check", "--format", "json"]);
        let mut base: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        base["tests"][0]["name"] = serde_json::Value::from("another test");
        fs::write(temp.path().join("base.json"), base.to_string()).unwrap();
        for format in ["text", "github", "markdown", "junit"] {
            let args = ["check", "--format", format, "--color", "never", "--baseline", "base.json"];
            let run = trailgate(temp.path(), &args);
            prop_assert!(run.stdout.contains("the baseline has no test named"), "{}", run.stdout);
            check_scored(&run, format);
        }
        // With colour, the escapes are trailgate's own colours and nothing else.
        let run = trailgate(temp.path(), &["check", "--color", "always"]);
        prop_assert!(!run.stdout.is_empty());
        check_inert("coloured text", &without_sgr(&run.stdout), false);

        // The JSON report carries every value exactly.
        let run = trailgate(temp.path(), &["check", "--format", "json"]);
        let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        prop_assert_eq!(report["tests"][0]["name"].as_str(), Some(f.test.as_str()));

        // A trace that is not a trace: the diagnostic quotes its value and its line.
        let trace_name = format!("t{}.json", f.file);
        fs::write(
            temp.path().join(&trace_name),
            format!(r#"{{"tool_calls": {}, "x": {}}}"#, json(&f.value), json(&f.tool)),
        )
        .unwrap();
        check_refused(&trailgate(temp.path(), &["check", "--color", "never"]));
        // Invalid JSON, with the untrusted text on the line shown.
        fs::write(
            temp.path().join(&trace_name),
            format!("{{\"a\": {}, {}}}", json(&f.value), f.tool),
        )
        .unwrap();
        check_refused(&trailgate(temp.path(), &["check", "--color", "never"]));
        check_refused(&trailgate(temp.path(), &["check", "--color", "always"]).without_colour());
        // A suite that names one test twice: the message quotes the name.
        let suite = fs::read_to_string(temp.path().join("trailgate.yaml")).unwrap();
        let test = suite.split_once("\n  - ").unwrap().1;
        fs::write(temp.path().join("trailgate.yaml"), format!("{suite}  - {test}")).unwrap();
        check_refused(&trailgate(temp.path(), &["check", "--color", "never"]));
    }
}

impl Transcript {
    /// The transcript with trailgate's colour escapes taken out of stderr.
    fn without_colour(mut self) -> Self {
        self.stderr = without_sgr(&self.stderr);
        self
    }
}

/// `text` without the colour sequences trailgate writes (`ESC [ digits ; digits m`); any
/// other escape stays, to be found.
fn without_sgr(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\u{1b}') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let body = after.strip_prefix('[').map(|body| {
            body.find(|c: char| !(c.is_ascii_digit() || c == ';'))
                .filter(|&end| body[end..].starts_with('m'))
                .map(|end| &body[end + 1..])
        });
        if let Some(next) = body.flatten() {
            rest = next;
        } else {
            out.push('\u{1b}');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}
