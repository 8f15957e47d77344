"""Receding horizon: far steps are expanded into new plan versions, never run as concrete work."""

from __future__ import annotations

import pytest

from planviz import (
    Plan,
    PlanvizTypeError,
    SimulationError,
    Step,
    attribution,
    examples,
    load_trace,
    metrics,
    save_trace,
    simulate,
    validate,
)
from planviz.runs.engine.horizon import expanded

F2 = [
    {
        "id": "F2.a",
        "action": "Switch writes to the new cluster",
        "kind": "deploy",
        "duration": 6,
        "requires": "reads_migrated",
        "produces": "writes_cut_over",
        "expected_evidence": "writes land on the new primary",
        "check": "the new primary takes every write",
        "risk": "high",
        "rollback": "point writes back",
        "approval": "change board ticket CB-311",
        "resources": "billing-db-primary",
    },
    {
        "id": "F2.b",
        "action": "Retire the old database",
        "duration": 20,
        "depends_on": "F2.a",
        "requires": "writes_cut_over",
        "produces": "writes_migrated",
        "expected_evidence": "no connections for a week",
    },
]


@pytest.fixture
def far():
    return examples.load("far_horizon")


def starts(run):
    return [e.step for e in run.events if e.kind == "start"]


def test_a_far_step_without_an_expansion_is_never_run_and_the_run_awaits_one(far):
    run = simulate(far)
    assert run.outcome == "awaiting_expansion" and run.events[-1].step == "F2"
    assert "F1" not in starts(run) and "F2" not in starts(run)
    assert [e.step for e in run.events if e.kind == "expand"] == ["F1"]  # the inline expansion
    assert "expand={'F2': [...]}" in run.events[-1].message
    assert attribution(run).party == "planner"


def test_an_expansion_is_a_new_version_replacing_the_placeholder(far):
    run = simulate(far, expand={"F2": F2})
    assert run.outcome == "plan_complete"
    assert [p.version for p in run.plans] == [1, 2, 3]
    v2, v3 = run.plans[1], run.plans[2]
    assert (
        v2.parent is run.plans[0]
        and v3.parent is v2
        and "expansion of the far-horizon step 'F2'" in v3.trigger
    )
    assert v3.ids == ("N1", "N2", "F1.a", "F1.b", "F2.a", "F2.b")
    # the placeholder's dependency, re-pointed to F1's sink
    assert v3.step("F2.a").depends_on == ("F1.b",)
    assert starts(run) == ["N1", "N2", "F1.a", "F1.b", "F2.a", "F2.b"]
    expand = [e for e in run.events if e.kind == "expand"]
    assert [(e.step, e.plan_version) for e in expand] == [("F1", 2), ("F2", 3)]
    # the placeholder is gone from the version
    assert all(e.step not in run.frame(e.index).statuses for e in expand)
    m = metrics(run)
    # far steps count through their expansion
    assert (m.executability, m.model_calls, m.replans) == (
        1.0,
        3,
        0,
    )


def test_over_budget_is_a_finding_on_the_new_version(far):
    run = simulate(far, expand={"F2": F2})
    [finding] = [f for f in run.plans[-1].import_findings if f.code == "over_budget"]
    assert (finding.severity, finding.steps[0], finding.where) == ("warning", "F2", "F2.budget")
    assert "durations adding up to 26, over its budget of 24" in finding.message
    assert "over_budget" in validate(run.plans[-1]).codes
    assert "over its budget" in next(
        e.message for e in run.events if e.kind == "expand" and e.step == "F2"
    )
    # F1 fits its budget
    assert not [f for f in run.plans[1].import_findings if f.code == "over_budget"]


def test_an_expansion_may_be_a_callable_of_the_step_and_the_state(far):
    seen = []

    def expand(step, state):
        seen.append((step.id, "reads_migrated" in state.facts))
        return F2 if step.id == "F2" else None

    run = simulate(far, expand=expand)
    assert run.outcome == "plan_complete" and seen == [("F1", False), ("F2", True)]


def test_an_expansion_is_validated_like_any_revision(far):
    no_deploy = [{**F2[0], "kind": "migrate"}, F2[1]]  # the contract requires a deploy step
    run = simulate(far, expand={"F2": no_deploy})
    assert run.outcome == "refused" and run.events[-1].category == "missing_required"
    assert "the expansion of 'F2' (plan v3) is refused" in run.events[-1].message
    assert attribution(run).party == "planner"


@pytest.mark.parametrize("strategy", ["workflow", "direct"])
def test_only_the_planner_expands(far, strategy):
    run = simulate(far, expand={"F2": F2}, strategy=strategy)
    assert run.outcome == "awaiting_expansion" and "expand" not in [e.kind for e in run.events]
    assert run.events[-1].step == "F1"


def test_expand_events_and_the_expanded_versions_survive_a_trace(far, tmp_path):
    run = simulate(far, expand={"F2": F2})
    save_trace(run, tmp_path / "run.jsonl")
    loaded = load_trace(tmp_path / "run.jsonl")
    assert loaded == run and loaded.plans[0].step("F1").expands_to == far.step("F1").expands_to
    assert metrics(loaded) == metrics(run)


@pytest.mark.parametrize(
    "expand, match",
    [
        ({"F2": "F2.a"}, "expected a list of steps"),
        (
            {"F2": [{"id": "F2.a", "acton": "x"}]},
            r"the expansion of 'F2'|expand\['F2'\].*unknown key 'acton'",
        ),
    ],
)
def test_bad_expansions_are_errors(far, expand, match):
    with pytest.raises(SimulationError, match=match):
        simulate(far, expand=expand)


def test_an_expansion_of_the_wrong_type_is_a_type_error(far):
    with pytest.raises(
        PlanvizTypeError, match=r"simulate\(expand=\.\.\.\) expects a mapping .* got int 42"
    ):
        simulate(far, expand=42)


def test_expanded_rewires_roots_and_sinks():
    plan = Plan(
        "g",
        [
            Step("A", "a"),
            Step("B", "b"),
            Step("F", "far", horizon="far", depends_on=["A", "B"]),
            Step("Z", "z", depends_on="F", arguments={"x": "{{F.out}}"}),
        ],
    )
    v2 = expanded(
        plan,
        "F",
        [Step("F1", "one"), Step("F2", "two"), Step("F3", "three", depends_on=["F1", "F2"])],
    )
    assert v2.step("F1").depends_on == ("A", "B") and v2.step("F2").depends_on == ("A", "B")
    assert v2.step("F3").depends_on == ("F1", "F2") and v2.step("Z").depends_on == ("F3",)
    assert v2.step("Z").arguments == {"x": "{{F3.out}}"}  # one sink: placeholders follow it
    with pytest.raises(SimulationError, match="only a far-horizon step is expanded"):
        expanded(plan, "A", [Step("A1", "a1")])
