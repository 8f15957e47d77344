"""Notebook 09's answers: two agents' runs of one task compared, a plan that trusts what the agent skipped, a
simulated failure beside the recording, where write_file's text came from."""

from __future__ import annotations

from planviz import Plan
from tests.teaching import test_lesson09 as t09, test_verdicts as tv
from tests.teaching.bank import Anything, EqualStr, a, harvest, value_cheats
from tests.teaching.test_lesson09 import CHECK, COSTS, NOW, SAVE

EX1 = [
    a("right", "no divergence, the six figures", None, COSTS),
    *harvest(t09.test_exercise_1_right, "form", lambda differ: ((None, differ), {})),
    *harvest(
        tv.test_exercise_1_of_09_reads_forms, "form", lambda first, differ: ((first, differ), {})
    ),
    a("form", "keywords, a tuple", first_divergence=None, differ=tuple(sorted(COSTS))),
    a("form", "'none' in words, a frozenset", "none", frozenset(COSTS)),
    *harvest(
        t09.test_exercise_1_wrong,
        "wrong",
        lambda divergence, differ, says: ((divergence, differ), {}),
    ),
    *harvest(
        t09.test_exercise_1_says_what_is_wrong_with_the_form,
        "wrong",
        lambda differ, says: ((None, differ), {}),
    ),
    a("wrong", "divergence 0", 0, COSTS),
    a("wrong", "cost missing", None, COSTS - {"cost"}),
    a("wrong", "reasoning tokens added", None, COSTS | {"reasoning_tokens"}),
    a("wrong", "tool calls for model calls", None, COSTS - {"model_calls"} | {"tool_calls"}),
    a(
        "cheat:everything",
        "every usage figure",
        None,
        [
            "time",
            "tool_calls",
            "model_calls",
            "input_tokens",
            "output_tokens",
            "cost",
            "reasoning_tokens",
            "cached_tokens",
            "total_tokens",
        ],
    ),
    *value_cheats(lambda v: ((None, v), {})),
    a("cheat:identity", "figures equal to everything", None, [Anything()] * 6),
    a("cheat:identity", "a divergence equal to everything", Anything(), COSTS),
]

TRUSTING = Plan("write the current year to a file", [NOW, SAVE])
EX2 = [
    a("right", "the check step dropped, b", TRUSTING, "b"),
    a("form", "keywords, (b)", plan=TRUSTING, choice="(b)"),
    a("form", "another goal", Plan("g", [NOW, SAVE]), "B"),
    a("form", "the steps in the other file order", Plan("g", [SAVE, NOW]), "b"),
    a("form", "b with spaces", TRUSTING, " b "),
    *harvest(t09.test_exercise_2_wrong, "wrong", lambda plan, choice, says: ((plan, choice), {})),
    *harvest(
        t09.test_exercise_2_only_the_skipped_step_goes,
        "form",
        lambda plan, choice, passed: ((plan, choice), {}),
    ),
    a("wrong", "choice c", TRUSTING, "c"),
    a("wrong", "the check alone", Plan("g", [CHECK]), "b"),
    a("wrong", "no steps", Plan("g", []), "b"),
    a("wrong", "a list of steps", [NOW, SAVE], "b"),
    a("wrong", "choice d", TRUSTING, "d"),
    a("wrong", "the save step dropped instead", Plan("g", [NOW, CHECK]), "b"),
    a("wrong", "the time fetch dropped, check kept", Plan("g", [SAVE, CHECK]), "b"),
    a("wrong", "choice as a number", TRUSTING, 2),
    a("cheat:everything", "every letter", TRUSTING, "abc"),
    a("cheat:everything", "letters as a list", TRUSTING, ["a", "b"]),
    a("cheat:identity", "a plan equal to everything", Anything(), "b"),
    *value_cheats(lambda v: ((TRUSTING, v), {})),
]
# the second row of test_exercise_2_only_the_skipped_step_goes is a right form, the first a wrong answer
EX2 = [
    x
    if not (x.family == "form" and x.args and x.args[0] == Plan("g", [SAVE]))
    else type(x)("wrong", x.why, x.args, x.kwargs)
    for x in EX2
]

