"""The pytest plugin of the installed package, run through pytester: `pytest --trailgate`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


def suite(pytester: pytest.Pytester, fixtures: Path, case: str) -> str:
    """Copies a golden case into pytester's folder and returns its suite's path."""
    shutil.copytree(fixtures / case, pytester.path / case)
    return str(pytester.path / case / "trailgate.yaml")


def test_a_passing_suite_gives_a_passing_item(pytester: pytest.Pytester, fixtures: Path) -> None:
    result = pytester.runpytest("--trailgate", suite(pytester, fixtures, "seed-000-first-run"), "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*trailgate.yaml::research-agent picks search then fetch PASSED*"])
    assert result.ret == pytest.ExitCode.OK


def test_a_failing_suite_fails_its_item_with_the_gate_report(
    pytester: pytest.Pytester, fixtures: Path
) -> None:
    result = pytester.runpytest("--trailgate", suite(pytester, fixtures, "seed-000-second-run"))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*FAIL research-agent picks search then fetch (1 run)",
            "*gates",
            "*FAIL tool_selection.f1 >= 80  (actual 50)  trailgate.yaml:13",
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_gates_on_the_baseline_are_skipped_or_compared_with_the_baseline(
    pytester: pytest.Pytester, fixtures: Path
) -> None:
    path = suite(pytester, fixtures, "baseline-gates")
    result = pytester.runpytest("--trailgate", path)
    result.assert_outcomes(passed=3)
    base = str(pytester.path / "baseline-gates" / "base.json")
    result = pytester.runpytest("--trailgate", path, "--trailgate-baseline", base)
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*FAIL search then fetch (3 runs)",
            "*gates",
            "*PASS tool_selection.f1 >= 50  (actual 90)  trailgate.yaml:11",
            "*PASS tool_selection.f1 >= baseline - 15 (baseline 100, so 85)  (actual 90)  trailgate.yaml:12",
            "*FAIL tool_selection.recall >= baseline (baseline 100, so 100)  (actual 83)  trailgate.yaml:13",
        ]
    )


def test_both_suites_and_the_projects_own_tests_run_together(
    pytester: pytest.Pytester, fixtures: Path
) -> None:
    pytester.makepyfile(test_own="def test_own():\n    assert True\n")
    result = pytester.runpytest(
        "--trailgate",
        suite(pytester, fixtures, "seed-000-first-run"),
        "--trailgate",
        suite(pytester, fixtures, "seed-000-second-run"),
    )
    result.assert_outcomes(passed=2, failed=1)


def test_k_selects_among_the_suites_tests(pytester: pytest.Pytester, fixtures: Path) -> None:
    pytester.makepyfile(test_own="def test_own():\n    assert True\n")
    result = pytester.runpytest("--trailgate", suite(pytester, fixtures, "seed-000-first-run"), "-k", "research")
    result.assert_outcomes(passed=1, deselected=1)


def test_an_invalid_suite_fails_with_the_diagnostic(pytester: pytest.Pytester, fixtures: Path) -> None:
    result = pytester.runpytest("--trailgate", suite(pytester, fixtures, "bad-duplicate-class-name"))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*trailgate exited 2:*", "*class name `search` is used twice*"])


def test_without_the_option_the_plugin_adds_nothing(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_own="def test_own():\n    assert True\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)


def test_the_header_counts_the_suites_tests_among_those_collected_and_deselected(
    pytester: pytest.Pytester, fixtures: Path
) -> None:
    # Three tests of the suite and the project's own test: `-k` keeps one of the suite's.
    pytester.makepyfile(test_own="def test_own():\n    assert True\n")
    path = suite(pytester, fixtures, "merge-shards")
    result = pytester.runpytest("--trailgate", path, "-k", "wanders")
    result.stdout.fnmatch_lines(["collected 5 items / 4 deselected / 1 selected"])
    result.assert_outcomes(failed=1, deselected=4)
    result = pytester.runpytest("--trailgate", path, "--collect-only", "-q")
    result.stdout.fnmatch_lines(["*trailgate.yaml::researcher wanders", "5 tests collected*"])


def test_a_suite_in_a_folder_pytest_walks_is_collected_once(pytester: pytest.Pytester, fixtures: Path) -> None:
    result = pytester.runpytest("--trailgate", suite(pytester, fixtures, "seed-000-first-run"), str(pytester.path))
    result.stdout.fnmatch_lines(["collected 1 item"])
    result.assert_outcomes(passed=1)


def test_a_suite_that_does_not_exist_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--trailgate", "missing.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*file or directory not found*missing.yaml"])
