//! Two rules on the modules inside the crates, checked by `cargo xtask tidy`:
//! - the top-level modules of a crate do not import each other in a circle;
//! - the report, run and CLI crates name no grader kind: they render what every grader
//!   fills in (`trailgate_expect::Section`, `JsonPart`) and ask the test for what differs by
//!   kind (`Graders::past_limits`), so a new grader kind never touches them.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use super::{collect_rs, rel};

/// Types of the kinds' modules that the report, run and CLI crates may not use either (the
/// kinds' own names come from the registry, see [`registry_words`]).
const KIND_TYPES: &[&str] = &[
    "SelectionOutcome",
    "RunCorrectness",
    "RunAccuracy",
    "RunToolCalls",
    "NearMiss",
    "TrajectoryGrader",
    "TrajectoryOutcome",
    "RunTrajectory",
    "BudgetGrader",
    "BudgetOutcome",
    "RunBudget",
    "ErrorsGrader",
    "ErrorsOutcome",
    "RunErrors",
    "DependenciesGrader",
    "DependenciesOutcome",
    "RunDependencies",
];

/// The file that holds the registry of grader kinds.
const REGISTRY: &str = "crates/trailgate-expect/src/graders.rs";

/// The words that name a grader kind, read from the registry's lines
/// (`tool_calls: ToolCalls = crate::graders::tool_calls::ToolCallsGrader, "tool-calls";`):
/// each kind's field, variant, grader type and key, with the key's `_` spelling.
fn registry_words(root: &Path) -> Result<Vec<String>, String> {
    let text = fs::read_to_string(root.join(REGISTRY)).map_err(|e| format!("{REGISTRY}: {e}"))?;
    let mut words = BTreeSet::new();
    let body = text
        .split_once("macro_rules! registry")
        .map(|(_, rest)| rest.split_once("\n}\n").map_or(rest, |(body, _)| body))
        .ok_or_else(|| format!("{REGISTRY}: no `macro_rules! registry`"))?;
    for line in body.lines() {
        let line = line.trim();
        let Some((field, rest)) = line.split_once(": ") else {
            continue;
        };
        let Some((variant, rest)) = rest.split_once(" = ") else {
            continue;
        };
        let Some((path, key)) = rest.split_once(", ") else {
            continue;
        };
        let key = key.trim_end_matches(';').trim_matches('"');
        let grader = path.rsplit("::").next().unwrap_or(path);
        for word in [field, variant, grader, key, &key.replace('-', "_")] {
            // A kind named by a plain English word (`errors`, `budget`) is named in code by
            // its type and variant (`ErrorsGrader`, `Errors`); the word alone is a common
            // variable name.
            let plain = word.chars().all(|c| c.is_ascii_lowercase());
            if !plain {
                words.insert(word.to_owned());
            }
        }
    }
    if words.is_empty() {
        return Err(format!("{REGISTRY}: the registry lists no kind"));
    }
    words.extend(KIND_TYPES.iter().map(|w| (*w).to_owned()));
    Ok(words.into_iter().collect())
}

/// Files that name a grader kind in text for people, not in code: the `accuracy` command
/// (the seeds' call-accuracy scorer, not a grader of a suite) points at its docs page.
const NAMES_IN_TEXT: &[&str] = &["crates/trailgate-cli/src/cli.rs"];

/// The problems found in the crates under `root/crates`.
pub(crate) fn problems(root: &Path) -> Result<Vec<String>, String> {
    let mut problems = Vec::new();
    let kind_words = registry_words(root)?;
    // In name order, so that the problems are listed in the same order on every machine.
    let mut crates = fs::read_dir(root.join("crates"))
        .map_err(|e| e.to_string())?
        .map(|entry| entry.map(|e| e.path().join("src")))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    crates.sort();
    for dir in crates {
        if !dir.is_dir() {
            continue;
        }
        let crate_name = dir
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut files = Vec::new();
        collect_rs(&dir, &mut files)?;
        files.sort();
        let mut sources = Vec::new();
        for file in files {
            let text = fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
            sources.push((file, text));
        }
        let edges = imports(&dir, &sources);
        if let Some(circle) = find_circle(&edges) {
            problems.push(format!(
                "crate `{crate_name}`: its modules import each other in a circle: {}",
                circle.join(" -> ")
            ));
        }
        if matches!(
            crate_name.as_str(),
            "trailgate-report" | "trailgate-run" | "trailgate-cli"
        ) {
            for (file, text) in &sources {
                let rel = rel(root, file);
                if is_test_file(file) || NAMES_IN_TEXT.contains(&rel.as_str()) {
                    continue;
                }
                for word in grader_words(text, &kind_words) {
                    problems.push(format!(
                        "{rel}: names the grader kind `{word}`; render the grader's `Section` \
                         instead, and move what only this grader knows into its module in \
                         trailgate-expect"
                    ));
                }
            }
        }
    }
    Ok(problems)
}

/// The grader words used in the code of `text` (not in comments, nor after its test module).
fn grader_words<'w>(text: &str, words: &'w [String]) -> BTreeSet<&'w str> {
    code_lines(text)
        .flat_map(|line| {
            words
                .iter()
                .map(String::as_str)
                .filter(move |word| names(line, word))
        })
        .collect()
}

