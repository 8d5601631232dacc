//! `trailgate check`: read the suite, find and stream each test's runs, score, gate, report.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, sync_channel};
use std::sync::{Arc, Mutex};

use trailgate_expect::{
    Baseline, Detail, JsonContext, LISTED_RUNS, MAX_SUITE_BYTES, PathSeg, Problem, RunOutcome,
    RunSource, Shard, SuiteError, SuiteFile, SuiteOutcome, Test, TestEvaluator, TestOutcome,
    UnjudgedCalls, Unscorable, grade_run_as, run_count_problems,
};
use trailgate_report::{
    HtmlRun, HtmlRuns, JsonLines, JsonRuns, ReportFile, ShardOrigin, TextOptions, read_baseline,
    render_github, render_html, render_json_runs, render_junit, render_markdown, render_text,
    temporary_writer,
};
use trailgate_trace::{
    FileLayout, Naming, PartReader, ReadOptions, TraceError, TracePart, read_trace_in_parts,
};

use crate::discover::{Searched, TraceFile, discover, display};
use crate::error::Error;
use crate::input::{Limited, read_limited};
use crate::options::{CheckOptions, Format, ReportTarget};
use crate::output::{Output, Rendered, spool};
use crate::pairing::{Limits, TooLongRuns};

/// Every test's runs were read, so every call a grader could not judge is listed at once.
fn refuse_unjudged(unjudged: &[UnjudgedCalls], file: &SuiteFile) -> Result<(), Error> {
    if unjudged.is_empty() {
        return Ok(());
    }
    let problems = unjudged
        .iter()
        .flat_map(|found| found.problems(file))
        .collect();
    Err(Error::Suite(file.error(problems)))
}

/// The JSON Lines report, written into an anonymous temporary file as the runs are scored.
type Lines = JsonLines<std::io::BufWriter<File>>;

/// What is collected as the runs are scored for the reports that list every run, when they
/// are asked for: the JSON report's entries of every run (spilled to disk), the JSON
/// Lines report itself, and the HTML report's data of every run (spilled to disk).
struct Collected<'a> {
    json: Option<JsonRuns>,
    lines: Option<Lines>,
    html: Option<HtmlRuns>,
    origin: Option<ShardOrigin>,
    /// The report of `--baseline`, which the HTML report sets beside each test's metrics.
    baseline: Option<&'a Baseline>,
}

