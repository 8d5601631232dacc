//! Reading trace files in any supported format into trailgate's own call-list shape, one
//! JSON line per run: what `trailgate convert` prints and what the Python package's
//! `read_trace` returns.

use std::path::PathBuf;

use trailgate_expect::RunSource;
use trailgate_trace::{ReadOptions, write_run};

use crate::check::read_parts;
use crate::discover::TraceFile;
use crate::error::Error;
use crate::options::TraceOptions;
use crate::output::Output;

/// Reads each of `files` as `options` say and writes its runs into [`Output::stdout`], one
/// JSON line per run; a file that gave no call is a warning.
pub fn convert(files: &[PathBuf], options: &TraceOptions) -> Result<Output, Error> {
    let options = ReadOptions {
        format: options.trace_format.clone(),
        naming: options.naming()?,
    };
    let mut stdout = Vec::new();
    let mut warnings = Vec::new();
    for path in files {
        let trace = TraceFile::named(path);
        let mut written = Ok(());
        let warning = read_parts(&trace, &options, |part| {
            for run in part.into_runs() {
                let run = run?;
                let source = RunSource {
                    file: trace.label.clone(),
                    line: run.line,
                    trace: run.trace_id.clone(),
                };
                if written.is_ok() {
                    written = write_run(&run, &source.to_string(), &mut stdout);
                }
            }
            Ok(())
        })?;
        warnings.extend(warning);
        written.map_err(|error| Error::Message(format!("cannot write the runs: {error}")))?;
    }
    Ok(Output {
        stdout: stdout.into(),
        warnings,
        ..Output::default()
    })
}
