//! `trailgate merge`: read the shard reports, put the suite's report back together, gate.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use trailgate_expect::{Problem, SuiteError};
use trailgate_report::{ShardFile, merge_shards};
use trailgate_trace::MAX_DOCUMENT_BYTES;

use crate::discover::display;
use crate::error::Error;
use crate::options::{Format, ReportTarget};
use crate::output::Output;
use crate::report::{Report, render_targets};

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
        let reader = open(path).map_err(|error| {
            SuiteError::detached(
                Problem::new(
                    "trailgate::merge::io",
                    format!("cannot read shard report `{name}`: {error}"),
                    "",
                )
                .with_help("pass the files that `trailgate check --shard K/N --format json` wrote"),
            )
        })?;
        files.push(ShardFile { name, reader });
    }
    let mut merged = merge_shards(files)?;
    let mut output = render_targets(Report::Merged(&mut merged), targets, color)?;
    output.inputs = reports.to_vec();
    output.gate_failed = !merged.passed();
    Ok(output)
}

/// A report's file, to be read as a stream and then again at each test's place. A file
/// that cannot seek (a pipe, `<(...)`, a device) is copied to a temporary file first, up to
/// [`MAX_DOCUMENT_BYTES`]: past that it is refused, so that an endless input (`/dev/zero`)
/// cannot fill the disk (docs/robustness.md#limits).
pub(crate) fn open(path: &Path) -> io::Result<File> {
    let file = File::open(path)?;
    if file.metadata()?.is_file() {
        return Ok(file);
    }
    let mut copy = tempfile::tempfile()?;
    let limit = MAX_DOCUMENT_BYTES as u64;
    let copied = io::copy(&mut file.take(limit + 1), &mut copy)?;
    if copied > limit {
        return Err(io::Error::other(format!(
            "it is not a file and gives more than {} MiB; pass a report written to a file",
            MAX_DOCUMENT_BYTES >> 20
        )));
    }
    copy.seek(SeekFrom::Start(0))?;
    Ok(copy)
}
