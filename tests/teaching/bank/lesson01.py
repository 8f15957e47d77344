"""Notebook 01's answers: ancestors, a topological order, the new step S5, the facts of its edge, the finding
without its depends_on."""

from __future__ import annotations

import graphlib
from collections import deque
from dataclasses import replace

import networkx as nx

import planviz
from planviz.structure.index import structure_index
from planviz.teaching.agreement import ancestor_cases
from planviz.teaching.cases import order_plans
from tests.teaching.bank import (
    Anything,
    a,
    build_it,
    build_it_forms,
    library_cheats,
    lookups,
    value_cheats,
)
from tests.teaching.test_lesson01 import (
    _with,
    ancestors,
    earlier_in_file,
    parents_only,
    raises,
    with_itself,
)
from tests.teaching.test_verdicts import _ancestors, _hidden_library, _with_s5

PLAN = planviz.examples.load("cache_isolation")
# what the example plan's steps' ancestors are, read off its depends_on by hand: S0 <- S1, S2 <- S3 <- S4
SEEN = {
    "S0": set(),
    "S1": {"S0"},
    "S2": {"S0"},
    "S3": {"S0", "S1", "S2"},
    "S4": {"S0", "S1", "S2", "S3"},
}


def _bfs(plan, step_id):
    found, queue = set(), deque(plan.step(step_id).depends_on)
    while queue:
        sid = queue.popleft()
        if sid not in found:
            found.add(sid)
            queue.extend(plan.step(sid).depends_on)
    return found


def _fixpoint(plan, step_id):
    found = set(plan.step(step_id).depends_on)
    while True:
        more = found | {d for x in found for d in plan.step(x).depends_on}
        if more == found:
            return sorted(found)
        found = more


def _grandparents_only(plan, step_id):
    parents = set(plan.step(step_id).depends_on)
    return parents | {d for p in parents for d in plan.step(p).depends_on}


def _dependents(plan, step_id):
    return {s.id for s in plan.steps if step_id in s.depends_on}


ANCESTORS = [
    build_it("ancestors", "01_checklist_to_plan.py", "ancestors"),
    *build_it_forms("ancestors", "01_checklist_to_plan.py", "ancestors"),
    a("form", "recursive, a set", ancestors),
    a("form", "a queue, breadth first", _bfs),
    a("form", "a fixpoint, as a sorted list", _fixpoint),
    a("form", "a list", lambda plan, sid: list(_ancestors(plan, sid))),
    a("form", "a sorted tuple", lambda plan, sid: tuple(sorted(_ancestors(plan, sid)))),
    a(
        "form",
        "ids with spaces around",
        lambda plan, sid: {f" {x} " for x in _ancestors(plan, sid)},
    ),
    a("form", "a dict's keys", lambda plan, sid: {x: True for x in _ancestors(plan, sid)}.keys()),
    a("form", "a frozenset", lambda plan, sid: frozenset(_ancestors(plan, sid))),
    a("wrong", "parents only", parents_only),
    a("wrong", "two levels only", _grandparents_only),
    a("wrong", "earlier in the file", earlier_in_file),
    a("wrong", "with the step itself", with_itself),
    a("wrong", "the dependents, the other way", _dependents),
    a("wrong", "raises", raises),
    a("wrong", "returns None", lambda plan, sid: None),
    a("wrong", "returns one id as a str", lambda plan, sid: "S0"),
    a(
        "wrong",
        "step objects, not ids",
        lambda plan, sid: {plan.step(d) for d in _ancestors(plan, sid)},
    ),
    a("wrong", "a name, not a function", "ancestors"),
    a("wrong", "no answer", None),
    *library_cheats("ancestors"),
    a("cheat:getattr", "a name the code reader cannot see, through a helper", _hidden_library),
    a(
        "cheat:hardcoded",
        "the example plan's ancestors, learnt by heart",
        lambda plan, sid: SEEN.get(sid, set()),
    ),
]


def _kahn_largest_first(plan):
    waiting = {s.id: set(s.depends_on) for s in plan.steps}
    placed = []
    while waiting:
        ready = sorted((sid for sid, deps in waiting.items() if not deps), reverse=True)
        if not ready:
            return None
        placed.append(ready[0])
        del waiting[ready[0]]
        for deps in waiting.values():
            deps.discard(ready[0])
    return placed


def _depth_first(plan):
    state, out = {}, []

    def visit(sid):
        if state.get(sid) == "done":
            return True
        if state.get(sid) == "open":
            return False
        state[sid] = "open"
        if not all(visit(d) for d in plan.step(sid).depends_on):
            return False
        state[sid] = "done"
        out.append(sid)
        return True

    return tuple(out) if all(visit(s.id) for s in plan.steps) else None


def _by_depth(plan):
    """Each step after the longest chain below it; steps never settled after len(plan) rounds sit on a cycle."""
    depth = {s.id: 0 for s in plan.steps}
    for _ in range(len(plan.steps) + 1):
        new = {s.id: max((depth[d] + 1 for d in s.depends_on), default=0) for s in plan.steps}
        if new == depth:
            return sorted(depth, key=lambda sid: (depth[sid], sid))
        depth = new
    return None


