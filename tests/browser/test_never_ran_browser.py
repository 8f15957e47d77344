"""A run that stops early, stepped in the browser (issue 23.10): explorer.js shows a step the run never started
as render draws it, *not run* at the stop and pending before, never VOIDED, and its legend lists the look."""

from __future__ import annotations

import pytest

from planviz import Fault, frozen_plan_test, report_html

from .test_report_browser import NODE_STATES_JS, _expected, _goto, _open

pytestmark = pytest.mark.browser


def test_a_step_the_stopped_run_never_started_is_not_run_in_the_browser(page, tmp_path, cache_plan):
    run = frozen_plan_test(cache_plan, faults=[Fault("S3", "side_effect")]).run
    assert set(run.frame(-1).not_run) == {"S4"}
    pg = _open(page, report_html(run, tmp_path / "run.html"))
    n = len(run.events)
    # the stop, the frame before it, back to the start and forward again
    for i in [
        n - 1,
        n - 2,
        0,
        n - 1,
    ]:
        _goto(pg, i)
        shown = pg.evaluate(NODE_STATES_JS)
        assert shown == _expected(run, i), i
        assert (
            shown["node-S4"]["word"] == ("not run" if i == n - 1 else "pending")
            and "voided" not in shown["node-S4"]["class"]
        ), i
    assert (
        "not run: the run stopped first (never voided)"
        in pg.locator("#planviz-app ul.pv-legend").inner_text()
    )
    assert page.errors == []
