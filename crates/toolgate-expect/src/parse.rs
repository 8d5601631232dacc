//! Reading a suite from YAML. This is the one file that knows the YAML parser.
//!
//! Shape errors (unknown keys, wrong types, values out of range) are raised while
//! deserializing, so the parser attaches the position of the offending node. Rules that
//! span several nodes (unique names, targets valid for their block, non-empty lists) are
//! checked afterwards, all at once; each problem, and each gate's line, is then placed by
//! the path of its node, looked up in a table of positions that one walk of the document
//! fills for every node of the same shape (see [`SuiteFile::span`]).

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use miette::{NamedSource, SourceSpan};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use toolgate_core::{Class, ClassSet, Member, MemberError, Percent};
use toolgate_trace::{Naming, NamingError};

use crate::error::{CUSTOM, FIELD, Problem, SuiteError, SuiteSource, custom, suggest};
use crate::gate::{Gate, Op, Target};
use crate::graders::Block;
use crate::graders::call_accuracy::{CallAccuracyGrader, ExpectedCall};
use crate::graders::selection::EqualFunctionSets;
use crate::graders::tool_calls::{
    MatchList, MissingArguments, RequiredMatch, ToolCallsGrader, ToolMatch, ValueTest,
};
use crate::graders::tool_correctness::ToolCorrectnessGrader;
use crate::matchers::{ArgsMode, ValueMatcher};
use crate::model::{Suite, Test, TracePattern};
use crate::tool_matcher::{ClassTools, Pattern, ToolMatcher};
use crate::yaml_depth::MAX_YAML_DEPTH;

/// A suite file's text, named for diagnostics.
#[derive(Debug, Clone)]
pub struct SuiteFile {
    source: Arc<NamedSource<String>>,
    /// The problems the current [`SuiteFile::parse`] has placed in the file so far.
    placed: Cell<usize>,
    /// Where the document's nodes start, filled a path shape at a time by [`SuiteFile::span`].
    positions: RefCell<Positions>,
    /// The byte offset of every `\n`, for [`SuiteFile::line_of`].
    newlines: OnceCell<Vec<usize>>,
    /// The text as a diagnostic shows it (escaped, long lines windowed: `LineSource`), made
    /// on the first error.
    shown: OnceCell<SuiteSource>,
}

/// The most problems one suite error reports; past this many, the rest are counted in one
/// closing problem instead. A report of thousands of problems helps no one, and a problem
/// at an empty list or map is placed by a walk of the document of its own (see
/// [`SuiteFile::span`]), so the limit also bounds those walks.
const MAX_PROBLEMS: usize = 20;

