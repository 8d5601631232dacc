//! The call-list shape read straight into a [`Run`] that is reused from line to line: the
//! calls' vector and their names' buffers are kept, so reading a line of a large JSON Lines
//! trace allocates next to nothing. Values are borrowed from the shared text, as by
//! [`parse_native_shared`](super::parse_native_shared).
//!
//! This reads only what the derived [`Document`](super::Document) reads the same way: a
//! document it does not take (the event shape, a field written twice, a missing `name`, a
//! value of the wrong type or one that is not kept as text) is left to the derived parse,
//! whose run or error is the reference.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{Borrowed, empty_args};
use crate::model::{Call, Run, Status};
use crate::value_ref::CowText;

/// Reads the call list at `range` in `source` into `run`, reusing its calls; `false`, with
/// `run` in any state, when the text is not one this reading takes.
pub(super) fn read_call_list_into(
    run: &mut Run,
    source: &Arc<String>,
    range: Range<usize>,
) -> bool {
    let Some(text) = source.get(range) else {
        return false;
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let read = de.deserialize_map(DocumentVisitor {
        source,
        calls: &mut run.calls,
    });
    if !matches!(read, Ok(true)) || de.end().is_err() {
        return false;
    }
    run.format = "toolgate";
    run.line = None;
    true
}

/// A refusal: the derived parse reads the document instead.
fn refuse<E: de::Error>() -> E {
    E::custom("left to the derived parse")
}

/// The top-level object: `tool_calls`, once; any other key is skipped, and `events` is
/// refused.
struct DocumentVisitor<'c> {
    /// The text values are borrowed from.
    source: &'c Arc<String>,
    calls: &'c mut Vec<Call>,
}

impl<'de> Visitor<'de> for DocumentVisitor<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a trace object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut read = false;
        while let Some(key) = map.next_key::<CowText<'de>>()? {
            match &*key.0 {
                "tool_calls" if !read => {
                    map.next_value_seed(CallsSeed {
                        source: self.source,
                        calls: &mut *self.calls,
                    })?;
                    read = true;
                }
                "tool_calls" | "events" => return Err(refuse()),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(read)
    }
}

/// The `tool_calls` list, read into the calls kept from the run before.
struct CallsSeed<'c> {
    /// The text values are borrowed from.
    source: &'c Arc<String>,
    calls: &'c mut Vec<Call>,
}

impl<'de> DeserializeSeed<'de> for CallsSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for CallsSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of calls")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut count = 0;
        loop {
            if count == self.calls.len() {
                self.calls.push(blank_call());
            }
            let Some(call) = self.calls.get_mut(count) else {
                return Err(refuse());
            };
            let seed = CallSeed {
                source: self.source,
                call,
            };
            if seq.next_element_seed(seed)?.is_none() {
                break;
            }
            count += 1;
        }
        self.calls.truncate(count);
        Ok(())
    }
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
    }
}

/// One entry of the list, read over a call kept from an earlier run.
struct CallSeed<'c> {
    /// The text values are borrowed from.
    source: &'c Arc<String>,
    call: &'c mut Call,
}

impl<'de> DeserializeSeed<'de> for CallSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for CallSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a call")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        const NAME: u8 = 1;
        const SERVER: u8 = 2;
        const ARGS: u8 = 4;
        const RESULT: u8 = 8;
        const STATUS: u8 = 16;
        const STEP: u8 = 32;
        const ARGS_RAW: u8 = 64;
        const COMPLETED: u8 = 128;
        let call = self.call;
        let mut seen = 0_u8;
        let mut once = |field: u8| {
            let first = seen & field == 0;
            seen |= field;
            if first {
                Ok(())
            } else {
                Err(refuse::<A::Error>())
            }
        };
        let mut server = None;
        let mut args = None;
        let mut result = None;
        let mut status = None;
        let mut step = None;
        let mut args_raw = None;
        let mut completed = None;
        while let Some(key) = map.next_key::<CowText<'de>>()? {
            match &*key.0 {
                "name" => {
                    once(NAME)?;
                    let name = map.next_value::<CowText<'de>>()?;
                    call.name.clear();
                    call.name.push_str(&name.0);
                }
                "server" => {
                    once(SERVER)?;
                    server = map.next_value::<Option<CowText<'de>>>()?;
                }
                "args" | "arguments" => {
                    once(ARGS)?;
                    args = map.next_value::<Option<Borrowed<'de>>>()?;
                }
                "result" => {
                    once(RESULT)?;
                    result = map.next_value::<Option<Borrowed<'de>>>()?;
                }
                "status" => {
                    once(STATUS)?;
                    status = map.next_value::<Option<Status>>()?;
                }
                "step" => {
                    once(STEP)?;
                    step = map.next_value::<Option<u32>>()?;
                }
                "args_raw" => {
                    once(ARGS_RAW)?;
                    args_raw = map.next_value::<Option<String>>()?;
                }
                "completed" => {
                    once(COMPLETED)?;
                    completed = map.next_value::<Option<bool>>()?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if seen & NAME == 0 {
            return Err(refuse());
        }
        match (server, &mut call.server) {
            (None, kept) => *kept = None,
            (Some(server), Some(kept)) => {
                kept.clear();
                kept.push_str(&server.0);
            }
            (Some(server), kept) => *kept = Some(server.0.into_owned()),
        }
        let keep = |value: Borrowed<'_>| value.keep(self.source).ok_or_else(refuse::<A::Error>);
        call.args = match args {
            Some(args) => keep(args)?,
            None => empty_args(),
        };
        call.result = result.map(keep).transpose()?;
        call.args_raw = args_raw;
        call.status = status.unwrap_or_default();
        call.step = step.unwrap_or(0);
        // `toolgate convert` writes `completed: false` for a call without a result, so that
        // its output reads back as it was read.
        call.completed = completed.unwrap_or(true);
        Ok(())
    }
}
