"""Approvals: a step with an ``approval`` waits for it before it starts, and a denial stops the run.

An approval is a record in an external system, never plan text: the run
asks for it when the step is about to start, waits ``approval_time`` (default
0) and records an ``approval`` event, granted or denied, before ``start``.
While it waits, the step holds its worker and its resources. A fault
``approval_denied`` at the step makes the approver say no: the run stops with
outcome ``approval_denied`` and the work done before it is kept. These are
the controller's steps; :mod:`planviz.runs.engine.simulation` calls them with itself.

Under ``Contract(confirm="plan")`` the whole write plan is confirmed once, before step 1: one ``approval``
event with no step, listing every writing step (:func:`planviz.confirmation_sheet`). A fault
``approval_denied`` naming any writing step is that person's no: the run stops (``approval_denied``)
before any tool call. The ``direct`` agent has no plan to show, so it asks before each writing call instead,
and its no comes after the work before it. Steps with their own ``approval`` still wait for it.

>>> from planviz import Plan, Step, simulate, Fault
>>> plan = Plan("ship", [Step("B", "build", expected_evidence="log", produces="built"),
...                      Step("D", "deploy", expected_evidence="log", depends_on="B", requires="built",
...                           produces="deployed", approval="change ticket CHG-7")])
>>> run = simulate(plan, approval_time=2)
>>> [(e.kind, e.step, e.time) for e in run.events if e.step == "D"]
[('approval', 'D', 3.0), ('start', 'D', 3.0), ('complete', 'D', 4.0)]
>>> simulate(plan, faults=[Fault("D", "approval_denied")]).outcome
'approval_denied'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from planviz.checks.sheet import confirmation_sheet
from planviz.checks.static import writes
from planviz.plan.model import Step

if TYPE_CHECKING:  # the controller that calls these (simulation.py imports this module)
    from planviz.runs.engine.simulation import _Simulation

__all__ = ["grant", "approval_due", "confirm_plan", "confirm_write", "confirmed_steps"]

_DENIED = frozenset({"approval_denied"})


def confirmed_steps(plan: Any, contract: Any) -> frozenset[str]:
    """The steps a plan confirmation covers: the writing steps when the contract asks ``confirm="plan"``."""
    if contract is None or contract.confirm != "plan":
        return frozenset()
    return frozenset(confirmation_sheet(plan, contract).steps)


def confirm_plan(sim: _Simulation) -> bool:
    """Ask one approval of the whole write plan before step 1: True when confirmed (or nothing writes); a
    denial stops the run (``approval_denied``) before any tool call."""
    m, sheet = sim.m, confirmation_sheet(sim.plan, sim.contract)
    if not sheet.rows:
        return True
    listed = ", ".join(sheet.steps)
    denied = next(
        (s for s in sheet.steps if sim.take_fault(sim.plan.step(s), _DENIED) is not None), None
    )
    m.time += sim.approval_time
    if denied is not None:
        m.approve(
            None,
            False,
            f"the write plan was not confirmed (writing steps: {listed}); the no came with "
            f"{denied!r}",
        )
        m.stop(
            "approval_denied",
            f"the write plan may not run: it was not confirmed (writing steps: {listed}); "
            "no tool was called",
        )
        return False
    m.approve(None, True, f"the write plan was confirmed as a whole: writing steps {listed}")
    return True


def confirm_write(sim: _Simulation, step: Step) -> bool:
    """The ``direct`` agent under ``confirm="plan"``: no plan to show, so it asks before each writing call; a
    no stops the run there (``approval_denied``), after the work before it."""
    if sim.contract is None or sim.contract.confirm != "plan" or not writes(step, sim.contract):
        return True
    sim.m.time += sim.approval_time
    if sim.take_fault(step, _DENIED) is not None:
        sim.m.approve(step.id, False, f"the write {step.id!r} was not confirmed")
        sim.m.stop(
            "approval_denied",
            f"{step.id!r} may not write: it was not confirmed; the work before it is kept",
            step.id,
        )
        return False
    sim.m.approve(step.id, True, f"the write {step.id!r} was confirmed")
    return True


def grant(sim: _Simulation, step: Step) -> bool:
    """The approval ``step`` waited for: granted (True), or denied (the run stops: ``approval_denied``)."""
    m, who = sim.m, step.approval
    if sim.take_fault(step, frozenset({"approval_denied"})) is not None:
        m.approve(step.id, False, f"{who!r} denied the approval of {step.id!r}")
        m.stop(
            "approval_denied",
            f"{step.id!r} may not run without the approval of {who!r}; the work before it is kept",
            step.id,
        )
        return False
    wait = f" after a wait of {sim.approval_time:g}" if sim.approval_time else ""
    m.approve(step.id, True, f"{who!r} approved {step.id!r}{wait}")
    sim.approved.add(step.id)
    return True


def approval_due(sim: _Simulation, sid: str, token: int) -> None:
    """The approval ``sid`` asked for arrives (``token`` names the request): grant or deny it, then start it.
    A request outdated by a revision, or for a step voided meanwhile, is dropped."""
    if sim.waiting.get(sid) != token:
        return
    del sim.waiting[sid]
    if sid in sim.m.ready() and grant(sim, sim.plan.step(sid)):
        sim.start(sim.plan.step(sid))