impl Collected<'_> {
    fn new(targets: &[ReportTarget], suite: &str, shard: Option<Shard>) -> Result<Self, Error> {
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
    fn scoring<'t>(&self, test: &'t Test, findings: &'t AtomicUsize) -> Scoring<'t> {
        Scoring {
            test,
            findings,
            every_run: self.every_run(),
            html: self.html.as_ref().map(|_| JsonContext::of_test(test)),
        }
    }

    fn start_test(&mut self, test: &Test) {
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
    fn push(&mut self, run: &RunOutcome, html: Option<HtmlRun>) -> std::io::Result<()> {
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

    fn finish_test(&mut self, test: &TestOutcome) -> Result<(), Error> {
        if let Some(lines) = &mut self.lines {
            lines
                .finish_test(test)
                .map_err(|error| temporary_file_error("write", &error))?;
        }
        Ok(())
    }
}

/// Checks the suite at `suite`: reads it, finds and reads each selected test's traces,
/// scores every run, gates each test and renders every report of `options.targets`.
/// Nothing is written: the reports for files are in [`Output::files`], to be written with
/// [`write_files`](crate::write_files), and [`Output::gate_failed`] is the suite's verdict.
pub fn check(suite_path: &Path, options: &CheckOptions) -> Result<Output, Error> {
    let targets = options.targets.as_slice();
    let name = display(suite_path);
    let text = read_suite(suite_path, &name)?;
    let naming = options.read.naming()?;
    let file = SuiteFile::new(&name, text);
    let suite = file.parse()?;
    let baseline = options.baseline.as_deref().map(read_base).transpose()?;
    let suite_dir = suite_path.parent().unwrap_or(Path::new(""));

    let mut collected = Collected::new(targets, &name, options.shard)?;
    let threads = options.threads;
    let mut outcome = SuiteOutcome {
        tests: Vec::new(),
        notes: Vec::new(),
    };
    let mut unjudged = Vec::new();
    let names: Vec<&str> = suite.tests.iter().map(|test| test.name.as_str()).collect();
    options.selection.check(&names)?;
    // Every file read, so that no `--output` replaces one.
    let mut inputs = vec![suite_path.to_path_buf()];
    let tests = suite
        .tests
        .iter()
        .enumerate()
        .filter(|(position, test)| {
            options.shard.is_none_or(|shard| shard.holds(*position))
                && options.selection.selects(&test.name)
        })
        .map(|(_, test)| test);
    for test in tests {
        let (files, searched) = discover(test, suite_dir, options.traces_dir.as_deref(), &file)?;
        inputs.extend(files.iter().map(|trace| trace.path.clone()));
        let mut evaluator = TestEvaluator::new(test).with_baseline(baseline.as_ref());
        collected.start_test(test);
        // Every run's entries of the JSON report are spilled to disk as the runs are scored.
        let mut spill_error = None;
        let mut too_long = TooLongRuns::default();
        let read = read_options(test, options, &naming);
        let threads = threads.unwrap_or_else(|| default_threads(&files));
        // How many runs added so far have findings, for the threads that score later runs
        // (`Detail::for_run`); the JSON report lists every run.
        let findings = AtomicUsize::new(0);
        let scoring = collected.scoring(test, &findings);
        let warnings = score_runs(&scoring, &files, &read, threads, |scored, leftovers| {
            let Scored {
                source,
                limits,
                outcome,
                html,
            } = scored;
            // Every run counts against the limits, scored or not.
            let admitted = too_long.admit(&source, limits);
            leftovers.sources.push(source);
            let Some(outcome) = outcome.filter(|_| admitted) else {
                return;
            };
            if let Err(error) = collected.push(&outcome, html) {
                spill_error.get_or_insert(error);
            }
            leftovers.runs.extend(evaluator.add_giving_back(outcome));
            findings.store(evaluator.runs_with_findings(), Ordering::Relaxed);
        })?;
        outcome.notes.extend(warnings);
        let problems = too_long.problems(test, &file);
        if !problems.is_empty() {
            return Err(Error::Suite(file.error(problems)));
        }
        if let Some(error) = spill_error {
            return Err(temporary_file_error("write", &error));
        }
        check_count(test, &evaluator, &searched, &file)?;
        match evaluator.finish() {
            Ok(test_outcome) => {
                collected.finish_test(&test_outcome)?;
                outcome.tests.push(test_outcome);
            }
            Err(Unscorable::Unjudged(found)) => unjudged.push(found),
            Err(error) => {
                // `check_count` refuses every count the figures cannot be computed from.
                return Err(Error::Message(format!("test `{}`: {error}", test.name)));
            }
        }
    }
    refuse_unjudged(&unjudged, &file)?;
    let digest = suite_digest(file.text());
    collected.origin = options.shard.map(|shard| ShardOrigin {
        shard,
        suite: name.clone(),
        suite_tests: suite.tests.len(),
        suite_digest: digest,
    });
    collected.baseline = baseline.as_ref();
    let mut output = render(&outcome, collected, &name, targets, options.color)?;
    // GitHub's job summary: appended, like every step's, when the runner asks for it.
    if targets.iter().any(|t| t.format == Format::Github)
        && let Some(summary) = options.step_summary.clone()
    {
        let mut bytes = Vec::new();
        render_markdown(&outcome, &mut bytes)
            .map_err(|error| Error::Message(format!("cannot render the summary: {error}")))?;
        output.appends.push((summary, bytes));
    }
    output.inputs = inputs.into_iter().chain(options.baseline.clone()).collect();
    output.warnings.clone_from(&outcome.notes);
    output.gate_failed = !outcome.passed();
    Ok(output)
}

/// The baseline report of `--baseline`: the metrics of each of its tests. An invalid file
/// stops the check before any trace is read, with a diagnostic that names it.
fn read_base(path: &Path) -> Result<Baseline, Error> {
    let name = display(path);
    let file = File::open(path).map_err(|error| {
        Error::Suite(SuiteError::detached(
            Problem::new(
                "trailgate::baseline::io",
                format!("cannot read baseline `{name}`: {error}"),
                "",
            )
            .with_help(
                "pass `--baseline` a JSON report written by `trailgate check --format json` (or \
                 `trailgate merge --format json`), e.g. main's",
            ),
        ))
    })?;
    Ok(read_baseline(ReportFile { name, reader: file })?)
}

/// The SHA-256 of the suite's text, in hex: shards of different suites never merge.
fn suite_digest(text: &str) -> String {
    use sha2::Digest;
    use std::fmt::Write as _;
    let mut hex = String::with_capacity(64);
    for byte in sha2::Sha256::digest(text.as_bytes()) {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// How many bytes of trace files a test has before it is scored on several threads when
/// the command line does not say how many: below it, starting the threads costs more than
/// they save.
const PARALLEL_BYTES: u64 = 4 << 20;

/// As many threads as cores, at most two, for a test with at least [`PARALLEL_BYTES`] of
/// traces; one otherwise.
fn default_threads(files: &[TraceFile]) -> usize {
    let bytes: u64 = files
        .iter()
        .filter_map(|trace| std::fs::metadata(&trace.path).ok())
        .map(|metadata| metadata.len())
        .sum();
    if bytes < PARALLEL_BYTES {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |n| n.get().min(2))
}

/// A run scored: where it came from, how it fares against the pairing limits, and its
/// outcome when it is within them.
struct Scored {
    source: RunSource,
    limits: Limits,
    outcome: Option<RunOutcome>,
    /// The run's data of the HTML report, when it is asked for.
    html: Option<HtmlRun>,
}

/// The runs of one part of a trace file, scored, and the error that stopped its parsing.
type ScoredPart = (Vec<Scored>, Option<TraceError>);

/// What folding a part's runs leaves over: handed back to the worker that scored the part,
/// which frees it, so that its allocator reuses the memory in its own core's cache. Freed
/// by the folding thread, each block goes back through that core, and the worker's next
/// allocations miss the cache: the JSON report, whose outcomes are whole, took 5 to 10 %
/// longer on the bench corpus (docs/performance.md).
#[derive(Default)]
struct Leftovers {
    sources: Vec<RunSource>,
    runs: Vec<RunOutcome>,
}

impl Leftovers {
    /// Frees what is left, keeping the room.
    fn free(&mut self) {
        self.sources.clear();
        self.runs.clear();
    }
}

/// What scoring a test's runs on any thread needs.
struct Scoring<'a> {
    test: &'a Test,
    /// How many of the runs added so far have findings.
    findings: &'a AtomicUsize,
    /// Whether every run is listed (the JSON, JSON Lines and HTML reports), so that every
    /// outcome is built whole.
    every_run: bool,
    /// The names the HTML report's run data takes from the test, when it is asked for.
    html: Option<JsonContext>,
}

/// Parses and scores the runs of one part; the first is run `first` of the test.
/// `test` is the scoring's test or a worker's copy of it.
fn score_part(
    scoring: &Scoring<'_>,
    test: &Test,
    label: &str,
    first: usize,
    part: TracePart,
) -> ScoredPart {
    let mut scored = Vec::with_capacity(part.len());
    // Runs of this part with findings, which no other thread has added yet.
    let mut part_findings = 0;
    let mut runs = part.into_runs();
    for number in first.. {
        let run = match runs.next() {
            None => break,
            Some(Ok(run)) => run,
            Some(Err(error)) => return (scored, Some(error)),
        };
        let source = RunSource {
            file: label.to_owned(),
            line: run.line,
        };
        let limits = Limits::of(test, &run);
        let detail = if scoring.every_run {
            Detail::Full
        } else {
            let added = scoring.findings.load(Ordering::Relaxed);
            Detail::for_run(number, added.saturating_add(part_findings))
        };
        // A run past a limit is not scored: that is what the limit guards against.
        let outcome = limits
            .hold()
            .then(|| grade_run_as(test, number, source.clone(), &run, detail));
        part_findings += usize::from(outcome.as_ref().is_some_and(RunOutcome::has_findings));
        // The HTML report shows the run's calls, which only this thread still holds.
        let html = scoring
            .html
            .as_ref()
            .zip(outcome.as_ref())
            .map(|(context, outcome)| HtmlRun::new(test, context, &run, outcome));
        scored.push(Scored {
            source,
            limits,
            outcome,
            html,
        });
        // The next line is read over this run.
        runs.recycle(run);
    }
    (scored, None)
}

/// How many parts per worker are between reading and folding at most: enough that a
/// worker rarely waits for a part while another scores a slow one.
const IN_FLIGHT: usize = 4;

/// Reads, parses and scores the runs of `files` in order, and hands each to `add` in that
/// order. With one thread, this one does everything. With more, `threads` workers each read
/// the next part of the files (at most [`PART_RUNS`](trailgate_trace::PART_RUNS) runs,
/// numbered in file order) in turn, under a lock, and score it, so that a worker slowed by
/// a long part or by sharing its core does not hold the others back, and a part's text is
/// parsed in the cache of the core that read it; this thread folds the scored parts in
/// their order, so the runs arrive in file order whatever the number of threads. A worker
/// puts a token in a channel of [`IN_FLIGHT`] per worker before it reads a part and this
/// thread takes one out once a part is folded, so at most that many parts are read and not
/// yet folded, and memory stays bounded however far the workers could run ahead. What
/// `add` leaves of a part's runs goes back to the worker that scored it ([`Leftovers`]),
/// which frees it before it reads its next part. The first error in file order wins, as
/// with one thread.
fn score_runs(
    scoring: &Scoring<'_>,
    files: &[TraceFile],
    options: &ReadOptions,
    threads: usize,
    mut add: impl FnMut(Scored, &mut Leftovers),
) -> Result<Vec<String>, TraceError> {
    if threads < 2 {
        return score_runs_here(scoring, files, options, add);
    }
    let window = IN_FLIGHT * threads;
    let names: Vec<String> = files.iter().map(|trace| display(&trace.path)).collect();
    let source = Mutex::new(Source {
        files: files.iter().zip(&names),
        reading: None,
        options,
        next: 1,
        order: 0,
        warnings: Vec::new(),
        done: false,
    });
    std::thread::scope(|scope| {
        // Every channel holds a whole window, so no send of a score waits: the tokens bound
        // the parts in flight. Returning early drops `tokens`, and a worker, sending its next
        // token, stops.
        let (token_sender, tokens) = sync_channel::<()>(window);
        let (scored_sender, scored_receiver) = sync_channel::<(usize, usize, ScoredPart)>(window);
        // Per worker, the leftovers of its parts once folded; at most a window of them.
        let mut leftover_senders = Vec::with_capacity(threads);
        for worker in 0..threads {
            let scored_sender = scored_sender.clone();
            let token_sender = token_sender.clone();
            let (leftover_sender, leftovers) = channel::<Leftovers>();
            let source = &source;
            let spawned = std::thread::Builder::new().spawn_scoped(scope, move || {
                // A copy of the test per worker: each copy of a regex has its own pool of
                // search caches, which the thread that uses it first takes without a lock,
                // where threads sharing one regex would lock its pool for every search.
                let test = scoring.test.clone();
                loop {
                    // Freed here, where they were allocated.
                    leftovers.try_iter().for_each(drop);
                    // The files are locked only to read a part, not to score it. A closed
                    // channel means that this thread stopped folding parts.
                    let next = source.lock().ok().and_then(|mut source| {
                        if source.done || token_sender.send(()).is_err() {
                            return None;
                        }
                        source.next_part()
                    });
                    let Some((order, read)) = next else {
                        break;
                    };
                    let scored = match read {
                        Ok((first, label, part)) => score_part(scoring, &test, label, first, part),
                        Err(error) => (Vec::new(), Some(error)),
                    };
                    if scored_sender.send((order, worker, scored)).is_err() {
                        break;
                    }
                }
            });
            // The system may refuse threads (a limit on processes, on memory): the ones that
            // started do the work, as the same reports come out whatever their number.
            if spawned.is_err() {
                break;
            }
            leftover_senders.push(leftover_sender);
        }
        if leftover_senders.is_empty() {
            return Err(TraceError::Io {
                file: files
                    .first()
                    .map(|trace| trace.label.clone())
                    .unwrap_or_default(),
                message: "cannot start a thread to score the runs".to_owned(),
            });
        }
        drop((scored_sender, token_sender));
        // Parts scored ahead of the next one to fold wait here, at most a window of them.
        let mut waiting = BTreeMap::new();
        let mut next_order = 0;
        for (order, worker, scored) in &scored_receiver {
            waiting.insert(order, (worker, scored));
            while let Some((worker, (runs, error))) = waiting.remove(&next_order) {
                next_order += 1;
                let mut leftovers = Leftovers::default();
                for scored in runs {
                    add(scored, &mut leftovers);
                }
                // A worker that stopped has dropped its receiver: the leftovers are freed
                // here then.
                if let Some(sender) = leftover_senders.get(worker) {
                    let _ = sender.send(leftovers);
                }
                if let Some(error) = error {
                    return Err(error);
                }
                // A worker sent a token before it read the part, so this never waits.
                let _ = tokens.recv();
            }
        }
        Ok(())
    })?;
    Ok(source
        .into_inner()
        .map(|source| source.warnings)
        .unwrap_or_default())
}

/// [`score_runs`] on this thread alone.
fn score_runs_here(
    scoring: &Scoring<'_>,
    files: &[TraceFile],
    options: &ReadOptions,
    mut add: impl FnMut(Scored, &mut Leftovers),
) -> Result<Vec<String>, TraceError> {
    let mut warnings = Vec::new();
    let mut next = 1;
    for trace in files {
        warnings.extend(read_parts(trace, options, |part| {
            let first = next;
            next += part.len();
            let (scored, error) = score_part(scoring, scoring.test, &trace.label, first, part);
            let mut leftovers = Leftovers::default();
            for scored in scored {
                add(scored, &mut leftovers);
                // On this thread, what a run leaves is freed at once, while in the cache.
                leftovers.free();
            }
            error.map_or(Ok(()), Err)
        })?);
    }
    Ok(warnings)
}

/// The trace files of a test as the workers read them: each part read gets the number of
/// its first run and its order among the parts.
struct Source<'a, I> {
    /// The files not opened yet, with their names in diagnostics.
    files: I,
    /// The file being read: its parts, and its label in reports.
    reading: Option<(PartReader<'a, BufReader<File>>, &'a str)>,
    options: &'a ReadOptions,
    /// The number of the next part's first run.
    next: usize,
    /// The next part's order.
    order: usize,
    /// The warnings of the files read to their end (docs/formats.md#a-file-that-says-nothing).
    warnings: Vec<String>,
    /// Whether every file is read, or an error was met.
    done: bool,
}

/// A part read by a worker, with the number of its first run and its file's label, or the
/// error that ends the reading.
type ReadPart<'a> = Result<(usize, &'a str, TracePart), TraceError>;

impl<'a, I: Iterator<Item = (&'a TraceFile, &'a String)>> Source<'a, I> {
    /// The next part of the files and its order, `None` after the last; an error is the
    /// last item.
    fn next_part(&mut self) -> Option<(usize, ReadPart<'a>)> {
        let read = self.read_next()?;
        if read.is_err() {
            self.done = true;
        }
        let order = self.order;
        self.order += 1;
        Some((order, read))
    }

    fn read_next(&mut self) -> Option<ReadPart<'a>> {
        loop {
            if self.done {
                return None;
            }
            let Some((parts, label)) = &mut self.reading else {
                let Some((trace, name)) = self.files.next() else {
                    self.done = true;
                    return None;
                };
                let lines = trace.layout == FileLayout::JsonLines;
                let opened = open_trace(trace, name)
                    .and_then(|reader| PartReader::new(name, reader, lines, self.options));
                match opened {
                    Ok(parts) => self.reading = Some((parts, &trace.label)),
                    Err(error) => return Some(Err(error)),
                }
                continue;
            };
            match parts.next_part() {
                Ok(Some(part)) => {
                    let first = self.next;
                    self.next += part.len();
                    return Some(Ok((first, *label, part)));
                }
                Ok(None) => {}
                Err(error) => return Some(Err(error)),
            }
            // The file is read to its end: the next one is opened on the next turn.
            if let Some((parts, label)) = self.reading.take() {
                match parts.finish() {
                    Ok(read) => self.warnings.extend(read.warning(label)),
                    Err(error) => return Some(Err(error)),
                }
            }
        }
    }
}

