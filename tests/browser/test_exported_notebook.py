"""A notebook with the explorer, executed, its widget state stripped, exported with nbconvert and opened from a
file with the network blocked: the explorer's static fallback (the offline page in a sandboxed iframe) still
steps the run. (That the report and the explorer load the same module file is checked without a browser, in
tests/frontends/test_htmlreport.py.)"""

from __future__ import annotations

import pytest

from .conftest import EXPLORE_CELL, ROOT

pytestmark = pytest.mark.browser


def _export(tmp_path):
    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(EXPLORE_CELL)]
    NotebookClient(nb, store_widget_state=True, timeout=180, resources={"metadata": {"path": str(ROOT)}}).execute()
    (output,) = [o for o in nb.cells[0].outputs if o.get("output_type") == "execute_result"]
    assert {"application/vnd.jupyter.widget-view+json", "text/html", "text/plain"} <= set(output["data"])
    nb.metadata.pop("widgets", None)  # no widget state: nothing can draw the widget view
    body, _ = HTMLExporter().from_notebook_node(nb)
    path = tmp_path / "exported.html"
    path.write_text(body, encoding="utf-8")
    return path


def test_an_exported_notebook_steps_offline(chromium, tmp_path):
    path = _export(tmp_path)
    context = chromium.new_context(viewport={"width": 1280, "height": 1000})
    asked = []

    def block(route):  # the network is off: only the file itself loads
        if route.request.url.startswith(("file:", "about:", "data:")):
            route.continue_()
        else:
            asked.append(route.request.url)
            route.abort()

    context.route("**/*", block)
    try:
        pg = context.new_page()
        errors = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(path.as_uri())
        frame = pg.frame_locator("iframe.planviz-fallback")
        caption = frame.locator("#planviz-app .pv-caption")
        caption.wait_for(timeout=30_000)
        assert caption.inner_text().startswith("Event 0 of 11: propose")
        frame.locator("button.planviz-forward").click()
        frame.locator("button.planviz-forward").click()
        assert caption.inner_text().startswith("Event 2 of 11: complete S0")
        lines = frame.locator("#planviz-app .pv-version:not([hidden]) svg text.event-line").all_text_contents()
        assert lines[0].startswith("event 2 of 11 ")  # the picture's own caption steps too
        shown = frame.locator("#planviz-app .pv-version:not([hidden]) g.node[data-step='S0']")
        assert "status-done" in shown.get_attribute("class")
        assert errors == []
        assert not [u for u in asked if "planviz" in u]  # the explorer asked for nothing (nbconvert's page may)
    finally:
        context.close()
