//! Untrusted text from traces never takes over a terminal or a CI log: every report of the
//! `hostile-trace-content` fixture shows its escape sequences, line breaks and bidi
//! overrides escaped, and the JSON report carries them exactly.

use std::path::Path;

use crate::support::trailgate;

const HOSTILE_TOOL: &str = "evil\u{1b}[2J\u{9b}31m\n::error::pwned\u{202e}";

fn fixture() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/hostile-trace-content"
    ))
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[test]
fn printed_reports_hold_no_control_characters_but_line_breaks() {
    for format in ["text", "github", "markdown", "junit"] {
        let run = trailgate(
            fixture(),
            &["check", "--format", format, "--color", "never"],
        );
        assert_eq!(run.code, 1, "{format}: {}", run.stderr);
        let bad: Vec<char> = run
            .stdout
            .chars()
            .filter(|&c| (c.is_control() && c != '\n') || is_bidi_control(c))
            .collect();
        assert!(bad.is_empty(), "{format} prints {bad:?}");
        // The hostile name shows, escaped, on the line of the call it names.
        assert!(
            run.stdout
                .contains(r"evil\u{1b}[2J\u{9b}31m\n::error::pwned\u{202e}"),
            "{format}:\n{}",
            run.stdout
        );
    }
}

#[test]
fn the_only_workflow_commands_are_trailgates_own() {
    for format in ["text", "github", "markdown", "junit"] {
        let run = trailgate(fixture(), &["check", "--format", format]);
        for line in run.stdout.lines() {
            if line.starts_with("::") {
                assert_eq!(format, "github", "a workflow command in {format}: {line}");
                assert!(
                    line.starts_with("::error file=trailgate.yaml,line=")
                        || line.starts_with("::notice::"),
                    "not an annotation of trailgate's: {line}"
                );
            }
        }
    }
}

