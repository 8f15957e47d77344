"""The three ways a run can be driven, compared on the same faults by :func:`planviz.compare`.

============================  ==============  ========  =======
check                         direct          workflow  planner
============================  ==============  ========  =======
plan validated first          no              no        yes
knows the dependency graph    no (serial)     yes       yes
only ready steps start        no              yes       yes
produced facts checked        no              yes       yes
transient failures retried    no              yes       yes
premises re-checked           after each      no        yes
                              call
forbidden states              no              no        yes
scoped recovery, replanning   no              no        yes
far steps expanded            no              no        yes
model calls (metrics)         one per step    none      one per proposal, replan, expansion
============================  ==============  ========  =======

``direct`` is an adaptive implicit agent: it calls the tools of the steps in
the order they are listed, one at a time (it does not know the dependency
graph, so a step whose dependencies failed still runs and fails), checks the
plan's premises after each call and stops (``premise_failed``) as soon as one
is false, and discovers a permission failure only when it reaches the tool.
``workflow`` is a fixed script run in dependency order. ``planner`` is the
whole design: validated first, scoped recovery, replanning, expansion.
Whatever the strategy, the world keeps its rules (see
:mod:`planviz.runs.simulation`): approvals, exclusive resources, refused
tool calls, far steps that are no concrete work.

>>> from planviz import examples, simulate, Fault
>>> run = simulate(examples.load("past_due_account"), faults=[Fault("step_1", "premise_false")], strategy="direct")
>>> run.outcome, [e.step for e in run.events if e.kind == "start"]
('premise_failed', ['step_1'])
"""

from __future__ import annotations

from typing import Any

from .approval import grant
from .horizon import await_expansion

__all__ = ["STRATEGIES", "MECHANISMS", "STRATEGY_MECHANISMS", "run_direct"]

STRATEGIES = ("direct", "workflow", "planner")
#: The planner's mechanisms, each a switch of the simulator (:func:`planviz.ablation` adds them one at a time):
#: the plan run in dependency order with its produced facts checked and transient failures retried; the plan
#: validated before step 1 (refused plans stop); scoped recovery, replanning and far-step expansion; a stop on a
#: falsified premise or a forbidden state.
MECHANISMS = ("explicit_plan", "validation_gate", "replanning", "premises_stop")
STRATEGY_MECHANISMS = {"direct": frozenset(), "workflow": frozenset({"explicit_plan"}),
                       "planner": frozenset(MECHANISMS)}


def run_direct(sim: Any) -> None:
    """The ``direct`` strategy: every step in listed order, serially, no checks but the premises."""
    m, plan = sim.m, sim.plan
    for step in plan.steps:
        if step.horizon == "far":
            await_expansion(m, step.id)
            return
        if step.approval and step.id not in sim.approved:
            m.time += sim.approval_time
            if not grant(sim, step):
                return
        m.start(step.id)
        m.time += step.duration
        unmet = [f"dependency {d!r} not done" for d in step.depends_on if d not in m.completed]
        unmet += [f"fact {f!r} not held" for f in step.requires if f not in m.sources]
        if unmet:
            m.fail(step.id, f"{step.id!r} ran with unmet preconditions: {'; '.join(unmet)}", "unmet_precondition")
            continue
        obs = sim.observe(step)
        m.finish(step.id, obs, check_evidence=False)
        if obs.withdrawn:
            m.void_unreachable(step.id)
        if sim.falsified(step.id, obs):
            return
    left = [s for s in plan.ids if s not in m.completed]
    m.stop("step_failed" if left else "plan_complete",
           f"steps not done: {', '.join(left)}" if left else "every step ran")