/// Whether `line` holds `word` as a whole name: not inside a longer identifier.
fn names(line: &str, word: &str) -> bool {
    let part_of_name = |c: char| c.is_ascii_alphanumeric() || c == '_';
    line.match_indices(word).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + word.len()..].chars().next();
        !before.is_some_and(part_of_name) && !after.is_some_and(part_of_name)
    })
}

/// The lines of code of a file: without comment lines, and up to its `#[cfg(test)]` module.
fn code_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .take_while(|line| line.trim() != "#[cfg(test)]" || !text.contains("mod tests"))
        .filter(|line| !line.trim_start().starts_with("//"))
}

/// For each top-level module of a crate, the top-level modules its code names through
/// `crate::`. Test files are left out: a test may reach anywhere.
fn imports(src: &Path, sources: &[(PathBuf, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, text) in sources {
        if is_test_file(file) {
            continue;
        }
        let Some(module) = top_module(src, file) else {
            continue;
        };
        let entry = edges.entry(module.clone()).or_default();
        for line in code_lines(text) {
            for target in crate_paths(line) {
                if target != module {
                    entry.insert(target);
                }
            }
        }
    }
    edges
}

/// The first segments of the `crate::` paths on a line, with `crate::{a, b::c}` giving `a`
/// and `b`.
fn crate_paths(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        // `trailgate_expect::` and other crate names end in `crate` only by accident.
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            let mut depth = 0usize;
            let mut segment = String::new();
            for c in group[..end].chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth = depth.saturating_sub(1),
                    ',' if depth == 0 => {
                        found.extend(first_segment(&segment));
                        segment.clear();
                        continue;
                    }
                    _ => {}
                }
                segment.push(c);
            }
            found.extend(first_segment(&segment));
        } else {
            found.extend(first_segment(rest));
        }
    }
    found
}

fn first_segment(path: &str) -> Option<String> {
    let name: String = path
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    // A lower-case first segment is a module; `crate::Section` is an item of the root.
    (name.starts_with(|c: char| c.is_ascii_lowercase())).then_some(name)
}

/// The top-level module a file belongs to: `src/a.rs` and `src/a/b.rs` to `a`; `None` for
/// the crate's root file and for binaries.
fn top_module(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_string_lossy();
    if rel.components().count() == 1 {
        let stem = first.strip_suffix(".rs")?;
        return (!matches!(stem, "lib" | "main")).then(|| stem.to_owned());
    }
    (first != "bin").then(|| first.into_owned())
}

fn is_test_file(file: &Path) -> bool {
    file.file_name().is_some_and(|n| n == "tests.rs")
        || file.components().any(|c| c.as_os_str() == "tests")
}

/// A circle among the modules, as the path that closes it, if there is one.
fn find_circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first search; `on_path` holds the modules of the current path in order.
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        on_path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = on_path.iter().position(|n| n == node) {
            let mut circle = on_path[at..].to_vec();
            circle.push(node.to_owned());
            return Some(circle);
        }
        if done.contains(node) {
            return None;
        }
        on_path.push(node.to_owned());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(circle) = visit(next, edges, done, on_path) {
                return Some(circle);
            }
        }
        on_path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    for node in edges.keys() {
        if let Some(circle) = visit(node, edges, &mut done, &mut Vec::new()) {
            return Some(circle);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use std::path::Path;

    use super::{crate_paths, find_circle, grader_words, registry_words};

    #[test]
    fn crate_paths_reads_single_and_grouped_imports() {
        assert_eq!(crate_paths("use crate::gate::{Gate, Op};"), ["gate"]);
        assert_eq!(
            crate_paths("use crate::{run::Detail, graders::{a, b}, Section};"),
            ["run", "graders"]
        );
        assert_eq!(crate_paths("trailgate_crate::x"), Vec::<String>::new());
    }

    #[test]
    fn a_circle_is_found_and_a_chain_is_not() {
        let graph = |pairs: &[(&str, &str)]| {
            let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
            for (from, to) in pairs {
                edges
                    .entry((*from).to_owned())
                    .or_default()
                    .insert((*to).to_owned());
            }
            edges
        };
        assert_eq!(find_circle(&graph(&[("a", "b"), ("b", "c")])), None);
        assert_eq!(
            find_circle(&graph(&[("a", "b"), ("b", "c"), ("c", "a")])),
            Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
        );
    }

    /// The registry of the workspace this xtask belongs to.
    fn words() -> Vec<String> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        registry_words(&root).expect("the registry reads")
    }

    #[test]
    fn grader_words_skip_comments() {
        let words = words();
        let text = "// tool_calls in a comment\nlet x = outcome.call_accuracy;\n";
        assert_eq!(
            grader_words(text, &words).into_iter().collect::<Vec<_>>(),
            ["call_accuracy"]
        );
    }

    #[test]
    fn the_registry_gives_each_kind_s_names() {
        let words = words();
        for word in [
            "equal_function_sets",
            "EqualFunctionSets",
            "ToolCalls",
            "ToolCallsGrader",
            "tool-correctness",
            "tool_correctness",
            "call-accuracy",
            "CallAccuracyGrader",
        ] {
            assert!(words.iter().any(|w| w == word), "{word} in {words:?}");
        }
    }
}
