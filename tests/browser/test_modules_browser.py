"""The front end's ES modules (planviz/frontends/js) unit-tested one by one in headless Chromium.

A small harness page served on 127.0.0.1 (every other request refused: the network is off) imports the
modules as the separate files they are, natively, so their imports and exports are checked by the browser
itself, then the tests call their functions and compare with what Python computes from the same data: the
page-data decoder against the tests' own decoder (tests/frontends/pagedata.py) on every page kind, the event
log's row window and scroll, the lane chart's per-pixel summary on the lanes of real example traces, and the
attempts a step's details count against the run's events.
"""

from __future__ import annotations

import html
import json
import math
import re
import shutil
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files
from pathlib import Path

import pytest

from planviz import Fault, animate, examples, load_trace, report_html, simulate
from planviz.frontends.runpage import fallback_html
from planviz.frontends.snapshot import run_snapshot
from planviz.pictures.gantt import lane_columns

from ..frontends.pagedata import decode_page, named, packed_text

pytestmark = pytest.mark.browser

HARNESS = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>planviz modules</title><link rel="stylesheet" href="explorer.css"></head><body>
<script type="module">
import * as dom from './js/dom.js';
import * as pagedata from './js/pagedata.js';
import * as details from './js/details.js';
import * as eventlog from './js/eventlog.js';
import * as lanes from './js/lanes.js';
import * as runview from './js/runview.js';
import * as app from './js/app.js';
import explorer from './js/explorer.js';
window.M = {dom, pagedata, details, eventlog, lanes, runview, app, explorer};
</script>
</body></html>
"""


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # no request lines in the test output
        pass


@pytest.fixture(scope="module")
def harness(chromium, tmp_path_factory):
    """The harness page open in Chromium, served from a folder holding it, a copy of the modules and their style."""
    root = tmp_path_factory.mktemp("modules")
    (root / "js").mkdir()
    for module in (files("planviz.frontends") / "js").iterdir():
        if module.name.endswith(".js"):
            (root / "js" / module.name).write_text(
                module.read_text(encoding="utf-8"), encoding="utf-8"
            )
    (root / "index.html").write_text(HARNESS, encoding="utf-8")
    # the log's fixed row height and scroll box
    (root / "explorer.css").write_text(
        (files("planviz.frontends") / "explorer.css").read_text(encoding="utf-8"), encoding="utf-8"
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    origin = f"http://127.0.0.1:{server.server_address[1]}/"
    context = chromium.new_context(viewport={"width": 1000, "height": 800})
    asked, errors = [], []

    def block(route):  # the network is off: only the harness's own server answers
        if route.request.url.startswith(origin):
            route.continue_()
        else:
            asked.append(route.request.url)
            route.abort()

    context.route("**/*", block)
    pg = context.new_page()
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        pg.goto(origin + "index.html")
        pg.wait_for_function("() => window.M !== undefined", timeout=30_000)
        assert errors == [] and asked == []
        yield pg
        assert errors == [] and asked == []
    finally:
        context.close()
        server.shutdown()
        server.server_close()
        shutil.rmtree(root, ignore_errors=True)


def _normal(value):
    return json.loads(json.dumps(value))


def _page_kinds(tmp_path: Path) -> dict[str, str]:
    run = simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")])
    other = simulate(examples.load("cache_isolation"))
    srcdoc = re.search(r"srcdoc='([^']*)'", fallback_html(run_snapshot(run, legend=False)))[1]
    return {
        "run": report_html(run, tmp_path / "one.html").read_text(encoding="utf-8"),
        "two runs": report_html([run, other], tmp_path / "two.html").read_text(encoding="utf-8"),
        "flipbook": animate([run, other], tmp_path / "book.html").path.read_text(encoding="utf-8"),
        "widget fallback": html.unescape(srcdoc),
    }


def test_the_modules_load_as_separate_files_and_export_what_the_hosts_use(harness):
    exported = harness.evaluate(
        "() => Object.fromEntries(Object.entries(window.M).map(([k, m]) => [k, Object.keys(m).sort()]))"
    )
    assert exported["explorer"] == ["render"]
    assert {"decodePage", "decodeColumn", "decodeTable", "pageSnapshot"} <= set(
        exported["pagedata"]
    )
    assert {"rowWindow", "scrollFor", "VirtualLog"} <= set(exported["eventlog"])
    assert {"laneColumns", "tickStep", "LaneChart"} <= set(exported["lanes"])


def test_decode_page_reads_every_page_kind_as_the_tests_decoder_does(harness, tmp_path):
    for kind, page in _page_kinds(tmp_path).items():
        data = json.loads(packed_text(page))
        got = harness.evaluate("(data) => window.M.pagedata.decodePage(data)", data)
        assert got == _normal(decode_page(data)), kind
        # not an empty page: there were rows to decode
        assert got["pair" if "pair" in got else "log"], kind
    # no page data: as it is
    assert harness.evaluate("() => window.M.pagedata.decodePage({a: 1})") == {"a": 1}
    refused = harness.evaluate("""() => { try { window.M.pagedata.decodePage({format: 'planviz-page', version: 3,
                                  strings: [], page: {}}); return null; } catch (e) { return String(e.message); } }""")
    assert refused and "version 3" in refused


def test_a_recorded_runs_calls_arguments_and_texts_decode_to_what_python_encoded(harness, tmp_path):
    """A recorded ReAct run's page (version 2: its model calls and arguments as a table with a count per step, its
    messages and results inline): decodePage in Chromium gives back the run's snapshot, step details and log
    rows included."""
    from ..runs.otlp import react_trace

    trace = tmp_path / "t.json"
    trace.write_text(json.dumps(react_trace(300)), encoding="utf-8")
    run = load_trace(trace)
    data = json.loads(
        packed_text(report_html(run, tmp_path / "r.html").read_text(encoding="utf-8"))
    )
    cols = data["page"]["details"]["cols"]
    assert "table" in cols["calls"] and "table" in cols["arguments"]
    assert "text" in data["page"]["log"]["cols"]["message"] and "text" in cols["result"]
    got = harness.evaluate(
        "(data) => { const s = window.M.pagedata.decodePage(data); return [s.details, s.log, s.events]; }",
        data,
    )
    want = named(_normal(run_snapshot(run, legend=False)))
    assert got == [want["details"], want["log"], want["events"]]
    assert any(d["calls"] for d in got[0].values()) and any(d["arguments"] for d in got[0].values())


def test_a_column_of_each_kind_decodes_to_its_values(harness):
    strings = ["a", "b"]
    cases = [
        ({"str": [1, None, 0]}, ["b", None, "a"]),
        ({"int": [5, -2, 0]}, [5, 3, 3]),
        ({"num": [1500, None, -500], "scale": 1000}, [1.5, None, 1.0]),
        ({"strs": [0, 1, 1], "n": [2, 0, 1]}, [["a", "b"], [], ["b"]]),
        ({"ints": [3, 1, 7], "n": [2, 1]}, [[3, 4], [7]]),
        ({"json": [[1, "x"], None]}, [[1, "x"], None]),
        ({"text": ["x", None, "a"]}, ["x", None, "a"]),
        ({"texts": ["p", "q", "r"], "n": [0, 2, 1]}, [[], ["p", "q"], ["r"]]),
        (
            {
                "table": {
                    "@table": "records",
                    "rows": 3,
                    "cols": {"k": {"str": [0, 1, 0]}, "v": {"int": [1, 1], "absent": [1]}},
                },
                "n": [2, 0, 1],
            },
            [[{"k": "a", "v": 1}, {"k": "b"}], [], [{"k": "a", "v": 2}]],
        ),
    ]
    for column, values in cases:
        assert (
            harness.evaluate("([c, s]) => window.M.pagedata.decodeColumn(c, s)", [column, strings])
            == values
        ), column


def _window(top: int, height: int, n: int) -> tuple[int, int]:
    """The rows the log keeps in the DOM, from explorer.css's 20 px rows and 6 rows of overscan."""
    first = top // 20
    return max(0, first - 6), min(n, first + math.ceil(height / 20) + 6)


