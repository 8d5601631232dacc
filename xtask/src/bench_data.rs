//! `cargo xtask bench-data`: a deterministic, seeded corpus of recorded runs in trailgate's
//! own JSONL call-list shape, and the suite that applies all four grader kinds to it
//! (issue 8, docs/performance.md).
//!
//! The same `--calls` and `--seed` always give the same bytes. The corpus is written one run
//! at a time through a buffer, never held whole.

use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use fastrand::Rng;
use serde_json::{Map, Value, json};

/// The number of calls written when `--calls` is not given.
pub(crate) const DEFAULT_CALLS: u64 = 1_000_000;
/// The seed used when `--seed` is not given.
pub(crate) const DEFAULT_SEED: u64 = 8;

/// What a generation wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Summary {
    /// The corpus file.
    pub(crate) corpus: PathBuf,
    /// The suite file, beside it.
    pub(crate) suite: PathBuf,
    /// Lines of the corpus: one run each.
    pub(crate) runs: u64,
    /// Calls over all runs.
    pub(crate) calls: u64,
    /// Size of the corpus in bytes.
    pub(crate) bytes: u64,
    /// Distinct servers and `(server, tool)` pairs of the generated tool universe.
    pub(crate) servers: usize,
    pub(crate) tools: usize,
}

/// The folder `cargo xtask bench` keeps the corpus of `calls` calls in, under `target/`.
pub(crate) fn default_dir(target: &Path, calls: u64, seed: u64, short: bool) -> PathBuf {
    let mut name = if seed == DEFAULT_SEED {
        format!("calls-{calls}")
    } else {
        format!("calls-{calls}-seed-{seed}")
    };
    if short {
        name.push_str("-short");
    }
    target.join("bench-data").join(name)
}

/// `cargo xtask bench-data [--calls N] [--seed S] [--out DIR] [--short]`.
pub(crate) fn command(target: &Path, args: &[String]) -> Result<(), String> {
    let mut calls = DEFAULT_CALLS;
    let mut seed = DEFAULT_SEED;
    let mut out = None;
    let mut short = false;
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        if flag == "--short" {
            short = true;
            continue;
        }
        let value = args
            .next()
            .ok_or_else(|| format!("`{flag}` needs a value"))?;
        match flag.as_str() {
            "--calls" => calls = number(flag, value)?,
            "--seed" => seed = number(flag, value)?,
            "--out" => out = Some(PathBuf::from(value)),
            _ => {
                return Err(format!(
                    "unknown flag `{flag}`; usage: cargo xtask bench-data [--calls N] [--seed S] [--out DIR] [--short]"
                ));
            }
        }
    }
    let out = out.unwrap_or_else(|| default_dir(target, calls, seed, short));
    let summary = generate(&out, calls, seed, short)?;
    crate::say(&format!(
        "bench-data: {} calls in {} runs, {} tools on {} servers, {} bytes: {} and {}",
        summary.calls,
        summary.runs,
        summary.tools,
        summary.servers,
        summary.bytes,
        summary.corpus.display(),
        summary.suite.display()
    ));
    Ok(())
}

/// Parses a flag's value as a whole number (underscores allowed: `1_000_000`).
pub(crate) fn number(flag: &str, value: &str) -> Result<u64, String> {
    value
        .replace('_', "")
        .parse()
        .map_err(|e| format!("`{flag} {value}`: {e}"))
}

/// How a tool's arguments and result look; it follows from the tool's name, so a `bash` is
/// a `bash` on every server (and always carries a `command`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Query,
    Command,
    Path,
    Url,
    Message,
    Record,
}

const NAMES: &[(&str, Shape)] = &[
    ("search", Shape::Query),
    ("web_search", Shape::Query),
    ("search_code", Shape::Query),
    ("bash", Shape::Command),
    ("exec", Shape::Command),
    ("run_script", Shape::Command),
    ("read_file", Shape::Path),
    ("write_file", Shape::Path),
    ("list_dir", Shape::Path),
    ("stat", Shape::Path),
    ("fetch", Shape::Url),
    ("download", Shape::Url),
    ("get", Shape::Url),
    ("send_message", Shape::Message),
    ("post", Shape::Message),
    ("notify", Shape::Message),
    ("query", Shape::Record),
    ("insert", Shape::Record),
    ("list_issues", Shape::Record),
    ("create_issue", Shape::Record),
];

