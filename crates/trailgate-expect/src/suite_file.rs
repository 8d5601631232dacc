//! A suite file's text and the machinery every part of the suite's reading shares: finding a
//! node by its path ([`PathSeg`], [`SuiteFile::span`]), placing problems, and turning the
//! YAML reader's errors into problems. This is the one file that knows the YAML parser; the
//! suite's parts read themselves with serde alone.
//!
//! Shape errors (unknown keys, wrong types, values out of range) are raised while
//! deserializing, so the parser attaches the position of the offending node. Rules that
//! span several nodes (unique names, targets valid for their block, non-empty lists) are
//! checked afterwards, all at once; each problem, and each gate's line, is then placed by
//! the path of its node, looked up in a table of positions that one walk of the document
//! fills for every node of the same shape (see [`SuiteFile::span`]).

mod decode;
mod floats;
mod locate;
mod node_budget;
mod recover;
mod shapes;
mod written_numbers;

use std::cell::{Cell, OnceCell, RefCell};
use std::sync::Arc;

use miette::{NamedSource, SourceSpan};
use serde::de::{DeserializeOwned, DeserializeSeed};

use crate::error::{CUSTOM, Problem, SuiteError, SuiteSource, suggest};
use crate::gate::Op;

use self::decode::{
    backticked, decode_custom, first_alias, libyaml_context, parse_expected, split_path,
    token_span, yaml_path,
};
use self::locate::{LOCATED, Locate};
use self::node_budget::{EXPANSION, NodeBudget};
pub(crate) use self::recover::Items;
use self::shapes::{Found, Positions, shape_of, walk_shape};
pub(crate) use self::written_numbers::{AmbiguousFloat, float_as_written, plain_number};

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
const MAX_PROBLEMS: usize = 50;