def test_the_virtual_logs_row_window_and_scroll(harness):
    grid = [
        (top, height, n)
        for n in (0, 1, 5, 12, 1000)
        for height in (0, 19, 240, 241)
        for top in (0, 7, 20, 400, 19990)
    ]
    got = harness.evaluate(
        "(grid) => grid.map(([t, h, n]) => window.M.eventlog.rowWindow(t, h, n))", grid
    )
    assert [tuple(w) for w in got] == [_window(*g) for g in grid]
    # following event i: the scroll stays while row i is on screen, else puts it fourth, within the range
    cases = [(i, shown, 240, 1000) for i in (0, 3, 11, 12, 500, 999) for shown in (0, 20, 9760)]
    got = harness.evaluate(
        "(cases) => cases.map(([i, s, h, n]) => window.M.eventlog.scrollFor(i, s, h, n))", cases
    )
    for (i, shown, height, n), top in zip(cases, got):
        if shown <= i * 20 and (i + 1) * 20 <= shown + height:
            assert top == shown, (i, shown)
        else:
            assert top == max(0, min((i - 3) * 20, n * 20 - height)), (i, shown)
            # row i is on screen after
            assert top <= i * 20 and (i + 1) * 20 <= top + height, (
                i,
                shown,
            )


def test_the_virtual_log_keeps_only_the_rows_on_screen(harness):
    rows = harness.evaluate("""() => {
      const log = Array.from({length: 1000}, (_, i) => ({time: String(i / 10), kind: 'start', step: 'S' + i,
                                                        message: 'row ' + i, attempt: 1, observed: [], calls: ''}));
      const picked = [];
      const v = new window.M.eventlog.VirtualLog({n: 1000, s: {log}}, (i) => picked.push(i));
      const box = document.createElement('div');
      box.className = 'planviz-explorer';  // where explorer.css puts the log's rules
      box.appendChild(v.el); document.body.appendChild(box);
      v.follow(500);
      const shown = [...v.body.rows].map((tr) => Number(tr.getAttribute('data-i')));
      const current = [...v.body.rows].filter((tr) => tr.classList.contains('pv-current'))
        .map((tr) => tr.cells[0].textContent);
      v.body.rows[2].cells[3].click();
      const texts = [...v.body.rows[0].cells].map((td) => td.textContent);
      const out = {shown, current, picked, texts, top: v.scroller.scrollTop, height: v.scroller.clientHeight};
      box.remove();
      return out;
    }""")
    height = rows["height"] or 240
    assert rows["top"] == (500 - 3) * 20  # the current row scrolled to the fourth place
    lo, hi = _window(rows["top"], height, 1000)
    # 1000 rows, a few dozen in the DOM
    assert rows["shown"] == list(range(lo, hi)) and len(rows["shown"]) < 40
    assert rows["current"] == ["\u25b6500"]
    assert rows["picked"] == [lo + 2]
    # its cells
    assert rows["texts"] == [
        str(lo),
        str(lo / 10).removesuffix(".0"),
        "start",
        f"S{lo}",
        f"row {lo}",
    ]


