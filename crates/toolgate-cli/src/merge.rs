//! `toolgate merge`: read the shard reports, put the suite's report back together, gate.

use std::fs;

use miette::Report;
use toolgate_expect::{Problem, SuiteError};
use toolgate_report::{
    ShardFile, TextOptions, merge_shards, render_merged_json, render_merged_text,
};

use crate::cli::{Format, MergeArgs, ReportTarget};
use crate::discover::display;
use crate::exit;
use crate::output::Output;

pub(crate) fn run(
    args: &MergeArgs,
    targets: &[ReportTarget],
    color: bool,
) -> Result<Output, Report> {
    let mut files = Vec::with_capacity(args.reports.len());
    for path in &args.reports {
        let name = display(path);
        let text = fs::read_to_string(path).map_err(|error| {
            Report::new(SuiteError::detached(
                Problem::new(
                    "toolgate::merge::io",
                    format!("cannot read shard report `{name}`: {error}"),
                    "",
                )
                .with_help("pass the files that `toolgate check --shard K/N --format json` wrote"),
            ))
        })?;
        files.push(ShardFile { name, text });
    }
    let merged = merge_shards(&files)?;
    let mut output = Output::default();
    for target in targets {
        let mut bytes = Vec::new();
        let color = color && target.path.is_none();
        let written = match target.format {
            Format::Json => render_merged_json(&merged, &mut bytes),
            // The command line admits only `text` and `json`.
            _ => render_merged_text(&merged, TextOptions::with_color(color), &mut bytes),
        };
        output.deliver(target, written.map(|()| bytes.into()))?;
    }
    output.inputs.clone_from(&args.reports);
    output.code = if merged.passed() {
        exit::PASSED
    } else {
        exit::FAILED
    };
    Ok(output)
}
