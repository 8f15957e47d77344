"""How fast the front end (``planviz/frontends/explorer.js``) repaints a step, in Chromium, and how big the
explorer's static fallback page is.

A 1,000-step plan's run (about 2,000 events) opened as its offline page (the same module the widget runs,
against the page's local model): each step forward is timed from the click to the end of the style and layout
it causes (``getBoundingClientRect`` forces both), over the same 200 steps four times: the first pass visits
each frame for the first time (first-visit work shows there), the later passes again. Printed: the median and
p95 of the first pass and of the later ones, and of each step's best time over the later passes (what the
step itself costs, without the moments another process had the CPU: on a shared machine the p95 of single
timings measures the load as much as the page; the load average is printed with them); plus a jump across
the whole run and back. Target: a step under one frame (16 ms). The fallback page of a 300-step run (the
``text/html`` part of an explorer's output) should stay under 1 MB. Needs /usr/bin/chromium and playwright;
skipped without them.

What the p95 was (27 ms, median 1.3 ms): every 36 steps the event log's window of 40 rows was rebuilt, and an
automatic table layout measured every row again (2 to 11 ms on this machine); now the window slides by a row
per step over a fixed table layout, and a step touches only what changed (the legend, the caption, the hidden
picture versions are no longer rebuilt each step).

Run: ``.venv/bin/python benchmarks/bench_frontend.py`` (or ``make bench``).
"""

from __future__ import annotations

import os
import statistics
import tempfile
from pathlib import Path

from common import figure

from planviz import Plan, Step, simulate
from planviz.frontends.runpage import fallback_html, run_page
from planviz.frontends.snapshot import run_snapshot

CHROMIUM = Path("/usr/bin/chromium")
FRAME_MS, FALLBACK_BYTES = 16.0, 1_000_000

STEP_JS = """(n) => {
  const next = document.querySelector('#planviz-app button.planviz-forward');
  const caption = document.querySelector('#planviz-app .pv-caption');
  const times = [];
  for (let k = 0; k < n; k++) {
    const t = performance.now();
    next.click();
    caption.getBoundingClientRect();  // style and layout of what the step changed
    document.querySelector('#planviz-app .planviz-diagram').getBoundingClientRect();
    times.push(performance.now() - t);
  }
  return times;
}"""

HOME_JS = """() => {
  document.querySelector('#planviz-app button.planviz-first').click();
  document.body.getBoundingClientRect();
}"""

JUMP_JS = """() => {
  const slider = document.querySelector('#planviz-app .planviz-slider'), out = [];
  for (const to of [slider.max, 0]) {
    const t = performance.now();
    slider.value = String(to);
    slider.dispatchEvent(new Event('input'));
    document.querySelector('#planviz-app .planviz-diagram').getBoundingClientRect();
    out.push(performance.now() - t);
  }
  return out;
}"""


def lanes(n: int, width: int = 20) -> Plan:
    steps = [
        Step(
            f"S{i:04d}",
            f"step {i} of the work",
            expected_evidence="ok",
            depends_on=[f"S{i - width:04d}"] if i >= width else [],
            produces=[f"f{i}"],
        )
        for i in range(n)
    ]
    return Plan(f"{n} steps in {width} lanes", steps, time_unit="min")


def main() -> dict:
    out: dict = {"figures": []}
    fallback = fallback_html(run_snapshot(simulate(lanes(300)), legend=False))
    out["fallback_300_bytes"] = len(fallback.encode("utf-8"))
    print(
        f"fallback page of a 300-step run: {out['fallback_300_bytes'] / 1e6:.2f} MB "
        f"(target under {FALLBACK_BYTES / 1e6:.0f} MB)"
    )
    out["figures"].append(
        figure(
            "the explorer's static fallback page, 300-step run",
            out["fallback_300_bytes"] / 1e6,
            at_most=FALLBACK_BYTES / 1e6,
            unit=" MB",
            detail=f"{out['fallback_300_bytes']:,} bytes",
        )
    )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("playwright not installed: no browser figures")
        return out
    if not CHROMIUM.exists():
        print(f"{CHROMIUM} missing: no browser figures")
        return out
    run = simulate(lanes(1000))
    with tempfile.TemporaryDirectory() as tmp:
        page_path = Path(tmp) / "big.html"
        page_path.write_text(run_page(run_snapshot(run, legend=False)), encoding="utf-8")
        out["page_1000_bytes"] = os.path.getsize(page_path)
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox", "--disable-gpu"]
            )
            pg = browser.new_page(viewport={"width": 1400, "height": 1000})
            pg.goto(page_path.as_uri())
            pg.locator("#planviz-app .pv-version:not([hidden]) g.node").first.wait_for(
                state="attached"
            )
            passes = []
            for _ in range(4):  # the same 200 steps: first visits, then again
                pg.evaluate(HOME_JS)
                pg.wait_for_timeout(200)
                passes.append(pg.evaluate(STEP_JS, 200))
            jumps = pg.evaluate(JUMP_JS)
            browser.close()
    later = [t for one in passes[1:] for t in one]
    best = [min(times) for times in zip(*passes[1:])]
    out.update(
        {
            "events": len(run.events),
            "load": os.getloadavg()[0],
            "jump_ms": jumps,
            **_figures("first", passes[0]),
            **_figures("step", later),
            **_figures("best", best),
        }
    )
    print(
        f"1,000-step plan, {len(run.events)} events, page {out['page_1000_bytes'] / 1e6:.2f} MB; one step "
        f"(target under {FRAME_MS:.0f} ms, load average {out['load']:.1f} on {os.cpu_count()} cores):"
    )
    for key, what in (
        ("first", "first visit of each frame"),
        ("step", "frames seen before"),
        ("best", "each step's best of 3"),
    ):
        print(
            f"  {what:26} median {out[key + '_ms_median']:6.2f} ms   p95 {out[key + '_ms_p95']:6.2f} ms   "
            f"max {out[key + '_ms_max']:6.2f} ms   {'under' if out[key + '_ms_p95'] < FRAME_MS else 'OVER'} "
            "one frame at p95"
        )
    print(f"a jump across the run {jumps[0]:.0f} ms, back {jumps[1]:.0f} ms")
    for key, what in (("first", "first visit of each frame"), ("step", "frames seen before")):
        for stat in ("median", "p95"):
            out["figures"].append(
                figure(
                    f"one step in Chromium, 1,000-step run, {what}: {stat}",
                    out[f"{key}_ms_{stat}"],
                    at_most=FRAME_MS,
                    unit=" ms",
                    detail=f"max {out[key + '_ms_max']:.1f} ms; each step's best of 3: median "
                    f"{out['best_ms_median']:.2f} ms, p95 {out['best_ms_p95']:.2f} ms",
                )
            )
    return out


def _figures(key: str, times: list[float]) -> dict:
    ordered = sorted(times)
    return {
        f"{key}_ms_median": statistics.median(ordered),
        f"{key}_ms_p95": ordered[int(0.95 * len(ordered))],
        f"{key}_ms_max": ordered[-1],
    }


if __name__ == "__main__":
    main()
