//! `trailgate trend`: read several JSON reports, oldest first, follow each test's metrics,
//! render the trend.

use std::path::PathBuf;

use trailgate_report::{ReportFile, TrendOptions, cannot_read_trend_report, trend_reports};

use crate::diff::DIFF_FORMATS;
use crate::discover::display;
use crate::error::Error;
use crate::options::{Format, ReportTarget};
use crate::output::Output;
use crate::report::{Report, render_targets};
use crate::report_file::open;

/// The formats `trend` writes: `diff`'s.
pub const TREND_FORMATS: &[Format] = DIFF_FORMATS;

/// Follows the metrics of the JSON reports at `reports` (of one suite, oldest first,
/// docs/baselines.md#trends) over the window of `options`, and renders the trend for every
/// target of `targets` (formats of [`TREND_FORMATS`]), colouring those for standard output
/// when `color`. [`Output::gate_failed`] says whether a metric drifts.
pub fn trend(
    reports: &[PathBuf],
    options: TrendOptions,
    targets: &[ReportTarget],
    color: bool,
) -> Result<Output, Error> {
    let mut files = Vec::with_capacity(reports.len());
    for path in reports {
        let name = display(path);
        let reader = open(path).map_err(|error| cannot_read_trend_report(&name, &error))?;
        files.push(ReportFile { name, reader });
    }
    let trend = trend_reports(files, options)?;
    let mut output = render_targets(Report::Trend(&trend), targets, color)?;
    output.inputs = reports.to_vec();
    output.gate_failed = trend.drifted();
    Ok(output)
}
