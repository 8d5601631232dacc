//! `toolgate diff` on the command line: its outputs to files, the formats it refuses, and
//! reports with hostile test names.

use std::fs;
use std::path::Path;

use crate::support::toolgate;

fn fixtures() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures"))
}

#[test]
fn each_format_goes_to_its_output_and_the_exit_code_stays() {
    let dir = fixtures().join("diff-regression");
    let temp = tempfile::tempdir().unwrap();
    let json = temp.path().join("diff.json");
    let markdown = temp.path().join("diff.md");
    let run = toolgate(
        &dir,
        &[
            "diff",
            "base.json",
            "head.json",
            "--output",
            json.to_str().unwrap(),
            "--output",
            markdown.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    let alone = |format: &str| toolgate(&dir, &["diff", "base.json", "head.json", "-f", format]);
    assert_eq!(fs::read_to_string(&json).unwrap(), alone("json").stdout);
    assert_eq!(
        fs::read_to_string(&markdown).unwrap(),
        alone("markdown").stdout
    );
}

#[test]
fn junit_is_refused_by_name_and_by_extension() {
    let dir = fixtures().join("diff-regression");
    let run = toolgate(
        &dir,
        &["diff", "base.json", "head.json", "--format", "junit"],
    );
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("junit"), "{}", run.stderr);
    let run = toolgate(
        &dir,
        &["diff", "base.json", "head.json", "--output", "x.xml"],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("`.json`, `.md` or `.txt`"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_output_may_not_replace_a_report_it_reads() {
    let dir = fixtures().join("diff-regression");
    let run = toolgate(
        &dir,
        &[
            "diff",
            "base.json",
            "head.json",
            "-f",
            "json",
            "-o",
            "head.json",
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        fs::read_to_string(dir.join("head.json")).unwrap(),
        toolgate(&dir.join("head"), &["check", "--format", "json"]).stdout
    );
}

#[test]
fn hostile_test_names_stay_inert_in_every_output() {
    let hostile = "x\n::error::pwned | </code></summary><img src=x> @everyone `tick`";
    let temp = tempfile::tempdir().unwrap();
    let dir = fixtures().join("diff-regression");
    for side in ["base", "head"] {
        let text = fs::read_to_string(dir.join(format!("{side}.json"))).unwrap();
        let renamed = text.replace(
            "\"name\": \"search then fetch\"",
            &format!("\"name\": {}", serde_json::to_string(hostile).unwrap()),
        );
        assert_ne!(renamed, text);
        fs::write(temp.path().join(format!("{side}.json")), renamed).unwrap();
    }
    for format in ["text", "markdown", "github"] {
        let run = toolgate(
            temp.path(),
            &["diff", "base.json", "head.json", "-f", format],
        );
        assert_eq!(run.code, 1, "{}", run.stderr);
        for line in run.stdout.lines() {
            // The only workflow commands are the diff's own, whose user text is escaped.
            if line.starts_with("::") {
                assert!(
                    line.starts_with("::error title=toolgate diff%3A ")
                        || line.starts_with("::warning title=toolgate diff%3A ")
                        || line.starts_with("::notice::toolgate diff: "),
                    "{format}: {line}"
                );
                assert!(!line.contains("::error::pwned"), "{format}: {line}");
            }
            // Raw HTML holds the name escaped; elsewhere it is inline code.
            if line.starts_with("<details>") && line.contains("pwned") {
                assert!(
                    line.contains("&lt;/code&gt;&lt;/summary&gt;&lt;img"),
                    "{line}"
                );
                assert!(!line.contains("<img"), "{line}");
            }
        }
        assert!(!run.stdout.contains("x\n::"), "{format}");
        assert!(
            run.stdout.contains(r"x\n::error::pwned"),
            "{format}: shown, escaped"
        );
        if format == "markdown" {
            assert!(run.stdout.contains("&lt;img"), "the summary holds the name");
        }
    }
}
