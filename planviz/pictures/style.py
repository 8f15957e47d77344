"""The visual vocabulary, and the style of each node and edge in a frame.

One :class:`Look` per status (Okabe-Ito colours, safe for colour-blind
readers; light fills so black text reads on a white card in light and dark
notebook themes), plus the looks of plan pictures (step, critical, far
horizon, and the three severities of findings: error, warning, info, told apart by
hue and outline width, never by two close oranges). :func:`node_marks` and
:func:`edge_marks` resolve what each node and edge looks like in one frame;
they do no Graphviz work, so a frame costs no layout.

>>> LOOKS["invalidated"].dash, LOOKS["kept"].double
('dashed', True)
>>> num(6.0), num(2.5)
('6', '2.5')
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from itertools import compress, repeat
from operator import attrgetter, eq
from typing import Any, Iterable, Mapping

from planviz.pictures.escape import escape_label
from planviz.plan.model import STATUSES, Finding, Plan
from planviz.runs.events import Frame, Run

__all__ = [
    "FONT",
    "Look",
    "LOOKS",
    "FATE_LOOKS",
    "SERIES",
    "TIMELINE",
    "AXIS",
    "LEGEND_TEXT",
    "RUN_LEGEND",
    "LEGEND_ORDER",
    "screen_legend",
    "SEVERITY_LOOKS",
    "EDGE_COLOUR",
    "STATUS_PLACEHOLDER",
    "INFERRED",
    "Mark",
    "run_looks",
    "legend_keys",
    "gravest",
    "num",
    "step_tooltip",
    "node_marks",
    "edge_marks",
    "node_attrs",
    "tip",
    "slot_value",
]


@dataclass(frozen=True)
class Look:
    """How one kind of node is drawn: fill, outline colour, width and dash, double outline, status word."""

    fill: str
    stroke: str
    penwidth: float = 1.2
    dash: str = ""
    double: bool = False
    text: str = ""


# Okabe-Ito: orange E69F00, sky blue 56B4E9, bluish green 009E73, yellow F0E442, blue 0072B2,
# vermillion D55E00, reddish purple CC79A7; fills are light tints so black text stays readable.
LOOKS: Mapping[str, Look] = {
    "pending": Look("#FFFFFF", "#7A7A7A", 1.2, text="pending"),
    "ready": Look("#D4ECFA", "#0072B2", 2.0, text="ready"),
    "running": Look("#FAF1A0", "#0072B2", 3.5, text="running"),
    "done": Look("#C2E8DA", "#009E73", 1.6, text="done"),
    "waiting": Look("#E3EEF9", "#0072B2", 3.0, dash="dashed", text="WAITING (input)"),
    "failed": Look("#F7CDB3", "#D55E00", 4.0, text="FAILED"),
    "invalidated": Look("#D4D4D4", "#D55E00", 3.0, dash="dashed", text="VOIDED"),
    "kept": Look("#C2E8DA", "#00563F", 2.0, double=True, text="kept (verified)"),
    "blocked": Look("#F2D9E8", "#CC79A7", 2.5, dash="dotted", text="blocked"),
    # the run stopped first: no work
    "not_run": Look("#FFFFFF", "#7A7A7A", 1.2, dash="dotted", text="not run"),
    "conflict": Look("#F9DEA6", "#E69F00", 4.0, text="CONFLICT"),
    "step": Look("#FFFFFF", "#555555", 1.2),
    "critical": Look("#FFFFFF", "#000000", 3.0),
    "far": Look("#FFFFFF", "#555555", 1.5, dash="dashed"),
    "error": Look("#FFFFFF", "#D55E00", 4.5),  # vermillion, widest
    "warning": Look("#FFFFFF", "#CC79A7", 3.5),  # reddish purple
    "info": Look("#FFFFFF", "#56B4E9", 2.5),  # sky blue, thinnest
    "inferred": Look("#FFFFFF", "#666666", 1.2, dash="dashed"),
    "summary": Look("#EEEEEE", "#555555", 1.5, dash="dashed"),
}
#: the fate of a planned step in a run (``planviz.align``): its look and legend words; a fate that is a status
#: looks as that status does in every other picture
FATE_LOOKS: Mapping[str, tuple[Look, str]] = {
    "as_planned": (LOOKS["done"], "ran as planned"),
    "other_arguments": (
        Look("#FBE7B5", "#E69F00", 3.0, text="other arguments"),
        "ran with other arguments",
    ),
    "failed": (LOOKS["failed"], "failed"),
    "voided": (LOOKS["invalidated"], "ran, then voided"),
    "unfinished": (LOOKS["running"], "started, never finished"),
    # no work: never the voided look
    "not_run": (
        replace(LOOKS["not_run"], text="never ran"),
        "never ran",
    ),
    "invalidated": (
        replace(LOOKS["blocked"], text="never ran \u00b7 in the failure's scope"),
        "never ran: blocked by a failure upstream",
    ),
    "unplanned": (replace(LOOKS["summary"], text="UNPLANNED"), "unplanned call"),
}
#: Okabe-Ito colours for series that name rows, not statuses (a campaign chart's strategies), in order
SERIES = ("#D55E00", "#0072B2", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
#: the axes of the charts (timeline, campaign chart): grid lines and their figures
AXIS: Mapping[str, str] = {"line": "#DDDDDD", "text": "#555555"}
#: the timeline chart's marks that are no status (an attempt's bar takes its status's look from LOOKS)
TIMELINE: Mapping[str, str] = {
    "planned_critical": "#222222",
    "planned": "#B3B3B3",
    "model": "#56B4E9",
    "now": "#CC79A7",
}
SEVERITY_LOOKS = ("error", "warning", "info")  # gravest first
LEGEND_TEXT = {
    "pending": "pending",
    "ready": "ready",
    "running": "running",
    "waiting": "waits for input (a human)",
    "done": "done",
    "failed": "failed",
    "invalidated": "voided by a failure",
    "kept": "kept: verified, survives",
    "blocked": "blocked",
    "not_run": "not run: the run stopped first (never voided)",
    "conflict": "conflicting fact",
    "step": "step",
    "critical": "critical path (bold)",
    "far": "far-horizon goal",
    "error": "error (hover: message)",
    "warning": "warning (hover: message)",
    "info": "note (hover: message)",
    "inferred": "dashed edge: inferred dependency",
    "summary": "steps summed up (count inside)",
}
INFERRED = (
    "inferred_dependency"  # the import finding whose edges a trace reader guessed: drawn dashed
)
RUN_LEGEND = (
    "pending",
    "ready",
    "running",
    "waiting",
    "done",
    "failed",
    "invalidated",
    "kept",
    "blocked",
    "not_run",
    "conflict",
)
LEGEND_ORDER = RUN_LEGEND + ("step", "critical", "far", *SEVERITY_LOOKS, "inferred", "summary")
EDGE_COLOUR = "#666666"
FONT = "Helvetica,Arial,sans-serif"
STATUS_PLACEHOLDER = max((look.text for look in LOOKS.values()), key=len)


@dataclass(frozen=True)
class Mark:
    """The resolved style of one node or edge in one frame; ``key`` names a node's look in ``LOOKS``."""

    classes: tuple[str, ...]
    look: Look
    extra: tuple[str, ...]  # tooltip lines added to the step's own (status, findings)
    key: str = ""


