"""The run summary: each analysis a view shows, computed once per run, equal to the analysis itself."""

from __future__ import annotations

import gc
import weakref

import pytest

import planviz
from planviz import (
    Fault,
    Plan,
    PlanvizTypeError,
    RunSummary,
    Step,
    StructureError,
    align,
    critical_path,
    diff_runs,
    examples,
    hindsight,
    metrics,
    ready_waves,
    run_summary,
    run_usage,
    simulate,
)
from planviz.runs.summary import runsummary
from planviz.runs.summary.runsummary import pair_diff


@pytest.fixture
def run():
    return simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")])


def test_a_summary_says_what_each_analysis_says(run):
    s = run_summary(run)
    assert isinstance(s, RunSummary) and s.run is run and planviz.run_summary is run_summary
    assert list(s.critical_paths) == [critical_path(p) for p in run.plans]
    assert s.metrics == metrics(run) and s.usage == run_usage(run)
    assert s.hindsight.to_dict() == hindsight(run).to_dict()
    declared = examples.load("cache_isolation")
    assert s.alignment(declared).to_dict() == align(declared, run).to_dict()
    assert [s.waves(p) for p in run.plans] == [ready_waves(p) for p in run.plans]
    other = simulate(examples.load("cache_isolation"))
    assert pair_diff(s, run_summary(other)).to_dict() == diff_runs(run, other).to_dict()


def test_each_analysis_is_computed_once_and_kept(run, monkeypatch):
    calls = []
    real = runsummary.critical_path
    monkeypatch.setattr(runsummary, "critical_path", lambda plan: calls.append(plan) or real(plan))
    s = run_summary(run)
    assert s.schedule(run.plans[0]) is s.schedule(run.plans[0]) is s.critical_paths[0]
    _ = s.metrics  # the metrics' critical path delay reads the first version's, the summary's own
    # each version once, the metrics included
    assert [id(p) for p in calls] == [id(p) for p in run.plans]
    assert s.hindsight is s.hindsight and s.usage is s.usage and s.metrics is s.metrics


def test_a_plan_without_a_critical_path_refuses_each_time_it_is_asked(run, monkeypatch):
    cyclic = Plan("g", [Step("A", "a", depends_on="B"), Step("B", "b", depends_on="A")])
    calls = []
    real = runsummary.critical_path
    monkeypatch.setattr(runsummary, "critical_path", lambda plan: calls.append(plan) or real(plan))
    s = run_summary(run)
    for _ in range(2):
        with pytest.raises(StructureError, match="cycle"):
            s.schedule(cyclic)
    schedule, why = s.schedule_or_why(cyclic)
    assert schedule is None and "cycle" in why and len(calls) == 1


def test_the_same_summary_while_held_and_a_run_let_go_is_forgotten():
    run = simulate(examples.load("cache_isolation"))
    s = run_summary(run)
    assert run_summary(run) is s
    other = simulate(examples.load("cache_isolation"))
    assert run_summary(other) is not s and run_summary(other).run is other
    gone = weakref.ref(run)
    del run, s
    for _ in range(runsummary._KEEP):  # newer runs push it out of the last ones kept
        run_summary(simulate(examples.load("cache_isolation")))
    gc.collect()
    assert gone() is None


def test_a_summary_of_something_else_says_what_to_call():
    with pytest.raises(PlanvizTypeError, match="load_trace"):
        run_summary("run.jsonl")


def test_a_copy_of_a_summary_summarises_the_same_run_with_nothing_computed_yet(run):
    import copy
    import pickle

    s = run_summary(run)
    _ = s.metrics
    assert "computed: metrics, schedule, usage" in repr(s)
    back = pickle.loads(pickle.dumps(s))
    assert back.run.events == run.events and "nothing yet" in repr(back)
    assert back.metrics == s.metrics and copy.copy(s).run is run


def test_a_summary_made_by_hand_refuses_what_is_no_run():
    with pytest.raises(PlanvizTypeError, match="RunSummary"):
        RunSummary("run.jsonl")
