//! Integration tests of `trailgate-expect` through its public API: the laws of evaluation
//! (`docs/robustness.md`, "Properties"), and which call values grading parses.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "test helpers fail loudly on a broken setup"
)]

mod laziness;
mod properties;
mod reliability;
