"""Notebook 03's checks: each accepts a right answer and catches wrong ones without giving the answer away."""

from __future__ import annotations

import networkx as nx
import pytest

import planviz
from planviz import Step
from planviz.teaching.lesson03 import (
    check_exercise_1,
    check_exercise_2,
    check_exercise_3,
    check_ready_waves,
)

PLAN = planviz.examples.load("cache_isolation")
SAVED = {"S0": 5, "S1": 5, "S2": 0, "S3": 6, "S4": 6}


def _wider(**changes):
    fields = {"depends_on": "S0", "duration": 4, **changes}
    return PLAN.replace(steps=PLAN.steps + (Step("S5", "Read the cache docs", **fields),))


@pytest.mark.parametrize(
    "path, makespan",
    [
        (["S0", "S2", "S3", "S4"], 30),
        (("S0", "S2", "S3", "S4"), 30.0),
        ("S0 -> S2 -> S3 -> S4", "30"),
        (["S0", "S2", "S3", "S4"], "30 min"),
        (["S0", "S2", "S3", "S4"], "30 minutes"),  # the plan's unit named
    ],
)
def test_exercise_1_right(path, makespan):
    assert check_exercise_1(path=path, makespan=makespan)


@pytest.mark.parametrize(
    "path, makespan, says",
    [
        (["S0", "S1", "S3", "S4"], 29, "it was critical before"),
        (["S0", "S1", "S3", "S4"], 30, "another chain takes longer"),
        (["S0", "S2", "S3", "S4"], 29, "the makespan is not 29"),
        (["S0", "S3", "S4"], 30, "is not a chain"),
        (["S0", "S9"], 30, "no step 'S9'"),
        (..., ..., "no answer yet"),
        (["S0", "S2", "S3", "S4"], "soon", "the makespan is not 'soon'"),
        # another unit: the plan is in min
        (
            ["S0", "S2", "S3", "S4"],
            "30 h",
            "the makespan is not '30 h'",
        ),
    ],
)
def test_exercise_1_wrong(path, makespan, says):
    feedback = check_exercise_1(path=path, makespan=makespan)
    assert not feedback and says in feedback.message and feedback.hint
    assert (
        "30" not in (feedback.message + feedback.hint).replace(repr(makespan), "") or makespan == 30
    )


def test_exercise_2_right():
    assert check_exercise_2(SAVED)
    assert check_exercise_2({k: float(v) for k, v in SAVED.items()})
    assert check_exercise_2({k: f"{v} min" for k, v in SAVED.items()})


@pytest.mark.parametrize(
    "answer, says, hint",
    [
        ({**SAVED, "S0": 6}, "S0", "how much faster can it get"),
        ({**SAVED, "S1": 6}, "S1", "still the longest"),
        ({**SAVED, "S2": 6}, "S2", "slack"),
        ({k: 6 for k in SAVED}, "S0, S1, S2", "how much faster"),
        ({"S3": 6, "S4": 6}, "no entry for S0, S1, S2", ""),
        ([5, 5, 0, 6, 6], "expected a dict", ""),
        (None, "no answer yet", ""),
    ],
)
def test_exercise_2_wrong(answer, says, hint):
    feedback = check_exercise_2(answer)
    assert not feedback and says in feedback.message and hint in feedback.hint
    assert "'S1': 5" not in str(feedback)


def test_exercise_3_right():
    assert check_exercise_3(plan=_wider(), workers=2)
    # S0 listed twice is still after S0 only
    assert check_exercise_3(plan=_wider(depends_on=("S0", "S0")), workers=2)


@pytest.mark.parametrize(
    "plan, workers, says",
    [
        (_wider(), 1, "finishes at 36"),
        (_wider(), 3, "fewer do too"),
        (_wider(), 0, "whole number"),
        (_wider(), 2.5, "whole number"),
        (_wider(depends_on="S1"), 2, "after S0 only"),
        (_wider(duration=3), 2, "after S0 only"),
        (
            _wider().replace(
                steps=_wider().steps[:-2]
                + (Step("S4", "v", depends_on=["S3", "S5"]),)
                + _wider().steps[-1:]
            ),
            2,
            "leave S0 to S4",
        ),
        (PLAN, 2, "exactly one step"),
        (None, None, "no answer yet"),
    ],
)
def test_exercise_3_wrong(plan, workers, says):
    feedback = check_exercise_3(plan=plan, workers=workers)
    assert not feedback and says in feedback.message and feedback.hint
    assert "2 worker" not in str(feedback)


# A teacher's third pass (issue 24): each row had the wrong verdict before.
@pytest.mark.parametrize(
    "path, makespan",
    [
        # the ids in lower case: nothing else in the plan is spelled so
        (
            ["s0", "s2", "s3", "s4"],
            30,
        ),
        ("s0 -> s2 -> S3 -> s4", "30"),
    ],
)
def test_exercise_1_reads_ids_in_any_case(path, makespan):
    assert check_exercise_1(path=path, makespan=makespan)


@pytest.mark.parametrize(
    "saved, says",
    [
        ({k.lower(): v for k, v in SAVED.items()}, None),  # right, keys in lower case
        # Step objects as keys
        (
            {PLAN.step(k): v for k, v in SAVED.items()},
            "give its id: step.id",
        ),
    ],
)
def test_exercise_2_reads_keys_through_the_toolkit(saved, says):
    feedback = check_exercise_2(saved)
    assert feedback.passed is (says is None)
    assert says is None or says in feedback.message


def _waves_over_a_topological_order(plan):
    """Waves built by hand over networkx's topological order (an ingredient, as in the passes exercise)."""
    level = {}
    for sid in nx.topological_sort(planviz.to_graph(plan)):
        level[sid] = 1 + max((level[d] for d in plan.step(sid).depends_on), default=-1)
    return [{s for s in level if level[s] == w} for w in range(1 + max(level.values(), default=-1))]


def test_ready_waves_may_visit_a_topological_order():
    assert check_ready_waves(_waves_over_a_topological_order)