/// A report that lists every run, for one of its targets: itself when it is rendered as it
/// is written (it has only one), a share of it otherwise.
fn for_target(report: &mut Option<Rendered>, what: &str) -> std::io::Result<Rendered> {
    match report.take() {
        Some(Rendered::Deferred(deferred)) => Ok(Rendered::Deferred(deferred)),
        Some(rendered) => {
            let shared = rendered.share();
            *report = Some(rendered);
            shared
        }
        None => Err(std::io::Error::other(format!(
            "the runs were not collected for {what}"
        ))),
    }
}

/// A report that lists every run: rendered by `render` straight into its target when only
/// one asks for it (`one_target`), after [`check`] returns, from a copy of the outcome made
/// once for every such report (`shared`); otherwise now, into a temporary file that each
/// of its targets copies.
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
fn render(
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
    let mut json = json
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
    let mut lines = lines
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
    let mut html = html
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
    let mut output = Output::default();
    for target in targets {
        // Colour only for a terminal, never for a file.
        let color = color && target.path.is_none();
        let mut bytes = Vec::new();
        let rendered = match target.format {
            Format::Json => for_target(&mut json, "JSON"),
            Format::Jsonl => for_target(&mut lines, "JSON Lines"),
            Format::Html => for_target(&mut html, "HTML"),
            Format::Text => render_text(outcome, TextOptions::with_color(color), &mut bytes)
                .map(|()| bytes.into()),
            Format::Junit => render_junit(outcome, suite, &mut bytes).map(|()| bytes.into()),
            Format::Markdown => render_markdown(outcome, &mut bytes).map(|()| bytes.into()),
            // The annotations mark the suite's lines; the text report below them is the job
            // log they point to.
            Format::Github => render_github(outcome, suite, &mut bytes)
                .and_then(|()| writeln!(bytes))
                .and_then(|()| render_text(outcome, TextOptions::with_color(false), &mut bytes))
                .map(|()| bytes.into()),
        };
        output.deliver(target, rendered)?;
    }
    Ok(output)
}

