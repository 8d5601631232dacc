//! The call-list shape read straight into a [`Run`] that is reused from line to line, by
//! one pass over the text: the calls' vector and their names' buffers are kept, so reading
//! a line of a large JSON Lines trace allocates next to nothing, and each byte is parsed
//! once (after a vectorized look for control characters). Values are ranges of the shared
//! text, as by
//! [`parse_native_shared`](super::parse_native_shared).
//!
//! The pass checks the syntax as `serde_json` does (the grammar of RFC 8259: no trailing
//! comma, no control character in a string, only the escapes JSON has, numbers without a
//! leading zero) and what [`Kept::of`](crate::lazy_value::Kept::of) checks of a value kept
//! as text (its depth, surrogate escapes in pairs, numbers surely in range), in the same
//! pass. It takes only what it reads the same way as the derived
//! [`Document`](super::Document): a document it does not take (the event shape, a field
//! written twice, a missing `name`, a value of the wrong type, a key with an escape, a
//! value that is not kept as text, anything it cannot check) is left to the derived parse,
//! whose run or error is the reference. Leaving a document costs time, never a different
//! answer.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Arc;

use serde::Deserialize;
use serde::de::value::BorrowedStrDeserializer;

use super::{RawTokens, empty_args};
use crate::LazyValue;
use crate::json_scan::{string_stop, unicode_escape};
use crate::lazy_value::{MAX_TEXT_DEPTH, plain_number};
use crate::model::{Call, Interval, Run, Status, Usage};
use crate::value_ref::Member;

/// Reads the call list at `range` in `source` into `run`, reusing its calls; `false`, with
/// `run` in any state, when the text is not one this reading takes.
pub(super) fn read_call_list_into(
    run: &mut Run,
    source: &Arc<String>,
    range: Range<usize>,
) -> bool {
    let Some(text) = source.get(range.clone()) else {
        return false;
    };
    let bytes = text.as_bytes();
    let mut reader = Reader {
        text,
        bytes,
        // One pass that the compiler vectorizes (it has no early exit).
        controls: bytes
            .iter()
            .fold(0_u8, |found, &byte| found | u8::from(byte < 0x20))
            != 0,
        at: 0,
        base: range.start,
        source,
        members: Vec::new(),
        canonical: false,
    };
    let Some(fields) = reader.document(&mut run.calls) else {
        return false;
    };
    let Some((usage, time)) = fields.read(text) else {
        return false;
    };
    // A call's times are left to the derived parse, so the calls read here have none: the
    // run's own times, when given, span it.
    run.format = "trailgate";
    run.line = None;
    run.usage = usage;
    run.time = time;
    true
}

/// Where the run's `usage`, `started_at` and `ended_at` are in the document, when it has
/// them.
#[derive(Default)]
struct RunFields {
    usage: Option<Range<usize>>,
    started_at: Option<Range<usize>>,
    ended_at: Option<Range<usize>>,
}

impl RunFields {
    /// The run's usage and times, read as the derived parse reads them; `None` when that
    /// parse would refuse them (it then reports why).
    fn read(self, text: &str) -> Option<(Usage, Option<Interval>)> {
        let usage = match self.usage {
            Some(range) => {
                let raw: Option<BTreeMap<String, RawTokens>> =
                    serde_json::from_str(text.get(range)?).ok()?;
                super::usage_of(raw)
            }
            None => Usage::default(),
        };
        let stamp = |range: Option<Range<usize>>| -> Option<Option<i64>> {
            let Some(range) = range else {
                return Some(None);
            };
            let mut deserializer = serde_json::Deserializer::from_str(text.get(range)?);
            super::timestamp(&mut deserializer).ok()
        };
        let (start, end) = (stamp(self.started_at)?, stamp(self.ended_at)?);
        let time = super::interval_of(start, end, "the run").ok()?;
        Some((usage, time))
    }
}

