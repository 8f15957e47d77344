"""Build-its checked with the library unplugged: every route to the library's own algorithm trips.

For every build-it, a cheat computes the answer with the library's function, reached by a route the code
reader cannot follow (getattr, importlib, a reference stored in a dict before the check, functools.partial,
a lambda, the planviz public wrapper, a trip caught by the student's own try) and by the direct call; each
must be refused with "this calls the library's own ...". The reference solutions of notebooks/solutions
pass with the library unplugged, and so does a right 04 scope answer that uses nx.descendants (allowed).
"""

from __future__ import annotations

import ast
import functools
import importlib
from pathlib import Path

import networkx as nx
import pytest

import planviz
from planviz.structure.index import structure_index
from planviz.teaching.lesson01 import check_ancestors, check_topological_order
from planviz.teaching.lesson02b import check_grade
from planviz.teaching.lesson03 import check_critical_path, check_ready_waves
from planviz.teaching.lesson04 import check_failure_scope
from planviz.teaching.lesson05 import check_invariants
from planviz.teaching.lesson06 import check_reachable
from planviz.teaching.lesson07 import check_reissue
from planviz.teaching.tripwire import LibraryUsed, unplugged

SOLUTIONS = Path(__file__).resolve().parents[2] / "notebooks" / "solutions"


def solution(file: str, name: str):
    """The function ``name`` of a solutions file, with the file's imports (not its notebook-bound cells)."""
    tree = ast.parse((SOLUTIONS / file).read_text())
    keep = [
        n
        for n in tree.body
        if isinstance(n, (ast.Import, ast.ImportFrom))
        or (isinstance(n, ast.FunctionDef) and n.name == name)
    ]
    space: dict = {}
    exec(compile(ast.Module(keep, []), str(SOLUTIONS / file), "exec"), space)
    return space[name]


def _order(f):
    def order(plan):
        try:
            return list(f(planviz.to_graph(plan)))
        except nx.NetworkXUnfeasible:
            return None

    return order


def _grade(f):
    return lambda plan, contract: (
        f(plan, contract).required_recall,
        set(f(plan, contract).order_violations),
    )


def _refuse(f):
    return lambda old, new, goal_changed: None if goal_changed else f(old, new, old.contract)


#: build-it -> (its check, the library function that answers it, a student's function made from that function)
CHEATS = {
    "ancestors": (
        check_ancestors,
        "networkx.algorithms.dag.ancestors",
        lambda f: lambda plan, sid: set(f(planviz.to_graph(plan), sid)),
    ),
    "topological_order": (
        check_topological_order,
        "networkx.algorithms.dag.topological_sort",
        _order,
    ),
    "grade": (check_grade, "planviz.checks.grading.grade", _grade),
    "critical_path": (
        check_critical_path,
        "planviz.analysis.schedule.critical_path",
        lambda f: lambda plan: {s: (t.es, t.ls) for s, t in f(plan).steps.items()},
    ),
    "ready_waves": (
        check_ready_waves,
        "networkx.algorithms.dag.topological_generations",
        lambda f: lambda plan: [set(w) for w in f(planviz.to_graph(plan))],
    ),
    "failure_scope": (
        check_failure_scope,
        "planviz.analysis.scope.failure_scope",
        lambda f: lambda plan, sid: set(f(plan, sid, "side_effect").voided),
    ),
    "invariants": (check_invariants, "planviz.runs.engine.revision.changed_invariants", _refuse),
    "reachable": (
        check_reachable,
        "planviz.analysis.reach.reachable",
        lambda f: lambda plan, completed, facts: set(f(plan, completed, facts).steps),
    ),
    "reissue": (
        check_reissue,
        "planviz.runs.engine.revision.reissue",
        lambda f: lambda old, voided: f(old, voided, "by hand"),
    ),
}

#: references stored before any check runs, as a notebook cell would
STORED = {
    build: importlib.import_module(dotted.rpartition(".")[0]).__dict__[dotted.rpartition(".")[2]]
    for build, (_, dotted, _) in CHEATS.items()
}


def routes(build: str):
    """(route name, a callable reaching the library's function by that route)."""
    module_name, _, attr = CHEATS[build][1].rpartition(".")
    module = importlib.import_module(module_name)
    yield "direct", STORED[build]
    yield "getattr", lambda *a, **k: getattr(module, attr)(*a, **k)
    yield "importlib", lambda *a, **k: getattr(importlib.import_module(module_name), attr)(*a, **k)
    yield "stored in a dict", lambda *a, **k: STORED[build](*a, **k)
    yield "functools.partial", functools.partial(STORED[build])
    yield "lambda wrapper", (lambda g: lambda *a, **k: g(*a, **k))(STORED[build])
    public = getattr(planviz, attr, None) or getattr(nx, attr, None)
    if public is not None:
        yield "public wrapper", public

    def caught(*a, **k):  # a trip caught by the student's own try still fails
        try:
            return STORED[build](*a, **k)
        except Exception:
            return STORED[build](*a, **k)

    yield "caught", caught


CASES = [(build, route, reach) for build in CHEATS for route, reach in routes(build)]


