"""Notebook 05's answers: what a goal change keeps, a replanner that redoes nothing held, what a revision may
not change, a far step expanded within its budget, the controller's four choices."""

from __future__ import annotations

from dataclasses import replace

import planviz
from planviz.runs.engine.revision import changed_invariants
from planviz.teaching.lesson05 import _revisions
from tests.teaching import (
    test_lesson05 as t05,
    test_lesson05_controller as t05c,
    test_lesson05_far as t05f,
    test_lesson05_invariants as t05i,
)
from tests.teaching.bank import (
    Anything,
    a,
    build_it,
    build_it_forms,
    harvest,
    library_cheats,
    lookups,
    value_cheats,
)
from tests.teaching.test_lesson05 import redo
from tests.teaching.test_lesson05_far import CUT_OVER
from tests.teaching.test_unplugged import solution

KEPT = {"S0", "S1", "S2"}
EX4 = [
    a("right", "the three completed steps, b", KEPT, "b"),
    a("form", "keywords, a list", kept=["S0", "S1", "S2"], choice="b"),
    a("form", "text, (b).", "S2, S1, S0", "(b)."),
    a("form", "lower case ids, B", {"s0", "s1", "s2"}, "B"),
    a("form", "a tuple with spaces", (" S0", "S1 ", "S2"), " b "),
    *harvest(t05.test_exercise_4_wrong, "wrong", lambda kept, choice, says: ((kept, choice), {})),
    a("wrong", "S3 kept too", {"S0", "S1", "S2", "S3"}, "b"),
    a("wrong", "nothing kept", set(), "b"),
    a("wrong", "S1 voided", {"S0", "S2"}, "b"),
    a("wrong", "choice d", KEPT, "d"),
    a("wrong", "Step objects", [t05.PLAN.step(s) for s in KEPT], "b"),
    a("wrong", "a number of steps", 3, "b"),
    a("wrong", "no kept", None, "b"),
    a("wrong", "choice as a number", KEPT, 2),
    a("wrong", "S4 kept", {"S0", "S1", "S2", "S4"}, "b"),
    a("cheat:everything", "every letter", KEPT, "abc"),
    a("cheat:everything", "every step", {"S0", "S1", "S2", "S3", "S4"}, "b"),
    a("cheat:everything", "letters as a list", KEPT, ["a", "b"]),
    *value_cheats(lambda v: ((v, "b"), {})),
    *value_cheats(lambda v: ((KEPT, v), {})),
]

just_enough = solution("05_replanning_rules.py", "just_enough")


def _renamed_no_revises(goal, contract, state, old):
    """The voided steps under new ids that do not say what they revise."""
    plan = redo(old, set(old.ids) - set(state.completed))
    return plan.replace(steps=[replace(s, revises=None) for s in plan.steps])


def _same_ids(goal, contract, state, old):
    return old.replace(
        steps=[
            replace(s, action=s.action + " again") if s.id not in state.completed else s
            for s in old.steps
        ]
    )


def _drops_the_voided(goal, contract, state, old):
    return old.replace(steps=[s for s in old.steps if s.id in state.completed])


EX5 = [
    a("right", "notebooks/solutions: just_enough", just_enough),
    a(
        "form",
        "redo the steps not done, by hand",
        lambda g, c, s, old: redo(old, set(old.ids) - set(s.completed)),
    ),
    *harvest(
        t05.test_exercise_5_takes_planviz_reissue_which_its_text_never_forbids,
        "form",
        lambda propose: ((propose,), {}),
    ),
    a(
        "form",
        "keyword, another suffix",
        propose=lambda g, c, s, old: redo(old, set(old.ids) - set(s.completed), suffix="again"),
    ),
    a(
        "form",
        "planviz.reissue of the voided steps, named by the run",
        lambda g, c, s, old: planviz.reissue(
            old, [x for x in old.ids if x not in s.completed], "side effect at S4"
        ),
    ),
    *harvest(t05.test_exercise_5_wrong, "wrong", lambda propose, says: ((propose,), {})),
    a("wrong", "redo every step", lambda g, c, s, old: redo(old, set(old.ids))),
    a(
        "wrong",
        "redo S2 too",
        lambda g, c, s, old: redo(old, (set(old.ids) - set(s.completed)) | {"S2"}),
    ),
    a("wrong", "drops the voided steps", _drops_the_voided),
    a("wrong", "raises", lambda g, c, s, old: 1 / 0),
    a(
        "form",
        "redo S4 only: the voided S3 runs again under its own id (it was never completed)",
        lambda g, c, s, old: redo(old, {"S4"}),
    ),
    a(
        "wrong",
        "redo S0, done long ago",
        lambda g, c, s, old: redo(old, (set(old.ids) - set(s.completed)) | {"S0"}),
    ),
    a(
        "wrong",
        "a plan with the version unchanged and no steps",
        lambda g, c, s, old: old.replace(steps=()),
    ),
    a("wrong", "returns steps, not a plan", lambda g, c, s, old: list(old.steps)),
    a("cheat:identity", "the voided steps changed under their old ids", _same_ids),
    a(
        "form",
        "new ids without revises: the controller adopts them, and the text asks only for no redundant "
        "step and a complete run",
        _renamed_no_revises,
    ),
    a("wrong", "the old plan as it is", lambda g, c, s, old: old),
    a(
        "cheat:vacuous",
        "the goal rewritten to what is done",
        lambda g, c, s, old: _drops_the_voided(g, c, s, old).replace(
            goal="Reproduce and diagnose the leak"
        ),
    ),
    a("cheat:identity", "an object equal to everything", lambda g, c, s, old: Anything()),
    a(
        "cheat:hardcoded",
        "the example's steps by heart, whatever old is",
        lambda g, c, s, old: t05.PLAN,
    ),
]