def _file_order(plan):
    return list(plan.ids)


def _sorted_ids(plan):
    return sorted(plan.ids)


def _never_none(plan):
    waiting = {s.id: set(s.depends_on) for s in plan.steps}
    placed = []
    while waiting:
        ready = sorted(sid for sid, deps in waiting.items() if not deps) or sorted(waiting)
        placed.append(ready[0])
        del waiting[ready[0]]
        for deps in waiting.values():
            deps.discard(ready[0])
    return placed


def _structure_order(plan):
    ix = structure_index(plan)
    return list(ix.order) if ix.clean else None


def _graphlib_order(plan):
    try:
        return list(
            graphlib.TopologicalSorter({s.id: set(s.depends_on) for s in plan.steps}).static_order()
        )
    except graphlib.CycleError:
        return None


def _oracle_itself(plan):
    from planviz.teaching import lesson01

    return lesson01._order_oracle(plan)


ORDER = [
    build_it("topological_order", "01_checklist_to_plan.py", "order"),
    *build_it_forms("topological_order", "01_checklist_to_plan.py", "order"),
    a("form", "Kahn's algorithm, the largest id first", _kahn_largest_first),
    a("form", "depth first, a tuple", _depth_first),
    a("form", "by depth, fixpoint rounds", _by_depth),
    a(
        "form",
        "ids with spaces",
        lambda plan: None if (o := _depth_first(plan)) is None else [f" {x}" for x in o],
    ),
    a("wrong", "the file's order", _file_order),
    a("wrong", "the ids sorted", _sorted_ids),
    a("wrong", "never None, even on a cycle", _never_none),
    a("wrong", "always None", lambda plan: None),
    a("wrong", "a set: no order", lambda plan: set(plan.ids)),
    a(
        "wrong",
        "one step short",
        lambda plan: None if (o := _depth_first(plan)) is None else list(o)[:-1],
    ),
    a(
        "wrong",
        "reversed",
        lambda plan: None if (o := _depth_first(plan)) is None else list(o)[::-1],
    ),
    a("wrong", "a str", lambda plan: " ".join(plan.ids)),
    a("wrong", "raises", lambda plan: 1 / 0),
    a("wrong", "no answer", None),
    *library_cheats("topological_order"),
    a("cheat:import", "structure_index(plan).order", _structure_order),
    a("cheat:import", "graphlib's sorter", _graphlib_order),
    a("cheat:getattr", "the check's own oracle", _oracle_itself),
    a(
        "cheat:hardcoded",
        "the example plan's order, learnt by heart",
        lambda plan: ["S0", "S1", "S2", "S3", "S4"],
    ),
]

EX1 = [
    a("right", "S5 after S4", _with()),
    a("form", "S5 after S3 and S4 (a redundant edge)", _with(depends_on=("S3", "S4"))),
    a("form", "depends_on as a list", _with(depends_on=["S4"])),
    a("form", "requires in another order", _with(requires=["hit_rate_ok", "isolation_verified"])),
    a(
        "form",
        "other words for the description and evidence",
        _with(action="Ship it behind a flag", expected_evidence="flag on, test passes"),
    ),
    a("form", "written back and read again", planviz.parse_plan(planviz.dump_plan(_with()))),
    a("wrong", "no answer", None),
    a("wrong", "a tuple of steps", PLAN.steps),
    a("wrong", "the plan without S5", PLAN),
    a("wrong", "s5 in lower case", _with(id="s5")),
    a("wrong", "after S3 only", _with(depends_on="S3")),
    a("wrong", "no depends_on", _with(depends_on=())),
    a("wrong", "no evidence", _with(expected_evidence="")),
    a("wrong", "one requirement missing", _with(requires=["isolation_verified"])),
    a("wrong", "produces nothing", _with(produces=())),
    a(
        "wrong",
        "S0 changed",
        _with().replace(steps=(replace(PLAN.steps[0], duration=1),) + _with().steps[1:]),
    ),
    a("wrong", "after S0 only", _with(depends_on="S0")),
    a(
        "cheat:vacuous",
        "the facts vouched for as premises",
        _with_s5().replace(premises=PLAN.premises + ("isolation_verified", "hit_rate_ok")),
    ),
    a(
        "cheat:vacuous",
        "the facts given by the contract",
        _with_s5().replace(
            contract=replace(PLAN.contract, given_facts=("isolation_verified", "hit_rate_ok"))
        ),
    ),
    a(
        "cheat:vacuous",
        "after S3, the missing fact a premise",
        _with_s5(depends_on="S3").replace(premises=PLAN.premises + ("hit_rate_ok",)),
    ),
    a("cheat:identity", "an object equal to everything", Anything()),
    a("cheat:identity", "S5 under S4's id", _with(id="S4")),
    a(
        "cheat:identity",
        "S4 renamed S5",
        PLAN.replace(steps=PLAN.steps[:-1] + (replace(PLAN.steps[-1], id="S5"),)),
    ),
    a("cheat:vacuous", "S5 with no requirements at all", _with(requires=())),
    a(
        "cheat:vacuous",
        "requires the facts, produces them too",
        _with(depends_on=(), produces=("fix_deployed", "isolation_verified", "hit_rate_ok")),
    ),
]

