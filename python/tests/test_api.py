"""The Python API of the installed package: check, score, read_trace and TrailgateError."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import trailgate

SEARCH_AND_FETCH = {"search": ["brave.web_search", "google.search"], "fetch": ["http.get"]}


def test_the_package_under_test_is_the_installed_wheel() -> None:
    source_tree = Path(__file__).resolve().parents[1]
    package = Path(trailgate.__file__).resolve()
    assert source_tree not in package.parents, package
    assert "site-packages" in package.parts


def test_check_returns_the_json_report_of_a_passing_suite(fixtures: Path) -> None:
    report = trailgate.check(fixtures / "seed-000-first-run" / "trailgate.yaml")
    assert report["version"] == 3
    assert report["passed"] is True
    assert report["summary"] == {"tests": 1, "passed": 1, "failed": 0}
    [test] = report["tests"]
    assert test["metrics"]["tool_selection.f1"] == 100


def test_check_reports_a_failed_gate_without_raising(fixtures: Path) -> None:
    report = trailgate.check(str(fixtures / "seed-000-second-run" / "trailgate.yaml"))
    assert report["passed"] is False
    [gate] = report["tests"][0]["gates"]
    assert (gate["target"], gate["actual"], gate["passed"]) == ("tool_selection.f1", 50, False)


def test_check_passes_options_through(fixtures: Path) -> None:
    suite = fixtures / "seed-000-first-run" / "trailgate.yaml"
    assert trailgate.check(suite, threads=2) == trailgate.check(suite)
    sharded = trailgate.check(suite, shard="1/2")
    assert sharded["shard"] is not None


def test_paths_and_values_that_start_with_a_dash_are_never_options(
    fixtures: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `check("-kok")` once ran `-k ok` on the default suite and passed.
    shutil.copy(fixtures / "seed-000-first-run" / "trailgate.yaml", tmp_path / "trailgate.yaml")
    shutil.copytree(fixtures / "seed-000-first-run" / "traces", tmp_path / "traces")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(trailgate.TrailgateError) as caught:
        trailgate.check("-kok")
    assert "-kok" in str(caught.value)
    with pytest.raises(trailgate.TrailgateError):
        trailgate.read_trace("--version")
    # A pattern or a test name that starts with `-` is one, not an option: it selects none.
    with pytest.raises(trailgate.TrailgateError) as caught:
        trailgate.check("trailgate.yaml", select="-x")
    assert "matches `-x`" in str(caught.value)
    with pytest.raises(trailgate.TrailgateError) as caught:
        trailgate.check("trailgate.yaml", tests=["-x"])
    assert "named `-x`" in str(caught.value)


def test_check_compares_gates_on_the_baseline_with_a_report(fixtures: Path) -> None:
    case = fixtures / "baseline-gates"
    without = trailgate.check(case / "trailgate.yaml")
    gate = without["tests"][0]["gates"][1]
    assert (gate["value"], gate["passed"], gate["skipped"]) == (None, None, "no --baseline given")
    assert without["passed"] is True
    compared = trailgate.check(case / "trailgate.yaml", baseline=case / "base.json")
    gate = compared["tests"][0]["gates"][1]
    assert gate["baseline"] == {"expression": "baseline - 15", "base": 100}
    assert (gate["value"], gate["passed"]) == (85, True)
    assert compared["passed"] is False
    # The runs' verdicts do not depend on the baseline.
    assert compared["tests"][0]["passed_runs"] == without["tests"][0]["passed_runs"] == 3
    with pytest.raises(trailgate.TrailgateError) as caught:
        trailgate.check(case / "trailgate.yaml", baseline=case / "trailgate.yaml")
    assert caught.value.code == 2
    assert "trailgate::baseline::json" in caught.value.diagnostic


def test_check_marks_the_tests_an_xfail_list_names(fixtures: Path) -> None:
    case = fixtures / "xfail-quarantined"
    unmarked = trailgate.check(case / "trailgate.yaml")
    assert unmarked["passed"] is False
    marked = trailgate.check(case / "trailgate.yaml", xfail=case / "quarantine.txt")
    assert marked["passed"] is True
    receipt = marked["tests"][1]
    assert (receipt["passed"], receipt["verdict"]) == (False, "xfail")
    assert receipt["xfail"].endswith("quarantine.txt:1")
    assert marked["summary"] == {"tests": 2, "passed": 1, "failed": 0, "xfailed": 1, "xpassed": 0}


def test_check_selects_tests_by_name_and_pattern(fixtures: Path) -> None:
    suite = fixtures / "expect-operators" / "trailgate.yaml"
    named = trailgate.check(suite, tests=["f1 in band", "f1 above 80"])
    assert [test["name"] for test in named["tests"]] == ["f1 above 80", "f1 in band"]
    assert named["summary"] == {"tests": 2, "passed": 1, "failed": 1}
    matched = trailgate.check(suite, select="^precision")
    assert matched["passed"] is True
    assert [test["name"] for test in matched["tests"]] == ["precision at most 100", "precision exactly 100"]


def test_check_raises_exit_4_when_nothing_is_selected(fixtures: Path) -> None:
    with pytest.raises(trailgate.TrailgateError) as caught:
        trailgate.check(fixtures / "expect-operators" / "trailgate.yaml", select="latency")
    assert caught.value.code == trailgate.EXIT_NOTHING_SELECTED == 4
    assert "no test name contains or matches `latency`" in caught.value.diagnostic


def test_check_raises_the_diagnostic_of_an_invalid_suite(fixtures: Path) -> None:
    with pytest.raises(trailgate.TrailgateError) as caught:
        trailgate.check(fixtures / "bad-duplicate-class-name" / "trailgate.yaml")
    assert caught.value.code == trailgate.EXIT_INVALID == 2
    assert "trailgate::suite::duplicate_name" in caught.value.diagnostic
    assert "class name `search` is used twice" in str(caught.value)
    # Captured text is plain: no escape sequences for a terminal.
    assert "\x1b[" not in caught.value.diagnostic


def test_check_raises_for_a_missing_suite(tmp_path: Path) -> None:
    with pytest.raises(trailgate.TrailgateError) as caught:
        trailgate.check(tmp_path / "nowhere.yaml")
    assert caught.value.code == 2
    assert "nowhere.yaml" in caught.value.diagnostic


def test_check_raises_for_an_invalid_option(fixtures: Path) -> None:
    with pytest.raises(trailgate.TrailgateError) as caught:
        trailgate.check(fixtures / "seed-000-first-run" / "trailgate.yaml", shard="3/2")
    assert caught.value.code == 2
    assert "--shard" in caught.value.diagnostic


def test_read_trace_returns_the_calls_trailgate_read(fixtures: Path) -> None:
    trace = fixtures / "seed-000-first-run" / "traces" / "research-agent-picks-search-then-fetch.json"
    [run] = trailgate.read_trace(trace)
    assert run["format"] == "trailgate"
    assert [(call["server"], call["name"]) for call in run["tool_calls"]] == [
        ("brave", "web_search"),
        ("http", "get"),
    ]


def test_read_trace_raises_for_a_malformed_trace(tmp_path: Path) -> None:
    trace = tmp_path / "broken.jsonl"
    trace.write_text('{"tool_calls": []}\n{"tool_calls": [\n', encoding="utf-8")
    with pytest.raises(trailgate.TrailgateError) as caught:
        trailgate.read_trace(trace)
    assert caught.value.code == 2
    assert "broken.jsonl" in caught.value.diagnostic


def test_score_gives_the_seed_example() -> None:
    result = trailgate.score(SEARCH_AND_FETCH, ["google.search", "shell.exec"])
    assert (result["true_positives"], result["false_positives"], result["false_negatives"]) == (1, 1, 1)
    assert (result["precision"], result["recall"], result["f1"]) == (50, 50, 50)
    assert result["classes"] == [
        {"class": "search", "satisfied_by": 1},
        {"class": "fetch", "satisfied_by": None},
    ]
    assert [(c["outcome"], c["class"]) for c in result["calls"]] == [
        ("satisfied", "search"),
        ("unexpected", None),
    ]


def test_score_takes_the_calls_read_trace_returns(fixtures: Path) -> None:
    trace = fixtures / "seed-000-first-run" / "traces" / "research-agent-picks-search-then-fetch.json"
    [run] = trailgate.read_trace(trace)
    # A second search is a repeat; a bare `get` is not `http.get`, which names its server.
    calls = [*run["tool_calls"], {"server": "google", "name": "search"}, "get"]
    result = trailgate.score(list(SEARCH_AND_FETCH.items()), calls)
    assert (result["true_positives"], result["false_positives"], result["false_negatives"]) == (2, 1, 0)
    assert [c["outcome"] for c in result["calls"]] == ["satisfied", "satisfied", "repeat", "unexpected"]


@pytest.mark.parametrize(
    ("classes", "message"),
    [
        ({"search": []}, "class `search` has no members"),
        ({"search": ["brave."]}, "invalid member `brave.` of class `search`"),
        ([("a", ["x"]), ("a", ["y"])], "class name `a` is declared twice"),
    ],
)
def test_score_raises_for_invalid_classes(classes: object, message: str) -> None:
    with pytest.raises(trailgate.TrailgateError) as caught:
        trailgate.score(classes, ["x"])  # type: ignore[arg-type]
    assert caught.value.code == 2
    assert message in caught.value.diagnostic


def test_score_takes_the_classes_as_the_suite_writes_them(fixtures: Path) -> None:
    # The suite's `classes:` as `yaml.safe_load` gives them, read here from the seed's suite
    # by hand so that the test needs no YAML package: the result is the mapping form's.
    suite_classes = [
        {"name": "search", "members": ["brave.web_search", "google.search"]},
        {"name": "fetch", "members": ["http.get"]},
    ]
    suite_text = (fixtures / "seed-000-first-run" / "trailgate.yaml").read_text(encoding="utf-8")
    assert "members: [brave.web_search, google.search]" in suite_text
    calls = ["google.search", "shell.exec"]
    assert trailgate.score(suite_classes, calls) == trailgate.score(SEARCH_AND_FETCH, calls)


def test_score_takes_members_in_their_object_form() -> None:
    # A server name with a dot in it: only the object form says where the server ends.
    classes = [
        {"name": "fetch", "members": [{"server": "acme.http", "tool": "get"}]},
        {"name": "list", "members": [{"tool": "repos.list"}]},
    ]
    calls = [{"server": "acme.http", "name": "get"}, {"server": "github", "name": "repos.list"}]
    result = trailgate.score(classes, calls)
    assert (result["true_positives"], result["false_positives"], result["false_negatives"]) == (2, 0, 0)
    # Written as one string, `acme.http.get` is server `acme`, tool `http.get`: no match.
    result = trailgate.score({"fetch": ["acme.http.get"]}, calls[:1])
    assert result["true_positives"] == 0
    with pytest.raises(trailgate.TrailgateError) as caught:
        trailgate.score([{"name": "fetch", "members": [{"server": "acme.http", "tool": ""}]}], [])
    assert "invalid member `{server: acme.http, tool: }` of class `fetch`" in caught.value.diagnostic


@pytest.mark.parametrize(
    ("classes", "message"),
    [
        ({"name": "search", "members": ["google.search"]}, "one class alone is not the classes; put it in a list"),
        ([{"name": "search", "tools": ["google.search"]}], "needs exactly the keys `name` and `members`"),
        ([{"name": "search", "members": [{"server": "google"}]}], "a member is a str"),
        ({"search": "google.search"}, "the members of class `search` are a list"),
        ("search", "classes are a list of `{name, members}` as in a suite"),
    ],
)
def test_score_names_the_accepted_shapes_of_classes(classes: object, message: str) -> None:
    with pytest.raises(TypeError) as caught:
        trailgate.score(classes, [])  # type: ignore[arg-type]
    assert message in str(caught.value)


def test_score_refuses_calls_of_the_wrong_type() -> None:
    with pytest.raises(TypeError):
        trailgate.score(SEARCH_AND_FETCH, [42])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        trailgate.score({"search": "google.search"}, [])


def test_the_console_script_is_the_command_line(fixtures: Path, tmp_path: Path) -> None:
    # The script pip installed beside this interpreter, whatever PATH says.
    command = shutil.which("trailgate", path=str(Path(sys.executable).parent))
    assert command is not None
    failing = subprocess.run(
        [command, "check", str(fixtures / "seed-000-second-run" / "trailgate.yaml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert failing.returncode == 1, failing.stderr
    assert "FAIL tool_selection.f1 >= 80  (actual 50)" in failing.stdout
    invalid = subprocess.run([command, "check", str(tmp_path / "none.yaml")], capture_output=True, text=True, check=False)
    assert invalid.returncode == 2
    assert "none.yaml" in invalid.stderr
    version = subprocess.run([command, "--version"], capture_output=True, text=True, check=False)
    assert version.returncode == 0
    assert version.stdout.startswith(f"trailgate {trailgate.__version__}")


def test_python_dash_m_runs_the_command(fixtures: Path) -> None:
    passing = subprocess.run(
        [sys.executable, "-m", "trailgate", "check", str(fixtures / "seed-000-first-run" / "trailgate.yaml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert passing.returncode == 0, passing.stderr
    assert "PASS 1 test" in passing.stdout


def test_suggest_writes_a_suite_that_passes_on_its_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    # A folder whose name starts with `-` is a path, not an option.
    runs = tmp_path / "-runs"
    runs.mkdir()
    for index, query in enumerate(["trailgate", "ci gates"]):
        (runs / f"run-{index}.json").write_text(
            '{"tool_calls": [{"name": "web_search", "server": "brave", "args": {"q": "%s"}},'
            ' {"name": "get", "server": "http"}]}' % query,
            encoding="utf-8",
        )
    suite = trailgate.suggest(["-runs"])
    assert '- name: "-runs"' in suite
    assert '"q": { "$type": "string" }  # differs between runs, always of type string' in suite
    assert suite == trailgate.suggest([Path("-runs")]), "the same runs give the same bytes"
    (tmp_path / "trailgate.yaml").write_text(suite, encoding="utf-8")
    report = trailgate.check()
    assert report["passed"] is True


def test_suggest_raises_for_runs_without_calls(tmp_path: Path) -> None:
    (tmp_path / "silent.json").write_text('{"tool_calls": []}', encoding="utf-8")
    with pytest.raises(trailgate.TrailgateError) as caught:
        trailgate.suggest([tmp_path / "silent.json"])
    assert caught.value.code == 2
    assert "no tool call was read" in caught.value.diagnostic
    with pytest.raises(TypeError):
        trailgate.suggest(tmp_path / "silent.json")  # type: ignore[arg-type]


def test_a_corrupt_parquet_page_is_an_error_without_a_panic_message(
    tmp_path: Path, fixtures: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # A page the `parquet` crate panics on; the reader catches the panic.
    columnar = fixtures.parent / "crates" / "trailgate-trace" / "src" / "columnar"
    runs = tmp_path / "runs.parquet"
    shutil.copyfile(columnar / "crash-plain-page-cut.parquet", runs)
    with pytest.raises(trailgate.TrailgateError) as caught:
        trailgate.read_trace(runs)
    # The diagnostic is wrapped to the terminal's width: compare its words.
    words = " ".join(caught.value.diagnostic.replace("│", " ").split())
    assert "row group 2, column `trace_id`: a page is corrupt" in words
    assert caught.value.code == 2
    assert "panicked" not in capfd.readouterr().err
