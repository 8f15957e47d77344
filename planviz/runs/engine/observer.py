"""The observer: what an injected fault makes a step's observation say.

What each fault kind makes the step's observation say, and what the planner
does about it (workflow retries transient failures and otherwise stops with
``step_failed``; direct records the failure and runs the next step):

=================  ===========================================  ==============================================
fault              observation                                  planner
=================  ===========================================  ==============================================
transient          failed, kind ``transient``                   retry up to ``max_retries`` if idempotent
tool_error         failed, kind ``tool_error``                  ``step_failed`` (the executor's error)
withdraw           failed, the precondition fact withdrawn      return to its producer, replan (given: blocked)
side_effect        failed, kind ``side_effect``                 void the patch subgraph, replan
missing_evidence   ok, without the produced fact(s)             ``expected_evidence_missing``
goal_change        failed, kind ``goal_change``                 global (:mod:`planviz.runs.engine.goalchange`): void
                                                                every step, re-check completed ones, replan
                                                                for the new goal; none given: ``goal_changed``
premise_false      ok, the premise withdrawn                    ``premise_failed``
extra_fact         ok, plus the fact                            ``not X`` against a held ``X``: conflict, then
                                                                return to X's producer; a forbidden state:
                                                                ``forbidden_state``
approval_denied    (at the approval, before the start)          ``approval_denied``, the work before it kept
=================  ===========================================  ==============================================

A tool call the contract refuses (``unknown_tool``, ``not_permitted``,
``outside_intent``) fails the step before any fault applies: under every
strategy, since the world enforces permissions (the planner never gets
there: :func:`planviz.prepare` refuses such a plan before step 1).

>>> from planviz import Step, Fault
>>> s1 = Step("S1", "locate", requires=["leak"], produces=["located"])
>>> observation(s1, None, None)
Observation(ok=True, facts=frozenset({'located'}), withdrawn=frozenset(), kind='ok', data={}, replaced=frozenset())
>>> observation(s1, Fault("S1", "withdraw"), "leak").withdrawn
frozenset({'leak'})
>>> observation(s1, Fault("S1", "tool_error"), None).data["message"]
"step 'S1' (it calls no tool) errored"
"""

from __future__ import annotations

from planviz.plan.model import Step
from planviz.runs.events import Observation, clean_observation
from planviz.runs.fault import Fault

__all__ = ["observation"]


def observation(step: Step, fault: Fault | None, fact: str | None) -> Observation:
    """The observation of one attempt of ``step`` under ``fault`` (None: a clean success); ``fact`` is the
    fact the fault concerns (:func:`planviz.runs.fault.fault_facts` fills in its default)."""
    produced = frozenset(step.produces)
    if fault is None:
        return clean_observation(produced)
    data = {"fault": str(fault)}
    kind = fault.kind
    if kind == "transient":
        return Observation(False, kind="transient", data={**data, "message": "timed out; may pass on retry"})
    if kind == "tool_error":
        what = f"tool {step.tool!r}" if step.tool is not None else f"step {step.id!r} (it calls no tool)"
        return Observation(False, kind="tool_error", data={**data, "message": f"{what} errored"})
    if kind == "withdraw":
        return Observation(False, withdrawn=frozenset({str(fact)}), kind="precondition",
                           data={**data, "message": f"precondition {fact!r} does not hold"})
    if kind == "side_effect":
        return Observation(False, kind="side_effect",
                           data={**data, "message": "its check shows an earlier change broke something"})
    if kind == "goal_change":
        new = f": the new goal is {fault.goal!r}" if fault.goal else ": the contract changed" if fault.contract else ""
        return Observation(False, kind="goal_change", data={**data, "message": f"the goal changed{new}"})
    if kind == "missing_evidence":
        return Observation(True, produced - {fact} if fact else frozenset(), data=data)
    if kind == "premise_false":
        return Observation(True, produced, withdrawn=frozenset({str(fact)}), kind="premise_false", data=data)
    if kind == "extra_fact":
        return Observation(True, produced | {str(fact)}, data=data)
    raise AssertionError(f"{kind!r} is not observed at the end of a step")  # approval_denied acts before the start
