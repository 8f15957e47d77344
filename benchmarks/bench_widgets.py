"""Stepping the explorer vs laying the plan out again, on a 300-step plan (goal: step <= 0.25x layout).

A step of the explorer draws the next frame from the layout render cached for
the plan version and updates only the widgets whose text changed; a full
layout is what every step would cost without that cache. Also times the
offline HTML report (which draws every frame) on a smaller plan.

The repeated figures are medians of CPU time (``common.timings``): everything
here runs in this process (the 300-step layout is estimated under
``pictures.budget.IN_PROCESS_SECONDS``, so it is not sent to a child).
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from pathlib import Path

from common import figure, timings

from planviz import Plan, Step, explore, render, report_html

STEPS, WIDTH, REPORT_STEPS = 300, 12, 40
TARGET = 0.25  # one explorer step at most a quarter of a full layout


def make_plan(n: int = STEPS, width: int = WIDTH, seed: int = 6) -> Plan:
    """A layered plan: each step depends on one to three steps of the layer before and needs their facts."""
    rng = random.Random(seed)
    steps, layers = [], []
    for i in range(n):
        layer = i // width
        if layer == len(layers):
            layers.append([])
        deps = (
            rng.sample(layers[layer - 1], k=min(len(layers[layer - 1]), rng.randint(1, 3)))
            if layer
            else []
        )
        sid = f"S{i}"
        steps.append(
            Step(
                sid,
                f"step {i} of layer {layer}",
                expected_evidence=f"fact f{i} observed",
                depends_on=deps,
                requires=[f"f{d[1:]}" for d in deps],
                produces=[f"f{i}"],
                duration=float(rng.randint(1, 9)),
            )
        )
        layers[layer].append(sid)
    return Plan("benchmark: a 300-step layered plan", steps, time_unit="min")


def _time(fn, repeat: int) -> float:
    """The median CPU seconds of ``fn()`` over ``repeat`` runs (:func:`common.timings`)."""
    return statistics.median(timings({"fn": lambda _: fn()}, repeat)["fn"])


def main() -> dict:
    plan = make_plan()
    counter = iter(range(10**6))
    # a fresh plan value each time, so nothing can come from a cache: a full layout
    layout = _time(lambda: render(plan.replace(goal=f"{plan.goal} #{next(counter)}")).svg, 3)

    t = time.perf_counter()
    ex = explore(plan)
    opened = time.perf_counter() - t
    n = len(ex.run.events)
    positions = iter(range(1, n))
    step = _time(lambda: setattr(ex, "index", next(positions)), 12)
    frames = iter(range(20, n))
    frame = _time(lambda: render(plan, run=ex.run, at=next(frames)), 5)
    for i in range(40, 60):
        ex._frame(i)  # drawn in advance: what is left is the explorer's own cost
    warm = iter(range(40, 60))
    overhead = _time(lambda: setattr(ex, "index", next(warm)), 20)

    small = make_plan(REPORT_STEPS, width=6)
    small_run = explore(small).run
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        out = report_html(small_run, Path(tmp) / "run.html")
        report = time.perf_counter() - t
        size = out.stat().st_size

    ratio = step / layout
    rows = [
        ("full layout + draw (s)", f"{layout:.4f}"),
        ("explore() open (s)", f"{opened:.3f}"),
        ("events in the run", str(n)),
        ("render of one frame (s)", f"{frame:.4f}"),
        ("one explorer step (s, median)", f"{step:.4f}"),
        ("step / full layout", f"{ratio:.3f}  (goal <= 0.25)"),
        ("explorer's own cost per step (s)", f"{overhead:.4f}"),
        (
            f"report_html, {REPORT_STEPS} steps / {len(small_run.events)} events (s)",
            f"{report:.2f}",
        ),
        ("report size (KiB)", f"{size / 1024:.0f}"),
    ]
    width = max(len(k) for k, _ in rows)
    print(f"explorer on a {STEPS}-step plan")
    for k, v in rows:
        print(f"  {k:<{width}}  {v}")
    fig = figure(
        f"one explorer step, {STEPS}-step plan ({n} events) / a full layout",
        ratio,
        at_most=TARGET,
        detail=f"{step * 1e3:.1f} ms / {layout:.3f} s CPU, medians; with the frames drawn in advance "
        f"{overhead * 1e3:.1f} ms",
    )
    return {
        "figures": [fig],
        "steps": STEPS,
        "events": n,
        "layout_s": layout,
        "open_s": opened,
        "frame_s": frame,
        "step_s": step,
        "overhead_s": overhead,
        "step_over_layout": ratio,
        "report_steps": REPORT_STEPS,
        "report_events": len(small_run.events),
        "report_s": report,
        "report_bytes": size,
    }


if __name__ == "__main__":
    main()
