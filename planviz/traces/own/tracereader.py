"""Reading planviz's own trace format (JSON Lines, schemas 1 to 3), line by line within the caps.

:func:`~planviz.load_trace` dispatches every format through :mod:`planviz.traces`; for planviz's own
traces it comes here. Each record is checked field by field (:mod:`planviz.traces.own.tracefields`), each event
against the plan version it belongs to, and a key named twice in one object is refused (one policy for
untrusted JSON, as in plan files). A last line cut short is a truncated trace, read up to its last whole event.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator

from planviz.errors import PlanFormatError, SimulationError, TraceFormatError
from planviz.io import limits
from planviz.io.jsonsyntax import DuplicateKey, unique_keys
from planviz.io.limits import mib
from planviz.io.syntax import show_value
from planviz.plan.model import Plan
from planviz.plan.records import contract_from_dict, plan_from_dict
from planviz.runs.events import Event, ModelCall, Run, state_from_events
from planviz.runs.frames import FrameStore
from planviz.runs.turns import Turn
from planviz.traces import FORMATS
from planviz.traces.own import tracefile
from planviz.traces.own.tracefields import (
    BadField,
    NonFinite,
    V1Events,
    choice,
    event_from,
    fault_from,
    finding_from,
    model_call_from,
    obj,
    text,
    turn_from,
)
from planviz.traces.own.tracefile import SCHEMA, STRATEGIES
from planviz.traces.own.traceplans import ORIGIN, SPLIT_SCHEMA, PlanSteps, SplitPlan

__all__ = ["read_trace", "trace_lines"]


def trace_lines(
    stream: Any, source: str, max_bytes: int | None = None
) -> Iterator[tuple[int, bytes]]:
    """``(line number, bytes)`` of each line of an open trace, read one line at a time within the caps
    (``max_bytes``: default :data:`planviz.io.limits.MAX_TRACE_BYTES`)."""
    max_bytes = limits.MAX_TRACE_BYTES if max_bytes is None else max_bytes
    longest = limits.MAX_TRACE_RECORD
    total = 0
    n = 0
    while True:
        try:
            blob = stream.readline(longest + 1)
        except (OSError, ValueError) as exc:
            raise TraceFormatError(
                f"cannot read the trace: {exc}", source=source, line=n + 1
            ) from None
        if isinstance(blob, str):
            blob = blob.encode("utf-8", "surrogatepass")
        if not blob:
            return
        n += 1
        total += len(blob)
        if total > max_bytes:
            raise TraceFormatError(
                f"the trace is larger than the {max_bytes:,}-byte cap ({mib(max_bytes)}); "
                "pass max_bytes= to load_trace to read a bigger one, or "
                + limits.raise_hint("MAX_TRACE_BYTES"),
                source=source,
                line=n,
            )
        if len(blob) > longest:
            raise TraceFormatError(
                f"line is longer than the {longest:,}-byte limit; "
                + limits.raise_hint("MAX_TRACE_RECORD"),
                source=source,
                line=n,
            )
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
        self.turns: list[Turn] = []
        self.version = 2
        self.split: SplitPlan | None = None  # a plan record whose steps lines are still to come

    def read(self, lines: Iterable[tuple[int, bytes]]) -> Run:
        n = 0
        for n, blob in lines:
            if not blob.strip():
                continue
            try:
                record = json.loads(
                    blob.decode("utf-8"), parse_constant=NonFinite, object_pairs_hook=unique_keys
                )
            except DuplicateKey as exc:  # one policy for untrusted JSON: plan files refuse it too
                raise TraceFormatError(str(exc), source=self.source, line=n) from None
            except (UnicodeDecodeError, ValueError, RecursionError) as exc:
                if not blob.endswith(b"\n"):
                    break  # a truncated last line: keep every whole event before it
                raise TraceFormatError(
                    f"not a JSON object: {exc}", source=self.source, line=n
                ) from None
            try:
                self._record(record)
            except BadField as exc:
                raise TraceFormatError(exc.why, source=self.source, line=n, path=exc.path) from None
            except PlanFormatError as exc:  # e.g. a plan's own caps
                raise TraceFormatError(
                    exc.message, source=self.source, line=n, path=exc.path
                ) from None
        if self.header is None:
            raise TraceFormatError(
                "empty trace: expected a header line", source=self.source, line=max(n, 1)
            )
        state = state_from_events(self.events)
        return Run(
            tuple(self.events),
            state.outcome,
            state,
            tuple(self.plans),
            self.header["strategy"],
            self.header["faults"],
            self.header["contract"],
            tuple(self.model_calls),
            self.header["trace_format"],
            tuple(self.turns),
        )

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
            event = (
                self.v1.event_from(record.get("event"))
                if self.v1
                else event_from(record.get("event"))
            )
            if event.index != len(self.events):
                raise BadField(
                    "event.index",
                    f"events out of order: expected {len(self.events)}, got {event.index}",
                )
            if event.plan_version and event.plan_version not in self.steps.ids:
                raise BadField(
                    "event.plan_version",
                    f"plan version {event.plan_version} is defined by no earlier plan record",
                )
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
                raise BadField(
                    "model_call.step", f"{show_value(call.step)} is a step of no plan record"
                )
            self.model_calls.append(call)
        elif kind == "turn":
            _only(record, "turn")
            self.turns.append(turn_from(record.get("turn")))
        else:
            raise BadField(
                "type", f"expected 'plan', 'event', 'model_call' or 'turn', got {show_value(kind)}"
            )

    def _add_plan(self, record: dict[str, Any]) -> None:
        plan = self._plan(record, "plan")
        self.plans.append(plan)
        self.steps.add(plan)

    def _header(self, record: dict[str, Any]) -> dict[str, Any]:
        if record.get("type") != "header" or record.get("schema") != SCHEMA:
            raise BadField(
                "header",
                f'expected a trace header ({{"type": "header", "schema": {SCHEMA!r}, '
                f"...}}) as the first line, got {show_value(record)}",
            )
        version = record.get("version")
        if version not in tracefile.READS or isinstance(version, bool):
            known_versions = (
                f"{', '.join(map(str, tracefile.READS[:-1]))} and {tracefile.READS[-1]}"
            )
            raise BadField(
                "header.version",
                f"trace schema version {show_value(version)} is not supported; this "
                f"planviz reads versions {known_versions} (a newer planviz may read it)",
            )
        known = {"type", "schema", "version", "strategy", "faults", "contract", "trace_format"}
        unknown = sorted(set(record) - known)
        if unknown:
            raise BadField(
                f"header.{unknown[0]}", f"unknown field; expected one of {', '.join(sorted(known))}"
            )
        faults = record.get("faults", [])
        if not isinstance(faults, list):
            raise BadField("header.faults", f"expected a list of faults, got {show_value(faults)}")
        contract = record.get("contract")
        self.v1 = V1Events() if version == 1 else None
        self.version = version
        try:
            return {
                "strategy": choice(
                    record.get("strategy", "recorded"), "header.strategy", STRATEGIES
                ),
                "faults": tuple(fault_from(f, f"header.faults[{i}]") for i, f in enumerate(faults)),
                "contract": None
                if contract is None
                else contract_from_dict(obj(contract, "header.contract")),
                "trace_format": _trace_format(record.get("trace_format")),
            }
        except SimulationError as exc:
            raise BadField("header.faults", str(exc)) from None
        except PlanFormatError as exc:
            raise _within("header.contract", exc) from None

    def _plan(self, d: dict[str, Any], path: str) -> Plan:
        known = self.plans
        parent: Plan | None
        if "parent_ref" in d:
            ref = d["parent_ref"]
            if isinstance(ref, bool) or not isinstance(ref, int) or not 0 <= ref < len(known):
                raise BadField(
                    f"{path}.parent_ref",
                    f"{show_value(ref)} names no earlier plan record (0..{len(known) - 1})",
                )
            parent = known[ref]
        else:
            parent = (
                self._plan(obj(d["parent"], f"{path}.parent"), f"{path}.parent")
                if d.get("parent")
                else None
            )
        found = d.get("import_findings") or []
        if not isinstance(found, list):
            raise BadField(
                f"{path}.import_findings", f"expected a list of findings, got {show_value(found)}"
            )
        findings = [finding_from(f, f"{path}.import_findings[{i}]") for i, f in enumerate(found)]
        origin = {key: text(d[key], f"{path}.{key}") for key in ORIGIN if key in d}
        body = {
            k: v
            for k, v in d.items()
            if k not in ("parent", "parent_ref", "import_findings", *ORIGIN)
        }
        try:
            plan = plan_from_dict(body, shape="planviz")
        except PlanFormatError as exc:
            raise _within(path, exc) from None
        return plan.replace(parent=parent, import_findings=findings, **origin)


def _only(record: dict[str, Any], key: str, *also: str) -> None:
    extra = sorted(set(record) - {"type", key, *also})
    if extra:
        raise BadField(
            extra[0], f"unknown field of a {key} record; expected only 'type' and {key!r}"
        )


def _within(path: str, exc: PlanFormatError) -> BadField:
    """A plan-file error inside a trace record, its field path prefixed with the record's."""
    return BadField(f"{path}.{exc.path}" if exc.path else path, exc.message)


def _trace_format(value: Any) -> str | None:
    """The header's ``trace_format``: None, or the name of another tool's format the run was read from."""
    if value is None:
        return None
    foreign = [name for name in FORMATS if name != "planviz"]
    return choice(value, "header.trace_format", tuple(foreign))
