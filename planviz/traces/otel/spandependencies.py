"""Dependencies between tool calls that a trace does not record, inferred from its data and its timing.

OpenTelemetry GenAI spans say what ran, not what waited for what. Two kinds
of evidence stand in (both reported as import findings, never as facts):

- **data**: a call whose arguments hold a value an earlier call returned
  (:func:`data_flow`); a value the earlier call was itself given is no
  evidence, and booleans and very short values are ignored;
- **timing**: a call that started after another ended, among the children
  of one parent span (top-level spans: of one trace; a file's traces are
  independent requests), depends on the latest such calls
  (:func:`timing_edges`); a container span (a sub-agent) stands for its
  first and last calls.

Both are linear in the number of spans (plus the edges they return).

The values a call returned are its span's ``leaves`` (see
:func:`planviz.traces.otel.otelspans.leaves`), computed when the span is read.
"""

from __future__ import annotations

import bisect
import heapq
from collections import defaultdict
from typing import Any

from planviz.traces.otel.otelspans import Span, leaves

_Unit = tuple[int, int | None, set[str], set[str]]  # (start, end or None, entry steps, exit steps)

__all__ = ["data_flow", "timing_edges"]


def data_flow(
    spans: list[Span], step_of: dict[str, str], attempts: dict[str, list[Span]]
) -> dict[tuple[str, str], None]:
    """Edges producer -> consumer where the consumer's arguments hold a value the producer returned.

    A value the producer was itself given (passed through) is no evidence; the latest producer of a value wins.
    """
    produced: dict[str, str] = {}
    ends: list[
        tuple[int, str, frozenset[str]]
    ] = []  # (end, step, leaves) not yet visible to consumers
    edges: dict[tuple[str, str], None] = {}
    for s in spans:
        sid = step_of[s.span_id]
        while ends and ends[0][0] <= s.start:
            _, producer, values = heapq.heappop(ends)
            for v in values:
                produced[v] = producer
        if attempts[sid][0] is s:
            for v in sorted(leaves(s.arguments)):
                u = produced.get(v)
                if u is not None and u != sid:
                    edges[(u, sid)] = None
        if s.end is not None and s.status != "error" and s.leaves:
            heapq.heappush(ends, (s.end, sid, s.leaves))
    return edges


MAX_PREDECESSORS = 8
"""Most timing edges into one call: the calls that ended last before it started (a wave of thousands of
parallel calls after another would otherwise give width-squared edges)."""


def timing_edges(
    order: list[Span],
    parent: dict[str, str | None],
    step_of: dict[str, str],
    attempts: dict[str, list[Span]],
    known: set[tuple[str, str]],
    thinned: list[str] | None = None,
) -> list[tuple[str, str]]:
    """Edges from the latest calls that ended before a call started, among siblings, scoped by nesting.

    Siblings are a parent span's children that are steps or contain steps; a
    container stands for its first and last steps and spans from its first
    start to its last end (a child that outlives its parent counts). A failed
    call is no predecessor (the agent went on without its result); only the
    first attempt of a retried step is placed. Every edge goes forward in the
    order the calls started, so the edges never form a cycle. A call with more
    such predecessors than :data:`MAX_PREDECESSORS` gets the ones that ended
    last (its id is added to ``thinned``): the edges stay linear in the calls.
    """
    rank: dict[str, int] = {}
    for i, s in enumerate(order):
        sid = step_of.get(s.span_id)
        if sid is not None:
            rank.setdefault(sid, i)
    children: dict[Any, list[Span]] = defaultdict(list)
    # top-level spans are siblings only within their trace: traces are independent requests
    for s in order:
        up = parent[s.span_id]
        children[up if up is not None else ("trace", s.trace_id or "")].append(s)
    edges: dict[tuple[str, str], None] = {}
    memo: dict[Any, _Unit] = {}

    def unit(node: Span) -> _Unit | None:
        """(start, end or None, entry steps, exit steps) of a child span, None when it holds no step."""
        sid = step_of.get(node.span_id)
        if sid is not None:  # a failed call may wait for others, but nothing waits for it
            if attempts[sid][0] is not node:
                return None
            return node.start, node.end, {sid}, (set() if node.status == "error" else {sid})
        inner = memo.get(node.span_id)
        if inner is None or not (inner[2] or inner[3]):
            return None
        start = min(node.start, inner[0])
        end = None if node.end is None or inner[1] is None else max(node.end, inner[1])
        return start, end, inner[2], inner[3]

    stack: list[tuple[Any, bool]] = [
        (k, False) for k in sorted(k for k in children if isinstance(k, tuple))
    ]
    while stack:  # post-order over the span tree, without recursion (traces can nest deeply)
        key, done = stack.pop()
        if not done:
            stack.append((key, True))
            stack.extend((c.span_id, False) for c in children.get(key, ()) if c.span_id in children)
            continue
        units = sorted(
            (u for u in map(unit, children.get(key, ())) if u is not None), key=lambda u: u[0]
        )
        memo[key] = _order_units(units, edges, thinned if thinned is not None else [])
    return [(u, v) for u, v in edges if (u, v) not in known and u != v and rank[u] < rank[v]]


def _order_units(
    units: list[_Unit], edges: dict[tuple[str, str], None], thinned: list[str]
) -> _Unit:
    """Add edges between sibling units (sorted by start); return (first start, last end, entries, exits)."""
    if not units:
        return 0, 0, set(), set()
    closing: list[tuple[int, int]] = []  # heap of (end, unit index)
    closed_ends: list[int] = []
    closed: list[int] = []
    max_start = None
    entries: set[str] = set()
    ordered: dict[int, list[str]] = {}
    for j, (start, end, first, last) in enumerate(units):
        while closing and closing[0][0] <= start:
            done, i = heapq.heappop(closing)
            closed.append(i)
            closed_ends.append(done)
            max_start = units[i][0] if max_start is None else max(max_start, units[i][0])
        if not closed:
            entries |= first
        else:
            assert max_start is not None  # set whenever a unit was closed
            low = bisect.bisect_right(closed_ends, max_start)
            picked: list[str] = []
            k = len(closed) - 1
            # the latest ended first, at most the cap
            while k >= low and len(picked) < MAX_PREDECESSORS:
                i = closed[k]
                if i not in ordered:  # a container's exits, sorted once
                    ordered[i] = sorted(units[i][3])
                picked.extend(ordered[i][: MAX_PREDECESSORS - len(picked)])
                k -= 1
            if k >= low:
                thinned.extend(sorted(first))
            for u in picked:
                for v in first:
                    edges[(u, v)] = None
        if end is not None and last:
            heapq.heappush(closing, (end, j))
    last_start = max(u[0] for u in units)
    exits = set().union(*(last for _, end, _, last in units if end is None or end > last_start))
    ends = [end for _, end, _, _ in units]
    return (
        units[0][0],
        None if None in ends else max(e for e in ends if e is not None),
        entries,
        exits,
    )
