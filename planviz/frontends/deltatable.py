"""What the HTML report's script steps through: one picture per plan version, and what each event changes.

The report lays each plan version out once: render's picture of the
version's last frame, which is also what a reader without script sees for the
last version. Every other frame is described by what changed since the one
before it (:meth:`planviz.Run.delta`): for each drawn node whose look changed,
``(node, look before, look after)``, the looks interned in one table; the
facts gained and lost; the steps that became and stopped being ready; the
lines of the picture's own caption that name the event (``c``), for the events
whose lines the script cannot compose from their log rows (most events have
none: see :func:`planviz.pictures.captions.event_lines_stored`, whose cut the
data's ``event_lines`` states, width and lines). The page's script applies
these forward, or swaps before and after to go back, so one step of the
stepper costs what its event changed, and the whole report is linear in the
run's events plus the pictures of its plan versions.

A look is what a frame changes on a node of render's picture (the slots of
:func:`planviz.pictures.layout.frame_template`): its status class and flags
(``voided``, ``kept``, ``conflict``, ``not_run``), the fill, outline and dash of its two
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
>>> {key: event[key] for key in ("t", "d", "ro")}, "c" in event  # its caption: composed from its log row
({'t': 0.0, 'd': [0, 0, 2], 'ro': [0]}, False)
>>> data["events"][17]["c"][0][:27], data["event_lines"]  # the last event's lines are kept
('event 17 of 17 · t = 45 min', {'width': 80, 'lines': 2})
"""

from __future__ import annotations

import functools
import html
import math
import re
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, compress, count, repeat
from operator import attrgetter, itemgetter, not_
from typing import Any

from planviz.frontends.looktable import GroupLooks, Looks
from planviz.frontends.pagedata import ColumnRecords
from planviz.frontends.panels import plan_of, version_options
from planviz.pictures.captions import (
    EVENT_LINES,
    EVENT_WIDTH,
    critical_steps,
    event_lines_of,
    event_lines_stored,
)
from planviz.pictures.drawing import render
from planviz.pictures.escape import dom_id
from planviz.pictures.style import FONT, RUN_LEGEND, node_marks
from planviz.plan.model import natural_key
from planviz.runs.engine.machine import ProgressCallback
from planviz.runs.events import Run
from planviz.runs.frames import MARKING_KINDS, logged_version
from planviz.runs.summary.runsummary import run_summary

__all__ = ["delta_table", "VersionPicture", "minify_svg"]

_PROLOG = re.compile(r"\A.*?(?=<svg\b)", re.S)
_NODE_ID = re.compile(r'<g id="(node-[^"]*)"')
_DOM_CODE = re.compile(r"~([0-9a-f]+)~")  # a character dom_id encodes
# found by its literal start, not by a look behind at every character
_WRAPPER_ID = re.compile(r'<g id="a_[^"]*"')
_SHAPE = re.compile(r'( (?:d|points)=")([^"]*)"')
_DECIMALS = re.compile(r"-?\d+\.\d{2,}")
_PATH = re.compile(r' d="([^"]*)"')
# how Graphviz draws every path
_CURVES = re.compile(r"M(-?[\d.]+),(-?[\d.]+)C((?:-?[\d.]+,-?[\d.]+ ?)+)")


def _tenth(m: re.Match[str]) -> str:
    """A coordinate to a tenth of a point (Graphviz writes hundredths): no visible change, a third smaller."""
    return f"{float(m.group(0)):.1f}".rstrip("0").rstrip(".") or "0"


# a picture's curves repeat their steps: most are looked up, not written
@functools.lru_cache(maxsize=1 << 16)
def _short(tenths: int) -> str:
    """Tenths of a point as the shortest decimal SVG reads: ``-5`` as ``-.5``, ``120`` as ``12``."""
    whole, tenth = divmod(abs(tenths), 10)
    return (
        ("-" if tenths < 0 else "")
        + (str(whole) if whole or not tenth else "")
        + (f".{tenth}" if tenth else "")
    )