/// One step of a path into the suite document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathSeg<'a> {
    /// The value under this key of a mapping.
    Key(&'a str),
    /// The key itself.
    KeyName(&'a str),
    /// This element of a sequence.
    Index(usize),
    /// The second occurrence of this key in a mapping.
    RepeatedKey(&'a str),
}

impl SuiteFile {
    /// `text`, read from the file called `name` (as it should appear in diagnostics).
    pub fn new(name: impl AsRef<str>, text: String) -> Self {
        Self {
            source: Arc::new(NamedSource::new(name, text).with_language("yaml")),
            placed: Cell::new(0),
            positions: RefCell::new(Positions::default()),
            newlines: OnceCell::new(),
            shown: OnceCell::new(),
        }
    }

    /// The suite's text.
    pub fn text(&self) -> &str {
        self.source.inner()
    }

    /// Parses and checks the suite, reporting every problem found.
    pub fn parse(&self) -> Result<Suite, SuiteError> {
        self.placed.set(0);
        let text = self.text();
        if text.lines().all(|line| {
            let line = line.trim();
            line.is_empty() || line.starts_with('#')
        }) {
            return Err(self.error(vec![
                Problem::new("toolgate::suite::empty", "the suite file is empty", "here")
                    .with_help("a suite starts with `tests:`, a list of tests; see docs/suite.md"),
            ]));
        }
        if let Some((offset, c)) = crate::yaml_depth::unprintable(text) {
            return Err(self.error(vec![
                Problem::new(
                    "toolgate::suite::unprintable",
                    format!(
                        "the suite holds the character `{}`, which YAML does not allow in a file",
                        c.escape_unicode()
                    ),
                    "here",
                )
                .with_help(
                    "remove it; a test or tool name that needs it can write it as an escape in a \
                     double-quoted string, `\"\\u0000\"`",
                )
                .at(Some(SourceSpan::new(offset.into(), c.len_utf8()))),
            ]));
        }
        if let Some(offset) = crate::yaml_depth::too_deep(text, MAX_YAML_DEPTH) {
            return Err(self.error(vec![
                Problem::new(
                    "toolgate::suite::too_deep",
                    format!(
                        "the suite nests lists and maps in brackets more than {MAX_YAML_DEPTH} deep"
                    ),
                    format!("level {} starts here", MAX_YAML_DEPTH + 1),
                )
                .with_help(
                    "a suite is a few levels deep; nesting this deep is a broken or hostile file, \
                     refused before the YAML reader spends time on it",
                )
                .at(Some(SourceSpan::new(offset.into(), 1))),
            ]));
        }
        // Reading the whole document once, without a shape, reports a syntax error where
        // it is, before a half-read document could be mistaken for a wrong shape.
        serde_yaml::from_str::<IgnoredAny>(text)
            .map_err(|error| self.error(vec![self.yaml_problem(&error)]))?;
        self.check_expansion()?;
        let raw: RawSuite = serde_yaml::from_str(text)
            .map_err(|error| self.error(vec![self.yaml_problem(&error)]))?;
        let mut problems = Vec::new();
        let suite = self.check(raw, &mut problems);
        if problems.is_empty() {
            Ok(suite)
        } else {
            Err(self.error(at_most(problems)))
        }
    }

    /// Refuses a document whose aliases expand it past [`MAX_YAML_NODES`] nodes, before
    /// anything is built from it. Each alias (`*name`) stands for a copy of its anchor, so
    /// a few lines of aliases of aliases can stand for billions of nodes ("billion laughs"),
    /// and a list of aliases of a long list for its square. Counting the nodes as the
    /// reader expands them stops at the limit, in time and memory bounded by it.
    fn check_expansion(&self) -> Result<(), SuiteError> {
        let limit = node_budget(self.text().len());
        if expands_past(self.text(), limit) {
            // The reader cannot say which alias it was expanding; the first one is where
            // the reader can start looking.
            let span = first_alias(self.text());
            Err(self.error(vec![
                Problem::new(
                    "toolgate::suite::alias_expansion",
                    format!("the suite's YAML aliases expand it past {limit} nodes"),
                    "the first alias",
                )
                .with_help(
                    "an alias (`*name`) stands for a whole copy of its anchor (`&name`), and \
                         aliases of aliases multiply; write the repeated values out, or reuse \
                         fewer of them",
                )
                .at(span),
            ]))
        } else {
            Ok(())
        }
    }

    /// The span of the node at `path`, or `None` when there is no such node.
    ///
    /// The YAML reader tells a node's position only in an error raised at the node. The
    /// first look-up of a path walks the document once along the path's shape (its indices
    /// left open: `tests[*].name`) and records where every node of that shape starts, so
    /// the next look-ups of that shape are a table look-up; the walk is linear in the size
    /// of the document. The few nodes such a walk cannot place (an empty list or map, the
    /// document itself) are found by a walk of their own to that one path.
    pub fn span(&self, path: &[PathSeg<'_>]) -> Option<SourceSpan> {
        let text = self.text();
        let (shape, indices) = shape_of(path);
        if shape.is_empty() {
            return self.span_by_walk(path);
        }
        let found = self.positions.borrow_mut().find(text, shape, &indices);
        match found {
            Found::At(offset) => Some(token_span(text, offset)),
            Found::Nowhere => None,
            Found::Unplaced => self.span_by_walk(path),
        }
    }

    /// The span of the node at `path`, by a walk of the document to that one node.
    pub(crate) fn span_by_walk(&self, path: &[PathSeg<'_>]) -> Option<SourceSpan> {
        let text = self.text();
        let deserializer = serde_yaml::Deserializer::from_str(text);
        match Locate(path).deserialize(deserializer) {
            Err(error) if error.to_string().contains(LOCATED) => error
                .location()
                .map(|location| token_span(text, location.index())),
            _ => None,
        }
    }

    /// The 1-based line of a span.
    pub fn line_of(&self, span: SourceSpan) -> usize {
        let text = self.text();
        let offset = span.offset();
        if !text.is_char_boundary(offset) {
            return 1;
        }
        let newlines = self.newlines.get_or_init(|| {
            text.bytes()
                .enumerate()
                .filter_map(|(i, byte)| (byte == b'\n').then_some(i))
                .collect()
        });
        newlines.partition_point(|&newline| newline < offset) + 1
    }

    /// An error holding `problems`, which point into this file.
    pub fn error(&self, problems: Vec<Problem>) -> SuiteError {
        let shown = self.shown.get_or_init(|| {
            Arc::new(
                NamedSource::new(
                    self.source.name(),
                    toolgate_trace::LineSource::new(self.text().to_owned(), 1),
                )
                .with_language("yaml"),
            )
        });
        SuiteError::new(shown, problems)
    }

    fn yaml_problem(&self, error: &serde_yaml::Error) -> Problem {
        let location = error.location();
        let span = location
            .as_ref()
            .map(|l| token_span(self.text(), l.index()));
        let mut text = error.to_string();
        if let Some(location) = &location {
            let at = format!(" at line {} column {}", location.line(), location.column());
            if let Some(found) = text.find(&at) {
                text.replace_range(found..found + at.len(), "");
            }
        }
        if let Some(start) = text.find(CUSTOM) {
            return decode_custom(&text[start..]).at(span);
        }
        if let Some(problem) = self.unclosed_problem(&text) {
            return problem.or_at(span);
        }
        let (path, message) = split_path(&text);
        let context = path.map(|p| format!(" in `{p}`")).unwrap_or_default();
        let problem = if let Some((field, valid)) = parse_expected(message, "unknown field `") {
            if !valid.is_empty()
                && valid
                    .iter()
                    .all(|v| Op::ALL.iter().any(|op| op.as_str() == v))
            {
                Problem::new(
                    "toolgate::suite::unknown_operator",
                    format!("unknown operator `{field}`"),
                    "unknown operator",
                )
                .with_help(suggest(&field, &valid, "operators"))
            } else {
                Problem::new(
                    "toolgate::suite::unknown_key",
                    format!("unknown key `{field}`{context}"),
                    "unknown key",
                )
                .with_help(suggest(&field, &valid, "valid keys here"))
            }
        } else if let Some((value, valid)) = parse_expected(message, "unknown variant `") {
            Problem::new(
                "toolgate::suite::invalid_value",
                format!("unknown value `{value}`{context}"),
                "unknown value",
            )
            .with_help(suggest(&value, &valid, "valid values"))
        } else if let Some(field) = backticked(message, "missing field `") {
            Problem::new(
                "toolgate::suite::missing_key",
                format!("missing key `{field}`{context}"),
                format!("this map needs `{field}`"),
            )
            .with_help(format!("add `{field}:`; see docs/suite.md"))
        } else if let Some(field) = backticked(message, "duplicate field `") {
            // serde notices the repeat at the map, so the parser's position is the map's
            // start; walk to the key's second occurrence instead.
            let mut key_path = path.map(yaml_path).unwrap_or_default();
            key_path.push(PathSeg::RepeatedKey(&field));
            let repeated = self.span(&key_path);
            return Problem::new(
                "toolgate::suite::duplicate_key",
                format!("key `{field}` is given twice{context}"),
                "given again here",
            )
            .with_help("keep one of the two")
            .at(repeated.or(span));
        } else if let Some(rest) = message
            .strip_prefix("invalid type: ")
            .or_else(|| message.strip_prefix("invalid value: "))
        {
            // serde says "invalid type: string \"two\", expected a positive integer".
            let (found, expected) = rest
                .split_once(", expected ")
                .unwrap_or((rest, "another value"));
            let at = path.map(|p| format!(" for `{p}`")).unwrap_or_default();
            Problem::new(
                "toolgate::suite::invalid_value",
                format!("invalid value{at}: expected {expected}, found {found}"),
                format!("expected {expected}"),
            )
        } else {
            let problem = Problem::new(
                "toolgate::suite::syntax",
                format!("invalid YAML: {message}"),
                "here",
            );
            // `{ >=: 80 }`: YAML reads an unquoted `>` as a folded block and `!` as a tag.
            let at = span.map(|span| span.offset());
            let found = at
                .and_then(|offset| self.text().get(offset..))
                .unwrap_or_default();
            match Op::ALL.iter().find(|op| {
                found.starts_with(op.as_str())
                    && matches!(found.as_bytes().first(), Some(b'>' | b'!'))
            }) {
                Some(op) => problem.with_help(format!(
                    "quote the operator: YAML reads an unquoted `{}` as syntax; write `\"{op}\"`, \
                     as in `{{ \"{op}\": 80 }}`",
                    &op.as_str()[..1]
                )),
                None => problem,
            }
        };
        problem.at(span)
    }

    /// A syntax error inside an unclosed bracket or quote, placed at its opening.
    ///
    /// libyaml names what it was reading when it failed ("while parsing a flow sequence at
    /// line 6 column 20"). For an unclosed bracket or quote that opening is where the fix
    /// goes, not the place where the parser gave up, which can be the end of the file; for
    /// block indentation the place it gave up is the offending line, so this returns `None`.
    fn unclosed_problem(&self, text: &str) -> Option<Problem> {
        let (message, context, line, column) = libyaml_context(text)
            .filter(|(_, context, _, _)| context.contains("flow") || context.contains("quoted"))?;
        let help = if context.contains("sequence") {
            "close the list with `]`, separating its items with `,`"
        } else if context.contains("mapping") {
            "close the map with `}`, separating its entries with `,`"
        } else {
            "close the string with the quote it starts with"
        };
        let problem = Problem::new(
            "toolgate::suite::syntax",
            format!("invalid YAML: {message}"),
            format!("{context} that starts here"),
        )
        .with_help(help)
        .at(self
            .offset_of(line, column)
            .map(|offset| token_span(self.text(), offset)));
        Some(problem)
    }

    /// The byte offset of a 1-based line and a 1-based column counted in characters.
    fn offset_of(&self, line: usize, column: usize) -> Option<usize> {
        let text = self.text();
        let start: usize = text
            .split_inclusive('\n')
            .take(line.checked_sub(1)?)
            .map(str::len)
            .sum();
        let rest = text.get(start..)?;
        let within = rest
            .char_indices()
            .nth(column.checked_sub(1)?)
            .map_or(rest.len(), |(i, _)| i);
        Some(start + within)
    }

    /// Places `problem` at the node at `path`, unless [`MAX_PROBLEMS`] have been placed
    /// already: those past it are not reported, and are not worth a look-up.
    fn located(&self, problem: Problem, path: &[PathSeg<'_>]) -> Problem {
        if !self.placing() {
            return problem;
        }
        self.placed.set(self.placed.get() + 1);
        let span = self.span(path);
        problem.at(span)
    }

    /// The line of a gate, for the reports; none once the suite has a problem, since a
    /// suite with problems is not scored.
    fn gate_line(&self, path: &[PathSeg<'_>], problems: &[Problem]) -> Option<usize> {
        if !problems.is_empty() {
            return None;
        }
        self.span(path).map(|span| self.line_of(span))
    }

    /// Whether problems are still placed in the file (see [`SuiteFile::located`]).
    fn placing(&self) -> bool {
        self.placed.get() < MAX_PROBLEMS
    }

    /// A problem for a name used a second time at `path`, whose first use is at `first`.
    fn duplicate(
        &self,
        what: &str,
        name: &str,
        first: &[PathSeg<'_>],
        path: &[PathSeg<'_>],
    ) -> Problem {
        let first_line = self
            .placing()
            .then(|| self.span(first))
            .flatten()
            .map(|span| self.line_of(span));
        let help = match first_line {
            Some(line) => {
                format!("{what} names must be unique; the first `{name}` is on line {line}")
            }
            None => format!("{what} names must be unique"),
        };
        self.located(
            Problem::new(
                "toolgate::suite::duplicate_name",
                format!("{what} name `{name}` is used twice"),
                "used again here",
            )
            .with_help(help),
            path,
        )
    }

    fn check(&self, raw: RawSuite, problems: &mut Vec<Problem>) -> Suite {
        if raw.tests.is_empty() {
            problems.push(
                self.located(
                    Problem::new(
                        "toolgate::suite::empty",
                        "the suite has no tests",
                        "empty list",
                    )
                    .with_help("add a test with a `name` and an `equal_function_sets` block"),
                    &[PathSeg::Key("tests")],
                ),
            );
        }
        let mut names: BTreeMap<String, usize> = BTreeMap::new();
        let mut tests = Vec::with_capacity(raw.tests.len());
        for (index, raw_test) in raw.tests.into_iter().enumerate() {
            let name_path = join(&test_path(index), &[PathSeg::Key("name")]);
            if raw_test.name.is_empty() {
                problems.push(self.located(
                    Problem::new(
                        "toolgate::suite::invalid_value",
                        "a test name is empty",
                        "empty name",
                    ),
                    &name_path,
                ));
            } else if let Some(&first) = names.get(&raw_test.name) {
                let first_path = join(&test_path(first), &[PathSeg::Key("name")]);
                problems.push(self.duplicate("test", &raw_test.name, &first_path, &name_path));
            } else {
                names.insert(raw_test.name.clone(), index);
            }
            tests.push(self.check_test(raw_test, index, problems));
        }
        Suite { tests }
    }

    fn check_test(&self, raw: RawTest, index: usize, problems: &mut Vec<Problem>) -> Test {
        let path = test_path(index);
        if raw.equal_function_sets.is_none() && raw.graders.as_ref().is_none_or(Vec::is_empty) {
            problems.push(
                self.located(
                    Problem::new(
                        "toolgate::suite::missing_key",
                        format!(
                            "test `{}` has neither `equal_function_sets` nor `graders`",
                            raw.name
                        ),
                        "this test scores nothing",
                    )
                    .with_help(
                        "add an `equal_function_sets:` block with `classes:`; see docs/suite.md",
                    ),
                    &join(&path, &[PathSeg::KeyName("name")]),
                ),
            );
        }
        let trace_format = raw.trace_format.filter(|format| {
            let known = toolgate_trace::format_names();
            let valid = known.contains(&format.as_str());
            if !valid {
                let names: Vec<String> = known.iter().map(|n| (*n).to_owned()).collect();
                problems.push(
                    self.located(
                        Problem::new(
                            "toolgate::suite::unknown_format",
                            format!("unknown trace format `{format}`"),
                            "unknown format",
                        )
                        .with_help(suggest(format, &names, "formats")),
                        &join(&path, &[PathSeg::Key("trace_format")]),
                    ),
                );
            }
            valid
        });
        let naming = raw.naming.and_then(|naming| {
            Naming::from_parts(&naming.scheme, naming.servers, naming.pattern.as_deref())
                .map_err(|error| {
                    let (problem, at) = naming_problem(&naming.scheme, &error);
                    problems.push(self.located(problem, &join(&path, at)));
                })
                .ok()
        });
        let efs_written = raw.equal_function_sets.is_some();
        let equal_function_sets = raw.equal_function_sets.and_then(|efs| {
            self.check_efs(
                efs,
                &join(&path, &[PathSeg::Key("equal_function_sets")]),
                problems,
            )
        });
        let classes = TestClasses {
            written: efs_written,
            set: equal_function_sets.as_ref().map(|efs| &efs.classes),
        };
        let graders = self.check_graders(raw.graders.unwrap_or_default(), &path, classes, problems);
        let traces = raw.traces.map(|traces| match traces {
            RawTraces::One(pattern) => vec![TracePattern {
                pattern,
                index: None,
            }],
            RawTraces::Many(patterns) => patterns
                .into_iter()
                .enumerate()
                .map(|(i, pattern)| TracePattern {
                    pattern,
                    index: Some(i),
                })
                .collect(),
        });
        Test {
            name: raw.name,
            agent: raw.agent,
            runs: raw.runs.map(|r| r.0),
            traces,
            trace_format,
            naming,
            equal_function_sets,
            tool_calls: graders.tool_calls,
            tool_correctness: graders.tool_correctness,
            call_accuracy: graders.call_accuracy,
            index,
        }
    }

    /// The test's graders, at most one of each kind.
    fn check_graders(
        &self,
        graders: Vec<RawGrader>,
        path: &[PathSeg<'_>],
        classes: TestClasses<'_>,
        problems: &mut Vec<Problem>,
    ) -> Graders {
        let mut checked = Graders::default();
        let mut seen: Vec<GraderKind> = Vec::new();
        for (index, grader) in graders.into_iter().enumerate() {
            let grader_path = join(path, &[PathSeg::Key("graders"), PathSeg::Index(index)]);
            let config_path = join(&grader_path, &[PathSeg::Key("config")]);
            let kind = grader.kind;
            if seen.contains(&kind) {
                problems.push(
                    self.located(
                        Problem::new(
                            "toolgate::suite::duplicate_grader",
                            format!("a test takes one `{kind}` grader"),
                            format!("a second `{kind}` grader"),
                        )
                        .with_help("merge the two configs into the first one"),
                        &join(&grader_path, &[PathSeg::Key("type")]),
                    ),
                );
                continue;
            }
            seen.push(kind);
            self.check_config_keys(&grader.config, kind, &config_path, problems);
            match kind {
                GraderKind::ToolCalls => {
                    checked.tool_calls = self.check_tool_calls(
                        grader.config,
                        index,
                        &config_path,
                        classes,
                        problems,
                    );
                }
                GraderKind::ToolCorrectness => {
                    checked.tool_correctness =
                        self.check_tool_correctness(grader.config, &config_path, classes, problems);
                }
                GraderKind::CallAccuracy => {
                    checked.call_accuracy =
                        self.check_call_accuracy(grader.config, &config_path, classes, problems);
                }
            }
        }
        checked
    }

    /// Every key present in `config` must belong to the grader's kind.
    fn check_config_keys(
        &self,
        config: &RawGraderConfig,
        kind: GraderKind,
        path: &[PathSeg<'_>],
        problems: &mut Vec<Problem>,
    ) {
        let allowed = kind.keys();
        for (key, present) in config.keys_present() {
            if present && !allowed.contains(&key) {
                let list = allowed
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ");
                problems.push(
                    self.located(
                        Problem::new(
                            "toolgate::suite::misplaced_key",
                            format!("`{key}` is not a key of the `{kind}` grader"),
                            format!("not a `{kind}` key"),
                        )
                        .with_help(format!("the `{kind}` grader takes {list}")),
                        &join(path, &[PathSeg::KeyName(key)]),
                    ),
                );
            }
        }
    }

    /// A `tool-correctness` config (SPEC section 8).
    fn check_tool_correctness(
        &self,
        config: RawGraderConfig,
        path: &[PathSeg<'_>],
        classes: TestClasses<'_>,
        problems: &mut Vec<Problem>,
    ) -> Option<ToolCorrectnessGrader> {
        let before = problems.len();
        let written = config.expected_tools.is_some();
        let expected: Vec<Option<ToolMatcher>> = config
            .expected_tools
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(index, tool)| {
                let at = join(
                    path,
                    &[PathSeg::Key("expected_tools"), PathSeg::Index(index)],
                );
                self.tool_matcher(tool.0, &at, classes, problems)
            })
            .collect();
        if !written {
            problems.push(
                self.located(
                    Problem::new(
                        "toolgate::suite::missing_key",
                        "a `tool-correctness` grader needs `expected_tools`",
                        "no `expected_tools`",
                    )
                    .with_help(
                        "list the tools the agent should call: `expected_tools: [search, book]`",
                    ),
                    path,
                ),
            );
        }
        let threshold = config
            .threshold
            .map_or_else(|| Percent::new(50).unwrap_or(Percent::ZERO), |t| t.0);
        // The block's default gate, at the written threshold.
        let default = Gate {
            value: threshold,
            ..Block::ToolCorrectness.default_gate()
        };
        let gates = self.check_expect(
            config.expect.map(|e| e.0).unwrap_or_default(),
            Block::ToolCorrectness,
            default,
            &join(path, &[PathSeg::Key("expect")]),
            problems,
        );
        if problems.len() > before {
            return None;
        }
        Some(ToolCorrectnessGrader {
            expected: expected.into_iter().flatten().collect(),
            exact_match: config.exact_match.unwrap_or(false),
            check_ordering: config.check_ordering.unwrap_or(false),
            threshold,
            gates,
        })
    }

    /// A `call-accuracy` config (SPEC section 9).
    fn check_call_accuracy(
        &self,
        config: RawGraderConfig,
        path: &[PathSeg<'_>],
        classes: TestClasses<'_>,
        problems: &mut Vec<Problem>,
    ) -> Option<CallAccuracyGrader> {
        let before = problems.len();
        let tools: Vec<Option<ToolMatcher>> = config
            .expected
            .iter()
            .flatten()
            .enumerate()
            .map(|(index, call)| {
                let at = join(path, &[PathSeg::Key("expected"), PathSeg::Index(index)]);
                let tool = RawTool {
                    member: call.tool.as_ref().map(|m| m.0.clone()),
                    class: call.class.clone(),
                    server: call.server.as_ref().map(|p| p.0.clone()),
                };
                self.tool_matcher(tool, &at, classes, problems)
            })
            .collect();
        if config.expected.is_none() {
            problems.push(
                self.located(
                    Problem::new(
                        "toolgate::suite::missing_key",
                        "a `call-accuracy` grader needs `expected`",
                        "no `expected`",
                    )
                    .with_help(
                        "list the expected calls: `expected: [{tool: search, args: {q: news}}]`",
                    ),
                    path,
                ),
            );
        }
        for (index, call) in config.expected.iter().flatten().enumerate() {
            if call
                .args
                .as_ref()
                .is_some_and(|args| args.object_entries().is_none())
            {
                problems.push(
                    self.located(
                        Problem::new(
                            "toolgate::suite::invalid_value",
                            "`args` of an expected call is not a map",
                            "not a map",
                        )
                        .with_help("write the arguments as a map: `args: {query: AI news}`"),
                        &join(
                            path,
                            &[
                                PathSeg::Key("expected"),
                                PathSeg::Index(index),
                                PathSeg::Key("args"),
                            ],
                        ),
                    ),
                );
            }
        }
        let gates = self.check_expect(
            config.expect.map(|e| e.0).unwrap_or_default(),
            Block::CallAccuracy,
            Block::CallAccuracy.default_gate(),
            &join(path, &[PathSeg::Key("expect")]),
            problems,
        );
        if problems.len() > before {
            return None;
        }
        Some(CallAccuracyGrader {
            args_mode: config.args_mode.unwrap_or_default(),
            ignore_args: config.ignore_args.unwrap_or_default(),
            expected: config
                .expected
                .unwrap_or_default()
                .into_iter()
                .zip(tools)
                .filter_map(|(call, tool)| Some((call, tool?)))
                .map(|(call, tool)| ExpectedCall {
                    tool,
                    args: call.args.unwrap_or_else(|| {
                        ValueMatcher::literal(Value::Object(serde_json::Map::new()))
                    }),
                })
                .collect(),
            gates,
        })
    }

    /// A `tool-calls` config: SPEC section 7's rules on which keys go where.
    fn check_tool_calls(
        &self,
        config: RawGraderConfig,
        index: usize,
        path: &[PathSeg<'_>],
        classes: TestClasses<'_>,
        problems: &mut Vec<Problem>,
    ) -> Option<ToolCallsGrader> {
        let before = problems.len();
        if config.required.is_none() && config.disallowed.is_none() && config.sequence.is_none() {
            problems.push(
                self.located(
                    Problem::new(
                        "toolgate::suite::missing_key",
                        "a `tool-calls` grader needs `required`, `disallowed` or `sequence`",
                        "nothing to check",
                    )
                    .with_help(
                        "list calls that must happen under `required:`, calls that must not under \
                     `disallowed:`, or an order under `sequence:`; see docs/graders/tool-calls.md",
                    ),
                    path,
                ),
            );
        }
        self.check_unpositioned(&config, path, problems);
        for (entry, raw) in config.required.iter().flatten().enumerate() {
            self.check_required(
                raw,
                &join(path, &[PathSeg::Key("required"), PathSeg::Index(entry)]),
                problems,
            );
        }
        let gates = self.check_expect(
            config.expect.map(|e| e.0).unwrap_or_default(),
            Block::ToolCalls,
            Block::ToolCalls.default_gate(),
            &join(path, &[PathSeg::Key("expect")]),
            problems,
        );
        let mut entry_classes = |list: MatchList, entries: &Option<Vec<RawToolMatch>>| {
            self.entry_classes(
                list,
                entries.as_deref().unwrap_or_default(),
                path,
                classes,
                problems,
            )
        };
        let required_classes = entry_classes(MatchList::Required, &config.required);
        let disallowed_classes = entry_classes(MatchList::Disallowed, &config.disallowed);
        let sequence_classes = entry_classes(MatchList::Sequence, &config.sequence);
        if problems.len() > before {
            return None;
        }
        let matches = |entries: Option<Vec<RawToolMatch>>, classes: Vec<Option<ClassTools>>| {
            entries
                .unwrap_or_default()
                .into_iter()
                .zip(classes)
                .map(|(raw, class)| raw.into_match(class))
                .collect()
        };
        Some(ToolCallsGrader {
            required: config
                .required
                .unwrap_or_default()
                .into_iter()
                .zip(required_classes)
                .map(|(raw, class)| RequiredMatch {
                    min_count: raw.min_count.unwrap_or(1),
                    final_call: raw.final_call.unwrap_or(false),
                    at_step: raw.at_step,
                    before_step: raw.before_step,
                    matcher: raw.into_match(class),
                })
                .collect(),
            disallowed: matches(config.disallowed, disallowed_classes),
            sequence: matches(config.sequence, sequence_classes),
            gates,
            index,
        })
    }

    /// The class of each entry of a `tool-calls` list, resolved against the test's classes.
    fn entry_classes(
        &self,
        list: MatchList,
        entries: &[RawToolMatch],
        path: &[PathSeg<'_>],
        classes: TestClasses<'_>,
        problems: &mut Vec<Problem>,
    ) -> Vec<Option<ClassTools>> {
        entries
            .iter()
            .enumerate()
            .map(|(entry, raw)| {
                let name = raw.class.as_deref()?;
                let at = join(
                    path,
                    &[
                        PathSeg::Key(list.key()),
                        PathSeg::Index(entry),
                        PathSeg::Key("class"),
                    ],
                );
                self.resolve_class(name, &at, classes, problems)
            })
            .collect()
    }

    /// An expected tool, with its class resolved against the test's classes.
    fn tool_matcher(
        &self,
        tool: RawTool,
        at: &[PathSeg<'_>],
        classes: TestClasses<'_>,
        problems: &mut Vec<Problem>,
    ) -> Option<ToolMatcher> {
        let class = match &tool.class {
            Some(name) => Some(self.resolve_class(
                name,
                &join(at, &[PathSeg::Key("class")]),
                classes,
                problems,
            )?),
            None => None,
        };
        let matcher = match (tool.member, class) {
            (Some(member), class) => {
                let matcher = ToolMatcher::member(member);
                match class {
                    Some(class) => matcher.in_class(class),
                    None => matcher,
                }
            }
            (None, Some(class)) => ToolMatcher::class(class),
            (None, None) => {
                problems.push(
                    self.located(
                        Problem::new(
                            "toolgate::suite::missing_key",
                            "an expected tool needs `tool` or `class`",
                            "no `tool` or `class`",
                        )
                        .with_help(
                            "name the tool (`tool: brave.web_search`) or an equal-function class \
                             of the test (`class: search`)",
                        ),
                        at,
                    ),
                );
                return None;
            }
        };
        Some(match tool.server {
            Some(server) => matcher.on_server(server),
            None => matcher,
        })
    }

    /// The class `name` of the test, for a matcher's `class:` at `at`.
    fn resolve_class(
        &self,
        name: &str,
        at: &[PathSeg<'_>],
        classes: TestClasses<'_>,
        problems: &mut Vec<Problem>,
    ) -> Option<ClassTools> {
        if !classes.written {
            problems.push(
                self.located(
                    Problem::new(
                        "toolgate::suite::unknown_class",
                        format!("`class: {name}` needs the test's `equal_function_sets`"),
                        "this test declares no classes",
                    )
                    .with_help(
                        "declare the class under `equal_function_sets: classes:` in this test, \
                         or name the tool itself",
                    ),
                    at,
                ),
            );
            return None;
        }
        // Classes that did not load were reported already.
        let set = classes.set?;
        if let Some(class) = set.classes().iter().find(|c| c.name.as_str() == name) {
            return Some(ClassTools::new(name, class.members.clone()));
        }
        let names: Vec<String> = set
            .classes()
            .iter()
            .map(|c| c.name.as_str().to_owned())
            .collect();
        problems.push(
            self.located(
                Problem::new(
                    "toolgate::suite::unknown_class",
                    format!("unknown class `{name}`"),
                    "not a class of this test",
                )
                .with_help(suggest(name, &names, "the test's classes")),
                at,
            ),
        );
        None
    }

    /// The keys that `disallowed` and `sequence` entries do not take.
    fn check_unpositioned(
        &self,
        config: &RawGraderConfig,
        path: &[PathSeg<'_>],
        problems: &mut Vec<Problem>,
    ) {
        for (list, entries) in [
            (MatchList::Disallowed, &config.disallowed),
            (MatchList::Sequence, &config.sequence),
        ] {
            for (entry, raw) in entries.iter().flatten().enumerate() {
                let entry_path = join(path, &[PathSeg::Key(list.key()), PathSeg::Index(entry)]);
                for (key, present) in raw.positional_keys() {
                    if present {
                        problems.push(self.located(
                            Problem::new(
                                "toolgate::suite::misplaced_key",
                                format!("`{key}` is allowed on `required` entries only"),
                                format!("not allowed on `{}`", list.key()),
                            )
                            .with_help(
                                "`min_count`, `final`, `at_step` and `before_step` constrain calls \
                                 that must happen; move the condition to a `required` entry",
                            ),
                            &join(&entry_path, &[PathSeg::KeyName(key)]),
                        ));
                    }
                }
                if list == MatchList::Sequence && raw.result.is_some() {
                    problems.push(
                        self.located(
                            Problem::new(
                                "toolgate::suite::misplaced_key",
                                "`result` is not allowed on `sequence` entries",
                                "not allowed on `sequence`",
                            )
                            .with_help(
                                "a sequence matches calls as they are made, before their results; \
                             check the result with a `required` entry",
                            ),
                            &join(&entry_path, &[PathSeg::KeyName("result")]),
                        ),
                    );
                }
            }
        }
    }

    /// The numeric rules of a `required` entry.
    fn check_required(
        &self,
        raw: &RawToolMatch,
        path: &[PathSeg<'_>],
        problems: &mut Vec<Problem>,
    ) {
        if raw.min_count == Some(0) {
            problems.push(
                self.located(
                    Problem::new(
                        "toolgate::suite::out_of_range",
                        "`min_count` is 0",
                        "must be at least 1",
                    )
                    .with_help("`min_count` is how many matching calls are needed; omit it for 1"),
                    &join(path, &[PathSeg::Key("min_count")]),
                ),
            );
        }
        if raw.before_step == Some(0) {
            problems.push(
                self.located(
                    Problem::new(
                        "toolgate::suite::out_of_range",
                        "`before_step` is 0",
                        "must be at least 1",
                    )
                    .with_help(
                        "`before_step: N` allows steps 0 to N-1, so 0 allows none; to require the \
                         first step, write `at_step: 0`",
                    ),
                    &join(path, &[PathSeg::Key("before_step")]),
                ),
            );
        }
        if let (Some(at), Some(before)) = (raw.at_step, raw.before_step)
            && at >= before
            && before > 0
        {
            problems.push(
                self.located(
                    Problem::new(
                        "toolgate::suite::out_of_range",
                        format!("`at_step: {at}` is not below `before_step: {before}`"),
                        "no step satisfies both",
                    )
                    .with_help("drop one of the two, or make `at_step` smaller than `before_step`"),
                    &join(path, &[PathSeg::Key("at_step")]),
                ),
            );
        }
    }

    fn check_efs(
        &self,
        raw: RawEfs,
        path: &[PathSeg<'_>],
        problems: &mut Vec<Problem>,
    ) -> Option<EqualFunctionSets> {
        let before = problems.len();
        let classes_path = join(path, &[PathSeg::Key("classes")]);
        self.check_classes(&raw.classes, &classes_path, problems);
        let gates = self.check_expect(
            raw.expect.map(|e| e.0).unwrap_or_default(),
            Block::EqualFunctionSets,
            Block::EqualFunctionSets.default_gate(),
            &join(path, &[PathSeg::Key("expect")]),
            problems,
        );
        if problems.len() > before {
            return None;
        }
        let classes = raw
            .classes
            .into_iter()
            .map(|class| Class::new(class.name, class.members.into_iter().map(|m| m.0).collect()))
            .collect();
        // `check_classes` enforces what `ClassSet::new` requires; this is a second line.
        match ClassSet::new(classes) {
            Ok(classes) => Some(EqualFunctionSets { classes, gates }),
            Err(error) => {
                problems.push(self.located(
                    Problem::new("toolgate::suite::invalid_value", error.to_string(), "here"),
                    &classes_path,
                ));
                None
            }
        }
    }

    /// Non-empty, uniquely named classes, each with members.
    fn check_classes(
        &self,
        classes: &[RawClass],
        path: &[PathSeg<'_>],
        problems: &mut Vec<Problem>,
    ) {
        if classes.is_empty() {
            problems.push(self.located(
                Problem::new("toolgate::suite::empty", "`classes` is empty", "no classes").with_help(
                    "list at least one class: `- name: search` with `members: [brave.web_search]`",
                ),
                path,
            ));
        }
        let mut names: BTreeMap<&str, usize> = BTreeMap::new();
        for (index, class) in classes.iter().enumerate() {
            let class_path = join(path, &[PathSeg::Index(index)]);
            let name_path = join(&class_path, &[PathSeg::Key("name")]);
            if class.name.is_empty() {
                problems.push(self.located(
                    Problem::new(
                        "toolgate::suite::invalid_value",
                        "a class name is empty",
                        "empty name",
                    ),
                    &name_path,
                ));
            } else if let Some(&first) = names.get(class.name.as_str()) {
                let first_path = join(path, &[PathSeg::Index(first), PathSeg::Key("name")]);
                problems.push(self.duplicate("class", &class.name, &first_path, &name_path));
            } else {
                names.insert(&class.name, index);
            }
            if class.members.is_empty() {
                problems.push(self.located(
                    Problem::new(
                        "toolgate::suite::empty",
                        format!("class `{}` has no members", class.name),
                        "no members",
                    )
                    .with_help("list the interchangeable tools: `members: [brave.web_search, google.search]`"),
                    &join(&class_path, &[PathSeg::Key("members")]),
                ));
            }
        }
    }

    /// The gates of an `expect:` list, or the block's default gate when it is empty.
    fn check_expect(
        &self,
        entries: Vec<RawExpectation>,
        block: Block,
        default: Gate,
        path: &[PathSeg<'_>],
        problems: &mut Vec<Problem>,
    ) -> Vec<Gate> {
        if entries.is_empty() {
            // A default gate is written nowhere; it points at its block's key
            // (`equal_function_sets:`, or a grader's `config:`).
            let mut block_path = path[..path.len().saturating_sub(1)].to_vec();
            if let Some(PathSeg::Key(key)) = block_path.last().copied() {
                block_path.pop();
                block_path.push(PathSeg::KeyName(key));
            }
            let line = self.gate_line(&block_path, problems);
            return vec![Gate { line, ..default }];
        }
        let mut gates = Vec::new();
        for (index, entry) in entries.into_iter().enumerate() {
            let entry_path = join(path, &[PathSeg::Index(index)]);
            let target = match Target::from_name(&entry.target) {
                Some(target) if block.targets().contains(&target) => target,
                _ => {
                    let valid: Vec<String> = block
                        .targets()
                        .iter()
                        .map(|t| t.as_str().to_owned())
                        .collect();
                    problems.push(
                        self.located(
                            Problem::new(
                                "toolgate::suite::unknown_target",
                                format!("unknown target `{}` for `{}`", entry.target, block.key()),
                                "unknown target",
                            )
                            .with_help(suggest(
                                &entry.target,
                                &valid,
                                "valid targets",
                            )),
                            &join(&entry_path, &[PathSeg::KeyName(&entry.target)]),
                        ),
                    );
                    continue;
                }
            };
            let ops = entry.comparison.gates();
            if ops.is_empty() {
                problems.push(
                    self.located(
                        Problem::new(
                            "toolgate::suite::empty",
                            format!("the comparison for `{target}` has no operator"),
                            "no operator",
                        )
                        .with_help(format!("write for example `- {target}: {{ \">=\": 80 }}`")),
                        &join(&entry_path, &[PathSeg::Key(&entry.target)]),
                    ),
                );
            }
            let line = self.gate_line(&entry_path, problems);
            gates.extend(ops.into_iter().map(|(op, value)| Gate {
                target,
                op,
                value,
                line,
            }));
        }
        gates
    }
}

/// The first [`MAX_PROBLEMS`] problems in file order (those placed come first), and one
/// more that counts the others.
fn at_most(mut problems: Vec<Problem>) -> Vec<Problem> {
    if problems.len() <= MAX_PROBLEMS {
        return problems;
    }
    problems.sort_by_key(|p| p.span.map_or(usize::MAX, |s| s.offset()));
    let more = problems.len() - MAX_PROBLEMS;
    problems.truncate(MAX_PROBLEMS);
    problems.push(
        Problem::new(
            "toolgate::suite::more_problems",
            format!(
                "and {more} more {}",
                if more == 1 { "problem" } else { "problems" }
            ),
            "",
        )
        .with_help("fix the problems above, then check the suite again"),
    );
    problems
}

/// The path of the test at `index`.
fn test_path(index: usize) -> [PathSeg<'static>; 2] {
    [PathSeg::Key("tests"), PathSeg::Index(index)]
}

/// `base` followed by `more`.
fn join<'a>(base: &[PathSeg<'a>], more: &[PathSeg<'a>]) -> Vec<PathSeg<'a>> {
    base.iter().chain(more).copied().collect()
}

// ---------------------------------------------------------------------------------------
// The raw document, as serde reads it.

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawSuite {
    tests: Vec<RawTest>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawTest {
    name: String,
    #[serde(rename = "type")]
    #[expect(
        dead_code,
        reason = "`agent` is the only kind; reading it checks its value"
    )]
    kind: Option<TestKind>,
    agent: Option<String>,
    runs: Option<RunCount>,
    traces: Option<RawTraces>,
    trace_format: Option<String>,
    naming: Option<RawNaming>,
    equal_function_sets: Option<RawEfs>,
    graders: Option<Vec<RawGrader>>,
}

#[derive(Deserialize, JsonSchema)]
enum TestKind {
    #[serde(rename = "agent")]
    Agent,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawEfs {
    classes: Vec<RawClass>,
    expect: Option<Expectations>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawClass {
    name: String,
    members: Vec<MemberValue>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawGrader {
    #[serde(rename = "type")]
    kind: GraderKind,
    config: RawGraderConfig,
}

/// The `config:` of a grader. Its keys are checked against the grader's kind afterwards.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawGraderConfig {
    required: Option<Vec<RawToolMatch>>,
    disallowed: Option<Vec<RawToolMatch>>,
    sequence: Option<Vec<RawToolMatch>>,
    expected_tools: Option<Vec<RawToolSpec>>,
    exact_match: Option<bool>,
    check_ordering: Option<bool>,
    threshold: Option<Threshold>,
    expected: Option<Vec<RawExpectedCall>>,
    args_mode: Option<ArgsMode>,
    ignore_args: Option<Vec<String>>,
    expect: Option<Expectations>,
}

impl RawGraderConfig {
    /// Each key, with whether the config has it.
    fn keys_present(&self) -> [(&'static str, bool); 11] {
        [
            ("required", self.required.is_some()),
            ("disallowed", self.disallowed.is_some()),
            ("sequence", self.sequence.is_some()),
            ("expected_tools", self.expected_tools.is_some()),
            ("exact_match", self.exact_match.is_some()),
            ("check_ordering", self.check_ordering.is_some()),
            ("threshold", self.threshold.is_some()),
            ("expected", self.expected.is_some()),
            ("args_mode", self.args_mode.is_some()),
            ("ignore_args", self.ignore_args.is_some()),
            ("expect", self.expect.is_some()),
        ]
    }
}

/// The graders of one test, at most one of each kind.
#[derive(Default)]
struct Graders {
    tool_calls: Option<ToolCallsGrader>,
    tool_correctness: Option<ToolCorrectnessGrader>,
    call_accuracy: Option<CallAccuracyGrader>,
}

/// An expected call of a `call-accuracy` grader: a tool (`tool`, `class`, or both) with an
/// optional `server` pattern, and the arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawExpectedCall {
    tool: Option<MemberValue>,
    /// An equal-function class of the test: any of its members.
    class: Option<String>,
    /// A regex searched in the call's server.
    server: Option<PatternValue>,
    /// A map from each argument's name to a literal or an operator (docs/matchers.md).
    args: Option<ValueMatcher>,
}

/// The classes a test's matchers may name: whether the test has an `equal_function_sets`
/// block, and its classes when the block loaded.
#[derive(Clone, Copy)]
struct TestClasses<'a> {
    written: bool,
    set: Option<&'a ClassSet>,
}

/// An expected tool as written, before its class is resolved.
struct RawTool {
    member: Option<Member>,
    class: Option<String>,
    server: Option<Pattern>,
}

/// An entry of `expected_tools`: a member (`brave.web_search`, `{server: brave, tool:
/// web_search}`), or a class with an optional server pattern (`{class: search, server:
/// "^brave$"}`). In the member map `server` is the server's name, as SPEC section 3 has it;
/// next to `class` it is a pattern, as SPEC section 12 has it.
struct RawToolSpec(RawTool);

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawToolSpecObject {
    tool: Option<String>,
    server: Option<String>,
    class: Option<String>,
}

impl<'de> Deserialize<'de> for RawToolSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SpecVisitor;
        impl<'de> Visitor<'de> for SpecVisitor {
            type Value = RawToolSpec;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a tool like `brave.web_search`, a map `{server: ..., tool: ...}`, or a \
                     class `{class: search}`",
                )
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<RawToolSpec, E> {
                let member = Member::parse(text).map_err(|error| member_error(text, error))?;
                Ok(RawToolSpec(RawTool {
                    member: Some(member),
                    class: None,
                    server: None,
                }))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawToolSpec, A::Error> {
                let object = RawToolSpecObject::deserialize(MapAccessDeserializer::new(map))?;
                if object.class.is_some() {
                    let member = match &object.tool {
                        Some(tool) => {
                            Some(Member::parse(tool).map_err(|error| member_error(tool, error))?)
                        }
                        None => None,
                    };
                    let server = object.server.as_deref().map(compile).transpose()?;
                    return Ok(RawToolSpec(RawTool {
                        member,
                        class: object.class,
                        server,
                    }));
                }
                let Some(tool) = &object.tool else {
                    return Err(custom(
                        "toolgate::suite::missing_key",
                        "an expected tool needs `tool` or `class`",
                        "no `tool` or `class`",
                        "name the tool (`{tool: web_search}`) or an equal-function class of the \
                         test (`{class: search}`)",
                    ));
                };
                let text = match &object.server {
                    Some(server) => format!("{{server: {server}, tool: {tool}}}"),
                    None => format!("{{tool: {tool}}}"),
                };
                let member = Member::new(object.server.as_deref(), tool)
                    .map_err(|error| member_error(&text, error))?;
                Ok(RawToolSpec(RawTool {
                    member: Some(member),
                    class: None,
                    server: None,
                }))
            }
        }
        deserializer.deserialize_any(SpecVisitor)
    }
}

/// `threshold`: a number from 0 to 1 with at most two decimals, kept as a whole percent.
#[derive(Clone, Copy)]
struct Threshold(Percent);

impl<'de> Deserialize<'de> for Threshold {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ThresholdVisitor;
        impl Visitor<'_> for ThresholdVisitor {
            type Value = Threshold;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number from 0 to 1 with at most two decimals")
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<Threshold, E> {
                match value {
                    0 => Ok(Threshold(Percent::ZERO)),
                    1 => Ok(Threshold(Percent::FULL)),
                    _ => Err(threshold_range(&value.to_string())),
                }
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<Threshold, E> {
                u64::try_from(value)
                    .map_err(|_| threshold_range(&value.to_string()))
                    .and_then(|v| self.visit_u64(v))
            }
            fn visit_f64<E: de::Error>(self, value: f64) -> Result<Threshold, E> {
                if !(0.0..=1.0).contains(&value) {
                    return Err(threshold_range(&value.to_string()));
                }
                // The YAML number is read as a float; a whole percent is within rounding
                // noise of an integer once scaled.
                let scaled = value * 100.0;
                let whole = scaled.round();
                if (scaled - whole).abs() > 1e-6 {
                    return Err(custom(
                        "toolgate::suite::invalid_value",
                        &format!("threshold `{value}` is not a whole percent"),
                        "more than two decimals",
                        "write the threshold with at most two decimals, like `0.75`",
                    ));
                }
                #[expect(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "`whole` is an integer from 0 to 100"
                )]
                let percent = Percent::new(whole as u8).unwrap_or(Percent::ZERO);
                Ok(Threshold(percent))
            }
        }
        deserializer.deserialize_any(ThresholdVisitor)
    }
}

fn threshold_range<E: de::Error>(value: &str) -> E {
    custom(
        "toolgate::suite::out_of_range",
        &format!("threshold `{value}` is outside 0..1"),
        "not between 0 and 1",
        "the threshold is a fraction: `0.5` gates `tool_correctness.score >= 50`",
    )
}

/// A tool match: a string (a `name` regex) or a map.
struct RawToolMatch {
    name: Pattern,
    class: Option<String>,
    server: Option<Pattern>,
    command: Option<Pattern>,
    path: Option<Pattern>,
    args: Option<BTreeMap<String, ValueTestValue>>,
    result: Option<ValueTest>,
    min_count: Option<u32>,
    final_call: Option<bool>,
    at_step: Option<u32>,
    before_step: Option<u32>,
}

impl RawToolMatch {
    /// The keys that only `required` entries take, with whether each is present.
    fn positional_keys(&self) -> [(&'static str, bool); 4] {
        [
            ("min_count", self.min_count.is_some()),
            ("final", self.final_call.is_some()),
            ("at_step", self.at_step.is_some()),
            ("before_step", self.before_step.is_some()),
        ]
    }

    fn into_match(self, class: Option<ClassTools>) -> ToolMatch {
        ToolMatch {
            name: self.name,
            class,
            server: self.server,
            command: self.command,
            path: self.path,
            args: self
                .args
                .unwrap_or_default()
                .into_iter()
                .map(|(name, test)| (name, test.0))
                .collect(),
            result: self.result,
        }
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawToolMatchObject {
    /// A regex searched in the tool name; optional when `class` or `server` is given.
    name: Option<PatternValue>,
    /// An equal-function class of the test: the call's tool is one of its members.
    class: Option<String>,
    /// A regex searched in the call's server.
    server: Option<PatternValue>,
    command: Option<PatternValue>,
    path: Option<PatternValue>,
    /// A regex (a string) or a value matcher (anything else) for each argument, by name.
    args: Option<BTreeMap<String, ValueTestValue>>,
    /// A regex searched in the result (a string), or a value matcher (anything else).
    result: Option<ValueTestValue>,
    min_count: Option<Whole>,
    #[serde(rename = "final")]
    final_call: Option<bool>,
    at_step: Option<Whole>,
    before_step: Option<Whole>,
}

/// A count or a step: a whole number from 0 (the rules on 0 are checked afterwards).
#[derive(Clone, Copy)]
struct Whole(u32);

impl<'de> Deserialize<'de> for Whole {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct WholeVisitor;
        impl Visitor<'_> for WholeVisitor {
            type Value = Whole;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a whole number from 0")
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<Whole, E> {
                u32::try_from(value)
                    .map(Whole)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(value), &self))
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<Whole, E> {
                u64::try_from(value)
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(value), &self))
                    .and_then(|v| self.visit_u64(v))
            }
        }
        deserializer.deserialize_any(WholeVisitor)
    }
}

impl<'de> Deserialize<'de> for RawToolMatch {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ToolMatchVisitor;
        impl<'de> Visitor<'de> for ToolMatchVisitor {
            type Value = RawToolMatch;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tool name regex, or a map with `name` and optional conditions")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<RawToolMatch, E> {
                Ok(RawToolMatch {
                    name: compile(text)?,
                    class: None,
                    server: None,
                    command: None,
                    path: None,
                    args: None,
                    result: None,
                    min_count: None,
                    final_call: None,
                    at_step: None,
                    before_step: None,
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawToolMatch, A::Error> {
                let raw = RawToolMatchObject::deserialize(MapAccessDeserializer::new(map))?;
                let name = match raw.name {
                    Some(name) => name.0,
                    None if raw.class.is_some() || raw.server.is_some() => compile("")?,
                    None => {
                        return Err(custom(
                            "toolgate::suite::missing_key",
                            "a tool match needs `name`, `class` or `server`",
                            "no `name`, `class` or `server`",
                            "write `name: <regex>` for the tool name, `class: <class>` for an \
                             equal-function class of the test, or `server: <regex>`",
                        ));
                    }
                };
                Ok(RawToolMatch {
                    name,
                    class: raw.class,
                    server: raw.server.map(|p| p.0),
                    command: raw.command.map(|p| p.0),
                    path: raw.path.map(|p| p.0),
                    args: raw.args,
                    result: raw.result.map(|test| test.0),
                    min_count: raw.min_count.map(|w| w.0),
                    final_call: raw.final_call,
                    at_step: raw.at_step.map(|w| w.0),
                    before_step: raw.before_step.map(|w| w.0),
                })
            }
        }
        deserializer.deserialize_any(ToolMatchVisitor)
    }
}

/// A `tool-calls` argument or result condition: a string is a regex (seed 002); anything
/// else is a value matcher (SPEC section 12).
struct ValueTestValue(ValueTest);

impl<'de> Deserialize<'de> for ValueTestValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TestVisitor;
        impl<'de> Visitor<'de> for TestVisitor {
            type Value = ValueTestValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a regular expression, or a value matcher such as `{$gte: 1}`")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<ValueTestValue, E> {
                compile(text).map(|pattern| ValueTestValue(ValueTest::Regex(pattern)))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ValueTestValue, A::Error> {
                ValueMatcher::deserialize(MapAccessDeserializer::new(map))
                    .map(|matcher| ValueTestValue(ValueTest::Matcher(matcher)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<ValueTestValue, A::Error> {
                ValueMatcher::deserialize(de::value::SeqAccessDeserializer::new(seq))
                    .map(|matcher| ValueTestValue(ValueTest::Matcher(matcher)))
            }
            fn visit_bool<E: de::Error>(self, value: bool) -> Result<ValueTestValue, E> {
                Ok(literal(Value::Bool(value)))
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<ValueTestValue, E> {
                Ok(literal(Value::from(value)))
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<ValueTestValue, E> {
                Ok(literal(Value::from(value)))
            }
            fn visit_f64<E: de::Error>(self, value: f64) -> Result<ValueTestValue, E> {
                Ok(literal(Value::from(value)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<ValueTestValue, E> {
                Ok(literal(Value::Null))
            }
        }
        fn literal(value: Value) -> ValueTestValue {
            ValueTestValue(ValueTest::Matcher(ValueMatcher::literal(value)))
        }
        deserializer.deserialize_any(TestVisitor)
    }
}

/// A regex, compiled while the suite is read so that an error points at the pattern.
struct PatternValue(Pattern);

impl<'de> Deserialize<'de> for PatternValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PatternVisitor;
        impl Visitor<'_> for PatternVisitor {
            type Value = PatternValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a regular expression")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<PatternValue, E> {
                compile(text).map(PatternValue)
            }
        }
        deserializer.deserialize_str(PatternVisitor)
    }
}

fn compile<E: de::Error>(text: &str) -> Result<Pattern, E> {
    Pattern::new(text).map_err(|error| {
        if let regex::Error::CompiledTooBig(limit) = error {
            return custom(
                "toolgate::suite::regex_too_big",
                &format!(
                    "tool regex {} compiles to more than {} MiB, the limit for one regex",
                    shorten(text),
                    limit >> 20
                ),
                "compiles too big",
                "a large repetition of a class is the usual cause (`\\w{1000}` alone is \
                 megabytes of Unicode classes): use a smaller count, `+` or `*`, or an ASCII \
                 class such as `[a-z0-9_]` or `(?-u:\\w)`",
            );
        }
        // The regex crate draws the pattern with a caret; its last line says what is wrong.
        let detail = error.to_string();
        let reason = detail
            .lines()
            .last()
            .unwrap_or_default()
            .trim_start_matches("error: ")
            .to_owned();
        custom(
            "toolgate::suite::invalid_regex",
            &format!("invalid tool regex {}: {reason}", shorten(text)),
            "invalid regex",
            "patterns use the Rust `regex` dialect: no look-around or back-references; \
             escape `(`, `[`, `.` and `\\` with `\\` to match them literally",
        )
    })
}

#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
enum GraderKind {
    #[serde(rename = "tool-calls")]
    ToolCalls,
    #[serde(rename = "tool-correctness")]
    ToolCorrectness,
    #[serde(rename = "call-accuracy")]
    CallAccuracy,
}

impl GraderKind {
    /// The keys its `config` takes.
    fn keys(self) -> &'static [&'static str] {
        match self {
            Self::ToolCalls => &["required", "disallowed", "sequence", "expect"],
            Self::ToolCorrectness => &[
                "expected_tools",
                "exact_match",
                "check_ordering",
                "threshold",
                "expect",
            ],
            Self::CallAccuracy => &["expected", "args_mode", "ignore_args", "expect"],
        }
    }
}

impl fmt::Display for GraderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::ToolCalls => "tool-calls",
            Self::ToolCorrectness => "tool-correctness",
            Self::CallAccuracy => "call-accuracy",
        })
    }
}

/// The operators of one comparison map; all must hold.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Comparison {
    #[serde(rename = ">=")]
    ge: Option<GateValue>,
    #[serde(rename = ">")]
    gt: Option<GateValue>,
    #[serde(rename = "<=")]
    le: Option<GateValue>,
    #[serde(rename = "<")]
    lt: Option<GateValue>,
    #[serde(rename = "==")]
    eq: Option<GateValue>,
    #[serde(rename = "!=")]
    ne: Option<GateValue>,
}

impl Comparison {
    /// The operators given, in [`Op::ALL`] order.
    fn gates(&self) -> Vec<(Op, Percent)> {
        [
            (Op::Ge, self.ge),
            (Op::Gt, self.gt),
            (Op::Le, self.le),
            (Op::Lt, self.lt),
            (Op::Eq, self.eq),
            (Op::Ne, self.ne),
        ]
        .into_iter()
        .filter_map(|(op, value)| value.map(|v| (op, v.0)))
        .collect()
    }
}

/// A block's `expect:`: a list of gates. Written as a map, which is the common slip, it is
/// an error that shows the list form.
struct Expectations(Vec<RawExpectation>);

impl<'de> Deserialize<'de> for Expectations {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ExpectationsVisitor;
        impl<'de> Visitor<'de> for ExpectationsVisitor {
            type Value = Expectations;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of gates, like `- tool_selection.f1: { \">=\": 80 }`")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Expectations, A::Error> {
                let mut gates = Vec::new();
                while let Some(gate) = seq.next_element()? {
                    gates.push(gate);
                }
                Ok(Expectations(gates))
            }
            fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Expectations, A::Error> {
                Err(custom(
                    "toolgate::suite::invalid_value",
                    "`expect:` is a list of gates, not a map",
                    "a map",
                    "write each gate as an item of a list, starting with `- `: \
                     `expect: [{tool_selection.f1: {\">=\": 80}}]`, or on its own line \
                     `- tool_selection.f1: { \">=\": 80 }`",
                ))
            }
        }
        deserializer.deserialize_any(ExpectationsVisitor)
    }
}

/// The comparison of a gate: a map of operators. A string like `">= 80"` or a bare number
/// is the common slip, and its error shows the map form.
struct ComparisonValue(Comparison);

impl<'de> Deserialize<'de> for ComparisonValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ComparisonVisitor;
        impl<'de> Visitor<'de> for ComparisonVisitor {
            type Value = ComparisonValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map of operators to percents, like `{ \">=\": 80 }`")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ComparisonValue, A::Error> {
                Comparison::deserialize(MapAccessDeserializer::new(map)).map(ComparisonValue)
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<ComparisonValue, E> {
                let written = text.trim();
                let op = Op::ALL
                    .iter()
                    .filter(|op| written.starts_with(op.as_str()))
                    .max_by_key(|op| op.as_str().len());
                let help = match op {
                    Some(op) => format!(
                        "write the operator and the value as a map: `{{ \"{op}\": {} }}`",
                        written[op.as_str().len()..].trim()
                    ),
                    None => {
                        "write the operator and the value as a map: `{ \">=\": 80 }`".to_owned()
                    }
                };
                Err(custom(
                    "toolgate::suite::invalid_value",
                    &format!("a comparison is a map of operators, not the string `{written}`"),
                    "a string",
                    &help,
                ))
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<ComparisonValue, E> {
                Err(custom(
                    "toolgate::suite::invalid_value",
                    &format!("a comparison needs an operator, not only the value `{value}`"),
                    "no operator",
                    &format!("write for example `{{ \">=\": {value} }}`"),
                ))
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<ComparisonValue, E> {
                Err(custom(
                    "toolgate::suite::invalid_value",
                    &format!("a comparison needs an operator, not only the value `{value}`"),
                    "no operator",
                    "write for example `{ \">=\": 80 }`",
                ))
            }
        }
        deserializer.deserialize_any(ComparisonVisitor)
    }
}

/// `- target: { op: value, ... }`: a map with exactly one key.
struct RawExpectation {
    target: String,
    comparison: Comparison,
}

impl<'de> Deserialize<'de> for RawExpectation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ExpectationVisitor;
        impl<'de> Visitor<'de> for ExpectationVisitor {
            type Value = RawExpectation;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map from one target to a comparison, like `tool_selection.f1: { \">=\": 80 }`")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let Some(target) = map.next_key::<String>()? else {
                    return Err(custom(
                        "toolgate::suite::empty",
                        "an expectation is empty",
                        "empty",
                        "write a target and a comparison, like `- tool_selection.f1: { \">=\": 80 }`",
                    ));
                };
                let comparison = map.next_value::<ComparisonValue>()?.0;
                // `RejectKey` fails on any key, so a second target stops here, at its key.
                let _: Option<()> = map.next_key_seed(RejectKey)?;
                Ok(RawExpectation { target, comparison })
            }
        }
        deserializer.deserialize_map(ExpectationVisitor)
    }
}

/// Fails on any key, at the key: an expectation holds one target.
struct RejectKey;

impl<'de> DeserializeSeed<'de> for RejectKey {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(RejectKey)
    }
}

impl Visitor<'_> for RejectKey {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("no second target")
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<(), E> {
        Err(custom(
            "toolgate::suite::invalid_value",
            &format!("a second target `{key}` in one expectation"),
            "second target",
            "write one target per list entry: start a new entry with `- `",
        ))
    }
    fn visit_u64<E: de::Error>(self, key: u64) -> Result<(), E> {
        self.visit_str(&key.to_string())
    }
    fn visit_i64<E: de::Error>(self, key: i64) -> Result<(), E> {
        self.visit_str(&key.to_string())
    }
    fn visit_bool<E: de::Error>(self, key: bool) -> Result<(), E> {
        self.visit_str(&key.to_string())
    }
}

/// A gate's value: a whole percent from 0 to 100.
#[derive(Clone, Copy)]
struct GateValue(Percent);

impl<'de> Deserialize<'de> for GateValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PercentVisitor;
        impl Visitor<'_> for PercentVisitor {
            type Value = GateValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an integer from 0 to 100")
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<GateValue, E> {
                u8::try_from(value)
                    .ok()
                    .and_then(Percent::new)
                    .map(GateValue)
                    .ok_or_else(|| out_of_range(&value.to_string()))
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<GateValue, E> {
                u64::try_from(value)
                    .map_err(|_| out_of_range(&value.to_string()))
                    .and_then(|v| self.visit_u64(v))
            }
            fn visit_u128<E: de::Error>(self, value: u128) -> Result<GateValue, E> {
                Err(out_of_range(&value.to_string()))
            }
            fn visit_i128<E: de::Error>(self, value: i128) -> Result<GateValue, E> {
                Err(out_of_range(&value.to_string()))
            }
            fn visit_f64<E: de::Error>(self, value: f64) -> Result<GateValue, E> {
                Err(custom(
                    "toolgate::suite::invalid_value",
                    &format!("gate value `{value}` is not a whole percent"),
                    "not an integer",
                    "gates compare integer percents from 0 to 100, like `80`",
                ))
            }
        }
        deserializer.deserialize_any(PercentVisitor)
    }
}

