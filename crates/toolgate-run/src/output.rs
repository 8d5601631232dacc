//! What a command hands back to its front end: its reports, the files to write, and
//! whether a gate failed.

use std::fs::File;
use std::io::{self, Seek, Write};
use std::path::PathBuf;

use crate::error::Error;
use crate::options::ReportTarget;

/// A rendered report: in memory, or spooled to an anonymous temporary file when it grows
/// with the number of runs (the JSON report).
#[derive(Debug)]
pub enum Rendered {
    /// The report's bytes.
    Bytes(Vec<u8>),
    /// An anonymous temporary file holding the report.
    Spooled(File),
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
    /// Writes the whole report into `out`.
    pub fn write_to(&self, out: &mut dyn Write) -> io::Result<()> {
        match self {
            Self::Bytes(bytes) => out.write_all(bytes),
            Self::Spooled(file) => {
                let mut file = file;
                file.seek(io::SeekFrom::Start(0))?;
                io::copy(&mut file, out).map(|_| ())
            }
        }
    }

    /// Writes the whole report into `file`; a spooled report is copied by the kernel
    /// (`copy_file_range`, `sendfile` or `splice`), not through this process's memory.
    pub fn write_to_file(&self, mut file: &File) -> io::Result<()> {
        match self {
            Self::Bytes(bytes) => file.write_all(bytes),
            Self::Spooled(spool) => {
                let mut spool = spool;
                spool.seek(io::SeekFrom::Start(0))?;
                io::copy(&mut spool, &mut file).map(|_| ())
            }
        }
    }

    /// Writes the whole report to the process's standard output, and flushes it; a spooled
    /// report is copied by the kernel, as by [`write_to_file`](Self::write_to_file).
    pub fn write_to_stdout(&self) -> io::Result<()> {
        let mut stdout = io::stdout().lock();
        stdout.flush()?;
        match self {
            Self::Bytes(bytes) => stdout.write_all(bytes)?,
            Self::Spooled(spool) => {
                let mut spool = spool;
                spool.seek(io::SeekFrom::Start(0))?;
                io::copy(&mut spool, &mut stdout)?;
            }
        }
        stdout.flush()
    }

    /// The same report, for a second target. A spooled file is shared: each
    /// [`write_to`](Self::write_to) reads it from the start.
    pub fn share(&self) -> io::Result<Self> {
        Ok(match self {
            Self::Bytes(bytes) => Self::Bytes(bytes.clone()),
            Self::Spooled(file) => Self::Spooled(file.try_clone()?),
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
    pub fn deliver(
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
pub fn spool(render: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<Rendered> {
    let file = tempfile::tempfile()?;
    let mut out = io::BufWriter::with_capacity(toolgate_report::SPILL_BUFFER, file);
    render(&mut out)?;
    let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
    Ok(Rendered::Spooled(file))
}
