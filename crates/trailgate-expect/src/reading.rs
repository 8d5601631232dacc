//! What one reading of a suite shares among the values it reads, and the limits on the whole
//! (docs/robustness.md#limits): each distinct regex is compiled once however often the suite
//! writes it, and all of them together hold at most [`MAX_SUITE_REGEX_BYTES`]; each distinct
//! `$schema` is compiled once, and its patterns are compiled once for the suite.
//!
//! A YAML alias (`*name`) stands for a copy of its anchor without costing the text of one,
//! so a few kilobytes of suite could ask for hundreds of compiled regexes. The values of a
//! suite read themselves with serde, one `Deserialize` each, which has no place for shared
//! state; so [`within`] opens a reading on the thread for the whole of
//! [`SuiteFile::parse`](crate::SuiteFile::parse), which the readers of regexes reach, as
//! `suite_file/recover.rs` does for the items a reading skips. Outside a reading (a
//! fragment read by a unit test) each regex is compiled on its own and nothing is counted.

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
/// aliased, so repeats cost nothing; but each compiled pattern may hold up to
/// [`MAX_REGEX_BYTES`] of program and more around it, and distinct patterns such as
/// `\w{64}a`, `\w{64}b` hold 3.6 MB each: 300 of them took 1.3 GB, from a 7 KB suite. A
/// tool-name pattern holds kilobytes (`^mcp__\w+__\w+$`, with its Unicode classes, 114 KB):
/// a suite of a thousand distinct ones stays within the limit.
pub const MAX_SUITE_REGEX_BYTES: usize = 128 << 20;

/// A `$schema`, as written and compiled: one for every place of the suite that writes the
/// same schema ([`schema`]).
pub(crate) struct CompiledSchema {
    pub(crate) written: serde_json::Value,
    pub(crate) validator: jsonschema::Validator,
}

impl fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.written, f)
    }
}

thread_local! {
    /// The reading under way on this thread, if any ([`within`]).
    static READING: RefCell<Option<Reading>> = const { RefCell::new(None) };
}

struct Reading {
    /// [`MAX_SUITE_REGEX_BYTES`], or a smaller limit for a test.
    regex_limit: usize,
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
}

/// Runs `read` with a reading of a suite open on this thread, and closes it however `read`
/// ends; inside a reading already open (a test that looks at its totals), `read` shares it.
pub(crate) fn within<T>(read: impl FnOnce() -> T) -> T {
    within_limit(MAX_SUITE_REGEX_BYTES, read)
}

/// [`within`], with `regex_limit` for the suite's regexes.
pub(crate) fn within_limit<T>(regex_limit: usize, read: impl FnOnce() -> T) -> T {
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
            regex_limit,
            regexes: BTreeMap::new(),
            naming: BTreeMap::new(),
            schema_patterns: BTreeSet::new(),
            regex_bytes: 0,
            pattern_cache: jsonschema::PatternCache::new(),
            schemas: BTreeMap::new(),
        });
        true
    });
    // Made only when opened: a `Close` dropped unused would end the reading at once.
    let _close = if opened { Some(Close) } else { None };
    read()
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
        if total > self.regex_limit {
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
