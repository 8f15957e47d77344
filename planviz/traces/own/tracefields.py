"""The fields of trace records, each checked on the way in with its place, and written compactly on the way out.

Every field of every record is validated when a trace loads, as plan files
are: a value of the wrong JSON type, a time that is not a finite number
(``Infinity``, ``NaN``, ``1e400``, a 400-digit integer), an unknown status or
event kind, a finding whose ``steps`` are objects... raises :class:`BadField`
naming the field (``event.time``), which the reader turns into a
:class:`~planviz.errors.TraceFormatError` with the file and line.

>>> event_from({"index": 0, "time": 0, "kind": "propose", "step": None, "message": "m", "plan_version": 1,
...             "changes": {"A": "ready"}}).changes
{'A': 'ready'}
>>> event_from({"index": 0, "time": float("inf"), "kind": "propose", "step": None, "message": "m",
...             "plan_version": 1, "changes": {}})
Traceback (most recent call last):
...
planviz.traces.own.tracefields.BadField: event.time: expected a finite number, got inf
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import AbstractSet, Any, Callable, Mapping

from planviz.errors import PlanFormatError
from planviz.io.limits import read_float, read_int
from planviz.io.syntax import show_value
from planviz.plan.model import LAYERS, SEVERITIES, STATUSES, Finding
from planviz.plan.records import contract_from_dict
from planviz.runs.events import EVENT_KINDS, OUTCOMES, Conflict, Event, ModelCall, Observation
from planviz.runs.fault import FAULT_KINDS, Fault
from planviz.runs.turns import Turn

__all__ = [
    "BadField",
    "NonFinite",
    "event_from",
    "event_record",
    "V1Events",
    "finding_from",
    "fault_from",
    "EVENT_FIELDS",
    "finite",
    "strings",
    "json_value",
    "obj",
    "text",
    "choice",
    "model_call_from",
    "model_call_record",
    "turn_record",
    "turn_from",
]


class BadField(ValueError):
    """A field of a trace record that is missing or holds the wrong value; ``path`` names it."""

    def __init__(self, path: str, why: str) -> None:
        self.path, self.why = path, why
        super().__init__(f"{path}: {why}")


class NonFinite:
    """What the JSON reader makes of ``NaN``, ``Infinity`` and ``-Infinity``, so the field holding one is named."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _show(value: Any) -> str:
    return repr(value) if isinstance(value, NonFinite) else show_value(value)


# --------------------------------------------------------------------------- checks of one value


def finite(value: Any, path: str) -> float:
    """A finite number (``bool`` is not one), as a float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadField(path, f"expected a finite number, got {_show(value)}")
    number = read_float(value)
    if number is None:
        shown = (
            _show(value) if isinstance(value, float) else f"an integer of {len(str(value))} digits"
        )
        raise BadField(path, f"expected a finite number, got {shown}")
    return number


def whole(value: Any, path: str, least: int = 0) -> int:
    """An integer >= ``least`` within float range (:func:`~planviz.io.limits.read_int`: a 400-digit one is
    refused as ``1e999`` is)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise BadField(path, f"expected an integer >= {least}, got {_show(value)}")
    if read_int(value) is None:
        raise BadField(
            path, f"expected an integer within float range, got one of {len(str(value)):,} digits"
        )
    return value


