//! `trailgate compare`: read 2 to 16 JSON reports of one suite, compare each with the first,
//! render the comparison.

use std::path::{Path, PathBuf};

use trailgate_report::{
    LabelledReport, ReportFile, cannot_read_compared, check_labels, compare_reports,
};

use crate::discover::display;
use crate::error::Error;
use crate::options::{Format, ReportTarget};
use crate::output::Output;
use crate::report::{Report, render_targets};
use crate::report_file::open;

/// The formats `compare` writes: text, JSON, Markdown and one HTML page; no JUnit or
/// workflow commands, since a comparison judges nothing.
pub const COMPARE_FORMATS: &[Format] =
    &[Format::Text, Format::Json, Format::Markdown, Format::Html];

/// A report's label when none is given: its file's stem (`runs/large.json` is `large`).
fn stem(path: &Path) -> String {
    path.file_stem()
        .map_or_else(|| display(path), |stem| stem.to_string_lossy().into_owned())
}

/// Compares the JSON reports at `reports` (2 to 16, of one suite, docs/baselines.md), each
/// with the first, and renders the comparison for every target of `targets` (formats of
/// [`COMPARE_FORMATS`]), colouring those for standard output when `color`. `labels` are the
/// columns' labels, one per report, or none for the files' stems; `metric` is the metric the
/// matrix shows. A comparison judges nothing: [`Output::gate_failed`] stays false.
pub fn compare(
    reports: &[PathBuf],
    labels: &[String],
    metric: Option<&str>,
    targets: &[ReportTarget],
    color: bool,
) -> Result<Output, Error> {
    let names: Vec<String> = reports.iter().map(|path| display(path)).collect();
    let labels: Vec<String> = if labels.is_empty() {
        reports.iter().map(|path| stem(path)).collect()
    } else {
        labels.to_vec()
    };
    // The count and the labels are checked before any file is opened.
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let label_refs: Vec<&str> = labels.iter().map(String::as_str).collect();
    check_labels(&name_refs, &label_refs)?;
    let mut files = Vec::with_capacity(reports.len());
    for ((path, name), label) in reports.iter().zip(names).zip(labels) {
        let reader = open(path).map_err(|error| cannot_read_compared(&name, &error))?;
        files.push(LabelledReport {
            label,
            file: ReportFile { name, reader },
        });
    }
    let comparison = compare_reports(files, metric)?;
    let mut output = render_targets(Report::Compare(&comparison), targets, color)?;
    output.inputs = reports.to_vec();
    Ok(output)
}
