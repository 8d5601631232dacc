//! Integration tests of the `trailgate` binary: golden fixtures and command-line behaviour.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "test helpers fail loudly on a broken setup"
)]

mod baseline;
mod bounds;
mod browser;
mod cli;
mod compare;
mod cookbook;
mod delivery;
mod determinism;
mod diff;
mod golden;
mod hostile;
mod init_from;
mod numbers;
mod readme;
mod reliability;
mod robustness;
mod safe_output;
mod selection;
mod shard;
mod silent_zero;
mod suite_limits;
mod support;
mod trend;
mod xfail;
