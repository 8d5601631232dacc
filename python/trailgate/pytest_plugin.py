"""The pytest plugin: ``pytest --trailgate trailgate.yaml`` gates a pytest run on a suite.

Each test of the suite becomes a pytest item, which fails when one of its gates fails and
shows the test's gates, metrics and runs. The suite is checked once, when pytest collects
its items; an invalid suite or trace becomes one failing item showing the diagnostic.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pytest

import trailgate


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("trailgate", "gate on recorded agent traces with trailgate")
    group.addoption(
        "--trailgate",
        action="append",
        default=[],
        metavar="SUITE",
        help="run each test of this trailgate suite as a pytest item (repeatable)",
    )
    group.addoption(
        "--trailgate-baseline",
        default=None,
        metavar="FILE",
        help="the JSON report that the suites' gates on the baseline compare with (`--baseline`)",
    )


def suites(config: pytest.Config) -> list[Path]:
    """The suites given with `--trailgate`, as absolute paths."""
    return [Path(suite).resolve() for suite in config.getoption("trailgate")]


def pytest_configure(config: pytest.Config) -> None:
    # The suites are collected as pytest collects any file it is given, so that their items
    # count in "collected N items" and pytest's own `-k` and `-m` deselect among them (a
    # suite inside a folder pytest also walks is collected once: pytest drops the second).
    for suite in suites(config):
        if str(suite) not in config.args:
            config.args.append(str(suite))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Optional[pytest.Collector]:
    if file_path.resolve() in suites(parent.config):
        return TrailgateSuite.from_parent(parent, path=file_path)
    return None


class TrailgateSuite(pytest.File):
    """A trailgate suite file, checked once: its items are its tests."""

    def collect(self) -> list[pytest.Item]:  # type: ignore[override]
        baseline = self.config.getoption("trailgate_baseline")
        try:
            report = trailgate.check(self.path, baseline=baseline)
        except trailgate.TrailgateError as error:
            return [TrailgateInvalid.from_parent(self, name="suite", error=error)]
        return [
            TrailgateTest.from_parent(self, name=test["name"], test=test)
            for test in report["tests"]
        ]


class GateFailed(Exception):
    """A test of the suite failed a gate."""


class TrailgateTest(pytest.Item):
    """One test of a suite: passes when every gate of the test passed."""

    def __init__(self, *, test: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.test = test

    def runtest(self) -> None:
        if not self.test["passed"]:
            raise GateFailed(self.test["name"])

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Optional[str] = None) -> str:  # type: ignore[override]
        if isinstance(excinfo.value, GateFailed):
            return gate_report(self.test, self.path.name)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, Optional[int], str]:
        return self.path, None, f"trailgate: {self.name}"


class TrailgateInvalid(pytest.Item):
    """A suite trailgate refused: fails with the diagnostic."""

    def __init__(self, *, error: trailgate.TrailgateError, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error = error

    def runtest(self) -> None:
        raise self.error

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Optional[str] = None) -> str:  # type: ignore[override]
        return f"trailgate exited {self.error.code}:\n{self.error.diagnostic}"

    def reportinfo(self) -> tuple[Path, Optional[int], str]:
        return self.path, None, f"trailgate: {self.path.name}"


def gate_report(test: dict[str, Any], suite: str) -> str:
    """The test's gates, metrics and runs, in the words of trailgate's text report."""
    runs = test["runs"]
    lines = [f"FAIL {test['name']} ({runs} run{'s' if runs != 1 else ''})", "  gates"]
    for gate in test["gates"]:
        # A gate on the baseline shows its expression, and what it resolved to or why it
        # was skipped (`passed` is then null: it neither passed nor failed).
        skipped = gate.get("skipped")
        baseline = gate.get("baseline")
        if skipped is not None:
            verdict, outcome = "SKIP", f"skipped: {skipped}"
        else:
            verdict, outcome = ("PASS" if gate["passed"] else "FAIL"), f"(actual {gate['actual']})"
        value = gate["value"]
        if baseline is not None:
            value = baseline["expression"]
            if skipped is None:
                value += f" (baseline {baseline['base']}, so {gate['value']})"
        lines.append(f"    {verdict} {gate['target']} {gate['op']} {value}  {outcome}  {suite}:{gate['line']}")
    if test["metrics"]:
        lines.append("  metrics")
        lines += [f"    {name} {value}" for name, value in test["metrics"].items()]
    # A large test lists its first runs; the JSON report has them all.
    shown = test["sources"][:MAX_RUNS_SHOWN]
    lines.append("  runs")
    lines += [
        f"    run {source['run']}  {source['source']}"
        + (f":{source['line']}" if source["line"] is not None else "")
        + f"  ({source['calls']} calls)"
        for source in shown
    ]
    if len(test["sources"]) > len(shown):
        lines.append(f"    ... and {len(test['sources']) - len(shown)} more")
    return "\n".join(lines)


#: How many runs a failing item lists.
MAX_RUNS_SHOWN = 20
