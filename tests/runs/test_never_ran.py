"""Steps that never ran are never voided (issue 23, item 10): a failure voids work, and a step that never started
had none. In a run that stops early (refused, infeasible, goal changed, a failure that ends it, a frozen-plan test,
a recorded trace that ends) such a step is pending or blocked while the run goes on and *not run* from the stop on:
in the frames, the events, the pictures, the report's deltas, the explorer's legend and the counts."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings

from planviz import (
    Contract,
    Fault,
    Observation,
    Plan,
    Recorder,
    Step,
    align,
    examples,
    frozen_plan_test,
    load_trace,
    render,
    render_alignment,
    simulate,
)
from planviz.frontends.panels import fault_text
from planviz.frontends.snapshot import run_snapshot
from planviz.pictures.style import LOOKS
from tests.strategies import plans_and_faults

from .test_revision import copy_under_new_ids


def started_by(run, i: int) -> set[str]:
    """The steps with a start event at or before event ``i`` (read from the events, not from the frames)."""
    return {e.step for e in run.events[: i + 1] if e.kind == "start"}


def assert_only_started_work_is_voided(run) -> None:
    """No event voids, and no frame shows as voided, a step that had not started; the stop frame's not_run are
    exactly the steps of the last version that never started and were still pending or ready."""
    for i, e in enumerate(run.events):
        began = started_by(run, i)
        assert set(e.voided) <= began, (i, e.kind, sorted(set(e.voided) - began))
        frame = run.frame(i)
        shown = set(frame.voided) | {s for s, v in frame.statuses.items() if v == "invalidated"}
        assert shown <= began, (i, sorted(shown - began))
    last = run.frame(-1)
    began = started_by(run, len(run.events) - 1)
    expected = {s for s, v in last.statuses.items() if s not in began and v in ("pending", "ready")}
    assert set(last.not_run) == (expected if run.outcome is not None else set())
    assert not set(last.not_run) & began


def cheat_self_vouched():
    cache = examples.load("cache_isolation")
    s5 = Step(
        "S5",
        "announce the fix",
        expected_evidence="a note",
        requires=["isolation_verified", "hit_rate_ok"],
        produces=["announced"],
    )
    contract = replace(
        cache.contract, obtainable_facts=(*cache.contract.obtainable_facts, "announced")
    )
    return simulate(
        cache.replace(
            steps=(*cache.steps, s5),
            premises=(*cache.premises, "isolation_verified", "hit_rate_ok"),
        ),
        contract,
    )


CACHE = examples.load("cache_isolation")
C_DOC = Contract(
    required=["reproduce", "diagnose"],
    obtainable_facts=["leak_reproduced", "key_builder_located", "isolation_test_written"],
)

# (name, the run, its outcome, the steps that never started and are not run at the end, the steps voided somewhere)
CHEATS = [
    (
        "1 a plan vouches for its own facts",
        cheat_self_vouched,
        "refused",
        {"S0", "S1", "S2", "S3", "S4", "S5"},
        set(),
    ),
    (
        "2 read-only contract, no registry",
        lambda: simulate(examples.load("past_due_account"), Contract(intent="read")),
        "refused",
        {"step_1", "step_2", "step_3", "step_4", "step_5"},
        set(),
    ),
    (
        "3 the same work under new ids",
        lambda: simulate(
            CACHE, faults=[Fault("S4", "side_effect", times=10)], propose=copy_under_new_ids
        ),
        "replan_limit",
        set(),
        {"S3", "S4", "P", "V", "P2", "V2"},
    ),
    (
        "4 a replanner swaps the goal",
        lambda: simulate(
            CACHE,
            faults=[Fault("S3", "side_effect")],
            propose=lambda g, c, s, p: p.replace(goal="Something else"),
        ),
        "refused",
        {"S4"},
        {"S3"},
    ),
    (
        "5 a check that says ran",
        lambda: simulate(
            CACHE.replace(
                steps=tuple(replace(s, check="ran") if s.id == "S3" else s for s in CACHE.steps)
            )
        ),
        "refused",
        set(CACHE.ids),
        set(),
    ),
    (
        "6 infeasible: a correct refusal",
        lambda: simulate(CACHE, Contract(obtainable_facts=["leak_reproduced"])),
        "refused",
        set(CACHE.ids),
        set(),
    ),
    (
        "7 the direct agent after a tool error",
        lambda: simulate(CACHE, faults=[Fault("S1", "tool_error")], strategy="direct"),
        "step_failed",
        set(),
        set(),
    ),
    (
        "8 goal change with a new contract",
        lambda: simulate(
            CACHE,
            faults=[Fault("S3", "goal_change", goal="Document the leak only", contract=C_DOC)],
        ),
        "plan_complete",
        set(),
        {"S3"},
    ),
    (
        "9 frozen plan test, side effect at the patch",
        lambda: frozen_plan_test(CACHE, faults=[Fault("S3", "side_effect")]).run,
        "replan_limit",
        {"S4"},
        {"S3"},
    ),
    (
        "goal changed, no new goal",
        lambda: simulate(CACHE, faults=[Fault("S2", "goal_change")]),
        "goal_changed",
        {"S3", "S4"},
        {"S0", "S1", "S2"},
    ),
    # S3 and S4 wait on the failed S1: blocked, not voided, not "not run"
    (
        "a failure that ends the run",
        lambda: simulate(CACHE, faults=[Fault("S1", "tool_error")]),
        "step_failed",
        set(),
        set(),
    ),
    (
        "the workflow after a withdrawn fact",
        lambda: simulate(CACHE, faults=[Fault("S3", "withdraw")], strategy="workflow"),
        "step_failed",
        set(),
        set(),
    ),
    (
        "a side effect found again and again",
        lambda: simulate(CACHE, faults=[Fault("S3", "side_effect", times=10)]),
        "replan_limit",
        {"S4.v3"},
        {"S3", "S3.v2", "S3.v3"},
    ),
]


@pytest.mark.parametrize("name, make, outcome, not_run, voided", CHEATS, ids=[c[0] for c in CHEATS])
def test_the_cheats_never_void_a_step_that_never_ran(name, make, outcome, not_run, voided):
    run = make()
    assert run.outcome == outcome
    assert_only_started_work_is_voided(run)
    assert set(run.frame(-1).not_run) == not_run
    assert {s for e in run.events for s in e.voided} == voided
    # what the explorer's fault panel counts
    panel = fault_text([Fault("S0", "transient")], run).split("\n")[1]
    assert set(panel.removeprefix("voided: ").split(", ")) - {"(none)"} == voided


@pytest.mark.parametrize(
    "name, make, outcome, not_run, voided",
    [c for c in CHEATS if c[3]],
    ids=[c[0] for c in CHEATS if c[3]],
)
def test_a_step_the_run_never_started_is_drawn_not_run_never_voided(
    name, make, outcome, not_run, voided
):
    run = make()
    svg = render(run.plan_at(len(run.events) - 1), run=run, at=len(run.events) - 1).svg
    look = LOOKS["not_run"]
    for sid in not_run:
        start = svg.index(f'id="node-{sid}"')
        node = svg[start : svg.index("</g>", svg.index("</text>", start))]
        assert "not_run" in node and "VOIDED" not in node and look.text in node, node
        assert "voided" not in node.split('class="', 1)[1].split('"', 1)[0].split()
    snapshot = run_snapshot(run)  # what the explorer and the report draw from
    last = snapshot["versions"][-1]
    shown = {sid: snapshot["look_legend"][look] for sid, look in zip(last["ids"], last["looks"])}
    assert {sid for sid, key in shown.items() if key == "not_run"} == not_run
    assert "invalidated" not in {shown[sid] for sid in not_run}
    assert ["not_run", "not run: the run stopped first (never voided)"] == [
        row[:2] for row in snapshot["legend"] if row[0] == "not_run"
    ][0]


def test_an_invalidate_event_names_the_never_run_steps_of_its_scope():
    run = frozen_plan_test(CACHE, faults=[Fault("S3", "side_effect")]).run
    inv = next(e for e in run.events if e.kind == "invalidate")
    assert inv.voided == {"S3"} and inv.message.endswith("never ran, so nothing to void: S4")
    assert run.frame(inv.index).statuses["S4"] == "pending"  # while the run goes on
    # once it stopped
    assert run.frame(-1).statuses["S4"] == "pending" and run.frame(-1).not_run == {"S4"}
    assert run.delta(len(run.events) - 1).steps >= {"S4"}  # a viewer restyles it at the stop


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans_and_faults(goals=True))
def test_no_random_run_voids_a_step_that_never_started(pf):
    plan, faults = pf
    for strategy in ("planner", "workflow", "direct"):
        assert_only_started_work_is_voided(simulate(plan, faults=faults, strategy=strategy))


def test_a_recorded_trace_that_ends_voids_nothing_it_never_started():
    plan = Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", produces="x"),
            Step("B", "b", expected_evidence="e", depends_on="A", requires="x", produces="y"),
            Step("C", "c", expected_evidence="e", depends_on="B", requires="y"),
        ],
    )
    rec = Recorder(clock=iter(range(100)).__next__)
    rec.propose(plan)
    rec.start("A")
    rec.observe("A", Observation(True, {"x"}))
    rec.start("B")
    rec.observe("B", Observation(False, set(), withdrawn={"x"}, kind="tool_error"))
    rec.invalidate(["B", "C"], "the agent gave up on B and what follows")
    rec.stop("step_failed", "the trace ends here")
    run = rec.run
    assert_only_started_work_is_voided(run)
    assert run.events[-2].voided == {"B"} and run.frame(-1).statuses["C"] in ("pending", "blocked")


def test_a_real_trace_that_ends_early_shows_the_planned_steps_it_never_reached_as_never_ran(
    corpus, tmp_path
):
    """A real OTel trace cut where its second tool call would start (the recorder died): the declared plan is
    every tool call of the whole file, in order; the truth is read from the raw spans."""
    raw = json.loads(
        (corpus / "otel" / "any-agent_SMOLAGENTS_trace.json").read_text(encoding="utf-8")
    )
    tools = sorted(
        (s for s in raw["spans"] if s["attributes"].get("gen_ai.operation.name") == "execute_tool"),
        key=lambda s: s["start_time"],
    )
    names = [s["attributes"]["gen_ai.tool.name"] for s in tools]
    assert len(names) >= 2 and len(set(names)) == len(names)
    cut = tools[1]["start_time"]
    kept = [
        dict(
            s, end_time=s["end_time"] if s["end_time"] is not None and s["end_time"] < cut else None
        )
        for s in raw["spans"]
        if s["start_time"] < cut
    ]
    ran = {
        s["attributes"]["gen_ai.tool.name"]
        for s in kept
        if s["attributes"].get("gen_ai.operation.name") == "execute_tool"
    }
    path = tmp_path / "ends_early.json"
    path.write_text(json.dumps(dict(raw, spans=kept)), encoding="utf-8")
    run = load_trace(path)
    assert {e.step for e in run.events if e.kind == "start"} == ran == {names[0]}
    assert_only_started_work_is_voided(run)
    declared = Plan(
        "the task",
        [
            Step(
                n,
                n,
                tool=n,
                expected_evidence=f"{n} returned",
                depends_on=names[k - 1] if k else (),
            )
            for k, n in enumerate(names)
        ],
    )
    alignment = align(declared, run)
    never = {f.step for f in alignment.fates if f.fate == "not_run"}
    assert never == set(names) - ran and not {f.step for f in alignment.fates if f.fate == "voided"}
    svg = render_alignment(alignment).svg
    for sid in never:
        start = svg.index(f'id="node-{sid}"')
        node = svg[start : svg.index("</g>", start)]
        paint = node.upper()  # Graphviz writes colours in lower case
        assert (
            "fate-not_run" in node
            and LOOKS["invalidated"].fill.upper() not in paint
            and "VOIDED" not in node
        )
        assert (
            LOOKS["not_run"].stroke.upper() in paint
            and 'stroke-dasharray="1,5"' in node
            and "never ran" in node
        )


def test_the_summary_of_a_plan_too_big_to_draw_counts_never_run_steps_as_not_run():
    from planviz.pictures.summary import summary_diagram

    run = frozen_plan_test(CACHE, faults=[Fault("S3", "side_effect")]).run
    text = summary_diagram(CACHE, run.frame(-1), "too big", len(run.events) - 1, groups=1).svg
    # S4; S3 (it ran)
    assert "not run 1" in text and "invalidated 1" in text and "pending" not in text


@pytest.mark.parametrize("strategy", ["workflow", "planner"])
def test_a_step_running_when_the_run_stops_stays_drawn_running_never_ready(strategy):
    plan = Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", produces="x", duration=1),
            Step("B", "b", expected_evidence="e", produces="y", duration=5),
            Step("C", "c", expected_evidence="e", depends_on=["A", "B"], requires=["x", "y"]),
        ],
    )
    run = simulate(plan, faults=[Fault("A", "tool_error", times=9)], strategy=strategy)
    last = run.frame(-1)
    started = {e.step for e in run.events if e.kind == "start"}
    ended = {e.step for e in run.events if e.kind in ("complete", "fail")}
    assert started - ended == {"B"} and "(interrupted: B)" in run.events[-1].message
    assert last.statuses["B"] == "running" and "B" not in last.not_run and "B" not in last.voided
    assert "B" not in run.state.completed
