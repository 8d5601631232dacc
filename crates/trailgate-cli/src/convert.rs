//! `trailgate convert`: read trace files in any supported format and print their runs in
//! trailgate's own call-list shape, one JSON line per run (`trailgate_run::convert`).

use miette::Report;
use trailgate_run::Output;

use crate::cli::ConvertArgs;

pub(crate) fn run(args: &ConvertArgs) -> Result<Output, Report> {
    Ok(trailgate_run::convert(&args.files, &args.read.options())?)
}
