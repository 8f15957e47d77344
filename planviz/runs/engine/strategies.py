"""The three ways a run can be driven, compared on the same faults by :func:`planviz.compare_strategies`.

Each strategy's rules, side by side (docs/strategies.md and notebook 07 show the same table):

==================================  =====================  ======================  ========================
rule                                direct (implicit)      workflow (fixed)        planner
==================================  =====================  ======================  ========================
has a plan it proposes (model call) no                     no (a script)           yes: one model call
plan validated before step 1        no                     no                      yes
which step runs next                the first listed step  every ready step, in    every ready step, in
                                    whose inputs it holds  dependency order        dependency order
                                    (serial)
calls a step whose inputs are       never                  never                   never
missing
transient errors retried            yes (max_retries)      yes (max_retries)       yes (max_retries)
produced facts (evidence) checked   no                     yes: missing evidence   yes: missing evidence
                                                           stops the run           stops the run
work a side effect or a withdrawn   redone when the tool   no: the run stops       voided by scope and
fact spoiled                        result shows it (up                            redone in a new plan
                                    to max_replans times)                          version (max_replans)
premises re-checked                 no                     no                      yes: stop on a false one
forbidden states                    no                     no                      yes: stop
after a failure it cannot recover   calls what does not    stops                   stops
                                    need the lost work,
                                    then stops
far steps expanded                  no: stops              no: stops               yes (a model call each)
model calls (metrics)               one per step call      none                    one per proposal,
                                                                                   replan, expansion
==================================  =====================  ======================  ========================

``direct`` is seed 003's implicit agent ("adapts to results: naturally"): it has no plan, no premises and no
validation. It learns from each tool's result what it holds, and calls, one at a time, the first listed step
whose inputs it has (the facts it requires, the results its dependencies and ``{{S.field}}`` placeholders
name), whatever order the file lists them in; it retries a transient error (up to ``max_retries``, when the
step is safe to repeat); when a result shows that earlier work was spoiled (a side effect, a precondition
fact gone) it redoes that work (:func:`planviz.failure_scope` says which: what the world spoiled), paying for
every call; when nothing it can call is left it stops. ``workflow`` is a fixed script run in dependency order
(seed 004: its failure behaviour is fixed in advance: retry transient errors, stop on anything else).
``planner`` is the whole design: validated first, scoped recovery, replanning, expansion, premises.
Whatever the strategy, the world keeps its rules (see :mod:`planviz.runs.engine.simulation`): approvals, exclusive
resources, refused tool calls, far steps that are no concrete work.

>>> from planviz import examples, simulate, Fault
>>> run = simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")], strategy="direct")
>>> run.outcome, [e.step for e in run.events if e.kind == "start"]
('plan_complete', ['S0', 'S1', 'S2', 'S3', 'S4', 'S3', 'S4'])
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Any

from planviz.analysis.scope import failure_scope
from planviz.checks.static import writes
from planviz.errors import StructureError
from planviz.plan.model import Contract, Plan, Step
from planviz.plan.placeholder import placeholders_in, split_reference
from planviz.runs.engine.approval import confirm_write, grant
from planviz.runs.engine.horizon import await_expansion
from planviz.runs.events import Observation

if TYPE_CHECKING:  # the controller that calls these (simulation.py imports this module)
    from planviz.runs.engine.simulation import _Simulation

__all__ = [
    "STRATEGIES",
    "MECHANISMS",
    "STRATEGY_MECHANISMS",
    "REPLAN_BOUND",
    "run_direct",
    "idempotent",
]

STRATEGIES = ("direct", "workflow", "planner")
#: The planner's mechanisms, each a switch of the simulator (:func:`planviz.ablation` removes them one at a time):
#: ``explicit_plan`` (the plan run in dependency order: a workflow), ``evidence_check`` (a step's declared facts
#: checked: missing evidence stops the run), ``validation_gate`` (the plan validated before step 1),
#: ``premises_stop`` (a stop on a falsified premise or a forbidden state), ``replanning`` (a failure answered
#: with a new plan version), ``scoped_recovery`` (a new version voids only the failure's scope; without it,
#: every started step), ``far_expansion`` (far steps expanded), ``replan_cap`` (revisions capped by
#: ``max_replans``; without it, only by :data:`REPLAN_BOUND`).
MECHANISMS = (
    "explicit_plan",
    "evidence_check",
    "validation_gate",
    "premises_stop",
    "replanning",
    "scoped_recovery",
    "far_expansion",
    "replan_cap",
)
STRATEGY_MECHANISMS = {
    "direct": frozenset(),
    "workflow": frozenset({"explicit_plan", "evidence_check"}),
    "planner": frozenset(MECHANISMS),
}
REPLAN_BOUND = (
    100  #: revisions allowed when the replan cap is switched off (so every run still ends)
)


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


def _attempt(sim: _Simulation, step: Step) -> Observation | None:
    """Call ``step``, retrying a transient error while allowed; its last observation (None: it ran unready)."""
    m = sim.m
    while True:
        m.start(step.id)
        m.time += step.duration
        unmet = [f"dependency {d!r} not done" for d in step.depends_on if d not in m.completed]
        unmet += [f"fact {f!r} not held" for f in step.requires if f not in m.sources]
        if unmet:
            m.fail(
                step.id,
                f"{step.id!r} ran with unmet preconditions: {'; '.join(unmet)}",
                "unmet_precondition",
            )
            return None
        obs: Observation = sim.observe(step)
        m.finish(step.id, obs, check_evidence=False)
        if (
            obs.ok
            or obs.kind != "transient"
            or not idempotent(step, sim.contract)
            or sim.retries[step.id] >= sim.limits.max_retries
        ):
            return obs
        sim.retries[step.id] += 1
        m.retry(
            step.id,
            f"transient failure at {step.id!r}: retry it (retry {sim.retries[step.id]} of "
            f"{sim.limits.max_retries})",
        )


def _inputs_missing(plan: Plan, step: Step, done: Any, held: Any) -> str | None:
    """What ``step`` needs and the agent does not hold: a dependency's result, a required fact, a placeholder."""
    for d in step.depends_on:
        if d not in done:
            return f"the result of {d!r}"
    for fact in step.requires:
        if fact not in held:
            return f"the fact {fact!r}"
    for _, p in placeholders_in(step.arguments):
        ref = split_reference(p.inner, plan.by_id)
        if ref is not None and ref[0] not in done:
            return f"{p.text!r}"
    return None


