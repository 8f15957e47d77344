"""Speed of simulate and of traces (save_trace/load_trace) on layered plans.

Every event of a run is a complete frame (the status of every step), so a run
of n steps makes about 2n frames of n statuses: the work is O(n^2) by design.
The figures show the cost per frame-entry (seconds / (events x steps)) staying
flat as plans grow, and simulate against one networkx.topological_sort of the
same plan (the cheapest pass that visits the graph in dependency order).
Times are the least CPU time (``time.process_time``) of a few repeats.

Run: ``.venv/bin/python benchmarks/bench_runtime.py`` (or ``make bench``).
"""

from __future__ import annotations

import os
import random
import tempfile
import time

import networkx as nx

from planviz import Fault, Plan, Step, load_trace, save_trace, simulate, to_graph

SIZES = (100, 300, 1000)


def make_plan(n: int, width: int = 20, seed: int = 0) -> Plan:
    """Steps in layers of ``width``, each depending on up to two steps of the layer before and requiring their facts."""
    rng = random.Random(seed)
    steps = []
    for i in range(n):
        layer = i // width
        before = range((layer - 1) * width, layer * width) if layer else range(0)
        deps = sorted(rng.sample(list(before), min(2, len(before))))
        steps.append(Step(f"S{i:05d}", f"step {i}", expected_evidence="e", depends_on=[f"S{j:05d}" for j in deps],
                          requires=[f"f{j}" for j in deps], produces=[f"f{i}"], duration=rng.randint(1, 9),
                          kind="patch" if i % 7 == 0 else None))
    return Plan("benchmark", steps)


def best(fn, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return min(times)


def main() -> dict:
    results: dict = {}
    print(f"{'steps':>6} {'strategy':>9} {'events':>7} {'simulate s':>11} {'us/entry':>9} {'x toposort':>11} "
          f"{'save s':>7} {'load s':>7}")
    for n in SIZES:
        plan = make_plan(n)
        graph = to_graph(plan)
        topo = best(lambda: list(nx.topological_sort(graph)), 5)
        fault = Fault(f"S{n // 2:05d}", "side_effect")
        for strategy in ("direct", "workflow", "planner"):
            repeats = 1 if n >= 1000 else 3
            run = simulate(plan, faults=[fault], strategy=strategy)
            sim = best(lambda: simulate(plan, faults=[fault], strategy=strategy), repeats)
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "run.jsonl")
                save = best(lambda: save_trace(run, path), repeats)
                load = best(lambda: load_trace(path), repeats)
            per_entry = sim / (len(run.events) * n) * 1e6
            ratio = sim / topo if topo else float("inf")
            print(f"{n:>6} {strategy:>9} {len(run.events):>7} {sim:>11.3f} {per_entry:>9.2f} {ratio:>11.0f} "
                  f"{save:>7.3f} {load:>7.3f}")
            results[f"{n}/{strategy}"] = {"events": len(run.events), "simulate_s": sim, "us_per_frame_entry": per_entry,
                                          "x_toposort": ratio, "save_s": save, "load_s": load,
                                          "outcome": run.outcome}
    return results


if __name__ == "__main__":
    main()
