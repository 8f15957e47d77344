"""planviz.model: the immutable values refuse what they cannot hold, naming the field."""

from __future__ import annotations

import pytest

from planviz import Finding, Plan, Step, ToolSpec, dump_plan, parse_plan
from planviz.errors import PlanFormatError


@pytest.mark.parametrize(
    "kwargs, expected",
    [
        ({}, (True, False, ())),
        (
            {"permitted": False, "writes": True, "preconditions": "backup"},
            (False, True, ("backup",)),
        ),
    ],
)
def test_toolspec_fields(kwargs, expected):
    spec = ToolSpec(**kwargs)
    assert (spec.permitted, spec.writes, spec.preconditions) == expected


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"permitted": "no"}, r"ToolSpec\.permitted: expected True or False, got 'no'"),
        ({"permitted": 0}, r"ToolSpec\.permitted: expected True or False, got 0"),
        ({"writes": "false"}, r"ToolSpec\.writes: expected True or False, got 'false'"),
        ({"writes": None}, r"ToolSpec\.writes: expected True or False, got None"),
        ({"preconditions": [1]}, r"ToolSpec\.preconditions\[0\]: expected a string, got 1"),
    ],
)
def test_toolspec_refuses_non_booleans(kwargs, match):
    with pytest.raises(PlanFormatError, match=match):
        ToolSpec(**kwargs)


@pytest.mark.parametrize("duration, expected", [(0, 0.0), (3, 3.0), (2.5, 2.5), (10**30, 1e30)])
def test_step_duration_becomes_a_float(duration, expected):
    assert Step("A", "a", duration=duration).duration == expected


@pytest.mark.parametrize("duration", [-1, float("nan"), float("inf"), True, "5", None, 10**400])
def test_step_refuses_a_bad_duration(duration):
    with pytest.raises(PlanFormatError, match=r"step 'A'\.duration: expected a finite number >= 0"):
        Step("A", "a", duration=duration)


@pytest.mark.parametrize(
    "arguments, expected",
    [
        ({}, {}),
        ({"ids": ("a", "b")}, {"ids": ["a", "b"]}),
        ({"q": {"in": (1, (2, 3))}}, {"q": {"in": [1, [2, 3]]}}),
    ],
)
def test_step_arguments_are_copied_as_a_file_would_give_them_back(arguments, expected):
    step = Step("A", "a", expected_evidence="e", arguments=arguments)
    assert step.arguments == expected
    assert parse_plan(dump_plan(Plan("g", [step]))).steps[0] == step


def test_step_arguments_do_not_share_nested_containers():
    inner = {"x": [1]}
    step = Step("A", "a", arguments={"q": inner})
    inner["x"].append(2)
    assert step.arguments == {"q": {"x": [1]}}


@pytest.mark.parametrize(
    "depends_on, expected",
    [
        ("S0", ("S0",)),
        (["S2", "S0"], ("S2", "S0")),  # a list keeps the author's order
        # a set has none, so it is sorted: runs stay deterministic
        (
            {"S2", "S0", "S1"},
            ("S0", "S1", "S2"),
        ),
        (frozenset({"b", "a"}), ("a", "b")),
        ((), ()),
    ],
)
def test_step_string_fields_normalise_to_tuples(depends_on, expected):
    assert Step("A", "a", depends_on=depends_on).depends_on == expected


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (
            {"layer": "semantic"},
            r"Finding\.layer: expected one of 'import', 'structure', .*got 'semantic'",
        ),
        (
            {"severity": "fatal"},
            r"Finding\.severity: expected one of 'error', 'warning', 'info', got 'fatal'",
        ),
    ],
)
def test_finding_refuses_unknown_layers_and_severities(kwargs, match):
    values = {"code": "cycle", "layer": "structure", "severity": "error", "message": "m", **kwargs}
    with pytest.raises(PlanFormatError, match=match):
        Finding(**values)


@pytest.mark.parametrize(
    "change",
    [
        lambda s: setattr(s, "id", "B"),
        lambda s: setattr(s, "not_a_field", 1),
        lambda s: delattr(s, "action"),
    ],
)
def test_a_step_refuses_changes_and_says_how_to_copy_it(change):
    """Slotted steps keep the frozen dataclass's error, for any name (slots=True's own check fails on 3.10/3.11)."""
    from dataclasses import FrozenInstanceError, replace

    step = parse_plan("goal: g\nsteps: [{id: A, action: a}]").steps[0]  # the fast read path's step
    for s in (step, Step("A", "a")):
        with pytest.raises(
            FrozenInstanceError,
            match=r"cannot assign to field '\w+': a Step is immutable; use "
            r"dataclasses\.replace",
        ):
            change(s)
        assert (
            replace(s, action="b").action == "b" and s.action == "a" and not hasattr(s, "__dict__")
        )


def test_a_repeated_id_keeps_its_first_step_in_file_order():
    plan = Plan("g", [Step("A", "first"), Step("B", "b"), Step("A", "second"), Step("C", "c")])
    assert [(sid, s.action) for sid, s in plan.by_id.items()] == [
        ("A", "first"),
        ("B", "b"),
        ("C", "c"),
    ]
