"""Every string a trace reader put in a run is valid Unicode: the one check after any reader, before a run
reaches a viewer or a writer.

A JSON file may spell a lone surrogate as an escape (``"\\ud800"``); Python
decodes it into a string that no UTF-8 file, page or terminal can hold, so
``save_trace`` and ``report_html`` would fail far from the cause. A JSON
document is refused as it is parsed, with the field's path in the file
(:mod:`planviz.traces.jsonstream`); this check covers what that cannot
see: JSON text inside a field, checkpoint blobs, and planviz's own lines.
Plans check their own text as they are made.

>>> from planviz import examples, simulate
>>> from dataclasses import replace
>>> run = simulate(examples.load("cache_isolation"))
>>> check_run_text(run, "<run>") is run
True
>>> bad = replace(run, events=(replace(run.events[0], message="x\\ud800"),) + run.events[1:])
>>> check_run_text(bad, "t.json")  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
planviz.errors.TraceFormatError: t.json: events[0].message: lone surrogate '\\ud800' at character 2 of
'x\\ud800': expected Unicode text that can be written as UTF-8
"""

from __future__ import annotations

import json
from dataclasses import fields, is_dataclass
from operator import attrgetter
from typing import Any, Callable

from planviz.errors import PlanFormatError, TraceFormatError
from planviz.io.plaindata import check_unicode
from planviz.plan.model import Plan
from planviz.runs.events import ExecutionState, Observation, Run, stored_message
from planviz.runs.statuslog import DoneSet

__all__ = ["check_run_text"]

_FIELDS: dict[type, tuple[str, ...]] = {}
_PLAIN = (str, int, float, bool, type(None))


def _clean(item: Any) -> bool:
    kind = type(item)
    if kind is str:
        return item.isascii() or item.isprintable() or _encodes(item)
    if kind in (tuple, list, frozenset, set):
        return all(map(_clean, item))
    if kind is dict:
        return all(map(_clean, item)) and all(map(_clean, item.values()))
    if isinstance(item, Observation):
        return _text_ok([item.kind, *item.facts, *item.withdrawn]) and (
            not item.data or _clean_data(item.data)
        )
    if (
        item is None
        or kind in (int, float, bool)
        or isinstance(item, Plan)
        or not is_dataclass(item)
    ):
        return True
    getter = _GETTERS.get(kind)
    if getter is None:
        getter = _GETTERS[kind] = _values_getter(tuple(f.name for f in fields(item)))
    values = getter(item)
    text = [v for v in values if type(v) is str]
    return _text_ok(text) and all(_clean(v) for v in values if type(v) not in _PLAIN)


_GETTERS: dict[type, Callable[[Any], tuple[Any, ...]]] = {}


def _values_getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The values of a dataclass's fields as a tuple, read at C speed (one per model call of a big run)."""
    if len(names) > 1:
        return attrgetter(*names)
    return lambda item: tuple(getattr(item, name) for name in names)


def _state_clean(state: ExecutionState, checked: set[int]) -> bool:
    """:func:`_clean` of the run's state, its observations already checked with their events (``checked``: their
    ids) not checked twice."""
    for name in _names(state):
        value = getattr(state, name)
        if name == "observations":
            if not all(_clean(sid) and (id(o) in checked or _clean(o)) for sid, o in value):
                return False
        elif not _clean(value):
            return False
    return True


def _names(item: Any) -> tuple[str, ...]:
    names = _FIELDS.get(type(item))
    if names is None:
        names = _FIELDS[type(item)] = tuple(f.name for f in fields(item))
    return names


def _ascii_event(e: Any) -> bool:
    # (a message made when read is made of the step and the observation's fact, each checked here)
    text = [e.kind, stored_message(e), e.step or "", e.category or "", e.outcome or ""]
    # a logged snapshot's (and kept work's) other steps are its plan's, checked as the plan was made
    changes = getattr(e.changes, "fresh", e.changes)
    kept = e.kept if type(e.kept) is not DoneSet else ()
    for part in (changes, changes.values(), e.gained, e.lost, e.voided, kept):
        text.extend(part)
    return (
        _text_ok(text)
        and (e.observation is None or _clean(e.observation))
        and (e.conflict is None or _clean(e.conflict))
    )


def _clean_data(data: Any) -> bool:
    """Plain data checked as one JSON text (the C encoder walks it); anything else the slow way."""
    try:
        text = _data_text(data)
    except (TypeError, ValueError, RecursionError):
        return _clean(data)
    return text.isascii() or _encodes(text)


def _other(value: Any) -> None:
    if not _clean(value):
        raise ValueError("not clean")


# json.dumps(data, ensure_ascii=False, check_circular=False, default=_other), its encoder made once
_data_text = json.JSONEncoder(ensure_ascii=False, check_circular=False, default=_other).encode


def _text_ok(parts: list[str]) -> bool:
    text = "".join(parts)
    return text.isascii() or _encodes(text)


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_run_text(run: Run, source: str) -> Run:
    """``run`` itself, after refusing a lone surrogate in any of its strings, naming ``source`` and the field."""
    checked = {id(e.observation) for e in run.events if e.observation is not None}
    if (
        all(map(_ascii_event, run.events))
        and all(map(_clean, (run.model_calls, run.faults)))
        and _state_clean(run.state, checked)
    ):
        return run  # the fast pass, no paths: almost every string is ASCII
    stack: list[tuple[Any, tuple[Any, ...]]] = [
        (getattr(run, name), (name,)) for name in ("events", "model_calls", "state", "faults")
    ]
    try:
        while stack:
            item, where = stack.pop()
            kind = type(item)
            if kind is str:
                if not item.isascii():
                    check_unicode(item, where)
            elif kind in (tuple, list):
                stack.extend((inner, where + (i,)) for i, inner in enumerate(item))
            elif kind in (frozenset, set):
                stack.extend((inner, where) for inner in item)
            elif kind is dict:
                for key, inner in item.items():
                    stack.append((key, where))
                    stack.append((inner, where + (key,)))
            elif is_dataclass(item) and not isinstance(item, Plan):
                names = _FIELDS.get(kind)
                if names is None:
                    names = _FIELDS[kind] = tuple(f.name for f in fields(item))
                stack.extend((getattr(item, name), where + (name,)) for name in names)
    except PlanFormatError as exc:
        raise TraceFormatError(exc.message, source=source, path=exc.path) from None
    return run
