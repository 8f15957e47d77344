"""The HTML report opened from disk (file://) in headless Chromium: planviz's front-end module with no kernel
and no network."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from planviz import Fault, Plan, Step, load_trace, render, report_html, simulate

from ..frontends.test_htmlreport import node_state

pytestmark = pytest.mark.browser

HOSTILE = "</script><script>alert(1)</script><img src=x onerror=alert(1)>"
SHOWN = "#planviz-app .planviz-diagram .pv-version:not([hidden])"

# What the shown picture's nodes look like in the browser: the fields of tests/frontends/test_htmlreport.node_state.
NODE_STATES_JS = """() => {
  const XLINK = 'http://www.w3.org/1999/xlink', out = {};
  for (const g of document.querySelectorAll('#planviz-app .pv-version:not([hidden]) svg g.node')) {
    if (!g.id.startsWith('node-')) { continue; }
    const shapes = [...g.querySelectorAll('path, polygon, ellipse')].slice(0, 2);
    const paint = shapes.map((el, k) => {
      const p = {};
      for (const name of (k ? [] : ['fill']).concat(['stroke', 'stroke-width', 'stroke-dasharray'])) {
        p[name] = el.getAttribute(name) || (name === 'stroke-dasharray' ? 'none' : null);
      }
      return p;
    });
    const texts = g.querySelectorAll('text');
    out[g.id] = {class: g.getAttribute('class').split(/\\s+/).filter(Boolean).sort(), paint: paint,
                 word: texts[texts.length - 1].textContent,
                 tips: [...g.querySelectorAll('a')].map(a => a.getAttributeNS(XLINK, 'title'))};
  }
  return out;
}"""


def _open(page, path):
    pg = page.page
    pg.goto(path.as_uri())
    pg.locator(SHOWN + " svg g.node").first.wait_for(state="attached")
    return pg


def _caption(pg) -> str:
    return pg.locator("#planviz-app .pv-caption").inner_text()


def _expected(run, i) -> dict:
    """render's frame i, as NODE_STATES_JS reads a page."""
    plan = run.plan_at(i)
    root = ET.fromstring(render(plan, run=run, at=i, legend=False).svg)
    from planviz.pictures.escape import dom_id

    drawn = {g.get("id") for g in root.iter("{http://www.w3.org/2000/svg}g")}
    out = {}
    for sid in plan.ids:  # a big plan's picture draws some steps one by one (a focused view): those
        if f"node-{dom_id(sid)}" in drawn:
            state = node_state(root, sid)
            out[f"node-{dom_id(sid)}"] = {**state, "class": sorted(state["class"])}
    return out


PICTURE_CAPTION_JS = """() => [...document.querySelectorAll('#planviz-app .pv-version:not([hidden]) svg text')]
  .filter(t => t.parentNode.getAttribute('class') === 'graph').map(t => t.textContent)"""


def _picture_caption(svg: str) -> list[str]:
    """The caption lines of render's picture: the texts directly under the graph's group."""
    graph = next(
        g
        for g in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}g")
        if g.get("class") == "graph"
    )
    return [t.text or "" for t in graph if t.tag == "{http://www.w3.org/2000/svg}text"]


def _goto(pg, i: int) -> None:
    pg.locator("#planviz-app .planviz-slider").fill(str(i))
    pg.locator("#planviz-app .planviz-slider").dispatch_event("input")


def _tab(pg, name: str) -> None:
    pg.locator(f"#planviz-app button.pv-tab[data-tab='{name}']").click()


