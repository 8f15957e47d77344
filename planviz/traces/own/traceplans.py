"""The plan records of a planviz trace: written over several lines when long, and the steps events may name.

A plan record longer than :data:`CHUNK` characters (a plan of 100k steps with
ordinary text makes an 18.7 MiB record, over the reader's 16 MiB line limit)
is written as a plan line announcing ``steps_lines`` followed by that many
``steps`` lines (:data:`SPLIT_SCHEMA`), so planviz reads back every trace it
writes. While reading, :class:`PlanSteps` holds each plan version's step ids,
so an event naming a step its plan version does not have (a plan record that
renamed or dropped it) is refused at its line, before any later reader trips on it.

>>> lines = plan_lines({"version": 1, "goal": "g", "steps": [{"id": "A", "action": "x" * 40}] * 3}, chunk=60)
>>> [line.split(",")[0] for line in lines]
['{"type":"plan"', '{"type":"steps"', '{"type":"steps"', '{"type":"steps"']
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from planviz.io.syntax import show_value
from planviz.plan.model import Plan
from planviz.plan.records import plan_to_dict
from planviz.runs.events import Event
from planviz.traces.own.tracefields import BadField

__all__ = [
    "SPLIT_SCHEMA",
    "CHUNK",
    "ORIGIN",
    "json_line",
    "plan_record",
    "plan_lines",
    "PlanSteps",
    "SplitPlan",
]

SPLIT_SCHEMA = 3
"""Schema 2 plus plan records split over lines (a plan line announcing ``steps_lines``, then that many
``steps`` lines): written only when a record is longer than :data:`CHUNK`, so an older planviz refuses such a
trace by its version instead of a line it cannot hold."""
CHUNK = 2 * 1024 * 1024
"""Characters of a plan record written on one line: an eighth of the reader's 16 MiB line limit (a
character is at most 4 bytes of a line)."""
ORIGIN = ("name", "source_format")
"""The fields of a plan that say where it came from: a plan file leaves them out, a trace keeps them."""


def json_line(record: Mapping[str, Any]) -> str:
    """One record as a line of a trace (UTF-8 text, compact, ending in a newline)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=repr) + "\n"


def plan_record(plan: Plan, known: list[Plan]) -> dict[str, Any]:
    """The plan as in a plan file (:func:`planviz.plan.records.plan_to_dict`), plus what a trace keeps too:
    its version (always written: a trace reader tells versions apart by it), where it came from
    (``name`` and ``source_format``, when set), its import findings and its parent (by reference to an
    earlier plan record when there is one)."""
    d = {"version": plan.version, **plan_to_dict(plan)}
    for key in ORIGIN:
        if getattr(plan, key):
            d[key] = getattr(plan, key)
    d["import_findings"] = [
        {
            "code": f.code,
            "layer": f.layer,
            "severity": f.severity,
            "message": f.message,
            "steps": list(f.steps),
            "edges": [list(e) for e in f.edges],
            "where": f.where,
        }
        for f in plan.import_findings
    ]
    parent = next((i for i, p in enumerate(known) if p is plan.parent), None)
    if parent is not None:
        d["parent_ref"] = parent
    else:
        d["parent"] = plan_record(plan.parent, known) if plan.parent is not None else None
    return d


def plan_lines(record: dict[str, Any], chunk: int | None = None) -> list[str]:
    """A plan record as one line, or, longer than ``chunk`` (default :data:`CHUNK`), as a plan line
    announcing ``steps_lines`` followed by that many ``steps`` lines, each holding the next steps."""
    chunk = CHUNK if chunk is None else chunk
    steps = record.get("steps")
    # else the whole line is longer, without making it to find out
    if not steps or _shortest(steps) <= chunk:
        line = json_line({"type": "plan", "plan": record})
        if len(line) <= chunk or not steps:
            return [line]
    chunks: list[list[str]] = [[]]
    size = 0
    for step in record["steps"]:
        text = json_line(step)[:-1]
        if chunks[-1] and size + len(text) > chunk:
            chunks.append([])
            size = 0
        chunks[-1].append(text)
        size += len(text) + 1
    head = json_line({"type": "plan", "plan": {**record, "steps": []}, "steps_lines": len(chunks)})
    return [head] + ['{"type":"steps","steps":[' + ",".join(part) + "]}\n" for part in chunks]


def _shortest(steps: list[Any]) -> int:
    """A lower bound of the characters ``steps`` take in a plan line: each step's id and action (strings, as
    a step record always has them) with their keys and quotes (``{"id":"","action":""}``), and the commas."""
    try:
        return sum(len(s["id"]) + len(s["action"]) + 23 for s in steps) - 1
    except (KeyError, TypeError):  # not a step record as plan_record makes it: no bound
        return 0


class SplitPlan:
    """A plan record being read over several lines: its head, then its ``steps`` lines."""

    def __init__(self, head: dict[str, Any], count: Any) -> None:
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise BadField(
                "steps_lines",
                f"expected the number of steps lines that follow, got {show_value(count)}",
            )
        self.head, self.left = head, count
        head["steps"] = []

    def expect(self, kind: Any) -> None:
        if kind != "steps":
            raise BadField(
                "type",
                f"expected 'steps' ({self.left} more line(s) of the plan record above), got "
                f"{show_value(kind)}",
            )

    def add(self, steps: Any) -> dict[str, Any] | None:
        """Take one ``steps`` line; the whole plan record once its last line is read, else None."""
        if not isinstance(steps, list):
            raise BadField("steps", f"expected a list of steps, got {show_value(steps)}")
        self.head["steps"].extend(steps)
        self.left -= 1
        return self.head if self.left == 0 else None


class PlanSteps:
    """The step ids of each plan version read so far (and of its parent: an ``expand`` names the far step
    its version replaced), to check every event against the plan version it belongs to."""

    def __init__(self) -> None:
        self.ids: dict[
            int, frozenset[str]
        ] = {}  # plan version -> its step ids (the latest record's)
        self.parents: dict[int, frozenset[str]] = {}

    def add(self, plan: Plan) -> None:
        self.ids[plan.version] = frozenset(plan.ids)
        self.parents[plan.version] = (
            frozenset(plan.parent.ids) if plan.parent is not None else frozenset()
        )

    def check(self, event: Event) -> None:
        """Refuse an event naming a step (its ``step``, a step whose status it changes) that its plan
        version's record does not have."""
        if not event.plan_version:
            return
        ids = self.ids[event.plan_version]
        if (
            event.step is not None
            and event.step not in ids
            and event.step not in self.parents[event.plan_version]
        ):
            raise BadField(
                "event.step",
                f"step {show_value(event.step)} is not in plan version "
                f"{event.plan_version} (its plan record has {_some(ids)})",
            )
        missing = sorted(set(event.changes) - ids)
        if missing:
            raise BadField(
                "event.changes",
                f"step {show_value(missing[0])} is not in plan version "
                f"{event.plan_version} (its plan record has {_some(ids)})",
            )


def _some(ids: frozenset[str]) -> str:
    shown = sorted(ids)[:6]
    return (
        ", ".join(map(repr, shown)) + (f" and {len(ids) - 6} more" if len(ids) > 6 else "")
        if ids
        else "no step"
    )
