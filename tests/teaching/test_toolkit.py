"""The checking toolkit: one normalisation of answers, type guards that never raise, and build-it guards that
catch the library's answer without taking a student's own code for it."""

from __future__ import annotations

import networkx as nx
import pytest

import planviz
from planviz import Step
from planviz.teaching import lesson03
from planviz.teaching.answers import (
    Unreadable,
    id_of,
    ids,
    number,
    same_step,
    same_word,
    whole_number,
    word,
)
from planviz.teaching.guards import FORBIDDEN, LibraryUsed, forbidden, library_calls
from planviz.teaching.lesson03 import _pass_oracle


@pytest.mark.parametrize(
    "value, expected",
    [
        ("29", 29.0),
        (" 29 ", 29.0),
        (29, 29.0),
        ("2.5", 2.5),
        (True, None),
        ("soon", None),
        (float("inf"), None),
        (None, None),
        ([29], None),
    ],
)
def test_number(value, expected):
    assert number(value) == expected


@pytest.mark.parametrize("value, expected", [("3", 3), (3.0, 3), (3.5, None), ("three", None)])
def test_whole_number(value, expected):
    assert whole_number(value) == expected


@pytest.mark.parametrize(
    "value, expected",
    [
        (" Executor ", "executor"),
        (KeyError, "keyerror"),
        (KeyError("x"), "keyerror"),
        ("", None),
        (3, None),
        ("the executor", "executor"),
        ("Executor.", "executor"),
        ("An environment!", "environment"),
        ("the", "the"),
        (".", None),
        ("theory", "theory"),
        ("a b", "b"),
    ],
)
def test_word(value, expected):
    assert word(value) == expected


@pytest.mark.parametrize(
    "value, expected, same",
    [
        ("plan complete", "plan_complete", True),
        ("Plan-Complete", "plan_complete", True),
        ("plan_completed", "plan_complete", False),
        (None, "plan_complete", False),
        ("The executor.", "executor", True),
        ("the planner", "executor", False),
    ],
)
def test_same_word(value, expected, same):
    assert same_word(value, expected) is same


@pytest.mark.parametrize(
    "value, ordered, expected",
    [
        ([" S1", "S2 "], False, frozenset({"S1", "S2"})),
        ("S3", False, frozenset({"S3"})),
        ("S0 -> S1 -> S3", True, ("S0", "S1", "S3")),
        (["S0", "S1"], True, ("S0", "S1")),
    ],
)
def test_ids_read(value, ordered, expected):
    assert ids(value, ordered=ordered) == expected


@pytest.mark.parametrize(
    "value, ordered, why",
    [
        ({"S1", "S2"}, True, "a set has no order"),
        ({"S1": 1}, True, "a set has no order"),
        ([Step("S1", "a")], False, "step.id"),
        (Step("S1", "a"), False, "Step object"),
        (42, False, "got int"),
        ([1, 2], False, "is not a step id"),
        ([""], False, "is not a step id"),
    ],
)
def test_ids_refuse_without_raising(value, ordered, why):
    out = ids(value, ordered=ordered)
    assert isinstance(out, Unreadable) and why in out.why and not out


@pytest.mark.parametrize(
    "value, same",
    [
        ("S1", True),
        (" S1", True),
        ("s1", True),
        ("S1.v2", True),
        ("S1.v12", True),  # no version given: any revision
        ("S2", False),
        ("S1.v2x", False),
        (Step("S1", "a"), False),
        (None, False),
    ],
)
def test_same_step(value, same):
    assert same_step(value, "S1", ("S0", "S1", "S2")) is same


@pytest.mark.parametrize(
    "value, same",
    [("S1.v2", True), ("s1.V2", True), ("S1.v3", False), ("S1.v12", False), ("S1", True)],
)
def test_same_step_with_the_next_version_takes_only_that_revision(value, same):
    assert same_step(value, "S1", ("S0", "S1", "S2"), version=2) is same


def test_same_step_refuses_a_revision_id_the_plan_has():
    assert not same_step("S1.v2", "S1", ("S1", "S1.v2"))


def test_id_of_says_what_a_step_object_is():
    assert "step.id" in id_of(Step("S1", "a")).why


def _own_walk(plan, sid):
    return set(plan.step(sid).depends_on)


def _uses_attribute_named_like_the_library(run):
    return run.plan.invalidated  # an attribute of a plan, not planviz.invalidated


@pytest.mark.parametrize(
    "fn, names, expected",
    [
        (
            lambda plan, sid: nx.ancestors(planviz.to_graph(plan), sid),
            "ancestors",
            ("networkx.ancestors",),
        ),
        (lambda plan, sid: planviz.to_graph(plan), "ancestors", ()),
        (_own_walk, "ancestors", ()),
        (lambda plan, sid: _own_walk(plan, sid), "ancestors", ()),
        (_uses_attribute_named_like_the_library, "reachable", ()),
        (
            lambda plan, c, f: planviz.reachable(plan, c, f).steps,
            "reachable",
            ("planviz.reachable",),
        ),
        (
            lambda plan, c, f: planviz.analysis.reach.reachable(plan, c, f).steps,
            "reachable",
            ("planviz.reachable",),
        ),
        # the checks' own oracles answer every build-it: never part of an answer
        (
            lambda plan: lesson03._pass_oracle(plan),
            "critical_path",
            ("planviz.teaching.lesson03._pass_oracle",),
        ),
        (
            lambda plan: planviz.teaching.lesson03._pass_oracle(plan),
            "critical_path",
            ("planviz.teaching.lesson03._pass_oracle",),
        ),
        (
            lambda plan: _pass_oracle(plan),
            "critical_path",
            ("planviz.teaching.lesson03._pass_oracle",),
        ),
    ],
)
def test_library_calls(fn, names, expected):
    assert library_calls(fn, FORBIDDEN[names]) == expected


def test_forbidden_patches_for_the_call_and_restores():
    original = nx.ancestors
    # a trip caught inside still fails on the way out
    with pytest.raises(LibraryUsed, match="networkx.ancestors"):
        with forbidden(FORBIDDEN["ancestors"]):
            with pytest.raises(LibraryUsed, match="networkx.ancestors"):
                nx.ancestors(nx.DiGraph([(1, 2)]), 2)
    assert nx.ancestors is original and nx.ancestors(nx.DiGraph([(1, 2)]), 2) == {1}
