//! Flow edges (`feeds`/`into`/`arg`) in time linear in the run: each result is read once,
//! whatever the number of calls that may have taken a value from it.
//!
//! A value of an `into` call's argument was produced by an earlier `feeds` call when it
//! equals a value inside that call's result (JSON equality, at any depth), or when it is a
//! string of at least 4 characters found in the result's text. Asked call by call, that is
//! every `into` call against every earlier `feeds` call. Instead, the values asked about
//! are gathered first; then each `feeds` result is read once, its values looked up by their
//! equality key and its text searched for every string at once (Aho-Corasick), noting the
//! first call that produced each; an `into` call holds when that call came before it.
//! Only the first producer of each string matters, so a search never lists its hits: it
//! notes the strings that end at each state of the automaton the first time the run enters
//! it, and a text that holds one string a million times, or strings inside strings at every
//! byte, costs its length and no more (docs/graders/dependencies.md#config).
//! When every value asked about is a string that a result holding it holds in its text too
//! (4 characters or more, none that JSON escapes), results are only searched: a result
//! read as compact text is searched as it stands, without being parsed.

use aho_corasick::Anchored;
use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::nfa::contiguous::NFA;
use serde_json::Value;
use trailgate_trace::{Call, ValueRef};

use super::{EdgeFailure, EdgeVerdict, called};
use crate::matchers::shown;
use crate::step_matcher::StepMatcher;
use crate::work;

/// While a run has read at most this many results, or has at most this many texts left to
/// find, its texts are searched one by one, without an automaton.
const SEARCHED_ONE_BY_ONE: usize = 4;

/// The most bytes a result's search one text at a time may read (the texts left to find
/// times the result's length): past it, the automaton is built, which reads the result
/// once. Searching each text on its own is quicker for a few short texts and results, but
/// thousands of texts against a long result would read it thousands of times.
const ONE_BY_ONE_BYTES: usize = 1 << 20;

/// Strings shorter than this (in characters) are produced only by an equal value.
const MIN_FOUND_CHARS: usize = 4;

/// Keyed by trace text, so hashed with a randomly seeded hash; only looked up, never listed.
#[allow(clippy::disallowed_types)]
type Map<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// The automaton's states whose strings are noted; only looked up, never listed.
#[allow(clippy::disallowed_types)]
type Set<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;

/// The value an `into` call passes, as looked for.
struct Wanted<'c> {
    /// The call.
    call: usize,
    /// Its argument's value, with its number among the values asked about and, for a
    /// string of at least [`MIN_FOUND_CHARS`], its number among the texts; `None` when the
    /// call has no such argument.
    value: Option<(ValueRef<'c>, usize, Option<usize>)>,
}

/// How the flow edge `feeds` → `into`'s `arg` fares over `calls`.
pub(super) fn verdict(
    feeds: &StepMatcher,
    into: &StepMatcher,
    arg: &str,
    calls: &[Call],
) -> EdgeVerdict {
    let mut asked = Asked::default();
    let mut wanted = Vec::new();
    for (index, call) in calls.iter().enumerate() {
        if !into.matches(call) {
            continue;
        }
        let value = call.args_view().get(arg).map(|value| {
            let (key, text) = asked.value(value);
            (value, key, text)
        });
        wanted.push(Wanted { call: index, value });
    }
    if wanted.is_empty() {
        return EdgeVerdict::Vacuous;
    }
    let producers: Vec<usize> = (0..calls.len())
        .filter(|&c| feeds.matches(&calls[c]))
        .collect();
    let mut found = Found::new(&asked);
    // The results read so far: those of the producers before the `into` call at hand, so
    // that a run whose first `into` call fails reads no result after it.
    let mut read = 0;
    for Wanted { call, value } in wanted {
        while let Some(&c) = producers.get(read).filter(|&&c| c < call) {
            found.read(&asked, c, &calls[c]);
            read += 1;
        }
        let held = value.as_ref().is_some_and(|(_, key, text)| {
            found.by_key[*key] < call || text.is_some_and(|text| found.by_text[text] < call)
        });
        if !held {
            return EdgeVerdict::Failed(EdgeFailure {
                call: Some(called(calls, call)),
                other: read
                    .checked_sub(1)
                    .map(|last| called(calls, producers[last])),
                value: value.map(|(value, _, _)| shown(value)),
                flow: true,
            });
        }
    }
    EdgeVerdict::Held
}

