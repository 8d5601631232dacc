//! The HTML report: one self-contained page for people (docs/reports.md). The page is a fixed
//! template, style sheet and script (`html/`, embedded at build time) and the suite's data,
//! embedded once as JSON and drawn by the script; no string of a trace or a suite is ever
//! written as markup.
//!
//! The page shows every run, so the data of each run (its calls, its metrics, each grader's
//! entries, as the JSON report writes them) is collected while the runs are scored, one
//! compact JSON text per run spilled to an anonymous temporary file ([`HtmlRuns`]), and
//! copied into the page when it is written: memory does not grow with the number of runs.

use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};
use trailgate_expect::MetricValue;

use serde::{Serialize, Serializer};
use trailgate_expect::{
    Baseline, Entries, EntrySink, JsonContext, JsonField, Line, RunOutcome, Section, Stability,
    SuiteOutcome, Test as SuiteTest, TestOutcome,
};
use trailgate_trace::{Run, Status};

use crate::lines::{Look, Painter, TextOptions, render};
use crate::spill::Spill;
use crate::transcode::JsonText;

/// The version of the page's embedded data (`data.version`), for the page's script and for
/// anyone who reads the data out of a page.
const HTML_DATA_VERSION: u32 = 1;

/// The page, around its style sheet, script and data.
const PAGE: &str = include_str!("html/page.html");
const CSS: &str = include_str!("html/page.css");
const SCRIPT: &str = include_str!("html/page.js");

/// The most bytes of an argument's or a result's JSON text a run embeds; the rest is cut,
/// and a marker says how many bytes were.
pub(crate) const VALUE_CAP: usize = 2048;
/// The most bytes of one grader entry's JSON a run embeds; a longer entry is embedded as
/// its text, cut.
pub(crate) const ENTRY_CAP: usize = 4096;
/// The most calls a run embeds; the page says how many more the run has.
pub(crate) const CALLS_CAP: usize = 1000;
/// The most distinct tools a test counts by name; the calls of any more are counted
/// together under [`OTHER_TOOLS`].
pub(crate) const TOOLS_CAP: usize = 1000;
/// The name the calls of tools past [`TOOLS_CAP`] are counted under.
const OTHER_TOOLS: &str = "(other tools)";

/// A tool's counts over a test's runs: calls, calls that satisfied a class, unexpected
/// calls (equal-function sets) and calls with status `error`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct ToolCounts {
    called: u64,
    satisfied: u64,
    unexpected: u64,
    errors: u64,
}

impl ToolCounts {
    fn add(&mut self, other: Self) {
        self.called += other.called;
        self.satisfied += other.satisfied;
        self.unexpected += other.unexpected;
        self.errors += other.errors;
    }
}

/// One run's part of the page, built from the run and its outcome on whichever thread
/// scored it, and handed to [`HtmlRuns::push`] in run order.
#[derive(Debug)]
pub struct HtmlRun {
    file: String,
    /// The rest of the run's object, from its first field after the file: `"l":...}`.
    rest: Vec<u8>,
    metrics: Vec<&'static str>,
    tools: BTreeMap<String, ToolCounts>,
}

/// Where a run's grader entries go: each as `[list, entry]`, in the order written.
struct RunEntries(Vec<u8>);

impl EntrySink for RunEntries {
    fn entry(&mut self, list: usize, json: &[u8]) -> io::Result<()> {
        if self.0.len() > 1 {
            self.0.push(b',');
        }
        write!(self.0, "[{list},")?;
        if json.len() <= ENTRY_CAP {
            self.0.extend_from_slice(json);
        } else {
            let text = String::from_utf8_lossy(json);
            serde_json::to_writer(&mut self.0, &cut(&text, ENTRY_CAP))?;
        }
        self.0.push(b']');
        Ok(())
    }
}

/// `text` cut to at most `cap` bytes, on a character boundary, with a marker that says
/// how many bytes were cut.
fn cut(text: &str, cap: usize) -> String {
    if text.len() <= cap {
        return text.to_owned();
    }
    let mut end = cap;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}… [{} more bytes not shown]",
        &text[..end],
        text.len() - end
    )
}

