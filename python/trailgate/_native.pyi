"""Type stubs for ``trailgate._native``, the Rust half of the package (crates/trailgate-python)."""

from typing import Any, Optional, Sequence, Union


__version__: str

def run(args: Sequence[str]) -> int:
    """Runs the ``trailgate`` command line (program name first) on this process's streams."""

def run_captured(args: Sequence[str]) -> tuple[int, bytes, str]:
    """Runs the command line with its output captured: (exit code, stdout, stderr)."""

def check(args: Sequence[str]) -> tuple[int, bytes, str]:
    """Checks a suite as the ``trailgate check`` command line says: (exit code, report, diagnostic)."""

def read_trace(args: Sequence[str]) -> tuple[int, bytes, str]:
    """Reads traces as the ``trailgate convert`` command line says: (exit code, runs, diagnostic)."""

def score(
    classes: Sequence[tuple[str, Sequence[Union[str, tuple[Optional[str], str]]]]],
    calls: Sequence[tuple[Optional[str], str]],
) -> dict[str, Any]:
    """Scores one run's calls against classes; raises ValueError for invalid classes."""
