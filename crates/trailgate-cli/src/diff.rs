//! `trailgate diff`: read two JSON reports, compare them, render the comparison.

use miette::Report;
use trailgate_expect::{Problem, SuiteError};
use trailgate_report::{
    ReportFile, TextOptions, diff_reports, render_diff_github, render_diff_json,
    render_diff_markdown, render_diff_text,
};
use trailgate_run::{Format, Output, ReportTarget, display};

use crate::cli::DiffArgs;
use crate::merge::open;

pub(crate) fn run(
    args: &DiffArgs,
    targets: &[ReportTarget],
    color: bool,
) -> Result<Output, Report> {
    let file = |path: &std::path::Path| {
        let name = display(path);
        match open(path) {
            Ok(reader) => Ok(ReportFile { name, reader }),
            Err(error) => Err(Report::new(SuiteError::detached(
                Problem::new(
                    "trailgate::diff::io",
                    format!("cannot read report `{name}`: {error}"),
                    "",
                )
                .with_help("pass two JSON reports written by `trailgate check --format json`"),
            ))),
        }
    };
    let diff = diff_reports(file(&args.base)?, file(&args.head)?)?;
    let mut output = Output::default();
    for target in targets {
        let color = color && target.path.is_none();
        let mut bytes = Vec::new();
        let rendered = match target.format {
            Format::Json => render_diff_json(&diff, &mut bytes),
            Format::Markdown => render_diff_markdown(&diff, &mut bytes),
            Format::Github => render_diff_github(&diff, &mut bytes),
            // The command line admits no other format.
            _ => render_diff_text(&diff, TextOptions::with_color(color), &mut bytes),
        };
        output.deliver(target, rendered.map(|()| bytes.into()))?;
    }
    output.inputs = vec![args.base.clone(), args.head.clone()];
    output.gate_failed = diff.regressed();
    Ok(output)
}