impl HtmlRun {
    /// The page's data of `run`, scored as `outcome` under `test`; `context` is
    /// [`JsonContext::of_test`] of the test.
    pub fn new(test: &SuiteTest, context: &JsonContext, run: &Run, outcome: &RunOutcome) -> Self {
        let metrics = outcome.metrics(test);
        let mut tools: BTreeMap<String, ToolCounts> = BTreeMap::new();
        let mut calls = Vec::new();
        for call in &run.calls {
            let tool = match &call.server {
                Some(server) => format!("{server}.{}", call.name),
                None => call.name.clone(),
            };
            let counts = tools.entry(tool.clone()).or_default();
            counts.called += 1;
            counts.errors += u64::from(call.status == Status::Error);
            if calls.len() < CALLS_CAP {
                let args = match &call.args_raw {
                    Some(raw) => raw.clone(),
                    None => serde_json::to_string(call.args()).unwrap_or_default(),
                };
                let result = call
                    .result()
                    .map(|value| cut(&serde_json::to_string(value).unwrap_or_default(), VALUE_CAP));
                calls.push((
                    tool,
                    status_word(call.status),
                    call.step,
                    cut(&args, VALUE_CAP),
                    result,
                ));
            }
        }
        let marks = outcome.tool_marks();
        for tool in marks.satisfied {
            tools.entry(tool.to_string()).or_default().satisfied += 1;
        }
        for tool in marks.unexpected {
            tools.entry(tool.to_string()).or_default().unexpected += 1;
        }
        let mut entries = RunEntries(b"[".to_vec());
        // Writing into memory fails only when a grader names an unknown list: the run's
        // findings are then left out rather than the page.
        if outcome
            .write_json_entries(context, &mut Entries::new(&mut entries))
            .is_err()
        {
            entries.0.truncate(1);
        }
        entries.0.push(b']');
        let rest = RunRest {
            l: outcome.info.source.line,
            p: outcome.info.passed,
            k: outcome.info.calls,
            m: metrics.iter().map(|(_, value)| *value).collect(),
            x: outcome
                .blocks_with_findings()
                .iter()
                .map(|block| block.key())
                .collect(),
            c: calls,
            g: Raw(&entries.0),
        };
        let mut bytes = Vec::new();
        // Plain data serializes into memory.
        let _ = serde_json::to_writer(&mut bytes, &rest);
        // `{"l":...}` becomes `"l":...}`, to follow the run's number and file.
        bytes.remove(0);
        Self {
            file: outcome.info.source.file_and_trace().into_owned(),
            rest: bytes,
            metrics: metrics.iter().map(|(target, _)| target.as_str()).collect(),
            tools,
        }
    }
}

/// A run's object after its number and file: line, verdict, calls, metrics, the graders
/// with findings, the calls shown, and the graders' entries as `[list, entry]`.
#[derive(Serialize)]
struct RunRest<'a> {
    l: Option<usize>,
    p: bool,
    k: usize,
    m: Vec<MetricValue>,
    x: Vec<&'static str>,
    /// Each call shown: `[tool, status, step, arguments, result]`, the arguments and the
    /// result as their JSON text, cut.
    c: Vec<(String, &'static str, u32, String, Option<String>)>,
    g: Raw<'a>,
}

/// JSON text written as it is.
struct Raw<'a>(&'a [u8]);

impl Serialize for Raw<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text = std::str::from_utf8(self.0).map_err(serde::ser::Error::custom)?;
        JsonText(text).serialize(serializer)
    }
}

fn status_word(status: Status) -> &'static str {
    match status {
        Status::Ok => "ok",
        Status::Error => "error",
        Status::Unknown => "unknown",
    }
}

/// Every run's data of the page, one compact JSON text per run, written as the runs are
/// scored and copied into the page when it is written.
#[derive(Debug)]
pub struct HtmlRuns {
    spill: Spill,
    tests: Vec<Collected>,
}

/// What is summed over one test's runs as they are pushed.
#[derive(Debug, Default)]
struct Collected {
    runs: usize,
    /// The files the runs came from, in the order first met, and their numbers.
    files: Vec<String>,
    file_numbers: BTreeMap<String, usize>,
    metrics: Vec<&'static str>,
    tools: BTreeMap<String, ToolCounts>,
}

impl HtmlRuns {
    /// Collects the runs in an anonymous temporary file.
    pub fn spilled() -> io::Result<Self> {
        Ok(Self {
            spill: Spill::file()?,
            tests: Vec::new(),
        })
    }

    /// Collects the runs in memory.
    pub fn in_memory() -> Self {
        Self {
            spill: Spill::memory(),
            tests: Vec::new(),
        }
    }

    /// Begins the next test; its runs follow with [`push`](Self::push).
    pub fn start_test(&mut self) {
        self.tests.push(Collected::default());
    }

