//! Scoring a test's runs: each part of its trace files parsed and scored where it was read,
//! on this thread or on workers, and handed to the fold in file order.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, sync_channel};

use trailgate_expect::{Detail, JsonContext, RunOutcome, RunSource, Test, grade_run_as};
use trailgate_report::HtmlRun;
use trailgate_trace::{ReadOptions, TraceError, TracePart};

use crate::discover::{TraceFile, display};
use crate::pairing::Limits;

use super::read::{Source, read_parts};

/// How many bytes of trace files a test has before it is scored on several threads when
/// the command line does not say how many: below it, starting the threads costs more than
/// they save.
const PARALLEL_BYTES: u64 = 4 << 20;

/// As many threads as cores, at most two, for a test with at least [`PARALLEL_BYTES`] of
/// traces; one otherwise.
pub(super) fn default_threads(files: &[TraceFile]) -> usize {
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
pub(super) struct Scored {
    pub(super) source: RunSource,
    pub(super) limits: Limits,
    pub(super) outcome: Option<RunOutcome>,
    /// The run's data of the HTML report, when it is asked for.
    pub(super) html: Option<HtmlRun>,
}

/// The runs of one part of a trace file, scored, and the error that stopped its parsing.
type ScoredPart = (Vec<Scored>, Option<TraceError>);

/// What folding a part's runs leaves over: handed back to the worker that scored the part,
/// which frees it, so that its allocator reuses the memory in its own core's cache. Freed
/// by the folding thread, each block goes back through that core, and the worker's next
/// allocations miss the cache: the JSON report, whose outcomes are whole, took 5 to 10 %
/// longer on the bench corpus (docs/performance.md).
#[derive(Default)]
pub(super) struct Leftovers {
    pub(super) sources: Vec<RunSource>,
    pub(super) runs: Vec<RunOutcome>,
}

impl Leftovers {
    /// Frees what is left, keeping the room.
    fn free(&mut self) {
        self.sources.clear();
        self.runs.clear();
    }
}

/// What scoring a test's runs on any thread needs.
pub(super) struct Scoring<'a> {
    pub(super) test: &'a Test,
    /// How many of the runs added so far have findings.
    pub(super) findings: &'a AtomicUsize,
    /// Whether every run is listed (the JSON, JSON Lines and HTML reports), so that every
    /// outcome is built whole.
    pub(super) every_run: bool,
    /// The names the HTML report's run data takes from the test, when it is asked for.
    pub(super) html: Option<JsonContext>,
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
            trace: run.trace_id.clone(),
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
pub(super) fn score_runs(
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
    let source = Mutex::new(Source::new(files.iter().zip(&names), options));
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