fn out_of_range<E: de::Error>(value: &str) -> E {
    custom(
        "toolgate::suite::out_of_range",
        &format!("gate value `{value}` is outside 0..100"),
        "not a percent",
        "metrics are integer percents; use a value from 0 to 100",
    )
}

/// `runs:`: a positive integer.
#[derive(Clone, Copy)]
struct RunCount(u64);

impl<'de> Deserialize<'de> for RunCount {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RunsVisitor;
        impl Visitor<'_> for RunsVisitor {
            type Value = RunCount;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a positive integer")
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<RunCount, E> {
                if value == 0 {
                    return Err(custom(
                        "toolgate::suite::out_of_range",
                        "`runs` is 0",
                        "must be at least 1",
                        "`runs` is the number of recorded runs the test expects; omit it to take whatever is found",
                    ));
                }
                Ok(RunCount(value))
            }
            fn visit_u128<E: de::Error>(self, value: u128) -> Result<RunCount, E> {
                Err(custom(
                    "toolgate::suite::out_of_range",
                    &format!("`runs` is {value}, more than toolgate can count"),
                    "too large",
                    "`runs` is the number of recorded runs the test expects",
                ))
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<RunCount, E> {
                u64::try_from(value)
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(value), &self))
                    .and_then(|v| self.visit_u64(v))
            }
        }
        deserializer.deserialize_any(RunsVisitor)
    }
}

