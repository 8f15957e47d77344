"""Run traces as JSON Lines, and a recorder for real agent runs.

A trace is one JSON object per line: a header (``"type": "header"`` with the
schema name and version, the strategy, the faults and the contract), then, in
the order they happened, ``plan`` records (each plan version, once) and
``event`` records (one frame each). A run loads back equal to the one saved.
A recorder streaming to a file flushes every line, so a crashed agent leaves a
truncated trace, which loads up to its last whole event.

>>> import tempfile, os
>>> from planviz.model import Plan, Step
>>> plan = Plan("fix", [Step("A", "reproduce", expected_evidence="failing test", produces="seen")])
>>> rec = Recorder(clock=iter(range(100)).__next__)
>>> _ = rec.propose(plan); _ = rec.start("A"); _ = rec.complete("A"); _ = rec.stop("plan_complete")
>>> path = os.path.join(tempfile.mkdtemp(), "run.jsonl")
>>> rec.save(path)
>>> load_trace(path) == rec.run
True
"""

from __future__ import annotations

import json
import math
import os
import time as _time
from dataclasses import fields
from typing import Any, Callable, Iterable, Mapping

from ._runstate import (EVENT_KINDS, OUTCOMES, Conflict, Event, Fault, Machine, Observation, Run, SimulationError,
                        state_from_events)
from .errors import PlanFormatError, TraceFormatError
from .fromdict import contract_from_dict, contract_to_dict, plan_from_dict, plan_to_dict
from .model import STATUSES, Contract, Finding, Plan
from .replan import complete_revision

__all__ = ["save_trace", "load_trace", "Recorder", "SCHEMA", "SCHEMA_VERSION", "run_to_lines"]

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


def _plan_dict(plan: Plan, known: list[Plan]) -> dict[str, Any]:
    """The plan as in a plan file (:func:`planviz.fromdict.plan_to_dict`), plus what a trace keeps too:
    its version (always written: a trace reader tells versions apart by it), its import findings and
    its parent (by reference to an earlier plan record when there is one)."""
    d = {"version": plan.version, **plan_to_dict(plan)}
    d["import_findings"] = [{f.name: _plain(getattr(x, f.name)) for f in fields(Finding)}
                            for x in plan.import_findings]
    parent = next((i for i, p in enumerate(known) if p is plan.parent), None)
    if parent is not None:
        d["parent_ref"] = parent
    else:
        d["parent"] = _plan_dict(plan.parent, known) if plan.parent is not None else None
    return d


_EVENT_FIELDS = tuple(f.name for f in fields(Event))
_EVENT_SETS = ("facts", "ready", "voided", "kept")


def _event_dict(e: Event) -> dict[str, Any]:
    d = {name: getattr(e, name) for name in _EVENT_FIELDS}
    for name in _EVENT_SETS:
        d[name] = sorted(d[name])
    d["statuses"] = dict(e.statuses)
    d["observation"] = None if e.observation is None else {
        f.name: _plain(getattr(e.observation, f.name)) for f in fields(Observation)}
    d["conflicts"] = [{f.name: getattr(c, f.name) for f in fields(Conflict)} for c in e.conflicts]
    return d


def _header(strategy: str, faults: Iterable[Fault], contract: Contract | None) -> dict[str, Any]:
    return {"type": "header", "schema": SCHEMA, "version": SCHEMA_VERSION, "strategy": strategy,
            "faults": [{f.name: getattr(x, f.name) for f in fields(Fault)} for x in faults],
            "contract": _contract_dict(contract)}


