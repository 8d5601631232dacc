//! The layering check and the workspace conventions, run by `cargo xtask tidy` and by
//! `cargo test --workspace` (see the test below), so a broken layer fails the build.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use cargo_metadata::{DependencyKind, MetadataCommand};

use crate::tidy::reach::{Reach, overreach};

mod modules;
mod reach;
mod release;

/// The workspace crates each crate may depend on (normal dependencies). Edges point down:
/// python -> cli -> run -> report -> expect -> {trace, core}; crates of one layer do not
/// depend on each other. The Python binding is the top layer: it parses options with the
/// CLI's command line and calls the pipeline in `trailgate-run`, and nothing depends on it.
const ALLOWED: &[(&str, &[&str])] = &[
    ("trailgate-core", &[]),
    ("trailgate-trace", &[]),
    ("trailgate-expect", &["trailgate-core", "trailgate-trace"]),
    (
        "trailgate-report",
        &["trailgate-core", "trailgate-expect", "trailgate-trace"],
    ),
    (
        "trailgate-run",
        &[
            "trailgate-core",
            "trailgate-expect",
            "trailgate-report",
            "trailgate-trace",
        ],
    ),
    (
        "trailgate-cli",
        &[
            "trailgate-core",
            "trailgate-expect",
            "trailgate-report",
            "trailgate-run",
            "trailgate-trace",
        ],
    ),
    (
        "trailgate-python",
        &[
            "trailgate-cli",
            "trailgate-core",
            "trailgate-expect",
            "trailgate-report",
            "trailgate-run",
            "trailgate-trace",
        ],
    ),
    ("xtask", &[]),
];

/// The crates whose outside dependencies (normal ones, from crates.io) are listed, and the
/// list. An embedder takes `trailgate-core` alone, so what it pulls in is chosen one crate at
/// a time: `num-bigint`, for the exact binomials and roots of the reliability statistics
/// (docs/ARCHITECTURE.md). The other crates' dependencies are the workspace manifest's.
const EXTERNAL: &[(&str, &[&str])] = &[("trailgate-core", &["num-bigint"])];

/// What each crate's sources (tests aside) may reach (docs/ARCHITECTURE.md): the libraries
/// nothing, `trailgate-run` files, the command line the whole process. The Python binding
/// reaches nothing itself: it hands options to `trailgate-run` and its console script to
/// `trailgate_cli::run`, so the package and the binary cannot drift apart. xtask is the
/// project's tooling and is not listed.
const REACH: &[(&str, Reach)] = &[
    ("trailgate-core", Reach::Nothing),
    ("trailgate-trace", Reach::Nothing),
    ("trailgate-expect", Reach::Nothing),
    ("trailgate-report", Reach::Nothing),
    ("trailgate-run", Reach::Files),
    ("trailgate-cli", Reach::Process),
    ("trailgate-python", Reach::Nothing),
];

/// Checks everything; the error lists every problem found.
pub(crate) fn check(root: &Path) -> Result<(), String> {
    let mut problems = Vec::new();
    layering(root, &mut problems)?;
    reach(root, &mut problems)?;
    let manifest = fs::read_to_string(root.join("Cargo.toml")).map_err(|e| e.to_string())?;
    problems.extend(profile_problems(&manifest));
    conventions(root, &mut problems)?;
    problems.extend(modules::problems(root)?);
    problems.extend(release::problems(root)?);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("tidy found problems:\n- {}", problems.join("\n- ")))
    }
}

fn layering(root: &Path, problems: &mut Vec<String>) -> Result<(), String> {
    let metadata = MetadataCommand::new()
        .manifest_path(root.join("Cargo.toml"))
        .no_deps()
        .exec()
        .map_err(|e| format!("cargo metadata failed: {e}"))?;
    let allowed: BTreeMap<&str, BTreeSet<&str>> = ALLOWED
        .iter()
        .map(|(name, deps)| (*name, deps.iter().copied().collect()))
        .collect();
    let members: BTreeSet<&str> = metadata
        .workspace_packages()
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    for package in metadata.workspace_packages() {
        let name = package.name.as_str();
        let Some(permitted) = allowed.get(name) else {
            problems.push(format!(
                "crate `{name}` is not in the layering table of xtask/src/tidy.rs"
            ));
            continue;
        };
        for dep in &package.dependencies {
            let dep_name = dep.name.as_str();
            if dep.kind != DependencyKind::Normal {
                continue;
            }
            if members.contains(dep_name) {
                if !permitted.contains(dep_name) {
                    problems.push(format!(
                        "`{name}` depends on `{dep_name}`, which the layering does not allow"
                    ));
                }
            } else {
                problems.extend(outside_problem(name, dep_name));
            }
        }
    }
    Ok(())
}

