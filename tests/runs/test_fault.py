"""Faults are checked against the plan they are injected into: bad arguments name the valid choices."""

from __future__ import annotations

from dataclasses import replace

import pytest

from planviz import Fault, SimulationError, examples, simulate
from planviz.runs.fault import fault_facts


@pytest.mark.parametrize(
    "fault, match",
    [
        (
            "S3:withdraw:key_bulder_located",
            r"'S3' does not require 'key_bulder_located' \(did you mean "
            r"'key_builder_located'\?\); it requires 'isolation_test_written', "
            r"'key_builder_located'",
        ),
        # produced, not required
        (
            "S3:withdraw:patch_applied",
            "'S3' does not require 'patch_applied'",
        ),
        ("S0:withdraw", "step 'S0' requires no fact to withdraw"),
        (
            "S1:missing_evidence:leak_reproduced",
            "'S1' does not produce 'leak_reproduced'; it produces 'key_builder_located'",
        ),
        (
            "S1:premise_false:the cache is shared",
            "'the cache is shared' is not a premise of the plan; its premises "
            "are 'the service uses the level-1 cache'",
        ),
        ("S5:side_effect", "no step 'S5' in the plan; its steps are 'S0', 'S1', 'S2', 'S3', 'S4'"),
        ("S33:transient", r"no step 'S33' in the plan \(did you mean 'S3'\?\)"),
        (
            "S4:approval_denied",
            "'S4' needs no approval, so none can be denied; steps with an approval: none",
        ),
    ],
)
def test_a_fault_the_plan_cannot_have_is_an_error_naming_the_choices(cache_plan, fault, match):
    with pytest.raises(SimulationError, match=match):
        simulate(cache_plan, faults=[Fault.parse(fault)])


@pytest.mark.parametrize(
    "fault, fact",
    [
        ("S3:withdraw", "key_builder_located"),
        ("S3:withdraw:isolation_test_written", "isolation_test_written"),
        ("S1:premise_false", "the service uses the level-1 cache"),
        ("S4:missing_evidence", None),
        ("S4:extra_fact:cache_warm", "cache_warm"),
        ("S3.v2:side_effect", None),  # a revision of a step: not known yet, checked when it exists
    ],
)
def test_fault_facts_fill_in_the_defaults(cache_plan, fault, fact):
    plan = cache_plan
    if fault.startswith("S3.v2"):
        plan = plan.replace(
            steps=[s if s.id != "S3" else replace(s, id="S3.v2", revises="S3") for s in plan.steps]
        )
        fault = "S3:side_effect"
    assert fault_facts(plan, [Fault.parse(fault)]) == (fact,)


def test_steps_an_expansion_adds_may_be_named():
    far = examples.load("far_horizon")
    assert fault_facts(far, [Fault("F1.b", "withdraw")], far.step("F1").expands_to) == (
        "export_on_replica",
    )
    with pytest.raises(SimulationError, match="no step 'F2.a'"):
        simulate(far, faults=[Fault("F2.a", "transient")])
    # may add any step
    run = simulate(far, faults=[Fault("F2.a", "transient")], expand=lambda step, state: None)
    assert run.outcome == "awaiting_expansion"