def _relative(d: str) -> str:
    """A Graphviz path (a move, then cubic curves, to a tenth of a point) with its curves relative to where each
    starts: the same points exactly (in tenths), a third shorter. Any other path is left as it is."""
    found = _CURVES.fullmatch(d)
    if found is None:
        return d
    points = [[round(float(v) * 10) for v in pair.split(",")] for pair in found[3].split()]
    if len(points) % 3:
        return d
    x, y = round(float(found[1]) * 10), round(float(found[2]) * 10)
    out = [f"M{_short(x)},{_short(y)}c"]
    for k in range(0, len(points), 3):
        for px, py in points[k : k + 3]:
            dx, dy = _short(px - x), _short(py - y)
            out.append(
                ("" if len(out) == 1 or dx[0] == "-" else " ")
                + dx
                + ("" if dy[0] == "-" else ",")
                + dy
            )
        x, y = points[k + 2]
    return "".join(out)


@dataclass(frozen=True)
class VersionPicture:
    """One plan version's picture in the report: events ``first``..``last`` show it; ``svg`` is its last frame.

    ``looks`` is the look of each node in ``svg``, ``ids`` its step id (a group's name) and ``legend`` the
    legend keys of what no frame changes (the critical path, findings). ``nodes`` are the DOM ids of the node
    groups the script restyles (the steps render drew, then the group nodes of a focused view) and ``cuts`` the
    length, in UTF-16 code units as a
    browser counts, of the frame-dependent end of each one's tooltip in ``svg``.
    """

    version: int
    first: int
    last: int
    svg: str
    nodes: tuple[str, ...]
    cuts: tuple[int, ...]
    looks: tuple[int, ...] = ()
    legend: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()


def minify_svg(svg: str) -> str:
    """Render's SVG without its XML prolog, the attributes the report's stylesheet sets for every text (font
    family, ``xml:space``, centred anchor), dashes of ``none`` (the default) and the ids of Graphviz's link
    wrappers (``a_node-...``, which nothing reads), shape coordinates to a tenth of a point, curves relative to
    where each starts: the same picture, less than half the size.

    >>> minify_svg('<?xml version="1.0"?>\\n<svg><g id="a_x"><text xml:space="preserve" text-anchor="middle" x="1">a'
    ...            '</text><path stroke-dasharray="none" d="M100.53,-12.04C1.96,2"/></g></svg>')
    '<svg><g><text x="1">a</text><path d="M100.5,-12C2,2"/></g></svg>'
    >>> minify_svg('<svg><path d="M100.53,-12.04C101,-12 102.5,-10 110.04,-10"/></svg>')
    '<svg><path d="M100.5,-12c.5,0 2,2 9.5,2"/></svg>'
    """
    svg = _WRAPPER_ID.sub("<g", _PROLOG.sub("", svg, count=1))
    svg = _SHAPE.sub(lambda m: m.group(1) + _DECIMALS.sub(_tenth, m.group(2)) + '"', svg)
    svg = _PATH.sub(lambda m: ' d="' + _relative(m.group(1)) + '"', svg)
    for attr in (
        f' font-family="{html.escape(FONT)}"',
        ' xml:space="preserve"',
        ' text-anchor="middle"',
        ' stroke-dasharray="none"',
    ):
        svg = svg.replace(attr, "")
    return svg


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _drawn_steps(plan: Any, svg: str) -> list[str]:
    """The steps whose node groups ``svg`` holds (``node-`` and the step's :func:`dom_id`), in its order: each
    name read back to its step (an encoding is injective; a hashed long id is looked up among them all)."""
    names = [name[5:] for name in map(html.unescape, _NODE_ID.findall(svg))]
    by_id = plan.by_id
    by_dom: dict[str, str] | None = None
    nodes = []
    for name in names:
        sid = _DOM_CODE.sub(_dom_char, name) if "~" in name else name
        if "~h" in name or sid not in by_id or dom_id(sid) != name:
            if by_dom is None:
                by_dom = {dom_id(s): s for s in plan.ids}
            found = by_dom.get(name)
            if found is None:
                continue
            sid = found
        nodes.append(sid)
    return nodes


