//! The `trailgate` binary: the command line of the `trailgate_cli` library on the process's
//! own streams.

use std::process::ExitCode;

/// mimalloc: scoring allocates and frees small values for every call, on every worker,
/// where the system allocator spent a third of the time (docs/performance.md). Set here, not in the library, so that an embedder (the
/// Python package) keeps its own allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // A panic the reader catches in a third-party decoder is an input error, told by its
    // diagnostic alone (docs/robustness.md).
    trailgate_trace::quiet_guarded_panics();
    ExitCode::from(trailgate_cli::run(
        std::env::args_os(),
        &mut trailgate_cli::Console::process(),
    ))
}
