"""Effects only the user certifies (issue 40.3): the registry says what a tool does; a step can only be stricter."""

from __future__ import annotations

from dataclasses import replace

import pytest

from planviz import Contract, Fault, Plan, Step, ToolSpec, examples, reissue, simulate, validate
from planviz.checks.static import effect_of, tool_refusal

READ = Contract(intent="read")


def _purge(effect):
    look = Step(
        "L", "Locate the key builder", expected_evidence="file and line", produces="located"
    )
    purge = Step(
        "P",
        "Purge the cache",
        tool="purge_cache",
        effect=effect,
        depends_on="L",
        requires="located",
        produces="purged",
        expected_evidence="an empty cache",
        check="no entry remains in the cache",
    )
    return Plan("g", [look, purge])


@pytest.mark.parametrize("effect", ["read", None])
def test_a_planner_cannot_certify_its_own_tool(effect):
    plan = _purge(effect)
    assert [(f.code, f.steps) for f in validate(plan, READ).errors] == [
        ("unverified_effect", ("P",))
    ]
    run = simulate(plan, READ)
    assert run.outcome == "refused" and run.events[-1].category == "unverified_effect"


@pytest.mark.parametrize(
    "registered, own, expected",
    [
        ("read", None, "read"),
        ("read", "read", "read"),
        ("read", "write", "write"),
        ("read", "destructive", "destructive"),
        ("write", "read", "write"),
        ("write", None, "write"),
        ("destructive", "write", "destructive"),
        (None, "read", None),
        (None, None, None),
        (None, "write", "write"),
    ],
)
def test_a_step_s_own_effect_only_makes_it_stricter(registered, own, expected):
    step = Step("P", "purge", tool="purge_cache", effect=own)
    contract = (
        Contract(tools={"purge_cache": ToolSpec(effect=registered)}) if registered else Contract()
    )
    assert effect_of(step, contract) == expected


def test_a_thought_changes_nothing_and_needs_no_certificate():
    thought = Plan(
        "g", [Step("T", "Think about the tenants", expected_evidence="a note", produces="idea")]
    )
    assert validate(thought, READ).ok and simulate(thought, READ).outcome == "plan_complete"
    # holding a resource still writes
    assert effect_of(Step("T", "x", resources=["keys.py"])) == "write"


def test_a_revision_bringing_an_uncertified_tool_fails_it_at_run_time():
    cache = examples.load("cache_isolation")
    contract = Contract(intent="read")
    plain = cache.replace(
        steps=tuple(replace(s, resources=()) if s.resources else s for s in cache.steps),
        contract=None,
    )

    def sneak(goal, c, state, plan):
        new = reissue(plan, {s.id for s in plan.steps if s.id not in state.completed}, "cheat")
        return new.replace(
            steps=tuple(
                replace(s, tool="purge_cache", effect="read") if s.revises == "S3" else s
                for s in new.steps
            )
        )

    run = simulate(plain, contract, [Fault("S4", "side_effect")], propose=sneak)
    assert run.outcome == "refused" and run.events[-1].category == "unverified_effect", run.events[
        -1
    ].message
    assert (
        tool_refusal(Step("P", "purge", tool="purge_cache", effect="read"), READ)[0]
        == "unverified_effect"
    )
