"""Notebook 06's answers: what can still run, where a recorded run died and who is to blame, a cut trace, a fixed
run, an executor acting outside the plan, replanning on an empty result."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

import planviz
from planviz.teaching.agreement import reach_cases
from tests.teaching import (
    test_lesson06 as t06,
    test_lesson06_empty as t06e,
    test_lesson06_outside as t06o,
)
from tests.teaching.bank import (
    Anything,
    EqualStr,
    a,
    build_it,
    build_it_forms,
    harvest,
    library_cheats,
    lookups,
    value_cheats,
)
from tests.teaching.test_lesson06 import (
    COMPLETE,
    NAIVE,
    PLAN,
    SIMULATED_DONE,
    STRICT,
    UNFIXED,
    fixed_point,
    from_everything,
    one_pass,
)

_DIR = Path(tempfile.mkdtemp(prefix="planviz-bank-"))
# the traces are read back at import; nothing needs them after
atexit.register(shutil.rmtree, _DIR, True)


def _saved(run, name, lines=None):
    path = _DIR / name
    planviz.save_trace(run, path)
    if lines is not None:
        path.write_text("".join(path.read_text().splitlines(keepends=True)[:lines]))
    return planviz.load_trace(path)


CUT = _saved(NAIVE, "cut.jsonl", 8)
CUT_SHORTER = _saved(NAIVE, "cut7.jsonl", 7)
STRICT_RELOADED = _saved(STRICT, "strict.jsonl")
COMPLETE_RELOADED = _saved(COMPLETE, "complete.jsonl")
EMPTY_RELOADED = _saved(t06e.GOOD, "empty.jsonl")


def _worklist(plan, completed, facts):
    held, found = set(facts), set()
    todo = [s for s in plan.steps if s.id not in completed]
    while True:
        ready = [
            s
            for s in todo
            if s.id not in found
            and all(d in completed or d in found for d in s.depends_on)
            and all(f in held for f in s.requires)
        ]
        if not ready:
            return sorted(found)
        for s in ready:
            found.add(s.id)
            held.update(s.produces)


def _no_requires(plan, completed, facts):
    return fixed_point(
        plan.replace(
            steps=[
                s.__class__(s.id, s.action, depends_on=s.depends_on, produces=s.produces)
                for s in plan.steps
            ]
        ),
        completed,
        facts,
    )


REACHABLE = [
    build_it("reachable", "06_debugging_a_failed_run.py", "reachable"),
    *build_it_forms("reachable", "06_debugging_a_failed_run.py", "reachable"),
    a("form", "a least fixed point", fixed_point),
    a("form", "a worklist, a sorted list", _worklist),
    a("form", "a tuple", lambda plan, completed, facts: tuple(fixed_point(plan, completed, facts))),
    a(
        "form",
        "ids with spaces",
        lambda plan, completed, facts: {f" {x} " for x in fixed_point(plan, completed, facts)},
    ),
    a(
        "form",
        "a frozenset",
        lambda plan, completed, facts: frozenset(fixed_point(plan, completed, facts)),
    ),
    *harvest(t06.test_reachable_wrong, "wrong", lambda fn, hint: ((fn,), {})),
    a("wrong", "requirements ignored", _no_requires),
    a(
        "wrong",
        "every step not completed",
        lambda plan, completed, facts: {s.id for s in plan.steps if s.id not in completed},
    ),
    a(
        "wrong",
        "the steps ready now only",
        lambda plan, completed, facts: {
            s.id
            for s in plan.steps
            if s.id not in completed
            and all(d in completed for d in s.depends_on)
            and all(f in facts for f in s.requires)
        },
    ),
    a(
        "wrong",
        "Step objects",
        lambda plan, completed, facts: {plan.step(x) for x in fixed_point(plan, completed, facts)},
    ),
    a("wrong", "raises", lambda plan, completed, facts: completed.nothing),
    *library_cheats("reachable"),
    a(
        "cheat:import",
        "reach_pass, the library's inner loop",
        __import__("tests.teaching.test_unplugged", fromlist=["_reach_pass"])._reach_pass,
    ),
    a(
        "cheat:import",
        "planviz.invalidated, the other way round",
        __import__(
            "tests.teaching.test_verdicts", fromlist=["_reach_invalidated"]
        )._reach_invalidated,
    ),
    a(
        "cheat:hardcoded",
        "the example's answer by heart",
        lambda plan, completed, facts: {"S1", "S2", "S3", "S4"} - set(completed),
    ),
]
assert from_everything and one_pass  # registered through test_reachable_wrong

EX1 = [
    a("right", "S1, executor", STRICT, "S1", planviz.attribution(STRICT).party),
    a("form", "the words", STRICT, "S1", "executor"),
    *harvest(
        t06.test_exercise_1_reads_ids_and_words_in_any_form,
        "form",
        lambda step, who: ((STRICT, step, who), {}),
    ),
    a("form", "the run read back from its trace", STRICT_RELOADED, "S1", "executor"),
    a("form", "keywords", run=STRICT, failed_step="S1", attribution="the executor"),
    *harvest(
        t06.test_exercise_1_wrong, "wrong", lambda run, step, who, says: ((run, step, who), {})
    ),
    *harvest(
        t06.test_exercise_1_the_failed_step_is_one_that_ran,
        "wrong",
        lambda step, says: ((STRICT, step, "executor"), {}),
    ),
    a("wrong", "S0", STRICT, "S0", "executor"),
    a("wrong", "environment", STRICT, "S1", "environment"),
    a("cheat:everything", "every attribution", STRICT, "S1", "executor, planner, environment"),
    a("cheat:everything", "every step", STRICT, "S0 S1 S2 S3 S4", "executor"),
    *value_cheats(lambda v: ((STRICT, v, "executor"), {})),
    *value_cheats(lambda v: ((STRICT, "S1", v), {})),
    a("cheat:identity", "a run equal to everything", Anything(), "S1", "executor"),
]

EX2 = [
    a("right", "the cut run, b", CUT, "b"),
    a("form", "B.", CUT, "B."),
    a("form", "keywords, (b)", run=CUT, choice="(b)"),
    a("form", "a shorter cut", CUT_SHORTER, "b"),
    a("form", "spaces", CUT, " b "),
    a("wrong", "choice a", CUT, "a"),
    a("wrong", "choice c", CUT, "c"),
    a("wrong", "no choice", CUT, None),
    a("wrong", "the whole run", NAIVE, "b"),
    a("wrong", "a run that completes", COMPLETE, "b"),
    a("wrong", "a simulated run", SIMULATED_DONE, "b"),
    a("wrong", "no run", None, "b"),
    a("wrong", "the trace's path", str(_DIR / "cut.jsonl"), "b"),
    a("wrong", "the plan", PLAN, "b"),
    a("wrong", "choice d", CUT, "d"),
    a("wrong", "the events, not the run", CUT.events, "b"),
    a("wrong", "choice as a number", CUT, 2),
    a("wrong", "the whole run read back from its trace", _saved(NAIVE, "naive.jsonl"), "b"),
    a("cheat:everything", "every letter", CUT, "abc"),
    a("cheat:everything", "letters as a list", CUT, ["a", "b", "c"]),
    a("cheat:everything", "a or b", CUT, "a or b"),
    *value_cheats(lambda v: ((CUT, v), {})),
    a("cheat:identity", "a run equal to everything", Anything(), "b"),
    a("cheat:identity", "a str equal to every string for the run", EqualStr("run"), "b"),
]

EX3 = [
    a("right", "the completed run, b", COMPLETE, "b"),
    a("form", "read back from its trace", COMPLETE_RELOADED, "b"),
    a("form", "(b).", COMPLETE, "(b)."),
    a("form", "keywords, B", run=COMPLETE, choice="B"),
    a("form", "spaces", COMPLETE, " b"),
    *harvest(t06.test_exercise_3_wrong, "wrong", lambda run, choice, says: ((run, choice), {})),
    a("wrong", "the strict run", STRICT, "b"),
    a("wrong", "the cut run", CUT, "b"),
    a("wrong", "no choice", COMPLETE, None),
    a("wrong", "choice d", COMPLETE, "d"),
    a("wrong", "choice as a number", COMPLETE, 2),
    a("wrong", "the strict run read back", STRICT_RELOADED, "b"),
    a("wrong", "a run list", [COMPLETE], "b"),
    a("cheat:everything", "every letter", COMPLETE, "abc"),
    a("cheat:everything", "letters as a list", COMPLETE, ["a", "b"]),
    a(
        "cheat:vacuous",
        "the run that completes with locate unfixed, reloaded",
        _saved(UNFIXED, "unfixed.jsonl"),
        "b",
    ),
    *value_cheats(lambda v: ((COMPLETE, v), {})),
    a("cheat:identity", "a run equal to everything", Anything(), "b"),
]

_CHEAT4 = {
    id(t06o.FAITHFUL): "cheat:vacuous",
    id(t06o.SWAPPED): "cheat:identity",
    id(t06o.SIMULATED): "cheat:identity",
}
EX4 = [
    a(
        "right" if i == 0 else "form" if passed else _CHEAT4.get(id(run), "wrong"),
        f"test_lesson06_outside row {i}",
        run=run,
        out_of_plan=out,
        attribution=who,
    )
    for i, (run, out, who, passed) in enumerate(t06o.BANK)
]
EX4 += [
    *value_cheats(lambda v: ((), {"run": t06o.EAGER, "out_of_plan": v, "attribution": "executor"})),
    a(
        "cheat:everything",
        "every step of the run",
        run=t06o.EAGER,
        out_of_plan=sorted({e.step for e in t06o.EAGER.events if e.step}),
        attribution="executor",
    ),
]

_REGISTERED = {name for name, _ in t06e.BANK}
_CHEAT5 = {"NOTHING_WRONG": "cheat:vacuous", "SIMULATED": "cheat:identity", "LEAF": "cheat:vacuous"}
EX5 = [
    a(
        "right" if i == 0 else "form" if passed else _CHEAT5.get(name, "wrong"),
        f"test_lesson06_empty: {name}",
        run=t06e._value(name, EMPTY_RELOADED),
    )
    for i, (name, passed) in enumerate(t06e.BANK)
]
EX5 += [
    a("cheat:identity", "a run equal to everything", run=Anything()),
    a("cheat:identity", "a str equal to every string", run=EqualStr("GOOD")),
]

# the library's answers to the check's own random cases, computed before it runs and looked up
REACHABLE += lookups(
    reach_cases, lambda plan, completed, facts: planviz.reachable(plan, completed, facts).steps
)

BANK = {
    "lesson06.check_reachable": REACHABLE,
    "lesson06.check_exercise_1": EX1,
    "lesson06.check_exercise_2": EX2,
    "lesson06.check_exercise_3": EX3,
    "lesson06.check_exercise_4": EX4,
    "lesson06.check_exercise_5": EX5,
}
