"""Notebook 06's checks: each accepts a right answer and catches wrong ones without giving the answer away."""

from __future__ import annotations

import pytest

import planviz
from planviz import Observation, Recorder
from planviz.teaching.lesson06 import (
    check_exercise_1,
    check_exercise_2,
    check_exercise_3,
    check_reachable,
)

PLAN = planviz.examples.load("cache_isolation")


LEGACY = {"file": "cache/legacy_keys.py", "function": "build_key", "callers": []}
CALLED = {"file": "cache/keys.py", "function": "make_key", "callers": ["cache/store.py:get"]}


def _record(failing: str | None, s1_report: dict = CALLED) -> planviz.Run:
    """The cache plan recorded in file order, S1 reporting ``s1_report``; ``failing``'s observation establishes
    nothing (its evidence is missing)."""
    rec = Recorder(PLAN.contract, clock=iter(range(100)).__next__)
    rec.propose(PLAN)
    for step in PLAN.steps:
        rec.start(step.id)
        facts = set() if step.id == failing else set(step.produces)
        data = s1_report if step.id == "S1" else {}
        if any(e.kind == "fail" for e in rec.observe(step.id, Observation(True, facts, data=data))):
            rec.stop("expected_evidence_missing", f"{step.id} did not show what it promised")
            return rec.run
    rec.stop("plan_complete")
    return rec.run


STRICT, NAIVE, COMPLETE = _record("S1", LEGACY), _record("S4", LEGACY), _record(None)
# completes, but S1 still names the legacy builder: locate is not fixed
UNFIXED = _record(None, LEGACY)
SIMULATED_FAIL = planviz.simulate(PLAN, faults=[planviz.Fault("S1", "missing_evidence")])
SIMULATED_DONE = planviz.simulate(PLAN)


@pytest.fixture(scope="module")
def cut(tmp_path_factory):
    path = tmp_path_factory.mktemp("trace") / "trace.jsonl"
    planviz.save_trace(NAIVE, path)
    cut = path.with_name("cut.jsonl")
    cut.write_text("".join(path.read_text().splitlines(keepends=True)[:8]))
    return planviz.load_trace(cut)


def fixed_point(plan, completed, facts):
    held, found, grew = set(facts), set(), True
    while grew:
        grew = False
        for s in plan.steps:
            if (
                s.id not in completed
                and s.id not in found
                and all(d in completed or d in found for d in s.depends_on)
                and all(f in held for f in s.requires)
            ):
                found.add(s.id)
                held.update(s.produces)
                grew = True
    return found


def from_everything(plan, completed, facts):
    """The greatest fixed point: start from every step and remove the blocked ones."""
    found = {s.id for s in plan.steps if s.id not in completed}
    while True:
        held = set(facts) | {f for sid in found for f in plan.step(sid).produces}
        keep = {
            sid
            for sid in found
            if all(d in completed or d in found for d in plan.step(sid).depends_on)
            and all(f in held for f in plan.step(sid).requires)
        }
        if keep == found:
            return found
        found = keep


def reruns_completed(plan, completed, facts):
    return fixed_point(
        plan, completed, set(facts) | {f for c in completed for f in plan.step(c).produces}
    )


def ignores_dependencies(plan, completed, facts):
    return fixed_point(
        plan.replace(
            steps=[
                s.__class__(s.id, s.action, requires=s.requires, produces=s.produces)
                for s in plan.steps
            ]
        ),
        completed,
        facts,
    )


def one_pass(plan, completed, facts):
    held, found = set(facts), set()
    for s in plan.steps:
        if (
            s.id not in completed
            and all(d in completed or d in found for d in s.depends_on)
            and all(f in held for f in s.requires)
        ):
            found.add(s.id)
            held.update(s.produces)
    return found


def test_reachable_right():
    assert check_reachable(fixed_point)


@pytest.mark.parametrize(
    "fn, hint",
    [
        (from_everything, "Start from what is certain"),
        (reruns_completed, "not run again"),
        (ignores_dependencies, "waits for its dependencies"),
        (one_pass, "keep going until nothing new"),
        (
            lambda plan, completed, facts: fixed_point(plan, completed, facts) | set(completed),
            "leave them out",
        ),
        (lambda plan, completed, facts: None, "reach a return"),
        (None, "then run this check again"),
    ],
)
def test_reachable_wrong(fn, hint):
    feedback = check_reachable(fn)
    assert not feedback and hint in feedback.message + feedback.hint


def test_exercise_1_right():
    assert check_exercise_1(STRICT, "S1", planviz.attribution(STRICT).party)


@pytest.mark.parametrize(
    "step, who", [(" S1", " Executor "), ("s1", "EXECUTOR"), ("S1 ", "executor")]
)
def test_exercise_1_reads_ids_and_words_in_any_form(step, who):
    assert check_exercise_1(STRICT, step, who)


@pytest.mark.parametrize(
    "run, step, who, says",
    [
        (NAIVE, "S4", "executor", "first step to fail is 'S4'"),
        (COMPLETE, "S1", "executor", "nothing failed"),
        (STRICT, "S4", "executor", "not where your run fails"),
        (STRICT, "S1", "planner", "does not say 'planner'"),
        (STRICT, None, None, "no answer yet"),
        (PLAN, "S1", "executor", "expected a planviz Run"),
        (None, None, None, "no answer yet"),
        # a simulated fault is not the stricter observer at work on a recording
        (SIMULATED_FAIL, "S1", "executor", "that run was simulated"),
        # S1 failed though its report shows callers: not the stricter rule
        (_record("S1", CALLED), "S1", "executor", "not the stricter rule at work"),
    ],
)
def test_exercise_1_wrong(run, step, who, says):
    feedback = check_exercise_1(run, step, who)
    assert not feedback and says in feedback.message and feedback.hint
    assert "executor" not in feedback.message + feedback.hint


def test_exercise_2_right(cut):
    assert len(cut.events) == 6 and check_exercise_2(cut, "b")


@pytest.mark.parametrize("choice", ["a", "c", None])
def test_exercise_2_wrong_choice(cut, choice):
    feedback = check_exercise_2(cut, choice)
    assert not feedback and "(b)" not in str(feedback)


def test_exercise_2_wants_the_cut_run():
    feedback = check_exercise_2(NAIVE, "b")
    assert not feedback and "whole trace" in feedback.message


def test_exercise_3_right():
    assert check_exercise_3(COMPLETE, "b")


@pytest.mark.parametrize(
    "run, choice, says",
    [
        (NAIVE, "b", "not plan_complete"),
        (COMPLETE, "a", "not (a)"),
        (COMPLETE, "c", "not (c)"),
        (None, "b", "no answer yet"),
        (SIMULATED_DONE, "b", "that run was simulated"),
        (UNFIXED, "b", "locate is not fixed"),
        ("plan_complete", "b", "expected a planviz Run"),
    ],
)
def test_exercise_3_wrong(run, choice, says):
    feedback = check_exercise_3(run, choice)
    assert not feedback and says in feedback.message and "(b)" not in str(feedback)


# A teacher's third pass (issue 24): a revision id that never ran is not where the run failed.
@pytest.mark.parametrize(
    "step, says",
    [
        ("S1.v2", "is not where your run fails"),
        (PLAN.step("S1"), "give its id: step.id"),
    ],
)
def test_exercise_1_the_failed_step_is_one_that_ran(step, says):
    feedback = check_exercise_1(STRICT, step, "executor")
    assert not feedback and says in feedback.message