/// `naming:`: a scheme's name, or a map with `scheme` and its `servers` or `pattern`.
#[derive(Default)]
struct RawNaming {
    scheme: String,
    servers: Vec<String>,
    pattern: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawNamingObject {
    scheme: String,
    #[serde(default)]
    servers: Vec<String>,
    pattern: Option<String>,
}

impl<'de> Deserialize<'de> for RawNaming {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NamingVisitor;
        impl<'de> Visitor<'de> for NamingVisitor {
            type Value = RawNaming;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a naming scheme, or a map with `scheme` and `servers` or `pattern`")
            }
            fn visit_str<E: de::Error>(self, scheme: &str) -> Result<RawNaming, E> {
                Ok(RawNaming {
                    scheme: scheme.to_owned(),
                    ..RawNaming::default()
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawNaming, A::Error> {
                let raw = RawNamingObject::deserialize(MapAccessDeserializer::new(map))?;
                Ok(RawNaming {
                    scheme: raw.scheme,
                    servers: raw.servers,
                    pattern: raw.pattern,
                })
            }
        }
        deserializer.deserialize_any(NamingVisitor)
    }
}

/// `traces:`: one path or glob, or a list of them.
enum RawTraces {
    One(String),
    Many(Vec<String>),
}

impl<'de> Deserialize<'de> for RawTraces {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TracesVisitor;
        impl<'de> Visitor<'de> for TracesVisitor {
            type Value = RawTraces;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a path or glob, or a list of them")
            }
            fn visit_str<E: de::Error>(self, value: &str) -> Result<RawTraces, E> {
                Ok(RawTraces::One(value.to_owned()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawTraces, A::Error> {
                let mut all = Vec::new();
                while let Some(pattern) = seq.next_element::<String>()? {
                    all.push(pattern);
                }
                Ok(RawTraces::Many(all))
            }
        }
        deserializer.deserialize_any(TracesVisitor)
    }
}

/// A member: `"server.tool"`, `"tool"`, or `{server: ..., tool: ...}`.
struct MemberValue(Member);

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct MemberObject {
    server: Option<String>,
    tool: String,
}

impl<'de> Deserialize<'de> for MemberValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MemberVisitor;
        impl<'de> Visitor<'de> for MemberVisitor {
            type Value = MemberValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tool like `brave.web_search`, or a map `{server: ..., tool: ...}`")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<MemberValue, E> {
                Member::parse(text)
                    .map(MemberValue)
                    .map_err(|error| member_error(text, error))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<MemberValue, A::Error> {
                let object = MemberObject::deserialize(MapAccessDeserializer::new(map))?;
                let text = match &object.server {
                    Some(server) => format!("{{server: {server}, tool: {}}}", object.tool),
                    None => format!("{{tool: {}}}", object.tool),
                };
                Member::new(object.server.as_deref(), &object.tool)
                    .map(MemberValue)
                    .map_err(|error| member_error(&text, error))
            }
        }
        deserializer.deserialize_any(MemberVisitor)
    }
}

fn member_error<E: de::Error>(text: &str, error: MemberError) -> E {
    custom(
        "toolgate::suite::invalid_member",
        &format!("invalid member `{text}`: {error}"),
        "invalid member",
        "write `server.tool`, a bare `tool`, or `{server: ..., tool: ...}` for names with dots",
    )
}

// ---------------------------------------------------------------------------------------
// Errors raised while deserializing carry their code, label and help inside the message,
// between these separators, so that the parser's own error type can carry them to
// `yaml_problem` with the position it attaches.

/// The largest suite file, in bytes: 16 MiB, a thousand times a large hand-written suite.
/// The caller reads the file; it refuses a larger one before reading it whole
/// (`toolgate::suite::too_large`).
pub const MAX_SUITE_BYTES: usize = 16 << 20;

/// The most nodes (scalars, lists and maps) a suite may hold once its YAML aliases are
/// expanded: one million, far beyond any hand-written suite, and small enough to read in
/// bounded time and memory; or, for a larger file, as many nodes as it has bytes, which no
/// document reaches without aliases, so that every suite within [`MAX_SUITE_BYTES`] that
/// uses none loads. See [`SuiteFile::parse`].
pub const MAX_YAML_NODES: usize = 1_000_000;

/// The most nodes a suite of `bytes` bytes may expand to: [`MAX_YAML_NODES`], or one per
/// byte for a larger file. A document holds at most one node per byte without aliases, so
/// a suite within [`MAX_SUITE_BYTES`] that uses none always loads; only aliases can pass
/// the budget.
pub(crate) fn node_budget(bytes: usize) -> usize {
    MAX_YAML_NODES.max(bytes)
}

/// Whether `text`, with its aliases expanded, holds more than `limit` nodes. Any other
/// problem of the document is left to the full read, which reports it with its place.
pub(crate) fn expands_past(text: &str, limit: usize) -> bool {
    let counted = Cell::new(0_usize);
    let deserializer = serde_yaml::Deserializer::from_str(text);
    match (NodeBudget {
        counted: &counted,
        limit,
    })
    .deserialize(deserializer)
    {
        Err(error) => {
            let message = error.to_string();
            message.contains(EXPANSION) || message.contains("repetition limit exceeded")
        }
        Ok(()) => false,
    }
}

/// The span of the first alias (`*name`) in a YAML text: a `*` that starts a token.
fn first_alias(text: &str) -> Option<SourceSpan> {
    let bytes = text.as_bytes();
    (0..bytes.len())
        .find(|&i| {
            bytes[i] == b'*'
                && (i == 0
                    || matches!(
                        bytes[i - 1],
                        b' ' | b'\t' | b'\n' | b'[' | b'{' | b',' | b'-' | b':'
                    ))
                && bytes
                    .get(i + 1)
                    .is_some_and(|next| !next.is_ascii_whitespace())
        })
        .map(|start| {
            let end = text[start..]
                .find(|c: char| c.is_whitespace() || matches!(c, ',' | ']' | '}'))
                .map_or(text.len(), |len| start + len);
            SourceSpan::new(start.into(), end - start)
        })
}

/// The message of the error that stops [`NodeBudget`].
const EXPANSION: &str = "\u{0}toolgate: expansion limit";

/// Counts the nodes of a YAML document, following aliases, and fails past `limit`.
#[derive(Clone, Copy)]
struct NodeBudget<'c> {
    counted: &'c Cell<usize>,
    limit: usize,
}