const SERVERS: &[&str] = &[
    "brave",
    "google",
    "github",
    "filesystem",
    "shell",
    "http",
    "postgres",
    "slack",
];

const WORDS: &[&str] = &[
    "rust",
    "trailgate",
    "release",
    "notes",
    "async",
    "runtime",
    "benchmark",
    "parser",
    "json",
    "trace",
    "agent",
    "server",
    "tool",
    "regex",
    "matching",
    "subsequence",
    "class",
    "score",
    "weather",
    "paris",
    "invoice",
    "customer",
    "deploy",
    "staging",
    "error",
    "timeout",
    "retry",
    "cache",
    "index",
    "schema",
    "migration",
    "report",
    "nightly",
    "build",
    "coverage",
    "lint",
];

const COMMANDS: &[&str] = &[
    "cargo test",
    "cargo build --release",
    "npm test",
    "npm run lint",
    "make build",
    "make test",
    "git status",
    "ls -la",
    "rm -rf target/tmp",
    "python -m pytest -q",
];

const PATHS: &[&str] = &[
    "src/main.rs",
    "src/lib.rs",
    "README.md",
    "docs/suite.md",
    "Cargo.toml",
    ".env",
    "config/.env",
    "package.json",
    "tests/it/main.rs",
    "notes.txt",
];

/// One tool of the generated universe.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Tool {
    server: &'static str,
    name: &'static str,
    shape: Shape,
}

/// The tools a corpus is drawn from: 10 to 40 `(server, tool)` pairs on 3 to 8 servers.
/// The first five are the ones the suite names: `search` on two servers, `bash`,
/// `read_file` and `fetch`.
#[derive(Debug)]
struct Universe {
    servers: Vec<&'static str>,
    tools: Vec<Tool>,
}

const CORE: usize = 5;

impl Universe {
    fn new(rng: &mut Rng) -> Self {
        let mut servers = SERVERS.to_vec();
        rng.shuffle(&mut servers);
        servers.truncate(rng.usize(3..=SERVERS.len()));
        let target = rng.usize(10..=40);
        let tool = |server, name: &'static str| Tool {
            server,
            name,
            shape: NAMES
                .iter()
                .find(|(n, _)| *n == name)
                .map_or(Shape::Query, |(_, shape)| *shape),
        };
        let mut tools = vec![
            tool(servers[0], "search"),
            tool(servers[1], "search"),
            tool(servers[2], "bash"),
            tool(servers[2], "read_file"),
            tool(servers[1], "fetch"),
        ];
        while tools.len() < target {
            let (name, _) = NAMES[rng.usize(..NAMES.len())];
            let candidate = tool(servers[rng.usize(..servers.len())], name);
            if !tools.contains(&candidate) {
                tools.push(candidate);
            }
        }
        Self { servers, tools }
    }

    fn qualified(&self, index: usize) -> String {
        let tool = &self.tools[index];
        format!("{}.{}", tool.server, tool.name)
    }
}

/// Writes `corpus.jsonl` (exactly `calls` calls, runs of 5 to 50 calls; the last run may be
/// shorter) and `trailgate.yaml` into `out`.
/// Writes the corpus and its suite. With `short`, every call is about 120 bytes (a short
/// argument, a one-word result), so that the costs per call show rather than those per
/// byte.
pub(crate) fn generate(out: &Path, calls: u64, seed: u64, short: bool) -> Result<Summary, String> {
    fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut rng = Rng::with_seed(seed);
    let universe = Universe::new(&mut rng);
    let corpus = out.join("corpus.jsonl");
    let suite = out.join("trailgate.yaml");
    let write_error = |e: std::io::Error| format!("cannot write {}: {e}", corpus.display());
    let file = File::create(&corpus).map_err(write_error)?;
    let mut writer = BufWriter::with_capacity(1 << 20, file);
    let (mut runs, mut written) = (0_u64, 0_u64);
    while written < calls {
        let length = rng.u64(5..=50).min(calls - written);
        let run = generate_run(&mut rng, &universe, length, short);
        serde_json::to_writer(&mut writer, &run).map_err(|e| write_error(e.into()))?;
        writer.write_all(b"\n").map_err(write_error)?;
        runs += 1;
        written += length;
    }
    writer.flush().map_err(write_error)?;
    drop(writer);
    let bytes = fs::metadata(&corpus).map_err(write_error)?.len();
    fs::write(&suite, suite_text(&universe, calls, runs, seed))
        .map_err(|e| format!("cannot write {}: {e}", suite.display()))?;
    Ok(Summary {
        corpus,
        suite,
        runs,
        calls: written,
        bytes,
        servers: universe.servers.len(),
        tools: universe.tools.len(),
    })
}

