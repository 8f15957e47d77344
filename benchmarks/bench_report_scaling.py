"""The HTML report on big inputs: an OpenTelemetry trace of 1k / 10k / 100k spans, and the two-run report of
100- and 1,000-step plans. The report's cost must grow linearly with the run's events (the bad-input issue
measured 184 s for 100k spans and 110 s for the two-run report of 1,000-step plans: the two-run report drew
every frame, and a focused picture's group nodes and the timeline were quadratic).

Figures: seconds of ``report_html`` alone (the trace loaded beforehand, a freshly loaded run each time, so every
build works out the run's hindsight, which is then kept per run; its share is printed beside), microseconds per
event, and the scaling exponent between sizes (1 = linear). CPU time (process_time), best of three runs at
every size, all three shown for the largest (one run of the 100k case varies by about 20% on a shared 2-core
VM; it was one run, for time); set ``PLANVIZ_BENCH_REPORT_UP_TO`` to stop earlier (the 100k case takes two or
three minutes). Goals (issue 28's "linear"): the time exponent against events between the two largest sizes
at most 1.15, for the OTel trace and for the two-run report; issue 43's: the report of the largest OTel trace
(the synthetic ReAct trace, tests/runs/otlp.react_trace) at most half the trace file's size, built within 5 s.

Run: ``.venv/bin/python benchmarks/bench_report_scaling.py`` (or ``make bench``).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_traces import make_trace  # noqa: E402
from common import best, exponent, figure, show_exponent, timings  # noqa: E402

from planviz import Fault, Plan, Step, hindsight, load_trace, report_html, simulate  # noqa: E402

UP_TO = int(os.environ.get("PLANVIZ_BENCH_REPORT_UP_TO", "100000"))
LINEAR = 1.15  # issue 28: "linear" is a time exponent of at most 1.15 between the two largest sizes
# issue 43: a report at most half its trace's size, built within 5 s
SIZE_RATIO, BUILD_SECONDS = (
    0.5,
    5.0,
)


def timed(fn, repeats: int, fresh=None) -> float:
    """The least CPU seconds of ``fn()`` (``fn(fresh())`` with ``fresh``) over ``repeats`` runs
    (:func:`common.best`)."""
    if fresh is None:
        return best({"fn": lambda _: fn()}, repeats)["fn"]
    return best({"fn": fn}, repeats, fresh)["fn"]


def layered(n: int, width: int = 10) -> Plan:
    return Plan(
        "g",
        [
            Step(
                f"S{i}",
                f"do {i}",
                expected_evidence="ok",
                duration=1 + i % 5,
                produces=[f"f{i}"],
                depends_on=[f"S{i - width - k}" for k in range(2) if i - width - k >= 0],
                requires=[f"f{i - width - k}" for k in range(2) if i - width - k >= 0],
            )
            for i in range(n)
        ],
    )


def linear(what: str, rows: list[dict], size: str) -> dict | None:
    """The figure of the time exponent between the two largest sizes measured (None with fewer than two)."""
    if len(rows) < 2:
        return None
    a, b = rows[-2:]
    k = exponent([a["events"], b["events"]], [a["seconds"], b["seconds"]])[1]
    return figure(
        f"{what} {a[size]:,} -> {b[size]:,} {size}, time exponent vs events",
        float("nan") if k is None else k,
        at_most=LINEAR,
        unit="",
        detail=f"{a['seconds']:.2f} s -> {b['seconds']:.2f} s CPU, {a['events']:,} -> {b['events']:,} events",
    )


def main() -> dict:
    out: dict = {"otel": [], "pair": []}
    otel_s: list[float] = []
    pair_s: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "r.html"
        previous = None
        for n in (1_000, 10_000, 100_000):
            if n > UP_TO:
                break
            trace = Path(tmp) / f"spans_{n}.json"
            trace.write_text(json.dumps(make_trace(n)), encoding="utf-8")
            run = load_trace(trace)
            # the first round reads the run loaded here, each other one a new load of the trace
            loaded = iter([run])
            runs = timings(
                {"fn": lambda r: report_html(r, page)},
                3,
                lambda: next(loaded, None) or load_trace(trace),
            )["fn"]
            seconds = min(runs)
            why = timed(hindsight, 1, fresh=lambda: load_trace(trace))
            otel_s.append(seconds)
            events = len(run.events)
            row = {
                "spans": n,
                "events": events,
                "seconds": round(seconds, 2),
                "us_per_event": round(1e6 * seconds / events, 1),
                "mb": round(page.stat().st_size / 1e6, 2),
                "trace_mb": round(trace.stat().st_size / 1e6, 2),
                "size_ratio": round(page.stat().st_size / trace.stat().st_size, 3),
                "hindsight_s": round(why, 2),
                "runs": [round(t, 2) for t in runs],
            }
            row["exponent"] = show_exponent(
                exponent([previous[0], events], [previous[1], seconds])[1] if previous else None
            )
            previous = (events, seconds)
            out["otel"].append(row)
            print(
                f"report of {n:>7,} OTel spans ({events:,} events): {seconds:7.2f} s, {row['us_per_event']} µs per "
                f"event (hindsight {row['hindsight_s']} s of it), {row['mb']} MB ({row['size_ratio']} of the "
                f"{row['trace_mb']} MB trace), exponent {row['exponent']}",
                flush=True,
            )
        previous = None
        for n in (100, 1_000):
            plan = layered(n)
            a = simulate(plan)
            b = simulate(
                plan, faults=[Fault(f"S{n // 2}", "tool_error", times=3)], strategy="workflow"
            )
            seconds = timed(lambda: report_html([a, b], page), 2)
            pair_s.append(seconds)
            events = len(a.events) + len(b.events)
            row = {
                "steps": n,
                "events": events,
                "seconds": round(seconds, 2),
                "mb": round(page.stat().st_size / 1e6, 2),
            }
            row["exponent"] = show_exponent(
                exponent([previous[0], events], [previous[1], seconds])[1] if previous else None
            )
            previous = (events, seconds)
            out["pair"].append(row)
            print(
                f"two-run report of {n:>5,}-step plans ({events:,} events): {seconds:6.2f} s, {row['mb']} MB, "
                f"exponent {row['exponent']} (was 110 s at 1,000 steps)",
                flush=True,
            )
    # the exponents from the unrounded seconds: the rows keep two decimals for the table
    otel = [{**r, "seconds": s} for r, s in zip(out["otel"], otel_s)]
    pair = [{**r, "seconds": s} for r, s in zip(out["pair"], pair_s)]
    figures = [
        linear("`report_html` OTel", otel, "spans"),
        linear("two-run `report_html([a, b])`", pair, "steps"),
    ]
    if otel:  # issue 43: the report of the largest trace at most half its size, built within 5 s
        top = otel[-1]
        figures += [
            figure(
                f"report / trace size, {top['spans']:,} OTel spans",
                top["size_ratio"],
                at_most=SIZE_RATIO,
                detail=f"{top['mb']} MB report, {top['trace_mb']} MB trace",
            ),
            figure(
                f"`report_html` of {top['spans']:,} OTel spans",
                top["seconds"],
                at_most=BUILD_SECONDS,
                unit=" s",
                detail=f"CPU seconds, best of {', '.join(map(str, top['runs']))} s, the trace loaded "
                "beforehand",
            ),
        ]
    return {"figures": [f for f in figures if f is not None], **out}


if __name__ == "__main__":
    main()
