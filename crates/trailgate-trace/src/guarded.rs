//! Panics the reader catches: a third-party decoder that panics on a corrupt input (the
//! `parquet` crate on a page cut short) is called inside [`guarded`], and its panic becomes
//! an input error naming the file, row group and column (docs/robustness.md). A process's
//! panic hook asks [`in_guarded_decode`] so that such a panic prints nothing: the user
//! sees the diagnostic alone.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};

thread_local! {
    static GUARDED: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is inside a call whose panic the reader catches and reports as an
/// input error. A panic hook that prints nothing then keeps the diagnostic alone on stderr.
pub fn in_guarded_decode() -> bool {
    GUARDED.with(Cell::get)
}

/// Runs `call`, `None` when it panicked.
#[cfg_attr(not(feature = "parquet"), allow(dead_code))]
pub(crate) fn guarded<T>(call: impl FnOnce() -> T) -> Option<T> {
    let outer = GUARDED.with(|flag| flag.replace(true));
    let result = catch_unwind(AssertUnwindSafe(call));
    GUARDED.with(|flag| flag.set(outer));
    result.ok()
}

/// Installs a panic hook that prints nothing for a panic the reader catches
/// ([`in_guarded_decode`]) and hands every other panic to the hook there was.
pub fn quiet_guarded_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !in_guarded_decode() {
            previous(info);
        }
    }));
}
