"""Focused views of big plans: which steps a picture draws one by one, and what it sums up.

A picture of a thousand steps is unreadable and slow to lay out, so above a
size threshold :func:`planviz.render` draws a :class:`View`: a set of steps
drawn in full (the k-hop neighbourhood of a chosen step, the part of the plan a
failure voided with the kept steps that feed it, the steps findings name, or
the critical path) and summary nodes for the rest. Hidden steps are summed up
by where they stand relative to the steps shown: ``upstream`` (they lead to
a step shown), ``downstream`` (they follow one), ``between`` (both) and
``elsewhere`` (no path either way). Every plan edge that touches a hidden step
becomes a link between the nodes that hold its ends, counting the edges it
stands for, so no dependency disappears from the picture.

>>> from planviz import Plan, Step
>>> plan = Plan("g", [Step(f"S{i}", "x", depends_on=[f"S{i - 1}"] if i else []) for i in range(9)])
>>> v = plan_view(plan, focus="S4", hops=1)
>>> v.steps, [(g.name, len(g.members)) for g in v.groups]
(('S3', 'S4', 'S5'), [('upstream', 3), ('downstream', 3)])
>>> v.links
((0, 'S3', 1), ('S5', 1, 1))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

import networkx as nx

from planviz.errors import PlanvizTypeError, RenderError, UnknownStepError, show_value
from planviz.pictures.grouping import Group, chain_groups, kind_clusters
from planviz.plan.model import Plan
from planviz.structure.index import StructureIndex, structure_index

__all__ = [
    "View",
    "Group",
    "plan_view",
    "candidate_views",
    "RELATIONS",
    "BANDS",
    "BAND_WAVES",
    "COLLAPSE",
    "GROUP_BY",
]

RELATIONS = ("upstream", "between", "downstream", "elsewhere")
#: Hidden steps of one relation are split into at most this many bands of ready waves, of at least BAND_WAVES.
BANDS, BAND_WAVES = 16, 5
COLLAPSE = ("chains",)
GROUP_BY = ("kind",)
_TITLES = {
    "upstream": "{n} step{s} upstream",
    "between": "{n} step{s} in between",
    "downstream": "{n} step{s} downstream",
    "elsewhere": "{n} other step{s}",
}
_HINTS = {
    "upstream": "they lead to the steps shown",
    "between": "they follow some steps shown and lead to others",
    "downstream": "they follow the steps shown",
    "elsewhere": "no path to or from the steps shown",
}


@dataclass(frozen=True)
class View:
    """What a picture draws: ``steps`` one node each, ``groups`` one node per group of steps.

    ``edges`` are the plan's dependencies between drawn steps; ``links``
    ``(a, b, count)`` join any other two nodes, where an ``int`` names
    ``groups[i]`` and a ``str`` a drawn step, and ``count`` is how many plan
    edges the link stands for. ``clusters`` pairs each kind with its nodes
    (``group_by="kind"``). ``focus`` holds the steps the view was built
    around, ``hops`` the neighbourhood radius used, ``reason`` says in words
    what is shown, and ``total`` is the number of steps in the plan. Every
    step of the plan is in exactly one of ``steps`` or a group's members.
    ``omitted`` counts the transitive edges between drawn steps left out.
    """

    steps: tuple[str, ...]
    total: int
    edges: tuple[tuple[str, str], ...] = ()
    groups: tuple[Group, ...] = ()
    links: tuple[tuple[str | int, str | int, int], ...] = ()
    clusters: tuple[tuple[str, tuple[str | int, ...]], ...] = ()
    focus: tuple[str, ...] = ()
    hops: int | None = None
    reason: str = "the whole plan"
    omitted: int = 0

    @property
    def whole(self) -> bool:
        """True when every step is drawn one by one, with no group."""
        return not self.groups and len(self.steps) == self.total

    @property
    def hidden(self) -> int:
        """How many steps are inside summary nodes (collapsed chains are shown, not hidden)."""
        return sum(len(g.members) for g in self.groups if g.kind == "summary")

    @property
    def name(self) -> str:
        """What the view shows, in a few words: ``'all 60 steps'`` or its reason with a count."""
        if self.whole or (not self.hidden and self.reason == "the whole plan"):
            return f"all {self.total:,} steps"
        return f"{self.reason} ({self.total - self.hidden:,} of {self.total:,} steps)"

    def describe(self) -> str:
        """One sentence saying what is drawn and what is summed up.

        >>> from planviz import Plan, Step
        >>> plan = Plan("g", [Step(f"S{i}", "x", depends_on=[f"S{i - 1}"] if i else []) for i in range(9)])
        >>> plan_view(plan, focus="S4", hops=1).describe()
        "Showing the 1-hop neighbourhood of 'S4' (3 of 9 steps); the other 6 are summed up in 2 summary nodes."
        """
        text = f"Showing {self.name}"
        summaries = sum(g.kind == "summary" for g in self.groups)
        if summaries:
            text += (
                f"; the other {self.hidden:,} are summed up in {summaries} summary "
                f"node{'s' * (summaries != 1)}"
            )
        chains = [g for g in self.groups if g.kind == "chain"]
        if chains:
            text += (
                f"; {sum(len(g.members) for g in chains):,} steps in {len(chains)} "
                f"chain{'s' * (len(chains) != 1)} are drawn one node per chain"
            )
        if self.omitted:
            text += (
                f"; {self.omitted:,} transitive dependenc{'y is' if self.omitted == 1 else 'ies are'} left out "
                "(a path through other steps states the same order)"
            )
        return text + "."


def plan_view(
    plan: Plan,
    *,
    focus: str | Iterable[str] | None = None,
    hops: int = 2,
    collapse: str | None = None,
    group_by: str | None = None,
    max_steps: int | None = 300,
    run: Any = None,
    findings: Sequence[Any] = (),
    critical: Sequence[str] = (),
    hidden: frozenset[tuple[str, str]] = frozenset(),
    thin: bool = False,
    keep: frozenset[tuple[str, ...]] = frozenset(),
) -> View:
    """Choose what a picture of ``plan`` draws one by one; see :func:`planviz.render` for the options.

    With ``focus`` (a step id or several), the view is their ``hops``-hop
    neighbourhood (dependencies followed both ways). Without it, a plan of at
    most ``max_steps`` steps is drawn whole (``max_steps=None``: always);
    a bigger one is focused on, in this order: the steps a failure of ``run``
    voided in this plan version with the steps that feed them (else the
    steps that failed, else steps reissued by a replan), the steps
    ``findings`` name, the ``critical`` path, the first steps. A neighbourhood
    that would hold more than ``max_steps`` steps uses fewer hops. Edges in
    ``hidden`` (``reduce=``: transitive ones) are not drawn between steps;
    with ``thin``, neither is any edge between drawn steps that a path
    through other drawn steps implies (except those in ``keep``).

    >>> from planviz import Plan, Step
    >>> plan = Plan("g", [Step("A", "a"), Step("B", "b", depends_on="A"), Step("C", "c", depends_on="B")])
    >>> plan_view(plan).whole, plan_view(plan, max_steps=2, critical=["A", "B", "C"]).reason
    (True, 'the first 2 steps of the critical path')
    """
    ix = structure_index(plan)
    _check(hops, collapse, group_by, max_steps)
    ids = list(ix.steps)
    cap = len(ids) if max_steps is None else max_steps
    if focus is not None:
        seeds = _focus_ids(plan, focus)
        shown, used = _ball(ix, seeds, hops, cap)
        reason = _ball_reason(seeds, used, cap, "")
    elif len(ids) <= cap:
        seeds, shown, used, reason = (), set(ids), None, "the whole plan"
    else:
        seeds, shown, used, reason = _auto(plan, ix, run, findings, critical, hops, cap)
    return assemble(ix, ids, shown, seeds, used, reason, collapse, group_by, hidden, thin, keep)


def candidate_views(plan: Plan, **options: Any) -> Iterator[View]:
    """The view :func:`plan_view` chooses, then ever smaller ones to fall back on when a layout costs too much.

    A view around ``focus`` shrinks by hops, down to the focus steps alone;
    any other view by the number of steps shown, halving down to 8.
    """
    first = plan_view(plan, **options)
    yield first
    previous = set(first.steps)
    if options.get("focus") is not None:
        smaller = ({**options, "hops": h} for h in range((first.hops or 0) - 1, -1, -1))
    else:
        caps = []
        cap = len(first.steps) // 2
        while cap >= 8:
            caps.append(cap)
            cap //= 2
        smaller = ({**options, "max_steps": c} for c in caps)
    for opts in smaller:
        view = plan_view(plan, **opts)
        if set(view.steps) != previous:
            previous = set(view.steps)
            yield view


def assemble(
    ix: StructureIndex,
    ids: list[str],
    shown: set[str],
    seeds: Sequence[str],
    hops: int | None,
    reason: str,
    collapse: str | None = None,
    group_by: str | None = None,
    hidden: frozenset[tuple[str, str]] = frozenset(),
    thin: bool = False,
    keep: frozenset[tuple[str, ...]] = frozenset(),
) -> View:
    """The view drawing ``shown`` one by one, the rest summed up by relation, chains and kinds as asked."""
    groups = _summaries(ix, ids, shown) if len(shown) < len(ids) else []
    drawn = [s for s in ids if s in shown]
    if collapse == "chains":
        chains = chain_groups(ix, drawn, set(seeds))
        inside = {m for g in chains for m in g.members}
        drawn = [s for s in drawn if s not in inside]
        groups += chains
    owner: dict[str, str | int] = {s: s for s in drawn}
    for i, g in enumerate(groups):
        owner.update(dict.fromkeys(g.members, i))
    edges: list[tuple[str, str]] = []
    omitted = 0
    counts: dict[tuple[str | int, str | int], int] = {}
    for v in ids:
        b = owner[v]
        for p in dict.fromkeys(ix.parents[v]):
            a = owner[p]
            if type(a) is str and type(b) is str:
                if (p, v) in hidden:
                    omitted += 1
                else:
                    edges.append((p, v))
            elif a != b:
                counts[(a, b)] = counts.get((a, b), 0) + 1
    if thin:
        drawn_graph = nx.DiGraph(edges)
        if nx.is_directed_acyclic_graph(drawn_graph):
            needed = set(nx.transitive_reduction(drawn_graph).edges) | keep
            omitted += len(edges) - len(needed & set(edges))
            edges = [e for e in edges if e in needed]
    edges += [(s, s) for s in dict.fromkeys(ix.self_deps) if type(owner.get(s)) is str]
    clusters = kind_clusters(ix, drawn, groups) if group_by == "kind" else ()
    return View(
        tuple(drawn),
        len(ids),
        tuple(edges),
        tuple(groups),
        tuple((a, b, n) for (a, b), n in counts.items()),
        clusters,
        tuple(seeds),
        hops,
        reason,
        omitted,
    )


# --- choosing the steps shown ------------------------------------------------------------------------------


def _check(hops: object, collapse: object, group_by: object, max_steps: object) -> None:
    for name, value in (("hops", hops), ("max_steps", max_steps)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise PlanvizTypeError(
                f"render({name}=...) expects a whole number, got {type(value).__name__} "
                f"{show_value(value)}"
            )
    if isinstance(hops, bool) or not isinstance(hops, int) or hops < 0:
        raise RenderError(
            f"hops={show_value(hops)}: expected a whole number of dependency hops >= 0, such as hops=2"
        )
    if collapse is not None and collapse not in COLLAPSE:
        raise RenderError(
            f"collapse={show_value(collapse)}: choose one of {', '.join(map(repr, COLLAPSE))} or None"
        )
    if group_by is not None and group_by not in GROUP_BY:
        raise RenderError(
            f"group_by={show_value(group_by)}: choose one of {', '.join(map(repr, GROUP_BY))} or None"
        )
    if max_steps is not None and (
        isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1
    ):
        raise RenderError(
            f"max_steps={show_value(max_steps)}: expected a number of steps >= 1, or None to draw every step"
        )


def _focus_ids(plan: Plan, focus: str | Iterable[str]) -> tuple[str, ...]:
    wanted = (focus,) if isinstance(focus, str) else focus
    try:
        wanted = tuple(dict.fromkeys(wanted))
    except TypeError:
        raise PlanvizTypeError(
            f"render(focus=...) expects a step id or a list of step ids, got "
            f"{type(focus).__name__} {show_value(focus, 80)}"
        ) from None
    for sid in wanted:
        if not isinstance(sid, str):
            raise PlanvizTypeError(
                f"render(focus=...) expects step ids (strings), got {show_value(sid, 80)}"
            )
        if sid not in plan:
            try:
                plan.step(sid)
            except UnknownStepError as exc:
                raise UnknownStepError(f"render(focus={show_value(sid)}): {exc}") from None
    if not wanted:
        raise RenderError(
            "render(focus=[]) names no step; pass a step id, or focus=None for the default view"
        )
    return wanted


def _layers(ix: StructureIndex, seeds: Sequence[str], hops: int) -> list[list[str]]:
    """Steps by undirected distance from the seeds: layer k holds the steps exactly k hops away (k <= hops)."""
    parents, children = ix.parents, ix.children()
    seen = set(seeds)
    layers = [list(seeds)]
    while len(layers) <= hops and layers[-1]:
        nxt = []
        for u in layers[-1]:
            for v in (*parents[u], *children[u]):
                if v not in seen:
                    seen.add(v)
                    nxt.append(v)
        layers.append(nxt)
    return [layer for layer in layers if layer] or [[]]


def _ball(ix: StructureIndex, seeds: Sequence[str], hops: int, cap: int) -> tuple[set[str], int]:
    """The ``hops``-hop neighbourhood of the seeds, with fewer hops when it would exceed ``cap`` steps."""
    if len(seeds) > cap:
        return set(_first(ix, seeds, cap)), 0
    shown: set[str] = set()
    for k, layer in enumerate(_layers(ix, seeds, hops)):
        if k and len(shown) + len(layer) > cap:
            return shown, k - 1
        shown.update(layer)
    return shown, hops


def _first(ix: StructureIndex, ids: Iterable[str], cap: int) -> list[str]:
    """The first ``cap`` of ``ids`` in dependency order (steps on a cycle last)."""
    pos = ix.pos
    return sorted(ids, key=lambda s: (pos.get(s, len(pos)), s))[:cap]


def _ball_reason(seeds: Sequence[str], used: int, cap: int, what: str) -> str:
    name = what or (repr(seeds[0]) if len(seeds) == 1 else f"{len(seeds)} steps")
    if len(seeds) > cap:
        return f"the first {cap} of {name}"
    return f"the {used}-hop neighbourhood of {name}" if used else (what or name)


def _auto(
    plan: Plan,
    ix: StructureIndex,
    run: Any,
    findings: Sequence[Any],
    critical: Sequence[str],
    hops: int,
    cap: int,
) -> tuple[tuple[str, ...], set[str], int | None, str]:
    voided, failed, reissued = _run_marks(plan, run)
    if voided:
        seeds = tuple(s for s in ix.steps if s in voided or s in failed)
        feeding = {p for s in seeds for p in ix.parents[s]} - set(seeds)
        if len(seeds) + len(feeding) <= cap:
            return (
                seeds,
                set(seeds) | feeding,
                None,
                f"the {len(seeds)} steps a failure voided and the {len(feeding)} steps that feed them",
            )
        roots = tuple(s for s in seeds if s in failed) or tuple(
            s for s in seeds if not set(ix.parents[s]) & voided
        )
        shown, used = _ball(ix, roots, hops, cap)
        return roots, shown, used, _ball_reason(roots, used, cap, "the failure")
    for ids, what in (
        (failed, "the failed steps"),
        (reissued, "the steps a replan reissued"),
        ({s for f in findings for s in getattr(f, "steps", ())}, "the steps with findings"),
    ):
        seeds = tuple(s for s in ix.steps if s in ids)
        if seeds:
            shown, used = _ball(ix, seeds, hops, cap)
            return seeds, shown, used, _ball_reason(seeds, used, cap, what)
    seeds = tuple(s for s in critical if s in ix.steps)
    if seeds:
        if len(seeds) > cap:
            return seeds[:cap], set(seeds[:cap]), 0, f"the first {cap} steps of the critical path"
        shown, used = _ball(ix, seeds, hops, cap)
        return seeds, shown, used, _ball_reason(seeds, used, cap, "the critical path")
    first = _first(ix, ix.steps, cap)
    return tuple(first), set(first), 0, f"the first {cap} steps in dependency order"


def _run_marks(plan: Plan, run: Any) -> tuple[set[str], set[str], set[str]]:
    """What the run's failures voided, which steps failed, and which were reissued, in this plan version."""
    voided: set[str] = set()
    failed: set[str] = set()
    reissued = {s.id for s in plan.steps if s.revises}
    for i, e in enumerate(getattr(run, "events", None) or ()):
        if e.plan_version != plan.version:
            continue
        if e.kind == "invalidate":
            voided |= run.frame(i).voided
        elif e.kind == "fail" and e.step in plan:
            failed.add(e.step)
    return voided, failed, reissued


