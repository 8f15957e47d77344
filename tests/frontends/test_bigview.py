"""What the explorer's scaling views (issue 43) are drawn from: the lanes of the canvas timeline travel with every
snapshot, and the per-step SVG chart is left out when a row per step would be taller than any screen."""

from __future__ import annotations

from planviz import Plan, Step, simulate
from planviz.frontends.snapshot import GANTT_MAX_ROWS, run_snapshot
from planviz.pictures.gantt import bars


def _chain(n: int) -> Plan:
    return Plan(
        "chain",
        [
            Step(
                f"S{i}",
                f"step {i}",
                expected_evidence="ok",
                tool=f"tool{i % 3}",
                depends_on=[f"S{i - 1}"] if i else [],
            )
            for i in range(n)
        ],
    )


def test_the_lanes_hold_every_attempt_by_tool():
    run = simulate(_chain(7))
    lanes = run_snapshot(run)["lanes"]
    # a simulation has no model lane
    assert sorted(lanes["lanes"]) == [
        "tool: tool0",
        "tool: tool1",
        "tool: tool2",
    ]
    assert len(lanes["start"]) == len(bars(run)) == 7
    starts = {e.step: float(e.time) for e in run.events if e.kind == "start"}
    for lane, start, step in zip(lanes["lane"], lanes["start"], lanes["step"]):
        sid = lanes["steps"][step]
        assert start == starts[sid] and lanes["lanes"][lane] == f"tool: tool{int(sid[1:]) % 3}"


def test_the_per_step_chart_is_left_out_above_its_row_cap():
    small, big = (
        run_snapshot(simulate(_chain(n)), max_steps=40)
        for n in (GANTT_MAX_ROWS, GANTT_MAX_ROWS + 1)
    )
    assert (
        small["gantt"].startswith("<svg")
        and small["gantt"].count('class="pv-row"') == GANTT_MAX_ROWS
    )
    assert "planviz-gantt" not in big["gantt"] and f"{GANTT_MAX_ROWS + 1} steps" in big["gantt"]
    assert len(big["lanes"]["start"]) == GANTT_MAX_ROWS + 1  # the lanes still show every call