#[test]
fn json_carries_the_exact_text_and_junit_is_well_formed_xml() {
    let run = trailgate(fixture(), &["check", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let first = &report["tests"][0]["equal_function_sets"]["runs"][0];
    let unexpected = first["unexpected_calls"][0]
        .as_u64()
        .expect("a call number");
    let tools = report["tests"][0]["sources"][0]["tools"]
        .as_array()
        .expect("each call's tool");
    let index = usize::try_from(unexpected - 1).expect("a small call number");
    assert_eq!(tools[index], HOSTILE_TOOL);
    // serde_json escapes C0 controls; nothing else needs it in JSON.
    assert!(!run.stdout.contains('\u{1b}'));

    let junit = trailgate(fixture(), &["check", "--format", "junit"]);
    let document = roxmltree::Document::parse(&junit.stdout).expect("well-formed XML");
    let failure = document
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .and_then(|n| n.text())
        .expect("a failure text");
    assert!(failure.contains(r"\u{1b}[2J"), "{failure}");
}

/// A grader's heading holds user text too: the budget's limits line names each
/// `max_calls_per_tool` matcher, and a hostile one (C1 controls, a bidi override, a
/// noncharacter) is escaped there as everywhere else.
#[test]
fn grader_headings_escape_the_suite_s_text() {
    let temp = tempfile::tempdir().unwrap();
    let suite = "tests:\n  - name: hostile budget\n    traces: run.json\n    graders:\n      \
                 - type: budget\n        config:\n          max_calls_per_tool:\n            \
                 - {tool: \"a\\u0085b\\u009bc\\u202ed\\ufffe\", max: 1}\n";
    std::fs::write(temp.path().join("trailgate.yaml"), suite).unwrap();
    std::fs::write(
        temp.path().join("run.json"),
        r#"{"tool_calls": [{"name": "search"}]}"#,
    )
    .unwrap();
    for format in ["text", "github", "markdown", "junit"] {
        let run = trailgate(
            temp.path(),
            &["check", "--format", format, "--color", "never"],
        );
        assert!(run.code <= 1, "{format}: {}", run.stderr);
        let bad: Vec<char> = run
            .stdout
            .chars()
            .filter(|&c| (c.is_control() && c != '\n') || is_bidi_control(c) || c == '\u{fffe}')
            .collect();
        assert!(bad.is_empty(), "{format} prints {bad:?}:\n{}", run.stdout);
    }
}

/// Every grader writes the suite's own text somewhere (a tool it expects, an entry, a limit,
/// a reason), and every such line is escaped: one suite names hostile text (C1 controls, a
/// line break, a bidi override, a noncharacter) in each grader's config, its test name,
/// agent and `xfail` reason, and no printed report carries a control character but its own
/// line breaks.
#[test]
fn every_line_a_grader_writes_escapes_the_suite_s_text() {
    const EVIL: &str = "e\\u0085v\\u009bi\\u202el\\ufffe\\nx";
    let temp = tempfile::tempdir().unwrap();
    let suite = format!(
        "tests:\n  - name: \"t {EVIL}\"\n    agent: \"a {EVIL}\"\n    xfail: \"r {EVIL}\"\n    \
         traces: run.json\n    equal_function_sets:\n      classes:\n        - {{name: \"c {EVIL}\", \
         members: [\"{EVIL}\", search]}}\n    graders:\n      - type: tool-calls\n        config:\n          \
         required: [{{name: \"{EVIL}\", agent: {{$regex: \"{EVIL}\"}}}}]\n          disallowed: [{{name: \"^search$\", args: {{q: \"{EVIL}\"}}}}]\n          \
         sequence: [{{name: \"{EVIL}\"}}]\n      - type: trajectory\n        config:\n          mode: strict\n          \
         expected: [{{tool: \"{EVIL}\", agent: \"{EVIL}\", args: {{q: \"{EVIL}\"}}}}]\n      - type: call-accuracy\n        config:\n          \
         expected: [{{tool: \"{EVIL}\", args: {{q: \"{EVIL}\"}}}}]\n      - type: tool-correctness\n        config:\n          \
         expected_tools: [\"{EVIL}\"]\n      - type: budget\n        config:\n          max_calls: 1\n          \
         max_calls_per_tool: [{{tool: \"{EVIL}\", max: 1}}]\n      - type: dependencies\n        config:\n          \
         edges: [{{feeds: \"{EVIL}\", into: search, arg: q}}]\n      - type: errors\n        config:\n          \
         expect: [{{errors.rate: {{\"<=\": 0}}}}]\n"
    );
    std::fs::write(temp.path().join("trailgate.yaml"), suite).unwrap();
    std::fs::write(
        temp.path().join("run.json"),
        r#"{"tool_calls": [{"name": "search", "args": {"q": "weather"}, "status": "error", "agent": "e\u0085v\u009bi\u202el\ufffe\nx"}]}"#,
    )
    .unwrap();
    for format in ["text", "github", "markdown", "junit"] {
        let run = trailgate(
            temp.path(),
            &["check", "--format", format, "--color", "never"],
        );
        assert!(run.code <= 1, "{format}: {}", run.stderr);
        // The per-agent table names the hostile agent of the run's call.
        assert!(
            !matches!(format, "text" | "markdown") || run.stdout.contains("gent"),
            "{format}: {}",
            run.stdout
        );
        assert!(
            run.stdout.contains("XFAIL") || format == "junit",
            "{format}: {}",
            run.stdout
        );
        let bad: Vec<char> = run
            .stdout
            .chars()
            .filter(|&c| (c.is_control() && c != '\n') || is_bidi_control(c) || c == '\u{fffe}')
            .collect();
        assert!(bad.is_empty(), "{format} prints {bad:?}:\n{}", run.stdout);
    }
}

/// Agent names come from traces: control characters, a bidi override, a line break and
/// HTML markup in one are inert in every report. The printed reports show no control
/// character and no workflow command of the trace's; the JSON report carries the name
/// exactly; the HTML page embeds it with `<` escaped, never as markup.
#[test]
fn agent_names_are_inert_in_every_report() {
    const AGENT: &str = "<img src=x onerror=alert(1)>\u{1b}[2J\u{9b}31m\n::error::pwned\u{202e}";
    let temp = tempfile::tempdir().unwrap();
    std::fs::write(
        temp.path().join("trailgate.yaml"),
        "tests:\n  - name: hostile agent\n    traces: run.json\n    graders:\n      \
         - type: tool-calls\n        config:\n          disallowed: [{agent: {$regex: \"onerror\"}, name: \"^search$\"}]\n",
    )
    .unwrap();
    let call = serde_json::json!({"tool_calls": [{"name": "search", "agent": AGENT}]});
    std::fs::write(temp.path().join("run.json"), call.to_string()).unwrap();
    for format in ["text", "github", "markdown", "junit"] {
        let run = trailgate(
            temp.path(),
            &["check", "--format", format, "--color", "never"],
        );
        assert_eq!(run.code, 1, "{format}: {}", run.stderr);
        let bad: Vec<char> = run
            .stdout
            .chars()
            .filter(|&c| (c.is_control() && c != '\n') || is_bidi_control(c))
            .collect();
        assert!(bad.is_empty(), "{format} prints {bad:?}:\n{}", run.stdout);
        assert!(
            !run.stdout
                .lines()
                .any(|line| line.starts_with("::error::pwned")),
            "{format}: {}",
            run.stdout
        );
        if format == "text" {
            assert!(
                run.stdout.contains(
                    r"<img src=x onerror=alert(1)>\u{1b}[2J\u{9b}31m\n::error::pwned\u{202e}"
                ),
                "{}",
                run.stdout
            );
        }
        if format == "markdown" {
            assert!(run.stdout.contains("### Agents"), "{}", run.stdout);
            assert!(!run.stdout.contains("| <img"), "{}", run.stdout);
        }
    }
    let json = trailgate(temp.path(), &["check", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(report["tests"][0]["agents"][0]["agent"], AGENT);
    assert_eq!(report["tests"][0]["agents"][0]["calls"], 1);
    let html = trailgate(temp.path(), &["check", "--format", "html"]);
    assert_eq!(html.code, 1, "{}", html.stderr);
    assert!(
        !html.stdout.contains("<img"),
        "the agent's markup is not markup"
    );
    assert!(!html.stdout.contains('\u{1b}'));
    assert!(
        html.stdout
            .contains(r"\u003cimg src=x onerror=alert(1)\u003e"),
        "the name is in the page's data, escaped"
    );
}
