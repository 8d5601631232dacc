//! A grader kind that exists only in this crate's tests: `toy`, the share of a run's calls
//! that call one tool (`toy.share`). It is written the way docs/ARCHITECTURE.md's "How to
//! add a grader" says a kind is added, in this one module and one registry line (the
//! test-only line of `registry!` in `graders.rs`), and its tests show it read from a suite,
//! refused with its own keys' help, scored, gated, in the report's sections and JSON, checked
//! again by `merge`, and in `trailgate schema`: no other file knows it.
//!
//! A real kind splits this file as docs/ARCHITECTURE.md lists (`config.rs`, `grader.rs`,
//! `explain.rs`, `json.rs`, `recheck.rs`); the toy keeps the same pieces in one place.

use crate::metric_value::MetricValue;
use std::io;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use trailgate_core::Percent;

use crate::error::Problem;
use crate::expect::Expectations;
use crate::gate::{Gate, Target};
use crate::graders::Block;
use crate::graders::config::{GraderConfig, block_gates, config_keys};
use crate::graders::contract::{Grader, GraderRecheck, GraderReport, Verdicts};
use crate::json_part::{Entries, JsonPart};
use crate::recheck::{Fold, Metrics, Runs, Sum, same, same_percent};
use crate::run::{Detail, RunInfo, TestRun};
use crate::section::{ListedRun, Piece, Section};
use crate::suite_file::{PathSeg, SuiteFile};
use crate::tool_matcher::config::TestClasses;

/// `toy.share`: the calls of the tool over all calls, rounded down.
const SHARE: Target = Target::new("toy.share");

/// The checked config: the tool whose calls it counts, and its gates.
#[derive(Debug, Clone)]
pub struct ToyGrader {
    tool: String,
    gates: Vec<Gate>,
}

/// A run's, or the runs', calls and calls of the tool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ToyCounts {
    calls: u64,
    hits: u64,
}

impl ToyCounts {
    fn share(self) -> Percent {
        Percent::floor_of(self.hits, self.calls)
    }
}

/// The grader's verdict over the runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToyOutcome {
    runs: Vec<ToyCounts>,
    counts: ToyCounts,
}

// The suite's side: `config: { tool: <name> }`, `expect:` optional.

#[derive(Default, JsonSchema)]
pub(crate) struct ToyConfig {
    /// The tool whose calls are counted.
    tool: Option<String>,
}

impl GraderConfig for ToyConfig {
    type Grader = ToyGrader;

    config_keys!(tool);

    fn check(
        self,
        expect: Option<Expectations>,
        file: &SuiteFile,
        _index: usize,
        path: &[PathSeg<'_>],
        _classes: TestClasses<'_>,
        problems: &mut Vec<Problem>,
    ) -> Option<ToyGrader> {
        let gates = block_gates(Block::Toy, expect, file, path, problems);
        let Some(tool) = self.tool else {
            problems.push(file.located(
                Problem::new(
                    "trailgate::suite::missing_key",
                    "a `toy` grader needs `tool:`",
                    "no `tool:`",
                ),
                path,
            ));
            return None;
        };
        Some(ToyGrader { tool, gates })
    }
}

// The evaluation's side.

impl Verdicts for ToyGrader {
    type Run = ToyCounts;
    type Outcome = ToyOutcome;
}

impl Grader for ToyGrader {
    type Config = ToyConfig;
    const TARGETS: &'static [Target] = &[SHARE];

    fn default_gate() -> Gate {
        Gate::at_least(SHARE, 1)
    }

    type Sums = ToyCounts;

    fn grade(&self, run: &TestRun<'_>, _detail: Detail) -> ToyCounts {
        let calls = &run.calls.calls;
        ToyCounts {
            calls: calls.len() as u64,
            hits: calls.iter().filter(|call| call.name == self.tool).count() as u64,
        }
    }

    fn has_findings(run: &ToyCounts) -> bool {
        run.hits == 0
    }

    fn sums(&self) -> ToyCounts {
        ToyCounts::default()
    }

    fn add(sums: &mut ToyCounts, run: &ToyCounts) {
        sums.calls += run.calls;
        sums.hits += run.hits;
    }