_KIND_OF = attrgetter("kind")
_REVOKING = frozenset(
    {"invalidate", "recheck"}
)  # the kinds whose voided and kept steps a frame shows


def run_looks(run: Run) -> frozenset[str]:
    """The status looks some frame of a run uses: its legend lists those, not all nine (one pass over the events)."""
    seen = set(run.statuses_seen())
    events = run.events
    kinds = list(
        map(_KIND_OF, events)
    )  # one C pass; the few events of the kinds below are then read
    revoking = [events[i] for i in compress(range(len(kinds)), map(_REVOKING.__contains__, kinds))]
    seen |= {"invalidated"} if any(e.voided for e in revoking) else set()
    seen |= {"kept"} if any(e.kept for e in revoking) else set()
    conflicts = compress(range(len(kinds)), map(eq, kinds, repeat("conflict")))
    seen |= {"conflict"} if any(events[i].step for i in conflicts) else set()
    seen |= {"not_run"} if events and run.frame(-1).not_run else set()
    # unknown: drawn as pending
    return frozenset(seen | ({"pending"} if seen - set(STATUSES) else set()))


def legend_keys(
    plan: Plan,
    run_mode: bool,
    critical: bool,
    findings: tuple[Finding, ...],
    shown: frozenset[str] | None = None,
) -> tuple[str, ...]:
    keys = [k for k in RUN_LEGEND if shown is None or k in shown] if run_mode else ["step"]
    keys += ["critical"] if critical else []
    keys += ["far"] if any(s.horizon == "far" for s in plan.steps) else []
    keys += [
        sev
        for sev in SEVERITY_LOOKS
        if any(f.severity == sev and f.code != INFERRED and _marks(f, plan) for f in findings)
    ]
    keys += ["inferred"] if any(f.code == INFERRED for f in findings) else []
    return tuple(keys)


