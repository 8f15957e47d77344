"""Notebook 08's answers: the calls a replan cap costs, a read-only review of the past-due account, the safe
write plan."""

from __future__ import annotations

from dataclasses import replace

from planviz import Contract, ToolSpec
from tests.teaching import test_lesson08 as t08
from tests.teaching.bank import Anything, a, harvest
from tests.teaching.test_lesson08 import (
    DRAFT,
    PLAN,
    REVIEW,
    REVIEW_CONTRACT,
    SAFE,
    SAFE_CONTRACT,
    SAFE_TOOLS,
    TOOLS,
    _with,
)


def _tool_calls(k):
    total = 3
    for _ in range(k):
        total += 2
    return total


EX1 = [
    a("right", "3 + 2k and 1 + k", lambda k: 3 + 2 * k, lambda k: 1 + k),
    a("form", "a loop, and a def", _tool_calls, lambda k: k + 1),
    a("form", "keywords", tool_calls=lambda k: 2 * k + 3, model_calls=lambda k: k + 1),
    a("form", "floats", lambda k: 3.0 + 2.0 * k, lambda k: float(1 + k)),
    a(
        "form",
        "a table for k up to 10",
        lambda k: {i: 3 + 2 * i for i in range(11)}[k],
        lambda k: {i: 1 + i for i in range(11)}[k],
    ),
    a("form", "numbers as text", lambda k: str(3 + 2 * k), lambda k: f" {1 + k} "),
    *harvest(t08.test_exercise_1_wrong, "wrong", lambda calls, models, says: ((calls, models), {})),
    a("wrong", "off by one everywhere", lambda k: 4 + 2 * k, lambda k: 2 + k),
    a("wrong", "the two swapped", lambda k: 1 + k, lambda k: 3 + 2 * k),
    a("wrong", "three calls per replan", lambda k: 3 + 3 * k, lambda k: 1 + k),
    a("wrong", "model calls 2 per replan", lambda k: 3 + 2 * k, lambda k: 1 + 2 * k),
    a("wrong", "returns None", lambda k: None, lambda k: 1 + k),
    a("wrong", "functions of no argument", lambda: 3, lambda: 1),
    a(
        "wrong",
        "tool calls right for k=0 and k=1 only",
        lambda k: [3, 5][k] if k < 2 else 0,
        lambda k: 1 + k,
    ),
    a("wrong", "one function only", lambda k: 3 + 2 * k, None),
    a("cheat:hardcoded", "the cap the notebook shows, by heart", lambda k: 5, lambda k: 2),
    a(
        "cheat:hardcoded",
        "the notebook's first two caps by heart",
        lambda k: 3 if k == 0 else 5,
        lambda k: 1 if k == 0 else 2,
    ),
    a("cheat:identity", "objects equal to everything", lambda k: Anything(), lambda k: Anything()),
    a("cheat:identity", "answers that are themselves equal to everything", Anything(), Anything()),
    a(
        "cheat:everything",
        "every count at once",
        lambda k: [3 + 2 * k, 4 + 2 * k],
        lambda k: [1 + k, 2 + k],
    ),
]


def _sending(name, own_effect):
    step_4 = PLAN.step("step_4")
    sending = replace(
        step_4,
        tool=name,
        action=name + step_4.action[len("send_payment_plan_offer") :],
        effect=own_effect,
    )
    return (
        PLAN.replace(steps=[*PLAN.steps[:3], sending]),
        Contract(intent="read", tools={**TOOLS, name: ToolSpec(effect="read")}),
    )


EX2 = [
    a("right", "the draft for review, registered", REVIEW, REVIEW_CONTRACT),
    *harvest(
        t08.test_exercise_2_right_in_other_forms,
        "form",
        lambda plan, contract: ((plan, contract), {}),
    ),
    a("form", "keywords", plan=REVIEW, contract=REVIEW_CONTRACT),
    a(
        "form",
        "the draft's evidence in other words",
        REVIEW.replace(
            steps=[
                *REVIEW.steps[:3],
                replace(DRAFT, expected_evidence="the offer as a draft the analyst reads"),
            ]
        ),
        REVIEW_CONTRACT,
    ),
    *harvest(
        t08.test_exercise_2_wrong, "wrong", lambda plan, contract, says: ((plan, contract), {})
    ),
    *[
        replace(x, family="cheat:identity")
        for x in harvest(
            t08.test_exercise_2_rejects_the_read_only_cheats,
            "wrong",
            lambda plan, contract, says: ((plan, contract), {}),
        )
    ],
    *[
        a(
            "cheat:identity",
            f"the offer sent by {name}, registered read-only ({effect})",
            *_sending(name, effect),
        )
        for name in ("email_payment_plan_offer", "notify_customer", "deliver_offer")
        for effect in (None, "read")
    ],
    a("cheat:identity", "a plan equal to everything", Anything(), REVIEW_CONTRACT),
]

EX4 = [
    a("right", "the hold and affordability checks before the offer", SAFE, SAFE_CONTRACT),
    a(
        "form",
        "required by ids",
        SAFE,
        replace(SAFE_CONTRACT, required=("step_hold", "step_afford")),
    ),
    a("form", "keywords", plan=SAFE, contract=SAFE_CONTRACT),
    a(
        "form",
        "the steps in another file order",
        SAFE.replace(
            steps=[
                SAFE.step("step_1"),
                SAFE.step("step_2"),
                SAFE.step("step_3"),
                SAFE.step("step_hold"),
                SAFE.step("step_afford"),
                SAFE.step("step_4"),
                SAFE.step("step_5"),
            ]
        ),
        SAFE_CONTRACT,
    ),
    a(
        "form",
        "another approver and check words",
        _with(
            SAFE,
            "step_4",
            approval="the collections manager",
            check="the account lists the offer's id",
        ),
        SAFE_CONTRACT,
    ),
    *harvest(
        t08.test_exercise_4_wrong, "wrong", lambda plan, contract, says: ((plan, contract), {})
    ),
    a(
        "cheat:vacuous",
        "the offer's check restates the action",
        _with(SAFE, "step_4", check="send_payment_plan_offer completed"),
        SAFE_CONTRACT,
    ),
    a(
        "cheat:identity",
        "the offer sent under another name, registered read-only",
        SAFE.replace(
            steps=[replace(s, tool="offer_tool") if s.id == "step_4" else s for s in SAFE.steps]
        ),
        replace(SAFE_CONTRACT, tools={**SAFE_TOOLS, "offer_tool": ToolSpec(effect="read")}),
    ),
    a(
        "cheat:vacuous",
        "the hold check dropped, its milestone by the offer's id",
        SAFE.replace(steps=[s for s in SAFE.steps if s.id != "step_hold"]),
        replace(SAFE_CONTRACT, required=("step_4", "affordability")),
    ),
    a("cheat:identity", "a plan equal to everything", Anything(), SAFE_CONTRACT),
]

BANK = {
    "lesson08.check_exercise_1": EX1,
    "lesson08.check_exercise_2": EX2,
    "lesson08.check_exercise_4": EX4,
}
