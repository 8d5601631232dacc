"""The GitHub Action's script (action/run.sh), run as the runner would, on bundled fixtures."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "action" / "run.sh"


def run_action(
    work: Path,
    case: str,
    fixtures: Path,
    *,
    tools: Path | None = None,
    script: Path = SCRIPT,
    runner_env: dict[str, str] | None = None,
    **inputs: str,
) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    """Runs the script in a copy of a golden case, with the runner's files and these inputs;
    `tools`, a folder of commands found before any other; `runner_env`, more of the runner's
    variables."""
    shutil.copytree(fixtures / case, work / case)
    runner = work / "runner"
    runner.mkdir()
    env = {
        # The package under test provides `trailgate`; nothing else of this environment leaks.
        "PATH": os.pathsep.join(
            [*([str(tools)] if tools else []), str(Path(sys.executable).parent), "/usr/bin", "/bin"]
        ),
        "HOME": str(work),
        "RUNNER_TEMP": str(runner),
        "GITHUB_OUTPUT": str(runner / "output"),
        "GITHUB_STEP_SUMMARY": str(runner / "summary.md"),
        "GITHUB_PATH": str(runner / "path"),
        "TRAILGATE_INSTALL": "none",
        **(runner_env or {}),
        **{f"TRAILGATE_{name.upper()}": value for name, value in inputs.items()},
    }
    result = subprocess.run(
        ["bash", str(script)], cwd=work / case, env=env, capture_output=True, text=True, check=False
    )
    output_file = runner / "output"
    outputs = parse_outputs(output_file.read_text(encoding="utf-8")) if output_file.exists() else {}
    return result, outputs


def parse_outputs(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT's `name=value` and `name<<END ... END` entries."""
    outputs: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line:
            name, end = line.split("<<", 1)
            value = []
            for inner in lines:
                if inner == end:
                    break
                value.append(inner)
            outputs[name] = "\n".join(value)
        else:
            name, _, value = line.partition("=")
            outputs[name] = value
    return outputs


def test_a_failing_suite_annotates_summarises_writes_every_report_and_exits_1(
    tmp_path: Path, fixtures: Path
) -> None:
    result, outputs = run_action(tmp_path, "seed-000-second-run", fixtures, markdown="trailgate.md")
    assert result.returncode == 1, result.stderr
    assert "::error file=trailgate.yaml,line=13" in result.stdout
    assert "FAIL tool_selection.f1 >= 80  (actual 50)" in result.stdout
    assert "tool_selection.f1" in (tmp_path / "runner" / "summary.md").read_text(encoding="utf-8")
    assert outputs["exit-code"] == "1"
    case = tmp_path / "seed-000-second-run"
    assert outputs["reports"].splitlines() == [
        str(case / "trailgate-junit.xml"),
        str(case / "trailgate.md"),
        str(case / "trailgate-report.json"),
    ]
    junit = ElementTree.parse(case / "trailgate-junit.xml").getroot()
    assert junit.get("failures") == "1"
    assert '"passed": false' in (case / "trailgate-report.json").read_text(encoding="utf-8")


def test_the_html_input_writes_the_page_and_lists_it(tmp_path: Path, fixtures: Path) -> None:
    result, outputs = run_action(tmp_path, "seed-000-first-run", fixtures, html="trailgate.html")
    assert result.returncode == 0, result.stderr
    page = tmp_path / "seed-000-first-run" / "trailgate.html"
    assert str(page) in outputs["reports"].splitlines()
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    assert "research-agent picks search then fetch" in text


def test_a_passing_suite_without_annotations_prints_text_and_still_summarises(
    tmp_path: Path, fixtures: Path
) -> None:
    result, outputs = run_action(tmp_path, "seed-000-first-run", fixtures, annotations="false", junit="", json="")
    assert result.returncode == 0, result.stderr
    assert "::" not in result.stdout
    assert "PASS 1 test: 1 passed, 0 failed" in result.stdout
    assert "tool_selection.f1" in (tmp_path / "runner" / "summary.md").read_text(encoding="utf-8")
    assert outputs == {"exit-code": "0", "reports": ""}


