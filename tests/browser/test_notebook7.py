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
    pg.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for(state="attached", timeout=90_000)
    pg.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    pg.locator(".lm-Menu-item[data-command='runmenu:run-all']").click()

    seen = ui.drive(pg)

    assert {"S0", "S1", "S2", "S3", "S4"} <= set(seen["before"])
    assert "Event 0 " in seen["captions"][0] and "Event 1 " in seen["captions"][1]
    assert seen["stepped"] != seen["before"]  # stepping recoloured the diagram
    for step in ("S3", "S4"):
        assert "status-invalidated" not in seen["before"][step]
        assert "status-invalidated" in seen["after"][step]
    for step in ("S0", "S1", "S2"):
        assert "status-invalidated" not in seen["after"][step]
    assert "S3" in seen["fault_status"] and "voided" in seen["fault_status"]
    shot = ui.screenshot(pg.locator(".jp-NotebookPanel"), "notebook7-explorer")
    assert shot.stat().st_size > 10_000
    assert not [e for e in pg.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
                .all_inner_texts() if "Traceback" in e or "Error" in e]
