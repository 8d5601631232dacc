//! `trailgate merge`: read the shard reports, put the suite's report back together, gate.

use std::fs::File;
use std::io;
use std::path::Path;

use miette::Report;
use trailgate_expect::{Problem, SuiteError};
use trailgate_report::{
    ShardFile, TextOptions, merge_shards, render_merged_json, render_merged_text,
};

use trailgate_run::{Format, Output, ReportTarget, display, spool};

use crate::cli::MergeArgs;

pub(crate) fn run(
    args: &MergeArgs,
    targets: &[ReportTarget],
    color: bool,
) -> Result<Output, Report> {
    let mut files = Vec::with_capacity(args.reports.len());
    for path in &args.reports {
        let name = display(path);
        let reader = open(path).map_err(|error| {
            Report::new(SuiteError::detached(
                Problem::new(
                    "trailgate::merge::io",
                    format!("cannot read shard report `{name}`: {error}"),
                    "",
                )
                .with_help("pass the files that `trailgate check --shard K/N --format json` wrote"),
            ))
        })?;
        files.push(ShardFile { name, reader });
    }
    let mut merged = merge_shards(files)?;
    let mut output = Output::default();
    for target in targets {
        let color = color && target.path.is_none();
        // The merged JSON report is as large as the shards': spooled to a temporary file,
        // not held in memory. The command line admits only `text` and `json`.
        let rendered = if target.format == Format::Json {
            spool(|out| render_merged_json(&mut merged, out))
        } else {
            let mut bytes = Vec::new();
            render_merged_text(&merged, TextOptions::with_color(color), &mut bytes)
                .map(|()| bytes.into())
        };
        output.deliver(target, rendered)?;
    }
    output.inputs.clone_from(&args.reports);
    output.gate_failed = !merged.passed();
    Ok(output)
}

/// A shard report's file, to be read as a stream and then again at each test's place. A
/// file that cannot seek (a pipe, `<(...)`) is copied to a temporary file first.
pub(crate) fn open(path: &Path) -> io::Result<File> {
    let mut file = File::open(path)?;
    if file.metadata()?.is_file() {
        return Ok(file);
    }
    let mut copy = tempfile::tempfile()?;
    io::copy(&mut file, &mut copy)?;
    Ok(copy)
}
