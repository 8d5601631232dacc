//! The release's promises, checked as text by `cargo xtask tidy` (docs/releasing.md):
//! - every link to the project names one home, the workspace manifest's `repository`, which
//!   the Python package's `[project.urls]` repeats;
//! - each internal crate in `[workspace.dependencies]` names the workspace's version, so
//!   that `cargo publish --workspace` publishes crates that depend on each other exactly.

use std::fs;
use std::path::{Path, PathBuf};

use super::{collect_files, rel, section};

/// The files whose links a user follows or copies: the README, the docs, the action, the
/// Python package's metadata and the workflows.
fn linked_files(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = vec![
        root.join("README.md"),
        root.join("action.yml"),
        root.join("action/run.sh"),
        root.join("pyproject.toml"),
    ];
    collect_files(&root.join("docs"), "md", &mut files)?;
    collect_files(&root.join(".github/workflows"), "yml", &mut files)?;
    Ok(files)
}

pub(super) fn problems(root: &Path) -> Result<Vec<String>, String> {
    let manifest = fs::read_to_string(root.join("Cargo.toml")).map_err(|e| e.to_string())?;
    let mut problems = version_problems(&manifest);
    let package = section(&manifest, "[workspace.package]");
    let Some(home) = value_of(&package, "repository") else {
        problems.push("Cargo.toml: `[workspace.package]` has no `repository`".to_owned());
        return Ok(problems);
    };
    let Some(owner) = home
        .strip_prefix("https://github.com/")
        .and_then(|rest| rest.strip_suffix("/trailgate"))
    else {
        problems.push(format!(
            "Cargo.toml: `repository` is `{home}`; the action needs a GitHub repository, `https://github.com/OWNER/trailgate`"
        ));
        return Ok(problems);
    };
    let pyproject = fs::read_to_string(root.join("pyproject.toml")).map_err(|e| e.to_string())?;
    if value_of(&section(&pyproject, "[project.urls]"), "Repository") != Some(home) {
        problems.push(format!(
            "pyproject.toml: `[project.urls]` needs `Repository = \"{home}\"`, the workspace's `repository`"
        ));
    }
    for file in linked_files(root)? {
        let text = fs::read_to_string(&file).map_err(|e| e.to_string())?;
        problems.extend(
            link_problems(&text, owner)
                .into_iter()
                .map(|problem| format!("{}:{problem}", rel(root, &file))),
        );
    }
    Ok(problems)
}

/// `key = "value"` among a table's trimmed lines.
fn value_of<'a>(lines: &[&'a str], key: &str) -> Option<&'a str> {
    lines.iter().find_map(|line| {
        let (name, value) = line.split_once('=')?;
        (name.trim() == key).then(|| value.trim().trim_matches('"'))
    })
}

/// The internal crates' entries in `[workspace.dependencies]` that do not pin the
/// workspace's version.
fn version_problems(manifest: &str) -> Vec<String> {
    let Some(version) = value_of(&section(manifest, "[workspace.package]"), "version") else {
        return vec!["Cargo.toml: `[workspace.package]` has no `version`".to_owned()];
    };
    let pin = format!("version = \"={version}\"");
    section(manifest, "[workspace.dependencies]")
        .into_iter()
        .filter(|line| line.starts_with("trailgate-") && !line.contains(&pin))
        .map(|line| format!("Cargo.toml: `{line}` should say `{pin}`, the workspace's version"))
        .collect()
}

/// Each link in `text` to a trailgate repository other than `owner`'s, and each stand-in
/// of an earlier kind, as `line: what`.
fn link_problems(text: &str, owner: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for (number, line) in text.lines().enumerate() {
        for stale in ["YOUR-ORG", "example.invalid"] {
            if line.contains(stale) {
                problems.push(format!(
                    "{}: `{stale}`; the project's home is `{owner}/trailgate`",
                    number + 1
                ));
            }
        }
        for (at, _) in line.match_indices("/trailgate") {
            let before = &line[..at];
            let segment_start = before
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'))
                .map_or(0, |i| i + 1);
            let segment = &before[segment_start..];
            let prefix = &before[..segment_start];
            let is_repository = prefix.ends_with("github.com/")
                || prefix.ends_with("gitlab.com/")
                || (prefix.ends_with("uses: ") && line[at..].starts_with("/trailgate@"));
            if is_repository && segment != owner {
                problems.push(format!(
                    "{}: `{segment}/trailgate`; the project's home is `{owner}/trailgate` (Cargo.toml's `repository`)",
                    number + 1
                ));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::{link_problems, version_problems};

    #[test]
    fn links_to_another_home_are_found_and_the_home_is_not() {
        let text = "uses: OWNER/trailgate@v0.1.0\n\
                    uses: acme/trailgate@v1\n\
                    cargo install --git https://github.com/OWNER/trailgate --tag v0.1.0\n\
                    see https://gitlab.com/acme/trailgate and YOUR-ORG\n\
                    crates/trailgate-cli and $scratch/trailgate-cargo are paths\n";
        assert_eq!(
            link_problems(text, "OWNER"),
            [
                "2: `acme/trailgate`; the project's home is `OWNER/trailgate` (Cargo.toml's `repository`)",
                "4: `YOUR-ORG`; the project's home is `OWNER/trailgate`",
                "4: `acme/trailgate`; the project's home is `OWNER/trailgate` (Cargo.toml's `repository`)",
            ]
        );
    }

    #[test]
    fn internal_crates_pin_the_workspace_version() {
        let manifest = "[workspace.package]\nversion = \"0.2.0\"\n\n[workspace.dependencies]\n\
                        trailgate-core = { path = \"crates/trailgate-core\", version = \"=0.2.0\" }\n\
                        trailgate-trace = { path = \"crates/trailgate-trace\", version = \"=0.1.0\" }\n\
                        serde = \"1\"\n";
        assert_eq!(
            version_problems(manifest),
            [
                "Cargo.toml: `trailgate-trace = { path = \"crates/trailgate-trace\", version = \"=0.1.0\" }` should say `version = \"=0.2.0\"`, the workspace's version"
            ]
        );
    }
}
