//! `trailgate diff`: read two JSON reports, compare them, render the comparison.

use std::path::Path;

use trailgate_report::{ReportFile, cannot_read_report, diff_reports};

use crate::discover::display;
use crate::error::Error;
use crate::options::{Format, ReportTarget};
use crate::output::Output;
use crate::report::{Report, render_targets};
use crate::report_file::open;

/// The formats `diff` writes: all but JUnit, which has no place for a comparison, and the
/// reports that list every run.
pub const DIFF_FORMATS: &[Format] = &[Format::Text, Format::Json, Format::Markdown, Format::Github];

/// Compares the JSON reports at `base` and `head` (of one suite, docs/baselines.md) and
/// renders the comparison for every target of `targets` (formats of [`DIFF_FORMATS`]),
/// colouring those for standard output when `color`. [`Output::gate_failed`] says whether
/// something regressed.
pub fn diff(
    base: &Path,
    head: &Path,
    targets: &[ReportTarget],
    color: bool,
) -> Result<Output, Error> {
    let file = |path: &Path| {
        let name = display(path);
        match open(path) {
            Ok(reader) => Ok(ReportFile { name, reader }),
            Err(error) => Err(cannot_read_report(&name, &error)),
        }
    };
    let diff = diff_reports(file(base)?, file(head)?)?;
    let mut output = render_targets(Report::Diff(&diff), targets, color)?;
    output.inputs = vec![base.to_path_buf(), head.to_path_buf()];
    output.gate_failed = diff.regressed();
    Ok(output)
}
