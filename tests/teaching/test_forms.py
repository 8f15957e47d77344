"""More answers per exercise: right answers in the forms students write them (spaces, case, numbers as text, lists
for sets, an exception class for its name), wrong answers and wrong types. Each row asserts the verdict, and a "not
yet" must say something (a message and a hint), never raise."""

from __future__ import annotations

from dataclasses import replace

import pytest

import planviz
from planviz import Fault, Plan, Step
from planviz.teaching import (
    lesson01,
    lesson02,
    lesson02b,
    lesson03,
    lesson04,
    lesson05,
    lesson07,
    lesson08,
    lesson09,
)

PLAN = planviz.examples.load("cache_isolation")
HALF = PLAN.replace(steps=[PLAN.step("S0"), PLAN.step("S1")])
WIDER = PLAN.replace(
    steps=PLAN.steps + (Step("S5", "Read the cache docs", depends_on="S0", duration=4),)
)
SAVED = {"S0": 5, "S1": 5, "S2": 0, "S3": 6, "S4": 6}
FAN = Plan(
    "three parallel branches",
    [
        Step(
            "A", "set up", duration=2, produces="ready", expected_evidence="the environment is up"
        ),
        Step(
            "B1",
            "one",
            duration=3,
            depends_on="A",
            requires="ready",
            produces="b1",
            expected_evidence="one",
        ),
        Step(
            "B2",
            "two",
            duration=4,
            depends_on="A",
            requires="ready",
            produces="b2",
            expected_evidence="two",
        ),
        Step(
            "B3",
            "three",
            duration=5,
            depends_on="A",
            requires="ready",
            produces="b3",
            expected_evidence="three",
        ),
        Step(
            "M",
            "merge",
            duration=1,
            depends_on=["B1", "B2", "B3"],
            requires=["b1", "b2", "b3"],
            produces="m",
            expected_evidence="one result",
        ),
    ],
)
DECLARED_TRACE = planviz.load_trace(planviz.examples.trace("any-agent_OPENAI_trace"))
COSTS = {"time", "model_calls", "input_tokens", "output_tokens", "cost", "total_tokens"}


