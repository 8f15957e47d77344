"""The gate of every analysis: a plan's index, or a :class:`~planviz.errors.StructureError` saying why it is no DAG.

Schedules, ready sets and failure scopes follow dependencies, so they refuse
a plan with an unknown dependency, a self-dependency or a cycle. The error
names the same things validation reports (the cycle comes from
:func:`planviz.structure.cycle.find_cycles`), and says to run
:func:`planviz.validate` to see them all.

>>> from planviz import Plan, Step
>>> require_dag(Plan("g", [Step("A", "a", depends_on="B"), Step("B", "b", depends_on="A")]))
Traceback (most recent call last):
...
planviz.errors.StructureError: the plan has a cycle ('A' -> 'B' -> 'A'), so it has no schedule; run planviz.validate(plan) to see it and remove one of its dependencies
"""

from __future__ import annotations

from typing import Iterable

from planviz.errors import StructureError
from planviz.plan.model import Plan, Step, natural_key
from planviz.structure.cycle import find_cycles
from planviz.structure.index import StructureIndex, structure_index

__all__ = ["require_dag", "unknown_error"]


def require_dag(plan: Plan) -> StructureIndex:
    """The plan's index when it is a DAG over known ids; else :class:`StructureError`."""
    ix = structure_index(plan)
    if ix.clean:
        return ix
    if ix.unknown:
        raise unknown_error(ix.steps.values(), ix.steps)
    if ix.self_deps:
        shown = ", ".join(map(repr, sorted(set(ix.self_deps), key=natural_key)[:10]))
        raise StructureError(
            f"step {shown} depends on itself, so the plan has no schedule; remove it from its "
            "depends_on (run planviz.validate(plan) to see every structural finding)",
            steps=sorted(set(ix.self_deps), key=natural_key),
        )
    cycle = find_cycles(ix)[0]
    raise StructureError(
        f"the plan has a cycle ({cycle.route()}), so it has no schedule; "
        "run planviz.validate(plan) to see it and remove one of its dependencies",
        steps=sorted({u for u, _ in cycle.edges}, key=natural_key),
        edges=cycle.edges,
    )


def unknown_error(steps: Iterable[Step], known: object) -> StructureError:
    """The error naming every dependency on an id the plan does not have (``known`` supports ``in``)."""
    unknown = sorted(
        ((s.id, d) for s in steps for d in s.depends_on if d not in known),  # type: ignore[operator]
        key=lambda pair: (natural_key(pair[0]), natural_key(pair[1])),
    )
    shown = "; ".join(f"step {sid!r} depends on unknown step {dep!r}" for sid, dep in unknown[:10])
    return StructureError(
        f"{shown}; run planviz.validate(plan) to see every structural finding, "
        "then fix or remove those dependencies",
        steps=sorted({s for s, _ in unknown}, key=natural_key),
    )
