"""trailgate: score recorded AI-agent tool-call traces, with no model in the loop.

The same engine as the ``trailgate`` command, from Python:

- :func:`check` runs a suite (or one shard of it) and returns its JSON report as Python data;
- :func:`merge` adds shards' reports up to the whole suite's report;
- :func:`score` scores one run's calls against equal-function classes;
- :func:`read_trace` returns the runs and calls trailgate reads from a trace file;
- :func:`suggest` writes a suite from recorded runs, as ``trailgate init --from`` does.

Errors raise :class:`TrailgateError`, which carries the diagnostic trailgate prints and the
exit code the command would give. See docs/python.md.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Optional, Union

from trailgate import _native

__all__ = [
    "EXIT_FAILED",
    "EXIT_INVALID",
    "EXIT_NOTHING_SELECTED",
    "EXIT_PASSED",
    "Report",
    "TrailgateError",
    "check",
    "merge",
    "read_trace",
    "score",
    "suggest",
]

#: Every gate passed.
EXIT_PASSED = 0
#: A gate failed.
EXIT_FAILED = 1
#: The suite, a trace or an argument is invalid.
EXIT_INVALID = 2
#: ``tests`` or ``select`` selected no test of the suite.
EXIT_NOTHING_SELECTED = 4

StrPath = Union[str, "os.PathLike[str]"]


class TrailgateError(Exception):
    """An input trailgate refused: the diagnostic it prints, and its exit code.

    The code is :data:`EXIT_INVALID` for an invalid suite, trace or option, and
    :data:`EXIT_NOTHING_SELECTED` when ``tests`` or ``select`` selected no test.
    """

    def __init__(self, diagnostic: str, code: int) -> None:
        super().__init__(diagnostic)
        #: The diagnostic, as the ``trailgate`` command prints it (without colour).
        self.diagnostic = diagnostic
        #: The exit code the ``trailgate`` command gives for it (2 for invalid input).
        self.code = code


class Report(dict):  # type: ignore[type-arg]
    """A JSON report as Python data: a ``dict``, as :func:`json.loads` gives it, that also
    keeps the report's exact text.

    :func:`check` and :func:`merge` return one. :attr:`json_text` is what
    ``trailgate check --format json`` prints, byte for byte: numbers are as the trace wrote
    them (``1.10``, ``1e400``), which Python's floats cannot all keep. :func:`merge` reads a
    shard's report from its text, so a report that travelled (pickled to a worker and back)
    merges exactly.
    """

    #: The report's JSON text, exactly as trailgate wrote it.
    json_text: str

    def __init__(self, json_text: str) -> None:
        super().__init__(json.loads(json_text))
        self.json_text = json_text


def _shard_arg(shard: Union[tuple[int, int], str]) -> str:
    """``--shard K/N`` from ``(K, N)`` (or the command line's own ``"K/N"``)."""
    if isinstance(shard, str):
        return shard
    if (
        isinstance(shard, tuple)
        and len(shard) == 2
        and all(isinstance(part, int) and not isinstance(part, bool) for part in shard)
    ):
        return f"{shard[0]}/{shard[1]}"
    raise TypeError(f"`shard` is a pair of ints `(K, N)`, shard K of N counted from 1, not {shard!r}")


def _read_args(
    trace_format: Optional[str],
    naming: Optional[str],
    servers: Iterable[str],
    naming_pattern: Optional[str],
) -> list[str]:
    """The command line's options for how to read trace files, each value joined to its
    option with ``=`` so that a value starting with ``-`` stays a value."""
    args: list[str] = []
    if trace_format is not None:
        args.append(f"--trace-format={trace_format}")
    if naming is not None:
        args.append(f"--naming={naming}")
    servers = list(servers)
    if servers:
        args.append(f"--servers={','.join(servers)}")
    if naming_pattern is not None:
        args.append(f"--naming-pattern={naming_pattern}")
    return args


def _run(native: Callable[[list[str]], tuple[int, bytes, str]], args: list[str]) -> tuple[int, bytes]:
    """Runs the command line's work natively, raising its diagnostic when the command would
    exit 2 or more."""
    code, stdout, diagnostic = native(["trailgate", "--color", "never", *args])
    if code >= EXIT_INVALID:
        raise TrailgateError(diagnostic, code)
    return code, stdout


def check(
    suite: StrPath = "trailgate.yaml",
    *,
    tests: Iterable[str] = (),
    select: Optional[str] = None,
    traces_dir: Optional[StrPath] = None,
    shard: Optional[Union[tuple[int, int], str]] = None,
    threads: Optional[int] = None,
    trace_format: Optional[str] = None,
    naming: Optional[str] = None,
    servers: Iterable[str] = (),
    naming_pattern: Optional[str] = None,
    baseline: Optional[StrPath] = None,
    xfail: Optional[StrPath] = None,
) -> Report:
    """Runs every test of ``suite`` and returns its JSON report as Python data.

    The report is the one ``trailgate check --format json`` prints (docs/reports.md): its
    ``passed`` is False when a gate failed. ``tests`` names the tests to check (``--test``)
    and ``select`` is a substring or regex of their names (``-k``); the report and its sums
    then cover those alone. ``shard=(K, N)`` checks shard K of N, counted from 1
    (``--shard K/N``: whole tests, round robin); :func:`merge` adds the N reports up to the
    whole suite's. The other keyword arguments are the command line's options of
    the same names; ``baseline`` is the JSON report (a path) that gates written
    ``baseline - N`` compare with (``--baseline``); ``xfail`` a file naming the tests
    expected to fail, one a line (``--xfail``, docs/reliability.md#expected-failures). Raises :class:`TrailgateError` when the suite, a trace or an option is
    invalid, or when nothing is selected.
    """
    # Every value is joined to its option with `=`, and the suite's path comes after `--`,
    # so that a value or a path starting with `-` is never read as an option.
    args = ["check", "--format=json"]
    if isinstance(tests, str):
        raise TypeError("`tests` is a list of test names, not one str")
    for test in tests:
        args.append(f"--test={test}")
    if select is not None:
        args.append(f"-k={select}")
    if traces_dir is not None:
        args.append(f"--traces-dir={os.fspath(traces_dir)}")
    if shard is not None:
        args.append(f"--shard={_shard_arg(shard)}")
    if threads is not None:
        args.append(f"--threads={threads}")
    if baseline is not None:
        args.append(f"--baseline={os.fspath(baseline)}")
    if xfail is not None:
        args.append(f"--xfail={os.fspath(xfail)}")
    args += _read_args(trace_format, naming, servers, naming_pattern)
    args += ["--", os.fspath(suite)]
    _, stdout = _run(_native.check, args)
    return Report(stdout.decode("utf-8"))


#: A shard's report for :func:`merge`: what :func:`check` returned, the report's JSON text
#: as bytes, or the path of a file holding it.
ShardReport = Union[Report, Mapping[str, Any], bytes, str, "os.PathLike[str]"]


def _report_text(report: ShardReport, index: int) -> bytes:
    if isinstance(report, Report):
        return report.json_text.encode("utf-8")
    if isinstance(report, Mapping):
        try:
            return json.dumps(report, allow_nan=False).encode("utf-8")
        except ValueError as error:
            raise TypeError(
                f"report {index} holds a number JSON cannot write ({error}); "
                "pass the Report `check` returned, or the report's text as bytes"
            ) from None
    if isinstance(report, bytes):
        return report
    if isinstance(report, (str, os.PathLike)):
        with open(report, "rb") as file:
            return file.read()
    raise TypeError(
        f"report {index} is a {type(report).__name__}: a report is what `check` returned, "
        "its JSON text as bytes, or the path of a file holding it"
    )


def merge(reports: Iterable[ShardReport]) -> Report:
    """Adds the reports of ``check(suite, shard=(K, N))`` for K = 1..N, in any order, up to
    the report of ``check(suite)``, byte for byte (``trailgate merge``, docs/ci.md).

    Each report is what :func:`check` returned (a :class:`Report`, read from its exact
    text), a mapping of the same data, the report's JSON text as ``bytes``, or the path of a
    file holding it. The merged report's ``passed`` is the unsharded run's verdict (the
    command's exit code 0 or 1). Raises :class:`TrailgateError` (code 2) for a set of
    reports that is not one report per shard of one split of one suite, or whose numbers
    do not add up.
    """
    if isinstance(reports, (Mapping, bytes, str, os.PathLike)):
        raise TypeError("`reports` is a list of shard reports, not one report")
    texts = [_report_text(report, index) for index, report in enumerate(reports, start=1)]
    if not texts:
        raise TypeError("`reports` names no report")
    with tempfile.TemporaryDirectory(prefix="trailgate-merge-") as folder:
        paths = []
        for index, text in enumerate(texts, start=1):
            path = os.path.join(folder, f"report-{index}.json")
            with open(path, "wb") as file:
                file.write(text)
            paths.append(path)
        _, stdout = _run(_native.run_captured, ["merge", "--format=json", "--", *paths])
    return Report(stdout.decode("utf-8"))


def read_trace(
    path: StrPath,
    *,
    trace_format: Optional[str] = None,
    naming: Optional[str] = None,
    servers: Iterable[str] = (),
    naming_pattern: Optional[str] = None,
) -> list[dict[str, Any]]:
    """Returns the runs trailgate reads from the trace file at ``path``.

    Each run is what ``trailgate convert`` prints for it: ``source``, ``format`` and
    ``tool_calls``, each call with ``name``, ``server``, ``args``, ``status`` and ``step``
    (and ``result`` when recorded). Raises :class:`TrailgateError` when the file cannot be
    read.
    """
    args = ["convert", *_read_args(trace_format, naming, servers, naming_pattern), "--", os.fspath(path)]
    _, stdout = _run(_native.read_trace, args)
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def suggest(
    paths: Iterable[StrPath],
    *,
    trace_format: Optional[str] = None,
    naming: Optional[str] = None,
    servers: Iterable[str] = (),
    naming_pattern: Optional[str] = None,
) -> str:
    """Returns the suite ``trailgate init --from PATH... --output -`` writes: one test per
    path (a trace file, or a folder of them), every gate holding on its runs, every
    expectation commented with what it was inferred from (docs/init.md).

    Trace paths in the suite are relative to the current folder. Raises
    :class:`TrailgateError` when a path holds no trace file or no call, or a file cannot be
    read.
    """
    if isinstance(paths, (str, os.PathLike)):
        raise TypeError("`paths` is a list of paths, not one path")
    paths = [os.fspath(path) for path in paths]
    if not paths:
        raise TypeError("`paths` names no path")
    args = ["init", *[f"--from={path}" for path in paths], "--output=-"]
    args += _read_args(trace_format, naming, servers, naming_pattern)
    _, stdout = _run(_native.run_captured, args)
    return stdout.decode("utf-8")


Call = Union[str, Mapping[str, Any]]


def _call(call: Call) -> tuple[Optional[str], str]:
    """``server.name`` or ``name``, or a mapping with ``name`` and maybe ``server``."""
    if isinstance(call, str):
        server, dot, name = call.partition(".")
        return (server, name) if dot else (None, call)
    if isinstance(call, Mapping):
        name = call.get("name")
        server = call.get("server")
        if not isinstance(name, str) or not (server is None or isinstance(server, str)):
            raise TypeError(f"a call needs a str `name` and a str or None `server`: {call!r}")
        return server, name
    raise TypeError(f"a call is a str or a mapping, not {type(call).__name__}")


#: A class member: ``"server.tool"`` or ``"tool"`` as a suite writes it, or its object form,
#: ``{"server": "acme.http", "tool": "get"}`` or ``{"tool": "repos.list"}``, never split.
Member = Union[str, Mapping[str, Optional[str]]]

#: Equal-function classes: the suite's own shape (a list of ``{"name", "members"}``), a
#: mapping of each class name to its members, or ``(name, members)`` pairs.
Classes = Union[
    Iterable[Mapping[str, Any]],
    Mapping[str, Iterable[Member]],
    Iterable[tuple[str, Iterable[Member]]],
]

_CLASSES_SHAPES = (
    "classes are a list of `{name, members}` as in a suite "
    '(`[{"name": "search", "members": ["brave.web_search"]}]`), a mapping of class name to '
    'members (`{"search": ["brave.web_search"]}`) or `(name, members)` pairs'
)
_MEMBER_SHAPES = (
    'a member is a str (`"brave.web_search"`, `"web_search"`) or a mapping with a str `tool` '
    'and an optional str `server` (`{"server": "acme.http", "tool": "get"}`)'
)


def _member(member: Any, name: str) -> Union[str, tuple[Optional[str], str]]:
    if isinstance(member, str):
        return member
    if isinstance(member, Mapping):
        tool, server = member.get("tool"), member.get("server")
        if set(member) <= {"tool", "server"} and isinstance(tool, str) and (server is None or isinstance(server, str)):
            return (server, tool)
    raise TypeError(f"member {member!r} of class `{name}`: {_MEMBER_SHAPES}")


def _class(entry: Any) -> tuple[str, list[Union[str, tuple[Optional[str], str]]]]:
    """One class, from the suite's `{name, members}` or a `(name, members)` pair."""
    if isinstance(entry, Mapping):
        if set(entry) != {"name", "members"}:
            raise TypeError(f"a class {entry!r} needs exactly the keys `name` and `members`: {_CLASSES_SHAPES}")
        name, members = entry["name"], entry["members"]
    elif isinstance(entry, (tuple, list)) and len(entry) == 2:
        name, members = entry
    else:
        raise TypeError(f"a class is not {entry!r}: {_CLASSES_SHAPES}")
    if not isinstance(name, str):
        raise TypeError(f"a class's name is a str, not {name!r}: {_CLASSES_SHAPES}")
    if isinstance(members, (str, Mapping)) or not isinstance(members, Iterable):
        raise TypeError(f"the members of class `{name}` are a list, not {members!r}; {_MEMBER_SHAPES}")
    return name, [_member(member, name) for member in members]


def score(classes: Classes, calls: Iterable[Call]) -> dict[str, Any]:
    """Scores one run's calls against equal-function classes.

    ``classes`` is written as in a suite: a list of ``{"name": ..., "members": [...]}``
    (what ``yaml.safe_load`` gives for a suite's ``classes:``), in declaration order; a
    mapping of each class name to its members, or ``(name, members)`` pairs, work too. A
    member is ``"server.tool"`` (that server's tool), ``"tool"`` (that tool on any server) or
    the object form ``{"server": "acme.http", "tool": "get"}`` for names with dots. ``calls``
    are in trace order, each ``"server.name"``, ``"name"`` or a mapping with ``name`` and
    ``server`` (the calls :func:`read_trace` returns).

    Returns the run's ``true_positives``, ``false_positives``, ``false_negatives``,
    ``precision``, ``recall`` and ``f1`` (whole percents, as in the reports), ``classes``
    (each class and the call, numbered from 1, that satisfied it, or None) and ``calls``
    (each call's ``outcome``: ``satisfied``, ``repeat`` or ``unexpected``, and its
    ``class``). Raises :class:`TrailgateError` for an empty, duplicate or memberless class,
    and ``TypeError``, naming the accepted shapes, for classes of another shape.
    """
    if isinstance(classes, Mapping):
        if set(classes) == {"name", "members"} and isinstance(classes.get("name"), str):
            raise TypeError(f"one class alone is not the classes; put it in a list: {_CLASSES_SHAPES}")
        entries: list[Any] = list(classes.items())
    elif isinstance(classes, (str, bytes)) or not isinstance(classes, Iterable):
        raise TypeError(f"{_CLASSES_SHAPES}, not {type(classes).__name__}")
    else:
        entries = list(classes)
    native_classes = [_class(entry) for entry in entries]
    native_calls = [_call(call) for call in calls]
    try:
        return _native.score(native_classes, native_calls)
    except ValueError as error:
        raise TrailgateError(str(error), EXIT_INVALID) from None


#: The version of the package, which is the version of the ``trailgate`` command inside it.
__version__: str = _native.__version__
