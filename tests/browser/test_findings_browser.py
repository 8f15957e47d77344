"""The findings the picture counts in one line are listed in the details (while no step is chosen), in the report
of any-agent's OPENAI trace opened in headless Chromium."""

from __future__ import annotations

import json

import pytest

from planviz import load_trace, report_html

from .conftest import screenshot

pytestmark = pytest.mark.browser


def test_the_details_list_the_findings_the_picture_counts(corpus, page, tmp_path):
    source = corpus / "otel" / "any-agent_OPENAI_trace.json"
    spans = json.loads(source.read_text(encoding="utf-8"))["spans"]
    tools = [s for s in spans if s["attributes"].get("gen_ai.operation.name") == "execute_tool"]
    # what the file says, not what planviz read
    output = sum("gen_ai.output" in s["attributes"] for s in tools)
    llm = sum(s["attributes"].get("gen_ai.operation.name") == "call_llm" for s in spans)
    path = report_html(load_trace(source), tmp_path / "r.html")
    pg = page.page
    pg.goto(path.as_uri())
    items = pg.locator("#planviz-app .planviz-details .pv-findings li")
    items.first.wait_for()
    texts = items.all_inner_texts()
    assert pg.locator("#planviz-app .planviz-details h4").inner_text() == f"Findings ({len(texts)})"
    assert f"warning deviating_attribute: {output} span(s) use 'gen_ai.output'" in "\n".join(texts)
    assert f"{llm} span(s) name their operation 'call_llm'" in "\n".join(texts)
    caption = pg.locator("#planviz-app svg text").all_text_contents()
    assert [t for t in caption if t.startswith(f"0 errors, {len(texts)} warnings (")] != []
    screenshot(pg.locator("#planviz-app"), "findings-in-details")
    pg.locator('#planviz-app g.node[data-step="write_file"]').first.click()
    assert items.count() == 0  # a step chosen: its details
    pg.locator("#planviz-app .planviz-details .pv-close").click()
    assert items.count() == len(texts)  # closed: the list again
    assert page.errors == [] and page.csp == []
