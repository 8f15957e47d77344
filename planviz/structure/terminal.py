"""Terminal steps: where a plan ends, the one home of that notion for checks and analysis.

A step is a *terminal* of its plan when its ``kind`` is ``finish`` (WorFBench's
``END`` and T-Eval's ``FinishAction`` are imported with that kind) or when it
is the contract's ``final`` milestone (``Contract.final`` names an id or a
kind). When a plan has terminals, its work is meant to flow into them:
validation reports a step that never reaches one (``dead_end``), and the
critical path is the longest path that ends at one.

>>> from planviz import Contract, Plan, Step
>>> plan = Plan("g", [Step("A", "a"), Step("B", "b", depends_on="A"), Step("C", "c", depends_on="A"),
...                   Step("END", "end", depends_on="B", kind="finish")])
>>> terminals(plan)
('END',)
>>> sorted(reaching(plan))
['A', 'B', 'END']
>>> terminals(plan.replace(steps=plan.steps[:3]), Contract(final="C"))
('C',)
"""

from __future__ import annotations

from planviz.plan.model import Contract, Plan
from planviz.structure.index import structure_index

__all__ = ["FINISH", "terminals", "reaching"]

FINISH = "finish"
"""The step kind that marks a terminal step."""


def terminals(plan: Plan, contract: Contract | None = None) -> tuple[str, ...]:
    """The ids of the plan's terminal steps, in file order; ``contract`` defaults to ``plan.contract``.

    A step is terminal when its kind is :data:`FINISH` or when its id or kind is
    ``contract.final``. An empty tuple means the plan names no end: then no step
    is a dead end and the critical path may end anywhere.
    """
    ix = structure_index(plan)
    kinds = ix.by_kind()
    found = set(kinds.get(FINISH, ()))
    contract = contract if contract is not None else plan.contract
    final = contract.final if contract is not None else None
    if final:
        found.update(kinds.get(final, ()))
        if final in ix.steps:
            found.add(final)
    return tuple(sid for sid in ix.steps if sid in found)


def reaching(plan: Plan, contract: Contract | None = None) -> set[str]:
    """Every step whose work reaches a terminal (the terminals included); empty when there is none.

    Dependencies on unknown ids and self-dependencies are ignored, so this
    works on any plan (a cycle's steps count when the cycle leads to a terminal).
    """
    ends = terminals(plan, contract)
    return structure_index(plan).ancestors(ends) if ends else set()
