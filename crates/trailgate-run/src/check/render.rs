//! The reports of `check`: what is collected for those that list every run as the runs are
//! folded (`Collected`), rendered once the suite is scored, and then every report of the
//! targets (`crate::report`).

use std::fs::File;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use trailgate_expect::{
    Baseline, JsonContext, Problem, RunOutcome, Shard, SuiteError, SuiteOutcome, Test, TestOutcome,
};
use trailgate_report::{
    HtmlRun, HtmlRuns, JsonLines, JsonRuns, ShardOrigin, render_html, render_json_runs,
    temporary_writer,
};

use crate::error::Error;
use crate::options::{Format, ReportTarget};
use crate::output::{Output, Rendered, spool};
use crate::report::{Listings, Report, render_targets};

use super::score::Scoring;

/// The JSON Lines report, written into an anonymous temporary file as the runs are scored.
type Lines = JsonLines<std::io::BufWriter<File>>;

/// What is collected as the runs are scored for the reports that list every run, when they
/// are asked for: the JSON report's entries of every run (spilled to disk), the JSON
/// Lines report itself, and the HTML report's data of every run (spilled to disk).
pub(super) struct Collected<'a> {
    json: Option<JsonRuns>,
    lines: Option<Lines>,
    html: Option<HtmlRuns>,
    pub(super) origin: Option<ShardOrigin>,
    /// The report of `--baseline`, which the HTML report sets beside each test's metrics.
    pub(super) baseline: Option<&'a Baseline>,
}

impl Collected<'_> {
    pub(super) fn new(
        targets: &[ReportTarget],
        suite: &str,
        shard: Option<Shard>,
    ) -> Result<Self, Error> {
        let asked = |format| targets.iter().any(|t| t.format == format);
        let json = asked(Format::Json)
            .then(JsonRuns::spilled)
            .transpose()
            .map_err(|error| temporary_file_error("create", &error))?;
        let lines = asked(Format::Jsonl)
            .then(|| temporary_writer().and_then(|file| JsonLines::new(file, suite, shard)))
            .transpose()
            .map_err(|error| temporary_file_error("create", &error))?;
        let html = asked(Format::Html)
            .then(HtmlRuns::spilled)
            .transpose()
            .map_err(|error| temporary_file_error("create", &error))?;
        Ok(Self {
            json,
            lines,
            html,
            origin: None,
            baseline: None,
        })
    }

    /// Whether a report lists every run, so that every outcome is built whole.
    fn every_run(&self) -> bool {
        self.json.is_some() || self.lines.is_some() || self.html.is_some()
    }

    /// What scoring `test`'s runs on any thread needs, for what is collected.
    pub(super) fn scoring<'t>(&self, test: &'t Test, findings: &'t AtomicUsize) -> Scoring<'t> {
        Scoring {
            test,
            findings,
            every_run: self.every_run(),
            html: self.html.as_ref().map(|_| JsonContext::of_test(test)),
        }
    }

    pub(super) fn start_test(&mut self, test: &Test) {
        if let Some(json) = &mut self.json {
            json.start_test(test);
        }
        if let Some(lines) = &mut self.lines {
            lines.start_test(test);
        }
        if let Some(html) = &mut self.html {
            html.start_test();
        }
    }

    /// Adds a run, in the order the runs are folded: file order whatever the threads; `html`
    /// is its data of the HTML report, built where it was scored.
    pub(super) fn push(&mut self, run: &RunOutcome, html: Option<HtmlRun>) -> std::io::Result<()> {
        if let Some(json) = &mut self.json {
            json.push(run)?;
        }
        if let Some(lines) = &mut self.lines {
            lines.push(run)?;
        }
        if let (Some(runs), Some(html)) = (&mut self.html, html) {
            runs.push(html)?;
        }
        Ok(())
    }

    pub(super) fn finish_test(&mut self, test: &TestOutcome) -> Result<(), Error> {
        if let Some(lines) = &mut self.lines {
            lines
                .finish_test(test)
                .map_err(|error| temporary_file_error("write", &error))?;
        }
        Ok(())
    }
}

/// A report that lists every run: rendered by `render` straight into its target when only
/// one asks for it (`one_target`), after [`check`](crate::check) returns, from a copy of the
/// outcome made once for every such report (`shared`); otherwise now, into a temporary file
/// that each of its targets copies.
fn render_listing(
    outcome: &SuiteOutcome,
    shared: &mut Option<Arc<SuiteOutcome>>,
    one_target: bool,
    render: impl FnOnce(&SuiteOutcome, &mut dyn Write) -> std::io::Result<()> + Send + 'static,
) -> std::io::Result<Rendered> {
    if one_target {
        let outcome = Arc::clone(shared.get_or_insert_with(|| Arc::new(outcome.clone())));
        Ok(Rendered::deferred(move |out| render(&outcome, out)))
    } else {
        spool(|out| render(outcome, out))
    }
}

/// Renders every report the command line asks for.
pub(super) fn render(
    outcome: &SuiteOutcome,
    collected: Collected<'_>,
    suite: &str,
    targets: &[ReportTarget],
    color: bool,
) -> Result<Output, Error> {
    // The JSON and HTML reports grow with the runs: each is rendered once, straight into
    // its target when only one asks for it, and otherwise into a temporary file that every
    // target that asks for it copies.
    let Collected {
        json,
        lines,
        html,
        origin,
        baseline,
    } = collected;
    let one_target = |format| targets.iter().filter(|t| t.format == format).count() == 1;
    let mut shared = None;
    let json = json
        .map(|runs| {
            render_listing(
                outcome,
                &mut shared,
                one_target(Format::Json),
                move |outcome, out| render_json_runs(outcome, runs, origin.as_ref(), out),
            )
        })
        .transpose()
        .map_err(|error| temporary_file_error("write", &error))?;
    // The JSON Lines report was written as the runs were scored; its summary ends it.
    let lines = lines
        .map(|lines| {
            lines
                .finish(outcome)
                .and_then(|out| {
                    out.into_inner()
                        .map_err(std::io::IntoInnerError::into_error)
                })
                .map(Rendered::Spooled)
        })
        .transpose()
        .map_err(|error| temporary_file_error("write", &error))?;
    // Likewise the HTML page, which embeds every run.
    let html = html
        .map(|runs| {
            let (suite, baseline) = (suite.to_owned(), baseline.cloned());
            render_listing(
                outcome,
                &mut shared,
                one_target(Format::Html),
                move |outcome, out| render_html(outcome, runs, &suite, baseline.as_ref(), out),
            )
        })
        .transpose()
        .map_err(|error| temporary_file_error("write", &error))?;
    let listings = Listings { json, lines, html };
    render_targets(
        Report::Check {
            outcome,
            suite,
            listings,
        },
        targets,
        color,
    )
}

/// A temporary file of the JSON, JSON Lines or HTML report could not be created or written.
pub(super) fn temporary_file_error(doing: &str, error: &std::io::Error) -> Error {
    Error::Suite(SuiteError::detached(
        Problem::new(
            "trailgate::report::temporary_file",
            format!("cannot {doing} a temporary file of the report: {error}"),
            "",
        )
        .with_help(
            "the JSON, JSON Lines and HTML reports list every run and are written through \
             temporary files in the system's temporary folder; make room there, or point TMPDIR \
             at a folder with room",
        ),
    ))
}
