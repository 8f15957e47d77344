"""Notebook 03's answers: the two passes, the ready waves, the new critical path, what each step saves, the
workers a wider plan needs."""

from __future__ import annotations

from functools import lru_cache

import planviz
from planviz.structure.index import structure_index
from planviz.teaching.cases import timed_plans
from tests.teaching import test_lesson03 as t03
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
from tests.teaching.test_lesson03 import SAVED, _waves_over_a_topological_order, _wider

PATH = ["S0", "S2", "S3", "S4"]
EX1 = [
    a("right", "the new path and 30", path=PATH, makespan=30),
    *harvest(
        t03.test_exercise_1_right,
        "form",
        lambda path, makespan: ((), {"path": path, "makespan": makespan}),
    ),
    *harvest(
        t03.test_exercise_1_reads_ids_in_any_case,
        "form",
        lambda path, makespan: ((), {"path": path, "makespan": makespan}),
    ),
    a("form", "positional, 30.0 as text", PATH, "30.0"),
    a("form", "a Decimal", path=PATH, makespan=__import__("decimal").Decimal("30")),
    *harvest(
        t03.test_exercise_1_wrong,
        "wrong",
        lambda path, makespan, says: ((), {"path": path, "makespan": makespan}),
    ),
    a("wrong", "off by one", path=PATH, makespan=31),
    a("wrong", "a makespan of infinity", path=PATH, makespan=float("inf")),
    a("wrong", "a hair over 30", path=PATH, makespan="30.01"),
    a("wrong", "the path reversed", path=PATH[::-1], makespan=30),
    a(
        "cheat:everything",
        "every step of the plan",
        path=["S0", "S1", "S2", "S3", "S4"],
        makespan=30,
    ),
    a("cheat:identity", "a set, read in some hash order", path=set(PATH), makespan=30),
    *value_cheats(lambda v: ((), {"path": v, "makespan": 30})),
    *value_cheats(lambda v: ((), {"path": PATH, "makespan": v})),
]

EX2 = [
    a("right", "what each step saves", SAVED),
    a("form", "floats", {k: float(v) for k, v in SAVED.items()}),
    a("form", "with the unit", {k: f"{v} min" for k, v in SAVED.items()}),
    a("form", "numbers as text", {k: str(v) for k, v in SAVED.items()}),
    a("form", "keys in lower case", {k.lower(): v for k, v in SAVED.items()}),
    a("form", "keys with spaces, another order", {f" {k}": SAVED[k] for k in reversed(SAVED)}),
    *harvest(t03.test_exercise_2_wrong, "wrong", lambda answer, says, hint: ((answer,), {})),
    a(
        "wrong",
        "Step objects as keys",
        {planviz.examples.load("cache_isolation").step(k): v for k, v in SAVED.items()},
    ),
    a("wrong", "S1 off by one", {**SAVED, "S1": 4}),
    a("wrong", "S2 saves its slack", {**SAVED, "S2": 5}),
    a("wrong", "the makespans, not the savings", {k: 29 - v for k, v in SAVED.items()}),
    a("wrong", "an extra step", {**SAVED, "S5": 0}),
    a("wrong", "an extra step with a saving", {**SAVED, "S9": 6}),
    a("wrong", "a saving as a word", {**SAVED, "S2": "none"}),
    a("cheat:everything", "every saving a range", {k: "0-6" for k in SAVED}),
    a("cheat:everything", "every saving a list", {k: [0, 5, 6] for k in SAVED}),
    *value_cheats(lambda v: ((v,), {})),
    a(
        "cheat:identity",
        "each saving an object equal to everything",
        {k: Anything() for k in SAVED},
    ),
]

