//! Integration tests of `toolgate-expect` through its public API: the laws of evaluation
//! (`docs/robustness.md`, "Properties").

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "test helpers fail loudly on a broken setup"
)]

mod properties;