def test_the_cli_says_it_in_one_line_and_exits_2(capsys):
    from planviz.frontends.cli.commands import main

    code = main(
        [
            "simulate",
            str(examples.path("cache_isolation")),
            "--fault",
            "S3:withdraw:key_bulder_located",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "did you mean 'key_builder_located'" in err


# one failing case per fault kind on the worked example: (fault, strategy)
_FAILING = {
    "transient": (Fault("S1", "transient", times=9), "workflow"),
    "tool_error": (Fault("S1", "tool_error", times=9), "workflow"),
    "withdraw": (Fault("S3", "withdraw", times=9), "workflow"),
    "side_effect": (Fault("S4", "side_effect", times=9), "workflow"),
    "missing_evidence": (Fault("S1", "missing_evidence", times=9), "workflow"),
    "goal_change": (Fault("S3", "goal_change"), "workflow"),
    "premise_false": (Fault("S1", "premise_false"), "planner"),
}


def test_every_fault_kind_has_its_row():
    from planviz.runs.fault import FAULT_KINDS, FAULTS
    from planviz.runs.measures.runmetrics import ATTRIBUTIONS

    assert FAULT_KINDS == tuple(FAULTS) and all(FAULTS[k].name == k for k in FAULTS)
    assert {k.blame for k in FAULTS.values()} <= set(ATTRIBUTIONS) | {None}
    assert set(_FAILING) | {"extra_fact", "approval_denied"} == set(FAULT_KINDS), (
        "add the new kind's case here"
    )
    # said at the end of a step
    assert all((k.says is None) == (k.observed is None) for k in FAULTS.values())


@pytest.mark.parametrize(
    "kind",
    [
        "transient",
        "tool_error",
        "withdraw",
        "side_effect",
        "missing_evidence",
        "goal_change",
        "premise_false",
        "extra_fact",
        "approval_denied",
    ],
)
def test_each_rows_behaviour_is_the_one_the_observer_and_the_fault_model_use(
    kind, cache_plan, monkeypatch
):
    """A kind's behaviour lives in its row of FAULTS and nowhere else: change the row's ``says`` and ``draws``
    and the observer and FaultModel follow it (adding a kind is adding a row)."""
    from planviz.runs.engine.observer import observation
    from planviz.runs.evaluation.faultmodel import FaultModel
    from planviz.runs.fault import FAULTS, Observed

    row, marker, asked = FAULTS[kind], f"said by the {kind} row", []
    said = Observed(False, frozenset({marker}), frozenset({"w"}), marker)
    monkeypatch.setitem(
        FAULTS,
        kind,
        replace(
            row,
            says=None if row.says is None else lambda step, fault, fact: said,
            draws=lambda plan, step: asked.append(step.id) or (marker, marker),
        ),
    )
    if row.observed is not None:
        seen = observation(cache_plan.step("S3"), Fault("S3", kind, "x"), "x")
        assert (seen.ok, seen.facts, seen.withdrawn, seen.kind) == (
            False,
            {marker},
            {"w"},
            row.observed,
        )
        assert seen.data == {"fault": f"S3:{kind}:x", "message": marker}
    sampled = FaultModel(rates={kind: 1.0}, seed=3).sample(cache_plan, 0)
    assert asked == [s.id for s in cache_plan.steps]
    assert [(f.step, f.kind, f.fact) for f in sampled] == [
        (s.id, kind, marker) for s in cache_plan.steps
    ]


@pytest.mark.parametrize("kind", sorted(_FAILING))
def test_the_row_says_what_the_observer_and_attribution_do(kind, cache_plan):
    from planviz import attribution, simulate
    from planviz.runs.engine.observer import observation
    from planviz.runs.fault import FAULTS, fault_facts

    row = FAULTS[kind]
    fault, strategy = _FAILING[kind]
    step = cache_plan.step(fault.step)
    (fact,) = fault_facts(cache_plan, [fault])
    assert observation(step, fault, fact).kind == row.observed
    run = simulate(cache_plan, faults=[fault], strategy=strategy)
    failed = [e.category for e in run.events if e.kind == "fail"]
    assert (failed[:1] == [row.category]) if failed else row.category == "premise_false"
    assert attribution(run).party == row.blame


@pytest.mark.parametrize(
    "example, step, says",
    [
        # no tool: the step is named
        (
            "cache_isolation",
            "S1",
            "step 'S1' (it calls no tool) errored",
        ),
        ("past_due_account", "step_2", "tool 'check_payment_plan_eligibility' errored"),
    ],
)
def test_a_tool_error_names_the_tool_or_the_step_never_tool_none(example, step, says):
    """Issue 23.10: a fault on a step without a tool read "tool None errored" in the log and the explorer."""
    run = simulate(examples.load(example), faults=[Fault(step, "tool_error")])
    fail = next(e for e in run.events if e.kind == "fail")
    assert fail.step == step and fail.message.endswith(says)
    from planviz.frontends.snapshot import run_snapshot

    # what the explorer lists
    shown = " ".join(str(cell) for row in run_snapshot(run)["log"] for cell in row)
    assert says in shown and "tool None" not in shown and "None errored" not in run.to_text()
