//! A count of the work a grader does where an input could make it grow past linear, so that
//! a test can bound the work by counting it rather than by timing it
//! (docs/robustness.md#limits). Outside the crate's own tests, counting compiles to nothing.

#[cfg(test)]
thread_local! {
    /// The units counted on this thread since [`counted`] began.
    static DONE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts `units` of work: bytes read, calls visited, pairs asked about.
#[inline]
pub(crate) fn count(units: usize) {
    #[cfg(test)]
    DONE.with(|done| done.set(done.get().saturating_add(units)));
    #[cfg(not(test))]
    let _ = units;
}

/// What `f` returns, and the units of work it counted.
#[cfg(test)]
pub(crate) fn counted<T>(f: impl FnOnce() -> T) -> (T, usize) {
    DONE.with(|done| done.set(0));
    let value = f();
    (value, DONE.with(std::cell::Cell::get))
}
