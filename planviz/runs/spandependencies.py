"""Dependencies between tool calls that a trace does not record, inferred from its data and its timing.

OpenTelemetry GenAI spans say what ran, not what waited for what. Two kinds
of evidence stand in (both reported as import findings, never as facts):

- **data**: a call whose arguments hold a value an earlier call returned
  (:func:`data_flow`); a value the earlier call was itself given is no
  evidence, and booleans and very short values are ignored;
- **timing**: a call that started after another ended, among the children
  of one parent span, depends on the latest such calls (:func:`timing_edges`);
  a container span (a sub-agent) stands for its first and last calls.

Both are linear in the number of spans (plus the edges they return).

The values a call returned are its span's ``leaves`` (see
:func:`planviz.runs.otelspans.leaves`), computed when the span is read.
"""

from __future__ import annotations

import bisect
import heapq
from collections import defaultdict

from .otelspans import Span, leaves

__all__ = ["data_flow", "timing_edges"]


def data_flow(spans: list[Span], step_of: dict, attempts: dict) -> dict[tuple[str, str], None]:
    """Edges producer -> consumer where the consumer's arguments hold a value the producer returned.

    A value the producer was itself given (passed through) is no evidence; the latest producer of a value wins.
    """
    produced: dict[str, str] = {}
    ends: list[tuple[int, str, set]] = []  # (end, step, leaves) not yet visible to consumers
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


def timing_edges(order: list[Span], parent: dict, step_of: dict, attempts: dict,
            known: set[tuple[str, str]]) -> list[tuple[str, str]]:
    """Edges from the latest calls that ended before a call started, among siblings, scoped by nesting.

    Siblings are a parent span's children that are steps or contain steps; a
    container's first and last steps stand for it. A failed call is no
    predecessor (the agent went on without its result); only the first attempt
    of a retried step is placed.
    """
    children: dict[str | None, list[Span]] = defaultdict(list)
    for s in order:
        children[parent[s.span_id]].append(s)
    edges: dict[tuple[str, str], None] = {}
    memo: dict[str | None, tuple[set[str], set[str]]] = {}

    def ends_of(node: Span) -> tuple[set[str], set[str]]:
        sid = step_of.get(node.span_id)
        if sid is not None:  # a failed call may wait for others, but nothing waits for it
            if attempts[sid][0] is not node:
                return set(), set()
            return {sid}, (set() if node.status == "error" else {sid})
        return memo.get(node.span_id, (set(), set()))

    stack: list[tuple[str | None, bool]] = [(None, False)]
    while stack:  # post-order over the span tree, without recursion (traces can nest deeply)
        key, done = stack.pop()
        if not done:
            stack.append((key, True))
            stack.extend((c.span_id, False) for c in children.get(key, ()) if c.span_id in children)
            continue
        units = [(c, *ends_of(c)) for c in children.get(key, ())]
        units = [(c, first, last) for c, first, last in units if first or last]
        memo[key] = _order_units(units, edges, known)
    return [e for e in edges if e not in known]


def _order_units(units: list, edges: dict, known: set) -> tuple[set[str], set[str]]:
    """Add edges between sibling units; return the units' (entry steps, exit steps)."""
    if not units:
        return set(), set()
    closing: list[tuple[int, int]] = []  # heap of (end, unit index)
    closed_ends: list[int] = []
    closed: list[int] = []
    max_start = None
    entries: set[str] = set()
    for j, (c, first, _) in enumerate(units):
        while closing and closing[0][0] <= c.start:
            end, i = heapq.heappop(closing)
            closed.append(i)
            closed_ends.append(end)
            s = units[i][0].start
            max_start = s if max_start is None else max(max_start, s)
        if not closed:
            entries |= first
        else:
            for i in closed[bisect.bisect_right(closed_ends, max_start):]:
                for u in units[i][2]:
                    for v in first:
                        if u != v and (u, v) not in known:
                            edges[(u, v)] = None
        if c.end is not None and units[j][2]:
            heapq.heappush(closing, (c.end, j))
    last_start = max(c.start for c, _, _ in units)
    exits = set().union(*(last for c, _, last in units if c.end is None or c.end > last_start))
    return entries, exits
