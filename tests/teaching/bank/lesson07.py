"""Notebook 07's answers: a higher replan cap, a new route, a fault both strategies meet alike, three branches,
the re-issue build-it, the frozen-plan test, choosing the mechanism, reading an ablation."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import planviz
from planviz import Fault, Plan, Step
from planviz.teaching.cases import reissue_cases
from tests.teaching import (
    test_lesson07 as t07,
    test_lesson07_choices as t07c,
    test_lesson07_reissue as t07r,
)
from tests.teaching.bank import (
    Anything,
    EqualStr,
    a,
    build_it,
    build_it_forms,
    harvest,
    later,
    library_cheats,
    lookups,
    value_cheats,
)
from tests.teaching.test_lesson07 import FAN, _new_route
from tests.teaching.test_unplugged import solution

EX1 = [
    a("right", "15, 6, replan_limit", 15, 6, "replan_limit"),
    a("form", "keywords", tool_calls=15, model_calls=6, outcome="replan_limit"),
    a("form", "numbers as text", "15", " 6 ", "Replan_Limit"),
    a("form", "floats, a space", 15.0, 6.0, "replan limit"),
    a(
        "form",
        "keywords in another order",
        outcome=" replan_limit ",
        model_calls="6",
        tool_calls="15.0",
    ),
    *harvest(t07.test_exercise_1_wrong, "wrong", lambda answer, says: (answer, {})),
    a("wrong", "tool calls off by one", 16, 6, "replan_limit"),
    a("wrong", "tool calls one short", 14, 6, "replan_limit"),
    a("wrong", "model calls one short", 15, 5.0, "replan_limit"),
    a("wrong", "model calls off by one", 15, 7, "replan_limit"),
    a("wrong", "the default cap's counts", 11, 4, "replan_limit"),
    a("wrong", "swapped", 6, 15, "replan_limit"),
    a("wrong", "step_failed", 15, 6, "step_failed"),
    a("wrong", "plan_complete", 15, 6, "plan_complete"),
    a("wrong", "counts as words", "fifteen", "six", "replan_limit"),
    a("wrong", "True for a count", 15, True, "replan_limit"),
    a("cheat:everything", "every outcome", 15, 6, "replan_limit, plan_complete"),
    a("cheat:everything", "a range of counts", [14, 15, 16], 6, "replan_limit"),
    *value_cheats(lambda v: ((15, 6, v), {})),
    *value_cheats(lambda v: ((v, 6, "replan_limit"), {})),
]


def _different_ids(goal, contract, state, old):
    plan = _new_route(goal, contract, state, old)
    names = {"P1": "NS1", "V1": "NSV"}
    return plan.replace(
        steps=[
            replace(s, id=names.get(s.id, s.id), depends_on=[names.get(d, d) for d in s.depends_on])
            for s in plan.steps
        ]
    )


def _patch_fields_changed_only(goal, contract, state, old):
    """S3's patch with another action under a new id: the same tool work, a renamed call."""
    kept = [s for s in old.steps if s.id in state.completed]
    s3 = next(s for s in old.steps if s.id.startswith("S3"))
    s4 = next(s for s in old.steps if s.id.startswith("S4"))
    return old.replace(
        steps=kept
        + [
            replace(s3, id="P7", revises=None, action="Patch the key builder again"),
            replace(s4, id="V7", depends_on=("P7",), revises=None),
        ]
    )


