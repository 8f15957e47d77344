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
    # opens there
    assert "first divergence: event 10" in pg.locator("#planviz-app .pv-note").inner_text()
    assert pg.locator("#planviz-app .planviz-slider").input_value() == "10"
    left = ui.node_classes(pg, "#planviz-app .pv-run:nth-child(1)" + shown)
    right = ui.node_classes(pg, "#planviz-app .pv-run:nth-child(2)" + shown)
    assert "status-done" in left["S4"] and "status-failed" in right["S4"]
    pg.keyboard.press("End")
    assert (
        "status-done" in ui.node_classes(pg, "#planviz-app .pv-run:nth-child(2)" + shown)["S4.v2"]
    )
    last = len(a.events) - 1  # run a is shorter: its last frame stays
    assert (
        sides.nth(0).locator(".pv-caption").inner_text().startswith(f"Event {last} of {last}: stop")
    )
    pg.locator("button.planviz-first").click()
    assert sides.nth(0).locator(".pv-caption").inner_text().startswith("Event 0 of")
    assert sides.nth(1).locator(".pv-caption").inner_text().startswith("Event 0 of")
    pg.locator("button.planviz-diverge").click()
    assert pg.locator("#planviz-app .planviz-slider").input_value() == "10"
    ui.screenshot(pg.locator("body"), "pair-report")
    assert page.errors == []
    assert pg.evaluate("window.__planvizCsp || []") == []


COLUMN = "#planviz-app .pv-panel-{tab} .pv-col[data-run='{j}']"


@pytest.mark.parametrize("tab", ["log", "facts", "ready", "timeline", "metrics"])
def test_each_run_has_its_own_panel_in_every_tab(page, ui, tmp_path, cache_plan, tab):
    """Every tab under the pictures shows each run's own panel, under its label (it once showed run a's twice)."""
    from planviz import metrics

    runs = [simulate(cache_plan), simulate(cache_plan, faults=[Fault("S4", "side_effect")])]
    pg = page.page
    pg.goto(report_html(runs, tmp_path / "pair.html").as_uri())
    pg.locator(
        "#planviz-app .pv-run:nth-child(2) .pv-version:not([hidden]) svg g.node"
    ).first.wait_for(state="attached")
    pg.locator(f"#planviz-app .pv-tab[data-tab='{tab}']").click()
    tick = int(pg.locator("#planviz-app .planviz-slider").input_value())
    for j, run in enumerate(runs):
        at = min(tick, len(run.events) - 1)
        col = pg.locator(COLUMN.format(tab=tab, j=j))
        assert col.locator("h4.pv-label").inner_text() == "ab"[j]
        # what each run's picture and caption say, read from the page, against the run itself
        side = pg.locator(f"#planviz-app .pv-run:nth-child({j + 1})")
        event = run.events[at]
        assert (
            side.locator(".pv-caption")
            .inner_text()
            .startswith(f"Event {at} of {len(run.events) - 1}: {event.kind}")
        )
        if tab == "log":
            current = col.locator("tr.pv-current td").all_inner_texts()
            assert current[1:4] == [f"{float(event.time):g}", event.kind, event.step or ""]
            rows = [
                (int(i), kind)
                for i, kind in col.locator("tr[data-i]").evaluate_all(
                    "rows => rows.map(r => [r.getAttribute('data-i'), r.cells[2].textContent])"
                )
            ]
            assert rows and rows == [
                (i, run.events[i].kind) for i in range(rows[0][0], rows[0][0] + len(rows))
            ]
            # virtual
            assert (
                len(rows) < 40 and int(col.locator("tr.pv-current").get_attribute("data-i")) == at
            )
        elif tab == "facts":
            held = sorted(run.frame(at).facts)
            assert sorted(col.locator("li:not(.pv-empty)").all_inner_texts()) == held
        elif tab == "ready":
            assert sorted(col.locator("li:not(.pv-empty)").all_inner_texts()) == sorted(
                run.frame(at).ready
            )
        elif tab == "timeline":
            assert col.locator("svg.planviz-gantt").count() == 1
            rows = set(col.locator("svg.planviz-gantt text").all_text_contents())
            assert {s.id for s in run.plans[-1].steps} | {
                e.step for e in run.events if e.step
            } <= rows
            assert ("S4.v2" in rows) == (j == 1)  # only run b re-issued S4
        else:
            cells = dict(
                zip(col.locator("th").all_inner_texts(), col.locator("td").all_inner_texts())
            )
            m = metrics(run)
            assert cells["tool calls"] == str(sum(1 for e in run.events if e.kind == "start"))
            assert cells["replans"] == str(m.replans)
    if tab == "metrics":
        ui.screenshot(pg.locator("body"), "pair-report-metrics")
    assert page.errors == []
