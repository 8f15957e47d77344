"""Revisions: re-issued work keeps its placeholders pointing at the re-issued producer, whatever their spelling."""

from __future__ import annotations

import pytest

from planviz import Plan, Step, reissue, validate
from planviz.plan.lineage import all_ids, lineage_root, lineage_roots

SPELLINGS = ["{{A.out}}", "{{ A.out }}", "{{\tA.out }}", "{{A.out }}", "total: {{ A.out }} of {{A.out}}"]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_reissue_renames_every_spelling_of_a_placeholder(spelling):
    plan = Plan("g", [Step("A", "a", expected_evidence="e", produces="A.out"),
                      Step("B", "b", expected_evidence="e", depends_on="A", requires="A.out", produces="done",
                           arguments={"q": spelling})])
    assert validate(plan).ok
    revised = reissue(plan, {"A", "B"}, "the output was wrong")
    assert revised.ids == ("A.v2", "B.v2")
    assert "A.v2.out" in revised.step("B.v2").arguments["q"]
    assert "bad_placeholder" not in validate(revised).codes


def test_lineage_through_versions():
    v1 = Plan("g", [Step("S3", "patch")])
    v2 = reissue(v1, {"S3"}, "t1")
    v3 = reissue(v2, {"S3.v2"}, "t2")
    assert v3.ids == ("S3.v3",)
    assert lineage_root(v3, "S3.v3") == "S3"
    assert lineage_roots([v1, v2, v3]) == {"S3": "S3", "S3.v2": "S3", "S3.v3": "S3"}
    assert all_ids(v3) == {"S3", "S3.v2", "S3.v3"}


def test_a_revises_loop_stops_before_repeating_an_id():
    looped = Plan("g", [Step("A", "a", revises="B"), Step("B", "b", revises="A")])
    assert lineage_roots([looped]) == {"A": "B", "B": "A"}