def _line(record: Mapping[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=repr) + "\n"


def run_to_lines(run: Run) -> list[str]:
    """The trace of ``run`` as JSON Lines (each ending in a newline): header, then plans and events in order."""
    lines = [_line(_header(run.strategy, run.faults, run.contract))]
    written: list[Plan] = []
    pending = list(run.plans)
    for e in run.events:
        while pending and pending[0].version <= e.plan_version:
            plan = pending.pop(0)
            lines.append(_line({"type": "plan", "plan": _plan_dict(plan, written)}))
            written.append(plan)
        lines.append(_line({"type": "event", "event": _event_dict(e)}))
    for plan in pending:
        lines.append(_line({"type": "plan", "plan": _plan_dict(plan, written)}))
        written.append(plan)
    return lines


def save_trace(run: Run, path: str | os.PathLike[str]) -> None:
    """Write ``run`` to ``path`` as a JSON Lines trace (UTF-8)."""
    with open(path, "w", encoding="utf-8") as fh:
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


def load_trace(path: str | os.PathLike[str]) -> Run:
    """Read a JSON Lines trace back into a :class:`~planviz.runtime.Run`.

    Raises :class:`~planviz.errors.TraceFormatError` naming the line and the
    reason when a line is not a valid record. A last line cut short (no final
    newline, not valid JSON) is a truncated trace: it is dropped and the run
    loads up to its last whole event, with ``outcome`` None if it never stopped.
    """
    source = os.fspath(path)
    with open(path, "rb") as fh:
        raw = fh.read()
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
        faults = tuple(Fault(**_object(f, "a fault")) for f in faults)
        contract = header.get("contract")
        contract = None if contract is None else _contract_from(_object(contract, "contract"))
    except (TypeError, ValueError, PlanFormatError) as exc:
        raise TraceFormatError(f"bad header: {exc}", source=source, line=1) from None
    state = state_from_events(events)
    return Run(tuple(events), state.outcome, state, tuple(plans), str(header.get("strategy", "recorded")), faults,
               contract)


# --------------------------------------------------------------------------- recorder

class Recorder:
    """Record a real agent run as it happens, framed by the same state machine as :func:`planviz.simulate`.

    The agent's own code calls :meth:`propose`, :meth:`start`, :meth:`observe`
    (or :meth:`complete` / :meth:`fail`), :meth:`replan` and :meth:`stop`;
    :attr:`run` is the :class:`~planviz.runtime.Run` so far. With ``path``,
    every plan and event is appended to that trace file and flushed at once.
    ``clock`` gives the time of each event (default: seconds since the
    recorder was made).
    """

    def __init__(self, contract: Contract | None = None, *, path: str | os.PathLike[str] | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        self._m = Machine(contract)
        self._contract = contract
        t0 = _time.monotonic()
        self._clock = clock or (lambda: _time.monotonic() - t0)
        self._path = path
        self._written: list[Plan] = []
        self._events_written = 0
        if path is not None:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(_line(_header("recorded", (), contract)))

    def _tick(self) -> None:
        self._m.time = float(self._clock())

    def _flush(self) -> None:
        if self._path is None:
            return
        out = []
        for plan in self._m.plans[len(self._written):]:
            out.append(_line({"type": "plan", "plan": _plan_dict(plan, self._written)}))
            self._written.append(plan)
        for e in self._m.events[self._events_written:]:
            out.append(_line({"type": "event", "event": _event_dict(e)}))
        self._events_written = len(self._m.events)
        with open(self._path, "a", encoding="utf-8") as fh:
            fh.writelines(out)
            fh.flush()

    def _done(self, events: list[Event]) -> tuple[Event, ...]:
        self._flush()
        return tuple(events)

    def _step(self, step_id: str):
        plan = self._m.plan
        if plan is None:
            raise SimulationError(f"record a plan with propose() before step {step_id!r}")
        return plan.step(step_id)

    def propose(self, plan: Plan) -> Event:
        """The agent proposed ``plan`` (later proposals are recorded as replans)."""
        if self._m.plan is not None:
            return self.replan(plan, plan.trigger or "a new plan was proposed")
        self._tick()
        return self._done([self._m.propose(plan)])[0]

    def start(self, step_id: str) -> Event:
        """The agent started ``step_id`` (an id not in the plan is recorded as an invalid step)."""
        self._tick()
        return self._done([self._m.start(step_id)])[0]

    def observe(self, step_id: str, observation: Observation) -> tuple[Event, ...]:
        """What ``step_id`` reported: completes it when it establishes all it produces, else fails it.
        Withdrawn facts leave the state and steps no longer reachable are invalidated."""
        self._tick()
        m = self._m
        events = m.finish(step_id, observation)
        voided = m.void_unreachable(step_id) if observation.withdrawn else None
        return self._done(events + [voided] if voided else events)

    def complete(self, step_id: str, facts: Iterable[str] | None = None, **data: Any) -> tuple[Event, ...]:
        """Shortcut: ``step_id`` succeeded and established ``facts`` (default: what it produces)."""
        if facts is None:
            facts = self._step(step_id).produces if self._m.plan is not None and step_id in self._m.plan else ()
        return self.observe(step_id, Observation(True, frozenset(facts), data=data))

    def fail(self, step_id: str, message: str, category: str = "tool_error") -> Event:
        """``step_id`` failed; ``category`` is ``transient``, ``tool_error``, ``precondition``, ``side_effect``..."""
        self._tick()
        return self._done([self._m.fail(step_id, message, category)])[0]

    def retry(self, step_id: str, message: str = "") -> Event:
        """The agent will try ``step_id`` again."""
        self._tick()
        return self._done([self._m.retry(step_id, message or f"retry {step_id!r}")])[0]

    def invalidate(self, step_ids: Iterable[str], message: str, step_id: str | None = None) -> Event:
        """The agent voided ``step_ids`` (their facts leave the state unless another step established them)."""
        self._tick()
        m = self._m
        voided = set(step_ids)
        kept = m.completed.intersection(m.plan.ids if m.plan else ()) - voided
        return self._done([m.invalidate(step_id, voided, kept, message)])[0]

    def replan(self, new_plan: Plan, trigger: str) -> Event:
        """The agent revised its plan because of ``trigger``; version, parent and invalidated are filled in."""
        self._tick()
        m = self._m
        old = m.plan
        if old is None:
            raise SimulationError("record a plan with propose() before a replan")
        dropped = set(old.ids) - set(new_plan.ids) - m.completed
        new = complete_revision(old, new_plan, trigger, dropped)
        return self._done([m.replan(new, f"plan v{new.version} after {trigger}")])[0]

    def stop(self, outcome: str, message: str = "") -> Event:
        """The run ended with ``outcome`` (one of the SPEC outcomes)."""
        if outcome not in OUTCOMES:
            raise SimulationError(f"unknown outcome {outcome!r}; choose one of {', '.join(OUTCOMES)}")
        self._tick()
        return self._done([self._m.stop(outcome, message or "recorded")])[0]

    @property
    def run(self) -> Run:
        """The run recorded so far."""
        return self._m.run("recorded", ())

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the run recorded so far as a trace."""
        save_trace(self.run, path)