    fn outcome(&self, listed: Vec<ToyCounts>, sums: ToyCounts, _runs: u64) -> ToyOutcome {
        ToyOutcome {
            runs: listed,
            counts: sums,
        }
    }

    fn metrics(outcome: &ToyOutcome) -> Vec<(Target, MetricValue)> {
        vec![(SHARE, outcome.counts.share().into())]
    }

    fn gates(&self) -> &[Gate] {
        &self.gates
    }

    fn run_metrics(&self, run: &ToyCounts) -> Vec<(Target, MetricValue)> {
        vec![(SHARE, run.share().into())]
    }
}

// The reports' side: its section, its JSON object and run entries.

#[derive(Serialize)]
struct ToyRunJson {
    run: usize,
    calls: u64,
    hits: u64,
}

impl GraderReport for ToyGrader {
    type Names = ();
    const JSON_LISTS: usize = 1;
    const JSON_LIST_NAMES: &'static [&'static str] = &["runs"];

    fn names(&self) {}

    fn outcome_names(_outcome: &ToyOutcome) {}

    fn listed(outcome: &ToyOutcome) -> &[ToyCounts] {
        &outcome.runs
    }

    fn section(outcome: &ToyOutcome, runs: &[RunInfo], _run_count: usize) -> Section {
        let counts = |c: ToyCounts| format!("{} of {} calls", c.hits, c.calls);
        let block = Block::Toy;
        Section {
            key: block.key(),
            title: "Toy",
            targets: block.targets(),
            heading: Some(vec![Piece::text(block.key())]),
            key_width: 0,
            runs: runs
                .iter()
                .zip(&outcome.runs)
                .map(|(_, run)| ListedRun {
                    status: vec![Piece::Text(counts(*run))],
                    rows: Vec::new(),
                    footer: None,
                })
                .collect(),
            summary: vec![Piece::Text(format!("toy: {}", counts(outcome.counts)))],
            facts: vec![Vec::new(); runs.len().min(outcome.runs.len())],
            gate_note: None,
            explained: &[],
        }
    }

    fn json_part(outcome: &ToyOutcome) -> JsonPart {
        JsonPart::new("toy")
            .value("calls", &outcome.counts.calls)
            .value("hits", &outcome.counts.hits)
            .value("share", &outcome.counts.share().value())
            .list("runs", 0)
    }

    fn write_entries(
        _names: &(),
        info: &RunInfo,
        run: &ToyCounts,
        entries: &mut Entries<'_>,
    ) -> io::Result<()> {
        let entry = ToyRunJson {
            run: info.number,
            calls: run.calls,
            hits: run.hits,
        };
        entries.push(0, &entry)
    }
}

// `merge`'s side: the object read back and its numbers checked.

#[derive(Debug, Deserialize)]
pub(crate) struct ToyView {
    calls: u64,
    hits: u64,
    share: u8,
    runs: Runs<ToyFold>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct ToyRunView {
    calls: u64,
    hits: u64,
}

#[derive(Debug, Default)]
pub(crate) struct ToyFold {
    calls: Sum,
    hits: Sum,
}

impl Fold for ToyFold {
    type Run = ToyRunView;

    fn add(&mut self, index: u64, run: ToyRunView) -> Result<(), String> {
        if run.hits > run.calls {
            return Err(format!("`toy.runs[{index}]` has more hits than calls"));
        }
        self.calls.add(run.calls);
        self.hits.add(run.hits);
        Ok(())
    }
}

impl GraderRecheck for ToyGrader {
    type View = ToyView;

    fn listed_runs(view: &ToyView) -> u64 {
        view.runs.listed
    }

    fn add_up(view: &ToyView, metrics: &Metrics<'_>) -> Result<(), String> {
        view.runs.first_problem()?;
        let counts = ToyCounts {
            calls: view.runs.fold.calls.get("toy.runs[].calls")?,
            hits: view.runs.fold.hits.get("toy.runs[].hits")?,
        };
        same("toy.calls", view.calls, counts.calls)?;
        same("toy.hits", view.hits, counts.hits)?;
        same_percent("toy.share", view.share, counts.share())?;
        metrics.check("toy.share", counts.share().into())
    }
}

mod tests;
