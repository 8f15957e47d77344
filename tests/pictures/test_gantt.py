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
    llm = [s["attributes"] for s in raw["spans"] if s["attributes"].get("gen_ai.operation.name") == "call_llm"]
    run = load_trace(path)
    svg = gantt_svg(run, critical_path(run.plan), unit="s")
    titles = re.findall(r'class="pv-model"[^>]*><title>([^<]*)</title>', svg)
    assert len(titles) == len(llm) > 0 and "model call" in svg  # the legend names it
    assert sorted(int(re.search(r"(\d+) input tokens", t).group(1)) for t in titles) == sorted(
        a["gen_ai.usage.input_tokens"] for a in llm)
