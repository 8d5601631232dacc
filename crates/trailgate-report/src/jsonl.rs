//! The JSON Lines report (`--format jsonl`, docs/reports.md): one compact JSON object per line,
//! written as the runs are scored: a header, then per test one line per run and a line for
//! the test, then a summary. Nothing run-sized is held: a run's line is written from its
//! outcome and forgotten, so `DuckDB`, `pandas` or `jq` can read a million runs.

use std::collections::BTreeMap;
use std::io::{self, Write};
use trailgate_expect::MetricValue;

use serde::Serialize;
use trailgate_expect::{
    Block, Entries, EntrySink, JSON_LISTS, JsonContext, JsonField, RunInfo, RunOutcome, Shard,
    Stability, SuiteOutcome, Test as SuiteTest, TestOutcome,
};

use crate::json::{JSON_VERSION, RunOrigin};
use crate::transcode::JsonText;

/// The report being written: the test whose runs come next, and one reused buffer per
/// run-sized list for the entries of the run being written.
#[derive(Debug)]
pub struct JsonLines<W: Write> {
    out: W,
    test: String,
    context: JsonContext,
    /// Per list, the current run's entries, comma-separated.
    lists: Vec<Vec<u8>>,
}

#[derive(Serialize)]
struct Header<'a> {
    r#type: &'static str,
    version: u32,
    suite: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    shard: Option<ShardLine>,
}

/// Which share of the suite's tests a shard's report holds (`check --shard K/N`).
#[derive(Serialize)]
struct ShardLine {
    index: usize,
    count: usize,
}

#[derive(Serialize)]
struct RunLine<'a> {
    r#type: &'static str,
    test: &'a str,
    #[serde(flatten)]
    origin: RunOrigin<'a>,
}

#[derive(Serialize)]
struct TestLine<'a> {
    r#type: &'static str,
    name: &'a str,
    agent: Option<&'a str>,
    passed: bool,
    runs: usize,
    passed_runs: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    stability: Option<&'static str>,
    /// A marked test's reason and verdict (`xfail` or `xpass`).
    #[serde(skip_serializing_if = "Option::is_none")]
    xfail: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<&'static str>,
    metrics: BTreeMap<&'static str, MetricValue>,
    gates: Vec<crate::json::Gate<'a>>,
    /// Only when a call has an agent (docs/reports.md#agents).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    agents: Vec<crate::json::AgentRow<'a>>,
}

#[derive(Serialize)]
struct SummaryLine<'a> {
    r#type: &'static str,
    passed: bool,
    tests: usize,
    passed_tests: usize,
    failed_tests: usize,
    /// Present when a test is marked `xfail`.
    #[serde(skip_serializing_if = "Option::is_none")]
    xfailed_tests: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    xpassed_tests: Option<usize>,
    notes: &'a [String],
}

/// Where a run's entries go while its line is put together.
struct RunLists<'a>(&'a mut [Vec<u8>]);

impl EntrySink for RunLists<'_> {
    fn entry(&mut self, list: usize, json: &[u8]) -> io::Result<()> {
        let Some(entries) = self.0.get_mut(list) else {
            return Err(io::Error::other("a grader writes to an unknown list"));
        };
        if !entries.is_empty() {
            entries.push(b',');
        }
        entries.extend_from_slice(json);
        Ok(())
    }
}

impl<W: Write> JsonLines<W> {
    /// Starts the report of the suite `suite` (as named on the command line), or of one
    /// `shard` of its tests: writes its header line.
    pub fn new(mut out: W, suite: &str, shard: Option<Shard>) -> io::Result<Self> {
        line(
            &mut out,
            &Header {
                r#type: "header",
                version: JSON_VERSION,
                suite,
                shard: shard.map(|shard| ShardLine {
                    index: shard.index(),
                    count: shard.count(),
                }),
            },
        )?;
        Ok(Self {
            out,
            test: String::new(),
            context: JsonContext::default(),
            lists: vec![Vec::new(); JSON_LISTS],
        })
    }

    /// Begins the next test; its runs follow with [`push`](Self::push), then
    /// [`finish_test`](Self::finish_test).
    pub fn start_test(&mut self, test: &SuiteTest) {
        self.context = JsonContext::of_test(test);
        self.test.clone_from(&test.name);
    }

    /// Writes the line of the test's next run: where it came from, its verdict, and per
    /// grader its entry with the run's findings (an object, the grader's run entry of its
    /// `runs` list, with the run's entries of the grader's other lists under their keys).
    pub fn push(&mut self, run: &RunOutcome) -> io::Result<()> {
        for list in &mut self.lists {
            list.clear();
        }
        run.write_json_entries(
            &self.context,
            &mut Entries::new(&mut RunLists(&mut self.lists)),
        )?;
        self.write_run(&run.info)
    }

