"""Which remaining work could still happen: the least fixed point of dependencies and facts.

A step is reachable when each dependency is completed or reachable and each
required fact is held or produced by a reachable step; steps that are not are
invalidated by a failure. One worklist pass, linear in the plan's size.

>>> from planviz import Plan, Step
>>> plan = Plan("g", [Step("A", "a", produces="x"), Step("B", "b", depends_on="A", requires="x")])
>>> sorted(invalidated(plan, ({"A"}, set())))
['B']
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import AbstractSet, Any, Iterable, Iterator, Protocol, Union

from planviz.errors import PlanvizTypeError, show_value
from planviz.plan.arguments import expect_plan
from planviz.plan.bulk import paused_gc
from planviz.plan.model import Plan, Step
from planviz.structure.dag import unknown_error

__all__ = [
    "reachable",
    "invalidated",
    "Reach",
    "reach_pass",
    "state_of",
    "collection",
    "HasProgress",
    "StateLike",
]


class HasProgress(Protocol):
    """What the analyses read of an execution state (:class:`planviz.ExecutionState` has both)."""

    @property
    def completed(self) -> AbstractSet[str]: ...

    @property
    def facts(self) -> AbstractSet[str]: ...


StateLike = Union[HasProgress, tuple[Iterable[str], Iterable[str]], list[Iterable[str]]]
"""An execution state, or a ``(completed, facts)`` pair."""


@dataclass(frozen=True)
class Reach:
    """The result of :func:`reachable`; unpacks as ``facts, steps``."""

    facts: frozenset[str]
    steps: frozenset[str]

    def __iter__(self) -> Iterator[frozenset[str]]:
        return iter((self.facts, self.steps))


def reachable(plan: Plan, completed: Iterable[str], facts: Iterable[str]) -> Reach:
    """Which remaining steps could still become ready if every future step succeeded.

    A step is reachable when each dependency is completed or reachable and
    each required fact is held or produced by a reachable step: the least
    fixed point, found in one worklist pass (linear in the plan's size).
    Completed steps are not re-run, so a fact they produced that is no
    longer held stays lost; steps on a dependency cycle are never reachable.
    Returns ``Reach(facts, steps)``: the facts that could hold and the
    reachable remaining steps. Ids in ``completed`` that the plan does not
    have are ignored (a state may outlive a plan version).

    Parameters
    ----------
    plan : Plan
        The plan (any version).
    completed : iterable of str
        Ids of the completed steps.
    facts : iterable of str
        The facts held now.

    Returns
    -------
    Reach
        ``(facts, steps)``: the facts that could hold and the reachable remaining steps.

    Raises
    ------
    PlanvizTypeError
        When ``plan`` is not a :class:`Plan` (a path: load it first with :func:`load_plan`).

    Examples
    --------
    >>> from planviz import Plan, Step
    >>> plan = Plan("g", [Step("A", "a", produces="x"), Step("B", "b", depends_on="A", requires="x"),
    ...                   Step("C", "c", requires="y")])
    >>> facts, steps = reachable(plan, completed={"A"}, facts=set())
    >>> sorted(steps), sorted(facts)
    ([], [])
    >>> sorted(reachable(plan, completed=(), facts={"y"}).steps)
    ['A', 'B', 'C']
    """
    plan = expect_plan(plan, "reachable")
    with paused_gc():
        held, found, _ = reach_pass(plan, completed, facts)
        return Reach(frozenset(held), frozenset(found))


def invalidated(plan: Plan, state: StateLike) -> frozenset[str]:
    """Remaining steps that are no longer reachable from ``state`` (see :func:`reachable`).

    ``state`` is anything with ``.completed`` and ``.facts`` (an
    ``ExecutionState``) or a ``(completed, facts)`` pair.

    Parameters
    ----------
    plan : Plan
        The plan (any version).
    state : ExecutionState or (completed, facts)
        What has run: anything with ``.completed`` and ``.facts``, or a pair of id and fact collections.

    Returns
    -------
    frozenset of str
        The remaining steps no future success can reach.

    Raises
    ------
    PlanvizTypeError
        When ``plan`` is not a :class:`Plan` (a path: load it first with :func:`load_plan`).
    PlanvizTypeError
        When ``state`` has neither shape.

    Examples
    --------
    >>> from planviz import Plan, Step
    >>> plan = Plan("g", [Step("A", "a", produces="x"), Step("B", "b", depends_on="A", requires="x")])
    >>> sorted(invalidated(plan, ({"A"}, set())))
    ['B']
    """
    plan = expect_plan(plan, "invalidated")
    completed, facts = state_of(state)
    with paused_gc():
        _, found, done = reach_pass(plan, completed, facts)
        ok = done.union(found)
        return frozenset([v for v in plan.by_id if v not in ok])


def reach_pass(
    plan: Plan, completed: Iterable[str], held: Iterable[str]
) -> tuple[set[str], list[str], set[str]]:
    """One worklist pass: (facts that could hold, reachable remaining steps, completed ids in the plan).

    Each remaining step counts its unmet dependencies plus unmet facts; a
    step is queued when its count reaches zero, and a fact is released once,
    when the first reachable step produces it. A step on a cycle (or
    depending on itself) never reaches zero. Raises :class:`StructureError`
    when a remaining step depends on an id the plan does not have.
    """
    steps_by_id = plan.by_id
    steps = steps_by_id.values()
    succ: dict[str, list[Step]] = {sid: [] for sid in steps_by_id}
    done = {c for c in collection(completed, "completed", "step ids") if c in succ}
    facts = set(collection(held, "facts", "fact strings"))
    unmet: dict[str, int] = {}
    watchers: defaultdict[str, list[Step]] = defaultdict(list)
    queue: list[Step] = []
    try:
        for s in steps:
            sid = s.id
            if sid in done:
                continue
            k = 0
            for d in s.depends_on:
                if d not in done:
                    succ[d].append(s)
                    k += 1
            for f in s.requires:
                if f not in facts:
                    k += 1
                    watchers[f].append(s)
            if k:
                unmet[sid] = k
            else:
                queue.append(s)
    except KeyError:
        raise unknown_error([s for s in steps if s.id not in done], succ) from None
    for (
        v
    ) in queue:  # appends extend the loop: each step is queued once, when its count reaches zero
        for f in v.produces:
            if f not in facts:
                facts.add(f)
                for w in watchers.pop(f, ()):
                    wid = w.id
                    k = unmet[wid] - 1
                    unmet[wid] = k
                    if not k:
                        queue.append(w)
        for w in succ[v.id]:
            wid = w.id
            k = unmet[wid] - 1
            unmet[wid] = k
            if not k:
                queue.append(w)
    return facts, [s.id for s in queue], done


def collection(value: Any, what: str, of: str) -> Any:
    """``value`` itself, refusing a lone string (iterating it would give its characters)."""
    if isinstance(value, str):
        raise PlanvizTypeError(
            f"{what} must be a collection of {of}, got the string {show_value(value)}; "
            "wrap it in a list"
        )
    if not isinstance(value, Iterable):
        raise PlanvizTypeError(
            f"{what} must be a collection of {of}, got {type(value).__name__} {show_value(value)}"
        )
    return value


def state_of(state: Any) -> tuple[Iterable[str], set[str]]:
    """(completed, facts) from an execution state (``.completed``/``.facts``) or a pair."""
    if hasattr(state, "completed") and hasattr(state, "facts"):
        return state.completed, set(collection(state.facts, "facts", "fact strings"))
    if isinstance(state, (tuple, list)) and len(state) == 2:
        return state[0], set(collection(state[1], "facts", "fact strings"))
    raise PlanvizTypeError(
        f"expected an execution state (with .completed and .facts) or a (completed, facts) "
        f"pair, got {type(state).__name__} {show_value(state, 80)}"
    )
