"""The one-liners of docs/reports.md over the JSON Lines report, run as the page writes them.

Each is read from the page (the fenced block after its ``<!-- checked: TOOL -->`` marker), so
the page and the test cannot drift, run on the JSON Lines report of a fixture, and its answer
compared with what the JSON report of the same run says. A tool that is missing skips its
test on a developer's machine; with ``CI`` set, it fails (``.ci/run`` installs them).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs" / "reports.md"

#: Several tests, runs that fail and runs that pass.
FIXTURE = "diff-regression/head"


def one_liner(tool: str) -> str:
    """The fenced block after the page's ``<!-- checked: TOOL -->`` marker."""
    text = DOCS.read_text(encoding="utf-8")
    found = re.search(rf"<!-- checked: {tool} -->\n```[a-z]*\n(.*?)\n```", text, re.S)
    assert found, f"docs/reports.md has no one-liner checked with {tool}"
    return found.group(1)


def need(module_or_command: str, present: bool) -> None:
    if not present:
        if os.environ.get("CI"):
            pytest.fail(f"{module_or_command} is missing; .ci/run installs it")
        pytest.skip(f"{module_or_command} is not installed")


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory, fixtures_dir: Path) -> tuple[Path, dict[str, Any]]:
    """The JSON Lines and JSON reports of one run of the fixture, in a temporary folder."""
    out = tmp_path_factory.mktemp("reports")
    run = subprocess.run(
        [
            sys.executable, "-m", "trailgate", "check", str(fixtures_dir / FIXTURE / "trailgate.yaml"),
            "--format", "jsonl", "--output", str(out / "report.jsonl"),
            "--format", "json", "--output", str(out / "report.json"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode in (0, 1), run.stderr
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return out, report


@pytest.fixture(scope="module")
def fixtures_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "fixtures"


def runs_per_test(report: dict[str, Any]) -> dict[str, tuple[int, int]]:
    return {test["name"]: (test["runs"], test["passed_runs"]) for test in report["tests"]}


def test_the_fixture_has_failing_and_passing_runs(reports: tuple[Path, dict[str, Any]]) -> None:
    _, report = reports
    counts = runs_per_test(report).values()
    assert any(passed < runs for runs, passed in counts)
    assert any(passed > 0 for _, passed in counts)


def test_the_jq_one_liner_lists_the_failing_runs(reports: tuple[Path, dict[str, Any]]) -> None:
    need("jq", shutil.which("jq") is not None)
    folder, report = reports
    run = subprocess.run(one_liner("jq"), shell=True, cwd=folder, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    found = [json.loads(line) for line in run.stdout.splitlines()]
    expected = [
        {"test": test["name"], "run": source["run"], "source": source["source"], "line": source["line"]}
        for test in report["tests"]
        for source in test["sources"]
        if not source["passed"]
    ]
    assert expected, "the fixture has failing runs"
    assert found == expected


def test_the_duckdb_query_counts_runs_and_passed_runs(
    reports: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    try:
        import duckdb
    except ImportError:
        need("duckdb", False)
        return
    folder, report = reports
    monkeypatch.chdir(folder)
    rows = duckdb.sql(one_liner("duckdb")).fetchall()
    expected = runs_per_test(report)
    assert rows == [(name, *expected[name]) for name in sorted(expected)]


def test_the_pandas_line_gives_each_tests_pass_rate(
    reports: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    try:
        import pandas as pd
    except ImportError:
        need("pandas", False)
        return
    folder, report = reports
    monkeypatch.chdir(folder)
    scope: dict[str, Any] = {"pd": pd}
    exec(one_liner("pandas"), scope)
    rates = scope["rates"].to_dict()
    expected = {name: passed / runs for name, (runs, passed) in runs_per_test(report).items()}
    assert rates == pytest.approx(expected)
