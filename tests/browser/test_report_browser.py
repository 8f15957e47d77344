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
