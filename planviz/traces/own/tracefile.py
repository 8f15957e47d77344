"""Run traces as JSON Lines: planviz's own file format for runs, written and read back.

A trace is one JSON object per line: a header (``"type": "header"`` with the
schema name and version, the strategy, the faults and the contract), then, in
the order they happened, ``plan`` records (each plan version, once) and
``event`` records (what each event changed; schema 2, see
docs/trace-format.md). A run loads back equal to the one saved. Schema-1
traces (every event a full frame) still load. A recorder
(:class:`planviz.Recorder`) streaming to a file flushes every line, so a
crashed agent leaves a truncated trace, which loads up to its last whole
event, with ``outcome`` None: an unfinished run.

Trace files are untrusted: they are read line by line, capped at
:data:`planviz.io.limits.MAX_TRACE_BYTES` (``max_bytes=`` raises it) and :data:`planviz.io.limits.MAX_TRACE_RECORD` per
line, only regular files are opened (not ``/dev/zero`` or a FIFO), and every
field of every record is checked (:mod:`planviz.traces.own.tracefields`).

>>> import tempfile, os
>>> from planviz import examples, simulate
>>> run = simulate(examples.load("cache_isolation"))
>>> path = os.path.join(tempfile.mkdtemp(), "run.jsonl")
>>> save_trace(run, path)
>>> load_trace(path) == run
True
"""

from __future__ import annotations

import os
from typing import IO, Any, Iterable, Iterator, Mapping, Sequence

from planviz.errors import PlanvizTypeError
from planviz.io.output import open_output
from planviz.io.syntax import show_value
from planviz.plan.bulk import paused_gc
from planviz.plan.model import Contract, Plan
from planviz.plan.records import contract_to_dict
from planviz.runs.events import Run, expect_run
from planviz.runs.fault import Fault
from planviz.traces.own import traceplans
from planviz.traces.own.tracefields import event_record, model_call_record, turn_record
from planviz.traces.own.traceplans import SPLIT_SCHEMA, json_line, plan_lines, plan_record

__all__ = [
    "save_trace",
    "load_trace",
    "parse_trace",
    "SCHEMA",
    "SCHEMA_VERSION",
    "READS",
    "SPLIT_SCHEMA",
    "run_to_lines",
    "plan_record",
    "event_record",
    "header_record",
    "json_line",
]

SCHEMA = "planviz-trace"
SCHEMA_VERSION = 2
"""The schema written: 2 (events hold what they changed), or :data:`SPLIT_SCHEMA` when a plan record is too
long for one line. 1 (every event a full frame) is still read."""
READS = (1, 2, 3)
STRATEGIES = ("direct", "workflow", "planner", "recorded")

# --------------------------------------------------------------------------- writing


def _fault_record(fault: Fault) -> dict[str, Any]:
    """A fault as plain data; a goal change's new goal and contract only when it has them."""
    d = {name: getattr(fault, name) for name in ("step", "kind", "fact", "times")}
    if fault.goal is not None:
        d["goal"] = fault.goal
    if fault.contract is not None:
        d["contract"] = contract_to_dict(fault.contract)
    return d


def header_record(
    strategy: str,
    faults: Iterable[Fault],
    contract: Contract | None,
    version: int = SCHEMA_VERSION,
    trace_format: str | None = None,
) -> dict[str, Any]:
    record = {
        "type": "header",
        "schema": SCHEMA,
        "version": version,
        "strategy": strategy,
        "faults": [_fault_record(x) for x in faults],
        "contract": None if contract is None else contract_to_dict(contract),
    }
    if trace_format is not None:  # a run read from another tool's trace
        record["trace_format"] = trace_format
    return record


def run_to_lines(run: Run) -> Iterator[str]:
    """The trace of ``run`` as JSON Lines (each ending in a newline): header, then plans and events in order."""
    written: list[Plan] = []
    lines_of = []
    for plan in run.plans:
        lines_of.append(plan_lines(plan_record(plan, written), traceplans.CHUNK))
        written.append(plan)
    split = any(len(lines) > 1 for lines in lines_of)
    yield json_line(
        header_record(
            run.strategy,
            run.faults,
            run.contract,
            SPLIT_SCHEMA if split else SCHEMA_VERSION,
            run.trace_format,
        )
    )
    pending = list(zip(run.plans, lines_of))
    for e in run.events:
        while pending and pending[0][0].version <= e.plan_version:
            yield from pending.pop(0)[1]
        yield json_line({"type": "event", "event": event_record(e)})
    for _plan, lines in pending:
        yield from lines
    for call in run.model_calls:  # a recorded run's model calls, after its events
        yield json_line({"type": "model_call", "model_call": model_call_record(call)})
    for turn in run.turns:  # what was said (a chat thread's messages), after the model calls
        yield json_line({"type": "turn", "turn": turn_record(turn)})