/// A data folder of the benchmark, ready to be measured: its corpus, its suite and the
/// corpus's size.
pub(crate) struct Prepared {
    pub(crate) dir: PathBuf,
    pub(crate) corpus: PathBuf,
    pub(crate) suite: PathBuf,
    pub(crate) bytes: u64,
}

/// The default data folder for `calls`, `seed` and `short` under `target`, generated when
/// its corpus is missing or its suite is not current ([`suite_is_current`]); `task` names
/// the xtask in the message that says so.
pub(crate) fn prepared(
    task: &str,
    target: &Path,
    calls: u64,
    seed: u64,
    short: bool,
) -> Result<Prepared, String> {
    let dir = default_dir(target, calls, seed, short);
    let corpus = dir.join("corpus.jsonl");
    let suite = dir.join("trailgate.yaml");
    if !corpus.is_file() || !suite_is_current(&dir, calls, seed) {
        crate::say(&format!("{task}: generating {}", dir.display()));
        generate(&dir, calls, seed, short)?;
    }
    let bytes = fs::metadata(&corpus)
        .map_err(|e| format!("cannot read {}: {e}", corpus.display()))?
        .len();
    Ok(Prepared {
        dir,
        corpus,
        suite,
        bytes,
    })
}

/// Whether the suite in `out` is the one [`generate`] writes now for `calls` and `seed`: a
/// folder generated before the benchmark's suite changed is generated again, so that its
/// figures are never those of an older suite.
pub(crate) fn suite_is_current(out: &Path, calls: u64, seed: u64) -> bool {
    let Ok(text) = fs::read_to_string(out.join("trailgate.yaml")) else {
        return false;
    };
    // The first line says how many runs the corpus holds: `...: 36320 runs, ...`.
    let runs = text
        .lines()
        .next()
        .and_then(|line| line.split_once("`: "))
        .and_then(|(_, rest)| rest.split_once(" runs"))
        .and_then(|(runs, _)| runs.parse().ok());
    let Some(runs) = runs else {
        return false;
    };
    let mut rng = Rng::with_seed(seed);
    let universe = Universe::new(&mut rng);
    text == suite_text(&universe, calls, runs, seed)
}

fn generate_run(rng: &mut Rng, universe: &Universe, length: u64, short: bool) -> Value {
    let mut calls = Vec::new();
    let mut step = 0_u32;
    for position in 0..length {
        if position > 0 && rng.u8(..4) == 0 {
            step += 1;
        }
        // Two calls in five go to the tools the suite names, so every grader finds work.
        let index = if rng.u8(..5) < 2 {
            rng.usize(..CORE)
        } else {
            rng.usize(..universe.tools.len())
        };
        let tool = &universe.tools[index];
        let args = if index < CORE && rng.u8(..3) == 0 {
            canonical_args(tool.shape)
        } else if short {
            short_args(rng, tool.shape)
        } else {
            random_args(rng, tool.shape)
        };
        let mut call = Map::new();
        call.insert("server".into(), tool.server.into());
        call.insert("name".into(), tool.name.into());
        call.insert("args".into(), args);
        // One call in twenty has no recorded result.
        if rng.u8(..20) != 0 {
            let result = if short {
                Value::from(word(rng))
            } else {
                result(rng, tool.shape)
            };
            call.insert("result".into(), result);
        }
        let status = if rng.u8(..10) == 0 { "error" } else { "ok" };
        call.insert("status".into(), status.into());
        call.insert("step".into(), step.into());
        calls.push(Value::Object(call));
    }
    // Each turn a model response: its tokens follow from the run's shape, not from the
    // random stream, so that adding them left the calls as they were.
    let turns = u64::from(step) + 1;
    json!({
        "tool_calls": calls,
        "usage": { "bench-model": {
            "input_tokens": 1_200 * turns + 40 * length,
            "output_tokens": 90 * turns,
        } },
    })
}