FACTS = ["hit_rate_ok", "isolation_verified"]
EX2 = [
    a("right", "the two facts", FACTS),
    a("form", "a tuple, the other order", ("isolation_verified", "hit_rate_ok")),
    a("form", "spaces around", [" isolation_verified", "hit_rate_ok "]),
    a("form", "text with a comma", "isolation_verified, hit_rate_ok"),
    a("form", "upper case", ["ISOLATION_VERIFIED", "Hit_Rate_OK"]),
    a("form", "a generator", (f for f in ("isolation_verified", "hit_rate_ok"))),
    a("form", "a set", set(FACTS)),
    a("form", "a frozenset", frozenset(FACTS)),
    a("form", "a sorted list, mixed case", ["Hit_Rate_Ok", "isolation_VERIFIED"]),
    a("wrong", "one missing", ["isolation_verified"]),
    a("wrong", "the other missing", ["hit_rate_ok"]),
    a("wrong", "one as a str", "hit_rate_ok"),
    a("wrong", "no answer", None),
    a("wrong", "a dict", {"isolation_verified": 1, "hit_rate_ok": 1}),
    a("wrong", "what S5 produces", ["fix_deployed"]),
    a("wrong", "a number", 2),
    a("wrong", "a fact of another edge", ["hit_rate_ok", "isolation_verified", "cache_key_found"]),
    a("wrong", "ids, not facts", ["S4", "S5"]),
    a(
        "cheat:everything",
        "S5's facts and what it produces",
        ["fix_deployed", "hit_rate_ok", "isolation_verified"],
    ),
    a(
        "cheat:everything",
        "every fact of the plan",
        sorted({f for s in _with().steps for f in (*s.requires, *s.produces)}),
    ),
    *value_cheats(lambda v: ((v,), {})),
    a("cheat:identity", "a list of objects equal to everything", [Anything(), Anything()]),
    a("cheat:identity", "a misspelt fact", ["hit_rate_okay", "isolation_verified"]),
    a("cheat:identity", "a list of the two facts twice", FACTS + ["Hit_rate_ok_"]),
]

EX3 = [
    a("right", "unmet_requirement, b", "unmet_requirement", "b"),
    a("form", "keywords", code="unmet_requirement", reason="b"),
    a("form", "B.", "unmet_requirement", "B."),
    a("form", "(b). with spaces", "unmet_requirement", " (b). "),
    a("form", "b:", "unmet_requirement", "b:"),
    a("form", "the code in capitals with spaces", " Unmet_Requirement ", "b"),
    a("wrong", "no_evidence", "no_evidence", "b"),
    a("wrong", "cycle", "cycle", "b"),
    a("wrong", "no answer", None, None),
    a("wrong", "reason a", "unmet_requirement", "a"),
    a("wrong", "reason c", "unmet_requirement", "c"),
    a("wrong", "no reason", "unmet_requirement", None),
    a("wrong", "reason d", "unmet_requirement", "d"),
    a("wrong", "a code that does not exist", "missing_dependency", "b"),
    a("wrong", "dead_end", "dead_end", "b"),
    a("wrong", "reason as a number", "unmet_requirement", 2),
    a("cheat:everything", "every letter", "unmet_requirement", "abc"),
    a("cheat:everything", "every letter as a list", "unmet_requirement", ["a", "b", "c"]),
    a("cheat:everything", "a or b", "unmet_requirement", "a or b"),
    a("cheat:everything", "several codes", ["unmet_requirement", "cycle"], "b"),
    *value_cheats(lambda v: ((v, "b"), {})),
    a("cheat:identity", "a reason equal to everything", "unmet_requirement", Anything()),
    a("form", "the code with a space for the underscore", "unmet requirement!", "b"),
    a("cheat:identity", "a code misspelt", "unmet_requirements_x", "b"),
]

# the library's answers to the check's own random cases, computed before it runs and looked up
ANCESTORS += lookups(ancestor_cases, lambda plan, sid: nx.ancestors(planviz.to_graph(plan), sid))
ORDER += lookups(
    lambda: [(p,) for p in order_plans()],
    lambda plan: (
        list(nx.topological_sort(g))
        if nx.is_directed_acyclic_graph(g := planviz.to_graph(plan))
        else None
    ),
)

BANK = {
    "lesson01.check_ancestors": ANCESTORS,
    "lesson01.check_topological_order": ORDER,
    "lesson01.check_exercise_1": EX1,
    "lesson01.check_exercise_2": EX2,
    "lesson01.check_exercise_3": EX3,
}
