//! `toolgate convert`: read trace files in any supported format and print their runs in
//! toolgate's own call-list shape, one JSON line per run.

use miette::Report;
use toolgate_expect::RunSource;
use toolgate_trace::{FileLayout, ReadOptions, write_run};

use crate::check::{cli_naming, read_parts};
use crate::cli::ConvertArgs;
use crate::discover::{TraceFile, display};
use crate::exit;
use crate::output::Output;

pub(crate) fn run(args: &ConvertArgs) -> Result<Output, Report> {
    let options = ReadOptions {
        format: args.read.trace_format.clone(),
        naming: cli_naming(&args.read)?,
    };
    let mut stdout = Vec::new();
    let mut warnings = Vec::new();
    for path in &args.files {
        let trace = TraceFile {
            path: path.clone(),
            label: display(path),
            // Any extension but `.jsonl` is read as one JSON document.
            layout: FileLayout::from_path(path).unwrap_or(FileLayout::Json),
        };
        let mut written = Ok(());
        let warning = read_parts(&trace, &options, |part| {
            for run in part.into_runs() {
                let run = run?;
                let source = RunSource {
                    file: trace.label.clone(),
                    line: run.line,
                };
                if written.is_ok() {
                    written = write_run(&run, &source.to_string(), &mut stdout);
                }
            }
            Ok(())
        })?;
        warnings.extend(warning);
        written.map_err(|error| Report::msg(format!("cannot write the runs: {error}")))?;
    }
    Ok(Output {
        stdout: stdout.into(),
        warnings,
        code: exit::PASSED,
        ..Output::default()
    })
}