@pytest.mark.parametrize("build, route, reach", CASES, ids=[f"{b}-{r}" for b, r, _ in CASES])
def test_every_route_to_the_library_trips(build, route, reach):
    check, _, make = CHEATS[build]
    feedback = check(make(reach))
    assert not feedback and "this calls the library's own" in feedback.message, feedback.message


def test_the_cheats_are_right_answers_with_the_library_plugged_in():
    """Without the tripwires each cheat would be right: the refusal above is the tripwire's, not a wrong answer's."""
    plan = planviz.examples.load("cache_isolation")
    g = planviz.to_graph(plan)
    assert CHEATS["ancestors"][2](STORED["ancestors"])(plan, "S4") == nx.ancestors(g, "S4")
    assert CHEATS["topological_order"][2](STORED["topological_order"])(plan) == list(
        nx.topological_sort(g)
    )


def _structure_order(plan):
    ix = structure_index(plan)
    return list(ix.order) if ix.clean else None


def _structure_levels(plan):
    levels = structure_index(plan).levels()
    return [
        {s for s, k in levels.items() if k == w}
        for w in range(1 + max(levels.values(), default=-1))
    ]


def _graphlib_order(plan):
    import graphlib

    try:
        return list(
            graphlib.TopologicalSorter({s.id: set(s.depends_on) for s in plan.steps}).static_order()
        )
    except graphlib.CycleError:
        return None


def _reach_pass(plan, completed, facts):
    return set(planviz.analysis.reach.reach_pass(plan, completed, facts)[0])


def _oracle_itself(plan):
    from planviz.teaching import lesson01

    return getattr(lesson01, "_order_oracle")(plan)


@pytest.mark.parametrize(
    "check, fn",
    [
        (check_topological_order, _structure_order),
        (check_ready_waves, _structure_levels),
        (check_topological_order, _graphlib_order),
        (
            check_grade,
            lambda p, c: _grade(importlib.import_module("planviz.checks.grading").grade)(p, c),
        ),
        (check_reachable, _reach_pass),
    ],
    ids=[
        "structure_index.order",
        "structure_index.levels",
        "graphlib",
        "importlib grade",
        "reach_pass",
    ],
)
def test_the_routes_the_issue_found_trip(check, fn):
    feedback = check(fn)
    assert not feedback and "this calls the library's own" in feedback.message, feedback.message


def test_the_oracle_of_the_check_is_no_answer():
    feedback = check_topological_order(_oracle_itself)
    assert not feedback and "calls" in feedback.message


@pytest.mark.parametrize(
    "check, file, name",
    [
        (check_ancestors, "01_checklist_to_plan.py", "ancestors"),
        (check_topological_order, "01_checklist_to_plan.py", "order"),
        (check_grade, "02b_planner_outputs_and_grading.py", "grade_it"),
        (check_critical_path, "03_critical_path.py", "passes"),
        (check_ready_waves, "03_critical_path.py", "waves"),
        (check_failure_scope, "04_simulated_run.py", "voided"),
        (check_invariants, "05_replanning_rules.py", "refuse"),
        (check_reachable, "06_debugging_a_failed_run.py", "reachable"),
        (check_reissue, "07_is_planning_worth_it.py", "reissue"),
    ],
)
def test_the_reference_solutions_pass_unplugged(check, file, name):
    feedback = check(solution(file, name))
    assert feedback, feedback.message


def _scope_with_descendants(plan, step_id):
    """04's scope with "everything downstream" from networkx, which the exercise allows."""
    g = planviz.to_graph(plan)
    if plan.step(step_id).kind == "patch":
        roots = [step_id]
    else:
        dist, frontier = {}, [step_id]
        while frontier:
            nxt = []
            for x in frontier:
                for d in plan.step(x).depends_on:
                    if d not in dist:
                        dist[d] = dist.get(x, 0) + 1
                        nxt.append(d)
            frontier = nxt
        patches = [a for a in dist if plan.step(a).kind == "patch"]
        roots = (
            [min(patches, key=lambda a: (dist[a], a))]
            if patches
            else (sorted(set(plan.step(step_id).depends_on)) or [step_id])
        )
    return set(roots) | {d for r in roots for d in nx.descendants(g, r)}


def test_descendants_is_allowed_in_the_scope_build_it():
    assert check_failure_scope(_scope_with_descendants)


def test_the_library_is_plugged_back_in_after_a_refusal():
    check_topological_order(_structure_order)
    plan = planviz.examples.load("cache_isolation")
    assert list(structure_index(plan).order) and list(nx.topological_sort(planviz.to_graph(plan)))
    with unplugged(()):
        planviz.to_graph(plan)  # the library's own use inside stays plugged in
        with pytest.raises(LibraryUsed, match="networkx.ancestors"):
            nx.ancestors(planviz.to_graph(plan), "S4")
    assert nx.ancestors(planviz.to_graph(plan), "S4")


def _order_from_a_simulated_run(plan):
    """The order in which a simulated run starts the steps: the library's order by another door."""
    run = planviz.simulate(plan)
    return list(dict.fromkeys(e.step for e in run.events if e.kind == "start" and e.step))


def test_an_order_read_off_a_simulated_run_trips():
    feedback = check_topological_order(_order_from_a_simulated_run)
    assert not feedback and "this calls the library's own" in feedback.message, feedback.message
