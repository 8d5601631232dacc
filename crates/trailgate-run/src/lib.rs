//! The `trailgate check` pipeline as a library: from a suite's path and options to the
//! suite's verdict and every rendered report.
//!
//! [`check`] reads the suite, finds each test's trace files, reads them in parts, scores
//! the runs on as many threads as asked, folds the outcomes in file order and renders every
//! requested report, in memory or spooled to a temporary file. [`write_files`] then writes
//! the reports meant for files, all or none. This crate reads and writes files and nothing
//! else of the process: a front end (the `trailgate` command line, the Python package) reads
//! the environment and the terminal, writes standard output and error, and picks the exit
//! code.
//!
//! ```no_run
//! use std::path::Path;
//!
//! use trailgate_run::{CheckOptions, Format, ReportTarget};
//!
//! let options = CheckOptions::new(vec![ReportTarget::stdout(Format::Json)]);
//! match trailgate_run::check(Path::new("trailgate.yaml"), &options) {
//!     Ok(output) => {
//!         let mut report = Vec::new();
//!         output.stdout.write_to(&mut report).expect("a spooled report reads back");
//!         println!("gates failed: {}", output.gate_failed);
//!     }
//!     Err(error) => eprintln!("{error}"),
//! }
//! ```

mod check;
mod convert;
mod deliver;
mod discover;
mod error;
mod options;
mod output;
mod pairing;

pub use crate::check::check;
pub use crate::convert::convert;
pub use crate::deliver::{
    StdoutError, check_targets, remove_staged_then, write_files, write_stdout,
};
pub use crate::discover::display;
pub use crate::error::{Error, NothingSelected};
pub use crate::options::{
    CheckOptions, Format, NamePattern, ReportTarget, Selection, TraceOptions,
};
pub use crate::output::{Output, Rendered, spool};
pub use crate::pairing::limits_help;
