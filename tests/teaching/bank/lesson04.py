"""Notebook 04's answers: what a withdrawn fact voids, retries, the fault that voids most, a side effect's scope."""

from __future__ import annotations

from functools import cache

import planviz
from planviz import Fault
from planviz.teaching.cases import patch_cases
from tests.teaching import test_lesson04 as t04
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
from tests.teaching.test_unplugged import _scope_with_descendants, solution

EX1 = [
    a(
        "right",
        "the run's voided and kept, restart S1",
        voided={"S1", "S3"},
        kept={"S0", "S2"},
        restart="S1",
    ),
    *harvest(
        t04.test_exercise_1_right,
        "form",
        lambda voided: ((), {"voided": voided, "kept": {"S0", "S2"}, "restart": "S1"}),
    ),
    *harvest(
        t04.test_exercise_1_reads_ids_in_any_form,
        "form",
        lambda voided, kept, restart: ((), {"voided": voided, "kept": kept, "restart": restart}),
    ),
    a(
        "form",
        "S1.v2, the id that runs next",
        voided={"S1", "S3"},
        kept={"S0", "S2"},
        restart="S1.v2",
    ),
    a("form", "positional, tuples, spaces", ("S1", "S3"), (" S0", "S2 "), " S1 "),
    *harvest(
        t04.test_exercise_1_wrong,
        "wrong",
        lambda voided, kept, restart, says: ((voided, kept, restart), {}),
    ),
    a("wrong", "S2 voided too", voided={"S1", "S2", "S3"}, kept={"S0"}, restart="S1"),
    a("wrong", "restart at S0", voided={"S1", "S3"}, kept={"S0", "S2"}, restart="S0"),
    a(
        "wrong",
        "Step objects",
        voided=[planviz.examples.load("cache_isolation").step("S1")],
        kept={"S0"},
        restart="S1",
    ),
    a("wrong", "S3 missing", voided={"S1"}, kept={"S0", "S2"}, restart="S1"),
    a("wrong", "restart S3.v2", voided={"S1", "S3"}, kept={"S0", "S2"}, restart="S3.v2"),
    a(
        "wrong",
        "restart S1.v3, a version that never ran",
        voided={"S1", "S3"},
        kept={"S0", "S2"},
        restart="S1.v3",
    ),
    a("wrong", "restart as a list", voided={"S1", "S3"}, kept={"S0", "S2"}, restart=["S1"]),
    a(
        "cheat:everything",
        "every step voided and kept",
        voided={"S0", "S1", "S2", "S3", "S4"},
        kept={"S0", "S1", "S2", "S3", "S4"},
        restart="S1",
    ),
    a(
        "cheat:everything",
        "restart anywhere",
        voided={"S1", "S3"},
        kept={"S0", "S2"},
        restart="S0 S1 S3",
    ),
    *value_cheats(lambda v: ((), {"voided": v, "kept": {"S0", "S2"}, "restart": "S1"})),
    *value_cheats(lambda v: ((), {"voided": {"S1", "S3"}, "kept": {"S0", "S2"}, "restart": v})),
]

EX2 = [
    a("right", "plan_complete, step_failed, 3", "plan_complete", "step_failed", 3),
    a("form", "keywords", outcome_2="plan_complete", outcome_3="step_failed", attempts_3=3),
    a("form", "case, spaces, 3 as text", " plan_complete", "Step_Failed", "3"),
    a("form", "3.0", "plan_complete", "step_failed", 3.0),
    a("form", "spaces for underscores", "plan complete", "step failed", " 3 "),
    *harvest(t04.test_exercise_2_wrong, "wrong", lambda answer, says: (answer, {})),
    a("wrong", "attempts off by one", "plan_complete", "step_failed", 2),
    a("wrong", "swapped", "step_failed", "plan_complete", 3),
    a("wrong", "both complete", "plan_complete", "plan_complete", 3),
    a("wrong", "attempts as a word", "plan_complete", "step_failed", "three"),
    a("wrong", "attempts 3.5", "plan_complete", "step_failed", 3.5),
    a("wrong", "a stop reason for an outcome", "plan_complete", "refused", 3),
    a("wrong", "attempts True", "plan_complete", "step_failed", True),
    a("wrong", "no attempts", "plan_complete", "step_failed", None),
    a("wrong", "replanned", "replanned", "step_failed", 3),
    a(
        "cheat:everything",
        "both outcomes each",
        ["plan_complete", "step_failed"],
        ["plan_complete", "step_failed"],
        3,
    ),
    a("cheat:everything", "every count", "plan_complete", "step_failed", [2, 3, 4]),
    *value_cheats(lambda v: ((v, "step_failed", 3), {})),
    *value_cheats(lambda v: (("plan_complete", v, 3), {})),
    *value_cheats(lambda v: (("plan_complete", "step_failed", v), {})),
]

