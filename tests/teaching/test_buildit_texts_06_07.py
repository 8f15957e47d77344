"""The build-it texts of notebooks 06 and 07 say exactly what may be used: what their "What you may use"
paragraph names works with the library unplugged (an answer built only from it passes), and what it names as
unplugged trips, whatever the route."""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path

import nbformat
import networkx as nx
import pytest

import planviz
from planviz.teaching.lesson06 import check_reachable
from planviz.teaching.lesson07 import check_reissue

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def _may_use(notebook: str) -> str:
    nb = nbformat.read(NOTEBOOKS / notebook, as_version=4)
    found = [
        c.source
        for c in nb.cells
        if c.cell_type == "markdown" and "**What you may use:**" in c.source
    ]
    assert len(found) == 1, f"{notebook}: one build-it text says what may be used"
    return found[0].split("**What you may use:**", 1)[1]


def reachable_from_the_named_tools(plan, completed, facts):
    """Only what 06's text allows: to_graph, nx.DiGraph's adjacency views, the plan's fields, sets and dicts."""
    g = planviz.to_graph(plan)
    assert isinstance(g, nx.DiGraph)
    held, found = set(facts), set()
    waiting = {s.id: g.in_degree(s.id) for s in plan.steps}
    for s in plan.steps:
        for d in g.predecessors(s.id):
            if d in completed:
                waiting[s.id] -= 1
    queue = [s.id for s in plan.steps if s.id not in completed and waiting[s.id] == 0]
    blocked = []
    while queue or blocked:
        progress = False
        for sid in queue + blocked:
            if sid in found:
                continue
            if set(plan.step(sid).requires) <= held:
                found.add(sid)
                held |= set(plan.step(sid).produces)
                progress = True
                for nxt in g.successors(sid):
                    waiting[nxt] -= 1
        blocked = [sid for sid in queue + blocked if sid not in found]
        queue = [
            s.id
            for s in plan.steps
            if s.id not in completed
            and s.id not in found
            and s.id not in blocked
            and waiting[s.id] == 0
        ]
        if not progress and not queue:
            break
    return found


def reissue_from_the_named_tools(old, voided):
    """Only what 07's text allows: dataclasses.replace, the plan's fields and methods, sets and dicts."""
    v = old.version + 1
    new_id = {sid: f"{sid}.v{v}" for sid in voided}
    steps = [
        dataclasses.replace(
            old.step(s.id),
            id=new_id.get(s.id, s.id),
            revises=s.id if s.id in new_id else s.revises,
            depends_on=[new_id.get(d, d) for d in s.depends_on],
        )
        for s in old.steps
    ]
    return old.replace(steps=steps, version=v)


def test_06_text_names_its_tools_and_an_answer_built_from_them_passes():
    text = _may_use("06_debugging_a_failed_run.ipynb")
    for named in (
        "sets, dicts and lists",
        "plan.step(id)",
        "nx.DiGraph(...)",
        "planviz.to_graph(plan)",
        "g.successors",
        "g.predecessors",
        "g.in_degree",
        "planviz.reachable",
        "planviz.invalidated",
        "planviz.failure_scope",
        "graphlib",
        "getattr",
        "importlib",
    ):
        assert named in text, named
    assert check_reachable(reachable_from_the_named_tools).passed


def test_07_text_names_its_tools_and_an_answer_built_from_them_passes():
    text = _may_use("07_is_planning_worth_it.ipynb")
    for named in (
        "dataclasses.replace",
        "old.step(id)",
        "old.replace(...)",
        "old.version",
        "planviz.reissue",
        "getattr",
        "importlib",
    ):
        assert named in text, named
    assert check_reissue(reissue_from_the_named_tools).passed


STORED = {"reach": planviz.failure_scope, "reissue": planviz.reissue}


@pytest.mark.parametrize("route", ["import", "getattr", "importlib", "stored"])
def test_what_06_says_is_unplugged_trips(route):
    def cheat(plan, completed, facts):
        fn = {
            "import": planviz.reachable,
            "getattr": getattr(planviz, "invalidated"),
            "importlib": importlib.import_module("planviz.analysis.reach").reachable,
            "stored": STORED["reach"],
        }[route]
        if route == "getattr":
            return {s.id for s in plan.steps if s.id not in completed} - set(
                fn(plan, (set(completed), set(facts)))
            )
        if route == "stored":
            fn(plan, plan.steps[0].id, "transient")
            return set()
        return set(fn(plan, completed, facts).steps)

    feedback = check_reachable(cheat)
    assert not feedback.passed and "library's own" in str(feedback)


@pytest.mark.parametrize("route", ["import", "getattr", "importlib", "stored"])
def test_what_07_says_is_unplugged_trips(route):
    def cheat(old, voided):
        fn = {
            "import": planviz.reissue,
            "getattr": getattr(planviz, "reissue"),
            "importlib": importlib.import_module("planviz.runs.engine.revision").reissue,
            "stored": STORED["reissue"],
        }[route]
        return fn(old, voided, "cheat")

    feedback = check_reissue(cheat)
    assert not feedback.passed and "library's own" in str(feedback)
