"""Calls that end at the very instant another starts: "ended before" is a strict order, ties broken by the order the
trace recorded the calls in, so hindsight's data edges never make a cycle.

A tool call of no duration at the instant another call starts (or two at one instant) used to count as having
ended before the other and the other as having ended before it: a cycle, and ``hindsight`` raised
``StructureError``. The traces are OTLP/JSON built here; which call ended before which is read from the span
times and the spans' order in the file, in the test.
"""

from __future__ import annotations

import json
import random

import networkx as nx
import pytest

from planviz import hindsight, parse_trace, what_if

from .otlp import agent, chat, text, tool


def _calls(doc: str) -> dict[str, tuple[int, int, int]]:
    """Each tool call of the raw OTLP/JSON: (start ns, end ns, its place in the file), by tool name."""
    spans = json.loads(doc)["resourceSpans"][0]["scopeSpans"][0]["spans"]
    out = {}
    for k, s in enumerate(spans):
        attrs = {a["key"]: a["value"] for a in s["attributes"]}
        if attrs.get("gen_ai.operation.name", {}).get("stringValue") == "execute_tool":
            out[attrs["gen_ai.tool.name"]["stringValue"]] = (
                int(s["startTimeUnixNano"]),
                int(s["endTimeUnixNano"]),
                k,
            )
    return out


def _check(doc: str) -> None:
    calls = _calls(doc)
    h = hindsight(parse_trace(doc))  # raised StructureError (a cycle) before
    edges = [(u, v) for u, v, _ in h.data_edges]
    assert nx.is_directed_acyclic_graph(nx.DiGraph(edges))
    for u, v in edges:  # strictly before: sooner, or at that instant and recorded first
        (_, e_u, k_u), (s_v, _, k_v) = calls[u], calls[v]
        assert e_u < s_v or (e_u == s_v and k_u < k_v), (u, v)
    assert h.ideal_makespan is not None


def test_two_calls_of_no_duration_at_one_instant():
    doc = text(
        [
            agent(1, 0, 10),
            chat(2, 0, 1),
            tool(3, "a", 1, 1),
            tool(4, "b", 1, 1),
            chat(5, 1, 2),
            tool(6, "c", 2, 3),
        ]
    )
    _check(doc)
    h = hindsight(parse_trace(doc))
    edges = {(u, v) for u, v, _ in h.data_edges}
    assert ("a", "b") in edges and ("b", "a") not in edges  # the one recorded first comes first
    assert ("b", "c") in edges
    what_if(parse_trace(doc), [])  # the what-if replays the inferred plan: it needs the same order


def test_a_call_of_no_duration_as_another_starts():
    # b has no duration and ends as c starts; d starts at that instant too and has no argument: it waits for both
    _check(
        text(
            [
                agent(1, 0, 10),
                tool(2, "a", 0, 1),
                tool(3, "b", 1, 1),
                tool(4, "c", 1, 2),
                tool(5, "d", 1, 1),
                tool(6, "e", 2, 2),
            ]
        )
    )


@pytest.mark.parametrize("seed", range(25))
def test_random_calls_at_shared_instants(seed):
    """Tool calls on a coarse clock (many share an instant, many last no time), with and without arguments."""
    rnd = random.Random(seed)
    spans, t = [], 0
    for i in range(rnd.randint(3, 14)):
        t += rnd.choice([0, 0, 1])
        args = None if rnd.random() < 0.6 else {"id": f"res{rnd.randrange(i + 1)}"}
        spans.append(
            tool(
                i + 2,
                f"t{i}",
                t,
                t + rnd.choice([0, 0, 1]),
                args=args,
                result={"id": f"res{i}"} if rnd.random() < 0.7 else None,
            )
        )
    spans.insert(0, agent(1, 0, t + 5))
    _check(text(spans))