impl NodeBudget<'_> {
    fn count<E: de::Error>(self) -> Result<(), E> {
        let counted = self.counted.get() + 1;
        self.counted.set(counted);
        if counted > self.limit {
            return Err(E::custom(EXPANSION));
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for NodeBudget<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for NodeBudget<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML node")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.count()
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.count()
    }

    fn visit_i128<E: de::Error>(self, _: i128) -> Result<(), E> {
        self.count()
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.count()
    }

    fn visit_u128<E: de::Error>(self, _: u128) -> Result<(), E> {
        self.count()
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.count()
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.count()
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.count()
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.count()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.count()?;
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.count()?;
        while map.next_key_seed(self)?.is_some() {
            map.next_value_seed(self)?;
        }
        Ok(())
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        // A tagged node (`!tag value`): count it; the full read says what is wrong with it.
        self.count()?;
        let (IgnoredAny, variant) = data.variant()?;
        de::VariantAccess::newtype_variant_seed(variant, self)
    }
}

fn decode_custom(text: &str) -> Problem {
    let mut parts = text.trim_start_matches(CUSTOM).splitn(4, FIELD);
    let code = parts.next().unwrap_or_default();
    let label = parts.next().unwrap_or("here");
    let help = parts.next().unwrap_or_default();
    let message = parts.next().unwrap_or_default();
    let code = KNOWN_CODES
        .iter()
        .find(|known| **known == code)
        .copied()
        .unwrap_or("toolgate::suite::invalid_value");
    let problem = Problem::new(code, message, label);
    if help.is_empty() {
        problem
    } else {
        problem.with_help(help)
    }
}