EX3 = [
    a("right", "a goal change at S4, transient", Fault("S4", "goal_change"), "transient"),
    *harvest(t04.test_exercise_3_right, "form", lambda most: ((most, "transient"), {})),
    a(
        "form",
        "keywords, the kind in capitals",
        most=Fault("S4", "goal_change"),
        never=" Transient ",
    ),
    a("form", "the kind with spaces", Fault("S4", "goal_change"), "transient "),
    *harvest(t04.test_exercise_3_wrong, "wrong", lambda most, never, says: ((most, never), {})),
    *harvest(
        t04.test_exercise_3_an_unhashable_or_odd_kind_is_a_hint_not_a_crash,
        "wrong",
        lambda never: ((Fault("S4", "goal_change"), never), {}),
    ),
    a("wrong", "a goal change at S0", Fault("S0", "goal_change"), "transient"),
    a(
        "wrong",
        "a withdraw at S3",
        Fault("S3", "withdraw", fact="key_builder_located"),
        "transient",
    ),
    a("wrong", "goal change never voids", Fault("S4", "goal_change"), "goal_change"),
    a("wrong", "a transient at S4", Fault("S4", "transient"), "transient"),
    a("wrong", "withdraw never voids", Fault("S4", "goal_change"), "withdraw"),
    a("wrong", "a side effect at S3", Fault("S3", "side_effect"), "transient"),
    a("wrong", "a goal change at S3", Fault("S3", "goal_change"), "transient"),
    a("wrong", "the fault as text", "Fault('S4', 'goal_change')", "transient"),
    a(
        "cheat:everything",
        "every kind",
        Fault("S4", "goal_change"),
        "transient, withdraw, side_effect",
    ),
    a(
        "cheat:everything",
        "a list of faults",
        [Fault("S4", "goal_change"), Fault("S3", "side_effect")],
        "transient",
    ),
    a("cheat:identity", "a fault equal to everything", Anything(), "transient"),
    *value_cheats(lambda v: ((Fault("S4", "goal_change"), v), {})),
]


REFERENCE = solution("04_simulated_run.py", "voided")


@cache
def _scope(downstream=True, itself=True):
    reference = REFERENCE

    def scope(plan, step_id):
        out = set(reference(plan, step_id))
        if not downstream:
            out = {s for s in out if not any(d in out for d in plan.step(s).depends_on)}
        if not itself:
            out.discard(step_id)
        return out

    return scope


def _first_patch_in_file(plan, step_id):
    """The first patch of the file among the ancestors, not the nearest: a tie rule of its own."""
    steps = {s.id: s for s in plan.steps}
    seen, todo = set(), list(steps[step_id].depends_on)
    while todo:
        x = todo.pop()
        if x not in seen:
            seen.add(x)
            todo.extend(steps[x].depends_on)
    patches = [s.id for s in plan.steps if s.id in seen and s.kind == "patch"]
    roots = (
        [step_id]
        if steps[step_id].kind == "patch"
        else patches[:1] or sorted(set(steps[step_id].depends_on)) or [step_id]
    )
    found, todo = set(), list(roots)
    while todo:
        x = todo.pop()
        if x not in found:
            found.add(x)
            todo.extend(s.id for s in plan.steps if x in s.depends_on)
    return found


SCOPE = [
    build_it("failure_scope", "04_simulated_run.py", "voided"),
    *build_it_forms("failure_scope", "04_simulated_run.py", "voided"),
    a("form", "everything downstream from nx.descendants (allowed)", _scope_with_descendants),
    a("form", "a sorted list", lambda plan, sid: sorted(_scope()(plan, sid))),
    a(
        "form",
        "a tuple with spaces",
        lambda plan, sid: tuple(f" {x} " for x in _scope()(plan, sid)),
    ),
    a("form", "a frozenset", lambda plan, sid: frozenset(_scope()(plan, sid))),
    a("form", "dict keys", lambda plan, sid: dict.fromkeys(_scope()(plan, sid)).keys()),
    a("wrong", "the roots only, nothing downstream", _scope(downstream=False)),
    a("wrong", "the step itself left out", _scope(itself=False)),
    a("wrong", "the first patch of the file, not the nearest", _first_patch_in_file),
    a(
        "wrong",
        "the step and its dependents only",
        lambda plan, sid: {sid} | {s.id for s in plan.steps if sid in s.depends_on},
    ),
    a("wrong", "every step", lambda plan, sid: set(plan.ids)),
    a("wrong", "nothing", lambda plan, sid: set()),
    a("wrong", "the step alone", lambda plan, sid: {sid}),
    a("wrong", "Step objects", lambda plan, sid: {plan.step(x) for x in _scope()(plan, sid)}),
    a("wrong", "raises", lambda plan, sid: plan.step("no such step")),
    a("wrong", "no answer", None),
    *library_cheats("failure_scope"),
    a(
        "cheat:import",
        "planviz.invalidated after a simulated side effect",
        lambda plan, sid: set(planviz.failure_scope(plan, sid, "side_effect").voided),
    ),
    a(
        "cheat:hardcoded",
        "the example's scope by heart",
        lambda plan, sid: {"S3", "S4"} if sid != "S0" else {"S0"},
    ),
]

# the library's answers to the check's own random cases, computed before it runs and looked up
SCOPE += lookups(
    patch_cases, lambda plan, sid: planviz.failure_scope(plan, sid, "side_effect").voided
)

BANK = {
    "lesson04.check_exercise_1": EX1,
    "lesson04.check_exercise_2": EX2,
    "lesson04.check_exercise_3": EX3,
    "lesson04.check_failure_scope": SCOPE,
}
