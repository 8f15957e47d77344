"""The explorer follows a live run in JupyterLab, in headless Chromium: spans posted to ``planviz.receive`` in
batches while the page is open, the steps on screen grow, a step whose span has not ended shows running, stepping
back holds while spans arrive, and the mode line says the run is final once the root span ended.

The truth is the spans this test posts (OTLP/JSON written here with tests/runs/otlp, never by planviz): which
tool calls each batch holds, which one has no end time, which span is the root.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request

import pytest

from ..runs.otlp import chat, span, tool
from .conftest import PICTURE, _free_port, node_classes, screenshot, write_notebook

pytestmark = pytest.mark.browser

ROOT_SPAN = 1


def _unended(span: dict) -> dict:
    """A span sent before it ended: no end time (OTLP's zero, left out)."""
    return {k: v for k, v in span.items() if k != "endTimeUnixNano"}


BATCHES = [  # what the agent reports, in the order an exporter would send it
    [chat(2, 0.0, 0.4), tool(3, "search", 0.4, 0.6, args={"q": "otlp"}, result="doc-42")],
    # reported before it ended: running
    [
        chat(4, 0.6, 1.0),
        tool(5, "fetch", 1.0, 1.3, args={"id": "doc-42"}, result="the text of doc-42"),
        _unended(tool(6, "summarize", 1.3, None, args={"doc": "doc-42"})),
    ],
    # the root span ended: the run is final
    [
        chat(7, 1.5, 1.9),
        tool(8, "write", 1.9, 2.1, args={"path": "notes.md"}, result="ok"),
        # sent again, ended: it replaces
        tool(6, "summarize", 1.3, 1.45, args={"doc": "doc-42"}, result="a summary"),
        span(
            ROOT_SPAN,
            "invoke_agent researcher",
            0.0,
            2.2,
            None,
            gen_ai__operation__name="invoke_agent",
            gen_ai__agent__name="researcher",
        ),
    ],
]


def _tools(batch) -> list[str]:
    return [
        a["value"]["stringValue"]
        for s in batch
        for a in s["attributes"]
        if a["key"] == "gen_ai.tool.name"
    ]


def _post(port: int, spans: list) -> int:
    body = json.dumps(
        {
            "resourceSpans": [
                {
                    "resource": {"attributes": []},
                    "scopeSpans": [{"scope": {"name": "agent"}, "spans": spans}],
                }
            ]
        }
    ).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/traces",
        data=body,
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.status


def _post_when_listening(port: int, spans: list, timeout: float = 120.0) -> int:
    """The kernel starts the receiver when its cell runs: post once it listens."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return _post(port, spans)
        except (urllib.error.URLError, ConnectionError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.25)


def _steps(pg) -> set[str]:
    return set(node_classes(pg))


def _wait_steps(pg, expected: set[str], timeout: float = 60_000) -> None:
    pg.wait_for_function(
        "([root, ids]) => { const got = [...document.querySelectorAll(root + ' svg g.node:not(.legend)')]"
        ".map(g => g.getAttribute('data-step') || (g.querySelector('title') || {}).textContent);"
        " return ids.every(id => got.includes(id)); }",
        arg=[PICTURE, sorted(expected)],
        timeout=timeout,
    )


def test_the_explorer_grows_while_spans_arrive_and_says_when_the_run_is_final(
    jupyterlab, lab_dir, page
):
    port = _free_port()
    write_notebook(
        lab_dir / "nb",
        "live.ipynb",
        f"import planviz\nrx = planviz.receive(port={port})",
        "explorer = planviz.explore(rx)\nexplorer",
    )
    pg = page.page
    pg.goto(f"{jupyterlab.url}/lab/tree/live.ipynb?reset&token={jupyterlab.token}")
    pg.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=90_000)
    pg.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    pg.locator(".lm-Menu-item[data-command='runmenu:run-all']").click()

    # batch 1: one tool call; the explorer opens on it, saying the run is still receiving spans
    assert _post_when_listening(port, BATCHES[0]) == 200
    _wait_steps(pg, set(_tools(BATCHES[0])))
    mode = pg.locator(".pv-mode").first
    assert mode.inner_text().startswith("live run, receiving spans")
    first = _steps(pg)
    assert first == set(_tools(BATCHES[0]))

    # batch 2: two more tool calls, the last one not ended: the picture grows, that step shows running
    posted = time.perf_counter()
    assert _post(port, BATCHES[1]) == 200
    _wait_steps(pg, set(_tools(BATCHES[0] + BATCHES[1])))
    # a figure for the record (benchmarks/bench_live.py), not asserted
    on_screen = [time.perf_counter() - posted]
    second = node_classes(pg)
    assert set(second) == set(_tools(BATCHES[0] + BATCHES[1])) and len(second) > len(first)
    assert re.search(r"\bstatus-running\b", second["summarize"]), second
    assert not any(re.search(r"\bstatus-running\b", second[s]) for s in ("search", "fetch")), second
    assert "receiving spans" in mode.inner_text()
    # the root span has not arrived: its children's parent is expected, not reported, until the run is final
    assert "missing_parent" not in pg.evaluate(
        "() => document.querySelector('.jp-NotebookPanel').textContent"
    )
    screenshot(pg.locator(".jp-NotebookPanel"), "live-explorer-running")

    # step back while it runs: to the event where fetch started, fetch is the one running there
    caption = pg.locator(".pv-caption").first
    while "start fetch" not in caption.inner_text():
        before = caption.inner_text()
        pg.locator("button.planviz-back").click()
        pg.wait_for_function(
            "(old) => document.querySelector('.pv-caption').innerText !== old", arg=before
        )
    held = caption.inner_text()
    assert re.search(r"\bstatus-running\b", node_classes(pg)["fetch"])

    # batch 3: the last tool call and the root span: the picture grows, the frame stepped back to stays, final
    posted = time.perf_counter()
    assert _post(port, BATCHES[2]) == 200
    _wait_steps(pg, set(_tools(BATCHES[0] + BATCHES[1] + BATCHES[2])))
    on_screen.append(time.perf_counter() - posted)
    print("posted to on screen:", ", ".join(f"{t:.2f} s" for t in on_screen))
    pg.wait_for_function(
        "() => /live run, final \\(root span ended\\)/.test("
        "document.querySelector('.pv-mode').textContent)",
        timeout=30_000,
    )
    # "Event 3 of 5: start fetch..." is now "Event 3 of 7: start fetch...": held
    now = caption.inner_text()
    assert (now.split(" of ")[0], now.split(":", 1)[1]) == (
        held.split(" of ")[0],
        held.split(":", 1)[1],
    ), (held, now)
    assert re.search(r"\bstatus-running\b", node_classes(pg)["fetch"])
    assert set(node_classes(pg)) == set(_tools(BATCHES[0] + BATCHES[1] + BATCHES[2]))
    assert "missing_parent" not in pg.evaluate(
        "() => document.querySelector('.jp-NotebookPanel').textContent"
    )
    pg.locator("button.planviz-last").click()
    pg.wait_for_function(
        "() => /Event (\\d+) of \\1\\b/.test(document.querySelector('.pv-caption').innerText)"
    )
    last = node_classes(pg)
    assert re.search(r"\bstatus-done\b", last["write"]), last
    # its ended copy replaced the running one
    assert re.search(r"\bstatus-done\b", last["summarize"]), last
    shot = screenshot(pg.locator(".jp-NotebookPanel"), "live-explorer-final")
    assert shot.stat().st_size > 10_000
