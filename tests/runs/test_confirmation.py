"""Confirming a write plan as a whole (seed 003): under Contract(confirm="plan") a run asks one approval of every
writing step before step 1, so a no costs no tool call; confirmation_sheet is what the person reads."""

from __future__ import annotations

from dataclasses import replace

import pytest

from planviz import (
    Contract,
    Fault,
    Plan,
    SimulationError,
    Step,
    ToolSpec,
    confirmation_sheet,
    load_trace,
    metrics,
    parse_contract,
    save_trace,
    simulate,
)

TOOLS = {
    "ls": ToolSpec(effect="read"),
    "snap": ToolSpec(effect="write"),
    "purge": ToolSpec(effect="destructive"),
}
PLAN = Plan(
    "purge the leaked entries",
    [
        Step("A", "find the leaks", tool="ls", expected_evidence="e", produces="found", duration=2),
        Step(
            "B",
            "read the log",
            tool="ls",
            expected_evidence="e",
            depends_on="A",
            requires="found",
            produces="read",
        ),
        Step(
            "S",
            "snapshot",
            tool="snap",
            expected_evidence="e",
            depends_on="B",
            requires="read",
            produces="snapped",
            check="the snapshot lists every entry",
            rollback="delete the snapshot",
        ),
        Step(
            "P",
            "purge",
            tool="purge",
            arguments={"snapshot": "{{S.id}}"},
            expected_evidence="e",
            depends_on="S",
            requires="snapped",
            produces="purged",
            check="no leaked entry remains",
            rollback="restore the snapshot",
        ),
    ],
)
CONFIRM = Contract(tools=TOOLS, confirm="plan")


def approvals(run):
    return [(e.step, e.category) for e in run.events if e.kind == "approval"]


@pytest.mark.parametrize("strategy", ["planner", "workflow"])
def test_one_approval_before_step_1_lists_every_writing_step(strategy):
    run = simulate(PLAN, CONFIRM, strategy=strategy)
    assert run.outcome == "plan_complete" and approvals(run) == [(None, "granted")]
    kinds = [e.kind for e in run.events]
    assert kinds.index("approval") < kinds.index("start")
    assert "writing steps S, P" in next(e.message for e in run.events if e.kind == "approval")


@pytest.mark.parametrize("denied", ["S", "P"])
@pytest.mark.parametrize("strategy", ["planner", "workflow"])
def test_a_no_to_the_plan_costs_no_tool_call(denied, strategy):
    run = simulate(PLAN, CONFIRM, faults=[Fault(denied, "approval_denied")], strategy=strategy)
    assert run.outcome == "approval_denied" and approvals(run) == [(None, "denied")]
    assert metrics(run).tool_calls == 0 and not any(e.kind == "start" for e in run.events)
    assert "no tool was called" in run.events[-1].message


def test_without_the_option_the_no_comes_at_the_step_after_the_work_before_it():
    asked = Plan(PLAN.goal, [*PLAN.steps[:3], replace(PLAN.step("P"), approval="cache owner")])
    late = simulate(asked, Contract(tools=TOOLS), faults=[Fault("P", "approval_denied")])
    early = simulate(asked, CONFIRM, faults=[Fault("P", "approval_denied")])
    assert (late.outcome, metrics(late).tool_calls) == ("approval_denied", 3)
    assert (early.outcome, metrics(early).tool_calls) == ("approval_denied", 0)
    # confirmed as a whole, a step with its own approval still waits for it
    granted = simulate(asked, CONFIRM)
    assert (
        approvals(granted) == [(None, "granted"), ("P", "granted")]
        and granted.outcome == "plan_complete"
    )


def test_the_direct_agent_has_no_plan_to_show_so_it_asks_at_each_write():
    run = simulate(PLAN, CONFIRM, faults=[Fault("P", "approval_denied")], strategy="direct")
    assert run.outcome == "approval_denied" and approvals(run) == [
        ("S", "granted"),
        ("P", "denied"),
    ]
    assert metrics(run).tool_calls == 3


@pytest.mark.parametrize(
    "contract",
    [
        Contract(tools=TOOLS),
        Contract(tools={k: ToolSpec(effect="read") for k in TOOLS}, confirm="plan"),
    ],
)
def test_nothing_is_asked_without_the_option_or_without_a_write(contract):
    run = simulate(PLAN, contract)
    assert run.outcome == "plan_complete" and approvals(run) == []


def test_a_denial_naming_a_step_the_confirmation_does_not_cover_is_refused():
    with pytest.raises(SimulationError, match=r"step 'A' needs no approval.*confirm='plan'"):
        simulate(PLAN, CONFIRM, faults=[Fault("A", "approval_denied")])
    with pytest.raises(SimulationError, match=r"step 'S' needs no approval"):
        simulate(PLAN, Contract(tools=TOOLS), faults=[Fault("S", "approval_denied")])


def test_the_plan_approval_survives_a_trace(tmp_path):
    run = simulate(PLAN, CONFIRM, faults=[Fault("S", "approval_denied")])
    save_trace(run, tmp_path / "run.jsonl")
    again = load_trace(tmp_path / "run.jsonl")
    assert approvals(again) == [(None, "denied")] and again.outcome == "approval_denied"


def test_the_option_reads_from_a_contract_file():
    assert parse_contract("confirm: plan\n").confirm == "plan"
    with pytest.raises(Exception, match=r"confirm: expected one of 'plan'"):
        parse_contract("confirm: always\n")


def test_the_sheet_lists_the_writing_steps_with_tool_arguments_effect_check_and_rollback():
    sheet = confirmation_sheet(PLAN, CONFIRM)
    assert sheet.steps == ("S", "P")
    assert [(r.tool, r.effect, r.rollback) for r in sheet.rows] == [
        ("snap", "write", "delete the snapshot"),
        ("purge", "destructive", "restore the snapshot"),
    ]
    text = sheet.to_text()
    assert text.startswith(
        "confirm the write plan for: purge the leaked entries\n2 of 4 steps write"
    )
    assert '      tool: purge  arguments: {"snapshot": "{{S.id}}"}  effect: destructive' in text
    assert "      rollback: restore the snapshot" in text and "find the leaks" not in text
    assert str(sheet) == text
    # the plan's own contract is the default; with nothing that writes there is nothing to confirm
    assert confirmation_sheet(PLAN.replace(contract=CONFIRM)).steps == ("S", "P")
    assert (
        confirmation_sheet(PLAN).to_text()
        == "nothing to confirm: no step of 4 writes (goal: purge the leaked "
        "entries)"
    )
