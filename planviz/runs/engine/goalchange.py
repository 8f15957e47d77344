"""A changed goal is global: every step is void until re-checked against the new goal and contract.

The one failure class whose scope is the whole plan
(:func:`planviz.failure_scope` with ``goal_change``). With a new goal or
contract, the controller voids every pending step, re-checks each completed
step (:func:`recheck_verdict`: kept when the new contract still wants and
allows what it established) and asks the planner for a new version for the
new goal; with neither, the run stops (``goal_changed``): nothing continues
under the old goal. A new contract that names its milestones plans for them:
voided work it does not need (:func:`needed_steps`) is dropped, not
re-issued, so the run completes when the kept work satisfies it. :func:`change_goal` is the controller's step
(:mod:`planviz.runs.engine.simulation` calls it).

>>> from planviz import Contract, Step
>>> step = Step("S2", "write the isolation test", produces=["isolation_test_written"], kind="diagnose")
>>> recheck_verdict(step, Contract(obtainable_facts=["isolation_test_written"]))
(True, "kept: the new contract still wants what it established ('isolation_test_written')")
>>> recheck_verdict(step, Contract(obtainable_facts=["tenants_migrated"]))
(False, "voided: the new contract wants none of what it established ('isolation_test_written')")
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from planviz.analysis.scope import failure_scope
from planviz.plan.model import Contract, Plan, Step
from planviz.runs.fault import Fault
from planviz.structure.index import structure_index

if TYPE_CHECKING:  # the controller that calls these (simulation.py imports this module)
    from planviz.runs.engine.simulation import _Simulation

__all__ = ["recheck_verdict", "change_goal", "needed_steps"]


def recheck_verdict(step: Step, contract: Contract | None) -> tuple[bool, str]:
    """Whether completed ``step`` survives a goal change under ``contract``, and why (one line).

    Allowed: the contract does not forbid the step (by id or kind) nor a
    state it established. Wanted: the contract lists no facts at all, or it
    requires the step (by id or kind), or one of its facts is given or
    obtainable. Kept when both hold; voided otherwise.
    """
    facts = ", ".join(map(repr, step.produces)) or "no fact"
    if contract is None:
        return True, f"kept: there is no contract to re-check it against ({facts} stay)"
    named = {step.id, step.kind} - {None}
    if named & set(contract.forbidden):
        return False, "voided: the new contract forbids this step"
    bad = [f for f in step.produces if f in contract.forbidden_states]
    if bad:
        return False, f"voided: it established {bad[0]!r}, a state the new contract forbids"
    wanted = set(contract.given_facts).union(contract.obtainable_facts)
    if not wanted or named & set(contract.required) or wanted.intersection(step.produces):
        return True, f"kept: the new contract still wants what it established ({facts})"
    return False, f"voided: the new contract wants none of what it established ({facts})"


def change_goal(sim: _Simulation, sid: str, fault: Fault) -> None:
    """The goal changed at ``sid``: void every pending step, re-check each completed one (event ``recheck``)
    against the new contract, and replan for the new goal; with no new goal or contract, stop."""
    m, plan = sim.m, sim.plan
    scope = failure_scope(plan, sid, "goal_change", state=m.state())
    if fault.goal is None and fault.contract is None:
        m.invalidate(sid, scope.voided, (), scope.message)
        m.stop(
            "goal_changed",
            f"the goal changed at {sid!r} and no new goal was given: nothing continues under "
            f"the old goal ({plan.goal!r})",
            sid,
        )
        return
    contract = fault.contract if fault.contract is not None else sim.contract
    ix = structure_index(plan)
    # dependencies first: voiding stays closed downstream
    done = [s for s in ix.order if s in m.completed]
    voided = set(scope.voided) - set(done)
    m.invalidate(sid, voided, (), f"{scope.message}; {len(done)} completed step(s) to re-check")
    for s in done:
        lost = [d for d in ix.parents[s] if d in voided]
        keep, why = (
            (False, f"voided: it builds on {lost[0]!r}, voided")
            if lost
            else recheck_verdict(plan.step(s), contract)
        )
        m.recheck(s, keep, f"{s!r} re-checked against the new goal: {why}")
        if not keep:
            voided.add(s)
    sim.contract, sim.limits = contract, contract if contract is not None else Contract()
    needed = needed_steps(plan, contract) if fault.contract is not None else None
    sim.revise(
        sid,
        voided,
        f"goal change at {sid!r}: {fault.goal or plan.goal!r}",
        goal=fault.goal,
        given=contract.given_facts if contract is not None else (),
        goal_change=True,
        drop=() if needed is None else voided - needed,
    )


def needed_steps(plan: Plan, contract: Contract | None) -> set[str] | None:
    """The steps of ``plan`` a contract needs: those its required milestones and final step name (by id or
    kind) and their dependency ancestors; None when it names none (then every step may serve the goal).

    >>> from planviz import examples
    >>> sorted(needed_steps(examples.load("cache_isolation"), Contract(required=["diagnose"])))
    ['S0', 'S1', 'S2']
    """
    if contract is None:
        return None
    names = set(contract.required) | ({contract.final} if contract.final else set())
    if not names:
        return None
    ix = structure_index(plan)
    todo = [sid for sid, s in ix.steps.items() if sid in names or s.kind in names]
    seen = set(todo)
    while todo:
        for d in ix.parents[todo.pop()]:
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return seen
