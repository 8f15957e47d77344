"""The explorer as a Voila dashboard, in headless Chromium: step, inject a fault through the UI."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_explorer_in_voila(voila, page, ui):
    pg = page.page
    pg.goto(f"{voila.url}/?token={voila.token}", timeout=120_000)

    seen = ui.drive(pg)

    assert {"S0", "S1", "S2", "S3", "S4"} <= set(seen["before"])
    assert "Event 1 " in seen["captions"][1]
    for step in ("S3", "S4"):
        assert "status-invalidated" in seen["after"][step]
    for step in ("S0", "S1", "S2"):
        assert "status-invalidated" not in seen["after"][step]
    ui.check_legend(seen["legend"])
    shot = ui.screenshot(pg.locator(".planviz-explorer"), "voila-explorer")
    assert shot.stat().st_size > 10_000
    # the static fallback is an output too: hidden, the widget drew
    fallback = pg.locator("iframe.planviz-fallback")
    assert fallback.count() == 1 and not fallback.is_visible()
    assert not [e for e in page.errors if "planviz" in e.lower()]
