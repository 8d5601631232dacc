//! Two rules on the modules inside the crates, checked by `cargo xtask tidy`:
//! - the top-level modules of a crate do not import each other in a circle;
//! - no file names a grader kind outside the kind's module (`graders/<kind>.rs` and
//!   `graders/<kind>/`), the registry (`graders.rs`) and the crate root's re-exports: the
//!   rest of the workspace asks every kind through the contract (`graders/contract.rs`) and
//!   the registry, and the reports render what every grader fills in
//!   (`trailgate_expect::Section`, `JsonPart`), so a new grader kind touches its module and
//!   one registry line. A kind's words are read from the registry (its field, variant,
//!   grader type and key) and from its module (the types it declares), not listed by hand.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use super::reach::{tokens, without_tests};
use super::{collect_rs, rel};

/// The file that holds the registry of grader kinds.
const REGISTRY: &str = "crates/trailgate-expect/src/graders.rs";

/// Where the grader kinds' modules are.
const KINDS_DIR: &str = "crates/trailgate-expect/src/graders";

/// The files that may name every kind: the registry, and the crate root's re-exports.
const NAME_EVERY_KIND: &[&str] = &[REGISTRY, "crates/trailgate-expect/src/lib.rs"];

/// A grader kind as the registry lists it: its module, and the words that name it.
#[derive(Debug)]
struct Kind {
    /// The module's name under `graders/` (`tool_calls`).
    module: String,
    /// Its field, variant, grader type and key, with the key's `_` spelling, and the types
    /// its module declares `pub` or `pub(crate)`.
    words: Vec<String>,
}

impl Kind {
    /// Whether `rel`, a file relative to the workspace, is in the kind's module.
    fn holds(&self, rel: &str) -> bool {
        let base = format!("{KINDS_DIR}/{}", self.module);
        rel == format!("{base}.rs") || rel.starts_with(&format!("{base}/"))
    }
}

/// The grader kinds, read from the registry's lines
/// (`tool_calls: ToolCalls = crate::graders::tool_calls::ToolCallsGrader, "tool-calls";`),
/// each with the types its module declares.
fn kinds(root: &Path) -> Result<Vec<Kind>, String> {
    let text = fs::read_to_string(root.join(REGISTRY)).map_err(|e| format!("{REGISTRY}: {e}"))?;
    let body = text
        .split_once("macro_rules! registry")
        .map(|(_, rest)| rest.split_once("\n}\n").map_or(rest, |(body, _)| body))
        .ok_or_else(|| format!("{REGISTRY}: no `macro_rules! registry`"))?;
    let mut kinds = Vec::new();
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
        let Some(module) = path
            .strip_prefix("crate::graders::")
            .and_then(|rest| rest.split("::").next())
        else {
            continue;
        };
        let key = key.trim_end_matches(';').trim_matches('"');
        let grader = path.rsplit("::").next().unwrap_or(path);
        let mut words = BTreeSet::new();
        for word in [field, variant, grader, key, &key.replace('-', "_")] {
            // A kind named by a plain English word (`errors`, `budget`) is named in code by
            // its type and variant (`ErrorsGrader`, `Errors`); the word alone is a common
            // variable name.
            if !word.chars().all(|c| c.is_ascii_lowercase()) {
                words.insert(word.to_owned());
            }
        }
        words.extend(declared_types(root, module)?);
        kinds.push(Kind {
            module: module.to_owned(),
            words: words.into_iter().collect(),
        });
    }
    if kinds.is_empty() {
        return Err(format!("{REGISTRY}: the registry lists no kind"));
    }
    // A name that a file outside the kind's module declares too (`Closest`, a variant of
    // the reports' `Piece` as well as a trajectory type) names neither for sure.
    let mut files = Vec::new();
    collect_rs(&root.join("crates/trailgate-expect/src"), &mut files)?;
    collect_rs(&root.join("crates/trailgate-report/src"), &mut files)?;
    let mut declared: Vec<(String, BTreeSet<String>)> = Vec::new();
    for file in files.iter().filter(|file| !is_test_file(file)) {
        let text = fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        declared.push((rel(root, file), declared_names(&text)));
    }
    for kind in &mut kinds {
        let elsewhere: BTreeSet<&String> = declared
            .iter()
            .filter(|(file, _)| !kind.holds(file))
            .flat_map(|(_, names)| names)
            .collect();
        kind.words.retain(|word| !elsewhere.contains(word));
    }
    Ok(kinds)
}

/// The types the non-test files of the kind's module declare `pub` or `pub(crate)`.
fn declared_types(root: &Path, module: &str) -> Result<Vec<String>, String> {
    let dir = root.join(KINDS_DIR);
    let mut files = vec![dir.join(format!("{module}.rs"))];
    let inner = dir.join(module);
    if inner.is_dir() {
        collect_rs(&inner, &mut files)?;
    }
    let mut found = Vec::new();
    for file in files.iter().filter(|file| !is_test_file(file)) {
        let text = fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        for line in code_lines(&text) {
            let line = line.trim_start();
            let Some(rest) = line
                .strip_prefix("pub ")
                .or_else(|| line.strip_prefix("pub(crate) "))
            else {
                continue;
            };
            let Some(rest) = ["struct ", "enum ", "type ", "trait "]
                .iter()
                .find_map(|item| rest.strip_prefix(item))
            else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.push(name);
            }
        }
    }
    Ok(found)
}

