"""Speed and size of the HTML report: a 300-step and a 2,000-step run.

Floor: one full ``render`` of a frame of the same run (a plan value render has
not seen, so it lays the plan out: Graphviz ``dot`` plus the picture). The report lays
each plan version out once and describes every frame by what its event
changed, so it should cost about one render plus work linear in the events
(target: under 2x one render and under 1 MB at 300 steps). The scaling
exponent is the report's time (and size) between the two sizes, against the
number of events (1 = linear). Wall-clock time, best of a few runs
(``bench_render.best_wall``), since the layout may run in a child process
(it does for the 300-step plan), which this process's CPU time would leave out.

Run: ``.venv/bin/python benchmarks/bench_report.py`` (or ``make bench``).
"""

from __future__ import annotations

import math
import os
import tempfile

from bench_render import best_wall, plan_of
from common import figure

from planviz import Fault, Plan, Step, render, report_html, simulate

TARGET_RATIO, TARGET_BYTES = 2.0, 1_000_000


def chains(n: int, width: int = 40) -> Plan:
    """``width`` parallel chains: a 2,000-step plan Graphviz lays out in seconds (a random one takes minutes)."""
    steps = [
        Step(
            f"S{i:04d}",
            f"step {i}: do the thing number {i}",
            expected_evidence="ok",
            depends_on=[f"S{i - width:04d}"] if i >= width else [],
            produces=[f"f{i}"],
            duration=1 + i % 3,
        )
        for i in range(n)
    ]
    return Plan("benchmark goal", steps, time_unit="min")


def main() -> dict:
    rows = []
    cases = [
        ("layered", plan_of(300), False, 3),
        ("layered", plan_of(300), True, 2),
        ("chains", chains(2000), False, 2),
    ]
    for name, plan, fault, repeats in cases:
        faults = [Fault(sorted(plan.ids)[len(plan) // 2], "side_effect")] if fault else []
        fresh = iter(
            [
                simulate(plan.replace(goal=f"{name} {fault} render goal {k}"), faults=faults)
                for k in range(repeats)
            ]
        )
        floor = best_wall(lambda: render((run := next(fresh)).plan, run=run), repeats)
        # each run of a new plan value: the report lays it out itself, as it would a run it never saw
        runs = [
            simulate(plan.replace(goal=f"{name} {fault} report goal {k}"), faults=faults)
            for k in range(repeats)
        ]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "report.html")
            last = runs[0]
            took = best_wall(lambda: report_html(runs.pop(), path), repeats)
            # its layouts made already: the report's own work
            own = best_wall(lambda: report_html(last, path), repeats)
            size = os.path.getsize(path)
        run = simulate(plan, faults=faults)
        rows.append(
            {
                "plan": name + (" + side effect" if fault else ""),
                "steps": len(plan),
                "events": len(run.events),
                "versions": len(run.plans),
                "render_s": floor,
                "report_s": took,
                "own_s": own,
                "ratio": took / floor,
                "bytes": size,
            }
        )
    print(
        f"{'run':<22} {'steps':>6} {'events':>7} {'versions':>8} {'render s':>9} {'report s':>9} {'x render':>8} "
        f"{'own s':>6} {'MB':>6}"
    )
    for r in rows:
        print(
            f"{r['plan']:<22} {r['steps']:>6} {r['events']:>7} {r['versions']:>8} {r['render_s']:9.2f} "
            f"{r['report_s']:9.2f} {r['ratio']:8.2f} {r['own_s']:6.2f} {r['bytes'] / 1e6:6.2f}"
        )
    print(
        "own: the report again, its layouts already made (render keeps them): what it adds to the layouts."
    )
    a, b = rows[0], rows[-1]
    grow = math.log(b["events"] / a["events"])
    print(
        f"floor: one full render (layout) of a frame of the same run. targets, 300-step run: <= {TARGET_RATIO:g}x, "
        f"< {TARGET_BYTES / 1e6:g} MB (a replan adds one layout and one picture per plan version)."
    )
    print(
        f"scaling exponents vs events, 300 -> 2,000 steps: time {math.log(b['report_s'] / a['report_s']) / grow:.2f}, "
        f"size {math.log(b['bytes'] / a['bytes']) / grow:.2f} (the two plans' layouts differ in shape)"
    )
    met = a["ratio"] <= TARGET_RATIO and a["bytes"] < TARGET_BYTES
    print(f"targets met: {'yes' if met else 'NO'}")
    replan = rows[1]
    figures = [
        figure(
            f"`report_html` of a {a['steps']}-step run / one full `render` of it",
            a["ratio"],
            at_most=TARGET_RATIO,
            detail=f"{a['report_s']:.2f} s / {a['render_s']:.2f} s wall ({a['own_s']:.2f} s its own work), "
            f"best of {cases[0][3]}",
        ),
        figure(
            f"`report_html` of a {a['steps']}-step run, page size",
            a["bytes"] / 1e6,
            at_most=TARGET_BYTES / 1e6,
            unit=" MB",
            detail=f"{a['bytes']:,} bytes",
        ),
        # no goal of their own: a replan adds one layout and one picture per plan version
        figure(
            f"the same with a replan ({replan['versions']} plan versions) / one full `render`",
            replan["ratio"],
            detail=f"{replan['report_s']:.2f} s / {replan['render_s']:.2f} s wall, {replan['bytes'] / 1e6:.2f} MB",
        ),
    ]
    return {"figures": figures, "rows": rows, "targets_met": met}


if __name__ == "__main__":
    main()