def screen_legend(nodes: Iterable[Mark], edges: Iterable[Mark]) -> tuple[str, ...]:
    """The legend keys of the looks a picture shows, in legend order: each drawn node's look, the critical
    path, far steps, the severities of the findings outlined, inferred edges, summary nodes.

    >>> screen_legend([Mark(("status-done", "critical"), LOOKS["done"], (), "done")],
    ...               [Mark(("finding", "finding-warning"), LOOKS["warning"], ())])
    ('done', 'critical', 'warning')
    """
    seen: set[str] = set()
    for m in nodes:
        seen.add(m.key)
        seen.update(c for c in m.classes if c in ("critical", "far", "summary"))
        seen.update(c.removeprefix("finding-") for c in m.classes if c.startswith("finding-"))
    for m in edges:
        seen.update(c for c in m.classes if c in ("critical", "inferred"))
        seen.update(c.removeprefix("finding-") for c in m.classes if c.startswith("finding-"))
    return tuple(k for k in LEGEND_ORDER if k in seen)


def _marks(finding: Any, plan: Plan) -> bool:
    """Whether a finding outlines something in the picture (a step or an edge of the plan), so the legend needs it."""
    return any(sid in plan for sid in finding.steps) or any(
        u in plan and v in plan for u, v in finding.edges
    )


def gravest(findings: Iterable[Any]) -> str:
    """The gravest severity among findings: ``error``, else ``warning``, else ``info``."""
    found = {f.severity for f in findings}
    return next((sev for sev in SEVERITY_LOOKS if sev in found), "info")


def num(x: float) -> str:
    return f"{x:g}" if math.isfinite(x) else str(x)


def step_tooltip(step: Any) -> list[str]:
    lines = [f"{step.id}: {step.action}"]
    for name, value in (
        ("evidence", step.expected_evidence),
        ("check", step.check),
        ("requires", ", ".join(step.requires)),
        ("produces", ", ".join(step.produces)),
        ("rollback", step.rollback),
    ):
        if value:
            lines.append(f"{name}: {value}")
    return lines


def node_marks(
    plan: Plan,
    frame: Frame | None,
    critical: frozenset[str],
    findings: tuple[Finding, ...],
    ids: Iterable[str] | None = None,
) -> dict[str, Mark]:
    """The mark of each step (of ``ids`` only, when given) in ``frame`` (None: the plan alone)."""
    by_step: dict[str, list[Finding]] = {}
    for f in findings:
        for sid in f.steps:
            by_step.setdefault(sid, []).append(f)
    marks = {}
    for sid in dict.fromkeys(plan.ids) if ids is None else ids:
        step = plan.step(sid)
        classes: list[str] = []
        tooltip: list[str] = []
        if frame is None:
            classes.append("status-pending")
            key = "critical" if sid in critical else "step"
            look = LOOKS[key]
        else:
            status = frame.statuses.get(sid, "pending")
            status = status if status in STATUSES else "unknown"
            classes.append(f"status-{status}")
            tooltip.append(f"status: {status}")
            flags = [
                name
                for name, ids in (
                    ("voided", frame.voided),
                    ("kept", frame.kept),
                    ("conflict", frame.conflicted),
                )
                if sid in ids
            ]
            classes += flags
            if sid in frame.not_run:
                classes.append("not_run")
            key = (
                "conflict"
                if "conflict" in flags
                else "failed"
                if status == "failed"
                else "invalidated"
                if ("voided" in flags or status == "invalidated")
                else "kept"
                if ("kept" in flags and status == "done")
                else "not_run"
                if sid in frame.not_run
                else status
                if status in LOOKS
                else "pending"
            )
            look = LOOKS[key]
            if key == "failed" and "voided" in flags:
                look = replace(look, text="FAILED · voided")
        if sid in critical:
            classes.append("critical")
        if step.horizon == "far":
            classes.append("far")
            if not look.dash:
                look = replace(look, dash="dashed")
        found = by_step.get(sid, [])
        if found:
            severity = gravest(found)
            classes += ["finding", f"finding-{severity}"]
            look = replace(
                look,
                stroke=LOOKS[severity].stroke,
                penwidth=max(look.penwidth, LOOKS[severity].penwidth),
            )
            tooltip += [f"{f.severity} {f.code}: {f.message}" for f in found]
        marks[sid] = Mark(tuple(classes), look, tuple(tooltip), key)
    return marks