/// The arguments the suite's `call-accuracy` grader expects of each shape; one in three
/// calls to the suite's tools carries them.
fn canonical_args(shape: Shape) -> Value {
    match shape {
        Shape::Query => json!({
            "query": "trailgate release notes",
            "options": { "limit": 10, "lang": "en", "filters": ["docs", "blog"], "safe": true }
        }),
        Shape::Command => json!({
            "command": "cargo test",
            "cwd": "/work/project",
            "env": { "RUST_LOG": "info", "CI": "true" },
            "timeout_ms": 600_000
        }),
        Shape::Path => json!({ "path": "README.md", "range": { "start": 1, "end": 80 } }),
        Shape::Url => json!({
            "url": "https://example.com/trailgate/releases",
            "headers": { "accept": "application/json" },
            "retry": { "count": 3, "backoff_ms": [100, 200, 400] }
        }),
        Shape::Message => json!({
            "channel": "#releases",
            "text": "trailgate is out",
            "thread": { "ts": "1700000000.000100", "broadcast": false }
        }),
        Shape::Record => json!({
            "table": "issues",
            "filter": { "state": "open", "labels": ["bug"], "since": { "days": 7 } },
            "fields": ["id", "title"],
            "limit": 50
        }),
    }
}

fn pick<T: Copy>(rng: &mut Rng, items: &[T]) -> T {
    items[rng.usize(..items.len())]
}

fn word(rng: &mut Rng) -> &'static str {
    WORDS[rng.usize(..WORDS.len())]
}

fn words(rng: &mut Rng, low: usize, high: usize) -> String {
    let count = rng.usize(low..=high);
    let mut text = String::new();
    for i in 0..count {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(word(rng));
    }
    text
}

fn word_list(rng: &mut Rng, high: usize) -> Value {
    (0..rng.usize(..=high))
        .map(|_| Value::from(word(rng)))
        .collect()
}

/// The arguments of a short call: the one the shape's matchers read, a word long.
fn short_args(rng: &mut Rng, shape: Shape) -> Value {
    let key = match shape {
        Shape::Query => "query",
        Shape::Command => "command",
        Shape::Path => "path",
        Shape::Url => "url",
        Shape::Message => "text",
        Shape::Record => "table",
    };
    json!({ key: word(rng) })
}

fn random_args(rng: &mut Rng, shape: Shape) -> Value {
    match shape {
        Shape::Query => json!({
            "query": words(rng, 2, 5),
            "options": {
                "limit": rng.u32(1..=100),
                "lang": pick(rng, &["en", "de", "fr"]),
                "filters": word_list(rng, 3),
                "safe": rng.bool()
            }
        }),
        Shape::Command => {
            let mut command = COMMANDS[rng.usize(..COMMANDS.len())].to_owned();
            if rng.bool() {
                let _ = write!(command, " --jobs {}", rng.u8(1..=8));
            }
            json!({
                "command": command,
                "cwd": format!("/work/{}", word(rng)),
                "env": { "RUST_LOG": pick(rng, &["info", "debug", "warn"]), "CI": "true" },
                "timeout_ms": rng.u32(1_000..=600_000)
            })
        }
        Shape::Path => {
            let start = rng.u32(1..=500);
            json!({
                "path": PATHS[rng.usize(..PATHS.len())],
                "range": { "start": start, "end": start + rng.u32(1..=200) }
            })
        }
        Shape::Url => json!({
            "url": format!("https://{}.example.com/{}/{}", word(rng), word(rng), rng.u32(..100_000)),
            "headers": { "accept": pick(rng, &["application/json", "text/html"]) },
            "retry": { "count": rng.u8(..=5), "backoff_ms": [100, rng.u32(100..=2_000)] }
        }),
        Shape::Message => json!({
            "channel": format!("#{}", word(rng)),
            "text": words(rng, 3, 12),
            "thread": {
                "ts": format!("1700000000.{:06}", rng.u32(..1_000_000)),
                "broadcast": rng.bool()
            }
        }),
        Shape::Record => json!({
            "table": word(rng),
            "filter": {
                "state": pick(rng, &["open", "closed"]),
                "labels": word_list(rng, 3),
                "since": { "days": rng.u16(1..=365) }
            },
            "fields": ["id", "title", "state"],
            "limit": rng.u16(1..=500)
        }),
    }
}