    /// Adds the test's next run.
    pub fn push(&mut self, run: HtmlRun) -> io::Result<()> {
        let Some(test) = self.tests.last_mut() else {
            return Err(io::Error::other("a run was pushed before its test"));
        };
        test.runs += 1;
        let file = if let Some(number) = test.file_numbers.get(&run.file) {
            *number
        } else {
            let number = test.files.len();
            test.file_numbers.insert(run.file.clone(), number);
            test.files.push(run.file);
            number
        };
        if test.metrics.is_empty() {
            test.metrics = run.metrics;
        }
        for (tool, counts) in run.tools {
            let known = test.tools.len() < TOOLS_CAP || test.tools.contains_key(&tool);
            let name = if known { tool } else { OTHER_TOOLS.to_owned() };
            test.tools.entry(name).or_default().add(counts);
        }
        let line = format!("{{\"n\":{},\"f\":{file},", test.runs);
        self.spill.line(&[line.as_bytes(), &run.rest])
    }

    fn into_reader(self) -> io::Result<(Box<dyn BufRead>, Vec<Collected>)> {
        Ok((self.spill.into_reader()?, self.tests))
    }
}

/// The page's data, but each test's runs.
#[derive(Serialize)]
struct PageData<'a> {
    version: u32,
    suite: &'a str,
    passed: bool,
    summary: crate::json::Summary,
    caps: Caps,
    notes: &'a [String],
}

/// The limits of what a run embeds, which the page states.
#[derive(Serialize)]
struct Caps {
    value_bytes: usize,
    entry_bytes: usize,
    calls: usize,
    tools: usize,
}

/// A test's data, but its runs.
#[derive(Serialize)]
struct TestData<'a> {
    name: &'a str,
    agent: Option<&'a str>,
    passed: bool,
    /// The number of runs (`runs` is the list of them, after these fields).
    run_count: usize,
    passed_runs: usize,
    /// `stable`, `failing` or `flaky`, with two runs or more.
    #[serde(skip_serializing_if = "Option::is_none")]
    stability: Option<&'static str>,
    /// A marked test's reason and verdict (`xfail` or `xpass`).
    #[serde(skip_serializing_if = "Option::is_none")]
    xfail: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<&'static str>,
    metrics: Vec<(&'static str, MetricValue)>,
    /// The gates as the JSON report writes them: a skipped gate (on a baseline that was
    /// not given) has no value and no verdict, and a gate on the baseline its `baseline`.
    gates: Vec<crate::json::Gate<'a>>,
    /// Each grader's object of the JSON report, its run-sized lists left out.
    parts: Parts,
    /// Each run-sized list of the JSON report, by number: `[grader, field, keys]`, the keys
    /// under which its entries name a call by number (`JsonPart::call_keys`).
    lists: Vec<Option<(&'static str, &'static str, &'static [&'static str])>>,
    /// The metrics each run's `m` holds, in order.
    run_metrics: &'a [&'static str],
    files: &'a [String],
    /// Per tool: `[tool, called, satisfied, unexpected, errors]`.
    tools: Vec<(&'a str, u64, u64, u64, u64)>,
    /// Per class of the equal-function sets: `[class, runs satisfied, runs missed]`.
    classes: Vec<(&'a str, u64, u64)>,
    /// Per agent, by name: `{agent, calls, errors, tools}`; left out when no call has an
    /// agent, so that pages of traces without agents keep their bytes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    agents: Vec<crate::json::AgentRow<'a>>,
    /// The comparison with the report of `check --baseline` (`null` without one).
    baseline: Option<BaselineData<'a>>,
    /// Why the test failed, shown in its section without a click; empty when it passed.
    failures: Vec<Failure>,
}

/// The failed gates of one grader (or of no grader), with what explains them, in the words
/// of the text report: the counts behind the gates and the findings of the listed runs.
/// Each run's own data is not repeated: a run is named by its number, and the page takes
/// its source from the run's entry.
#[derive(Debug, Serialize, PartialEq, Eq)]
struct Failure {
    /// Each failed gate: its index in the test's `gates`, and the gate as the text report
    /// writes it (`tool_selection.f1 >= baseline - 2 (baseline 90, so 88)`), which the page
    /// follows with the value it compared.
    gates: Vec<(usize, String)>,
    /// The grader's key, which the run explorer's finding filter takes; `null` for a gate
    /// on a metric that no grader's section lists.
    key: Option<&'static str>,
    /// The grader's name as a heading (`Tool calls`).
    title: Option<&'static str>,
    /// The counts behind the gates (`4 of 25 runs failed (...)`), or, for a grader that
    /// counts nothing for them, its line of sums over every run.
    note: Option<String>,
    /// Each listed run with findings of the grader: its number and its findings. At most
    /// the text report's listed runs ([`TestOutcome::runs`]), so this does not grow with
    /// the runs.
    runs: Vec<(usize, Vec<String>)>,
}

/// `line` in the text report's words, without colour: user text with its control
/// characters escaped and long values cut, as a terminal shows them. The page inserts it
/// as text.
fn words(line: &Line, painter: &Painter) -> String {
    render(line, Look::Text(painter))
}

/// Why `test` failed: its failed gates grouped by the grader whose metric each judged, in
/// the order of each group's first gate, each group with what explains it.
fn failures(test: &TestOutcome) -> Vec<Failure> {
    let painter = Painter::new(TextOptions::default());
    let sections = test.sections();
    let mut failures: Vec<(Option<&Section>, Failure)> = Vec::new();
    for (index, gate) in test.gates.iter().enumerate() {
        if gate.passed {
            continue;
        }
        let section = sections
            .iter()
            .find(|section| section.targets.contains(&gate.gate.target));
        let line = gate.written();
        let key = section.map(|section| section.key);
        if let Some((_, failure)) = failures.iter_mut().find(|(_, f)| f.key == key) {
            failure.gates.push((index, line));
            continue;
        }
        let runs = section.map_or_else(Vec::new, |section| {
            test.runs
                .iter()
                .zip(&section.facts)
                .filter(|(_, facts)| !facts.is_empty())
                .map(|(info, facts)| {
                    let facts = facts.iter().map(|fact| words(fact, &painter)).collect();
                    (info.number, facts)
                })
                .collect()
        });
        let failure = Failure {
            gates: vec![(index, line)],
            key,
            title: section.map(|section| section.title),
            note: None,
            runs,
        };
        failures.push((section, failure));
    }
    for (section, failure) in &mut failures {
        let Some(section) = section else { continue };
        let explained = failure
            .gates
            .iter()
            .any(|(index, _)| section.explained.contains(&test.gates[*index].gate.target));
        failure.note = match &section.gate_note {
            Some(note) if explained => Some(words(note, &painter)),
            _ => Some(words(&section.summary, &painter)),
        };
    }
    failures.into_iter().map(|(_, failure)| failure).collect()
}

/// A test's comparison with the baseline report: the baseline's metrics of the test of the
/// same name, or `null` when the baseline has no such test; the page sets them beside the
/// test's own.
#[derive(Serialize)]
struct BaselineData<'a> {
    metrics: Option<&'a BTreeMap<String, MetricValue>>,
}

