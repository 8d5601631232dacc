//! Integration tests of the `toolgate` binary: golden fixtures and command-line behaviour.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "test helpers fail loudly on a broken setup"
)]

mod cli;
mod delivery;
mod determinism;
mod golden;
mod hostile;
mod robustness;
mod safe_output;
mod shard;
mod support;
