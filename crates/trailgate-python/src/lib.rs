//! `trailgate._native`: the Rust half of the `trailgate` Python package.
//!
//! The package's Python half (`python/trailgate/`) is the API users call; this module gives
//! it three things. `run` and `run_captured` run the `trailgate` command line itself, the one
//! the binary runs ([`trailgate_cli::run`]): the console script is that command line.
//! `check` and `read_trace` take the words of a `check` or `convert` command line, which
//! [`trailgate_cli::parse`] turns into options with the command line's own usage errors, and
//! call the pipeline itself, [`trailgate_run::check`] and [`trailgate_run::convert`], so they
//! read, score and report exactly as the binary does. `score` scores one run's calls against
//! equal-function classes with `trailgate-core`, plain data in and out.

use std::ffi::OsString;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use trailgate_core::{CallOutcome, Class, ClassSet, Member, ToolId};

/// Runs the command line `args` (the program's name first) on the process's own standard
/// output and error, and returns the exit code.
#[pyfunction]
fn run(py: Python<'_>, args: Vec<OsString>) -> u8 {
    // Without the GIL, so that Python threads go on while a long suite is checked.
    py.detach(|| trailgate_cli::run(args, &mut trailgate_cli::Console::process()))
}

/// Runs the command line `args` (the program's name first) with its standard output and
/// error captured, and returns `(exit code, stdout bytes, stderr text)`.
#[pyfunction]
fn run_captured(py: Python<'_>, args: Vec<OsString>) -> (u8, Py<PyBytes>, String) {
    let (code, stdout, stderr) = py.detach(|| {
        let mut stdout = Vec::new();
        let mut stderr = Vec::new();
        let code = trailgate_cli::run(
            args,
            &mut trailgate_cli::Console::captured(&mut stdout, &mut stderr),
        );
        (code, stdout, stderr)
    });
    (
        code,
        PyBytes::new(py, &stdout).unbind(),
        String::from_utf8_lossy(&stderr).into_owned(),
    )
}

/// Runs the `check` command line `args` (the program's name first) through
/// [`trailgate_run::check`], and returns `(exit code, report bytes, diagnostic)`: the code and
/// the diagnostic are those the command line gives, the report what it prints.
#[pyfunction]
fn check(py: Python<'_>, args: Vec<OsString>) -> (u8, Py<PyBytes>, String) {
    let (code, stdout, diagnostic) = py.detach(|| match trailgate_cli::parse(args) {
        Ok(trailgate_cli::Parsed::Check { suite, options }) => delivered(
            trailgate_run::check(&suite, &options)
                .and_then(|output| trailgate_run::write_files(&output).map(|()| output)),
        ),
        Ok(_) => not_this_command("check"),
        Err(refused) => (refused.code, Vec::new(), refused.diagnostic),
    });
    (code, PyBytes::new(py, &stdout).unbind(), diagnostic)
}

/// Reads trace files as the `convert` command line `args` (the program's name first) says,
/// through [`trailgate_run::convert`], and returns `(exit code, runs as JSON lines,
/// diagnostic)`.
#[pyfunction]
fn read_trace(py: Python<'_>, args: Vec<OsString>) -> (u8, Py<PyBytes>, String) {
    let (code, stdout, diagnostic) = py.detach(|| match trailgate_cli::parse(args) {
        Ok(trailgate_cli::Parsed::Convert { files, options }) => {
            delivered(trailgate_run::convert(&files, &options))
        }
        Ok(_) => not_this_command("convert"),
        Err(refused) => (refused.code, Vec::new(), refused.diagnostic),
    });
    (code, PyBytes::new(py, &stdout).unbind(), diagnostic)
}

/// The exit code, the bytes of the report for standard output, and the diagnostic of a
/// command `trailgate_run` ran or refused.
fn delivered(result: Result<trailgate_run::Output, trailgate_run::Error>) -> (u8, Vec<u8>, String) {
    let output = match result {
        Ok(output) => output,
        Err(error) => {
            let refused = trailgate_cli::refused(&error);
            return (refused.code, Vec::new(), refused.diagnostic);
        }
    };
    let mut stdout = Vec::new();
    // A spooled report is read back from its temporary file, which may fail as a write to
    // standard output may.
    if let Err(error) = output.stdout.write_to(&mut stdout) {
        let error = trailgate_run::Error::Message(format!("cannot read the report back: {error}"));
        let refused = trailgate_cli::refused(&error);
        return (refused.code, Vec::new(), refused.diagnostic);
    }
    (trailgate_cli::exit_code(&output), stdout, String::new())
}

/// The package handed a native function another command: a bug of the package's own.
fn not_this_command(command: &str) -> (u8, Vec<u8>, String) {
    (
        2,
        Vec::new(),
        format!("error: the command line is not `trailgate {command}`\n"),
    )
}

