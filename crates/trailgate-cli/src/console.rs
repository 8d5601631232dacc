//! Where a command's output goes: the process's own streams, or an embedder's buffers.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsFd;

/// The two streams [`run`](crate::run) writes to.
///
/// The `trailgate` binary writes to the process's standard output and error; the Python
/// package captures both, so that an error becomes an exception carrying the diagnostic.
/// Colour follows `--color`, and with `auto` the process's own terminal: an embedder that
/// captures the streams passes `--color never`.
pub struct Console<'a> {
    streams: Streams<'a>,
}

enum Streams<'a> {
    Process(io::Stdout, io::Stderr),
    Captured(&'a mut dyn Write, &'a mut dyn Write),
}

impl Console<'static> {
    /// The process's standard output and standard error.
    pub fn process() -> Self {
        Self {
            streams: Streams::Process(io::stdout(), io::stderr()),
        }
    }
}

impl<'a> Console<'a> {
    /// Writes what would go to standard output into `stdout`, and standard error into
    /// `stderr`.
    pub fn captured(stdout: &'a mut dyn Write, stderr: &'a mut dyn Write) -> Self {
        Self {
            streams: Streams::Captured(stdout, stderr),
        }
    }

    /// Whether these are the process's own streams.
    pub(crate) fn is_process(&self) -> bool {
        matches!(self.streams, Streams::Process(..))
    }

    pub(crate) fn stdout(&mut self) -> &mut dyn Write {
        match &mut self.streams {
            Streams::Process(stdout, _) => stdout,
            Streams::Captured(stdout, _) => *stdout,
        }
    }

    /// The process's own standard output as a file (a duplicate of its descriptor), after
    /// what was written to it so far: a large report written there is not cut at every
    /// line break, as `Stdout` would, and a spooled one is copied by the kernel. `None` for
    /// captured streams, or when the descriptor cannot be duplicated.
    pub(crate) fn stdout_file(&mut self) -> Option<File> {
        let Streams::Process(stdout, _) = &mut self.streams else {
            return None;
        };
        stdout.flush().ok()?;
        stdout.as_fd().try_clone_to_owned().ok().map(File::from)
    }

    pub(crate) fn stderr(&mut self) -> &mut dyn Write {
        match &mut self.streams {
            Streams::Process(_, stderr) => stderr,
            Streams::Captured(_, stderr) => *stderr,
        }
    }

    /// Prints what clap has to say: help and version on standard output, usage errors on
    /// standard error. A stream that cannot be written leaves nothing more to say, and the
    /// exit code still carries the verdict.
    pub(crate) fn clap_error(&mut self, error: &clap::Error) {
        match &mut self.streams {
            // clap styles its text for a terminal only, as it does when it prints alone.
            Streams::Process(..) => {
                let _ = error.print();
            }
            // `StyledStr`'s `Display` leaves the styles out: a buffer is no terminal.
            Streams::Captured(stdout, stderr) => {
                let stream = if error.use_stderr() { stderr } else { stdout };
                let _ = write!(stream, "{}", error.render());
            }
        }
    }
}

#[cfg(test)]
mod tests;
