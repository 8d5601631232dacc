//! A gate on the baseline (`check --baseline`) in the JSON report: its `baseline` object.
//! The baseline report itself is read in `diff/baseline.rs`, with `diff`'s reader.

use serde::Serialize;
use trailgate_expect::{BaselineUse, GateOutcome, GateValue, MetricValue};

/// A gate's `baseline` object in the JSON report: its expression as written and the
/// baseline report's value of the metric (null when the gate was skipped).
#[derive(Debug, Serialize)]
pub(crate) struct GateBaseline {
    expression: String,
    base: Option<MetricValue>,
}

impl GateBaseline {
    /// The object of a gate on the baseline; `None` for any other gate.
    pub(crate) fn of(gate: &GateOutcome) -> Option<Self> {
        let GateValue::Baseline(offset) = gate.gate.value else {
            return None;
        };
        let base = match &gate.baseline {
            Some(BaselineUse::Resolved { base, .. }) => Some(*base),
            _ => None,
        };
        Some(Self {
            expression: offset.to_string(),
            base,
        })
    }
}
