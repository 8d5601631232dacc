//! The layout of the JSON report (version 2): the document's skeleton pretty-printed, so a
//! person can read a small report, and every entry of a list inside a test (a run's
//! source, a gate, a grader's run entry) written on one line, so that the report grows by
//! one compact line per run and not by a page.
//!
//! `check` and `merge` write through the same [`ReportFormatter`], so a merged report has
//! the unsharded run's bytes however the shards were laid out.

use std::io::{self, Write};

use serde::ser::{Serialize, SerializeStruct, Serializer};

/// How deep an array must be (the containers around it, the document included) for its
/// elements to be written on one line: the tests' own lists (`sources`, `gates`, a grader's
/// `runs`) are, the `tests` array is not.
const COMPACT_DEPTH: usize = 3;

/// One open array or object.
#[derive(Debug, Clone, Copy)]
struct Open {
    array: bool,
    compact: bool,
    has_value: bool,
}

/// A `serde_json` formatter: pretty-printed (two spaces) down to the elements of the lists
/// of a test, compact from there.
#[derive(Debug, Default)]
pub(crate) struct ReportFormatter {
    open: Vec<Open>,
}

impl ReportFormatter {
    fn compact(&self) -> bool {
        self.open.last().is_some_and(|open| open.compact)
    }

    fn begin(&mut self, writer: &mut (impl Write + ?Sized), array: bool) -> io::Result<()> {
        let compact = self.open.last().is_some_and(|parent| {
            parent.compact || (parent.array && self.open.len() >= COMPACT_DEPTH)
        });
        self.open.push(Open {
            array,
            compact,
            has_value: false,
        });
        writer.write_all(if array { b"[" } else { b"{" })
    }

    fn end(&mut self, writer: &mut (impl Write + ?Sized), array: bool) -> io::Result<()> {
        let open = self.open.pop();
        if let Some(open) = open
            && !open.compact
            && open.has_value
        {
            writer.write_all(b"\n")?;
            self.indent(writer)?;
        }
        writer.write_all(if array { b"]" } else { b"}" })
    }

    fn indent(&self, writer: &mut (impl Write + ?Sized)) -> io::Result<()> {
        for _ in 0..self.open.len() {
            writer.write_all(b"  ")?;
        }
        Ok(())
    }

    fn begin_value(&self, writer: &mut (impl Write + ?Sized), first: bool) -> io::Result<()> {
        if self.compact() {
            if !first {
                writer.write_all(b",")?;
            }
            return Ok(());
        }
        writer.write_all(if first { b"\n" } else { b",\n" })?;
        self.indent(writer)
    }

    fn end_value(&mut self) {
        if let Some(open) = self.open.last_mut() {
            open.has_value = true;
        }
    }
}

impl serde_json::ser::Formatter for ReportFormatter {
    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.begin(writer, true)
    }

    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.end(writer, true)
    }

    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.begin_value(writer, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        self.end_value();
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.begin(writer, false)
    }

    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.end(writer, false)
    }

    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.begin_value(writer, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(if self.compact() { b":" } else { b": " })
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        self.end_value();
        Ok(())
    }

    /// A raw fragment is compact JSON, which holds no line break: one that does is a run
    /// of entries, one per line ([`RawJson`]), each written as an element of the array
    /// being written.
    fn write_raw_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let bytes = fragment.as_bytes();
        let mut start = 0;
        // What goes between two entries here, put together once for the fragment.
        let mut separator = Vec::new();
        for end in memchr::memchr_iter(b'\n', bytes) {
            if separator.is_empty() {
                self.begin_value(&mut separator, false)?;
            }
            writer.write_all(bytes.get(start..end).unwrap_or_default())?;
            writer.write_all(&separator)?;
            start = end + 1;
        }
        writer.write_all(bytes.get(start..).unwrap_or_default())
    }
}

/// Writes `value` in the report's layout, with a trailing newline.
pub(crate) fn write_report(out: &mut dyn Write, value: &impl Serialize) -> io::Result<()> {
    let mut serializer =
        serde_json::Serializer::with_formatter(&mut *out, ReportFormatter::default());
    value.serialize(&mut serializer)?;
    writeln!(out)
}

/// `serde_json`'s token for a value written as the JSON text it holds (its `RawValue`).
const RAW_TOKEN: &str = "$serde_json::private::RawValue";

/// Compact JSON text that trailgate wrote itself (an entry spilled while the runs were
/// scored), written as it is: no second parse, no second serialization. Only for
/// `serde_json`'s serializer, which alone knows the token; the text must be one compact
/// JSON value, as `serde_json::to_writer` writes it, or, as an element of an array,
/// several such values one per line, which are written as that many elements: a list's
/// entries are copied a block at a time.
pub(crate) struct RawJson<'t>(pub(crate) &'t str);

impl Serialize for RawJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut raw = serializer.serialize_struct(RAW_TOKEN, 1)?;
        raw.serialize_field(RAW_TOKEN, self.0)?;
        raw.end()
    }
}

#[cfg(test)]
mod tests;
