"""The three ways a run can be driven, compared on the same faults by :func:`planviz.compare`.

============================  ==============  ========  =======
check                         direct          workflow  planner
============================  ==============  ========  =======
plan validated first          no              no        yes
knows the dependency graph    no (serial)     yes       yes
only ready steps start        no              yes       yes
produced facts checked        no              yes       yes
transient failures retried    yes             yes       yes
premises re-checked           after each      no        yes
                              call
forbidden states              no              no        yes
scoped recovery, replanning   no              no        yes
far steps expanded            no              no        yes
model calls (metrics)         one per step    none      one per proposal, replan, expansion
============================  ==============  ========  =======

``direct`` is an adaptive implicit agent (seed 003: "adapts to results:
naturally"): it calls the tools of the steps in the order they are listed,
one at a time, retries a transient error (up to ``max_retries``, when the
step is safe to repeat), checks the plan's premises after each call and
stops (``premise_failed``) as soon as one is false, and discovers a
permission failure only when it reaches the tool. It does not know the
dependency graph, but it sees its inputs: after a failure it does not call a
step whose inputs (a required fact, a ``{{S.field}}`` placeholder) were to
come from the failed step, or from a step it skipped for that reason.
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

from ..checks.static import writes
from ..plan.model import Contract, Plan, Step
from ..plan.placeholder import placeholders_in, split_reference
from .approval import confirm_write, grant
from .events import Observation
from .horizon import await_expansion

__all__ = ["STRATEGIES", "MECHANISMS", "STRATEGY_MECHANISMS", "run_direct", "idempotent"]

STRATEGIES = ("direct", "workflow", "planner")
#: The planner's mechanisms, each a switch of the simulator (:func:`planviz.ablation` adds them one at a time):
#: the plan run in dependency order with its produced facts checked and transient failures retried; the plan
#: validated before step 1 (refused plans stop); scoped recovery, replanning and far-step expansion; a stop on a
#: falsified premise or a forbidden state.
MECHANISMS = ("explicit_plan", "validation_gate", "replanning", "premises_stop")
STRATEGY_MECHANISMS = {"direct": frozenset(), "workflow": frozenset({"explicit_plan"}),
                       "planner": frozenset(MECHANISMS)}


def idempotent(step: Step, contract: Contract | None = None) -> bool:
    """Whether a transient failure of ``step`` may simply be retried.

    A step that writes nothing is safe to retry. A step that writes (it holds
    ``resources``, declares a writing ``effect``, or its tool is registered as
    writing) is retried only when it has a ``rollback`` to undo a half-done
    attempt first.

    >>> idempotent(Step("S3", "patch", resources=["keys.py"])), idempotent(Step("S1", "locate"))
    (False, True)
    """
    return not writes(step, contract) or bool(step.rollback)


def _lost_input(plan: Plan, step: Step, lost: dict[str, str], held: Any) -> str | None:
    """Why ``step`` cannot get its inputs: a required fact or a placeholder that was to come from a lost step."""
    for fact in step.requires:
        if fact not in held:
            maker = next((s.id for s in plan.steps if fact in s.produces and s.id in lost), None)
            if maker is not None:
                return f"{fact!r} was to come from {maker!r} ({lost[maker]})"
    for _, p in placeholders_in(step.arguments):
        ref = split_reference(p.inner, plan.by_id)
        if ref is not None and ref[0] in lost:
            return f"{p.text!r} was to come from {ref[0]!r} ({lost[ref[0]]})"
    return None


def _attempt(sim: Any, step: Step) -> Observation | None:
    """Call ``step``, retrying a transient error while allowed; its last observation (None: it ran unready)."""
    m = sim.m
    while True:
        m.start(step.id)
        m.time += step.duration
        unmet = [f"dependency {d!r} not done" for d in step.depends_on if d not in m.completed]
        unmet += [f"fact {f!r} not held" for f in step.requires if f not in m.sources]
        if unmet:
            m.fail(step.id, f"{step.id!r} ran with unmet preconditions: {'; '.join(unmet)}", "unmet_precondition")
            return None
        obs = sim.observe(step)
        m.finish(step.id, obs, check_evidence=False)
        if (obs.ok or obs.kind != "transient" or not idempotent(step, sim.contract)
                or sim.retries[step.id] >= sim.limits.max_retries):
            return obs
        sim.retries[step.id] += 1
        m.retry(step.id, f"transient failure at {step.id!r}: retry it (retry {sim.retries[step.id]} of "
                         f"{sim.limits.max_retries})")


def run_direct(sim: Any) -> None:
    """The ``direct`` strategy: every step in listed order, serially; transient errors retried, premises
    checked after each call, steps whose inputs a failure took away not called."""
    m, plan = sim.m, sim.plan
    lost: dict[str, str] = {}  # step -> why its result will not come (failed, or skipped)
    skipped: list[str] = []
    for step in plan.steps:
        if step.horizon == "far":
            await_expansion(m, step.id)
            return
        why = _lost_input(plan, step, lost, m.sources) if lost else None
        if why is not None:
            lost[step.id] = "not called"
            skipped.append(f"{step.id!r} (its input {why})")
            continue
        if step.approval and step.id not in sim.approved:
            m.time += sim.approval_time
            if not grant(sim, step):
                return
        if not confirm_write(sim, step):
            return
        obs = _attempt(sim, step)
        if obs is None or step.id not in m.completed:
            lost[step.id] = "failed"
        if obs is None:
            continue
        if obs.withdrawn:
            m.void_unreachable(step.id)
        if sim.falsified(step.id, obs):
            return
    left = [s for s in plan.ids if s not in m.completed]
    note = f"; not called: {', '.join(skipped)}" if skipped else ""
    m.stop("step_failed" if left else "plan_complete",
           f"steps not done: {', '.join(left)}{note}" if left else "every step ran")
