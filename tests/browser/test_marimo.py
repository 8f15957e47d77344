"""The explorer in marimo (``mo.ui.anywidget``), served on 127.0.0.1, in headless Chromium: step it, inject a
fault through its panel (the module asks the kernel, which answers with the new run)."""

from __future__ import annotations

import secrets
import sys

import pytest

from .conftest import _free_port, _start, _stop

pytestmark = pytest.mark.browser

APP = """import marimo

app = marimo.App()


@app.cell
def _():
    import marimo as mo
    import planviz

    explorer = mo.ui.anywidget(planviz.explore(planviz.examples.load("cache_isolation")))
    explorer
    return


if __name__ == "__main__":
    app.run()
"""


@pytest.fixture(scope="module")
def marimo_app(chromium, tmp_path_factory):
    tmp, token, port = tmp_path_factory.mktemp("marimo"), secrets.token_hex(16), _free_port()
    (tmp / "nb").mkdir()
    (tmp / "nb" / "app.py").write_text(APP, encoding="utf-8")
    command = [
        sys.executable,
        "-m",
        "marimo",
        "run",
        "app.py",
        "--headless",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--token-password",
        token,
    ]
    server = _start(command, tmp=tmp, token=token, port=port, status_path="/health")
    try:
        yield server
    finally:
        _stop(server.process)


CLASSES_JS = "els => Object.fromEntries(els.map(g => [g.dataset.step, g.getAttribute('class')]))"


def test_explorer_in_marimo(marimo_app, page, ui):
    """marimo draws a widget in a shadow root: locators (which pierce it) drive the explorer, not document queries."""
    pg = page.page
    pg.goto(f"{marimo_app.url}/?access_token={marimo_app.token}", timeout=120_000)
    nodes = pg.locator(".planviz-diagram .pv-version:not([hidden]) g.node[data-step]")
    nodes.first.wait_for(state="attached", timeout=120_000)
    caption = pg.locator(".pv-caption").first
    assert caption.inner_text().startswith("Event 0 of 11: propose")
    before = nodes.evaluate_all(CLASSES_JS)
    assert {"S0", "S1", "S2", "S3", "S4"} <= set(before)
    pg.locator("button.planviz-forward").first.click()
    assert caption.inner_text().startswith("Event 1 of 11: start S0")
    assert "status-running" in nodes.evaluate_all(CLASSES_JS)["S0"]
    pg.locator(".planviz-fault-step select").select_option("S4")
    pg.locator(".planviz-fault-kind select").select_option("side_effect")
    pg.locator(
        "button.planviz-fault-inject"
    ).click()  # the kernel re-simulates and sends the new run
    pg.locator(".planviz-fault-status", has_text="voided: S3, S4").wait_for(timeout=60_000)
    after = nodes.evaluate_all(CLASSES_JS)
    assert all("status-invalidated" in after[s] for s in ("S3", "S4")), after
    assert "S4:side_effect" in pg.locator(".pv-mode").first.inner_text()
    assert not any("status-invalidated" in after[s] for s in ("S0", "S1", "S2")), after
    shot = ui.screenshot(pg.locator(".planviz-explorer").first, "marimo-explorer")
    assert shot.stat().st_size > 10_000
    assert not [e for e in page.errors if "planviz" in e.lower()]
