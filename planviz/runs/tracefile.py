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
:data:`planviz.plan.limits.MAX_TRACE_BYTES` (``max_bytes=`` raises it) and :data:`MAX_LINE` per
line, only regular files are opened (not ``/dev/zero`` or a FIFO), and every
field of every record is checked (:mod:`planviz.runs.tracefields`).

>>> import tempfile, os
>>> from planviz import examples, simulate
>>> run = simulate(examples.load("cache_isolation"))
>>> path = os.path.join(tempfile.mkdtemp(), "run.jsonl")
>>> save_trace(run, path)
>>> load_trace(path) == run
True
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterable, Iterator

from .events import expect_run
from ..errors import PlanFormatError, PlanvizTypeError, SimulationError, TraceFormatError
from ..plan.model import Contract, Plan
from ..plan.jsonsyntax import DuplicateKey, unique_keys
from ..plan.records import contract_from_dict, contract_to_dict, plan_from_dict
from ..plan.output import open_output
from ..plan.syntax import show_value
from ..plan import limits
from ..plan.limits import mib
from .events import Event, ModelCall, Run, state_from_events
from .fault import Fault
from .frames import FrameStore
from . import traceplans
from .traceplans import SPLIT_SCHEMA, PlanSteps, SplitPlan, json_line, plan_lines, plan_record
from .tracefields import (BadField, NonFinite, V1Events, choice, event_from, event_record, fault_from, finding_from,
                          model_call_from, model_call_record, obj)

__all__ = ["save_trace", "load_trace", "parse_trace", "read_trace", "trace_lines", "SCHEMA", "SCHEMA_VERSION",
           "READS", "MAX_LINE", "SPLIT_SCHEMA", "run_to_lines", "plan_record", "event_record",
           "header_record", "json_line"]

SCHEMA = "planviz-trace"
SCHEMA_VERSION = 2
"""The schema written: 2 (events hold what they changed), or :data:`SPLIT_SCHEMA` when a plan record is too
long for one line. 1 (every event a full frame) is still read."""
READS = (1, 2, 3)
MAX_LINE = 16 * 1024 * 1024
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


def header_record(strategy: str, faults: Iterable[Fault], contract: Contract | None,
                  version: int = SCHEMA_VERSION) -> dict[str, Any]:
    return {"type": "header", "schema": SCHEMA, "version": version, "strategy": strategy,
            "faults": [_fault_record(x) for x in faults],
            "contract": None if contract is None else contract_to_dict(contract)}


def run_to_lines(run: Run) -> Iterator[str]:
    """The trace of ``run`` as JSON Lines (each ending in a newline): header, then plans and events in order."""
    written: list[Plan] = []
    lines_of = []
    for plan in run.plans:
        lines_of.append(plan_lines(plan_record(plan, written), traceplans.CHUNK))
        written.append(plan)
    split = any(len(lines) > 1 for lines in lines_of)
    yield json_line(header_record(run.strategy, run.faults, run.contract, SPLIT_SCHEMA if split else SCHEMA_VERSION))
    pending = list(zip(run.plans, lines_of))
    for e in run.events:
        while pending and pending[0][0].version <= e.plan_version:
            yield from pending.pop(0)[1]
        yield json_line({"type": "event", "event": event_record(e)})
    for _plan, lines in pending:
        yield from lines
    for call in run.model_calls:  # a recorded run's model calls, after its events
        yield json_line({"type": "model_call", "model_call": model_call_record(call)})


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
    with open_output(path) as fh:  # whole or not at all: a failure keeps the old file
        fh.writelines(run_to_lines(run))


# --------------------------------------------------------------------------- reading


