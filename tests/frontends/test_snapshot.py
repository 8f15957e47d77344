"""What the front end draws a run from: the step details carry the model calls that led to each step, counted once,
as the trace recorded them (truth read from the raw span file)."""

from __future__ import annotations

import json

import pytest

from planviz import load_trace, simulate
from planviz.frontends.snapshot import run_snapshot


@pytest.mark.parametrize("name", ["any-agent_LANGCHAIN_trace.json", "any-agent_OPENAI_trace.json"])
def test_details_hold_the_model_calls_that_led_to_each_step(corpus, name):
    path = corpus / "otel" / name
    spans = sorted(
        json.loads(path.read_text(encoding="utf-8"))["spans"], key=lambda s: int(s["start_time"])
    )
    expected, last = {}, None
    for s in spans:  # the model call just before a tool call chose it
        a = s.get("attributes", {})
        if a.get("gen_ai.operation.name") == "call_llm":
            last = [
                a["gen_ai.request.model"],
                (int(s["end_time"]) - int(s["start_time"])) / 1e9,
                a["gen_ai.usage.input_tokens"],
                a["gen_ai.usage.output_tokens"],
            ]
        elif a.get("gen_ai.operation.name") == "execute_tool":
            expected.setdefault(a["gen_ai.tool.name"], []).append(last)
    details = run_snapshot(load_trace(path), legend=False)["details"]
    assert set(expected) <= set(details)
    for step, calls in expected.items():
        got = [[model, took, tin, tout] for model, _, took, tin, tout, *_ in details[step]["calls"]]
        assert [c[0] for c in got] == [c[0] for c in calls] and [c[2:] for c in got] == [
            c[2:] for c in calls
        ]
        assert all(abs(g[1] - c[1]) < 1e-6 for g, c in zip(got, calls))
        assert all(c[6] is True for c in details[step]["calls"])


def test_a_simulated_run_records_no_model_calls_per_step(cache_plan):
    details = run_snapshot(simulate(cache_plan), legend=False)["details"]
    assert {step: d["calls"] for step, d in details.items()} == {s.id: [] for s in cache_plan.steps}
