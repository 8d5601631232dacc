//! Integration tests of `trailgate-trace` through its public API: the files real agents wrote
//! (`wild`), and the limits on what a trace may hold (`docs/robustness.md`, "Limits").

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "test helpers fail loudly on a broken setup"
)]

mod limits;
mod wild;
