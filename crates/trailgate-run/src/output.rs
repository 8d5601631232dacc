//! What a command hands back to its front end: its reports, the files to write, and
//! whether a gate failed.

use std::fs::File;
use std::io::{self, Seek, Write};
use std::path::PathBuf;
use std::sync::Mutex;

use crate::error::Error;
use crate::options::ReportTarget;

/// A rendered report: in memory, spooled to an anonymous temporary file when it grows with
/// the number of runs, or rendered as it is written when only one target asks for it.
#[derive(Debug)]
pub enum Rendered {
    /// The report's bytes.
    Bytes(Vec<u8>),
    /// An anonymous temporary file holding the report.
    Spooled(File),
    /// A report that grows with the number of runs and goes to one target only (the JSON
    /// and HTML reports): rendered straight into it, once, when it is written, so that
    /// its hundreds of megabytes are written once and not copied from a spool. A file is
    /// still replaced whole (it is rendered into the staged file); standard output gets
    /// the bytes as they are rendered.
    Deferred(Deferred),
}

/// The rendering of a [`Rendered::Deferred`] report, until it has been written.
pub struct Deferred(Mutex<Option<Render>>);

/// Renders a report into the writer it is given.
type Render = Box<dyn FnOnce(&mut dyn Write) -> io::Result<()> + Send>;

impl std::fmt::Debug for Deferred {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Deferred")
    }
}

impl Default for Rendered {
    fn default() -> Self {
        Self::Bytes(Vec::new())
    }
}

impl From<Vec<u8>> for Rendered {
    fn from(bytes: Vec<u8>) -> Self {
        Self::Bytes(bytes)
    }
}

impl Rendered {
    /// A report rendered by `render` when it is written, into its one target.
    pub fn deferred(
        render: impl FnOnce(&mut dyn Write) -> io::Result<()> + Send + 'static,
    ) -> Self {
        Self::Deferred(Deferred(Mutex::new(Some(Box::new(render)))))
    }

    /// Renders a deferred report into `out` through a large buffer, and flushes it.
    fn render_into<W: Write + ?Sized>(deferred: &Deferred, out: &mut W) -> io::Result<()> {
        let render = deferred
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
            .ok_or_else(|| io::Error::other("the report was written already"))?;
        let mut out = io::BufWriter::with_capacity(trailgate_report::SPILL_BUFFER, out);
        render(&mut out)?;
        out.flush()
    }

    /// Writes the whole report into `out`. Where `out` is a `File` (not behind `dyn
    /// Write`), `std::io::copy` lets the kernel copy a spooled report (`copy_file_range`
    /// into a regular file), not this process's memory; into a pipe it copies through a
    /// buffer of 64 KiB.
    pub fn write_to<W: Write + ?Sized>(&self, out: &mut W) -> io::Result<()> {
        match self {
            Self::Bytes(bytes) => out.write_all(bytes),
            Self::Spooled(spool) => {
                let mut spool = spool;
                spool.seek(io::SeekFrom::Start(0))?;
                // Where the kernel cannot copy, a large buffer: few writes into a pipe.
                let mut spool = io::BufReader::with_capacity(trailgate_report::SPILL_BUFFER, spool);
                io::copy(&mut spool, out).map(|_| ())
            }
            Self::Deferred(deferred) => Self::render_into(deferred, out),
        }
    }

    /// The same report, for a second target. A spooled file is shared: each
    /// [`write_to`](Self::write_to) reads it from the start.
    pub fn share(&self) -> io::Result<Self> {
        Ok(match self {
            Self::Bytes(bytes) => Self::Bytes(bytes.clone()),
            Self::Spooled(file) => Self::Spooled(file.try_clone()?),
            Self::Deferred(_) => {
                return Err(io::Error::other(
                    "a report rendered as it is written has a single target",
                ));
            }
        })
    }
}

/// What a command prints on success, the files it writes, and whether a gate failed.
#[derive(Debug, Default)]
pub struct Output {
    /// The report for standard output.
    pub stdout: Rendered,
    /// Reports for `--output` files, written atomically once everything has rendered.
    pub files: Vec<(PathBuf, Rendered)>,
    /// Text appended to existing files (GitHub's job summary).
    pub appends: Vec<(PathBuf, Vec<u8>)>,
    /// The files the command read (the suite, the trace files, the shard reports), which no
    /// `--output` may replace.
    pub inputs: Vec<PathBuf>,
    /// Warnings for stderr, printed whatever the exit code.
    pub warnings: Vec<String>,
    /// Whether a gate failed: the suite's verdict.
    pub gate_failed: bool,
}

impl Output {
    /// Puts a rendered report where `target` sends it: a file to write, or standard output.
    pub(crate) fn deliver(
        &mut self,
        target: &ReportTarget,
        rendered: io::Result<Rendered>,
    ) -> Result<(), Error> {
        // Rendering cannot fail but on a full disk; then no half report is written.
        let rendered = rendered
            .map_err(|error| Error::Message(format!("cannot render the report: {error}")))?;
        match &target.path {
            Some(path) => self.files.push((path.clone(), rendered)),
            None => self.stdout = rendered,
        }
        Ok(())
    }
}

/// Renders a report into an anonymous temporary file.
pub(crate) fn spool(render: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<Rendered> {
    let mut out = trailgate_report::temporary_writer()?;
    render(&mut out)?;
    let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
    Ok(Rendered::Spooled(file))
}
