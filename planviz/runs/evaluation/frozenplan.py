"""The frozen-plan executor test (seed 000, section 11) on a simulated route or on a recorded run.

Without a trace the route is simulated (:func:`planviz.runs.evaluation.frozen.frozen_simulation`). With ``trace``, a
recorded run of a real executor is aligned with the fixed plan by the one matching rule
(:mod:`planviz.runs.comparisons.matching`: step id, then call id, then tool and arguments): which planned
steps ran (an attempt finished: a step still running at the stop did not), whether each produced its
declared evidence (it completed, and every fact it declares is among the facts its observation recorded;
unknown when the trace records none), the calls outside the plan (``out_of_plan``, read from the trace), and
who the outcome is down to (seed 000's tree, :func:`planviz.attribution`; a run that completed its own
plan but skipped a planned step or called outside the route is the executor's).

>>> from planviz import examples, Recorder
>>> plan = examples.load("cache_isolation")
>>> rec = Recorder(clock=lambda: 0.0)
>>> _ = rec.propose(plan)
>>> for sid in ("S0", "S1", "S2"):
...     _ = rec.start(sid), rec.complete(sid, facts=plan.step(sid).produces)
>>> _ = rec.start("rm -rf cache"), rec.complete("rm -rf cache")
>>> _ = rec.stop("step_failed")
>>> result = frozen_plan_test(plan, trace=rec.run)
>>> [sid for sid, p in result.steps.items() if p.performed], result.out_of_plan, result.evidence_rate
(['S0', 'S1', 'S2'], ('rm -rf cache',), 1.0)
>>> result.attribution
'executor'

"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from planviz.checks.validation import refusal
from planviz.errors import SimulationError
from planviz.plan.arguments import expect_contract, expect_plan
from planviz.plan.model import Contract, Plan
from planviz.runs.comparisons.matching import match, steps_run, unmatched
from planviz.runs.evaluation.frozen import (
    FrozenResult,
    StepPerformance,
    frozen_result,
    frozen_simulation,
)
from planviz.runs.events import Run, expect_run
from planviz.runs.fault import Fault, expect_faults

__all__ = ["frozen_plan_test"]


def frozen_plan_test(
    plan: Plan,
    contract: Contract | None = None,
    faults: Iterable[Fault] = (),
    *,
    workers: int | None = None,
    trace: Run | None = None,
) -> FrozenResult:
    """Test an executor on an admissible ``plan`` with its route fixed: simulated, or a recorded ``trace``.

    Parameters
    ----------
    plan : Plan
        The plan; it must pass :func:`planviz.prepare` under ``contract``.
    contract : Contract, optional
        Defaults to ``plan.contract``. In a simulation its ``max_replans`` is set to 0: a failure that would
        need a new route ends the run.
    faults : iterable of Fault
        What goes wrong, as in :func:`planviz.simulate` (not with ``trace``: the trace is what happened).
    workers : int, optional
        At most this many steps at once (simulation only).
    trace : Run, optional
        A recorded run of a real executor (:func:`planviz.load_trace`) to align with the plan.

    Returns
    -------
    FrozenResult
        ``steps`` (plan id -> performed, evidence, attempts, in plan order), ``evidence_rate`` (steps that
        produced their declared evidence / steps performed whose evidence is known; None when none),
        ``out_of_plan`` (steps run that the plan does not have), ``attribution`` and its ``reason``, the
        ``outcome`` and the ``run``.

    Raises
    ------
    SimulationError
        When the plan is not admissible (the finding that refuses it is named), or faults come with a trace.
    PlanvizTypeError
        For arguments of the wrong type.

    Examples
    --------
    >>> from planviz import examples, Fault
    >>> result = frozen_plan_test(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")])
    >>> result.outcome, result.steps["S4"], result.evidence_rate, result.attribution
    ('replan_limit', StepPerformance(performed=True, evidence=False, attempts=1), 0.8, 'executor')
    """
    plan = expect_plan(plan, "frozen_plan_test")
    contract = expect_contract(contract, "frozen_plan_test")
    faults = expect_faults(faults, "frozen_plan_test")
    if trace is None:
        return frozen_simulation(plan, contract, faults, workers)
    run = expect_run(trace, "frozen_plan_test", "trace")
    if faults:
        raise SimulationError(
            "frozen_plan_test: faults are for a simulated route; a trace already holds what "
            "happened (pass one or the other)"
        )
    contract = contract if contract is not None else plan.contract
    why = refusal(plan, contract)
    if why is not None:
        raise SimulationError(
            f"frozen_plan_test runs an admissible plan, and this one is refused: {why.code} "
            f"({', '.join(why.steps) or 'the plan'}): {why.message}"
        )
    ran = steps_run(run)
    pairs = match(plan.steps, ran)
    attempts: dict[str, int] = {}
    finished: set[str] = set()
    facts: dict[str, set[str] | None] = {}
    for e in run.events:
        if e.step is None:
            continue
        if e.kind == "start":
            attempts[e.step] = attempts.get(e.step, 0) + 1
        elif e.kind in ("complete", "fail"):
            finished.add(e.step)
            if e.kind == "complete":
                seen = set(e.observation.facts) if e.observation is not None else set()
                facts[e.step] = (facts.get(e.step) or set()) | seen
    steps = {}
    for step in plan.steps:
        rid = pairs[step.id][0] if step.id in pairs else None
        performed = rid is not None and rid in finished
        evidence: bool | None = False
        if performed and rid in facts:
            got = facts[rid] or set()
            evidence = set(step.produces) <= got if got or not step.produces else None
        steps[step.id] = StepPerformance(
            performed,
            evidence if performed else False,
            attempts.get(rid, 0) if rid is not None else 0,
        )
    extra = tuple(r.id for r in unmatched(ran, pairs))
    result = frozen_result(run, contract, steps, extra)
    skipped = [sid for sid, p in steps.items() if not p.performed]
    # the trace's own plan completed; the fixed one did not
    if result.attribution is None and (extra or skipped):
        what = "; ".join(
            filter(
                None,
                [
                    f"planned steps not performed: {', '.join(skipped)}" if skipped else "",
                    f"calls outside the plan: {', '.join(extra)}" if extra else "",
                ],
            )
        )
        result = replace(
            result, attribution="executor", reason=f"the executor left the fixed route ({what})"
        )
    return result