/// The problem of a `naming:` that does not build, and the path under the test to place it.
fn naming_problem(scheme: &str, error: &NamingError) -> (Problem, &'static [PathSeg<'static>]) {
    if let NamingError::TooBig { .. } = error {
        let problem = Problem::new(
            "toolgate::suite::regex_too_big",
            error.to_string(),
            "compiles too big",
        )
        .with_help(
            "use a smaller repetition count, `+` or `*`, or an ASCII class such as `[a-z0-9_]` \
             instead of `\\w`",
        );
        return (problem, &[PathSeg::Key("naming"), PathSeg::Key("pattern")]);
    }
    let help = if let NamingError::Unknown(_) = error {
        let names: Vec<String> = Naming::NAMES.iter().map(|n| (*n).to_owned()).collect();
        suggest(scheme, &names, "schemes")
    } else {
        "write the pattern with the named groups `server` and `tool`, like \
         `^(?P<server>[^/]+)/(?P<tool>.+)$`"
            .to_owned()
    };
    let problem = Problem::new(
        "toolgate::suite::invalid_naming",
        error.to_string(),
        "invalid naming",
    )
    .with_help(help);
    (problem, &[PathSeg::Key("naming")])
}

/// A pattern as a message quotes it: whole when short, its start otherwise.
fn shorten(text: &str) -> String {
    const SHOWN: usize = 40;
    match text.char_indices().nth(SHOWN) {
        Some((end, _)) => format!("`{}...` ({} bytes)", &text[..end], text.len()),
        None => format!("`{text}`"),
    }
}

const KNOWN_CODES: &[&str] = &[
    "toolgate::suite::invalid_regex",
    "toolgate::suite::regex_too_big",
    "toolgate::suite::empty",
    "toolgate::suite::invalid_value",
    "toolgate::suite::invalid_member",
    "toolgate::suite::out_of_range",
    "toolgate::suite::missing_key",
    "toolgate::suite::unknown_operator",
    "toolgate::suite::invalid_matcher",
    "toolgate::suite::invalid_schema",
];