/// Files that name a grader kind in text for people, not in code: the `accuracy` command
/// (the seeds' call-accuracy scorer, not a grader of a suite) points at its docs page.
const NAMES_IN_TEXT: &[&str] = &["crates/trailgate-cli/src/cli.rs"];

/// The problems found in the crates under `root/crates`.
pub(crate) fn problems(root: &Path) -> Result<Vec<String>, String> {
    let mut problems = Vec::new();
    let kinds = kinds(root)?;
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
        // The trace and core crates are below the graders and cannot name them in code.
        if matches!(crate_name.as_str(), "trailgate-trace" | "trailgate-core") {
            continue;
        }
        for (file, text) in &sources {
            let rel = rel(root, file);
            if is_test_file(file)
                || NAMES_IN_TEXT.contains(&rel.as_str())
                || NAME_EVERY_KIND.contains(&rel.as_str())
            {
                continue;
            }
            for kind in kinds.iter().filter(|kind| !kind.holds(&rel)) {
                for word in grader_words(text, &kind.words) {
                    problems.push(format!(
                        "{rel}: names `{word}` of the grader kind `{}`; ask every kind through \
                         the contract (graders/contract.rs) or the registry instead, and move \
                         what only this kind knows into its module",
                        kind.module
                    ));
                }
            }
        }
    }
    Ok(problems)
}

/// The grader words `text` names in code, as Rust tokens: not in comments, strings or its
/// tests.
fn grader_words<'w>(text: &str, words: &'w [String]) -> BTreeSet<&'w str> {
    let tokens = without_tests(&tokens(text));
    words
        .iter()
        .map(String::as_str)
        .filter(|word| tokens.iter().any(|token| token.text == *word))
        .collect()
}

/// The type and variant names `text` declares (after `struct`, `enum`, `type`, `trait`, and
/// the variants in an `enum`'s braces), and those it imports from outside the crate.
fn declared_names(text: &str) -> BTreeSet<String> {
    let tokens = without_tests(&tokens(text));
    let mut names = BTreeSet::new();
    let mut at = 0;
    while at < tokens.len() {
        let word = tokens[at].text.as_str();
        if matches!(word, "struct" | "enum" | "type" | "trait")
            && let Some(name) = tokens.get(at + 1)
        {
            names.insert(name.text.clone());
        }
        if word == "enum" {
            // The variants: names at the top level of the braces, after `{`, `,` or an
            // attribute's `]`.
            let mut depth = 0usize;
            let mut k = at + 1;
            while let Some(token) = tokens.get(k) {
                match token.text.as_str() {
                    "{" | "(" | "[" => depth += 1,
                    "}" | ")" | "]" => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 && token.text == "}" {
                            break;
                        }
                    }
                    name if depth == 1
                        && name.starts_with(|c: char| c.is_ascii_uppercase())
                        && matches!(tokens[k - 1].text.as_str(), "{" | "," | "]") =>
                    {
                        names.insert(name.to_owned());
                    }
                    _ => {}
                }
                k += 1;
            }
        }
        at += 1;
    }
    for line in code_lines(text) {
        // A name imported from outside the graders (`std::collections::hash_map::Entry`).
        if let Some(path) = line.trim_start().strip_prefix("use ")
            && !["crate::", "super::", "self::", "trailgate_expect"]
                .iter()
                .any(|inner| path.starts_with(inner))
        {
            names.extend(
                path.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .filter(|name| name.starts_with(|c: char| c.is_ascii_uppercase()))
                    .map(str::to_owned),
            );
        }
    }
    names
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

pub(super) fn is_test_file(file: &Path) -> bool {
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

    use super::{crate_paths, find_circle, grader_words};

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

    /// The kinds of the workspace this xtask belongs to.
    fn kinds() -> Vec<super::Kind> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        super::kinds(&root).expect("the registry reads")
    }

    #[test]
    fn grader_words_skip_comments() {
        let words: Vec<String> = kinds().into_iter().flat_map(|kind| kind.words).collect();
        let text = "// tool_calls in a comment\nlet x = outcome.call_accuracy;\n";
        assert_eq!(
            grader_words(text, &words).into_iter().collect::<Vec<_>>(),
            ["call_accuracy"]
        );
    }

    #[test]
    fn each_kind_is_named_by_the_registry_and_by_the_types_of_its_module() {
        let kinds = kinds();
        let words = |module: &str| {
            kinds
                .iter()
                .find(|kind| kind.module == module)
                .map(|kind| kind.words.clone())
                .unwrap_or_default()
        };
        for (module, word) in [
            ("selection", "equal_function_sets"),
            ("selection", "EqualFunctionSets"),
            ("tool_calls", "ToolCalls"),
            ("tool_calls", "ToolCallsGrader"),
            ("tool_calls", "MissingArgument"),
            ("tool_calls", "RunToolCalls"),
            ("tool_correctness", "tool-correctness"),
            ("call_accuracy", "CallAccuracyGrader"),
            ("trajectory", "RunTrajectory"),
            ("budget", "BudgetOutcome"),
        ] {
            assert!(
                words(module).iter().any(|w| w == word),
                "{word} in {module}"
            );
        }
        assert!(
            kinds
                .iter()
                .find(|kind| kind.module == "tool_calls")
                .is_some_and(|kind| kind
                    .holds("crates/trailgate-expect/src/graders/tool_calls/explain.rs")
                    && !kind.holds("crates/trailgate-expect/src/graders/tool_calls_x.rs"))
        );
    }
}
