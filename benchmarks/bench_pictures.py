"""Pictures of big plans: render at 300 / 1k / 2k steps, and how well the layout cost model predicts dot.

The floor of a picture is Graphviz ``dot`` laying out the graph drawn (CPU
time, measured in a child process); render's ratio to it is what planviz adds
(building the graph, the SVG template, the checks). Above 300 steps render
draws a focused view by default, so its cost stays flat while the plan grows;
the table also gives what laying out every step would cost (the model's
estimate, and the measured dot time at 300 steps). The second table checks
the cost model (benchmarks/fit_layout_cost.py fits it) on plans it was not
fitted on: estimate / measured, and the inverse when below 1. The goal:
each picture within render's default budget of 10 s (wall time, which the
budget is).

Run: ``.venv/bin/python benchmarks/bench_pictures.py`` (or ``make bench``).
"""

from __future__ import annotations

import math
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import shapes  # noqa: E402
from common import figure  # noqa: E402

from planviz import render  # noqa: E402
from planviz.pictures import drawing  # noqa: E402
from planviz.pictures.budget import estimate, view_features  # noqa: E402
from planviz.pictures.focus import plan_view  # noqa: E402

SIZES = (300, 1000, 2000)
BUDGET = 10.0  # seconds: render's default budget, the goal of every picture here
# shapes the model was not fitted on (other seeds and sizes)
CHECKS = [
    ("layered-400 (seed 11)", lambda: shapes.layered(400, seed=11), {}),
    ("layered-wide-600", lambda: shapes.layered(600, 20, seed=5), {}),
    ("far-back-3-120", lambda: shapes.far_back(120, 3, seed=9), {}),
    ("dense-22", lambda: shapes.dense(22), {}),
    ("chain-4000", lambda: shapes.chain(4000), {}),
    ("skips-450x4", lambda: shapes.skips(450, 4), {}),
    (
        "focused layered-3000, S1500, 2 hops",
        lambda: shapes.layered(3000, seed=2),
        {"focus": "S1500"},
    ),
]


def dot_seconds(plan, **options) -> tuple[float, object]:
    """Render once (no memo) with dot in a child process; its CPU seconds and the diagram."""
    got = {}
    real = drawing.lay_out

    def measured(graph, **kw):
        got["layout"] = real(graph, **{**kw, "in_child": True, "timeout": None})
        return got["layout"]

    drawing.lay_out = measured
    drawing._base.cache_clear()
    try:
        d = render(plan, **options)
    finally:
        drawing.lay_out = real
    return got["layout"].seconds, d


def cpu_now() -> float:
    """CPU seconds of this process and of its finished children (the layout child included)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def timed_render(plan, repeats: int = 2) -> tuple[float, float, object, object]:
    """Best wall and CPU seconds of a render with nothing memoised, the diagram, and the graph it laid out."""
    wall, cpu, d = math.inf, math.inf, None
    graphs = []
    real = drawing.lay_out

    def recorded(graph, **kw):
        # raises when out of time: then the next view's graph is the one drawn
        layout = real(graph, **kw)
        graphs.append(graph)
        return layout

    drawing.lay_out = recorded
    try:
        for _ in range(repeats):
            drawing._base.cache_clear()
            started, used = time.perf_counter(), cpu_now()
            d = render(plan)
            wall, cpu = min(wall, time.perf_counter() - started), min(cpu, cpu_now() - used)
    finally:
        drawing.lay_out = real
    return wall, cpu, d, graphs[-1]


def main() -> dict:
    rows = []
    for n in SIZES:
        plan = shapes.layered(n)
        wall, cpu, d, graph = timed_render(plan)
        dot = drawing.lay_out(
            graph, in_child=True, timeout=None
        ).seconds  # the floor: dot on the picture drawn
        whole = estimate(view_features(plan, plan_view(plan, max_steps=None)))
        full = dot_seconds(plan, max_steps=None, budget=None)[0] if n <= 300 else None
        rows.append(
            {
                "steps": n,
                "render_wall_s": wall,
                "render_cpu_s": cpu,
                "drawn": len(d.view.steps),
                "groups": len(d.view.groups),
                "dot_s": dot,
                "ratio": cpu / dot,
                "full_estimate_s": whole.seconds,
                "full_measured_s": full,
            }
        )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"render (default view) of layered plans, best of 2 (load average {load:.1f} on {os.cpu_count()} cores)"
    )
    print(
        "floor: dot's CPU time for the picture drawn; ratio: render's CPU time (its layout child included) to it"
    )
    print(
        f"{'steps':>6}{'wall s':>8}{'CPU s':>8}{'drawn':>7}{'groups':>7}{'dot s':>8}{'ratio':>7}"
        f"{'every step: model s':>21}{'measured s':>12}"
    )
    for r in rows:
        full = f"{r['full_measured_s']:12.2f}" if r["full_measured_s"] else f"{'-':>12}"
        print(
            f"{r['steps']:>6}{r['render_wall_s']:8.2f}{r['render_cpu_s']:8.2f}{r['drawn']:>7}{r['groups']:>7}"
            f"{r['dot_s']:8.2f}{r['ratio']:7.2f}{r['full_estimate_s']:21.1f}{full}"
        )
    for a, b in zip(rows, rows[1:]):
        exponent = math.log(b["render_cpu_s"] / a["render_cpu_s"]) / math.log(
            b["steps"] / a["steps"]
        )
        print(
            f"  scaling exponent of render's CPU time {a['steps']} -> {b['steps']} steps: {exponent:.2f}"
        )
    checks = []
    for name, make, options in CHECKS:
        plan = make()
        view = plan_view(plan, **{"max_steps": None, **options})
        model = estimate(view_features(plan, view)).seconds
        measured, d = dot_seconds(plan, **{"max_steps": None, "budget": None, **options})
        assert d.view == view
        checks.append(
            {
                "case": name,
                "model_s": model,
                "measured_s": measured,
                "error": max(model / measured, measured / model),
            }
        )
    print("\nlayout cost model on plans it was not fitted on (CPU seconds of dot)")
    print(f"{'case':<38}{'model s':>9}{'measured s':>12}{'factor':>8}")
    for c in checks:
        print(f"{c['case']:<38}{c['model_s']:9.2f}{c['measured_s']:12.2f}{c['error']:8.2f}")
    factors = sorted(c["error"] for c in checks)
    print(f"  median factor {factors[len(factors) // 2]:.2f}, max {factors[-1]:.2f}")
    figures = [
        figure(
            f"`render`, default view, layered {r['steps']:,} steps: wall time",
            r["render_wall_s"],
            at_most=BUDGET,
            unit=" s",
            detail=f"CPU {r['render_cpu_s']:.2f} s, {r['ratio']:.2f}x dot's {r['dot_s']:.2f} s; "
            f"{r['drawn']} steps and {r['groups']} groups drawn; best of 2",
        )
        for r in rows
    ]
    figures.append(
        figure(
            f"layout cost model on {len(checks)} held-out plans: median factor",
            factors[len(factors) // 2],
            detail=f"max {factors[-1]:.2f}x (no numeric goal)",
        )
    )
    return {"figures": figures, "render": rows, "model_checks": checks}


if __name__ == "__main__":
    main()
