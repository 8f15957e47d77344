"""Far-horizon steps in plan files and values: budget and expands_to, checked by the loader and the model."""

from __future__ import annotations

import pytest
import yaml

from planviz import Budget, PlanFormatError, Step, dump_plan, examples, parse_plan, plan_schema

PLAN = """\
goal: g
steps:
  - id: N
    action: prepare
    expected_evidence: e
  - id: F
    action: the far goal
    horizon: far
    depends_on: N
    expected_evidence: e
    FIELDS
"""


def far(fields: str) -> str:
    return PLAN.replace("FIELDS", fields)


def test_a_far_step_carries_its_budget_and_expansion_and_round_trips():
    plan = parse_plan(
        far(
            "budget: {steps: 2, duration: 5}\n    expands_to:\n"
            "      - {id: F.a, action: x, expected_evidence: e, duration: 2}\n"
            "      - {id: F.b, action: y, expected_evidence: e, depends_on: F.a}"
        )
    )
    step = plan.step("F")
    assert step.budget == Budget(steps=2, duration=5.0)
    assert [s.id for s in step.expands_to] == ["F.a", "F.b"] and step.expands_to[1].depends_on == (
        "F.a",
    )
    assert parse_plan(dump_plan(plan)) == plan
    import jsonschema  # here, not at collection: importing it takes seconds (its format checkers)

    jsonschema.validate(yaml.safe_load(dump_plan(plan)), plan_schema())


@pytest.mark.parametrize(
    "fields, match",
    [
        ("budget: {steps: x}", r"steps\[1\]\.budget\.steps: expected an integer >= 0, got 'x'"),
        (
            "budget: {stepz: 1}",
            r"steps\[1\]\.budget\.stepz: unknown key 'stepz' \(did you mean 'steps'\?\)",
        ),
        ("budget: {duration: -1}", r"steps\[1\]\.budget\.duration: expected a finite number >= 0"),
        ("budget: 4", r"steps\[1\]\.budget: expected a budget mapping \(steps, duration\)"),
        ("expands_to: 3", r"steps\[1\]\.expands_to: expected a list of step mappings"),
        (
            "expands_to: [{id: Q, acton: z}]",
            r"steps\[1\]\.expands_to\[0\]\.acton: unknown key 'acton'",
        ),
        ("expands_to: [7]", r"steps\[1\]\.expands_to\[0\]: expected a step mapping"),
    ],
)
def test_the_loader_checks_budget_and_expansion(fields, match):
    with pytest.raises(PlanFormatError, match=match):
        parse_plan(far(fields))


@pytest.mark.parametrize(
    "fields", ["budget: {steps: 1}", "expands_to: [{id: Q, action: q, expected_evidence: e}]"]
)
def test_only_a_far_step_has_a_budget_or_an_expansion(fields):
    with pytest.raises(
        PlanFormatError, match=r"steps\[1\]: only a far-horizon step \(horizon: far\) has"
    ):
        parse_plan(far(fields).replace("horizon: far", "horizon: near"))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"budget": {"steps": 1}}, "only a far-horizon step"),
        ({"horizon": "far", "budget": "3 steps"}, "expected a Budget or a mapping"),
        ({"horizon": "far", "budget": {"hours": 3}}, "unknown key 'hours'"),
        ({"horizon": "far", "expands_to": "S1"}, "expected a list of steps"),
        ({"horizon": "far", "expands_to": [{"id": "x"}]}, r"expands_to\[0\]: expected a Step"),
    ],
)
def test_step_values_check_the_far_fields(kwargs, match):
    with pytest.raises(PlanFormatError, match=match):
        Step("F", "far", **kwargs)


def test_a_far_step_value_normalises_its_fields():
    step = Step("F", "far", horizon="far", budget={"steps": 1}, expands_to=[Step("a", "a")])
    assert step.budget == Budget(steps=1) and step.expands_to == (Step("a", "a"),)
    assert hash(step) == hash(
        Step("F", "far", horizon="far", budget=Budget(1), expands_to=(Step("a", "a"),))
    )
    assert Step("N", "near", expands_to=[]).expands_to == ()


def test_the_far_horizon_example_carries_one_expansion_and_budgets():
    plan = examples.load("far_horizon")
    assert plan.step("F1").budget == Budget(3, 40) and [
        s.id for s in plan.step("F1").expands_to
    ] == ["F1.a", "F1.b"]
    assert plan.step("F2").budget == Budget(2, 24) and plan.step("F2").expands_to == ()
