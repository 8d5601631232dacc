"""Scoring a suite in shards and merging them (docs/scale.md): `check(shard=(K, N))`,
`merge`, and the Dask recipe as the page writes it, on a local cluster of worker processes."""

from __future__ import annotations

import pickle
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

import trailgate

DOCS = Path(__file__).resolve().parents[2] / "docs" / "scale.md"


def _lake(fixtures: Path, root: Path, max_calls: int) -> Path:
    """A folder of trace files laid out by day, as a data lake holds them, and a suite with
    one test per day (docs/scale.md#the-unit-of-work-a-test)."""
    sources = sorted((fixtures / "budget-loop-limits" / "traces").iterdir())
    sources += sorted((fixtures / "trajectory-real-traces" / "traces").iterdir())
    lake = root / "lake"
    for index, source in enumerate(sources):
        day = lake / f"day=2026-11-{index % 5 + 1:02}"
        day.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, day / source.name)
    tests = [
        f"  - name: {day.name}\n"
        f"    traces: {day.relative_to(root)}\n"
        "    graders:\n"
        "      - type: budget\n"
        f"        config: {{ max_calls: {max_calls}, max_loop: 4 }}\n"
        for day in sorted(lake.iterdir())
    ]
    suite = root / "trailgate.yaml"
    suite.write_text("tests:\n" + "".join(tests), encoding="utf-8")
    return suite


@pytest.mark.parametrize("shards", [1, 2, 3, 7])
def test_merged_shards_are_the_unsharded_report_byte_for_byte(
    fixtures: Path, tmp_path: Path, shards: int
) -> None:
    suite = _lake(fixtures, tmp_path, max_calls=100)
    whole = trailgate.check(suite)
    parts = [trailgate.check(suite, shard=(k, shards)) for k in range(1, shards + 1)]
    assert all(part["shard"]["count"] == shards for part in parts)
    merged = trailgate.merge(reversed(parts))
    assert merged.json_text == whole.json_text
    assert merged == whole
    assert "shard" not in merged


def test_a_failed_gate_survives_the_merge(fixtures: Path, tmp_path: Path) -> None:
    suite = _lake(fixtures, tmp_path, max_calls=2)
    whole = trailgate.check(suite)
    assert whole["passed"] is False
    merged = trailgate.merge([trailgate.check(suite, shard=(k, 2)) for k in (2, 1)])
    assert merged["passed"] is False
    assert merged.json_text == whole.json_text


def test_merge_reads_texts_paths_and_plain_data(fixtures: Path, tmp_path: Path) -> None:
    suite = _lake(fixtures, tmp_path, max_calls=100)
    first, second = (trailgate.check(suite, shard=(k, 2)) for k in (1, 2))
    path = tmp_path / "second.json"
    path.write_text(second.json_text, encoding="utf-8")
    expected = trailgate.check(suite).json_text
    assert trailgate.merge([first.json_text.encode("utf-8"), path]).json_text == expected
    assert trailgate.merge([dict(first), str(path)]).json_text == expected


def test_a_report_pickled_to_a_worker_and_back_keeps_its_exact_text(tmp_path: Path) -> None:
    # The suite's `1e400` is written in the report as the number it is, which no Python
    # float holds: the report keeps the text trailgate wrote, and pickling keeps it too.
    (tmp_path / "run.json").write_text('{"tool_calls": [{"name": "pay", "args": {"amount": 2}}]}')
    suite = tmp_path / "trailgate.yaml"
    suite.write_text(
        "tests:\n"
        "  - name: pays once\n"
        "    traces: run.json\n"
        "    graders:\n"
        "      - type: call-accuracy\n"
        "        config: { expected: [{ tool: pay, args: { amount: 2, big: 1e400 } }] }\n"
    )
    whole = trailgate.check(suite)
    part = pickle.loads(pickle.dumps(trailgate.check(suite, shard=(1, 1))))
    assert isinstance(part, trailgate.Report)
    assert '"big":1e+400' in part.json_text
    assert trailgate.merge([part]).json_text == whole.json_text
    with pytest.raises(TypeError, match="pass the Report `check` returned"):
        trailgate.merge([dict(part)])


def test_merge_refuses_a_missing_shard(fixtures: Path, tmp_path: Path) -> None:
    suite = _lake(fixtures, tmp_path, max_calls=100)
    with pytest.raises(trailgate.TrailgateError) as caught:
        trailgate.merge([trailgate.check(suite, shard=(1, 3)), trailgate.check(suite, shard=(3, 3))])
    assert caught.value.code == trailgate.EXIT_INVALID
    assert "shard 2" in caught.value.diagnostic


@pytest.mark.parametrize(
    ("shard", "message"),
    [((1,), "pair of ints"), ((1, "2"), "pair of ints"), ([1, 2], "pair of ints"), ((True, 2), "pair of ints")],
)
def test_shard_is_a_pair_of_ints(fixtures: Path, shard: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        trailgate.check(fixtures / "seed-000-first-run" / "trailgate.yaml", shard=shard)


@pytest.mark.parametrize(
    ("reports", "message"),
    [([], "names no report"), (b"{}", "a list of shard reports"), ([3], "report 1 is a int")],
)
def test_merge_names_what_it_takes(reports: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        trailgate.merge(reports)


def _recipe() -> dict[str, Any]:
    """The Dask recipe's code block, as docs/scale.md writes it, run as a module."""
    page = DOCS.read_text(encoding="utf-8")
    found = re.search(r"<!-- recipe: dask -->\n```python\n(.*?)\n```", page, re.DOTALL)
    assert found, "docs/scale.md has no Dask recipe block"
    namespace: dict[str, Any] = {"__name__": "recipe"}
    exec(compile(found.group(1), str(DOCS), "exec"), namespace)
    return namespace


@pytest.mark.parametrize("max_calls", [100, 2])
def test_the_dask_recipe_gives_the_single_process_report(
    fixtures: Path, tmp_path: Path, max_calls: int
) -> None:
    from dask.distributed import Client, LocalCluster

    suite = str(_lake(fixtures, tmp_path, max_calls=max_calls))
    check_on_dask = _recipe()["check_on_dask"]
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, Client(cluster) as client:
        report = check_on_dask(client, suite, shards=4)
        workers = len(client.scheduler_info()["workers"])
    assert workers == 2
    whole = trailgate.check(suite)
    assert whole["passed"] is (max_calls == 100)
    assert report.json_text == whole.json_text