def test_summary_false_leaves_the_job_summary_alone(tmp_path: Path, fixtures: Path) -> None:
    result, _ = run_action(tmp_path, "seed-000-second-run", fixtures, summary="false")
    assert result.returncode == 1, result.stderr
    assert not (tmp_path / "runner" / "summary.md").exists()


def test_an_invalid_suite_exits_2_with_the_diagnostic(tmp_path: Path, fixtures: Path) -> None:
    result, outputs = run_action(tmp_path, "bad-duplicate-class-name", fixtures)
    assert result.returncode == 2
    assert "class name `search` is used twice" in result.stderr
    assert outputs["exit-code"] == "2"


def test_extra_arguments_reach_check(tmp_path: Path, fixtures: Path) -> None:
    result, _ = run_action(tmp_path, "seed-000-first-run", fixtures, args="--shard 1/2 --threads 2")
    assert result.returncode == 0, result.stderr
    report = (tmp_path / "seed-000-first-run" / "trailgate-report.json").read_text(encoding="utf-8")
    assert '"shard"' in report


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"baseline": "old.json"}, "cannot read baseline `old.json`"),
        ({"install": "brew"}, "`install` is `brew`"),
        # A bare name installs whatever the registry serves under it: never by default.
        ({"install": "pip"}, "`install: pip` needs `package`"),
        ({"install": "pip", "package": "trailgate"}, "`package` is `trailgate`; pin a version"),
        ({"install": "pip", "package": "gone.whl"}, "no such wheel file exists"),
        ({"annotations": "yes"}, "`annotations` is `yes`"),
    ],
)
def test_inputs_it_cannot_honour_stop_it_with_exit_2(
    tmp_path: Path, fixtures: Path, inputs: dict[str, str], message: str
) -> None:
    result, _ = run_action(tmp_path, "seed-000-first-run", fixtures, **inputs)
    assert result.returncode == 2
    assert message in result.stderr


@pytest.mark.parametrize(
    "name",
    [
        # A newline would end the `reports` list and write an output of its own.
        "r\nTRAILGATE_REPORTS\nexit-code=0\n.json",
        "report\r.json",
    ],
)
def test_a_report_path_with_a_line_break_stops_it_before_anything_is_written(
    tmp_path: Path, fixtures: Path, name: str
) -> None:
    result, outputs = run_action(tmp_path, "seed-000-first-run", fixtures, json=name)
    assert result.returncode == 2
    assert "the `json` report's path has a line break" in result.stderr
    assert outputs == {}
    assert not (tmp_path / "runner" / "path").exists()
    assert not (tmp_path / "runner" / "summary.md").exists()


def test_the_baseline_reaches_check(tmp_path: Path, fixtures: Path) -> None:
    # With the case's `base.json`, its gates on the baseline resolve and one fails.
    result, outputs = run_action(
        tmp_path, "baseline-gates", fixtures, baseline="base.json", json="report.json"
    )
    assert result.returncode == 1, result.stderr
    report = json.loads(
        (tmp_path / "baseline-gates" / "report.json").read_text(encoding="utf-8")
    )
    gates = [gate for test in report["tests"] for gate in test["gates"]]
    assert {"expression": "baseline - 15", "base": 100} in [
        gate.get("baseline") for gate in gates
    ]
    assert outputs["exit-code"] == "1"


