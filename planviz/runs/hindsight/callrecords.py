"""What a run recorded of each call, as provenance reads it: when it ran, its definition, what its result holds.

:func:`intervals` gives each call's first start and last end (:func:`run_intervals`: the same, worked out once
for the last runs asked about, which hindsight and the recorded makespan of :func:`planviz.metrics` share);
:func:`ended_before` the order "had ended when the other started"; :func:`latest_steps` each id's latest
definition (:func:`run_latest_steps`: worked out once per run); :func:`result_leaves` the values of a recorded
result with their field paths (JSON text decoded), :func:`run_result_leaves` those of every call; ``_values``
the scalars of a call's arguments as text.
"""

from __future__ import annotations

import json
from operator import lt
from typing import Any, Callable, Iterator, Mapping, Sequence

from planviz.plan.model import Step
from planviz.runs.events import Run
from planviz.runs.lastruns import LastRuns

__all__ = [
    "result_leaves",
    "run_result_leaves",
    "intervals",
    "run_intervals",
    "latest_steps",
    "run_latest_steps",
    "ended_before",
    "time_order",
]


def _leaves(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], str]]:
    """Every scalar inside nested mappings and lists as text, with its path (iterative: deep data is safe)."""
    stack = [(path, value)]
    while stack:
        where, v = stack.pop()
        kind = type(v)
        # the common cases first, by exact type (a Mapping check costs an ABC look-up)
        if kind is str:
            yield where, v
        elif kind is dict or (kind is not list and kind is not tuple and isinstance(v, Mapping)):
            stack.extend((where + (str(k),), x) for k, x in reversed(list(v.items())))
        elif isinstance(v, (list, tuple)):
            stack.extend((where + (str(i),), x) for i, x in reversed(list(enumerate(v))))
        elif isinstance(v, bool) or v is None:
            continue
        elif isinstance(v, (int, float)):
            yield where, repr(v) if isinstance(v, float) else str(v)
        elif isinstance(v, str):
            yield where, v


def result_leaves(result: Any) -> list[tuple[tuple[str, ...], str]]:
    """The values of a recorded result with their field paths: JSON text is decoded (twice when a tool wrapped
    its JSON in a string), and the whole text is a value too (path ``()``).

    >>> result_leaves('{"datetime": "2025-06-11", "n": 3}')
    [((), '{"datetime": "2025-06-11", "n": 3}'), (('datetime',), '2025-06-11'), (('n',), '3')]
    """
    out: list[tuple[tuple[str, ...], str]] = []
    value = result
    for _ in range(3):
        if isinstance(value, str):
            out.append(((), value)) if not out else None
            try:
                value = json.loads(value)
            except (ValueError, RecursionError):
                return out
            continue
        break
    if (
        type(value) is dict
    ):  # a flat object of strings and numbers (the common result), as _leaves reads it
        flat = _flat_leaves(value)
        if flat is not None:
            return out + flat if out else flat
    for path, leaf in _leaves(value):
        if path or not out:
            out.append((path, leaf))
    return out


def _flat_leaves(value: dict[Any, Any]) -> list[tuple[tuple[str, ...], str]] | None:
    """:func:`_leaves` of a dict whose values are strings, ints, floats, booleans or None, in one loop; None for
    any other value (then :func:`_leaves` reads it)."""
    out: list[tuple[tuple[str, ...], str]] = []
    for k, v in value.items():
        kind = type(v)
        if kind is str:
            out.append(((str(k),), v))
        elif kind is int:
            out.append(((str(k),), str(v)))
        elif kind is float:
            out.append(((str(k),), repr(v)))
        elif v is None or kind is bool:
            continue
        else:
            return None
    return out


def run_result_leaves(run: Run) -> dict[str, list[tuple[tuple[str, ...], str]]]:
    """:func:`result_leaves` of each call's recorded result (the last one it returned), by call; the calls that
    returned none are left out."""
    out: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for sid, o in run.state.observations:
        result = o.data.get("result")
        if result is not None:
            # a flat object (the common result) read at once, as result_leaves reads it
            flat = _flat_leaves(result) if type(result) is dict else None
            out[sid] = flat if flat is not None else result_leaves(result)
    return out


