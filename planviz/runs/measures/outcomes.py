"""What a run's outcome means for the user's goal, as the seeds define it (seed 000, seed 003).

Four classes, one per run:

``goal_success``
    The run completed its plan, every premise still held and every step that completed produced the evidence
    it declared: the contract's goal and evidence hold.
``correct_stop``
    The run stopped or refused because going on would have been wrong: an infeasible contract refused
    (``infeasible_fact``), a false premise found (``premise_failed``), a forbidden state reached
    (``forbidden_state``). Infeasibility is a result, not a failure (seed 000).
``silent_failure``
    The run completed (``plan_complete``), but a premise was falsified on the way or a step completed without
    the evidence it declared: the plan was followed past what made it right (seed 003's failure to avoid).
``failure``
    Everything else: the run stopped without reaching the goal and without a reason that makes stopping right.

>>> from planviz import examples, simulate, Fault
>>> plan = examples.load("past_due_account")
>>> outcome_class(simulate(plan)), outcome_class(simulate(plan, faults=[Fault("step_1", "premise_false")]))
('goal_success', 'correct_stop')
>>> outcome_class(simulate(plan, faults=[Fault("step_1", "premise_false")], strategy="workflow"))
'silent_failure'
"""

from __future__ import annotations

from typing import Mapping

from planviz.checks.validation import refusal
from planviz.plan.model import Step
from planviz.runs.events import Run, expect_run, negation

__all__ = [
    "OUTCOME_CLASSES",
    "CORRECT_STOPS",
    "outcome_class",
    "false_premises",
    "missing_evidence",
]

OUTCOME_CLASSES = ("goal_success", "correct_stop", "silent_failure", "failure")
#: Stops that are results, not failures (with ``refused`` when the contract is infeasible).
CORRECT_STOPS = ("premise_failed", "forbidden_state")


def false_premises(run: Run) -> list[str]:
    """The premises of the run's first plan that an observation withdrew or contradicted, in plan order.

    >>> from planviz import examples, simulate, Fault
    >>> false_premises(simulate(examples.load("past_due_account"), faults=[Fault("step_1", "premise_false")]))
    ['account C-17 is past due']
    """
    run = expect_run(run, "false_premises")
    premises = list(run.plans[0].premises) if run.plans else []
    if not premises:
        return []
    hit: set[str] = set()
    for _, obs in run.state.observations:
        hit |= obs.withdrawn.intersection(premises)
        hit |= {p for p in premises if negation(p) in obs.facts}
    return [p for p in premises if p in hit]


def missing_evidence(run: Run) -> list[str]:
    """The steps that completed although their observation lacked a fact they declare they produce (a check
    skipped), in the order they completed.

    >>> from planviz import examples, simulate, Fault
    >>> plan = examples.load("cache_isolation")
    >>> missing_evidence(simulate(plan, faults=[Fault("S1", "missing_evidence")], strategy="direct"))
    ['S1']
    """
    run = expect_run(run, "missing_evidence")
    out: list[str] = []
    listed: set[str] = set()
    # each plan version's steps (run.plan_at is the version's plan), read once per version
    steps_of: dict[int, Mapping[str, Step]] = {}
    for i, e in enumerate(run.events):
        if e.kind != "complete" or e.step is None or e.observation is None:
            continue
        by_id = steps_of.get(e.plan_version)
        if by_id is None:
            at = run.plan_at(i)
            by_id = steps_of[e.plan_version] = at.by_id if at is not None else {}
        step = by_id.get(e.step)
        if (
            step is not None
            and e.step not in listed
            and not e.observation.facts.issuperset(step.produces)
        ):
            listed.add(e.step)
            out.append(e.step)
    return out


def outcome_class(run: Run) -> str:
    """``goal_success``, ``correct_stop``, ``silent_failure`` or ``failure`` (see the module).

    Parameters
    ----------
    run : Run
        A simulated or recorded run.

    Returns
    -------
    str
        One of :data:`OUTCOME_CLASSES`.

    Raises
    ------
    PlanvizTypeError
        When ``run`` is not a Run.

    Examples
    --------
    >>> from planviz import examples, simulate
    >>> outcome_class(simulate(examples.load("release_no_credentials")))  # an infeasible contract, refused
    'correct_stop'
    """
    run = expect_run(run, "outcome_class")
    if run.outcome == "plan_complete":
        return "silent_failure" if false_premises(run) or missing_evidence(run) else "goal_success"
    if run.outcome in CORRECT_STOPS:
        return "correct_stop"
    if run.outcome == "refused":
        stop = run.events[-1] if run.events and run.events[-1].kind == "stop" else None
        first = refusal(run.plans[0], run.contract) if run.plans else None
        if (stop is not None and stop.category == "infeasible_fact") or (
            first is not None and first.code == "infeasible_fact"
        ):
            return "correct_stop"
    return "failure"
