//! The README's first section, "Start from your runs", runs as written: each block tied to
//! it by the comment `<!-- readme: start from your runs -->` on the line before its fence
//! is run (a `console` block: each `$ trailgate ...` line, its output exactly the lines under
//! it) or found (a `yaml` block: an excerpt of the suite the commands wrote, byte for byte),
//! in a folder holding the bundled runs at the paths the README names; then `trailgate
//! check` passes on the suite, as the section says.

use std::fs;
use std::path::Path;

use crate::support::trailgate;

const README: &str = include_str!("../../../../README.md");
const MARKER: &str = "<!-- readme: start from your runs -->";

/// The tied blocks, in page order: the word after the fence and the lines inside.
fn blocks() -> Vec<(&'static str, String)> {
    let lines: Vec<&str> = README.lines().collect();
    let mut blocks = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if *line != MARKER {
            continue;
        }
        let fence = lines[index + 1];
        let language = fence
            .strip_prefix("```")
            .expect("a fence on the line after the marker");
        let mut body = String::new();
        for line in lines[index + 2..].iter().take_while(|line| **line != "```") {
            body.push_str(line);
            body.push('\n');
        }
        blocks.push((language, body));
    }
    blocks
}

fn copy(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy(&path, &target);
        } else {
            fs::copy(&path, &target).unwrap();
        }
    }
}

#[test]
fn the_readme_s_first_section_runs_as_written() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme-start");
    let _ = fs::remove_dir_all(&dir);
    let runs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/start-from-runs");
    copy(&runs, &dir.join("fixtures/start-from-runs"));
    let blocks = blocks();
    assert_eq!(
        blocks
            .iter()
            .map(|(language, _)| *language)
            .collect::<Vec<_>>(),
        ["console", "yaml"],
        "the section's tied blocks"
    );
    for (language, body) in blocks {
        if language == "console" {
            let mut lines = body.lines().peekable();
            while let Some(command) = lines.next() {
                let args = command
                    .strip_prefix("$ trailgate ")
                    .unwrap_or_else(|| panic!("a command line: {command}"));
                let mut shown = String::new();
                while let Some(line) = lines.next_if(|line| !line.starts_with("$ ")) {
                    shown.push_str(line);
                    shown.push('\n');
                }
                let args: Vec<&str> = args.split_whitespace().collect();
                let run = trailgate(&dir, &args);
                assert_eq!(run.code, 0, "{command}: {}", run.stderr);
                assert_eq!(run.stdout, shown, "{command}");
            }
        } else {
            let suite = fs::read_to_string(dir.join("trailgate.yaml")).unwrap();
            assert!(
                suite.contains(&body),
                "an excerpt of the suite:\n{body}\n---\n{suite}"
            );
        }
    }
    let check = trailgate(&dir, &["check"]);
    assert_eq!(check.code, 0, "{}", check.stdout);
}
