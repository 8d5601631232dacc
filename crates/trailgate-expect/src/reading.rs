//! What one reading of a suite shares among the values it reads, and the limits on the whole
//! (docs/robustness.md#limits): each distinct regex is compiled once however often the suite
//! writes it, and all of them together hold at most [`MAX_SUITE_REGEX_BYTES`]; each distinct
//! `$schema` is compiled once, and its patterns are compiled once for the suite; and the
//! value matchers, counted once their YAML aliases are expanded, hold at most
//! [`MAX_MATCHER_NODES`] nodes, or one per byte of a larger suite.
//!
//! A YAML alias (`*name`) stands for a copy of its anchor without costing the text of one,
//! so a few kilobytes of suite could ask for hundreds of compiled regexes, or for tens of
//! thousands of matcher nodes that every value is then matched against. The values of a
//! suite read themselves with serde, one `Deserialize` each, which has no place for shared
//! state; so [`within`] opens a reading on the thread for the whole of
//! [`SuiteFile::parse`](crate::SuiteFile::parse), which the readers of regexes and matchers
//! reach, as `suite_file/recover.rs` does for the items a reading skips. Outside a reading
//! (a fragment read by a unit test) each regex is compiled on its own and nothing is
//! counted.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

use regex::Regex;
use regex_automata::meta;
use serde::de;
use trailgate_trace::{MAX_REGEX_BYTES, compile_meta_regex, compile_regex};

use crate::error::{Problem, custom};

/// The most memory the distinct regexes of a suite may hold together once compiled:
/// 128 MiB, as the `regex` crate counts the memory of a compiled regex (its
/// `memory_usage`: the programs it searches with, forward and reverse, and their tables).
///
/// Each distinct pattern is compiled once, whatever number of times it is written or
/// aliased, so repeats cost nothing (300 aliases of `{$regex: '\w{64}'}` held 1.2 GB when
/// each compiled its own); but each compiled pattern may hold up to [`MAX_REGEX_BYTES`] of
/// program and more around it, and distinct patterns such as `\w{64}a`, `\w{64}b` hold
/// 3.6 MB each: the limit holds 37 of them. A tool-name pattern holds kilobytes
/// (`^mcp__\w+__\w+$`, with its Unicode classes, 114 KB): a suite of a thousand distinct
/// ones stays within the limit.
pub const MAX_SUITE_REGEX_BYTES: usize = 128 << 20;

/// A `$schema`, as written and compiled: one for every place of the suite that writes the
/// same schema ([`schema`]).
pub(crate) struct CompiledSchema {
    pub(crate) written: serde_json::Value,
    pub(crate) validator: jsonschema::Validator,
    /// The nodes of `written`, each counted as a matcher node ([`MAX_MATCHER_NODES`]).
    pub(crate) nodes: usize,
}

impl fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.written, f)
    }
}

/// The most value-matcher nodes a suite may hold once its YAML aliases are expanded: 4,096,
/// or one per byte of a larger suite file. A suite holds fewer matcher nodes than YAML
/// nodes, and no more YAML nodes than bytes without aliases
/// (`no_document_without_aliases_has_more_nodes_than_bytes`), so only aliases can pass the
/// limit.
///
/// A matcher is matched against a value node by node, so the work of one match is at most
/// its nodes times the value's size: 40,000 aliased `$contains` in one `$any_of`, from
/// 2 KB of suite, took 20 s against one array of 10,000 strings. Counted: each operator
/// (`{$gte: 1}`), each array or object with an operator inside, each part of those that is a
/// plain value (compared in one pass over the value it meets, so it counts one however large
/// it is), and each node of a `$schema`. A suite without operators counts none.
pub const MAX_MATCHER_NODES: usize = 4_096;

/// The limits of one reading.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// The memory of the suite's distinct regexes: [`MAX_SUITE_REGEX_BYTES`].
    pub(crate) regex_bytes: usize,
    /// The matcher nodes: [`MAX_MATCHER_NODES`], or one per byte of a larger suite.
    pub(crate) matcher_nodes: usize,
}

impl Limits {
    /// The limits of a suite of `bytes` bytes.
    pub(crate) fn of_suite(bytes: usize) -> Self {
        Self {
            regex_bytes: MAX_SUITE_REGEX_BYTES,
            matcher_nodes: MAX_MATCHER_NODES.max(bytes),
        }
    }
}

thread_local! {
    /// The reading under way on this thread, if any ([`within`]).
    static READING: RefCell<Option<Reading>> = const { RefCell::new(None) };
}

