"""Private helper of :mod:`planviz.analysis`: why a step is blocked, and what a failure voids.

:func:`why_blocked` explains an unreachable step as a chain back to its root
cause; :func:`failure_scope` applies the scope rules of SPEC section 6 to one
classified failure. Both are re-exported by :mod:`planviz.analysis`.

>>> from planviz.model import Plan, Step
>>> plan = Plan("g", [Step("A", "a", produces="x"), Step("B", "b", depends_on="A", requires="x")])
>>> failure_scope(plan, "B", "transient").action
'retry'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable

from ._dagindex import (
    AnalysisError,
    DagIndex,
    collection,
    dag_index,
    reach_pass,
    state_of,
    unique_steps,
)
from .model import Plan

__all__ = ["why_blocked", "failure_scope", "BlockReason", "Scope", "CATEGORIES", "ACTIONS"]

CATEGORIES = ("transient", "precondition", "side_effect", "goal_change")
ACTIONS = ("retry", "return_to_source", "invalidate_subgraph", "replan", "blocked")


@dataclass(frozen=True)
class BlockReason:
    """One link of :func:`why_blocked`'s chain.

    ``kind`` is ``dependency`` (``missing`` is a step that will not complete),
    ``fact`` (``missing`` is a fact nothing left can establish) or ``unknown``
    (no root cause outside the chain: ``missing``, a fact or a step, waits
    on a step already in the chain, a circular wait). ``producers`` lists the
    steps that produce a missing fact.
    """

    step: str
    kind: str
    missing: str
    producers: tuple[str, ...] = ()
    message: str = ""


@dataclass(frozen=True)
class Scope:
    """What a failure voids and keeps; see :func:`failure_scope`.

    ``action`` is one of ``retry``, ``return_to_source``,
    ``invalidate_subgraph``, ``replan`` or ``blocked`` (no step can restore
    ``blocked_fact``); ``restart`` is the step execution resumes from, if any.
    """

    category: str
    action: str
    restart: str | None
    voided: frozenset[str]
    kept: frozenset[str]
    blocked_fact: str | None = None
    message: str = ""


def why_blocked(plan: Plan, state: Any, step: str) -> tuple[BlockReason, ...]:
    """The chain of missing dependencies and facts that keeps ``step`` from ever running.

    From ``step`` back to the root cause; empty when the step is completed or
    still reachable. At each link a blocked dependency (lowest id) is
    followed first, then a missing fact (lowest name) through its
    lowest-id blocked producer.

    >>> from planviz.model import Plan, Step
    >>> plan = Plan("g", [Step("A", "a", produces="x"), Step("B", "b", depends_on="A", requires="x"),
    ...                   Step("C", "c", depends_on="B")])
    >>> [(r.step, r.kind, r.missing) for r in why_blocked(plan, ({"A"}, set()), "C")]
    [('C', 'dependency', 'B'), ('B', 'fact', 'x')]
    """
    completed, facts = state_of(state)
    plan.step(step)
    steps, succ = unique_steps(plan)
    held, found, done = reach_pass(steps, succ, completed, facts)
    by_id = {s.id: s for s in steps}
    producers: dict[str, list[str]] = {}
    for s in steps:
        for f in s.produces:
            producers.setdefault(f, []).append(s.id)
    blocked = set(by_id) - done - set(found)
    chain: list[BlockReason] = []
    seen: set[str] = set()
    current: str | None = step if step in blocked else None
    while current is not None:
        seen.add(current)
        s = by_id[current]
        deps = sorted(d for d in s.depends_on if d in blocked)
        fresh = [d for d in deps if d not in seen]
        if fresh:
            chain.append(BlockReason(current, "dependency", fresh[0], message=(
                f"{current!r} depends on {fresh[0]!r}, which can no longer complete")))
            current = fresh[0]
            continue
        if deps:
            chain.append(BlockReason(current, "unknown", deps[0], message=(
                f"{current!r} depends on {deps[0]!r}, which itself waits on {current!r}: a circular requirement")))
            break
        fact = min(f for f in s.requires if f not in held)
        makers = tuple(sorted(producers.get(fact, ())))
        open_makers = [p for p in makers if p in blocked]
        if open_makers and all(p in seen for p in open_makers):
            chain.append(BlockReason(current, "unknown", fact, makers, (
                f"{current!r} requires {fact!r}, which only steps waiting on this chain produce "
                f"({', '.join(map(repr, open_makers))}): a circular requirement")))
            break
        if open_makers:
            nxt = next(p for p in open_makers if p not in seen)
            chain.append(BlockReason(current, "fact", fact, makers,
                                     f"{current!r} requires {fact!r}, which only {nxt!r} can still produce"))
            current = nxt
            continue
        chain.append(BlockReason(current, "fact", fact, makers, _lost_fact(current, fact, makers, done)))
        break
    return tuple(chain)


def _lost_fact(step: str, fact: str, makers: tuple[str, ...], done: set[str]) -> str:
    finished = [p for p in makers if p in done]
    if finished:
        return (f"{step!r} requires {fact!r}, which is no longer held; {', '.join(map(repr, finished))} "
                "established it and completed steps are not re-run: replan or return to that producer")
    return (f"{step!r} requires {fact!r}, which is not held and no step of the plan produces: "
            "add a step that establishes it, or make it a given fact")


def failure_scope(plan: Plan, step: str, category: str, fact: str | None = None, state: Any = None) -> Scope:
    """What a failure of ``category`` at ``step`` voids, and what verified work it keeps.

    - ``transient``: retry the step; nothing voided.
    - ``precondition`` (fact ``fact`` was false): return to the completed step
      nearest to ``step`` that produced the fact (an ancestor first, nearest by
      graph distance, ties by id; else any step, nearest ignoring edge
      direction); void it and its descendants. When no step produced the fact
      (a given fact), action ``blocked`` names it and the step and its
      descendants are voided. ``fact`` may be omitted when the step requires
      exactly one fact.
    - ``side_effect``: void the patch (the nearest step of kind ``patch``
      among the step itself and its ancestors; if none, the step's direct
      dependencies) and everything downstream of it.
    - ``goal_change``: void every step not completed; replan.

    ``state`` (``.completed``/``.facts`` or a ``(completed, facts)`` pair)
    says which steps completed; ``kept`` is the completed steps not voided.
    Without a state every step counts as a possible producer and ``kept`` is
    every step not voided.

    >>> from planviz.model import Plan, Step
    >>> plan = Plan("g", [Step("A", "a", produces="x"), Step("B", "b", depends_on="A"),
    ...                   Step("C", "c", depends_on="B", requires="x")])
    >>> s = failure_scope(plan, "C", "precondition", fact="x", state=({"A", "B"}, set()))
    >>> s.action, s.restart, sorted(s.voided), sorted(s.kept)
    ('return_to_source', 'A', ['A', 'B', 'C'], [])
    >>> failure_scope(plan, "C", "precondition", fact="given").action
    'blocked'
    """
    if category not in CATEGORIES:
        raise AnalysisError(f"unknown failure category {category!r}; choose one of "
                            f"{', '.join(map(repr, CATEGORIES))}")
    target = plan.step(step)
    index = dag_index(plan)  # scopes follow dependencies: a cyclic plan is refused
    ids = set(index.succ)
    if state is None:
        completed = None
        universe = ids
    else:
        done, _ = state_of(state)
        completed = ids.intersection(collection(done, "completed", "step ids"))
        universe = completed

    def scope(action: str, restart: str | None, voided: set[str], message: str,
              blocked_fact: str | None = None) -> Scope:
        return Scope(category, action, restart, frozenset(voided), frozenset(universe - voided), blocked_fact,
                     message)

    if category == "transient":
        return scope("retry", step, set(), f"transient failure at {step!r}: retry it; nothing is voided")
    if category == "goal_change":
        voided = ids if completed is None else ids - completed
        return scope("replan", None, voided,
                     f"the goal changed at {step!r}: replan; {len(voided)} step(s) not completed are void, "
                     "completed facts stay for the new plan to reuse")
    if category == "side_effect":
        roots = _patch_roots(index, step)
        voided = index.descendants(roots)
        what = " and ".join(map(repr, roots))
        return scope("invalidate_subgraph", roots[0], voided,
                     f"side effect found at {step!r}: {what} and everything downstream of it are void "
                     f"({_names(voided)}); resume from {roots[0]!r}")
    if fact is None:
        if len(set(target.requires)) != 1:
            which = (f"one of {sorted(set(target.requires))!r}" if target.requires
                     else f"{step!r} requires no fact, so name the one found false")
            raise AnalysisError(f"a precondition failure at {step!r} needs the fact that was false: pass fact=, "
                                f"{which}")
        fact = target.requires[0]
    source = _nearest_producer(index, step, fact, universe)
    if source is None:
        which = "step of the plan produces it" if completed is None else "completed step produced it"
        return scope("blocked", None, index.descendants([step]),
                     f"precondition {fact!r} failed at {step!r} and no {which} (a given fact): "
                     "no step can restore it, the route is blocked", blocked_fact=fact)
    voided = index.descendants([source])
    return scope("return_to_source", source, voided,
                 f"precondition {fact!r} failed at {step!r}: return to {source!r}, which produced it; "
                 f"void {_names(voided)}")


def _patch_roots(index: DagIndex, x: str) -> list[str]:
    """Sorted ids where a side effect found at ``x`` is undone."""
    if index.step(x).kind == "patch":
        return [x]
    dist = index.ancestor_distances(x)
    patches = [a for a in dist if index.step(a).kind == "patch"]
    if patches:
        return [min(patches, key=lambda a: (dist[a], a))]
    return sorted(set(index.step(x).depends_on)) or [x]


def _nearest_producer(index: DagIndex, x: str, fact: str, candidates: set[str]) -> str | None:
    producers = [s.id for s in index.steps if s.id != x and s.id in candidates and fact in s.produces]
    if not producers:
        return None
    ancestors = index.ancestor_distances(x)
    near = [c for c in producers if c in ancestors]
    if near:
        return min(near, key=lambda c: (ancestors[c], c))
    dist = index.undirected_distances(x)
    return min(producers, key=lambda c: (dist.get(c, math.inf), c))


def _names(ids: Iterable[str]) -> str:
    return ", ".join(sorted(ids))
