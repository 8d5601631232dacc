//! `check --baseline`: reading the baseline report (with `diff`'s reader and its refusals)
//! into the metrics its gates compare with, and a gate's baseline in the JSON report.

use std::collections::BTreeMap;
use std::io::{Read, Seek};

use serde::Serialize;
use toolgate_expect::{Baseline, BaselineUse, GateOutcome, GateValue, SuiteError};

use crate::diff::{Reader, ReportFile, read_checked};

/// Reads the baseline report of `check --baseline`: each test's metrics by name.
///
/// Refused with a diagnostic naming the file, as `diff` refuses a report: a file that is not
/// JSON (with its line and column), not a toolgate report, a report of another version, a
/// shard's report, and a report that names a test twice.
pub fn read_baseline<R: Read + Seek>(mut file: ReportFile<R>) -> Result<Baseline, SuiteError> {
    let read = read_checked(&mut file, None, Reader::Baseline)?;
    let tests: BTreeMap<String, BTreeMap<String, u8>> = read
        .tests
        .into_iter()
        .map(|test| (test.name, test.metrics))
        .collect();
    Ok(Baseline::new(tests))
}

/// A gate's `baseline` object in the JSON report: its expression as written and the
/// baseline report's value of the metric (null when the gate was skipped).
#[derive(Debug, Serialize)]
pub(crate) struct GateBaseline {
    expression: String,
    base: Option<u8>,
}

impl GateBaseline {
    /// The object of a gate on the baseline; `None` for any other gate.
    pub(crate) fn of(gate: &GateOutcome) -> Option<Self> {
        let GateValue::Baseline(offset) = gate.gate.value else {
            return None;
        };
        let base = match &gate.baseline {
            Some(BaselineUse::Resolved { base, .. }) => Some(base.value()),
            _ => None,
        };
        Some(Self {
            expression: offset.to_string(),
            base,
        })
    }
}