EX3 = [
    a("right", "S5 after S0, two workers", plan=_wider(), workers=2),
    a("form", "S0 listed twice", plan=_wider(depends_on=("S0", "S0")), workers=2),
    a("form", "workers as text", plan=_wider(), workers="2"),
    a("form", "workers 2.0", plan=_wider(), workers=2.0),
    a(
        "form",
        "depends_on as a list, other words",
        plan=_wider(depends_on=["S0"], expected_evidence="notes"),
        workers=2,
    ),
    *harvest(
        t03.test_exercise_3_wrong,
        "wrong",
        lambda plan, workers, says: ((), {"plan": plan, "workers": workers}),
    ),
    a("wrong", "workers as a word", plan=_wider(), workers="two"),
    a("wrong", "S5 after nothing", plan=_wider(depends_on=()), workers=2),
    a("wrong", "S5 takes 5", plan=_wider(duration=5), workers=2),
    a("wrong", "S5 after S4", plan=_wider(depends_on="S4"), workers=2),
    a("wrong", "workers off by one", plan=_wider(), workers=3.0),
    a("cheat:everything", "every number of workers", plan=_wider(), workers=[1, 2, 3]),
    a("cheat:budget", "S5 takes no time", plan=_wider(duration=0), workers=1),
    a(
        "cheat:identity",
        "S5 under S2's id",
        plan=_wider().replace(steps=_wider().steps[:-1]),
        workers=2,
    ),
    *value_cheats(lambda v: ((), {"plan": _wider(), "workers": v})),
    a("cheat:identity", "a plan equal to everything", plan=Anything(), workers=2),
]


def _memo_passes(plan, as_lists=False):
    steps = {s.id: s for s in plan.steps}
    after = {sid: [s.id for s in plan.steps if sid in s.depends_on] for sid in steps}

    @lru_cache(None)
    def es(sid):
        return max((es(d) + steps[d].duration for d in steps[sid].depends_on), default=0)

    end = max((es(s) + steps[s].duration for s in steps), default=0)

    @lru_cache(None)
    def ls(sid):
        return min((ls(k) for k in after[sid]), default=end) - steps[sid].duration

    return {sid: [es(sid), ls(sid)] if as_lists else (es(sid), ls(sid)) for sid in steps}


def _variant(fn):
    return lambda plan: {sid: fn(plan, sid, pair) for sid, pair in _memo_passes(plan).items()}


def _no_slack(plan):
    return {sid: (es, es) for sid, (es, _) in _memo_passes(plan).items()}


def _no_durations(plan):
    return _memo_passes(
        plan.replace(
            steps=[
                s.replace(duration=1)
                if hasattr(s, "replace")
                else __import__("dataclasses").replace(s, duration=1)
                for s in plan.steps
            ]
        )
    )


def _critical_path_cheat(plan):
    cp = planviz.critical_path(plan)
    return {s: (t.es, t.ls) for s, t in cp.steps.items()}


PASSES = [
    build_it("critical_path", "03_critical_path.py", "passes"),
    *build_it_forms("critical_path", "03_critical_path.py", "passes"),
    a("form", "memoised recursion", _memo_passes),
    a("form", "lists for the pairs", lambda plan: _memo_passes(plan, as_lists=True)),
    a("form", "floats as text", _variant(lambda plan, sid, p: (f"{p[0]}", f"{p[1]}"))),
    a("form", "ids with spaces", lambda plan: {f" {k} ": v for k, v in _memo_passes(plan).items()}),
    a("form", "floats", _variant(lambda plan, sid, p: (float(p[0]), float(p[1])))),
    a("wrong", "no slack: latest is earliest", _no_slack),
    a("wrong", "every step takes 1", _no_durations),
    a("wrong", "latest off by one", _variant(lambda plan, sid, p: (p[0], p[1] + 1))),
    a(
        "wrong",
        "earliest finish for earliest start",
        _variant(lambda plan, sid, p: (p[0] + plan.step(sid).duration, p[1])),
    ),
    a("wrong", "one step missing", lambda plan: dict(list(_memo_passes(plan).items())[1:])),
    a("wrong", "the pair swapped", _variant(lambda plan, sid, p: (p[1], p[0]))),
    a("wrong", "a list of pairs", lambda plan: list(_memo_passes(plan).values())),
    a("wrong", "raises", lambda plan: 1 / 0),
    a("wrong", "no answer", None),
    *library_cheats("critical_path"),
    a("cheat:import", "the public critical_path", _critical_path_cheat),
    a(
        "cheat:hardcoded",
        "the example's passes by heart",
        lambda plan: {"S0": (0, 0), "S1": (5, 5), "S2": (5, 10), "S3": (13, 13), "S4": (19, 19)},
    ),
]


