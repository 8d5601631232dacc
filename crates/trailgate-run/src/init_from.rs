//! `trailgate init --from`: a suite written from recorded runs, checked against them before
//! it is written (docs/init.md).

use std::fs;
use std::io::Write as _;
use std::path::{Component, Path, PathBuf};

use glob::Pattern;
use trailgate_expect::{Problem, SuggestNaming, SuggestTest, SuiteError, suggest_suite};
use trailgate_trace::{ReadOptions, Run};

use crate::check::{check, read_parts};
use crate::discover::{TraceFile, display, folder_traces};
use crate::error::Error;
use crate::options::{CheckOptions, TraceOptions};
use crate::output::Output;

/// What `init --from` is asked.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct InitOptions {
    /// One test per path: a trace file, or a folder of them.
    pub paths: Vec<PathBuf>,
    /// Where the suite goes; `-` is standard output.
    pub output: PathBuf,
    /// Whether an existing `output` is replaced.
    pub force: bool,
    /// How to read the traces, written into each test when given.
    pub read: TraceOptions,
}

impl InitOptions {
    /// The suite from `paths` into `trailgate.yaml`, nothing replaced, formats detected.
    pub fn new(paths: Vec<PathBuf>) -> Self {
        Self {
            paths,
            output: PathBuf::from("trailgate.yaml"),
            force: false,
            read: TraceOptions::default(),
        }
    }
}

/// A usage problem of `init --from`, exit 2.
fn refused(code: &'static str, message: String, help: &str) -> Error {
    Error::Suite(SuiteError::detached(
        Problem::new(code, message, "").with_help(help.to_owned()),
    ))
}

/// Writes the suite `options` ask for; nothing is written when a path gives no call, when
/// the output exists (without `force`), or when the suite would fail on its own runs.
pub fn init_from(options: &InitOptions) -> Result<Output, Error> {
    let to_stdout = options.output.as_os_str() == "-";
    if !to_stdout && !options.force && fs::symlink_metadata(&options.output).is_ok() {
        return Err(refused(
            "trailgate::init::exists",
            format!(
                "`{}` exists already; `trailgate init --from` writes nothing over it",
                display(&options.output)
            ),
            "pass `--force` to replace it, or `--output` to write elsewhere",
        ));
    }
    let suite_dir = if to_stdout {
        PathBuf::new()
    } else {
        options
            .output
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    };
    let read = ReadOptions {
        format: options.read.trace_format.clone(),
        naming: options.read.naming()?,
    };
    let mut inputs = Vec::new();
    for path in &options.paths {
        let files = trace_files(path)?;
        let mut runs = Vec::new();
        for file in &files {
            runs.extend(read_runs(file, &read)?);
        }
        if runs.iter().all(|run| run.calls.is_empty()) {
            return Err(refused(
                "trailgate::init::no_calls",
                format!("no tool call was read from `{}`", display(path)),
                "give trace files of runs that called tools (`trailgate convert` shows what \
                 trailgate reads from a file)",
            ));
        }
        inputs.push((test_name(path), files, runs));
    }
    let naming = options.read.naming.as_ref().map(|scheme| SuggestNaming {
        scheme: scheme.clone(),
        servers: options.read.servers.clone(),
        pattern: options.read.naming_pattern.clone(),
    });
    let tests: Vec<SuggestTest<'_>> = inputs
        .iter()
        .map(|(name, files, runs)| SuggestTest {
            name: name.clone(),
            traces: files
                .iter()
                .map(|file| trace_entry(file, &suite_dir))
                .collect(),
            trace_format: options.read.trace_format.clone(),
            naming: naming.clone(),
            runs,
        })
        .collect();
    let text = suggest_suite(&tests);
    let staged = stage(&text, &suite_dir)?;
    self_check(staged.path())?;
    let runs: usize = inputs.iter().map(|(_, _, runs)| runs.len()).sum();
    let summary = format!(
        "{} {} from {runs} {}",
        tests.len(),
        if tests.len() == 1 { "test" } else { "tests" },
        if runs == 1 { "run" } else { "runs" },
    );
    if to_stdout {
        return Ok(Output {
            stdout: text.into_bytes().into(),
            ..Output::default()
        });
    }
    let placed = if options.force {
        staged.persist(&options.output).map(|_| ())
    } else {
        staged.persist_noclobber(&options.output).map(|_| ())
    };
    placed.map_err(|error| {
        Error::Message(format!(
            "cannot write `{}`: {}",
            display(&options.output),
            error.error
        ))
    })?;
    Ok(Output {
        stdout: format!(
            "wrote {}: {summary}; every gate holds on each run\nnext: read its comments, \
             tighten what must always hold, then trailgate check\n",
            display(&options.output)
        )
        .into_bytes()
        .into(),
        ..Output::default()
    })
}