fn result(rng: &mut Rng, shape: Shape) -> Value {
    match shape {
        Shape::Query => {
            let hits: Vec<Value> = (0..rng.usize(..=3))
                .map(|_| {
                    json!({
                        "title": words(rng, 2, 6),
                        "url": format!("https://{}.example.com/{}", word(rng), word(rng)),
                        "score": f64::from(rng.u32(..1_000)) / 1_000.0
                    })
                })
                .collect();
            json!({ "hits": hits, "total": rng.u32(..10_000) })
        }
        Shape::Command => json!({
            "exit_code": i32::from(rng.u8(..5) == 0),
            "stdout": words(rng, 4, 20),
            "stderr": if rng.u8(..5) == 0 { words(rng, 2, 8) } else { String::new() }
        }),
        Shape::Path => Value::from(format!("// {}\nfn main() {{}}\n", words(rng, 5, 25))),
        Shape::Url => json!({
            "status": pick(rng, &[200, 200, 200, 301, 404, 503]),
            "body": words(rng, 5, 30)
        }),
        Shape::Message => {
            json!({ "ok": rng.u8(..10) != 0, "ts": format!("1700000000.{:06}", rng.u32(..1_000_000)) })
        }
        Shape::Record => {
            let rows: Vec<Value> = (0..rng.usize(..=4))
                .map(|_| json!({ "id": rng.u32(..100_000), "title": words(rng, 2, 6) }))
                .collect();
            json!({ "rows": rows, "count": rng.u32(..1_000) })
        }
    }
}

