"""What the HTML report's script steps through: one picture per plan version, and what each event changes.

The report lays each plan version out once: render's picture of the
version's last frame, which is also what a reader without script sees for the
last version. Every other frame is described by what changed since the one
before it (:meth:`planviz.Run.delta`): for each drawn node whose look changed,
``(node, look before, look after)``, the looks interned in one table; the
facts gained and lost; the steps that became and stopped being ready; the
lines of the picture's own caption that name the event (``c``). The
page's script applies these forward, or swaps before and after to go back, so
one step of the stepper costs what its event changed, and the whole report is
linear in the run's events plus the pictures of its plan versions.

A look is what a frame changes on a node of render's picture (the slots of
:func:`planviz.pictures.layout.frame_template`): its status class and flags
(``voided``, ``kept``, ``conflict``), the fill, outline and dash of its two
outlines, its status word and the frame's end of its tooltip. Looks come from
:func:`planviz.pictures.style.node_marks` and
:func:`~planviz.pictures.style.slot_value`, the functions render fills its
own frames with, so a stepped-to frame shows what ``render(plan, run=run,
at=i)`` draws.

>>> from planviz import examples, simulate, Fault
>>> run = simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")])
>>> data, pictures = delta_table(run)
>>> [(p.version, p.first, p.last) for p in pictures], len(data["events"]) == len(run.events)
([(1, 0, 11), (2, 12, 17)], True)
>>> event = data["events"][1]  # S0 starts: node 0 goes from look 0 (ready) to look 2 (running), no longer ready
>>> {key: event[key] for key in ("t", "d", "ro")}, event["c"][0][:25]
({'t': 0.0, 'd': [0, 0, 2], 'ro': [0]}, 'event 1 of 17 · t = 0 min')
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from ..pictures.captions import critical_marks, event_lines, schedule_of
from ..pictures.drawing import render
from ..pictures.escape import dom_id
from ..pictures.grouping import group_marks
from ..pictures.style import FONT, Mark, node_marks, slot_value, tip
from ..plan.model import natural_key
from ..runs.events import Run
from ..runs.machine import ProgressCallback
from .panels import plan_of

__all__ = ["delta_table", "VersionPicture", "LOOK_FIELDS", "FLAGS", "minify_svg"]

_SLOTS = ("fill", "stroke", "stroke-width", "stroke-dasharray", "outer-stroke", "outer-stroke-width",
          "outer-stroke-dasharray", "status")
FLAGS = ("voided", "kept", "conflict")
LOOK_FIELDS = ("status class", "flags") + _SLOTS + ("tooltip end",)
"""The fields of a look, in order; ``flags`` is a bit mask over :data:`FLAGS`."""

_PROLOG = re.compile(r"\A.*?(?=<svg\b)", re.S)
_NODE_ID = re.compile(r'<g id="(node-[^"]*)"')
_WRAPPER_ID = re.compile(r'(?<=<g) id="a_[^"]*"')


@dataclass(frozen=True)
class VersionPicture:
    """One plan version's picture in the report: events ``first``..``last`` show it; ``svg`` is its last frame.

    ``nodes`` are the DOM ids of the node groups the script restyles (the
    steps render drew, then the group nodes of a focused view) and ``cuts`` the length, in UTF-16 code units as a
    browser counts, of the frame-dependent end of each one's tooltip in ``svg``.
    """

    version: int
    first: int
    last: int
    svg: str
    nodes: tuple[str, ...]
    cuts: tuple[int, ...]


def minify_svg(svg: str) -> str:
    """Render's SVG without its XML prolog, the attributes the report's stylesheet sets for every text (font
    family, ``xml:space``, centred anchor), dashes of ``none`` (the default) and the ids of Graphviz's link
    wrappers (``a_node-...``, which nothing reads): the same picture, a quarter smaller.

    >>> minify_svg('<?xml version="1.0"?>\\n<svg><g id="a_x"><text xml:space="preserve" text-anchor="middle" x="1">a'
    ...            '</text><path stroke-dasharray="none" d=""/></g></svg>')
    '<svg><g><text x="1">a</text><path d=""/></g></svg>'
    """
    svg = _WRAPPER_ID.sub("", _PROLOG.sub("", svg, count=1))
    for attr in (f' font-family="{html.escape(FONT)}"', ' xml:space="preserve"', ' text-anchor="middle"',
                 ' stroke-dasharray="none"'):
        svg = svg.replace(attr, "")
    return svg


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


class _Looks:
    """The look table: each distinct look once, numbered in order of first use."""

    def __init__(self) -> None:
        self.ids: dict[tuple, int] = {}
        self._marks: dict[Mark, int] = {}  # many nodes share a mark: each is worked out once

    def of(self, m: Mark) -> int:
        known = self._marks.get(m)
        if known is None:
            known = self._marks[m] = self._of(m)
        return known

    def _of(self, m: Mark) -> int:
        status = next((c for c in m.classes if c.startswith("status-")), "status-pending")
        flags = sum(1 << k for k, flag in enumerate(FLAGS) if flag in m.classes)
        end = tip(m.extra, "text") if m.extra else ""
        key = (status, flags, *(slot_value(kind, m, "") for kind in _SLOTS), end)
        return self.ids.setdefault(key, len(self.ids))

    def table(self) -> list[list[Any]]:
        return [list(key) for key in self.ids]


class _Groups:
    """The group nodes of a focused picture (a big plan's chains drawn as one node each), restyled per frame."""

    def __init__(self, diagram: Any, plan: Any, critical: frozenset[str], findings: tuple) -> None:
        view = None if diagram.summarized else diagram.view
        self.all = tuple(view.groups) if view is not None else ()
        self.dom_ids = tuple(f"group-{g.name}" for g in self.all)
        self._of: dict[str, list[int]] = {}
        for j, g in enumerate(self.all):
            for sid in g.members:
                self._of.setdefault(sid, []).append(j)
        members = [sid for sid in self._of if sid in plan.by_id]  # their critical and finding marks, frame-free
        self._members = node_marks(plan, None, critical, findings, ids=members) if members else {}

    def touched(self, steps: Any) -> list[int]:
        return sorted({j for sid in steps for j in self._of.get(sid, ())})

    def marks(self, frame: Any, which: Any) -> dict[int, Mark]:
        """The marks of groups ``which`` in ``frame``, keyed by group number (render's :func:`group_marks`)."""
        which = list(which)
        shown = group_marks(SimpleNamespace(groups=[self.all[j] for j in which]), frame, self._members)
        return {which[k]: m for k, m in shown.items()}


def _versions(run: Run) -> list[tuple[int, int]]:
    """(first, last) event of each stretch of the run showing one plan version."""
    bounds, first = [], 0
    for i in range(1, len(run.events) + 1):
        if i == len(run.events) or run.events[i].plan_version != run.events[first].plan_version:
            bounds.append((first, i - 1))
            first = i
    return bounds


def delta_table(run: Run, progress: ProgressCallback | None = None
                ) -> tuple[dict[str, Any], list[VersionPicture]]:
    """The report's data (JSON-able) and one :class:`VersionPicture` per plan version of ``run``.

    ``progress(what, done, total)`` hears of each layout and of every 256 frames.
    """
    looks = _Looks()
    events: list[dict[str, Any]] = [{} for _ in run.events]
    pictures: list[VersionPicture] = []
    deltas = [run.delta(i) for i in range(len(run.events))]
    facts = sorted({f for d in deltas for f in d.gained})
    steps = sorted({s for p in run.plans for s in p.ids} | {s for e in run.events for s in (*e.voided, *e.kept)},
                   key=natural_key)  # S2 before S10, as the explorer lists them
    fact_no, step_no = {f: k for k, f in enumerate(facts)}, {s: k for k, s in enumerate(steps)}
    for k, (first, last) in enumerate(_versions(run)):
        plan = plan_of(run, first)
        if progress is not None:
            progress(f"report: laying out plan v{plan.version}, steps", len(plan), None)
        diagram = render(plan, run=run, at=last)
        svg = minify_svg(diagram.svg)
        by_dom = {dom_id(sid): sid for sid in plan.ids}
        nodes = [by_dom[name[5:]] for name in map(html.unescape, _NODE_ID.findall(svg)) if name[5:] in by_dom]
        drawn = set(nodes)
        schedule, _ = schedule_of(plan)
        critical = critical_marks(plan, schedule)[0]
        findings = tuple(dict.fromkeys(plan.import_findings))
        marks = node_marks(plan, run.frame(first), critical, findings, ids=nodes)
        current: dict[Any, int] = {sid: looks.of(marks[sid]) for sid in nodes}
        number: dict[Any, int] = {sid: j for j, sid in enumerate(nodes)}
        groups = _Groups(diagram, plan, critical, findings)  # a focused view's group nodes say counts per frame
        for j, m in groups.marks(run.frame(first), range(len(groups.all))).items():
            current[j], number[j] = looks.of(m), len(number)
        events[first]["v"] = k
        for i in range(first, last + 1):  # the picture's own caption lines: every frame says its own event
            events[i]["c"] = list(event_lines(run.events[i], i, run, plan))
        for i in range(first + 1, last + 1):
            if progress is not None and not i % 256:
                progress("report: frames", i, len(run.events))
            changed = [sid for sid in sorted(deltas[i].steps) if sid in drawn]
            touched = groups.touched(deltas[i].steps)
            if not changed and not touched:
                continue
            triples = []
            frame = run.frame(i)
            now: dict[Any, Mark] = {**node_marks(plan, frame, critical, findings, ids=changed),
                                    **groups.marks(frame, touched)}
            for sid, m in now.items():
                new = looks.of(m)
                if new != current[sid]:
                    triples += [number[sid], current[sid], new]
                    current[sid] = new
            if triples:
                events[i]["d"] = triples
        table = looks.table()
        keys = [*nodes, *range(len(groups.all))]
        cuts = tuple(_utf16("\n" + table[current[key]][-1]) if table[current[key]][-1] else 0 for key in keys)
        pictures.append(VersionPicture(plan.version, first, last, svg,
                                       tuple(f"node-{dom_id(s)}" for s in nodes) + groups.dom_ids, cuts))
    for i, (e, d) in enumerate(zip(run.events, deltas)):
        out = events[i]
        out["t"] = float(e.time) if math.isfinite(e.time) else None  # never NaN: the page's JSON must parse
        for key, ids, table in (("g", d.gained, fact_no), ("l", d.lost, fact_no), ("ri", d.ready_in, step_no),
                                ("ro", d.ready_out, step_no), ("vo", e.voided, step_no), ("ke", e.kept, step_no)):
            if ids:
                out[key] = sorted(table[x] for x in ids)
        events[i] = {key: out[key] for key in ("t", "v", "d", "g", "l", "ri", "ro", "vo", "ke", "c") if key in out}
    last = run.frame(-1)
    data = {"looks": looks.table(), "facts": facts, "steps": steps, "events": events,
            "versions": [{"version": p.version, "nodes": list(p.nodes), "cuts": list(p.cuts)} for p in pictures],
            "last_facts": sorted(fact_no[f] for f in last.facts), "last_ready": sorted(step_no[s] for s in last.ready)}
    return data, pictures