/// Where the pass is in the text of one document. Every step gives `None` when the
/// document is not one this reading takes, whether it is valid or not.
struct Reader<'t> {
    text: &'t str,
    bytes: &'t [u8],
    /// Whether the text has a control character anywhere (as whitespace between tokens,
    /// or in a string, which is an error): without one, strings are searched for their
    /// end without looking for one.
    controls: bool,
    at: usize,
    /// Where `text` starts in `source`.
    base: usize,
    /// The text values are kept from.
    source: &'t Arc<String>,
    /// The members of the arguments being read, reused from call to call.
    members: Vec<Member>,
    /// Whether the arguments being read are, so far, written as
    /// [`ValueRef::equality_key`](crate::ValueRef::equality_key) writes them: no space
    /// between tokens, no escape in a string, integers of at most 18 digits and not `-0`,
    /// the keys of each object in strictly increasing byte order. Set when the arguments
    /// start; anything else clears it, wherever it is read.
    canonical: bool,
}

/// A value kept as text: where it is in the document, and the index of its members when
/// it was gathered.
struct KeptText {
    range: Range<usize>,
    index: Option<Box<[Member]>>,
    /// Whether the reader found the text canonical ([`Reader::canonical`]).
    canonical: bool,
}

/// A string of the document: where its content is (without the quotes), and whether it has
/// an escape.
#[derive(Clone, Copy)]
struct Text {
    start: usize,
    end: usize,
    escaped: bool,
}

impl<'t> Reader<'t> {
    /// The top-level object: `tool_calls`, once; any other key is skipped, and `events`
    /// is refused.
    fn document(&mut self, calls: &mut Vec<Call>) -> Option<RunFields> {
        self.skip_space();
        let mut read = false;
        let mut fields = RunFields::default();
        self.object(|reader, key| {
            // The run's `usage` and times: checked here as any value is, their text then
            // read by serde (a few bytes), whose refusal leaves the document to the derived
            // parse and its error.
            let slot = match reader.bytes_of(key) {
                b"tool_calls" if !read => {
                    read = true;
                    return reader.calls(calls);
                }
                b"tool_calls" | b"events" => return None,
                b"usage" => &mut fields.usage,
                b"started_at" => &mut fields.started_at,
                b"ended_at" => &mut fields.ended_at,
                _ => return reader.value(0, false),
            };
            if slot.is_some() {
                return None;
            }
            let start = reader.at;
            reader.value(0, false)?;
            *slot = Some(start..reader.at);
            Some(())
        })?;
        self.skip_space();
        (read && self.at == self.bytes.len()).then_some(fields)
    }

    /// The `tool_calls` list, read into the calls kept from the run before.
    fn calls(&mut self, calls: &mut Vec<Call>) -> Option<()> {
        let mut count = 0;
        let mut more = self.open(b'[', b']')?;
        while more {
            if count == calls.len() {
                calls.push(blank_call());
            }
            self.call(calls.get_mut(count)?)?;
            count += 1;
            more = self.next_item(b']')?;
        }
        calls.truncate(count);
        Some(())
    }

