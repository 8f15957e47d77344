"""The report's step details in headless Chromium against the raw OTel span file, read by hand in the test."""

from __future__ import annotations

import json
import re

import pytest

from planviz import load_trace, report_html

pytestmark = pytest.mark.browser

SHOWN = "#planviz-app .planviz-diagram .pv-version:not([hidden])"
_LINE = re.compile(
    r"^(?P<model>\S+) at t=(?P<start>[0-9.e+-]+) s, (?P<took>[0-9.e+-]+) s "
    r"\u00B7 tokens (?P<tin>\d+) in, (?P<tout>\d+) out \u00B7 cost (?P<cost>[0-9.e+-]+) USD$"
)


def _calls_that_chose_tools(path):
    """tool -> [(model, start s, duration s, input tokens, output tokens, cost USD)]: the call_llm span that ended
    last before each execute_tool span, its times from the file's first span, its cost input + output."""
    spans = sorted(
        json.loads(path.read_text(encoding="utf-8"))["spans"], key=lambda s: int(s["start_time"])
    )
    first, chose, last = int(spans[0]["start_time"]), {}, None
    for s in spans:
        a = s["attributes"]
        if a.get("gen_ai.operation.name") == "call_llm":
            last = (
                a["gen_ai.request.model"],
                (int(s["start_time"]) - first) / 1e9,
                (int(s["end_time"]) - int(s["start_time"])) / 1e9,
                int(a["gen_ai.usage.input_tokens"]),
                int(a["gen_ai.usage.output_tokens"]),
                float(a["gen_ai.usage.input_cost"]) + float(a["gen_ai.usage.output_cost"]),
            )
        elif a.get("gen_ai.operation.name") == "execute_tool":
            chose.setdefault(a["gen_ai.tool.name"], []).append(last)
    return chose


@pytest.mark.parametrize("name", ["any-agent_LANGCHAIN_trace.json", "any-agent_OPENAI_trace.json"])
def test_a_model_call_line_says_what_the_span_recorded(page, ui, tmp_path, corpus, name):
    """Model, start, duration, tokens and cost in dollars (the cost had no unit) of each call that chose a tool,
    each figure within the four significant digits the line shows."""
    path = corpus / "otel" / name
    chose = _calls_that_chose_tools(path)
    assert chose and all(None not in calls for calls in chose.values())
    pg = page.page
    pg.goto(report_html(load_trace(path), tmp_path / "trace.html").as_uri())
    pg.locator(SHOWN + " svg g.node").first.wait_for(state="attached")
    pg.keyboard.press("End")
    for tool, calls in chose.items():
        pg.locator(f"{SHOWN} g.node[data-step='{tool}']").click()
        lines = pg.locator("#planviz-app .planviz-details ol.pv-calls li").all_inner_texts()
        assert len(lines) == len(calls)
        for line, (model, start, took, tin, tout, cost) in zip(lines, calls):
            # its first line; what it was given and answered follow
            shown = _LINE.match(line.split("\n", 1)[0])
            assert shown, line
            assert (shown["model"], int(shown["tin"]), int(shown["tout"])) == (model, tin, tout)
            for key, truth in (("start", start), ("took", took), ("cost", cost)):
                assert float(shown[key]) == pytest.approx(truth, rel=5e-4), (key, line)
    ui.screenshot(pg.locator("body"), f"report-model-calls-{name}")
    assert page.errors == []