def test_report_steps_offline(page, ui, tmp_path, cache_plan):
    run = simulate(cache_plan, faults=[Fault("S4", "side_effect")])
    pg = _open(page, report_html(run, tmp_path / "run.html"))

    first = ui.node_classes(pg, SHOWN)
    assert {"S0", "S1", "S2", "S3", "S4"} <= set(first)
    assert _caption(pg).startswith("Event 0 of")
    assert pg.locator("button.planviz-back").is_disabled()
    pg.locator("button.planviz-forward").click()
    assert _caption(pg).startswith("Event 1 of")
    assert ui.node_classes(pg, SHOWN) != first
    assert pg.locator(".pv-log tr.pv-current").get_attribute("data-i") == "1"

    voiding = next(e.index for e in run.events if e.voided)
    _goto(pg, voiding - 2)
    pg.locator(f".pv-log tr[data-i='{voiding}']").click()
    classes = ui.node_classes(pg, SHOWN)
    assert all("status-invalidated" in classes[s] for s in ("S3", "S4")), classes
    assert not any("status-invalidated" in classes[s] for s in ("S0", "S1", "S2")), classes
    assert "voided: S3, S4" in pg.locator("#planviz-app .pv-caption .pv-scope").inner_text()
    legend = pg.locator("#planviz-app .planviz-legend li").evaluate_all(
        "els => els.map(e => e.className)"
    )
    assert {"pv-legend-invalidated", "pv-legend-kept", "pv-legend-critical"} <= set(legend), legend

    pg.locator(SHOWN + " g.node[data-step='S3']").click()  # the details of a step
    details = pg.locator("#planviz-app .planviz-details").inner_text()
    assert (
        "Patch the key builder" in details
        and "patch_applied" in details
        and "start (attempt 1)" in details
    )
    pg.locator("#planviz-app .planviz-search").fill("verify")  # search by text
    assert pg.locator(SHOWN + " g.pv-match").evaluate_all(
        "els => els.map(e => e.dataset.step)"
    ) == ["S4"]
    ui.screenshot(pg.locator("body"), "report")

    pg.locator("body").click(position={"x": 5, "y": 5})
    pg.keyboard.press("End")
    assert _caption(pg).startswith(f"Event {len(run.events) - 1} of")
    assert pg.locator("button.planviz-forward").is_disabled()
    pg.keyboard.press("ArrowLeft")
    assert _caption(pg).startswith(f"Event {len(run.events) - 2} of")
    pg.keyboard.press("Home")
    assert pg.locator("#planviz-app .planviz-slider").input_value() == "0"
    pg.keyboard.press(" ")  # space plays
    pg.wait_for_function(
        "() => document.querySelector('#planviz-app .pv-caption').innerText.startsWith('Event 1 ')"
    )
    pg.wait_for_function(
        "() => document.querySelector('#planviz-app .pv-caption').innerText.startsWith('Event 2 ')"
    )
    # it plays on (it once stopped)
    assert pg.locator("button.planviz-play").get_attribute("aria-label") == "pause"
    pg.keyboard.press(" ")
    assert page.errors == []
    assert pg.evaluate("window.__planvizCsp || []") == []


def test_every_frame_in_the_browser_is_renders(page, tmp_path, cache_plan):
    run = simulate(cache_plan, faults=[Fault("S4", "side_effect"), Fault("S1", "transient")])
    pg = _open(page, report_html(run, tmp_path / "run.html"))
    _tab(pg, "facts")
    n = len(run.events)
    for i in [*range(n), *range(n - 2, -1, -3)]:  # forward through every frame, then back in jumps
        _goto(pg, i)
        assert pg.evaluate(NODE_STATES_JS) == _expected(run, i), i
        # every text of the picture belongs to the frame on screen
        said = pg.evaluate(PICTURE_CAPTION_JS)
        assert said == _picture_caption(render(run.plan_at(i), run=run, at=i, legend=False).svg), i
        assert any(line.startswith(f"event {i} of {n - 1} ") for line in said), (i, said)
        facts = pg.locator("#planviz-app .pv-panel-facts li").all_inner_texts()
        assert facts == (sorted(run.frame(i).facts) or ["(none)"]), i
    assert page.errors == [] and pg.evaluate("window.__planvizCsp || []") == []


def test_without_script_the_report_shows_the_last_frame(chromium, tmp_path, cache_plan):
    run = simulate(cache_plan, faults=[Fault("S4", "side_effect")])
    path = report_html(run, tmp_path / "run.html")
    context = chromium.new_context(
        java_script_enabled=False, viewport={"width": 1280, "height": 900}
    )
    try:
        pg = context.new_page()
        pg.goto(path.as_uri())
        assert not pg.locator("#planviz-app").is_visible()
        assert pg.locator(".static-note").is_visible()
        caption = pg.locator(".pv-static .pv-caption").inner_text()
        assert caption.startswith(f"Event {len(run) - 1} of {len(run) - 1}: stop")
        assert pg.locator(".pv-static .pv-facts li").all_inner_texts() == sorted(
            run.frame(-1).facts
        )
        assert pg.locator(".pv-static .planviz-diagram svg g.node").count() > 0
    finally:
        context.close()


def test_hostile_report_runs_no_script(page, ui, tmp_path):
    steps = [
        Step("A", HOSTILE, expected_evidence=HOSTILE, produces=[f"x {HOSTILE}"]),
        Step(
            "B",
            "finish",
            expected_evidence="done",
            depends_on=["A"],
            requires=[f"x {HOSTILE}"],
            produces=["y"],
        ),
    ]
    run = simulate(Plan(f"goal {HOSTILE}", steps))
    pg = _open(page, report_html(run, tmp_path / "hostile.html"))
    _tab(pg, "facts")
    for _ in range(len(run.events)):
        pg.locator("button.planviz-forward").click() if not pg.locator(
            "button.planviz-forward"
        ).is_disabled() else None
    assert HOSTILE in pg.locator("#planviz-app .pv-title").inner_text()
    assert HOSTILE in pg.locator("#planviz-app .pv-panel-facts").inner_text()
    pg.locator(SHOWN + " g.node[data-step='A']").click()
    assert HOSTILE in pg.locator("#planviz-app .planviz-details").inner_text()
    assert pg.locator("img").count() == 0
    assert page.dialogs == []
    assert page.errors == []
    assert pg.evaluate("window.__planvizCsp || []") == []