def _dom_char(m: re.Match[str]) -> str:
    code = int(m.group(1), 16)
    return chr(code) if code < 0x110000 else m.group(0)


def _versions(run: Run) -> list[tuple[int, int]]:
    """(first, last) event of each stretch of the run showing one plan version."""
    versions = [e.plan_version for e in run.events]
    if not versions:
        return []
    starts = [0, *(i for i in range(1, len(versions)) if versions[i] != versions[i - 1])]
    return [(first, end - 1) for first, end in zip(starts, [*starts[1:], len(versions)])]


def delta_table(
    run: Run, progress: ProgressCallback | None = None, **render_options: Any
) -> tuple[dict[str, Any], list[VersionPicture]]:
    """The report's data (JSON-able) and one :class:`VersionPicture` per plan version of ``run``.

    ``progress(what, done, total)`` hears of each layout and of every 256 frames; ``render_options`` (a view:
    ``focus``, ``hops``, ``max_steps``) go to :func:`planviz.render`. The events table (``data["events"]``, a
    record per event) is made a column at a time and carries its columns
    (:class:`~planviz.frontends.pagedata.ColumnRecords`), which the page data reads.
    """
    looks = Looks()
    run_events = run.events
    n = len(run_events)
    pictures: list[VersionPicture] = []
    # what each event changed: (steps, ready in, ready out, plain), read by the loop below and by the columns
    rows = list(run.delta_rows())
    gained, lost = list(map(_GAINED, run_events)), list(map(_LOST, run_events))
    facts = sorted(set(chain.from_iterable(gained)))
    voided, kept = list(map(_VOIDED, run_events)), list(map(_KEPT, run_events))
    # S2 before S10, as the explorer lists them; sorted from the plans' order, which is often that order already (a
    # sorted run costs a comparison per step, where a set's order costs log2(steps) of them)
    steps = sorted(
        dict.fromkeys(
            chain(
                chain.from_iterable(p.ids for p in run.plans),
                chain.from_iterable(compress(voided, voided)),
                chain.from_iterable(compress(kept, kept)),
            )
        ),
        key=natural_key,
    )
    fact_no, step_no = {f: k for k, f in enumerate(facts)}, {s: k for k, s in enumerate(steps)}
    summary = run_summary(run)
    versions = _versions(run)
    # the looks each event restyles (``d``: node, look before, look after, for the events that restyle any) and
    # the caption lines of the events whose lines the page cannot compose from their log rows (``c``; the others'
    # rows ``composed``), made per plan version below; the other columns from the events
    changed_at: list[int] = []
    restyles: list[list[int]] = []
    captions: list[list[str]] = []
    composed: list[int] = []
    unit = run.plans[0].time_unit or ""  # the page's (the snapshot's ``unit``)
    frame_at = run.frame
    for k, (first, last) in enumerate(versions):
        plan = plan_of(run, first)
        if progress is not None:
            progress(f"report: laying out plan v{plan.version}, steps", len(plan), None)
        diagram = render(plan, run=run, at=last, **version_options(plan, render_options))
        svg = minify_svg(diagram.svg)
        nodes = _drawn_steps(plan, svg)
        drawn = set(nodes)
        schedule, _ = summary.schedule_or_why(plan)  # the run's one summary, as render drew it
        critical = critical_steps(schedule)
        findings = tuple(dict.fromkeys(plan.import_findings))
        marks = node_marks(plan, frame_at(first), critical, findings, ids=nodes)
        current: dict[Any, int] = {sid: looks.of(marks[sid]) for sid in nodes}
        number: dict[Any, int] = {sid: j for j, sid in enumerate(nodes)}
        # a focused view's group nodes say counts per frame
        groups = GroupLooks(diagram, plan, critical, findings, looks)
        for j, look in groups.start(frame_at(first)).items():
            current[j], number[j] = look, len(number)
        # the picture's own caption lines: every frame says its own event; the page composes most from the log
        if (plan.time_unit or "") == unit:
            stored, left = event_lines_stored(run, first, last, plan)
            captions += stored
            composed += left
        else:  # a version in another unit than the page's: its lines kept, all
            captions += event_lines_of(run, first, last, plan)
        members = groups.members
        # ``unchanged``: the voided, kept and not run steps of the last frame read, while no event since could
        # change them; a group restyle then reads no frame when its event changed the status of every step it
        # restyles (a version whose statuses the run keeps in a log, not as its events' changes, reads frames)
        as_changes = not logged_version(run_events[first])
        frame = frame_at(first)
        unchanged = (frame.voided, frame.kept, frame.not_run) if as_changes else None
        # ``quiet``: that last frame voided, kept and left out nothing (a group counts each member by its status)
        quiet = unchanged is not None and not any(unchanged)
        first_group = len(nodes)
        i = first
        while i < last:
            i += 1
            if quiet:  # a stretch of events that only move groups' counts, their changes straight to restyles
                i = groups.restyle(
                    run_events,
                    rows,
                    i,
                    last,
                    drawn,
                    current,
                    first_group,
                    changed_at,
                    restyles,
                    progress,
                )
                if i > last:
                    break
            event = run_events[i]
            delta_steps, _, _, plain = rows[i]
            if progress is not None and not i % 256:
                progress("report: frames", i, n)
            if event.kind in MARKING_KINDS:
                unchanged, quiet = None, False
            now: dict[Any, int] | None = None
            # a frame is read only where its event restyles a drawn node or moves a group's counts
            if drawn.isdisjoint(delta_steps):
                if not members.isdisjoint(delta_steps):
                    # (not quiet, or not plain: a quiet frame's plain events went to groups.restyle above)
                    if unchanged is not None and plain:  # its steps' statuses: its changes
                        now = groups.step(delta_steps, event.changes, *unchanged)
                    else:
                        frame = frame_at(i)
                        now = groups.step(
                            delta_steps, frame.statuses, frame.voided, frame.kept, frame.not_run
                        )
                        if as_changes:
                            unchanged = (frame.voided, frame.kept, frame.not_run)
                            quiet = not any(unchanged)
            else:
                frame = frame_at(i)
                changed = sorted(drawn.intersection(delta_steps))
                # the nodes' looks numbered first, then the groups' (the look table's order of first use)
                now = {
                    sid: looks.of(m)
                    for sid, m in node_marks(plan, frame, critical, findings, ids=changed).items()
                }
                now.update(
                    groups.step(
                        delta_steps, frame.statuses, frame.voided, frame.kept, frame.not_run
                    )
                )
                if as_changes:
                    unchanged = (frame.voided, frame.kept, frame.not_run)
                    quiet = not any(unchanged)
            if now:
                triples: list[int] = []
                for sid, new in now.items():
                    if new != current[sid]:
                        triples += [number[sid], current[sid], new]
                        current[sid] = new
                if triples:
                    changed_at.append(i)
                    restyles.append(triples)
        table = looks.table()
        keys = [*nodes, *range(len(groups.all))]
        cuts = tuple(
            _utf16("\n" + table[current[key]][-1]) if table[current[key]][-1] else 0 for key in keys
        )
        pictures.append(
            VersionPicture(
                plan.version,
                first,
                last,
                svg,
                tuple(f"node-{dom_id(s)}" for s in nodes) + groups.dom_ids,
                cuts,
                tuple(current[key] for key in keys),
                tuple(k for k in diagram.legend if k not in RUN_LEGEND),
                tuple(nodes) + tuple(g.name for g in groups.all),
            )
        )
    fact_of, step_of = fact_no.__getitem__, step_no.__getitem__
    # each event's record has its keys in this order: t, v, d, g, l, ri, ro, vo, ke, c
    columns: dict[str, tuple[list[Any], list[int]]] = {
        "t": (_times(run_events), []),
        "v": (list(range(len(versions))), _others([first for first, _ in versions], n)),
        "d": (restyles, _others(changed_at, n)),
        "g": _numbered(gained, fact_of, True),
        "l": _numbered(lost, fact_of, True),
        "ri": _numbered(list(map(_READY_IN, rows)), step_of),
        "ro": _numbered(list(map(_READY_OUT, rows)), step_of),
        "vo": _numbered(voided, step_of),
        "ke": _numbered(kept, step_of),
        "c": (captions, composed),
    }
    # the last frame's facts and ready steps: those gained (made ready) once more than lost (no longer ready), as
    # the events toggle each one, from not held (not ready) before the first; read from the columns
    last_facts, last_ready = (
        sorted(
            k for k, times in Counter(chain(*map(chain.from_iterable, pair))).items() if times % 2
        )
        for pair in ((columns["g"][0], columns["l"][0]), (columns["ri"][0], columns["ro"][0]))
    )
    columns = {key: column for key, column in columns.items() if column[0]}  # keys some event has
    data = {
        "looks": looks.table(),
        "look_legend": looks.keys,
        "facts": facts,
        "steps": steps,
        "events": ColumnRecords(columns, n),
        "versions": [
            {
                "version": p.version,
                "nodes": list(p.nodes),
                "cuts": list(p.cuts),
                "looks": list(p.looks),
                "legend": list(p.legend),
                "ids": list(p.ids),
            }
            for p in pictures
        ],
        "last_facts": last_facts,
        "last_ready": last_ready,
        # how the page cuts the caption lines it composes (the rule of captions.event_lines_stored)
        "event_lines": {"width": EVENT_WIDTH, "lines": EVENT_LINES},
    }
    return data, pictures


