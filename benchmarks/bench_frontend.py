"""How fast the front end (``planviz/frontends/explorer.js``) repaints a step, in Chromium, and how big the
explorer's static fallback page is.

A 1,000-step plan's run (about 2,000 events) opened as its offline page (the same module the widget runs,
against the page's local model): each step forward is timed from the click to the end of the style and layout
it causes (``getBoundingClientRect`` forces both), over 200 steps, plus a jump across the whole run and back.
Target: a step under one frame (16 ms). The fallback page of a 300-step run (the ``text/html`` part of an
explorer's output) should stay under 1 MB. Needs /usr/bin/chromium and playwright; skipped without them.

Run: ``.venv/bin/python benchmarks/bench_frontend.py`` (or ``make bench``).
"""

from __future__ import annotations

import os
import statistics
import tempfile
from pathlib import Path

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
    steps = [Step(f"S{i:04d}", f"step {i} of the work", expected_evidence="ok",
                  depends_on=[f"S{i - width:04d}"] if i >= width else [], produces=[f"f{i}"]) for i in range(n)]
    return Plan(f"{n} steps in {width} lanes", steps, time_unit="min")


def main() -> dict:
    out: dict = {}
    fallback = fallback_html(run_snapshot(simulate(lanes(300)), legend=False))
    out["fallback_300_bytes"] = len(fallback.encode("utf-8"))
    print(f"fallback page of a 300-step run: {out['fallback_300_bytes'] / 1e6:.2f} MB "
          f"(target under {FALLBACK_BYTES / 1e6:.0f} MB)")
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
            browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                        args=["--no-sandbox", "--disable-gpu"])
            pg = browser.new_page(viewport={"width": 1400, "height": 1000})
            pg.goto(page_path.as_uri())
            pg.locator("#planviz-app .pv-version:not([hidden]) g.node").first.wait_for(state="attached")
            pg.evaluate(STEP_JS, 5)  # warm up
            steps = pg.evaluate(STEP_JS, 200)
            jumps = pg.evaluate(JUMP_JS)
            browser.close()
    out.update({"events": len(run.events), "step_ms_median": statistics.median(steps),
                "step_ms_p95": sorted(steps)[int(0.95 * len(steps))], "step_ms_max": max(steps),
                "jump_ms": jumps})
    print(f"1,000-step plan, {len(run.events)} events, page {out['page_1000_bytes'] / 1e6:.2f} MB: one step "
          f"{out['step_ms_median']:.2f} ms median, {out['step_ms_p95']:.2f} ms p95, {out['step_ms_max']:.2f} ms max "
          f"(target under {FRAME_MS:.0f} ms); a jump across the run {jumps[0]:.0f} ms, back {jumps[1]:.0f} ms")
    return out


if __name__ == "__main__":
    main()
