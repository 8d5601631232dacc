//! Integration tests of `trailgate-core` used as an embedder uses it: from outside, alone.

mod embedding;
mod properties;
mod reference;
mod reliability;
mod reliability_laws;
