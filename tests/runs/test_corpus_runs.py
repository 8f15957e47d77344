"""Strategies and measures on the real task sets of the shared corpus (WorFBench gold workflows, AsyncHow)."""

from __future__ import annotations

import pytest

from planviz import load_plans, metrics, simulate


@pytest.fixture(scope="module")
def worfbench():
    from tests.conftest import CORPUS
    if not CORPUS.is_dir():
        pytest.skip("the shared corpus is not beside this clone")
    return [p for f in sorted((CORPUS / "worfbench" / "full").glob("*.json")) for p in load_plans(f)]


def test_no_worfbench_plan_reports_a_duplicate_step_without_a_fault(worfbench):
    assert len(worfbench) == 2146
    # the same action listed twice by the gold graph (a second "go to toilet") is the plan's, not a redo
    repeated = [p for p in worfbench if len({s.action.strip().lower() for s in p.steps}) < len(p.steps)]
    assert len(repeated) >= 40  # they exist in the raw files: the test covers them
    assert [p.name for p in worfbench if metrics(simulate(p, strategy="workflow")).duplicate_steps] == []
