"""Big runs in the browser (issue 43): how fast the HTML report of a synthetic ReAct trace
(tests/runs/otlp.react_trace, one model call and one tool call per turn) of 1k, 10k and 100k spans opens and steps
in Chromium.

For each size: the trace file's size, ``load_trace`` and ``report_html`` times and the report's size (printed; their
figures with goals are bench_traces' and bench_report_scaling's); then the report opened from disk in headless
Chromium (/usr/bin/chromium through playwright, network blocked), twice, the faster kept: the time from ``goto`` to
the run drawn (a picture node and a row of the event log in the DOM), with the page's own marks beside it (HTML
parsed, data decoded: ``planviz-data``, drawn: ``planviz-drawn``) and the load event; the elements in the DOM and
the event log's row elements; then one step forward, timed from the click to the end of the style and layout it
causes (the picture following the step, the virtual log's rows, the caption), over 200 steps from the middle of the
run once the page is idle, with the event log shown, again with the canvas timeline shown and with the facts held
shown (a virtual list too); and 20 jumps across the run (the slider). Goals (issue 43): the page opens within 5 s
and a step takes at most one frame (16 ms) at p95. The load average is printed beside each figure (2 shared cores: a
loaded machine doubles these times). A screenshot of each page after its steps goes to
out/screenshots/bench_browser_<spans>.png.

Without Chromium or playwright the browser part is skipped, said so. ``PLANVIZ_BENCH_BROWSER_UP_TO`` stops earlier
(the 100k case builds its report in half a minute to a minute). Run: ``.venv/bin/python benchmarks/bench_browser.py
[SPANS...]`` (default 1000 10000 100000), or ``make bench``.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from common import figure  # noqa: E402

from planviz import load_trace, report_html  # noqa: E402
from tests.runs.otlp import react_trace  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SIZES = (1_000, 10_000, 100_000)
UP_TO = int(os.environ.get("PLANVIZ_BENCH_BROWSER_UP_TO", "100000"))
OPEN_S, FRAME_MS, STEPS, JUMPS, OPENS = 5.0, 16.0, 200, 20, 2
SHOTS = ROOT / "out" / "screenshots"

STEP_JS = """(n) => {
  const next = document.querySelector('#planviz-app button.planviz-forward');
  const caption = document.querySelector('#planviz-app .pv-caption');
  const times = [];
  for (let k = 0; k < n; k++) {
    const t = performance.now();
    next.click();
    caption.getBoundingClientRect();  // style and layout of what the step changed
    document.querySelector('#planviz-app .planviz-diagram').getBoundingClientRect();
    document.querySelector('#planviz-app .pv-tabbox').getBoundingClientRect();
    times.push(performance.now() - t);
  }
  return times;
}"""

JUMP_JS = """(n) => {
  const slider = document.querySelector('#planviz-app .planviz-slider'), out = [], max = Number(slider.max);
  for (let k = 0; k < n; k++) {
    const to = Math.floor(((k * 7919) % n) / n * max);
    const t = performance.now();
    slider.value = String(to);
    slider.dispatchEvent(new Event('input'));
    document.querySelector('#planviz-app .pv-caption').getBoundingClientRect();
    document.querySelector('#planviz-app .pv-tabbox').getBoundingClientRect();
    out.push(performance.now() - t);
  }
  return out;
}"""

GOTO_JS = """(i) => { const s = document.querySelector('#planviz-app .planviz-slider'); s.value = String(i);
  s.dispatchEvent(new Event('input')); document.body.getBoundingClientRect(); }"""

# the page settled: what the opening left to do (the collector's work on the decoded data) done before the steps
IDLE_JS = "() => new Promise((done) => requestIdleCallback(() => done(), {timeout: 3000}))"

COUNT_JS = """() => [document.querySelectorAll('*').length,
  document.querySelectorAll('#planviz-app .pv-panel-log tr[data-i]').length]"""

# the page's own clock, from the navigation's start: HTML parsed, data decoded, run drawn, load event (ms)
MARKS_JS = """() => {
  const nav = performance.getEntriesByType('navigation')[0] || {};
  const mark = (name) => { const m = performance.getEntriesByName(name)[0]; return m ? m.startTime : null; };
  return {parsed: nav.domInteractive, data: mark('planviz-data'), drawn: mark('planviz-drawn'),
          load: nav.loadEventEnd};
}"""


def _stats(times: list[float]) -> dict:
    ordered = sorted(times)
    return {
        "median": statistics.median(ordered),
        "p95": ordered[int(0.95 * (len(ordered) - 1))],
        "max": ordered[-1],
    }


def _context(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.route(
        "**/*",
        lambda r: (
            r.continue_() if r.request.url.startswith(("file:", "data:", "about:")) else r.abort()
        ),
    )
    return context


def _open(browser, page_path: Path) -> tuple:
    """One opening of the page in a fresh context: (its page, seconds to drawn, the page's marks)."""
    context = _context(browser)
    pg = context.new_page()
    pg.set_default_timeout(600_000)
    began = time.perf_counter()
    pg.goto(page_path.as_uri(), wait_until="commit")
    pg.wait_for_function(
        """() => document.querySelector('#planviz-app .pv-version:not([hidden]) svg g.node')
                 && document.querySelector('#planviz-app .pv-panel-log tr[data-i]')""",
        polling=10,
    )
    drawn = time.perf_counter() - began
    pg.wait_for_load_state("load")
    return pg, drawn, pg.evaluate(MARKS_JS)


def _browser(page_path: Path, out: dict) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        opened = []
        for _ in range(OPENS):
            pg, drawn, marks = _open(browser, page_path)
            opened.append((drawn, marks))
            if len(opened) < OPENS:
                pg.context.close()
        out["opens_s"] = [round(d, 2) for d, _ in opened]
        out["open_s"], out["marks"] = min(opened, key=lambda x: x[0])
        out["dom_elements"], out["log_rows"] = pg.evaluate(COUNT_JS)
        middle = out["events"] // 2
        pg.evaluate(GOTO_JS, middle)
        pg.evaluate(IDLE_JS)
        out["step_log"] = _stats(pg.evaluate(STEP_JS, STEPS))
        pg.locator("#planviz-app .pv-tab[data-tab='timeline']").click()
        began = time.perf_counter()
        pg.evaluate(
            "() => document.querySelector('#planviz-app canvas.planviz-lanes').getBoundingClientRect()"
        )
        out["timeline_first_s"] = time.perf_counter() - began
        pg.evaluate(GOTO_JS, middle)
        pg.evaluate(IDLE_JS)
        out["step_timeline"] = _stats(pg.evaluate(STEP_JS, STEPS))
        pg.locator("#planviz-app .pv-tab[data-tab='facts']").click()
        pg.evaluate(GOTO_JS, middle)
        pg.evaluate(IDLE_JS)
        out["step_facts"] = _stats(pg.evaluate(STEP_JS, STEPS))
        pg.locator("#planviz-app .pv-tab[data-tab='log']").click()
        out["jump"] = _stats(pg.evaluate(JUMP_JS, JUMPS))
        out["dom_elements_after"], out["log_rows_after"] = pg.evaluate(COUNT_JS)
        pg.evaluate(GOTO_JS, middle + 7)
        SHOTS.mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(SHOTS / f"bench_browser_{out['spans']}.png"))
        browser.close()