EX2 = [
    a(
        "right",
        "notebooks/solutions: namespace_per_tenant",
        solution("07_is_planning_worth_it.py", "namespace_per_tenant"),
    ),
    a("form", "test_lesson07's new route", _new_route),
    a("form", "keyword", propose=_new_route),
    a("form", "other ids", _different_ids),
    a(
        "form",
        "the verification under another id",
        lambda g, c, s, old: _new_route(g, c, s, old, verify_id="CHECK"),
    ),
    *harvest(t07.test_exercise_2_wrong, "wrong", lambda propose, says: ((propose,), {})),
    a("wrong", "the old plan again", lambda g, c, s, old: old),
    a("wrong", "raises", lambda g, c, s, old: 1 / 0),
    a("wrong", "steps, not a plan", lambda g, c, s, old: list(_new_route(g, c, s, old).steps)),
    a(
        "wrong",
        "the patch without its verification",
        lambda g, c, s, old: _new_route(g, c, s, old).replace(
            steps=[st for st in _new_route(g, c, s, old).steps if st.id != "V1"]
        ),
    ),
    a("wrong", "a function of two arguments", lambda old, state: old),
    a("wrong", "returns None", lambda g, c, s, old: None),
    a(
        "wrong",
        "the new route without the kept steps",
        lambda g, c, s, old: _new_route(g, c, s, old).replace(
            steps=[st for st in _new_route(g, c, s, old).steps if st.id in ("P1", "V1")]
        ),
    ),
    a(
        "wrong",
        "the patch needs a fact nobody makes",
        lambda g, c, s, old: _new_route(g, c, s, old).replace(
            steps=[
                replace(st, requires=("nobody_makes_this",)) if st.id == "P1" else st
                for st in _new_route(g, c, s, old).steps
            ]
        ),
    ),
    *harvest(
        __import__(
            "tests.teaching.test_verdicts", fromlist=["x"]
        ).test_exercise_2_of_07_is_not_fooled_by_the_same_patch_under_a_new_id,
        "cheat:identity",
        lambda propose: ((propose,), {}),
    ),
    a("cheat:identity", "the patch under a new id with another action", _patch_fields_changed_only),
    a(
        "cheat:identity",
        "planviz.reissue of everything not done",
        lambda g, c, s, old: planviz.reissue(
            old, [x for x in old.ids if x not in s.completed], "again"
        ),
    ),
    a(
        "cheat:vacuous",
        "the goal rewritten to what is done",
        lambda g, c, s, old: old.replace(
            goal="Locate the key builder", steps=[st for st in old.steps if st.id in s.completed]
        ),
    ),
    a("cheat:identity", "a plan equal to everything", lambda g, c, s, old: Anything()),
]

EX3 = [
    a("right", "extra fact tests_deleted at S4", Fault("S4", "extra_fact", fact="tests_deleted")),
    *harvest(t07.test_exercise_3_right, "form", lambda fault: ((fault,), {})),
    a("form", "keyword", fault=Fault("S4", "premise_false")),
    *harvest(t07.test_exercise_3_wrong, "wrong", lambda fault, says: ((fault,), {})),
    a("wrong", "a transient at S4", Fault("S4", "transient")),
    a("wrong", "a side effect at S4", Fault("S4", "side_effect")),
    a(
        "form",
        "a goal change at S0: one call each, step_failed against goal_changed",
        Fault("S0", "goal_change"),
    ),
    a("wrong", "a premise false at S2", Fault("S2", "premise_false")),
    a("wrong", "a transient twice at S0", Fault("S0", "transient", times=2)),
    a("wrong", "an extra fact at S0 nothing needs", Fault("S0", "extra_fact", fact="nothing")),
    a("wrong", "a withdraw at S1", Fault("S1", "withdraw", fact="leak_reproduced")),
    a("wrong", "a list of faults", [Fault("S4", "premise_false")]),
    a("wrong", "a dict", {"step": "S4", "kind": "premise_false"}),
    a("wrong", "a tool error at S3", Fault("S3", "tool_error")),
    a("wrong", "a missing evidence at S1", Fault("S1", "missing_evidence")),
    a(
        "cheat:everything",
        "two faults at once",
        (Fault("S4", "premise_false"), Fault("S4", "extra_fact", fact="tests_deleted")),
    ),
    a("cheat:identity", "a fault equal to everything", Anything()),
    a("cheat:identity", "a str equal to every string", EqualStr("S4:premise_false")),
    a(
        "cheat:vacuous",
        "no fault at all (both complete alike)",
        Fault("S4", "extra_fact", fact="nothing_needed"),
    ),
]

