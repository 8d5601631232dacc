//! Reading a suite from YAML: the suite's own structure (its tests, where their runs come
//! from, how their tool names split), checked into a [`Suite`]. Each block of a test reads
//! and checks itself in its grader's module (`graders/<kind>/config.rs`, reached through
//! the registry in `graders/config.rs`); the YAML machinery they share, [`SuiteFile`]'s
//! look-ups and problems, is in `suite_file.rs`.

use std::collections::BTreeMap;
use std::fmt;

use miette::SourceSpan;
use schemars::{JsonSchema, json_schema};
use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use trailgate_trace::{Decimal, Naming, NamingError};

use crate::error::{Problem, SuiteError, custom, suggest};
use crate::gate::Target;
use crate::graders;
use crate::graders::TopLevelBlock;
use crate::graders::config::RawGrader;
use crate::matchers::ValueMatcher;
use crate::model::{Suite, Test, TracePattern};
use crate::prices::{NotAnAmount, PRICE_DIGITS, Price, Prices, WrittenNumber, scaled};
use crate::reading::RegexRefusal;
use crate::reliability::RawReliability;
use crate::schema::described;
use crate::suite_file::{Items, PathSeg, SuiteFile, at_most, join, plain_number};
use crate::tool_matcher::config::TestClasses;
use crate::yaml_depth::MAX_YAML_DEPTH;

impl SuiteFile {
    /// Parses and checks the suite, reporting every problem found.
    pub fn parse(&self) -> Result<Suite, SuiteError> {
        let limits = crate::reading::Limits::of_suite(self.text().len());
        crate::reading::within(limits, || self.parse_within())
    }

    /// [`SuiteFile::parse`], with the suite's reading open (`reading.rs`).
    fn parse_within(&self) -> Result<Suite, SuiteError> {
        self.start();
        let text = self.text();
        if text.lines().all(|line| {
            let line = line.trim();
            line.is_empty() || line.starts_with('#')
        }) {
            return Err(self.error(vec![
                Problem::new("trailgate::suite::empty", "the suite file is empty", "here")
                    .with_help("a suite starts with `tests:`, a list of tests; see docs/suite.md"),
            ]));
        }
        self.check_text()?;
        // Every shape error, each read past by skipping the test or grader it is in; then
        // the rules across nodes, for what could be read.
        let (raw, mut problems) = self.read_on::<RawSuite>(graders::config::keys_of_kind);
        let read_cleanly = problems.is_empty();
        let suite = raw.map(|raw| self.check(raw, &mut problems));
        match suite {
            Some(suite) if problems.is_empty() => Ok(suite),
            _ => {
                if !read_cleanly {
                    // Shape errors and the rules' problems, in the order of the file.
                    problems.sort_by_key(|p| p.span.map_or(usize::MAX, |s| s.offset()));
                }
                Err(self.error(at_most(problems)))
            }
        }
    }

    /// Reads the whole text as one value matcher (docs/matchers.md), as a grader's `args`
    /// holds one, after the checks a suite's text gets first ([`SuiteFile::parse`]): for
    /// tools that embed the matcher language, and its fuzz target. A mistake is an error
    /// holding the one problem met, placed in the text.
    pub fn parse_matcher(&self) -> Result<ValueMatcher, SuiteError> {
        let limits = crate::reading::Limits::of_suite(self.text().len());
        crate::reading::within(limits, || {
            self.start();
            self.check_text()?;
            self.read()
        })
    }