def text(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise BadField(path, f"expected a string, got {_show(value)}")
    return value


def maybe_text(value: Any, path: str) -> str | None:
    return None if value is None else text(value, path)


def choice(value: Any, path: str, choices: tuple[str, ...]) -> str:
    if value not in choices or not isinstance(value, str):
        raise BadField(path, f"expected one of {', '.join(choices)}, got {_show(value)}")
    return value


def strings(value: Any, path: str) -> frozenset[str]:
    """A list of strings, as a frozenset."""
    if not isinstance(value, list):
        raise BadField(path, f"expected a list of strings, got {_show(value)}")
    for i, item in enumerate(value):
        text(item, f"{path}[{i}]")
    return frozenset(value)


def obj(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BadField(path, f"expected an object, got {_show(value)}")
    return value


def json_value(value: Any, path: str, depth: int = 0) -> Any:
    """Free-form JSON (an observation's data), nested at most 64 deep; ``NaN``/``Infinity`` stay floats there."""
    if depth > 64:
        raise BadField(path, "nested more than 64 levels deep")
    if isinstance(value, NonFinite):
        return float(value.text.replace("Infinity", "inf"))
    if isinstance(value, list):
        return [json_value(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: json_value(v, f"{path}.{k}", depth + 1) for k, v in value.items()}
    return value


def _fields_of(
    d: dict[str, Any], path: str, known: Mapping[str, Any], required: tuple[str, ...]
) -> None:
    for name in required:
        if name not in d:
            raise BadField(f"{path}.{name}", "missing")
    for name in d:
        if name not in known:
            raise BadField(f"{path}.{name}", f"unknown field; expected one of {', '.join(known)}")


# --------------------------------------------------------------------------- compound values

_OBSERVATION = {
    "ok": None,
    "facts": None,
    "withdrawn": None,
    "kind": None,
    "data": None,
    "replaced": None,
}


def observation_from(value: Any, path: str) -> Observation:
    d = obj(value, path)
    _fields_of(d, path, _OBSERVATION, ("ok",))
    ok = d["ok"]
    if not isinstance(ok, bool):
        raise BadField(f"{path}.ok", f"expected true or false, got {_show(ok)}")
    return Observation(
        ok,
        strings(d.get("facts", []), f"{path}.facts"),
        strings(d.get("withdrawn", []), f"{path}.withdrawn"),
        text(d.get("kind", "ok"), f"{path}.kind"),
        obj(json_value(d.get("data", {}), f"{path}.data"), f"{path}.data"),
        strings(d.get("replaced", []), f"{path}.replaced"),
    )


_CONFLICT = {f.name: None for f in fields(Conflict)}


def conflict_from(value: Any, path: str) -> Conflict:
    d = obj(value, path)
    _fields_of(d, path, _CONFLICT, tuple(_CONFLICT))
    return Conflict(*(text(d[name], f"{path}.{name}") for name in _CONFLICT))


_FINDING = {f.name: None for f in fields(Finding)}


def finding_from(value: Any, path: str) -> Finding:
    """An import finding of a plan record: every field typed (``steps`` strings, ``edges`` pairs of strings)."""
    d = obj(value, path)
    _fields_of(d, path, _FINDING, ("code", "layer", "severity", "message"))
    steps = d.get("steps", [])
    edges = d.get("edges", [])
    if not isinstance(edges, list) or not all(isinstance(e, list) and len(e) == 2 for e in edges):
        raise BadField(f"{path}.edges", f"expected a list of [from, to] pairs, got {_show(edges)}")
    strings(steps, f"{path}.steps")
    for i, e in enumerate(edges):
        strings(e, f"{path}.edges[{i}]")
    return Finding(
        text(d["code"], f"{path}.code"),
        choice(d["layer"], f"{path}.layer", LAYERS),
        choice(d["severity"], f"{path}.severity", SEVERITIES),
        text(d["message"], f"{path}.message"),
        tuple(steps),
        tuple(tuple(e) for e in edges),
        text(d.get("where", ""), f"{path}.where"),
    )


_FAULT = {f.name: None for f in fields(Fault)}


def fault_from(value: Any, path: str) -> Fault:
    """A fault of the header: a goal change's new goal and contract too (a contract read as in a plan file)."""
    d = obj(value, path)
    _fields_of(d, path, _FAULT, ("step", "kind"))
    contract = d.get("contract")
    if contract is not None:
        try:
            contract = contract_from_dict(obj(contract, f"{path}.contract"))
        except PlanFormatError as exc:
            raise BadField(
                f"{path}.contract.{exc.path}" if exc.path else f"{path}.contract", exc.message
            ) from None
    return Fault(
        text(d["step"], f"{path}.step"),
        choice(d["kind"], f"{path}.kind", FAULT_KINDS),
        maybe_text(d.get("fact"), f"{path}.fact"),
        whole(d.get("times", 1), f"{path}.times", 1),
        goal=maybe_text(d.get("goal"), f"{path}.goal"),
        contract=contract,
    )


# --------------------------------------------------------------------------- events


def _changes(value: Any, path: str) -> dict[str, str]:
    d = obj(value, path)
    for sid, status in d.items():
        choice(status, f"{path}[{sid!r}]", STATUSES)
    return d


# How each field of an Event is read from a record (schema 2). A new Event field needs its entry here.
EVENT_FIELDS: dict[str, Callable[[Any, str], Any]] = {
    "index": whole,
    "time": finite,
    "kind": lambda v, p: choice(v, p, EVENT_KINDS),
    "step": maybe_text,
    "message": text,
    "plan_version": whole,
    "changes": _changes,
    "gained": strings,
    "lost": strings,
    "voided": strings,
    "kept": strings,
    "attempt": whole,
    "category": maybe_text,
    "observation": lambda v, p: None if v is None else observation_from(v, p),
    "outcome": lambda v, p: None if v is None else choice(v, p, OUTCOMES),
    "conflict": lambda v, p: None if v is None else conflict_from(v, p),
}
_REQUIRED = ("index", "time", "kind", "step", "message", "plan_version", "changes")


def event_from(d: Any, path: str = "event") -> Event:
    """An :class:`Event` from its record (schema 2), every field checked."""
    d = obj(d, path)
    _fields_of(d, path, EVENT_FIELDS, _REQUIRED)
    return Event(**{name: EVENT_FIELDS[name](value, f"{path}.{name}") for name, value in d.items()})


def _default(f: Any) -> Any:
    if f.default is not MISSING:
        return f.default
    return f.default_factory() if f.default_factory is not MISSING else MISSING


_DEFAULTS = {f.name: _default(f) for f in fields(Event)}


# most fields of most events: written as they are
_ATOMS = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> Any:
    # before the Mapping check, an abstract-class lookup for every field of every event
    if type(value) in _ATOMS:
        return value
    if type(value) is dict:  # an event's changes
        return dict(value)
    # a frozenset, or the kept work of a grown version (a DoneSet)
    if isinstance(value, AbstractSet):
        return sorted(value)
    if isinstance(value, Observation):
        return {
            "ok": value.ok,
            "facts": sorted(value.facts),
            "withdrawn": sorted(value.withdrawn),
            "kind": value.kind,
            "data": dict(value.data),
            **({"replaced": sorted(value.replaced)} if value.replaced else {}),
        }
    if isinstance(value, Conflict):
        return {f.name: getattr(value, f.name) for f in fields(Conflict)}
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def event_record(e: Event) -> dict[str, Any]:
    """The record of an event (schema 2): the required fields, then only the fields that differ from their
    default, so an event's line is as long as what it changed."""
    d = {name: _plain(getattr(e, name)) for name in _REQUIRED}
    for name, default in _DEFAULTS.items():
        if name not in d:
            value = getattr(e, name)
            if value != default:
                d[name] = _plain(value)
    return d


_MODEL_CALL = {f.name: _default(f) for f in fields(ModelCall)}


def model_call_record(call: ModelCall) -> dict[str, Any]:
    """The record of a model call: ``model`` and ``start``, then only the fields that differ from their default."""
    d = {"model": call.model, "start": call.start}
    for name, default in _MODEL_CALL.items():
        if name not in d and getattr(call, name) != default:
            d[name] = getattr(call, name)
    return d


def model_call_from(value: Any, path: str = "model_call") -> ModelCall:
    """A :class:`~planviz.runs.events.ModelCall` from its record, every field checked."""
    d = obj(value, path)
    _fields_of(d, path, _MODEL_CALL, ("model", "start"))
    ok = d.get("ok", True)
    if not isinstance(ok, bool):
        raise BadField(f"{path}.ok", f"expected true or false, got {_show(ok)}")

    def count(name: str) -> int | None:
        return None if d.get(name) is None else whole(d[name], f"{path}.{name}")

    inferred = d.get("duration_inferred", False)
    if not isinstance(inferred, bool):
        raise BadField(
            f"{path}.duration_inferred", f"expected true or false, got {_show(inferred)}"
        )
    return ModelCall(
        text(d["model"], f"{path}.model"),
        finite(d["start"], f"{path}.start"),
        None if d.get("duration") is None else finite(d["duration"], f"{path}.duration"),
        count("input_tokens"),
        count("output_tokens"),
        None if d.get("cost") is None else finite(d["cost"], f"{path}.cost"),
        ok,
        maybe_text(d.get("step"), f"{path}.step"),
        text(d.get("id", ""), f"{path}.id"),
        count("reasoning_tokens"),
        count("cached_tokens"),
        count("total_tokens"),
        inferred,
        maybe_text(d.get("input"), f"{path}.input"),
        maybe_text(d.get("output"), f"{path}.output"),
    )


def turn_record(turn: Turn) -> dict[str, Any]:
    """The record of a chat turn: ``role`` and ``text``, and ``time`` when the trace said it."""
    d: dict[str, Any] = {"role": turn.role, "text": turn.text}
    if turn.time is not None:
        d["time"] = turn.time
    return d


def turn_from(value: Any, path: str = "turn") -> Turn:
    """A :class:`~planviz.runs.turns.Turn` from its record, every field checked."""
    d = obj(value, path)
    _fields_of(d, path, {"role": None, "text": None, "time": None}, ("role", "text"))
    return Turn(
        text(d["role"], f"{path}.role"),
        text(d["text"], f"{path}.text"),
        None if d.get("time") is None else finite(d["time"], f"{path}.time"),
    )


# --------------------------------------------------------------------------- schema 1: full frames to deltas

_V1_FIELDS = {
    **{k: v for k, v in EVENT_FIELDS.items() if k not in ("changes", "gained", "lost", "conflict")},
    "statuses": _changes,
    "facts": strings,
    "ready": strings,
    "conflicts": None,
}


class V1Events:
    """Reads schema-1 events (every event a full frame) into delta events, checking that the frames agree:
    ``ready`` is exactly the steps whose status is ``ready``, and the events of one plan version list the
    same steps."""

    def __init__(self) -> None:
        self._version: Any = None
        self._statuses: dict[str, str] = {}
        self._facts: frozenset[str] = frozenset()
        self._conflicts = 0

    def event_from(self, d: Any, path: str = "event") -> Event:
        d = obj(d, path)
        _fields_of(d, path, _V1_FIELDS, _REQUIRED[:-1] + ("statuses",))
        values: dict[str, Any] = {
            name: check(d[name], f"{path}.{name}")
            for name, check in _V1_FIELDS.items()
            if name in d and check is not None
        }
        statuses, facts = values.pop("statuses"), values.pop("facts", frozenset())
        ready = values.pop("ready", frozenset())
        if ready != {s for s, v in statuses.items() if v == "ready"}:
            raise BadField(
                f"{path}.ready", f"expected the steps whose status is ready, got {sorted(ready)!r}"
            )
        conflicts = d.get("conflicts") or []
        if not isinstance(conflicts, list):
            raise BadField(
                f"{path}.conflicts", f"expected a list of conflicts, got {_show(conflicts)}"
            )
        conflicts = [conflict_from(c, f"{path}.conflicts[{i}]") for i, c in enumerate(conflicts)]
        if values["plan_version"] != self._version:
            changes = dict(statuses)
        elif statuses.keys() != self._statuses.keys():
            raise BadField(
                f"{path}.statuses",
                "names other steps than the event before it, of the same plan "
                "version (each event lists every step of its version)",
            )
        else:
            before = self._statuses
            changes = {sid: v for sid, v in statuses.items() if before[sid] != v}
        conflict = (
            conflicts[-1]
            if values["kind"] == "conflict" and len(conflicts) > self._conflicts
            else None
        )
        event = Event(
            **values,
            changes=changes,
            gained=facts - self._facts,
            lost=self._facts - facts,
            conflict=conflict,
        )
        self._version, self._statuses, self._facts, self._conflicts = (
            values["plan_version"],
            statuses,
            facts,
            len(conflicts),
        )
        return event