def edge_marks(
    plan: Plan,
    edges: tuple[tuple[str, str], ...],
    critical: frozenset[tuple[str, str]],
    findings: tuple[Finding, ...],
) -> dict[tuple[str, str], Mark]:
    flagged: dict[tuple[str, ...], list[Finding]] = {}
    drawn = set(
        edges
    )  # only these are marked: a finding's other edges (a big run's: thousands) are passed over in C
    for f in findings:
        for e in filter(drawn.__contains__, map(tuple, f.edges)):
            flagged.setdefault(e, []).append(f)
    marks = {}
    for u, v in edges:
        classes, look = [], Look("none", EDGE_COLOUR, 1.2)
        if (u, v) in critical:
            classes.append("critical")
            look = Look("none", "#000000", 3.0)
        if v in plan and plan.step(v).horizon == "far":
            classes.append("far")
            look = replace(look, dash="dashed")
        found = flagged.get((u, v), [])
        if found and all(f.code == INFERRED for f in found):
            classes.append("inferred")
            look = replace(look, dash="dashed")
        elif found:
            severity = gravest(f for f in found if f.code != INFERRED)
            classes += ["finding", f"finding-{severity}"] + sorted({f.code for f in found})
            look = Look(
                "none", LOOKS[severity].stroke, 3.0 if severity != "info" else 2.0, dash=look.dash
            )
        tooltip = tuple(f"{f.severity} {f.code}: {f.message}" for f in found)
        marks[(u, v)] = Mark(tuple(classes), look, tooltip)
    return marks


_DASH_SVG = {"dashed": "5,2", "dotted": "1,5", "": None}


def slot_value(kind: str, m: Mark, base_tip: str) -> str:
    """What one slot of a frame template (:func:`~planviz.pictures.layout.frame_template`) holds for a node or
    edge with mark ``m``: its class, a colour, width or dash of its outline, its status word or its tooltip
    (``base_tip`` plus the mark's extra lines). Not yet escaped for SVG text.

    >>> done = Mark(("status-done",), LOOKS["done"], ("status: done",))
    >>> slot_value("fill", done, ""), slot_value("class", done, ""), slot_value("tooltip", done, "S1: patch")
    ('#C2E8DA', 'node status-done', 'S1: patch\\nstatus: done')
    """
    look = m.look
    if kind in ("class", "edge-class"):
        return " ".join(("node" if kind == "class" else "edge",) + m.classes)
    if kind in ("tooltip", "edge-tooltip"):
        return base_tip + ("\n" + tip(m.extra, "text") if m.extra else "")
    kind = kind.removeprefix("edge-")
    if kind == "outer-stroke":
        return look.stroke if look.double else "none"
    if kind.endswith("stroke-dasharray"):
        return _DASH_SVG.get(look.dash) or "none"
    if kind.endswith("stroke-width"):
        return num(look.penwidth)
    return {"fill": look.fill, "stroke": look.stroke, "status": look.text}[kind]


def node_attrs(look: Look, classes: Iterable[str], tooltip: str) -> dict[str, object]:
    style = "rounded,filled" + (f",{look.dash}" if look.dash else "")
    return {
        "fillcolor": look.fill,
        "color": look.stroke,
        "penwidth": look.penwidth,
        "style": style,
        "class": " ".join(classes),
        "tooltip": tooltip,
    }


def tip(lines: Iterable[str], target: str = "dot") -> str:
    """Tooltip lines escaped and joined (Graphviz ``\\n`` for DOT, a newline for SVG text)."""
    return ("\\n" if target == "dot" else "\n").join(
        escape_label(line, limit=400, target=target) for line in lines
    )
