"""hindsight's assumed edges are a frontier, not every pair: same waits, same ideal schedule, linear work.

A call that records no input is assumed (in another tool's trace) to depend on every call that had ended when it
started. ``data_edges`` lists only the frontier of that set; ``every=True`` spells every pair out. The runs here
are OTLP/JSON built in the test: which call had ended when another started is read from the span times here.
"""

from __future__ import annotations

import dataclasses
import random

import networkx as nx
import pytest

from planviz import parse_trace
from planviz.analysis.schedule import critical_path
from planviz.runs.hindsight.callrecords import intervals, latest_steps
from planviz.runs.hindsight.idealplan import ideal_schedule
from planviz.runs.hindsight.provenance import data_edges
from planviz.runs.hindsight.retrospect import _released

from .otlp import agent, chat, react_trace, text, tool


def _random_run(seed: int):
    """Tool calls at random times, some with no argument (they wait for every earlier call), some with an
    argument no result explains (they wait for every earlier call whose result is not recorded), some copying
    an earlier result; some results not recorded; model calls in between."""
    rnd = random.Random(seed)
    n = rnd.randint(4, 22)
    spans, sid, t = [], 2, 0.0
    for i in range(n):
        t += rnd.choice([0.0, rnd.random(), rnd.random() * 3])
        if rnd.random() < 0.3:
            spans.append(chat(sid, t, t + rnd.random() * 2))
            sid += 1
        kind = rnd.random()
        args = (
            None
            if kind < 0.45
            else {"q": f"zq{seed}x{i}"}
            if kind < 0.8
            else {"id": f"res{rnd.randrange(max(1, i))}"}
        )
        result = None if rnd.random() < 0.3 else {"id": f"res{i}"}
        # a call of no duration at an instant another call starts makes a cycle (both ended when the other started)
        end = t + rnd.choice([0.01, 0.01 + rnd.random() * 4])
        spans.append(tool(sid, f"t{i}", t, end, args=args, result=result))
        sid += 1
    last = max(float(s["endTimeUnixNano"]) for s in spans)
    spans.insert(0, agent(1, 0, (last - float(spans[0]["startTimeUnixNano"])) / 1e9 + 100))
    return parse_trace(text(spans))


def _reach(edges) -> nx.DiGraph:
    return (
        nx.transitive_closure(nx.DiGraph([(u, v) for u, v, _ in edges])) if edges else nx.DiGraph()
    )


@pytest.mark.parametrize("seed", range(60))
def test_frontier_keeps_every_wait_and_the_ideal_schedule(seed):
    run = _random_run(seed)
    times, defs = intervals(run), latest_steps(run)
    # the reader links a call with no argument to the calls just before it; some readers record no such link: the
    # call then waits for every call that had ended (``steps`` is what the run's steps say, here without it)
    rnd = random.Random(seed)
    defs = {
        k: dataclasses.replace(s, depends_on=()) if rnd.random() < 0.7 else s
        for k, s in defs.items()
    }
    full, lean = data_edges(run, times, defs, every=True), data_edges(run, times, defs)
    # every edge that is not an assumption is listed as before; the frontier is a part of the assumed edges
    assert [e for e in lean if e[2] != "unknown: assumed"] == [
        e for e in full if e[2] != "unknown: assumed"
    ]
    assert set(lean) <= set(full)
    # and every assumed pair is still implied: a path of edges leads from the earlier call to the later one
    closure = _reach(lean)
    for u, v, _ in full:
        assert closure.has_edge(u, v), (u, v)
    # the assumed set is what the span times say: every call (or every call with no recorded result) that ended
    # before a call with no argument (or an unexplained one) started
    for v, (s_v, _) in times.items():
        if not defs[v].arguments and not defs[v].requires and not defs[v].depends_on:
            assert {u for u, w, _ in full if w == v} == {
                u for u, (_, e) in times.items() if u != v and e <= s_v
            }
    # the same waits (when each call's inputs were ready) and the same ideal schedule, step by step
    for v in times:
        assert max((times[u][1] for u, w, _ in full if w == v), default=None) == max(
            (times[u][1] for u, w, _ in lean if w == v), default=None
        )
    t0 = run.events[0].time
    a = ideal_schedule(run, times, defs, full, _released(run), t0)
    b = ideal_schedule(run, times, defs, lean, _released(run), t0)
    assert a.makespan == pytest.approx(b.makespan)
    assert a.path == b.path
    assert a.durations == b.durations
    sa, sb = critical_path(a.plan), critical_path(b.plan)
    assert {k: x.es for k, x in sa.steps.items()} == pytest.approx(
        {k: x.es for k, x in sb.steps.items()}
    )


