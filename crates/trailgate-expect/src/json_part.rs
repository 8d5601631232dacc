//! A grader's part of the JSON report, serialized by the grader: its object's fields, and
//! the entries of its run-sized lists, which the report writes as the runs are scored and
//! reads back while it writes the document (so a report of a million runs holds none of
//! them in memory).

use std::io;

use serde::Serialize;

/// One field of a grader's object in the JSON report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonField {
    /// A value, as compact JSON text.
    Value(String),
    /// A run-sized list: the entries the grader wrote to list number `n` (below
    /// [`JSON_LISTS`](crate::JSON_LISTS)) for the test's runs, in run order.
    List(usize),
}

/// A grader's object in a test of the JSON report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonPart {
    /// The object's key in the test (`tool_calls`).
    pub key: &'static str,
    /// Its fields, in order.
    pub fields: Vec<(&'static str, JsonField)>,
    /// The keys under which its run entries name a call by its number ([`CallJson`]), alone,
    /// in a list, or first in a pair: what a reader needs to show each such call with its
    /// tool, which is the run's (the HTML page does).
    pub call_keys: &'static [&'static str],
}

impl JsonPart {
    /// A part with no field yet.
    pub(crate) fn new(key: &'static str) -> Self {
        Self {
            key,
            fields: Vec::new(),
            call_keys: &[],
        }
    }

    /// The part, its run entries naming calls under `keys` (see [`JsonPart::call_keys`]).
    pub(crate) fn naming_calls(mut self, keys: &'static [&'static str]) -> Self {
        self.call_keys = keys;
        self
    }

    /// Adds a field holding `value`.
    pub(crate) fn value(mut self, name: &'static str, value: &impl Serialize) -> Self {
        // Serializing plain data (numbers, strings, lists of them) into a string cannot
        // fail; a failure would leave the field `null` rather than lose the report.
        let text = serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned());
        self.fields.push((name, JsonField::Value(text)));
        self
    }

    /// Adds a field holding the run-sized list number `list` of the grader's own, counted
    /// from 0.
    pub(crate) fn list(mut self, name: &'static str, list: usize) -> Self {
        self.fields.push((name, JsonField::List(list)));
        self
    }

    /// The part with its lists numbered from `base`, the first of its kind's lists among
    /// every kind's (the registry's order).
    pub(crate) fn numbered_from(mut self, base: usize) -> Self {
        for (_, field) in &mut self.fields {
            if let JsonField::List(list) = field {
                *list += base;
            }
        }
        self
    }
}

/// Where the entries of the run-sized lists go: one compact JSON text per entry.
pub trait EntrySink {
    /// Adds `json`, one entry, to list number `list`.
    fn entry(&mut self, list: usize, json: &[u8]) -> io::Result<()>;
}

/// A grader's pen for the entries of its lists: serializes each entry into one reused
/// buffer and hands it to the sink.
pub struct Entries<'s> {
    sink: &'s mut dyn EntrySink,
    buffer: Vec<u8>,
    /// The number of the writing grader's first list among every kind's.
    base: usize,
}

impl<'s> Entries<'s> {
    /// Entries written into `sink`.
    pub fn new(sink: &'s mut dyn EntrySink) -> Self {
        Self {
            sink,
            buffer: Vec::new(),
            base: 0,
        }
    }

    /// Numbers the next grader's lists from `base` (see [`JsonPart::numbered_from`]).
    pub(crate) fn set_base(&mut self, base: usize) {
        self.base = base;
    }

    /// Adds `entry` to the writing grader's list number `list` (counted from 0).
    pub(crate) fn push(&mut self, list: usize, entry: &impl Serialize) -> io::Result<()> {
        self.buffer.clear();
        serde_json::to_writer(&mut self.buffer, entry)?;
        self.sink.entry(self.base + list, &self.buffer)
    }
}

/// A call named in the JSON report: its number in its run, from 1. Its tool is in the run's
/// `sources` entry (`tools`), once per run (docs/reports.md#the-json-report).
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct CallJson(usize);

impl CallJson {
    pub(crate) fn of(called: &crate::run::CalledTool) -> Self {
        Self(called.call)
    }
}

/// A tool's name (`server.name`), written straight into the report: a report of a million
/// calls names a tool a million times, and a `String` for each was a tenth of its time.
pub(crate) struct ToolName<'a>(pub(crate) &'a trailgate_core::ToolId);

/// How long a qualified name is put together on the stack, to be written as one string.
const SHORT_NAME: usize = 128;

impl Serialize for ToolName<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let name = self.0.name();
        let Some(server) = self.0.server() else {
            return serializer.serialize_str(name);
        };
        // `server.name` written as one string: through `Display` it would be three pieces,
        // each through the formatting machinery and escaped on its own.
        let mut buffer = [0u8; SHORT_NAME];
        match joined(server, name, &mut buffer) {
            Some(joined) => serializer.serialize_str(joined),
            None => serializer.collect_str(self.0),
        }
    }
}

/// `server.name` put together in `buffer`; `None` when it does not fit.
fn joined<'b>(server: &str, name: &str, buffer: &'b mut [u8; SHORT_NAME]) -> Option<&'b str> {
    let joined = buffer.get_mut(..server.len() + 1 + name.len())?;
    let (head, tail) = joined.split_at_mut(server.len());
    let (dot, rest) = tail.split_first_mut()?;
    head.copy_from_slice(server.as_bytes());
    *dot = b'.';
    rest.copy_from_slice(name.as_bytes());
    // Two strings and an ASCII dot are UTF-8: the check cannot fail.
    std::str::from_utf8(joined).ok()
}

#[cfg(test)]
mod tests;