ROWS = [
    # 01 exercise 3: the code and the reason, in any case and form
    (lesson01.check_exercise_3, dict(code=" Unmet_Requirement ", reason="(B)"), True),
    (lesson01.check_exercise_3, dict(code="UNMET_REQUIREMENT", reason=" b "), True),
    (lesson01.check_exercise_3, dict(code="unmet_requirement", reason="a"), False),
    (lesson01.check_exercise_3, dict(code="cycle", reason="b"), False),
    (lesson01.check_exercise_3, dict(code=42, reason="b"), False),
    (lesson01.check_exercise_3, dict(code="unmet_requirement", reason="d"), False),
    # 02 exercise 1: a set of codes as a list, a tuple, a text, in any case
    (lesson02.check_exercise_1, dict(codes=["order_violation", "unmet_requirement"]), True),
    (lesson02.check_exercise_1, dict(codes=("Unmet_Requirement", " ORDER_VIOLATION ")), True),
    (lesson02.check_exercise_1, dict(codes="unmet_requirement order_violation"), True),
    (lesson02.check_exercise_1, dict(codes=42), False),
    (lesson02.check_exercise_1, dict(codes={"unmet_requirement": 1, "order_violation": 2}), False),
    (lesson02.check_exercise_1, dict(codes=[None]), False),
    # 02 exercise 2: layer and code in any case
    (lesson02.check_exercise_2, dict(layer=" Semantics ", code="ORDER_VIOLATION"), True),
    (lesson02.check_exercise_2, dict(layer="semantics", code="order violation"), True),
    (lesson02.check_exercise_2, dict(layer="static", code="order_violation"), False),
    (lesson02.check_exercise_2, dict(layer="semantics", code="unmet_requirement"), False),
    (lesson02.check_exercise_2, dict(layer=3, code=4), False),
    (lesson02.check_exercise_2, dict(layer="semantics", code=KeyError), False),
    # 02b exercise 1 (was 02's exercise 3)
    (lesson02b.check_exercise_1, dict(plan=PLAN), False),
    (lesson02b.check_exercise_1, dict(plan=[HALF]), False),
    # S1 still depends on S0: not well formed
    (
        lesson02b.check_exercise_1,
        dict(plan=HALF.replace(steps=[replace(HALF.step("S0"), id="R"), HALF.step("S1")])),
        False,
    ),
    # 03 exercise 2: minutes as text, ids with spaces; wrong containers never crash
    (lesson03.check_exercise_2, dict(saved={k: str(v) for k, v in SAVED.items()}), True),
    (lesson03.check_exercise_2, dict(saved={f" {k} ": float(v) for k, v in SAVED.items()}), True),
    (lesson03.check_exercise_2, dict(saved={**SAVED, "S1": 6}), False),
    (lesson03.check_exercise_2, dict(saved={k: 6 for k in SAVED}), False),
    (lesson03.check_exercise_2, dict(saved=list(SAVED.values())), False),
    (lesson03.check_exercise_2, dict(saved={**SAVED, "S0": "five"}), False),
    # 03 exercise 3: workers as text or float
    (lesson03.check_exercise_3, dict(plan=WIDER, workers="2"), True),
    (lesson03.check_exercise_3, dict(plan=WIDER, workers=2.0), True),
    (lesson03.check_exercise_3, dict(plan=WIDER, workers=2.5), False),
    (lesson03.check_exercise_3, dict(plan=WIDER, workers="two"), False),
    (lesson03.check_exercise_3, dict(plan=WIDER, workers=3), False),
    (lesson03.check_exercise_3, dict(plan=WIDER, workers=1), False),
    (lesson03.check_exercise_3, dict(plan=WIDER, workers=True), False),
    # 04 exercise 1: ids in lists, with spaces, the revision that runs next
    (
        lesson04.check_exercise_1,
        dict(voided=[" S1", "S3", "S4 "], kept=("S0", "S2"), restart=" S1.v2 "),
        True,
    ),
    (
        lesson04.check_exercise_1,
        dict(voided={"S1", "S3", "S4"}, kept={"S0", "S2"}, restart="S3"),
        False,
    ),
    (
        lesson04.check_exercise_1,
        dict(voided={"S1", "S3", "S4"}, kept={"S0", "S2"}, restart="S2.v2"),
        False,
    ),
    (
        lesson04.check_exercise_1,
        dict(voided={"S1", "S3", "S4"}, kept={"S0", "S2"}, restart="S1.v3"),
        False,
    ),
    # ids as text, separated as a path's are (03 ex1 reads "S0 S2 S3 S4"): a right answer in another form
    (lesson04.check_exercise_1, dict(voided="S1 S3 S4", kept={"S0", "S2"}, restart="S1"), True),
    (lesson04.check_exercise_1, dict(voided="S3 S4", kept={"S0", "S2"}, restart="S1"), False),
    (lesson04.check_exercise_1, dict(voided={"S1", "S3", "S4"}, kept=5, restart="S1"), False),
    # 04 exercise 3: the kind in any case
    (lesson04.check_exercise_3, dict(most=Fault("S4", "goal_change"), never=" Transient "), True),
    (lesson04.check_exercise_3, dict(most=Fault("S4", "goal_change"), never="TRANSIENT"), True),
    (lesson04.check_exercise_3, dict(most=Fault("S4", "goal_change"), never="side_effect"), False),
    (lesson04.check_exercise_3, dict(most="S4:goal_change", never="transient"), False),
    (lesson04.check_exercise_3, dict(most=Fault("S1", "transient"), never="transient"), False),
    # 05 exercise 4: kept as a list, the letter in any form
    (lesson05.check_exercise_4, dict(kept=["S0", "S1", "S2"], choice="(B)"), True),
    (lesson05.check_exercise_4, dict(kept=[PLAN.step("S0")], choice="b"), False),
    (lesson05.check_exercise_4, dict(kept={"S0"}, choice="b"), False),
    (lesson05.check_exercise_4, dict(kept=7, choice="b"), False),
    # 07 exercise 1: numbers as text, the outcome in any case
    (
        lesson07.check_exercise_1,
        dict(tool_calls="15", model_calls=" 6 ", outcome=" Replan_Limit "),
        True,
    ),
    (
        lesson07.check_exercise_1,
        dict(tool_calls=15.0, model_calls=6.0, outcome="replan limit"),
        True,
    ),
    (
        lesson07.check_exercise_1,
        dict(tool_calls=True, model_calls=6, outcome="replan_limit"),
        False,
    ),
    (
        lesson07.check_exercise_1,
        dict(tool_calls=[15], model_calls=6, outcome="replan_limit"),
        False,
    ),
    (lesson07.check_exercise_1, dict(tool_calls=15, model_calls=6, outcome=3), False),
    # 07 exercise 3: wrong types are a "not yet"
    (lesson07.check_exercise_3, dict(fault="S4:extra_fact"), False),
    (lesson07.check_exercise_3, dict(fault=PLAN.step("S4")), False),
    (lesson07.check_exercise_3, dict(fault=Fault("S4", "premise_false")), True),
    (lesson07.check_exercise_3, dict(fault=Fault("S9", "transient")), False),
    # 07 exercise 4: times as text
    (lesson07.check_exercise_4, dict(plan=FAN, direct="15", planner=" 8 ", one_worker=15.0), True),
    (lesson07.check_exercise_4, dict(plan=FAN, direct=15, planner=15, one_worker=15), False),
    (lesson07.check_exercise_4, dict(plan=FAN, direct=15, planner=0, one_worker=15), False),
    (lesson07.check_exercise_4, dict(plan=[FAN], direct=15, planner=8, one_worker=15), False),
    (lesson07.check_exercise_4, dict(plan=PLAN, direct=32, planner=29, one_worker=32), False),
    # 09 exercise 1: the usage figures in any case and form
    (lesson09.check_exercise_1, dict(first_divergence=None, differ=sorted(COSTS)), True),
    (
        lesson09.check_exercise_1,
        dict(first_divergence=" None ", differ=" ".join(n.upper() for n in COSTS)),
        True,
    ),
    (lesson09.check_exercise_1, dict(first_divergence=0, differ=COSTS), False),
    (lesson09.check_exercise_1, dict(first_divergence=None, differ=COSTS | {"tool_calls"}), False),
    (lesson09.check_exercise_1, dict(first_divergence=None, differ=42), False),
    (lesson09.check_exercise_1, dict(first_divergence="soon", differ=COSTS), False),
    # 09 exercise 2
    (lesson09.check_exercise_2, dict(plan="the plan", choice="b"), False),
    (lesson09.check_exercise_2, dict(plan=DECLARED_TRACE.plan, choice=None), False),
    # 09 exercise 3: the event index as text
    (lesson09.check_exercise_3, dict(divergence=" 2 ", outcome="PLAN_COMPLETE"), True),
    (lesson09.check_exercise_3, dict(divergence=4, outcome="plan_complete"), False),
    (lesson09.check_exercise_3, dict(divergence=2, outcome="step_failed"), False),
    (lesson09.check_exercise_3, dict(divergence=[2], outcome="plan_complete"), False),
    (lesson09.check_exercise_3, dict(divergence=2.5, outcome="plan_complete"), False),
    # 09 exercise 4: the derived dependency found by hand (write_file's "2025" is the year of get_current_time's
    # datetime in the bundled trace)
    (
        lesson09.check_exercise_4,
        dict(source=" Get_Current_Time ", field="DATETIME", kind=" derived "),
        True,
    ),
    (
        lesson09.check_exercise_4,
        dict(source="get_current_time", field="datetime", kind="exact"),
        False,
    ),
    (
        lesson09.check_exercise_4,
        dict(source="get_current_time", field="timezone", kind="derived"),
        False,
    ),
    (lesson09.check_exercise_4, dict(source="write_file", field="datetime", kind="derived"), False),
    (lesson09.check_exercise_4, dict(source=None, field="datetime", kind="derived"), False),
    # 08 exercise 1: functions that return text or floats
    (
        lesson08.check_exercise_1,
        dict(tool_calls=lambda k: str(3 + 2 * k), model_calls=lambda k: float(1 + k)),
        True,
    ),
    (
        lesson08.check_exercise_1,
        dict(tool_calls=lambda k: f" {3 + 2 * k} ", model_calls=lambda k: 1 + k),
        True,
    ),
    (
        lesson08.check_exercise_1,
        dict(tool_calls=lambda k: "many", model_calls=lambda k: 1 + k),
        False,
    ),
    (
        lesson08.check_exercise_1,
        dict(tool_calls=lambda k: None, model_calls=lambda k: 1 + k),
        False,
    ),
    (lesson08.check_exercise_1, dict(tool_calls=lambda: 3, model_calls=lambda k: 1 + k), False),
]


@pytest.mark.parametrize(
    "check, answer, passed",
    ROWS,
    ids=[f"{c.__module__[-2:]}-{c.__name__}-{i}" for i, (c, _, _) in enumerate(ROWS)],
)
def test_verdict(check, answer, passed):
    feedback = check(**answer)
    assert bool(feedback) is passed, str(feedback)
    if not passed:
        assert feedback.message and feedback.hint, str(feedback)
