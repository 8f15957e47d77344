"""Notebook 07's exercises 6 (choosing the mechanism, seed 004) and 7 (reading the eight metrics and an
ablation): a teacher's answer bank, each answer with its verdict. Exercise 7's truth is read from the ablation's
raw records in the test (intervals compared by hand), never from the check's own reading."""

from __future__ import annotations

from dataclasses import replace

import pytest

import planviz
from planviz.teaching.lesson07 import check_exercise_6, check_exercise_7
from planviz.teaching.mechanisms import TASKS

RIGHT = {"a": "workflow", "b": "search", "c": "agent", "d": "search", "e": "workflow", "f": "agent"}


def _with(**changes):
    return {**RIGHT, **changes}


CHOICES = [
    # right, in several forms
    (RIGHT, True),
    ({k.upper(): v.upper() for k, v in RIGHT.items()}, True),
    (_with(b="tree of thought", d="Tree-of-Thoughts"), True),
    (_with(c="agent planning", f="the planner"), True),
    (_with(a="fixed script", e="a workflow"), True),
    (list(RIGHT.values()), True),  # in letter order
    (tuple(RIGHT.values()), True),
    ({f"({k})": v for k, v in RIGHT.items()}, True),
    (_with(b="ToT", c="plan and replan"), True),
    # wrong
    (_with(a="agent"), False),  # a stable route needs no model call
    (_with(b="agent"), False),  # candidates can be judged before acting
    (_with(c="search"), False),  # acting has side effects: no backtracking for free
    (_with(d="workflow"), False),
    (_with(e="agent"), False),  # an approval is a fixed step
    (_with(f="workflow"), False),
    (_with(b="agent", c="search"), False),
    # cheats and unreadable answers
    ({k: "agent" for k in TASKS}, False),  # one mechanism for everything
    ({k: "workflow" for k in TASKS}, False),
    ({k: "search" for k in TASKS}, False),
    ({k: "agent, search, workflow" for k in TASKS}, False),  # every answer at once
    (_with(a=["workflow", "agent"]), False),
    ({**RIGHT, "g": "agent"}, False),  # a task that does not exist
    ({k: v for k, v in RIGHT.items() if k != "f"}, False),  # one missing
    (list(RIGHT.values())[:5], False),
    (set(RIGHT.values()), False),  # a set has no letters
    ("workflow, search, agent, search, workflow, agent", False),
    (_with(a="react"), False),  # not one of the three
    (None, False),
    (_with(c=...), False),
]


@pytest.mark.parametrize("choices, passed", CHOICES)
def test_exercise_6_bank(choices, passed):
    feedback = check_exercise_6(choices=choices)
    assert feedback.passed is passed, str(feedback)
    if not passed:
        assert not any(f"{k}: {v}" in str(feedback) for k, v in RIGHT.items()), (
            "the answer is not given away"
        )


def test_exercise_6_bank_is_big_enough():
    assert len(CHOICES) >= 25 and sum(p for _, p in CHOICES) >= 8


SAMPLED = planviz.FaultModel(
    rates={"side_effect": 0.15, "transient": 0.1, "tool_error": 0.03}, seed=7
)


@pytest.fixture(scope="module")
def ablated():
    return planviz.ablation([planviz.examples.load("cache_isolation")], faults=SAMPLED, samples=200)


@pytest.fixture(scope="module")
def truth(ablated):
    """What the table says, from its flat records: intervals compared here, by hand."""
    records = {r["strategy"]: r for r in ablated.to_records() if r["plan"] is None}
    full = records["planner"]
    removed = {k[1:]: r for k, r in records.items() if k.startswith("-")}
    loses = {k for k, r in removed.items() if r["success_high"] < full["success_low"]}
    wasteful = {
        k
        for k, r in removed.items()
        if k not in loses and r["work_voided_low"] > full["work_voided_high"]
    }
    metrics = (
        "executability",
        "tool_calls",
        "model_calls",
        "time",
        "recovery_distance",
        "work_voided",
        "replans",
        "precondition_errors",
        "duplicate_steps",
        "critical_path_delay",
    )
    same = {
        k
        for k, r in removed.items()
        if all(r[m] == full[m] for m in metrics)
        and (r["successes"], r["correct_stops"], r["silent_failures"])
        == (full["successes"], full["correct_stops"], full["silent_failures"])
    }
    shows = {
        m
        for m in metrics
        for k in wasteful
        if removed[k][f"{m}_low"] > full[f"{m}_high"] or full[f"{m}_low"] > removed[k][f"{m}_high"]
    }
    return dict(loses=loses, wasteful=wasteful, same=same, shows=shows, removed=set(removed))