def run_direct(sim: _Simulation) -> None:
    """The ``direct`` strategy: serially, the first listed step whose inputs the agent holds; transient errors
    retried; spoiled work redone when a result shows it; a stop when nothing it can call is left."""
    m, plan = sim.m, sim.plan
    lost: dict[str, str] = {}  # step -> why the agent gave it up (it failed and cannot be redone)
    redos = 0  # capped by max_replans over the run, like the planner's revisions
    at = {st.id: i for i, st in enumerate(plan.steps)}
    after: dict[
        str, list[int]
    ] = {}  # a step's id or a fact -> the steps that wait for it (listed positions)
    for i, st in enumerate(plan.steps):
        for key in (
            *st.depends_on,
            *st.requires,
            *(
                r[0]
                for r in (
                    split_reference(p.inner, plan.by_id) for _, p in placeholders_in(st.arguments)
                )
                if r
            ),
        ):
            after.setdefault(key, []).append(i)
    # the listed positions that may be callable; a step whose inputs are missing leaves until one arrives
    candidates = list(range(len(plan.steps)))
    while True:
        step = None
        while candidates:
            s = plan.steps[heapq.heappop(candidates)]
            if s.id in m.completed or s.id in lost:
                continue
            if _inputs_missing(plan, s, m.completed, m.sources) is None:
                step = s
                break
        if step is None:
            break
        if step.horizon == "far":
            await_expansion(m, step.id)
            return
        if step.approval and step.id not in sim.approved:
            m.time += sim.approval_time
            if not grant(sim, step):
                return
        if not confirm_write(sim, step):
            return
        obs = _attempt(sim, step)
        if step.id in m.completed:  # what waited for its result or facts may be callable now
            for key in (step.id, *step.produces, *(obs.facts if obs is not None else ())):
                for i in after.get(key, ()):
                    heapq.heappush(candidates, i)
            continue
        if obs is None:
            continue
        if obs.kind == "goal_change":
            m.stop(
                "goal_changed",
                f"{step.id!r} reports that the goal changed; the agent has no plan to change "
                "and stops",
                step.id,
            )
            return
        if obs.kind in ("side_effect", "precondition") and redos < sim.limits.max_replans:
            fact = sorted(obs.withdrawn)[0] if obs.withdrawn else None
            try:
                scope = failure_scope(plan, step.id, obs.kind, fact=fact, state=m.state())
            # the listed steps are no DAG (the agent never validates): no scope to redo
            except StructureError:
                scope = None
            if scope is not None and scope.action != "blocked":
                redos += 1
                # the work to redo is callable again once its inputs are
                for sid in (
                    step.id,
                    *scope.voided,
                ):
                    if sid in at:
                        heapq.heappush(candidates, at[sid])
                m.invalidate(
                    step.id,
                    scope.voided,
                    scope.kept,
                    f"the result of {step.id!r} shows spoiled work; "
                    f"the agent redoes {', '.join(sorted(m.began(scope.voided))) or 'it'} "
                    f"(redo {redos} of {sim.limits.max_replans})",
                )
                continue
        lost[step.id] = obs.kind
    left = [s.id for s in plan.steps if s.id not in m.completed]
    if not left:
        m.stop("plan_complete", "every step ran")
        return
    why = [
        f"{s} ({lost[s]})"
        if s in lost
        else f"{s} (needs {_inputs_missing(plan, plan.step(s), m.completed, m.sources)})"
        for s in left
    ]
    m.stop("step_failed", f"steps not done: {', '.join(why)}")