/// Each grader's values, under its key, as the grader serialized them.
struct Parts(Vec<trailgate_expect::JsonPart>);

impl Serialize for Parts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for part in &self.0 {
            map.serialize_entry(part.key, &PartValues(part))?;
        }
        map.end()
    }
}

struct PartValues<'a>(&'a trailgate_expect::JsonPart);

impl Serialize for PartValues<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        for (name, field) in &self.0.fields {
            if let JsonField::Value(text) = field {
                map.serialize_entry(name, &JsonText(text))?;
            }
        }
        map.end()
    }
}

/// Writes the HTML report of a suite's outcome with every run that `runs` collected, one
/// test of `runs` per test of `outcome`, in order. `suite` is the suite file as named on
/// the command line.
pub fn render_html(
    outcome: &SuiteOutcome,
    runs: HtmlRuns,
    suite: &str,
    baseline: Option<&Baseline>,
    out: &mut dyn Write,
) -> io::Result<()> {
    if runs.tests.len() != outcome.tests.len() {
        return Err(io::Error::other(
            "the runs collected are not those of the outcome's tests",
        ));
    }
    let (mut reader, collected) = runs.into_reader()?;
    let (head, tail) = PAGE
        .split_once("/*DATA*/")
        .ok_or_else(|| io::Error::other("the page template has no data marker"))?;
    let head = head
        .replacen("/*SCRIPT-SHA256*/", &script_digest(), 1)
        .replacen("/*CSS*/", CSS, 1);
    let tail = tail.replacen("/*SCRIPT*/", SCRIPT, 1);
    out.write_all(head.as_bytes())?;

    let page = PageData {
        version: HTML_DATA_VERSION,
        suite,
        passed: outcome.passed(),
        summary: outcome.tally().into(),
        caps: Caps {
            value_bytes: VALUE_CAP,
            entry_bytes: ENTRY_CAP,
            calls: CALLS_CAP,
            tools: TOOLS_CAP,
        },
        notes: &outcome.notes,
    };
    // Each object is written without its closing brace, for the fields that follow.
    write_open(out, &page)?;
    out.write_all(b",\"tests\":[")?;
    let mut line = String::new();
    for (index, (test, collected)) in outcome.tests.iter().zip(&collected).enumerate() {
        if index > 0 {
            out.write_all(b",")?;
        }
        write_open(out, &test_data(test, collected, baseline))?;
        out.write_all(b",\"runs\":[")?;
        for run in 0..collected.runs {
            line.clear();
            reader.read_line(&mut line)?;
            if run > 0 {
                out.write_all(b",")?;
            }
            write_escaped(out, line.trim_end().as_bytes())?;
        }
        out.write_all(b"]}")?;
    }
    out.write_all(b"]}")?;
    out.write_all(tail.as_bytes())
}

