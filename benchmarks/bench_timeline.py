"""Speed of ready_timeline at 1k, 10k and 100k steps, against one networkx.topological_sort of the same graph.

ready_timeline plays the schedule out in time (durations, a worker limit,
exclusive resources) in O((V + E) log V) and linear memory: points hold what
changed. The cases: integer durations with unlimited workers, float durations
(every finish its own event time), a limit of 4 workers, and a third of the
steps sharing one exclusive resource. Each timed call gets a fresh ``Plan``
(the structural index is built inside); the floor is one
``nx.topological_sort`` of a prebuilt ``DiGraph``. The scaling exponent
between sizes is for the time per call (1 = linear; ``log V`` adds about 0.1
from 10k to 100k); its goal between the two largest sizes is 1.25 (issue 28's
"linear", 1.15, plus that log factor). Least
CPU time of a few calls (:func:`common.best`).

Run: ``.venv/bin/python benchmarks/bench_timeline.py`` (or ``make bench``).
"""

from __future__ import annotations

import random

import networkx as nx
from common import SIZES, best, exponent, figure, show_exponent

from planviz import Plan, Step, ready_timeline

# O((V + E) log V): issue 28's "linear" (an exponent of 1.15 between the two largest sizes) plus what
# the log V factor adds from 10k to 100k steps, log10(log 1e5 / log 1e4) = 0.097
EXPONENT_GOAL = 1.25
CASES = {
    "int durations": {},
    "float durations": {"floats": True},
    "workers=4": {"workers": 4},
    "shared resource": {"floats": True, "shared": True},
}


def make_steps(n: int, floats: bool = False, shared: bool = False, seed: int = 0) -> list[Step]:
    """Layered steps (about 100 per layer), each depending on 1-3 of the layer before."""
    rng = random.Random(seed)
    width = max(10, n // 100)
    steps, prev = [], []
    for start in range(0, n, width):
        layer = list(range(start, min(n, start + width)))
        for i in layer:
            deps = rng.sample(prev, min(len(prev), rng.randint(1, 3))) if prev else []
            steps.append(
                Step(
                    f"s{i:06d}",
                    "a",
                    depends_on=[f"s{d:06d}" for d in deps],
                    duration=rng.random() * 10 if floats else rng.randint(1, 10),
                    resources=["db"] if shared and i % 3 == 0 else [],
                )
            )
        prev = layer
    return steps


def main() -> dict:
    rows = []
    for n in SIZES:
        repeats = 5 if n < 100_000 else 2
        base = make_steps(n)
        g = nx.DiGraph()
        g.add_nodes_from(s.id for s in base)
        g.add_edges_from((d, s.id) for s in base for d in s.depends_on)
        floor = best({"topo": lambda _: list(nx.topological_sort(g))}, repeats)["topo"]
        row = {"steps": n, "topo_s": floor}
        for name, options in CASES.items():
            steps = make_steps(n, options.get("floats", False), options.get("shared", False))
            workers = options.get("workers")
            row[name] = best(
                {name: lambda p: ready_timeline(p, workers=workers)},
                repeats,
                lambda: Plan("bench", steps),
            )[name]
        rows.append(row)
    head = f"{'steps':>8} {'topo s':>8} " + " ".join(f"{name:>16}" for name in CASES)
    print(head)
    for r in rows:
        print(
            f"{r['steps']:>8} {r['topo_s']:8.4f} "
            + " ".join(f"{r[name]:8.3f} s {r[name] / r['topo_s']:4.0f}x" for name in CASES)
        )
    print(
        "floor: one nx.topological_sort of the same (prebuilt) graph; each ready_timeline call on a fresh Plan."
    )
    sizes = [r["steps"] for r in rows]
    exps = {name: exponent(sizes, [r[name] for r in rows])[1:] for name in CASES}
    for name in CASES:
        print(f"scaling exponent {name}: {', '.join(show_exponent(e) for e in exps[name])}")
    a, b = rows[-2], rows[-1]
    shown = [
        figure(
            f"`ready_timeline` {name}, time exponent {a['steps'] // 1000}k -> {b['steps'] // 1000}k steps",
            exps[name][-1],
            at_most=EXPONENT_GOAL,
            unit="",
            detail=f"{a[name]:.3f} s -> {b[name]:.3f} s; the sort's exponent "
            f"{exponent(sizes, [r['topo_s'] for r in rows])[-1]:.2f}",
        )
        for name in CASES
    ]
    return {"figures": shown, "rows": rows}


if __name__ == "__main__":
    main()