    /// One entry of the list, read over a call kept from an earlier run.
    fn call(&mut self, call: &mut Call) -> Option<()> {
        const NAME: u16 = 1;
        const SERVER: u16 = 2;
        const ARGS: u16 = 4;
        const RESULT: u16 = 8;
        const STATUS: u16 = 16;
        const STEP: u16 = 32;
        const ARGS_RAW: u16 = 64;
        const COMPLETED: u16 = 128;
        const AGENT: u16 = 256;
        let mut seen = 0_u16;
        let mut once = |field: u16| {
            let first = seen & field == 0;
            seen |= field;
            first.then_some(())
        };
        let mut server = None;
        let mut args = None;
        let mut result = None;
        let mut status = None;
        let mut step = None;
        let mut args_raw = None;
        let mut completed = None;
        let mut agent = None;
        self.object(|reader, key| {
            match reader.bytes_of(key) {
                b"name" => {
                    once(NAME)?;
                    let name = reader.string_value()?;
                    call.name.clear();
                    call.name.push_str(&reader.unescaped(name)?);
                }
                b"server" => {
                    once(SERVER)?;
                    reader.null_or(&mut server, Self::string_value)?;
                }
                b"args" | b"arguments" => {
                    once(ARGS)?;
                    reader.null_or(&mut args, Self::indexed_value)?;
                }
                b"result" => {
                    once(RESULT)?;
                    reader.null_or(&mut result, |reader| {
                        let start = reader.at;
                        reader.value(0, true)?;
                        Some(KeptText {
                            range: start..reader.at,
                            index: None,
                            canonical: false,
                        })
                    })?;
                }
                b"status" => {
                    once(STATUS)?;
                    reader.null_or(&mut status, Self::status)?;
                }
                b"step" => {
                    once(STEP)?;
                    reader.null_or(&mut step, Self::step)?;
                }
                b"args_raw" => {
                    once(ARGS_RAW)?;
                    reader.null_or(&mut args_raw, Self::string_value)?;
                }
                b"completed" => {
                    once(COMPLETED)?;
                    reader.null_or(&mut completed, Self::boolean)?;
                }
                b"agent" => {
                    once(AGENT)?;
                    reader.null_or(&mut agent, Self::string_value)?;
                }
                // A call's times are read by the derived parse.
                b"started_at" | b"ended_at" => return None,
                _ => reader.value(0, false)?,
            }
            Some(())
        })?;
        call.time = None;
        if seen & NAME == 0 {
            return None;
        }
        self.set_server(call, server)?;
        call.args = match args {
            Some(kept) => self.keep(kept)?,
            None => empty_args(),
        };
        call.result = match result {
            Some(kept) => Some(self.keep(kept)?),
            None => None,
        };
        call.args_raw = match args_raw {
            Some(raw) => Some(self.unescaped(raw)?.into_owned()),
            None => None,
        };
        call.status = status.unwrap_or_default();
        call.step = step.unwrap_or(0);
        // `trailgate convert` writes `completed: false` for a call without a result, so that
        // its output reads back as it was read.
        call.completed = completed.unwrap_or(true);
        self.set_agent(call, agent)?;
        Some(())
    }

    /// Sets a call's server, reusing the buffer of the one it had.
    fn set_server(&self, call: &mut Call, server: Option<Text>) -> Option<()> {
        match (server, &mut call.server) {
            (None, kept) => *kept = None,
            (Some(server), Some(kept)) => {
                kept.clear();
                kept.push_str(&self.unescaped(server)?);
            }
            (Some(server), kept) => *kept = Some(self.unescaped(server)?.into_owned()),
        }
        Some(())
    }

    /// Sets a call's agent; `None` for an empty name, which the derived parse refuses and
    /// says where.
    fn set_agent(&self, call: &mut Call, agent: Option<Text>) -> Option<()> {
        call.agent = match agent {
            Some(agent) => {
                let name = self.unescaped(agent)?.into_owned();
                if name.is_empty() {
                    return None;
                }
                Some(name)
            }
            None => None,
        };
        Some(())
    }

    /// An object, each member's value read by `member` given its key, which has no escape.
    fn object(&mut self, mut member: impl FnMut(&mut Self, Text) -> Option<()>) -> Option<()> {
        let mut more = self.open(b'{', b'}')?;
        while more {
            let key = self.string()?;
            if key.escaped {
                return None;
            }
            self.skip_space();
            self.expect(b':')?;
            self.skip_space();
            member(self, key)?;
            more = self.next_item(b'}')?;
        }
        Some(())
    }

    /// The opening bracket of an object or array, and the space after it: whether an item
    /// follows (`false` for an empty one, whose closing bracket is read too).
    fn open(&mut self, open: u8, close: u8) -> Option<bool> {
        self.expect(open)?;
        self.skip_space();
        if self.peek() == Some(close) {
            self.at += 1;
            return Some(false);
        }
        Some(true)
    }

    /// What follows an item of an object or array: `true` after a comma, when another item
    /// follows, and `false` after the closing bracket.
    fn next_item(&mut self, close: u8) -> Option<bool> {
        self.skip_space();
        match self.peek()? {
            b',' => {
                self.at += 1;
                self.skip_space();
                Some(true)
            }
            byte if byte == close => {
                self.at += 1;
                Some(false)
            }
            _ => None,
        }
    }

