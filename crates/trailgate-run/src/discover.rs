//! Finding a test's trace files: its `traces:` paths and globs, or the default location
//! named after the test.

use std::fs;
use std::path::{Component, Path, PathBuf};

use glob::{MatchOptions, Pattern};
use trailgate_expect::{PathSeg, Problem, SuiteError, SuiteFile, Test, TracePattern, slug};
use trailgate_trace::FileLayout;
use walkdir::WalkDir;

/// A trace file to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TraceFile {
    /// The path to open (relative to the current folder when the suite's path was).
    pub(crate) path: PathBuf,
    /// The path relative to the suite's folder, with `/` separators, for reports.
    pub(crate) label: String,
    /// How the file holds its records.
    pub(crate) layout: FileLayout,
}

impl TraceFile {
    /// A file named on the command line (`convert`, `init --from`), labelled as given; any
    /// extension but `.jsonl` is read as one JSON document.
    pub(crate) fn named(path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
            label: display(path),
            layout: FileLayout::from_path(path).unwrap_or(FileLayout::Json),
        }
    }
}

/// Where a test's runs come from, for error messages.
pub(crate) enum Searched {
    /// The default location: these paths were tried.
    Default(Vec<String>),
    /// The test's own `traces:`.
    Patterns,
}

/// The test's trace files, without duplicates, in byte order of their paths.
pub(crate) fn discover(
    test: &Test,
    suite_dir: &Path,
    traces_dir: Option<&Path>,
    file: &SuiteFile,
) -> Result<(Vec<TraceFile>, Searched), SuiteError> {
    let mut found = Vec::new();
    let searched = if let Some(patterns) = &test.traces {
        for pattern in patterns {
            found.extend(from_pattern(test, pattern, suite_dir, file)?);
        }
        Searched::Patterns
    } else {
        let base = traces_dir.map_or_else(|| suite_dir.join("traces"), Path::to_path_buf);
        let slug = slug(&test.name);
        let folder = base.join(&slug);
        if folder.is_dir() {
            found.extend(
                folder_traces(&folder).map_err(|error| io_problem(file, test, &folder, &error))?,
            );
        }
        let mut tried = vec![format!("{}/", display(&folder))];
        for extension in ["json", "jsonl"] {
            let single = base.join(format!("{slug}.{extension}"));
            if single.is_file() {
                found.push(single.clone());
            }
            tried.push(display(&single));
        }
        Searched::Default(tried)
    };
    found.sort_by(|a, b| {
        a.as_os_str()
            .as_encoded_bytes()
            .cmp(b.as_os_str().as_encoded_bytes())
    });
    found.dedup();
    // The same file reached by two paths (a link, `a/../a`) is one file, counted once, under
    // the first of its paths in byte order.
    let mut seen = std::collections::BTreeSet::new();
    found.retain(|path| seen.insert(fs::canonicalize(path).unwrap_or_else(|_| path.clone())));
    Ok((
        found
            .into_iter()
            .filter_map(|path| {
                let layout = FileLayout::from_path(&path)?;
                Some(TraceFile {
                    label: label(&path, suite_dir),
                    path,
                    layout,
                })
            })
            .collect(),
        searched,
    ))
}

fn from_pattern(
    test: &Test,
    pattern: &TracePattern,
    suite_dir: &Path,
    file: &SuiteFile,
) -> Result<Vec<PathBuf>, SuiteError> {
    let problem = |problem: Problem| {
        let mut path = vec![
            PathSeg::Key("tests"),
            PathSeg::Index(test.index),
            PathSeg::Key("traces"),
        ];
        if let Some(index) = pattern.index {
            path.push(PathSeg::Index(index));
        }
        file.error(vec![problem.at(file.span(&path))])
    };
    let joined = suite_dir.join(&pattern.pattern);
    if !pattern.is_glob() {
        return named_path(joined, &problem);
    }

    let full = if Path::new(&pattern.pattern).is_absolute() || suite_dir.as_os_str().is_empty() {
        pattern.pattern.clone()
    } else {
        format!(
            "{}/{}",
            Pattern::escape(&suite_dir.to_string_lossy()),
            pattern.pattern
        )
    };
    let options = MatchOptions {
        case_sensitive: true,
        require_literal_separator: true,
        require_literal_leading_dot: false,
    };
    let compiled = Pattern::new(&full).map_err(|error| {
        problem(
            Problem::new(
                "trailgate::traces::glob",
                format!("invalid glob `{}`: {}", pattern.pattern, error.msg),
                "invalid glob",
            )
            .with_help("`*` matches within one folder, `**` across folders, `?` one character, `[ab]` a set"),
        )
    })?;
    // The folders before the first wildcard are walked, following symbolic links; walkdir
    // notices a link back to a folder it is inside and reports it instead of looping, and
    // such a link is skipped. Without `**`, the walk goes no deeper than the pattern does.
    let (root, depth) = glob_root(&full);
    // A pattern that starts with a wildcard is walked from `.`, and its paths matched
    // without the walk's leading `./`.
    let strip_dot = !full.starts_with('.') && root == Path::new(".");
    let mut walk = WalkDir::new(&root).follow_links(true).min_depth(1);
    if let Some(depth) = depth {
        walk = walk.max_depth(depth);
    }
    let mut found = Vec::new();
    for entry in walk {
        let entry = match entry {
            Ok(entry) => entry,
            // A link back to an enclosing folder, a dangling link or a missing root is
            // nothing to read.
            Err(error)
                if error.loop_ancestor().is_some()
                    || error
                        .io_error()
                        .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound) =>
            {
                continue;
            }
            Err(error) => {
                let path = error.path().map(display).unwrap_or_default();
                return Err(problem(Problem::new(
                    "trailgate::traces::io",
                    format!("cannot read `{path}`: {error}"),
                    "while matching this glob",
                )));
            }
        };
        // A name that is not UTF-8 is matched with its bad bytes as U+FFFD, which `*` and
        // `?` match, and read by its real path.
        let path = if strip_dot {
            entry.path().strip_prefix(".").unwrap_or(entry.path())
        } else {
            entry.path()
        };
        // A glob may sweep up other files (a README beside the traces); only traces count.
        if entry.file_type().is_file()
            && FileLayout::from_path(path).is_some()
            && compiled.matches_with(&path.to_string_lossy(), options)
        {
            found.push(path.to_path_buf());
        }
    }
    Ok(found)
}

