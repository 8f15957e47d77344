"""What was said and done, in the report opened in headless Chromium: a failed tool call's error and output in its
details without scrolling, and a LangGraph thread's turns, the model's last reply shown beside the graph."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from planviz import load_trace, report_html

from .conftest import screenshot

pytestmark = pytest.mark.browser

ERROR = "ConnectionError: timezone service unreachable </script><b>x</b>"

IN_VIEW_JS = """(el) => {  // drawn, inside the window, and on top where its first line is (not hidden by a scroll box)
  const r = el.getBoundingClientRect();
  if (!r.width || !r.height || r.top < 0 || r.left < 0 || r.top >= innerHeight || r.left >= innerWidth) {
    return false;
  }
  const hit = document.elementFromPoint(r.left + Math.min(5, r.width / 2), r.top + Math.min(5, r.height / 2));
  return !!hit && (el === hit || el.contains(hit));
}"""


def _failed_tool_trace(corpus, tmp_path):
    """any-agent's OPENAI trace (real), with its get_current_time call marked failed (status ERROR and a message):
    the corpus holds no failed tool call. Returns the file, the tool's output as the file writes it."""
    data = json.loads((corpus / "otel" / "any-agent_OPENAI_trace.json").read_text(encoding="utf-8"))
    span = next(
        s for s in data["spans"] if s["attributes"].get("gen_ai.tool.name") == "get_current_time"
    )
    span["status"] = {"status_code": "error", "description": ERROR}
    path = tmp_path / "failed_tool.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path, span["attributes"]["gen_ai.output"]


def _click_step(pg, sid):
    pg.locator(f'#planviz-app g.node[data-step="{sid}"]').first.click()
    pg.locator("#planviz-app .planviz-details h3").filter(has_text=sid).wait_for()


def test_a_failed_tool_calls_error_and_output_show_without_scrolling(page, corpus, tmp_path):
    path, output = _failed_tool_trace(corpus, tmp_path)
    spans = sorted(
        json.loads(path.read_text(encoding="utf-8"))["spans"], key=lambda s: int(s["start_time"])
    )
    answered = next(
        s["attributes"]["gen_ai.output"] for s in spans if s["name"].startswith("call_llm")
    )
    # the model's input and output as the readers fill them (set here from the raw span)
    run = load_trace(path)
    first = run.model_calls[0]
    assert first.step == "get_current_time"
    run = replace(
        run,
        model_calls=(
            replace(first, input="What year is it? <i>now</i>", output=answered),
            *run.model_calls[1:],
        ),
    )
    report = tmp_path / "failed.html"
    report_html(run, report)
    pg = page.page
    pg.goto(report.as_uri())
    pg.locator("#planviz-app g.node[data-step]").first.wait_for(state="attached")
    _click_step(pg, "get_current_time")
    details = pg.locator("#planviz-app .planviz-details")
    error = details.locator("pre.pv-error-text")
    result = details.locator("pre.pv-result")
    assert ERROR in error.inner_text()  # the markup in it is text, not tags
    assert details.locator("b").count() == 0
    # what the tool returned, whole (it is short)
    assert json.loads(result.inner_text()) == json.loads(output)
    assert error.evaluate(IN_VIEW_JS) and result.evaluate(IN_VIEW_JS)  # no scrolling to see either
    assert pg.evaluate("window.scrollY") == 0
    first = [n for n in details.locator("h4, pre").all_inner_texts() if n.strip()]
    assert first[0].startswith("Failed")  # the error comes first
    # what the model answered
    assert details.locator("pre.pv-model-output").inner_text() == answered
    # text, not markup
    assert details.locator("pre.pv-model-input").inner_text() == "What year is it? <i>now</i>"
    screenshot(pg.locator("#planviz-app"), "said-done-failed-tool")
    assert not page.errors and not page.csp and not page.dialogs


def test_a_langgraph_thread_shows_who_said_what_and_the_models_reply(page, corpus, tmp_path):
    raw = json.loads(
        (corpus / "langgraph/sqlite/exported/thread_test_checkpoint.json").read_text(
            encoding="utf-8"
        )
    )
    # the file lists the newest checkpoint first
    newest = raw[0]["checkpoint"]["channel_values"]["messages"]
    reply = next(m for m in reversed(newest) if m["type"] == "ai")["content"]
    asked = next(m for m in reversed(newest) if m["type"] == "human")["content"]
    report = tmp_path / "thread.html"
    report_html(
        load_trace(corpus / "langgraph/sqlite/exported/thread_test_checkpoint.json"), report
    )
    pg = page.page
    pg.goto(report.as_uri())
    turns = pg.locator("#planviz-app .pv-turns li.pv-turn")
    turns.first.wait_for()
    last = turns.last
    assert last.locator(".pv-role").inner_text() == "assistant"
    assert reply.startswith(last.locator("pre").inner_text().rstrip("\u2026"))
    assert asked in turns.nth(turns.count() - 2).inner_text()
    pg.wait_for_timeout(100)  # the list scrolls to its last turn on the next frame
    assert last.locator("pre").evaluate(IN_VIEW_JS)
    # the report opens at event 0: the reply is said later
    assert "pv-later" in last.get_attribute("class")
    pg.locator("#planviz-app").press("End")
    assert "pv-later" not in last.get_attribute("class")
    screenshot(pg.locator("#planviz-app"), "said-done-langgraph-thread")
    assert not page.errors and not page.csp and not page.dialogs
