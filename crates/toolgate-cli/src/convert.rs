//! `toolgate convert`: read trace files in any supported format and print their runs in
//! toolgate's own call-list shape, one JSON line per run (`toolgate_run::convert`).

use miette::Report;
use toolgate_run::Output;

use crate::cli::ConvertArgs;

pub(crate) fn run(args: &ConvertArgs) -> Result<Output, Report> {
    Ok(toolgate_run::convert(&args.files, &args.read.options())?)
}
