//! What a command reports, and the one dispatch from a report format to the renderer that
//! writes it: every report of `check`, `merge`, `diff`, `trend` and `compare` is rendered by
//! [`render_targets`].

use std::fs::File;
use std::io::{self, Write};

use trailgate_expect::SuiteOutcome;
use trailgate_report::{
    Comparison, Diff, Merged, TextOptions, Trend, render_compare_html, render_compare_json,
    render_compare_markdown, render_compare_text, render_diff_github, render_diff_json,
    render_diff_markdown, render_diff_text, render_github, render_junit, render_markdown,
    render_merged_json, render_merged_text, render_text, render_trend_github, render_trend_json,
    render_trend_markdown, render_trend_text,
};

use crate::error::Error;
use crate::options::{Format, ReportTarget};
use crate::output::{Output, Rendered, spool};

/// What a command reports.
pub(crate) enum Report<'a> {
    /// A checked suite (`check`).
    Check {
        /// The suite's outcome.
        outcome: &'a SuiteOutcome,
        /// The suite's name, as the reports show it.
        suite: &'a str,
        /// Its reports that list every run, rendered already.
        listings: Listings,
    },
    /// Shard reports put back together (`merge`).
    Merged(&'a mut Merged<File>),
    /// Two reports compared (`diff`).
    Diff(&'a Diff),
    /// Several reports followed (`trend`).
    Trend(&'a Trend),
    /// Several reports compared with the first (`compare`).
    Compare(&'a Comparison),
}

/// The reports of a check that list every run (JSON, JSON Lines, HTML), each rendered once,
/// when it is asked for: into a temporary file that each of its targets copies, or deferred
/// to be rendered straight into its one target.
pub(crate) struct Listings {
    pub(crate) json: Option<Rendered>,
    pub(crate) lines: Option<Rendered>,
    pub(crate) html: Option<Rendered>,
}

/// Renders `report` for each of `targets`, in order, and puts each where its target sends
/// it; the reports for standard output are coloured when `color`.
pub(crate) fn render_targets(
    mut report: Report<'_>,
    targets: &[ReportTarget],
    color: bool,
) -> Result<Output, Error> {
    let mut output = Output::default();
    for target in targets {
        // Colour only for a terminal, never for a file.
        let color = color && target.path.is_none();
        output.deliver(target, render(&mut report, target.format, color))?;
    }
    Ok(output)
}

/// Renders `report` in `format`, its text coloured when `color`: the one place where a
/// format meets its renderer. A command that has no report in `format` (the command line
/// offers it none) is an error.
fn render(report: &mut Report<'_>, format: Format, color: bool) -> io::Result<Rendered> {
    let text = TextOptions::with_color(color);
    match report {
        Report::Check {
            outcome,
            suite,
            listings,
        } => match format {
            Format::Text => in_memory(|out| render_text(outcome, text, out)),
            Format::Json => for_target(&mut listings.json, "JSON"),
            Format::Jsonl => for_target(&mut listings.lines, "JSON Lines"),
            Format::Junit => in_memory(|out| render_junit(outcome, suite, out)),
            // The annotations mark the suite's lines; the text report below them is the job
            // log they point to.
            Format::Github => in_memory(|out| {
                render_github(outcome, suite, out)?;
                writeln!(out)?;
                render_text(outcome, TextOptions::with_color(false), out)
            }),
            Format::Markdown => in_memory(|out| render_markdown(outcome, out)),
            Format::Html => for_target(&mut listings.html, "HTML"),
        },
        Report::Merged(merged) => match format {
            Format::Text => in_memory(|out| render_merged_text(merged, text, out)),
            // The merged JSON report is as large as the shards': spooled to a temporary
            // file, not held in memory.
            Format::Json => spool(|out| render_merged_json(merged, out)),
            _ => Err(no_report("merge", format)),
        },
        Report::Diff(diff) => match format {
            Format::Text => in_memory(|out| render_diff_text(diff, text, out)),
            Format::Json => in_memory(|out| render_diff_json(diff, out)),
            Format::Github => in_memory(|out| render_diff_github(diff, out)),
            Format::Markdown => in_memory(|out| render_diff_markdown(diff, out)),
            _ => Err(no_report("diff", format)),
        },
        Report::Trend(trend) => match format {
            Format::Text => in_memory(|out| render_trend_text(trend, text, out)),
            Format::Json => in_memory(|out| render_trend_json(trend, out)),
            Format::Github => in_memory(|out| render_trend_github(trend, out)),
            Format::Markdown => in_memory(|out| render_trend_markdown(trend, out)),
            _ => Err(no_report("trend", format)),
        },
        Report::Compare(comparison) => match format {
            Format::Text => in_memory(|out| render_compare_text(comparison, text, out)),
            Format::Json => in_memory(|out| render_compare_json(comparison, out)),
            Format::Markdown => in_memory(|out| render_compare_markdown(comparison, out)),
            Format::Html => in_memory(|out| render_compare_html(comparison, out)),
            _ => Err(no_report("compare", format)),
        },
    }
}

/// A report rendered into memory.
fn in_memory(render: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> io::Result<Rendered> {
    let mut bytes = Vec::new();
    render(&mut bytes).map(|()| bytes.into())
}

/// A report that lists every run, for one of its targets: itself when it is rendered as it
/// is written (it has only one), a share of it otherwise.
fn for_target(report: &mut Option<Rendered>, what: &str) -> io::Result<Rendered> {
    match report.take() {
        Some(Rendered::Deferred(deferred)) => Ok(Rendered::Deferred(deferred)),
        Some(rendered) => {
            let shared = rendered.share();
            *report = Some(rendered);
            shared
        }
        None => Err(io::Error::other(format!(
            "the runs were not collected for {what}"
        ))),
    }
}

/// `command` writes no report in `format`.
fn no_report(command: &str, format: Format) -> io::Error {
    io::Error::other(format!("`{command}` writes no `{}` report", format.name()))
}