/// A class member as the package hands it over: written as in a suite (`server.tool` or
/// `tool`, split at the first dot), or the parts of the object form (`server` or None,
/// `tool`), which are never split (docs/suite.md, `equal_function_sets`).
#[derive(FromPyObject)]
enum MemberArg {
    Text(String),
    Parts(Option<String>, String),
}

impl MemberArg {
    fn parse(&self) -> Result<Member, trailgate_core::MemberError> {
        match self {
            Self::Text(text) => Member::parse(text),
            Self::Parts(server, tool) => Member::new(server.as_deref(), tool),
        }
    }

    /// The member as the suite writes it, for a message.
    fn written(&self) -> String {
        match self {
            Self::Text(text) => text.clone(),
            Self::Parts(Some(server), tool) => format!("{{server: {server}, tool: {tool}}}"),
            Self::Parts(None, tool) => format!("{{tool: {tool}}}"),
        }
    }
}

/// Scores one run: `calls` (`(server or None, name)`, in trace order) against `classes`
/// (`(name, members)`, in declaration order, each member written as in a suite or the
/// parts of its object form). Raises `ValueError` for a class or member the core refuses.
#[pyfunction]
fn score(
    py: Python<'_>,
    classes: Vec<(String, Vec<MemberArg>)>,
    calls: Vec<(Option<String>, String)>,
) -> PyResult<Bound<'_, PyDict>> {
    let classes = classes
        .into_iter()
        .map(|(name, members)| {
            let members = members
                .iter()
                .map(|member| {
                    member.parse().map_err(|error| {
                        PyValueError::new_err(format!(
                            "invalid member `{}` of class `{name}`: {error}",
                            member.written()
                        ))
                    })
                })
                .collect::<PyResult<Vec<_>>>()?;
            Ok(Class::new(name, members))
        })
        .collect::<PyResult<Vec<_>>>()?;
    let classes = ClassSet::new(classes)
        .map_err(|error| PyValueError::new_err(format!("invalid classes: {error}")))?;
    let calls: Vec<ToolId> = calls
        .into_iter()
        .map(|(server, name)| ToolId::new(server, name))
        .collect();
    let selection = trailgate_core::score(&classes, &calls);
    let name_of = |index: usize| classes.classes()[index].name.as_str();

    // The keys and their order follow the JSON report's run entries.
    let result = PyDict::new(py);
    let counts = selection.counts;
    let metrics = counts.metrics();
    result.set_item("true_positives", counts.true_positives)?;
    result.set_item("false_positives", counts.false_positives)?;
    result.set_item("false_negatives", counts.false_negatives)?;
    result.set_item("precision", metrics.precision.value())?;
    result.set_item("recall", metrics.recall.value())?;
    result.set_item("f1", metrics.f1.value())?;
    let per_class = PyList::empty(py);
    for (index, satisfied_by) in selection.satisfied_by.iter().enumerate() {
        let entry = PyDict::new(py);
        entry.set_item("class", name_of(index))?;
        // Calls are numbered from 1, as in every report.
        entry.set_item("satisfied_by", satisfied_by.map(|call| call + 1))?;
        per_class.append(entry)?;
    }
    result.set_item("classes", per_class)?;
    let per_call = PyList::empty(py);
    for (call, outcome) in calls.iter().zip(&selection.calls) {
        let entry = PyDict::new(py);
        entry.set_item("tool", call.to_string())?;
        let (what, class) = match *outcome {
            CallOutcome::Satisfied(index) => ("satisfied", Some(name_of(index))),
            CallOutcome::Repeat(index) => ("repeat", Some(name_of(index))),
            // `CallOutcome` may grow; a call the core counts in a new way is no match.
            _ => ("unexpected", None),
        };
        entry.set_item("outcome", what)?;
        entry.set_item("class", class)?;
        per_call.append(entry)?;
    }
    result.set_item("calls", per_call)?;
    Ok(result)
}

/// The module `trailgate._native`.
#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    // A panic the Parquet reader catches (a corrupt page the `parquet` crate asserts on) is
    // an input error with its own message: the hook prints nothing for it, as the binary's
    // does. The hook is this extension's own (the module links its own copy of Rust's
    // standard library), so the Python process and other extensions keep theirs.
    trailgate_trace::quiet_guarded_panics();
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add_function(wrap_pyfunction!(run, module)?)?;
    module.add_function(wrap_pyfunction!(run_captured, module)?)?;
    module.add_function(wrap_pyfunction!(check, module)?)?;
    module.add_function(wrap_pyfunction!(read_trace, module)?)?;
    module.add_function(wrap_pyfunction!(score, module)?)?;
    Ok(())
}