    /// Any value, checked; `kept` when it is a call's arguments or result (or part of
    /// them), whose numbers must be surely in range. `depth` is how many arrays and objects
    /// of that value enclose it.
    fn value(&mut self, depth: usize, kept: bool) -> Option<()> {
        match self.peek()? {
            b'"' => {
                if self.string()?.escaped {
                    self.canonical = false;
                }
                Some(())
            }
            b'{' | b'[' if depth >= MAX_TEXT_DEPTH => None,
            b'{' => {
                let mut last = None;
                self.object(|reader, key| {
                    reader.key_in_order(&mut last, key);
                    reader.value(depth + 1, kept)
                })
            }
            b'[' => {
                let mut more = self.open(b'[', b']')?;
                while more {
                    self.value(depth + 1, kept)?;
                    more = self.next_item(b']')?;
                }
                Some(())
            }
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => {
                let number = self.bytes.get(self.number()?)?;
                if !canonical_integer(number) {
                    self.canonical = false;
                }
                (!kept || plain_number(number)).then_some(())
            }
        }
    }

    /// Clears [`Self::canonical`] unless `key` follows the object's `last` key in byte
    /// order, and makes it the last.
    fn key_in_order(&mut self, last: &mut Option<Text>, key: Text) {
        if self.canonical
            && let Some(last) = *last
            && self.bytes_of(last) >= self.bytes_of(key)
        {
            self.canonical = false;
        }
        *last = Some(key);
    }

    /// A call's arguments: where their text is, and, when they are an object, the index
    /// of its members, gathered as they are read. Graders look up arguments by name in
    /// many calls; a result's index is left to be found when it is looked into.
    fn indexed_value(&mut self) -> Option<KeptText> {
        let start = self.at;
        self.canonical = true;
        if self.peek()? != b'{' {
            self.value(0, true)?;
            return Some(KeptText {
                range: start..self.at,
                index: None,
                canonical: self.canonical,
            });
        }
        let mut members = std::mem::take(&mut self.members);
        members.clear();
        let mut last = None;
        self.object(|reader, key| {
            reader.key_in_order(&mut last, key);
            let value = reader.at;
            reader.value(1, true)?;
            members.push(Member::new(
                key.start - start..key.end - start,
                value - start..reader.at - start,
            )?);
            Some(())
        })?;
        // Keys in strictly increasing order are distinct.
        let index = if self.canonical {
            Some(Box::from(members.as_slice()))
        } else {
            Member::distinct(&members, self.text.get(start..self.at)?)
        };
        self.members = members;
        Some(KeptText {
            range: start..self.at,
            index,
            canonical: self.canonical,
        })
    }

    /// A value kept as text: a range of the shared text, with the index of its members
    /// when it was gathered.
    fn keep(&self, kept: KeptText) -> Option<LazyValue> {
        let range = self.base + kept.range.start..self.base + kept.range.end;
        LazyValue::from_plain_shared(self.source, range, kept.index, kept.canonical)
    }