def test_the_table_says_what_the_notebook_says(truth):
    assert truth["loses"] == {"replanning"} and truth["wasteful"] == {"scoped_recovery"}
    assert truth["same"] == {"validation_gate", "premises_stop", "far_expansion", "evidence_check"}
    assert "work_voided" in truth["shows"] and "tool_calls" not in truth["shows"]


UNUSED = ["validation_gate", "premises_stop", "far_expansion", "evidence_check"]
R = dict(
    loses_success="replanning", wasteful="scoped_recovery", metric="work_voided", unexercised=UNUSED
)

READINGS = [
    # right, in several forms
    (R, True),
    ({**R, "loses_success": ["-replanning"], "wasteful": "Scoped recovery"}, True),
    ({**R, "metric": "recovery_distance"}, True),  # its interval separates too
    ({**R, "metric": "duplicate steps"}, True),
    ({**R, "metric": " Work_Voided "}, True),
    ({**R, "unexercised": "validation_gate, premises_stop, far_expansion, evidence_check"}, True),
    (
        {
            **R,
            "unexercised": {
                "-evidence_check",
                "-far_expansion",
                "-premises_stop",
                "-validation_gate",
            },
        },
        True,
    ),
    ({**R, "loses_success": {"replanning"}, "wasteful": ("scoped-recovery",)}, True),
    # wrong
    ({**R, "loses_success": "scoped_recovery"}, False),
    # without a cap it still succeeds
    (
        {**R, "loses_success": ["replanning", "replan_cap"]},
        False,
    ),
    ({**R, "wasteful": "replanning"}, False),
    ({**R, "wasteful": "replan_cap"}, False),
    # 7.01 +-0.37 against 6.41 +-0.26: the intervals overlap
    (
        {**R, "metric": "tool_calls"},
        False,
    ),
    ({**R, "metric": "time"}, False),
    ({**R, "metric": "success"}, False),
    ({**R, "unexercised": UNUSED[:3]}, False),
    ({**R, "unexercised": [*UNUSED, "replan_cap"]}, False),  # its row differs in the second decimal
    ({**R, "unexercised": []}, False),
    # cheats and unreadable answers
    # every mechanism at once
    (
        {
            **R,
            "loses_success": "replanning, scoped_recovery, validation_gate, premises_stop, replan_cap, "
            "far_expansion, evidence_check",
        },
        False,
    ),
    ({**R, "unexercised": "everything"}, False),
    # a row of the ladder, not a removed mechanism
    (
        {**R, "loses_success": "explicit_plan"},
        False,
    ),
    ({**R, "metric": ["work_voided", "tool_calls"]}, False),
    ({**R, "metric": 1.03}, False),
    ({**R, "loses_success": 0}, False),
    ({**R, "wasteful": None}, False),
]


@pytest.mark.parametrize("answers, passed", READINGS)
def test_exercise_7_bank(ablated, answers, passed):
    feedback = check_exercise_7(ablation=ablated, **answers)
    assert feedback.passed is passed, str(feedback)


def test_exercise_7_needs_the_notebooks_ablation(ablated):
    """Another table cannot be read instead: a campaign, an ablation of other faults, a copy relabelled."""
    plan = planviz.examples.load("cache_isolation")
    quiet = planviz.ablation(
        [plan], faults=planviz.FaultModel(rates={"transient": 0.1}, seed=7), samples=20
    )
    for table in (
        quiet,
        planviz.campaign([plan], faults=SAMPLED, samples=20),
        replace(ablated, samples=20),
        ablated.to_text(),
        ablated.rows,
        None,
    ):
        assert not check_exercise_7(ablation=table, **R).passed


def test_exercise_7_bank_is_big_enough():
    assert len(READINGS) + 6 >= 25 and sum(p for _, p in READINGS) >= 8