/// The problem with `name` depending on the outside crate `dep`, if `name` has a list of
/// outside dependencies ([`EXTERNAL`]) and `dep` is not on it.
fn outside_problem(name: &str, dep: &str) -> Option<String> {
    let (_, list) = EXTERNAL
        .iter()
        .find(|(crate_name, _)| *crate_name == name)?;
    (!list.contains(&dep)).then(|| {
        format!(
            "`{name}` depends on `{dep}`, which is not in its list of outside dependencies \
             (EXTERNAL in xtask/src/tidy.rs)"
        )
    })
}

fn conventions(root: &Path, problems: &mut Vec<String>) -> Result<(), String> {
    let mut manifests = vec![root.join("xtask/Cargo.toml")];
    let mut sources = Vec::new();
    for entry in fs::read_dir(root.join("crates")).map_err(|e| e.to_string())? {
        let dir = entry.map_err(|e| e.to_string())?.path();
        manifests.push(dir.join("Cargo.toml"));
        collect_rs(&dir, &mut sources)?;
    }
    collect_rs(&root.join("xtask"), &mut sources)?;
    for manifest in &manifests {
        let text = fs::read_to_string(manifest).map_err(|e| e.to_string())?;
        if !text.contains("[lints]\nworkspace = true") {
            problems.push(format!(
                "{}: lacks `[lints] workspace = true`",
                rel(root, manifest)
            ));
        }
        // Every dependency is declared once, in the workspace manifest.
        let mut section = "";
        for line in text.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                section = line;
                continue;
            }
            let is_deps = section.ends_with("dependencies]");
            if is_deps
                && !line.is_empty()
                && !line.starts_with('#')
                && !line.contains("workspace = true")
            {
                problems.push(format!(
                    "{}: `{line}` should be `name.workspace = true`, declared in the root manifest",
                    rel(root, manifest)
                ));
            }
        }
    }
    for source in &sources {
        let text = fs::read_to_string(source).map_err(|e| e.to_string())?;
        if !text.starts_with("//!") {
            problems.push(format!(
                "{}: does not begin with a `//!` line",
                rel(root, source)
            ));
        }
        if source.file_name().is_some_and(|n| n == "mod.rs") {
            problems.push(format!(
                "{}: use `foo.rs` beside `foo/`, not `mod.rs`",
                rel(root, source)
            ));
        }
        let rel = rel(root, source);
        let is_test = modules::is_test_file(source) || rel.split('/').any(|part| part == "benches");
        let code = lines_before_tests(&text);
        if rel.starts_with("crates/") && !is_test && code > MAX_CODE_LINES {
            problems.push(format!(
                "{rel}: {code} lines before its tests, more than {MAX_CODE_LINES}: split it \
                 along its seams into files of one idea"
            ));
        }
    }
    Ok(())
}

/// The most lines a source file under `crates/` holds outside its tests: past it, a file
/// holds more than one idea (docs/ARCHITECTURE.md).
const MAX_CODE_LINES: usize = 1000;

/// How many lines a source file has before its `#[cfg(test)]` module, if it has one.
fn lines_before_tests(text: &str) -> usize {
    text.lines()
        .take_while(|line| line.trim() != "#[cfg(test)]")
        .count()
}

/// Checks that each crate's sources name nothing beyond its [`REACH`], and that every
/// crate of the workspace has a reach.
fn reach(root: &Path, problems: &mut Vec<String>) -> Result<(), String> {
    for entry in fs::read_dir(root.join("crates")).map_err(|e| e.to_string())? {
        let dir = entry.map_err(|e| e.to_string())?.path();
        let name = dir
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some(&(_, reach)) = REACH.iter().find(|(crate_name, _)| *crate_name == name) else {
            problems.push(format!(
                "crate `{name}` is not in the reach table of xtask/src/tidy.rs"
            ));
            continue;
        };
        let mut sources = Vec::new();
        collect_rs(&dir.join("src"), &mut sources)?;
        for source in &sources {
            // Unit tests in a sibling `tests.rs` may read their fixtures.
            if source.file_name().is_some_and(|n| n == "tests.rs") {
                continue;
            }
            let text = fs::read_to_string(source).map_err(|e| e.to_string())?;
            problems.extend(overreach(&text, reach).into_iter().map(|found| {
                format!(
                    "{}:{found}, beyond what `{name}` may reach ({reach:?}; docs/ARCHITECTURE.md)",
                    rel(root, source)
                )
            }));
        }
    }
    Ok(())
}