def test_the_xfail_list_reaches_check(tmp_path: Path, fixtures: Path) -> None:
    # The case's list quarantines its one failing test: the step passes, the test is XFAIL.
    result, outputs = run_action(
        tmp_path, "xfail-quarantined", fixtures, xfail="quarantine.txt", json="report.json"
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(
        (tmp_path / "xfail-quarantined" / "report.json").read_text(encoding="utf-8")
    )
    assert report["summary"]["xfailed"] == 1
    assert report["tests"][1]["xfail"] == "listed in quarantine.txt:1"
    assert outputs["exit-code"] == "0"


def test_install_pip_installs_the_package_into_its_own_environment(tmp_path: Path, fixtures: Path) -> None:
    # `.ci/run` names the wheel it built; pip installs it without the network.
    wheel = os.environ.get("TRAILGATE_WHEEL")
    if not wheel:
        pytest.skip("TRAILGATE_WHEEL names no wheel (`.ci/run` sets it)")
    result, outputs = run_action(
        tmp_path, "seed-000-first-run", fixtures, install="pip", package=f"{wheel}"
    )
    assert result.returncode == 0, result.stderr
    venv_bin = tmp_path / "runner" / "trailgate-venv" / "bin"
    assert (venv_bin / "trailgate").exists()
    assert (tmp_path / "runner" / "path").read_text(encoding="utf-8").splitlines() == [str(venv_bin)]
    assert outputs["exit-code"] == "0"


def write_tool(folder: Path, name: str, text: str) -> None:
    """A stand-in command: a shell script named `name` in `folder`."""
    folder.mkdir(exist_ok=True)
    tool = folder / name
    tool.write_text("#!/bin/sh\n" + text, encoding="utf-8")
    tool.chmod(0o755)


def fake_cargo(tools: Path, calls: Path) -> None:
    """A `cargo` that records how it was called and installs a `trailgate` that runs the
    package under test, so that no compile is needed to see what the action asks of it."""
    real = Path(sys.executable).parent / "trailgate"
    write_tool(
        tools,
        "cargo",
        f"""echo "$@" >>"{calls}"
while [ "$1" != --root ]; do shift; done
mkdir -p "$2/bin"
printf '#!/bin/sh\\nexec "{real}" "$@"\\n' >"$2/bin/trailgate"
chmod +x "$2/bin/trailgate"
""",
    )


def test_at_a_branch_it_builds_its_own_source_with_cargo_and_never_runs_pip(
    tmp_path: Path, fixtures: Path
) -> None:
    # The action runs from this checkout, whose folder is no version tag: it builds it.
    tools, calls = tmp_path / "tools", tmp_path / "cargo-calls"
    fake_cargo(tools, calls)
    result, outputs = run_action(tmp_path, "seed-000-first-run", fixtures, tools=tools, install="")
    assert result.returncode == 0, result.stderr
    cargo_root = tmp_path / "runner" / "trailgate-cargo"
    assert calls.read_text(encoding="utf-8").split() == [
        "install",
        "--locked",
        "--root",
        str(cargo_root),
        "--path",
        str(ROOT / "crates" / "trailgate-cli"),
    ]
    assert (tmp_path / "runner" / "path").read_text(encoding="utf-8").splitlines() == [str(cargo_root / "bin")]
    assert not (tmp_path / "runner" / "trailgate-venv").exists()
    assert outputs["exit-code"] == "0"


VERSION = re.search(r'^version = "(.*)"$', (ROOT / "Cargo.toml").read_text(encoding="utf-8"), re.MULTILINE)[1]
ARCHIVE = "trailgate-x86_64-unknown-linux-musl.tar.gz"


def released_action(tmp_path: Path, sums: str | None = None) -> tuple[Path, Path, Path]:
    """The action as a runner checks it out for `uses: acme/trailgate@v<VERSION>`, a release
    of it served by a `curl` that records what it was asked for, and a `cargo` that must not
    run. Returns the script, the tools folder and the file of the URLs asked for."""
    action = tmp_path / "_actions" / "acme" / "trailgate" / f"v{VERSION}"
    (action / "action").mkdir(parents=True)
    shutil.copy(SCRIPT, action / "action" / "run.sh")
    shutil.copy(ROOT / "Cargo.toml", action / "Cargo.toml")
    release = tmp_path / "release"
    (release / "pack").mkdir(parents=True)
    real = Path(sys.executable).parent / "trailgate"
    binary = release / "pack" / "trailgate"
    binary.write_text(f'#!/bin/sh\nexec "{real}" "$@"\n', encoding="utf-8")
    binary.chmod(0o755)
    with tarfile.open(release / ARCHIVE, "w:gz") as archive:
        archive.add(binary, arcname="trailgate")
    digest = hashlib.sha256((release / ARCHIVE).read_bytes()).hexdigest()
    (release / "SHA256SUMS").write_text(
        sums if sums is not None else f"{'0' * 64}  trailgate-aarch64-apple-darwin.tar.gz\n{digest}  {ARCHIVE}\n",
        encoding="utf-8",
    )
    tools, urls = tmp_path / "tools", tmp_path / "urls"
    write_tool(
        tools,
        "curl",
        f"""out=""; url=""
while [ $# -gt 0 ]; do
    case "$1" in
    --output) out="$2"; shift 2 ;;
    -*) shift ;;
    *) url="$1"; shift ;;
    esac
done
echo "$url" >>"{urls}"
cp "{release}/$(basename "$url")" "$out"
""",
    )
    write_tool(tools, "cargo", "echo cargo must not run >&2; exit 101\n")
    return action / "action" / "run.sh", tools, urls


def run_released(
    tmp_path: Path, fixtures: Path, install: str, sums: str | None = None
) -> tuple[subprocess.CompletedProcess[str], dict[str, str], Path]:
    """Runs `released_action` on a Linux x86-64 runner; also returns the file of URLs."""
    script, tools, urls = released_action(tmp_path, sums)
    result, outputs = run_action(
        tmp_path,
        "seed-000-first-run",
        fixtures,
        tools=tools,
        script=script,
        runner_env={"RUNNER_OS": "Linux", "RUNNER_ARCH": "X64"},
        install=install,
    )
    return result, outputs, urls


def test_at_its_version_tag_it_installs_its_release_checked_against_the_checksums(
    tmp_path: Path, fixtures: Path
) -> None:
    result, outputs, urls = run_released(tmp_path, fixtures, install="")
    assert result.returncode == 0, result.stderr
    release = f"https://github.com/acme/trailgate/releases/download/v{VERSION}"
    assert urls.read_text(encoding="utf-8").splitlines() == [f"{release}/SHA256SUMS", f"{release}/{ARCHIVE}"]
    bin_dir = tmp_path / "runner" / "trailgate-release" / "bin"
    assert (tmp_path / "runner" / "path").read_text(encoding="utf-8").splitlines() == [str(bin_dir)]
    assert "PASS 1 test: 1 passed, 0 failed" in result.stdout
    assert outputs["exit-code"] == "0"


@pytest.mark.parametrize(
    ("sums", "message"),
    [
        (f"{'0' * 64}  {ARCHIVE}\n", f"`{ARCHIVE}` has SHA-256 "),
        (f"{'0' * 64}  trailgate-aarch64-apple-darwin.tar.gz\n", f"the release's SHA256SUMS lists no `{ARCHIVE}`"),
    ],
)
def test_a_release_archive_that_is_not_the_one_listed_is_never_unpacked(
    tmp_path: Path, fixtures: Path, sums: str, message: str
) -> None:
    result, outputs, _ = run_released(tmp_path, fixtures, install="release", sums=sums)
    assert result.returncode == 2
    assert message in result.stderr
    assert not (tmp_path / "runner" / "trailgate-release" / "bin" / "trailgate").exists()
    assert not (tmp_path / "runner" / "path").exists()
    assert outputs == {}


def test_the_action_passes_every_input_to_the_script() -> None:
    action = (ROOT / "action.yml").read_text(encoding="utf-8")
    script = SCRIPT.read_text(encoding="utf-8")
    for name in [
        "suite",
        "annotations",
        "summary",
        "junit",
        "markdown",
        "json",
        "html",
        "baseline",
        "xfail",
        "args",
        "install",
        "package",
    ]:
        variable = f"TRAILGATE_{name.upper()}"
        assert f"{variable}: ${{{{ inputs.{name} }}}}" in action, name
        assert variable in script, name
