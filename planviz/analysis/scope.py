"""What a failure costs: the part of the plan it voids and the verified work it keeps.

:func:`failure_scope` applies the scope rules of each failure class (SPEC
section 6) to one failure at one step.

>>> from planviz import Plan, Step
>>> plan = Plan("g", [Step("A", "a", produces="x"), Step("B", "b", depends_on="A", requires="x")])
>>> failure_scope(plan, "B", "transient").action
'retry'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable

from planviz.analysis.reach import StateLike, collection, state_of
from planviz.errors import AnalysisError, show_value
from planviz.plan.arguments import expect_plan
from planviz.plan.model import Plan
from planviz.structure.dag import require_dag
from planviz.structure.index import StructureIndex

__all__ = ["failure_scope", "Scope", "CATEGORIES", "ACTIONS"]

CATEGORIES = ("transient", "precondition", "side_effect", "goal_change")
ACTIONS = ("retry", "return_to_source", "invalidate_subgraph", "replan", "blocked")


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


def failure_scope(
    plan: Plan, step: str, category: str, fact: str | None = None, state: StateLike | None = None
) -> Scope:
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
    - ``goal_change``: global: void every step, completed or not, and keep
      none until each completed step is re-checked against the new goal and
      contract (the simulator's ``recheck`` events); replan for the new goal.

    ``state`` (``.completed``/``.facts`` or a ``(completed, facts)`` pair)
    says which steps completed; ``kept`` is the completed steps not voided.
    Without a state every step counts as a possible producer and ``kept`` is
    every step not voided.

    Parameters
    ----------
    plan : Plan
        The plan (any version).
    step : str
        Where the failure showed.
    category : str
        ``transient``, ``precondition``, ``side_effect`` or ``goal_change``.
    fact : str, optional
        For a precondition failure: the fact that was false.
    state : ExecutionState or (completed, facts), optional
        Which steps completed; None: every step may have.

    Returns
    -------
    Scope
        ``category``, ``action``, ``restart``, ``voided`` and ``kept``.

    Raises
    ------
    AnalysisError
        For an unknown category.
    UnknownStepError
        When ``step`` is not in the plan.
    StructureError
        When the plan has a cycle or an unknown dependency; :func:`validate` names it.
    PlanvizTypeError
        When ``plan`` is not a :class:`Plan` (a path: load it first with :func:`load_plan`).

    Examples
    --------
    >>> from planviz import Plan, Step
    >>> plan = Plan("g", [Step("A", "a", produces="x"), Step("B", "b", depends_on="A"),
    ...                   Step("C", "c", depends_on="B", requires="x")])
    >>> s = failure_scope(plan, "C", "precondition", fact="x", state=({"A", "B"}, set()))
    >>> s.action, s.restart, sorted(s.voided), sorted(s.kept)
    ('return_to_source', 'A', ['A', 'B', 'C'], [])
    >>> failure_scope(plan, "C", "precondition", fact="given").action
    'blocked'
    """
    plan = expect_plan(plan, "failure_scope")
    if category not in CATEGORIES:
        raise AnalysisError(
            f"unknown failure category {show_value(category)}; choose one of "
            f"{', '.join(map(repr, CATEGORIES))}"
        )
    target = plan.step(step)
    index = require_dag(plan)  # scopes follow dependencies: a cyclic plan is refused
    ids = set(index.steps)
    if state is None:
        completed = None
        universe = ids
    else:
        done, _ = state_of(state)
        completed = ids.intersection(collection(done, "completed", "step ids"))
        universe = completed

    def scope(
        action: str,
        restart: str | None,
        voided: set[str],
        message: str,
        blocked_fact: str | None = None,
    ) -> Scope:
        return Scope(
            category,
            action,
            restart,
            frozenset(voided),
            frozenset(universe - voided),
            blocked_fact,
            message,
        )

    if category == "transient":
        return scope(
            "retry", step, set(), f"transient failure at {step!r}: retry it; nothing is voided"
        )
    if category == "goal_change":
        return Scope(
            category,
            "replan",
            None,
            frozenset(ids),
            frozenset(),
            message=f"the goal changed at {step!r}: every step is void ({len(ids)}); completed work is "
            "kept only once re-checked against the new goal and contract; replan for the new goal",
        )
    if category == "side_effect":
        roots = _patch_roots(index, step)
        voided = index.descendants(roots)
        what = " and ".join(map(repr, roots))
        return scope(
            "invalidate_subgraph",
            roots[0],
            voided,
            f"side effect found at {step!r}: {what} and everything downstream of it are void "
            f"({_names(voided)}); resume from {roots[0]!r}",
        )
    if fact is None:
        if len(set(target.requires)) != 1:
            which = (
                f"one of {sorted(set(target.requires))!r}"
                if target.requires
                else f"{step!r} requires no fact, so name the one found false"
            )
            raise AnalysisError(
                f"a precondition failure at {step!r} needs the fact that was false: pass fact=, "
                f"{which}"
            )
        fact = target.requires[0]
    source = _nearest_producer(index, step, fact, universe)
    if source is None:
        which = (
            "step of the plan produces it" if completed is None else "completed step produced it"
        )
        return scope(
            "blocked",
            None,
            index.descendants([step]),
            f"precondition {fact!r} failed at {step!r} and no {which} (a given fact): "
            "no step can restore it, the route is blocked",
            blocked_fact=fact,
        )
    voided = index.descendants([source])
    return scope(
        "return_to_source",
        source,
        voided,
        f"precondition {fact!r} failed at {step!r}: return to {source!r}, which produced it; "
        f"void {_names(voided)}",
    )


def _patch_roots(index: StructureIndex, x: str) -> list[str]:
    """Sorted ids where a side effect found at ``x`` is undone."""
    if index.step(x).kind == "patch":
        return [x]
    dist = index.ancestor_distances(x)
    patches = [a for a in dist if index.step(a).kind == "patch"]
    if patches:
        return [min(patches, key=lambda a: (dist[a], a))]
    return sorted(set(index.step(x).depends_on)) or [x]


def _nearest_producer(index: StructureIndex, x: str, fact: str, candidates: set[str]) -> str | None:
    producers = [p for p in index.producers(fact) if p != x and p in candidates]
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