def load_trace(source: str | os.PathLike[str] | Any, format: str | None = None, *, thread: str | None = None,
               max_bytes: int | None = None) -> Run:
    """Read a trace from a path, an open binary file or parsed data into a :class:`~planviz.Run`.

    Besides planviz's own JSON Lines, reads the trace formats of other tools
    (OpenTelemetry and OpenInference spans, LangGraph histories... see
    :mod:`planviz.runs.traces`), detected by shape; ``format`` (one of
    ``planviz.runs.traces.TRACE_FORMATS``) forces one. ``thread`` picks one
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
    from .traces import load_runs, one_run  # the registry of formats; it calls read_trace for this one

    name = os.fspath(source) if isinstance(source, (str, os.PathLike)) else "<data>"
    return one_run(load_runs(source, format, thread=thread, max_bytes=max_bytes), name)


def parse_trace(text: str | bytes, format: str | None = None, source: str = "<string>", *,
                thread: str | None = None, max_bytes: int | None = None) -> Run:
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
    from .traces import one_run, parse_runs

    if not isinstance(text, (str, bytes, bytearray)):
        raise PlanvizTypeError(f"parse_trace(text=...) expects the text of a trace (str or bytes), got "
                               f"{type(text).__name__} {show_value(text)}; for a path use planviz.load_trace")
    return one_run(parse_runs(text, format, source, thread=thread, max_bytes=max_bytes), source)


def trace_lines(stream: Any, source: str, max_bytes: int | None = None) -> Iterator[tuple[int, bytes]]:
    """``(line number, bytes)`` of each line of an open trace, read one line at a time within the caps
    (``max_bytes``: default :data:`planviz.plan.limits.MAX_TRACE_BYTES`)."""
    max_bytes = limits.MAX_TRACE_BYTES if max_bytes is None else max_bytes
    total = 0
    n = 0
    while True:
        try:
            blob = stream.readline(MAX_LINE + 1)
        except (OSError, ValueError) as exc:
            raise TraceFormatError(f"cannot read the trace: {exc}", source=source, line=n + 1) from None
        if isinstance(blob, str):
            blob = blob.encode("utf-8", "surrogatepass")
        if not blob:
            return
        n += 1
        total += len(blob)
        if total > max_bytes:
            raise TraceFormatError(f"the trace is larger than the {max_bytes:,}-byte cap ({mib(max_bytes)}); "
                                   "pass max_bytes= to load_trace to read a bigger one, or "
                                   + limits.raise_hint("MAX_TRACE_BYTES"), source=source, line=n)
        if len(blob) > MAX_LINE:
            raise TraceFormatError(f"line is longer than the {MAX_LINE:,}-byte limit", source=source, line=n)
        yield n, blob


def read_trace(lines: Iterable[tuple[int, bytes]], source: str) -> Run:
    """A :class:`~planviz.Run` from the numbered lines of a planviz trace (see :func:`trace_lines`).

    This is the planviz-format reader: other trace formats dispatch around it.
    """
    return _Reader(source).read(lines)


class _Reader:
    """One trace being read: the header, the plans and events so far, and the index that checks the deltas."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.header: dict[str, Any] | None = None
        self.plans: list[Plan] = []
        self.events: list[Event] = []
        self.store = FrameStore()
        self.v1: V1Events | None = None
        self.steps = PlanSteps()
        self.model_calls: list[ModelCall] = []
        self.version = 2
        self.split: SplitPlan | None = None  # a plan record whose steps lines are still to come

    def read(self, lines: Iterable[tuple[int, bytes]]) -> Run:
        n = 0
        for n, blob in lines:
            if not blob.strip():
                continue
            try:
                record = json.loads(blob.decode("utf-8"), parse_constant=NonFinite, object_pairs_hook=unique_keys)
            except DuplicateKey as exc:  # one policy for untrusted JSON: plan files refuse it too
                raise TraceFormatError(str(exc), source=self.source, line=n) from None
            except (UnicodeDecodeError, ValueError, RecursionError) as exc:
                if not blob.endswith(b"\n"):
                    break  # a truncated last line: keep every whole event before it
                raise TraceFormatError(f"not a JSON object: {exc}", source=self.source, line=n) from None
            try:
                self._record(record)
            except BadField as exc:
                raise TraceFormatError(exc.why, source=self.source, line=n, path=exc.path) from None
            except PlanFormatError as exc:  # e.g. a plan's own caps
                raise TraceFormatError(exc.message, source=self.source, line=n, path=exc.path) from None
        if self.header is None:
            raise TraceFormatError("empty trace: expected a header line", source=self.source, line=max(n, 1))
        state = state_from_events(self.events)
        return Run(tuple(self.events), state.outcome, state, tuple(self.plans), self.header["strategy"],
                   self.header["faults"], self.header["contract"], tuple(self.model_calls))

    def _record(self, record: Any) -> None:
        record = obj(record, "record")
        kind = record.get("type")
        if self.header is None:
            self.header = self._header(record)
            return
        if self.split is not None:
            self.split.expect(kind)
            _only(record, "steps")
            whole = self.split.add(record.get("steps"))
            if whole is not None:
                self.split = None
                self._add_plan(whole)
        elif kind == "plan" and "steps_lines" in record and self.version == SPLIT_SCHEMA:
            _only(record, "plan", "steps_lines")
            self.split = SplitPlan(obj(record.get("plan"), "plan"), record["steps_lines"])
        elif kind == "plan":
            _only(record, "plan")
            self._add_plan(obj(record.get("plan"), "plan"))
        elif kind == "event":
            _only(record, "event")
            event = self.v1.event_from(record.get("event")) if self.v1 else event_from(record.get("event"))
            if event.index != len(self.events):
                raise BadField("event.index", f"events out of order: expected {len(self.events)}, got {event.index}")
            if event.plan_version and event.plan_version not in self.steps.ids:
                raise BadField("event.plan_version", f"plan version {event.plan_version} is defined by no "
                                                     "earlier plan record")
            try:
                self.store.append(event)
            except SimulationError as exc:
                raise BadField("event", str(exc)) from None
            self.steps.check(event)
            self.events.append(event)
        elif kind == "model_call":
            _only(record, "model_call")
            call = model_call_from(record.get("model_call"))
            if call.step is not None and not any(call.step in p.ids for p in self.plans):
                raise BadField("model_call.step", f"{show_value(call.step)} is a step of no plan record")
            self.model_calls.append(call)
        else:
            raise BadField("type", f"expected 'plan', 'event' or 'model_call', got {show_value(kind)}")

    def _add_plan(self, record: dict[str, Any]) -> None:
        plan = self._plan(record, "plan")
        self.plans.append(plan)
        self.steps.add(plan)


    def _header(self, record: dict[str, Any]) -> dict[str, Any]:
        if record.get("type") != "header" or record.get("schema") != SCHEMA:
            raise BadField("header", f"expected a trace header ({{\"type\": \"header\", \"schema\": {SCHEMA!r}, "
                                     f"...}}) as the first line, got {show_value(record)}")
        version = record.get("version")
        if version not in READS or isinstance(version, bool):
            known_versions = f"{', '.join(map(str, READS[:-1]))} and {READS[-1]}"
            raise BadField("header.version", f"trace schema version {show_value(version)} is not supported; this "
                                             f"planviz reads versions {known_versions} (a newer planviz may read it)")
        known = {"type", "schema", "version", "strategy", "faults", "contract"}
        unknown = sorted(set(record) - known)
        if unknown:
            raise BadField(f"header.{unknown[0]}", f"unknown field; expected one of {', '.join(sorted(known))}")
        faults = record.get("faults", [])
        if not isinstance(faults, list):
            raise BadField("header.faults", f"expected a list of faults, got {show_value(faults)}")
        contract = record.get("contract")
        self.v1 = V1Events() if version == 1 else None
        self.version = version
        try:
            return {"strategy": choice(record.get("strategy", "recorded"), "header.strategy", STRATEGIES),
                    "faults": tuple(fault_from(f, f"header.faults[{i}]") for i, f in enumerate(faults)),
                    "contract": None if contract is None else contract_from_dict(obj(contract, "header.contract"))}
        except SimulationError as exc:
            raise BadField("header.faults", str(exc)) from None
        except PlanFormatError as exc:
            raise _within("header.contract", exc) from None

    def _plan(self, d: dict[str, Any], path: str) -> Plan:
        known = self.plans
        if "parent_ref" in d:
            ref = d["parent_ref"]
            if isinstance(ref, bool) or not isinstance(ref, int) or not 0 <= ref < len(known):
                raise BadField(f"{path}.parent_ref", f"{show_value(ref)} names no earlier plan record "
                                                     f"(0..{len(known) - 1})")
            parent = known[ref]
        else:
            parent = self._plan(obj(d["parent"], f"{path}.parent"), f"{path}.parent") if d.get("parent") else None
        found = d.get("import_findings") or []
        if not isinstance(found, list):
            raise BadField(f"{path}.import_findings", f"expected a list of findings, got {show_value(found)}")
        findings = [finding_from(f, f"{path}.import_findings[{i}]") for i, f in enumerate(found)]
        body = {k: v for k, v in d.items() if k not in ("parent", "parent_ref", "import_findings")}
        try:
            plan = plan_from_dict(body, shape="planviz")
        except PlanFormatError as exc:
            raise _within(path, exc) from None
        return plan.replace(parent=parent, import_findings=findings)


def _only(record: dict[str, Any], key: str, *also: str) -> None:
    extra = sorted(set(record) - {"type", key, *also})
    if extra:
        raise BadField(extra[0], f"unknown field of a {key} record; expected only 'type' and {key!r}")


def _within(path: str, exc: PlanFormatError) -> BadField:
    """A plan-file error inside a trace record, its field path prefixed with the record's."""
    return BadField(f"{path}.{exc.path}" if exc.path else path, exc.message)
