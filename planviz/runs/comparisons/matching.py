"""Which step of one side is which step of the other: a plan against a run, or one run against another.

The one matching rule shared by :func:`planviz.align` and :func:`planviz.diff_runs`:
pairs are made by **step id**, then by **tool call id** (a side's step id
equal to the other's recorded ``call_id``), then by **tool name and argument
similarity** (the most similar unmatched step with the same tool, the earlier
one on ties), in that order. Steps without a tool match by id or call id only.

:func:`steps_run` lists what a run actually did: every step that started, in
the order it first started, with its final status, tool, arguments and call id.

>>> from planviz import Plan, Step
>>> planned = [Step("A", "a", tool="search", arguments={"q": "x"}), Step("B", "b", tool="fetch")]
>>> ran = [Ran("search", "search", {"q": "y"}, "done"), Ran("fetch", "fetch", {}, "done")]
>>> match(planned, ran)
{'A': ('search', 'tool', 0.0), 'B': ('fetch', 'tool', 1.0)}
>>> round(similarity({"q": "x", "n": 1}, {"q": "x", "n": 2}), 2), similarity({"text": "{{S1.year}}"}, {"text": "2025"})
(0.33, 1.0)
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping, NamedTuple, Sequence

from planviz.plan.model import Step
from planviz.plan.placeholder import PATTERN
from planviz.runs.events import Run

__all__ = ["Ran", "steps_run", "match", "similarity", "KIND_STATUS"]

# The status a step has after an event of each kind.
KIND_STATUS = {
    "start": "running",
    "complete": "done",
    "fail": "failed",
    "retry": "pending",
    "invalidate": "invalidated",
}


class Ran(NamedTuple):
    """A step a run started: its id, tool, arguments, final status, recorded call id and first start event."""

    id: str
    tool: str | None
    arguments: Mapping[str, Any]
    status: str
    call_id: str | None = None
    first_event: int = 0
    message: str = ""


def steps_run(run: Run) -> list[Ran]:
    """Every step ``run`` started, in the order each first started, with its status at the end of the run."""
    steps: dict[str, Step] = {}
    for plan in run.plans:
        for step in plan.steps:
            steps.setdefault(step.id, step)
    status: dict[str, str] = {}
    first: dict[str, int] = {}
    message: dict[str, str] = {}
    call_ids: dict[str, str] = {}
    for e in run.events:
        if e.kind == "start" and e.step is not None:
            first.setdefault(e.step, e.index)
        if e.kind == "invalidate":
            for s in e.voided:
                if s in first:
                    status[s] = "invalidated"
        elif e.step is not None and e.kind in KIND_STATUS and e.step in first:
            status[e.step] = KIND_STATUS[e.kind]
            if e.kind == "fail":
                message[e.step] = e.message
        if e.observation is not None and e.step is not None and e.observation.data.get("call_id"):
            call_ids[e.step] = str(e.observation.data["call_id"])
    if run.events:
        last = run.frame(-1).statuses
        for s in first:
            if s in last and last[s] in ("done", "failed", "running", "invalidated"):
                status[s] = last[s]
    out = []
    for sid, index in sorted(first.items(), key=lambda kv: kv[1]):
        known = steps.get(sid)
        out.append(
            Ran(
                sid,
                known.tool if known else None,
                dict(known.arguments) if known else {},
                status.get(sid, "running"),
                call_ids.get(sid),
                index,
                message.get(sid, ""),
            )
        )
    return out


def _pairs(value: Any, prefix: str = "") -> set[tuple[str, str]]:
    if isinstance(value, Mapping):
        return {p for k, v in value.items() for p in _pairs(v, f"{prefix}{k}.")}
    if (
        isinstance(value, (list, tuple))
        and value
        and all(isinstance(v, (Mapping, list, tuple)) for v in value)
    ):
        return {p for i, v in enumerate(value) for p in _pairs(v, f"{prefix}{i}.")}
    return {(prefix, json.dumps(value, sort_keys=True, default=str))}


def similarity(a: Mapping[str, Any], b: Mapping[str, Any]) -> float:
    """How alike two argument mappings are: shared (path, value) pairs over all pairs (1.0: equal, 0.0: none).

    A value of ``a`` that is only a placeholder (``{{S1.year}}``: filled at run time from an earlier result)
    matches whatever ``b`` holds at that path.
    """
    pa, pb = _pairs(dict(a)), _pairs(dict(b))
    if not pa and not pb:
        return 1.0
    paths_b = {path: value for path, value in pb}
    filled = set()
    for path, value in pa:
        if (
            path in paths_b
            and value.startswith('"')
            and PATTERN.fullmatch(json.loads(value).strip())
        ):
            filled.add((path, value))
    pa = (pa - filled) | {(path, paths_b[path]) for path, _ in filled}
    return len(pa & pb) / len(pa | pb)


def match(planned: Sequence[Any], ran: Sequence[Ran]) -> dict[str, tuple[str, str, float]]:
    """``{planned id: (ran id, how, similarity)}``; ``how`` is ``id``, ``call_id`` or ``tool``.

    ``planned`` holds objects with ``id``, ``tool`` and ``arguments`` (plan
    steps, or another run's :class:`Ran` steps); each side's step is used once.
    """
    out: dict[str, tuple[str, str, float]] = {}
    by_id = {r.id: r for r in ran}
    by_call = {r.call_id: r for r in ran if r.call_id}
    used: set[str] = set()
    for p in planned:
        for how, r in (("id", by_id.get(p.id)), ("call_id", by_call.get(p.id))):
            if r is not None and r.id not in used:
                out[p.id] = (r.id, how, similarity(p.arguments, r.arguments))
                used.add(r.id)
                break
    for p in planned:
        if p.id in out or not p.tool:
            continue
        best, score = None, -1.0
        for r in ran:
            if r.id in used or r.tool != p.tool:
                continue
            s = similarity(p.arguments, r.arguments)
            if s > score:
                best, score = r, s
        if best is not None:
            out[p.id] = (best.id, "tool", score)
            used.add(best.id)
    return out


def unmatched(ran: Iterable[Ran], pairs: Mapping[str, tuple[str, str, float]]) -> list[Ran]:
    """The steps of ``ran`` that no pair uses."""
    taken = {r for r, _, _ in pairs.values()}
    return [r for r in ran if r.id not in taken]
