"""Benchmark: one frame of a run vs a full layout, on a 300-step plan (issue 4: frame <= 0.25x layout).

A frame restyles the picture laid out once for the plan version (by node id);
a full render builds the graph and runs the Graphviz ``dot`` layout. Both are
measured through the public :func:`planviz.render`, best of a few repeats, in
wall-clock time: the full layout of this plan runs ``dot`` in a child process,
which this process's CPU time (``common.best``) would leave out.
"""

from __future__ import annotations

import random
import time

from common import figure

from planviz import ExecutionState, Plan, Run, Step, render, simulate

TARGET = 0.25  # issue 4: one frame, the layout reused, at most a quarter of a full layout


def plan_of(n: int = 300, width: int = 10, seed: int = 7, goal: str = "benchmark goal") -> Plan:
    """A layered random DAG: ``n`` steps in waves of ``width``, each depending on 1-3 earlier steps."""
    rnd = random.Random(seed)
    steps: list[Step] = []
    for i in range(n):
        layer = i // width
        pool = [s.id for s in steps[max(0, (layer - 3) * width) : layer * width]]
        deps = rnd.sample(pool, min(len(pool), rnd.randint(1, 3))) if pool else []
        steps.append(
            Step(
                f"S{i}",
                f"step {i}: do the thing number {i} carefully",
                expected_evidence="ok",
                depends_on=deps,
                requires=[f"f{d[1:]}" for d in deps],
                produces=[f"f{i}"],
                duration=rnd.randint(1, 9),
            )
        )
    return Plan(goal, steps, time_unit="min")


def best_wall(fn, repeats: int) -> float:
    """The least wall-clock seconds of ``fn()`` over ``repeats`` runs (for work whose layout runs in a child)."""
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main(n: int = 300, repeats: int = 2) -> dict:
    plan = plan_of(n)
    run = simulate(plan)
    # A new goal text makes a new plan value, so each of these misses the layout memo: a full layout.
    fresh = iter([plan.replace(goal=f"benchmark goal {i}") for i in range(2 * repeats)])
    full_plan = best_wall(lambda: render(next(fresh)), repeats)
    fresh_runs = iter(
        [
            Run(run.events[:1], None, ExecutionState(), (p,))
            for p in [plan.replace(goal=f"run goal {i}") for i in range(repeats)]
        ]
    )
    full_frame = best_wall(lambda: render(plan, run=next(fresh_runs), at=0), repeats)
    render(plan, run=run, at=0)  # lay out once
    frames = list(range(0, len(run.events), max(1, len(run.events) // 10)))
    frame = best_wall(lambda: [render(plan, run=run, at=i) for i in frames], repeats) / len(frames)
    ratio = frame / full_frame
    print(f"render benchmark: {n}-step plan, {len(run.events)} events; best of {repeats}")
    print(f"  {'full layout + render (plan)':<34}{full_plan:>9.3f} s")
    print(f"  {'full layout + render (run frame)':<34}{full_frame:>9.3f} s")
    print(f"  {'one frame, layout reused':<34}{frame:>9.3f} s")
    print(f"  {'frame / full layout':<34}{ratio:>9.2f} x   (target <= {TARGET:g})")
    fig = figure(
        f"one frame of a {n}-step run ({len(run.events)} events), layout reused / a full layout",
        ratio,
        at_most=TARGET,
        detail=f"{frame * 1e3:.0f} ms / {full_frame:.2f} s wall, best of {repeats}",
    )
    return {
        "figures": [fig],
        "steps": n,
        "full_plan_s": full_plan,
        "full_frame_s": full_frame,
        "frame_s": frame,
        "ratio": ratio,
    }


if __name__ == "__main__":
    main()
