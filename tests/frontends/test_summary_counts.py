"""Each view of a run computes its analyses once: the run summary (planviz.run_summary) is read by the report, the
two-run report, the flipbook, the explorer and the pictures, so each plan version's critical path is computed once
and the run's hindsight once, however many pictures, captions, timelines and metrics show them.

The counters wrap the real functions wherever a planviz module holds them, so they count every route."""

from __future__ import annotations

import sys
from collections import Counter

import pytest

from planviz import Fault, animate, examples, load_trace, replay, report_html, simulate
from planviz.analysis import schedule
from planviz.runs.hindsight import retrospect

from ..runs.otlp import react_trace


@pytest.fixture
def counted(monkeypatch):
    """``counted[id(plan)]``: how often ``critical_path`` ran on that plan; ``counted["ideal"]``: how often a
    hindsight was computed (its ideal schedule built)."""
    counts: Counter = Counter()
    real_path, real_ideal = schedule.critical_path, retrospect.ideal_schedule

    def path(plan, *args, **kwargs):
        counts[id(plan)] += 1
        return real_path(plan, *args, **kwargs)

    def ideal(*args, **kwargs):
        counts["ideal"] += 1
        return real_ideal(*args, **kwargs)

    for name, module in list(sys.modules.items()):
        if name.startswith("planviz") and getattr(module, "critical_path", None) is real_path:
            monkeypatch.setattr(module, "critical_path", path)
    monkeypatch.setattr(retrospect, "ideal_schedule", ideal)
    return counts


def two_versions():
    run = simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")])
    # a 5-step run with two plan versions
    assert len(run.plans) == 2 and len(run.plans[0].steps) == 5
    return run


def versions_counted(counted, run) -> list[int]:
    return [counted[id(plan)] for plan in run.plans]


def test_a_report_computes_each_plan_versions_critical_path_once_and_its_hindsight_once(
    counted, tmp_path
):
    run = two_versions()
    counted.clear()
    report_html(run, tmp_path / "run.html")
    # was [4, 2]: the pictures, the timeline and the metrics each
    assert versions_counted(counted, run) == [
        1,
        1,
    ]
    assert counted["ideal"] == 1


def test_the_two_run_report_computes_each_runs_analyses_once(counted, tmp_path):
    a, b = two_versions(), simulate(examples.load("cache_isolation"))
    counted.clear()
    report_html([a, b], tmp_path / "pair.html")
    assert versions_counted(counted, a) == [1, 1] and versions_counted(counted, b) == [1]
    assert counted["ideal"] == 2  # one hindsight per run


def test_a_flipbook_of_two_runs_computes_each_runs_analyses_once(counted, tmp_path):
    a, b = two_versions(), simulate(examples.load("cache_isolation"))
    counted.clear()
    animate([a, b], tmp_path / "both.html")
    assert versions_counted(counted, a) == [1, 1] and versions_counted(counted, b) == [1]
    assert counted["ideal"] == 2


def test_the_explorer_computes_a_new_readings_analyses_once(counted):
    explorer = replay(load_trace(react_trace(41)))
    newer = load_trace(react_trace(41))  # a live run read again: a new Run
    counted.clear()
    explorer.show_recorded(newer)
    assert versions_counted(counted, newer) == [1] and counted["ideal"] == 1
    for i in range(len(newer.events)):  # stepping through its frames computes nothing again
        explorer.index = i
        assert explorer.svg
    assert versions_counted(counted, newer) == [1] and counted["ideal"] == 1


def test_an_injected_fault_computes_the_new_runs_analyses_once(counted):
    explorer = replay(simulate(examples.load("cache_isolation")))
    counted.clear()
    run = explorer.inject("S4:side_effect")
    assert len(run.plans) == 2 and versions_counted(counted, run) == [1, 1]


def test_frames_of_a_run_too_big_to_lay_out_compute_its_ready_waves_once(monkeypatch):
    from planviz import render
    from planviz.analysis import timeline
    from planviz.pictures import budget

    calls = []
    real = timeline.ready_waves
    for name, module in list(sys.modules.items()):
        if name.startswith("planviz") and getattr(module, "ready_waves", None) is real:
            monkeypatch.setattr(
                module, "ready_waves", lambda plan: calls.append(plan) or real(plan)
            )
    monkeypatch.setattr(budget, "QUICK_SECONDS", 0.0)
    run = simulate(examples.load("cache_isolation"))
    pictures = [render(run.plan, run=run, at=i, budget=1e-9) for i in range(len(run.events))]
    assert all(d.summarized for d in pictures) and len(pictures) > 2
    assert [id(p) for p in calls] == [id(run.plan)]  # was once per frame
