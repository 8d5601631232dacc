//! Ending the process on SIGINT, SIGTERM or SIGHUP without leaving a staged report behind.

use signal_hook::consts::signal::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// On SIGINT, SIGTERM or SIGHUP, removes the staged files (`trailgate_run::remove_staged_then`)
/// and then ends the process as the signal would have. A staged file is dropped (and
/// removed) on every other way out, but a signal ends the process without running
/// destructors. signal-hook's handler only writes to a pipe; the removal runs on an ordinary
/// thread, so it may take the lock.
pub(crate) fn remove_staged_on_signals() {
    let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    // Were the thread not to start, the closure and its `signals` are dropped, which
    // restores the default handlers: the signals then end the process as before.
    let _ = std::thread::Builder::new()
        .name("signals".to_owned())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                // The list of staged files stays locked, so no file is staged after the
                // removal.
                trailgate_run::remove_staged_then(|| {
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                    std::process::exit(128 + signal);
                });
            }
        });
}
