//! Where the reports that list every run (JSON, HTML) keep each run's lines until the report
//! is written: in memory for a small outcome, or in an anonymous temporary file, written and
//! read back through large buffers.

use std::fs::File;
use std::io::{self, BufRead, Seek, Write};

/// The buffer of a temporary file that a report's lines are spilled into, or the report
/// itself spooled into, and of the reader of a spill: large, so that a report of hundreds of
/// megabytes is written and read back in few calls, and its entries copied in large blocks.
pub const SPILL_BUFFER: usize = 64 * 1024;

/// A new anonymous temporary file, written through a buffer of [`SPILL_BUFFER`]: what a
/// spill, a spooled report and the JSON Lines report being written are kept in.
pub fn temporary_writer() -> io::Result<io::BufWriter<File>> {
    Ok(io::BufWriter::with_capacity(
        SPILL_BUFFER,
        tempfile::tempfile()?,
    ))
}

/// Lines written one after the other, to be read back from the first.
#[derive(Debug)]
pub(crate) enum Spill {
    Memory(Vec<u8>),
    File(io::BufWriter<File>),
}

impl Spill {
    /// A spill into a new anonymous temporary file.
    pub(crate) fn file() -> io::Result<Self> {
        temporary_writer().map(Self::File)
    }

    /// A spill in memory.
    pub(crate) fn memory() -> Self {
        Self::Memory(Vec::new())
    }

    /// Writes one line: `parts` one after the other, then a line break.
    pub(crate) fn line(&mut self, parts: &[&[u8]]) -> io::Result<()> {
        match self {
            Self::Memory(bytes) => {
                for part in parts {
                    bytes.extend_from_slice(part);
                }
                bytes.push(b'\n');
            }
            Self::File(file) => {
                for part in parts {
                    file.write_all(part)?;
                }
                file.write_all(b"\n")?;
            }
        }
        Ok(())
    }

    /// The lines written, for reading from the first.
    pub(crate) fn into_reader(self) -> io::Result<Box<dyn BufRead>> {
        Ok(match self {
            Self::Memory(bytes) => Box::new(io::Cursor::new(bytes)),
            Self::File(file) => {
                let mut file = file.into_inner().map_err(io::IntoInnerError::into_error)?;
                file.seek(io::SeekFrom::Start(0))?;
                Box::new(io::BufReader::with_capacity(SPILL_BUFFER, file))
            }
        })
    }
}
