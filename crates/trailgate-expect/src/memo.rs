//! What a grader remembers from run to run about the tools a trace calls, such as which of
//! its entries a tool name matches: a trace calls the same few tools in every run, so each
//! is matched once rather than in every run.
//!
//! Each thread that scores runs grades with a copy of the test of its own, and a copy of a
//! [`Memo`] starts empty: the lock, taken once per run, is never waited for. What is
//! remembered only spares work; every answer is the one the matchers give.

use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// How many tools a memo remembers at most: far more than a trace calls, in practice. Past
/// it, tools are matched call by call; the maps are hashed without a key, so this bound
/// keeps a trace from crowding one with colliding names.
pub(crate) const REMEMBERED_TOOLS: usize = 256;

/// A grader's memory of the tools it met: empty in every copy.
#[derive(Default)]
pub(crate) struct Memo<T>(Mutex<T>);

impl<T> Memo<T> {
    /// The memory, for one run. A lock poisoned by a panic elsewhere holds answers found
    /// before it, which are still true.
    pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T: Default> Clone for Memo<T> {
    fn clone(&self) -> Self {
        Self::default()
    }
}

/// The memory is not part of what a grader is.
impl<T> fmt::Debug for Memo<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Memo")
    }
}