def one(spans: int, tmp: Path, browser: bool) -> dict:
    out: dict = {"spans": spans}
    trace = tmp / f"react{spans}.json"
    trace.write_text(json.dumps(react_trace(spans)), encoding="utf-8")
    out["trace_mb"] = trace.stat().st_size / 1e6
    began = time.perf_counter()
    run = load_trace(trace)
    out["load_trace_s"] = time.perf_counter() - began
    out["events"] = len(run.events)
    began = time.perf_counter()
    page = report_html(run, tmp / f"react{spans}.html")
    out["report_s"] = time.perf_counter() - began
    out["report_mb"] = page.stat().st_size / 1e6
    del run
    if browser:
        _browser(page, out)
    return out


def _available() -> str:
    """Why the browser part cannot run here ('' when it can)."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is not installed"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[test]')"
    return ""


def _seconds(ms: float | None) -> str:
    return "-" if ms is None else f"{ms / 1000:.2f} s"


def report(r: dict) -> list[dict]:
    """Print one size's figures; the figures with goals."""
    m = r["marks"]
    print(
        f"  opens in {r['open_s']:.2f} s (openings: {r['opens_s']}); the page's clock: HTML parsed "
        f"{_seconds(m['parsed'])}, data decoded {_seconds(m['data'])}, drawn {_seconds(m['drawn'])}, load event "
        f"{_seconds(m['load'])}; DOM {r['dom_elements']:,} elements, {r['log_rows']} log rows (after the steps "
        f"and jumps: {r['dom_elements_after']:,}, {r['log_rows_after']}); timeline first drawn in "
        f"{r['timeline_first_s'] * 1000:.0f} ms"
    )
    for key, what in (
        ("step_log", "a step, event log shown"),
        ("step_timeline", "a step, timeline shown"),
        ("step_facts", "a step, facts held shown"),
        ("jump", "a jump across the run"),
    ):
        s = r[key]
        print(
            f"  {what:28} median {s['median']:6.2f} ms  p95 {s['p95']:6.2f} ms  max {s['max']:6.2f} ms"
        )
    spans = r["spans"]
    out = [
        figure(
            f"report of {spans:,} spans opens in Chromium",
            r["open_s"],
            at_most=OPEN_S,
            unit=" s",
            detail=(
                f"HTML parsed {_seconds(m['parsed'])}, data decoded {_seconds(m['data'])}, load event "
                f"{_seconds(m['load'])}; {r['report_mb']:.1f} MB page, {r['dom_elements']:,} DOM elements"
            ),
        )
    ]
    for key, shown in (
        ("step_log", "event log"),
        ("step_timeline", "timeline"),
        ("step_facts", "facts held"),
    ):
        out.append(
            figure(
                f"one step, {spans:,} spans, {shown} shown: p95",
                r[key]["p95"],
                at_most=FRAME_MS,
                unit=" ms",
                detail=f"median {r[key]['median']:.2f} ms, max {r[key]['max']:.1f} ms, {STEPS} steps",
            )
        )
    out.append(
        figure(
            f"a jump across {spans:,} spans (slider): p95",
            r["jump"]["p95"],
            unit=" ms",
            detail=f"median {r['jump']['median']:.1f} ms, {JUMPS} jumps",
        )
    )
    return out


def main(argv: list[str] | None = None) -> dict:
    """The figures of every size up to ``PLANVIZ_BENCH_BROWSER_UP_TO``, or of the sizes in ``argv``."""
    sizes = [int(a) for a in argv or ()] or [n for n in SIZES if n <= UP_TO]
    results: dict = {"figures": [], "sizes": []}
    missing = _available()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if missing:
        print(f"the browser part is skipped: {missing}")
    with tempfile.TemporaryDirectory() as folder:
        for spans in sizes:
            r = one(spans, Path(folder), not missing)
            results["sizes"].append(r)
            print(
                f"{spans:,} spans: trace {r['trace_mb']:.1f} MB, load_trace {r['load_trace_s']:.2f} s, report "
                f"{r['report_s']:.1f} s, {r['report_mb']:.1f} MB",
                flush=True,
            )
            if "open_s" in r:
                results["figures"] += report(r)
    return results


if __name__ == "__main__":
    main(sys.argv[1:])
