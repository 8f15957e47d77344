"""side_by_side(a, b): two runs side by side, one stepper driving both; the explorer's Alignment tab."""

from __future__ import annotations

import anywidget
import pytest

from planviz import (
    Fault,
    FrameIndexError,
    PlanvizTypeError,
    parse_trace,
    replay,
    side_by_side,
    simulate,
)

from ..runs.otlp import agent, text, tool


def test_one_stepper_drives_both_sides(cache_plan):
    a, b = simulate(cache_plan), simulate(cache_plan, faults=[Fault("S4", "side_effect")])
    view = side_by_side(a, b, labels=("clean", "faulty"))
    assert isinstance(view, anywidget.AnyWidget) and view.snapshot["labels"] == ["clean", "faulty"]
    assert view.index == view.diff.first_divergence == 10  # opens where the runs part
    assert "status-done" in view.svgs[0] and "status-failed" in view.svgs[1]
    assert (
        view.snapshot["notes"][10] == "first divergence: event 10"
        and "only in b" in view.snapshot["diff"]
    )
    view.set_state({"index": 11})  # what the browser's stepper sends
    assert view.index == 11 and view.captions[1].startswith("Event 11 of")
    view.index = len(b.events) - 1  # past the end of run a: it keeps its last frame
    last = len(a.events) - 1
    assert view.captions[0].startswith(f"Event {last} of {last}: stop")
    assert view.snapshot["ticks"][view.index] == [last, len(b.events) - 1]
    with pytest.raises(FrameIndexError):
        view.index = 99
    fallback = view._repr_mimebundle_()[0]["text/html"]
    assert (
        fallback.startswith('<iframe class="planviz-fallback"')
        and "planviz: clean vs faulty" in fallback
    )


def test_identical_runs_have_no_divergence_to_jump_to(cache_plan):
    run = simulate(cache_plan)
    view = side_by_side(run, run)
    assert view.diff.same and view.index == 0
    assert not any(note.startswith("first divergence") for note in view.snapshot["notes"])


def test_only_runs_are_compared(cache_plan):
    with pytest.raises(PlanvizTypeError, match="side_by_side\\(b=...\\)"):
        side_by_side(simulate(cache_plan), "b.json")


def test_the_explorer_aligns_a_declared_plan_with_a_trace(cache_plan):
    from planviz import Plan, Step

    plan = Plan(
        "g",
        [
            Step("look", "look it up", tool="lookup", expected_evidence="e", produces="x"),
            Step(
                "tell",
                "answer",
                tool="answer",
                depends_on="look",
                expected_evidence="e",
                requires="x",
            ),
        ],
    )
    run = parse_trace(text([agent(1, 0, 9), tool(2, "lookup", 1, 2), tool(3, "guess", 3, 4)]))
    ex = replay(run, plan=plan)
    (panel,) = [markup for title, markup in ex.snapshot["tabs"] if title == "Alignment"]
    assert "fate-as_planned" in panel and "fate-not_run" in panel and "fate-unplanned" in panel
