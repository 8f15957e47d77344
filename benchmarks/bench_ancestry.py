"""How fast is ``validate`` when facts come from far up? (``make bench``; never asserted in tests.)

The ancestor rule of validation asks, for every fact a step requires, whether
a step producing it is among the step's ancestors. Facts from the step's own
dependencies (or theirs) are answered on the spot; here every step requires
a fact produced 2 to 20 levels up along a random path of dependencies (the
layered plans of :mod:`common`, ``far=True``), so every question goes to the
batched sweep of :mod:`planviz.structure.ancestry`. The plans are valid: the
report must be clean, as the answers are all "yes".

Compared with one ``networkx.topological_sort`` of the same, prebuilt graph
(issue 17's floor; target: within 3x at 100k steps), with the same plans'
facts taken from a dependency (the near case) for reference, and the scaling
exponent k of t ~ n^k between sizes. Each validate call gets a fresh ``Plan``
(made outside the timed region), so the per-plan index is built inside the
timing; least CPU time of a few interleaved rounds (:func:`common.best`).

Run: ``.venv/bin/python benchmarks/bench_ancestry.py`` (or ``make bench``).
"""

from __future__ import annotations

from typing import Any

import networkx as nx
from common import SIZES, best, digraph, exponent, figure, layered_data, repeats, show_exponent

from planviz import Plan, validate

TARGET = 3.0


def main() -> dict[str, Any]:
    rows = []
    for n in SIZES:
        far_data = layered_data(n, far=True)
        g = digraph(far_data)
        far = Plan.from_dict(far_data)
        near = Plan.from_dict(layered_data(n))
        assert not validate(far).errors and not validate(near).errors
        t = best(
            {
                "topo": lambda _: list(nx.topological_sort(g)),
                "far": lambda plans: validate(plans[0]),
                "near": lambda plans: validate(plans[1]),
            },
            repeats(n),
            lambda: (Plan(far.goal, far.steps), Plan(near.goal, near.steps)),
        )
        rows.append(
            {
                "steps": n,
                "edges": g.number_of_edges(),
                **t,
                "far_ratio": t["far"] / t["topo"],
                "near_ratio": t["near"] / t["topo"],
            }
        )
    sizes = [r["steps"] for r in rows]
    for key in ("far", "near", "topo"):
        for r, k in zip(rows, exponent(sizes, [r[key] for r in rows])):
            r[f"{key}_exponent"] = k
    print(
        f"{'steps':>8}{'edges':>8}{'topo s':>9}{'far s':>8}{'ratio':>7}{'target':>7}{'k':>6}{'near s':>8}"
        f"{'ratio':>7}{'k':>6}{'topo k':>8}"
    )
    for r in rows:
        print(
            f"{r['steps']:>8}{r['edges']:>8}{r['topo']:9.4f}{r['far']:8.3f}{r['far_ratio']:7.2f}{TARGET:6.1f}x"
            f"{show_exponent(r['far_exponent']):>6}{r['near']:8.3f}{r['near_ratio']:7.2f}"
            f"{show_exponent(r['near_exponent']):>6}{show_exponent(r['topo_exponent']):>8}"
        )
    print(
        "far: every step requires a fact produced 2-20 levels up; near: from one of its dependencies. ratio = "
        "validate /\none networkx.topological_sort of the prebuilt graph; k = scaling exponent from the size before."
    )
    met = rows[-1]["far_ratio"] <= TARGET
    print(f"target at 100k: {'met' if met else 'MISSED'}")
    big = rows[-1]
    shown = figure(
        f"`validate` {big['steps'] // 1000}k, facts 2-20 levels up / one topological sort",
        big["far_ratio"],
        at_most=TARGET,
        detail=f"{big['far']:.3f} s / {big['topo']:.4f} s",
    )
    return {"figures": [shown], "rows": rows, "target": TARGET, "met_at_100k": met}


if __name__ == "__main__":
    main()