def _columns(lanes: dict, t0: float, scale: float, px: int) -> list[list[int]]:
    """Per lane and pixel column, the highest look code of the calls covering it (-1: none): a call covers the
    columns from its start's to its end's, at least one, within the chart."""
    out = [[-1] * px for _ in lanes["lanes"]]
    for lane, start, end, look in zip(lanes["lane"], lanes["start"], lanes["end"], lanes["look"]):
        x0 = min(px - 1, max(0, math.floor((start - t0) * scale)))
        x1 = min(px - 1, max(x0, math.floor((end - t0) * scale)))
        for x in range(x0, x1 + 1):
            out[lane][x] = max(out[lane][x], look)
    return out


def _lane_cases() -> list[tuple[str, dict]]:
    made = {
        "lanes": ["model: m", "tool: t"],
        "looks": ["model", "done", "failed"],
        "fills": [],
        "strokes": [],
        "now": "#000",
        "steps": ["S1"],
        "step": [0, 0, -1, 0],
        "lane": [0, 1, 1, 1],
        "start": [0.0, 0.0, 0.95, 5.0],
        "end": [0.5, 9.0, 1.0, 100.0],
        "look": [0, 1, 2, 1],
    }
    cases = [("made up", made)]
    folder = Path(str(files("planviz.examples") / "traces"))
    for trace in sorted(folder.glob("otel/*.json")):  # real agent traces shipped with planviz
        cases.append((trace.name, lane_columns(load_trace(trace))))
    return cases


def test_the_lane_charts_per_pixel_summary(harness):
    checked = 0
    for name, lanes in _lane_cases():
        assert lanes["start"], name
        t1 = max(lanes["end"])
        for px in (7, 100, 740):
            scale = px / t1
            got = harness.evaluate(
                "([L, s, px]) => window.M.lanes.laneColumns(L, 0, s, px).map((a) => Array.from(a))",
                [lanes, scale, px],
            )
            assert got == _columns(lanes, 0.0, scale, px), (name, px)
            checked += sum(code >= 0 for lane in got for code in lane)
    assert checked > 100


def test_the_time_axis_ticks(harness):
    spans = [0.5, 1, 7, 10, 12, 99, 1234.5]
    got = harness.evaluate("(spans) => spans.map((s) => window.M.lanes.tickStep(s))", spans)
    for span, tick in zip(spans, got):
        mantissa = tick / 10 ** math.floor(math.log10(tick))
        assert (
            round(mantissa, 9) in (1, 2, 5) and tick >= span / 10 and tick / 2.5 < span / 10 + 1e-12
        ), (span, tick)


def test_a_steps_attempts_as_its_details_count_them(harness):
    run = simulate(examples.load("cache_isolation"), faults=[Fault("S4", "transient", times=1)])
    snap = named(_normal(run_snapshot(run, legend=False)))  # the log as the page data names it
    last, counted = len(run.events) - 1, {}
    for sid in sorted({e.step for e in run.events if e.step}):
        expected = {}
        for e in run.events:
            if e.step != sid:
                continue
            if str(e.kind) == "start":
                expected[str(e.attempt)] = "running"
            elif e.attempt and str(e.kind) in ("complete", "fail", "invalidate"):
                expected[str(e.attempt)] = {
                    "complete": "done",
                    "fail": "failed",
                    "invalidate": "voided",
                }[str(e.kind)]
        got = harness.evaluate(
            "([log, sid, i]) => window.M.details.attemptsOf(log, sid, i)", [snap["log"], sid, last]
        )
        assert got == expected, sid
        counted[sid] = len(got)
    assert counted["S4"] == 2  # the case has a step tried twice (failed once, then done)