/// The SHA-256 of the page's script element's text, in base64: the page's
/// Content-Security-Policy runs that script and no other, so that even markup that reached
/// the page could run nothing (no injected `<script>`, no `onerror` attribute).
fn script_digest() -> String {
    use sha2::Digest;
    // The template puts the script on lines of its own: `<script>\n...\n</script>`.
    let digest = sha2::Sha256::digest(format!("\n{SCRIPT}\n").as_bytes());
    base64(&digest)
}

/// Standard base64, with padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut text = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (index, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if index <= chunk.len() {
                text.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                text.push('=');
            }
        }
    }
    text
}

/// Writes `value`'s JSON object, escaped for the page, without its closing brace.
fn write_open(out: &mut dyn Write, value: &impl Serialize) -> io::Result<()> {
    let mut bytes = serde_json::to_vec(value)?;
    if bytes.pop() != Some(b'}') {
        return Err(io::Error::other("the page's data is not an object"));
    }
    write_escaped(out, &bytes)
}

/// Writes JSON text so that it cannot end the `<script>` element that holds it, nor be
/// read as markup: `<`, `>` and `&` (which JSON text has only inside strings) become
/// `\u003c`, `\u003e` and `\u0026`, and U+2028 and U+2029 are escaped too, as older
/// JavaScript parsers end a line there.
pub(crate) fn write_escaped(out: &mut dyn Write, json: &[u8]) -> io::Result<()> {
    let mut start = 0;
    let mut index = 0;
    while index < json.len() {
        let escape: Option<(&[u8], usize)> = match json[index] {
            b'<' => Some((b"\\u003c", 1)),
            b'>' => Some((b"\\u003e", 1)),
            b'&' => Some((b"\\u0026", 1)),
            0xE2 if json.get(index + 1) == Some(&0x80) => match json.get(index + 2) {
                Some(0xA8) => Some((b"\\u2028", 3)),
                Some(0xA9) => Some((b"\\u2029", 3)),
                _ => None,
            },
            _ => None,
        };
        if let Some((replacement, width)) = escape {
            out.write_all(&json[start..index])?;
            out.write_all(replacement)?;
            index += width;
            start = index;
        } else {
            index += 1;
        }
    }
    out.write_all(&json[start..])
}

fn test_data<'a>(
    test: &'a TestOutcome,
    collected: &'a Collected,
    baseline: Option<&'a Baseline>,
) -> TestData<'a> {
    let parts = test.json_parts();
    let mut lists = Vec::new();
    for part in &parts {
        for (name, field) in &part.fields {
            if let JsonField::List(list) = field {
                if lists.len() <= *list {
                    lists.resize(*list + 1, None);
                }
                lists[*list] = Some((part.key, *name, part.call_keys));
            }
        }
    }
    // Every run either satisfied a class or missed it.
    let runs = test.run_count as u64;
    let classes = test
        .class_misses()
        .into_iter()
        .map(|(class, missed)| (class, runs.saturating_sub(missed), missed))
        .collect();
    TestData {
        name: &test.name,
        agent: test.agent.as_deref(),
        passed: test.passed,
        run_count: test.run_count,
        passed_runs: test.passed_runs,
        stability: test.stability().map(Stability::as_str),
        xfail: test.xfail.as_deref(),
        verdict: test.verdict().marked_word(),
        metrics: test
            .metrics
            .iter()
            .map(|(target, value)| (target.as_str(), *value))
            .collect(),
        gates: crate::json::gates(test),
        parts: Parts(parts),
        lists,
        run_metrics: &collected.metrics,
        files: &collected.files,
        tools: collected
            .tools
            .iter()
            .map(|(tool, c)| (tool.as_str(), c.called, c.satisfied, c.unexpected, c.errors))
            .collect(),
        classes,
        agents: crate::json::agent_rows(test),
        baseline: baseline.map(|baseline| BaselineData {
            metrics: baseline.test(&test.name),
        }),
        failures: failures(test),
    }
}

#[cfg(test)]
mod tests;