/// A JSON value as a YAML flow value: JSON with a space after each `:` and `,`.
fn flow(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let entries: Vec<String> = map
                .iter()
                .map(|(key, value)| format!("{}: {}", Value::from(key.as_str()), flow(value)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(flow).collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

/// The suite: one test over the whole corpus with an `equal_function_sets` block and the
/// three graders. Every gate is `>= 0`, so the check passes and exits 0 whatever the scores.
fn suite_text(universe: &Universe, calls: u64, runs: u64, seed: u64) -> String {
    let search_a = universe.qualified(0);
    let search_b = universe.qualified(1);
    let fetch = universe.qualified(4);
    let mut text = format!(
        "# Written by `cargo xtask bench-data --calls {calls} --seed {seed}`: {runs} runs, {tools} tools on {servers} servers.
# The benchmark suite of issue 8 (docs/performance.md): every grader kind over one JSONL.
tests:
  - name: bench corpus
    type: agent
    agent: bench
    traces: corpus.jsonl
    equal_function_sets:
      classes:
        - name: search
          members: [{search_a}, {search_b}]
        - name: shell
          members: [bash]
        - name: read
          members: [read_file]
        - name: fetch
          members: [{fetch}]
",
        tools = universe.tools.len(),
        servers = universe.servers.len(),
    );
    // A class for each of up to four more tools, so the assignment has more to choose from.
    for (index, tool) in universe.tools.iter().enumerate().skip(CORE).take(4) {
        let _ = write!(
            text,
            "        - name: {}-{}\n          members: [{}]\n",
            tool.server,
            tool.name,
            universe.qualified(index)
        );
    }
    let expected = |index: usize| {
        format!(
            "            - tool: {}\n              args: {}\n",
            universe.qualified(index),
            flow(&canonical_args(universe.tools[index].shape))
        )
    };
    let _ = write!(
        text,
        r#"      expect:
        - tool_selection.f1: {{ ">=": 0 }}
    graders:
      - type: tool-calls
        config:
          required:
            - name: "^search$"
              args: {{ query: "(?i)trailgate|rust" }}
            - name: "^bash$"
              command: "^(cargo|npm|make) (test|build)"
            - name: "^read_file$"
              path: "\\.(rs|md|toml)$"
              before_step: 8
          disallowed:
            - name: "^bash$"
              command: "rm -rf /"
            - name: "^(read|write)_file$"
              path: "(^|/)\\.env$"
            - name: "^fetch$"
              result: "\"status\":5[0-9][0-9]"
          sequence:
            - name: "search"
            - name: "^(fetch|get|download)$"
            - name: "^bash$"
              command: "test"
          expect:
            - tool_calls.pass_rate: {{ ">=": 0 }}
      - type: tool-correctness
        config:
          expected_tools: [{search_a}, fetch, read_file, bash]
          check_ordering: true
          expect:
            - tool_correctness.score: {{ ">=": 0 }}
      - type: call-accuracy
        config:
          expected:
{}{}{}{}          expect:
            - call_accuracy.f1: {{ ">=": 0 }}
"#,
        expected(0),
        expected(2),
        expected(3),
        expected(4),
    );
    text.push_str(&path_graders(&search_a));
    text
}

/// The trajectory, budget, errors and dependencies graders (docs/graders/) in the benchmark's
/// suite: a trajectory with a parallel
/// group and a budget with its call limits, `max_loop` and `max_tokens` (the runs record
/// usage, not times).
fn path_graders(search_a: &str) -> String {
    format!(
        r#"      - type: trajectory
        config:
          mode: in_order
          expected:
            - {search_a}
            - parallel: [fetch, read_file]
            - tool: bash
              args: {{ command: {{ $regex: "test" }} }}
              args_mode: subset
          expect:
            - trajectory.score: {{ ">=": 0 }}
      - type: budget
        config:
          max_calls: 40
          max_steps: 12
          max_errors: 3
          max_repeats: 2
          max_loop: 4
          max_tokens: 200000
          max_calls_per_tool:
            - {{ tool: bash, max: 10 }}
          optimal_calls: 8
          expect:
            - budget.pass_rate: {{ ">=": 0 }}
      - type: dependencies
        config:
          edges:
            - {{ before: {search_a}, after: fetch }}
            - {{ feeds: {search_a}, into: fetch, arg: url }}
          expect:
            - dependencies.pass_rate: {{ ">=": 0 }}
"#
    )
}

#[cfg(test)]
mod tests {
    use std::fs;

    use trailgate_expect::{RunSource, SuiteFile, TestEvaluator};

    use super::generate;

    #[test]
    fn a_seed_gives_the_same_bytes_and_trailgate_reads_them() {
        let first = tempfile::tempdir().unwrap();
        let second = tempfile::tempdir().unwrap();
        let a = generate(first.path(), 3_000, 42, false).unwrap();
        let b = generate(second.path(), 3_000, 42, false).unwrap();
        assert_eq!(a.calls, 3_000);
        assert_eq!((a.runs, a.calls, a.bytes), (b.runs, b.calls, b.bytes));
        let corpus = fs::read_to_string(&a.corpus).unwrap();
        assert_eq!(corpus, fs::read_to_string(&b.corpus).unwrap());
        let suite = fs::read_to_string(&a.suite).unwrap();
        assert_eq!(suite, fs::read_to_string(&b.suite).unwrap());
        assert!((10..=40).contains(&a.tools) && (3..=8).contains(&a.servers));

        assert!(super::suite_is_current(first.path(), 3_000, 42));
        assert!(!super::suite_is_current(first.path(), 3_000, 43));
        fs::write(&a.suite, suite.replace("max_calls: 40", "max_calls: 41")).unwrap();
        assert!(!super::suite_is_current(first.path(), 3_000, 42));
        fs::write(&a.suite, &suite).unwrap();

        let other = tempfile::tempdir().unwrap();
        let c = generate(other.path(), 3_000, 43, false).unwrap();
        assert_ne!(corpus, fs::read_to_string(&c.corpus).unwrap());

        // trailgate's reader takes every line, with the calls the generator counted, and
        // the suite parses and scores them without a configuration error.
        let parsed = SuiteFile::new("trailgate.yaml", suite).parse().unwrap();
        let test = &parsed.tests[0];
        assert!(test.graders.equal_function_sets.is_some());
        assert!(test.graders.tool_calls.is_some());
        assert!(test.graders.tool_correctness.is_some());
        assert!(test.graders.call_accuracy.is_some());
        assert!(test.graders.trajectory.is_some());
        assert!(test.graders.budget.is_some());
        assert!(test.graders.dependencies.is_some());
        let mut evaluator = TestEvaluator::new(test);
        let mut calls = 0;
        let lines: Vec<&str> = corpus.lines().collect();
        assert_eq!(lines.len() as u64, a.runs);
        for (index, line) in lines.iter().enumerate() {
            let run = trailgate_trace::parse_run("corpus.jsonl", line, index + 1).unwrap();
            if index + 1 < lines.len() {
                assert!((5..=50).contains(&run.calls.len()), "run {index}");
            }
            calls += run.calls.len();
            let source = RunSource {
                file: "corpus.jsonl".to_owned(),
                line: Some(index + 1),
                trace: None,
            };
            evaluator.add_run(source, &run);
        }
        assert_eq!(calls, 3_000);
        let outcome = evaluator.finish().unwrap();
        assert!(outcome.passed);
    }
}