/// A temporary file of the JSON, JSON Lines or HTML report could not be created or written.
fn temporary_file_error(doing: &str, error: &std::io::Error) -> Error {
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

/// The suite file's text, within [`MAX_SUITE_BYTES`].
fn read_suite(path: &Path, name: &str) -> Result<String, Error> {
    let cannot_read = |error: &dyn std::fmt::Display| {
        Error::Suite(SuiteError::detached(
            Problem::new(
                "trailgate::suite::io",
                format!("cannot read suite `{name}`: {error}"),
                "",
            )
            .with_help(
                "pass the suite's path, `trailgate check path/to/trailgate.yaml`; without one, \
                 trailgate reads `trailgate.yaml` in the current folder",
            ),
        ))
    };
    match File::open(path)
        .and_then(|file| read_limited(file, MAX_SUITE_BYTES))
        .map_err(|error| cannot_read(&error))?
    {
        Limited::Text(text) => Ok(text),
        Limited::TooLarge => Err(Error::Suite(SuiteError::detached(
            Problem::new(
                "trailgate::suite::too_large",
                format!(
                    "suite `{name}` is larger than {} MiB",
                    MAX_SUITE_BYTES >> 20
                ),
                "",
            )
            .with_help("a suite is written by hand and read whole; put large data in trace files"),
        ))),
    }
}

/// The read buffer of a trace file: a record of a JSON Lines trace is often several
/// kilobytes, more than `BufReader`'s default 8 KiB.
const READ_BUFFER: usize = 1 << 16;

/// Reads one trace file in whatever format it holds, handing its runs over in parts as
/// soon as each is complete; returns the warning for a file that gave no call
/// (docs/formats.md#a-file-that-says-nothing).
pub(crate) fn read_parts(
    trace: &TraceFile,
    options: &ReadOptions,
    on_part: impl FnMut(TracePart) -> Result<(), TraceError>,
) -> Result<Option<String>, TraceError> {
    let name = display(&trace.path);
    let reader = open_trace(trace, &name)?;
    let lines = trace.layout == FileLayout::JsonLines;
    Ok(read_trace_in_parts(&name, reader, lines, options, on_part)?.warning(&trace.label))
}

/// Opens a trace file, named `name` in diagnostics, for reading.
fn open_trace(trace: &TraceFile, name: &str) -> Result<BufReader<File>, TraceError> {
    let file = File::open(&trace.path).map_err(|error| TraceError::Io {
        file: name.to_owned(),
        message: error.to_string(),
    })?;
    Ok(BufReader::with_capacity(READ_BUFFER, file))
}

/// No runs at all, or not the number the suite asked for, is an input error.
fn check_count(
    test: &Test,
    evaluator: &TestEvaluator<'_>,
    searched: &Searched,
    file: &SuiteFile,
) -> Result<(), Error> {
    let test_path = [PathSeg::Key("tests"), PathSeg::Index(test.index)];
    let count = evaluator.run_count();
    if count == 0 {
        let (seg, help) = match searched {
            Searched::Default(tried) => (
                PathSeg::Key("name"),
                format!(
                    "looked for {}; record the runs there, or point `traces:` at them",
                    tried
                        .iter()
                        .map(|t| format!("`{t}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            Searched::Patterns => (
                PathSeg::Key("traces"),
                "`traces:` matched no `.json` or `.jsonl` file; paths are relative to the suite \
                 file's folder"
                    .to_owned(),
            ),
        };
        return Err(Error::Suite(file.error(vec![
            Problem::new(
                "trailgate::traces::none",
                format!("test `{}` found no runs", test.name),
                "no runs for this test",
            )
            .with_help(help)
            .at(file.span(&[test_path[0], test_path[1], seg])),
        ])));
    }
    if let Some(expected) = test.runs {
        let found = count as u64;
        if found != expected {
            let mut listed: Vec<String> = evaluator
                .first_runs()
                .take(LISTED_RUNS)
                .map(|run| run.source.to_string())
                .collect();
            if count > LISTED_RUNS {
                listed.push(format!("and {} more", count - LISTED_RUNS));
            }
            return Err(Error::Suite(file.error(vec![
                Problem::new(
                    "trailgate::traces::count",
                    format!(
                        "test `{}` expects {expected} {} but found {found}",
                        test.name,
                        if expected == 1 { "run" } else { "runs" }
                    ),
                    format!("expects {expected}"),
                )
                .with_help(format!(
                    "found: {}; record the missing runs or change `runs:`",
                    listed.join(", ")
                ))
                .at(file.span(&[test_path[0], test_path[1], PathSeg::Key("runs")])),
            ])));
        }
    }
    let problems = run_count_problems(test, count, file);
    if !problems.is_empty() {
        return Err(Error::Suite(file.error(problems)));
    }
    Ok(())
}

/// How to read a test's traces: the test's own `trace_format` and `naming` win over the
/// command line's.
fn read_options(test: &Test, options: &CheckOptions, naming: &Naming) -> ReadOptions {
    ReadOptions {
        format: test
            .trace_format
            .clone()
            .or_else(|| options.read.trace_format.clone()),
        naming: test.naming.clone().unwrap_or_else(|| naming.clone()),
    }
}
