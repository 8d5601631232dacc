//! `check --baseline`: reading the baseline report with `diff`'s reader and its refusals,
//! into the metrics its gates compare with.

use std::collections::BTreeMap;
use std::io::{Read, Seek};

use trailgate_expect::{Baseline, MetricValue, SuiteError};

use super::{Reader, ReportFile, read_checked};

/// Reads the baseline report of `check --baseline`: each test's metrics by name.
///
/// Refused with a diagnostic naming the file, as `diff` refuses a report: a file that is not
/// JSON (with its line and column), not a trailgate report, a report of another version, a
/// shard's report, and a report that names a test twice.
pub fn read_baseline<R: Read + Seek>(mut file: ReportFile<R>) -> Result<Baseline, SuiteError> {
    let read = read_checked(&mut file, None, Reader::Baseline)?;
    let tests: BTreeMap<String, BTreeMap<String, MetricValue>> = read
        .tests
        .into_iter()
        .map(|test| (test.name, test.metrics))
        .collect();
    Ok(Baseline::new(tests))
}
