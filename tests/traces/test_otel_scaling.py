"""The OTel reader does linear work: ``load_trace`` of a ReAct trace (one model call and one tool call per turn,
OTLP/JSON, as benchmarks/bench_traces.py builds it) at n and 4n spans, counted in Python function calls (cProfile's
tally, not seconds, which 2 shared cores make noisy): 4n spans cost at most 4.4 times the calls of n. A reader that
looks back over the spans read before, or scans every attribute once per name it looks for, fails it.

And it is lean (issue 43): at its peak, ``load_trace`` holds little more than the run it returns (tracemalloc, a ratio
of bytes, not an absolute figure). A reader that decodes the whole document, or part of it only to throw it away,
or keeps its spans while it plays the run, fails it (before: 3.1 times the run at 4,000 spans; then 1.14; now
1.08, the spans let go before the timeline is made: issue 43)."""

from __future__ import annotations

import cProfile
import gc
import json
import pstats
import tracemalloc
from pathlib import Path

import pytest

from planviz import Run, load_trace
from tests.runs.otlp import react_trace


def _calls(path) -> tuple[int, object]:
    profile = cProfile.Profile()
    profile.enable()
    run = load_trace(path)
    profile.disable()
    return pstats.Stats(profile).total_calls, run


@pytest.mark.parametrize("n", [250, 1000])
def test_reading_4n_spans_costs_at_most_4_4_times_n(tmp_path, n):
    counted = {}
    for size in (n, 4 * n):
        path = tmp_path / f"trace_{size}.json"
        path.write_text(json.dumps(react_trace(size)), encoding="utf-8")
        load_trace(path)  # imports and caches out of the count
        counted[size], run = _calls(path)
        data = json.loads(path.read_text(encoding="utf-8"))
        raw = data["resourceSpans"][0]["scopeSpans"][0]["spans"]
        tools = sum(any(a["key"] == "gen_ai.tool.name" for a in s["attributes"]) for s in raw)
        # every tool call read, from the file's count
        assert len(raw) == size and len(run.plan.ids) == tools
    assert counted[4 * n] <= 4.4 * counted[n], counted


def _traced_load(path: Path, n: int) -> tuple[Run, int, int, list[dict]]:
    """A ReAct trace of ``n`` spans written to ``path`` and loaded under tracemalloc (a first load keeps imports
    and caches out of the count): the run, the bytes it holds, the load's peak, and the file's raw spans."""
    path.write_text(json.dumps(react_trace(n)), encoding="utf-8")
    load_trace(path)
    gc.collect()
    tracemalloc.start()
    try:
        run = load_trace(path)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    raw = json.loads(path.read_text(encoding="utf-8"))["resourceSpans"][0]["scopeSpans"][0]["spans"]
    return run, held, peak, raw


def test_reading_holds_little_more_than_the_run_it_returns(tmp_path):
    # a 2.4 MB file: more than the reader's window, less than what it reads ahead at once
    run, held, peak, raw = _traced_load(tmp_path / "trace.json", 4000)
    assert len(run.plan.ids) == sum(
        any(a["key"] == "gen_ai.tool.name" for a in s["attributes"]) for s in raw
    )
    assert peak <= 1.12 * held, (peak, held)


# load_trace's peak memory / the file's bytes on a 5,001-span ReAct trace (2.9 MB), tracemalloc, CPython 3.11:
# 4.14x before the reader let go of what it had used (a call's result text and end clues once its end was settled,
# the returned values once the data flow was found, each action once played; span ids no longer in sys.intern's
# table; one string per result fact), 3.39x after; json.load of the same file peaks at 7.0x and holds 5.0x.
# Issue 43 asks 3x (100,001 spans: 4.21x -> 3.40x, benchmarks/bench_traces.py); this bound keeps what was won.
# 3.21x once the spans other than the tool calls' were let go before the timeline was made (each tool call's span
# as its actions are made) and the machine's working tables before the run's frozen values: the peak is now at the
# end of the play, the run beside the machine's tables, no longer at the end of the reading.
# 2.87x once a start's and a complete's message were made when read and an event's one or two status changes were
# no dict (held 3.04x -> 2.70x): issue 43's 3x is met (main at that time peaked at 3.21x here).
PEAK = 3.0


def test_the_peak_of_a_load_stays_near_the_run_it_returns(tmp_path):
    n = 5001
    path = tmp_path / "trace.json"
    run, held, peak, raw = _traced_load(path, n)
    size = path.stat().st_size
    tools = [s for s in raw if any(a["key"] == "gen_ai.tool.name" for a in s["attributes"])]
    assert len(run.plan.ids) == len(tools) and len(raw) == n
    assert peak / size <= PEAK, f"load_trace peaked at {peak / size:.2f}x the file's {size} bytes"
    assert held / size <= PEAK