/// The release profile ships small binaries (`cargo install`, the wheel): no debug info, no
/// symbols. The benchmarks and profilers keep the same code with debug info in `profiling`.
fn profile_problems(manifest: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let release = section(manifest, "[profile.release]");
    if !release.contains(&"strip = true") || release.iter().any(|line| line.starts_with("debug")) {
        problems.push(
            "Cargo.toml: `[profile.release]` must have `strip = true` and no `debug`".to_owned(),
        );
    }
    let profiling = section(manifest, "[profile.profiling]");
    if !profiling.contains(&"inherits = \"release\"") || !profiling.contains(&"debug = 1") {
        problems.push(
            "Cargo.toml: `[profile.profiling]` must inherit `release` with `debug = 1`".to_owned(),
        );
    }
    problems
}

/// The trimmed lines of a TOML table, up to the next header; empty when it is missing.
fn section<'a>(text: &'a str, header: &str) -> Vec<&'a str> {
    text.lines()
        .map(str::trim)
        .skip_while(|line| *line != header)
        .skip(1)
        .take_while(|line| !line.starts_with('['))
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect()
}

fn collect_rs(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> Result<(), String> {
    collect_files(dir, "rs", out)
}

/// The files under `dir` whose extension is `extension`, build output (`target/`) aside.
fn collect_files(
    dir: &Path,
    extension: &str,
    out: &mut Vec<std::path::PathBuf>,
) -> Result<(), String> {
    for entry in fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            collect_files(&path, extension, out)?;
        } else if path.extension().is_some_and(|e| e == extension) {
            out.push(path);
        }
    }
    Ok(())
}

fn rel(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::{ALLOWED, REACH, Reach, outside_problem, overreach, profile_problems};

    #[test]
    fn workspace_is_tidy() {
        if let Err(problems) = super::check(&crate::root()) {
            panic!("{problems}");
        }
    }

    #[test]
    fn core_may_take_num_bigint_and_nothing_else() {
        assert_eq!(outside_problem("trailgate-core", "num-bigint"), None);
        assert!(outside_problem("trailgate-core", "serde").is_some_and(|p| p.contains("`serde`")));
        // Crates without a list take what the workspace manifest declares.
        assert_eq!(outside_problem("trailgate-expect", "serde"), None);
    }

    #[test]
    fn the_python_binding_is_the_top_layer() {
        let depends_on_binding: Vec<&str> = ALLOWED
            .iter()
            .filter(|(_, deps)| deps.contains(&"trailgate-python"))
            .map(|(name, _)| *name)
            .collect();
        assert_eq!(depends_on_binding, Vec::<&str>::new());
        let binding = ALLOWED.iter().find(|(name, _)| *name == "trailgate-python");
        assert!(binding.is_some_and(|(_, deps)| deps.contains(&"trailgate-cli")));
    }

    #[test]
    fn release_binaries_are_stripped_and_profiling_keeps_debug_info() {
        let good = "[profile.release]\nstrip = true\n\n[profile.profiling]\ninherits = \"release\"\ndebug = 1\n";
        assert_eq!(profile_problems(good), Vec::<String>::new());
        let with_debug = "[profile.release]\ndebug = 1\nstrip = true\n[profile.profiling]\ninherits = \"release\"\ndebug = 1\n";
        assert_eq!(profile_problems(with_debug).len(), 1);
        assert_eq!(
            profile_problems("[profile.release]\nstrip = true\n").len(),
            1
        );
    }

    #[test]
    fn the_binding_may_not_read_files_itself() {
        let binding = REACH.iter().find(|(name, _)| *name == "trailgate-python");
        assert_eq!(binding.map(|(_, reach)| *reach), Some(Reach::Nothing));
        assert_eq!(
            overreach("let text = std::fs::read_to_string(path)?;", Reach::Nothing),
            ["1: `std::fs`"]
        );
        assert_eq!(
            overreach("trailgate_cli::run(args, console)", Reach::Nothing),
            Vec::<String>::new()
        );
    }

    #[test]
    fn every_crate_with_a_layer_has_a_reach() {
        for (name, _) in ALLOWED.iter().filter(|(name, _)| *name != "xtask") {
            assert!(REACH.iter().any(|(other, _)| other == name), "{name}");
        }
    }
}
