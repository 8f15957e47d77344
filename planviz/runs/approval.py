"""Approvals: a step with an ``approval`` waits for it before it starts, and a denial stops the run.

An approval is a record in an external system, never plan text: the run
asks for it when the step is about to start, waits ``approval_time`` (default
0) and records an ``approval`` event, granted or denied, before ``start``.
While it waits, the step holds its worker and its resources. A fault
``approval_denied`` at the step makes the approver say no: the run stops with
outcome ``approval_denied`` and the work done before it is kept. These are
the controller's steps; :mod:`planviz.runs.simulation` calls them with itself.

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

from typing import Any

from ..plan.model import Step

__all__ = ["grant", "approval_due"]


def grant(sim: Any, step: Step) -> bool:
    """The approval ``step`` waited for: granted (True), or denied (the run stops: ``approval_denied``)."""
    m, who = sim.m, step.approval
    if sim.take_fault(step, frozenset({"approval_denied"})) is not None:
        m.approve(step.id, False, f"{who!r} denied the approval of {step.id!r}")
        m.stop("approval_denied", f"{step.id!r} may not run without the approval of {who!r}; the work before "
               "it is kept", step.id)
        return False
    wait = f" after a wait of {sim.approval_time:g}" if sim.approval_time else ""
    m.approve(step.id, True, f"{who!r} approved {step.id!r}{wait}")
    sim.approved.add(step.id)
    return True


def approval_due(sim: Any, sid: str, token: int) -> None:
    """The approval ``sid`` asked for arrives (``token`` names the request): grant or deny it, then start it.
    A request outdated by a revision, or for a step voided meanwhile, is dropped."""
    if sim.waiting.get(sid) != token:
        return
    del sim.waiting[sid]
    if sid in sim.m.ready() and grant(sim, sim.plan.step(sid)):
        sim.start(sim.plan.step(sid))