def _waves_by_rounds(plan):
    left, out, done = {s.id: set(s.depends_on) for s in plan.steps}, [], set()
    while left:
        wave = {sid for sid, deps in left.items() if deps <= done}
        out.append(sorted(wave))
        done |= wave
        for sid in wave:
            del left[sid]
    return out


def _structure_levels(plan):
    levels = structure_index(plan).levels()
    return [
        {s for s, k in levels.items() if k == w}
        for w in range(1 + max(levels.values(), default=-1))
    ]


WAVES = [
    build_it("ready_waves", "03_critical_path.py", "waves"),
    *build_it_forms("ready_waves", "03_critical_path.py", "waves"),
    a("form", "rounds of the ready steps, sorted lists", _waves_by_rounds),
    a("form", "over networkx's topological order (allowed)", _waves_over_a_topological_order),
    a(
        "form",
        "frozensets in a tuple",
        lambda plan: tuple(frozenset(w) for w in _waves_by_rounds(plan)),
    ),
    a(
        "form",
        "ids with spaces",
        lambda plan: [{f" {s}" for s in w} for w in _waves_by_rounds(plan)],
    ),
    a("wrong", "one wave per step, in file order", lambda plan: [{s.id} for s in plan.steps]),
    a("wrong", "everything in one wave", lambda plan: [set(plan.ids)]),
    a("wrong", "waves reversed", lambda plan: _waves_by_rounds(plan)[::-1]),
    a("wrong", "the first wave dropped", lambda plan: _waves_by_rounds(plan)[1:]),
    a(
        "wrong",
        "a step by its number of parents",
        lambda plan: [
            {s.id for s in plan.steps if len(set(s.depends_on)) == k}
            for k in range(1 + max((len(set(s.depends_on)) for s in plan.steps), default=-1))
        ],
    ),
    a("wrong", "a flat list of ids", lambda plan: [s for w in _waves_by_rounds(plan) for s in w]),
    a(
        "wrong",
        "a dict id -> wave",
        lambda plan: {s: i for i, w in enumerate(_waves_by_rounds(plan)) for s in w},
    ),
    a("wrong", "raises", lambda plan: plan.waves),
    a("wrong", "no answer", None),
    *library_cheats("ready_waves"),
    a("cheat:import", "structure_index(plan).levels()", _structure_levels),
    a(
        "cheat:import",
        "planviz.ready_waves",
        lambda plan: [set(w) for w in planviz.ready_waves(plan)],
    ),
    a(
        "cheat:hardcoded",
        "the example's waves by heart",
        lambda plan: [{"S0"}, {"S1", "S2"}, {"S3"}, {"S4"}],
    ),
]

# the library's answers to the check's own random cases, computed before it runs and looked up
PASSES += lookups(
    lambda: [(p,) for p in timed_plans()],
    lambda plan: {sid: (t.es, t.ls) for sid, t in planviz.critical_path(plan).steps.items()},
)
WAVES += lookups(
    lambda: [(p,) for p in timed_plans(seed=2035)], lambda plan: planviz.ready_waves(plan)
)

BANK = {
    "lesson03.check_exercise_1": EX1,
    "lesson03.check_exercise_2": EX2,
    "lesson03.check_exercise_3": EX3,
    "lesson03.check_critical_path": PASSES,
    "lesson03.check_ready_waves": WAVES,
}
