"""The explorer in JupyterLab 4, in headless Chromium: run all, step, inject a fault through the UI."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser


def test_explorer_in_jupyterlab(jupyterlab, page, ui):
    pg = page.page
    pg.goto(f"{jupyterlab.url}/lab/tree/explore.ipynb?reset&token={jupyterlab.token}")
    pg.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=90_000)
    pg.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    pg.locator(".lm-Menu-item[data-command='runmenu:run-all']").click()

    seen = ui.drive(pg)

    ui.check(pg, seen, "jupyterlab-explorer")
    # the static fallback is an output too: hidden, the widget drew
    fallback = pg.locator("iframe.planviz-fallback")
    assert fallback.count() == 1 and not fallback.is_visible()
    row = pg.locator(".jp-OutputArea-child", has=pg.locator(".planviz-fallback-out"))
    assert row.count() == 1 and not row.is_visible()