_GAINED, _LOST, _VOIDED, _KEPT, _TIME = map(
    attrgetter, ("gained", "lost", "voided", "kept", "time")
)
_READY_IN, _READY_OUT = itemgetter(1), itemgetter(2)


def _times(events: Sequence[Any]) -> list[float | None]:
    """Each event's time as a float, None where it is not finite (the page's JSON must parse)."""
    times = list(map(_TIME, events))
    if all(map(math.isfinite, times)):
        return list(map(float, times))
    return [float(t) if math.isfinite(t) else None for t in times]


def _others(rows: list[int], n: int) -> list[int]:
    """The rows of ``range(n)`` not in ``rows``, ascending."""
    kept = [True] * n
    deque(map(kept.__setitem__, rows, repeat(False)), maxlen=0)
    return list(compress(count(), kept))


def _numbered(
    sets: list[Any], number: Callable[[str], int], distinct: bool = False
) -> tuple[list[list[int]], list[int]]:
    """The column of a set per event: each non-empty one's items numbered (``number``) and sorted, and the rows of
    the empty ones; ``distinct``: each counted once, whatever the collection (most events: one item, a
    frozenset). Every row in C."""
    if not any(sets):  # (most runs void, keep and lose nothing)
        return [], list(range(len(sets)))
    holds = list(map(bool, sets))
    present: Iterable[Any] = list(compress(sets, holds))
    absent = list(compress(count(), map(not_, holds)))
    if set(map(len, present)) <= {1}:  # one item each (most): a list of its number
        return list(map(list, zip(map(number, chain.from_iterable(present))))), absent
    if distinct:
        present = map(frozenset, present)
    return list(map(sorted, map(map, repeat(number), present))), absent
