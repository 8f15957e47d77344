"""Run traces as JSON Lines: planviz's own file format for runs, written and read back.

A trace is one JSON object per line: a header (``"type": "header"`` with the
schema name and version, the strategy, the faults and the contract), then, in
the order they happened, ``plan`` records (each plan version, once) and
``event`` records (one frame each). A run loads back equal to the one saved.
A recorder (:class:`planviz.Recorder`) streaming to a file flushes every line,
so a crashed agent leaves a truncated trace, which loads up to its last whole event.

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
import math
import os
from dataclasses import fields
from typing import Any, Iterable, Mapping

from ..errors import PlanFormatError, PlanvizTypeError, SimulationError, TraceFormatError
from ..plan.model import STATUSES, Contract, Finding, Plan
from ..plan.records import contract_from_dict, contract_to_dict, plan_from_dict, plan_to_dict
from ..plan.output import open_output
from ..plan.syntax import show_value
from .events import EVENT_KINDS, OUTCOMES, Conflict, Event, Observation, Run, state_from_events
from .fault import Fault
from .traceformats import load_foreign, parse_foreign

__all__ = ["save_trace", "load_trace", "parse_trace", "SCHEMA", "SCHEMA_VERSION", "run_to_lines", "plan_record",
           "event_record", "header_record", "json_line"]

SCHEMA = "planviz-trace"
SCHEMA_VERSION = 1
MAX_LINE = 16 * 1024 * 1024

# --------------------------------------------------------------------------- to plain data

def _plain(value: Any) -> Any:
    if isinstance(value, (frozenset, set)):
        return sorted(_plain(v) for v in value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def _contract_dict(c: Contract | None) -> dict[str, Any] | None:
    return None if c is None else contract_to_dict(c)


def plan_record(plan: Plan, known: list[Plan]) -> dict[str, Any]:
    """The plan as in a plan file (:func:`planviz.plan.records.plan_to_dict`), plus what a trace keeps too:
    its version (always written: a trace reader tells versions apart by it), its import findings and
    its parent (by reference to an earlier plan record when there is one)."""
    d = {"version": plan.version, **plan_to_dict(plan)}
    d["import_findings"] = [{f.name: _plain(getattr(x, f.name)) for f in fields(Finding)}
                            for x in plan.import_findings]
    parent = next((i for i, p in enumerate(known) if p is plan.parent), None)
    if parent is not None:
        d["parent_ref"] = parent
    else:
        d["parent"] = plan_record(plan.parent, known) if plan.parent is not None else None
    return d


_EVENT_FIELDS = tuple(f.name for f in fields(Event))
_EVENT_SETS = ("facts", "ready", "voided", "kept")


def event_record(e: Event) -> dict[str, Any]:
    d = {name: getattr(e, name) for name in _EVENT_FIELDS}
    for name in _EVENT_SETS:
        d[name] = sorted(d[name])
    d["statuses"] = dict(e.statuses)
    d["observation"] = None if e.observation is None else {
        f.name: _plain(getattr(e.observation, f.name)) for f in fields(Observation)}
    d["conflicts"] = [{f.name: getattr(c, f.name) for f in fields(Conflict)} for c in e.conflicts]
    return d


def _fault_record(fault: Fault) -> dict[str, Any]:
    """A fault as plain data; a goal change's new goal and contract only when it has them."""
    d = {name: getattr(fault, name) for name in ("step", "kind", "fact", "times")}
    if fault.goal is not None:
        d["goal"] = fault.goal
    if fault.contract is not None:
        d["contract"] = contract_to_dict(fault.contract)
    return d


def _fault_from(d: Mapping[str, Any]) -> Fault:
    d = dict(d)
    if d.get("contract") is not None:
        d["contract"] = contract_from_dict(_object(d["contract"], "a fault's contract"))
    return Fault(**d)


def header_record(strategy: str, faults: Iterable[Fault], contract: Contract | None) -> dict[str, Any]:
    return {"type": "header", "schema": SCHEMA, "version": SCHEMA_VERSION, "strategy": strategy,
            "faults": [_fault_record(x) for x in faults], "contract": _contract_dict(contract)}