/// The trace files of a path: the file, or the `.json` and `.jsonl` files directly in the
/// folder, in byte order of their paths, as `traces:` takes them.
fn trace_files(path: &Path) -> Result<Vec<PathBuf>, Error> {
    let missing = || {
        refused(
            "trailgate::init::no_traces",
            format!("no trace file at `{}`", display(path)),
            "give a trace file, or a folder that holds `.json` or `.jsonl` trace files",
        )
    };
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    if !path.is_dir() {
        return Err(missing());
    }
    let mut files = folder_traces(path).map_err(|error| {
        Error::Message(format!("cannot read folder `{}`: {error}", display(path)))
    })?;
    files.sort();
    if files.is_empty() {
        return Err(missing());
    }
    Ok(files)
}

/// Every run of a trace file.
fn read_runs(path: &Path, options: &ReadOptions) -> Result<Vec<Run>, Error> {
    let trace = TraceFile::named(path);
    let mut runs = Vec::new();
    read_parts(&trace, options, |part| {
        for run in part.into_runs() {
            runs.push(run?);
        }
        Ok(())
    })?;
    Ok(runs)
}

/// A test's name from its path: the file's name before its last `.`, or the folder's name.
fn test_name(path: &Path) -> String {
    let name = if path.is_dir() {
        path.file_name()
    } else {
        path.file_stem()
    };
    name.map(|name| name.to_string_lossy().into_owned())
        .filter(|name| !name.is_empty() && name != "." && name != "..")
        .unwrap_or_else(|| "runs".to_owned())
}

/// A trace file as `traces:` writes it: relative to the suite's folder, with `/`
/// separators, glob characters escaped.
fn trace_entry(file: &Path, suite_dir: &Path) -> String {
    let relative = relative_to(file, suite_dir);
    let text = relative
        .components()
        .map(|component| component.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    if text.contains(['*', '?', '[']) {
        Pattern::escape(&text)
    } else {
        text
    }
}

/// `path` relative to `base`, both taken from the current folder, compared by their parts
/// (no link followed).
fn relative_to(path: &Path, base: &Path) -> PathBuf {
    let absolute =
        |path: &Path| normal(&std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()));
    let path = absolute(path);
    let base = absolute(if base.as_os_str().is_empty() {
        Path::new(".")
    } else {
        base
    });
    let common = path
        .components()
        .zip(base.components())
        .take_while(|(a, b)| a == b)
        .count();
    let mut relative = PathBuf::new();
    for _ in base.components().skip(common) {
        relative.push("..");
    }
    for component in path.components().skip(common) {
        relative.push(component);
    }
    relative
}

/// `path` with `.` dropped and `..` taken back, by its text.
fn normal(path: &Path) -> PathBuf {
    let mut parts = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts
}

/// The suite written to a temporary file in the suite's folder, where `check` reads it as it
/// will be read.
fn stage(text: &str, suite_dir: &Path) -> Result<tempfile::NamedTempFile, Error> {
    let folder = if suite_dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        suite_dir
    };
    let write = || -> std::io::Result<tempfile::NamedTempFile> {
        let mut staged = tempfile::Builder::new()
            .prefix(".trailgate-init-")
            .suffix(".yaml")
            .tempfile_in(folder)?;
        staged.write_all(text.as_bytes())?;
        staged.flush()?;
        Ok(staged)
    };
    write().map_err(|error| {
        Error::Message(format!(
            "cannot write the suite in `{}`: {error}",
            display(folder)
        ))
    })
}

/// `trailgate check` on the staged suite: it passes on the runs it came from, or `init` has
/// a defect, reported as one.
fn self_check(staged: &Path) -> Result<(), Error> {
    let defect = |why: String| {
        Error::Message(format!(
            "trailgate init --from wrote a suite that does not pass on its own runs ({why}); \
             this is a defect of trailgate, please report it with the traces"
        ))
    };
    match check(staged, &CheckOptions::new(Vec::new())) {
        Ok(output) if !output.gate_failed => Ok(()),
        Ok(_) => Err(defect("a gate failed".to_owned())),
        Err(error) => Err(defect(error.to_string())),
    }
}