struct Reading {
    limits: Limits,
    /// Every searching regex compiled so far, by its pattern.
    regexes: BTreeMap<String, Arc<meta::Regex>>,
    /// Every `naming` regex compiled so far, by its pattern: a `Regex`, for its groups; a
    /// clone shares the compiled program.
    naming: BTreeMap<String, Regex>,
    /// The `$schema` patterns checked so far, as the `regex` crate reads them; the
    /// `jsonschema` crate compiles its own copy, once for the suite (`pattern_cache`).
    schema_patterns: BTreeSet<String>,
    /// The memory all of them hold.
    regex_bytes: usize,
    /// The `jsonschema` crate's compiled patterns, shared by every `$schema` of the suite.
    pattern_cache: jsonschema::PatternCache,
    /// Every `$schema` compiled so far, by its JSON text.
    schemas: BTreeMap<String, Arc<CompiledSchema>>,
    /// The matcher nodes counted by the current reading of the document ([`read_again`]).
    matcher_nodes: usize,
    /// Whether a reading passed the matcher limit: the suite is refused for it, and the
    /// readings that read on past that error (for the suite's other problems) count no
    /// more, so that the limit is reported once.
    matcher_limit_met: bool,
}

/// Runs `read` with a reading of a suite open on this thread, within `limits`, and closes it
/// however `read` ends; inside a reading already open (a test that looks at its totals),
/// `read` shares it.
pub(crate) fn within<T>(limits: Limits, read: impl FnOnce() -> T) -> T {
    /// Ends the reading it opened.
    struct Close;
    impl Drop for Close {
        fn drop(&mut self) {
            READING.with_borrow_mut(|reading| *reading = None);
        }
    }
    let opened = READING.with_borrow_mut(|reading| {
        if reading.is_some() {
            return false;
        }
        *reading = Some(Reading {
            limits,
            regexes: BTreeMap::new(),
            naming: BTreeMap::new(),
            schema_patterns: BTreeSet::new(),
            regex_bytes: 0,
            pattern_cache: jsonschema::PatternCache::new(),
            schemas: BTreeMap::new(),
            matcher_nodes: 0,
            matcher_limit_met: false,
        });
        true
    });
    // Made only when opened: a `Close` dropped unused would end the reading at once.
    let _close = if opened { Some(Close) } else { None };
    read()
}

/// Starts one more reading of the document (`suite_file/recover.rs` reads on past an error by
/// reading again): the matchers it builds are counted anew.
pub(crate) fn read_again() {
    READING.with_borrow_mut(|reading| {
        if let Some(reading) = reading {
            reading.matcher_nodes = 0;
        }
    });
}

/// Counts `nodes` more value-matcher nodes in the open reading.
pub(crate) fn count_matcher_nodes(nodes: usize) {
    READING.with_borrow_mut(|reading| {
        if let Some(reading) = reading {
            reading.matcher_nodes = reading.matcher_nodes.saturating_add(nodes);
        }
    });
}

/// The limit on matcher nodes when the open reading has counted past it, the first time it
/// is asked after that; `None` otherwise.
pub(crate) fn matcher_limit_passed() -> Option<usize> {
    READING.with_borrow_mut(|reading| {
        let reading = reading.as_mut()?;
        if reading.matcher_limit_met || reading.matcher_nodes <= reading.limits.matcher_nodes {
            return None;
        }
        reading.matcher_limit_met = true;
        Some(reading.limits.matcher_nodes)
    })
}

/// The matcher nodes the open reading has counted: for the tests of the limit.
#[cfg(test)]
pub(crate) fn matcher_nodes() -> usize {
    READING.with_borrow(|reading| reading.as_ref().map_or(0, |reading| reading.matcher_nodes))
}

/// Why a regex of the suite is refused.
#[derive(Debug)]
pub(crate) enum RegexRefusal {
    /// It does not compile, or compiles past [`MAX_REGEX_BYTES`].
    Invalid(regex::Error),
    /// It would take the suite's distinct regexes past [`MAX_SUITE_REGEX_BYTES`].
    SuiteTotal,
}

/// `pattern`, compiled as every regex of a suite is ([`compile_meta_regex`]): the reading's
/// one compiled regex for it when it was compiled before, and counted in the suite's total
/// when it is new.
pub(crate) fn regex(pattern: &str) -> Result<Arc<meta::Regex>, RegexRefusal> {
    READING.with_borrow_mut(|reading| {
        let Some(reading) = reading else {
            return compile_meta_regex(pattern)
                .map(Arc::new)
                .map_err(RegexRefusal::Invalid);
        };
        if let Some(regex) = reading.regexes.get(pattern) {
            return Ok(Arc::clone(regex));
        }
        let regex = compile_meta_regex(pattern).map_err(RegexRefusal::Invalid)?;
        reading.charge(regex.memory_usage())?;
        let regex = Arc::new(regex);
        reading
            .regexes
            .insert(pattern.to_owned(), Arc::clone(&regex));
        Ok(regex)
    })
}

/// The pattern of a `regex` naming scheme, as [`regex`] gives a searching one. It is kept as
/// a `Regex` for its named groups; `Regex` does not tell its size, so a new pattern is
/// measured by compiling it a second time as a searching regex, which is dropped.
pub(crate) fn naming_regex(pattern: &str) -> Result<Regex, RegexRefusal> {
    READING.with_borrow_mut(|reading| {
        let Some(reading) = reading else {
            return compile_regex(pattern).map_err(RegexRefusal::Invalid);
        };
        if let Some(regex) = reading.naming.get(pattern) {
            return Ok(regex.clone());
        }
        let regex = compile_regex(pattern).map_err(RegexRefusal::Invalid)?;
        let measured = compile_meta_regex(pattern).map_err(RegexRefusal::Invalid)?;
        reading.charge(measured.memory_usage())?;
        reading.naming.insert(pattern.to_owned(), regex.clone());
        Ok(regex)
    })
}

