"""The ``trailgate`` console script: the command line of the Rust binary, in this process."""

from __future__ import annotations

import signal
import sys

from trailgate import _native


def main() -> None:
    """Runs ``trailgate`` with this process's arguments and exits with its exit code."""
    # Python turns Ctrl-C into an exception that only fires once the native call returns;
    # the default action stops the command at once, as it stops the binary.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    # Anything Python buffered must come out before the command writes to the same streams.
    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(_native.run(["trailgate", *sys.argv[1:]]))