/// Reads `text` as one `T`, a mistake as the problem the suite's reading reports, placed:
/// for the unit tests of types read inside a suite.
#[cfg(test)]
pub(crate) fn read_fragment<T: de::DeserializeOwned>(text: &str) -> Result<T, Problem> {
    let file = SuiteFile::new("fragment.yaml", text.to_owned());
    serde_yaml::from_str(text).map_err(|error| file.yaml_problem(&error))
}

/// For libyaml's `problem, while <context> at line L column C`: the problem, the context,
/// and where the context starts.
fn libyaml_context(text: &str) -> Option<(&str, &str, usize, usize)> {
    let (message, rest) = text.split_once(", while ")?;
    let (context, position) = rest.rsplit_once(" at line ")?;
    let (line, column) = position.split_once(" column ")?;
    let context = context.strip_prefix("parsing ").unwrap_or(context);
    let context = context.strip_prefix("scanning ").unwrap_or(context);
    Some((
        message,
        context,
        line.trim().parse().ok()?,
        column.trim().parse().ok()?,
    ))
}

/// The parser's path of a node (`tests[0].equal_function_sets`) as path segments.
fn yaml_path(path: &str) -> Vec<PathSeg<'_>> {
    let mut segments = Vec::new();
    for part in path.split('.').filter(|part| !part.is_empty()) {
        let mut pieces = part.split('[');
        if let Some(key) = pieces.next().filter(|key| !key.is_empty()) {
            segments.push(PathSeg::Key(key));
        }
        for index in pieces {
            if let Ok(index) = index.trim_end_matches(']').parse() {
                segments.push(PathSeg::Index(index));
            }
        }
    }
    segments
}

/// Splits the parser's `path: message` into its parts.
fn split_path(text: &str) -> (Option<&str>, &str) {
    match text.split_once(": ") {
        Some((path, message)) if !path.contains([' ', '`']) => (Some(path), message),
        _ => (None, text),
    }
}

/// The token in backticks right after `prefix`, when `message` starts with it.
fn backticked(message: &str, prefix: &str) -> Option<String> {
    let rest = message.strip_prefix(prefix)?;
    rest.split_once('`').map(|(token, _)| token.to_owned())
}

/// For serde's ``unknown field `x`, expected one of `a`, `b` ``: `x` and the valid names.
fn parse_expected(message: &str, prefix: &str) -> Option<(String, Vec<String>)> {
    let rest = message.strip_prefix(prefix)?;
    let (token, rest) = rest.split_once('`')?;
    let valid = rest
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    Some((token.to_owned(), valid))
}

/// A span over the token that starts at `offset`: a quoted string, a plain scalar up to
/// the end of its line (or a flow separator), or one character.
fn token_span(text: &str, offset: usize) -> SourceSpan {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let rest = &text[offset..];
    let len = match rest.chars().next() {
        None => 0,
        Some(quote @ ('"' | '\'')) => rest[1..]
            .find(quote)
            .map_or_else(|| rest.find('\n').unwrap_or(rest.len()), |end| end + 2),
        Some(c @ ('[' | '{' | '\n')) => c.len_utf8(),
        Some(_) => {
            let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
            let mut end = line.len();
            for (i, c) in line.char_indices() {
                let next = line[i + c.len_utf8()..].chars().next();
                let stop = matches!(c, ',' | ']' | '}')
                    || (c == ':' && matches!(next, None | Some(' ')))
                    || (c == '#' && i > 0 && line[..i].ends_with(' '));
                if stop {
                    end = i;
                    break;
                }
            }
            line[..end].trim_end().len().max(1)
        }
    };
    SourceSpan::new(offset.into(), len)
}

// ---------------------------------------------------------------------------------------
// Finding a node by path: walk the document again and fail on purpose at the node, so that
// the parser reports the node's position.

const LOCATED: &str = "\u{0}toolgate: located";

struct Locate<'p>(&'p [PathSeg<'p>]);

impl<'de> DeserializeSeed<'de> for Locate<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Locate<'_> {
    fn here<E: de::Error>(&self) -> Result<(), E> {
        if self.0.is_empty() {
            Err(E::custom(LOCATED))
        } else {
            Ok(())
        }
    }
}

impl<'de> Visitor<'de> for Locate<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML node")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.here()
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.here()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.here()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.here()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.here()
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.here()
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.here()
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Some((&head, rest)) = self.0.split_first() else {
            return Err(de::Error::custom(LOCATED));
        };
        let PathSeg::Index(wanted) = head else {
            return Ok(());
        };
        let mut index = 0;
        while index < wanted {
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return Ok(());
            }
            index += 1;
        }
        seq.next_element_seed(Locate(rest)).map(|_| ())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Some((&head, rest)) = self.0.split_first() else {
            return Err(de::Error::custom(LOCATED));
        };
        if let PathSeg::RepeatedKey(key) = head {
            // The first occurrence is found like a key; the second is reported like a key name.
            let mut probe = PathSeg::Key(key);
            while let Some(found) = map.next_key_seed(KeyProbe(probe))? {
                if found {
                    probe = PathSeg::KeyName(key);
                }
                map.next_value::<IgnoredAny>()?;
            }
            return Ok(());
        }
        while let Some(found) = map.next_key_seed(KeyProbe(head))? {
            if found {
                return map.next_value_seed(Locate(rest));
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

/// Reads a key: `true` when it is the wanted key, and a located error when the key itself
/// is the node sought.
struct KeyProbe<'p>(PathSeg<'p>);

impl<'de> DeserializeSeed<'de> for KeyProbe<'_> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeyProbe<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<bool, E> {
        match self.0 {
            PathSeg::Key(wanted) => Ok(key == wanted),
            PathSeg::KeyName(wanted) if key == wanted => Err(E::custom(LOCATED)),
            _ => Ok(false),
        }
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(false)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(false)
    }
}

// ---------------------------------------------------------------------------------------
// Finding every node of a path shape in one walk. The walk fails on purpose at each node of
// the shape, as `Locate` does at its one node, but the node's parent takes the error, which
// carries the node's position, and reads on. A scalar fails in its visitor, once it is
// read; a list or map is left unread, so that the reader fails as it skips the items
// ("invalid length"), once it has read the whole node. Either way the reader stands just
// past the node, as after a node read without error.

/// One step of a path shape: a [`PathSeg`] with its index left open.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    /// [`PathSeg::Key`].
    Key(String),
    /// [`PathSeg::KeyName`]; a shape ends there.
    KeyName(String),
    /// [`PathSeg::Index`], whatever the index.
    Index,
    /// [`PathSeg::RepeatedKey`]; a shape ends there.
    RepeatedKey(String),
}

/// The shape of `path` and its indices. A path that names a key ends there: [`Locate`]
/// reads no further.
fn shape_of(path: &[PathSeg<'_>]) -> (Vec<Step>, Vec<usize>) {
    let mut shape = Vec::with_capacity(path.len());
    let mut indices = Vec::new();
    for &seg in path {
        match seg {
            PathSeg::Key(key) => shape.push(Step::Key(key.to_owned())),
            PathSeg::Index(index) => {
                shape.push(Step::Index);
                indices.push(index);
            }
            PathSeg::KeyName(key) => {
                shape.push(Step::KeyName(key.to_owned()));
                break;
            }
            PathSeg::RepeatedKey(key) => {
                shape.push(Step::RepeatedKey(key.to_owned()));
                break;
            }
        }
    }
    (shape, indices)
}

/// What [`Positions`] knows of a node.
enum Found {
    /// The node starts at this byte offset.
    At(usize),
    /// There is no such node, or none that [`Locate`] would place.
    Nowhere,
    /// The walk of its shape did not place the node; a walk to the node alone will.
    Unplaced,
}

/// Where the nodes of a document start, for each path shape walked so far.
#[derive(Debug, Clone, Default)]
struct Positions {
    shapes: BTreeMap<Vec<Step>, Walked>,
}

/// What the walk of one shape found.
#[derive(Debug, Clone)]
struct Walked {
    /// For each node of the shape, by its indices: the byte offset where it starts, or
    /// `None` for an empty list or map, which the walk cannot place.
    nodes: BTreeMap<Vec<usize>, Option<usize>>,
    /// Whether the walk read the whole document. One that stopped early (on a document
    /// the reader refuses) may have missed nodes that a walk to one of them would find.
    complete: bool,
}

impl Positions {
    /// The node of `shape` at `indices` in `text`, walking the shape first if needed.
    fn find(&mut self, text: &str, shape: Vec<Step>, indices: &[usize]) -> Found {
        let walked = self
            .shapes
            .entry(shape)
            .or_insert_with_key(|shape| walk_shape(text, shape));
        match walked.nodes.get(indices) {
            Some(Some(offset)) => Found::At(*offset),
            None if walked.complete => Found::Nowhere,
            Some(None) | None => Found::Unplaced,
        }
    }
}

/// Walks `text` once along `shape`, placing each node of the shape.
fn walk_shape(text: &str, shape: &[Step]) -> Walked {
    let walk = ShapeWalk {
        shape,
        indices: RefCell::new(Vec::new()),
        found: RefCell::new(Vec::new()),
        collection: Cell::new(false),
    };
    let complete = Node {
        walk: &walk,
        depth: 0,
    }
    .deserialize(serde_yaml::Deserializer::from_str(text))
    .is_ok();
    let found = walk.found.into_inner();
    let mut positions: Vec<Position> = found.iter().filter_map(|(_, at)| *at).collect();
    positions.sort_unstable();
    positions.dedup();
    let offsets = offsets_at(text, &positions);
    let nodes = found
        .into_iter()
        .map(|(indices, at)| {
            let offset = at.and_then(|position| {
                let i = positions.binary_search(&position).ok()?;
                offsets.get(i).copied()
            });
            (indices, offset)
        })
        .collect();
    Walked { nodes, complete }
}

/// The byte offsets of `positions`, 1-based lines and columns in ascending order, counted
/// as the YAML reader counts them: a column is a character, and a line ends at `\r\n`,
/// `\r`, `\n`, U+0085, U+2028 or U+2029.
fn offsets_at(text: &str, positions: &[Position]) -> Vec<usize> {
    let mut offsets = Vec::with_capacity(positions.len());
    let mut wanted = positions.iter().peekable();
    let (mut line, mut column) = (1, 1);
    let mut chars = text.char_indices().peekable();
    loop {
        let offset = chars.peek().map_or(text.len(), |&(i, _)| i);
        while wanted.next_if(|&&at| at <= (line, column)).is_some() {
            offsets.push(offset);
        }
        if wanted.peek().is_none() {
            return offsets;
        }
        let Some((_, c)) = chars.next() else {
            offsets.extend(wanted.map(|_| text.len()));
            return offsets;
        };
        match c {
            '\r' => {
                chars.next_if(|&(_, next)| next == '\n');
                (line, column) = (line + 1, 1);
            }
            '\n' | '\u{85}' | '\u{2028}' | '\u{2029}' => (line, column) = (line + 1, 1),
            _ => column += 1,
        }
    }
}

/// The 1-based line and column an error raised at a node of a shape walk carries, or
/// `None` for any other error. The error reaches the node's parent as the generic error
/// type of a serde access, whose only reading is its message: the reader ends it with
/// ` at line L column C`, but does not print the byte offset (see [`offsets_at`]).
fn marked_position(message: &str) -> Option<Position> {
    let unread = message.contains("invalid length")
        && (message.contains("expected sequence of 0 elements")
            || message.contains("expected map containing 0 entries"));
    if !(unread || message.contains(LOCATED)) {
        return None;
    }
    let Some((_, position)) = message.rsplit_once(" at line ") else {
        // The reader leaves out the position of the first character.
        return Some((1, 1));
    };
    let (line, column) = position.split_once(" column ")?;
    Some((line.parse().ok()?, column.parse().ok()?))
}

/// A 1-based line and column, as the YAML reader counts them.
type Position = (usize, usize);

/// A walk of the document along a shape, and what it found.
struct ShapeWalk<'s> {
    shape: &'s [Step],
    /// The indices of the node being read, one per [`Step::Index`] passed.
    indices: RefCell<Vec<usize>>,
    /// Each node of the shape found, by its indices: its 1-based line and column, or
    /// `None` for an empty list or map.
    found: RefCell<Vec<(Vec<usize>, Option<Position>)>>,
    /// Set when the node of the shape just read was a list or a map.
    collection: Cell<bool>,
}