def intervals(run: Run) -> dict[str, tuple[float, float]]:
    """Each step that started: (first start, last end); a step still running ends with the run."""
    start: dict[str, float] = {}
    end: dict[str, float | None] = {}
    for e in run.events:
        sid = e.step
        if sid is None:
            continue
        kind = e.kind
        if kind == "start":
            if sid not in start:
                start[sid] = e.time
            end[sid] = None  # running (again) until a complete or a fail says otherwise
        elif (kind == "complete" or kind == "fail") and sid in start:
            end[sid] = e.time
    out: dict[str, tuple[float, float]] = {}
    last = run.time
    for sid, t in start.items():
        ended = end[sid]
        out[sid] = (t, last if ended is None else ended if ended > t else t)  # max(t, ended)
    return out


def run_intervals(run: Run) -> Mapping[str, tuple[float, float]]:
    """:func:`intervals` of ``run``, worked out once for the last runs asked about (hindsight and the recorded
    makespan of :func:`planviz.metrics` read the same run's): shared, never to be changed."""
    return _kept_intervals(run)


_kept_intervals = LastRuns(intervals)  # worked out once per run for the last two runs asked about


def time_order(
    ids: Sequence[str], times: Mapping[str, tuple[float, float]], at: int = 0
) -> list[str]:
    """``ids`` sorted by (``times[id][at]``, id): by start (``at=0``) or by end (``at=1``). The list of ``ids`` as
    given when those times rise strictly along it (calls recorded as they started, one after another: most runs),
    which is what the sort gives then, without building a key per call.

    >>> times = {"b": (0.0, 3.0), "a": (1.0, 2.0)}
    >>> time_order(list(times), times), time_order(list(times), times, 1)
    (['b', 'a'], ['a', 'b'])
    """
    values = [times[s][at] for s in ids]
    if all(map(lt, values, values[1:])):  # (False at a NaN: sorted as always)
        return list(ids)
    return [s for _, s in sorted(zip(values, ids))]


def ended_before(times: Mapping[str, tuple[float, float]]) -> Callable[[str, str], bool]:
    """The strict order "``u`` had ended when ``v`` started" over ``times`` (each call's first start, last end, in
    the order the calls first started in the run's events, as :func:`intervals` gives them): ``u`` ended before
    ``v`` started, or at that very instant and ``u`` comes first in that recorded order. A call of no duration
    ending as another starts, or two at one instant, are then ordered one way only, so no cycle can arise: one
    would need every call on it at one instant, each recorded before the next.

    >>> before = ended_before({"a": (1.0, 1.0), "b": (1.0, 1.0), "c": (0.0, 2.0)})
    >>> before("a", "b"), before("b", "a"), before("a", "a"), before("c", "a")
    (True, False, False, False)
    """
    recorded = {sid: k for k, sid in enumerate(times)}

    def before(u: str, v: str) -> bool:
        e_u, s_v = times[u][1], times[v][0]
        return e_u < s_v or (e_u == s_v and recorded[u] < recorded[v])

    return before


def latest_steps(run: Run) -> dict[str, Step]:
    """Each step id's latest definition among the run's plan versions."""
    out: dict[str, Step] = {}
    for p in run.plans:
        for s in p.steps:
            out[s.id] = s
    return out


def run_latest_steps(run: Run) -> Mapping[str, Step]:
    """:func:`latest_steps` of ``run``, worked out once for the last runs asked about (hindsight and the recorded
    makespan of :func:`planviz.metrics` read the same run's): shared, never to be changed."""
    return _kept_steps(run)


_kept_steps = LastRuns(latest_steps)  # worked out once per run for the last two runs asked about


def _values(arguments: Mapping[str, Any]) -> list[str]:
    """The scalars of ``arguments`` as text, in :func:`_leaves`'s order: directly when every value is a string, an
    int or a float (a tool call's usual arguments), else by :func:`_leaves`."""
    out = []
    for v in arguments.values():
        kind = type(v)
        if kind is str:
            out.append(v)
        elif kind is int:
            out.append(str(v))
        elif kind is float:
            out.append(repr(v))
        else:
            return [leaf for _, leaf in _leaves(dict(arguments))]
    return out


def _arguments(step: Step) -> list[str]:
    return [leaf for _, leaf in _leaves(dict(step.arguments)) if "{{" not in leaf]