/// Checks a `$schema` pattern, translated to the `regex` crate's dialect, as [`regex`]
/// compiles a pattern, and counts it in the suite's total when it is new. The compiled
/// regex is not kept: the `jsonschema` crate compiles its own, once for the suite
/// ([`schema_pattern_cache`]).
pub(crate) fn schema_pattern(translated: &str) -> Result<(), RegexRefusal> {
    READING.with_borrow_mut(|reading| {
        if let Some(reading) = reading
            && reading.schema_patterns.contains(translated)
        {
            return Ok(());
        }
        let measured = compile_meta_regex(translated).map_err(RegexRefusal::Invalid)?;
        if let Some(reading) = reading {
            reading.charge(measured.memory_usage())?;
            reading.schema_patterns.insert(translated.to_owned());
        }
        Ok(())
    })
}

/// The cache of compiled patterns every `$schema` of the suite shares; a new one outside a
/// reading.
pub(crate) fn schema_pattern_cache() -> jsonschema::PatternCache {
    READING.with_borrow(|reading| {
        reading
            .as_ref()
            .map_or_else(jsonschema::PatternCache::new, |reading| {
                reading.pattern_cache.clone()
            })
    })
}

/// The `$schema` written as `written`, compiled by `compile`: the reading's one compiled
/// schema for that JSON text when it was compiled before.
pub(crate) fn schema<E>(
    written: serde_json::Value,
    compile: impl FnOnce(serde_json::Value) -> Result<Arc<CompiledSchema>, E>,
) -> Result<Arc<CompiledSchema>, E> {
    let text = written.to_string();
    let known = READING.with_borrow(|reading| {
        reading
            .as_ref()
            .and_then(|reading| reading.schemas.get(&text).cloned())
    });
    if let Some(schema) = known {
        return Ok(schema);
    }
    // Compiled outside the borrow: the compiler asks for the pattern cache.
    let schema = compile(written)?;
    READING.with_borrow_mut(|reading| {
        if let Some(reading) = reading {
            reading.schemas.insert(text, Arc::clone(&schema));
        }
    });
    Ok(schema)
}

impl Reading {
    /// Adds `bytes` of compiled regex to the suite's total.
    fn charge(&mut self, bytes: usize) -> Result<(), RegexRefusal> {
        let total = self.regex_bytes.saturating_add(bytes);
        if total > self.limits.regex_bytes {
            return Err(RegexRefusal::SuiteTotal);
        }
        self.regex_bytes = total;
        Ok(())
    }
}

/// How many distinct regexes the open reading holds, and the memory they hold: for the
/// tests of the limit.
#[cfg(test)]
pub(crate) fn regex_totals() -> (usize, usize) {
    READING.with_borrow(|reading| {
        reading.as_ref().map_or((0, 0), |reading| {
            (
                reading.regexes.len() + reading.naming.len() + reading.schema_patterns.len(),
                reading.regex_bytes,
            )
        })
    })
}

/// How many `$schema`s the open reading compiled: for the tests of the limit.
#[cfg(test)]
pub(crate) fn compiled_schemas() -> usize {
    READING.with_borrow(|reading| reading.as_ref().map_or(0, |reading| reading.schemas.len()))
}

/// The problem of `pattern`, a regex past the suite's total.
pub(crate) fn regex_total_problem(pattern: &str) -> Problem {
    // Quoted as the other regex problems quote a pattern: whole when short.
    const SHOWN: usize = 40;
    let shown = match pattern.char_indices().nth(SHOWN) {
        Some((end, _)) => format!("`{}...` ({} bytes)", &pattern[..end], pattern.len()),
        None => format!("`{pattern}`"),
    };
    Problem::new(
        "trailgate::suite::regexes_too_big",
        format!(
            "regex {shown} takes the suite's distinct regexes past {} MiB of compiled memory",
            MAX_SUITE_REGEX_BYTES >> 20
        ),
        "passes the suite's total",
    )
    .with_help(format!(
        "each distinct pattern is compiled once, however often it is written; a large \
         repetition of a Unicode class (`\\w{{64}}`) compiles to megabytes: use `+` or `*`, an \
         ASCII class such as `[a-z0-9_]`, or fewer distinct patterns (the limit is {} MiB \
         for one regex's program, {} MiB for all of the suite's)",
        MAX_REGEX_BYTES >> 20,
        MAX_SUITE_REGEX_BYTES >> 20
    ))
}

/// [`regex_total_problem`] raised while deserializing, at the pattern's node.
pub(crate) fn total_problem<E: de::Error>(pattern: &str) -> E {
    let problem = regex_total_problem(pattern);
    custom(
        problem.code,
        &problem.message,
        &problem.label,
        problem.help.as_deref().unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests;