    /// Writes a run's line from the entries in [`lists`](Self::lists).
    fn write_run(&mut self, info: &RunInfo) -> io::Result<()> {
        let mut head = serde_json::to_vec(&RunLine {
            r#type: "run",
            test: &self.test,
            origin: RunOrigin::of(info),
        })?;
        // The line's closing brace goes after the graders' objects.
        head.pop();
        self.out.write_all(&head)?;
        for block in Block::ALL {
            let (base, names) = block.json_lists();
            let lists = self.lists.get(base..base + names.len()).unwrap_or_default();
            let Some(entry) = names
                .iter()
                .position(|name| *name == "runs")
                .and_then(|runs| lists.get(runs))
                .filter(|entry| entry.last() == Some(&b'}'))
            else {
                // The test has no grader of this kind.
                continue;
            };
            write!(self.out, ",\"{}\":", block.json_key())?;
            self.out.write_all(&entry[..entry.len() - 1])?;
            for (name, entries) in names.iter().zip(lists) {
                if *name != "runs" {
                    write!(self.out, ",\"{name}\":[")?;
                    self.out.write_all(entries)?;
                    self.out.write_all(b"]")?;
                }
            }
            self.out.write_all(b"}")?;
        }
        self.out.write_all(b"}\n")
    }

    /// Writes the line of the test just scored: its verdict, its metrics and gates, and
    /// each grader's values that hold for the whole test (what it expects, its sums).
    pub fn finish_test(&mut self, test: &TestOutcome) -> io::Result<()> {
        let mut head = serde_json::to_vec(&TestLine {
            r#type: "test",
            name: &test.name,
            agent: test.agent.as_deref(),
            passed: test.passed,
            runs: test.run_count,
            passed_runs: test.passed_runs,
            stability: test.stability().map(Stability::as_str),
            xfail: test.xfail.as_deref(),
            verdict: test.verdict().marked_word(),
            metrics: crate::json::metrics(test),
            gates: crate::json::gates(test),
            agents: crate::json::agent_rows(test),
        })?;
        head.pop();
        self.out.write_all(&head)?;
        for part in test.json_parts() {
            write!(self.out, ",\"{}\":{{", part.key)?;
            let mut first = true;
            for (name, field) in &part.fields {
                if let JsonField::Value(text) = field {
                    if !first {
                        self.out.write_all(b",")?;
                    }
                    first = false;
                    serde_json::to_writer(&mut self.out, name)?;
                    self.out.write_all(b":")?;
                    // The grader wrote its values as compact JSON itself; they are copied
                    // through the transcoder only to keep numbers as written.
                    serde_json::to_writer(&mut self.out, &JsonText(text))?;
                }
            }
            self.out.write_all(b"}")?;
        }
        self.out.write_all(b"}\n")
    }

    /// Writes the summary line and hands back the output.
    pub fn finish(mut self, outcome: &SuiteOutcome) -> io::Result<W> {
        let tally = outcome.tally();
        line(
            &mut self.out,
            &SummaryLine {
                r#type: "summary",
                passed: tally.passes(),
                tests: tally.tests(),
                passed_tests: tally.passed,
                failed_tests: tally.failed,
                xfailed_tests: tally.marked.then_some(tally.xfailed),
                xpassed_tests: tally.marked.then_some(tally.xpassed),
                notes: &outcome.notes,
            },
        )?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Writes `value` as one compact line.
fn line(out: &mut impl Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
}

/// Writes the JSON Lines report of a suite's outcome from the runs it lists (every run of
/// a test with at most [`trailgate_expect::LISTED_RUNS`]); `check` writes every run as it is
/// scored instead, through [`JsonLines`].
pub fn render_jsonl(outcome: &SuiteOutcome, suite: &str, out: &mut dyn Write) -> io::Result<()> {
    let mut lines = JsonLines::new(out, suite, None)?;
    for test in &outcome.tests {
        lines.context = JsonContext::of_outcome(test);
        lines.test.clone_from(&test.name);
        for (index, info) in test.runs.iter().enumerate() {
            for list in &mut lines.lists {
                list.clear();
            }
            test.write_listed_json_entries(
                index,
                &lines.context,
                &mut Entries::new(&mut RunLists(&mut lines.lists)),
            )?;
            lines.write_run(info)?;
        }
        lines.finish_test(test)?;
    }
    lines.finish(outcome).map(|_| ())
}
