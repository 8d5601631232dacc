//! The pipelines of trailgate as a library: from a command's paths and options to its
//! verdict and every rendered report.
//!
//! [`check`] reads the suite, finds each test's trace files, reads them in parts, scores
//! the runs on as many threads as asked, folds the outcomes in file order and renders every
//! requested report, in memory or spooled to a temporary file. [`merge`] puts the shard
//! reports of `check --shard` back together, [`diff`] compares two JSON reports, [`trend`]
//! follows the metrics of several over time, [`compare`] compares 2 to 16 reports of one
//! suite for different agents or models, [`convert`]
//! turns trace files into trailgate's own call-list shape and [`accuracy`] scores a list of expected
//! calls against the calls made. Every report of a [`Format`] is rendered by one dispatch
//! (`report.rs`). [`write_files`] then writes the reports meant for files, all or none. This
//! crate reads and writes files and nothing else of the process: a front end (the
//! `trailgate` command line, the Python package) parses the command line, reads the
//! environment, the terminal and standard input, writes standard output and error, and
//! picks the exit code.
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

mod accuracy;
mod check;
mod compare;
mod convert;
mod deliver;
mod diff;
mod discover;
mod error;
mod init_from;
mod merge;
mod options;
mod output;
mod pairing;
mod report;
mod report_file;
mod trend;

pub use crate::accuracy::{Input, accuracy};
pub use crate::check::check;
pub use crate::compare::{COMPARE_FORMATS, compare};
pub use crate::convert::convert;
pub use crate::deliver::{
    StdoutError, check_targets, remove_staged_then, write_files, write_stdout,
};
pub use crate::diff::{DIFF_FORMATS, diff};
pub use crate::error::{Error, NothingSelected};
pub use crate::init_from::{InitOptions, init_from};
pub use crate::merge::{MERGE_FORMATS, merge};
pub use crate::options::{
    CheckOptions, Format, NamePattern, ReportTarget, Selection, TraceOptions,
};
pub use crate::output::{Output, Rendered};
pub use crate::trend::{TREND_FORMATS, trend};
