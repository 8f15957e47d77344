"""The HTML report opened from disk (file://) in headless Chromium: a stepper with no kernel and no network."""

from __future__ import annotations

import pytest

from planviz import Fault, Plan, Step, report_html, simulate

pytestmark = pytest.mark.browser

HOSTILE = "</script><script>alert(1)</script><img src=x onerror=alert(1)>"


def _open(page, path):
    pg = page.page
    pg.goto(path.as_uri())
    pg.locator("#pv-diagram svg g.node").first.wait_for(state="attached")
    return pg


def _caption(pg) -> str:
    return pg.locator("#pv-caption").inner_text()


def test_report_steps_offline(page, ui, tmp_path, cache_plan):
    run = simulate(cache_plan, faults=[Fault("S4", "side_effect")])
    pg = _open(page, report_html(run, tmp_path / "run.html"))

    first = ui.node_classes(pg, "#pv-diagram")
    assert {"S0", "S1", "S2", "S3", "S4"} <= set(first)
    assert _caption(pg).startswith("Event 0 of")
    assert pg.locator("#pv-prev").is_disabled()
    pg.locator("#pv-next").click()
    assert _caption(pg).startswith("Event 1 of")
    assert ui.node_classes(pg, "#pv-diagram") != first
    assert pg.locator("#pv-log tr.current").get_attribute("data-i") == "1"

    voiding = next(e.index for e in run.events if e.voided)
    pg.locator(f"#pv-log tr[data-i='{voiding}']").click()
    classes = ui.node_classes(pg, "#pv-diagram")
    assert all("status-invalidated" in classes[s] for s in ("S3", "S4")), classes
    assert not any("status-invalidated" in classes[s] for s in ("S0", "S1", "S2")), classes
    assert "S3" in pg.locator("#pv-scope").inner_text()
    ui.screenshot(pg.locator("body"), "report")

    pg.keyboard.press("End")
    assert _caption(pg).startswith(f"Event {len(run.events) - 1} of")
    assert pg.locator("#pv-next").is_disabled()
    pg.keyboard.press("ArrowLeft")
    assert _caption(pg).startswith(f"Event {len(run.events) - 2} of")
    pg.keyboard.press("Home")
    assert pg.locator("#pv-slider").input_value() == "0"
    assert page.errors == []
    assert pg.evaluate("window.__planvizCsp || []") == []


def test_hostile_report_runs_no_script(page, ui, tmp_path):
    steps = [Step("A", HOSTILE, expected_evidence=HOSTILE, produces=[f"x {HOSTILE}"]),
             Step("B", "finish", expected_evidence="done", depends_on=["A"], requires=[f"x {HOSTILE}"],
                  produces=["y"])]
    run = simulate(Plan(f"goal {HOSTILE}", steps))
    pg = _open(page, report_html(run, tmp_path / "hostile.html"))
    for _ in range(len(run.events)):
        pg.keyboard.press("ArrowRight")
    assert HOSTILE in pg.locator("h1").inner_text()
    assert HOSTILE in pg.locator("#pv-facts").inner_text()
    assert pg.locator("img").count() == 0
    assert page.dialogs == []
    assert page.errors == []
    assert pg.evaluate("window.__planvizCsp || []") == []


# --- "fit width": a 10-step plan readable at 1400 px, a big one scrolled --------------------------------------

TEXT_PX_JS = """() => {
  const box = document.getElementById('pv-diagram'), svg = box.querySelector('svg');
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const sizes = [...svg.querySelectorAll('text')].map(t => parseFloat(t.getAttribute('font-size')) * scale);
  return {smallest: Math.min(...sizes), fit: box.classList.contains('fit'),
          across: box.scrollWidth > box.clientWidth + 1, down: box.scrollHeight > box.clientHeight + 1};
}"""


def _lanes(n: int, width: int) -> Plan:
    """``n`` steps in ``width`` parallel lanes after a first step, each passing a fact down its lane."""
    steps = [Step("S0", "Reproduce the failure on a clean checkout", expected_evidence="a failing test",
                  produces="f0")]
    for k in range(1, n):
        parent = "S0" if k <= width else f"S{k - width}"
        steps.append(Step(f"S{k}", f"Step number {k} of the work in its lane", expected_evidence="evidence",
                          depends_on=parent, requires=f"f{parent[1:]}", produces=f"f{k}"))
    return Plan(f"{n} steps in {width} lanes", steps)


@pytest.mark.parametrize("plan, scrolls", [
    (_lanes(10, 3), False),   # a 10-step plan fits the page's width at 1400 px and stays readable
    (_lanes(10, 2), None),    # a narrower, longer one is as readable (it may scroll a little)
    (_lanes(80, 4), True),    # a big one (drawn top to bottom: long lanes) scrolls instead of shrinking its text
    (_lanes(80, 16), True),   # and so does a wide one
])
def test_fit_width_keeps_text_at_least_9_px(chromium, tmp_path, plan, scrolls):
    """``scrolls``: False, the picture fits the width; True, it scrolls (across or down); None, either."""
    context = chromium.new_context(viewport={"width": 1400, "height": 900})
    try:
        pg = context.new_page()
        pg.goto(report_html(simulate(plan), tmp_path / "run.html").as_uri())
        pg.locator("#pv-diagram svg g.node").first.wait_for(state="attached")
        for _ in range(3):  # every frame, not only the first
            seen = pg.evaluate(TEXT_PX_JS)
            assert seen["fit"] and seen["smallest"] >= 9 - 1e-6, seen
            if scrolls is False:
                assert not seen["across"], seen
            if scrolls:
                assert seen["across"] or seen["down"], seen
            pg.keyboard.press("ArrowRight")
    finally:
        context.close()