def save_trace(run: Run, path: str | os.PathLike[str]) -> None:
    """Write ``run`` to ``path`` as a JSON Lines trace (UTF-8, schema :data:`SCHEMA_VERSION`).

    Parameters
    ----------
    run : Run
        The run to save.
    path : str or os.PathLike
        Where; written whole or not at all (a missing folder is made).

    Returns
    -------
    None
        The file is written; :func:`load_trace` reads it back.

    Raises
    ------
    PlanvizTypeError
        When ``run`` is not a :class:`Run` (a path: load it first with :func:`load_trace`).
    OSError
        When the file cannot be written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from planviz import examples, simulate
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.jsonl"
    >>> save_trace(simulate(examples.load("cache_isolation")), path)
    >>> path.stat().st_size > 0
    True
    """
    run = expect_run(run, "save_trace")
    # whole or not at all: a failure keeps the old file. The records are many small acyclic containers, each
    # freed once written: without the pause they set off full collections of a heap that holds the whole run,
    # which made the time grow faster than the run (issue 28)
    with open_output(path) as fh, paused_gc():
        fh.writelines(run_to_lines(run))


# --------------------------------------------------------------------------- reading


def load_trace(
    source: str | os.PathLike[str] | IO[bytes] | IO[str] | Mapping[str, object] | Sequence[object],
    format: str | None = None,
    *,
    thread: str | None = None,
    max_bytes: int | None = None,
) -> Run:
    """Read a trace from a path, an open binary file or parsed data into a :class:`~planviz.Run`.

    Besides planviz's own JSON Lines, reads the trace formats of other tools
    (OpenTelemetry and OpenInference spans, LangGraph histories... see
    :mod:`planviz.traces`), detected by shape; ``format`` (one of
    ``planviz.traces.TRACE_FORMATS``) forces one. ``thread`` picks one
    thread of a file that holds several (a LangGraph checkpoint database);
    :func:`planviz.load_traces` returns them all.

    A planviz trace raises :class:`~planviz.errors.TraceFormatError` naming the line, the
    field and the reason when a record is not valid, when a path is not a
    regular file, or when the trace is larger than ``max_bytes``. A last
    line cut short (no final newline, not valid JSON) is a truncated trace:
    it is dropped and the run loads up to its last whole event, with
    ``outcome`` None if it never stopped. A string is always a path; for the
    text of a trace use :func:`parse_trace`.

    Parameters
    ----------
    source : path, open binary file or parsed data
        Where the trace is; a string is always a path.
    format : str, optional
        Force a format; None detects it.
    thread : str, optional
        One thread of a file that holds several.
    max_bytes : int, optional
        Refuse a larger trace.

    Returns
    -------
    Run
        The run, every plan version included.

    Raises
    ------
    TraceFormatError
        When the file cannot be read, is not a trace (saying what it is when planviz can tell), breaks a
        limit, or holds several threads and none was chosen.
    PlanvizTypeError
        When ``source`` is none of the accepted kinds.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from planviz import examples, save_trace, simulate
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.jsonl"
    >>> save_trace(simulate(examples.load("cache_isolation")), path)
    >>> load_trace(path).outcome
    'plan_complete'
    """
    from planviz.traces import (  # the registry of formats; it calls read_trace for this one
        load_runs,
        one_run,
    )
    from planviz.traces.langgraph.sqlitesaver import threads_refusal

    name = os.fspath(source) if isinstance(source, (str, os.PathLike)) else "<data>"
    if (
        thread is None
        and isinstance(source, (str, os.PathLike))
        and (several := threads_refusal(name, format))
    ):
        raise several  # a checkpoint database of several threads: listed, no thread read
    return one_run(load_runs(source, format, thread=thread, max_bytes=max_bytes), name)


def parse_trace(
    text: str | bytes,
    format: str | None = None,
    source: str = "<string>",
    *,
    thread: str | None = None,
    max_bytes: int | None = None,
) -> Run:
    """Read a trace from its text (never a path); see :func:`load_trace`.

    Parameters
    ----------
    text : str or bytes
        The trace's text (never a path).
    format : str, optional
        Force a format.
    source : str
        How messages name the text.
    thread : str, optional
        As for :func:`load_trace`.
    max_bytes : int, optional
        Refuse a larger trace.

    Returns
    -------
    Run
        The run.

    Raises
    ------
    TraceFormatError
        As for :func:`load_trace`, naming the line.
    PlanvizTypeError
        When ``text`` is not str or bytes.

    Examples
    --------
    >>> parse_trace("")
    Traceback (most recent call last):
    ...
    planviz.errors.TraceFormatError: <string>:1: empty trace: expected a header line
    """
    from planviz.traces import one_run, parse_runs

    if not isinstance(text, (str, bytes, bytearray)):
        raise PlanvizTypeError(
            f"parse_trace(text=...) expects the text of a trace (str or bytes), got "
            f"{type(text).__name__} {show_value(text)}; for a path use planviz.load_trace"
        )
    return one_run(parse_runs(text, format, source, thread=thread, max_bytes=max_bytes), source)
