"""Model calls of a span trace: one record per call, nested wrappers counted once, each tied to the step it led to.

Instrumentations often wrap one model call in several nested model spans
(smolagents' ``LiteLLMModel.__call__`` three deep, each with the same token
counts). A model span that holds another model span is a wrapper, not a
call: only the innermost spans are calls; a wrapper's tokens and cost go to
its one inner call when that call records none. Each call is tied to the
step (tool call) it led to: the first tool call inside the model span when
there is one (Google ADK runs a tool within ``call_llm``), else the next step
that starts, under the same parent span, after the call ended; None when no
step followed (the final answer). With no tool calls at all, the model calls are the steps.
A call's duration is the one :mod:`~planviz.traces.calltimes` gave its span
(None when unknown; ``duration_inferred`` when its end was inferred).

>>> from planviz.traces.otel.otelspans import Span
>>> outer = Span(span_id="1", parent_id=None, start=0, end=9, operation="chat", model="m", input_tokens=5)
>>> inner = Span(span_id="2", parent_id="1", start=1, end=8, operation="chat", model="m", input_tokens=5)
>>> [(c.id, c.input_tokens) for c in model_calls([outer, inner], [], {"1": None, "2": "1"}, {}, 0)]
[('2', 5)]
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from typing import Any

from planviz.plan.bulk import slot_filler
from planviz.runs.events import ModelCall
from planviz.runs.modelcall import FIGURES
from planviz.traces import calltimes
from planviz.traces.otel.otelspans import MODEL, Span

# ModelCall(...) itself (a dataclass without checks), its fields stored directly: one per model call of a big trace
_new_call = slot_filler(ModelCall)

__all__ = ["model_calls", "innermost"]

_NS = 1e9
# What a wrapper's figures give its one inner call when that call records none.
_CARRIED = (
    *FIGURES,
    "model",
    "input_text",
    "output_text",
)


def innermost(order: list[Span], parent: dict[str, str | None]) -> dict[str, Span]:
    """The model spans that are calls (no model span below them), by id, each with the tokens and cost of
    the wrapper above it when it records none and is that wrapper's only inner span (linear in the spans)."""
    models = {s.span_id: s for s in order if s.operation == MODEL}
    # span -> the nearest model span at or above it
    anc: dict[str | None, str | None] = {None: None}
    for s in order:
        path: list[str | None] = []
        node: str | None = s.span_id
        while node is not None and node not in anc:  # None is in anc: the root
            if node in models:
                anc[node] = node
                break
            path.append(node)
            node = parent.get(node)
        top = anc[node]
        for p in path:
            anc[p] = top
    wrapper = {sid: anc[parent.get(sid)] for sid in models}
    inner: dict[str, list[str]] = defaultdict(list)
    for sid, w in wrapper.items():
        if w is not None:
            inner[w].append(sid)
    depth: dict[str, int] = {}
    for sid in models:
        chain: list[str] = []
        link: str | None = sid
        while link is not None and link not in depth:
            chain.append(link)
            link = wrapper[link]
        d = -1 if link is None else depth[link]
        for c in reversed(chain):
            d += 1
            depth[c] = d
    # outermost first: a chain's tokens flow down to its call
    for w in sorted(inner, key=depth.__getitem__):
        if len(inner[w]) == 1:
            call, outer = models[inner[w][0]], models[w]
            # (a reply naming calls without their arguments gives way to a fuller one)
            for name in _CARRIED:
                mine = getattr(call, name)
                if (
                    mine is None or name == "output_text" and str(mine).endswith("(…)")
                ) and getattr(outer, name) is not None:
                    setattr(call, name, getattr(outer, name))
    return {sid: s for sid, s in models.items() if sid not in inner}


def model_calls(
    order: list[Span],
    steps: list[Span],
    parent: dict[str, str | None],
    step_of: dict[str, str],
    t0: int,
) -> tuple[ModelCall, ...]:
    """Every model call of the trace, in the order they started, each tied to the step it led to."""
    under: dict[str | None, list[Span]] = defaultdict(list)
    for s in steps:
        under[parent[s.span_id]].append(s)
    starts = {p: [s.start for s in ss] for p, ss in under.items()}
    every = [s.start for s in steps]
    calls = innermost(order, parent)
    inside: dict[
        str, str
    ] = {}  # a model call -> the first tool call recorded inside it (Google ADK nests them)
    for s in sorted(steps, key=lambda s: s.start):
        node = parent.get(s.span_id)
        while node is not None and node not in calls and node not in step_of:
            node = parent.get(node)
        if node in calls:
            inside.setdefault(node, step_of[s.span_id])
    out = []
    for m in sorted(calls.values(), key=lambda s: (s.start, s.span_id)):
        # a model call that is itself a step (a trace without tool calls), or that holds the call it led to
        step = step_of.get(m.span_id) or inside.get(m.span_id)
        if step is None:
            siblings = under.get(parent[m.span_id]) or steps
            keys = starts.get(parent[m.span_id]) or every
            i = bisect.bisect_left(keys, m.end if m.end is not None else m.start)
            step = step_of[siblings[i].span_id] if i < len(siblings) else None
        out.append(
            _new_call(
                m.model or m.name or "model",
                (m.start - t0) / _NS,
                None if m.end is None else (m.end - m.start) / _NS,
                m.input_tokens,
                m.output_tokens,
                m.cost,
                m.status != "error",
                step,
                m.span_id or "",
                **_said(m),
            )
        )
    # unknown or inferred durations said so
    return tuple(calltimes.timed(c, calls[c.id]) for c in out)


def _said(m: Span) -> dict[str, Any]:
    """A call's tokens by kind beyond input and output, and what it was given and answered."""
    return {
        "reasoning_tokens": m.reasoning_tokens,
        "cached_tokens": m.cached_tokens,
        "total_tokens": m.total_tokens,
        "input": m.input_text,
        "output": m.output_text,
    }