def json_line(record: Mapping[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=repr) + "\n"


def run_to_lines(run: Run) -> list[str]:
    """The trace of ``run`` as JSON Lines (each ending in a newline): header, then plans and events in order."""
    lines = [json_line(header_record(run.strategy, run.faults, run.contract))]
    written: list[Plan] = []
    pending = list(run.plans)
    for e in run.events:
        while pending and pending[0].version <= e.plan_version:
            plan = pending.pop(0)
            lines.append(json_line({"type": "plan", "plan": plan_record(plan, written)}))
            written.append(plan)
        lines.append(json_line({"type": "event", "event": event_record(e)}))
    for plan in pending:
        lines.append(json_line({"type": "plan", "plan": plan_record(plan, written)}))
        written.append(plan)
    return lines


def save_trace(run: Run, path: str | os.PathLike[str]) -> None:
    """Write ``run`` to ``path`` as a JSON Lines trace (UTF-8)."""
    with open_output(path) as fh:  # whole or not at all: a failure keeps the old file
        fh.writelines(run_to_lines(run))


# --------------------------------------------------------------------------- from plain data

def _contract_from(d: Any) -> Contract | None:
    return None if d is None else contract_from_dict(d)


def _plan_from(d: Mapping[str, Any], known: list[Plan]) -> Plan:
    if "parent_ref" in d:
        ref = d["parent_ref"]
        if not isinstance(ref, int) or not 0 <= ref < len(known):
            raise ValueError(f"parent_ref {ref!r} names no earlier plan record")
        parent = known[ref]
    else:
        parent = _plan_from(d["parent"], known) if d.get("parent") is not None else None
    findings = [Finding(**f) for f in d.get("import_findings") or ()]
    body = {k: v for k, v in d.items() if k not in ("parent", "parent_ref", "import_findings")}
    return plan_from_dict(body, shape="planviz").replace(parent=parent, import_findings=findings)


def _object(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be a JSON object, got {value!r}"[:200])
    return value


_EVENT_REQUIRED = ("index", "time", "kind", "step", "message", "plan_version", "statuses")


def _event_from(d: Mapping[str, Any]) -> Event:
    d = dict(d)
    for name in _EVENT_REQUIRED:
        if name not in d:
            raise KeyError(name)
    for name in _EVENT_SETS:
        items = d.get(name) or []
        if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
            raise ValueError(f"{name} must be a list of strings, got {items!r}")
        d[name] = frozenset(items)
    obs = d.get("observation")
    d["observation"] = None if obs is None else Observation(**_object(obs, "observation"))
    conflicts = d.get("conflicts") or []
    if not isinstance(conflicts, list):
        raise ValueError(f"conflicts must be a list of objects, got {conflicts!r}")
    d["conflicts"] = tuple(Conflict(**_object(c, "a conflict")) for c in conflicts)
    if not isinstance(d.get("statuses"), dict):
        raise ValueError(f"statuses must be an object of step id -> status, got {d.get('statuses')!r}")
    event = Event(**d)
    if not isinstance(event.index, int) or not isinstance(event.kind, str):
        raise ValueError(f"index must be an integer and kind a string, got {event.index!r} and {event.kind!r}")
    if isinstance(event.time, bool) or not isinstance(event.time, (int, float)):
        raise ValueError(f"time must be a number, got {event.time!r}")
    if event.kind not in EVENT_KINDS:
        raise ValueError(f"unknown event kind {event.kind!r}; expected one of {', '.join(EVENT_KINDS)}")
    bad = next(((k, v) for k, v in event.statuses.items() if v not in STATUSES), None)
    if bad:
        raise ValueError(f"step {bad[0]!r} has unknown status {bad[1]!r}; expected one of {', '.join(STATUSES)}")
    if event.outcome is not None and event.outcome not in OUTCOMES:
        raise ValueError(f"unknown outcome {event.outcome!r}; expected one of {', '.join(OUTCOMES)}")
    return event


def load_trace(source: str | os.PathLike[str] | Any, format: str | None = None) -> Run:
    """Read a trace from a path, an open binary file or parsed data into a :class:`~planviz.Run`.

    Besides planviz's own JSON Lines, reads OpenTelemetry GenAI spans and
    LangGraph histories (:mod:`planviz.runs.traceformats`), detected by shape;
    ``format`` (``"planviz"``, ``"otel"``, ``"langgraph"``) forces one.

    Raises :class:`~planviz.errors.TraceFormatError` naming the line and the
    reason when a line is not a valid record. A last line cut short (no final
    newline, not valid JSON) is a truncated trace: it is dropped and the run
    loads up to its last whole event, with ``outcome`` None if it never stopped.
    A string is always a path; for the text of a trace use :func:`parse_trace`.
    """
    foreign = load_foreign(source, format)
    if foreign is not None:
        return foreign
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        try:
            with open(source, "rb") as fh:
                raw = fh.read()
        except OSError as exc:
            raise TraceFormatError(f"cannot read the trace: {exc.strerror or exc}", source=name) from None
    elif hasattr(source, "read"):
        name = str(getattr(source, "name", "<stream>"))
        raw = source.read()
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogatepass")
    else:
        raise PlanvizTypeError(f"load_trace(source=...) expects a path or an open file, got "
                               f"{type(source).__name__} {show_value(source)}; for the text of a trace use "
                               "planviz.parse_trace")
    return _read(raw, name)


def parse_trace(text: str | bytes, format: str | None = None, source: str = "<string>") -> Run:
    """Read a trace from its text (never a path); see :func:`load_trace`."""
    if isinstance(text, str):
        text = text.encode("utf-8", "surrogatepass")
    if not isinstance(text, (bytes, bytearray)):
        raise PlanvizTypeError(f"parse_trace(text=...) expects the text of a trace (str or bytes), got "
                               f"{type(text).__name__} {show_value(text)}; for a path use planviz.load_trace")
    foreign = parse_foreign(text, format, source)
    return foreign if foreign is not None else _read(bytes(text), source)


def _read(raw: bytes, source: str) -> Run:
    lines = raw.split(b"\n")
    truncated_tail = bool(lines) and lines[-1] != b""
    if not truncated_tail:
        lines = lines[:-1]
    header: dict[str, Any] | None = None
    plans: list[Plan] = []
    events: list[Event] = []
    for n, blob in enumerate(lines, start=1):
        last = n == len(lines)

        def bad(why: str, n: int = n) -> TraceFormatError:
            return TraceFormatError(why, source=source, line=n)

        if not blob.strip():
            continue
        if len(blob) > MAX_LINE:
            raise bad(f"line is {len(blob)} bytes, over the {MAX_LINE}-byte limit")
        try:
            record = json.loads(blob.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            if last and truncated_tail:
                break  # a truncated last line: keep every whole event before it
            raise bad(f"not a JSON object: {exc}") from None
        if not isinstance(record, dict):
            raise bad(f"expected a JSON object, got {type(record).__name__}")
        kind = record.get("type")
        if header is None:
            if kind != "header" or record.get("schema") != SCHEMA:
                raise bad(f"expected a trace header ({{\"type\": \"header\", \"schema\": {SCHEMA!r}, ...}}) "
                          f"as the first line, got {str(record)[:80]!r}")
            if record.get("version") != SCHEMA_VERSION:
                raise bad(f"trace schema version {record.get('version')!r} is not supported; "
                          f"this planviz reads version {SCHEMA_VERSION}")
            header = record
            continue
        try:
            if kind == "plan":
                plans.append(_plan_from(_object(record["plan"], "plan"), plans))
            elif kind == "event":
                event = _event_from(_object(record["event"], "event"))
                if event.index != len(events):
                    raise ValueError(f"event index {event.index} out of order; expected {len(events)}")
                if event.plan_version and not any(p.version == event.plan_version for p in plans):
                    raise ValueError(f"event refers to plan version {event.plan_version}, "
                                     "which no earlier plan record defines")
                events.append(event)
            else:
                raise ValueError(f"unknown record type {kind!r}; expected 'plan' or 'event'")
        except (KeyError, TypeError, ValueError, AttributeError, PlanFormatError, SimulationError) as exc:
            what = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
            raise bad(f"bad {kind} record: {what}") from None
    if header is None:
        raise TraceFormatError("empty trace: expected a header line", source=source, line=1)
    try:
        faults = header.get("faults") or []
        if not isinstance(faults, list):
            raise ValueError(f"faults must be a list of objects, got {faults!r}")
        faults = tuple(_fault_from(_object(f, "a fault")) for f in faults)
        contract = header.get("contract")
        contract = None if contract is None else _contract_from(_object(contract, "contract"))
    except (TypeError, ValueError, PlanFormatError) as exc:
        raise TraceFormatError(f"bad header: {exc}", source=source, line=1) from None
    state = state_from_events(events)
    return Run(tuple(events), state.outcome, state, tuple(plans), str(header.get("strategy", "recorded")), faults,
               contract)
