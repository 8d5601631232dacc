//! `trailgate init`: a commented starter suite and a sample trace in the current folder, so
//! that a new user gets a passing `trailgate check` in two commands.

use std::fs;
use std::io::Write;
use std::path::Path;

use miette::Report;
use trailgate_expect::{Problem, SuiteError};

use trailgate_run::Output;

const SUITE: &str = include_str!("init/trailgate.yaml");
const TRACE: &str = include_str!("init/trace.json");
/// The default trace location of the starter test (its name as a slug).
const TRACE_PATH: &str = "traces/research-agent-searches-then-fetches.json";

/// Where the docs of this very version are read: the project's repository (the workspace
/// manifest's `repository`) at the version's tag, so that the starter suite's comments
/// lead a user who installed a wheel or a binary, with no clone, to the docs that match it.
fn docs_url() -> String {
    format!(
        "{}/blob/v{}/docs",
        env!("CARGO_PKG_REPOSITORY"),
        env!("CARGO_PKG_VERSION")
    )
}

pub(crate) fn run() -> Result<Output, Report> {
    let suite = SUITE.replace("{docs}", &docs_url());
    let files = [("trailgate.yaml", suite.as_str()), (TRACE_PATH, TRACE)];
    // Check everything first, so that a refusal writes nothing at all.
    for (path, _) in files {
        // A symbolic link counts as the file it is, even one that leads nowhere: following
        // it would write wherever it points.
        if fs::symlink_metadata(path).is_ok() {
            return Err(Report::new(SuiteError::detached(
                Problem::new(
                    "trailgate::init::exists",
                    format!("`{path}` exists already; `trailgate init` writes nothing over it"),
                    "",
                )
                .with_help("run `trailgate init` in an empty folder, or move the file away"),
            )));
        }
    }
    for (path, text) in files {
        let write = || -> std::io::Result<()> {
            if let Some(parent) = Path::new(path).parent() {
                fs::create_dir_all(parent)?;
            }
            // `create_new` refuses a file, or a link, that appeared since the check above.
            fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)?
                .write_all(text.as_bytes())
        };
        write().map_err(|error| Report::msg(format!("cannot write `{path}`: {error}")))?;
    }
    let stdout = format!(
        "wrote trailgate.yaml and {TRACE_PATH}\nnext: trailgate check\ndocs: {}/suite.md\n",
        docs_url()
    )
    .into_bytes();
    Ok(Output {
        stdout: stdout.into(),
        ..Output::default()
    })
}