FAN_TEXT = solution("07_is_planning_worth_it.py", "namespace_per_tenant") and None
BRANCHES = Plan(
    "three parallel branches",
    [
        Step(
            "A", "set up", duration=2, produces="ready", expected_evidence="the environment is up"
        ),
        *(
            Step(
                f"B{k}",
                f"branch {k}",
                duration=k + 2,
                depends_on="A",
                requires="ready",
                produces=f"b{k}",
                expected_evidence="done",
            )
            for k in (1, 2, 3)
        ),
        Step(
            "M",
            "merge",
            duration=1,
            depends_on=["B1", "B2", "B3"],
            requires=["b1", "b2", "b3"],
            produces="merged",
            expected_evidence="one result",
        ),
    ],
)
WIDE = Plan(
    "four branches",
    [
        Step("A", "a", duration=1, expected_evidence="e"),
        *(Step(f"B{k}", "b", duration=k, depends_on="A", expected_evidence="e") for k in (1, 2, 3)),
        Step("M", "m", duration=2, depends_on=["B1", "B2", "B3"], expected_evidence="e"),
    ],
)
EX4 = [
    a("right", "the solution's fan, 15, 8, 15", BRANCHES, 15, 8, 15),
    a("form", "test_lesson07's fan", FAN, 15, 8, 15),
    a("form", "keywords, times as text", plan=FAN, direct="15", planner="8", one_worker="15.0"),
    a("form", "another fan: 1 + 1 + 2 + 3 + 2 serial, 1 + 3 + 2 parallel", WIDE, 9, 6, 9),
    a("form", "floats", FAN, 15.0, 8.0, 15.0),
    *harvest(t07.test_exercise_4_wrong, "wrong", lambda answer, says: (answer, {})),
    a("wrong", "planner off by one", FAN, 15, 9, 15),
    a("wrong", "one worker as parallel", FAN, 15, 8, 8),
    a("wrong", "swapped", FAN, 8, 15, 15),
    a(
        "wrong",
        "two branches only",
        Plan(
            "two",
            [
                Step("A", "a", duration=2, expected_evidence="e"),
                *(
                    Step(f"B{k}", "b", duration=3, depends_on="A", expected_evidence="e")
                    for k in (1, 2)
                ),
            ],
        ),
        8,
        5,
        8,
    ),
    a("wrong", "times as words", FAN, "fifteen", "eight", "fifteen"),
    a("wrong", "times with a unit the plan does not have", FAN, "15 min", "8 min", "15 min"),
    a("wrong", "the planner's time for direct", FAN, 8, 8, 15),
    a("wrong", "a list of steps", list(FAN.steps), 15, 8, 15),
    a("cheat:everything", "every time", FAN, [8, 15], [8, 15], [8, 15]),
    a(
        "cheat:budget",
        "branches of no time at all",
        Plan(
            "free",
            [
                Step("A", "a", duration=0, expected_evidence="e"),
                *(
                    Step(f"B{k}", "b", duration=0, depends_on="A", expected_evidence="e")
                    for k in (1, 2, 3)
                ),
            ],
        ),
        0,
        0,
        0,
    ),
    *value_cheats(lambda v: ((FAN, v, 8, 15), {})),
    *value_cheats(lambda v: ((FAN, 15, v, 15), {})),
    a("cheat:identity", "a plan equal to everything", Anything(), 15, 8, 15),
]


EX5 = [
    a("right", "2/3, executor, plan_complete", 2 / 3, "executor", "plan_complete"),
    *harvest(
        t07.test_exercise_5_right, "form", lambda rate, blame, outcome: ((rate, blame, outcome), {})
    ),
    a("form", "a Fraction", __import__("fractions").Fraction(2, 3), "executor", "plan_complete"),
    a(
        "form",
        "keywords",
        evidence_rate=0.67,
        attribution="the executor",
        planner_outcome="plan_complete",
    ),
    *harvest(
        t07.test_exercise_5_wrong,
        "wrong",
        lambda rate, blame, outcome, says: ((rate, blame, outcome), {}),
    ),
    a("wrong", "0.66, rounded down too far", 0.66, "executor", "plan_complete"),
    a("wrong", "a percentage", 67, "executor", "plan_complete"),
    a("wrong", "0.75", 0.75, "executor", "plan_complete"),
    a(
        "cheat:everything",
        "every attribution",
        0.67,
        "executor, planner, environment",
        "plan_complete",
    ),
    a("cheat:everything", "every outcome", 0.67, "executor", ["plan_complete", "replan_limit"]),
    *value_cheats(lambda v: ((0.67, v, "plan_complete"), {})),
    *value_cheats(lambda v: ((0.67, "executor", v), {})),
    a("cheat:identity", "a rate equal to everything", Anything(), "executor", "plan_complete"),
]


def _drop(*fields):
    def reissue(old, voided):
        plan = t07r.right(old, voided)
        return plan.replace(
            steps=[
                replace(s, **{f: () if f != "expected_evidence" else "" for f in fields})
                if s.revises and s.id not in old.ids
                else s
                for s in plan.steps
            ]
        )

    return reissue