    /// The bytes of a string without escapes.
    fn bytes_of(&self, text: Text) -> &'t [u8] {
        self.bytes.get(text.start..text.end).unwrap_or_default()
    }

    /// `null`, which leaves `slot` empty, or the value `read` reads into it.
    fn null_or<T>(
        &mut self,
        slot: &mut Option<T>,
        read: impl FnOnce(&mut Self) -> Option<T>,
    ) -> Option<()> {
        if self.peek()? == b'n' {
            self.literal(b"null")
        } else {
            *slot = Some(read(self)?);
            Some(())
        }
    }

    /// A value that must be a string.
    fn string_value(&mut self) -> Option<Text> {
        if self.peek()? == b'"' {
            self.string()
        } else {
            None
        }
    }

    /// A string's content: borrowed when it has no escape, decoded by `serde_json` when it
    /// has.
    fn unescaped(&self, text: Text) -> Option<std::borrow::Cow<'t, str>> {
        if text.escaped {
            let quoted = self.text.get(text.start - 1..text.end + 1)?;
            serde_json::from_str::<String>(quoted).ok().map(Into::into)
        } else {
            self.text.get(text.start..text.end).map(Into::into)
        }
    }

    /// A call's status, a string read as the derived parse reads it.
    fn status(&mut self) -> Option<Status> {
        let text = self.string_value()?;
        if text.escaped {
            return None;
        }
        let name = self.text.get(text.start..text.end)?;
        Status::deserialize(BorrowedStrDeserializer::<serde::de::value::Error>::new(
            name,
        ))
        .ok()
    }

    /// A step: an integer from 0 to `u32::MAX`, written with digits only.
    fn step(&mut self) -> Option<u32> {
        let number = self.number()?;
        let digits = self.text.get(number)?;
        if !digits.bytes().all(|byte| byte.is_ascii_digit()) {
            return None;
        }
        digits.parse().ok()
    }

    fn boolean(&mut self) -> Option<bool> {
        match self.peek()? {
            b't' => self.literal(b"true").map(|()| true),
            b'f' => self.literal(b"false").map(|()| false),
            _ => None,
        }
    }

    /// A string, from its opening quote: no control character, only JSON's escapes, and
    /// a `\u` escape of a UTF-16 surrogate only as a leading one followed at once by a
    /// trailing one (a `Value` parse refuses a lone one).
    ///
    /// Most strings have no escape and end within a word or two of their start: that case
    /// is inlined, the rest is [`Self::string_from`].
    #[inline]
    fn string(&mut self) -> Option<Text> {
        self.expect(b'"')?;
        let start = self.at;
        self.at = string_stop(self.bytes, self.at, self.controls);
        if self.peek()? == b'"' {
            let end = self.at;
            self.at += 1;
            return Some(Text {
                start,
                end,
                escaped: false,
            });
        }
        self.string_from(start)
    }

    /// The rest of a string that starts at `start`, from a backslash or a control
    /// character.
    #[cold]
    #[inline(never)]
    fn string_from(&mut self, start: usize) -> Option<Text> {
        let mut escaped = false;
        loop {
            match self.peek()? {
                b'"' => {
                    let end = self.at;
                    self.at += 1;
                    return Some(Text {
                        start,
                        end,
                        escaped,
                    });
                }
                b'\\' => {
                    escaped = true;
                    self.escape()?;
                }
                _ => return None,
            }
            self.at = string_stop(self.bytes, self.at, self.controls);
        }
    }

    /// One escape, from its backslash.
    fn escape(&mut self) -> Option<()> {
        match self.bytes.get(self.at + 1)? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.at += 2,
            b'u' => {
                let (end, parses) = unicode_escape(self.bytes, self.at)?;
                if !parses {
                    return None;
                }
                self.at = end;
            }
            _ => return None,
        }
        Some(())
    }

    /// A number by JSON's grammar: `-`, then `0` or digits not starting with `0`, then
    /// an optional fraction and exponent. Where it is.
    fn number(&mut self) -> Option<Range<usize>> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => self.skip_digits(),
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            self.digits()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            self.digits()?;
        }
        Some(start..self.at)
    }

    /// One digit or more.
    fn digits(&mut self) -> Option<()> {
        self.peek().filter(u8::is_ascii_digit)?;
        self.skip_digits();
        Some(())
    }

    fn skip_digits(&mut self) {
        while self.peek().is_some_and(|byte| byte.is_ascii_digit()) {
            self.at += 1;
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        if self.bytes.get(self.at..self.at + word.len())? == word {
            self.at += word.len();
            Some(())
        } else {
            None
        }
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        if self.peek()? == byte {
            self.at += 1;
            Some(())
        } else {
            None
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// JSON's whitespace: space, tab, line feed, carriage return.
    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
            self.canonical = false;
        }
    }
}

/// Whether a number's token, valid by JSON's grammar, is an integer as
/// [`ValueRef::equality_key`](crate::ValueRef::equality_key) writes it: at most 18 digits,
/// no fraction or exponent, and not `-0`.
fn canonical_integer(token: &[u8]) -> bool {
    let digits = token.strip_prefix(b"-").unwrap_or(token);
    digits.len() <= 18 && digits.iter().all(u8::is_ascii_digit) && token != b"-0"
}

fn blank_call() -> Call {
    Call {
        server: None,
        name: String::new(),
        args: empty_args(),
        args_raw: None,
        result: None,
        status: Status::Unknown,
        step: 0,
        completed: true,
        agent: None,
        time: None,
    }
}