impl ShapeWalk<'_> {
    /// Notes the node of the shape at the current indices.
    fn record(&self, at: Option<Position>) {
        let indices = self.indices.borrow().clone();
        self.found.borrow_mut().push((indices, at));
    }

    /// Reads a node at `depth` with `read`. A node of the shape fails on purpose: its
    /// position is recorded and the walk reads on.
    fn settle<E: de::Error>(
        &self,
        depth: usize,
        read: impl FnOnce() -> Result<Option<()>, E>,
    ) -> Result<Option<()>, E> {
        if depth < self.shape.len() {
            return read();
        }
        self.collection.set(false);
        match read() {
            Ok(Some(())) => {
                // A list or map that the reader skipped without complaint is empty.
                if self.collection.get() {
                    self.record(None);
                }
                Ok(Some(()))
            }
            Ok(None) => Ok(None),
            Err(error) => match marked_position(&error.to_string()) {
                Some(position) => {
                    self.record(Some(position));
                    Ok(Some(()))
                }
                None => Err(error),
            },
        }
    }
}

/// A node met by a [`ShapeWalk`], `depth` steps into the shape.
#[derive(Clone, Copy)]
struct Node<'w, 's> {
    walk: &'w ShapeWalk<'s>,
    depth: usize,
}

impl Node<'_, '_> {
    /// The step from this node to the next, or `None` when the node is one of the shape.
    fn step(&self) -> Option<&Step> {
        self.walk.shape.get(self.depth)
    }

    /// A child of this node, one step further into the shape.
    fn child(self) -> Self {
        Self {
            depth: self.depth + 1,
            ..self
        }
    }

    /// A scalar fails on purpose when it is a node of the shape.
    fn scalar<E: de::Error>(self) -> Result<(), E> {
        if self.step().is_none() {
            Err(E::custom(LOCATED))
        } else {
            Ok(())
        }
    }
}

impl<'de> DeserializeSeed<'de> for Node<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML node")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.scalar()
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.scalar()
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.scalar()
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.scalar()
    }
    // `Locate` fails on these without placing them, so a walk places nothing there.
    fn visit_i128<E: de::Error>(self, _: i128) -> Result<(), E> {
        Ok(())
    }
    fn visit_u128<E: de::Error>(self, _: u128) -> Result<(), E> {
        Ok(())
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        // A tagged node: read it whole, so that the walk can go on.
        let (IgnoredAny, variant) = data.variant()?;
        de::VariantAccess::newtype_variant::<IgnoredAny>(variant)?;
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        match self.step() {
            None => self.walk.collection.set(true),
            Some(Step::Index) => {
                let mut index = 0;
                loop {
                    self.walk.indices.borrow_mut().push(index);
                    let read = self
                        .walk
                        .settle(self.depth + 1, || seq.next_element_seed(self.child()));
                    self.walk.indices.borrow_mut().pop();
                    if read?.is_none() {
                        break;
                    }
                    index += 1;
                }
            }
            Some(_) => while seq.next_element::<IgnoredAny>()?.is_some() {},
        }
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (name, step) = match self.step() {
            None => {
                self.walk.collection.set(true);
                return Ok(());
            }
            Some(step @ (Step::Key(name) | Step::KeyName(name) | Step::RepeatedKey(name))) => {
                (name.as_str(), step)
            }
            Some(Step::Index) => {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                return Ok(());
            }
        };
        // While a key called `name` is sought: whether that key is itself the node sought.
        let mut seeking = Some(matches!(step, Step::KeyName(_)));
        loop {
            let key = match seeking {
                Some(mark) => map.next_key_seed(KeyRead { wanted: name, mark }),
                None => map
                    .next_key::<IgnoredAny>()
                    .map(|key| key.map(|IgnoredAny| KeyMatch::Other)),
            };
            let key = match key {
                Ok(Some(key)) => key,
                Ok(None) => break,
                Err(error) => {
                    // Only a key that is the node sought fails on purpose.
                    let (Some(true), Some(position)) =
                        (seeking, marked_position(&error.to_string()))
                    else {
                        return Err(error);
                    };
                    self.walk.record(Some(position));
                    seeking = None;
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            match (key, step) {
                (KeyMatch::Wanted, Step::Key(_)) => {
                    seeking = None;
                    self.walk.settle(self.depth + 1, || {
                        map.next_value_seed(self.child()).map(Some)
                    })?;
                    continue;
                }
                // The first occurrence of a repeated key; the second is the node sought.
                (KeyMatch::Wanted, _) => seeking = Some(true),
                (KeyMatch::Stop, _) => seeking = None,
                (KeyMatch::Other, _) => {}
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

/// A key read by a [`ShapeWalk`].
enum KeyMatch {
    /// The key sought.
    Wanted,
    /// Another key.
    Other,
    /// A key [`KeyProbe`] fails on, so that [`Locate`] finds nothing past it in this map.
    Stop,
}

/// Reads a key for a [`ShapeWalk`]: whether it is `wanted`, failing on purpose at it when
/// `mark` says it is the node sought.
struct KeyRead<'k> {
    wanted: &'k str,
    mark: bool,
}

impl<'de> DeserializeSeed<'de> for KeyRead<'_> {
    type Value = KeyMatch;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<KeyMatch, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeyRead<'_> {
    type Value = KeyMatch;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<KeyMatch, E> {
        match (key == self.wanted, self.mark) {
            (true, true) => Err(E::custom(LOCATED)),
            (true, false) => Ok(KeyMatch::Wanted),
            (false, _) => Ok(KeyMatch::Other),
        }
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<KeyMatch, E> {
        Ok(KeyMatch::Other)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<KeyMatch, E> {
        Ok(KeyMatch::Other)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<KeyMatch, E> {
        Ok(KeyMatch::Other)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<KeyMatch, E> {
        Ok(KeyMatch::Other)
    }
    fn visit_unit<E: de::Error>(self) -> Result<KeyMatch, E> {
        Ok(KeyMatch::Other)
    }
    fn visit_i128<E: de::Error>(self, _: i128) -> Result<KeyMatch, E> {
        Ok(KeyMatch::Stop)
    }
    fn visit_u128<E: de::Error>(self, _: u128) -> Result<KeyMatch, E> {
        Ok(KeyMatch::Stop)
    }
    fn visit_none<E: de::Error>(self) -> Result<KeyMatch, E> {
        Ok(KeyMatch::Stop)
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<KeyMatch, A::Error> {
        let (IgnoredAny, variant) = data.variant()?;
        de::VariantAccess::newtype_variant::<IgnoredAny>(variant)?;
        Ok(KeyMatch::Stop)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<KeyMatch, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(KeyMatch::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeyMatch, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(KeyMatch::Other)
    }
}

// ---------------------------------------------------------------------------------------
// The JSON Schema of the suite, from the same types that read it. Types read by a visitor
// describe themselves by hand, next to nothing else that could drift: each mirrors its
// visitor above.

/// The JSON Schema of the suite file, for editors (`toolgate schema`).
pub fn suite_schema() -> serde_json::Value {
    let mut schema = schemars::SchemaGenerator::default().into_root_schema_for::<RawSuite>();
    schema.insert("title".to_owned(), "toolgate suite".into());
    schema.insert(
        "description".to_owned(),
        "A toolgate suite: tests that score recorded agent tool calls and gate CI. \
         Reference: docs/suite.md"
            .into(),
    );
    schema.to_value()
}

/// Implements `JsonSchema` from a `json_schema!` body.
macro_rules! described {
    ($type:ty, $name:literal, $schema:expr) => {
        impl JsonSchema for $type {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                $name.into()
            }
            fn json_schema(generator: &mut SchemaGenerator) -> Schema {
                let make: fn(&mut SchemaGenerator) -> Schema = $schema;
                make(generator)
            }
        }
    };
}

described!(GateValue, "GateValue", |_| json_schema!({
    "type": "integer", "minimum": 0, "maximum": 100,
    "description": "a whole percent"
}));
described!(RunCount, "RunCount", |_| json_schema!({
    "type": "integer", "minimum": 1,
    "description": "the number of runs the test must find"
}));
described!(
    Whole,
    "Whole",
    |_| json_schema!({ "type": "integer", "minimum": 0 })
);
described!(Threshold, "Threshold", |_| json_schema!({
    "type": "number", "minimum": 0, "maximum": 1, "multipleOf": 0.01,
    "description": "a fraction with at most two decimals; the default gate is score >= threshold * 100"
}));
described!(ValueTestValue, "ValueTest", |generator| {
    let matcher = generator.subschema_for::<ValueMatcher>();
    json_schema!({
        "description": "a regular expression (a string, searched unanchored), or a value matcher (docs/matchers.md)",
        "anyOf": [ { "type": "string", "format": "regex" }, matcher ]
    })
});
described!(PatternValue, "Pattern", |_| json_schema!({
    "type": "string", "format": "regex",
    "description": "a regular expression (Rust regex dialect), searched unanchored"
}));
described!(RawTraces, "Traces", |_| json_schema!({
    "description": "paths or globs relative to the suite file's folder",
    "oneOf": [
        { "type": "string" },
        { "type": "array", "items": { "type": "string" } }
    ]
}));
described!(MemberValue, "Member", |generator| {
    let object = generator.subschema_for::<MemberObject>();
    json_schema!({
        "description": "`server.tool` (split at the first dot), a bare `tool`, or {server, tool}",
        "oneOf": [ { "type": "string", "minLength": 1 }, object ]
    })
});
described!(RawToolSpec, "ExpectedTool", |generator| {
    let object = generator.subschema_for::<RawToolSpecObject>();
    json_schema!({
        "description": "`server.tool`, a bare `tool`, {server, tool} (server by name), or {class, server} (any member of the test's class; server a regex)",
        "oneOf": [ { "type": "string", "minLength": 1 }, object ]
    })
});
described!(RawToolMatch, "ToolMatch", |generator| {
    let object = generator.subschema_for::<RawToolMatchObject>();
    json_schema!({
        "description": "a tool name regex, or a map with `name` and conditions",
        "oneOf": [ { "type": "string" }, object ]
    })
});
described!(RawNaming, "Naming", |generator| {
    let object = generator.subschema_for::<RawNamingObject>();
    json_schema!({
        "description": "how tool names that carry their server are split (docs/formats.md)",
        "oneOf": [ { "type": "string", "enum": Naming::NAMES }, object ]
    })
});
described!(Expectations, "Expectations", |generator| {
    let item = generator.subschema_for::<RawExpectation>();
    json_schema!({
        "description": "a list of gates; an empty list applies the block's default gate",
        "type": "array",
        "items": item
    })
});
described!(RawExpectation, "Expectation", |generator| {
    let comparison = generator.subschema_for::<Comparison>();
    let targets: Vec<&str> = Target::ALL.iter().map(|t| t.as_str()).collect();
    json_schema!({
        "description": "one target mapped to a comparison, like `tool_selection.f1: { \">=\": 80 }`",
        "type": "object",
        "minProperties": 1,
        "maxProperties": 1,
        "propertyNames": { "enum": targets },
        "additionalProperties": comparison
    })
});

/// One problem per matcher that met calls without its argument, naming every such call,
/// placed on the matcher's key in `file`.
pub fn missing_argument_problems(
    test: &Test,
    found: &MissingArguments,
    file: &SuiteFile,
) -> Vec<Problem> {
    found
        .groups()
        .map(|(&(grader, list, entry, field), (count, calls))| {
            let mut listed: Vec<String> = calls
                .iter()
                .map(|m| format!("run {} ({}) call {} `{}`", m.run, m.source, m.call, m.tool))
                .collect();
            if *count > calls.len() {
                listed.push(format!("and {} more", count - calls.len()));
            }
            let name = test
                .tool_calls
                .as_ref()
                .and_then(|g| match list {
                    MatchList::Required => g.required.get(entry).map(|r| &r.matcher.name),
                    MatchList::Disallowed => g.disallowed.get(entry).map(|m| &m.name),
                    MatchList::Sequence => g.sequence.get(entry).map(|m| &m.name),
                })
                .map_or_else(String::new, |name| name.as_str().to_owned());
            let span = file.span(&[
                PathSeg::Key("tests"),
                PathSeg::Index(test.index),
                PathSeg::Key("graders"),
                PathSeg::Index(grader),
                PathSeg::Key("config"),
                PathSeg::Key(list.key()),
                PathSeg::Index(entry),
                PathSeg::KeyName(field),
            ]);
            Problem::new(
                "toolgate::grader::missing_argument",
                format!(
                    "the `{field}` matcher of `{}` entry {} meets {} without a `{field}` argument: {}",
                    list.key(),
                    entry + 1,
                    if *count == 1 { "a call" } else { "calls" },
                    listed.join(", ")
                ),
                format!("needs a `{field}` argument"),
            )
            .with_help(if name.starts_with('^') && name.ends_with('$') {
                format!(
                    "write `args: {{{field}: ...}}` instead, which treats a missing argument as a \
                     non-match"
                )
            } else {
                format!(
                    "`name: {name}` is searched unanchored, so it also matches other tools; anchor \
                     it (`^{name}$`), or write `args: {{{field}: ...}}`, which treats a missing \
                     argument as a non-match"
                )
            })
            .at(span)
        })
        .collect()
}