/// The keys of a grader's `config:`, `expect` last, from the name of its kind; `None` for a
/// name that is no kind.
pub(crate) type KindKeys = fn(&str) -> Option<&'static [&'static str]>;

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

    /// Starts a new reading of the file: no problem placed yet (see [`SuiteFile::located`]).
    pub(crate) fn start(&self) {
        self.placed.set(0);
    }

    /// Reads the whole text as one `T`; a mistake is an error holding the one problem the
    /// reader met, placed where it met it.
    pub(crate) fn read<T: DeserializeOwned>(&self) -> Result<T, SuiteError> {
        written_numbers::reading(&self.source, || serde_yaml::from_str(self.text()))
            .map_err(|error| self.error(vec![self.yaml_problem(&error, None)]))
    }

    /// Reads the whole text as one `T`, reading on past each shape error in an item of an
    /// [`Items`] list (see `suite_file/recover.rs`): the value, unless an error fell outside
    /// every item, and a problem for each error met, in the order met. `kind_keys` gives the
    /// keys of a grader's `config:` from the kind its `type:` names, for the help of an
    /// unknown key.
    pub(crate) fn read_on<T: DeserializeOwned>(
        &self,
        kind_keys: KindKeys,
    ) -> (Option<T>, Vec<Problem>) {
        let (value, errors) = written_numbers::reading(&self.source, || {
            recover::recovering(MAX_PROBLEMS, || {
                crate::reading::read_again();
                serde_yaml::from_str(self.text())
            })
        });
        let problems = errors
            .iter()
            .map(|error| self.yaml_problem(error, Some(kind_keys)))
            .collect();
        (value, problems)
    }

    /// Refuses a document whose aliases expand it past [`MAX_YAML_NODES`] nodes, before
    /// anything is built from it. Each alias (`*name`) stands for a copy of its anchor, so
    /// a few lines of aliases of aliases can stand for billions of nodes ("billion laughs"),
    /// and a list of aliases of a long list for its square. Counting the nodes as the
    /// reader expands them stops at the limit, in time and memory bounded by it.
    pub(crate) fn check_expansion(&self) -> Result<(), SuiteError> {
        let limit = node_budget(self.text().len());
        if expands_past(self.text(), limit) {
            // The reader cannot say which alias it was expanding; the first one is where
            // the reader can start looking.
            let span = first_alias(self.text());
            Err(self.error(vec![
                Problem::new(
                    "trailgate::suite::alias_expansion",
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
        let found = self.positions.borrow_mut().find(shape, &indices, |shape| {
            walk_shape(serde_yaml::Deserializer::from_str(text), text, shape)
        });
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
                    trailgate_trace::LineSource::new(self.text().to_owned(), 1),
                )
                .with_language("yaml"),
            )
        });
        SuiteError::new(shown, problems)
    }

    fn yaml_problem(&self, error: &serde_yaml::Error, kind_keys: Option<KindKeys>) -> Problem {
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
            self.unknown_field_problem(&field, valid, path, &context, kind_keys)
        } else if let Some((value, valid)) = parse_expected(message, "unknown variant `") {
            Problem::new(
                "trailgate::suite::invalid_value",
                format!("unknown value `{value}`{context}"),
                "unknown value",
            )
            .with_help(suggest(&value, &valid, "valid values"))
        } else if let Some(field) = backticked(message, "missing field `") {
            Problem::new(
                "trailgate::suite::missing_key",
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
                "trailgate::suite::duplicate_key",
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
                "trailgate::suite::invalid_value",
                format!("invalid value{at}: expected {expected}, found {found}"),
                format!("expected {expected}"),
            )
        } else {
            let problem = Problem::new(
                "trailgate::suite::syntax",
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

    /// The problem of an unknown key `field` in the map at `path`, whose keys are `valid`:
    /// an unknown operator when they are operators.
    fn unknown_field_problem(
        &self,
        field: &str,
        valid: Vec<String>,
        path: Option<&str>,
        context: &str,
        kind_keys: Option<KindKeys>,
    ) -> Problem {
        if !valid.is_empty()
            && valid
                .iter()
                .all(|v| Op::ALL.iter().any(|op| op.as_str() == v))
        {
            Problem::new(
                "trailgate::suite::unknown_operator",
                format!("unknown operator `{field}`"),
                "unknown operator",
            )
            .with_help(suggest(field, &valid, "operators"))
        } else {
            // A grader's `config:` read before its `type:` took every kind's keys; the
            // help names the keys of the kind its `type:` gives.
            let valid = path
                .zip(kind_keys)
                .and_then(|(path, kind_keys)| self.grader_keys_at(&yaml_path(path), kind_keys))
                .map_or(valid, |keys| keys.iter().map(|&k| k.to_owned()).collect());
            Problem::new(
                "trailgate::suite::unknown_key",
                format!("unknown key `{field}`{context}"),
                "unknown key",
            )
            .with_help(suggest(field, &valid, "valid keys here"))
        }
    }

    /// The keys of the grader whose `config:` is at `path`, as its `type:` names the kind;
    /// `None` when `path` is not a grader's config or its `type:` names no kind.
    fn grader_keys_at(
        &self,
        path: &[PathSeg<'_>],
        kind_keys: KindKeys,
    ) -> Option<&'static [&'static str]> {
        let [
            ..,
            PathSeg::Key("graders"),
            PathSeg::Index(_),
            PathSeg::Key("config"),
        ] = path
        else {
            return None;
        };
        let mut type_path = path.to_vec();
        type_path.pop();
        type_path.push(PathSeg::Key("type"));
        let span = self.span(&type_path)?;
        let written = self
            .text()
            .get(span.offset()..span.offset() + span.len())?
            .trim_matches(['"', '\'']);
        kind_keys(written)
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
            "trailgate::suite::syntax",
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
    pub(crate) fn located(&self, problem: Problem, path: &[PathSeg<'_>]) -> Problem {
        if !self.placing() {
            return problem;
        }
        self.placed.set(self.placed.get() + 1);
        let span = self.span(path);
        problem.at(span)
    }

    /// The line of a gate, for the reports; none once the suite has a problem, since a
    /// suite with problems is not scored.
    pub(crate) fn gate_line(&self, path: &[PathSeg<'_>], problems: &[Problem]) -> Option<usize> {
        if !problems.is_empty() {
            return None;
        }
        self.span(path).map(|span| self.line_of(span))
    }

    /// Whether problems are still placed in the file (see [`SuiteFile::located`]).
    pub(crate) fn placing(&self) -> bool {
        self.placed.get() < MAX_PROBLEMS
    }

    /// A problem for a name used a second time at `path`, whose first use is at `first`.
    pub(crate) fn duplicate(
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
                "trailgate::suite::duplicate_name",
                format!("{what} name `{name}` is used twice"),
                "used again here",
            )
            .with_help(help),
            path,
        )
    }
}

/// The first [`MAX_PROBLEMS`] problems in file order (those placed come first), and one
/// more that counts the others.
pub(crate) fn at_most(mut problems: Vec<Problem>) -> Vec<Problem> {
    if problems.len() <= MAX_PROBLEMS {
        return problems;
    }
    problems.sort_by_key(|p| p.span.map_or(usize::MAX, |s| s.offset()));
    let more = problems.len() - MAX_PROBLEMS;
    problems.truncate(MAX_PROBLEMS);
    problems.push(
        Problem::new(
            "trailgate::suite::more_problems",
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

/// `base` followed by `more`.
pub(crate) fn join<'a>(base: &[PathSeg<'a>], more: &[PathSeg<'a>]) -> Vec<PathSeg<'a>> {
    base.iter().chain(more).copied().collect()
}

/// The largest suite file, in bytes: 16 MiB, a thousand times a large hand-written suite.
/// The caller reads the file; it refuses a larger one before reading it whole
/// (`trailgate::suite::too_large`).
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

/// Reads `text` as one `T`, a mistake as the problem the suite's reading reports, placed:
/// for the unit tests of types read inside a suite.
#[cfg(test)]
pub(crate) fn read_fragment<T: DeserializeOwned>(text: &str) -> Result<T, Problem> {
    let file = SuiteFile::new("fragment.yaml", text.to_owned());
    written_numbers::reading(&file.source, || serde_yaml::from_str(file.text()))
        .map_err(|error| file.yaml_problem(&error, None))
}
