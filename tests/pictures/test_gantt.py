"""The timeline chart: attempts against the plan's schedule, and the model calls of a recorded run in their rows."""

from __future__ import annotations

import json
import re

import pytest

from planviz import critical_path, examples, load_trace, simulate
from planviz.pictures.gantt import gantt_svg


def test_a_simulation_has_no_model_lane():
    plan = examples.load("cache_isolation")
    svg = gantt_svg(simulate(plan), critical_path(plan), unit="min")
    assert "pv-model" not in svg and "model call" not in svg and svg.count('class="pv-row"') == 5


@pytest.mark.corpus
def test_each_model_call_of_a_trace_is_drawn_with_its_tokens(corpus):
    path = corpus / "otel" / "any-agent_OPENAI_trace.json"
    raw = json.loads(path.read_text())
    llm = [
        s["attributes"]
        for s in raw["spans"]
        if s["attributes"].get("gen_ai.operation.name") == "call_llm"
    ]
    run = load_trace(path)
    svg = gantt_svg(run, critical_path(run.plan), unit="s")
    titles = re.findall(r'class="pv-model"[^>]*><title>([^<]*)</title>', svg)
    assert len(titles) == len(llm) > 0 and "model call" in svg  # the legend names it
    assert sorted(int(re.search(r"(\d+) input tokens", t).group(1)) for t in titles) == sorted(
        a["gen_ai.usage.input_tokens"] for a in llm
    )


@pytest.mark.corpus
def test_the_lanes_hold_every_call_of_a_trace_in_its_model_or_tool_lane(corpus):
    """The canvas timeline's columns (explorer.js LaneChart): each model call in its model's lane and each tool call
    in its tool's lane, at the time the raw trace gives it (relative to the trace's first span)."""
    from collections import Counter

    from planviz.pictures.gantt import lane_columns

    path = corpus / "otel" / "any-agent_OPENAI_trace.json"
    raw = json.loads(path.read_text())
    t0 = min(int(s["start_time"]) for s in raw["spans"])
    expected = Counter()
    starts = []
    for s in raw["spans"]:
        a = s["attributes"]
        if a.get("gen_ai.operation.name") == "call_llm":
            expected["model: " + a["gen_ai.request.model"]] += 1
        elif a.get("gen_ai.operation.name") == "execute_tool":
            expected["tool: " + a["gen_ai.tool.name"]] += 1
            starts.append(("tool: " + a["gen_ai.tool.name"], (int(s["start_time"]) - t0) / 1e9))
    cols = lane_columns(load_trace(path))
    assert Counter(cols["lanes"][k] for k in cols["lane"]) == expected
    assert cols["lanes"][0].startswith("model: ")  # model lanes first
    shown = sorted(
        (cols["lanes"][lane], start)
        for lane, start, look in zip(cols["lane"], cols["start"], cols["look"])
        if cols["looks"][look] != "model"
    )
    assert [name for name, _ in shown] == [name for name, _ in sorted(starts)]
    assert all(abs(a - b) < 1e-6 for (_, a), (_, b) in zip(shown, sorted(starts)))
