"""Recorder: a real agent's approvals and expansions are recorded like a simulation's."""

from __future__ import annotations

from planviz import Plan, Recorder, Step, load_trace, metrics


def test_an_agent_records_an_approval_and_an_expansion(tmp_path):
    far = Step("F", "migrate", horizon="far", expected_evidence="e", produces="moved")
    plan = Plan("g", [Step("A", "prepare", expected_evidence="e", produces="ready"), far])
    rec = Recorder(path=tmp_path / "run.jsonl", clock=iter(range(100)).__next__)
    rec.propose(plan)
    rec.start("A")
    rec.complete("A")
    concrete = Step("F.a", "move", expected_evidence="e", produces="moved", approval="lead")
    expand = rec.expand("F", Plan("g", [plan.step("A"), concrete]))
    assert (expand.kind, expand.step, expand.plan_version) == ("expand", "F", 2)
    approval = rec.approve("F.a")
    assert (approval.kind, approval.category) == ("approval", "granted")
    rec.start("F.a")
    rec.complete("F.a")
    rec.stop("plan_complete")
    run = load_trace(tmp_path / "run.jsonl")
    assert (
        run == rec.run
        and [p.version for p in run.plans] == [1, 2]
        and run.plans[1].parent is run.plans[0]
    )
    assert [e.kind for e in run.events] == [
        "propose",
        "start",
        "complete",
        "expand",
        "approval",
        "start",
        "complete",
        "stop",
    ]
    m = metrics(run)
    assert (m.model_calls, m.executability, m.success) == (2, 1.0, True)
