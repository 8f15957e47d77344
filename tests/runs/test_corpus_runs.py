"""Strategies and measures on the real task sets of the shared corpus (WorFBench gold workflows, AsyncHow)."""

from __future__ import annotations

import pytest

from planviz import load_plans, metrics, simulate


@pytest.fixture(scope="module")
def worfbench():
    from tests.conftest import CORPUS

    if not CORPUS.is_dir():
        pytest.skip("the shared corpus is not beside this clone")
    return [
        p for f in sorted((CORPUS / "worfbench" / "full").glob("*.json")) for p in load_plans(f)
    ]


def test_no_worfbench_plan_reports_a_duplicate_step_without_a_fault(worfbench):
    assert len(worfbench) == 2146
    # the same action listed twice by the gold graph (a second "go to toilet") is the plan's, not a redo
    repeated = [
        p for p in worfbench if len({s.action.strip().lower() for s in p.steps}) < len(p.steps)
    ]
    assert len(repeated) >= 40  # they exist in the raw files: the test covers them
    assert [
        p.name for p in worfbench if metrics(simulate(p, strategy="workflow")).duplicate_steps
    ] == []


def asynchow_plans():
    """AsyncHow records as plans, built here from the raw JSON (1-based step_deps; durations' lower bound)."""
    import json

    from planviz import Plan, Step
    from tests.conftest import CORPUS

    out = []
    for path in sorted((CORPUS / "asynchow").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            n = len(record["steps"])
            deps = {str(i): [] for i in range(1, n + 1)}
            for src, dst in record["step_deps"]:
                deps[str(dst)].append(str(src))
            out.append(
                Plan(
                    record["title"],
                    [
                        Step(
                            str(i),
                            record["steps"][i - 1],
                            expected_evidence="done",
                            depends_on=deps[str(i)],
                            duration=record["duration_seconds"][str(i)][0],
                        )
                        for i in range(1, n + 1)
                    ],
                )
            )
    return out


def test_the_direct_agent_completes_every_corpus_plan_without_faults_whatever_the_listed_order(
    worfbench,
):
    import random

    plans = worfbench + asynchow_plans()
    assert len(plans) == 2146 + 1998
    rng = random.Random(39)
    out_of_order = 0
    for plan in plans:
        ids = {s.id: k for k, s in enumerate(plan.steps)}
        out_of_order += any(ids.get(d, -1) > ids[s.id] for s in plan.steps for d in s.depends_on)
        shuffled = list(plan.steps)
        rng.shuffle(shuffled)
        for version in (plan, plan.replace(steps=shuffled)):
            run = simulate(version, strategy="direct")
            if any(d not in ids for s in plan.steps for d in s.depends_on):
                continue  # a gold graph naming a missing step: nobody can run it
            m = metrics(run)
            assert (run.outcome, m.precondition_errors) == ("plan_complete", 0), (
                plan.name,
                plan.goal,
            )
    assert out_of_order >= 400  # the raw files list a step before what it needs that often