/// The trace files a `traces:` path that is not a glob names: the file, or the traces
/// directly inside the folder.
fn named_path(
    joined: PathBuf,
    problem: &dyn Fn(Problem) -> SuiteError,
) -> Result<Vec<PathBuf>, SuiteError> {
    let metadata = match fs::metadata(&joined) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(problem(
                Problem::new(
                    "trailgate::traces::not_found",
                    format!("trace file `{}` does not exist", display(&joined)),
                    "no such file",
                )
                .with_help("`traces:` paths are relative to the suite file's folder"),
            ));
        }
        // A symbolic link that loops, a folder that cannot be entered: the system says
        // which.
        Err(error) => {
            return Err(problem(Problem::new(
                "trailgate::traces::io",
                format!("cannot read trace file `{}`: {error}", display(&joined)),
                "this file",
            )));
        }
    };
    if !metadata.is_dir() && !metadata.is_file() {
        return Err(problem(
            Problem::new(
                "trailgate::traces::not_a_file",
                format!(
                    "trace file `{}` is not a regular file (a FIFO, a socket or a device)",
                    display(&joined)
                ),
                "not a file",
            )
            .with_help("a trace is a `.json` or `.jsonl` file that trailgate reads whole"),
        ));
    }
    if metadata.is_dir() {
        return folder_traces(&joined).map_err(|error| {
            problem(Problem::new(
                "trailgate::traces::io",
                format!("cannot read trace folder `{}`: {error}", display(&joined)),
                "this folder",
            ))
        });
    }
    if FileLayout::from_path(&joined).is_none() {
        return Err(problem(
            Problem::new(
                "trailgate::traces::format",
                format!(
                    "trace file `{}` is neither `.json` nor `.jsonl`",
                    display(&joined)
                ),
                "unknown trace format",
            )
            .with_help("a `.json` file holds one run; a `.jsonl` file one run per line"),
        ));
    }
    Ok(vec![joined])
}

/// The folder to walk for the glob `full`: its components before the first one with a
/// wildcard; and how deep below it the pattern reaches, unless it has `**`.
fn glob_root(full: &str) -> (PathBuf, Option<usize>) {
    let components: Vec<&str> = full.split('/').collect();
    let literal = components
        .iter()
        .take_while(|component| !component.contains(['*', '?', '[']))
        .count();
    let root = if literal == 0 {
        ".".to_owned()
    } else if components[..literal].join("/").is_empty() {
        "/".to_owned()
    } else {
        // The escapes of `Pattern::escape` (`[*]`) never reach here: a component with a
        // bracket ends the literal part.
        components[..literal].join("/")
    };
    let rest = &components[literal..];
    let depth = (!rest.iter().any(|component| component.contains("**"))).then_some(rest.len());
    (PathBuf::from(root), depth)
}

/// The `.json` and `.jsonl` files directly inside `folder`.
pub(crate) fn folder_traces(folder: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for entry in fs::read_dir(folder)? {
        let path = entry?.path();
        if path.is_file() && FileLayout::from_path(&path).is_some() {
            found.push(path);
        }
    }
    Ok(found)
}

fn io_problem(file: &SuiteFile, test: &Test, path: &Path, error: &std::io::Error) -> SuiteError {
    let span = file.span(&[
        PathSeg::Key("tests"),
        PathSeg::Index(test.index),
        PathSeg::Key("name"),
    ]);
    file.error(vec![
        Problem::new(
            "trailgate::traces::io",
            format!("cannot read trace folder `{}`: {error}", display(path)),
            "for this test",
        )
        .at(span),
    ])
}

/// `path` relative to the suite's folder, with `/` separators.
fn label(path: &Path, suite_dir: &Path) -> String {
    display(path.strip_prefix(suite_dir).unwrap_or(path))
}

/// A path with `/` separators, whatever the platform, so that reports are byte-stable.
pub(crate) fn display(path: &Path) -> String {
    let mut out = String::new();
    for component in path.components() {
        match component {
            Component::Prefix(prefix) => out.push_str(&prefix.as_os_str().to_string_lossy()),
            Component::RootDir => out.push('/'),
            other => {
                if !out.is_empty() && !out.ends_with('/') {
                    out.push('/');
                }
                out.push_str(&other.as_os_str().to_string_lossy());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::display;

    #[test]
    fn paths_are_shown_with_forward_slashes_and_one_root() {
        assert_eq!(display(Path::new("traces/a.json")), "traces/a.json");
        assert_eq!(display(Path::new("/tmp/suite.yaml")), "/tmp/suite.yaml");
        assert_eq!(display(Path::new("./trailgate.yaml")), "./trailgate.yaml");
        assert_eq!(display(Path::new("")), "");
    }
}
