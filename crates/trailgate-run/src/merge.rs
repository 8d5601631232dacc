//! `trailgate merge`: read the shard reports, put the suite's report back together, gate.

use std::path::PathBuf;

use trailgate_report::{ShardFile, cannot_read_shard, merge_shards};

use crate::discover::display;
use crate::error::Error;
use crate::options::{Format, ReportTarget};
use crate::output::Output;
use crate::report::{Report, render_targets};
use crate::report_file::open;

/// The formats `merge` writes: a merged report has each test's verdict and gates, but the
/// runs' details stay in the shard reports.
pub const MERGE_FORMATS: &[Format] = &[Format::Text, Format::Json];

/// Merges the shard reports at `reports` (what `check --shard K/N` wrote as JSON for each
/// K) into the suite's report, gates it again, and renders every report of `targets`
/// (formats of [`MERGE_FORMATS`]), colouring those for standard output when `color`. The
/// same reports and verdict as one unsharded [`check`](crate::check).
pub fn merge(reports: &[PathBuf], targets: &[ReportTarget], color: bool) -> Result<Output, Error> {
    let mut files = Vec::with_capacity(reports.len());
    for path in reports {
        let name = display(path);
        let reader = open(path).map_err(|error| cannot_read_shard(&name, &error))?;
        files.push(ShardFile { name, reader });
    }
    let mut merged = merge_shards(files)?;
    let mut output = render_targets(Report::Merged(&mut merged), targets, color)?;
    output.inputs = reports.to_vec();
    output.gate_failed = !merged.passed();
    Ok(output)
}