# --- what is hidden ----------------------------------------------------------------------------------------------


def _summaries(ix: StructureIndex, ids: list[str], shown: set[str]) -> list[Group]:
    """Summary nodes of the hidden steps: by relation to the steps shown, and by band of ready waves.

    Banding keeps each summary node next to the steps it links to, so its
    edges stay short: a long edge costs ``dot`` a node per rank it crosses.
    Steps ``elsewhere`` (no path to or from a step shown) make one node.
    """
    up = ix.ancestors(shown)
    down = ix.descendants(shown)
    levels = ix.levels()
    size = max(BAND_WAVES, -(-(max(levels.values(), default=0) + 1) // BANDS))
    members: dict[tuple[str, int], list[str]] = {}
    for s in ids:
        if s not in shown:
            rel = (
                ("between" if s in down else "upstream")
                if s in up
                else "downstream"
                if s in down
                else "elsewhere"
            )
            members.setdefault(
                (rel, 0 if rel == "elsewhere" else levels.get(s, 0) // size), []
            ).append(s)
    groups = []
    for rel, band in sorted(members, key=lambda k: (RELATIONS.index(k[0]), k[1])):
        m = members[(rel, band)]
        name = rel if sum(k[0] == rel for k in members) == 1 else f"{rel}-{band + 1}"
        lo, hi = min(levels.get(x, 0) for x in m) + 1, max(levels.get(x, 0) for x in m) + 1
        waves = f"wave {lo}" if lo == hi else f"waves {lo}–{hi}"
        groups.append(
            Group(
                name,
                "summary",
                tuple(m),
                _TITLES[rel].format(n=f"{len(m):,}", s="s" * (len(m) != 1)),
                f"{waves}: {_HINTS[rel]}",
            )
        )
    return groups