_SURPLUS_CHEATS = {"a catch-all": "cheat:everything"}
EX7 = [
    a(
        "right" if i == 0 else "form" if passed else "wrong",
        f"test_lesson05_controller row {i}",
        choices=choices,
    )
    for i, (choices, passed) in enumerate(t05c.BANK)
]
EX7 = [
    x if i not in (17, 18, 19) else replace(x, family="cheat:everything") for i, x in enumerate(EX7)
]
EX7 += [
    *value_cheats(lambda v: ((), {"choices": v})),
    a(
        "cheat:identity",
        "each choice an object equal to everything",
        choices={k: Anything() for k in t05c.RIGHT},
    ),
    a(
        "cheat:identity",
        "each choice a str equal to every string",
        choices={
            k: __import__("tests.teaching.bank", fromlist=["EqualStr"]).EqualStr("retry")
            for k in t05c.RIGHT
        },
    ),
]


def _refuse_hardcoded(old, new, goal_changed):
    return not goal_changed and new.goal != "Stop tenants from reading each other's cached pages"


INVARIANTS = [
    build_it("invariants", "05_replanning_rules.py", "refuse"),
    *build_it_forms("invariants", "05_replanning_rules.py", "refuse"),
    *harvest(t05i.test_right_answers_in_any_form_pass, "form", lambda refuse: ((refuse,), {})),
    *[
        x
        for x in harvest(
            t05i.test_wrong_answers_and_cheats_are_not_yet_with_a_hint,
            "wrong",
            lambda refuse, says, hint: ((refuse,), {}),
        )
        if x.args[0] not in (t05i._library, t05i._simulates)
    ],
    a("cheat:import", "changed_invariants, imported inside", t05i._library),
    a("cheat:import", "a simulation that asks the controller", t05i._simulates),
    *library_cheats("invariants"),
    a("cheat:hardcoded", "the example's goal by heart", _refuse_hardcoded),
]


def _expansion(*changes):
    return [{**CUT_OVER[i], **c} for i, c in enumerate(changes)]


EX6 = [
    a("right", "the cut-over and the retirement re-estimated", CUT_OVER),
    a("form", "keyword", steps=CUT_OVER),
    a("form", "a tuple", tuple(CUT_OVER)),
    a("form", "the retirement shorter", _expansion({}, {"duration": 12})),
    a(
        "form",
        "other words for the retirement",
        _expansion(
            {}, {"action": "Drop the old cluster", "expected_evidence": "no connection for a week"}
        ),
    ),
    *harvest(t05f.test_exercise_4_far_wrong, "wrong", lambda steps, says: ((steps,), {})),
    a("wrong", "one hour over", _expansion({}, {"duration": 19})),
    a("wrong", "the cut-over alone", [CUT_OVER[0]]),
    a("wrong", "the retirement alone", [CUT_OVER[1]]),
    a(
        "wrong",
        "the two in the wrong order",
        _expansion({"depends_on": "F2.b"}, {"depends_on": ()}),
    ),
    a("wrong", "a dict of steps", {"F2.a": CUT_OVER[0]}),
    a("wrong", "the ids of the far step reused", _expansion({"id": "F2"}, {"depends_on": "F2"})),
    *[
        replace(x, family="cheat:budget")
        for x in harvest(
            t05f.test_exercise_4_far_gamed, "wrong", lambda steps, says: ((steps,), {})
        )
    ],
    a("cheat:budget", "the retirement takes a negative time", _expansion({}, {"duration": -5})),
    a("wrong", "nothing produces writes_migrated", _expansion({}, {"produces": ()})),
    a(
        "wrong",
        "the cut-over's approval dropped, risk kept",
        [{k: v for k, v in CUT_OVER[0].items() if k != "approval"}, CUT_OVER[1]],
    ),
    a("cheat:budget", "the retirement takes no time", _expansion({}, {"duration": 0})),
    a("cheat:identity", "steps equal to everything", [Anything(), Anything()]),
]

# the library's answers to the check's own random cases, computed before it runs and looked up
INVARIANTS += lookups(
    lambda: [(q.old, q.new, q.goal_changed) for q in _revisions()],
    lambda old, new, changed: (
        changed_invariants(old, new, old.contract) is not None and not changed
    ),
)

BANK = {
    "lesson05.check_exercise_4": EX4,
    "lesson05.check_exercise_5": EX5,
    "lesson05.check_exercise_6": EX6,
    "lesson05.check_exercise_7": EX7,
    "lesson05.check_invariants": INVARIANTS,
}
