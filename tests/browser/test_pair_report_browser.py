"""The two-run HTML report opened from disk in headless Chromium: one stepper drives both runs, offline."""

from __future__ import annotations

import pytest

from planviz import Fault, report_html, simulate

pytestmark = pytest.mark.browser


def test_one_stepper_drives_both_runs(page, ui, tmp_path, cache_plan):
    a = simulate(cache_plan)
    b = simulate(cache_plan, faults=[Fault("S4", "side_effect")])
    pg = page.page
    pg.goto(report_html([a, b], tmp_path / "pair.html").as_uri())
    pg.locator("#pv-diagram-1 svg g.node").first.wait_for(state="attached")
    assert "diverge here" in pg.locator("#pv-where").inner_text()  # opens at the first divergence
    assert pg.locator("#pv-slider").input_value() == "10"
    left, right = ui.node_classes(pg, "#pv-diagram-0"), ui.node_classes(pg, "#pv-diagram-1")
    assert "status-done" in left["S4"] and "status-failed" in right["S4"]
    pg.keyboard.press("End")
    assert "status-done" in ui.node_classes(pg, "#pv-diagram-1")["S4.v2"]
    assert "ended at event" in pg.locator("#pv-caption-0").inner_text()  # run a is shorter: its last frame stays
    pg.locator("#pv-first").click()
    assert pg.locator("#pv-caption-0").inner_text().startswith("Event 0: propose")
    assert pg.locator("#pv-caption-1").inner_text().startswith("Event 0: propose")
    pg.locator("#pv-diverge").click()
    assert pg.locator("#pv-slider").input_value() == "10"
    assert pg.locator("#pv-log-1 tr.current").get_attribute("data-i") == "10"
    ui.screenshot(pg.locator("body"), "pair-report")
    assert page.errors == []
    assert pg.evaluate("window.__planvizCsp || []") == []
