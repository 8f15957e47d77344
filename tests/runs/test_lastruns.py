"""LastRuns: what a report reads of one run from several places is worked out once, for the last runs asked
about, and a run let go is not kept alive by it."""

from __future__ import annotations

import gc
import weakref

from planviz import examples, load_trace, simulate
from planviz.runs.hindsight.callrecords import intervals, run_intervals
from planviz.runs.lastruns import LastRuns
from planviz.runs.usage import model_calls


class _Run:
    pass


def test_each_run_is_worked_out_once_and_only_the_last_ones_are_kept():
    made = []
    kept = LastRuns(lambda run: made.append(run) or len(made), keep=2)
    a, b, c = _Run(), _Run(), _Run()
    assert [kept(a), kept(a), kept(b), kept(a), kept(b)] == [1, 1, 2, 1, 2]
    assert made == [a, b]
    kept(c)  # a third run: the oldest (a) is let go
    assert kept(b) == 2 and kept(c) == 3
    assert kept(a) == 4 and made == [a, b, c, a]


def test_a_run_let_go_is_forgotten():
    kept = LastRuns(lambda run: [run.__class__.__name__])
    run = _Run()
    kept(run)
    ref = weakref.ref(run)
    del run
    gc.collect()
    assert ref() is None


def test_the_reports_readers_share_one_answer_per_run():
    run = load_trace(examples.trace("any-agent_OPENAI_trace"))
    assert model_calls(run) is model_calls(run)
    assert run_intervals(run) is run_intervals(run)
    assert run_intervals(run) == intervals(run)
    other = simulate(examples.load("cache_isolation"))
    assert model_calls(other) is model_calls(other)
    assert model_calls(run) is model_calls(run) and len(model_calls(run)) > 0
