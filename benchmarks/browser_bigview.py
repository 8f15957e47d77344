"""Big runs in the browser (issue 43): how fast the HTML report of a synthetic ReAct trace (tests/runs/otlp.react_trace,
one model call and one tool call per turn) of 1k, 10k and 100k spans opens and steps in Chromium.

For each size: the trace file's size, ``load_trace`` and ``report_html`` times and the report's size; then the
report opened from disk in headless Chromium (/usr/bin/chromium, network blocked): the time from ``goto`` to the
first picture node in the DOM and to the load event, the elements in the DOM and the event log's row elements;
then one step forward, timed from the click to the end of the style and layout it causes (the picture following
the step, the virtual log's rows, the caption), over 200 steps from a point in the middle of the run, with the
event log shown and again with the canvas timeline shown; and 20 jumps across the run (slider). Targets: opens
within 5 s, a step within one frame (16 ms) at p95. Figures, never assertions: on a shared machine the load
average is printed beside them.

Not a ``bench_*.py`` (so ``make bench`` and the README's table leave it out until its figures join
benchmarks/figures.json). Run: ``.venv/bin/python benchmarks/browser_bigview.py [SPANS...]`` (default 1000 10000 100000; the 100k report
takes minutes to build on a loaded machine).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

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
OPEN_S, FRAME_MS, STEPS = 5.0, 16.0, 200

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

COUNT_JS = """() => [document.querySelectorAll('*').length,
  document.querySelectorAll('#planviz-app .pv-panel-log tr[data-i]').length]"""


def _stats(times: list[float]) -> dict:
    ordered = sorted(times)
    return {
        "median": statistics.median(ordered),
        "p95": ordered[int(0.95 * (len(ordered) - 1))],
        "max": ordered[-1],
    }


def _browser(page_path: Path, out: dict) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.route(
            "**/*",
            lambda r: (
                r.continue_()
                if r.request.url.startswith(("file:", "data:", "about:"))
                else r.abort()
            ),
        )
        pg = context.new_page()
        pg.set_default_timeout(600_000)
        began = time.perf_counter()
        pg.goto(page_path.as_uri(), wait_until="commit")
        pg.locator("#planviz-app .pv-version:not([hidden]) svg g.node").first.wait_for(
            state="attached"
        )
        out["open_s"] = time.perf_counter() - began
        pg.wait_for_load_state("load")
        out["load_event_s"] = time.perf_counter() - began
        out["dom_elements"], out["log_rows"] = pg.evaluate(COUNT_JS)
        middle = out["events"] // 2
        pg.evaluate(GOTO_JS, middle)
        out["step_log"] = _stats(pg.evaluate(STEP_JS, STEPS))
        pg.locator("#planviz-app .pv-tab[data-tab='timeline']").click()
        began = time.perf_counter()
        pg.evaluate(
            "() => document.querySelector('#planviz-app canvas.planviz-lanes').getBoundingClientRect()"
        )
        out["timeline_first_s"] = time.perf_counter() - began
        pg.evaluate(GOTO_JS, middle)
        out["step_timeline"] = _stats(pg.evaluate(STEP_JS, STEPS))
        pg.locator("#planviz-app .pv-tab[data-tab='log']").click()
        out["jump"] = _stats(pg.evaluate(JUMP_JS, 20))
        out["dom_elements_after"], out["log_rows_after"] = pg.evaluate(COUNT_JS)
        browser.close()


def one(spans: int, tmp: Path) -> dict:
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
    if CHROMIUM.exists():
        _browser(page, out)
    return out


def main(argv: list[str] | None = None) -> dict:
    sizes = [int(a) for a in (argv if argv is not None else sys.argv[1:])] or list(SIZES)
    results: dict = {"figures": [], "sizes": []}
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as folder:
        for spans in sizes:
            r = one(spans, Path(folder))
            results["sizes"].append(r)
            print(
                f"{spans:,} spans: trace {r['trace_mb']:.1f} MB, load_trace {r['load_trace_s']:.2f} s, report "
                f"{r['report_s']:.1f} s, {r['report_mb']:.1f} MB",
                flush=True,
            )
            if "open_s" not in r:
                continue
            print(
                f"  opens {r['open_s']:.2f} s (load event {r['load_event_s']:.2f} s); DOM {r['dom_elements']:,} "
                f"elements, {r['log_rows']} log rows (after the steps and jumps: {r['dom_elements_after']:,}, "
                f"{r['log_rows_after']}); timeline first drawn in {r['timeline_first_s'] * 1000:.0f} ms"
            )
            for key, what in (
                ("step_log", "a step, event log shown"),
                ("step_timeline", "a step, timeline shown"),
                ("jump", "a jump across the run"),
            ):
                s = r[key]
                print(
                    f"  {what:28} median {s['median']:6.2f} ms  p95 {s['p95']:6.2f} ms  max {s['max']:6.2f} ms"
                )
            results["figures"].append(
                figure(
                    f"report of {spans:,} spans opens in Chromium",
                    r["open_s"],
                    at_most=OPEN_S,
                    unit=" s",
                    detail=f"load event {r['load_event_s']:.1f} s",
                )
            )
            for key in ("step_log", "step_timeline"):
                results["figures"].append(
                    figure(
                        f"one step, {spans:,} spans, {key.split('_')[1]} shown: p95",
                        r[key]["p95"],
                        at_most=FRAME_MS,
                        unit=" ms",
                        detail=f"median {r[key]['median']:.2f} ms, max {r[key]['max']:.1f} ms",
                    )
                )
    return results


if __name__ == "__main__":
    main()
