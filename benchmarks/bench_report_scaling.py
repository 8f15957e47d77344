"""The HTML report on big inputs: an OpenTelemetry trace of 1k / 10k / 100k spans, and the two-run report of
100- and 1,000-step plans. The report's cost must grow linearly with the run's events (the bad-input issue
measured 184 s for 100k spans and 110 s for the two-run report of 1,000-step plans: the two-run report drew
every frame, and a focused picture's group nodes and the timeline were quadratic).

Figures: seconds of ``report_html`` alone (the trace loaded beforehand), microseconds per event, and the scaling
exponent between sizes (1 = linear). CPU time (process_time), best of a few runs at the small sizes; set
``PLANVIZ_BENCH_REPORT_UP_TO`` to stop earlier (the 100k case takes a minute or two).

Run: ``.venv/bin/python benchmarks/bench_report_scaling.py`` (or ``make bench``).
"""

from __future__ import annotations

import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from planviz import Fault, Plan, Step, load_trace, report_html, simulate  # noqa: E402

from bench_traces import make_trace  # noqa: E402

UP_TO = int(os.environ.get("PLANVIZ_BENCH_REPORT_UP_TO", "100000"))


def timed(fn, repeats: int) -> float:
    best = math.inf
    for _ in range(repeats):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def layered(n: int, width: int = 10) -> Plan:
    return Plan("g", [Step(f"S{i}", f"do {i}", expected_evidence="ok", duration=1 + i % 5, produces=[f"f{i}"],
                           depends_on=[f"S{i - width - k}" for k in range(2) if i - width - k >= 0],
                           requires=[f"f{i - width - k}" for k in range(2) if i - width - k >= 0])
                      for i in range(n)])


def exponent(a: tuple[int, float], b: tuple[int, float]) -> str:
    return f"{math.log(b[1] / a[1]) / math.log(b[0] / a[0]):.2f}" if a[1] > 0 and b[1] > 0 else "-"


def main() -> dict:
    out: dict = {"otel": [], "pair": []}
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "r.html"
        previous = None
        for n in (1_000, 10_000, 100_000):
            if n > UP_TO:
                break
            trace = Path(tmp) / f"spans_{n}.json"
            trace.write_text(json.dumps(make_trace(n)), encoding="utf-8")
            run = load_trace(trace)
            seconds = timed(lambda: report_html(run, page), 3 if n <= 10_000 else 1)
            events = len(run.events)
            row = {"spans": n, "events": events, "seconds": round(seconds, 2),
                   "us_per_event": round(1e6 * seconds / events, 1), "mb": round(page.stat().st_size / 1e6, 2)}
            row["exponent"] = exponent(previous, (events, seconds)) if previous else "-"
            previous = (events, seconds)
            out["otel"].append(row)
            print(f"report of {n:>7,} OTel spans ({events:,} events): {seconds:7.2f} s, {row['us_per_event']} µs per "
                  f"event, {row['mb']} MB, exponent {row['exponent']}", flush=True)
        previous = None
        for n in (100, 1_000):
            plan = layered(n)
            a = simulate(plan)
            b = simulate(plan, faults=[Fault(f"S{n // 2}", "tool_error", times=3)], strategy="workflow")
            seconds = timed(lambda: report_html([a, b], page), 2)
            events = len(a.events) + len(b.events)
            row = {"steps": n, "events": events, "seconds": round(seconds, 2), "mb": round(page.stat().st_size / 1e6, 2)}
            row["exponent"] = exponent(previous, (events, seconds)) if previous else "-"
            previous = (events, seconds)
            out["pair"].append(row)
            print(f"two-run report of {n:>5,}-step plans ({events:,} events): {seconds:6.2f} s, {row['mb']} MB, "
                  f"exponent {row['exponent']} (was 110 s at 1,000 steps)", flush=True)
    return out


if __name__ == "__main__":
    main()
