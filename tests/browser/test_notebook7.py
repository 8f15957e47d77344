"""The explorer in Jupyter Notebook 7 (the ``notebook`` package), in headless Chromium: run all, step,
inject a fault through the UI."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser


def test_explorer_in_notebook7(notebook7, page, ui):
    pg = page.page
    pg.goto(f"{notebook7.url}/notebooks/explore.ipynb?token={notebook7.token}")
    # Notebook 7 has no status bar, and its toolbar indicator reads idle before the kernel starts:
    # ask the server for an idle kernel with this page connected, then for the indicator.
    notebook7.wait_for_kernel()
    pg.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for(
        state="attached", timeout=90_000
    )
    pg.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    pg.locator(".lm-Menu-item[data-command='runmenu:run-all']").click()

    seen = ui.drive(pg)

    ui.check(pg, seen, "notebook7-explorer")
    # the static fallback is an output too: hidden, the widget drew
    fallback = pg.locator("iframe.planviz-fallback")
    assert fallback.count() == 1 and not fallback.is_visible()