/// The values the `into` calls pass, each distinct one numbered once: strings by their
/// text, other values by their equality key; and the strings long enough to be found in a
/// result's text.
#[derive(Default)]
struct Asked {
    strings: Map<String, usize>,
    others: Map<String, usize>,
    /// Whether an array or an object is asked about: only then are the keys of a result's
    /// arrays and objects worth writing.
    containers: bool,
    /// How many values are numbered.
    values: usize,
    texts: Map<String, usize>,
    /// Whether some value asked about can be produced only by an equal value in a result:
    /// one that is not a string, or a string shorter than [`MIN_FOUND_CHARS`] or with a
    /// character that JSON escapes. When none is, a result holding a value equal to one
    /// asked about holds it in its text too, and the results' texts are only searched.
    by_value_only: bool,
}

impl Asked {
    /// The number of `value`, and of its text when it may be found in a result's text.
    fn value(&mut self, value: ValueRef<'_>) -> (usize, Option<usize>) {
        if let Some(string) = value.as_str() {
            let key = number(&mut self.strings, &mut self.values, string.as_ref());
            let text = (string.chars().count() >= MIN_FOUND_CHARS).then(|| {
                let mut next = self.texts.len();
                number(&mut self.texts, &mut next, string.as_ref())
            });
            // JSON writes a string without such a character as it is.
            self.by_value_only |= text.is_none()
                || string
                    .bytes()
                    .any(|byte| byte < 0x20 || byte == b'"' || byte == b'\\');
            return (key, text);
        }
        self.by_value_only = true;
        let key = value.equality_key();
        self.containers |= key.starts_with(['[', '{']);
        (
            number(&mut self.others, &mut self.values, key.as_ref()),
            None,
        )
    }
}

/// The number of `item` in `map`, numbering it `next` (and counting it) when it is new.
fn number(map: &mut Map<String, usize>, next: &mut usize, item: &str) -> usize {
    if let Some(&known) = map.get(item) {
        return known;
    }
    map.insert(item.to_owned(), *next);
    *next += 1;
    *next - 1
}

/// How a result's text is searched: see [`Found::search`].
enum Searcher {
    /// Each text on its own, until this many results were read.
    OneByOne { reads: usize },
    /// All at once, by an automaton; and the match states it entered already, whose
    /// strings are noted.
    AtOnce(Box<NFA>, Set<StateID>),
    /// Each text on its own: the automaton could not be built.
    Never,
}

/// For each value and each text asked about, the first producer whose result holds it
/// (`usize::MAX` until one does), from the results read so far, in call order.
struct Found {
    by_key: Vec<usize>,
    by_text: Vec<usize>,
    /// The texts, by number, and an automaton that finds them all in one pass.
    patterns: Vec<String>,
    searcher: Searcher,
    /// How many texts no result read so far holds.
    unfound: usize,
}

impl Found {
    fn new(asked: &Asked) -> Self {
        let mut patterns = vec![String::new(); asked.texts.len()];
        for (text, &index) in &asked.texts {
            patterns[index].clone_from(text);
        }
        Self {
            by_key: vec![usize::MAX; asked.values],
            by_text: vec![usize::MAX; patterns.len()],
            unfound: patterns.len(),
            patterns,
            searcher: Searcher::OneByOne { reads: 0 },
        }
    }

