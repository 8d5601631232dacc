//! What a command hands back to `main`: its reports, the files to write, and its exit code.

use std::fs::File;
use std::io::{self, Seek, Write};
use std::path::PathBuf;

use miette::Report;

use crate::cli::ReportTarget;

/// A rendered report: in memory, or spooled to an anonymous temporary file when it grows
/// with the number of runs (the JSON report).
#[derive(Debug)]
pub(crate) enum Rendered {
    Bytes(Vec<u8>),
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
    pub(crate) fn write_to(&self, out: &mut dyn Write) -> io::Result<()> {
        match self {
            Self::Bytes(bytes) => out.write_all(bytes),
            Self::Spooled(file) => {
                let mut file = file;
                file.seek(io::SeekFrom::Start(0))?;
                io::copy(&mut file, out).map(|_| ())
            }
        }
    }

    /// The same report, for a second target. A spooled file is shared: each
    /// [`write_to`](Self::write_to) reads it from the start.
    pub(crate) fn share(&self) -> io::Result<Self> {
        Ok(match self {
            Self::Bytes(bytes) => Self::Bytes(bytes.clone()),
            Self::Spooled(file) => Self::Spooled(file.try_clone()?),
        })
    }
}

/// What a command prints on success, the files it writes, and its exit code.
#[derive(Debug, Default)]
pub(crate) struct Output {
    pub(crate) stdout: Rendered,
    /// Reports for `--output` files, written atomically once everything has rendered.
    pub(crate) files: Vec<(PathBuf, Rendered)>,
    /// Text appended to existing files (GitHub's job summary).
    pub(crate) appends: Vec<(PathBuf, Vec<u8>)>,
    /// The files the command read (the suite, the trace files, the shard reports), which no
    /// `--output` may replace.
    pub(crate) inputs: Vec<PathBuf>,
    /// Warnings for stderr, printed whatever the exit code.
    pub(crate) warnings: Vec<String>,
    pub(crate) code: u8,
}

impl Output {
    /// Puts a rendered report where `target` sends it: a file to write, or standard output.
    pub(crate) fn deliver(
        &mut self,
        target: &ReportTarget,
        rendered: io::Result<Rendered>,
    ) -> Result<(), Report> {
        // Rendering cannot fail but on a full disk; then no half report is written.
        let rendered =
            rendered.map_err(|error| Report::msg(format!("cannot render the report: {error}")))?;
        match &target.path {
            Some(path) => self.files.push((path.clone(), rendered)),
            None => self.stdout = rendered,
        }
        Ok(())
    }
}
