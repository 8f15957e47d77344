"""Notebook 05's build-it: what a revision may not change (the goal and the contract, unless the goal changed),
against the controller's verdict on every revision of the check's table. Right answers in other forms pass;
wrong answers, cheats and wrong types get a "not yet" with a hint, never a crash."""

from __future__ import annotations

from dataclasses import asdict, fields

import pytest

import planviz
from planviz import Contract
from planviz.teaching.lesson05 import check_invariants

PLAN = planviz.examples.load("cache_isolation")


def _right(old, new, goal_changed):
    if goal_changed:
        return None
    if new.goal != old.goal:
        return f"the goal became {new.goal!r}"
    if new.contract is not None and new.contract != old.contract:
        return "a different contract"
    return None


def _booleans(old, new, goal_changed):
    """The same rule as one boolean expression."""
    return not goal_changed and (
        new.goal != old.goal or (new.contract is not None and new.contract != old.contract)
    )


def _field_by_field(old, new, goal_changed):
    """Every field compared by name, the reasons collected in a list (empty: adopt)."""
    if goal_changed or (new.contract is None and new.goal == old.goal):
        return []
    reasons = ["goal"] if new.goal != old.goal else []
    if new.contract is not None:
        if old.contract is None:
            return reasons + ["a contract where the run had none"]
        reasons += [
            f.name
            for f in fields(Contract)
            if getattr(new.contract, f.name) != getattr(old.contract, f.name)
        ]
    return reasons


def _as_dicts(old, new, goal_changed):
    """Contracts compared as plain dicts; 1 and 0 for refuse and adopt."""
    if goal_changed:
        return 0
    kept = new.contract is None or (
        old.contract is not None and asdict(new.contract) == asdict(old.contract)
    )
    return int(new.goal != old.goal or not kept)


def _the_runs_contract_when_none(old, new, goal_changed):
    """`new.contract or old.contract`: no contract carried means the old one; a reason or ''."""
    if goal_changed:
        return ""
    return "changed" if (new.goal, new.contract or old.contract) != (old.goal, old.contract) else ""


@pytest.mark.parametrize(
    "refuse", [_right, _booleans, _field_by_field, _as_dicts, _the_runs_contract_when_none]
)
def test_right_answers_in_any_form_pass(refuse):
    feedback = check_invariants(refuse)
    assert feedback, str(feedback)
    assert "agrees with the controller on all 23 revisions" in feedback.message


def _goal_only(old, new, goal_changed):
    return not goal_changed and new.goal != old.goal


def _identity(old, new, goal_changed):
    return not goal_changed and (new.goal != old.goal or new.contract is not old.contract)


def _none_is_a_change(old, new, goal_changed):
    return not goal_changed and (new.goal != old.goal or new.contract != old.contract)


def _ignores_the_goal_change(old, new, goal_changed):
    return new.goal != old.goal or (new.contract is not None and new.contract != old.contract)


def _steps_too(old, new, goal_changed):
    return not goal_changed and (new.goal != old.goal or new.steps != old.steps)


def _safety_fields_only(old, new, goal_changed):
    if goal_changed or new.goal != old.goal:
        return not goal_changed
    if new.contract is None or old.contract is None:
        return False
    return any(
        getattr(new.contract, n) != getattr(old.contract, n)
        for n in ("forbidden", "forbidden_states", "intent")
    )


def _run_had_none_is_fine(old, new, goal_changed):
    """Right, except that where the run had no contract any contract brought is let in."""
    if goal_changed or old.contract is None:
        return None
    return _right(old, new, goal_changed)


def _library(old, new, goal_changed):
    from planviz.runs.engine.revision import changed_invariants

    return None if goal_changed else changed_invariants(old, new, old.contract)


def _simulates(old, new, goal_changed):
    run = planviz.simulate(
        old, old.contract, faults=[planviz.Fault("S4", "side_effect")], propose=lambda *args: new
    )
    return run.outcome == "refused"


def _raises(old, new, goal_changed):
    return new.contract.intent != old.contract.intent


@pytest.mark.parametrize(
    "refuse, says, hint",
    [
        (
            lambda old, new, goal_changed: None,
            "question 5 of 23: a revision that sets the goal",
            "the goal itself",
        ),
        (
            lambda old, new, goal_changed: None,
            "it returned None to every revision so far",
            "the goal itself",
        ),
        (_goal_only, "your function adopts it.", "every field of the contract"),
        (
            lambda old, new, goal_changed: True,
            "question 1 of 23",
            "a revision exists to change steps",
        ),
        (_goal_only, "drops the milestone 'verify'", "every field of the contract"),
        (
            _identity,
            "carries an equal copy of the contract. The controller adopts it; your function refuses it",
            "not by which object they are",
        ),
        (
            _none_is_a_change,
            "a plan that carries no contract. The controller adopts it",
            "keeps the run's",
        ),
        (
            _ignores_the_goal_change,
            "after a goal change. The controller adopts it",
            "that is what a goal change is",
        ),
        (_steps_too, "question 1 of 23", "only the goal and the contract are fixed"),
        (_safety_fields_only, "drops the milestone 'verify'", "not only the safety ones"),
        (
            _run_had_none_is_fine,
            "in a run with no contract, brings a contract of its own",
            "changes what the run is held to",
        ),
        # cheats: the controller's own guard, or a simulation that asks the controller
        (
            _library,
            "calls planviz.runs.engine.revision.changed_invariants",
            "compare what the two versions say yourself",
        ),
        (_simulates, "calls planviz.simulate", "compare what the two versions say yourself"),
        # wrong types and crashes: a "not yet" with what it got
        (lambda old, new, goal_changed: new, "returned Plan", "a reason or True to refuse it"),
        (
            lambda old, new, goal_changed: {"refuse": True},
            "returned dict",
            "None or False to adopt it",
        ),
        (lambda old, new, goal_changed: 2, "returned int 2", "a reason or True"),
        (_raises, "raised AttributeError", "refuse(old, new, goal_changed)"),
        ("refuse", "expected a function, got str", "pass the function itself"),
        (..., "no answer yet", "refuse(old, new, goal_changed)"),
    ],
)
def test_wrong_answers_and_cheats_are_not_yet_with_a_hint(refuse, says, hint):
    feedback = check_invariants(refuse)
    assert not feedback
    assert says in feedback.message, feedback.message
    assert hint in feedback.hint, feedback.hint


def test_the_verdict_is_the_same_every_time():
    first = check_invariants(_safety_fields_only)
    assert [check_invariants(_safety_fields_only) for _ in range(3)] == [first] * 3


def test_the_check_follows_the_controller():
    """Each revision the check calls refused is refused by a simulated run with that revision, and the others
    are adopted (the check's table against the controller itself, not against a copy of its rule)."""
    from planviz.teaching.lesson05 import _revisions

    for q in _revisions():
        if q.goal_changed or q.old.contract is None:
            continue
        run = planviz.simulate(
            q.old,
            q.old.contract,
            faults=[planviz.Fault("S4", "side_effect")],
            propose=lambda goal, contract, state, old, new=q.new: new,
        )
        refused = run.outcome == "refused" and run.events[-1].category == "goal_changed_by_replan"
        assert refused == (_right(q.old, q.new, False) is not None), q.what
