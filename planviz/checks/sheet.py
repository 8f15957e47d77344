"""The sheet a person confirms before a write plan runs (seed 003: confirm the write plan as a whole).

Every step that writes (:func:`planviz.checks.static.writes`), with its tool, arguments, effect, check and
rollback: what the plan will change, all at once. Under ``Contract(confirm="plan")`` a run asks one approval of
this sheet before step 1, so a "no" costs no tool call (:mod:`planviz.runs.engine.approval`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from planviz.checks.static import effect_of, writes
from planviz.plan.arguments import expect_contract, expect_plan
from planviz.plan.model import Contract, Plan

__all__ = ["confirmation_sheet", "ConfirmationSheet", "SheetRow"]


@dataclass(frozen=True)
class SheetRow:
    """One writing step as the person confirming the plan reads it."""

    step: str
    action: str
    tool: str | None
    arguments: str
    effect: str
    check: str
    rollback: str
    approval: str | None


@dataclass(frozen=True)
class ConfirmationSheet:
    """The writing steps of a plan, in the plan's order; ``to_text()`` is what a person reads and answers."""

    goal: str
    rows: tuple[SheetRow, ...]
    total: int

    @property
    def steps(self) -> tuple[str, ...]:
        """The ids of the writing steps."""
        return tuple(r.step for r in self.rows)

    def to_text(self) -> str:
        """The sheet as text: one block per writing step."""
        if not self.rows:
            return f"nothing to confirm: no step of {self.total} writes (goal: {self.goal})"
        lines = [
            f"confirm the write plan for: {self.goal}",
            f"{len(self.rows)} of {self.total} steps write; a no now costs no tool call",
        ]
        for r in self.rows:
            lines.append(f"  {r.step}  {r.action}")
            lines.append(
                f"      tool: {r.tool or '-'}  arguments: {r.arguments}  effect: {r.effect}"
            )
            lines.append(f"      check: {r.check or '-'}")
            lines.append(
                f"      rollback: {r.rollback or '-'}"
                + (f"  approval: {r.approval}" if r.approval else "")
            )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(self.to_text())


def confirmation_sheet(plan: Plan, contract: Contract | None = None) -> ConfirmationSheet:
    """The sheet a person confirms before a write plan runs: every step that writes, with its tool, arguments,
    effect, check and rollback.

    A step writes when it holds ``resources``, declares a writing ``effect``, or the contract registers its
    tool as writing. Under ``Contract(confirm="plan")`` :func:`planviz.simulate` asks one approval of this
    sheet before step 1.

    Parameters
    ----------
    plan : Plan
        The plan.
    contract : Contract, optional
        The contract whose tool registry says which tools write; None uses ``plan.contract``.

    Returns
    -------
    ConfirmationSheet
        The writing steps (``rows``, ``steps``) and ``to_text()``.

    Raises
    ------
    PlanvizTypeError
        When ``plan`` is not a Plan or ``contract`` not a Contract.

    Examples
    --------
    >>> from planviz import Plan, Step
    >>> plan = Plan("fix", [Step("L", "look", effect="read"),
    ...                     Step("P", "patch keys.py", resources=["keys.py"], check="the test passes",
    ...                          rollback="git revert", depends_on="L")])
    >>> print(confirmation_sheet(plan).to_text())
    confirm the write plan for: fix
    1 of 2 steps write; a no now costs no tool call
      P  patch keys.py
          tool: -  arguments: {}  effect: write
          check: the test passes
          rollback: git revert
    """
    plan = expect_plan(plan, "confirmation_sheet")
    given = expect_contract(contract, "confirmation_sheet")
    contract = given if given is not None else plan.contract
    rows = tuple(
        SheetRow(
            s.id,
            s.action,
            s.tool,
            json.dumps(dict(s.arguments), sort_keys=True, default=str),
            effect_of(s, contract) or "write",
            s.check,
            s.rollback,
            s.approval,
        )
        for s in plan.steps
        if s.horizon != "far" and writes(s, contract)
    )
    return ConfirmationSheet(plan.goal, rows, len(plan.steps))