def two_thousand_steps() -> Plan:
    """40 chains of 50 steps: 2,000 steps that Graphviz lays out in seconds."""
    steps = [
        Step(
            f"S{i:04d}",
            f"step {i}",
            expected_evidence="e",
            depends_on=[f"S{i - 40:04d}"] if i >= 40 else [],
            produces=[f"f{i}"],
            duration=1 + i % 3,
        )
        for i in range(2000)
    ]
    return Plan("two thousand steps", steps)


@pytest.mark.slow
def test_a_2000_step_report_opens_and_steps(page, tmp_path):
    run = simulate(two_thousand_steps(), faults=[Fault("S1000", "side_effect")])
    assert len(run.events) > 4000
    pg = _open(page, report_html(run, tmp_path / "big.html"))
    n = len(run.events)
    assert _caption(pg).startswith(f"Event 0 of {n - 1}")
    for key in ("End", "Home", "ArrowRight", "ArrowRight", "ArrowRight"):
        pg.keyboard.press(key)
    assert _caption(pg).startswith(f"Event 3 of {n - 1}")
    voiding = next(e.index for e in run.events if e.kind == "invalidate")
    for i in (voiding, n - 1, n // 3):
        _goto(pg, i)
        assert _caption(pg).startswith(f"Event {i} of {n - 1}")
        states = pg.evaluate(NODE_STATES_JS)
        expected = _expected(run, i)
        # the same view, unless the load changed render's choice
        both = sorted(set(states) & set(expected))
        assert both, i
        assert {k: states[k] for k in both} == {k: expected[k] for k in both}, i
    assert page.errors == [] and pg.evaluate("window.__planvizCsp || []") == []


# --- "fit width": a 10-step plan readable at 1400 px, a big one scrolled --------------------------------------

TEXT_PX_JS = """() => {
  const box = document.querySelector('#planviz-app .planviz-diagram');
  const svg = box.querySelector('.pv-version:not([hidden]) svg');
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const sizes = [...svg.querySelectorAll('text')].map(t => parseFloat(t.getAttribute('font-size')) * scale);
  return {smallest: Math.min(...sizes), fit: box.classList.contains('pv-fit'),
          across: box.scrollWidth > box.clientWidth + 1, down: box.scrollHeight > box.clientHeight + 1};
}"""


def _lanes(n: int, width: int) -> Plan:
    """``n`` steps in ``width`` parallel lanes after a first step, each passing a fact down its lane."""
    steps = [
        Step(
            "S0",
            "Reproduce the failure on a clean checkout",
            expected_evidence="a failing test",
            produces="f0",
        )
    ]
    for k in range(1, n):
        parent = "S0" if k <= width else f"S{k - width}"
        steps.append(
            Step(
                f"S{k}",
                f"Step number {k} of the work in its lane",
                expected_evidence="evidence",
                depends_on=parent,
                requires=f"f{parent[1:]}",
                produces=f"f{k}",
            )
        )
    return Plan(f"{n} steps in {width} lanes", steps)


@pytest.mark.parametrize(
    "plan, faults, scrolls",
    [
        # a 10-step plan fits the page's width at 1400 px and stays readable
        (
            _lanes(10, 3),
            [],
            False,
        ),
        (_lanes(10, 2), [], None),  # a narrower, longer one is as readable (it may scroll a little)
        # so is its first version, built by the script
        (
            _lanes(10, 2),
            [Fault("S9", "side_effect")],
            None,
        ),
        # a big one (drawn top to bottom: long lanes) scrolls instead of shrinking its text
        (
            _lanes(80, 4),
            [],
            True,
        ),
        (_lanes(80, 16), [], True),  # and so does a wide one
    ],
)
def test_fit_width_keeps_text_at_least_9_px(chromium, tmp_path, plan, faults, scrolls):
    """``scrolls``: False, the picture fits the width; True, it scrolls (across or down); None, either."""
    context = chromium.new_context(viewport={"width": 1400, "height": 900})
    try:
        pg = context.new_page()
        pg.goto(report_html(simulate(plan, faults=faults), tmp_path / "run.html").as_uri())
        pg.locator(SHOWN + " svg g.node").first.wait_for(state="attached")
        for key in ("End", "Home", "ArrowRight"):  # the static last frame, then the script's frames
            pg.keyboard.press(key)
            seen = pg.evaluate(TEXT_PX_JS)
            assert seen["fit"] and seen["smallest"] >= 9 - 1e-6, seen
            if scrolls is False:
                assert not seen["across"], seen
            if scrolls:
                assert seen["across"] or seen["down"], seen
    finally:
        context.close()


def _llm_calls_before_tools(path):
    """From the raw OTel span file: for each tool call, the model call just before it (the one that chose it):
    tool -> [(model, input tokens, output tokens)]; and each tool's number of calls."""
    spans = sorted(
        json.loads(path.read_text(encoding="utf-8"))["spans"], key=lambda s: int(s["start_time"])
    )
    chose, tries, last = {}, {}, None
    for s in spans:
        a = s.get("attributes", {})
        if a.get("gen_ai.operation.name") == "call_llm":
            last = (
                a["gen_ai.request.model"],
                a["gen_ai.usage.input_tokens"],
                a["gen_ai.usage.output_tokens"],
            )
        elif a.get("gen_ai.operation.name") == "execute_tool":
            tool = a["gen_ai.tool.name"]
            chose.setdefault(tool, []).append(last)
            tries[tool] = tries.get(tool, 0) + 1
    return chose, tries


@pytest.mark.parametrize("name", ["any-agent_LANGCHAIN_trace.json", "any-agent_OPENAI_trace.json"])
def test_a_step_of_a_recorded_trace_shows_its_attempts_and_model_calls(
    page, ui, tmp_path, corpus, name
):
    path = corpus / "otel" / name
    chose, tries = _llm_calls_before_tools(path)
    assert chose  # the file has tool calls chosen by model calls
    pg = _open(page, report_html(load_trace(path), tmp_path / "trace.html"))
    pg.keyboard.press("End")
    for tool, calls in chose.items():
        pg.locator(f"{SHOWN} g.node[data-step='{tool}']").click()
        details = pg.locator("#planviz-app .planviz-details")
        assert details.locator("h3").inner_text() == tool
        assert details.locator(".pv-attempt-count").inner_text() == (
            f"attempts so far: {tries[tool]} ("
            + ", ".join(f"{k + 1}: done" for k in range(tries[tool]))
            + ")"
        )
        heading = details.locator("h4", has_text="Model calls")
        assert heading.inner_text() == f"Model calls for this step ({len(calls)})"
        shown = details.locator("ol.pv-calls li").all_inner_texts()
        assert len(shown) == len(calls)
        for line, (model, tokens_in, tokens_out) in zip(shown, calls):
            assert line.startswith(model) and f"tokens {tokens_in} in, {tokens_out} out" in line
    ui.screenshot(pg.locator("body"), "report-trace-details")
    assert page.errors == []


LOG_ROWS_JS = """() => [...document.querySelectorAll('#planviz-app .pv-panel-log tr[data-i]')]
    .map(r => [Number(r.getAttribute('data-i')), r.cells[2].textContent, r.classList.contains('pv-current')])"""


def test_the_event_log_window_follows_every_step_and_jump(page, tmp_path):
    """The log is virtual (only the rows on screen exist, a few dozen at most): every step and jump keeps the
    current event on screen, the rows in order and right, the current one marked once."""
    steps = [
        Step(
            f"S{i:02d}",
            f"step {i}",
            expected_evidence="ok",
            depends_on=[f"S{i - 3:02d}"] if i >= 3 else [],
            produces=[f"f{i}"],
        )
        for i in range(40)
    ]
    run = simulate(Plan("forty steps", steps))
    n = len(run.events)
    assert n > 60
    pg = _open(page, report_html(run, tmp_path / "long.html"))

    def check(i):
        rows = pg.evaluate(LOG_ROWS_JS)
        lo = rows[0][0]
        assert len(rows) < 40 and [r[0] for r in rows] == list(range(lo, lo + len(rows))), i
        assert [r[1] for r in rows] == [run.events[j].kind for j in range(lo, lo + len(rows))], i
        assert [r[0] for r in rows if r[2]] == [i]
        current = pg.locator("#planviz-app .pv-panel-log tr.pv-current").bounding_box()
        frame = pg.locator("#planviz-app .pv-logscroll").bounding_box()
        assert (
            frame["y"] - 1 <= current["y"]
            and current["y"] + current["height"] <= frame["y"] + frame["height"] + 1
        ), i

    check(0)
    for i in range(1, 50):
        pg.locator("button.planviz-forward").click()
        check(i)
    for key, i in (("End", n - 1), ("ArrowLeft", n - 2), ("Home", 0)):
        pg.keyboard.press(key)
        check(i)
    assert page.errors == []