EX3 = [
    a("right", "event 2, plan_complete", 2, "plan_complete"),
    *harvest(
        tv.test_exercise_3_of_09_reads_numbers_as_text,
        "form",
        lambda divergence, outcome: ((divergence, outcome), {}),
    ),
    a("form", "keywords", divergence=2, outcome="plan complete"),
    a("form", "2 with spaces", " 2 ", "PLAN_COMPLETE"),
    *harvest(
        t09.test_exercise_3_wrong,
        "wrong",
        lambda divergence, outcome, says: ((divergence, outcome), {}),
    ),
    a("wrong", "off by one up", 3, "plan_complete"),
    a("wrong", "off by one down", 1, "plan_complete"),
    a("wrong", "no divergence", None, "plan_complete"),
    a("wrong", "2.5", 2.5, "plan_complete"),
    a("wrong", "replan_limit", 2, "replan_limit"),
    a("wrong", "divergence as a word", "two", "plan_complete"),
    a("wrong", "True for 1", True, "plan_complete"),
    a("wrong", "divergence as a list", [2], "plan_complete"),
    a("wrong", "goal_changed", 2, "goal_changed"),
    a("wrong", "step_failed, off by one", 3, "step_failed"),
    a("cheat:everything", "every event", [1, 2, 3], "plan_complete"),
    a("cheat:everything", "every outcome", 2, "plan_complete, step_failed"),
    *value_cheats(lambda v: ((2, v), {})),
    *value_cheats(lambda v: ((v, "plan_complete"), {})),
    a("cheat:identity", "a str equal to every string holding 3", EqualStr("3"), "plan_complete"),
]

EX4 = [
    a("right", "get_current_time, datetime, derived", "get_current_time", "datetime", "derived"),
    a("form", "keywords", source="get_current_time", field="datetime", kind="derived"),
    a("form", "capitals and spaces", " Get_Current_Time ", "DateTime ", "Derived"),
    a("form", "spaces for underscores", "get current time", "datetime", "derived."),
    a(
        "form",
        "keywords in another order",
        kind="derived",
        field="datetime",
        source="get_current_time",
    ),
    a("wrong", "write_file as its own source", "write_file", "datetime", "derived"),
    a("wrong", "exact", "get_current_time", "datetime", "exact"),
    a("wrong", "contains", "get_current_time", "datetime", "contains"),
    a("wrong", "the timezone field", "get_current_time", "timezone", "derived"),
    a("wrong", "is_dst", "get_current_time", "is_dst", "derived"),
    a("wrong", "a kind that does not exist", "get_current_time", "datetime", "copied"),
    a("wrong", "the year as the field", "get_current_time", "year", "derived"),
    a("wrong", "no kind", "get_current_time", "datetime", None),
    a("wrong", "no source", None, "datetime", "derived"),
    a("wrong", "the model call as the source", "llm", "datetime", "derived"),
    a("wrong", "the field as a list", "get_current_time", ["datetime"], "derived"),
    a("cheat:everything", "every kind", "get_current_time", "datetime", "exact, contains, derived"),
    a(
        "cheat:everything",
        "every field",
        "get_current_time",
        "timezone, datetime, is_dst",
        "derived",
    ),
    a(
        "cheat:everything",
        "kinds as a list",
        "get_current_time",
        "datetime",
        ["exact", "contains", "derived"],
    ),
    *value_cheats(lambda v: ((v, "datetime", "derived"), {})),
    *value_cheats(lambda v: (("get_current_time", v, "derived"), {})),
    *value_cheats(lambda v: (("get_current_time", "datetime", v), {})),
]

BANK = {
    "lesson09.check_exercise_1": EX1,
    "lesson09.check_exercise_2": EX2,
    "lesson09.check_exercise_3": EX3,
    "lesson09.check_exercise_4": EX4,
}
