"""The observer: what an injected fault makes a step's observation say.

What each fault kind makes the step's observation say (its row of
:data:`planviz.runs.fault.FAULTS`, ``says``), and what the planner
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
from planviz.runs.fault import FAULTS, Fault

__all__ = ["observation"]


def observation(step: Step, fault: Fault | None, fact: str | None) -> Observation:
    """The observation of one attempt of ``step`` under ``fault`` (None: a clean success); ``fact`` is the
    fact the fault concerns (:func:`planviz.runs.fault.fault_facts` fills in its default). What it says is the
    fault kind's row (``FAULTS[kind].says``); its kind is the row's ``observed``."""
    if fault is None:
        return clean_observation(frozenset(step.produces))
    row = FAULTS[fault.kind]
    if row.says is None or row.observed is None:  # approval_denied acts before the start
        raise AssertionError(f"{fault.kind!r} is not observed at the end of a step")
    said = row.says(step, fault, fact)
    data = (
        {"fault": str(fault)}
        if said.message is None
        else {"fault": str(fault), "message": said.message}
    )
    return Observation(said.ok, said.facts, withdrawn=said.withdrawn, kind=row.observed, data=data)
