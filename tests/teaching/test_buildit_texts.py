"""Each build-it of notebooks 01 to 04 says what it may use, and what it says is what the tripwire does (06 and 07: test_buildit_texts_06_07.py).

The notebook's own "What you may use" paragraph is read here: every library function it names as usable must
stay plugged in while the check runs (not tripwired, or allowed for that build-it), and every one it names
as off limits must trip. A text that promises `nx.descendants` while the check rejects it (04's scope, issue
41) or forbids what the check lets through fails here."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

from planviz.teaching.guards import ALLOWED, FORBIDDEN
from planviz.teaching.tripwire import library_functions

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
#: (notebook, a phrase of the build-it's text, the build-it's key in guards.FORBIDDEN)
BUILDITS = [
    ("01_checklist_to_plan.ipynb", "## Build it: which steps must finish first?", "ancestors"),
    (
        "01_checklist_to_plan.ipynb",
        "## Build it: an order to run the steps in",
        "topological_order",
    ),
    ("02b_planner_outputs_and_grading.ipynb", "### Build it: grading", "grade"),
    ("03_critical_path.ipynb", "## Build it: the forward and the backward pass", "critical_path"),
    ("03_critical_path.ipynb", "**Build it.** A step's wave", "ready_waves"),
    ("04_simulated_run.ipynb", "### Build it: what a side effect voids", "failure_scope"),
]


def _paragraph(notebook: str, marker: str) -> str:
    cells = json.loads((NOTEBOOKS / notebook).read_text(encoding="utf-8"))["cells"]
    text = next(
        "".join(c["source"])
        for c in cells
        if c["cell_type"] == "markdown" and marker in "".join(c["source"])
    )
    assert "**What you may use:**" in text, (
        f"{notebook}: the build-it {marker!r} does not say what it may use"
    )
    return text.split("**What you may use:**", 1)[1].split("\n\n", 1)[0]


def _function(name: str):
    """The function a backquoted name of the text stands for, or None (a method, a module, a call with arguments)."""
    name = name.split("(", 1)[0]
    module, _, attr = name.rpartition(".")
    module = {"nx": "networkx", "": "planviz"}.get(module, module)
    if module not in ("networkx", "planviz"):
        return None
    try:
        f = getattr(importlib.import_module(module), attr)
    except AttributeError:
        return None
    return getattr(f, "orig_func", f)


def _tripped(build: str) -> set[int]:
    allowed = {id(_function(n.replace("networkx.", "nx."))) for n in ALLOWED.get(build, ())}
    return {i for i in library_functions(FORBIDDEN[build]) if i not in allowed}


@pytest.mark.parametrize("notebook, marker, build", BUILDITS, ids=[b for _, _, b in BUILDITS])
def test_the_text_says_what_the_check_allows(notebook, marker, build):
    text = _paragraph(notebook, marker)
    usable, barred = (re.split(r"\sNot\s", text, maxsplit=1) + [""])[:2]
    assert barred, f"{notebook}: the build-it {build} names nothing it may not use"
    tripped = _tripped(build)
    named_usable = [
        (n, f) for n in re.findall(r"`([\w.]+(?:\([^`]*\))?)`", usable) if (f := _function(n))
    ]
    named_barred = [(n, f) for n in re.findall(r"`([\w.]+)`", barred) if (f := _function(n))]
    assert named_barred, (
        f"{notebook}: the build-it {build} names no library function it may not use"
    )
    assert [n for n, f in named_usable if id(f) in tripped] == [], (
        "the text allows what the check trips"
    )
    assert [n for n, f in named_barred if id(f) not in tripped] == [], (
        "the text forbids what the check lets through"
    )


def test_the_order_build_it_of_notebook_01_is_not_answered_before_it():
    """01 printed nx.topological_generations (03's waves) before any build-it; no code cell of 01 calls a
    function a build-it of 01 or 03 asks for before that build-it's check."""
    cells = json.loads((NOTEBOOKS / "01_checklist_to_plan.ipynb").read_text(encoding="utf-8"))[
        "cells"
    ]
    first_check = next(i for i, c in enumerate(cells) if "check_ancestors(" in "".join(c["source"]))
    before = "\n".join(
        "".join(c["source"]) for c in cells[:first_check] if c["cell_type"] == "code"
    )
    for name in (
        "topological_generations",
        "topological_sort",
        "ready_waves",
        "ancestors(g",
        "nx.ancestors",
    ):
        assert name not in before, name