    /// The checks of a suite's text before it is read: characters YAML refuses, nesting
    /// too deep for the YAML reader's time, syntax, and aliases that expand it too far.
    fn check_text(&self) -> Result<(), SuiteError> {
        let text = self.text();
        if let Some((offset, c)) = crate::yaml_depth::unprintable(text) {
            return Err(self.error(vec![
                Problem::new(
                    "trailgate::suite::unprintable",
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
                    "trailgate::suite::too_deep",
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
        self.read::<IgnoredAny>()?;
        self.check_expansion()?;
        Ok(())
    }

    fn check(&self, raw: RawSuite, problems: &mut Vec<Problem>) -> Suite {
        if raw.tests.is_empty() {
            problems.push(
                self.located(
                    Problem::new(
                        "trailgate::suite::empty",
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
        for (index, raw_test) in raw.tests.read() {
            let name_path = join(&test_path(index), &[PathSeg::Key("name")]);
            if raw_test.name.is_empty() {
                problems.push(self.located(
                    Problem::new(
                        "trailgate::suite::invalid_value",
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
        let prices = self.check_prices(raw.prices, problems);
        for (index, test) in tests.iter_mut().enumerate() {
            let Some(budget) = &mut test.graders.budget else {
                continue;
            };
            if budget.max_cost.is_some() && prices.is_none() {
                let at = join(
                    &test_path(index),
                    &[
                        PathSeg::Key("graders"),
                        PathSeg::Index(budget.index),
                        PathSeg::Key("config"),
                        PathSeg::Key("max_cost"),
                    ],
                );
                problems.push(
                    self.located(
                        Problem::new(
                            "trailgate::suite::missing_key",
                            "`max_cost` needs the suite's `prices:`",
                            "no prices",
                        )
                        .with_help(
                            "price each model the runs use, per million tokens, at the top of the \
                         suite: `prices: { claude-sonnet-4-5: { input: 3, output: 15 } }` \
                         (docs/graders/budget.md#cost)",
                        ),
                        &at,
                    ),
                );
            }
            budget.prices = prices.clone().unwrap_or_default();
        }
        Suite { tests }
    }

    /// The suite's `prices:`, each an exact decimal of at least 0 with at most 12 digits
    /// after the point.
    fn check_prices(
        &self,
        raw: Option<BTreeMap<String, RawPrice>>,
        problems: &mut Vec<Problem>,
    ) -> Option<Prices> {
        let raw = raw?;
        let mut prices = BTreeMap::new();
        for (model, price) in raw {
            let mut amount = |key: &'static str, written: &WrittenNumber| {
                let text = &written.0;
                let (message, label, help) = match scaled(text, PRICE_DIGITS) {
                    Ok(units) => return Some(units),
                    Err(NotAnAmount::Negative) => (
                        format!("the `{key}` price of `{model}` is negative: {text}"),
                        "out of range",
                        "a price is an amount per million tokens: write a number of at least 0"
                            .to_owned(),
                    ),
                    Err(NotAnAmount::TooPrecise) => (
                        format!(
                            "the `{key}` price of `{model}` has more than {PRICE_DIGITS} digits \
                             after the point: {text}"
                        ),
                        "too precise",
                        format!("prices are exact to {PRICE_DIGITS} digits after the point"),
                    ),
                    Err(NotAnAmount::TooLarge) => (
                        format!("the `{key}` price of `{model}` is too large: {text}"),
                        "out of range",
                        "write a price per million tokens below 10^20".to_owned(),
                    ),
                };
                problems.push(self.located(
                    Problem::new("trailgate::suite::invalid_value", message, label).with_help(help),
                    &[
                        PathSeg::Key("prices"),
                        PathSeg::Key(model.as_str()),
                        PathSeg::Key(key),
                    ],
                ));
                None
            };
            let input = amount("input", &price.input);
            let output = amount("output", &price.output);
            let cached_input = price
                .cached_input
                .as_ref()
                .map(|written| amount("cached_input", written));
            // A cached price written wrong is a problem already; leave the model out.
            let cached_written_wrong = matches!(cached_input, Some(None));
            if let (Some(input), Some(output), false) = (input, output, cached_written_wrong) {
                let cached_input = cached_input.flatten();
                prices.insert(
                    model,
                    Price {
                        input,
                        output,
                        cached_input,
                    },
                );
            }
        }
        Some(Prices(prices))
    }

    fn check_test(&self, raw: RawTest, index: usize, problems: &mut Vec<Problem>) -> Test {
        let path = test_path(index);
        if raw.top_level.is_none() && raw.graders.as_ref().is_none_or(Items::is_empty) {
            problems.push(
                self.located(
                    Problem::new(
                        "trailgate::suite::missing_key",
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
            let known = trailgate_trace::format_names();
            let valid = known.contains(&format.as_str());
            if !valid {
                let names: Vec<String> = known.iter().map(|n| (*n).to_owned()).collect();
                problems.push(
                    self.located(
                        Problem::new(
                            "trailgate::suite::unknown_format",
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
        let naming = raw
            .naming
            .and_then(|naming| self.check_naming(naming, &path, problems));
        let top_level_written = raw.top_level.is_some();
        let top_level = raw.top_level.and_then(|block| {
            block.check(
                self,
                &join(&path, &[PathSeg::Key(TopLevelBlock::KEY)]),
                problems,
            )
        });
        let classes = TestClasses {
            written: top_level_written,
            set: top_level.as_ref().map(|grader| &grader.classes),
        };
        let mut graders = graders::config::check(
            self,
            raw.graders.unwrap_or_default(),
            &path,
            classes,
            problems,
        );
        let reliability = raw.reliability.and_then(|block| {
            block.check(
                self,
                &join(&path, &[PathSeg::Key("reliability")]),
                raw.runs.map(|r| r.0),
                problems,
            )
        });
        let traces = raw.traces.map(RawTraces::patterns);
        Test {
            name: raw.name,
            agent: raw.agent,
            runs: raw.runs.map(|r| r.0),
            traces,
            trace_format,
            naming,
            graders: {
                graders.set_top_level(top_level);
                graders
            },
            reliability,
            xfail: raw.xfail.map(|reason| reason.0),
            index,
        }
    }
}

/// `xfail:`: why the test is expected to fail, a string with more than blanks in it.
struct XfailReason(String);

impl<'de> Deserialize<'de> for XfailReason {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ReasonVisitor;
        impl Visitor<'_> for ReasonVisitor {
            type Value = XfailReason;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a reason, as a string")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<XfailReason, E> {
                if text.trim().is_empty() {
                    return Err(custom(
                        "trailgate::suite::invalid_value",
                        "`xfail` has an empty reason",
                        "no reason",
                        "say why the test is expected to fail, e.g. `xfail: \"the search API \
                         times out (#123)\"`; remove `xfail` when it should pass",
                    ));
                }
                Ok(XfailReason(text.to_owned()))
            }
        }
        // `any`, not `str`: the YAML reader hands `xfail: 3` to `visit_str` as text otherwise.
        deserializer.deserialize_any(ReasonVisitor)
    }
}

impl SuiteFile {
    /// The `naming:` of the test at `path`, built; `None` with a problem when it does not
    /// build. A `regex` scheme's pattern is the suite's one compiled regex for that text
    /// (`reading.rs`).
    fn check_naming(
        &self,
        naming: RawNaming,
        path: &[PathSeg<'_>],
        problems: &mut Vec<Problem>,
    ) -> Option<Naming> {
        let pattern = naming.pattern.as_deref();
        let shared = pattern
            .filter(|_| naming.scheme == "regex")
            .map(crate::reading::naming_regex);
        if let (Some(Err(RegexRefusal::SuiteTotal)), Some(pattern)) = (&shared, pattern) {
            let problem = crate::reading::regex_total_problem(pattern);
            let at = [PathSeg::Key("naming"), PathSeg::Key("pattern")];
            problems.push(self.located(problem, &join(path, &at)));
            return None;
        }
        let compile = |text: &str| match shared {
            Some(Ok(regex)) => Ok(regex),
            Some(Err(RegexRefusal::Invalid(error))) => Err(error),
            _ => trailgate_trace::compile_regex(text),
        };
        Naming::from_parts_with(&naming.scheme, naming.servers, pattern, compile)
            .map_err(|error| {
                let (problem, at) = naming_problem(&naming.scheme, &error);
                problems.push(self.located(problem, &join(path, at)));
            })
            .ok()
    }
}

impl RawTraces {
    /// The entries of `traces:`, each with its position in the list when it is one.
    fn patterns(self) -> Vec<TracePattern> {
        match self {
            Self::One(pattern) => vec![TracePattern {
                pattern,
                index: None,
            }],
            Self::Many(patterns) => patterns
                .into_iter()
                .enumerate()
                .map(|(i, pattern)| TracePattern {
                    pattern,
                    index: Some(i),
                })
                .collect(),
        }
    }
}

/// The path of the test at `index`.
fn test_path(index: usize) -> [PathSeg<'static>; 2] {
    [PathSeg::Key("tests"), PathSeg::Index(index)]
}

// ---------------------------------------------------------------------------------------
// The raw document, as serde reads it.

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawSuite {
    #[schemars(with = "Vec<RawTest>")]
    tests: Items<RawTest>,
    // Each model's price per million tokens, for `budget.max_cost`
    // (docs/graders/budget.md#cost).
    prices: Option<BTreeMap<String, RawPrice>>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawPrice {
    input: WrittenNumber,
    output: WrittenNumber,
    cached_input: Option<WrittenNumber>,
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
    // The block a test writes beside `graders:` (the registry says which kind's it is).
    #[serde(rename = "equal_function_sets")]
    top_level: Option<TopLevelBlock>,
    #[schemars(with = "Option<Vec<RawGrader>>")]
    graders: Option<Items<RawGrader>>,
    // An empty `reliability:` asks for the defaults: present, it is a block.
    #[serde(default, deserialize_with = "RawReliability::present")]
    reliability: Option<RawReliability>,
    #[schemars(with = "Option<String>")]
    xfail: Option<XfailReason>,
}

#[derive(Deserialize, JsonSchema)]
enum TestKind {
    #[serde(rename = "agent")]
    Agent,
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
                        "trailgate::suite::out_of_range",
                        "`runs` is 0",
                        "must be at least 1",
                        "`runs` is the number of recorded runs the test expects; omit it to take whatever is found",
                    ));
                }
                Ok(RunCount(value))
            }
            fn visit_u128<E: de::Error>(self, value: u128) -> Result<RunCount, E> {
                Err(runs_too_large(&value.to_string()))
            }
            /// A plain integer past 128 bits, which the YAML reader hands over as a string.
            fn visit_str<E: de::Error>(self, text: &str) -> Result<RunCount, E> {
                match plain_number(text) {
                    Some(number)
                        if !number.starts_with('-')
                            && Decimal::parse(&number).is_some_and(|n| n.is_integer()) =>
                    {
                        Err(runs_too_large(&number))
                    }
                    _ => Err(E::invalid_type(de::Unexpected::Str(text), &self)),
                }
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<RunCount, E> {
                u64::try_from(value)
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(value), &self))
                    .and_then(|v| self.visit_u64(v))
            }
            fn visit_i128<E: de::Error>(self, value: i128) -> Result<RunCount, E> {
                match u128::try_from(value) {
                    Ok(value) => self.visit_u128(value),
                    Err(_) => Err(E::invalid_value(
                        de::Unexpected::Other(&format!("integer `{value}`")),
                        &self,
                    )),
                }
            }
        }
        /// `runs` past what 64 bits hold.
        fn runs_too_large<E: de::Error>(value: &str) -> E {
            custom(
                "trailgate::suite::out_of_range",
                &format!(
                    "`runs` is {value}, more than trailgate can count (at most {})",
                    u64::MAX
                ),
                "too large",
                "`runs` is the number of recorded runs the test expects",
            )
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

/// The problem of a `naming:` that does not build, and the path under the test to place it.
fn naming_problem(scheme: &str, error: &NamingError) -> (Problem, &'static [PathSeg<'static>]) {
    if let NamingError::TooBig { .. } = error {
        let problem = Problem::new(
            "trailgate::suite::regex_too_big",
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
        "trailgate::suite::invalid_naming",
        error.to_string(),
        "invalid naming",
    )
    .with_help(help);
    (problem, &[PathSeg::Key("naming")])
}

// ---------------------------------------------------------------------------------------
// The JSON Schema of the suite, from the same types that read it. Types read by a visitor
// describe themselves by hand, each next to its visitor (here, and in the modules of the
// blocks and of the shared values).

/// The JSON Schema of the suite file, for editors (`trailgate schema`).
pub fn suite_schema() -> serde_json::Value {
    let mut schema = schemars::SchemaGenerator::default().into_root_schema_for::<RawSuite>();
    schema.insert("title".to_owned(), "trailgate suite".into());
    schema.insert(
        "description".to_owned(),
        "A trailgate suite: tests that score recorded agent tool calls and gate CI. \
         Reference: docs/suite.md"
            .into(),
    );
    let mut schema = schema.to_value();
    // An expectation's target is one of the registered graders' metrics, or the
    // reliability block's.
    let targets: Vec<&str> = graders::all_targets()
        .chain(crate::reliability::TARGETS.iter().copied())
        .map(Target::as_str)
        .collect();
    if let Some(expectation) = schema.pointer_mut("/$defs/Expectation")
        && let Some(object) = expectation.as_object_mut()
    {
        object.insert(
            "propertyNames".to_owned(),
            serde_json::json!({ "enum": targets }),
        );
    }
    schema
}

described!(RunCount, "RunCount", |_| json_schema!({
    "type": "integer", "minimum": 1,
    "description": "the number of runs the test must find"
}));
described!(RawTraces, "Traces", |_| json_schema!({
    "description": "paths or globs relative to the suite file's folder",
    "oneOf": [
        { "type": "string" },
        { "type": "array", "items": { "type": "string" } }
    ]
}));
described!(RawNaming, "Naming", |generator| {
    let object = generator.subschema_for::<RawNamingObject>();
    json_schema!({
        "description": "how tool names that carry their server are split (docs/formats.md)",
        "oneOf": [ { "type": "string", "enum": Naming::NAMES }, object ]
    })
});

/// The problems of `test` that its number of runs, `runs`, reveals: a `reliability` block's
/// `k` above them. Check them before [`TestEvaluator::finish`](crate::TestEvaluator::finish).
pub fn run_count_problems(test: &Test, runs: usize, file: &SuiteFile) -> Vec<Problem> {
    test.reliability
        .as_ref()
        .and_then(|block| block.run_count_problem(test.index, runs, file))
        .into_iter()
        .collect()
}
