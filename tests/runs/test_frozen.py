"""frozen_plan_test: seed 000's executor test, the route fixed; its figures computed from the run's events here."""

from __future__ import annotations

import json

import pytest

from planviz import Contract, Fault, FrozenResult, SimulationError, examples, frozen_plan_test


def test_a_clean_run_performs_every_step_with_its_evidence(cache_plan):
    result = frozen_plan_test(cache_plan)
    assert isinstance(result, FrozenResult) and result.outcome == "plan_complete"
    assert all(p.performed and p.evidence and p.attempts == 1 for p in result.steps.values())
    assert list(result.steps) == list(cache_plan.ids)
    assert (result.evidence_rate, result.out_of_plan, result.attribution) == (1.0, (), None)


def test_the_route_stays_fixed_no_replanning(cache_plan):
    result = frozen_plan_test(cache_plan, faults=[Fault("S4", "side_effect")])
    run = result.run
    assert result.outcome == "replan_limit" and not [e for e in run.events if e.kind == "replan"]
    assert len(run.plans) == 1
    started = {e.step for e in run.events if e.kind == "start"}
    completed = {e.step for e in run.events if e.kind == "complete"}
    assert {s for s, p in result.steps.items() if p.performed} == started
    assert {s for s, p in result.steps.items() if p.evidence} == completed
    assert result.evidence_rate == len(completed) / len(started) == 0.8
    assert result.attribution == "executor" and "'S4'" in result.reason


def test_steps_never_performed_and_the_rate_over_the_steps_run(cache_plan):
    result = frozen_plan_test(cache_plan, faults=[Fault("S1", "tool_error")], workers=1)
    assert not result.steps["S3"].performed and not result.steps["S4"].performed
    assert result.steps["S1"].performed and not result.steps["S1"].evidence
    ran = [p for p in result.steps.values() if p.performed]
    assert result.evidence_rate == sum(p.evidence for p in ran) / len(ran)


def test_retries_are_attempts_of_the_same_step(cache_plan):
    result = frozen_plan_test(cache_plan, faults=[Fault("S1", "transient")])
    assert (
        result.steps["S1"] == result.steps["S1"].__class__(True, True, 2)
        and result.outcome == "plan_complete"
    )


def test_an_inadmissible_plan_is_refused_naming_the_finding():
    with pytest.raises(SimulationError, match="admissible.*infeasible_fact"):
        frozen_plan_test(examples.load("release_no_credentials"))
    with pytest.raises(SimulationError, match="unverified_effect"):
        frozen_plan_test(examples.load("past_due_account"), Contract(intent="read"))


def test_to_dict_is_json_and_to_text_lists_every_step(cache_plan):
    result = frozen_plan_test(cache_plan, faults=[Fault("S4", "side_effect")])
    data = json.loads(json.dumps(result.to_dict()))
    assert data["steps"]["S4"] == {"performed": True, "evidence": False, "attempts": 1}
    text = result.to_text()
    assert all(sid in text for sid in cache_plan.ids) and "evidence rate: 0.80" in text


# ---------------------------------------------------------------- a real executor's run (seed 000, section 11)

REAL = "planviz/examples/traces/otel/any-agent_OPENAI_trace.json"


def raw_tool_calls(path):
    """The tool calls the raw OTel file records, in order: (tool name, arguments), read from the JSON here."""
    from pathlib import Path

    spans = json.loads((Path(__file__).resolve().parents[2] / path).read_text())["spans"]
    return [
        (s["attributes"]["gen_ai.tool.name"], json.loads(s["attributes"]["gen_ai.tool.args"]))
        for s in spans
        if s["attributes"].get("gen_ai.operation.name") == "execute_tool"
    ]


def test_a_recorded_run_is_aligned_with_the_fixed_plan_and_its_extra_calls_are_out_of_plan():
    from pathlib import Path

    from planviz import Plan, Step, load_trace

    calls = raw_tool_calls(REAL)
    assert [t for t, _ in calls] == ["get_current_time", "write_file"]
    # the route fixed in advance: look the time up, then send it by mail; the executor wrote a file instead
    plan = Plan(
        "tell the year",
        [
            Step(
                "T",
                "look the time up",
                tool="get_current_time",
                arguments=calls[0][1],
                expected_evidence="the time",
                produces="get_current_time.result",
            ),
            Step(
                "M",
                "mail it",
                tool="send_mail",
                depends_on="T",
                requires="get_current_time.result",
                expected_evidence="a sent mail",
                produces="mailed",
            ),
        ],
    )
    run = load_trace(Path(__file__).resolve().parents[2] / REAL)
    result = frozen_plan_test(plan, trace=run)
    assert result.steps["T"] == result.steps["T"].__class__(True, True, 1)
    # the raw file's 2nd call
    assert not result.steps["M"].performed and result.out_of_plan == ("write_file",)
    assert result.evidence_rate == 1.0 and result.run is run
    # it left the route
    assert result.attribution == "executor" and "not performed: M" in result.reason
    assert "write_file" in result.to_text()


def test_a_trace_with_faults_is_refused(cache_plan):
    from pathlib import Path

    from planviz import load_trace

    run = load_trace(Path(__file__).resolve().parents[2] / REAL)
    with pytest.raises(SimulationError, match="faults are for a simulated route"):
        frozen_plan_test(cache_plan, faults=[Fault("S1", "transient")], trace=run)


def test_a_step_still_running_at_the_stop_counts_as_not_run(cache_plan):
    # S2 completes at 8 without its evidence and the route stops; S1 (5-13) is still running then
    result = frozen_plan_test(cache_plan, faults=[Fault("S2", "missing_evidence")])
    run = result.run
    running = {s for s, v in run.frame(-1).statuses.items() if v == "running"}
    assert (
        running == {"S1"} and not result.steps["S1"].performed and result.steps["S1"].attempts == 1
    )
    assert (
        result.steps["S0"].evidence
        and result.steps["S2"].performed
        and not result.steps["S2"].evidence
    )
    # S0 of S0 and S2 (was 1/3 with S1 counted as producing nothing)
    assert result.evidence_rate == 0.5


def test_the_cli_tests_a_recorded_run(tmp_path, capsys):
    from planviz.frontends.cli.commands import main

    plan = tmp_path / "plan.yaml"
    plan.write_text(
        "goal: tell the year\nsteps:\n"
        "  - {id: T, action: look the time up, tool: get_current_time, expected_evidence: the time,"
        " produces: [get_current_time.result]}\n"
    )
    code = main(["simulate", str(plan), "--frozen", "--trace", REAL, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert (code, data["out_of_plan"], data["steps"]["T"]["performed"]) == (0, ["write_file"], True)