    /// Whether the next result, of `length` bytes, is searched one text at a time: for the
    /// first few results, or while few texts are left, and while that reads the result
    /// few enough times; otherwise all at once, by an automaton built for the run (once).
    /// Most runs decide an edge within a few results, and build none; a run that reads
    /// many results with many texts builds one, and stays linear in its length.
    fn one_by_one(&mut self, length: usize) -> bool {
        let Searcher::OneByOne { reads } = &mut self.searcher else {
            return matches!(self.searcher, Searcher::Never);
        };
        *reads += 1;
        if (*reads <= SEARCHED_ONE_BY_ONE || self.unfound <= SEARCHED_ONE_BY_ONE)
            && self.unfound.saturating_mul(length) <= ONE_BY_ONE_BYTES
        {
            return true;
        }
        self.searcher = match NFA::new(&self.patterns) {
            Ok(automaton) => Searcher::AtOnce(Box::new(automaton), Set::default()),
            // Too many texts for one automaton: each searched on its own.
            Err(_) => Searcher::Never,
        };
        matches!(self.searcher, Searcher::Never)
    }

    /// Reads the result of producer `c`, the next in call order.
    fn read(&mut self, asked: &Asked, c: usize, call: &Call) {
        if !asked.by_value_only {
            // Every value asked about is found in the text of any result that holds an
            // equal value: the result is searched, and read (or parsed) only if its text
            // is not the canonical JSON that is searched.
            if self.unfound > 0
                && let Some(result) = call.result_view()
            {
                self.search(c, &result.match_text());
            }
            return;
        }
        let Some(result) = call.result() else {
            return;
        };
        let mut note = |index: usize| {
            if self.by_key[index] == usize::MAX {
                self.by_key[index] = c;
            }
        };
        let mut stack = vec![result];
        while let Some(inside) = stack.pop() {
            let key = match inside {
                Value::String(string) => {
                    if let Some(&index) = asked.strings.get(string.as_str()) {
                        note(index);
                    }
                    continue;
                }
                Value::Array(items) => {
                    stack.extend(items);
                    if !asked.containers {
                        continue;
                    }
                    ValueRef::parsed(inside).equality_key()
                }
                Value::Object(members) => {
                    stack.extend(members.values());
                    if !asked.containers {
                        continue;
                    }
                    ValueRef::parsed(inside).equality_key()
                }
                Value::Null | Value::Bool(_) | Value::Number(_) if asked.others.is_empty() => {
                    continue;
                }
                Value::Null | Value::Bool(_) | Value::Number(_) => {
                    ValueRef::parsed(inside).equality_key()
                }
            };
            if let Some(&index) = asked.others.get(key.as_ref()) {
                note(index);
            }
        }
        // The result's text is written only while a text is still to be found.
        if self.unfound == 0 {
            return;
        }
        self.search(c, &trailgate_trace::result_text(result));
    }

    /// Searches `text`, the text of producer `c`'s result, for the texts asked about.
    fn search(&mut self, c: usize, text: &str) {
        if self.one_by_one(text.len()) {
            for index in 0..self.patterns.len() {
                if self.by_text[index] == usize::MAX {
                    work::count(text.len());
                    if text.contains(&self.patterns[index]) {
                        self.by_text[index] = c;
                        self.unfound -= 1;
                    }
                }
            }
            return;
        }
        let Searcher::AtOnce(automaton, entered) = &mut self.searcher else {
            return;
        };
        let Ok(mut state) = automaton.start_state(Anchored::No) else {
            return;
        };
        for &byte in text.as_bytes() {
            if self.unfound == 0 {
                break;
            }
            work::count(1);
            state = automaton.next_state(Anchored::No, state, byte);
            // The strings that end here are those of the state, whatever came before
            // them: noted the first time the run enters it.
            if !automaton.is_match(state) || !entered.insert(state) {
                continue;
            }
            for at in 0..automaton.match_len(state) {
                work::count(1);
                let index = automaton.match_pattern(state, at).as_usize();
                if self.by_text[index] == usize::MAX {
                    self.by_text[index] = c;
                    self.unfound -= 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
