"""A notebook with the explorer, executed, exported with nbconvert (with the widget state nbconvert saves by
default, without it, and with the classic template) and opened from a file with the network blocked: the widget
manager cannot load from its CDN, and the explorer's static fallback (the offline page in a sandboxed iframe, an
output of its own) still steps the run. Where the widget view is drawn, the fallback hides. (That the report and
the explorer load the same module file is checked without a browser, in tests/frontends/test_htmlreport.py.)"""

from __future__ import annotations

import copy

import pytest

from .conftest import EXPLORE_CELL, ROOT, SCREENSHOTS

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def executed():
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    nb.cells = [nbformat.v4.new_code_cell(EXPLORE_CELL)]
    NotebookClient(
        nb, store_widget_state=True, timeout=180, resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    return nb


def _export(nb, path, *, state: bool, template: str = "lab"):
    from nbconvert import HTMLExporter

    nb = copy.deepcopy(nb)
    if not state:
        nb.metadata.pop("widgets", None)  # no widget state: nbconvert shows the outputs' HTML
    body, _ = HTMLExporter(template_name=template).from_notebook_node(nb)
    path.write_text(body, encoding="utf-8")
    return path, body


def _offline_page(chromium):
    context = chromium.new_context(viewport={"width": 1280, "height": 1000})
    asked = []

    def block(route):  # the network is off: only the file itself loads
        if route.request.url.startswith(("file:", "about:", "data:")):
            route.continue_()
        else:
            asked.append(route.request.url)
            route.abort()

    context.route("**/*", block)
    return context, asked


def test_the_explorer_is_two_outputs_the_widget_view_then_its_fallback(executed):
    outputs = [o for o in executed.cells[0].outputs if o.get("output_type") != "stream"]
    assert [o["output_type"] for o in outputs] == ["display_data", "display_data"]
    view, fallback = (o["data"] for o in outputs)
    assert (
        "application/vnd.jupyter.widget-view+json" in view
        and "planviz-fallback" not in view["text/html"]
    )
    assert '<iframe class="planviz-fallback"' in fallback["text/html"]
    assert "application/vnd.jupyter.widget-view+json" not in fallback
    state = executed.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    key = state[view["application/vnd.jupyter.widget-view+json"]["model_id"]]["state"][
        "fallback_key"
    ]
    assert f'data-planviz-key="{key}"' in fallback["text/html"]


@pytest.mark.parametrize(
    ("state", "template"),
    [(True, "lab"), (False, "lab"), (True, "classic")],
    ids=["lab-with-widget-state", "lab-without-widget-state", "classic-with-widget-state"],
)
def test_an_exported_notebook_steps_offline(chromium, executed, tmp_path, state, template):
    path, body = _export(executed, tmp_path / "exported.html", state=state, template=template)
    assert (
        "embed-amd.js" in body
    ) == state  # with the state, the page asks a CDN for the widget manager
    context, asked = _offline_page(chromium)
    try:
        pg = context.new_page()
        errors = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(path.as_uri())
        assert pg.locator("iframe.planviz-fallback").count() == 1
        frame = pg.frame_locator("iframe.planviz-fallback")
        caption = frame.locator("#planviz-app .pv-caption")
        caption.wait_for(timeout=30_000)
        assert pg.locator("iframe.planviz-fallback").is_visible()
        assert caption.inner_text().startswith("Event 0 of 11: propose")
        frame.locator("button.planviz-forward").click()
        frame.locator("button.planviz-forward").click()
        assert caption.inner_text().startswith("Event 2 of 11: complete S0")
        lines = frame.locator(
            "#planviz-app .pv-version:not([hidden]) svg text.event-line"
        ).all_text_contents()
        assert lines[0].startswith("event 2 of 11 ")  # the picture's own caption steps too
        shown = frame.locator("#planviz-app .pv-version:not([hidden]) g.node[data-step='S0']")
        assert "status-done" in shown.get_attribute("class")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        pg.screenshot(
            path=str(SCREENSHOTS / f"exported-{template}-{'state' if state else 'nostate'}.png")
        )
        # the classic template loads jQuery and require.js from a CDN; its own scripts fail without them
        assert [e for e in errors if template != "classic" or e != "$ is not defined"] == []
        # the explorer asked for nothing (nbconvert's page may)
        assert not [u for u in asked if "planviz" in u]
    finally:
        context.close()


def test_the_fallback_hides_where_the_widget_view_was_drawn(chromium, executed, tmp_path):
    """What a live host (JupyterLab, Voila, an export whose widget manager loaded) does: explorer.js marks its
    element with the widget's key, and the fallback output of that widget hides; another widget's does not."""
    path, _ = _export(executed, tmp_path / "exported.html", state=True)
    state = executed.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    (key,) = [s["state"]["fallback_key"] for s in state.values() if s["state"].get("fallback_key")]
    context, _ = _offline_page(chromium)
    try:
        pg = context.new_page()
        pg.goto(path.as_uri())
        fallback = pg.locator("iframe.planviz-fallback")
        assert fallback.is_visible()
        pg.evaluate(
            """(key) => { const el = document.createElement('div'); el.className = 'planviz-explorer';
                        el.setAttribute('data-planviz-key', key); document.body.appendChild(el); }""",
            "another",
        )
        assert fallback.is_visible()
        pg.evaluate(
            """(key) => document.querySelector('.planviz-explorer').setAttribute('data-planviz-key', key)""",
            key,
        )
        assert not fallback.is_visible()
        child = pg.locator(".jp-OutputArea-child", has=pg.locator(".planviz-fallback-out"))
        assert child.count() == 1 and not child.is_visible()  # no empty output row left either
    finally:
        context.close()