def _no_input_trace(n: int) -> str:
    """``n`` tool calls one after the other, none recording an argument: each waits for every earlier one."""
    return text(
        [agent(1, 0, n + 1)]
        + [tool(i + 2, "t", i, i + 0.5, result={"id": f"r{i}"}) for i in range(n)]
    )


def _edges(n: int, every: bool = False):
    run = parse_trace(_no_input_trace(n))
    # no link recorded
    defs = {k: dataclasses.replace(s, depends_on=()) for k, s in latest_steps(run).items()}
    return data_edges(run, intervals(run), defs, every=every)


def _ideal_links(n: int) -> int:
    """The dependencies the ideal schedule of the no-input chain of ``n`` calls lists (its size)."""
    run = parse_trace(_no_input_trace(n))
    times = intervals(run)
    defs = {k: dataclasses.replace(s, depends_on=()) for k, s in latest_steps(run).items()}
    sched = ideal_schedule(
        run, times, defs, data_edges(run, times, defs), _released(run), run.events[0].time
    )
    return sum(len(s.depends_on) + len(s.requires) for s in sched.plan.steps)


def test_assumed_edges_grow_linearly():
    counts = [len(_edges(n)) for n in (50, 200)]
    every = [len(_edges(n, every=True)) for n in (50, 200)]
    assert every == [50 * 49 // 2, 200 * 199 // 2]  # each call after every earlier one
    assert counts[1] <= 4 * counts[0] + 4, counts
    links = [_ideal_links(n) for n in (50, 200)]
    assert links[1] <= 4 * links[0] + 8, links


class _Counted(dict):
    reads = 0

    def __getitem__(self, key):
        type(self).reads += 1
        return super().__getitem__(key)


def test_data_edges_reads_times_linearly_on_a_react_trace():
    """The ReAct shape the benchmarks scale: tool calls with arguments no result explains; the calls with no
    recorded result (none here) were looked for by reading every earlier call's times."""
    reads = []
    for n in (400, 1600):
        run = parse_trace(text(react_trace(n)["resourceSpans"][0]["scopeSpans"][0]["spans"]))
        _Counted.reads = 0
        data_edges(run, _Counted(intervals(run)), latest_steps(run))
        reads.append(_Counted.reads)
    assert reads[1] <= 5 * reads[0], reads


@pytest.mark.parametrize("seed", range(0, 60, 3))
def test_hindsight_judges_the_same_from_the_frontier(seed, monkeypatch):
    """Every figure hindsight shows (waits, serialized pairs, ideal makespan and path, parts, cost, assumptions) is
    the same whether the assumed edges are listed whole or as their frontier; only the edge list is shorter."""
    from planviz.runs.hindsight import retrospect

    run = _random_run(seed)
    rnd = random.Random(seed)
    cleared = {
        k: dataclasses.replace(s, depends_on=()) if rnd.random() < 0.7 else s
        for k, s in latest_steps(run).items()
    }
    monkeypatch.setattr(retrospect, "run_latest_steps", lambda r: dict(cleared))
    lean = retrospect.hindsight(run)
    monkeypatch.setattr(retrospect, "data_edges", lambda *a, **k: data_edges(*a, **k, every=True))
    full = retrospect.hindsight(run)
    a, b = full.to_dict(), lean.to_dict()
    assert set(map(tuple, b.pop("data_edges"))) <= set(map(tuple, a.pop("data_edges")))
    assert a == b
