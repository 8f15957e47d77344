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
    sides = pg.locator("#planviz-app .pv-run")
    shown = " .pv-version:not([hidden])"
    sides.nth(1).locator(shown + " svg g.node").first.wait_for(state="attached")
    assert "first divergence: event 10" in pg.locator("#planviz-app .pv-note").inner_text()  # opens there
    assert pg.locator("#planviz-app .planviz-slider").input_value() == "10"
    left = ui.node_classes(pg, "#planviz-app .pv-run:nth-child(1)" + shown)
    right = ui.node_classes(pg, "#planviz-app .pv-run:nth-child(2)" + shown)
    assert "status-done" in left["S4"] and "status-failed" in right["S4"]
    pg.keyboard.press("End")
    assert "status-done" in ui.node_classes(pg, "#planviz-app .pv-run:nth-child(2)" + shown)["S4.v2"]
    last = len(a.events) - 1  # run a is shorter: its last frame stays
    assert sides.nth(0).locator(".pv-caption").inner_text().startswith(f"Event {last} of {last}: stop")
    pg.locator("button.planviz-first").click()
    assert sides.nth(0).locator(".pv-caption").inner_text().startswith("Event 0 of")
    assert sides.nth(1).locator(".pv-caption").inner_text().startswith("Event 0 of")
    pg.locator("button.planviz-diverge").click()
    assert pg.locator("#planviz-app .planviz-slider").input_value() == "10"
    ui.screenshot(pg.locator("body"), "pair-report")
    assert page.errors == []
    assert pg.evaluate("window.__planvizCsp || []") == []