REISSUE = [
    build_it("reissue", "07_is_planning_worth_it.py", "reissue"),
    *build_it_forms("reissue", "07_is_planning_worth_it.py", "reissue"),
    *harvest(t07r.test_right_in_any_form, "form", lambda fn: ((fn,), {})),
    a(
        "form",
        "a generator of steps made a list",
        lambda old, voided: [s for s in t07r.right(old, voided).steps],
    ),
    *[
        x
        for x in harvest(t07r.test_wrong_answers_say_why, "wrong", lambda fn, says: ((fn,), {}))
        if x.args[0] not in (t07r.the_library, t07r.the_library_through_a_helper)
    ],
    a("cheat:import", "planviz.reissue", t07r.the_library),
    a(
        "cheat:getattr",
        "planviz.reissue through getattr in a helper",
        t07r.the_library_through_a_helper,
    ),
    a("wrong", "drops requires", _drop("requires")),
    a("wrong", "drops produces", _drop("produces")),
    a("wrong", "drops the evidence", _drop("expected_evidence")),
    *library_cheats("reissue"),
    a(
        "cheat:hardcoded",
        "the example's ids by heart",
        lambda old, voided: old.replace(
            steps=[replace(s, id={"S3": "S3.v2", "S4": "S4.v2"}.get(s.id, s.id)) for s in old.steps]
        ),
    ),
]

CHOICES = [
    a(
        "right" if i == 0 else "form" if passed else "wrong",
        f"test_lesson07_choices row {i}",
        choices=choices,
    )
    for i, (choices, passed) in enumerate(t07c.CHOICES)
]
CHOICES = [
    replace(x, family="cheat:everything") if i in (16, 17, 18, 19) else x
    for i, x in enumerate(CHOICES)
]
CHOICES += [
    *value_cheats(lambda v: ((), {"choices": v})),
    a(
        "cheat:identity",
        "each an object equal to everything",
        choices={k: Anything() for k in t07c.RIGHT},
    ),
]


@cache
def _ablated():
    return planviz.ablation(
        [planviz.examples.load("cache_isolation")], faults=t07c.SAMPLED, samples=200
    )


def _reading(family, why, answers):
    return later(family, why, lambda: ((), {"ablation": _ablated(), **answers}))


READINGS = [
    _reading(
        "right" if i == 0 else "form" if passed else "wrong",
        f"test_lesson07_choices reading {i}",
        answers,
    )
    for i, (answers, passed) in enumerate(t07c.READINGS)
]
READINGS = [
    replace(x, family="cheat:everything") if i in (18, 19) else x for i, x in enumerate(READINGS)
]
READINGS += [
    later(
        "cheat:identity",
        "another ablation (fewer samples)",
        lambda: ((), {"ablation": replace(_ablated(), samples=20), **t07c.R}),
    ),
    later(
        "cheat:identity",
        "the table as text",
        lambda: ((), {"ablation": _ablated().to_text(), **t07c.R}),
    ),
    later(
        "cheat:identity",
        "an object equal to everything for the table",
        lambda: ((), {"ablation": Anything(), **t07c.R}),
    ),
    later(
        "cheat:identity",
        "every reading equal to everything",
        lambda: ((), {"ablation": _ablated(), **{k: Anything() for k in t07c.R}}),
    ),
    later(
        "cheat:identity",
        "a str equal to every string",
        lambda: (
            (),
            {"ablation": _ablated(), **{**t07c.R, "loses_success": EqualStr("validation_gate")}},
        ),
    ),
    later("wrong", "no table", lambda: ((), {"ablation": None, **t07c.R})),
]

# the library's answers to the check's own random cases, computed before it runs and looked up
REISSUE += lookups(reissue_cases, lambda plan, voided: planviz.reissue(plan, voided, "by hand"))

BANK = {
    "lesson07.check_exercise_1": EX1,
    "lesson07.check_exercise_2": EX2,
    "lesson07.check_exercise_3": EX3,
    "lesson07.check_exercise_4": EX4,
    "lesson07.check_reissue": REISSUE,
    "lesson07.check_exercise_5": EX5,
    "lesson07.check_exercise_6": CHOICES,
    "lesson07.check_exercise_7": READINGS,
}
