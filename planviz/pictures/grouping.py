"""Nodes that stand for several steps: collapsed chains, summaries, clusters by kind, and how they look.

``collapse="chains"`` draws each maximal chain of steps as one node: a link
``u -> v`` is folded when ``u`` has no other successor and ``v`` no other
predecessor, so edges only enter a chain at its first step and leave at its
last, and folding loses no dependency. ``group_by="kind"`` puts the steps of
each kind in one cluster. In a run, a node standing for several steps shows
how many of them are in each status, frame by frame, without a new layout.

>>> from planviz import Plan, Step
>>> from planviz.structure.index import structure_index
>>> plan = Plan("g", [Step("A", "a"), Step("B", "b", depends_on="A"), Step("C", "c", depends_on="B"),
...                   Step("D", "d", depends_on="A")])
>>> [(g.members, g.hint) for g in chain_groups(structure_index(plan), list(plan.ids), set())]
[(('B', 'C'), 'B → C')]
>>> status_counts(("A", "B", "C"), {"A": "done", "B": "done", "C": "failed"}, frozenset(), frozenset())
'1 failed · 2 done'
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from itertools import repeat
from typing import AbstractSet, Any, Iterable, Mapping, Sequence

import pygraphviz as pgv

from planviz.pictures.escape import checked_attrs, dom_id, escape_label
from planviz.pictures.style import FONT, LOOKS, Look, Mark, gravest, node_attrs, tip
from planviz.plan.model import STATUSES
from planviz.structure.index import StructureIndex

__all__ = [
    "Group",
    "chain_groups",
    "kind_clusters",
    "node_name",
    "add_groups",
    "group_marks",
    "status_counts",
    "COUNT_ORDER",
    "member_key",
    "counts_text",
    "group_traits",
    "traits_of",
    "group_mark",
]

#: The order in which a group's status counts are listed (the first two non-zero ones are shown).
COUNT_ORDER = (
    "failed",
    "voided",
    "conflict",
    "waiting",
    "running",
    "ready",
    "blocked",
    "not_run",
    "done",
    "kept",
    "pending",
)
_LOOK_OF = {
    "failed": "failed",
    "voided": "invalidated",
    "conflict": "conflict",
    "waiting": "waiting",
    "running": "running",
    "ready": "ready",
    "blocked": "blocked",
    "not_run": "not_run",
    "done": "done",
    "kept": "kept",
    "pending": "pending",
}


@dataclass(frozen=True)
class Group:
    """Steps drawn as one node: a ``summary`` of hidden steps or a collapsed ``chain``.

    ``members`` are step ids (a summary's in plan order, a chain's from its
    first step to its last); ``title`` and ``hint`` are its label.
    """

    name: str
    kind: str
    members: tuple[str, ...]
    title: str
    hint: str = ""


def chain_groups(ix: StructureIndex, drawn: Sequence[str], pinned: set[str]) -> list[Group]:
    """The maximal chains (two steps or more) among ``drawn``; ``pinned`` steps stay single."""
    inside = set(drawn)
    children = ix.children()
    nxt: dict[str, str] = {}
    for u in drawn:
        kids = set(children[u])
        if u in pinned or len(kids) != 1:
            continue
        (v,) = kids
        if v != u and v in inside and v not in pinned and len(set(ix.parents[v])) == 1:
            nxt[u] = v
    heads = [u for u in drawn if u in nxt and u not in set(nxt.values())]
    groups: list[Group] = []
    for u in heads:
        chain = [u]
        while chain[-1] in nxt:
            chain.append(nxt[chain[-1]])
        hint = " → ".join(chain) if len(chain) == 2 else f"{chain[0]} → … → {chain[-1]}"
        groups.append(
            Group(
                f"chain-{len(groups) + 1}",
                "chain",
                tuple(chain),
                f"{len(chain)} steps in a chain",
                hint,
            )
        )
    return groups


def kind_clusters(
    ix: StructureIndex, drawn: Sequence[str], groups: Sequence[Group]
) -> tuple[tuple[str, tuple[str | int, ...]], ...]:
    """(kind, nodes) for each kind: its drawn steps and the chains whose steps all share it; sorted by kind."""
    by_kind: dict[str, list[str | int]] = {}
    for s in drawn:
        kind = ix.steps[s].kind
        if kind:
            by_kind.setdefault(kind, []).append(s)
    for i, g in enumerate(groups):
        kinds = {ix.steps[m].kind for m in g.members}
        kind = next(iter(kinds)) if len(kinds) == 1 else None
        if g.kind == "chain" and kind:
            by_kind.setdefault(kind, []).append(i)
    return tuple((k, tuple(v)) for k, v in sorted(by_kind.items()))


def node_name(view: Any, node: str | int) -> str:
    """The Graphviz name of a drawn step (its :func:`dom_id`) or of ``view.groups[node]`` (never a step's).

    ``view`` is a :class:`~planviz.View` (not imported here: :mod:`.focus` builds views from this module).
    """
    return dom_id(node) if isinstance(node, str) else f"~group-{view.groups[node].name}"


def member_key(
    sid: str,
    statuses: Mapping[str, str],
    voided: AbstractSet[str],
    kept: AbstractSet[str],
    not_run: AbstractSet[str] = frozenset(),
) -> str:
    """What a group counts a member as in a frame: its status, or ``voided`` / ``kept`` / ``not_run`` (a
    stopped run never started it)."""
    status = statuses.get(sid, "pending")
    return (
        "voided"
        if (sid in voided or status == "invalidated") and status != "failed"
        else "kept"
        if sid in kept and status == "done"
        else "not_run"
        if sid in not_run
        else status
        if status in STATUSES
        else "pending"
    )


def counts_text(counts: Mapping[str, int]) -> str:
    """The counts of a group's members by key, most telling first (two kinds at most, then ``…``)."""
    shown = [f"{counts[k]} {k.replace('_', ' ')}" for k in COUNT_ORDER if counts.get(k)]
    return " · ".join(shown[:2]) + (" …" if len(shown) > 2 else "")


def status_counts(
    members: Iterable[str],
    statuses: Mapping[str, str],
    voided: AbstractSet[str],
    kept: AbstractSet[str],
    not_run: AbstractSet[str] = frozenset(),
) -> str:
    """How many members are in each status, most telling first (two kinds at most, then ``…``)."""
    counts: dict[str, int] = {}
    if not voided and not kept and not not_run:
        # a frame that voids, keeps and leaves out nothing (most frames): each member counts as its status, so the
        # statuses are counted in C and each distinct one is keyed once
        for status, n in Counter(map(statuses.get, members, repeat("pending"))).items():
            key = member_key("", {"": status}, voided, kept, not_run)
            counts[key] = counts.get(key, 0) + n
        return counts_text(counts)
    for s in members:
        key = member_key(s, statuses, voided, kept, not_run)
        counts[key] = counts.get(key, 0) + 1
    return counts_text(counts)


def _placeholder(size: int) -> str:
    return "n" * (2 * len(str(size)) + 18)


def add_groups(a: pgv.AGraph, view: Any, run_mode: bool) -> tuple[dict[int, str], dict[int, str]]:
    """Add the view's group nodes, links and kind clusters to ``a``; returns each group's label and tooltip."""
    labels: dict[int, str] = {}
    tips: dict[int, str] = {}
    for i, g in enumerate(view.groups):
        name = node_name(view, i)
        labels[i] = "\\n".join(
            (escape_label(g.title, limit=60), escape_label(g.hint, width=30, max_lines=2, limit=80))
        )
        shown = ", ".join(g.members[:12]) + (
            f", … ({len(g.members) - 12} more)" if len(g.members) > 12 else ""
        )
        lines = [g.title, g.hint, f"steps: {shown}"]
        tips[i] = tip(lines, "text")
        look = LOOKS["summary"] if g.kind == "summary" else LOOKS["step"]
        a.add_node(name)
        label = labels[i] + ("\\n" + escape_label(_placeholder(len(g.members))) if run_mode else "")
        a.get_node(name).attr.update(
            checked_attrs(
                {
                    **node_attrs(look, [g.kind], tip(lines)),
                    "label": label,
                    "id": f"group-{g.name}",
                    "peripheries": 2 if run_mode else 1,
                }
            )
        )
    for k, (u, v, count) in enumerate(view.links):
        a.add_edge(node_name(view, u), node_name(view, v))
        text = f"{count} dependenc{'y' if count == 1 else 'ies'}"
        attrs: dict[str, Any] = {
            "id": f"link-{k}",
            "class": "link",
            "tooltip": tip([text]),
            "style": "dashed",
            "penwidth": 1.2,
        }
        if count > 1:
            # an xlabel: no label rank, which would double the ranks
            attrs["xlabel"] = escape_label(f"×{count:,}")
        a.get_edge(node_name(view, u), node_name(view, v)).attr.update(checked_attrs(attrs))
    for k, (kind, nodes) in enumerate(view.clusters):
        sub = a.add_subgraph([node_name(view, x) for x in nodes], name=f"cluster_kind_{k}")
        sub.graph_attr.update(
            checked_attrs(
                {
                    "label": escape_label(kind, limit=40),
                    "style": "rounded",
                    "color": "#999999",
                    "fontname": FONT,
                    "fontsize": 10,
                    "labeljust": "l",
                }
            )
        )
    return labels, tips


def group_marks(
    view: Any,
    frame: Any,
    step_marks: Mapping[str, Mark],
    traits: Sequence[tuple[bool, str | None]] | None = None,
) -> dict[int, Mark]:
    """The look of each group node in one frame (or in a plain picture when ``frame`` is None); each group's
    traits are ``traits`` (:func:`traits_of`) when given, else read from its members' marks in ``step_marks``."""
    out = {}
    for i, g in enumerate(view.groups):
        text = (
            status_counts(g.members, frame.statuses, frame.voided, frame.kept, frame.not_run)
            if frame is not None
            else None
        )
        out[i] = group_mark(g, text, group_traits(g, step_marks) if traits is None else traits[i])
    return out


def traits_of(
    groups: tuple[Any, ...], plan: Any, critical: frozenset[str], findings: tuple[Any, ...]
) -> list[tuple[bool, str | None]]:
    """:func:`group_traits` of each group, from the marks node_marks gives its members without a frame: a member
    of the plan is marked ``critical`` when on the critical path and ``finding-S`` for the gravest severity S of
    its findings; read from those two facts, not from a mark made for each member (a 50k-step plan's groups)."""
    by_step: dict[str, list[Any]] = {}
    for f in findings:
        for sid in f.steps:
            by_step.setdefault(sid, []).append(f)
    severity = {sid: gravest(found) for sid, found in by_step.items()}
    by_id = plan.by_id
    out: list[tuple[bool, str | None]] = []
    for g in groups:
        marked = list(filter(by_id.__contains__, g.members))  # each a C pass over the members
        found = set(map(severity.get, marked)) if severity else set()
        out.append(
            (
                bool(marked) and critical.issuperset(marked),
                next((s for s in ("error", "warning") if s in found), None) if severity else None,
            )
        )
    return out


def group_traits(g: Any, step_marks: Mapping[str, Mark]) -> tuple[bool, str | None]:
    """What no frame changes about a group: whether all its members are critical, its gravest finding."""
    member_marks = [step_marks[m] for m in g.members if m in step_marks]
    critical = bool(member_marks) and all("critical" in m.classes for m in member_marks)
    severity = next(
        (s for s in ("error", "warning") if any(f"finding-{s}" in m.classes for m in member_marks)),
        None,
    )
    return critical, severity


def group_mark(g: Any, text: str | None, traits: tuple[bool, str | None]) -> Mark:
    """A group node's mark from its members' counts in a frame (``text``; None: a plain picture) and its traits."""
    classes = [g.kind]
    if text is None:
        key = "summary" if g.kind == "summary" else "step"
        look: Look = LOOKS[key]
        extra: tuple[str, ...] = ()
    else:
        first = text.split(" · ")[0].split(" ", 1)[1].replace(" ", "_")  # "2 not run": not_run
        key = _LOOK_OF.get(first, "pending")
        look = replace(LOOKS[key], text=text)
        classes.append(f"status-{first}")
        extra = (f"in this frame: {text}",)
    critical, severity = traits
    if critical:
        classes.append("critical")
        if text is None:
            key, look = "critical", LOOKS["critical"]
    if severity:
        classes += ["finding", f"finding-{severity}"]
        look = replace(
            look,
            stroke=LOOKS[severity].stroke,
            penwidth=max(look.penwidth, LOOKS[severity].penwidth),
        )
    return Mark(tuple(classes), look, extra, key)
